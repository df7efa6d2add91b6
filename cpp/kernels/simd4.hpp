// A 4-lane float vector for the hand-written kernels, so one kernel source serves every build:
// WASM SIMD128 (wasm_simd128.h) in wasm builds, SSE2 natively on x86-64 (same 128-bit width, so
// native tests exercise the same tiling and the same instruction mix), and a plain 4-float struct
// elsewhere. With -mrelaxed-simd (clang >= 16 only) madd() becomes the relaxed fused multiply-add.
// Internal to cpp/kernels: nothing here allocates, throws or calls libc (the kernels that use it
// must also link into a standalone relaxed-SIMD module with no libc).
#pragma once
#include <cstdint>
#include <cstring>

#include "base/half.hpp"

// -DAP_KERNELS_SCALAR forces the plain-C++ lanes (to test or time them on a SIMD machine).
#if defined(__wasm_simd128__) && !defined(AP_KERNELS_SCALAR)
#include <wasm_simd128.h>
#define AP_SIMD_WASM 1
#if defined(__wasm_relaxed_simd__)
#define AP_SIMD_RELAXED 1
#endif
#elif defined(__SSE2__) && !defined(AP_KERNELS_SCALAR)
#include <emmintrin.h>
#define AP_SIMD_SSE2 1
#else
#define AP_SIMD_GENERIC 1
#endif

#if defined(_MSC_VER)
#define AP_NOINLINE __declspec(noinline)
#define AP_INLINE __forceinline
#else
// Hot loops live in small functions that must stay functions: V8 tiers a wasm function up to its
// optimising compiler only when the function is entered again, so a loop inlined into a caller that
// runs once stays on the baseline compiler (3-4x slower measured here).
#define AP_NOINLINE __attribute__((noinline))
#define AP_INLINE inline __attribute__((always_inline))
#endif
#if defined(_MSC_VER)
#define AP_INLINE_LAMBDA
#else
#define AP_INLINE_LAMBDA __attribute__((always_inline))
#endif

