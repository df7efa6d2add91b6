// Matrix products for every linear layer: C (m, n) = A (m, k) B (k, n) [+ bias (n)], all row-major
// with leading dimension = column count. gemm() is the fast path (hand-written WASM SIMD in wasm
// builds, Eigen natively); gemm_ref() is the plain triple loop that tests hold it equal to.
// gemm_tiled() is the hand-written register-blocked kernel itself, with explicit leading dimensions
// so callers can multiply column blocks (one head of Q, K, V) in place; it is what gemm() runs in
// wasm, and it is built natively too (SSE2) so native tests and benchmarks exercise it.
#pragma once

namespace ap::kernels {

void gemm(float* c, const float* a, const float* b, const float* bias, int m, int k, int n);
void gemm_ref(float* c, const float* a, const float* b, const float* bias, int m, int k, int n);

// C (m, n; row stride ldc) = A (m, k; lda) B (k, n; ldb) + init, where init is C itself when
// `accumulate`, else bias (n) when given, else 0. C must not overlap A or B. Never allocates.
void gemm_tiled(float* c, int ldc, const float* a, int lda, const float* b, int ldb, const float* bias, int m, int k,
                int n, bool accumulate = false);

}  // namespace ap::kernels
