// Autoregressive decoding: greedy, temperature, top-k and top-p sampling with a seeded
// generator, with or without a KV cache, and a per-step trace of what the model computed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "core/model.hpp"

namespace ap {

struct SamplingOptions {
  float temperature = 0.0f;  // <= 0: greedy (argmax)
  int top_k = 0;             // 0: off; else keep the k most probable tokens
  float top_p = 1.0f;        // in (0, 1]: keep the smallest set whose probability reaches top_p
  uint64_t seed = 1;
};

// Throws ap::Error naming a bad parameter (top_p outside (0, 1], top_k < 0, NaN temperature).
void check_sampling(const SamplingOptions& s);

// The distribution actually sampled from, over the whole vocabulary: softmax(logits / T)
// restricted to the top-k and then to the top-p nucleus, renormalised. Greedy gives a one-hot
// argmax. Tokens listed in `banned` (e.g. <pad>, <bos>) get probability 0.
std::vector<float> sampling_distribution(const float* logits, int vocab, const SamplingOptions& s,
                                         const std::vector<int>& banned);

struct GenerateOptions {
  int max_tokens = 32;
  SamplingOptions sampling;
  bool use_cache = true;
  // Teaching switches for this generation. causal is ignored: a generated token never sees the
  // future, so decoding is always causal (with or without the cache).
  Switches switches;
  // What each step's trace keeps (trace/trace.hpp): a pretrained model's 50 000-wide probs per step add up.
  TraceKeep keep;
};

struct DecodeStep {
  Trace trace;                      // with the cache: stages of the new rows only (q, scores over the cache, ...)
  int cache_len = 0;                // keys attended to by the new token (prompt + tokens so far)
  int token = 0;                    // the chosen id
  std::vector<float> distribution;  // (V) what it was sampled from
};

struct Generation {
  std::vector<int> prompt;  // decoder input before generation (starts with <bos>)
  std::vector<int> tokens;  // generated ids (including a final <eos> if one was chosen)
  std::vector<DecodeStep> steps;
  Trace encoder;     // encoder-decoder: the encoder's stages
  std::string stop;  // "eos", "max_tokens" or "max_len"
  // With the cache: its self-attention K/V bytes at the end (DecodeState::kv_cache_bytes); 0 without it.
  size_t kv_cache_bytes = 0;
};

// prompt: decoder input ids (for encoder-decoder usually just <bos>); src: encoder input
// (encoder-decoder only). Throws for empty prompts, prompts at or past the context length,
// max_tokens < 1 or > max_len, bad sampling parameters, or an encoder-only model.
Generation generate(const Model& model, const std::vector<int>& prompt, const std::vector<int>& src,
                    const GenerateOptions& opt);

}  // namespace ap
