// The one random generator of the project (the core's views and initialisations, the decoder's
// sampling, the trainer's data and initial weights): a splitmix64 stream. Fixed arithmetic
// only (no std::random_device, no std:: distributions, whose output differs between standard
// libraries), so the same seed gives the same weights and samples natively and in wasm.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace ap {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) : s_(seed) {}

  void reseed(uint64_t seed) {
    s_ = seed;
    has_spare_ = false;
  }

  // splitmix64: one step of the stream on state x; also a good 64-bit mix of a counter.
  static uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  uint64_t next() { return splitmix64(s_); }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }               // [0, 1)
  double unit_open() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }  // (0, 1)
  float symmetric(double a) { return static_cast<float>((unit() * 2.0 - 1.0) * a); }    // [-a, a)
  // Uniform integer in [0, n): the multiply-shift method (bias below 2^-32 for the n used here).
  int below(int n) { return static_cast<int>(((next() >> 32) * static_cast<uint64_t>(n)) >> 32); }
  int between(int lo, int hi) { return lo + below(hi - lo + 1); }  // uniform in [lo, hi]
  bool chance(double p) { return unit() < p; }
  // Standard normal by Box-Muller: two per pair of uniforms, the second kept for the next call.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(unit_open())), a = 6.283185307179586 * unit();
    spare_ = r * std::sin(a);
    has_spare_ = true;
    return r * std::cos(a);
  }
  // Forgets a kept second normal, so the next normal() starts a new pair.
  void drop_spare() { has_spare_ = false; }
  // n values uniform in [-a, a), in order.
  template <typename T>
  void fill_symmetric(T* p, size_t n, double a) {
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<T>(symmetric(a));
  }
  // An Eigen matrix or vector (already sized) uniform with variance 1 / fan_in, so x W keeps
  // the size of x: [-sqrt(3 / fan_in), sqrt(3 / fan_in)).
  template <typename M>
  void fill_fan_in(M& m, int fan_in) {
    fill_symmetric(m.data(), static_cast<size_t>(m.size()), std::sqrt(3.0 / fan_in));
  }

 private:
  uint64_t s_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

// The name the generator had in the core; the same class.
using SplitMix64 = Rng;

// A stable 64-bit hash of a string (FNV-1a then a splitmix64 finish): decides held-out membership.
inline uint64_t hash_string(const char* s, size_t n) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(s[i]);
    h *= 0x100000001B3ull;
  }
  return Rng::splitmix64(h);
}

}  // namespace ap
