#include "kernels/convert.hpp"

#include <cstring>

#include "kernels/simd4.hpp"

namespace ap::kernels {

float half_to_float(uint16_t h) {
  // Branch-free for every normal value, inf and NaN (F. Giesen's "half to float": shift the
  // exponent and mantissa into place, rebias by 112, widen inf/NaN's exponent); a subnormal or
  // zero is the float subnormal trick (magic 2^-14 subtracted). Bit-exact with the long way.
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t bits = static_cast<uint32_t>(h & 0x7fffu) << 13;  // exponent and mantissa
  const uint32_t exp = bits & 0x0f800000u;                   // the F16 exponent, in place
  bits += (127u - 15u) << 23;                                // rebias
  if (exp == 0x0f800000u) {
    bits += (128u - 16u) << 23;  // inf / NaN: the float exponent all ones
  } else if (exp == 0) {         // zero or subnormal: renormalise through a float subtraction
    bits += 1u << 23;
    float f;
    std::memcpy(&f, &bits, 4);
    f -= 6.103515625e-05f;  // 2^-14
    std::memcpy(&bits, &f, 4);
  }
  bits |= sign;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

AP_NOINLINE void halves_to_floats(float* dst, const uint8_t* src, size_t count) {
  size_t i = 0;
#if AP_SIMD_WASM
  // The same steps on 4 lanes, both branches computed and the lanes chosen by masks.
  const v128_t exp_mask = wasm_i32x4_splat(0x0f800000), rebias = wasm_i32x4_splat((127 - 15) << 23);
  const v128_t widen = wasm_i32x4_splat((128 - 16) << 23), one_exp = wasm_i32x4_splat(1 << 23);
  const v128_t magic = wasm_f32x4_splat(6.103515625e-05f), zero = wasm_i32x4_splat(0);
  const auto four = [&](v128_t h, float* out) AP_INLINE_LAMBDA {
    const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x8000)), 16);
    v128_t bits = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x7fff)), 13);
    const v128_t exp = wasm_v128_and(bits, exp_mask);
    bits = wasm_i32x4_add(bits, rebias);
    bits = wasm_i32x4_add(bits, wasm_v128_and(wasm_i32x4_eq(exp, exp_mask), widen));
    const v128_t sub = wasm_f32x4_sub(wasm_i32x4_add(bits, one_exp), magic);
    bits = wasm_v128_bitselect(sub, bits, wasm_i32x4_eq(exp, zero));
    wasm_v128_store(out, wasm_v128_or(bits, sign));
  };
  for (; i + 8 <= count; i += 8) {
    const v128_t h8 = wasm_v128_load(src + 2 * i);  // 8 little-endian halves (wasm is little-endian)
    four(wasm_u32x4_extend_low_u16x8(h8), dst + i);
    four(wasm_u32x4_extend_high_u16x8(h8), dst + i + 4);
  }
#endif
  for (; i < count; ++i) dst[i] = half_to_float(static_cast<uint16_t>(src[2 * i] | src[2 * i + 1] << 8));
}

}  // namespace ap::kernels
