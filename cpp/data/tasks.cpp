// The string tasks (sort, reverse), the task registry, and the encoding of examples into
// the sequence formats documented in tasks.hpp.
#include "data/tasks.hpp"

#include <algorithm>

#include "base/tensor.hpp"

namespace ap::train {

std::unique_ptr<Task> make_dates_task();                                     // dates.cpp
std::unique_ptr<Task> make_grammar_task();                                   // grammar.cpp
std::unique_ptr<Task> make_mlm_task();                                       // mlm.cpp
std::unique_ptr<Task> make_translation_task();                               // translation.cpp
std::unique_ptr<Task> make_english_task(const std::string& data, bool mlm);  // english.cpp

namespace {

const char kAlphabet[] = "0123456789abcdefghijklmnopqrstuvwxyz";

// sort and reverse: a random string of 6..10 characters of [0-9a-z] and its transform.
class StringTask : public Task {
 public:
  explicit StringTask(bool sort) : sort_(sort) {
    std::vector<std::string> pieces = {"="};
    for (const char* c = kAlphabet; *c; ++c) pieces.emplace_back(1, *c);
    tok_ = Tokenizer(Tokenizer::Kind::Char, Tokenizer::with_specials(pieces));
  }
  std::string name() const override { return sort_ ? "sort" : "reverse"; }
  Arch arch() const override { return Arch::DecoderOnly; }
  int max_len() const override { return 1 + 10 + 1 + 10 + 1; }  // <bos> in = out <eos>
  std::string separator() const override { return "="; }

  Example sample(Rng& rng, Split split) const override {
    for (;;) {
      const int n = rng.between(6, 10);
      std::string s;
      for (int i = 0; i < n; ++i) s += kAlphabet[rng.below(36)];
      const bool held = hash_string(s.data(), s.size()) % 20 == 0;
      if (held != (split == Split::HeldOut)) continue;
      std::string out = s;
      if (sort_)
        std::sort(out.begin(), out.end());
      else
        std::reverse(out.begin(), out.end());
      return {s, out, "len" + std::to_string(n), {}, {}, false};
    }
  }

 private:
  bool sort_;
};

// induction: a random string of 6..kInductionLength letters read twice, "<bos>" s s, as a language
// model with the loss everywhere (no <eos>). The first pass is unpredictable (ln 26 nats a letter
// at best); every letter of the repeat but its first is predictable by copying: find the earlier
// copy of the current letter and say the letter that followed it (the first is the string's
// first). That is what an induction head does (Olsson et al. 2022), and a two-layer
// attention-only model forms one on this task. The length varies so that no fixed offset solves
// it: with every string 12 letters long, a head that looks 11 places back by position alone
// predicts the repeat, and no induction head forms (measured: the repeat's loss fell to 0.02 with
// every head's induction score under 0.05).
constexpr int kInductionLength = 12;
constexpr int kInductionShortest = 6;

class InductionTask : public Task {
 public:
  InductionTask() {
    std::vector<std::string> pieces;
    for (char c = 'a'; c <= 'z'; ++c) pieces.emplace_back(1, c);
    tok_ = Tokenizer(Tokenizer::Kind::Char, Tokenizer::with_specials(pieces));
  }
  std::string name() const override { return "induction"; }
  Arch arch() const override { return Arch::DecoderOnly; }
  int max_len() const override { return 1 + 2 * kInductionLength; }  // <bos> s s
  bool corpus_lm() const override { return true; }
  // Target `at` is the token after input `at`: targets 0..n-1 are the first copy, which nothing
  // predicts; targets n..2n-1 are the repeat, which looking back gives away (its first letter is
  // always the string's first, each later one the letter after the earlier copy of the one before).
  std::string token_kind(const Example& e, int at) const override {
    return at < static_cast<int>(e.ids.size() / 2) ? "first pass" : "repeat";
  }

