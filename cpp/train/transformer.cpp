// Forward and backward of the training transformer (see transformer.hpp for the maths).
// Each block's forward is written once for both norm placements; its backward retraces
// it from the last sublayer to the first.
#include "train/transformer.hpp"

#include <algorithm>
#include <cmath>

#include "base/tensor.hpp"
#include "core/layers.hpp"
#include "train/ops.hpp"

namespace ap::train {

template <typename T>
void sinusoidal_table(std::vector<T>& pe, int rows, int d) {
  pe.assign(static_cast<size_t>(rows) * d, T(0));
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < d; ++c) pe[static_cast<size_t>(r) * d + c] = static_cast<T>(sinusoid(r, c, d));
}

namespace {

template <typename T>
void fit(std::vector<T>& v, size_t n) {
  v.resize(n);
}
template <typename T>
void zero(std::vector<T>& v) {
  std::fill(v.begin(), v.end(), T(0));
}
template <typename T>
void zero(T* p, size_t n) {
  std::fill(p, p + n, T(0));
}

// Sizes a stack's buffers for N = B*T rows (M = B*S memory rows for cross-attention).
template <typename T>
void size_stack(StackActs<T>& s, const ModelConfig& cfg, int B, int T_, int S, bool cross) {
  const size_t N = static_cast<size_t>(B) * T_, M = static_cast<size_t>(B) * S;
  const size_t d = cfg.d_model, F = cfg.d_ff, NH = cfg.n_heads;
  fit(s.x, N * d);
  s.blocks.resize(static_cast<size_t>(cfg.n_layers));
  for (auto& a : s.blocks) {
    for (auto* v : {&a.norm1, &a.q, &a.k, &a.v, &a.concat, &a.attn_out, &a.resid1, &a.norm2, &a.ffn_out, &a.resid2})
      fit(*v, N * d);
    for (auto* v : {&a.norm1_mean, &a.norm1_rstd, &a.norm2_mean, &a.norm2_rstd}) fit(*v, N);
    fit(a.weights, static_cast<size_t>(B) * NH * T_ * T_);
    fit(a.ffn_hidden, N * F);
    fit(a.ffn_act, N * F);
    fit(a.ffn_slope, cfg.act == Act::Relu ? 0 : N * F);
    if (cross) {
      for (auto* v : {&a.cross_norm, &a.cross_q, &a.cross_concat, &a.cross_attn_out, &a.cross_resid}) fit(*v, N * d);
      fit(a.cross_k, M * d);
      fit(a.cross_v, M * d);
      fit(a.cross_norm_mean, N);
      fit(a.cross_norm_rstd, N);
      fit(a.cross_weights, static_cast<size_t>(B) * NH * T_ * S);
    }
  }
  if (cfg.norm == NormPlace::Pre) {
    fit(s.final_norm, N * d);
    fit(s.final_norm_mean, N);
    fit(s.final_norm_rstd, N);
  }
}

template <typename T>
void size_acts(Activations<T>& acts, const ModelConfig& cfg, const Batch& batch) {
  const bool encdec = cfg.arch == Arch::EncoderDecoder, enc_only = cfg.arch == Arch::EncoderOnly;
  acts.B = batch.B;
  acts.T_ = batch.T;
  acts.S = encdec ? batch.S : 0;
  const size_t N = static_cast<size_t>(batch.B) * batch.T, M = static_cast<size_t>(batch.B) * acts.S;
  const size_t d = cfg.d_model, V = cfg.vocab_size;
  if (encdec) size_stack(acts.enc, cfg, batch.B, acts.S, acts.S, false);
  if (enc_only)
    size_stack(acts.enc, cfg, batch.B, batch.T, batch.T, false);
  else
    size_stack(acts.dec, cfg, batch.B, batch.T, acts.S, encdec);
  fit(acts.src_pad, M);
  for (size_t i = 0; i < M; ++i) acts.src_pad[i] = batch.src[i] == 0;
  fit(acts.in_pad, enc_only ? N : 0);
  if (enc_only)
    for (size_t i = 0; i < N; ++i) acts.in_pad[i] = batch.inputs[i] == 0;
  fit(acts.logits, N * V);
  fit(acts.probs, N * V);
  fit(acts.losses, N);
  fit(acts.g_logits, N * V);
  const size_t rows = std::max(N, M);
  for (auto* v : {&acts.g_out, &acts.g_in, &acts.g_resid, &acts.g_h, &acts.g_norm, &acts.g_cross_in, &acts.g_concat,
                  &acts.g_q, &acts.g_k, &acts.g_v})
    fit(*v, rows * d);
  fit(acts.g_ffn_hidden, rows * cfg.d_ff);  // the encoder's blocks run on M rows
  fit(acts.g_ffn_act, rows * cfg.d_ff);
  fit(acts.g_memory, M * d);
  if (cfg.pos == PosKind::Sinusoidal && acts.pe.size() != static_cast<size_t>(cfg.max_len) * d)
    sinusoidal_table(acts.pe, cfg.max_len, cfg.d_model);
}

void check_batch(const ModelConfig& cfg, const Batch& batch) {
  if (batch.B <= 0 || batch.T <= 0) fail("empty training batch");
  if (batch.T > cfg.max_len || batch.S > cfg.max_len)
    fail("batch length " + std::to_string(std::max(batch.T, batch.S)) + " exceeds max_len " +
         std::to_string(cfg.max_len));
  const size_t N = static_cast<size_t>(batch.B) * batch.T;
  if (batch.inputs.size() != N || batch.targets.size() != N) fail("batch inputs/targets size mismatch");
  if (cfg.arch == Arch::EncoderDecoder && (batch.S <= 0 || batch.src.size() != static_cast<size_t>(batch.B) * batch.S))
    fail("encoder-decoder batch needs a source of B*S ids");
  for (const auto* ids : {&batch.inputs, &batch.targets, &batch.src})
    for (int id : *ids)
      if (id < 0 || id >= cfg.vocab_size)
        fail("token id " + std::to_string(id) + " outside the vocabulary of " + std::to_string(cfg.vocab_size));
}

// The block's input to the FFN sublayer's residual (h in transformer.hpp's notation).
template <typename T>
const T* ffn_residual_input(const BlockActs<T>& a, bool post, bool cross) {
  if (cross) return post ? a.cross_norm.data() : a.cross_resid.data();
  return post ? a.norm1.data() : a.resid1.data();
}

template <typename T>
void block_forward(BlockActs<T>& a, const BlockParams<T>& w, const ModelConfig& cfg, const T* rel_bias, const T* in,
                   const T* memory, const unsigned char* self_pad, const unsigned char* cross_pad, bool causal, int B,
                   int T_, int S) {
  const bool post = cfg.norm == NormPlace::Post;
  const int N = B * T_, M = B * S, d = cfg.d_model, F = cfg.d_ff, NH = cfg.n_heads;
  const T eps = static_cast<T>(cfg.eps);

  // ---- self-attention sublayer: resid1 = in + attn(post ? in : LN1(in))
  const T* attn_in = in;
  if (!post) {
    layernorm_forward(a.norm1.data(), a.norm1_mean.data(), a.norm1_rstd.data(), in, w.norm1.gamma, w.norm1.beta, N, d,
                      eps);
    attn_in = a.norm1.data();
  }
  const AttnParams<T>& sa = w.self_attn;
  linear_forward(a.q.data(), attn_in, sa.wq, sa.bq, N, d, d);  // (N, d)
  linear_forward(a.k.data(), attn_in, sa.wk, sa.bk, N, d, d);
  linear_forward(a.v.data(), attn_in, sa.wv, sa.bv, N, d, d);
  // The encoder masks <pad> keys; the decoder's causal mask already hides its right padding.
  // Relative positions bias the self-attention scores only (the core's rule), one table for every block.
  attention_forward(a.concat.data(), a.weights.data(), a.q.data(), a.k.data(), a.v.data(), self_pad, causal, cfg.scale,
                    B, T_, T_, d, NH, rel_bias, cfg.rel_clip);
  linear_forward(a.attn_out.data(), a.concat.data(), sa.wo, sa.bo, N, d, d);
  residual_forward(a.resid1.data(), in, a.attn_out.data(), N * d);
  if (post)
    layernorm_forward(a.norm1.data(), a.norm1_mean.data(), a.norm1_rstd.data(), a.resid1.data(), w.norm1.gamma,
                      w.norm1.beta, N, d, eps);
  const T* h = post ? a.norm1.data() : a.resid1.data();

  // ---- cross-attention sublayer: queries from the decoder, keys and values from memory
  if (w.has_cross) {
    const T* c_in = h;
    if (!post) {
      layernorm_forward(a.cross_norm.data(), a.cross_norm_mean.data(), a.cross_norm_rstd.data(), h, w.norm_cross.gamma,
                        w.norm_cross.beta, N, d, eps);
      c_in = a.cross_norm.data();
    }
    const AttnParams<T>& ca = w.cross_attn;
    linear_forward(a.cross_q.data(), c_in, ca.wq, ca.bq, N, d, d);    // (N, d)
    linear_forward(a.cross_k.data(), memory, ca.wk, ca.bk, M, d, d);  // (M, d)
    linear_forward(a.cross_v.data(), memory, ca.wv, ca.bv, M, d, d);  // (M, d)
    attention_forward(a.cross_concat.data(), a.cross_weights.data(), a.cross_q.data(), a.cross_k.data(),
                      a.cross_v.data(), cross_pad, false, cfg.scale, B, T_, S, d, NH);
    linear_forward(a.cross_attn_out.data(), a.cross_concat.data(), ca.wo, ca.bo, N, d, d);
    residual_forward(a.cross_resid.data(), h, a.cross_attn_out.data(), N * d);
    if (post)
      layernorm_forward(a.cross_norm.data(), a.cross_norm_mean.data(), a.cross_norm_rstd.data(), a.cross_resid.data(),
                        w.norm_cross.gamma, w.norm_cross.beta, N, d, eps);
    h = post ? a.cross_norm.data() : a.cross_resid.data();
  }

  if (!cfg.ffn) return;  // attention-only: the output is h (block_output)
  // ---- FFN sublayer: resid2 = h + W2 act(W1 (post ? h : LN2(h)) + b1) + b2
  const T* f_in = h;
  if (!post) {
    layernorm_forward(a.norm2.data(), a.norm2_mean.data(), a.norm2_rstd.data(), h, w.norm2.gamma, w.norm2.beta, N, d,
                      eps);
    f_in = a.norm2.data();
  }
  linear_forward(a.ffn_hidden.data(), f_in, w.ffn.w1, w.ffn.b1, N, d, F);  // (N, d_ff)
  if (cfg.act == Act::Relu)
    relu_forward(a.ffn_act.data(), a.ffn_hidden.data(), N * F);
  else
    gelu_forward(a.ffn_act.data(), a.ffn_slope.data(), a.ffn_hidden.data(), N * F);
  linear_forward(a.ffn_out.data(), a.ffn_act.data(), w.ffn.w2, w.ffn.b2, N, F, d);  // (N, d)
  residual_forward(a.resid2.data(), h, a.ffn_out.data(), N * d);
  if (post)
    layernorm_forward(a.norm2.data(), a.norm2_mean.data(), a.norm2_rstd.data(), a.resid2.data(), w.norm2.gamma,
                      w.norm2.beta, N, d, eps);
}

template <typename T>
const T* block_output(const BlockActs<T>& a, const ModelConfig& cfg, bool cross) {
  const bool post = cfg.norm == NormPlace::Post;
  if (!cfg.ffn) return ffn_residual_input(a, post, cross);  // attention-only: the attention sublayer's output
  return post ? a.norm2.data() : a.resid2.data();
}

// A sublayer's output LayerNorm, backward: post-norm, g (dloss/d(norm output)) goes through the
// norm into g_resid; pre-norm there is none and g is already dloss/d(residual sum). Copies that
// into `residual` (the gradient of the sublayer's input along the residual path) and returns it.
template <typename T>
const T* out_norm_backward(T* g_resid, T* residual, NormParams<T>& gn, const NormParams<T>& n, const T* g, const T* sum,
                           const T* mean, const T* rstd, bool post, int N, int d) {
  const size_t Nd = static_cast<size_t>(N) * d;
  const T* g_sum = g;
  if (post) {
    zero(g_resid, Nd);
    layernorm_backward(g_resid, gn.gamma, gn.beta, g, sum, n.gamma, mean, rstd, N, d);
    g_sum = g_resid;
  }
  std::copy(g_sum, g_sum + Nd, residual);
  return g_sum;
}

// Attention's output projection and heads, backward: g_out (B*T, d) into g_q (B*T, d) and
// g_k, g_v (B*S, d), each zeroed first; adds W_O's and b_O's gradients into gp.
template <typename T>
void heads_backward(T* g_q, T* g_k, T* g_v, T* g_concat, AttnParams<T>& gp, const AttnParams<T>& p, const T* g_out,
                    const T* concat, const T* att, const T* q, const T* k, const T* v, bool scale, int B, int T_, int S,
                    int d, int NH, T* g_rel_bias = nullptr, int rel_clip = 0) {
  const size_t Nd = static_cast<size_t>(B) * T_ * d, Md = static_cast<size_t>(B) * S * d;
  zero(g_concat, Nd);
  linear_backward(g_concat, gp.wo, gp.bo, g_out, concat, p.wo, B * T_, d, d);
  zero(g_q, Nd);
  zero(g_k, Md);
  zero(g_v, Md);
  attention_backward(g_q, g_k, g_v, g_concat, att, q, k, v, scale, B, T_, S, d, NH, g_rel_bias, rel_clip);
}

// g_out (N, d): dloss/d(block output). Writes dloss/d(block input) into g_in; adds the memory's
// gradient into g_memory (cross-attention) and every weight's into gw.
template <typename T>
void block_backward(T* g_in, T* g_memory, BlockParams<T>& gw, T* g_rel_bias, Activations<T>& s, const BlockActs<T>& a,
                    const BlockParams<T>& w, const ModelConfig& cfg, const T* g_out, const T* in, const T* memory,
                    int B, int T_, int S) {
  const bool post = cfg.norm == NormPlace::Post, cross = w.has_cross;
  const int N = B * T_, M = B * S, d = cfg.d_model, F = cfg.d_ff, NH = cfg.n_heads;
  const size_t Nd = static_cast<size_t>(N) * d;
  T *g_resid = s.g_resid.data(), *g_h = s.g_h.data(), *g_norm = s.g_norm.data(), *g_cross_in = s.g_cross_in.data();
  T *g_concat = s.g_concat.data(), *g_q = s.g_q.data(), *g_k = s.g_k.data(), *g_v = s.g_v.data();

  // ---- FFN sublayer. g_h becomes dloss/dh.
  if (!cfg.ffn) {  // attention-only: the block's output is h itself
    std::copy(g_out, g_out + Nd, g_h);
  } else {
    const T* h = ffn_residual_input(a, post, cross);
    const T* g_resid2 = out_norm_backward(g_resid, g_h, gw.norm2, w.norm2, g_out, a.resid2.data(), a.norm2_mean.data(),
                                          a.norm2_rstd.data(), post, N, d);
    zero(s.g_ffn_act);
    linear_backward(s.g_ffn_act.data(), gw.ffn.w2, gw.ffn.b2, g_resid2, a.ffn_act.data(), w.ffn.w2, N, F, d);
    zero(s.g_ffn_hidden);
    if (cfg.act == Act::Relu)
      relu_backward(s.g_ffn_hidden.data(), a.ffn_hidden.data(), s.g_ffn_act.data(), N * F);
    else
      gelu_backward(s.g_ffn_hidden.data(), a.ffn_slope.data(), s.g_ffn_act.data(), N * F);
    if (post) {
      linear_backward(g_h, gw.ffn.w1, gw.ffn.b1, s.g_ffn_hidden.data(), h, w.ffn.w1, N, d, F);
    } else {
      zero(g_norm, Nd);
      linear_backward(g_norm, gw.ffn.w1, gw.ffn.b1, s.g_ffn_hidden.data(), a.norm2.data(), w.ffn.w1, N, d, F);
      layernorm_backward(g_h, gw.norm2.gamma, gw.norm2.beta, g_norm, h, w.norm2.gamma, a.norm2_mean.data(),
                         a.norm2_rstd.data(), N, d);
    }
  }

  // ---- cross-attention sublayer. g_h becomes dloss/d(its input).
  if (cross) {
    const T* h_prev = post ? a.norm1.data() : a.resid1.data();
    const T* g_cr = out_norm_backward(g_resid, g_cross_in, gw.norm_cross, w.norm_cross, g_h, a.cross_resid.data(),
                                      a.cross_norm_mean.data(), a.cross_norm_rstd.data(), post, N, d);
    const AttnParams<T>& ca = w.cross_attn;
    AttnParams<T>& gca = gw.cross_attn;
    heads_backward(g_q, g_k, g_v, g_concat, gca, ca, g_cr, a.cross_concat.data(), a.cross_weights.data(),
                   a.cross_q.data(), a.cross_k.data(), a.cross_v.data(), cfg.scale, B, T_, S, d, NH);
    linear_backward(g_memory, gca.wk, gca.bk, g_k, memory, ca.wk, M, d, d);
    linear_backward(g_memory, gca.wv, gca.bv, g_v, memory, ca.wv, M, d, d);
    if (post) {
      linear_backward(g_cross_in, gca.wq, gca.bq, g_q, h_prev, ca.wq, N, d, d);
    } else {
      zero(g_norm, Nd);
      linear_backward(g_norm, gca.wq, gca.bq, g_q, a.cross_norm.data(), ca.wq, N, d, d);
      layernorm_backward(g_cross_in, gw.norm_cross.gamma, gw.norm_cross.beta, g_norm, h_prev, w.norm_cross.gamma,
                         a.cross_norm_mean.data(), a.cross_norm_rstd.data(), N, d);
    }
    std::copy(g_cross_in, g_cross_in + Nd, g_h);
  }

  // ---- self-attention sublayer: g_h is dloss/d(post ? norm1 : resid1).
  const T* g_r1 = out_norm_backward(g_resid, g_in, gw.norm1, w.norm1, g_h, a.resid1.data(), a.norm1_mean.data(),
                                    a.norm1_rstd.data(), post, N, d);
  const AttnParams<T>& sa = w.self_attn;
  AttnParams<T>& gsa = gw.self_attn;
  heads_backward(g_q, g_k, g_v, g_concat, gsa, sa, g_r1, a.concat.data(), a.weights.data(), a.q.data(), a.k.data(),
                 a.v.data(), cfg.scale, B, T_, T_, d, NH, g_rel_bias, cfg.rel_clip);
  const T* attn_in = post ? in : a.norm1.data();
  T* g_attn_in = g_in;
  if (!post) {
    zero(g_norm, Nd);
    g_attn_in = g_norm;
  }
  linear_backward(g_attn_in, gsa.wq, gsa.bq, g_q, attn_in, sa.wq, N, d, d);
  linear_backward(g_attn_in, gsa.wk, gsa.bk, g_k, attn_in, sa.wk, N, d, d);
  linear_backward(g_attn_in, gsa.wv, gsa.bv, g_v, attn_in, sa.wv, N, d, d);
  if (!post)
    layernorm_backward(g_in, gw.norm1.gamma, gw.norm1.beta, g_norm, in, w.norm1.gamma, a.norm1_mean.data(),
                       a.norm1_rstd.data(), N, d);
}

template <typename T>
void stack_forward(StackActs<T>& s, const std::vector<BlockParams<T>>& blocks, const NormParams<T>& fin,
                   const Params<T>& p, const Activations<T>& acts, const int* ids, const T* memory,
                   const unsigned char* self_pad, const unsigned char* cross_pad, bool causal, int B, int T_, int S) {
  const ModelConfig& cfg = p.cfg;
  const int N = B * T_, d = cfg.d_model;
  embed_forward(s.x.data(), ids, p.tok_emb, p.pos_emb, cfg.pos == PosKind::Sinusoidal ? acts.pe.data() : nullptr, B, T_,
                d);
  const T* x = s.x.data();
  for (size_t l = 0; l < blocks.size(); ++l) {
    block_forward(s.blocks[l], blocks[l], cfg, p.rel_bias, x, memory, self_pad, cross_pad, causal, B, T_, S);
    x = block_output(s.blocks[l], cfg, blocks[l].has_cross);
  }
  if (cfg.norm == NormPlace::Pre) {
    layernorm_forward(s.final_norm.data(), s.final_norm_mean.data(), s.final_norm_rstd.data(), x, fin.gamma, fin.beta,
                      N, d, static_cast<T>(cfg.eps));
    x = s.final_norm.data();
  }
  s.out = x;
}

// g (N, d) in acts.g_out: dloss/d(stack output). Leaves dloss/d(embeddings) added into grads.
template <typename T>
void stack_backward(Params<T>& grads, std::vector<BlockParams<T>>& gblocks, NormParams<T>& gfin, Activations<T>& acts,
                    const StackActs<T>& s, const std::vector<BlockParams<T>>& blocks, const NormParams<T>& fin,
                    const Params<T>& p, const int* ids, const T* memory, int B, int T_, int S) {
  const ModelConfig& cfg = p.cfg;
  const bool post = cfg.norm == NormPlace::Post;
  const int N = B * T_, d = cfg.d_model;
  const size_t Nd = static_cast<size_t>(N) * d;
  T* g_out = acts.g_out.data();
  T* g_in = acts.g_in.data();
  const size_t L = blocks.size();
  if (!post) {
    const T* last = block_output(s.blocks[L - 1], cfg, blocks[L - 1].has_cross);
    zero(g_in, Nd);
    layernorm_backward(g_in, gfin.gamma, gfin.beta, g_out, last, fin.gamma, s.final_norm_mean.data(),
                       s.final_norm_rstd.data(), N, d);
    std::swap(g_in, g_out);
  }
  for (size_t l = L; l-- > 0;) {
    const T* in = l == 0 ? s.x.data() : block_output(s.blocks[l - 1], cfg, blocks[l - 1].has_cross);
    block_backward(g_in, acts.g_memory.data(), gblocks[l], grads.rel_bias, acts, s.blocks[l], blocks[l], cfg, g_out, in,
                   memory, B, T_, S);
    std::swap(g_in, g_out);
  }
  embed_backward(grads.tok_emb, grads.pos_emb, g_out, ids, B, T_, d);
}

// The output head: lm_head.w, or the token embeddings when the head is tied to them.
template <typename T>
void head_forward(T* logits, const T* h, const Params<T>& p, int N, int d, int V) {
  if (p.cfg.tied_head)
    tied_head_forward(logits, h, p.tok_emb, p.lm_head_b, N, d, V);
  else
    linear_forward(logits, h, p.lm_head_w, p.lm_head_b, N, d, V);
}

template <typename T>
void head_backward(T* g_h, Params<T>& grads, const T* g_logits, const T* h, const Params<T>& p, int N, int d, int V) {
  if (p.cfg.tied_head)
    tied_head_backward(g_h, grads.tok_emb, grads.lm_head_b, g_logits, h, p.tok_emb, N, d, V);
  else
    linear_backward(g_h, grads.lm_head_w, grads.lm_head_b, g_logits, h, p.lm_head_w, N, d, V);
}

}  // namespace

