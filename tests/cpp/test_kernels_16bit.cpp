// The kernels on weights kept at 16 bits (F16, BF16; core/weight.hpp): gemm_tiled_f16 / _bf16 and
// qk_scores_f16 / _bf16 widen B (or K) in registers. Held to: every finite 16-bit value widening to
// the float the reference conversion gives (kernels::half_to_float, itself checked against every bit
// pattern in test_kernels.cpp); the float kernel run on the widened matrix, bit for bit (the same
// products added in the same order); the plain triple loops (gemm_ref_f16, qk_scores_ref_f16) within
// the float summation bound; and a hand calculation. Runs natively (SSE2) and in wasm (SIMD128).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "base/half.hpp"
#include "base/rng.hpp"
#include "kernels/attention.hpp"
#include "kernels/convert.hpp"
#include "kernels/gemm.hpp"

namespace k = ap::kernels;
using ap::bf16;
using ap::f16;

namespace {

constexpr float kEps = std::numeric_limits<float>::epsilon();

float widen(f16 h) { return k::half_to_float(h.bits); }
float widen(bf16 h) { return ap::bf16_to_float(h); }

// Random finite 16-bit weights: any sign and mantissa, exponents from the subnormals up to about
// 2^4 (F16) or 2^±8 (BF16), so sums stay far from overflow.
template <typename H>
std::vector<H> random_16(size_t count, ap::Rng& rng) {
  std::vector<H> v(count);
  for (auto& h : v) {
    const uint32_t r = static_cast<uint32_t>(rng.unit() * 4294967296.0);
    if constexpr (std::is_same_v<H, f16>)
      h.bits = static_cast<uint16_t>((r & 0x83ffu) | (((r >> 10) % 20u) << 10));  // exponent 0..19
    else
      h.bits = static_cast<uint16_t>((r & 0x807fu) | ((119u + (r >> 7) % 17u) << 7));  // 2^-8 .. 2^8
  }
  return v;
}

template <typename H>
std::vector<float> widened(const std::vector<H>& v) {
  std::vector<float> f(v.size());
  for (size_t i = 0; i < v.size(); ++i) f[i] = widen(v[i]);
  return f;
}

std::vector<float> random_floats(size_t count, ap::Rng& rng) {
  std::vector<float> v(count);
  for (auto& x : v) x = static_cast<float>(2.0 * rng.unit() - 1.0);
  return v;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void gemm16(float* c, int ldc, const float* a, int lda, const f16* b, int ldb, const float* bias, int m, int kk, int n,
            bool acc = false) {
  k::gemm_tiled_f16(c, ldc, a, lda, b, ldb, bias, m, kk, n, acc);
}
void gemm16(float* c, int ldc, const float* a, int lda, const bf16* b, int ldb, const float* bias, int m, int kk, int n,
            bool acc = false) {
  k::gemm_tiled_bf16(c, ldc, a, lda, b, ldb, bias, m, kk, n, acc);
}
void gemm16_ref(float* c, const float* a, const f16* b, const float* bias, int m, int kk, int n) {
  k::gemm_ref_f16(c, a, b, bias, m, kk, n);
}
void gemm16_ref(float* c, const float* a, const bf16* b, const float* bias, int m, int kk, int n) {
  k::gemm_ref_bf16(c, a, b, bias, m, kk, n);
}
void qk16(float* s, int lds, const float* q, int ldq, const f16* kk, int ldk, int n, int m, int d, float alpha) {
  k::qk_scores_f16(s, lds, q, ldq, kk, ldk, n, m, d, alpha);
}
void qk16(float* s, int lds, const float* q, int ldq, const bf16* kk, int ldk, int n, int m, int d, float alpha) {
  k::qk_scores_bf16(s, lds, q, ldq, kk, ldk, n, m, d, alpha);
}
void qk16_ref(float* s, int lds, const float* q, int ldq, const f16* kk, int ldk, int n, int m, int d, float alpha) {
  k::qk_scores_ref_f16(s, lds, q, ldq, kk, ldk, n, m, d, alpha);
}
void qk16_ref(float* s, int lds, const float* q, int ldq, const bf16* kk, int ldk, int n, int m, int d, float alpha) {
  k::qk_scores_ref_bf16(s, lds, q, ldq, kk, ldk, n, m, d, alpha);
}

template <typename H>
class Kernels16 : public ::testing::Test {};
using Types16 = ::testing::Types<f16, bf16>;
TYPED_TEST_SUITE(Kernels16, Types16);

}  // namespace

TEST(Kernels16Widen, EveryFiniteValueWidensToTheReferenceFloat) {
  // C (rows, 65536) = A (rows, 1) B (1, 65536) with A = 1: each C value is 0 + 1 * widen(B) = the
  // widened value itself (+0 for -0), through the matrix-vector path (1 row) and the tiles (3, 9 rows).
  std::vector<f16> h;
  std::vector<bf16> b;
  for (uint32_t x = 0; x < 65536; ++x) {
    if (ap::is_finite(f16{static_cast<uint16_t>(x)})) h.push_back(f16{static_cast<uint16_t>(x)});
    if (ap::is_finite(bf16{static_cast<uint16_t>(x)})) b.push_back(bf16{static_cast<uint16_t>(x)});
  }
  ASSERT_EQ(h.size(), 63488u);  // 2 signs x 31 exponents x 1024 mantissas
  ASSERT_EQ(b.size(), 65280u);  // 2 x 255 x 128
  for (int rows : {1, 3, 9}) {
    SCOPED_TRACE(rows);
    const std::vector<float> ones(static_cast<size_t>(rows), 1.0f);
    const int nh = static_cast<int>(h.size()), nb = static_cast<int>(b.size());
    std::vector<float> ch(static_cast<size_t>(rows) * nh), cb(static_cast<size_t>(rows) * nb);
    k::gemm_tiled_f16(ch.data(), nh, ones.data(), 1, h.data(), nh, nullptr, rows, 1, nh);
    k::gemm_tiled_bf16(cb.data(), nb, ones.data(), 1, b.data(), nb, nullptr, rows, 1, nb);
    int wrong = 0;
    for (int r = 0; r < rows; ++r) {
      for (int j = 0; j < nh; ++j) wrong += !(ch[static_cast<size_t>(r) * nh + j] == widen(h[j]));
      for (int j = 0; j < nb; ++j) wrong += !(cb[static_cast<size_t>(r) * nb + j] == widen(b[j]));
    }
    EXPECT_EQ(wrong, 0);
  }
  // The reference conversions by hand: F16 1.0, -2, 65504 (largest), 2^-24 (smallest subnormal);
  // BF16 1.0 and -2.
  EXPECT_EQ(widen(f16{0x3C00}), 1.0f);
  EXPECT_EQ(widen(f16{0xC000}), -2.0f);
  EXPECT_EQ(widen(f16{0x7BFF}), 65504.0f);
  EXPECT_EQ(widen(f16{0x0001}), std::ldexp(1.0f, -24));
  EXPECT_EQ(widen(bf16{0x3F80}), 1.0f);
  EXPECT_EQ(widen(bf16{0xC000}), -2.0f);
}

TEST(Kernels16Gemm, MatchesAHandCalculation) {
  // a = [1 2], B = [[1, 0.5], [-2, 2^-24]] in F16 (0x3C00 0x3800 / 0xC000 0x0001), bias [0.25, 0]:
  // c = [0.25 + 1 - 4, 0.5 + 2 * 2^-24] = [-2.75, 0.5 + 2^-23].
  const float a[2] = {1, 2}, bias[2] = {0.25f, 0};
  const f16 b[4] = {{0x3C00}, {0x3800}, {0xC000}, {0x0001}};
  float c[2];
  k::gemm_tiled_f16(c, 2, a, 2, b, 2, bias, 1, 2, 2);
  EXPECT_EQ(c[0], -2.75f);
  EXPECT_EQ(c[1], 0.5f + std::ldexp(1.0f, -23));
  const bf16 bb[4] = {{0x3F80}, {0x3F00}, {0xC000}, {0x3380}};  // 1, 0.5, -2, 2^-24
  k::gemm_tiled_bf16(c, 2, a, 2, bb, 2, bias, 1, 2, 2);
  EXPECT_EQ(c[0], -2.75f);
  EXPECT_EQ(c[1], 0.5f + std::ldexp(1.0f, -23));
}

TYPED_TEST(Kernels16, GemmEqualsTheFloatKernelOnTheWidenedMatrixAndTheReference) {
  using H = TypeParam;
  ap::Rng rng{7};
  // Every tail: rows 1 (matrix-vector), < 8 and >= 8 (packed panels), columns not multiples of 4 or
  // 8, depths across the 256-deep k-panel and the 16-row matrix-vector groups.
  for (int m : {1, 2, 5, 8, 13, 70})
    for (int kk : {1, 3, 16, 17, 257, 300})
      for (int n : {1, 4, 7, 8, 13, 33}) {
        SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(kk) + "x" + std::to_string(n));
        const auto a = random_floats(static_cast<size_t>(m) * kk, rng), bias = random_floats(n, rng);
        const auto b = random_16<H>(static_cast<size_t>(kk) * n, rng);
        const auto bf = widened(b);
        std::vector<float> c16(static_cast<size_t>(m) * n), c32(c16.size()), ref(c16.size()), abs_sum(c16.size());
        gemm16(c16.data(), n, a.data(), kk, b.data(), n, bias.data(), m, kk, n);
        k::gemm_tiled(c32.data(), n, a.data(), kk, bf.data(), n, bias.data(), m, kk, n);
        gemm16_ref(ref.data(), a.data(), b.data(), bias.data(), m, kk, n);
        int differ = 0;
        for (size_t i = 0; i < c16.size(); ++i) differ += !same_bits(c16[i], c32[i]);
        EXPECT_EQ(differ, 0) << "the 16-bit kernel is not the float kernel on the widened matrix";
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) {
            float s = std::fabs(bias[j]);
            for (int p = 0; p < kk; ++p) s += std::fabs(a[i * kk + p] * bf[p * n + j]);
            const float bound = 2.0f * (kk + 2) * kEps * s;
            ASSERT_LE(std::fabs(c16[i * n + j] - ref[i * n + j]), bound) << i << "," << j;
          }
      }
}

