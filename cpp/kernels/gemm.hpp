// Matrix products for every linear layer: C (m, n) = A (m, k) B (k, n) [+ bias (n)], all row-major
// with leading dimension = column count. gemm() is the fast path (hand-written WASM SIMD in wasm
// builds, Eigen natively); gemm_ref() is the plain triple loop that tests hold it equal to.
#pragma once

namespace ap::kernels {

void gemm(float* c, const float* a, const float* b, const float* bias, int m, int k, int n);
void gemm_ref(float* c, const float* a, const float* b, const float* bias, int m, int k, int n);

}  // namespace ap::kernels
