// Character-level and word-level tokenizers with an unknown token.
// Fixed special ids: 0 <pad>, 1 <unk>, 2 <bos>, 3 <eos>; the vocabulary follows.
// Word level: lower-cased, split on whitespace, each punctuation character its own token.
// Char level: one token per UTF-8 code point (spaces are tokens).
// Sentence level: word level, plus French elision and sentence case, for the translation task:
//   an apostrophe (' or U+2019) right after a word ends that word and stays on it
//   ("L'accord" -> "l'" "accord"); decoding writes no space after such a piece and capitalises
//   the first letter of the text (ASCII only: "l' accord" -> "L'accord"). Everything else is as
//   at word level, so the two kinds differ only on apostrophes and on the first letter.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

namespace ap {

class Tokenizer {
 public:
  enum class Kind { Char, Word, Sentence };
  static constexpr int kPad = 0, kUnk = 1, kBos = 2, kEos = 3;

  Tokenizer() = default;
  // "char", "word", "sentence" (the name a model config stores); throws ap::Error otherwise.
  static Kind kind_from_name(const std::string& name);
  static const char* name_of(Kind kind);
  // `vocab` is the full list including the four specials at ids 0..3 (throws ap::Error otherwise,
  // or on duplicates / empty entries).
  Tokenizer(Kind kind, std::vector<std::string> vocab);
  // The full vocabulary for `pieces`: the four specials at ids 0..3, then the pieces in order.
  static std::vector<std::string> with_specials(const std::vector<std::string>& pieces);
  // Builds a vocabulary from example texts (specials first, then pieces in first-seen order).
  static Tokenizer build(Kind kind, const std::vector<std::string>& corpus);

  struct Encoded {
    std::vector<int> ids;
    std::vector<std::string> pieces;  // the text of each token as split
    std::vector<int> unknown;         // positions whose piece is not in the vocabulary (id = kUnk)
  };
  Encoded encode(const std::string& text) const;
  // Splits text into pieces without looking them up.
  std::vector<std::string> split(const std::string& text) const;
  // Skips <pad>, <bos>, <eos>; <unk> decodes to "<unk>". Char: concatenation; word: pieces
  // joined by single spaces, no space before punctuation.
  std::string decode(const std::vector<int>& ids) const;

  Kind kind() const { return kind_; }
  const std::vector<std::string>& vocab() const { return vocab_; }
  int size() const { return static_cast<int>(vocab_.size()); }
  int id_of(const std::string& piece) const;  // kUnk when absent

 private:
  Kind kind_ = Kind::Char;
  std::vector<std::string> vocab_;
  std::unordered_map<std::string, int> index_;
};

}  // namespace ap