// B (k x n, row-major) laid out in column panels as gemm.hpp describes them, written out here from
// that description: panel j0 (a multiple of 32) holds columns j0 .. j0 + w - 1, w = min(32, n - j0),
// as k rows of w values, starting at j0 * k.
template <typename H>
std::vector<H> to_panels(const std::vector<H>& b, int kk, int n) {
  std::vector<H> out(b.size());
  for (int j0 = 0; j0 < n; j0 += 32) {
    const int w = n - j0 < 32 ? n - j0 : 32;
    for (int r = 0; r < kk; ++r)
      for (int c = 0; c < w; ++c)
        out[static_cast<size_t>(j0) * kk + static_cast<size_t>(r) * w + c] = b[static_cast<size_t>(r) * n + j0 + c];
  }
  return out;
}

void gemm16_panels(float* c, int ldc, const float* a, int lda, const f16* b, const float* bias, int m, int kk, int n,
                   bool acc) {
  k::gemm_panels_f16(c, ldc, a, lda, b, bias, m, kk, n, acc);
}
void gemm16_panels(float* c, int ldc, const float* a, int lda, const bf16* b, const float* bias, int m, int kk, int n,
                   bool acc) {
  k::gemm_panels_bf16(c, ldc, a, lda, b, bias, m, kk, n, acc);
}

