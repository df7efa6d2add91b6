// The fast attention kernels: Q K^T, row softmax with a vectorised exp, weights @ V, and the tiled
// online-softmax attention that never holds the (n, m) matrix. No Eigen, no allocation, no libc:
// this file (with gemm_tiled.cpp) also builds into the standalone relaxed-SIMD kernel module.
#include "kernels/attention.hpp"
#include "kernels/impl.hpp"
#include "kernels/simd4.hpp"

#include <limits>
#include <type_traits>

namespace ap::kernels {

const char* impl::variant() {
#if AP_SIMD_RELAXED
  return "relaxed";
#elif AP_SIMD_WASM
  return "simd128";
#elif AP_SIMD_SSE2
  return "sse2";
#else
  return "scalar";
#endif
}

namespace {

using namespace simd;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// ---- Q K^T ---------------------------------------------------------------------------------------
// Q K^T is computed as a GEMM against K^T: a block of BK keys is transposed (and scaled by alpha,
// which folds the 1/sqrt(d_k) into a pass we make anyway) into a small panel, then the GEMM
// micro-kernel broadcasts Q and streams the panel. Measured faster than dot products along d_k
// (which need a horizontal reduction per score), and it reuses the one tuned micro-kernel.
constexpr int BK = 64;    // keys per block (columns of a score block)
constexpr int KT_D = 64;  // d_k rows per transposed panel: the panel is at most 16 KB of stack

// kt (dc, bk; row stride BK) = alpha * K (bk, dc; ldk)^T, in 4x4 blocks transposed in registers.
AP_NOINLINE void transpose_scaled(float* kt, const float* k, int ldk, int bk, int dc, float alpha) {
  const v4 va = splat(alpha);
  int c = 0;
  for (; c + 4 <= bk; c += 4) {
    const float* k0 = k + static_cast<long>(c) * ldk;
    int p = 0;
    for (; p + 4 <= dc; p += 4) {
      v4 a = load(k0 + p), b = load(k0 + ldk + p), cc = load(k0 + 2 * ldk + p), d = load(k0 + 3 * ldk + p);
      v4 t0 = shuf_0415(a, b), t1 = shuf_2637(a, b);    // a0 b0 a1 b1 | a2 b2 a3 b3
      v4 t2 = shuf_0415(cc, d), t3 = shuf_2637(cc, d);  // c0 d0 c1 d1 | c2 d2 c3 d3
      store(kt + (p + 0) * BK + c, mul(shuf_0145(t0, t2), va));
      store(kt + (p + 1) * BK + c, mul(shuf_2367(t0, t2), va));
      store(kt + (p + 2) * BK + c, mul(shuf_0145(t1, t3), va));
      store(kt + (p + 3) * BK + c, mul(shuf_2367(t1, t3), va));
    }
    for (; p < dc; ++p)
      for (int cc = 0; cc < 4; ++cc) kt[p * BK + c + cc] = alpha * k0[cc * ldk + p];
  }
  for (; c < bk; ++c)
    for (int p = 0; p < dc; ++p) kt[p * BK + c] = alpha * k[static_cast<long>(c) * ldk + p];
}

// s (n, bk; lds) = alpha Q (n, d; ldq) K_blk (bk, d; ldk)^T for one block of bk <= BK keys.
// kt: a KT_D x BK scratch panel; when d <= KT_D it holds alpha K_blk^T on return.
void qk_block(float* s, int lds, const float* q, int ldq, const float* k, int ldk, int n, int bk, int d, float alpha,
              float* kt) {
  for (int d0 = 0; d0 == 0 || d0 < d; d0 += KT_D) {  // d == 0 still writes zeros
    int dc = d - d0 < KT_D ? d - d0 : KT_D;
    transpose_scaled(kt, k + d0, ldk, bk, dc, alpha);
    impl::gemm_tiled(s, lds, q + d0, ldq, kt, BK, nullptr, n, dc, bk, d0 > 0);  // (n, bk) [+]= (n, dc)(dc, bk)
  }
}

// Q K^T for the scores a caller keeps (kernels::qk_scores: the traced attention, GPT-2's tied head
// over its 50257 embedding rows): each score a dot product along d_k, read straight from the rows of
// Q and K, a (R x K) tile of scores at a time in R*K vector sums. No transposed panel (the online
// attention below uses one, amortised over its query block; here the head's 154 MB of keys would be
// transposed once per call). Each sum runs in 4 lanes (p mod 4), added at the end as hsum does, plus
// the d_k % 4 tail in order, then times alpha: every tile shape gives the same bits for a score, so
// a decoding step (one row) computes exactly what the whole-sequence pass computes for that row.
// Against a sequential sum: rounding only.
// Unscaled (F16 keys, d % 8 == 0): q holds the queries times 2^112 and the keys are read with
// load8_unscaled (simd4.hpp), their floats times 2^-112: the same products, fewer operations.
template <int R, int K, typename KT, bool Unscaled = false>
AP_INLINE void qk_dot_tile(float* s, int lds, const float* q, int ldq, const KT* k, int ldk, int d, float alpha) {
  v4 acc[R][K];
  for (int r = 0; r < R; ++r)
    for (int i = 0; i < K; ++i) acc[r][i] = zero();
  int p = 0;
  if constexpr (sizeof(KT) == 2) {  // 16-bit keys: 8 widened per load, the same sums in the same order
    for (; p + 8 <= d; p += 8) {
      v4 qlo[R], qhi[R];
      for (int r = 0; r < R; ++r) load8(q + static_cast<long>(r) * ldq + p, qlo[r], qhi[r]);
      for (int i = 0; i < K; ++i) {
        v4 klo, khi;
        if constexpr (Unscaled)
          load8_unscaled(k + static_cast<long>(i) * ldk + p, klo, khi);
        else
          load8(k + static_cast<long>(i) * ldk + p, klo, khi);
        for (int r = 0; r < R; ++r) acc[r][i] = madd(qhi[r], khi, madd(qlo[r], klo, acc[r][i]));
      }
    }
  }
  for (; p + 4 <= d; p += 4) {
    v4 qv[R];
    for (int r = 0; r < R; ++r) qv[r] = load(q + static_cast<long>(r) * ldq + p);
    for (int i = 0; i < K; ++i) {
      const v4 kv = load(k + static_cast<long>(i) * ldk + p);
      for (int r = 0; r < R; ++r) acc[r][i] = madd(qv[r], kv, acc[r][i]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int i = 0; i < K; ++i) {
      float tail = 0.0f;
      for (int t = p; t < d; ++t) tail += q[static_cast<long>(r) * ldq + t] * to_f32(k[static_cast<long>(i) * ldk + t]);
      s[static_cast<long>(r) * lds + i] = (hsum(acc[r][i]) + tail) * alpha;
    }
}

// One query row: 8 keys per tile (8 independent sums keep the adder busy). K is float, or a tied
// head's F16 / BF16 embedding rows widened in registers (load(), simd4.hpp): the same sums.
template <typename KT, bool Unscaled = false>
AP_NOINLINE void qk_dot_row(float* s, const float* q, const KT* k, int ldk, int m, int d, float alpha) {
  int c = 0;
  for (; c + 8 <= m; c += 8)
    qk_dot_tile<1, 8, KT, Unscaled>(s + c, 0, q, 0, k + static_cast<long>(c) * ldk, ldk, d, alpha);
  for (; c < m; ++c) qk_dot_tile<1, 1, KT, Unscaled>(s + c, 0, q, 0, k + static_cast<long>(c) * ldk, ldk, d, alpha);
}

// Rows in blocks of kDotRows (their Q rows stay in L2 while all the keys stream past), 2 rows x 4
// keys per tile: 8 sums, 2 + 4 loads per 8 multiply-adds.
constexpr int kDotRows = 64;

// 16-bit keys (a tied head's embedding rows) are widened 4 at a time into a float panel that serves
// every row pair of the block, instead of once per row pair: widening is exact, so the tiles then
// add the same products in the same order. Rows longer than kWidenD keep the widening loads.
constexpr int kWidenD = 2048;

template <typename H>
AP_NOINLINE void widen_keys(float* out, const H* k, int ldk, int d) {
  for (int i = 0; i < 4; ++i) {
    const H* ki = k + static_cast<long>(i) * ldk;
    float* oi = out + static_cast<long>(i) * d;
    int p = 0;
    for (; p + 8 <= d; p += 8) {
      v4 lo, hi;
      load8(ki + p, lo, hi);
      store(oi + p, lo);
      store(oi + p + 4, hi);
    }
    for (; p < d; ++p) oi[p] = to_f32(ki[p]);
  }
}

template <typename KT>
AP_NOINLINE void qk_dot(float* s, int lds, const float* q, int ldq, const KT* k, int ldk, int n, int m, int d,
                        float alpha) {
  if constexpr (sizeof(KT) == 2) {
    if (d <= kWidenD && n > 2) {
      alignas(16) float panel[4 * kWidenD];
      for (int i0 = 0; i0 < n; i0 += kDotRows) {
        const int rows = n - i0 < kDotRows ? n - i0 : kDotRows;
        float* si = s + static_cast<long>(i0) * lds;
        const float* qi = q + static_cast<long>(i0) * ldq;
        int c = 0;
        for (; c + 4 <= m; c += 4) {
          widen_keys(panel, k + static_cast<long>(c) * ldk, ldk, d);
          int r = 0;
          for (; r + 2 <= rows; r += 2)
            qk_dot_tile<2, 4>(si + static_cast<long>(r) * lds + c, lds, qi + static_cast<long>(r) * ldq, ldq, panel, d,
                              d, alpha);
          if (r < rows)
            qk_dot_tile<1, 4>(si + static_cast<long>(r) * lds + c, lds, qi + static_cast<long>(r) * ldq, ldq, panel, d,
                              d, alpha);
        }
        for (; c < m; ++c)
          for (int r = 0; r < rows; ++r)
            qk_dot_tile<1, 1>(si + static_cast<long>(r) * lds + c, lds, qi + static_cast<long>(r) * ldq, ldq,
                              k + static_cast<long>(c) * ldk, ldk, d, alpha);
      }
      return;
    }
  }
  for (int i0 = 0; i0 < n; i0 += kDotRows) {
    const int rows = n - i0 < kDotRows ? n - i0 : kDotRows;
    float* si = s + static_cast<long>(i0) * lds;
    const float* qi = q + static_cast<long>(i0) * ldq;
    int c = 0;
    for (; c + 4 <= m; c += 4) {
      const KT* kc = k + static_cast<long>(c) * ldk;
      int r = 0;
      for (; r + 2 <= rows; r += 2)
        qk_dot_tile<2, 4>(si + static_cast<long>(r) * lds + c, lds, qi + static_cast<long>(r) * ldq, ldq, kc, ldk, d,
                          alpha);
      if (r < rows)
        qk_dot_tile<1, 4>(si + static_cast<long>(r) * lds + c, lds, qi + static_cast<long>(r) * ldq, ldq, kc, ldk, d,
                          alpha);
    }
    for (; c < m; ++c)
      for (int r = 0; r < rows; ++r)
        qk_dot_tile<1, 1>(si + static_cast<long>(r) * lds + c, lds, qi + static_cast<long>(r) * ldq, ldq,
                          k + static_cast<long>(c) * ldk, ldk, d, alpha);
  }
}

// ---- softmax ---------------------------------------------------------------------------------------

// Loads the last m % 4 entries of a row into one vector, padding with `pad`.
AP_INLINE v4 load_tail(const float* p, int count, float pad) {
  float t[4] = {pad, pad, pad, pad};
  for (int l = 0; l < count; ++l) t[l] = p[l];
  return load(t);
}
AP_INLINE void store_tail(float* p, int count, v4 x) {
  float t[4];
  store(t, x);
  for (int l = 0; l < count; ++l) p[l] = t[l];
}

AP_INLINE float row_max(const float* in, int m) {
  v4 vmax = splat(kNegInf);
  int j = 0;
  for (; j + 4 <= m; j += 4) vmax = max(vmax, load(in + j));
  if (j < m) vmax = max(vmax, load_tail(in + j, m - j, kNegInf));
  return hmax(vmax);
}

// out[j] = e^(in[j] - shift) for j < m; returns the sum. Tail lanes are padded with -inf, which the
// exp maps to exactly 0, so they add nothing to the sum.
AP_INLINE float exp_shifted(float* out, const float* in, int m, float shift) {
  v4 vs = splat(shift), vsum = zero();
  int j = 0;
  for (; j + 4 <= m; j += 4) {
    v4 e = simd::exp(sub(load(in + j), vs));
    store(out + j, e);
    vsum = add(vsum, e);
  }
  if (j < m) {
    v4 e = simd::exp(sub(load_tail(in + j, m - j, kNegInf), vs));
    store_tail(out + j, m - j, e);
    vsum = add(vsum, e);
  }
  return hsum(vsum);
}

AP_INLINE void scale_row(float* x, int m, float factor) {
  v4 f = splat(factor);
  int j = 0;
  for (; j + 4 <= m; j += 4) store(x + j, mul(load(x + j), f));
  for (; j < m; ++j) x[j] *= factor;
}

AP_NOINLINE void softmax_row(float* out, const float* in, int m) {
  float mx = row_max(in, m);
  if (mx == kNegInf) {  // every key masked: zero weights by definition (the sum would be 0/0)
    for (int j = 0; j < m; ++j) out[j] = 0.0f;
    return;
  }
  float sum = exp_shifted(out, in, m, mx);  // sum >= 1: the max entry contributes e^0
  scale_row(out, m, 1.0f / sum);
}

// ---- online softmax attention ------------------------------------------------------------------
// Tile sizes: a (BQ x BK) score block on the stack (8 KB); per key block the K panel and V rows
// (2 x BK x d_k floats, 32 KB at d_k = 64) stay in L1/L2 while all BQ queries use them. (BQ = 64
// measured the same within this machine's noise, slightly worse for causal n = 256.)
constexpr int BQ = impl::kQueryBlock;

// The online path keeps its scores in natural units (alpha Q K^T, like the full path) and
// exponentiates as e^(s - shift) = 2^((s - shift) log2(e)) with exp2_nonpos, half the operations of
// exp(). The shift is subtracted BEFORE the multiplication by log2(e): s - shift is exact when the
// two are close, so large scores keep their differences. (Folding log2(e) into Q K^T instead rounds
// each score at its own magnitude: at |s| ~ 1e4 that is ~1e-3 absolute in every difference.)
constexpr float kLog2e = 1.44269504088896341f;

// 2^((x - shift) log2 e) = e^(x - shift), with vs = splat(shift) and vl = splat(log2 e).
AP_INLINE v4 exp_minus(v4 x, v4 vs, v4 vl) { return exp2_nonpos(mul(sub(x, vs), vl)); }

// out[j] = e^(in[j] - shift) for j < m (m a multiple of 4, in[j] <= shift); returns the sum.
AP_INLINE float exp2_shifted(float* out, const float* in, int m, float shift) {
  v4 vs = splat(shift), vl = splat(kLog2e), sum0 = zero(), sum1 = zero();
  int j = 0;
  for (; j + 8 <= m; j += 8) {
    v4 e0 = exp_minus(load(in + j), vs, vl), e1 = exp_minus(load(in + j + 4), vs, vl);
    store(out + j, e0);
    store(out + j + 4, e1);
    sum0 = add(sum0, e0);
    sum1 = add(sum1, e1);
  }
  if (j < m) {
    v4 e = exp_minus(load(in + j), vs, vl);
    store(out + j, e);
    sum0 = add(sum0, e);
  }
  return hsum(add(sum0, sum1));
}

// One query row meets one key block. s: the row's scores for this block (masked entries -inf,
// padded to a multiple of 4 with -inf); on return s holds p_j = e^(s_j - m_new),
// ready for O += P V. The running max m_run and sum l_run are updated and the partial output o
// (d floats, unnormalised) is rescaled by e^(m_old - m_new) whenever the max grows, which keeps
// every exponent <= 0 without knowing the row's final max in advance.
AP_NOINLINE void online_softmax_row(float* s, int bk4, float* m_run, float* l_run, float* o, int d) {
  float m_new = row_max(s, bk4);
  if (m_new < *m_run) m_new = *m_run;
  if (m_new == kNegInf) {  // nothing visible to this row yet: contributes nothing
    for (int j = 0; j < bk4; ++j) s[j] = 0.0f;
    return;
  }
  float sum = exp2_shifted(s, s, bk4, m_new);
  float corr = lane0(exp2_nonpos(splat((*m_run - m_new) * kLog2e)));  // 2^(-inf) = 0 on the first visible block
  *l_run = *l_run * corr + sum;
  if (corr != 1.0f) scale_row(o, d, corr);
  *m_run = m_new;
}

// out[j] = e^(in[j] - shift) for j < m (m a multiple of 4); returns the sum, and in *vmax the
// largest in[j]. shift may be below that max (see attention_query_block): results then exceed 1.
AP_INLINE float exp2_shifted_max(float* out, const float* in, int m, float shift, float* vmax) {
  v4 vs = splat(shift), vl = splat(kLog2e), sum0 = zero(), sum1 = zero(), mx0 = splat(kNegInf), mx1 = mx0;
  int j = 0;
  for (; j + 8 <= m; j += 8) {
    v4 x0 = load(in + j), x1 = load(in + j + 4);
    mx0 = max(mx0, x0);
    mx1 = max(mx1, x1);
    v4 e0 = exp_minus(x0, vs, vl), e1 = exp_minus(x1, vs, vl);
    store(out + j, e0);
    store(out + j + 4, e1);
    sum0 = add(sum0, e0);
    sum1 = add(sum1, e1);
  }
  if (j < m) {
    v4 x = load(in + j);
    mx0 = max(mx0, x);
    v4 e = exp_minus(x, vs, vl);
    store(out + j, e);
    sum0 = add(sum0, e);
  }
  *vmax = hmax(max(mx0, mx1));
  return hsum(add(sum0, sum1));
}

// How far (natural units) a block's scores may rise above a row's reference before the reference
// is raised: weights stay below e^11 < 2^16 (16 log2 units; 16 / log2 e = 11.09), far from float
// overflow (the sum of 16384 of them too).
constexpr float kSlack = 11.0f;

AP_NOINLINE void zero_row(float* o, int d) {
  for (int j = 0; j < d; ++j) o[j] = 0.0f;
}

// One block of up to BQ queries of one head, against every key it may see.
AP_NOINLINE void attention_query_block(float* o, const float* q, const float* k, const float* v, int ld, int i0, int bq,
                                       int m, int d, int offset, bool causal, float alpha, int window) {
  alignas(16) float s[BQ * BK];     // (bq, bk) scores, then probabilities, of one key block
  alignas(16) float kt[KT_D * BK];  // alpha K_blk^T
  // Lazy running max (d <= KT_D, when kt keeps the whole panel): a row's reference m_run is the max
  // of its first visible block and is raised only when a later block exceeds it by over kSlack. A
  // block then needs one pass over its scores (weights e^(s - m_run), their sum and the block max
  // together) instead of a max pass, an exp pass and a rescaling of o whenever the max grows. In the
  // rare block that exceeds it, the row's scores (already overwritten) are recomputed from kt.
  const bool lazy = d <= KT_D;
  float m_run[BQ], l_run[BQ];  // running max and running sum of each query row
  for (int r = 0; r < bq; ++r) {
    m_run[r] = kNegInf;
    l_run[r] = 0.0f;
    zero_row(o + static_cast<long>(r) * ld, d);
  }
  // Keys j < k_end can be visible to some row of this block; causal: j <= (i0 + bq - 1) + offset.
  int k_end = m;
  if (causal) {
    long last = static_cast<long>(i0) + bq - 1 + offset + 1;
    k_end = last < m ? static_cast<int>(last) : m;
  }
  // Sliding window: row r sees keys j > i0 + r + offset - window, so no row of the block sees a key
  // before k_begin. The key blocks start there: the keys before it are never read.
  const bool windowed = causal && window > 0;
  int k_begin = 0;
  if (windowed) {
    long first = static_cast<long>(i0) + offset - window + 1;
    k_begin = first <= 0 ? 0 : first < k_end ? static_cast<int>(first) : k_end;
  }
  for (int j0 = k_begin; j0 < k_end; j0 += BK) {
    int bk = k_end - j0 < BK ? k_end - j0 : BK;
    int bk4 = (bk + 3) & ~3;
    const float* kb = k + static_cast<long>(j0) * ld;
    qk_block(s, BK, q, ld, kb, ld, bq, bk, d, alpha, kt);  // s (bq, bk) = alpha Q_blk K_blk^T
    for (int r = 0; r < bq; ++r) {
      float* sr = s + r * BK;
      float* orow = o + static_cast<long>(r) * ld;
      int first_hidden = bk;  // block column of the first future key
      if (causal) {
        first_hidden = i0 + r + offset + 1 - j0;
        if (first_hidden < 0) first_hidden = 0;
        if (first_hidden > bk) first_hidden = bk;
      }
      for (int j = first_hidden; j < bk4; ++j) sr[j] = kNegInf;  // masked, and vector padding: e^-inf = 0
      int first_visible = 0;  // block column of the first key inside the row's window
      if (windowed) {
        long f = static_cast<long>(i0) + r + offset - window + 1 - j0;
        first_visible = f <= 0 ? 0 : f < bk ? static_cast<int>(f) : bk;
        for (int j = 0; j < first_visible; ++j) sr[j] = kNegInf;  // older than the window
      }
      if (!lazy || m_run[r] == kNegInf) {
        online_softmax_row(sr, bk4, &m_run[r], &l_run[r], orow, d);
        continue;
      }
      float m_ref = m_run[r], bmax;
      float sum = exp2_shifted_max(sr, sr, bk4, m_ref, &bmax);
      if (bmax > m_ref + kSlack) {  // rare: raise the reference, redo this row of the block
        float corr = lane0(exp2_nonpos(splat((m_ref - bmax) * kLog2e)));
        scale_row(orow, d, corr);
        l_run[r] *= corr;
        m_run[r] = bmax;
        impl::gemm_tiled(sr, BK, q + static_cast<long>(r) * ld, ld, kt, BK, nullptr, 1, d, bk, false);
        for (int j = first_hidden; j < bk4; ++j) sr[j] = kNegInf;
        for (int j = 0; j < first_visible; ++j) sr[j] = kNegInf;
        sum = exp2_shifted(sr, sr, bk4, bmax);
      }
      l_run[r] += sum;
    }
    // O_blk (bq, d) += P (bq, bk) V_blk (bk, d)
    impl::gemm_tiled(o, ld, s, BK, v + static_cast<long>(j0) * ld, ld, nullptr, bq, bk, d, true);
  }
  for (int r = 0; r < bq; ++r)  // normalise; rows that saw no key keep their zeros
    scale_row(o + static_cast<long>(r) * ld, d, l_run[r] > 0.0f ? 1.0f / l_run[r] : 0.0f);
}

}  // namespace

// ---- keys in blocks of kKeyBlock (attention.hpp) -------------------------------------------------

namespace {

// A decoding step's query times 2^112 into `scaled` (d <= kWidenD), for F16 keys read unscaled
// (load8_unscaled, simd4.hpp): false when some |q| * 2^112 would overflow, or q holds a NaN.
bool scale_query(float* scaled, const float* q, int d) {
  bool small = true;
  for (int p = 0; p < d; ++p) {
    small &= q[p] < kUnscaledMaxA && q[p] > -kUnscaledMaxA;  // false for NaN
    scaled[p] = q[p] * kF16Up;
  }
  return small;
}

// Where key i of a whole block starts its d % 8 last values, after the block's d / 8 steps.
template <typename KT>
AP_INLINE const KT* block_tail(const KT* block, int i, int d) {
  const int d8 = d / 8 * 8;
  return block + static_cast<long>(d8) * kKeyBlock + static_cast<long>(i) * (d - d8);
}

// One query row against whole key blocks: qk_dot_tile<1, 8>'s sums, step by step, with the 8 keys
// of a step read as 64 consecutive values.
template <typename KT, bool Unscaled>
AP_NOINLINE void qk_blocks_row(float* s, const float* q, const KT* k, int blocks, int d, float alpha) {
  const int d8 = d / 8 * 8;
  for (int b = 0; b < blocks; ++b) {
    const KT* block = k + static_cast<long>(b) * kKeyBlock * d;
    v4 acc[kKeyBlock];
    for (int i = 0; i < kKeyBlock; ++i) acc[i] = zero();
    const KT* kp = block;
    for (int p = 0; p < d8; p += 8, kp += 8 * kKeyBlock) {
      v4 qlo, qhi;
      load8(q + p, qlo, qhi);
      for (int i = 0; i < kKeyBlock; ++i) {
        v4 klo, khi;
        if constexpr (Unscaled)
          load8_unscaled(kp + 8 * i, klo, khi);
        else
          load8(kp + 8 * i, klo, khi);
        acc[i] = madd(qhi, khi, madd(qlo, klo, acc[i]));
      }
    }
    for (int i = 0; i < kKeyBlock; ++i) {
      const KT* tail = block_tail(block, i, d);  // as qk_dot_tile: one 4-wide step, then one by one
      int p = d8;
      if (p + 4 <= d) {
        acc[i] = madd(load(q + p), load(tail), acc[i]);
        p += 4;
      }
      float rest = 0.0f;
      for (; p < d; ++p) rest += q[p] * to_f32(tail[p - d8]);
      s[b * kKeyBlock + i] = (hsum(acc[i]) + rest) * alpha;
    }
  }
}

// Keys `first` .. first + 3 of a whole block, widened into 4 row-major float rows of d (as
// widen_keys does for row-major keys).
template <typename KT>
AP_NOINLINE void widen_block_keys(float* out, const KT* block, int first, int d) {
  const int d8 = d / 8 * 8;
  for (int i = 0; i < 4; ++i) {
    const int key = first + i;
    float* oi = out + static_cast<long>(i) * d;
    const KT* kp = block + 8 * key;
    for (int p = 0; p < d8; p += 8, kp += 8 * kKeyBlock) {
      v4 lo, hi;
      load8(kp, lo, hi);
      store(oi + p, lo);
      store(oi + p + 4, hi);
    }
    const KT* tail = block_tail(block, key, d);
    for (int p = d8; p < d; ++p) oi[p] = to_f32(tail[p - d8]);
  }
}

template <typename KT>
void qk_scores_rows(float* scores, int ld_s, const float* q, int ld_q, const KT* k, int ld_k, int n, int m, int d_k,
                    float alpha);

template <typename KT>
void qk_scores_blocks(float* scores, int ld_s, const float* q, int ld_q, const KT* k, int n, int m, int d,
                      float alpha) {
  const int blocks = m / kKeyBlock, whole = blocks * kKeyBlock;
  if (n == 1) {
    bool done = false;
    if constexpr (std::is_same_v<KT, f16>) {
      if (d % 8 == 0 && d <= kWidenD) {  // as qk_scores_rows: the query scaled once, the keys unscaled
        alignas(16) float scaled[kWidenD];
        if (scale_query(scaled, q, d)) {
          qk_blocks_row<KT, true>(scores, scaled, k, blocks, d, alpha);
          done = true;
        }
      }
    }
    if (!done) qk_blocks_row<KT, false>(scores, q, k, blocks, d, alpha);
  } else if (d <= kWidenD) {  // each 4 keys widened once into a float panel for a block of rows
    alignas(16) float panel[4 * kWidenD];
    for (int i0 = 0; i0 < n; i0 += kDotRows) {
      const int rows = n - i0 < kDotRows ? n - i0 : kDotRows;
      float* si = scores + static_cast<long>(i0) * ld_s;
      const float* qi = q + static_cast<long>(i0) * ld_q;
      for (int c = 0; c < whole; c += 4) {
        widen_block_keys(panel, k + static_cast<long>(c / kKeyBlock) * kKeyBlock * d, c % kKeyBlock, d);
        int r = 0;
        for (; r + 2 <= rows; r += 2)
          qk_dot_tile<2, 4>(si + static_cast<long>(r) * ld_s + c, ld_s, qi + static_cast<long>(r) * ld_q, ld_q, panel,
                            d, d, alpha);
        if (r < rows)
          qk_dot_tile<1, 4>(si + static_cast<long>(r) * ld_s + c, ld_s, qi + static_cast<long>(r) * ld_q, ld_q, panel,
                            d, d, alpha);
      }
    }
  } else {  // long rows: one query row at a time
    for (int r = 0; r < n; ++r)
      qk_blocks_row<KT, false>(scores + static_cast<long>(r) * ld_s, q + static_cast<long>(r) * ld_q, k, blocks, d,
                               alpha);
  }
  if (whole < m)  // the keys after the last whole block, row-major
    qk_scores_rows(scores + whole, ld_s, q, ld_q, k + static_cast<long>(whole) * d, d, n, m - whole, d, alpha);
}

}  // namespace

// ---- public entry points -------------------------------------------------------------------------

namespace {
template <typename KT>
void qk_scores_rows(float* scores, int ld_s, const float* q, int ld_q, const KT* k, int ld_k, int n, int m, int d_k,
                    float alpha) {
  if constexpr (std::is_same_v<KT, f16>) {
    // A decoding step's head (one row, every F16 embedding row): the query scaled once, then
    // the keys unscaled (qk_dot_tile), when no |q| * 2^112 would overflow.
    if (n == 1 && d_k % 8 == 0 && d_k <= kWidenD) {
      alignas(16) float scaled[kWidenD];
      if (scale_query(scaled, q, d_k)) {
        qk_dot_row<KT, true>(scores, scaled, k, ld_k, m, d_k, alpha);
        return;
      }
    }
  }
  if (n == 1)
    qk_dot_row(scores, q, k, ld_k, m, d_k, alpha);
  else
    qk_dot(scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}
}  // namespace

void impl::qk_scores(float* scores, int ld_s, const float* q, int ld_q, const float* k, int ld_k, int n, int m, int d_k,
                     float alpha) {
  qk_scores_rows(scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}
void impl::qk_scores_f16(float* scores, int ld_s, const float* q, int ld_q, const f16* k, int ld_k, int n, int m,
                         int d_k, float alpha) {
  qk_scores_rows(scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}
void impl::qk_scores_bf16(float* scores, int ld_s, const float* q, int ld_q, const bf16* k, int ld_k, int n, int m,
                          int d_k, float alpha) {
  qk_scores_rows(scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}
void impl::qk_scores_blocks_f16(float* scores, int ld_s, const float* q, int ld_q, const f16* k, int, int n, int m,
                                int d_k, float alpha) {
  qk_scores_blocks(scores, ld_s, q, ld_q, k, n, m, d_k, alpha);
}
void impl::qk_scores_blocks_bf16(float* scores, int ld_s, const float* q, int ld_q, const bf16* k, int, int n, int m,
                                 int d_k, float alpha) {
  qk_scores_blocks(scores, ld_s, q, ld_q, k, n, m, d_k, alpha);
}

void impl::softmax_rows(float* out, int ld_out, const float* in, int ld_in, int n, int m) {
  for (int i = 0; i < n; ++i) softmax_row(out + static_cast<long>(i) * ld_out, in + static_cast<long>(i) * ld_in, m);
}

void impl::exp_vec(float* out, const float* in, int n) {
  int j = 0;
  for (; j + 4 <= n; j += 4) store(out + j, simd::exp(load(in + j)));
  if (j < n) store_tail(out + j, n - j, simd::exp(load_tail(in + j, n - j, 0.0f)));
}

namespace {
AP_INLINE v4 gelu_tanh4(v4 x) {
  const v4 u = mul(splat(0.7978845608028654f), madd(splat(0.044715f), mul(mul(x, x), x), x));
  return div(x, add(splat(1.0f), simd::exp(mul(splat(-2.0f), u))));  // e^(-2u) = +inf for x << 0: -0
}
}  // namespace

void gelu_tanh_vec(float* out, const float* in, int n) {
  int j = 0;
  for (; j + 4 <= n; j += 4) store(out + j, gelu_tanh4(load(in + j)));
  if (j < n) store_tail(out + j, n - j, gelu_tanh4(load_tail(in + j, n - j, 0.0f)));
}

// The key range attention_query_block reads for each query block, in whole key blocks.
double attention_pairs_computed(int n, int m, bool causal, int window) {
  double pairs = 0.0;
  const int offset = m - n;
  for (int i0 = 0; i0 < n; i0 += BQ) {
    const int bq = n - i0 < BQ ? n - i0 : BQ;
    long k_end = m, k_begin = 0;
    if (causal && static_cast<long>(i0) + bq + offset < m) k_end = static_cast<long>(i0) + bq + offset;
    if (causal && window > 0) {
      k_begin = static_cast<long>(i0) + offset - window + 1;
      k_begin = k_begin < 0 ? 0 : k_begin > k_end ? k_end : k_begin;
    }
    if (k_end > k_begin) pairs += double(bq) * static_cast<double>(k_end - k_begin);
  }
  return pairs;
}

// The tiles of attention_query_block and qk_block, by the constants that size them.
AttentionMemory attention_memory(int n, int m, bool full) {
  if (full) return {double(n) * m, double(n) * m * sizeof(float)};
  constexpr double tiles = sizeof(float) * (BQ * BK + 2 * BQ + KT_D * BK);  // s, m_run + l_run, kt
  return {double(BQ) * BK, tiles};
}

void impl::attention_forward(float* out, const float* q, const float* k, const float* v, int n, int m, int d_k,
                             int n_heads, bool causal, bool scale, int window) {
  if (n <= 0 || d_k <= 0 || n_heads <= 0) return;
  const int ld = n_heads * d_k;
  const float alpha = scale ? 1.0f / __builtin_sqrtf(static_cast<float>(d_k)) : 1.0f;
  for (int h = 0; h < n_heads; ++h) {
    const long col = static_cast<long>(h) * d_k;
    for (int i0 = 0; i0 < n; i0 += BQ) {
      int bq = n - i0 < BQ ? n - i0 : BQ;
      const long row = static_cast<long>(i0) * ld;
      attention_query_block(out + row + col, q + row + col, k + col, v + col, ld, i0, bq, m, d_k, m - n, causal, alpha,
                            window);
    }
  }
}

}  // namespace ap::kernels
