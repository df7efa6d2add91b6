// The hand-written kernels against their plain references and against hand calculations, on shapes
// chosen to hit every tail: n = 1, d_k = 1, m != n, sizes that are not multiples of 4 (the vector
// width), 8 (the GEMM tile), 32/64 (the attention blocks) or 256 (the GEMM k-panel).
// The same file runs natively (SSE2 kernels) and in wasm under Node (SIMD128 kernels).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "base/rng.hpp"
#include "kernels/attention.hpp"
#include "kernels/convert.hpp"
#include "kernels/gemm.hpp"

namespace k = ap::kernels;

namespace {

constexpr float kEps = std::numeric_limits<float>::epsilon();  // 1.19e-7
constexpr float kInf = std::numeric_limits<float>::infinity();
const std::vector<int> kSizes = {1, 2, 3, 5, 7, 13, 17, 33, 64, 65, 127};

// count values uniform in [lo, hi) from the project's one generator.
std::vector<float> random_vec(size_t count, ap::Rng& rng, float lo = -1.0f, float hi = 1.0f) {
  std::vector<float> v(count);
  for (auto& x : v) x = static_cast<float>(lo + (static_cast<double>(hi) - lo) * rng.unit());
  return v;
}

std::vector<float> abs_of(std::vector<float> v) {
  for (auto& x : v) x = std::fabs(x);
  return v;
}

std::string shape_name(int m, int k, int n) {
  return std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
}

// A sum of k products in float is within k*eps*sum|terms| of the exact value (first-order bound), so
// two summation orders differ by at most twice that. An indexing mistake is off by O(sum|terms|).
::testing::AssertionResult within_sum_bound(const float* fast, const float* ref, const float* abs_sum, int rows,
                                            int cols, int ld, int terms) {
  const float gamma = 2.0f * (terms + 2) * kEps;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      float a = fast[i * ld + j], b = ref[i * ld + j], bound = gamma * abs_sum[i * ld + j] + 1e-30f;
      if (!(std::fabs(a - b) <= bound))
        return ::testing::AssertionFailure() << "at (" << i << ", " << j << "): fast " << a << " ref " << b << " diff "
                                             << std::fabs(a - b) << " bound " << bound;
    }
  return ::testing::AssertionSuccess();
}

}  // namespace

// ---- GEMM ----------------------------------------------------------------------------------------

TEST(Gemm, MatchesAHandCalculationWithBias) {
  // [1 2 3; 4 5 6] (2x3) times [1 0; 0 1; 1 1] (3x2) = [4 5; 10 11], plus bias [0.5 -1].
  const float a[] = {1, 2, 3, 4, 5, 6}, b[] = {1, 0, 0, 1, 1, 1}, bias[] = {0.5f, -1.0f};
  const float expected[] = {4.5f, 4.0f, 10.5f, 10.0f};
  float c[4], t[4];
  k::gemm(c, a, b, bias, 2, 3, 2);
  k::gemm_tiled(t, 2, a, 3, b, 2, bias, 2, 3, 2);
  for (int i = 0; i < 4; ++i) {
    EXPECT_FLOAT_EQ(c[i], expected[i]);
    EXPECT_FLOAT_EQ(t[i], expected[i]);
  }
}

TEST(Gemm, FastAndTiledEqualReferenceOnEveryTailShape) {
  ap::Rng rng(1);
  int checked = 0;
  for (int m : kSizes)
    for (int kk : kSizes)
      for (int n : kSizes) {
        auto a = random_vec(m * kk, rng), b = random_vec(kk * n, rng), bias = random_vec(n, rng);
        const bool with_bias = (m + kk + n) % 2 == 0;
        const float* bp = with_bias ? bias.data() : nullptr;
        std::vector<float> ref(m * n), fast(m * n, 7.0f), tiled(m * n, 7.0f), bound(m * n);
        k::gemm_ref(ref.data(), a.data(), b.data(), bp, m, kk, n);
        auto aa = abs_of(a), ab = abs_of(b), abias = abs_of(bias);
        k::gemm_ref(bound.data(), aa.data(), ab.data(), with_bias ? abias.data() : nullptr, m, kk, n);
        k::gemm(fast.data(), a.data(), b.data(), bp, m, kk, n);
        k::gemm_tiled(tiled.data(), n, a.data(), kk, b.data(), n, bp, m, kk, n);
        ASSERT_TRUE(within_sum_bound(fast.data(), ref.data(), bound.data(), m, n, n, kk + 1))
            << "gemm " << shape_name(m, kk, n);
        ASSERT_TRUE(within_sum_bound(tiled.data(), ref.data(), bound.data(), m, n, n, kk + 1))
            << "gemm_tiled " << shape_name(m, kk, n);
        ++checked;
      }
  EXPECT_EQ(checked, 11 * 11 * 11);
}