template <typename T>
double transformer_forward(Activations<T>& acts, const Params<T>& p, const Batch& batch) {
  const ModelConfig& cfg = p.cfg;
  check_batch(cfg, batch);
  size_acts(acts, cfg, batch);
  const int B = batch.B, T_ = batch.T, S = acts.S, N = B * T_, d = cfg.d_model, V = cfg.vocab_size;
  const T* memory = nullptr;
  if (cfg.arch == Arch::EncoderOnly) {  // bidirectional over the inputs, <pad> keys masked
    stack_forward<T>(acts.enc, p.encoder, p.enc_final_norm, p, acts, batch.inputs.data(), nullptr, acts.in_pad.data(),
                     nullptr, false, B, T_, T_);
    head_forward(acts.logits.data(), acts.enc.out, p, N, d, V);  // (N, V)
    crossentropy_forward(acts.losses.data(), acts.probs.data(), acts.logits.data(), batch.targets.data(), N, V);
    double sum = 0.0;
    for (int i = 0; i < N; ++i) sum += acts.losses[i];
    return sum;
  }
  if (cfg.arch == Arch::EncoderDecoder) {
    stack_forward<T>(acts.enc, p.encoder, p.enc_final_norm, p, acts, batch.src.data(), nullptr, acts.src_pad.data(),
                     nullptr, false, B, S, S);
    memory = acts.enc.out;
  }
  stack_forward(acts.dec, p.decoder, p.dec_final_norm, p, acts, batch.inputs.data(), memory, nullptr,
                memory ? acts.src_pad.data() : nullptr, cfg.causal, B, T_, S);
  head_forward(acts.logits.data(), acts.dec.out, p, N, d, V);  // (N, V)
  crossentropy_forward(acts.losses.data(), acts.probs.data(), acts.logits.data(), batch.targets.data(), N, V);
  double sum = 0.0;
  for (int i = 0; i < N; ++i) sum += acts.losses[i];
  return sum;
}

