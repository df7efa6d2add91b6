// Every attention stage against PyTorch (tests/fixtures/torch/attention_*.json, torch_mha_*.json),
// plus the properties the notes state: rows of weights sum to 1, masked keys get weight 0.
#include <gtest/gtest.h>

#include <cmath>

#include "core/attention.hpp"
#include "core/layers.hpp"
#include "fixture.hpp"

namespace {

using ap::Mat;

ap::AttentionWeights weights_from(const fixture::json& w, const std::string& prefix) {
  ap::AttentionWeights a;
  a.wq = fixture::mat(w.at(prefix + "wq"));
  a.wk = fixture::mat(w.at(prefix + "wk"));
  a.wv = fixture::mat(w.at(prefix + "wv"));
  a.wo = fixture::mat(w.at(prefix + "wo"));
  if (w.contains(prefix + "bq")) {
    a.bq = fixture::vec(w.at(prefix + "bq"));
    a.bk = fixture::vec(w.at(prefix + "bk"));
    a.bv = fixture::vec(w.at(prefix + "bv"));
    a.bo = fixture::vec(w.at(prefix + "bo"));
  }
  return a;
}

void check_case(const std::string& file) {
  SCOPED_TRACE(file);
  const auto fx = fixture::load("torch/" + file);
  const auto& p = fx.at("params");
  const Mat x = fixture::mat(fx.at("inputs").at("x"));
  const bool cross = fx.at("inputs").contains("memory");
  const Mat memory = cross ? fixture::mat(fx.at("inputs").at("memory")) : x;
  std::vector<uint8_t> pad;
  ap::AttentionOptions opt;
  opt.n_heads = p.at("n_heads");
  opt.causal = p.value("causal", false);
  opt.scale = p.value("scale", true);
  if (p.contains("key_padding") && !p.at("key_padding").is_null()) {
    for (int v : p.at("key_padding")) pad.push_back(static_cast<uint8_t>(v));
    opt.key_padding = &pad;
  }
  // Plain attention cases name the weights wq...; the nn.MultiheadAttention case self_attn.wq...
  const auto w = weights_from(fx.at("weights"), fx.at("weights").contains("wq") ? "" : "self_attn.");
  ap::Trace tr;
  Mat out;
  ap::multi_head_attention(out, x, memory, w, opt, &tr);
  int compared = 0;
  for (auto& [name, want] : fx.at("stages").items()) {
    const ap::Stage* s = tr.find(name);
    ASSERT_NE(s, nullptr) << "stage " << name << " missing from the trace";
    const auto t = fixture::tensor(want);
    EXPECT_EQ(s->shape, t.shape) << name;
    EXPECT_TRUE(fixture::close(s->data.data(), s->data.size(), t, name));
    ++compared;
  }
  EXPECT_GE(compared, 3);
}

}  // namespace

TEST(AttentionVsTorch, SingleHead) { check_case("attention_single_head.json"); }
TEST(AttentionVsTorch, MultiHead) { check_case("attention_multi_head.json"); }
TEST(AttentionVsTorch, Causal) { check_case("attention_causal.json"); }
TEST(AttentionVsTorch, KeyPadding) { check_case("attention_key_padding.json"); }
TEST(AttentionVsTorch, CrossAttentionWithNDifferentFromM) { check_case("attention_cross.json"); }
TEST(AttentionVsTorch, OneToken) { check_case("attention_one_token.json"); }
TEST(AttentionVsTorch, OddSizes) { check_case("attention_odd_sizes.json"); }
TEST(AttentionVsTorch, DkOfOne) { check_case("attention_dk1.json"); }
TEST(AttentionVsTorch, AllKeysMaskedGiveZeroWeights) { check_case("attention_all_masked.json"); }
TEST(AttentionVsTorch, NnMultiheadAttentionWithItsOwnWeights) { check_case("torch_mha_causal.json"); }