TEST(Gemm, CrossesTheKPanelAndRowBlockBoundaries) {
  // k > 256 (two k-panels, the second accumulating onto the first) and m > 64 (two row blocks).
  ap::Rng rng(2);
  for (auto [m, kk, n] : {std::make_tuple(130, 300, 37), std::make_tuple(65, 513, 9), std::make_tuple(1, 1000, 3),
                          std::make_tuple(200, 257, 64)}) {
    auto a = random_vec(m * kk, rng), b = random_vec(kk * n, rng), bias = random_vec(n, rng);
    std::vector<float> ref(m * n), tiled(m * n), bound(m * n);
    k::gemm_ref(ref.data(), a.data(), b.data(), bias.data(), m, kk, n);
    auto aa = abs_of(a), ab = abs_of(b), abias = abs_of(bias);
    k::gemm_ref(bound.data(), aa.data(), ab.data(), abias.data(), m, kk, n);
    k::gemm_tiled(tiled.data(), n, a.data(), kk, b.data(), n, bias.data(), m, kk, n);
    ASSERT_TRUE(within_sum_bound(tiled.data(), ref.data(), bound.data(), m, n, n, kk + 1)) << shape_name(m, kk, n);
  }
}

TEST(Gemm, StridedAccumulateAddsOntoCAndLeavesOtherColumnsAlone) {
  // C is a column block (cols 3..3+n) of a wider matrix: C += A B must touch only that block.
  ap::Rng rng(3);
  for (int m : {1, 5, 13})
    for (int n : {1, 3, 8, 13})
      for (int kk : {1, 7, 33}) {
        const int ldc = n + 6, lda = kk + 2, ldb = n + 5;
        auto a = random_vec(m * lda, rng), b = random_vec(kk * ldb, rng), c0 = random_vec(m * ldc, rng);
        std::vector<float> c = c0;
        k::gemm_tiled(c.data() + 3, ldc, a.data(), lda, b.data(), ldb, nullptr, m, kk, n, true);
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < ldc; ++j) {
            float expected = c0[i * ldc + j], bound = std::fabs(expected);
            if (j >= 3 && j < 3 + n)
              for (int p = 0; p < kk; ++p) {
                expected += a[i * lda + p] * b[p * ldb + (j - 3)];
                bound += std::fabs(a[i * lda + p] * b[p * ldb + (j - 3)]);
              }
            ASSERT_NEAR(c[i * ldc + j], expected, 2.0f * (kk + 2) * kEps * bound)
                << "m=" << m << " n=" << n << " k=" << kk << " at (" << i << "," << j << ")";
          }
      }
}

TEST(Gemm, KZeroGivesTheBiasOrZeros) {
  const float bias[] = {1.5f, -2.0f, 3.0f};
  float c[6] = {9, 9, 9, 9, 9, 9};
  k::gemm_tiled(c, 3, nullptr, 0, nullptr, 3, bias, 2, 0, 3);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(c[i], bias[i % 3]);
  k::gemm_tiled(c, 3, nullptr, 0, nullptr, 3, nullptr, 2, 0, 3);
  for (float x : c) EXPECT_EQ(x, 0.0f);
}

// ---- exp -------------------------------------------------------------------------------------------

TEST(VectorisedExp, RelativeErrorAgainstStdExpIsBelowTheStatedBound) {
  // Every 1e-4 over [-87, 0] (softmax's inputs after the max is subtracted) and [0, 88] (positive
  // inputs), plus the exact points 0 and +-1; compared in double.
  const int count = 1750001;
  std::vector<float> x(count), y(count);
  for (int i = 0; i < count; ++i) x[i] = -87.0f + 1e-4f * i;
  k::exp_vec(y.data(), x.data(), count);
  double worst_neg = 0, worst_pos = 0;
  float worst_x = 0;
  for (int i = 0; i < count; ++i) {
    double exact = std::exp(static_cast<double>(x[i]));
    double rel = std::fabs(y[i] - exact) / exact;
    if (rel > std::max(worst_neg, worst_pos)) worst_x = x[i];
    (x[i] <= 0 ? worst_neg : worst_pos) = std::max(x[i] <= 0 ? worst_neg : worst_pos, rel);
  }
  std::printf("  exp max relative error: %.3g on [-87, 0], %.3g on [0, 88] (worst at x = %g)\n", worst_neg, worst_pos,
              worst_x);
  EXPECT_LT(worst_neg, k::kExpMaxRelError);
  EXPECT_LT(worst_pos, k::kExpMaxRelError);
  RecordProperty("exp_max_rel_error_negative", std::to_string(worst_neg));
  RecordProperty("exp_max_rel_error_positive", std::to_string(worst_pos));
}

TEST(VectorisedExp, ExactPointsAndTheEndsOfTheRange) {
  const float in[] = {0.0f, 1.0f, -1.0f, -kInf, -200.0f, -87.5f, 89.0f, kInf, 88.5f, -87.3f, 10.0f};
  float out[11];
  k::exp_vec(out, in, 11);
  EXPECT_EQ(out[0], 1.0f);                    // e^0 = 1 exactly
  EXPECT_NEAR(out[1], 2.718281828f, 3e-7f);   // e
  EXPECT_NEAR(out[2], 0.3678794412f, 1e-7f);  // 1/e
  EXPECT_EQ(out[3], 0.0f);                    // masked score: contributes exactly nothing
  EXPECT_EQ(out[4], 0.0f);
  EXPECT_EQ(out[5], 0.0f);  // e^-87.5 < FLT_MIN: flushed to 0 (documented)
  EXPECT_EQ(out[6], kInf);  // overflow
  EXPECT_EQ(out[7], kInf);
  // e^88.5 = 2.72e38, just below FLT_MAX = 3.40e38; e^-87.3 = 1.22e-38, just above FLT_MIN = 1.18e-38
  // (compared with the exact value of the float input: -87.3f is -87.300003).
  EXPECT_NEAR(out[8] / std::exp(static_cast<double>(in[8])), 1.0, k::kExpMaxRelError);
  EXPECT_NEAR(out[9] / std::exp(static_cast<double>(in[9])), 1.0, k::kExpMaxRelError);
  EXPECT_NEAR(out[10], 22026.4658f, 22026.4658f * 3e-7f);
}

