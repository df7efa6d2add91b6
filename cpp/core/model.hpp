// A whole transformer from one ModelConfig: token embeddings, positions, a stack of
// encoder and/or decoder blocks, an LM head. forward() records every stage in a Trace.
//
// Tensor names (safetensors; every W applied as x @ W, shape (in, out)):
//   tok_emb (V, d)                  shared by encoder and decoder
//   pos_emb (L, d)                  learned positions only
//   rel_bias (h, 2*rel_clip+1)      relative positions only: score bias by clipped offset j - i
//   {stack}.{i}.self_attn.{wq,wk,wv,wo} (d, d)  .{bq,bk,bv,bo} (d)      stack = encoder | decoder
//                                   with grouped K/V (n_kv_heads): wk, wv (d, n_kv_heads d_k), bk, bv (n_kv_heads d_k)
//   decoder.{i}.cross_attn.*        encoder-decoder only, same names
//   {stack}.{i}.norm1.{gamma,beta}  after (post) / before (pre) self-attention
//   decoder.{i}.norm_cross.{gamma,beta}   around cross-attention
//   {stack}.{i}.ffn.{w1 (d, d_ff), b1 (d_ff), w2 (d_ff, d), b2 (d)}  (+ w_gate (d, d_ff) with a gated FFN)
//   (an RMSNorm model's norms have gamma only: no .beta tensors)
//   {stack}.{i}.norm2.{gamma,beta}  around the FFN
//   {stack}.final_norm.{gamma,beta} pre-norm only: LayerNorm after the last block
//   lm_head.w (d, V), lm_head.b (V)   (no lm_head.w with a tied head, no lm_head.b without head_bias)
// Pretrained (Hugging Face) models only, see ModelConfig's family fields:
//   type_emb (type_vocab, d), emb_norm.{gamma,beta}, mlm.w (d, d), mlm.b (d), mlm_norm.{gamma,beta}
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>
#include "base/tensor.hpp"
#include "core/attention.hpp"
#include "core/config.hpp"
#include "core/layout.hpp"
#include "core/tokenizer.hpp"
#include "trace/trace.hpp"

namespace ap {

struct LayerNormWeights {
  Vec gamma, beta;
};  // (d) each
struct FFNWeights {
  Weight w1;
  Vec b1;
  Weight w2;
  Vec b2;
  Weight w_gate;  // (d, d_ff), gated FFN kinds only (ModelConfig::ffn_kind)
};                // (d, d_ff) (d_ff) (d_ff, d) (d)

struct BlockWeights {
  AttentionWeights self_attn;
  LayerNormWeights norm1;
  bool has_cross = false;
  AttentionWeights cross_attn;
  LayerNormWeights norm_cross;
  FFNWeights ffn;
  LayerNormWeights norm2;
};

struct ModelWeights {
  Weight tok_emb;                                   // (V, d)
  Mat pos_emb;                                      // (L, d) learned only
  Mat rel_bias;                                     // (h, 2*rel_clip+1) relative only
  std::vector<BlockWeights> encoder;                // n_layers or empty
  std::vector<BlockWeights> decoder;                // n_layers or empty
  LayerNormWeights enc_final_norm, dec_final_norm;  // pre-norm only
  Weight lm_head_w;                                 // (d, V), empty with a tied head
  Vec lm_head_b;                                    // (V)
  // Pretrained models (ModelConfig::family): BERT's token types, embedding LayerNorm, MLM transform.
  Mat type_emb;  // (type_vocab, d)
  LayerNormWeights emb_norm;
  Mat mlm_w;  // (d, d)
  Vec mlm_b;  // (d)
  LayerNormWeights mlm_norm;
};

// One decoder layer's caches while decoding.
struct BlockCache {
  KVCache self, cross;
};

// Everything a decoder needs between steps: per-layer K/V caches, and for encoder-decoder
// models the encoder output with its padding. length = positions decoded so far.
struct DecodeState {
  std::vector<BlockCache> layers;
  Mat memory;                    // (m, d) encoder output
  std::vector<uint8_t> mem_pad;  // (m)
  int length = 0;
  ModelConfig cfg;  // the model's config with this decoding's switches applied
  // Bytes of the self-attention K/V caches (float32): 2 layers length n_kv_heads d_k 4, i.e.
  // n_kv_heads / n_heads of a multi-head cache. Cross-attention's memory K/V are not counted.
  size_t kv_cache_bytes() const {
    size_t b = 0;
    for (const BlockCache& l : layers) b += l.self.bytes();
    return b;
  }
};

// Every Weight of w (a model's with config cfg) float32: training's starting point (core/weight.hpp).
void widen_weights(const ModelConfig& cfg, ModelWeights& w);

class Model {
 public:
  // Allocates zero weights of the right shapes; with allocate_weights false the Weights (the big
  // matrices, core/weight.hpp) stay empty for a loader to size as its file stores each one.
  Model(ModelConfig cfg, Tokenizer tok, bool allocate_weights = true);
  // Fills every weight from a seeded generator by the one recipe, init_tensor (core/layout.hpp).
  void init_random(uint64_t seed);

