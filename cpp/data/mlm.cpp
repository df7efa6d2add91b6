// The mlm task: BERT's objective on the grammar task's sentences. The sentences come from the
// grammar task itself (same generator, same held-out subjects); this file only decides which
// words to hide (see tasks.hpp for the format).
#include <string>
#include <vector>

#include "base/tensor.hpp"
#include "data/tasks.hpp"

namespace ap::train {

std::unique_ptr<Task> make_grammar_task();  // grammar.cpp

namespace {

constexpr double kMaskRate = 0.15;    // BERT's share of masked words (training)
constexpr double kDropPeriod = 0.25;  // sentences drawn without their final "."

class MlmTask : public Task {
 public:
  MlmTask() : grammar_(make_grammar_task()) {
    std::vector<std::string> vocab = grammar_->tokenizer().vocab();
    vocab.push_back(Tokenizer::kMaskPiece);
    tok_ = Tokenizer(Tokenizer::Kind::Word, std::move(vocab));
    mask_id_ = tok_.mask_id();
  }
  std::string name() const override { return "mlm"; }
  Arch arch() const override { return Arch::EncoderOnly; }
  int max_len() const override { return grammar_->max_len(); }
  int mask_id() const override { return mask_id_; }

  Example sample(Rng& rng, Split split) const override {
    Example e = grammar_->sample(rng, split);
    std::vector<std::string> words = tok_.split(e.tgt);
    if (!words.empty() && words.back() == "." && rng.chance(kDropPeriod)) {
      words.pop_back();
      e.tgt = e.tgt.substr(0, e.tgt.size() - 2);  // " ."
    }
    int n = static_cast<int>(words.size());
    if (n > 0 && words.back() == ".") --n;  // the final "." is never hidden
    if (n <= 0) fail("mlm: an empty sentence");
    if (split == Split::HeldOut) {
      const int at = rng.below(n);
      e.masked = {at};
      e.kind = grammar_word_class(words[static_cast<size_t>(at)]);
    } else {
      for (int i = 0; i < n; ++i)
        if (rng.chance(kMaskRate)) e.masked.push_back(i);
      if (e.masked.empty()) e.masked.push_back(rng.below(n));
    }
    return e;
  }

 private:
  std::unique_ptr<Task> grammar_;
  int mask_id_ = -1;
};

}  // namespace

std::unique_ptr<Task> make_mlm_task() { return std::make_unique<MlmTask>(); }

}  // namespace ap::train