// ---- softmax ---------------------------------------------------------------------------------------

TEST(Softmax, MatchesTheNotesAndHandCalculations) {
  // softmax(1, 2, 3) = e^(x - 3) / (e^-2 + e^-1 + 1) = (0.0900306, 0.2447285, 0.6652410).
  // "Thinking Machines": scores 112 and 96 scaled by sqrt(64) = 8 give 14 and 12 -> 0.88 / 0.12.
  const float in[] = {1, 2, 3, 14, 12, -kInf};
  float out[6];
  k::softmax_rows(out, 3, in, 3, 2, 3);
  EXPECT_NEAR(out[0], 0.0900306f, 1e-6f);
  EXPECT_NEAR(out[1], 0.2447285f, 1e-6f);
  EXPECT_NEAR(out[2], 0.6652410f, 1e-6f);
  EXPECT_NEAR(out[3], 0.8807971f, 1e-6f);  // 1 / (1 + e^-2)
  EXPECT_NEAR(out[4], 0.1192029f, 1e-6f);
  EXPECT_EQ(out[5], 0.0f);  // a masked key gets exactly zero weight
}

TEST(Softmax, FullyMaskedRowsGiveZerosAndHugeScoresNoNaN) {
  const float in[] = {-kInf, -kInf, -kInf, -kInf, -kInf,  // all masked
                      1e4f,  -1e4f, 0.0f,  -kInf, 1e4f};  // +-1e4: exp must not overflow
  float out[10];
  k::softmax_rows(out, 5, in, 5, 2, 5);
  for (int j = 0; j < 5; ++j) EXPECT_EQ(out[j], 0.0f);
  EXPECT_FLOAT_EQ(out[5], 0.5f);
  EXPECT_EQ(out[6], 0.0f);
  EXPECT_EQ(out[7], 0.0f);
  EXPECT_EQ(out[8], 0.0f);
  EXPECT_FLOAT_EQ(out[9], 0.5f);
  float empty = 0;
  k::softmax_rows(&empty, 0, &empty, 0, 1, 0);  // m = 0: nothing to write, nothing to crash
}

TEST(Softmax, EqualsReferenceOnEveryTailShapeWithMasksAndStrides) {
  ap::Rng rng(4);
  for (int n : kSizes)
    for (int m : kSizes) {
      const int ld_in = m + 3, ld_out = m + 1;
      auto in = random_vec(n * ld_in, rng, -20.0f, 20.0f);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j)
          if ((i * 7 + j * 3) % 5 == 0 || i % 4 == 3) in[i * ld_in + j] = -kInf;  // rows 3, 7, ...: all
      std::vector<float> ref(n * ld_out, 5.0f), fast(n * ld_out, 5.0f);
      k::softmax_rows_ref(ref.data(), ld_out, in.data(), ld_in, n, m);
      k::softmax_rows(fast.data(), ld_out, in.data(), ld_in, n, m);
      // Each weight carries the exp's error (twice: itself and the sum) plus m roundings in the sum.
      const float rel = 2.0f * static_cast<float>(k::kExpMaxRelError) + (m + 2) * kEps;
      for (int i = 0; i < n; ++i) {
        float row_sum = 0;
        bool all_masked = true;
        for (int j = 0; j < m; ++j) all_masked = all_masked && in[i * ld_in + j] == -kInf;
        for (int j = 0; j < m; ++j) {
          float a = fast[i * ld_out + j], b = ref[i * ld_out + j];
          ASSERT_NEAR(a, b, rel * b + 1e-37f) << "n=" << n << " m=" << m << " at (" << i << "," << j << ")";
          row_sum += a;
        }
        if (all_masked)
          EXPECT_EQ(row_sum, 0.0f);
        else
          EXPECT_NEAR(row_sum, 1.0f, (m + 4) * kEps);
        EXPECT_EQ(fast[i * ld_out + m], 5.0f) << "wrote past the row";
      }
      // In place (out == in) gives the same numbers.
      std::vector<float> inplace = in;
      k::softmax_rows(inplace.data(), ld_in, inplace.data(), ld_in, n, m);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < m; ++j) ASSERT_EQ(inplace[i * ld_in + j], fast[i * ld_out + j]);
    }
}

// ---- Q K^T and weights @ V --------------------------------------------------------------------

