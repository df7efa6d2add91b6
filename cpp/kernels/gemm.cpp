// gemm(): the hand-written tiled kernel in wasm builds (Eigen 3.4 has no WASM SIMD path and runs
// several times slower there), Eigen natively (it has AVX2/AVX-512 paths we do not try to beat).
#include "kernels/gemm.hpp"
#include "base/tensor.hpp"
#include "kernels/convert.hpp"

namespace ap::kernels {

void gemm(float* c, const float* a, const float* b, const float* bias, int m, int k, int n) {
#if defined(__wasm_simd128__)
  gemm_tiled(c, n, a, k, b, n, bias, m, k, n);  // (m, n) = (m, k)(k, n) + bias
#else
  MatMap C(c, m, n);
  CMatMap A(a, m, k), B(b, k, n);
  C.noalias() = A * B;  // (m, n) = (m, k)(k, n)
  if (bias) C.rowwise() += Eigen::Map<const Vec>(bias, n);
#endif
}

void gemm_ref(float* c, const float* a, const float* b, const float* bias, int m, int k, int n) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float s = bias ? bias[j] : 0.0f;
      for (int p = 0; p < k; ++p) s += a[i * k + p] * b[p * n + j];
      c[i * n + j] = s;
    }
}

namespace {
float widen(f16 h) { return half_to_float(h.bits); }  // the reference conversion (convert.hpp)
float widen(bf16 h) { return bf16_to_float(h); }

template <typename B>
void gemm_ref_16(float* c, const float* a, const B* b, const float* bias, int m, int k, int n) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      float s = bias ? bias[j] : 0.0f;
      for (int p = 0; p < k; ++p) s += a[i * k + p] * widen(b[p * n + j]);
      c[i * n + j] = s;
    }
}
}  // namespace

void gemm_ref_f16(float* c, const float* a, const f16* b, const float* bias, int m, int k, int n) {
  gemm_ref_16(c, a, b, bias, m, k, n);
}
void gemm_ref_bf16(float* c, const float* a, const bf16* b, const float* bias, int m, int k, int n) {
  gemm_ref_16(c, a, b, bias, m, k, n);
}

}  // namespace ap::kernels
