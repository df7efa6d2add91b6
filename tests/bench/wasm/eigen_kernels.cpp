// The kernel API of cpp/kernels/{gemm,attention}.hpp written with plain Eigen, for the benchmark's
// "Eigen in wasm without the hand-written kernels" build: tests/bench/build.mjs compiles the core
// with this file in place of cpp/kernels/*.cpp, so the same model code runs on Eigen 3.4 alone
// (which has no WASM SIMD path: with -msimd128 it gets only the compiler's auto-vectorisation).
// Straightforward Eigen, the way the core would be written without the kernels.
#include <cmath>
#include <limits>
#include <vector>

#include "base/tensor.hpp"
#include "kernels/attention.hpp"
#include "kernels/convert.hpp"
#include "kernels/gemm.hpp"

namespace ap::kernels {
namespace {

using Stride = Eigen::OuterStride<>;
using StridedMap = Eigen::Map<Mat, 0, Stride>;
using CStridedMap = Eigen::Map<const Mat, 0, Stride>;

}  // namespace

const char* variant() { return "eigen"; }

void gemm(float* c, const float* a, const float* b, const float* bias, int m, int k, int n) {
  MatMap C(c, m, n);
  C.noalias() = CMatMap(a, m, k) * CMatMap(b, k, n);  // (m, n) = (m, k)(k, n)
  if (bias) C.rowwise() += Eigen::Map<const Vec>(bias, n);
}

void gemm_tiled(float* c, int ldc, const float* a, int lda, const float* b, int ldb, const float* bias, int m, int k,
                int n, bool accumulate) {
  StridedMap C(c, m, n, Stride(ldc));
  CStridedMap A(a, m, k, Stride(lda)), B(b, k, n, Stride(ldb));
  if (accumulate)
    C.noalias() += A * B;  // (m, n) += (m, k)(k, n)
  else {
    C.noalias() = A * B;
    if (bias) C.rowwise() += Eigen::Map<const Vec>(bias, n);
  }
}

void qk_scores(float* scores, int ld_s, const float* q, int ld_q, const float* k, int ld_k, int n, int m, int d_k,
               float alpha) {
  StridedMap S(scores, n, m, Stride(ld_s));
  S.noalias() = CStridedMap(q, n, d_k, Stride(ld_q)) * CStridedMap(k, m, d_k, Stride(ld_k)).transpose();  // (n, m)
  if (alpha != 1.0f) S *= alpha;
}

void mask_causal(float* scores, int ld_s, int n, int m, int window) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < n; ++i) {
    float* row = scores + static_cast<long>(i) * ld_s;
    for (int j = i + (m - n) + 1 < 0 ? 0 : i + (m - n) + 1; j < m; ++j) row[j] = neg_inf;
    // Sliding window: keys j <= i + (m - n) - window are out of sight too.
    if (window > 0)
      for (int j = 0; j <= i + (m - n) - window && j < m; ++j) row[j] = neg_inf;
  }
}

void softmax_rows(float* out, int ld_out, const float* in, int ld_in, int n, int m) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  StridedMap O(out, n, m, Stride(ld_out));
  CStridedMap I(in, n, m, Stride(ld_in));
  for (int i = 0; i < n; ++i) {
    const float mx = I.row(i).maxCoeff();
    if (mx == neg_inf) {
      O.row(i).setZero();
      continue;
    }
    O.row(i) = (I.row(i).array() - mx).exp().matrix();  // e^(s - max): never overflows
    O.row(i) /= O.row(i).sum();
  }
}

void weights_v(float* out, int ld_out, const float* weights, int ld_w, const float* v, int ld_v, int n, int m,
               int d_k) {
  StridedMap(out, n, d_k, Stride(ld_out)).noalias() =
      CStridedMap(weights, n, m, Stride(ld_w)) * CStridedMap(v, m, d_k, Stride(ld_v));  // (n, d_k)
}

void exp_vec(float* out, const float* in, int n) {
  for (int i = 0; i < n; ++i) out[i] = std::exp(in[i]);
}

// GPT-2's tanh GELU as x / (1 + e^(-2u)), with Eigen's vectorised exp.
void gelu_tanh_vec(float* out, const float* in, int n) {
  Eigen::Map<const Eigen::ArrayXf> x(in, n);
  const Eigen::ArrayXf u = 0.7978845608028654f * (x + 0.044715f * x * x * x);
  Eigen::Map<Eigen::ArrayXf>(out, n) = x / (1.0f + (-2.0f * u).exp());
}

void attention_forward_full(float* out, const float* q, const float* k, const float* v, int n, int m, int d_k,
                            int n_heads, bool causal, bool scale, int window) {
  const int ld = n_heads * d_k;
  const float alpha = scale ? 1.0f / std::sqrt(static_cast<float>(d_k)) : 1.0f;
  std::vector<float> s(static_cast<size_t>(n) * m);  // (n, m) scores, then weights
  for (int h = 0; h < n_heads; ++h) {
    qk_scores(s.data(), m, q + h * d_k, ld, k + h * d_k, ld, n, m, d_k, alpha);
    if (causal) mask_causal(s.data(), m, n, m, window);
    softmax_rows(s.data(), m, s.data(), m, n, m);
    weights_v(out + h * d_k, ld, s.data(), m, v + h * d_k, ld, n, m, d_k);
  }
}

