// AdamW, the learning-rate schedule and gradient clipping against hand calculations.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/model.hpp"
#include "helpers.hpp"
#include "train/adamw.hpp"
#include "train/params.hpp"

using namespace ap;
using namespace ap::train;

namespace {

ModelConfig tiny() { return aptest::model_config(Arch::DecoderOnly, {2, 1, 1, 2, 4, 2}, PosKind::None); }

}  // namespace

TEST(TrainOptim, ScheduleWarmsUpLinearlyThenFollowsACosine) {
  OptimConfig c;
  c.lr = 1.0f;
  c.warmup_steps = 10;
  c.total_steps = 110;
  c.min_lr_ratio = 0.1f;
  EXPECT_FLOAT_EQ(learning_rate(c, 0), 0.1f);  // (0 + 1) / 10
  EXPECT_FLOAT_EQ(learning_rate(c, 4), 0.5f);
  EXPECT_FLOAT_EQ(learning_rate(c, 9), 1.0f);
  EXPECT_FLOAT_EQ(learning_rate(c, 10), 1.0f);                // cos(0) = 1
  EXPECT_FLOAT_EQ(learning_rate(c, 60), 0.1f + 0.9f * 0.5f);  // half way: cos(pi/2) = 0
  EXPECT_NEAR(learning_rate(c, 35), 0.1 + 0.9 * 0.5 * (1 + std::cos(M_PI * 0.25)), 1e-6);
  EXPECT_FLOAT_EQ(learning_rate(c, 110), 0.1f);
  EXPECT_FLOAT_EQ(learning_rate(c, 500), 0.1f);  // stays at the floor
}

TEST(TrainOptim, ClippingScalesToTheMaximumGlobalNorm) {
  std::vector<float> g = {3.0f, 0.0f, -4.0f};
  EXPECT_FLOAT_EQ(clip_grad_norm(g, 1.0f), 5.0f);  // the norm before clipping
  EXPECT_NEAR(g[0], 0.6f, 1e-6);
  EXPECT_NEAR(g[2], -0.8f, 1e-6);
  std::vector<float> small = {0.3f, 0.4f};
  EXPECT_FLOAT_EQ(clip_grad_norm(small, 1.0f), 0.5f);
  EXPECT_FLOAT_EQ(small[0], 0.3f);  // under the cap: untouched
  std::vector<float> off = {30.0f, 40.0f};
  clip_grad_norm(off, 0.0f);
  EXPECT_FLOAT_EQ(off[1], 40.0f);  // 0 disables clipping
}

TEST(TrainOptim, AdamWTwoStepsByHand) {
  Params<float> p(tiny()), g(tiny());
  for (size_t i = 0; i < p.size(); ++i) p.flat[i] = 0.5f;
  OptimConfig c;
  c.beta1 = 0.9f;
  c.beta2 = 0.98f;
  c.eps = 1e-8f;
  c.weight_decay = 0.1f;
  AdamW opt(p);
  const float lr = 0.01f, g1 = 0.2f, g2 = -0.4f;
  std::fill(g.flat.begin(), g.flat.end(), g1);
  opt.step(p, g, c, lr);
  // Step 1: m_hat = g, v_hat = g^2, so the Adam step is lr * g / |g| = lr; decay adds lr * wd * w
  // on matrices only (decoupled: it does not pass through m and v).
  const float w_mat = 0.5f - lr * (1.0f + 0.1f * 0.5f);
  const float w_vec = 0.5f - lr * 1.0f;
  EXPECT_NEAR(p.data(*p.find("decoder.0.self_attn.wq"))[0], w_mat, 1e-7);
  EXPECT_NEAR(p.data(*p.find("lm_head.w"))[3], w_mat, 1e-7);
  EXPECT_NEAR(p.data(*p.find("decoder.0.self_attn.bq"))[0], w_vec, 1e-7);
  EXPECT_NEAR(p.data(*p.find("tok_emb"))[0], w_vec, 1e-7) << "no decay on embeddings";
  EXPECT_NEAR(p.data(*p.find("decoder.0.norm1.gamma"))[1], w_vec, 1e-7) << "no decay on LayerNorm";

  std::fill(g.flat.begin(), g.flat.end(), g2);
  opt.step(p, g, c, lr);
  // Step 2 written out: m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2, bias-corrected by 1 - b^2.
  const double m = 0.9 * (0.1 * g1) + 0.1 * g2, v = 0.98 * (0.02 * g1 * g1) + 0.02 * g2 * g2;
  const double step = (m / (1 - 0.9 * 0.9)) / (std::sqrt(v / (1 - 0.98 * 0.98)) + 1e-8);
  EXPECT_NEAR(p.data(*p.find("decoder.0.self_attn.wq"))[0], w_mat - lr * (step + 0.1 * w_mat), 1e-6);
  EXPECT_NEAR(p.data(*p.find("decoder.0.ffn.b1"))[0], w_vec - lr * step, 1e-6);
  EXPECT_EQ(opt.steps_taken(), 2);
}

