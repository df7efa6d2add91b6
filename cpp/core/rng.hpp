// splitmix64: a tiny seeded generator, so the same seed gives the same weights and samples on
// every platform (std:: distributions differ between standard libraries).
#pragma once
#include <cstdint>

namespace ap {

struct SplitMix64 {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }              // [0, 1)
  double unit_open() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }  // (0, 1)
  float symmetric(double a) { return static_cast<float>((unit() * 2.0 - 1.0) * a); }   // [-a, a)
};

}  // namespace ap