TYPED_TEST(Kernels16, PanelledGemmIsTheRowMajorKernelBitForBit) {
  using H = TypeParam;
  ap::Rng rng{23};
  // Rows 1 (a decoding step: whole panels as strips, the narrower last panel by the row-major
  // matrix-vector code) and more (the tiles on each panel); widths below, at and across 32.
  for (int m : {1, 2, 9, 70})
    for (int kk : {1, 17, 300})
      for (int n : {1, 31, 32, 33, 70, 96})
        for (bool acc : {false, true}) {
          SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(kk) + "x" + std::to_string(n) + (acc ? " +=" : ""));
          const auto a = random_floats(static_cast<size_t>(m) * kk, rng), bias = random_floats(n, rng);
          const auto b = random_16<H>(static_cast<size_t>(kk) * n, rng);
          const auto c0 = random_floats(static_cast<size_t>(m) * n, rng);
          std::vector<float> rows = c0, panels = c0;
          gemm16(rows.data(), n, a.data(), kk, b.data(), n, acc ? nullptr : bias.data(), m, kk, n, acc);
          gemm16_panels(panels.data(), n, a.data(), kk, to_panels(b, kk, n).data(), acc ? nullptr : bias.data(), m, kk,
                        n, acc);
          int differ = 0;
          for (size_t i = 0; i < rows.size(); ++i) differ += !same_bits(rows[i], panels[i]);
          EXPECT_EQ(differ, 0);
        }
  // A decoding step with an activation too large for the unscaled F16 reads (|a| >= 2^16): the
  // scaled path, still the same bits.
  const int kk = 40, n = 70;
  auto a = random_floats(kk, rng);
  a[5] = 70000.0f;
  const auto b = random_16<H>(static_cast<size_t>(kk) * n, rng);
  std::vector<float> rows(n), panels(n);
  gemm16(rows.data(), n, a.data(), kk, b.data(), n, nullptr, 1, kk, n);
  gemm16_panels(panels.data(), n, a.data(), kk, to_panels(b, kk, n).data(), nullptr, 1, kk, n, false);
  for (int j = 0; j < n; ++j) EXPECT_TRUE(same_bits(rows[j], panels[j])) << j;
}