template <typename T>
void transformer_backward(Params<T>& grads, Activations<T>& acts, const Params<T>& p, const Batch& batch,
                          T loss_scale) {
  const ModelConfig& cfg = p.cfg;
  const int B = batch.B, T_ = batch.T, S = acts.S, N = B * T_, d = cfg.d_model, V = cfg.vocab_size;
  crossentropy_backward(acts.g_logits.data(), acts.probs.data(), batch.targets.data(), loss_scale, N, V);
  zero(acts.g_out.data(), static_cast<size_t>(N) * d);
  if (cfg.arch == Arch::EncoderOnly) {
    head_backward(acts.g_out.data(), grads, acts.g_logits.data(), acts.enc.out, p, N, d, V);
    stack_backward<T>(grads, grads.encoder, grads.enc_final_norm, acts, acts.enc, p.encoder, p.enc_final_norm, p,
                      batch.inputs.data(), nullptr, B, T_, T_);
    return;
  }
  head_backward(acts.g_out.data(), grads, acts.g_logits.data(), acts.dec.out, p, N, d, V);
  const bool encdec = cfg.arch == Arch::EncoderDecoder;
  if (encdec) zero(acts.g_memory);
  stack_backward(grads, grads.decoder, grads.dec_final_norm, acts, acts.dec, p.decoder, p.dec_final_norm, p,
                 batch.inputs.data(), acts.enc.out, B, T_, S);
  if (encdec) {
    const size_t Md = static_cast<size_t>(B) * S * d;
    std::copy(acts.g_memory.begin(), acts.g_memory.begin() + static_cast<std::ptrdiff_t>(Md), acts.g_out.begin());
    stack_backward<T>(grads, grads.encoder, grads.enc_final_norm, acts, acts.enc, p.encoder, p.enc_final_norm, p,
                      batch.src.data(), nullptr, B, S, S);
  }
}

template double transformer_forward(Activations<float>&, const Params<float>&, const Batch&);
template double transformer_forward(Activations<double>&, const Params<double>&, const Batch&);
template void transformer_backward(Params<float>&, Activations<float>&, const Params<float>&, const Batch&, float);
template void transformer_backward(Params<double>&, Activations<double>&, const Params<double>&, const Batch&, double);
template void sinusoidal_table(std::vector<float>&, int, int);
template void sinusoidal_table(std::vector<double>&, int, int);

}  // namespace ap::train