TEST(QkScores, EqualsReferenceOnHeadColumnBlocks) {
  // Q (n, h*d_k) and K (m, h*d_k) in the multi-head layout; the kernel reads head 1's columns.
  ap::Rng rng(5);
  for (int n : kSizes)
    for (int m : {1, 3, 4, 5, 13, 64, 65})
      for (int d_k : {1, 2, 3, 4, 5, 8, 13, 64, 67}) {
        const int h = 3, ld = h * d_k, ld_s = m + 2;
        const float alpha = d_k % 2 ? 1.0f : 1.0f / std::sqrt(static_cast<float>(d_k));  // folded into K
        auto q = random_vec(n * ld, rng), kk = random_vec(m * ld, rng);
        std::vector<float> ref(n * ld_s), fast(n * ld_s, 9.0f), bound(n * ld_s);
        k::qk_scores_ref(ref.data(), ld_s, q.data() + d_k, ld, kk.data() + d_k, ld, n, m, d_k, alpha);
        k::qk_scores(fast.data(), ld_s, q.data() + d_k, ld, kk.data() + d_k, ld, n, m, d_k, alpha);
        auto aq = abs_of(q), ak = abs_of(kk);
        k::qk_scores_ref(bound.data(), ld_s, aq.data() + d_k, ld, ak.data() + d_k, ld, n, m, d_k, alpha);
        ASSERT_TRUE(within_sum_bound(fast.data(), ref.data(), bound.data(), n, m, ld_s, d_k))
            << "n=" << n << " m=" << m << " d_k=" << d_k;
        for (int i = 0; i < n; ++i) ASSERT_EQ(fast[i * ld_s + m], 9.0f) << "wrote past the row";
      }
}

TEST(QkScores, MatchesAHandCalculation) {
  // q = (1, 2, 3), keys (1, 0, 0), (0, 1, 1), (2, 2, 2), (-1, 0, 1), (1, 1, 1): dots 1, 5, 12, 2, 6.
  const float q[] = {1, 2, 3}, kk[] = {1, 0, 0, 0, 1, 1, 2, 2, 2, -1, 0, 1, 1, 1, 1};
  float s[5];
  k::qk_scores(s, 5, q, 3, kk, 3, 1, 5, 3, 0.5f);
  const float expected[] = {0.5f, 2.5f, 6.0f, 1.0f, 3.0f};
  for (int j = 0; j < 5; ++j) EXPECT_EQ(s[j], expected[j]);
}

TEST(WeightsV, EqualsReferenceOnHeadColumnBlocks) {
  ap::Rng rng(6);
  for (int n : kSizes)
    for (int m : {1, 2, 5, 17, 64, 127})
      for (int d_k : {1, 3, 4, 7, 8, 13, 64, 65}) {
        const int h = 2, ld = h * d_k, ld_w = m + 1;
        auto w = random_vec(n * ld_w, rng, 0.0f, 1.0f), v = random_vec(m * ld, rng);
        std::vector<float> ref(n * ld, 3.0f), fast(n * ld, 3.0f), bound(n * ld, 3.0f);
        k::weights_v_ref(ref.data() + d_k, ld, w.data(), ld_w, v.data() + d_k, ld, n, m, d_k);
        k::weights_v(fast.data() + d_k, ld, w.data(), ld_w, v.data() + d_k, ld, n, m, d_k);
        auto av = abs_of(v);
        k::weights_v_ref(bound.data() + d_k, ld, w.data(), ld_w, av.data() + d_k, ld, n, m, d_k);
        ASSERT_TRUE(within_sum_bound(fast.data(), ref.data(), bound.data(), n, ld, ld, m))
            << "n=" << n << " m=" << m << " d_k=" << d_k;  // head 0's columns stay 3 in both
      }
}

// ---- whole attention -----------------------------------------------------------------------------

namespace {

struct AttnCase {
  int n, m, d_k, h;
  bool causal, scale;
};

std::string name(const AttnCase& c) {
  return "n=" + std::to_string(c.n) + " m=" + std::to_string(c.m) + " d_k=" + std::to_string(c.d_k) +
         " h=" + std::to_string(c.h) + (c.causal ? " causal" : "") + (c.scale ? " scaled" : "");
}

// out_i = sum_j w_ij v_j is a convex combination, so its error scale is max_j |v_jc|, not |out_ic|
// (which can cancel to ~0). Reports the worst error relative to that scale.
double attention_rel_error(const std::vector<float>& fast, const std::vector<float>& ref, const std::vector<float>& v,
                           const AttnCase& c) {
  const int ld = c.h * c.d_k;
  std::vector<float> vmax(ld, 0.0f);
  for (int j = 0; j < c.m; ++j)
    for (int col = 0; col < ld; ++col) vmax[col] = std::max(vmax[col], std::fabs(v[j * ld + col]));
  double worst = 0;
  for (int i = 0; i < c.n; ++i)
    for (int col = 0; col < ld; ++col) {
      double diff = std::fabs(static_cast<double>(fast[i * ld + col]) - ref[i * ld + col]);
      double scale = std::max<double>(std::fabs(ref[i * ld + col]), vmax[col]);
      if (std::isnan(fast[i * ld + col])) return INFINITY;
      worst = std::max(worst, scale > 0 ? diff / scale : diff);
    }
  return worst;
}

// q and k uniform in [-input_scale, input_scale), rounded to whole numbers when `whole` (every
// score q.k is then exact in float, whatever order a kernel sums it in, up to 2^24).
void check_attention(const AttnCase& c, ap::Rng& rng, float input_scale, double* worst, bool whole = false) {
  const int ld = c.h * c.d_k;
  auto q = random_vec(c.n * ld, rng, -input_scale, input_scale);
  auto kk = random_vec(c.m * ld, rng, -input_scale, input_scale);
  if (whole)
    for (auto* x : {&q, &kk})
      for (float& e : *x) e = std::round(e);
  auto v = random_vec(c.m * ld, rng);
  std::vector<float> ref(c.n * ld), online(c.n * ld, NAN), full(c.n * ld, NAN);
  k::attention_forward_ref(ref.data(), q.data(), kk.data(), v.data(), c.n, c.m, c.d_k, c.h, c.causal, c.scale);
  k::attention_forward(online.data(), q.data(), kk.data(), v.data(), c.n, c.m, c.d_k, c.h, c.causal, c.scale);
  k::attention_forward_full(full.data(), q.data(), kk.data(), v.data(), c.n, c.m, c.d_k, c.h, c.causal, c.scale);
  double e_online = attention_rel_error(online, ref, v, c), e_full = attention_rel_error(full, ref, v, c);
  double e_pair = attention_rel_error(online, full, v, c);
  *worst = std::max({*worst, e_online, e_full, e_pair});
  ASSERT_LT(e_online, 1e-5) << "online vs reference, " << name(c);
  ASSERT_LT(e_full, 1e-5) << "full vs reference, " << name(c);
  ASSERT_LT(e_pair, 1e-5) << "online vs full, " << name(c);
  if (c.causal && c.m < c.n)  // the first n - m queries see no key at all
    for (int i = 0; i < c.n - c.m; ++i)
      for (int col = 0; col < ld; ++col) {
        ASSERT_EQ(online[i * ld + col], 0.0f) << name(c) << " row " << i;
        ASSERT_EQ(full[i * ld + col], 0.0f) << name(c) << " row " << i;
      }
}

}  // namespace