TYPED_TEST(Kernels16, GemmStridedAccumulateAddsOntoCAndLeavesOtherColumnsAlone) {
  using H = TypeParam;
  ap::Rng rng{11};
  // C columns 3..3+n of a (m, 40) buffer += A (m, k; lda 50) B (k, n; ldb 45), as a head's block.
  for (int m : {1, 6, 9}) {
    const int kk = 19, n = 13, ldc = 40, lda = 50, ldb = 45;
    const auto a = random_floats(static_cast<size_t>(m) * lda, rng);
    const auto b = random_16<H>(static_cast<size_t>(kk) * ldb, rng);
    const auto bf = widened(b);
    const auto c0 = random_floats(static_cast<size_t>(m) * ldc, rng);
    std::vector<float> c16 = c0, c32 = c0;
    gemm16(c16.data() + 3, ldc, a.data(), lda, b.data(), ldb, nullptr, m, kk, n, true);
    k::gemm_tiled(c32.data() + 3, ldc, a.data(), lda, bf.data(), ldb, nullptr, m, kk, n, true);
    int differ = 0;
    for (size_t i = 0; i < c16.size(); ++i) differ += !same_bits(c16[i], c32[i]);
    EXPECT_EQ(differ, 0) << m;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < ldc; ++j)
        if (j < 3 || j >= 3 + n) ASSERT_EQ(c16[i * ldc + j], c0[i * ldc + j]);
  }
}

