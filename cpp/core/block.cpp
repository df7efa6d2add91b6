#include "core/block.hpp"

#include <algorithm>

#include "core/layers.hpp"

namespace ap {

namespace {

// A plain copy, not an Eigen assignment: in the first module the -Oz LTO copy of Eigen's
// assign loop wins at link time and costs a call per coefficient.
void add_mat(Trace& tr, const char* name, const std::string& stack, int layer, const Mat& src) {
  if (!tr.keeps(name, layer)) return;  // a record only: nothing reads it back
  MatMap dst = tr.add2d(name, stack, layer, static_cast<int>(src.rows()), static_cast<int>(src.cols()));
  std::copy(src.data(), src.data() + src.size(), dst.data());
}

}  // namespace

void ffn_forward(Mat& out, const Mat& in, const FFNWeights& w, const ModelConfig& cfg, Trace* tr,
                 const std::string& stack, int layer) {
  auto rec = [&](const char* name, const Mat& m) {
    if (tr) add_mat(*tr, name, stack, layer, m);
  };
  Mat hidden, act;
  if (cfg.ffn_kind == FfnKind::Mlp) {
    linear(hidden, in, w.w1, w.b1);  // (n, d_ff)
    activation(act, hidden, cfg.act);
    linear(out, act, w.w2, w.b2);  // (n, d)
    rec("ffn_hidden", hidden);
    rec("ffn_act", act);
  } else {
    // Gated: (act(x W_gate) * (x W1 + b1)) W2 + b2, act = SiLU (SwiGLU) or exact GELU (GeGLU).
    Mat gate, up;
    gated_hidden(hidden, gate, act, up, in, w.w_gate, w.w1, w.b1, cfg.ffn_kind);
    linear(out, hidden, w.w2, w.b2);
    rec("ffn_gate", gate);
    rec("ffn_gate_act", act);
    rec("ffn_up", up);
    rec("ffn_prod", hidden);
  }
  rec("ffn_out", out);
}

// One block: attention sub-layer(s) then the FFN sub-layer, each wrapped in Add & Norm
// (post-norm, as in the notes) or Norm-then-Add (pre-norm).
void block_forward(Mat& out, const Mat& x, const Mat* memory, const std::vector<uint8_t>& self_pad,
                   const std::vector<uint8_t>* mem_pad, const BlockWeights& b, const ModelConfig& cfg,
                   const Mat* rel_bias, bool causal, Trace& tr, const std::string& stack, int layer,
                   BlockCache* cache) {
  AttentionOptions self;
  self.n_heads = cfg.n_heads;
  self.causal = causal;
  self.scale = cfg.scale;
  self.key_padding = cache ? nullptr : &self_pad;  // decoding never feeds padding
  if (cache) {
    self.cache = &cache->self;
    self.q_offset = static_cast<int>(cache->self.k.rows());  // the new rows follow the cached ones
  }
  self.n_kv_heads = cfg.kv_heads();
  self.window = causal ? cfg.window : 0;  // the window narrows the causal mask; no causal mask, no window
  self.pos = cfg.pos;
  self.rope_theta = cfg.rope_theta;
  self.rel_bias = rel_bias;
  self.rel_clip = cfg.rel_clip;
  AttentionOptions cross = self;
  cross.causal = false;
  cross.window = 0;
  cross.key_padding = mem_pad;
  cross.pos = PosKind::None;  // positions of two different sequences are not comparable
  cross.rel_bias = nullptr;
  cross.q_offset = 0;
  if (cache) {
    cross.cache = &cache->cross;
    cross.cache_append = false;
  }

  const bool post = cfg.norm == NormPlace::Post;
  auto norm = [&](Mat& dst, const Mat& src, const LayerNormWeights& ln, const char* name) {
    Mat stats;
    apply_norm(dst, src, ln.gamma, ln.beta, cfg.norm_kind, cfg.eps, &stats);
    add_mat(tr, name, stack, layer, dst);
    // LayerNorm: *_stats (n, 2) = mean, sigma; RMSNorm: *_rms (n, 1), the root mean square it divides by.
    const char* suffix = cfg.norm_kind == NormKind::Rms ? "_rms" : "_stats";
    add_mat(tr, (std::string(name) + suffix).c_str(), stack, layer, stats);
  };

  Mat attn_out, resid1, norm1, h;
  const char* h_stage = post ? "norm1" : "resid1";  // the stage h is, marked when it is the block's output
  // Self-attention sub-layer.
  if (post) {
    multi_head_attention(attn_out, x, x, b.self_attn, self, &tr, "", stack, layer);
    resid1 = x + attn_out;  // (n, d) residual: X + Attention(X)
    add_mat(tr, "resid1", stack, layer, resid1);
    norm(norm1, resid1, b.norm1, "norm1");
    h = norm1;
  } else {
    norm(norm1, x, b.norm1, "norm1");
    multi_head_attention(attn_out, norm1, norm1, b.self_attn, self, &tr, "", stack, layer);
    resid1 = x + attn_out;
    add_mat(tr, "resid1", stack, layer, resid1);
    h = resid1;
  }
  // Cross-attention sub-layer (decoder of an encoder-decoder model): Q from here, K and V from memory.
  if (b.has_cross) {
    Mat cross_out, cross_resid, cross_norm;
    if (post) {
      multi_head_attention(cross_out, h, *memory, b.cross_attn, cross, &tr, "cross_", stack, layer);
      cross_resid = h + cross_out;
      add_mat(tr, "cross_resid", stack, layer, cross_resid);
      norm(cross_norm, cross_resid, b.norm_cross, "cross_norm");
      h = cross_norm;
      h_stage = "cross_norm";
    } else {
      norm(cross_norm, h, b.norm_cross, "cross_norm");
      multi_head_attention(cross_out, cross_norm, *memory, b.cross_attn, cross, &tr, "cross_", stack, layer);
      cross_resid = h + cross_out;
      add_mat(tr, "cross_resid", stack, layer, cross_resid);
      h = cross_resid;
      h_stage = "cross_resid";
    }
  }
  if (!cfg.ffn) {  // attention-only: the block ends with its attention sublayer(s)
    out = h;
    tr.mark(h_stage, stack, layer, "block_output");
    return;
  }
  // FFN sub-layer: FFN(z) = act(z W1 + b1) W2 + b2, applied to each token on its own.
  Mat ffn_in, norm2;
  if (post)
    ffn_in = h;
  else {
    norm(norm2, h, b.norm2, "norm2");
    ffn_in = norm2;
  }
  Mat ffn_out;
  ffn_forward(ffn_out, ffn_in, b.ffn, cfg, &tr, stack, layer);
  Mat resid2 = h + ffn_out;
  add_mat(tr, "resid2", stack, layer, resid2);
  if (post) {
    norm(norm2, resid2, b.norm2, "norm2");
    out = norm2;
  } else
    out = resid2;
  tr.mark(post ? "norm2" : "resid2", stack, layer, "block_output");
}

}  // namespace ap
