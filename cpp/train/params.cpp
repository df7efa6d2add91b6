// Layout, initialisation and model copies of the trainer's flat parameter buffer.
#include "train/params.hpp"

#include <cmath>
#include <cstring>

#include "core/tensor.hpp"
#include "train/rng.hpp"

namespace ap::train {

namespace {

// Walks the tensors of a config in one fixed order, calling add(name, shape, slot, decay)
// where slot is the view to point at the tensor. Params and weight_slots share this order.
template <typename T, typename Add>
void walk_layout(const ModelConfig& cfg, Params<T>& p, Add&& add) {
  const int d = cfg.d_model, V = cfg.vocab_size, L = cfg.max_len, F = cfg.d_ff;
  add("tok_emb", std::vector<int>{V, d}, p.tok_emb, false);
  if (cfg.pos == PosKind::Learned) add("pos_emb", std::vector<int>{L, d}, p.pos_emb, false);
  auto attn = [&](const std::string& pre, AttnParams<T>& a) {
    add(pre + ".wq", std::vector<int>{d, d}, a.wq, true);
    add(pre + ".bq", std::vector<int>{d}, a.bq, false);
    add(pre + ".wk", std::vector<int>{d, d}, a.wk, true);
    add(pre + ".bk", std::vector<int>{d}, a.bk, false);
    add(pre + ".wv", std::vector<int>{d, d}, a.wv, true);
    add(pre + ".bv", std::vector<int>{d}, a.bv, false);
    add(pre + ".wo", std::vector<int>{d, d}, a.wo, true);
    add(pre + ".bo", std::vector<int>{d}, a.bo, false);
  };
  auto norm = [&](const std::string& pre, NormParams<T>& n) {
    add(pre + ".gamma", std::vector<int>{d}, n.gamma, false);
    add(pre + ".beta", std::vector<int>{d}, n.beta, false);
  };
  auto stack = [&](const std::string& name, std::vector<BlockParams<T>>& blocks, NormParams<T>& fin) {
    for (size_t i = 0; i < blocks.size(); ++i) {
      const std::string pre = name + "." + std::to_string(i);
      BlockParams<T>& b = blocks[i];
      attn(pre + ".self_attn", b.self_attn);
      norm(pre + ".norm1", b.norm1);
      if (b.has_cross) {
        attn(pre + ".cross_attn", b.cross_attn);
        norm(pre + ".norm_cross", b.norm_cross);
      }
      add(pre + ".ffn.w1", std::vector<int>{d, F}, b.ffn.w1, true);
      add(pre + ".ffn.b1", std::vector<int>{F}, b.ffn.b1, false);
      add(pre + ".ffn.w2", std::vector<int>{F, d}, b.ffn.w2, true);
      add(pre + ".ffn.b2", std::vector<int>{d}, b.ffn.b2, false);
      norm(pre + ".norm2", b.norm2);
    }
    if (cfg.norm == NormPlace::Pre && !blocks.empty()) norm(name + ".final_norm", fin);
  };
  stack("encoder", p.encoder, p.enc_final_norm);
  stack("decoder", p.decoder, p.dec_final_norm);
  add("lm_head.w", std::vector<int>{d, V}, p.lm_head_w, true);
  add("lm_head.b", std::vector<int>{V}, p.lm_head_b, false);
}

size_t product(const std::vector<int>& shape) {
  size_t n = 1;
  for (int s : shape) n *= static_cast<size_t>(s);
  return n;
}

}  // namespace

template <typename T>
Params<T>::Params(const ModelConfig& c) : cfg(c) {
  cfg.validate();
  if (cfg.vocab_size < 4) fail("the trainer needs vocab_size set (got " + std::to_string(cfg.vocab_size) + ")");
  if (cfg.pos == PosKind::Relative || cfg.pos == PosKind::Rope)
    fail(std::string("the trainer supports positions none, sinusoidal and learned (got ") +
         to_string(cfg.pos) + ")");
  if (cfg.has_encoder()) encoder.resize(static_cast<size_t>(cfg.n_layers));
  if (cfg.has_decoder()) {
    decoder.resize(static_cast<size_t>(cfg.n_layers));
    for (auto& b : decoder) b.has_cross = cfg.arch == Arch::EncoderDecoder;
  }
  // First pass: offsets; then allocate once; second pass: point the views.
  size_t total = 0;
  walk_layout(cfg, *this, [&](const std::string& name, std::vector<int> shape, T*&, bool decay) {
    const size_t n = product(shape);
    tensors.push_back({name, std::move(shape), total, n, decay});
    total += n;
  });
  flat.assign(total, T(0));
  size_t i = 0;
  walk_layout(cfg, *this, [&](const std::string&, const std::vector<int>&, T*& slot, bool) {
    slot = flat.data() + tensors[i++].offset;
  });
}

template <typename T> void Params<T>::zero() { std::fill(flat.begin(), flat.end(), T(0)); }

template <typename T> const typename Params<T>::Tensor* Params<T>::find(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

template <typename T> void init_params(Params<T>& p, uint64_t seed) {
  Rng rng(seed);
  for (const auto& t : p.tensors) {
    T* x = p.data(t);
    const std::string& n = t.name;
    const auto ends_with = [&](const char* suffix) {
      const size_t k = std::strlen(suffix);
      return n.size() >= k && n.compare(n.size() - k, k, suffix) == 0;
    };
    if (n == "tok_emb" || n == "pos_emb") {
      // Embeddings as torch's nn.Embedding, N(0, 1): the post-norm LayerNorms rescale anyway.
      for (size_t i = 0; i < t.size; ++i) x[i] = static_cast<T>(rng.normal());
    } else if (t.shape.size() == 2) {
      // Xavier-uniform: keeps the variance of x @ W near that of x in both directions.
      const double a = std::sqrt(6.0 / (t.shape[0] + t.shape[1]));
      for (size_t i = 0; i < t.size; ++i) x[i] = static_cast<T>((2.0 * rng.uniform() - 1.0) * a);
    } else if (ends_with(".gamma")) {
      for (size_t i = 0; i < t.size; ++i) x[i] = T(1);
    } else {
      for (size_t i = 0; i < t.size; ++i) x[i] = T(0);  // biases and LayerNorm beta
    }
  }
}

std::vector<WeightSlot> weight_slots(ModelWeights& w, const ModelConfig& cfg) {
  std::vector<WeightSlot> slots;
  auto mat = [&](const std::string& name, Mat& m) {
    slots.push_back({name, m.data(), static_cast<size_t>(m.size())});
  };
  auto vec = [&](const std::string& name, Vec& v) {
    slots.push_back({name, v.data(), static_cast<size_t>(v.size())});
  };
  auto attn = [&](const std::string& pre, AttentionWeights& a) {
    mat(pre + ".wq", a.wq); vec(pre + ".bq", a.bq);
    mat(pre + ".wk", a.wk); vec(pre + ".bk", a.bk);
    mat(pre + ".wv", a.wv); vec(pre + ".bv", a.bv);
    mat(pre + ".wo", a.wo); vec(pre + ".bo", a.bo);
  };
  auto norm = [&](const std::string& pre, LayerNormWeights& n) {
    vec(pre + ".gamma", n.gamma);
    vec(pre + ".beta", n.beta);
  };
  mat("tok_emb", w.tok_emb);
  if (cfg.pos == PosKind::Learned) mat("pos_emb", w.pos_emb);
  auto stack = [&](const std::string& name, std::vector<BlockWeights>& blocks, LayerNormWeights& fin) {
    for (size_t i = 0; i < blocks.size(); ++i) {
      const std::string pre = name + "." + std::to_string(i);
      BlockWeights& b = blocks[i];
      attn(pre + ".self_attn", b.self_attn);
      norm(pre + ".norm1", b.norm1);
      if (b.has_cross) {
        attn(pre + ".cross_attn", b.cross_attn);
        norm(pre + ".norm_cross", b.norm_cross);
      }
      mat(pre + ".ffn.w1", b.ffn.w1); vec(pre + ".ffn.b1", b.ffn.b1);
      mat(pre + ".ffn.w2", b.ffn.w2); vec(pre + ".ffn.b2", b.ffn.b2);
      norm(pre + ".norm2", b.norm2);
    }
    if (cfg.norm == NormPlace::Pre && !blocks.empty()) norm(name + ".final_norm", fin);
  };
  stack("encoder", w.encoder, w.enc_final_norm);
  stack("decoder", w.decoder, w.dec_final_norm);
  mat("lm_head.w", w.lm_head_w);
  vec("lm_head.b", w.lm_head_b);
  return slots;
}

namespace {

template <typename T, typename Copy>
void copy_by_name(const Params<T>& p, ModelWeights& w, Copy&& copy) {
  const auto slots = weight_slots(w, p.cfg);
  if (slots.size() != p.tensors.size())
    fail("the model has " + std::to_string(slots.size()) + " trainable tensors, the trainer " +
         std::to_string(p.tensors.size()));
  for (size_t i = 0; i < slots.size(); ++i) {
    const auto& t = p.tensors[i];
    if (slots[i].name != t.name) fail("tensor order differs at " + t.name + " / " + slots[i].name);
    if (slots[i].size != t.size)
      fail("tensor " + t.name + " has " + std::to_string(slots[i].size) + " values in the model, " +
           std::to_string(t.size) + " in the trainer");
    copy(slots[i].data, t);
  }
}

}  // namespace

template <typename T> void params_to_model(ModelWeights& w, const Params<T>& p) {
  copy_by_name(p, w, [&](float* dst, const typename Params<T>::Tensor& t) {
    const T* src = p.data(t);
    for (size_t i = 0; i < t.size; ++i) dst[i] = static_cast<float>(src[i]);
  });
}

template <typename T> void params_from_model(Params<T>& p, const ModelWeights& w) {
  // weight_slots needs a mutable ModelWeights only to hand out pointers; nothing is written.
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