TYPED_TEST(Kernels16, QkScoresEqualTheFloatKernelOnTheWidenedKeysAndTheReference) {
  using H = TypeParam;
  ap::Rng rng{13};
  // The tied head's shape in small: n query rows against m embedding rows of width d (ld = d + 3).
  // n > 2 widens each 4 keys once into a float panel for the row block (d <= 2048); d = 2051 keeps
  // the widening loads; d = 13 has an 8-wide step and both tails.
  for (int n : {1, 2, 3, 65, 130})
    for (int m : {1, 4, 9, 37})
      for (int d : {1, 4, 7, 13, 64, 2051}) {
        SCOPED_TRACE(std::to_string(n) + "x" + std::to_string(m) + "x" + std::to_string(d));
        const int ld = d + 3;
        const auto q = random_floats(static_cast<size_t>(n) * ld, rng);
        const auto kk = random_16<H>(static_cast<size_t>(m) * ld, rng);
        const auto kf = widened(kk);
        std::vector<float> s16(static_cast<size_t>(n) * m), s32(s16.size()), ref(s16.size());
        qk16(s16.data(), m, q.data(), ld, kk.data(), ld, n, m, d, 0.5f);
        k::qk_scores(s32.data(), m, q.data(), ld, kf.data(), ld, n, m, d, 0.5f);
        qk16_ref(ref.data(), m, q.data(), ld, kk.data(), ld, n, m, d, 0.5f);
        int differ = 0;
        for (size_t i = 0; i < s16.size(); ++i) differ += !same_bits(s16[i], s32[i]);
        EXPECT_EQ(differ, 0);
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < m; ++j) {
            float s = 0;
            for (int p = 0; p < d; ++p) s += std::fabs(q[i * ld + p] * kf[j * ld + p]);
            ASSERT_LE(std::fabs(s16[i * m + j] - ref[i * m + j]), 0.5f * 2.0f * (d + 2) * kEps * s) << i << "," << j;
          }
      }
}

// Keys (m x d, row-major) in key blocks as attention.hpp describes them, written out here from that
// description: whole blocks of 8 keys, each d / 8 steps of 8 values of key 0, 1, ... 7, then each
// key's last d % 8 values; the keys after the last whole block row-major.
template <typename H>
std::vector<H> to_key_blocks(const std::vector<H>& k, int m, int d) {
  std::vector<H> out(k);
  const int d8 = d / 8 * 8;
  for (int b = 0; b + 8 <= m; b += 8)
    for (int i = 0; i < 8; ++i)
      for (int c = 0; c < d; ++c) {
        const size_t to = static_cast<size_t>(b) * d +
                          (c < d8 ? static_cast<size_t>(c / 8) * 64 + i * 8 + c % 8
                                  : static_cast<size_t>(d8) * 8 + static_cast<size_t>(i) * (d - d8) + (c - d8));
        out[to] = k[static_cast<size_t>(b + i) * d + c];
      }
  return out;
}

void qk16_blocks(float* s, int lds, const float* q, int ldq, const f16* kk, int n, int m, int d, float alpha) {
  k::qk_scores_blocks_f16(s, lds, q, ldq, kk, d, n, m, d, alpha);
}
void qk16_blocks(float* s, int lds, const float* q, int ldq, const bf16* kk, int n, int m, int d, float alpha) {
  k::qk_scores_blocks_bf16(s, lds, q, ldq, kk, d, n, m, d, alpha);
}

