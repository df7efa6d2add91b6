#include "trace/trace.hpp"

#include <numeric>

namespace ap {

Stage& Trace::add(const std::string& name, const std::string& stack, int layer, std::vector<int> shape) {
  size_t size = 1;
  for (int s : shape) size *= static_cast<size_t>(s);
  Stage st;
  st.name = name;
  st.stack = stack;
  st.layer = layer;
  st.shape = std::move(shape);
  st.data.assign(size, 0.0f);
  stages_.push_back(std::move(st));
  return stages_.back();
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