namespace ap::kernels::simd {

#if AP_SIMD_WASM
using v4 = v128_t;
AP_INLINE v4 load(const float* p) { return wasm_v128_load(p); }
AP_INLINE void store(float* p, v4 a) { wasm_v128_store(p, a); }
AP_INLINE v4 splat(float x) { return wasm_f32x4_splat(x); }
AP_INLINE v4 load_splat(const float* p) { return wasm_v128_load32_splat(p); }
AP_INLINE v4 add(v4 a, v4 b) { return wasm_f32x4_add(a, b); }
AP_INLINE v4 sub(v4 a, v4 b) { return wasm_f32x4_sub(a, b); }
AP_INLINE v4 mul(v4 a, v4 b) { return wasm_f32x4_mul(a, b); }
AP_INLINE v4 div(v4 a, v4 b) { return wasm_f32x4_div(a, b); }
#if AP_SIMD_RELAXED
#if !defined(__clang_major__) || __clang_major__ < 16
// clang 14 (emscripten 3.1.6) has the builtin too, but it emits the pre-standard opcode V8 rejects.
#error "the relaxed-SIMD kernels need clang >= 16 (f32x4.relaxed_madd = 0xfd 0x105)"
#endif
// a*b + c, fused or not at the engine's choice (both are within the error bounds the tests use).
// wasm_simd128.h of clang 16 has no wrapper yet, so call the builtin it would call.
AP_INLINE v4 madd(v4 a, v4 b, v4 c) {
  return (v4)__builtin_wasm_relaxed_madd_f32x4((__f32x4)a, (__f32x4)b, (__f32x4)c);
}
#else
AP_INLINE v4 madd(v4 a, v4 b, v4 c) { return wasm_f32x4_add(wasm_f32x4_mul(a, b), c); }
#endif
// pmax/pmin are single x86 instructions; NaN handling does not matter for our inputs.
AP_INLINE v4 max(v4 a, v4 b) { return wasm_f32x4_pmax(a, b); }
AP_INLINE v4 min(v4 a, v4 b) { return wasm_f32x4_pmin(a, b); }
AP_INLINE v4 lt(v4 a, v4 b) { return wasm_f32x4_lt(a, b); }
AP_INLINE v4 gt(v4 a, v4 b) { return wasm_f32x4_gt(a, b); }
AP_INLINE v4 ge(v4 a, v4 b) { return wasm_f32x4_ge(a, b); }
AP_INLINE v4 and_mask(v4 a, v4 mask) { return wasm_v128_and(a, mask); }  // a where mask, else +0
AP_INLINE v4 select(v4 mask, v4 a, v4 b) { return wasm_v128_bitselect(a, b, mask); }
AP_INLINE v4 zero() { return wasm_f32x4_splat(0.0f); }
AP_INLINE float lane0(v4 a) { return wasm_f32x4_extract_lane(a, 0); }
// Lanes (a0 a1 b0 b1) and (a2 a3 b2 b3): the two shuffles of a 4x4 transpose-and-add.
AP_INLINE v4 shuf_0145(v4 a, v4 b) { return wasm_i32x4_shuffle(a, b, 0, 1, 4, 5); }
AP_INLINE v4 shuf_2367(v4 a, v4 b) { return wasm_i32x4_shuffle(a, b, 2, 3, 6, 7); }
AP_INLINE v4 shuf_0415(v4 a, v4 b) { return wasm_i32x4_shuffle(a, b, 0, 4, 1, 5); }
AP_INLINE v4 shuf_2637(v4 a, v4 b) { return wasm_i32x4_shuffle(a, b, 2, 6, 3, 7); }
AP_INLINE v4 swap_pairs(v4 a) { return wasm_i32x4_shuffle(a, a, 2, 3, 0, 1); }
AP_INLINE v4 swap_lanes(v4 a) { return wasm_i32x4_shuffle(a, a, 1, 0, 3, 2); }
// p * 2^n where t = n + 1.5*2^23 (so the low bits of t's pattern hold n): adding t's bits shifted
// into the exponent field is an exact multiplication while the result stays a normal float.
AP_INLINE v4 scale_by_exponent_of(v4 p, v4 t) { return wasm_i32x4_add(p, wasm_i32x4_shl(t, 23)); }
#elif AP_SIMD_SSE2
using v4 = __m128;
AP_INLINE v4 load(const float* p) { return _mm_loadu_ps(p); }
AP_INLINE void store(float* p, v4 a) { _mm_storeu_ps(p, a); }
AP_INLINE v4 splat(float x) { return _mm_set1_ps(x); }
AP_INLINE v4 load_splat(const float* p) { return _mm_set1_ps(*p); }
AP_INLINE v4 add(v4 a, v4 b) { return _mm_add_ps(a, b); }
AP_INLINE v4 sub(v4 a, v4 b) { return _mm_sub_ps(a, b); }
AP_INLINE v4 mul(v4 a, v4 b) { return _mm_mul_ps(a, b); }
AP_INLINE v4 div(v4 a, v4 b) { return _mm_div_ps(a, b); }
AP_INLINE v4 madd(v4 a, v4 b, v4 c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
AP_INLINE v4 max(v4 a, v4 b) { return _mm_max_ps(a, b); }
AP_INLINE v4 min(v4 a, v4 b) { return _mm_min_ps(a, b); }
AP_INLINE v4 lt(v4 a, v4 b) { return _mm_cmplt_ps(a, b); }
AP_INLINE v4 gt(v4 a, v4 b) { return _mm_cmpgt_ps(a, b); }
AP_INLINE v4 ge(v4 a, v4 b) { return _mm_cmpge_ps(a, b); }
AP_INLINE v4 and_mask(v4 a, v4 mask) { return _mm_and_ps(a, mask); }
AP_INLINE v4 select(v4 mask, v4 a, v4 b) { return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b)); }
AP_INLINE v4 zero() { return _mm_setzero_ps(); }
AP_INLINE float lane0(v4 a) { return _mm_cvtss_f32(a); }
AP_INLINE v4 shuf_0145(v4 a, v4 b) { return _mm_movelh_ps(a, b); }
AP_INLINE v4 shuf_2367(v4 a, v4 b) { return _mm_movehl_ps(b, a); }
AP_INLINE v4 shuf_0415(v4 a, v4 b) { return _mm_unpacklo_ps(a, b); }
AP_INLINE v4 shuf_2637(v4 a, v4 b) { return _mm_unpackhi_ps(a, b); }
AP_INLINE v4 swap_pairs(v4 a) { return _mm_shuffle_ps(a, a, _MM_SHUFFLE(1, 0, 3, 2)); }
AP_INLINE v4 swap_lanes(v4 a) { return _mm_shuffle_ps(a, a, _MM_SHUFFLE(2, 3, 0, 1)); }
AP_INLINE v4 scale_by_exponent_of(v4 p, v4 t) {
  return _mm_castsi128_ps(_mm_add_epi32(_mm_castps_si128(p), _mm_slli_epi32(_mm_castps_si128(t), 23)));
}
#else
struct v4 {
  float x[4];
};
AP_INLINE v4 load(const float* p) {
  v4 r;
  std::memcpy(r.x, p, sizeof r.x);
  return r;
}
AP_INLINE void store(float* p, v4 a) { std::memcpy(p, a.x, sizeof a.x); }
AP_INLINE v4 splat(float s) { return v4{{s, s, s, s}}; }
AP_INLINE v4 load_splat(const float* p) { return splat(*p); }
#define AP_LANEWISE(expr)                      \
  v4 r;                                        \
  for (int l = 0; l < 4; ++l) r.x[l] = (expr); \
  return r