TEST(Attention, HandCalculationOneQueryTwoKeys) {
  // q = (1, 0), keys (1, 0), (0, 1): scores 1, 0 -> weights e/(e+1) = 0.7310586, 1/(e+1) = 0.2689414;
  // values (1, 2), (3, 4) -> out = (0.7310586 + 3*0.2689414, 2*0.7310586 + 4*0.2689414)
  //                              = (1.5378828, 2.5378828). Causal with n = 1, m = 2: the query is the
  // last position, so it still sees both keys.
  const float q[] = {1, 0}, kk[] = {1, 0, 0, 1}, v[] = {1, 2, 3, 4};
  for (bool causal : {false, true}) {
    float online[2], full[2], ref[2];
    k::attention_forward(online, q, kk, v, 1, 2, 2, 1, causal, false);
    k::attention_forward_full(full, q, kk, v, 1, 2, 2, 1, causal, false);
    k::attention_forward_ref(ref, q, kk, v, 1, 2, 2, 1, causal, false);
    for (const float* out : {online, full, ref}) {
      EXPECT_NEAR(out[0], 1.5378828f, 1e-6f);
      EXPECT_NEAR(out[1], 2.5378828f, 1e-6f);
    }
  }
}

TEST(Attention, CausalFirstQueryCopiesTheFirstValue) {
  // Self-attention, causal: query 0 sees only key 0, so its output is v_0 exactly.
  ap::Rng rng(7);
  const int n = 70, d_k = 5, h = 2, ld = h * d_k;
  auto q = random_vec(n * ld, rng), kk = random_vec(n * ld, rng), v = random_vec(n * ld, rng);
  std::vector<float> online(n * ld), full(n * ld);
  k::attention_forward(online.data(), q.data(), kk.data(), v.data(), n, n, d_k, h, true, true);
  k::attention_forward_full(full.data(), q.data(), kk.data(), v.data(), n, n, d_k, h, true, true);
  for (int col = 0; col < ld; ++col) {
    EXPECT_EQ(online[col], v[col]);
    EXPECT_EQ(full[col], v[col]);
  }
}

TEST(Attention, OnlineEqualsFullEqualsReferenceOnManyShapes) {
  ap::Rng rng(8);
  double worst = 0;
  int cases = 0;
  for (int n : kSizes)
    for (int m : {n, 1, 5, n + 7, 2 * n + 1})
      for (int d_k : {1, 5, 64})
        for (int h : {1, 3})
          for (bool causal : {false, true}) {
            if (h == 3 && d_k == 64 && n > 33) continue;  // keep the run short; shapes are covered
            AttnCase c{n, m, d_k, h, causal, (n + m + d_k) % 2 == 0};
            ASSERT_NO_FATAL_FAILURE(check_attention(c, rng, 1.0f, &worst));
            ++cases;
          }
  std::printf("  %d cases, worst relative difference %.3g\n", cases, worst);
  RecordProperty("attention_worst_rel_error", std::to_string(worst));
}

TEST(Attention, CrossesManyQueryAndKeyBlocks) {
  // n, m beyond several 32-query and 64-key blocks, causal with m > n and m < n, 8 heads of 64.
  ap::Rng rng(9);
  double worst = 0;
  for (AttnCase c : {AttnCase{300, 300, 64, 1, true, true}, AttnCase{257, 1000, 16, 2, true, true},
                     AttnCase{200, 97, 8, 1, true, false}, AttnCase{129, 129, 64, 8, false, true},
                     AttnCase{65, 513, 3, 2, false, true}})
    ASSERT_NO_FATAL_FAILURE(check_attention(c, rng, 1.0f, &worst));
  std::printf("  worst relative difference %.3g\n", worst);
}

