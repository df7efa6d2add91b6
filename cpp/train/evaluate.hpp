// Held-out evaluation of a finished model through the inference core (ap::Model::forward,
// the code the browser runs), so a shipped file is measured as students will use it:
// exact match of greedy decoding (recomputing the whole prefix each step) for sort, reverse
// and dates; for grammar, the share of agreement pairs whose correct verb form gets the
// higher logit; for mlm, the share of held-out sentences (one word hidden) whose hidden word
// is the top-1 prediction at the [MASK] position. The held-out examples are those of Trainer::evaluate for the same
// seed.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>
#include "core/model.hpp"
#include "data/tasks.hpp"

namespace ap::train {

struct EvalResult {
  int total = 0, correct = 0;                          // exact matches, or agreement pairs won
  std::map<std::string, std::pair<int, int>> by_kind;  // kind -> (correct, total)
  std::map<std::string, double> nll;  // a language model (Trainer::evaluate): kind -> summed -ln p(target)
  void add(const std::string& kind, bool ok);
  double accuracy() const { return total ? static_cast<double>(correct) / total : 0.0; }
  // The lowest per-kind accuracy, and its kind.
  double worst_kind(std::string* kind = nullptr) const;
};

// Greedy decoding with the core from the task's prompt; the generated ids without <eos>.
std::vector<int> core_greedy(const Model& model, const Task& task, const std::string& src);

// n held-out examples drawn with seed; `threads` workers split the examples.
EvalResult evaluate_model(const Model& model, const Task& task, int n, uint64_t seed, int threads = 1);

// A trained model on the task its file names (metadata "task"); throws if it names none or n < 1.
EvalResult evaluate_on_own_task(const Model& model, int n, uint64_t seed);

}  // namespace ap::train