AP_INLINE v4 add(v4 a, v4 b) { AP_LANEWISE(a.x[l] + b.x[l]); }
AP_INLINE v4 sub(v4 a, v4 b) { AP_LANEWISE(a.x[l] - b.x[l]); }
AP_INLINE v4 mul(v4 a, v4 b) { AP_LANEWISE(a.x[l] * b.x[l]); }
AP_INLINE v4 div(v4 a, v4 b) { AP_LANEWISE(a.x[l] / b.x[l]); }
AP_INLINE v4 madd(v4 a, v4 b, v4 c) { AP_LANEWISE(a.x[l] * b.x[l] + c.x[l]); }
AP_INLINE v4 max(v4 a, v4 b) { AP_LANEWISE(a.x[l] < b.x[l] ? b.x[l] : a.x[l]); }
AP_INLINE v4 min(v4 a, v4 b) { AP_LANEWISE(b.x[l] < a.x[l] ? b.x[l] : a.x[l]); }
// Comparison masks are stored as 1/0 in the generic build; only select() and and_mask() read them.
AP_INLINE v4 lt(v4 a, v4 b) { AP_LANEWISE(a.x[l] < b.x[l] ? 1.0f : 0.0f); }
AP_INLINE v4 gt(v4 a, v4 b) { AP_LANEWISE(a.x[l] > b.x[l] ? 1.0f : 0.0f); }
AP_INLINE v4 ge(v4 a, v4 b) { AP_LANEWISE(a.x[l] >= b.x[l] ? 1.0f : 0.0f); }
AP_INLINE v4 and_mask(v4 a, v4 mask) { AP_LANEWISE(mask.x[l] != 0.0f ? a.x[l] : 0.0f); }
AP_INLINE v4 select(v4 mask, v4 a, v4 b) { AP_LANEWISE(mask.x[l] != 0.0f ? a.x[l] : b.x[l]); }
AP_INLINE v4 zero() { return splat(0.0f); }
AP_INLINE float lane0(v4 a) { return a.x[0]; }
AP_INLINE v4 shuf_0145(v4 a, v4 b) { return v4{{a.x[0], a.x[1], b.x[0], b.x[1]}}; }
AP_INLINE v4 shuf_2367(v4 a, v4 b) { return v4{{a.x[2], a.x[3], b.x[2], b.x[3]}}; }
AP_INLINE v4 shuf_0415(v4 a, v4 b) { return v4{{a.x[0], b.x[0], a.x[1], b.x[1]}}; }
AP_INLINE v4 shuf_2637(v4 a, v4 b) { return v4{{a.x[2], b.x[2], a.x[3], b.x[3]}}; }
AP_INLINE v4 swap_pairs(v4 a) { return v4{{a.x[2], a.x[3], a.x[0], a.x[1]}}; }
AP_INLINE v4 swap_lanes(v4 a) { return v4{{a.x[1], a.x[0], a.x[3], a.x[2]}}; }
AP_INLINE v4 scale_by_exponent_of(v4 p, v4 t) {
  v4 r;
  for (int l = 0; l < 4; ++l) {
    uint32_t pb, tb;
    std::memcpy(&pb, &p.x[l], sizeof pb);
    std::memcpy(&tb, &t.x[l], sizeof tb);
    pb += tb << 23;
    std::memcpy(&r.x[l], &pb, sizeof pb);
  }
  return r;
}
#undef AP_LANEWISE
#endif