  Example sample(Rng& rng, Split split) const override {
    for (;;) {
      std::string s;
      const int n = rng.between(kInductionShortest, kInductionLength);
      for (int i = 0; i < n; ++i) s += static_cast<char>('a' + rng.below(26));
      const bool held = hash_string(s.data(), s.size()) % 10 == 0;
      if (held != (split == Split::HeldOut)) continue;
      Example e;
      e.tgt = s + s;
      e.kind = "len" + std::to_string(n);
      e.ids = tok_.encode(e.tgt).ids;  // given as ids, so that no <eos> follows
      return e;
    }
  }
};

std::vector<int> ids_of(const Tokenizer& tok, const std::string& text) { return tok.encode(text).ids; }

}  // namespace

std::vector<std::string> task_names() {
  return {"sort", "reverse", "dates", "grammar", "mlm", "translate", "induction"};
}

std::unique_ptr<Task> make_task(const std::string& name, const std::string& data) {
  if (name == "english" || name == "english-mlm") return make_english_task(data, name == "english-mlm");
  if (name == "sort") return std::make_unique<StringTask>(true);
  if (name == "reverse") return std::make_unique<StringTask>(false);
  if (name == "dates") return make_dates_task();
  if (name == "grammar") return make_grammar_task();
  if (name == "mlm") return make_mlm_task();
  if (name == "translate") return make_translation_task();
  if (name == "induction") return std::make_unique<InductionTask>();
  fail("unknown task \"" + name.substr(0, 80) +
       "\" (known: sort, reverse, dates, grammar, mlm, translate, induction, english, english-mlm)");
}

void add_piece(std::vector<std::string>& pieces, const std::string& piece) {
  if (std::find(pieces.begin(), pieces.end(), piece) == pieces.end()) pieces.push_back(piece);
}

std::vector<int> prompt_ids(const Task& task, const std::string& src) {
  std::vector<int> ids = {task.tokenizer().bos_id()};
  if (task.arch() == Arch::DecoderOnly && !task.separator().empty()) {
    for (int id : ids_of(task.tokenizer(), src)) ids.push_back(id);
    ids.push_back(task.tokenizer().id_of(task.separator()));
  }
  return ids;
}

EncodedExample encode_example(const Task& task, const Example& ex) {
  const Tokenizer& tok = task.tokenizer();
  EncodedExample e;
  if (task.arch() == Arch::EncoderOnly) {  // masked LM: the sentence, some words -> [MASK]
    e.inputs = ex.ids.empty() ? ids_of(tok, ex.tgt) : ex.ids;
    e.targets.assign(e.inputs.size(), 0);
    for (int at : ex.masked) {
      if (at < 0 || at >= static_cast<int>(e.inputs.size())) fail("masked position out of range");
      e.targets[static_cast<size_t>(at)] = e.inputs[static_cast<size_t>(at)];
      e.inputs[static_cast<size_t>(at)] = task.mask_id();
    }
    return e;
  }
  std::vector<int> seq = prompt_ids(task, ex.src);
  const size_t prompt = seq.size();  // the first target is predicted from the last prompt token
  for (int id : ex.ids.empty() ? ids_of(tok, ex.tgt) : ex.ids) seq.push_back(id);
  if (ex.ids.empty() || ex.ended) seq.push_back(tok.eos_id());
  if (task.arch() == Arch::EncoderDecoder) e.src = ids_of(tok, ex.src);
  e.inputs.assign(seq.begin(), seq.end() - 1);
  e.targets.assign(seq.begin() + 1, seq.end());
  for (size_t i = 0; i + 1 < prompt; ++i) e.targets[i] = 0;  // no loss on predicting the prompt
  return e;
}

Batch make_batch(const std::vector<EncodedExample>& examples) {
  Batch b;
  b.B = static_cast<int>(examples.size());
  for (const auto& e : examples) {
    b.T = std::max(b.T, static_cast<int>(e.inputs.size()));
    b.S = std::max(b.S, static_cast<int>(e.src.size()));
  }
  b.inputs.assign(static_cast<size_t>(b.B) * b.T, 0);
  b.targets.assign(static_cast<size_t>(b.B) * b.T, 0);
  b.src.assign(static_cast<size_t>(b.B) * b.S, 0);
  for (int i = 0; i < b.B; ++i) {
    const auto& e = examples[static_cast<size_t>(i)];
    std::copy(e.inputs.begin(), e.inputs.end(), b.inputs.begin() + static_cast<std::ptrdiff_t>(i) * b.T);
    std::copy(e.targets.begin(), e.targets.end(), b.targets.begin() + static_cast<std::ptrdiff_t>(i) * b.T);
    std::copy(e.src.begin(), e.src.end(), b.src.begin() + static_cast<std::ptrdiff_t>(i) * b.S);
  }
  return b;
}

}  // namespace ap::train
