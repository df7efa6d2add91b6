// The lecture presets reproduce the notes' worked examples (numbers from shared/seeds/000..004).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/attention.hpp"
#include "core/presets.hpp"

namespace {

const ap::Stage& stage(const ap::Trace& t, const char* name) {
  const ap::Stage* s = t.find(name);
  if (!s) throw std::runtime_error(std::string("missing stage ") + name);
  return *s;
}

}  // namespace

TEST(Presets, TheCatSatWeightTable) {
  ap::Trace t;
  ap::run_preset(ap::find_preset("softmax.the-cat-sat"), t);
  const float notes[9] = {.7f, .2f, .1f, .1f, .6f, .3f, .2f, .3f, .5f};
  const auto& w = stage(t, "weights").data;
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(w[i], notes[i], 1e-6);
  // z_cat = 0.1 v_the + 0.6 v_cat + 0.3 v_sat
  const auto& v = stage(t, "v").data;
  const auto& z = stage(t, "head_out").data;
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(z[3 + c], 0.1 * v[c] + 0.6 * v[3 + c] + 0.3 * v[6 + c], 1e-5);
}

TEST(Presets, ThinkingMachines) {
  ap::Trace t;
  ap::run_preset(ap::find_preset("softmax.thinking-machines"), t);
  EXPECT_EQ(stage(t, "scores").data[0], 112.0f);
  EXPECT_EQ(stage(t, "scores").data[1], 96.0f);
  EXPECT_EQ(stage(t, "scaled").data[0], 14.0f);
  EXPECT_EQ(stage(t, "scaled").data[1], 12.0f);
  EXPECT_NEAR(stage(t, "weights").data[0], 0.88, 0.005);
  EXPECT_NEAR(stage(t, "weights").data[1], 0.12, 0.005);
}

TEST(Presets, CloudsSkyRowAndCausalAcross) {
  ap::Trace t;
  ap::run_preset(ap::find_preset("softmax.clouds"), t);
  const float sky[5] = {0.30f, 0.10f, 0.10f, 0.30f, 0.20f};
  for (int j = 0; j < 5; ++j) EXPECT_NEAR(stage(t, "weights").data[4 * 5 + j], sky[j], 1e-6);
  ap::run_preset(ap::find_preset("causal-mask.clouds"), t);
  const auto& w = stage(t, "weights").data;
  const auto& mk = stage(t, "masked").data;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j)
      if (j > i) {  // the notes' look-ahead mask has a 1 here: -inf, then weight 0
        EXPECT_TRUE(std::isinf(mk[i * 5 + j]));
        EXPECT_EQ(w[i * 5 + j], 0.0f);
      }
  EXPECT_NEAR(w[2 * 5 + 0] + w[2 * 5 + 1] + w[2 * 5 + 2], 1.0, 1e-6);  // "across": clouds, drift, across
}

TEST(Presets, SinusoidalD4AndScale512) {
  ap::Trace t;
  ap::run_preset(ap::find_preset("sinusoidal.d4"), t);
  const auto& pe = stage(t, "pos").data;
  EXPECT_FLOAT_EQ(pe[0], 0);
  EXPECT_FLOAT_EQ(pe[1], 1);
  EXPECT_FLOAT_EQ(pe[2], 0);
  EXPECT_FLOAT_EQ(pe[3], 1);
  EXPECT_NEAR(pe[4], 0.84, 0.005);  // sin 1
  EXPECT_NEAR(pe[5], 0.54, 0.005);  // cos 1
  ap::run_preset(ap::find_preset("scale.d512"), t);
  EXPECT_NEAR(stage(t, "scores").data[1] / stage(t, "scaled").data[1], 22.6, 0.05);
}

