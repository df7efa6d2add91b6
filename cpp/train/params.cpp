// Layout, initialisation and model copies of the trainer's flat parameter buffer.
#include "train/params.hpp"

#include <cmath>

#include "base/rng.hpp"
#include "base/tensor.hpp"

namespace ap::train {

template <typename T>
Params<T>::Params(const ModelConfig& c) : cfg(c) {
  cfg.validate();
  if (cfg.vocab_size < 4) fail("the trainer needs vocab_size set (got " + std::to_string(cfg.vocab_size) + ")");
  if (cfg.pos == PosKind::Rope)
    fail(std::string("the trainer supports positions none, sinusoidal, learned and relative (got ") +
         to_string(cfg.pos) + ")");
  if (cfg.act == Act::GeluTanh) fail("the trainer supports activations relu and gelu (got gelu_tanh)");
  // Issue 26's parts run in the core (forward and decoding); there is no backward pass for them.
  if (cfg.norm_kind != NormKind::Layer)
    fail(std::string("the trainer supports normKind layernorm only (got ") + to_string(cfg.norm_kind) + ")");
  if (cfg.ffn_kind != FfnKind::Mlp)
    fail(std::string("the trainer supports ffnKind mlp only (got ") + to_string(cfg.ffn_kind) + ")");
  if (cfg.kv_heads() != cfg.n_heads)
    fail("the trainer supports nKvHeads equal to nHeads only (got nKvHeads " + std::to_string(cfg.n_kv_heads) +
         " with nHeads " + std::to_string(cfg.n_heads) + ")");
  if (cfg.window != 0)
    fail("the trainer supports window 0 (no sliding window) only (got " + std::to_string(cfg.window) + ")");
  if (!cfg.family.empty()) fail("the trainer trains the project's own models, not a pretrained " + cfg.family);
  if (cfg.has_encoder()) encoder.resize(static_cast<size_t>(cfg.n_layers));
  if (cfg.has_decoder()) {
    decoder.resize(static_cast<size_t>(cfg.n_layers));
    for (auto& b : decoder) b.has_cross = cfg.arch == Arch::EncoderDecoder;
  }
  // First pass: offsets; then allocate once; second pass: point the views.
  size_t total = 0;
  for_each_tensor(cfg, this, [&](const std::string& name, std::vector<int> shape, TensorKind kind, T**) {
    const size_t n = element_count(shape);
    // Weight decay on the matrices; not on the relative biases (a distance penalty is not a weight to shrink).
    tensors.push_back({name, std::move(shape), total, n, kind, kind == TensorKind::Matrix && name != "rel_bias"});
    total += n;
  });
  flat.assign(total, T(0));
  size_t i = 0;
  for_each_tensor(cfg, this, [&](const std::string&, const std::vector<int>&, TensorKind, T** slot) {
    *slot = flat.data() + tensors[i++].offset;
  });
}

template <typename T>
void Params<T>::zero() {
  std::fill(flat.begin(), flat.end(), T(0));
}

template <typename T>
const typename Params<T>::Tensor* Params<T>::find(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

template <typename T>
void init_params(Params<T>& p, uint64_t seed) {
  Rng rng(seed);
  for (const auto& t : p.tensors) init_tensor(p.data(t), t.size, t.shape, t.kind, rng);
  // A head tied to the token embeddings reads logits h . e_v: with N(0, 1) rows they would start
  // near sqrt(d) in size (a loss of 30+ where ln V is 8). Embeddings of std 1/sqrt(d) start the
  // logits near 1; the positions get the same scale so that they do not drown the tokens.
  if (p.cfg.tied_head) {
    const T s = static_cast<T>(1.0 / std::sqrt(static_cast<double>(p.cfg.d_model)));
    for (const auto& t : p.tensors)
      if (t.kind == TensorKind::Embedding)
        for (size_t i = 0; i < t.size; ++i) p.data(t)[i] *= s;
  }
  // Relative positions start as ALiBi's distance penalty (Press et al. 2022): head h's bias for
  // offset o is -|o| / 2^h, so every head starts out looking near itself, head 0 most sharply. A
  // random bias of the core's scale would take Adam thousands of steps to grow the few nats that
  // make a head pick out a neighbour, and an encoder's hidden token has only its neighbours.
  if (p.cfg.pos == PosKind::Relative) {
    const int width = 2 * p.cfg.rel_clip + 1;
    for (int h = 0; h < p.cfg.n_heads; ++h)
      for (int c = 0; c < width; ++c)
        p.rel_bias[static_cast<size_t>(h) * width + c] = -static_cast<T>(std::abs(c - p.cfg.rel_clip)) / (1 << h);
  }
}

namespace {

// Calls copy(model tensor's data, trainer tensor) for every tensor, walking the model's weights
// by the same layout as p.
template <typename T, typename Copy>
void copy_by_name(const Params<T>& p, ModelWeights& w, Copy&& copy) {
  const size_t layers = static_cast<size_t>(p.cfg.n_layers);
  if (w.encoder.size() != (p.cfg.has_encoder() ? layers : 0) || w.decoder.size() != (p.cfg.has_decoder() ? layers : 0))
    fail("the model has " + std::to_string(w.encoder.size()) + " encoder and " + std::to_string(w.decoder.size()) +
         " decoder blocks; the trainer's config wants " + std::to_string(layers) + " per stack");
  size_t i = 0;
  for_each_tensor(p.cfg, &w, [&](const std::string& name, const std::vector<int>&, TensorKind, auto* m) {
    const auto& t = p.tensors[i++];
    if (static_cast<size_t>(m->size()) != t.size)
      fail("tensor " + name + " has " + std::to_string(m->size()) + " values in the model, " + std::to_string(t.size) +
           " in the trainer");
    copy(m->data(), t);
  });
}

}  // namespace

template <typename T>
void params_to_model(ModelWeights& w, const Params<T>& p) {
  copy_by_name(p, w, [&](float* dst, const typename Params<T>::Tensor& t) {
    const T* src = p.data(t);
    for (size_t i = 0; i < t.size; ++i) dst[i] = static_cast<float>(src[i]);
  });
}

template <typename T>
void params_from_model(Params<T>& p, const ModelWeights& w) {
  // The layout walk needs a mutable ModelWeights only to hand out pointers; nothing is written.
  copy_by_name(p, const_cast<ModelWeights&>(w), [&](float* src, const typename Params<T>::Tensor& t) {
    T* dst = p.data(t);
    for (size_t i = 0; i < t.size; ++i) dst[i] = static_cast<T>(src[i]);
  });
}

template struct Params<float>;
template struct Params<double>;
template void init_params(Params<float>&, uint64_t);
template void init_params(Params<double>&, uint64_t);
template void params_to_model(ModelWeights&, const Params<float>&);
template void params_to_model(ModelWeights&, const Params<double>&);
template void params_from_model(Params<float>&, const ModelWeights&);
template void params_from_model(Params<double>&, const ModelWeights&);

}  // namespace ap::train
