// The thread pool (kernels/parallel.hpp) and the kernels' split over independent outputs
// (kernels/dispatch.cpp, core/attention.cpp's heads): every result with 2 or 3 threads is the
// one-thread result bit for bit, on shapes big enough to be split, with tails of every tile size.
// The same file runs natively (std::thread) and in the single-thread wasm test module, where
// threads() is 1 and the comparison is one thread against itself (the pthreads module's numbers
// are checked against the single-thread module's in tests/wasm/threads.test.js).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/half.hpp"
#include "base/rng.hpp"
#include "core/attention.hpp"
#include "kernels/attention.hpp"
#include "kernels/gemm.hpp"
#include "kernels/parallel.hpp"

namespace k = ap::kernels;

namespace {

std::vector<float> random_vec(size_t count, ap::Rng& rng) {
  std::vector<float> v(count);
  for (auto& x : v) x = static_cast<float>(2.0 * rng.unit() - 1.0);
  return v;
}

// Runs f(out) with 1 thread, then with each count in `more`, and expects the same bytes.
template <class F>
void expect_same_for_threads(size_t out_size, F&& f, const char* what) {
  k::set_threads(1);
  std::vector<float> one(out_size, -7.0f);
  f(one.data());
  for (int t : {2, 3}) {
    const int used = k::set_threads(t);
    std::vector<float> many(out_size, -7.0f);
    f(many.data());
    EXPECT_EQ(std::memcmp(one.data(), many.data(), out_size * sizeof(float)), 0)
        << what << " with " << used << " threads differs from 1 thread";
  }
  k::set_threads(1);
}

TEST(Parallel, SplitCoversTheRangeOnAlignedBoundaries) {
  for (int total : {1, 7, 64, 65, 1000})
    for (int parts : {1, 2, 3, 8})
      for (int align : {1, 4, 32}) {
        EXPECT_EQ(k::split_at(total, parts, align, 0), 0);
        EXPECT_EQ(k::split_at(total, parts, align, parts), total);
        for (int t = 1; t < parts; ++t) {
          const int at = k::split_at(total, parts, align, t);
          EXPECT_LE(k::split_at(total, parts, align, t - 1), at);
          EXPECT_TRUE(at == total || at % align == 0) << total << " " << parts << " " << align << " " << t;
        }
      }
}

TEST(Parallel, EveryTaskRunsOnceWhateverTheThreads) {
  for (int t : {1, 2, 3}) {
    k::set_threads(t);
    std::vector<std::atomic<int>> ran(37);
    k::parallel_for(37, [&](int i) { ran[static_cast<size_t>(i)].fetch_add(1); });
    for (auto& r : ran) EXPECT_EQ(r.load(), 1);
  }
  k::set_threads(1);
}

TEST(Parallel, ThreadCountIsClamped) {
  EXPECT_EQ(k::set_threads(0), 1);
  EXPECT_EQ(k::threads(), 1);
  EXPECT_EQ(k::set_threads(100000), k::max_threads());
  EXPECT_GE(k::max_threads(), 1);
  k::set_threads(1);
}

TEST(Parallel, GemmSameNumbersForAnyThreadCount) {
  ap::Rng rng(11);
  // (m, k, n): row splits with row tails, the column split of a decoding step (m = 1, GPT-2's QKV
  // and MLP shapes), few rows over many columns, a k beyond one 256-deep panel, bias and accumulate.
  const int shapes[][3] = {{1, 768, 2304}, {1, 3072, 101}, {3, 300, 1000}, {133, 70, 129}, {64, 513, 64}, {257, 64, 9}};
  for (const auto& s : shapes) {
    const int m = s[0], kk = s[1], n = s[2];
    const auto a = random_vec(static_cast<size_t>(m) * kk, rng), b = random_vec(static_cast<size_t>(kk) * n, rng);
    const auto bias = random_vec(static_cast<size_t>(n), rng), init = random_vec(static_cast<size_t>(m) * n, rng);
    for (int mode = 0; mode < 2; ++mode)
      expect_same_for_threads(
          static_cast<size_t>(m) * n,
          [&](float* c) {
            if (mode == 1) std::memcpy(c, init.data(), init.size() * sizeof(float));
            k::gemm_tiled(c, n, a.data(), kk, b.data(), n, mode == 0 ? bias.data() : nullptr, m, kk, n, mode == 1);
          },
          "gemm_tiled");
  }
}

// 16-bit weights (F16 and BF16 bit patterns of finite values near 1 in size): the kernels that widen
// them split by column panels first (kernels/dispatch.cpp); still the one-thread bits.
std::vector<uint16_t> random_16bit(size_t count, ap::Rng& rng, bool bf16) {
  std::vector<uint16_t> v(count);
  for (auto& h : v) {
    const auto r = static_cast<uint32_t>(rng.unit() * 4294967296.0);
    h = bf16 ? static_cast<uint16_t>((r & 0x807fu) | ((120u + (r >> 7) % 8u) << 7))
             : static_cast<uint16_t>((r & 0x83ffu) | ((10u + (r >> 10) % 6u) << 10));
  }
  return v;
}

TEST(Parallel, SixteenBitGemmAndScoresSameNumbersForAnyThreadCount) {
  ap::Rng rng(15);
  const int shapes[][3] = {{1, 768, 2304}, {64, 300, 1000}, {133, 70, 129}, {257, 64, 9}};
  for (bool bf : {false, true})
    for (const auto& s : shapes) {
      const int m = s[0], kk = s[1], n = s[2];
      const auto a = random_vec(static_cast<size_t>(m) * kk, rng), bias = random_vec(static_cast<size_t>(n), rng);
      const auto b = random_16bit(static_cast<size_t>(kk) * n, rng, bf);
      expect_same_for_threads(
          static_cast<size_t>(m) * n,
          [&](float* c) {
            if (bf)
              k::gemm_tiled_bf16(c, n, a.data(), kk, reinterpret_cast<const ap::bf16*>(b.data()), n, bias.data(), m, kk,
                                 n);
            else
              k::gemm_tiled_f16(c, n, a.data(), kk, reinterpret_cast<const ap::f16*>(b.data()), n, bias.data(), m, kk,
                                n);
          },
          bf ? "gemm_tiled_bf16" : "gemm_tiled_f16");
    }
  // Linear weights in column panels (gemm.hpp; the values' layout does not matter for this check):
  // split over whole panels, a decoding step's and a prompt's shapes, with a narrower last panel.
  const int panelled[][3] = {{1, 768, 2304}, {1, 3072, 790}, {64, 300, 1000}};
  for (bool bf : {false, true})
    for (const auto& s : panelled) {
      const int m = s[0], kk = s[1], n = s[2];
      const auto a = random_vec(static_cast<size_t>(m) * kk, rng), bias = random_vec(static_cast<size_t>(n), rng);
      const auto b = random_16bit(static_cast<size_t>(kk) * n, rng, bf);
      expect_same_for_threads(
          static_cast<size_t>(m) * n,
          [&](float* c) {
            if (bf)
              k::gemm_panels_bf16(c, n, a.data(), kk, reinterpret_cast<const ap::bf16*>(b.data()), bias.data(), m, kk,
                                  n);
            else
              k::gemm_panels_f16(c, n, a.data(), kk, reinterpret_cast<const ap::f16*>(b.data()), bias.data(), m, kk, n);
          },
          bf ? "gemm_panels_bf16" : "gemm_panels_f16");
    }
  // The tied head: query rows against many 16-bit embedding rows, row-major and in key blocks
  // (attention.hpp: parts start where a block does).
  const int heads[][3] = {{1, 5003, 64}, {64, 2000, 96}, {7, 3001, 40}, {64, 2001, 96}};  // n, m, d
  for (bool blocks : {false, true})
    for (bool bf : {false, true})
      for (const auto& s : heads) {
        const int n = s[0], m = s[1], d = s[2];
        const auto q = random_vec(static_cast<size_t>(n) * d, rng);
        const auto e = random_16bit(static_cast<size_t>(m) * d, rng, bf);
        const auto* e16 = reinterpret_cast<const ap::f16*>(e.data());
        const auto* eb16 = reinterpret_cast<const ap::bf16*>(e.data());
        expect_same_for_threads(
            static_cast<size_t>(n) * m,
            [&](float* out) {
              if (bf)
                (blocks ? k::qk_scores_blocks_bf16 : k::qk_scores_bf16)(out, m, q.data(), d, eb16, d, n, m, d, 1.0f);
              else
                (blocks ? k::qk_scores_blocks_f16 : k::qk_scores_f16)(out, m, q.data(), d, e16, d, n, m, d, 1.0f);
            },
            blocks ? "qk_scores_blocks" : "qk_scores (16-bit)");
      }
}

TEST(Parallel, ScoresAndSoftmaxSameNumbersForAnyThreadCount) {
  ap::Rng rng(12);
  const int shapes[][3] = {{1, 5003, 64}, {100, 100, 64}, {5, 2000, 48}};  // n, m, d_k
  for (const auto& s : shapes) {
    const int n = s[0], m = s[1], d = s[2];
    const auto q = random_vec(static_cast<size_t>(n) * d, rng), kv = random_vec(static_cast<size_t>(m) * d, rng);
    expect_same_for_threads(
        static_cast<size_t>(n) * m,
        [&](float* out) { k::qk_scores(out, m, q.data(), d, kv.data(), d, n, m, d, 0.125f); }, "qk_scores");
  }
  const int n = 301, m = 333;
  const auto in = random_vec(static_cast<size_t>(n) * m, rng);
  expect_same_for_threads(
      static_cast<size_t>(n) * m, [&](float* out) { k::softmax_rows(out, m, in.data(), m, n, m); }, "softmax_rows");
}

TEST(Parallel, AttentionSameNumbersForAnyThreadCount) {
  ap::Rng rng(13);
  struct Case {
    int n, m, d_k, heads;
    bool causal;
    int window;
  };
  // Unmasked; causal with n == m, more keys (a cache), fewer keys (leading queries see none); a
  // sliding window; n not a multiple of the 32-query block; several heads.
  const Case cases[] = {{256, 256, 64, 1, false, 0}, {200, 200, 64, 1, true, 0},  {97, 300, 32, 2, true, 0},
                        {300, 90, 32, 1, true, 0},   {333, 333, 64, 1, true, 40}, {130, 130, 16, 3, false, 0}};
  for (const auto& c : cases) {
    const int ld = c.heads * c.d_k;
    const auto q = random_vec(static_cast<size_t>(c.n) * ld, rng);
    const auto kk = random_vec(static_cast<size_t>(c.m) * ld, rng), v = random_vec(static_cast<size_t>(c.m) * ld, rng);
    expect_same_for_threads(
        static_cast<size_t>(c.n) * ld,
        [&](float* out) {
          k::attention_forward(out, q.data(), kk.data(), v.data(), c.n, c.m, c.d_k, c.heads, c.causal, true, c.window);
        },
        "attention_forward");
  }
}

TEST(Parallel, MultiHeadAttentionSameTraceForAnyThreadCount) {
  ap::Rng rng(14);
  const int n = 64, d = 64, h = 4;
  auto mat = [&](int r, int c) {
    ap::Mat x(r, c);
    for (int i = 0; i < r; ++i)
      for (int j = 0; j < c; ++j) x(i, j) = static_cast<float>(0.3 * (2.0 * rng.unit() - 1.0));
    return x;
  };
  ap::AttentionWeights w{mat(d, d), mat(d, d), mat(d, d), mat(d, d), {}, {}, {}, {}};
  const ap::Mat x = mat(n, d);
  ap::AttentionOptions opt;
  opt.n_heads = h;
  opt.causal = true;
  std::vector<std::string> names;
  std::vector<std::vector<float>> first;
  for (int t : {1, 2}) {
    k::set_threads(t);
    ap::Trace tr;
    ap::Mat out;
    ap::multi_head_attention(out, x, x, w, opt, &tr);
    int i = 0;
    for (const char* name : {"scores", "weights", "head_out", "concat", "attn_out"}) {
      const ap::Stage* s = tr.find(name);
      ASSERT_NE(s, nullptr) << name;
      if (t == 1) {
        first.push_back(s->data);
      } else {
        EXPECT_EQ(s->data, first[static_cast<size_t>(i)]) << name << " with 2 threads differs from 1 thread";
      }
      ++i;
    }
  }
  k::set_threads(1);
}

}  // namespace
