// A pretrained model from a Hugging Face folder: config.json, model.safetensors, tokenizer.json.
// GPT-2 (gpt2, distilgpt2, the small community GPT-2s), BERT (bert-base-uncased, the bert-tiny / mini /
// small series) and the Llama family (SmolLM, TinyLlama, the "stories" models, Mistral, Qwen2) map onto the
// core's blocks:
//   GPT-2: decoder-only, learned positions, pre-norm, GELU tanh ("gelu_new"), Conv1D weights
//          (in, out) as the core's own x @ W, c_attn split into W_Q W_K W_V, head tied to wte.
//   BERT:  encoder-only, learned positions + token types + LayerNorm over the embedding sum,
//          post-norm, nn.Linear weights (out, in) transposed, the MLM head (dense, GELU,
//          LayerNorm, tied decoder + bias).
//   Llama, Mistral, Qwen2: decoder-only, pre-norm RMSNorm, RoPE (rope_theta; Q and K rows permuted from
//          rotate_half's pairs to the core's), grouped K/V heads, SwiGLU, nn.Linear weights transposed;
//          Mistral's sliding window, Qwen2's q/k/v biases; head tied or lm_head.weight.
// The weights stream in: the model is allocated from config.json, then the safetensors data is
// fed in order, in chunks, each value converted (F32, F16, BF16) straight into its place, so a
// 500 MB checkpoint never sits in memory twice. Every problem is an ap::Error naming the file
// and the field or tensor ("config.json: n_head ...", "model.safetensors: tensor 'h.0.attn.c_attn.weight' ...").
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/model.hpp"

namespace ap {

// The largest pretrained model read, in float32 bytes of weights (GPT-2 medium's 355 M parameters
// fit; wasm32 memory is 4 GB and a forward needs room beside the weights).
constexpr uint64_t kMaxPretrainedBytes = uint64_t{1536} << 20;

// config.json -> the core's config (family "gpt2", "bert", "llama", "mistral" or "qwen2"; vocab_size from the file).
// Throws naming the field for a missing, mistyped or unsupported value (scale_attn_by_inverse_layer_idx, a relative
// position_embedding_type, an is_decoder BERT, ...).
ModelConfig hf_config(const std::string& config_json);

// A tokenizer.json as a core Tokenizer (io/hf_tokenizer: byte-level BPE or WordPiece).
Tokenizer hf_tokenizer(const std::string& tokenizer_json);

class HfLoader {
 public:
  // Reads config.json and tokenizer.json and allocates the model (zero weights).
  HfLoader(const std::string& config_json, const std::string& tokenizer_json);
  ~HfLoader();

  // model.safetensors, in order: its first 8 bytes give the header's length (file_size: the whole
  // file's, for the checks); then the header (names, dtypes, shapes, offsets), checked against the
  // model: every tensor the model needs present with its shape. Returns the data section's size.
  uint64_t header_length(const uint8_t* first8, uint64_t file_size);
  uint64_t read_header(const uint8_t* header, size_t size);
  // The next `size` bytes of the data section (after the header), converted into the weights.
  // Chunks come in order, of any size (a value cut by a chunk's end is finished by the next).
  void feed(const uint8_t* bytes, size_t size);
  uint64_t received() const;
  // Checks that every byte arrived and the weights are finite; hands the model over (once).
  std::unique_ptr<Model> finish();

  // A sharded checkpoint (save_pretrained's model-0000k-of-0000n.safetensors): read_index takes
  // model.safetensors.index.json and returns the shard files its weight_map names, sorted; then, for each
  // shard in any order, next_shard(file) before its header_length / read_header / feed. Every tensor must
  // be in the shard the index says; finish() checks that every shard was read and no tensor is missing.
  std::vector<std::string> read_index(const std::string& index_json);
  void next_shard(const std::string& file);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ap
