// A native runner of the benchmark, driven by tests/tools/bench.mjs over stdin/stdout with the same
// JSON-lines protocol as tests/bench/node-runner.mjs. Built (tests/bench/build.mjs) as:
//   Eigen attention at its best (-DAP_BENCH_EIGEN default), with -march=native or with -msse4.2
//   this project's kernels (-DAP_BENCH_KERNELS): ap::kernels::attention_forward, the online softmax
// Inputs are the same seeded values as cases.mjs attentionInputs(), so checksums agree with the
// JS and wasm runners.
#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocol.hpp"

#if defined(AP_BENCH_KERNELS)
#include "kernels/attention.hpp"
#endif

namespace {

using bench::json;
using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<>;
using CHeadMap = Eigen::Map<const Mat, 0, Stride>;  // one head's (rows, d_k) columns in place
using HeadMap = Eigen::Map<Mat, 0, Stride>;

struct Case {
  std::string kind;
  int n = 0, h = 1, d_k = 64;
  bool causal = false;
};

// mulberry32 and the [-1, 1) mapping of cases.mjs, bit for bit.
std::vector<float> uniform(size_t count, uint32_t seed) {
  std::vector<float> out(count);
  uint32_t a = seed;
  for (auto& x : out) {
    a += 0x6d2b79f5u;
    uint32_t t = (a ^ (a >> 15)) * (1u | a);
    t = (t + (t ^ (t >> 7)) * (61u | t)) ^ t;
    t ^= t >> 14;
    x = static_cast<float>((t >> 8) / 16777216.0 * 2.0 - 1.0);
  }
  return out;
}

json checksum(const std::vector<float>& out) {
  double sum = 0.0, abs = 0.0;
  for (size_t i = 0; i < out.size(); ++i) {
    const double term = static_cast<double>(static_cast<int64_t>(i) * 7919 % 13 - 6) * out[i];
    sum += term;
    abs += std::fabs(term);
  }
  return {{"sum", sum}, {"abs", abs}};
}

#if !defined(AP_BENCH_KERNELS)
// Eigen at its best: Q scaled before the product (n*d_k multiplies, not n*m), one GEMM for the
// scores, Eigen's vectorised exp, one GEMM with V. Causal: queries in blocks of 128 rows, each
// block multiplied only with the keys it can see (up to its last row), the diagonal block masked.
// That skips all but about 128 n of the n^2/2 hidden scores with full-speed GEMMs; it measured
// faster here than Eigen's triangular products (triangularView) and than masking the full matrix.
struct EigenAttention {
  static constexpr int kBlock = 128;
  Mat q_scaled, scores;  // (n, d_k), (rows, keys)

  // scores (rows, keys) -> softmax per row, in place; row r of the block sees keys <= first + r
  // when causal.
  void softmax_rows(int rows, int keys, int first, bool causal) {
    if (causal)
      for (int r = 0; r < rows; ++r)
        if (first + r + 1 < keys)
          scores.row(r)
              .segment(first + r + 1, keys - first - r - 1)
              .setConstant(-std::numeric_limits<float>::infinity());
    Eigen::VectorXf mx = scores.topLeftCorner(rows, keys).rowwise().maxCoeff();
    scores.topLeftCorner(rows, keys) =
        (scores.topLeftCorner(rows, keys).colwise() - mx).array().exp().matrix();  // never overflows
    Eigen::VectorXf sum = scores.topLeftCorner(rows, keys).rowwise().sum();
    scores.topLeftCorner(rows, keys).array().colwise() /= sum.array();
  }

  void operator()(float* out, const float* q, const float* k, const float* v, int n, int d_k, int h, bool causal) {
    const int ld = h * d_k;
    const float alpha = 1.0f / std::sqrt(static_cast<float>(d_k));
    for (int hd = 0; hd < h; ++hd) {
      CHeadMap Q(q + hd * d_k, n, d_k, Stride(ld)), K(k + hd * d_k, n, d_k, Stride(ld)),
          V(v + hd * d_k, n, d_k, Stride(ld));
      HeadMap O(out + hd * d_k, n, d_k, Stride(ld));
      q_scaled.noalias() = Q * alpha;
      if (!causal) {
        scores.resize(n, n);
        scores.noalias() = q_scaled * K.transpose();  // (n, n) = (n, d_k)(d_k, n)
        softmax_rows(n, n, 0, false);
        O.noalias() = scores * V;  // (n, d_k) = (n, n)(n, d_k)
        continue;
      }
      scores.resize(std::min(n, kBlock), n);
      for (int i0 = 0; i0 < n; i0 += kBlock) {
        const int rows = std::min(kBlock, n - i0), keys = i0 + rows;  // keys this block can see
        scores.topLeftCorner(rows, keys).noalias() =
            q_scaled.middleRows(i0, rows) * K.topRows(keys).transpose();  // (rows, keys)
        softmax_rows(rows, keys, i0, true);
        O.middleRows(i0, rows).noalias() = scores.topLeftCorner(rows, keys) * V.topRows(keys);  // (rows, d_k)
      }
    }
  }
};
#endif

struct Runner {
  Case c;
  std::vector<float> q, k, v, out;
#if !defined(AP_BENCH_KERNELS)
  EigenAttention eigen;
#endif

  void call() {
#if defined(AP_BENCH_KERNELS)
    ap::kernels::attention_forward(out.data(), q.data(), k.data(), v.data(), c.n, c.n, c.d_k, c.h, c.causal, true);
#else
    eigen(out.data(), q.data(), k.data(), v.data(), c.n, c.d_k, c.h, c.causal);
#endif
  }

  json info() const {
#if defined(AP_BENCH_KERNELS)
    return {{"variant", std::string(ap::kernels::variant()) + " kernels, g++ native"}};
#else
    std::string isa = Eigen::SimdInstructionSetsInUse();
    return {{"variant", "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
                            "." + std::to_string(EIGEN_MINOR_VERSION) + " (" + isa + ")"}};
#endif
  }

  json supports(const Case& x) const {
    if (x.kind == "attn") return true;
#if defined(AP_BENCH_KERNELS)
    if (x.kind == "long") return true;
#endif
    return "not run for " + x.kind + " cases";
  }

  json prepare(const Case& x) {
    c = x;
    const size_t size = static_cast<size_t>(c.n) * c.h * c.d_k;
    q = uniform(size, 1);
    k = uniform(size, 2);
    v = uniform(size, 3);
    out.assign(size, 0.0f);
    if (c.kind == "long") return {{"checksum", nullptr}};
    call();
    return {{"checksum", checksum(out)}};
  }

  json run(int reps) {
    json result = bench::timed(reps, [&] { call(); });
    if (c.kind == "long") result["checksum"] = checksum(out);
    return result;
  }
};

}  // namespace

int main() {
  Runner runner;
  return bench::serve([&](const std::string& op, const json& msg) -> json {
    auto read_case = [&] {
      const json& j = msg.at("case");
      Case x;
      x.kind = j.at("kind");
      x.n = j.at("n");
      x.h = j.value("h", 1);
      x.d_k = j.value("dK", 64);
      x.causal = j.value("causal", false);
      return x;
    };
    if (op == "init") return runner.info();
    if (op == "supports") return runner.supports(read_case());
    if (op == "prepare") return runner.prepare(read_case());
    if (op == "run") return runner.run(msg.at("reps"));
    if (op == "release") {
      runner.q = runner.k = runner.v = runner.out = {};
      return nullptr;
    }
    throw std::runtime_error("unknown op " + op);
  });
}