// ---- 16-bit weights, widened in registers ----------------------------------------------------
// load(const f16*) / load(const bf16*): 4 consecutive 16-bit values as 4 float lanes, and load8():
// 8 of them (one 128-bit load) as two, so a kernel templated on its B type reads F16 / BF16 weights
// where it read floats and computes with exactly the floats the widened matrix would hold.
// BF16: the bits moved into the top half of each lane. F16 (finite values only, as the loaders keep
// them): each value sign-extended to 32 bits and shifted left 13 puts exponent and mantissa where a
// float's go and the sign in bit 31 (bits 28-30 are copies of it, masked off): that float is 2^-112
// times the value (a float subnormal for an F16 subnormal), and one exact multiply by 2^112 rescales
// it; 3 operations a vector, no branch or select (convert.cpp's half_to_float, the reference, also
// handles infinity and NaN).
AP_INLINE float to_f32(float x) { return x; }
AP_INLINE float to_f32(bf16 h) { return bf16_to_float(h); }
AP_INLINE float to_f32(f16 h) {
  uint32_t u = static_cast<uint32_t>(h.bits & 0x7fffu) << 13;
  float f;
  std::memcpy(&f, &u, 4);
  f *= 5.192296858534828e+33f;  // 2^112
  std::memcpy(&u, &f, 4);
  u |= static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  std::memcpy(&f, &u, 4);
  return f;
}
AP_INLINE void load8(const float* p, v4& lo, v4& hi) {
  lo = load(p);
  hi = load(p + 4);
}
// load8_unscaled(const f16*): the same 8 values times 2^-112, skipping the multiply (F16 only).
// A product a * w then equals (a * 2^112) * (w * 2^-112) exactly (both factors exact, the same real
// product, rounded once) while |a| * 2^112 stays finite: the matrix-vector kernels scale the
// activations once, when every |a| < kUnscaledMaxA, and widen each weight in 5 operations per 8.
constexpr float kF16Up = 5.192296858534828e+33f;  // 2^112
constexpr float kUnscaledMaxA = 65536.0f;         // 2^16: |a| * 2^112 < 2^128
#if AP_SIMD_WASM
// v: 4 F16 values sign-extended to 32 bits.
AP_INLINE v4 f16_lanes(v128_t v) {
  return wasm_f32x4_mul(wasm_v128_and(wasm_i32x4_shl(v, 13), wasm_i32x4_splat(static_cast<int32_t>(0x8fffe000u))),
                        wasm_f32x4_splat(5.192296858534828e+33f));
}
AP_INLINE v4 load(const f16* p) { return f16_lanes(wasm_i32x4_load16x4(p)); }
AP_INLINE v4 load(const bf16* p) { return wasm_i32x4_shl(wasm_u32x4_load16x4(p), 16); }
AP_INLINE void load8(const f16* p, v4& lo, v4& hi) {
  const v128_t h = wasm_v128_load(p);
  lo = f16_lanes(wasm_i32x4_extend_low_i16x8(h));
  hi = f16_lanes(wasm_i32x4_extend_high_i16x8(h));
}
AP_INLINE void load8(const bf16* p, v4& lo, v4& hi) {
  const v128_t h = wasm_v128_load(p), z = wasm_i16x8_splat(0);
  lo = wasm_i16x8_shuffle(z, h, 0, 8, 1, 9, 2, 10, 3, 11);  // each lane: 0 low, the value high
  hi = wasm_i16x8_shuffle(z, h, 4, 12, 5, 13, 6, 14, 7, 15);
}
// 8 F16 values as 2^-112 times their floats, in 16-bit lanes before the interleave: each float's
// high half is the value shifted right 3 (arithmetic: the sign stays in bit 15, its copies in bits
// 12-14 masked off), its low half the value's last 3 bits at the top. 5 operations for 8 values.
AP_INLINE void load8_unscaled(const f16* p, v4& lo, v4& hi) {
  const v128_t h = wasm_v128_load(p);
  const v128_t top = wasm_v128_and(wasm_i16x8_shr(h, 3), wasm_i16x8_splat(static_cast<int16_t>(0x8fff)));
  const v128_t low = wasm_i16x8_shl(h, 13);
  lo = wasm_i16x8_shuffle(low, top, 0, 8, 1, 9, 2, 10, 3, 11);
  hi = wasm_i16x8_shuffle(low, top, 4, 12, 5, 13, 6, 14, 7, 15);
}
#elif AP_SIMD_SSE2
AP_INLINE v4 f16_lanes(__m128i v) {  // v: 4 F16 values sign-extended to 32 bits
  const __m128i bits = _mm_and_si128(_mm_slli_epi32(v, 13), _mm_set1_epi32(static_cast<int32_t>(0x8fffe000u)));
  return _mm_mul_ps(_mm_castsi128_ps(bits), _mm_set1_ps(5.192296858534828e+33f));
}
AP_INLINE __m128i load_64(const void* p) { return _mm_loadl_epi64(static_cast<const __m128i*>(p)); }
AP_INLINE v4 load(const f16* p) {
  const __m128i h = load_64(p);
  return f16_lanes(_mm_srai_epi32(_mm_unpacklo_epi16(h, h), 16));
}
AP_INLINE v4 load(const bf16* p) { return _mm_castsi128_ps(_mm_unpacklo_epi16(_mm_setzero_si128(), load_64(p))); }
AP_INLINE void load8(const f16* p, v4& lo, v4& hi) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  lo = f16_lanes(_mm_srai_epi32(_mm_unpacklo_epi16(h, h), 16));
  hi = f16_lanes(_mm_srai_epi32(_mm_unpackhi_epi16(h, h), 16));
}
AP_INLINE void load8(const bf16* p, v4& lo, v4& hi) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), z = _mm_setzero_si128();
  lo = _mm_castsi128_ps(_mm_unpacklo_epi16(z, h));
  hi = _mm_castsi128_ps(_mm_unpackhi_epi16(z, h));
}
AP_INLINE void load8_unscaled(const f16* p, v4& lo, v4& hi) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i top = _mm_and_si128(_mm_srai_epi16(h, 3), _mm_set1_epi16(static_cast<int16_t>(0x8fff)));
  const __m128i low = _mm_slli_epi16(h, 13);
  lo = _mm_castsi128_ps(_mm_unpacklo_epi16(low, top));
  hi = _mm_castsi128_ps(_mm_unpackhi_epi16(low, top));
}
#else
AP_INLINE void load8_unscaled(const f16* p, v4& lo, v4& hi) {
  constexpr float kDown = 1.925929944387236e-34f;  // 2^-112: exact on every finite F16 value
  lo = v4{{to_f32(p[0]) * kDown, to_f32(p[1]) * kDown, to_f32(p[2]) * kDown, to_f32(p[3]) * kDown}};
  hi = v4{{to_f32(p[4]) * kDown, to_f32(p[5]) * kDown, to_f32(p[6]) * kDown, to_f32(p[7]) * kDown}};
}
AP_INLINE v4 load(const bf16* p) { return v4{{to_f32(p[0]), to_f32(p[1]), to_f32(p[2]), to_f32(p[3])}}; }
AP_INLINE v4 load(const f16* p) { return v4{{to_f32(p[0]), to_f32(p[1]), to_f32(p[2]), to_f32(p[3])}}; }
template <typename H>
AP_INLINE void load8(const H* p, v4& lo, v4& hi) {
  lo = load(p);
  hi = load(p + 4);
}
#endif

