// Forward and backward of every layer the trainer needs, llm.c style: one pair of free
// functions per layer, outputs first, then inputs, then sizes. Backward functions ADD into
// their gradient outputs (+=), so a tensor read by two layers (a residual, the encoder memory
// read by every cross-attention) collects both contributions; callers zero them first.
// Templated on the scalar (float to train, double for gradient checks).
//
// Dimension letters: N rows (= B sequences x T positions), B batch, T query length,
// S key length (T for self-attention, the source length for cross-attention),
// C input channels, OC output channels, d model width, NH heads, V vocabulary, L max length.
// Every buffer is row-major.
#pragma once
#include <Eigen/Dense>

namespace ap::train {

// Row-major Eigen views of the trainer's flat buffers, for the files that implement the layers.
template <typename T>
using MatT = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using RowT = Eigen::Matrix<T, 1, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MapT = Eigen::Map<MatT<T>>;
template <typename T>
using CMapT = Eigen::Map<const MatT<T>>;

// out (B*T, d) = tok_emb[ids] + pos, pos = pos_emb[t] (learned), PE(t) (sinusoidal, pe given)
// or 0 (pos_emb = pe = nullptr). ids (B*T).
template <typename T>
void embed_forward(T* out, const int* ids, const T* tok_emb, const T* pos_emb, const T* pe, int B, int T_, int d);
// dtok_emb (V, d) += rows of dout by id; dpos_emb (L, d) += rows by position (if learned).
template <typename T>
void embed_backward(T* dtok_emb, T* dpos_emb, const T* dout, const int* ids, int B, int T_, int d);

// out (N, OC) = inp (N, C) @ w (C, OC) + b (OC).
template <typename T>
void linear_forward(T* out, const T* inp, const T* w, const T* b, int N, int C, int OC);
// dinp (N, C) += dout w^T; dw (C, OC) += inp^T dout; db (OC) += column sums of dout.
// dinp may be nullptr (the input needs no gradient).
template <typename T>
void linear_backward(T* dinp, T* dw, T* db, const T* dout, const T* inp, const T* w, int N, int C, int OC);
// A head tied to the token embeddings emb (V, C): out (N, V) = inp emb^T + b; backward adds into
// dinp, demb and db (b and db may be null).
template <typename T>
void tied_head_forward(T* out, const T* inp, const T* emb, const T* b, int N, int C, int V);
template <typename T>
void tied_head_backward(T* dinp, T* demb, T* db, const T* dout, const T* inp, const T* emb, int N, int C, int V);

// out (N, C) = (inp - mean) * rstd * gamma + beta per row; mean, rstd (N) kept for backward.
// Biased variance (divide by C), as torch.
template <typename T>
void layernorm_forward(T* out, T* mean, T* rstd, const T* inp, const T* gamma, const T* beta, int N, int C, T eps);
template <typename T>
void layernorm_backward(T* dinp, T* dgamma, T* dbeta, const T* dout, const T* inp, const T* gamma, const T* mean,
                        const T* rstd, int N, int C);

// Activations, elementwise over n values. GELU is the exact erf form (torch's default), computed
// in T; its forward also writes slope = d gelu / d inp (nullable: inference needs none), which is
// all its backward reads: dinp += dout * slope.
template <typename T>
void relu_forward(T* out, const T* inp, int n);
template <typename T>
void relu_backward(T* dinp, const T* inp, const T* dout, int n);
template <typename T>
void gelu_forward(T* out, T* slope, const T* inp, int n);
template <typename T>
void gelu_backward(T* dinp, const T* slope, const T* dout, int n);

// out = a + b, n values. Its backward is a copy of dout into both inputs (done by callers).
template <typename T>
void residual_forward(T* out, const T* a, const T* b, int n);

// Multi-head scaled dot-product attention on projected q (B*T, d), k, v (B*S, d):
//   per sequence and head h (columns h*d_k .. h*d_k + d_k): scores = q_h k_h^T (T, S),
//   scaled by 1/sqrt(d_k) if scale, masked (causal: key s > query t; key_pad[b*S + s] != 0),
//   plus, with relative positions, rel_bias[h][clip(s - t) + rel_clip] (the core's "pos_bias" stage,
//   T5's learned bias per head and clipped offset), masked (causal: key s > query t;
//   key_pad[b*S + s] != 0), att = softmax rows (all-masked rows all zero), head_out = att v_h.
// out (B*T, d) is the concatenation of the heads; att (B, NH, T, S) is kept for backward.
// rel_bias (NH, 2 rel_clip + 1) or nullptr; its gradient is added into g_rel_bias.
template <typename T>
void attention_forward(T* out, T* att, const T* q, const T* k, const T* v, const unsigned char* key_pad, bool causal,
                       bool scale, int B, int T_, int S, int d, int NH, const T* rel_bias = nullptr, int rel_clip = 0);
template <typename T>
void attention_backward(T* dq, T* dk, T* dv, const T* dout, const T* att, const T* q, const T* k, const T* v,
                        bool scale, int B, int T_, int S, int d, int NH, T* g_rel_bias = nullptr, int rel_clip = 0);

// Softmax cross-entropy per row: probs (N, V) = softmax(logits), losses (N) = -log probs[target].
// Target 0 (<pad>) means "no loss here" (padding, or a prompt position): loss 0.
template <typename T>
void crossentropy_forward(T* losses, T* probs, const T* logits, const int* targets, int N, int V);
// dlogits (N, V) = (probs - onehot(target)) * scale on rows with a target, 0 elsewhere
// (scale = 1 / number of targets makes the loss a mean). Written, not added.
template <typename T>
void crossentropy_backward(T* dlogits, const T* probs, const int* targets, T scale, int N, int V);

}  // namespace ap::train
