// Decoding: the KV cache gives the same tokens and logits as recomputing the whole prefix,
// for every positional encoding and for encoder-decoder models; sampling by hand calculation.
#include <gtest/gtest.h>

#include <cmath>

#include "core/decode.hpp"
#include "helpers.hpp"

namespace {

ap::Model make_model(ap::Arch arch, ap::PosKind pos, ap::NormPlace norm = ap::NormPlace::Post) {
  return aptest::random_model(aptest::model_config(arch, {16, 4, 2, 32, 0, 24}, pos, norm),
                              aptest::char_tokenizer({"abcdefghij"}), 11);
}

void expect_cache_matches_recompute(const ap::Model& m, const std::vector<int>& src) {
  ap::GenerateOptions opt;
  opt.max_tokens = 12;
  opt.sampling.temperature = 1.0f;  // sample, so a wrong logit would change the draw
  opt.sampling.seed = 5;
  const std::vector<int> prompt = {ap::Tokenizer::kBos, 5, 7};
  opt.use_cache = true;
  const ap::Generation cached = ap::generate(m, prompt, src, opt);
  opt.use_cache = false;
  const ap::Generation full = ap::generate(m, prompt, src, opt);
  ASSERT_EQ(cached.tokens, full.tokens);
  ASSERT_GE(cached.tokens.size(), 2u);
  const int V = m.config().vocab_size;
  for (size_t t = 0; t < cached.steps.size(); ++t) {
    const ap::Stage* a = cached.steps[t].trace.find("logits");
    const ap::Stage* b = full.steps[t].trace.find("logits");
    const float* la = a->data.data() + static_cast<size_t>(a->shape[0] - 1) * V;
    const float* lb = b->data.data() + static_cast<size_t>(b->shape[0] - 1) * V;
    for (int v = 0; v < V; ++v) EXPECT_NEAR(la[v], lb[v], 1e-5 * std::max(1.0f, std::abs(lb[v]))) << "step " << t;
    // the new token attends to every cached key: weights of the last layer have m = prefix length
    if (t > 0) {
      const ap::Stage* w = cached.steps[t].trace.find("weights", "decoder", 1);
      EXPECT_EQ(w->shape[1], 1);
      EXPECT_EQ(w->shape[2], cached.steps[t].cache_len);
    }
  }
}

}  // namespace

TEST(Decode, KvCacheEqualsRecomputeSinusoidal) {
  expect_cache_matches_recompute(make_model(ap::Arch::DecoderOnly, ap::PosKind::Sinusoidal), {});
}
TEST(Decode, KvCacheEqualsRecomputeLearned) {
  expect_cache_matches_recompute(make_model(ap::Arch::DecoderOnly, ap::PosKind::Learned, ap::NormPlace::Pre), {});
}
TEST(Decode, KvCacheEqualsRecomputeRope) {
  expect_cache_matches_recompute(make_model(ap::Arch::DecoderOnly, ap::PosKind::Rope), {});
}
TEST(Decode, KvCacheEqualsRecomputeRelative) {
  ap::Model m = make_model(ap::Arch::DecoderOnly, ap::PosKind::Relative);
  expect_cache_matches_recompute(m, {});
}
TEST(Decode, KvCacheEqualsRecomputeEncoderDecoder) {
  expect_cache_matches_recompute(make_model(ap::Arch::EncoderDecoder, ap::PosKind::Sinusoidal), {4, 9, 6, 8, 5});
}

