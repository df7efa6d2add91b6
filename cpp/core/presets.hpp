// Lecture presets: hand-set inputs and weights that reproduce the worked examples of the
// notes exactly. Each preset id starts with the docs/concepts.md concept id it illustrates
// ("softmax.the-cat-sat"); `concepts` lists every concept the same numbers demonstrate, and no
// concept lists one example twice (an example shown under two concepts by two ids, each id lists
// only its own concept).
#pragma once
#include <string>
#include <vector>
#include "base/tensor.hpp"
#include "core/config.hpp"
#include "trace/trace.hpp"

namespace ap {

struct Preset {
  std::string id;                     // e.g. "softmax.the-cat-sat"
  std::vector<std::string> concepts;  // docs/concepts.md ids
  std::string source;                 // seed file, e.g. "000"
  std::string title;
  std::string claim;  // what the notes say, in words
  int row = -1;       // the query row the claim is about (its views open on it); -1: none
  std::vector<std::string> tokens;
  int d_model = 0, n_heads = 1;
  bool causal = false, scale = true;
  PosKind pos = PosKind::None;  // None or Sinusoidal
  Mat x, wq, wk, wv, wo;        // (n, d), (d, d) x4
};

const std::vector<Preset>& lecture_presets();
const Preset& find_preset(const std::string& id);  // throws ap::Error listing the known ids

// One of its input matrices by name: "x", "wq", "wk", "wv", "wo"; throws ap::Error otherwise.
const Mat& preset_matrix(const Preset& p, const std::string& which);
// The head counts its switches may take (switch_choices, as for a model of its width).
std::vector<int> preset_head_choices(const Preset& p);

// Records embed (x as given), pos and x (when positions are on), then every attention stage.
void run_preset(const Preset& p, Trace& trace);

}  // namespace ap
