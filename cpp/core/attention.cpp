// Multi-head attention, written as the numbered steps of the notes so each one lands
// in its own trace stage. The fast path (trace == nullptr) runs the same steps without
// recording; the SIMD long-context kernels live in cpp/kernels/.
#include "core/attention.hpp"
#include "core/limits.hpp"

#include <cmath>
#include <limits>

#include "core/layers.hpp"
#include "kernels/attention.hpp"
#include "kernels/parallel.hpp"

namespace ap {

namespace {

void check_matrix(const Weight& w, int rows, int cols, const std::string& name) {
  if (w.rows() != rows || w.cols() != cols)
    fail(name + " has shape (" + std::to_string(w.rows()) + ", " + std::to_string(w.cols()) + "), expected (" +
         std::to_string(rows) + ", " + std::to_string(cols) + ")");
  w.check_finite(name);
}

void check_bias(const Vec& b, int d, const std::string& name) {
  if (b.size() == 0) return;
  if (b.size() != d) fail(name + " has length " + std::to_string(b.size()) + ", expected " + std::to_string(d));
  check_finite(b.data(), static_cast<size_t>(b.size()), name);
}

// Is key j hidden from query i?
bool is_masked(const AttentionOptions& opt, int i, int j) {
  if (opt.causal && opt.k_offset + j > opt.q_offset + i) return true;  // a future token
  // Sliding window (Mistral, Hugging Face's definition): query position p sees key positions
  // p - window < pos <= p; older keys are hidden.
  if (opt.causal && opt.window > 0 && opt.k_offset + j <= opt.q_offset + i - opt.window) return true;
  if (opt.key_padding && (*opt.key_padding)[static_cast<size_t>(j)]) return true;
  return false;
}

}  // namespace

void check_attention_weights(const AttentionWeights& w, int d_model, int n_heads, int n_kv_heads) {
  limits::check_heads(d_model, n_heads);
  limits::check_kv_heads(n_heads, n_kv_heads);
  const int kv = n_kv_heads > 0 ? n_kv_heads * (d_model / n_heads) : d_model;
  check_matrix(w.wq, d_model, d_model, "wq");
  check_matrix(w.wk, d_model, kv, "wk");
  check_matrix(w.wv, d_model, kv, "wv");
  check_matrix(w.wo, d_model, d_model, "wo");
  check_bias(w.bq, d_model, "bq");
  check_bias(w.bk, kv, "bk");
  check_bias(w.bv, kv, "bv");
  check_bias(w.bo, d_model, "bo");
}

void multi_head_attention(Mat& out, const Mat& x, const Mat& memory, const AttentionWeights& w,
                          const AttentionOptions& opt, Trace* trace, const std::string& prefix,
                          const std::string& stack, int layer) {
  const int n = static_cast<int>(x.rows());
  const int d = static_cast<int>(x.cols()), h = opt.n_heads, d_k = d / h;
  const int g_heads = opt.n_kv_heads > 0 ? opt.n_kv_heads : h, d_kv = g_heads * d_k, group = h / g_heads;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  if (!std::isfinite(opt.additive_mask) || opt.additive_mask > 0.0f)
    fail("the additive mask must be a finite negative number (the notes use -1e9), or 0 for -inf; got " +
         std::to_string(opt.additive_mask));
  auto record2d = [&](const char* name, const Mat& src) {
    if (trace && trace->keeps(prefix + name, layer))
      trace->add2d(prefix + name, stack, layer, static_cast<int>(src.rows()), static_cast<int>(src.cols())) = src;
  };

  // 1. Projections: Q = X W_Q + b_Q (n, d); K = M W_K + b_K, V = M W_V + b_V (m, d).
  Mat q, k, v;
  linear(q, x, w.wq, w.bq);
  const bool reuse = opt.cache && !opt.cache_append && opt.cache->k.rows() > 0;
  const bool append = opt.cache && opt.cache_append;
  int k_offset = append ? static_cast<int>(opt.cache->k.rows()) : opt.k_offset;
  if (reuse) {  // cross-attention while decoding: the memory's K and V never change
    k = opt.cache->k;
    v = opt.cache->v;
  } else if (w.wk.cols() == d_kv) {
    linear(k, memory, w.wk, w.bk);
    linear(v, memory, w.wv, w.bv);
  } else {
    // Grouped K/V on a multi-head model's weights: each group's projection is the mean of its heads'
    // (pool_kv_heads, core/modern.cpp), from float copies of the weights. Linear, so RoPE after it commutes.
    Mat wk, wv;
    Vec bk, bv;
    pool_kv_heads(wk, bk, w.wk.widened(), w.bk, h, g_heads);
    pool_kv_heads(wv, bv, w.wv.widened(), w.bv, h, g_heads);
    linear(k, memory, wk, bk);
    linear(v, memory, wv, bv);
  }
  // Self-attention while decoding: append this call's K and V rows, then attend to all of them.
  auto append_to_cache = [&]() {
    KVCache& c = *opt.cache;
    const Eigen::Index old_rows = c.k.rows();
    c.k.conservativeResize(old_rows + k.rows(), d_kv);
    c.v.conservativeResize(old_rows + v.rows(), d_kv);
    c.k.bottomRows(k.rows()) = k;
    c.v.bottomRows(v.rows()) = v;
    k = c.k;
    v = c.v;
    k_offset = 0;
  };
  record2d("q", q);
  if (opt.pos != PosKind::Rope) {
    if (append) append_to_cache();
    record2d("k", k);
  } else {
    // RoPE: rotate each (2i, 2i+1) pair of q and k by its position. k is the plain projection of
    // this call's rows; k_rot holds every key attended to (cached keys are kept rotated).
    if (!reuse) record2d("k", k);
    apply_rope(q, h, opt.q_offset, opt.rope_theta);
    if (!reuse) apply_rope(k, g_heads, k_offset, opt.rope_theta);
    if (append) append_to_cache();
    record2d("q_rot", q);
    record2d("k_rot", k);
  }
  record2d("v", v);
  if (trace && trace->keeps(prefix + "kv_group", layer)) {  // which K/V head each query head reads
    Stage& g = trace->add(prefix + "kv_group", stack, layer, {h});
    for (int hd = 0; hd < h; ++hd) g.data[static_cast<size_t>(hd)] = static_cast<float>(hd / group);
  }
  if (opt.cache && !opt.cache_append && !reuse) {
    opt.cache->k = k;
    opt.cache->v = v;
  }
  const int m = static_cast<int>(k.rows());
  AttentionOptions mask_opt = opt;
  mask_opt.k_offset = k_offset;
  if (opt.key_padding && static_cast<int>(opt.key_padding->size()) != m)
    fail("key padding has " + std::to_string(opt.key_padding->size()) + " entries for " + std::to_string(m) + " keys");

  // Per-head stage buffers (h, n, m) / (h, n, d_k): in the trace, or local on the fast path.
  std::vector<float> local[6];
  auto stage3d = [&](int slot, const char* name, int rows, int cols) -> float* {
    if (trace) return trace->add(prefix + name, stack, layer, {h, rows, cols}).data.data();
    local[slot].assign(static_cast<size_t>(h) * rows * cols, 0.0f);
    return local[slot].data();
  };
  float* scores = stage3d(0, "scores", n, m);
  float* bias = (opt.pos == PosKind::Relative && opt.rel_bias) ? stage3d(1, "pos_bias", n, m) : nullptr;
  float* scaled = stage3d(2, "scaled", n, m);
  float* masked = stage3d(3, "masked", n, m);
  float* weights = stage3d(4, "weights", n, m);
  float* head_out = stage3d(5, "head_out", n, d_k);

  Mat concat(n, d);
  const float inv_sqrt_dk = opt.scale ? 1.0f / std::sqrt(static_cast<float>(d_k)) : 1.0f;
  const size_t nm = static_cast<size_t>(n) * m, nd = static_cast<size_t>(n) * d_k;
  // Heads are independent (each writes its own stage slices and columns of concat): in the threaded
  // module one task per head, each head's products then on its task's thread alone. (The
  // single-thread modules compile the plain loop: a lambda here cost the first module 0.7 KB.)
#if AP_KERNELS_THREADED
  auto one_head = [&](int hd) {
#else
  for (int hd = 0; hd < h; ++hd) {
#endif
    // Head hd owns columns hd*d_k .. hd*d_k + d_k - 1 of Q, K, V: the head axis is a batch axis.
    MatMap s(scores + hd * nm, n, m), sc(scaled + hd * nm, n, m), mk(masked + hd * nm, n, m);
    MatMap a(weights + hd * nm, n, m), o(head_out + hd * nd, n, d_k);

    // 2. Scores: S = Q_h K_h^T, entry (i, j) = q_i . k_j (the SIMD kernel reads the head's columns in place).
    // Head hd reads K/V head hd / group (grouped-query attention; group = 1 for multi-head).
    const int kv_col = (hd / group) * d_k;
    kernels::qk_scores(s.data(), m, q.data() + hd * d_k, d, k.data() + kv_col, d_kv, n, m, d_k);  // (n, m)
    // 3. Scale: dot products grow like sqrt(d_k); dividing keeps softmax out of saturation.
    sc = s * inv_sqrt_dk;
    if (bias) {  // relative positions: a learned bias per head and clipped offset j - i
      MatMap b(bias + hd * nm, n, m);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j) {
          int off = (k_offset + j) - (opt.q_offset + i);
          off = std::max(-opt.rel_clip, std::min(opt.rel_clip, off));
          b(i, j) = (*opt.rel_bias)(hd, off + opt.rel_clip);
        }
      sc += b;
    }
    // 4. Mask: hidden keys become -inf, so softmax gives them exactly 0 (or, as in the notes'
    //    listing, get a large negative number added: exp(-1e9 - max) underflows to 0 too).
    const bool additive = opt.additive_mask != 0.0f;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < m; ++j) {
        const bool hidden = is_masked(mask_opt, i, j);
        mk(i, j) = !hidden ? sc(i, j) : additive ? sc(i, j) + opt.additive_mask : neg_inf;
      }
    // 5. Softmax each row into weights that are >= 0 and sum to 1 (row max subtracted first).
    kernels::softmax_rows(a.data(), m, mk.data(), m, n, m);
    // 6. Weighted sum of values: head_out = A V_h.
    kernels::weights_v(o.data(), d_k, a.data(), m, v.data() + kv_col, d_kv, n, m, d_k);  // (n, d_k)
    concat.middleCols(hd * d_k, d_k) = o;
#if AP_KERNELS_THREADED
  };
  if (h > 1 && static_cast<double>(n) * m * d_k * h >= kernels::kParallelMinWork)
    kernels::parallel_for(h, one_head);
  else
    for (int hd = 0; hd < h; ++hd) one_head(hd);
#else
  }
#endif
  record2d("concat", concat);
  // 7. Mix the heads: attn_out = concat W_O + b_O.
  linear(out, concat, w.wo, w.bo);
  record2d("attn_out", out);
}

}  // namespace ap
