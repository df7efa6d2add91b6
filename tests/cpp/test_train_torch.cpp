// The trainer against PyTorch autograd: tiny models with fixed weights (made by
// tests/reference/make_train_fixture.py from torch built-ins, in float64), one padded batch;
// the loss, the logits and every parameter's gradient must match. The float32 trainer is held
// to a relative 1e-4 (of each tensor's largest entry), the double instantiation to 1e-9.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "train/params.hpp"
#include "train/transformer.hpp"

using namespace ap;
using namespace ap::train;
using json = nlohmann::json;

namespace {

json load(const std::string& name) {
  std::ifstream in(std::string(AP_FIXTURES_DIR) + "/train/" + name);
  if (!in) throw std::runtime_error("missing fixture " + name);
  return json::parse(in);
}

ModelConfig config_of(const json& c) {
  ModelConfig cfg;
  cfg.arch = arch_from_string(c["arch"]);
  cfg.d_model = c["d_model"];
  cfg.n_heads = c["n_heads"];
  cfg.n_layers = c["n_layers"];
  cfg.d_ff = c["d_ff"];
  cfg.vocab_size = c["vocab_size"];
  cfg.max_len = c["max_len"];
  cfg.pos = pos_from_string(c["pos"]);
  cfg.act = act_from_string(c["act"]);
  cfg.norm = norm_from_string(c["norm"]);
  cfg.eps = c["eps"];
  return cfg;
}

Batch batch_of(const json& f) {
  Batch b;
  b.B = static_cast<int>(f["inputs"].size());
  b.T = static_cast<int>(f["inputs"][0].size());
  for (const auto& row : f["inputs"])
    for (int id : row) b.inputs.push_back(id);
  for (const auto& row : f["targets"])
    for (int id : row) b.targets.push_back(id);
  if (!f["src"].is_null()) {
    b.S = static_cast<int>(f["src"][0].size());
    for (const auto& row : f["src"])
      for (int id : row) b.src.push_back(id);
  }
  return b;
}

// Largest |ours - torch| over a tensor, relative to the tensor's largest |torch| entry, or to
// 1e-2 for a tensor whose gradient is (near) zero: a key bias moves every score of a query
// by the same amount, which softmax ignores, so d loss / d b_K is 0 up to rounding.
template <typename T>
double rel_diff(const T* ours, const json& ref, double* abs_out = nullptr) {
  const auto& data = ref["data"];
  double worst = 0.0, scale = 0.0;
  for (size_t i = 0; i < data.size(); ++i) {
    worst = std::max(worst, std::abs(static_cast<double>(ours[i]) - data[i].get<double>()));
    scale = std::max(scale, std::abs(data[i].get<double>()));
  }
  if (abs_out) *abs_out = worst;
  return worst / std::max(scale, 1e-2);
}

template <typename T>
void check_fixture(const std::string& name, double tol) {
  const json f = load(name);
  const ModelConfig cfg = config_of(f["config"]);
  const Batch batch = batch_of(f);
  Params<T> p(cfg), g(cfg);
  // Every trainer tensor must be in the fixture with the same shape, and nothing else.
  ASSERT_EQ(p.tensors.size(), f["params"].size()) << "tensor count";
  for (const auto& t : p.tensors) {
    ASSERT_TRUE(f["params"].contains(t.name)) << t.name << " missing from the fixture";
    const json& ref = f["params"][t.name];
    ASSERT_EQ(ref["shape"].get<std::vector<int>>(), t.shape) << t.name;
    for (size_t i = 0; i < t.size; ++i) p.data(t)[i] = static_cast<T>(ref["data"][i].get<double>());
  }
  Activations<T> acts;
  const int count = batch.count_targets();
  const double loss = transformer_forward(acts, p, batch) / count;
  const double torch_loss = f["loss"];
  g.zero();
  transformer_backward(g, acts, p, batch, static_cast<T>(1.0 / count));

  std::printf(" %s (%s): loss %.8f, torch %.8f\n", name.c_str(), sizeof(T) == 4 ? "float" : "double", loss, torch_loss);
  EXPECT_NEAR(loss, torch_loss, tol * std::abs(torch_loss));
  const double logit_err = rel_diff(acts.logits.data(), f["logits"]);
  std::printf("  logits: max rel diff %.2e\n", logit_err);
  EXPECT_LT(logit_err, tol);
  double worst = 0.0, worst_abs = 0.0;
  std::string worst_name;
  for (const auto& t : p.tensors) {
    double abs_diff = 0.0;
    const double err = rel_diff(g.data(t), f["grads"][t.name], &abs_diff);
    EXPECT_LT(err, tol) << t.name;
    worst_abs = std::max(worst_abs, abs_diff);
    if (err >= worst) {
      worst = err;
      worst_name = t.name;
    }
  }
  std::printf("  gradients of %zu tensors: max rel diff %.2e (%s), max abs diff %.2e\n", p.tensors.size(), worst,
              worst_name.c_str(), worst_abs);
}

}  // namespace

TEST(TrainTorch, DecoderOnlyPostNormGeluLossAndGradientsMatchTorch) {
  check_fixture<float>("tiny_grad.json", 1e-4);
  check_fixture<double>("tiny_grad.json", 1e-9);
}

TEST(TrainTorch, EncoderDecoderPreNormReluLossAndGradientsMatchTorch) {
  check_fixture<float>("tiny_grad_encdec.json", 1e-4);
  check_fixture<double>("tiny_grad_encdec.json", 1e-9);
}
