// The trainable parameters of a transformer as one flat buffer (llm.c's ParameterTensors):
// named views into it for the layers, one memset to zero gradients, one loop for AdamW.
// Names, shapes and order are those of ap::ModelWeights, walked by the one layout
// (ap::for_each_tensor, cpp/core/layout.hpp); every W is (in, out) applied as x @ W, so a
// trained model copies into an ap::Model tensor by tensor.
// Templated on the scalar: float to train, double for the whole-model gradient check.
// Positions: learned (pos_emb), relative (rel_bias), sinusoidal or none; RoPE is not trained here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include "core/config.hpp"
#include "core/layout.hpp"
#include "core/model.hpp"

namespace ap::train {

template <typename T>
struct AttnParams {
  T *wq, *bq, *wk, *bk, *wv, *bv, *wo, *bo;
};
template <typename T>
struct NormParams {
  T *gamma, *beta;
};
template <typename T>
struct FFNParams {
  T *w1, *b1, *w2, *b2;
  T* w_gate;  // gated FFNs: never set (the trainer refuses them)
};            // (d, d_ff) (d_ff) (d_ff, d) (d)

template <typename T>
struct BlockParams {
  AttnParams<T> self_attn{};
  NormParams<T> norm1{};
  bool has_cross = false;
  AttnParams<T> cross_attn{};  // decoder of an encoder-decoder only
  NormParams<T> norm_cross{};
  FFNParams<T> ffn{};
  NormParams<T> norm2{};
};

template <typename T>
struct Params {
  // One entry per tensor, in the layout's order; decay = AdamW weight decay applies (matrices only).
  struct Tensor {
    std::string name;
    std::vector<int> shape;
    size_t offset, size;
    TensorKind kind;
    bool decay;
  };

  explicit Params(const ModelConfig& cfg);
  Params(const Params&) = delete;  // the views point into `flat`
  Params& operator=(const Params&) = delete;

  ModelConfig cfg;
  std::vector<T> flat;
  std::vector<Tensor> tensors;

  T* tok_emb = nullptr;                              // (V, d)
  T* pos_emb = nullptr;                              // (L, d) learned only
  T* rel_bias = nullptr;                             // (h, 2 rel_clip + 1) relative positions only
  std::vector<BlockParams<T>> encoder;               // n_layers or empty
  std::vector<BlockParams<T>> decoder;               // n_layers or empty
  NormParams<T> enc_final_norm{}, dec_final_norm{};  // pre-norm only
  T* lm_head_w = nullptr;                            // (d, V)
  T* lm_head_b = nullptr;                            // (V)

  size_t size() const { return flat.size(); }
  void zero();
  const Tensor* find(const std::string& name) const;
  T* data(const Tensor& t) { return flat.data() + t.offset; }
  const T* data(const Tensor& t) const { return flat.data() + t.offset; }
};

// Seeded initialisation by the core's one recipe (ap::init_tensor, as Model::init_random):
// the same seed gives exactly the numbers of Model::init_random, on every machine.
template <typename T>
void init_params(Params<T>& p, uint64_t seed);

// Copies between the trainer and an ap::Model's weights, tensor by tensor in layout order;
// throws ap::Error if the model's blocks or a tensor's size differ (it must be sized for p.cfg).
template <typename T>
void params_to_model(ModelWeights& w, const Params<T>& p);
template <typename T>
void params_from_model(Params<T>& p, const ModelWeights& w);

}  // namespace ap::train