  const ModelConfig& config() const { return cfg_; }
  // The config one call runs with: this model's, with the switches applied (see apply_switches).
  ModelConfig config(const Switches& sw) const { return apply_switches(cfg_, sw); }
  const Tokenizer& tokenizer() const { return tok_; }
  // Free-form strings saved in the file's header: "task", "separator", "description", ...
  const std::map<std::string, std::string>& metadata() const { return meta_; }
  std::map<std::string, std::string>& mutable_metadata() { return meta_; }
  ModelWeights& weights() { return w_; }
  const ModelWeights& weights() const { return w_; }

  // A text prompt as the model was trained to read it. Decoder-only: <bos>, the text's tokens, then
  // the separator its task puts between question and answer (metadata "separator", e.g. "=").
  // Encoder-decoder: the text is the source (src) and the decoder starts from <bos> alone.
  // Encoder-only: the text's tokens. pieces and unknown (positions mapped to <unk>) describe src
  // for an encoder-decoder model and ids otherwise. Throws for a text with no tokens.
  struct Prompt {
    std::vector<int> src, ids;
    std::vector<std::string> pieces;
    std::vector<int> unknown;
  };
  Prompt prompt(const std::string& text) const;

  // Flat list of (name, shape, pointer, kind) over every tensor, in the order of the layout
  // (for_each_tensor, core/layout.hpp; save/load use it). weight: the Weight holding a big matrix
  // (else null); when it is kept at 16 bits, data is null and its values are weight's.
  struct NamedTensor {
    std::string name;
    std::vector<int> shape;
    float* data;
    TensorKind kind;
    Weight* weight = nullptr;
  };
  std::vector<NamedTensor> named_tensors();
  // One of them by name; throws ap::Error "unknown tensor 'name'".
  NamedTensor named_tensor(const std::string& name);
  // Every Weight float32 (what training starts from).
  void widen_weights();
  // Lays every 16-bit Weight but the token embeddings out in column panels (Weight::to_panels()):
  // what a loader does once the values are in. The embeddings stay row-major: rows are looked up,
  // and the tied head reads them as rows.
  void pack_weights();
  // Bytes the weights take as held: 2 a value for a Weight kept at 16 bits, else 4.
  size_t weight_bytes() const;
  // Copies `length` finite values into that tensor (a Weight kept at 16 bits becomes float32);
  // throws ap::Error (the tensor unchanged) when the name is unknown, the length is not the
  // tensor's size or a value is not finite.
  void set_tensor(const std::string& name, const float* data, size_t length);

  // Decoder-only / encoder-only: ids is the sequence. Encoder-decoder: src to the encoder,
  // tgt to the decoder. Records tokens, embed, pos, x, every block stage, logits, probs.
  // Throws ap::Error for n = 0, n > max_len, ids out of range, a switch the model cannot take.
  // The switches apply to this call only: the model itself never changes.
  void forward(Trace& trace, const std::vector<int>& ids, const Switches& sw = {}) const;
  void forward(Trace& trace, const std::vector<int>& src, const std::vector<int>& tgt, const Switches& sw = {}) const;

  // Decoding with a KV cache. begin_decoding resets the state and, for encoder-decoder models,
  // runs the encoder on src (recording its stages in trace). decode_step runs the decoder on the
  // new ids only (positions state.length onwards), appending to the caches, and records the new
  // rows' stages (q, scores over all cached keys, weights, ...) plus logits and probs. The
  // switches given to begin_decoding hold for the whole decoding (kept in state.cfg).
  void begin_decoding(DecodeState& state, Trace& trace, const std::vector<int>& src, const Switches& sw = {}) const;
  void decode_step(DecodeState& state, Trace& trace, const std::vector<int>& new_ids) const;

  // Throws ap::Error if any weight is NaN/Inf or has the wrong shape.
  void check_weights() const;

 private:
  // Throws for empty input, offset + n beyond max_len, ids outside the vocabulary.
  void check_ids(const std::vector<int>& ids, const char* what, int offset) const;

  ModelConfig cfg_;
  Tokenizer tok_;
  ModelWeights w_;
  std::map<std::string, std::string> meta_;
};

}  // namespace ap