TEST(Attention, LargeScoresStayFiniteAndEqualReference) {
  // Inputs of +-30 make scores of order 1e4: the running max must keep every exponent <= 0.
  // Whole-number inputs make the scores exact (below 2^24, unscaled), so the kernels differ only
  // in their softmax, not in the rounding of 1e4-sized dot products summed in another order
  // (about 1e-3 there, which a near tie between two keys turns into a weight difference).
  ap::Rng rng(10);
  double worst = 0;
  for (AttnCase c : {AttnCase{37, 37, 13, 1, true, false}, AttnCase{70, 150, 8, 2, false, false}})
    ASSERT_NO_FATAL_FAILURE(check_attention(c, rng, 30.0f, &worst, true));
}

TEST(Attention, ScoresRisingAcrossKeyBlocksEqualReference) {
  // Keys grow along q's direction, so each key block's scores exceed the previous block's by far
  // more than the online kernel's slack (16 in log2 units): its running reference must be raised
  // and the block redone, block after block; also falling scores, which never raise it.
  ap::Rng rng(11);
  auto noise = [](ap::Rng& r) { return r.symmetric(0.1); };  // uniform in [-0.1, 0.1)
  double worst = 0;
  for (AttnCase c : {AttnCase{40, 160, 16, 2, false, false}, AttnCase{70, 160, 64, 1, true, true},
                     AttnCase{33, 130, 64, 2, false, true}, AttnCase{20, 160, 80, 1, false, true}})
    for (float dir : {1.0f, -1.0f}) {
      const int ld = c.h * c.d_k;
      // scores rise by about 0.3 (natural units) per key: 19 per 64-key block, 28 in log2 units
      const float slope = 0.3f / (c.d_k * (c.scale ? 1.0f / std::sqrt(static_cast<float>(c.d_k)) : 1.0f));
      std::vector<float> q(c.n * ld), kk(c.m * ld), v = random_vec(c.m * ld, rng);
      for (auto& x : q) x = 1.0f + noise(rng);
      for (int j = 0; j < c.m; ++j)
        for (int col = 0; col < ld; ++col) kk[j * ld + col] = dir * slope * j + noise(rng);
      std::vector<float> ref(c.n * ld), online(c.n * ld, NAN);
      k::attention_forward_ref(ref.data(), q.data(), kk.data(), v.data(), c.n, c.m, c.d_k, c.h, c.causal, c.scale);
      k::attention_forward(online.data(), q.data(), kk.data(), v.data(), c.n, c.m, c.d_k, c.h, c.causal, c.scale);
      double e = attention_rel_error(online, ref, v, c);
      worst = std::max(worst, e);
      ASSERT_LT(e, 1e-5) << name(c) << (dir > 0 ? " rising" : " falling");
    }
  std::printf("  worst relative difference %.3g\n", worst);
}

TEST(Attention, ScoresOfTenThousandKeepTheirDifferences) {
  // The vitest edge case: q = k = v = [[100, 1], [100, 0], [100, -1]], no scaling: scores around
  // 1e4 (10001, 10000, 9999 in row 0) whose differences of 1 decide the weights. A float's spacing
  // at 1e4 is ~1e-3, so the online kernel must subtract the max before any rescaling of the scores
  // (multiplying them by log2 e first lost ~1e-3 of each difference: 9.2e-5 off the full path).
  // Also with the keys repeated across several key blocks (m = 150 > 64), the lazy-max path, there
  // with values (1, 1), (1, 0), (1, -1), so that the sums of 150 products stay near 1.
  for (int reps : {1, 50}) {
    const int n = 3, m = 3 * reps, d_k = 2;
    const std::vector<float> q = {100, 1, 100, 0, 100, -1}, small = {1, 1, 1, 0, 1, -1};
    std::vector<float> kk, v;
    for (int r = 0; r < reps; ++r) {
      kk.insert(kk.end(), q.begin(), q.end());
      v.insert(v.end(), (reps == 1 ? q : small).begin(), (reps == 1 ? q : small).end());
    }
    for (bool causal : {false, true}) {
      std::vector<float> online(n * d_k, NAN), full(n * d_k, NAN), ref(n * d_k, NAN);
      k::attention_forward(online.data(), q.data(), kk.data(), v.data(), n, m, d_k, 1, causal, false);
      k::attention_forward_full(full.data(), q.data(), kk.data(), v.data(), n, m, d_k, 1, causal, false);
      k::attention_forward_ref(ref.data(), q.data(), kk.data(), v.data(), n, m, d_k, 1, causal, false);
      for (int i = 0; i < n * d_k; ++i) {
        if (reps == 1)  // (the full path's own sums of 150 terms differ from ref by up to 1.5e-6)
          EXPECT_LE(std::fabs(online[i] - full[i]), 1e-6 * std::max(1.0f, std::fabs(full[i])))
              << "reps " << reps << (causal ? " causal" : "") << " i " << i;
        EXPECT_LE(std::fabs(online[i] - ref[i]), 1e-6 * std::max(1.0f, std::fabs(ref[i])))
            << "reps " << reps << (causal ? " causal" : "") << " i " << i;
      }
    }
  }
}

