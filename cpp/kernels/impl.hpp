// The compiled kernel implementations behind the public entry points of gemm.hpp/attention.hpp.
// Internal to cpp/kernels. dispatch.cpp forwards every public call through a KernelTable, which
// starts on these functions and which a wasm loader may switch to the same functions compiled
// with relaxed SIMD in a separate module (relaxed_module.cpp); kernels call each other directly
// through impl::, so a relaxed module never calls back into the main one.
#pragma once

#include "base/half.hpp"

namespace ap::kernels {

namespace impl {
// Queries per block of the online attention (attention.cpp): dispatch.cpp splits work over whole blocks.
constexpr int kQueryBlock = 32;
void gemm_tiled(float* c, int ldc, const float* a, int lda, const float* b, int ldb, const float* bias, int m, int k,
                int n, bool accumulate);
// The same kernel on 16-bit B (weights kept as stored). In the KernelTable, but never switched to
// the relaxed module: they run the SIMD128 build's code whether or not it is active (a product that
// streams 16-bit weights is bound by reading them, not by the multiply-adds fusing would save).
void gemm_tiled_f16(float* c, int ldc, const float* a, int lda, const f16* b, int ldb, const float* bias, int m, int k,
                    int n, bool accumulate);
void gemm_tiled_bf16(float* c, int ldc, const float* a, int lda, const bf16* b, int ldb, const float* bias, int m,
                     int k, int n, bool accumulate);
// The same on B in column panels of kPanel (gemm.hpp).
void gemm_panels_f16(float* c, int ldc, const float* a, int lda, const f16* b, const float* bias, int m, int k, int n,
                     bool accumulate);
void gemm_panels_bf16(float* c, int ldc, const float* a, int lda, const bf16* b, const float* bias, int m, int k, int n,
                      bool accumulate);
void qk_scores_f16(float* scores, int ld_s, const float* q, int ld_q, const f16* k, int ld_k, int n, int m, int d_k,
                   float alpha);
void qk_scores_bf16(float* scores, int ld_s, const float* q, int ld_q, const bf16* k, int ld_k, int n, int m, int d_k,
                    float alpha);
// The same on K in key blocks of kKeyBlock (attention.hpp); ld_k is d_k.
void qk_scores_blocks_f16(float* scores, int ld_s, const float* q, int ld_q, const f16* k, int ld_k, int n, int m,
                          int d_k, float alpha);
void qk_scores_blocks_bf16(float* scores, int ld_s, const float* q, int ld_q, const bf16* k, int ld_k, int n, int m,
                           int d_k, float alpha);
void qk_scores(float* scores, int ld_s, const float* q, int ld_q, const float* k, int ld_k, int n, int m, int d_k,
               float alpha);
void softmax_rows(float* out, int ld_out, const float* in, int ld_in, int n, int m);
void exp_vec(float* out, const float* in, int n);
void attention_forward(float* out, const float* q, const float* k, const float* v, int n, int m, int d_k, int n_heads,
                       bool causal, bool scale, int window);
const char* variant();
}  // namespace impl

struct KernelTable {
  decltype(&impl::gemm_tiled) gemm_tiled;
  decltype(&impl::qk_scores) qk_scores;
  decltype(&impl::softmax_rows) softmax_rows;
  decltype(&impl::exp_vec) exp_vec;
  decltype(&impl::attention_forward) attention_forward;
  const char* variant;
  // Called through the table like the others: a direct call let binaryen (wasm-opt) inline the whole
  // kernel into its one caller (the tied head, linear()), where V8 compiled its loops slower.
  decltype(&impl::gemm_tiled_f16) gemm_tiled_f16;
  decltype(&impl::gemm_tiled_bf16) gemm_tiled_bf16;
  decltype(&impl::qk_scores_f16) qk_scores_f16;
  decltype(&impl::qk_scores_bf16) qk_scores_bf16;
  decltype(&impl::gemm_panels_f16) gemm_panels_f16;
  decltype(&impl::gemm_panels_bf16) gemm_panels_bf16;
  decltype(&impl::qk_scores_blocks_f16) qk_scores_blocks_f16;
  decltype(&impl::qk_scores_blocks_bf16) qk_scores_blocks_bf16;
};

}  // namespace ap::kernels