TYPED_TEST(Kernels16, KeyBlockScoresAreTheRowMajorKernelBitForBit) {
  using H = TypeParam;
  ap::Rng rng{29};
  // One query row (a decoding step: whole blocks streamed), two, and more (4 keys of a block
  // widened into a float panel); keys below, at and past whole blocks; widths with 8-wide steps,
  // a 4-wide step and a tail, and beyond the panel (d = 2051).
  for (int n : {1, 2, 3, 65})
    for (int m : {1, 8, 9, 37})
      for (int d : {1, 4, 7, 13, 64, 2051}) {
        SCOPED_TRACE(std::to_string(n) + "x" + std::to_string(m) + "x" + std::to_string(d));
        const int ldq = d + 3;
        auto q = random_floats(static_cast<size_t>(n) * ldq, rng);
        const auto kk = random_16<H>(static_cast<size_t>(m) * d, rng);
        std::vector<float> rows(static_cast<size_t>(n) * m), blocks(rows.size());
        qk16(rows.data(), m, q.data(), ldq, kk.data(), d, n, m, d, 0.5f);
        qk16_blocks(blocks.data(), m, q.data(), ldq, to_key_blocks(kk, m, d).data(), n, m, d, 0.5f);
        int differ = 0;
        for (size_t i = 0; i < rows.size(); ++i) differ += !same_bits(rows[i], blocks[i]);
        EXPECT_EQ(differ, 0);
      }
  // A decoding step with a query too large for the unscaled F16 reads: the scaled path, the same bits.
  const int d = 16, m = 17;
  auto q = random_floats(d, rng);
  q[2] = -1.0e6f;
  const auto kk = random_16<H>(static_cast<size_t>(m) * d, rng);
  std::vector<float> rows(m), blocks(m);
  qk16(rows.data(), m, q.data(), d, kk.data(), d, 1, m, d, 1.0f);
  qk16_blocks(blocks.data(), m, q.data(), d, to_key_blocks(kk, m, d).data(), 1, m, d, 1.0f);
  for (int j = 0; j < m; ++j) EXPECT_TRUE(same_bits(rows[j], blocks[j])) << j;
}

TEST(Kernels16Gemm, LargeActivationsKeepTheScaledWidening) {
  // A decoding step reads F16 weights as 2^-112 times their floats against activations times 2^112
  // (simd4.hpp's load8_unscaled), only while every |a| < 2^16. Here a = 70000 (and an infinity):
  // 70000 * 2^112 would overflow, so the kernel must take the scaled path and still give the float
  // kernel's bits: 70000 * 65504 = 4585280000 exactly in float's range (a hand check below).
  const int kk = 19, n = 21;
  ap::Rng rng{17};
  auto a = random_floats(kk, rng);
  auto b = random_16<f16>(static_cast<size_t>(kk) * n, rng);
  a[3] = 70000.0f;
  b[3 * n + 5] = f16{0x7BFF};  // 65504
  for (int trial = 0; trial < 2; ++trial) {
    if (trial == 1) a[7] = std::numeric_limits<float>::infinity();
    const auto bf = widened(b);
    std::vector<float> c16(n), c32(n);
    k::gemm_tiled_f16(c16.data(), n, a.data(), kk, b.data(), n, nullptr, 1, kk, n);
    k::gemm_tiled(c32.data(), n, a.data(), kk, bf.data(), n, nullptr, 1, kk, n);
    for (int j = 0; j < n; ++j)
      EXPECT_TRUE(same_bits(c16[j], c32[j]) || (std::isnan(c16[j]) && std::isnan(c32[j]))) << j;
  }
  EXPECT_EQ(70000.0f * 65504.0f, 4585280000.0f);
  // The tied head's decoding step (one query row, d = 16): the same rule.
  const int d = 16, m = 9;
  auto q = random_floats(d, rng);
  q[2] = -1.0e6f;
  const auto keys = random_16<f16>(static_cast<size_t>(m) * d, rng);
  const auto kf = widened(keys);
  std::vector<float> s16(m), s32(m);
  k::qk_scores_f16(s16.data(), m, q.data(), d, keys.data(), d, 1, m, d, 1.0f);
  k::qk_scores(s32.data(), m, q.data(), d, kf.data(), d, 1, m, d, 1.0f);
  for (int j = 0; j < m; ++j) EXPECT_TRUE(same_bits(s16[j], s32[j])) << j;
  for (int j = 0; j < m; ++j) EXPECT_TRUE(std::isfinite(s16[j])) << j;
}
