// The whole transformer for training: a forward pass over a padded batch that keeps every
// activation (llm.c's ActivationTensors), and the backward pass that walks them in reverse.
// The forward is the inference core's (cpp/core/model.cpp) to within float rounding; the test
// test_train_consistency holds the two equal, so a shipped model does in the browser what it
// did here. Decoder-only, encoder-only and encoder-decoder; post-norm (default) or pre-norm.
//
//   decoder-only:    x = tok_emb[inputs] + pos; blocks (causal self-attention); logits
//   encoder-only:    x = tok_emb[inputs] + pos; encoder blocks (bidirectional, <pad> keys
//                    masked); logits at every position (a masked LM reads them where targets != 0)
//   encoder-decoder: memory = encoder(src) (bidirectional, <pad> keys masked);
//                    decoder(inputs) with causal self-attention and cross-attention to memory
//   loss = mean over positions with targets != 0 of -log softmax(logits)[target]
// Sequences are right-padded with <pad> (id 0): with the causal mask a real position never
// sees the padding after it, and padded keys of the source are masked, so the numbers at real
// positions are those of the unpadded sequence.
#pragma once
#include <vector>
#include "data/batch.hpp"
#include "train/params.hpp"

namespace ap::train {

// Each buffer is named after the stage of the core's trace that holds the same numbers
// (docs/design.md's stage table; cpp/core/block.cpp, cpp/core/attention.cpp), so a reader maps
// an activation, and its gradient g_<stage>, to the step the page shows. *_mean and *_rstd are
// what the trace records together as <norm>_stats (mean and 1 / std here, mean and std there).
template <typename T>
struct BlockActs {
  std::vector<T> norm1, norm1_mean, norm1_rstd;                 // (N, d) (N) (N)
  std::vector<T> q, k, v;                                       // (N, d) each
  std::vector<T> weights;                                       // (B, NH, T, T) softmax weights
  std::vector<T> concat, attn_out, resid1;                      // (N, d)
  std::vector<T> cross_norm, cross_norm_mean, cross_norm_rstd;  // cross-attention (decoder of enc-dec)
  std::vector<T> cross_q, cross_k, cross_v;                     // (N, d) (M, d) (M, d), M = B*S
  std::vector<T> cross_weights;                                 // (B, NH, T, S)
  std::vector<T> cross_concat, cross_attn_out, cross_resid;     // (N, d)
  std::vector<T> norm2, norm2_mean, norm2_rstd;                 // (N, d) (N) (N)
  std::vector<T> ffn_hidden, ffn_act;                           // (N, d_ff)
  std::vector<T> ffn_slope;                                     // (N, d_ff) GELU: d ffn_act / d ffn_hidden
  std::vector<T> ffn_out, resid2;                               // (N, d)
};

template <typename T>
struct StackActs {
  std::vector<T> x;  // (N, d) embed + pos
  std::vector<BlockActs<T>> blocks;
  std::vector<T> final_norm, final_norm_mean, final_norm_rstd;  // pre-norm only
  const T* out = nullptr;                                       // (N, d) the stack's output
};

template <typename T>
struct Activations {
  int B = 0, T_ = 0, S = 0;
  StackActs<T> enc, dec;                 // encoder-only: enc only
  std::vector<unsigned char> src_pad;    // (B, S) 1 where src is <pad>
  std::vector<unsigned char> in_pad;     // (B, T) encoder-only: 1 where inputs is <pad>
  std::vector<T> logits, probs, losses;  // (N, V) (N, V) (N)
  std::vector<T> pe;                     // (L, d) sinusoidal table, if used
  // Backward scratch, sized with the rest so backward never allocates; g_<stage> is dloss/d<stage>
  // of the block being walked back (self- and cross-attention share g_q ... g_concat):
  //   g_out, g_in: of the block's output and input;
  //   g_resid: of a residual sum (resid2, cross_resid, resid1) when a post-norm follows it;
  //   g_h: of h, what an attention sublayer hands on (norm1 / resid1, cross_norm / cross_resid);
  //   g_norm: of a pre-norm's output (norm2, cross_norm, norm1);
  //   g_cross_in: of the cross-attention sublayer's input (norm1 / resid1);
  //   g_memory: of the encoder's output, which every cross-attention reads.
  std::vector<T> g_out, g_in, g_resid, g_h, g_norm, g_cross_in, g_concat, g_q, g_k, g_v;  // (max(N, M), d)
  std::vector<T> g_ffn_hidden, g_ffn_act;                                                 // (max(N, M), d_ff)
  std::vector<T> g_memory;                                                                // (M, d)
  std::vector<T> g_logits;                                                                // (N, V)
};

// Runs the model over the batch and keeps every activation. Returns the SUM of the losses
// at positions with a target (divide by batch.count_targets() for the mean).
template <typename T>
double transformer_forward(Activations<T>& acts, const Params<T>& p, const Batch& batch);

// Adds d(loss_scale * summed loss)/d(param) into grads (same layout as p). Call after forward.
template <typename T>
void transformer_backward(Params<T>& grads, Activations<T>& acts, const Params<T>& p, const Batch& batch, T loss_scale);

// The sinusoidal table PE (rows, d) with the core's formula (cpp/core/layers.cpp).
template <typename T>
void sinusoidal_table(std::vector<T>& pe, int rows, int d);

}  // namespace ap::train