// Relative positions: the bias table steps kRelBiasLrScale times as far as any other weight with the
// same gradient, and is not decayed (step 1 of Adam moves a weight by lr, its decay by lr wd w).
TEST(TrainOptim, RelativeBiasesStepFasterAndAreNotDecayed) {
  ModelConfig cfg = tiny();
  cfg.pos = PosKind::Relative;
  cfg.rel_clip = 2;
  Params<float> p(cfg), g(cfg);
  ASSERT_NE(p.find("rel_bias"), nullptr);
  std::fill(p.flat.begin(), p.flat.end(), 0.5f);
  std::fill(g.flat.begin(), g.flat.end(), 0.2f);
  OptimConfig c;
  c.weight_decay = 0.1f;
  AdamW opt(p);
  const float lr = 0.01f;
  opt.step(p, g, c, lr);
  EXPECT_NEAR(p.data(*p.find("rel_bias"))[3], 0.5f - lr * 30.0f, 1e-6);
  EXPECT_NEAR(p.data(*p.find("decoder.0.self_attn.bq"))[0], 0.5f - lr, 1e-7);
  EXPECT_NEAR(p.data(*p.find("decoder.0.self_attn.wq"))[0], 0.5f - lr * (1.0f + 0.1f * 0.5f), 1e-7);
  EXPECT_EQ(kRelBiasLrScale, 30.0f);
}

TEST(TrainOptim, InitialisationIsSeededAndShaped) {
  Params<float> a(tiny()), b(tiny()), c(tiny());
  init_params(a, 5);
  init_params(b, 5);
  init_params(c, 6);
  EXPECT_EQ(a.flat, b.flat);
  EXPECT_NE(a.flat, c.flat);
  for (float x :
       std::vector<float>(a.data(*a.find("decoder.0.norm2.gamma")), a.data(*a.find("decoder.0.norm2.gamma")) + 2))
    EXPECT_EQ(x, 1.0f);
  // Small biases: |b| < 0.02.
  for (const char* bias : {"decoder.0.ffn.b2", "decoder.0.norm2.beta", "lm_head.b"})
    for (size_t i = 0; i < a.find(bias)->size; ++i) EXPECT_LT(std::abs(a.data(*a.find(bias))[i]), 0.02f) << bias;
  // Xavier-uniform: |w| <= sqrt(6 / (fan_in + fan_out)) = sqrt(6 / 4) for a (2, 2) matrix.
  const auto* wq = a.find("decoder.0.self_attn.wq");
  for (size_t i = 0; i < wq->size; ++i) EXPECT_LE(std::abs(a.data(*wq)[i]), std::sqrt(1.5f));
}

// One recipe: the trainer's parameters start from exactly the numbers Model::init_random gives
// for the same seed (float, and the double instantiation holds the same floats).
TEST(TrainOptim, InitialisationIsTheModelsRecipe) {
  ModelConfig c = tiny();
  c.arch = Arch::EncoderDecoder;
  c.norm = NormPlace::Pre;
  c.pos = PosKind::Learned;
  Params<float> p(c), from_model(c);
  Params<double> pd(c);
  init_params(p, 7);
  init_params(pd, 7);
  Model m(c, Tokenizer(Tokenizer::Kind::Word, Tokenizer::with_specials({})));
  m.init_random(7);
  params_from_model(from_model, m.weights());
  EXPECT_EQ(p.flat, from_model.flat);
  ASSERT_EQ(pd.size(), p.size());
  for (size_t i = 0; i < p.size(); ++i) EXPECT_EQ(pd.flat[i], static_cast<double>(p.flat[i])) << i;
  // The same layout: every tensor of the model file, in the same order.
  const auto named = m.named_tensors();
  ASSERT_EQ(named.size(), p.tensors.size());
  for (size_t i = 0; i < named.size(); ++i) {
    EXPECT_EQ(named[i].name, p.tensors[i].name);
    EXPECT_EQ(named[i].shape, p.tensors[i].shape);
  }
}
