// One transformer block: attention sub-layer(s) then the FFN sub-layer, each wrapped in
// Add & Norm (post-norm, as in the notes) or Norm-then-Add (pre-norm).
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "core/model.hpp"

namespace ap {

// Records (under stack, layer): [norm1 first if pre-norm] q k v ... attn_out resid1 norm1,
// for a decoder block with cross-attention cross_q ... cross_attn_out cross_resid cross_norm,
// then ffn_hidden ffn_act ffn_out resid2 norm2 (each *_norm also as *_norm_stats: mu, sigma; with RMSNorm
// as *_norm_rms: the rms); a gated FFN records ffn_gate ffn_gate_act ffn_up ffn_prod ffn_out (ffn_forward).
// memory/mem_pad: encoder output and its padding, for cross-attention (null otherwise).
// cache (decoding): x holds only the new rows, at positions cache->self.k.rows() onwards; their
// keys/values are appended to cache->self and cross-attention K/V are computed once into cache->cross.
// The FFN sub-layer on each row: act(x W1 + b1) W2 + b2 (records ffn_hidden ffn_act ffn_out), or with
// a GLU kind (act(x W_gate) * (x W1 + b1)) W2 + b2 (records ffn_gate ffn_gate_act ffn_up ffn_prod ffn_out).
// tr may be null.
void ffn_forward(Mat& out, const Mat& in, const FFNWeights& w, const ModelConfig& cfg, Trace* tr,
                 const std::string& stack, int layer);

void block_forward(Mat& out, const Mat& x, const Mat* memory, const std::vector<uint8_t>& self_pad,
                   const std::vector<uint8_t>* mem_pad, const BlockWeights& b, const ModelConfig& cfg,
                   const Mat* rel_bias, bool causal, Trace& tr, const std::string& stack, int layer,
                   BlockCache* cache = nullptr);

}  // namespace ap