// ---- reductions --------------------------------------------------------------------------------
AP_INLINE float hsum(v4 a) {
  a = add(a, swap_pairs(a));
  return lane0(add(a, swap_lanes(a)));
}
AP_INLINE float hmax(v4 a) {
  a = max(a, swap_pairs(a));
  return lane0(max(a, swap_lanes(a)));
}
// [sum(a), sum(b), sum(c), sum(d)]: four dot products finished with 4 shuffles and 3 adds.
AP_INLINE v4 hsum4(v4 a, v4 b, v4 c, v4 d) {
  v4 ab = add(shuf_0415(a, b), shuf_2637(a, b));  // [a0+a2, b0+b2, a1+a3, b1+b3]
  v4 cd = add(shuf_0415(c, d), shuf_2637(c, d));  // [c0+c2, d0+d2, c1+c3, d1+d3]
  return add(shuf_0145(ab, cd), shuf_2367(ab, cd));
}

// Horner's rule c[0] x^(N-1) + ... + c[N-1], highest power first (the polynomials below).
template <int N>
AP_INLINE v4 horner(v4 x, const float (&c)[N]) {
  v4 p = splat(c[0]);
  for (int i = 1; i < N; ++i) p = madd(p, x, splat(c[i]));
  return p;
}

// ---- exp ---------------------------------------------------------------------------------------
// e^x = 2^n e^r with n = round(x log2 e) and |r| <= ln2/2 (Cody-Waite split of ln 2 keeps r exact
// enough), e^r from Cephes' expf polynomial (1 + r + r^2 P(r)), and 2^n applied by adding n to the
// exponent field. For x in [ln FLT_MIN, ln FLT_MAX] = [-87.3365, 88.7228] that addition is exact:
// at the low end n = -126 only occurs with r >= 0, i.e. e^r >= 1. Outside: x below (including the
// -inf of a masked score) gives exactly 0, so denormal results are flushed to 0 and a masked score
// contributes exactly nothing to a softmax; x above gives +inf.
// Max relative error against std::exp: exp_vec in attention.hpp states it; the tests check it.
// About 30 vector operations per 4 results, no table, no branch.
AP_INLINE v4 exp(v4 x) {
  const v4 hi = splat(88.72283f), lo = splat(-87.33654f);  // both just inside the normal range
  v4 xc = min(max(x, lo), hi);
  // Round to nearest with the 1.5*2^23 trick (valid for |t| < 2^22): t's low bits are then n.
  const v4 magic = splat(12582912.0f);
  v4 t = add(mul(xc, splat(1.44269504088896341f)), magic);
  v4 n = sub(t, magic);
  v4 r = sub(xc, mul(n, splat(0.693359375f)));
  r = sub(r, mul(n, splat(-2.12194440e-4f)));
  static constexpr float kP[] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
  v4 p = madd(mul(horner(r, kP), r), r, add(r, splat(1.0f)));
  v4 result = scale_by_exponent_of(p, t);
  result = select(lt(x, lo), zero(), result);
  return select(gt(x, hi), splat(__builtin_huge_valf()), result);
}