TEST(Attention, FullyMaskedRowsGiveZerosNotNaN) {
  // Causal cross-attention with m = 3 < n = 7: queries 0..3 see no key (j <= i + m - n = i - 4).
  ap::Rng rng(11);
  const int n = 7, m = 3, d_k = 4, h = 2, ld = h * d_k;
  auto q = random_vec(n * ld, rng), kk = random_vec(m * ld, rng), v = random_vec(m * ld, rng);
  std::vector<float> online(n * ld, NAN), full(n * ld, NAN), ref(n * ld, NAN);
  k::attention_forward(online.data(), q.data(), kk.data(), v.data(), n, m, d_k, h, true, true);
  k::attention_forward_full(full.data(), q.data(), kk.data(), v.data(), n, m, d_k, h, true, true);
  k::attention_forward_ref(ref.data(), q.data(), kk.data(), v.data(), n, m, d_k, h, true, true);
  for (int i = 0; i < 4; ++i)
    for (int col = 0; col < ld; ++col) {
      EXPECT_EQ(online[i * ld + col], 0.0f);
      EXPECT_EQ(full[i * ld + col], 0.0f);
      EXPECT_EQ(ref[i * ld + col], 0.0f);
    }
  for (int col = 0; col < ld; ++col) EXPECT_FLOAT_EQ(online[4 * ld + col], v[col]);  // query 4 sees key 0 only
  for (float x : online) EXPECT_FALSE(std::isnan(x));
  // m = 0: no keys at all, every row is zero.
  std::vector<float> none(n * ld, NAN);
  k::attention_forward(none.data(), q.data(), kk.data(), v.data(), n, 0, d_k, h, false, true);
  for (float x : none) EXPECT_EQ(x, 0.0f);
}

TEST(Kernels, VariantNamesTheKernelsInUse) {
  // How this file's build compiled them; in wasm a loader may have switched to the relaxed module.
  std::string compiled =
#if defined(AP_KERNELS_SCALAR)
      "scalar";
#elif defined(__wasm_simd128__)
      "simd128";
#elif defined(__SSE2__)
      "sse2";
#else
      "scalar";
#endif
  std::string in_use = k::variant();
#if defined(__wasm_simd128__) && !defined(AP_KERNELS_SCALAR)
  if (in_use == "relaxed") {
    std::printf("  kernels in use: relaxed SIMD module\n");
    return;
  }
#endif
  EXPECT_EQ(in_use, compiled);
}

// F16 -> float32 for every one of the 65,536 bit patterns, against the definition written out:
// (-1)^s 2^(e - 15) (1 + m / 1024), subnormals 2^-14 (m / 1024), e = 31 inf or NaN (the payload
// kept, as a float's top mantissa bits). The loop (SIMD in the wasm build) from an odd offset, so
// that its vector steps and scalar tail both run, equals the reference bit for bit.
TEST(Kernels, HalvesWidenToFloatsExactlyForEveryBitPattern) {
  const size_t n = 65536;
  std::vector<uint8_t> bytes(2 * n + 1);
  for (size_t h = 0; h < n; ++h) {
    bytes[1 + 2 * h] = static_cast<uint8_t>(h & 0xff);
    bytes[2 + 2 * h] = static_cast<uint8_t>(h >> 8);
  }
  std::vector<float> out(n);
  ap::kernels::halves_to_floats(out.data(), bytes.data() + 1, n);
  auto bits = [](float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  };
  for (uint32_t h = 0; h < n; ++h) {
    const uint32_t s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    const float ref = ap::kernels::half_to_float(static_cast<uint16_t>(h));
    ASSERT_EQ(bits(out[h]), bits(ref)) << "pattern " << h;
    if (e == 31) {
      ASSERT_EQ(bits(ref), (s << 31) | 0x7f800000u | (m << 13)) << "inf / NaN " << h;
    } else {
      const double mag = e == 0 ? std::ldexp(m / 1024.0, -14) : std::ldexp(1.0 + m / 1024.0, static_cast<int>(e) - 15);
      ASSERT_EQ(static_cast<double>(ref), s ? -mag : mag) << "pattern " << h;
      ASSERT_EQ(std::signbit(ref), s == 1) << "the sign of zero too: " << h;
    }
  }
}

// ---- sliding-window attention (issue 26) ------------------------------------------------------------
// Query i (position p = i + m - n) sees key j iff p - window < j <= p (Mistral's window, as Hugging Face
// writes it). The online kernel must start each query block at the first key in its window: keys older
// than every window of a block are never read, not just masked.

namespace {

// A reference written here in double, apart from the kernels' own: the window's keys only.
std::vector<double> window_reference(const std::vector<float>& q, const std::vector<float>& kk,
                                     const std::vector<float>& v, int n, int m, int d_k, int h, int window) {
  const int ld = h * d_k;
  std::vector<double> out(static_cast<size_t>(n) * ld, 0.0);
  for (int hd = 0; hd < h; ++hd)
    for (int i = 0; i < n; ++i) {
      const int p = i + m - n, lo = std::max(0, p - window + 1);
      if (p < 0) continue;  // sees no key: zeros
      std::vector<double> s;
      double mx = -INFINITY;
      for (int j = lo; j <= p; ++j) {
        double dot = 0;
        for (int c = 0; c < d_k; ++c) dot += double(q[i * ld + hd * d_k + c]) * kk[j * ld + hd * d_k + c];
        s.push_back(dot / std::sqrt(double(d_k)));
        mx = std::max(mx, s.back());
      }
      double sum = 0;
      for (double& x : s) sum += (x = std::exp(x - mx));
      for (int c = 0; c < d_k; ++c) {
        double acc = 0;
        for (int j = lo; j <= p; ++j) acc += s[j - lo] / sum * v[j * ld + hd * d_k + c];
        out[i * ld + hd * d_k + c] = acc;
      }
    }
  return out;
}

double window_error(const std::vector<float>& got, const std::vector<double>& want) {
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    worst = std::max(worst, std::fabs(got[i] - want[i]) / std::max(1.0, std::fabs(want[i])));
  }
  return worst;
}

}  // namespace

