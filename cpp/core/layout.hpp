// The one list of a transformer's tensors: every name and shape of a config, in the order of
// the file format (the comment at the top of core/model.hpp), walked by for_each_tensor.
// The model's weights (Model::named_tensors), the trainer's flat parameters
// (train::Params) and the file checks (io/model_io) all read this one walk, and
// init_tensor is the one recipe that gives the tensors their first values.
#pragma once
#include <cmath>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/rng.hpp"
#include "core/config.hpp"

namespace ap {

// What a tensor is, for its initial values and for weight decay (matrices only).
enum class TensorKind {
  Embedding,  // tok_emb, pos_emb
  Matrix,     // every W (in, out), rel_bias
  Bias,       // every b, LayerNorm beta
  Gain,       // LayerNorm gamma
};

inline size_t element_count(const std::vector<int>& shape) {
  size_t n = 1;
  for (int s : shape) n *= static_cast<size_t>(s);
  return n;
}

// Calls visit(name, shape, kind, slot) for every tensor of a model with config cfg, in file
// order. W is a weights structure with ModelWeights' member names (ModelWeights itself, the
// trainer's Params<T>): slot points at the member holding the tensor (a Mat* / Vec* there, a
// T** in Params). W = void walks names and shapes only (slot is nullptr). The blocks of w must
// already be sized for cfg (n_layers per stack present, cross-attention in the decoder of an
// encoder-decoder).
template <typename W, typename Visit>
void for_each_tensor(const ModelConfig& cfg, W* w, Visit&& visit) {
  const int d = cfg.d_model, F = cfg.d_ff, V = cfg.vocab_size;
  const int kv = cfg.d_kv();  // K and V width: d, or n_kv_heads d_k with grouped K/V heads
  // A tensor reached through field(weights) -> its member.
  auto one = [&](const std::string& name, std::vector<int> shape, TensorKind kind, auto field) {
    if constexpr (std::is_void_v<W>) {
      visit(name, std::move(shape), kind, nullptr);
    } else {
      visit(name, std::move(shape), kind, &field(*w));
    }
  };
  auto attn = [&](const std::string& p, auto get) {  // get(weights) -> the attention's weights
    one(
        p + ".wq", {d, d}, TensorKind::Matrix, [get](auto& x) -> auto& { return get(x).wq; });
    one(
        p + ".wk", {d, kv}, TensorKind::Matrix, [get](auto& x) -> auto& { return get(x).wk; });
    one(
        p + ".wv", {d, kv}, TensorKind::Matrix, [get](auto& x) -> auto& { return get(x).wv; });
    one(
        p + ".wo", {d, d}, TensorKind::Matrix, [get](auto& x) -> auto& { return get(x).wo; });
    one(
        p + ".bq", {d}, TensorKind::Bias, [get](auto& x) -> auto& { return get(x).bq; });
    one(
        p + ".bk", {kv}, TensorKind::Bias, [get](auto& x) -> auto& { return get(x).bk; });
    one(
        p + ".bv", {kv}, TensorKind::Bias, [get](auto& x) -> auto& { return get(x).bv; });
    one(
        p + ".bo", {d}, TensorKind::Bias, [get](auto& x) -> auto& { return get(x).bo; });
  };
  auto norm = [&](const std::string& p, auto get) {  // get(weights) -> the LayerNorm's weights
    one(
        p + ".gamma", {d}, TensorKind::Gain, [get](auto& x) -> auto& { return get(x).gamma; });
    if (cfg.norm_kind == NormKind::Layer)  // RMSNorm has no bias
      one(
          p + ".beta", {d}, TensorKind::Bias, [get](auto& x) -> auto& { return get(x).beta; });
  };
  // stack(x) -> the stack's blocks, final(x) -> its final norm.
  auto stack = [&](const std::string& name, bool present, bool cross, auto blocks, auto final) {
    if (!present) return;
    for (int i = 0; i < cfg.n_layers; ++i) {
      const std::string p = name + "." + std::to_string(i);
      auto block = [ blocks, i ](auto& x) -> auto& { return blocks(x)[static_cast<size_t>(i)]; };
      attn(
          p + ".self_attn", [block](auto& x) -> auto& { return block(x).self_attn; });
      norm(
          p + ".norm1", [block](auto& x) -> auto& { return block(x).norm1; });
      if (cross) {
        attn(
            p + ".cross_attn", [block](auto& x) -> auto& { return block(x).cross_attn; });
        norm(
            p + ".norm_cross", [block](auto& x) -> auto& { return block(x).norm_cross; });
      }
      if (!cfg.ffn) continue;  // attention-only: no FFN, no norm2
      one(
          p + ".ffn.w1", {d, F}, TensorKind::Matrix, [block](auto& x) -> auto& { return block(x).ffn.w1; });
      one(
          p + ".ffn.b1", {F}, TensorKind::Bias, [block](auto& x) -> auto& { return block(x).ffn.b1; });
      one(
          p + ".ffn.w2", {F, d}, TensorKind::Matrix, [block](auto& x) -> auto& { return block(x).ffn.w2; });
      one(
          p + ".ffn.b2", {d}, TensorKind::Bias, [block](auto& x) -> auto& { return block(x).ffn.b2; });
      if (cfg.ffn_kind != FfnKind::Mlp)
        one(
            p + ".ffn.w_gate", {d, F}, TensorKind::Matrix, [block](auto& x) -> auto& { return block(x).ffn.w_gate; });
      norm(
          p + ".norm2", [block](auto& x) -> auto& { return block(x).norm2; });
    }
    if (cfg.norm == NormPlace::Pre) norm(name + ".final_norm", final);
  };

  one(
      "tok_emb", {V, d}, TensorKind::Embedding, [](auto& x) -> auto& { return x.tok_emb; });
  if (cfg.pos == PosKind::Learned)
    one(
        "pos_emb", {cfg.max_len, d}, TensorKind::Embedding, [](auto& x) -> auto& { return x.pos_emb; });
  if (cfg.pos == PosKind::Relative)
    one(
        "rel_bias", {cfg.n_heads, 2 * cfg.rel_clip + 1}, TensorKind::Matrix,
        [](auto& x) -> auto& { return x.rel_bias; });
  stack(
      "encoder", cfg.has_encoder(), false, [](auto& x) -> auto& { return x.encoder; },
      [](auto& x) -> auto& { return x.enc_final_norm; });
  stack(
      "decoder", cfg.has_decoder(), cfg.arch == Arch::EncoderDecoder, [](auto& x) -> auto& { return x.decoder; },
      [](auto& x) -> auto& { return x.dec_final_norm; });
  if (!cfg.tied_head)
    one(
        "lm_head.w", {d, V}, TensorKind::Matrix, [](auto& x) -> auto& { return x.lm_head_w; });
  if (cfg.head_bias)
    one(
        "lm_head.b", {V}, TensorKind::Bias, [](auto& x) -> auto& { return x.lm_head_b; });
}

// Names, shapes and kinds only.
template <typename Visit>
void for_each_tensor(const ModelConfig& cfg, Visit&& visit) {
  for_each_tensor(cfg, static_cast<void*>(nullptr), std::forward<Visit>(visit));
}

// The one initialisation recipe, the one the shipped models were trained from: LayerNorm gamma 1,
// biases and beta 0, embeddings N(0, 1) (torch's nn.Embedding; the LayerNorms rescale anyway),
// matrices Xavier uniform in [-a, a), a = sqrt(6 / (in + out)), which keeps the variance of
// x @ W near that of x. Values are drawn from rng in order as floats (cast to T), so a double
// copy of a model starts from exactly the float model's numbers.
template <typename T>
void init_tensor(T* data, size_t size, const std::vector<int>& shape, TensorKind kind, Rng& rng) {
  switch (kind) {
    case TensorKind::Gain:
      for (size_t i = 0; i < size; ++i) data[i] = T(1);
      return;
    case TensorKind::Bias:
      for (size_t i = 0; i < size; ++i) data[i] = T(0);
      return;
    case TensorKind::Embedding:
      for (size_t i = 0; i < size; ++i) data[i] = static_cast<T>(static_cast<float>(rng.normal()));
      return;
    case TensorKind::Matrix: {
      const float a = std::sqrt(6.0f / static_cast<float>(shape[0] + shape[1]));
      for (size_t i = 0; i < size; ++i) data[i] = static_cast<T>(rng.symmetric(a));
      return;
    }
  }
}

}  // namespace ap