// 2^x for x <= 0 (and small x > 0, as the online softmax's lazy max needs: x < 16 there). The
// online softmax calls it on (s - max) log2 e, the shift subtracted first so large scores keep
// their differences; no Cody-Waite split is needed: x = n + f with n = round(x),
// |f| <= 1/2, 2^f from a degree-6 polynomial fitted (Remez) to the relative error of 2^f on
// [-1/2, 1/2] (2.6e-9 in exact arithmetic, so float rounding dominates; constant term exactly 1,
// so 2^0 = 1 exactly), and 2^n added to the exponent field. x < -125 (including the -inf of a
// masked or padded score) gives exactly 0: whatever the lanes computed there is masked off, and
// results stay normal floats (no denormals for the products that follow). About half the work of
// exp() above: 19 vector operations per 4 results.
AP_INLINE v4 exp2_nonpos(v4 x) {
  const v4 magic = splat(12582912.0f);  // 1.5 * 2^23: t's low bits hold round(x)
  v4 t = add(x, magic);
  v4 f = sub(x, sub(t, magic));
  static constexpr float kP[] = {
      1.559467755e-4f, 1.340664391e-3f, 9.617692975e-3f, 5.550310551e-2f, 2.402265278e-1f, 6.931472150e-1f, 1.0f};
  const v4 p = horner(f, kP);
  return and_mask(scale_by_exponent_of(p, t), ge(x, splat(-125.0f)));
}

}  // namespace ap::kernels::simd
