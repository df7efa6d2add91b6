// The record of a forward pass: every named intermediate in its own buffer, so a
// student (or a test) can address any step. Stage names are docs/design.md's table.
#pragma once
#include <deque>
#include <string>
#include <vector>
#include "core/tensor.hpp"

namespace ap {

struct Stage {
  std::string name;         // "q", "scores", "weights", "cross_weights", "norm2", "logits", ...
  std::string stack;        // "encoder", "decoder", or "" for stages outside a stack (e.g. the attention call)
  int layer = -1;           // -1 for stages outside the layers (tokens, embed, logits)
  std::vector<int> shape;   // row-major; per-head stages are [h, n, m] or [h, n, d_k]
  std::vector<float> data;  // size = product of shape (token ids are stored as floats)
};

class Trace {
 public:
  // Adds a stage and returns a map over its buffer for the caller to fill.
  // 2-D: shape {rows, cols}. 3-D per-head: shape {h, rows, cols}; head(h) gives each slice.
  Stage& add(const std::string& name, const std::string& stack, int layer, std::vector<int> shape);
  MatMap add2d(const std::string& name, const std::string& stack, int layer, int rows, int cols);
  // Per-head slice h of a [h, rows, cols] stage as a (rows, cols) map.
  static MatMap head(Stage& s, int h);
  // nullptr when absent.
  const Stage* find(const std::string& name, const std::string& stack = "", int layer = -1) const;
  Stage* find(const std::string& name, const std::string& stack = "", int layer = -1);
  const std::deque<Stage>& stages() const { return stages_; }
  void clear() { stages_.clear(); }

 private:
  std::deque<Stage> stages_;  // deque: references stay valid as stages are added
};

}  // namespace ap
