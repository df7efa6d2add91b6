// The record of a forward pass: every named intermediate in its own buffer, so a
// student (or a test) can address any step. Stage names are docs/design.md's table.
#pragma once
#include <deque>
#include <map>
#include <string>
#include <vector>
#include "base/tensor.hpp"

namespace ap {

struct Stage {
  std::string name;         // "q", "scores", "weights", "cross_weights", "norm2", "logits", ...
  std::string stack;        // "encoder", "decoder", or "" for stages outside a stack (e.g. the attention call)
  int layer = -1;           // -1 for stages outside the layers (tokens, embed, logits)
  std::vector<int> shape;   // row-major; per-head stages are [h, n, m] or [h, n, d_k]
  std::vector<float> data;  // size = product of shape (token ids are stored as floats)
  // What the stage is for a reader: "block_output" on the stage a block hands to the next one (as
  // the block computed it: norm2 after a post-norm block, resid2 after a pre-norm one, the
  // attention sublayer's stage in an attention-only block), "stack_output" on a pre-norm stack's
  // final_norm (a post-norm stack's output is its last block's), "" for the others.
  std::string role;
};

// What a traced call keeps, so that a pretrained model's forward need not hold every stage of
// every layer (GPT-2 small on 512 tokens would record about 1.5 GB). By default everything.
// Otherwise: every stage outside the layers (tokens, embed, x, final_norm, logits, probs...), every
// stage of the listed layers, and the listed stage names in every layer (e.g. "weights" for a
// grid of all heads); minus the names in drop ("probs": a vocabulary-wide softmax per row).
// Stages not kept are still computed, in scratch buffers reused from layer to layer.
struct TraceKeep {
  bool all = true;
  std::vector<int> layers;
  std::vector<std::string> names;
  std::vector<std::string> drop;
};

class Trace {
 public:
  // Adds a stage and returns a map over its buffer for the caller to fill.
  // 2-D: shape {rows, cols}. 3-D per-head: shape {h, rows, cols}; head(h) gives each slice.
  Stage& add(const std::string& name, const std::string& stack, int layer, std::vector<int> shape);
  MatMap add2d(const std::string& name, const std::string& stack, int layer, int rows, int cols);
  // Per-head slice h of a [h, rows, cols] stage as a (rows, cols) map.
  static MatMap head(Stage& s, int h);
  // Sets the role of a recorded stage (nothing when the stage was not kept).
  void mark(const std::string& name, const std::string& stack, int layer, const char* role) {
    if (Stage* s = find(name, stack, layer)) s->role = role;
  }
  // nullptr when absent.
  const Stage* find(const std::string& name, const std::string& stack = "", int layer = -1) const;
  Stage* find(const std::string& name, const std::string& stack = "", int layer = -1);
  const std::deque<Stage>& stages() const { return stages_; }
  // Drops the stages (not what to keep: set it before the call that fills the trace).
  void clear() {
    stages_.clear();
    scratch_.clear();
  }
  void set_keep(TraceKeep keep) { keep_ = std::move(keep); }
  const TraceKeep& keep() const { return keep_; }
  // Whether a stage of this name and layer is recorded (logits always are: a call's result).
  bool keeps(const std::string& name, int layer) const;

 private:
  std::deque<Stage> stages_;              // deque: references stay valid as stages are added
  std::map<std::string, Stage> scratch_;  // stages not kept, one buffer per name
  TraceKeep keep_;
};

}  // namespace ap
