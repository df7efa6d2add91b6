// The entry points of kernels_relaxed.wasm: the same kernel sources (gemm_tiled.cpp, attention.cpp)
// compiled by clang >= 16 with -mrelaxed-simd into a standalone position-independent module that
// imports the main module's memory (emscripten 3.1.6's clang 14 and binaryen 108 cannot produce
// or even read the standard relaxed opcodes). Empty unless AP_RELAXED_MODULE is defined, so the
// normal builds, which compile every file in cpp/kernels, are unaffected.
#if defined(AP_RELAXED_MODULE)
#include <cstddef>

#include "kernels/impl.hpp"

namespace k = ap::kernels::impl;

// Export names are what the loader reads; the signatures are impl.hpp's, as the main module expects.
#define AP_EXPORT(name) extern "C" __attribute__((export_name(name), used))

AP_EXPORT("gemm_tiled")
void ap_relaxed_gemm_tiled(float* c, int ldc, const float* a, int lda, const float* b, int ldb, const float* bias,
                           int m, int k_, int n, bool accumulate) {
  k::gemm_tiled(c, ldc, a, lda, b, ldb, bias, m, k_, n, accumulate);
}
AP_EXPORT("qk_scores")
void ap_relaxed_qk_scores(float* s, int ld_s, const float* q, int ld_q, const float* kk, int ld_k, int n, int m,
                          int d_k, float alpha) {
  k::qk_scores(s, ld_s, q, ld_q, kk, ld_k, n, m, d_k, alpha);
}
AP_EXPORT("softmax_rows")
void ap_relaxed_softmax_rows(float* out, int ld_out, const float* in, int ld_in, int n, int m) {
  k::softmax_rows(out, ld_out, in, ld_in, n, m);
}
AP_EXPORT("exp_vec") void ap_relaxed_exp_vec(float* out, const float* in, int n) { k::exp_vec(out, in, n); }
AP_EXPORT("attention_forward")
void ap_relaxed_attention_forward(float* out, const float* q, const float* kk, const float* v, int n, int m, int d_k,
                                  int n_heads, bool causal, bool scale, int window) {
  k::attention_forward(out, q, kk, v, n, m, d_k, n_heads, causal, scale, window);
}

// The compiler turns zeroing and small copies into memset/memcpy calls; the module has no libc, so
// it brings its own (this file is compiled with -fno-builtin so these loops stay loops).
extern "C" void* memset(void* dst, int value, size_t count) {
  unsigned char* d = static_cast<unsigned char*>(dst);
  for (size_t i = 0; i < count; ++i) d[i] = static_cast<unsigned char>(value);
  return dst;
}
extern "C" void* memcpy(void* dst, const void* src, size_t count) {
  unsigned char* d = static_cast<unsigned char*>(dst);
  const unsigned char* s = static_cast<const unsigned char*>(src);
  for (size_t i = 0; i < count; ++i) d[i] = s[i];
  return dst;
}
#endif
