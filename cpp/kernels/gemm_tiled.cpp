// The register-blocked GEMM behind every linear layer in wasm builds, and behind weights @ V and
// the online-softmax attention. No Eigen, no allocation, no libc: this file also builds into the
// standalone relaxed-SIMD kernel module.
//   micro-kernel: a (MR x 4*NV) block of C held in MR*NV vector registers for a whole k-panel;
//   per step p it broadcasts MR values of A and loads NV vectors of row p of B: 4x8 needs 8
//   accumulators + 2 B + 1 A = 11 of the 16 x86 vector registers V8 can use, so nothing spills.
//   blocking: KC rows of B (an (KC x 8) panel, 8 KB, stays in L1 while it sweeps MC rows of A,
//   a (MC x KC) block of 64 KB that stays in L2).
// B is read in place, not packed: for the sizes of this project (d_model <= 1024) packing cost
// more than it saved in our measurements, and it would need a scratch buffer.
#include "kernels/gemm.hpp"
#include "kernels/impl.hpp"
#include "kernels/simd4.hpp"

#include <type_traits>

namespace ap::kernels {
namespace {

using namespace simd;

constexpr int MR = 4;    // rows of C per micro-kernel
constexpr int NR = 8;    // columns of C per micro-kernel (two vectors)
constexpr int KC = 256;  // depth of one k-panel
constexpr int MC = 64;   // rows of A per L2 block

// C[0:R, 0:4*NV] (= or +=) A[0:R, 0:k] B[0:k, 0:4*NV] + init. Each call is short and called
// (m/MR)(n/NR) times, which is what lets V8 optimise it (see AP_NOINLINE). B is float, or F16 /
// BF16 weights widened in registers by load() (simd4.hpp): the same steps on the same floats.
template <int R, int NV, typename B>
AP_NOINLINE void tile(float* c, int ldc, const float* a, int lda, const B* b, int ldb, const float* bias, int k,
                      bool accumulate) {
  v4 acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v)
      acc[r][v] = accumulate ? load(c + r * ldc + 4 * v) : bias ? load(bias + 4 * v) : zero();
  // Pointers advance instead of being recomputed from p (clang 14, emscripten 3.1.6's compiler,
  // left an i32.mul and shifts per step in this loop that clang 16 strength-reduces).
  auto step = [&](const float* ap, const B* bp) AP_INLINE_LAMBDA {
    v4 bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = load(bp + 4 * v);  // row p of the B panel
    for (int r = 0; r < R; ++r) {
      v4 ar = load_splat(ap + r * lda);  // A[r, p] in every lane
      for (int v = 0; v < NV; ++v) acc[r][v] = madd(ar, bv[v], acc[r][v]);
    }
  };
  const float* ap = a;
  const B* bp = b;
  for (int p = k; p > 0; --p, ++ap, bp += ldb) step(ap, bp);
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) store(c + r * ldc + 4 * v, acc[r][v]);
}

// One column of C for R rows: the n % 4 tail.
template <int R, typename B>
AP_NOINLINE void tile_col(float* c, int ldc, const float* a, int lda, const B* b, int ldb, const float* bias, int k,
                          bool accumulate) {
  float acc[R];
  for (int r = 0; r < R; ++r) acc[r] = accumulate ? c[r * ldc] : bias ? bias[0] : 0.0f;
  for (int p = 0; p < k; ++p) {
    float bp = to_f32(b[p * ldb]);
    for (int r = 0; r < R; ++r) acc[r] += a[r * lda + p] * bp;
  }
  for (int r = 0; r < R; ++r) c[r * ldc] = acc[r];
}

// One column block of C (4*NV columns, or 1 when NV == 0) over `rows` rows for one k-panel:
// the B panel it reads (kc x 8 floats) stays in L1 across all the row tiles.
// Copies a (k x 8) panel of B into a contiguous buffer. B's rows are ldb floats apart; when that
// stride is a multiple of 1-4 KB (d_model = 512, 1024, or 8 heads of 64) every row of the panel
// falls in the same few L1 sets and the panel evicts itself. Packed, it is 8 KB in sequence.
// A 16-bit panel is widened as it is packed: the tiles then read floats.
template <typename B>
AP_NOINLINE void pack_panel(float* packed, const B* b, int ldb, int k) {
  for (int p = 0; p < k; ++p) {
    store(packed + p * NR, load(b + static_cast<long>(p) * ldb));
    store(packed + p * NR + 4, load(b + static_cast<long>(p) * ldb + 4));
  }
}

