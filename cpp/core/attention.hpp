// Multi-head scaled dot-product attention, self or cross, recording every stage.
//   X (n, d) queries' source, M (m, d) keys'/values' source (M = X for self-attention)
//   Q = X W_Q + b_Q, K = M W_K + b_K, V = M W_V + b_V           (n|m, d)
//   per head i: scores = Q_i K_i^T (n, m); scaled = scores / sqrt(d_k);
//   masked = scaled with -inf where masked (or + additive_mask); weights = softmax rows; head_out = weights V_i (n,
//   d_k) concat = [head_out_0 ... head_out_{h-1}] (n, d); attn_out = concat W_O + b_O (n, d)
// A row whose keys are all masked gets all-zero weights (documented; never NaN).
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "base/tensor.hpp"
#include "core/config.hpp"
#include "core/weight.hpp"
#include "trace/trace.hpp"

namespace ap {

struct AttentionWeights {
  Weight wq, wk, wv, wo;  // (d, d) each, applied as x @ W; wk, wv (d, n_kv_heads d_k) with grouped K/V heads
  Vec bq, bk, bv, bo;     // (d) each (bk, bv: as wk's columns), or empty for no bias
};

// Keys and values kept across decoding steps (rows = positions so far; keys already rotated for RoPE).
struct KVCache {
  Mat k, v;  // (m, n_kv_heads d_k) each: (m, d) for multi-head attention
  size_t bytes() const { return sizeof(float) * static_cast<size_t>(k.size() + v.size()); }
};

struct AttentionOptions {
  int n_heads = 1;
  // Grouped-query attention: K and V have n_kv_heads heads (0: n_heads), head h reads K/V head
  // h / (n_heads / n_kv_heads). Weights with full-width wk, wv (a multi-head model) are mean-pooled
  // per group first (Ainslie et al. 2023): K/V head g's projection is the mean of its query heads'.
  int n_kv_heads = 0;
  bool causal = false;  // query i sees keys j <= i + q_offset
  // Sliding window (with causal only): query at position p sees keys at positions p - window < pos <= p.
  // 0: no window.
  int window = 0;
  bool scale = true;  // divide by sqrt(d_k)
  // 0: masked scores are set to -inf (exact zeros after softmax). Nonzero: they get this value
  // added instead, masked = scaled + mask * additive_mask, as the notes' listing does with -1e9
  // (a fully masked row then gets uniform weights rather than zeros).
  float additive_mask = 0.0f;
  const std::vector<uint8_t>* key_padding = nullptr;  // length m, nonzero = padding (masked)
  PosKind pos = PosKind::None;                        // Rope rotates q and k; Relative adds rel_bias
  float rope_theta = 10000.0f;                        // RoPE's base (ModelConfig::rope_theta)
  const Mat* rel_bias = nullptr;                      // (h, 2*rel_clip+1): bias added to scores by clipped offset j - i
  int rel_clip = 8;
  int q_offset = 0;  // position of query row 0 (decoding with a KV cache)
  int k_offset = 0;  // position of key row 0
  // Decoding. Self-attention: the new rows' K and V are appended to *cache and attention runs
  // over the whole cache (k_offset is then the cache length before the call). Cross-attention
  // (cache_append = false): K and V are computed from memory once, then reused from the cache.
  KVCache* cache = nullptr;
  bool cache_append = true;
};

// Records q k v [q_rot k_rot] kv_group scores scaled masked weights head_out concat attn_out (kv_group (h):
// the K/V head each query head reads, 0..n_kv_heads-1; k and v are (m, n_kv_heads d_k)),
// each name prefixed by `prefix` ("" or "cross_"), under (stack, layer).
// `trace` may be null: then nothing is recorded (the fast path).
void multi_head_attention(Mat& out,           // (n, d)
                          const Mat& x,       // (n, d)
                          const Mat& memory,  // (m, d); pass x for self-attention
                          const AttentionWeights& w, const AttentionOptions& opt, Trace* trace,
                          const std::string& prefix = "", const std::string& stack = "", int layer = -1);

// Checks shapes and finiteness of weights for d_model/n_heads (wk, wv, bk, bv: d_model wide, or
// n_kv_heads d_k with n_kv_heads > 0); throws ap::Error naming the problem.
void check_attention_weights(const AttentionWeights& w, int d_model, int n_heads, int n_kv_heads = 0);

}  // namespace ap
