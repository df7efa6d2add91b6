// libFuzzer target: the attention kernels (online softmax, full matrix, double reference) and the
// traced multi_head_attention on fuzzed sizes, masks and values (huge, tiny, denormal, +-0).
// Invariants that need no second implementation to check them:
//   - every output is finite when every input is finite and |value| <= 1e4;
//   - an attention output is a convex combination of value rows, so each output element lies
//     between that column's min and max over the keys the query sees (0 when it sees none);
//   - traced weights rows are >= 0 and sum to 1, or are all 0 when every key is masked;
//   - with moderate scores the fast kernels agree with the double-precision reference.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/tensor.hpp"
#include "core/attention.hpp"
#include "kernels/attention.hpp"
#include "trace/trace.hpp"

namespace {

#define CHECK(cond)                \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

// A value from one of a few regimes, so the fuzzer reaches extremes quickly.
float pick_value(FuzzedDataProvider& in, float bound) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:
      return in.ConsumeFloatingPointInRange<float>(-1.0f, 1.0f);
    case 1:
      return in.ConsumeBool() ? bound : -bound;  // saturating scores
    case 2:
      return in.ConsumeFloatingPointInRange<float>(-1e-38f, 1e-38f) * 1e-2f;  // denormals
    case 3:
      return in.ConsumeBool() ? 0.0f : -0.0f;
    case 4:
      return static_cast<float>(in.ConsumeIntegralInRange<int>(-4, 4));
    default:
      return in.ConsumeFloatingPointInRange<float>(-bound, bound);
  }
}

std::vector<float> values(FuzzedDataProvider& in, size_t count, float bound) {
  std::vector<float> out(count);
  for (float& x : out) x = pick_value(in, bound);
  return out;
}

bool sees(bool causal, int i, int j, int n, int m) { return !causal || j <= i + (m - n); }

// Each output element must lie in the span of the values the query attends to.
void check_convex(const std::vector<float>& out, const std::vector<float>& v, int n, int m, int width, bool causal) {
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < width; ++c) {
      float lo = INFINITY, hi = -INFINITY;
      for (int j = 0; j < m; ++j)
        if (sees(causal, i, j, n, m)) {
          lo = std::min(lo, v[static_cast<size_t>(j) * width + c]);
          hi = std::max(hi, v[static_cast<size_t>(j) * width + c]);
        }
      const float o = out[static_cast<size_t>(i) * width + c];
      CHECK(std::isfinite(o));
      if (lo > hi) {
        CHECK(o == 0.0f);  // a query that sees no key: zero output by definition
      } else {
        const float slack = 1e-5f * std::max(std::fabs(lo), std::fabs(hi)) + 1e-30f;
        CHECK(o >= lo - slack && o <= hi + slack);
      }
    }
}

void fuzz_kernels(FuzzedDataProvider& in) {
  const int n = in.ConsumeIntegralInRange<int>(1, 12);
  const int m = in.ConsumeIntegralInRange<int>(1, 12);
  const int d_k = in.ConsumeIntegralInRange<int>(1, 9);
  const int h = in.ConsumeIntegralInRange<int>(1, 3);
  const bool causal = in.ConsumeBool(), scale = in.ConsumeBool();
  const bool moderate = in.ConsumeBool();
  const float bound = moderate ? 2.0f : 1e4f;
  const int width = h * d_k;
  const std::vector<float> q = values(in, static_cast<size_t>(n) * width, bound);
  const std::vector<float> k = values(in, static_cast<size_t>(m) * width, bound);
  const std::vector<float> v = values(in, static_cast<size_t>(m) * width, 1e4f);

  std::vector<float> online(static_cast<size_t>(n) * width), full(online.size()), ref(online.size());
  ap::kernels::attention_forward(online.data(), q.data(), k.data(), v.data(), n, m, d_k, h, causal, scale);
  ap::kernels::attention_forward_full(full.data(), q.data(), k.data(), v.data(), n, m, d_k, h, causal, scale);
  ap::kernels::attention_forward_ref(ref.data(), q.data(), k.data(), v.data(), n, m, d_k, h, causal, scale);
  for (int hd = 0; hd < h; ++hd) {
    // Per head the span check looks at that head's columns only; reuse check_convex on a copy.
    std::vector<float> o1(static_cast<size_t>(n) * d_k), o2(o1.size()), vh(static_cast<size_t>(m) * d_k);
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < d_k; ++c) {
        o1[static_cast<size_t>(i) * d_k + c] = online[static_cast<size_t>(i) * width + hd * d_k + c];
        o2[static_cast<size_t>(i) * d_k + c] = full[static_cast<size_t>(i) * width + hd * d_k + c];
      }
    for (int j = 0; j < m; ++j)
      for (int c = 0; c < d_k; ++c)
        vh[static_cast<size_t>(j) * d_k + c] = v[static_cast<size_t>(j) * width + hd * d_k + c];
    check_convex(o1, vh, n, m, d_k, causal);
    check_convex(o2, vh, n, m, d_k, causal);
  }
  if (moderate) {
    // |q.k| <= 9 * 4 = 36: float scores are accurate to ~1e-5, so the weights agree to ~1e-4.
    float vmax = 0.0f;
    for (float x : v) vmax = std::max(vmax, std::fabs(x));
    for (size_t i = 0; i < ref.size(); ++i) {
      CHECK(std::fabs(online[i] - ref[i]) <= 1e-3f * vmax + 1e-30f);
      CHECK(std::fabs(full[i] - ref[i]) <= 1e-3f * vmax + 1e-30f);
    }
  }
}