// The notes' lesson (004) on the preset itself: with d_k = 512 and N(0, 1) queries and keys, q.k
// spreads by about sqrt(512); unscaled, the softmax puts nearly all weight on one key; divided by
// sqrt(512) it does not. Largest weight of each row, averaged over the 5 rows.
TEST(Presets, Scale512UnscaledSaturatesScaledSpreads) {
  ap::Preset p = ap::find_preset("scale.d512");
  ap::Trace on, off;
  ap::run_preset(p, on);
  p.scale = false;
  ap::run_preset(p, off);
  const auto& s = stage(on, "scores").data;  // 5 x 5 raw q.k
  ASSERT_EQ(s.size(), 25u);
  double mean = 0, var = 0;
  for (float v : s) mean += v / 25.0;
  for (float v : s) var += (v - mean) * (v - mean) / 25.0;
  // Var(q.k) = d_k for unit-variance entries; 25 scores estimate the std to about 1/sqrt(50) = 14%.
  EXPECT_NEAR(std::sqrt(var) / std::sqrt(512.0), 1.0, 0.3);
  auto mean_largest = [](const std::vector<float>& w) {
    double m = 0;
    for (int i = 0; i < 5; ++i) {
      float best = 0;
      for (int j = 0; j < 5; ++j) best = std::max(best, w[static_cast<size_t>(i * 5 + j)]);
      m += best / 5.0;
    }
    return m;
  };
  EXPECT_GT(mean_largest(stage(off, "weights").data), 0.9);
  EXPECT_LT(mean_largest(stage(on, "weights").data), 0.6);
}

TEST(Presets, UnknownIdListsTheKnownOnes) {
  try {
    ap::find_preset("nope");
    FAIL();
  } catch (const ap::Error& e) {
    EXPECT_NE(std::string(e.what()).find("softmax.the-cat-sat"), std::string::npos);
  }
}

TEST(RelativePositions, BiasIsLookedUpByClippedOffset) {
  // One head, d = 2, zero projections: scores are 0, so scaled = the bias by offset j - i,
  // clipped to [-2, 2]: table b(-2..2) = [-2, -1, 0, 1, 2] * 0.5.
  ap::Mat x = ap::Mat::Ones(5, 2);
  ap::AttentionWeights w{
      ap::Mat::Zero(2, 2), ap::Mat::Zero(2, 2), ap::Mat::Identity(2, 2), ap::Mat::Identity(2, 2), {}, {}, {}, {}};
  ap::Mat bias(1, 5);
  bias << -1.0f, -0.5f, 0.0f, 0.5f, 1.0f;
  ap::AttentionOptions opt;
  opt.pos = ap::PosKind::Relative;
  opt.rel_bias = &bias;
  opt.rel_clip = 2;
  ap::Trace t;
  ap::Mat out;
  ap::multi_head_attention(out, x, x, w, opt, &t);
  const auto& sc = stage(t, "scaled").data;
  EXPECT_FLOAT_EQ(sc[0 * 5 + 4], 1.0f);   // offset +4 clipped to +2
  EXPECT_FLOAT_EQ(sc[3 * 5 + 2], -0.5f);  // offset -1
  EXPECT_FLOAT_EQ(sc[4 * 5 + 0], -1.0f);  // offset -4 clipped to -2
  EXPECT_FLOAT_EQ(sc[2 * 5 + 2], 0.0f);
}

TEST(Presets, MatricesByNameAndTheHeadCountsTheirSwitchesMayTake) {
  const ap::Preset& p = ap::find_preset("scale.d512");
  EXPECT_EQ(&ap::preset_matrix(p, "x"), &p.x);  // the preset's own matrix, not a copy
  EXPECT_EQ(&ap::preset_matrix(p, "wk"), &p.wk);
  EXPECT_EQ(&ap::preset_matrix(p, "wo"), &p.wo);
  try {
    ap::preset_matrix(p, "wz");
    FAIL();
  } catch (const ap::Error& e) {
    EXPECT_STREQ(e.what(), "unknown preset matrix 'wz'");
  }
  // d_model 512, one head: the divisors of 512 a page can show (at most 16 heads).
  EXPECT_EQ(p.n_heads, 1);
  EXPECT_EQ(ap::preset_head_choices(p), (std::vector<int>{1, 2, 4, 8, 16}));
}