template <int NV, typename B>
void column_rows(float* c, int ldc, const float* a, int lda, const B* b, int ldb, const float* bias, int rows, int k,
                 bool accumulate) {
  auto run = [&](auto r_const, int i) {
    constexpr int R = decltype(r_const)::value;
    float* ci = c + static_cast<long>(i) * ldc;
    const float* ai = a + static_cast<long>(i) * lda;
    if constexpr (NV == 0)
      tile_col<R>(ci, ldc, ai, lda, b, ldb, bias, k, accumulate);
    else
      tile<R, NV>(ci, ldc, ai, lda, b, ldb, bias, k, accumulate);
  };
  int i = 0;
  for (; i + MR <= rows; i += MR) run(std::integral_constant<int, MR>{}, i);
  switch (rows - i) {
    case 3:
      run(std::integral_constant<int, 3>{}, i);
      break;
    case 2:
      run(std::integral_constant<int, 2>{}, i);
      break;
    case 1:
      run(std::integral_constant<int, 1>{}, i);
      break;
    default:
      break;
  }
}

template <int NV, typename B>
void column_block(float* c, int ldc, const float* a, int lda, const B* b, int ldb, const float* bias, int rows, int k,
                  bool accumulate) {
  // Packing costs one pass over the panel; it pays off once the panel serves a few row tiles.
  // (Float: one call of column_rows below, which the first module's size depends on: binaryen
  // then inlines the tiles into their one caller.)
  alignas(16) float packed[NV == 2 ? KC * NR : 1];
  if constexpr (NV == 2) {
    if (rows >= 2 * MR && (ldb > 64 || sizeof(B) == 2)) {
      pack_panel(packed, b, ldb, k);
      if constexpr (sizeof(B) == 2) {
        column_rows<NV, float>(c, ldc, a, lda, packed, NR, bias, rows, k, accumulate);
        return;
      } else {
        b = packed;
        ldb = NR;
      }
    }
  }
  column_rows<NV, B>(c, ldc, a, lda, b, ldb, bias, rows, k, accumulate);
}

// One row of C (m == 1, a decoding step): C[0, 0:n] = a[0:k] B + init with B streamed row by row,
// GV rows of B per pass over C, each row read in sequence (the tiles above walk B down 8-column
// strips, one 4 KB page per row once ldb is large: a matrix-vector product is bound by that read,
// about 340 MB of weights per GPT-2 small token). C (a few KB here) stays in L1; two vectors of it
// per step. Measured in wasm (Node, 768 x 2304 and 3072 x 768): 26-30 GB/s against 11-13 for the
// strips and 16-21 for 8 rows and one vector per step. Each C value is still init + a[0] B[0, j] +
// a[1] B[1, j] + ... in that order with the same madd as tile(): bit for bit what the tiles give.
// F16 weights: when every |a| < 2^16 the 8-wide steps read them with load8_unscaled (simd4.hpp),
// their floats times 2^-112, against a * 2^112: the same products, 5 operations per 8 weights
// instead of 8 (measured: the multiply made a generated token compute-bound).
constexpr int GV = 16;

template <int P, typename B>
AP_INLINE void gemv_rows(float* c, const float* a, const B* b, int ldb, int n) {
  v4 av[P];
  for (int q = 0; q < P; ++q) av[q] = load_splat(a + q);
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    v4 acc0 = load(c + j), acc1 = load(c + j + 4);
    const B* bq = b + j;
    for (int q = 0; q < P; ++q, bq += ldb) {
      v4 lo, hi;
      load8(bq, lo, hi);  // 16-bit weights: 8 widened per load
      acc0 = madd(av[q], lo, acc0);
      acc1 = madd(av[q], hi, acc1);
    }
    store(c + j, acc0);
    store(c + j + 4, acc1);
  }
  if (j + 4 <= n) {
    v4 acc = load(c + j);
    for (int q = 0; q < P; ++q) acc = madd(av[q], load(b + static_cast<long>(q) * ldb + j), acc);
    store(c + j, acc);
    j += 4;
  }
  for (; j < n; ++j) {
    float acc = c[j];
    for (int q = 0; q < P; ++q) acc += a[q] * to_f32(b[static_cast<long>(q) * ldb + j]);
    c[j] = acc;
  }
}

