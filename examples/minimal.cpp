// A minimal C++ program using the core natively: multi-head attention on three tokens with
// every stage recorded, printed stage by stage. Built by CMake as examples/minimal:
//   cmake -S . -B build/native && cmake --build build/native --target minimal && build/native/minimal
#include <cstdio>

#include "core/attention.hpp"

int main() {
  ap::Mat x(3, 4);  // (n, d): "the", "cat", "sat"
  x << 1, 0, 1, 0, 0, 2, 0, 1, 1, 1, 1, 1;
  const ap::Mat eye = ap::Mat::Identity(4, 4);
  ap::AttentionWeights w{eye, eye, eye, eye, {}, {}, {}, {}};
  ap::AttentionOptions opt;
  opt.n_heads = 2;
  opt.causal = true;
  ap::Trace trace;
  ap::Mat out;
  ap::multi_head_attention(out, x, x, w, opt, &trace);
  for (const ap::Stage& s : trace.stages()) {
    std::printf("%-9s [", s.name.c_str());
    for (size_t i = 0; i < s.shape.size(); ++i) std::printf("%s%d", i ? " x " : "", s.shape[i]);
    std::printf("]:");
    for (size_t i = 0; i < s.data.size() && i < 8; ++i) std::printf(" %.3f", s.data[i]);
    std::printf("%s\n", s.data.size() > 8 ? " ..." : "");
  }
  return 0;
}
