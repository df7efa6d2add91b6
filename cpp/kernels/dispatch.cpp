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
#include "kernels/parallel.hpp"

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#endif

namespace ap::kernels {
namespace {

template <class F>
F opaque(F f) {
  volatile F v = f;
  return v;
}

KernelTable& active() {
#if defined(AP_FIRST_MODULE)
  // The first wasm module keeps no weights at 16 bits (core/weight.hpp): nothing calls these, and
  // naming them here would link their ~40 KB into its size budget.
  static KernelTable table{impl::gemm_tiled,
                           impl::qk_scores,
                           impl::softmax_rows,
                           impl::exp_vec,
                           impl::attention_forward,
                           impl::variant(),
                           nullptr,
                           nullptr,
                           nullptr,
                           nullptr,
                           nullptr,
                           nullptr,
                           nullptr,
                           nullptr};
#else
  // The 16-bit entries read back through a volatile: nothing else writes them, and clang would
  // otherwise call (and inline) the kernels directly (see KernelTable).
  static KernelTable table{impl::gemm_tiled,
                           impl::qk_scores,
                           impl::softmax_rows,
                           impl::exp_vec,
                           impl::attention_forward,
                           impl::variant(),
                           opaque(impl::gemm_tiled_f16),
                           opaque(impl::gemm_tiled_bf16),
                           opaque(impl::qk_scores_f16),
                           opaque(impl::qk_scores_bf16),
                           opaque(impl::gemm_panels_f16),
                           opaque(impl::gemm_panels_bf16),
                           opaque(impl::qk_scores_blocks_f16),
                           opaque(impl::qk_scores_blocks_bf16)};
#endif
  return table;
}

}  // namespace

const char* variant() { return active().variant; }

#if AP_KERNELS_THREADED
// ---- threads (kernels/parallel.hpp) ----------------------------------------------------------
// With more than one thread a call big enough to pay for waking the pool is split over independent
// outputs and the same kernel runs on each part: rows of C (whole MR = 4 row tiles) or, for few
// rows (a decoding step), column panels (whole NR = 8 column tiles); query rows or keys of a score
// matrix (qk_scores gives the same bits for a score whatever its tile, see attention.cpp); rows of a
// softmax; whole query blocks of attention. No sum is split: every output is the sum it was, in the
// same order, so the numbers do not depend on the thread count (tests/cpp/test_parallel.cpp).
namespace {

constexpr int kRowTile = 4, kColTile = 8;

// The number of parts for `work` spread over `units` splittable units, at least min_units each.
// Up to kPartsPerThread parts per thread: the threads take parts as they come free, so one that a
// busy machine wakes late (or that gets less of a core) does less, instead of holding up the call.
constexpr int kPartsPerThread = 4;
int parts_for(double work, int units, int min_units) {
  const int t = threads();
  if (t == 1 || work < kParallelMinWork) return 1;
  const int most = units / min_units, wanted = kPartsPerThread * t;
  return most < 2 ? 1 : most < wanted ? most : wanted;
}

// Splits an output of `rows` x `cols` over whole row tiles (by_rows(i0, i1)) or whole column tiles
// (by_cols(j0, j1)), trying columns first when columns_first; false when the call stays whole.
// Rows come first for float operands (each part then reads all of B, as one call would; few rows,
// as in a decoding step, split by columns). A 16-bit B (or K) splits by columns first: each part
// then widens only its own share of the weights, where row parts would each widen all of them.
template <class ByRows, class ByCols>
bool split_2d(double work, int rows, int cols, bool columns_first, ByRows&& by_rows, ByCols&& by_cols) {
  for (int pass = 0; pass < 2; ++pass) {
    const bool by_columns = (pass == 0) == columns_first;
    const int total = by_columns ? cols : rows, align = by_columns ? kColTile : kRowTile;
    const int parts = parts_for(work, total, 4 * align);
    if (parts < 2) continue;
    parallel_for(parts, [&](int t) {
      const int x0 = split_at(total, parts, align, t), x1 = split_at(total, parts, align, t + 1);
      if (x1 <= x0) return;
      if (by_columns)
        by_cols(x0, x1);
      else
        by_rows(x0, x1);
    });
    return true;
  }
  return false;
}

template <typename B>
using GemmRun = void (*)(float*, int, const float*, int, const B*, int, const float*, int, int, int, bool);

template <typename B>
void gemm_split(GemmRun<B> run, float* c, int ldc, const float* a, int lda, const B* b, int ldb, const float* bias,
                int m, int k, int n, bool accumulate) {
  const double work = static_cast<double>(m) * n * (k > 0 ? k : 1);
  const bool split = split_2d(
      work, m, n, sizeof(B) == 2,
      [&](int i0, int i1) {
        run(c + static_cast<long>(i0) * ldc, ldc, a + static_cast<long>(i0) * lda, lda, b, ldb, bias, i1 - i0, k, n,
            accumulate);
      },
      [&](int j0, int j1) {
        run(c + j0, ldc, a, lda, b + j0, ldb, bias ? bias + j0 : nullptr, m, k, j1 - j0, accumulate);
      });
  if (!split) run(c, ldc, a, lda, b, ldb, bias, m, k, n, accumulate);
}

// Panelled B (gemm.hpp): split over whole panels, each part the same kernel on its own panels.
template <typename B>
using PanelsRun = void (*)(float*, int, const float*, int, const B*, const float*, int, int, int, bool);

template <typename B>
void panels_split(PanelsRun<B> run, float* c, int ldc, const float* a, int lda, const B* b, const float* bias, int m,
                  int k, int n, bool accumulate) {
  const int panels = (n + kPanel - 1) / kPanel;
  const int parts = parts_for(static_cast<double>(m) * n * (k > 0 ? k : 1), panels, 1);
  if (parts < 2) {
    run(c, ldc, a, lda, b, bias, m, k, n, accumulate);
    return;
  }
  parallel_for(parts, [&](int t) {
    const int p0 = split_at(panels, parts, 1, t), p1 = split_at(panels, parts, 1, t + 1);
    if (p1 <= p0) return;
    const int j0 = p0 * kPanel, j1 = p1 * kPanel < n ? p1 * kPanel : n;
    run(c + j0, ldc, a, lda, b + static_cast<long>(j0) * (k > 0 ? k : 0), bias ? bias + j0 : nullptr, m, k, j1 - j0,
        accumulate);
  });
}

template <typename K>
using ScoresRun = void (*)(float*, int, const float*, int, const K*, int, int, int, int, float);

template <typename K>
void qk_split(ScoresRun<K> run, float* scores, int ld_s, const float* q, int ld_q, const K* k, int ld_k, int n, int m,
              int d_k, float alpha) {
  const double work = static_cast<double>(n) * m * (d_k > 0 ? d_k : 1);
  const bool split = split_2d(
      work, n, m, sizeof(K) == 2,
      [&](int i0, int i1) {
        run(scores + static_cast<long>(i0) * ld_s, ld_s, q + static_cast<long>(i0) * ld_q, ld_q, k, ld_k, i1 - i0, m,
            d_k, alpha);
      },
      [&](int j0, int j1) {
        run(scores + j0, ld_s, q, ld_q, k + static_cast<long>(j0) * ld_k, ld_k, n, j1 - j0, d_k, alpha);
      });
  if (!split) run(scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}

}  // namespace

void gemm_tiled(float* c, int ldc, const float* a, int lda, const float* b, int ldb, const float* bias, int m, int k,
                int n, bool accumulate) {
  gemm_split(active().gemm_tiled, c, ldc, a, lda, b, ldb, bias, m, k, n, accumulate);
}
// 16-bit weights: this module's kernels, whatever the table holds (impl.hpp says why).
void gemm_tiled_f16(float* c, int ldc, const float* a, int lda, const f16* b, int ldb, const float* bias, int m, int k,
                    int n, bool accumulate) {
  gemm_split(active().gemm_tiled_f16, c, ldc, a, lda, b, ldb, bias, m, k, n, accumulate);
}
void gemm_tiled_bf16(float* c, int ldc, const float* a, int lda, const bf16* b, int ldb, const float* bias, int m,
                     int k, int n, bool accumulate) {
  gemm_split(active().gemm_tiled_bf16, c, ldc, a, lda, b, ldb, bias, m, k, n, accumulate);
}

void gemm_panels_f16(float* c, int ldc, const float* a, int lda, const f16* b, const float* bias, int m, int k, int n,
                     bool accumulate) {
  panels_split(active().gemm_panels_f16, c, ldc, a, lda, b, bias, m, k, n, accumulate);
}
void gemm_panels_bf16(float* c, int ldc, const float* a, int lda, const bf16* b, const float* bias, int m, int k, int n,
                      bool accumulate) {
  panels_split(active().gemm_panels_bf16, c, ldc, a, lda, b, bias, m, k, n, accumulate);
}

void qk_scores(float* scores, int ld_s, const float* q, int ld_q, const float* k, int ld_k, int n, int m, int d_k,
               float alpha) {
  qk_split(active().qk_scores, scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}
void qk_scores_f16(float* scores, int ld_s, const float* q, int ld_q, const f16* k, int ld_k, int n, int m, int d_k,
                   float alpha) {
  qk_split(active().qk_scores_f16, scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}
// Key blocks: qk_split's key parts start on multiples of kColTile = kKeyBlock = 8, where a block
// starts (k + j0 * ld_k with ld_k = d_k), and every part but the last holds whole blocks only.
static_assert(kColTile == kKeyBlock, "key parts must start where a key block does");
void qk_scores_blocks_f16(float* scores, int ld_s, const float* q, int ld_q, const f16* k, int ld_k, int n, int m,
                          int d_k, float alpha) {
  qk_split(active().qk_scores_blocks_f16, scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}
void qk_scores_blocks_bf16(float* scores, int ld_s, const float* q, int ld_q, const bf16* k, int ld_k, int n, int m,
                           int d_k, float alpha) {
  qk_split(active().qk_scores_blocks_bf16, scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}
void qk_scores_bf16(float* scores, int ld_s, const float* q, int ld_q, const bf16* k, int ld_k, int n, int m, int d_k,
                    float alpha) {
  qk_split(active().qk_scores_bf16, scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}

void softmax_rows(float* out, int ld_out, const float* in, int ld_in, int n, int m) {
  const auto run = active().softmax_rows;
  // An exp costs about as much as a dozen multiply-adds.
  if (int parts = parts_for(16.0 * n * m, n, 4); parts > 1) {
    parallel_for(parts, [&](int t) {
      const int i0 = split_at(n, parts, 1, t), i1 = split_at(n, parts, 1, t + 1);
      if (i1 > i0)
        run(out + static_cast<long>(i0) * ld_out, ld_out, in + static_cast<long>(i0) * ld_in, ld_in, i1 - i0, m);
    });
  } else {
    run(out, ld_out, in, ld_in, n, m);
  }
}

void attention_forward(float* out, const float* q, const float* k, const float* v, int n, int m, int d_k, int n_heads,
                       bool causal, bool scale, int window) {
  const auto run = active().attention_forward;
  // Query rows [i0, i1) in whole query blocks, each part a call of its own on every head. Causal:
  // the part's queries are the last of m' = m - (n - i1) keys, so query i still sees keys
  // j <= i + (m - n) and its blocks start and stop at the same keys (m' <= 0: no key is visible to
  // any of them, as before).
  const double work = static_cast<double>(n) * m * (d_k > 0 ? d_k : 1) * (n_heads > 0 ? n_heads : 1);
  if (int parts = parts_for(work, n, impl::kQueryBlock); parts > 1) {
    const long ld = static_cast<long>(n_heads) * d_k;
    parallel_for(parts, [&](int t) {
      const int i0 = split_at(n, parts, impl::kQueryBlock, t), i1 = split_at(n, parts, impl::kQueryBlock, t + 1);
      if (i1 <= i0) return;
      int keys = m;
      if (causal) keys = m - (n - i1) > 0 ? m - (n - i1) : 0;
      run(out + i0 * ld, q + i0 * ld, k, v, i1 - i0, keys, d_k, n_heads, causal, scale, window);
    });
  } else {
    run(out, q, k, v, n, m, d_k, n_heads, causal, scale, window);
  }
}

#else
// The single-thread modules: each entry point forwards its call as it is.
void gemm_tiled(float* c, int ldc, const float* a, int lda, const float* b, int ldb, const float* bias, int m, int k,
                int n, bool accumulate) {
  active().gemm_tiled(c, ldc, a, lda, b, ldb, bias, m, k, n, accumulate);
}

void qk_scores(float* scores, int ld_s, const float* q, int ld_q, const float* k, int ld_k, int n, int m, int d_k,
               float alpha) {
  active().qk_scores(scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}

// 16-bit weights: this module's kernels, whatever the table holds (impl.hpp says why).
void gemm_tiled_f16(float* c, int ldc, const float* a, int lda, const f16* b, int ldb, const float* bias, int m, int k,
                    int n, bool accumulate) {
  active().gemm_tiled_f16(c, ldc, a, lda, b, ldb, bias, m, k, n, accumulate);
}
void gemm_tiled_bf16(float* c, int ldc, const float* a, int lda, const bf16* b, int ldb, const float* bias, int m,
                     int k, int n, bool accumulate) {
  active().gemm_tiled_bf16(c, ldc, a, lda, b, ldb, bias, m, k, n, accumulate);
}
void gemm_panels_f16(float* c, int ldc, const float* a, int lda, const f16* b, const float* bias, int m, int k, int n,
                     bool accumulate) {
  active().gemm_panels_f16(c, ldc, a, lda, b, bias, m, k, n, accumulate);
}
void gemm_panels_bf16(float* c, int ldc, const float* a, int lda, const bf16* b, const float* bias, int m, int k, int n,
                      bool accumulate) {
  active().gemm_panels_bf16(c, ldc, a, lda, b, bias, m, k, n, accumulate);
}
void qk_scores_f16(float* scores, int ld_s, const float* q, int ld_q, const f16* k, int ld_k, int n, int m, int d_k,
                   float alpha) {
  active().qk_scores_f16(scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}
void qk_scores_blocks_f16(float* scores, int ld_s, const float* q, int ld_q, const f16* k, int ld_k, int n, int m,
                          int d_k, float alpha) {
  active().qk_scores_blocks_f16(scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}
void qk_scores_blocks_bf16(float* scores, int ld_s, const float* q, int ld_q, const bf16* k, int ld_k, int n, int m,
                           int d_k, float alpha) {
  active().qk_scores_blocks_bf16(scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}
void qk_scores_bf16(float* scores, int ld_s, const float* q, int ld_q, const bf16* k, int ld_k, int n, int m, int d_k,
                    float alpha) {
  active().qk_scores_bf16(scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha);
}

void softmax_rows(float* out, int ld_out, const float* in, int ld_in, int n, int m) {
  active().softmax_rows(out, ld_out, in, ld_in, n, m);
}

void attention_forward(float* out, const float* q, const float* k, const float* v, int n, int m, int d_k, int n_heads,
                       bool causal, bool scale, int window) {
  active().attention_forward(out, q, k, v, n, m, d_k, n_heads, causal, scale, window);
}
#endif

void exp_vec(float* out, const float* in, int n) { active().exp_vec(out, in, n); }

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
#if defined(__EMSCRIPTEN_PTHREADS__)
  // A function-table index added on one thread means nothing on another: the pool's threads would
  // call through indices only the main thread's table has. The threaded module keeps SIMD128.
  return;
#endif
  KernelTable& t = active();
  t.gemm_tiled = reinterpret_cast<decltype(t.gemm_tiled)>(gemm_tiled);
  t.qk_scores = reinterpret_cast<decltype(t.qk_scores)>(qk_scores);
  t.softmax_rows = reinterpret_cast<decltype(t.softmax_rows)>(softmax_rows);
  t.exp_vec = reinterpret_cast<decltype(t.exp_vec)>(exp_vec);
  t.attention_forward = reinterpret_cast<decltype(t.attention_forward)>(attention_forward);
  t.variant = "relaxed";
}
#endif
