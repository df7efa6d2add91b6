// The one random generator of the trainer: xoshiro256** seeded through splitmix64.
// Fixed arithmetic only (no std::random_device, no std:: distributions, whose output
// differs between standard libraries), so a seed gives the same numbers natively and in wasm.
#pragma once
#include <cmath>
#include <cstdint>

namespace ap::train {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { reseed(seed); }

  void reseed(uint64_t seed) {
    uint64_t x = seed;
    for (auto& word : s_) word = splitmix64(x);
    has_spare_ = false;
  }

  // splitmix64: a good 64-bit mix of a counter; also used to hash keys (held-out splits).
  static uint64_t splitmix64(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform integer in [0, n): the multiply-shift method (bias below 2^-32 for the n used here).
  int below(int n) { return static_cast<int>(((next() >> 32) * static_cast<uint64_t>(n)) >> 32); }
  // Uniform integer in [lo, hi].
  int between(int lo, int hi) { return lo + below(hi - lo + 1); }
  bool chance(double p) { return uniform() < p; }
  // Standard normal by Box-Muller (the spare value is kept for the next call).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u1 = uniform(), u2 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    const double r = std::sqrt(-2.0 * std::log(u1)), theta = 6.283185307179586 * u2;
    spare_ = r * std::sin(theta);
    has_spare_ = true;
    return r * std::cos(theta);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
  double spare_ = 0.0;
  bool has_spare_ = false;
};

// A stable 64-bit hash of a string (FNV-1a then a splitmix64 finish): decides held-out membership.
inline uint64_t hash_string(const char* s, size_t n) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(s[i]);
    h *= 0x100000001B3ull;
  }
  return Rng::splitmix64(h);
}

}  // namespace ap::train
