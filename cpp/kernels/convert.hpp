// Widening F16 (IEEE binary16) values to float32, as a checkpoint's F16 tensors are read: the
// English models ship in F16, and opening one converts 1.35 million values on the page's main
// thread. half_to_float() is the scalar reference; halves_to_floats() is the loop, 8 values per
// step in wasm SIMD128, bit-exact with the reference for every one of the 65,536 inputs.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ap::kernels {

float half_to_float(uint16_t bits);

// dst[i] = half_to_float(the little-endian binary16 at src + 2 i), i < count.
void halves_to_floats(float* dst, const uint8_t* src, size_t count);

}  // namespace ap::kernels