TEST(Attention, CausalMaskGivesZeroWeightToFutureTokensAndRowsSumToOne) {
  // Three tokens, d = 2, identity projections: scores are x_i . x_j.
  Mat x(3, 2);
  x << 1, 0, 0, 1, 1, 1;
  ap::AttentionWeights w{
      Mat::Identity(2, 2), Mat::Identity(2, 2), Mat::Identity(2, 2), Mat::Identity(2, 2), {}, {}, {}, {}};
  ap::AttentionOptions opt;
  opt.causal = true;
  ap::Trace tr;
  Mat out;
  ap::multi_head_attention(out, x, x, w, opt, &tr);
  const ap::Stage* a = tr.find("weights");
  const ap::Stage* mk = tr.find("masked");
  for (int i = 0; i < 3; ++i) {
    double sum = 0;
    for (int j = 0; j < 3; ++j) {
      const float wij = a->data[i * 3 + j];
      sum += wij;
      if (j > i) {
        EXPECT_EQ(wij, 0.0f);
        EXPECT_TRUE(std::isinf(mk->data[i * 3 + j]) && mk->data[i * 3 + j] < 0);
      }
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
  // Row 1 by hand: scaled scores [x1.x0, x1.x1] / sqrt(2) = [0, 1/sqrt 2]; softmax = [1, e^.7071] / (1 + e^.7071).
  const double e = std::exp(1.0 / std::sqrt(2.0));
  EXPECT_NEAR(a->data[3 + 0], 1.0 / (1.0 + e), 1e-6);
  EXPECT_NEAR(a->data[3 + 1], e / (1.0 + e), 1e-6);
}

TEST(Attention, HugeScoresDoNotOverflow) {
  // +-1e4 scores: softmax subtracts the row max, so exp never overflows and no NaN appears.
  Mat x(2, 1);
  x << 100, -100;
  ap::AttentionWeights w{
      Mat::Identity(1, 1), Mat::Identity(1, 1), Mat::Identity(1, 1), Mat::Identity(1, 1), {}, {}, {}, {}};
  ap::AttentionOptions opt;
  ap::Trace tr;
  Mat out;
  ap::multi_head_attention(out, x, x, w, opt, &tr);
  const ap::Stage* a = tr.find("weights");
  EXPECT_FLOAT_EQ(a->data[0], 1.0f);  // row 0: scores 1e4, -1e4
  EXPECT_FLOAT_EQ(a->data[1], 0.0f);
  for (float v : out.reshaped()) EXPECT_TRUE(std::isfinite(v));
}

TEST(Attention, RejectsDModelNotDivisibleByHeads) {
  ap::AttentionWeights w{Mat::Zero(6, 6), Mat::Zero(6, 6), Mat::Zero(6, 6), Mat::Zero(6, 6), {}, {}, {}, {}};
  try {
    ap::check_attention_weights(w, 6, 4);
    FAIL() << "no error";
  } catch (const ap::Error& e) {
    EXPECT_NE(std::string(e.what()).find("not divisible"), std::string::npos) << e.what();
  }
}

TEST(Attention, RejectsNaNWeights) {
  Mat bad = Mat::Zero(4, 4);
  bad(1, 2) = std::nanf("");
  ap::AttentionWeights w{Mat::Zero(4, 4), bad, Mat::Zero(4, 4), Mat::Zero(4, 4), {}, {}, {}, {}};
  EXPECT_THROW(ap::check_attention_weights(w, 4, 2), ap::Error);
}

TEST(Positions, SinusoidalMatchesTorch) {
  for (const char* f : {"sinusoidal_8x4.json", "sinusoidal_16x16.json", "sinusoidal_5x6.json", "sinusoidal_3x5.json"}) {
    const auto fx = fixture::load(std::string("torch/") + f);
    const auto want = fixture::tensor(fx.at("stages").at("pos"));
    Mat pe;
    ap::sinusoidal_positions(pe, want.shape[0], want.shape[1]);
    EXPECT_TRUE(fixture::close(pe.data(), static_cast<size_t>(pe.size()), want, f));
  }
}

TEST(Positions, RopeMakesQueryKeyProductDependOnlyOnOffset) {
  // q at position p and k at position p + 3 give the same dot product for every p.
  Mat q(1, 4), k(1, 4);
  q << 0.3f, -1.2f, 0.8f, 0.5f;
  k << 1.1f, 0.4f, -0.7f, 0.9f;
  float first = 0;
  for (double theta : {10000.0, 500000.0}) {  // the paper's base and Llama 3's (rope_theta)
    for (int p = 0; p < 6; ++p) {
      Mat qr = q, kr = k;
      ap::apply_rope(qr, 1, p, theta);
      ap::apply_rope(kr, 1, p + 3, theta);
      const float dot = (qr * kr.transpose())(0, 0);
      if (p == 0) first = dot;
      EXPECT_NEAR(dot, first, 1e-5) << "position " << p << ", theta " << theta;
      // Pair 1 (columns 2, 3) turns by p theta^(-2/4), by hand.
      const double a = p / std::sqrt(theta);
      EXPECT_NEAR(qr(0, 2), 0.8 * std::cos(a) - 0.5 * std::sin(a), 1e-6) << "position " << p << ", theta " << theta;
      EXPECT_NEAR(qr(0, 3), 0.8 * std::sin(a) + 0.5 * std::cos(a), 1e-6) << "position " << p << ", theta " << theta;
    }
  }
  // And it is not the unrotated product (the rotation does something).
  EXPECT_GT(std::abs(first - (q * k.transpose())(0, 0)), 1e-3);
}

TEST(LayerNorm, HandComputedRow) {
  // Row [1, 2, 3, 4]: mu = 2.5, var = 1.25, sigma = sqrt(1.25 + 1e-5).
  Mat x(1, 4);
  x << 1, 2, 3, 4;
  ap::Vec gamma(4), beta(4);
  gamma << 1, 2, 1, 1;
  beta << 0, 0, 1, 0;
  Mat out, stats;
  ap::layer_norm(out, x, gamma, beta, 1e-5f, &stats);
  const double s = std::sqrt(1.25 + 1e-5);
  EXPECT_NEAR(out(0, 0), -1.5 / s, 1e-6);
  EXPECT_NEAR(out(0, 1), 2 * -0.5 / s, 1e-6);
  EXPECT_NEAR(out(0, 2), 0.5 / s + 1, 1e-6);
  EXPECT_NEAR(out(0, 3), 1.5 / s, 1e-6);
  EXPECT_NEAR(stats(0, 0), 2.5, 1e-6);
  EXPECT_NEAR(stats(0, 1), s, 1e-6);
}
