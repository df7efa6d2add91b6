// A padded batch of token ids: what the data side (data/tasks.hpp, make_batch) hands the trainer
// (train/transformer.hpp) for one step.
#pragma once
#include <vector>

namespace ap::train {

struct Batch {
  int B = 0;                   // sequences
  int T = 0;                   // decoder length (after padding)
  int S = 0;                   // source length (encoder-decoder only)
  std::vector<int> src;        // (B, S) encoder input, 0 = <pad>
  std::vector<int> inputs;     // (B, T) decoder input (encoder-only: encoder input), 0 = <pad>
  std::vector<int> targets;    // (B, T) next token; 0 = no loss (padding or prompt)
  int count_targets() const {  // positions with a loss
    int n = 0;
    for (int t : targets) n += t != 0;
    return n;
  }
};

}  // namespace ap::train
