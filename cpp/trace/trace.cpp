#include "trace/trace.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace ap {

Stage& Trace::add(const std::string& name, const std::string& stack, int layer, std::vector<int> shape) {
  // Multiply in 64 bits: size_t is 32 bits in wasm, where h * n * m can wrap to a tiny buffer.
  constexpr uint64_t kMaxStageValues = uint64_t{1} << 26;  // 256 MiB of floats
  uint64_t size = 1;
  for (int s : shape) {
    if (s < 0) fail("stage '" + name + "' has a negative dimension");
    size *= static_cast<uint64_t>(s);
    if (size > kMaxStageValues)
      fail("stage '" + name + "' would hold more than " + std::to_string(kMaxStageValues) +
           " values: the input is too large to record every step");
  }
  const bool kept = keeps(name, layer);
  Stage& st = kept ? stages_.emplace_back() : scratch_[name];
  st.name = name;
  st.stack = stack;
  st.layer = layer;
  st.shape = std::move(shape);
  // A scratch buffer of the same size is reused as it is: its caller overwrites every value (the
  // attention's per-head stages), and zeroing 50 MB per layer at 512 tokens is time for nothing.
  if (kept || st.data.size() != static_cast<size_t>(size)) st.data.assign(static_cast<size_t>(size), 0.0f);
  return st;
}

bool Trace::keeps(const std::string& name, int layer) const {
  if (name == "logits") return true;
  auto has = [](const auto& list, const auto& x) { return std::find(list.begin(), list.end(), x) != list.end(); };
  if (has(keep_.drop, name)) return false;
  return keep_.all || layer < 0 || has(keep_.layers, layer) || has(keep_.names, name);
}

MatMap Trace::add2d(const std::string& name, const std::string& stack, int layer, int rows, int cols) {
  Stage& s = add(name, stack, layer, {rows, cols});
  return MatMap(s.data.data(), rows, cols);
}

MatMap Trace::head(Stage& s, int h) {
  const int rows = s.shape[1], cols = s.shape[2];
  return MatMap(s.data.data() + static_cast<size_t>(h) * rows * cols, rows, cols);
}

const Stage* Trace::find(const std::string& name, const std::string& stack, int layer) const {
  for (const Stage& s : stages_)
    if (s.name == name && s.stack == stack && s.layer == layer) return &s;
  return nullptr;
}

Stage* Trace::find(const std::string& name, const std::string& stack, int layer) {
  return const_cast<Stage*>(static_cast<const Trace*>(this)->find(name, stack, layer));
}

}  // namespace ap