// The same rows of F16 weights read unscaled against a * 2^112; the last n % 8 columns as above.
template <int P>
AP_INLINE void gemv_rows_unscaled(float* c, const float* a, const f16* b, int ldb, int n) {
  v4 av[P];
  for (int q = 0; q < P; ++q) av[q] = splat(a[q] * kF16Up);
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    v4 acc0 = load(c + j), acc1 = load(c + j + 4);
    const f16* bq = b + j;
    for (int q = 0; q < P; ++q, bq += ldb) {
      v4 lo, hi;
      load8_unscaled(bq, lo, hi);
      acc0 = madd(av[q], lo, acc0);
      acc1 = madd(av[q], hi, acc1);
    }
    store(c + j, acc0);
    store(c + j + 4, acc1);
  }
  if (j < n) gemv_rows<P>(c + j, a, b + j, ldb, n - j);
}

template <typename B>
AP_NOINLINE void gemv(float* c, const float* a, const B* b, int ldb, const float* bias, int k, int n, bool accumulate) {
  if (!accumulate)
    for (int j = 0; j < n; ++j) c[j] = bias ? bias[j] : 0.0f;
  int p = 0;
  if constexpr (std::is_same_v<B, f16>) {
    bool small = true;
    for (int q = 0; q < k; ++q) small &= a[q] < kUnscaledMaxA && a[q] > -kUnscaledMaxA;  // false for NaN
    if (small) {
      for (; p + GV <= k; p += GV) gemv_rows_unscaled<GV>(c, a + p, b + static_cast<long>(p) * ldb, ldb, n);
      for (; p < k; ++p) gemv_rows_unscaled<1>(c, a + p, b + static_cast<long>(p) * ldb, ldb, n);
    }
  }
  for (; p + GV <= k; p += GV) gemv_rows<GV>(c, a + p, b + static_cast<long>(p) * ldb, ldb, n);
  for (; p < k; ++p) gemv_rows<1>(c, a + p, b + static_cast<long>(p) * ldb, ldb, n);
}

// B in column panels (weights laid out for decoding, core/weight.hpp): panel p holds columns
// [kPanel p, kPanel p + w) as k rows of w contiguous values (w = kPanel, the last panel the rest).
// One row of C walks each whole panel down its k rows: a strip of kPanel columns keeps its
// kPanel / 4 sums in registers for the whole sum, and the panel is one sequential read (F16: a
// 64-byte cache line a row). The row-major gemv above reads 16 rows of B in step, 16 streams that
// the prefetcher followed less well: on a GPT-2-small-shaped layer stack (85M F16 weights, out
// of cache) one token took 19.3 ms that way and 11.3 ms from panels (wasm, Node). The same sums in
// the same order as gemv_rows and the tiles.
template <int NV, bool Unscaled, typename B>
AP_INLINE void gemv_strip(float* c, const float* a, const B* b, int ldb, int k) {
  v4 acc[NV];
  for (int v = 0; v < NV; ++v) acc[v] = load(c + 4 * v);
  const B* bp = b;
  for (int p = 0; p < k; ++p, bp += ldb) {
    v4 ap;
    if constexpr (Unscaled)
      ap = splat(a[p] * kF16Up);
    else
      ap = load_splat(a + p);
    for (int v = 0; v < NV; v += 2) {
      v4 lo, hi;
      if constexpr (Unscaled)
        load8_unscaled(bp + 4 * v, lo, hi);
      else
        load8(bp + 4 * v, lo, hi);
      acc[v] = madd(ap, lo, acc[v]);
      acc[v + 1] = madd(ap, hi, acc[v + 1]);
    }
  }
  for (int v = 0; v < NV; ++v) store(c + 4 * v, acc[v]);
}

template <typename B>
AP_NOINLINE void gemv_panels(float* c, const float* a, const B* b, const float* bias, int k, int n, bool accumulate) {
  if (!accumulate)
    for (int j = 0; j < n; ++j) c[j] = bias ? bias[j] : 0.0f;
  bool small = false;
  if constexpr (std::is_same_v<B, f16>) {
    small = true;
    for (int q = 0; q < k; ++q) small &= a[q] < kUnscaledMaxA && a[q] > -kUnscaledMaxA;  // false for NaN
  }
  int j = 0;
  for (; j + kPanel <= n; j += kPanel) {
    const B* panel = b + static_cast<long>(j) * k;
    if constexpr (std::is_same_v<B, f16>) {
      if (small) {
        gemv_strip<kPanel / 4, true>(c + j, a, panel, kPanel, k);
        continue;
      }
    }
    gemv_strip<kPanel / 4, false>(c + j, a, panel, kPanel, k);
  }
  if (j < n) gemv(c + j, a, b + static_cast<long>(j) * k, n - j, nullptr, k, n - j, true);  // the narrower last panel
}