// Eigen has no online-softmax formulation: the Eigen build answers with the full matrix.
void attention_forward(float* out, const float* q, const float* k, const float* v, int n, int m, int d_k, int n_heads,
                       bool causal, bool scale, int window) {
  attention_forward_full(out, q, k, v, n, m, d_k, n_heads, causal, scale, window);
}

// ---- weights kept at 16 bits (core/weight.hpp) --------------------------------------------------
// The benchmark's models are float32; these entry points let the core link, and compute what the
// hand-written kernels compute: the 16-bit matrix widened to float (in its row-major order, from
// whichever layout it is in), then the Eigen products above.
namespace {
float widen(f16 h) { return half_to_float(h.bits); }
float widen(bf16 h) { return bf16_to_float(h); }

// rows x cols row-major floats from a 16-bit matrix with leading dimension ld.
template <typename H>
std::vector<float> widened(const H* p, int rows, int cols, int ld) {
  std::vector<float> out(static_cast<size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[static_cast<size_t>(r) * cols + c] = widen(p[static_cast<long>(r) * ld + c]);
  return out;
}

// (k x n) row-major floats from column panels of kPanel (gemm.hpp).
template <typename H>
std::vector<float> from_panels(const H* p, int k, int n) {
  std::vector<float> out(static_cast<size_t>(k) * n);
  for (int j0 = 0; j0 < n; j0 += kPanel) {
    const int w = n - j0 < kPanel ? n - j0 : kPanel;
    for (int r = 0; r < k; ++r)
      for (int c = 0; c < w; ++c)
        out[static_cast<size_t>(r) * n + j0 + c] = widen(p[static_cast<long>(j0) * k + static_cast<long>(r) * w + c]);
  }
  return out;
}

// (m x d) row-major floats from key blocks of kKeyBlock (attention.hpp).
template <typename H>
std::vector<float> from_key_blocks(const H* p, int m, int d) {
  std::vector<float> out(static_cast<size_t>(m) * d);
  const int d8 = d / 8 * 8, whole = m / kKeyBlock * kKeyBlock;
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < d; ++c) {
      long at = static_cast<long>(r) * d + c;  // row-major after the last whole block
      if (r < whole) {
        const long block = static_cast<long>(r / kKeyBlock) * kKeyBlock * d, i = r % kKeyBlock;
        at =
            c < d8 ? block + (c / 8) * 8 * kKeyBlock + i * 8 + c % 8 : block + d8 * kKeyBlock + i * (d - d8) + (c - d8);
      }
      out[static_cast<size_t>(r) * d + c] = widen(p[at]);
    }
  return out;
}
}  // namespace

void gemm_tiled_f16(float* c, int ldc, const float* a, int lda, const f16* b, int ldb, const float* bias, int m, int k,
                    int n, bool accumulate) {
  gemm_tiled(c, ldc, a, lda, widened(b, k, n, ldb).data(), n, bias, m, k, n, accumulate);
}
void gemm_tiled_bf16(float* c, int ldc, const float* a, int lda, const bf16* b, int ldb, const float* bias, int m,
                     int k, int n, bool accumulate) {
  gemm_tiled(c, ldc, a, lda, widened(b, k, n, ldb).data(), n, bias, m, k, n, accumulate);
}
void gemm_panels_f16(float* c, int ldc, const float* a, int lda, const f16* b, const float* bias, int m, int k, int n,
                     bool accumulate) {
  gemm_tiled(c, ldc, a, lda, from_panels(b, k, n).data(), n, bias, m, k, n, accumulate);
}
void gemm_panels_bf16(float* c, int ldc, const float* a, int lda, const bf16* b, const float* bias, int m, int k, int n,
                      bool accumulate) {
  gemm_tiled(c, ldc, a, lda, from_panels(b, k, n).data(), n, bias, m, k, n, accumulate);
}
void qk_scores_f16(float* scores, int ld_s, const float* q, int ld_q, const f16* k, int ld_k, int n, int m, int d_k,
                   float alpha) {
  qk_scores(scores, ld_s, q, ld_q, widened(k, m, d_k, ld_k).data(), d_k, n, m, d_k, alpha);
}
void qk_scores_bf16(float* scores, int ld_s, const float* q, int ld_q, const bf16* k, int ld_k, int n, int m, int d_k,
                    float alpha) {
  qk_scores(scores, ld_s, q, ld_q, widened(k, m, d_k, ld_k).data(), d_k, n, m, d_k, alpha);
}
void qk_scores_blocks_f16(float* scores, int ld_s, const float* q, int ld_q, const f16* k, int, int n, int m, int d_k,
                          float alpha) {
  qk_scores(scores, ld_s, q, ld_q, from_key_blocks(k, m, d_k).data(), d_k, n, m, d_k, alpha);
}
void qk_scores_blocks_bf16(float* scores, int ld_s, const float* q, int ld_q, const bf16* k, int, int n, int m, int d_k,
                           float alpha) {
  qk_scores(scores, ld_s, q, ld_q, from_key_blocks(k, m, d_k).data(), d_k, n, m, d_k, alpha);
}

}  // namespace ap::kernels