TEST(Sampling, GreedyTopKTopPByHand) {
  // logits ln(0.5), ln(0.3), ln(0.15), ln(0.05): softmax at T = 1 is [0.5, 0.3, 0.15, 0.05].
  const float logits[4] = {std::log(0.5f), std::log(0.3f), std::log(0.15f), std::log(0.05f)};
  ap::SamplingOptions s;
  auto d = ap::sampling_distribution(logits, 4, s, {});  // temperature 0: greedy
  EXPECT_EQ(d, (std::vector<float>{1, 0, 0, 0}));
  s.temperature = 1.0f;
  d = ap::sampling_distribution(logits, 4, s, {});
  EXPECT_NEAR(d[2], 0.15, 1e-6);
  s.top_k = 2;  // keep 0.5 and 0.3, renormalised: 0.625, 0.375
  d = ap::sampling_distribution(logits, 4, s, {});
  EXPECT_NEAR(d[0], 0.625, 1e-6);
  EXPECT_NEAR(d[1], 0.375, 1e-6);
  EXPECT_EQ(d[2], 0.0f);
  s.top_k = 0;
  s.top_p = 0.9f;  // 0.5 + 0.3 = 0.8 < 0.9, + 0.15 = 0.95 >= 0.9: keep three, divide by 0.95
  d = ap::sampling_distribution(logits, 4, s, {});
  EXPECT_NEAR(d[2], 0.15 / 0.95, 1e-6);
  EXPECT_EQ(d[3], 0.0f);
  s.top_p = 1.0f;
  s.temperature = 2.0f;  // T = 2: p ~ sqrt(p): sqrt(.5) / (sum of square roots)
  d = ap::sampling_distribution(logits, 4, s, {});
  const double z = std::sqrt(0.5) + std::sqrt(0.3) + std::sqrt(0.15) + std::sqrt(0.05);
  EXPECT_NEAR(d[0], std::sqrt(0.5) / z, 1e-6);
  d = ap::sampling_distribution(logits, 4, s, {0});  // banned token gets 0
  EXPECT_EQ(d[0], 0.0f);
}

// top-p = 1 keeps every token: over a 4096-token vocabulary of spread-out logits the running sum
// of the rounded probabilities reaches 1 before the last tokens, and the nucleus cut used to drop them.
TEST(Sampling, TopPOneKeepsEveryToken) {
  const int V = 4096;
  std::vector<float> logits(V);
  for (int i = 0; i < V; ++i) logits[i] = 12.0f * std::sin(0.37f * static_cast<float>(i));  // -12 .. 12
  ap::SamplingOptions s;
  s.temperature = 1.0f;
  s.top_p = 1.0f;
  const auto d = ap::sampling_distribution(logits.data(), V, s, {});
  int kept = 0;
  for (float q : d) kept += q > 0.0f;
  EXPECT_EQ(kept, V);
  // The same by hand: q = softmax(z), the smallest e^{z - max} is e^-24, far above float's range floor.
  const float mx = *std::max_element(logits.begin(), logits.end());
  double sum = 0;
  for (float z : logits) sum += std::exp(static_cast<double>(z - mx));
  for (int i : {0, 1, 17, V - 1}) EXPECT_NEAR(d[i], std::exp(static_cast<double>(logits[i] - mx)) / sum, 1e-7);
  // And p just under 1 still cuts the tail.
  s.top_p = 0.9f;
  const auto cut = ap::sampling_distribution(logits.data(), V, s, {});
  int kept90 = 0;
  for (float q : cut) kept90 += q > 0.0f;
  EXPECT_LT(kept90, V);
}

TEST(Sampling, RejectsBadParameters) {
  const float logits[2] = {0, 1};
  ap::SamplingOptions s;
  s.top_p = 0.0f;
  EXPECT_THROW(ap::sampling_distribution(logits, 2, s, {}), ap::Error);
  s.top_p = 1.5f;
  EXPECT_THROW(ap::sampling_distribution(logits, 2, s, {}), ap::Error);
  s.top_p = 1.0f;
  s.top_k = -1;
  EXPECT_THROW(ap::sampling_distribution(logits, 2, s, {}), ap::Error);
}

TEST(Decode, RejectsBadRequests) {
  ap::Model m = make_model(ap::Arch::DecoderOnly, ap::PosKind::Sinusoidal);
  ap::GenerateOptions opt;
  EXPECT_THROW(ap::generate(m, {}, {}, opt), ap::Error);
  opt.max_tokens = 0;
  EXPECT_THROW(ap::generate(m, {2, 5}, {}, opt), ap::Error);
  opt.max_tokens = 1000;
  EXPECT_THROW(ap::generate(m, {2, 5}, {}, opt), ap::Error);
  opt.max_tokens = 4;
  EXPECT_THROW(ap::generate(m, std::vector<int>(24, 5), {}, opt), ap::Error);
  // generation stops at the context length instead of running past it
  opt.max_tokens = 24;
  const ap::Generation g = ap::generate(m, std::vector<int>(20, 5), {}, opt);
  EXPECT_LE(g.prompt.size() + g.tokens.size(), 25u);
}
