// 16-bit weights kept as a checkpoint stores them: IEEE binary16 (F16) and bfloat16 (BF16), each
// a distinct type over its raw bits so that a kernel templated on its B operand picks the right
// widening load by overload (kernels/simd4.hpp), and a float pointer is never mistaken for one.
// Widening is exact (every F16 and BF16 value is a float32 value); the kernels widen in registers.
#pragma once
#include <cstdint>
#include <cstring>

namespace ap {

struct f16 {
  uint16_t bits;
};
struct bf16 {
  uint16_t bits;
};
static_assert(sizeof(f16) == 2 && sizeof(bf16) == 2, "16-bit weights are 2 bytes each");

// BF16 is the top half of a float32: widening shifts it into place.
inline float bf16_to_float(bf16 h) {
  const uint32_t u = static_cast<uint32_t>(h.bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Finite (neither infinity nor NaN): the exponent field not all ones. Only finite values are kept
// as 16-bit weights (the loaders check), which is what lets the F16 kernels widen by one multiply.
constexpr uint16_t kF16Exponent = 0x7c00u, kBF16Exponent = 0x7f80u;  // the exponent fields
inline bool is_finite(f16 h) { return (h.bits & kF16Exponent) != kF16Exponent; }
inline bool is_finite(bf16 h) { return (h.bits & kBF16Exponent) != kBF16Exponent; }

}  // namespace ap