template <typename B>
void gemm_any(float* c, int ldc, const float* a, int lda, const B* b, int ldb, const float* bias, int m, int k, int n,
              bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (m == 1) {
    gemv(c, a, b, ldb, bias, k < 0 ? 0 : k, n, accumulate);
    return;
  }
  // k == 0 still runs one (empty) panel so that C receives its init (bias or zeros).
  for (int p0 = 0; p0 == 0 || p0 < k; p0 += KC) {
    int kc = k - p0 < KC ? k - p0 : KC;
    if (kc < 0) kc = 0;
    bool acc = accumulate || p0 > 0;  // later panels add onto the first one
    const float* bias_p = p0 == 0 ? bias : nullptr;
    const B* bp = b + static_cast<long>(p0) * ldb;
    for (int i0 = 0; i0 < m; i0 += MC) {
      int rows = m - i0 < MC ? m - i0 : MC;
      float* ci = c + static_cast<long>(i0) * ldc;
      const float* ai = a + static_cast<long>(i0) * lda + p0;
      int j = 0;
      for (; j + NR <= n; j += NR)
        column_block<2>(ci + j, ldc, ai, lda, bp + j, ldb, bias_p ? bias_p + j : nullptr, rows, kc, acc);
      if (j + 4 <= n) {
        column_block<1>(ci + j, ldc, ai, lda, bp + j, ldb, bias_p ? bias_p + j : nullptr, rows, kc, acc);
        j += 4;
      }
      for (; j < n; ++j)
        column_block<0>(ci + j, ldc, ai, lda, bp + j, ldb, bias_p ? bias_p + j : nullptr, rows, kc, acc);
    }
  }
}

// The same product on B in column panels: one decoding row by gemv_panels, more rows by the tiles
// on each panel (a panel is a (k x w) matrix of its own, ldb = w).
template <typename B>
void gemm_panels_any(float* c, int ldc, const float* a, int lda, const B* b, const float* bias, int m, int k, int n,
                     bool accumulate) {
  if (m <= 0 || n <= 0) return;
  if (k < 0) k = 0;
  if (m == 1) {
    gemv_panels(c, a, b, bias, k, n, accumulate);
    return;
  }
  for (int j = 0; j < n; j += kPanel) {
    const int w = n - j < kPanel ? n - j : kPanel;
    gemm_any(c + j, ldc, a, lda, b + static_cast<long>(j) * k, w, bias ? bias + j : nullptr, m, k, w, accumulate);
  }
}

}  // namespace

void impl::gemm_tiled(float* c, int ldc, const float* a, int lda, const float* b, int ldb, const float* bias, int m,
                      int k, int n, bool accumulate) {
  gemm_any(c, ldc, a, lda, b, ldb, bias, m, k, n, accumulate);
}
void impl::gemm_tiled_f16(float* c, int ldc, const float* a, int lda, const f16* b, int ldb, const float* bias, int m,
                          int k, int n, bool accumulate) {
  gemm_any(c, ldc, a, lda, b, ldb, bias, m, k, n, accumulate);
}
void impl::gemm_tiled_bf16(float* c, int ldc, const float* a, int lda, const bf16* b, int ldb, const float* bias, int m,
                           int k, int n, bool accumulate) {
  gemm_any(c, ldc, a, lda, b, ldb, bias, m, k, n, accumulate);
}

void impl::gemm_panels_f16(float* c, int ldc, const float* a, int lda, const f16* b, const float* bias, int m, int k,
                           int n, bool accumulate) {
  gemm_panels_any(c, ldc, a, lda, b, bias, m, k, n, accumulate);
}
void impl::gemm_panels_bf16(float* c, int ldc, const float* a, int lda, const bf16* b, const float* bias, int m, int k,
                            int n, bool accumulate) {
  gemm_panels_any(c, ldc, a, lda, b, bias, m, k, n, accumulate);
}

}  // namespace ap::kernels
