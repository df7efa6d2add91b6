// Matrix products for every linear layer: C (m, n) = A (m, k) B (k, n) [+ bias (n)], all row-major
// with leading dimension = column count. gemm() is the fast path (hand-written WASM SIMD in wasm
// builds, Eigen natively); gemm_ref() is the plain triple loop that tests hold it equal to.
// gemm_tiled() is the hand-written register-blocked kernel itself, with explicit leading dimensions
// so callers can multiply column blocks (one head of Q, K, V) in place; it is what gemm() runs in
// wasm, and it is built natively too (SSE2) so native tests and benchmarks exercise it.
#pragma once

#include "base/half.hpp"

namespace ap::kernels {

void gemm(float* c, const float* a, const float* b, const float* bias, int m, int k, int n);
void gemm_ref(float* c, const float* a, const float* b, const float* bias, int m, int k, int n);

// C (m, n; row stride ldc) = A (m, k; lda) B (k, n; ldb) + init, where init is C itself when
// `accumulate`, else bias (n) when given, else 0. C must not overlap A or B. Never allocates.
void gemm_tiled(float* c, int ldc, const float* a, int lda, const float* b, int ldb, const float* bias, int m, int k,
                int n, bool accumulate = false);

// The same products with B (the weights) kept as the checkpoint stored them, F16 or BF16, and
// widened to float32 in registers, tile by tile (finite values only: the loaders keep nothing else
// at 16 bits). Every product is then exactly the float product gemm_tiled() forms on the widened
// matrix, added in the same order: bit for bit gemm_tiled()'s result on the widened B, natively
// and in the SIMD128 build. (Natively gemm() is Eigen, whose sums run in another order; and where
// the relaxed module is active, gemm_tiled() fuses its multiply-adds: the two then differ by
// float rounding only, k * 2^-24 * sum |a||b| at most per value.) The _ref_ versions are the
// plain triple loop on to_float(b) the tests hold these to.
void gemm_tiled_f16(float* c, int ldc, const float* a, int lda, const f16* b, int ldb, const float* bias, int m, int k,
                    int n, bool accumulate = false);
void gemm_tiled_bf16(float* c, int ldc, const float* a, int lda, const bf16* b, int ldb, const float* bias, int m,
                     int k, int n, bool accumulate = false);
// The same products with B in column panels, the layout a model keeps its 16-bit linear weights in
// (core/weight.hpp): panel p holds columns [kPanel p, kPanel p + w) of the (k x n) matrix as k rows
// of w contiguous values, w = kPanel for every panel but the last (the n % kPanel columns left).
// A decoding step (m = 1) then reads each panel as one sequential stream. The same sums in the same
// order: bit for bit gemm_tiled_f16 / _bf16 on the row-major matrix.
constexpr int kPanel = 32;
void gemm_panels_f16(float* c, int ldc, const float* a, int lda, const f16* b, const float* bias, int m, int k, int n,
                     bool accumulate = false);
void gemm_panels_bf16(float* c, int ldc, const float* a, int lda, const bf16* b, const float* bias, int m, int k, int n,
                      bool accumulate = false);
void gemm_ref_f16(float* c, const float* a, const f16* b, const float* bias, int m, int k, int n);
void gemm_ref_bf16(float* c, const float* a, const bf16* b, const float* bias, int m, int k, int n);

}  // namespace ap::kernels
