// The public kernel entry points: each forwards through the active KernelTable. It starts on the
// kernels compiled into this module (SIMD128 in wasm, SSE2 natively); in wasm a loader that finds
// relaxed SIMD supported may switch it to the relaxed-SIMD module's exports, see
// ap_kernels_use_relaxed below and relaxed_module.cpp. One indirect call per kernel call is noise
// next to the work of any call worth making.
#include <cstdint>
#include <limits>

#include "kernels/attention.hpp"
#include "kernels/gemm.hpp"
#include "kernels/impl.hpp"

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#endif

namespace ap::kernels {
namespace {

KernelTable& active() {
  static KernelTable table{impl::gemm_tiled, impl::qk_scores,         impl::softmax_rows,
                           impl::exp_vec,    impl::attention_forward, impl::variant()};
  return table;
}

}  // namespace

const char* variant() { return active().variant; }

void gemm_tiled(float* c, int ldc, const float* a, int lda, const float* b, int ldb, const float* bias, int m, int k,
                int n, bool accumulate) {
  active().gemm_tiled(c, ldc, a, lda, b, ldb, bias, m, k, n, accumulate);
}

void qk_scores(float* scores, int ld_s, const float* q, int ld_q, const float* k, int ld_k, int n, int m, int d_k,
               float alpha) {
  active().qk_scores(scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}

void softmax_rows(float* out, int ld_out, const float* in, int ld_in, int n, int m) {
  active().softmax_rows(out, ld_out, in, ld_in, n, m);
}

void exp_vec(float* out, const float* in, int n) { active().exp_vec(out, in, n); }

void attention_forward(float* out, const float* q, const float* k, const float* v, int n, int m, int d_k, int n_heads,
                       bool causal, bool scale, int window) {
  active().attention_forward(out, q, k, v, n, m, d_k, n_heads, causal, scale, window);
}

void weights_v(float* out, int ld_out, const float* weights, int ld_w, const float* v, int ld_v, int n, int m,
               int d_k) {
  gemm_tiled(out, ld_out, weights, ld_w, v, ld_v, nullptr, n, m, d_k);  // (n, d_k) = (n, m)(m, d_k)
}

void mask_causal(float* scores, int ld_s, int n, int m, int window) {
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < n; ++i) {
    int first_hidden = i + (m - n) + 1;  // query i sees keys j <= i + (m - n)
    for (int j = first_hidden < 0 ? 0 : first_hidden; j < m; ++j) scores[static_cast<long>(i) * ld_s + j] = neg_inf;
    // and, with a window, only keys j > i + (m - n) - window
    for (int j = 0; window > 0 && j < m && j <= i + (m - n) - window; ++j)
      scores[static_cast<long>(i) * ld_s + j] = neg_inf;
  }
}

}  // namespace ap::kernels

#if defined(__EMSCRIPTEN__)
// Called by the JS loader after it has instantiated kernels_relaxed.wasm on this module's memory and
// put its exports in this module's function table (addFunction); the arguments are those table
// indices, which is what a function pointer is in wasm. The signatures match by construction: both
// modules compile the same impl.hpp declarations.
extern "C" EMSCRIPTEN_KEEPALIVE void ap_kernels_use_relaxed(uintptr_t gemm_tiled, uintptr_t qk_scores,
                                                            uintptr_t softmax_rows, uintptr_t exp_vec,
                                                            uintptr_t attention_forward) {
  using namespace ap::kernels;
  KernelTable& t = active();
  t.gemm_tiled = reinterpret_cast<decltype(t.gemm_tiled)>(gemm_tiled);
  t.qk_scores = reinterpret_cast<decltype(t.qk_scores)>(qk_scores);
  t.softmax_rows = reinterpret_cast<decltype(t.softmax_rows)>(softmax_rows);
  t.exp_vec = reinterpret_cast<decltype(t.exp_vec)>(exp_vec);
  t.attention_forward = reinterpret_cast<decltype(t.attention_forward)>(attention_forward);
  t.variant = "relaxed";
}
#endif