void fuzz_traced(FuzzedDataProvider& in) {
  const int h = in.ConsumeIntegralInRange<int>(1, 3);
  const int d = h * in.ConsumeIntegralInRange<int>(1, 4);
  const int n = in.ConsumeIntegralInRange<int>(1, 8);
  const bool cross = in.ConsumeBool();
  const int m = cross ? in.ConsumeIntegralInRange<int>(1, 8) : n;
  ap::AttentionWeights w;
  auto square = [&](float bound) {
    ap::Mat a(d, d);
    for (int i = 0; i < a.size(); ++i) a.data()[i] = pick_value(in, bound);
    return a;
  };
  // |x| <= 100 and |W| <= 10 keep every product below 1e4 * d: large scores, no overflow.
  w.wq = square(10.0f);
  w.wk = square(10.0f);
  w.wv = square(10.0f);
  w.wo = square(10.0f);
  ap::Mat x(n, d), mem(m, d);
  for (int i = 0; i < x.size(); ++i) x.data()[i] = pick_value(in, 100.0f);
  for (int i = 0; i < mem.size(); ++i) mem.data()[i] = pick_value(in, 100.0f);
  std::vector<uint8_t> pad;
  ap::AttentionOptions opt;
  opt.n_heads = h;
  opt.causal = in.ConsumeBool();
  opt.scale = in.ConsumeBool();
  if (in.ConsumeBool()) {
    for (int j = 0; j < m; ++j) pad.push_back(in.ConsumeBool() ? 1 : 0);
    opt.key_padding = &pad;
  }
  ap::Trace trace;
  ap::Mat out;
  ap::multi_head_attention(out, x, cross ? mem : x, w, opt, &trace);
  for (const ap::Stage& s : trace.stages())
    if (s.name != "masked")  // masked holds -inf on purpose
      for (float value : s.data) CHECK(std::isfinite(value));
  const ap::Stage* weights = trace.find("weights");
  CHECK(weights != nullptr);
  for (int hd = 0; hd < h; ++hd)
    for (int i = 0; i < n; ++i) {
      bool any_visible = false;
      for (int j = 0; j < m; ++j)
        any_visible |= !(opt.causal && j > i) && !(opt.key_padding && pad[static_cast<size_t>(j)]);
      double sum = 0.0;
      for (int j = 0; j < m; ++j) {
        const float a = weights->data[(static_cast<size_t>(hd) * n + i) * m + j];
        CHECK(a >= 0.0f);
        sum += a;
      }
      CHECK(any_visible ? std::fabs(sum - 1.0) <= 1e-5 : sum == 0.0);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  try {
    if (in.ConsumeBool())
      fuzz_kernels(in);
    else
      fuzz_traced(in);
  } catch (const ap::Error&) {
  }
  return 0;
}