TEST(SlidingWindow, OnlineFullAndReferenceEqualAHandWrittenWindowOnManyShapes) {
  ap::Rng rng(26);
  double worst = 0;
  int cases = 0;
  for (int n : {1, 5, 33, 70, 200})
    for (int m : {n, n + 7, 3 * n + 1})
      for (int window : {1, 2, 7, 31, 64, 65, 150, m, m + 10})
        for (int d_k : {3, 16}) {
          const int h = 2, ld = h * d_k;
          auto q = random_vec(n * ld, rng), kk = random_vec(m * ld, rng), v = random_vec(m * ld, rng);
          const auto want = window_reference(q, kk, v, n, m, d_k, h, window);
          std::vector<float> online(n * ld, NAN), full(n * ld, NAN), ref(n * ld, NAN);
          k::attention_forward(online.data(), q.data(), kk.data(), v.data(), n, m, d_k, h, true, true, window);
          k::attention_forward_full(full.data(), q.data(), kk.data(), v.data(), n, m, d_k, h, true, true, window);
          k::attention_forward_ref(ref.data(), q.data(), kk.data(), v.data(), n, m, d_k, h, true, true, window);
          const std::string what = "n=" + std::to_string(n) + " m=" + std::to_string(m) +
                                   " window=" + std::to_string(window) + " d_k=" + std::to_string(d_k);
          for (const auto* got : {&online, &full, &ref}) {
            const double e = window_error(*got, want);
            worst = std::max(worst, e);
            ASSERT_LT(e, 1e-5) << what << (got == &online ? " online" : got == &full ? " full" : " ref");
          }
          ++cases;
        }
  std::printf("  %d cases, worst relative difference %.3g\n", cases, worst);
}

TEST(SlidingWindow, WindowAtLeastNIsPlainCausalAttention) {
  ap::Rng rng(27);
  const int n = 97, d_k = 8, h = 3, ld = h * d_k;
  auto q = random_vec(n * ld, rng), kk = random_vec(n * ld, rng), v = random_vec(n * ld, rng);
  std::vector<float> causal(n * ld), windowed(n * ld);
  k::attention_forward(causal.data(), q.data(), kk.data(), v.data(), n, n, d_k, h, true, true);
  for (int window : {n, n + 1, 1 << 20}) {
    k::attention_forward(windowed.data(), q.data(), kk.data(), v.data(), n, n, d_k, h, true, true, window);
    EXPECT_EQ(windowed, causal) << "window " << window;  // bit for bit: the same blocks, the same order
  }
}

TEST(SlidingWindow, WindowOneCopiesEachQuerysOwnValue) {
  // Each query sees only the key at its own position: weight 1 on it, the output is that value exactly.
  ap::Rng rng(28);
  const int n = 150, m = 170, d_k = 5, h = 2, ld = h * d_k;
  auto q = random_vec(n * ld, rng), kk = random_vec(m * ld, rng), v = random_vec(m * ld, rng);
  std::vector<float> online(n * ld), full(n * ld);
  k::attention_forward(online.data(), q.data(), kk.data(), v.data(), n, m, d_k, h, true, true, 1);
  k::attention_forward_full(full.data(), q.data(), kk.data(), v.data(), n, m, d_k, h, true, true, 1);
  for (int i = 0; i < n; ++i)
    for (int col = 0; col < ld; ++col) {
      ASSERT_EQ(online[i * ld + col], v[(i + m - n) * ld + col]) << "row " << i;
      ASSERT_EQ(full[i * ld + col], v[(i + m - n) * ld + col]) << "row " << i;
    }
}

TEST(SlidingWindow, KeysOutsideEveryWindowAreNeverRead) {
  // The last 40 of 1000 positions query with a window of 16: keys 0 .. 1000 - 40 - 16 are in no window.
  // They hold NaN: a kernel that read them (even to mask them) would turn its output NaN, since a NaN
  // score or a NaN value times a zero weight is NaN. The online kernel must skip their blocks.
  ap::Rng rng(29);
  const int n = 40, m = 1000, window = 16, d_k = 8, h = 2, ld = h * d_k;
  auto q = random_vec(n * ld, rng), kk = random_vec(m * ld, rng), v = random_vec(m * ld, rng);
  const int first_seen = m - n - window + 1;  // the first query's window starts here
  for (int j = 0; j < first_seen - 64; ++j)   // whole 64-key blocks before it, and a margin
    for (int col = 0; col < ld; ++col) kk[j * ld + col] = v[j * ld + col] = NAN;
  std::vector<float> online(n * ld);
  k::attention_forward(online.data(), q.data(), kk.data(), v.data(), n, m, d_k, h, true, true, window);
  const auto want = window_reference(q, kk, v, n, m, d_k, h, window);
  EXPECT_LT(window_error(online, want), 1e-5);
  // And the tiles it computes are O(n window), not O(n m): 40 queries (2 blocks of 32) x at most
  // window + 32 keys each, against n * m = 40000 without the window.
  EXPECT_LE(k::attention_pairs_computed(n, m, true, window), double(n) * (window + 32));
  EXPECT_EQ(k::attention_pairs_computed(n, m, false, 0), double(n) * m);
}
