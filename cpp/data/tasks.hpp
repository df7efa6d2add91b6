// The training tasks, each a seeded generator of examples, and how an example becomes
// token ids. Same seed, same examples, natively and in wasm (base/rng.hpp).
//
// Sequence formats (what a model file's "task" expects at inference time):
//   sort, reverse (decoder-only, characters): "<bos>" + input + "=" + output + "<eos>".
//       The prompt is "<bos>" + input + "="; the loss covers only the output and <eos>
//       (targets of prompt positions are 0). Inputs are 6..10 characters of [0-9a-z];
//       sort orders them by code point (digits before letters).
//   dates (encoder-decoder, characters): encoder input = the date as written, no specials;
//       decoder = "<bos>" + "YYYY-MM-DD" + "<eos>", loss on every decoder position.
//       Years 1950..2049; two-digit years mean 19yy for yy >= 50, else 20yy.
//   grammar (decoder-only, words): "<bos>" + sentence + "<eos>", loss everywhere: a language model.
//       Word tokenizer: lower case, "." its own token.
//   mlm (encoder-only, words): a masked language model over grammar's sentences (the same
//       generator), BERT-style: the input is the sentence with some words replaced by [MASK]
//       (no <bos>/<eos>), the targets are the hidden words at those positions (0 elsewhere),
//       attention is bidirectional. Training masks each word with probability 0.15 (at least
//       one; never the final "."); held-out examples mask exactly one word, and their kind is
//       the hidden word's class (determiner, noun, verb, ...). One sentence in four is drawn
//       without its final "." so that sentences typed without it are in the distribution too.
//       Vocabulary: grammar's, then "[MASK]".
//   translate (encoder-decoder, sentence tokenizer: words, elided "l'" kept whole): encoder input =
//       the English sentence, decoder = "<bos>" + the French sentence + "<eos>" (translation.cpp).
//   induction (decoder-only, characters a-z): "<bos>" + s + s, s 6..12 random letters, a language
//       model with the loss everywhere and no <eos>; held-out accuracy per kind of target ("first
//       pass", "repeat"). The induction view's task: a copy of s can only be predicted by looking back.
// Held-out data: every task hashes an example's key (the input string; the date; the subject
// phrase of a sentence; mlm: grammar's) and reserves one bucket in 10 (sort, reverse: 1 in 20) for evaluation:
// training never draws a held-out key, evaluation draws only held-out keys.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>
#include "base/error.hpp"  // make_task throws ap::Error
#include "base/rng.hpp"
#include "core/config.hpp"
#include "core/tokenizer.hpp"
#include "data/batch.hpp"

namespace ap::train {

enum class Split { Train, HeldOut };

struct Example {
  std::string src;          // input text (empty for the language model)
  std::string tgt;          // output text (the sentence, for the language model)
  std::string kind;         // a label for per-kind accuracy: the date format, the sentence pattern...
  std::vector<int> masked;  // mlm: positions (in tgt's tokens) replaced by [MASK], ascending
  std::vector<int>
      ids;  // english, english-mlm: tgt's tokens, already cut from the corpus (tgt is empty); induction: tgt's
  bool ended = false;  // english: the document ends after ids (an <eos> target follows)
};

// A grammar agreement probe: after `prefix` (ids, starting with <bos>) the verb form `good`
// must be more probable than `bad` (same verb, other number).
struct AgreementPair {
  std::vector<int> prefix;
  int good = 0, bad = 0;
  std::string kind;  // "simple", "pp_attractor", "subject_rc", "object_rc", ...
  std::string text;  // the prefix and both verbs, for reports
};

class Task {
 public:
  virtual ~Task() = default;
  virtual std::string name() const = 0;
  virtual Arch arch() const = 0;
  virtual int max_len() const = 0;  // longest sequence any example needs (a model's max_len)
  const Tokenizer& tokenizer() const { return tok_; }
  // The prompt separator of decoder-only seq2seq tasks ("="), or "" for a language model /
  // an encoder-decoder task.
  virtual std::string separator() const { return ""; }
  virtual Example sample(Rng& rng, Split split) const = 0;
  // Grammar only: agreement probes drawn from held-out subjects.
  virtual std::vector<AgreementPair> agreement_pairs(Rng&, int /*count*/) const { return {}; }
  // Masked LM only: the id of "[MASK]", else -1.
  virtual int mask_id() const { return -1; }
  // A language model over a corpus (english): held-out evaluation is next-token accuracy.
  virtual bool corpus_lm() const { return false; }
  // A language model's held-out accuracy per kind of target: the kind of target `at` of example e
  // (0-based, the token after input `at`). One kind, "token", unless a task tells its targets apart
  // (induction: "first pass" and "repeat").
  virtual std::string token_kind(const Example& /*e*/, int /*at*/) const { return "token"; }
  // What the model file records about the data besides "task" (corpus, split, tokenizer).
  virtual std::map<std::string, std::string> file_metadata() const { return {}; }

 protected:
  Tokenizer tok_;
};

// "sort", "reverse", "dates", "grammar", "mlm", "translate", and the corpus tasks "english" and
// "english-mlm", which read `data` (a folder written by `npm run train -- english`: tokenizer.json,
// train.txt, heldout.txt, split.json); throws ap::Error naming the known tasks otherwise.
std::unique_ptr<Task> make_task(const std::string& name, const std::string& data = "");
// The tasks that generate their own examples (the corpus tasks need a data folder).
std::vector<std::string> task_names();

// Appends piece to a vocabulary's pieces unless it is there already (first-seen order).
void add_piece(std::vector<std::string>& pieces, const std::string& piece);

// Token ids of one example in the sequence format above.
struct EncodedExample {
  std::vector<int> src;      // encoder ids (encoder-decoder), else empty
  std::vector<int> inputs;   // decoder input (encoder-only: the masked sentence)
  std::vector<int> targets;  // next tokens (encoder-only: the hidden words), 0 where no loss
};
EncodedExample encode_example(const Task& task, const Example& ex);
// The decoder prompt for generation: "<bos>" + src + sep (decoder-only seq2seq) or "<bos>".
std::vector<int> prompt_ids(const Task& task, const std::string& src);
// Right-pads a list of encoded examples into one batch.
Batch make_batch(const std::vector<EncodedExample>& examples);

// The class of a word of grammar's vocabulary: "determiner", "noun", "verb" (every form,
// is/are/was/were too), "adjective", "preposition", "adverb", "pronoun" (who, that), "other".
std::string grammar_word_class(const std::string& word);

// Date helpers (exposed for tests): day of the week, 0 = Monday .. 6 = Sunday.
int weekday(int year, int month, int day);
int days_in_month(int year, int month);

}  // namespace ap::train
