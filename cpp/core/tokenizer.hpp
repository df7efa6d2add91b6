// Character-level and word-level tokenizers with an unknown token.
// Fixed special ids: 0 <pad>, 1 <unk>, 2 <bos>, 3 <eos>; the vocabulary follows.
// Word level: lower-cased, split on whitespace, each punctuation character its own token.
// Char level: one token per UTF-8 code point (spaces are tokens).
// Sentence level: word level, plus French elision and sentence case, for the translation task:
//   an apostrophe (' or U+2019) right after a word ends that word and stays on it
//   ("L'accord" -> "l'" "accord"); decoding writes no space after such a piece and capitalises
//   the first letter of the text (ASCII only: "l' accord" -> "L'accord"). Everything else is as
//   at word level, so the two kinds differ only on apostrophes and on the first letter.
//
// A tokenizer read from a Hugging Face tokenizer.json (byte-level BPE as in GPT-2, WordPiece as in
// BERT; io/hf_tokenizer) is a fourth kind, Kind::External: a TokenizerBackend does the work and
// names its own special tokens (GPT-2 has no <pad>; BERT's [PAD] [UNK] [CLS] [SEP] [MASK] are
// ids 0, 100, 101, 102, 103). pad_id() ... mask_id() answer for every kind (-1: none).
#pragma once
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ap {

// What a tokenizer read from someone else's file does (an interface, so that the first wasm
// module, which never opens such a file, carries none of its code).
struct TokenizerBackend {
  struct Encoded {
    std::vector<int> ids;
    std::vector<std::string> pieces;
    std::vector<int> unknown;
  };
  virtual ~TokenizerBackend() = default;
  virtual Encoded encode(const std::string& text) const = 0;  // with the file's special tokens ([CLS] ... [SEP])
  virtual std::string decode(const std::vector<int>& ids) const = 0;
  virtual const std::vector<std::string>& vocab() const = 0;   // id -> token ("" for an id with none)
  virtual const std::vector<std::string>& pieces() const = 0;  // id -> the token as encode's pieces show it
  virtual int id_of(const std::string& token) const = 0;       // -1 when absent
  virtual std::string name() const = 0;                        // "byte-level BPE", "WordPiece"
  virtual int pad() const = 0;                                 // -1 when absent
  virtual int unk() const = 0;
  virtual int bos() const = 0;  // GPT-2 <|endoftext|>, BERT [CLS]
  virtual int eos() const = 0;  // GPT-2 <|endoftext|>, BERT [SEP]
  virtual int mask() const = 0;
  // The file it was read from (a tokenizer.json's text), so a model file can carry it; "" if none.
  virtual const std::string& source() const = 0;
};

class Tokenizer {
 public:
  enum class Kind { Char, Word, Sentence, External };
  static constexpr int kPad = 0, kUnk = 1, kBos = 2, kEos = 3;
  // The mask token of a masked language model with a built-in tokenizer (data/mlm.cpp adds it
  // after grammar's words): mask_id() is its id in any built-in vocabulary that holds it.
  static constexpr const char* kMaskPiece = "[MASK]";

  Tokenizer() = default;
  // "char", "word", "sentence", "hf" (the name a model config stores); throws ap::Error otherwise.
  // "hf": the model file carries a tokenizer.json (metadata "tokenizer.json"), read by
  // read_tokenizer_json.
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

  // A tokenizer whose work a backend does (Kind::External).
  explicit Tokenizer(std::shared_ptr<const TokenizerBackend> backend);

  Kind kind() const { return kind_; }
  const std::vector<std::string>& vocab() const { return backend_ ? backend_->vocab() : vocab_; }
  // id -> the token as encode's pieces show it (a byte-level BPE token as text: " the", not "Ġthe";
  // part of a character as its bytes, <0xC3>); the vocabulary itself for the project's own kinds.
  const std::vector<std::string>& pieces() const { return backend_ ? backend_->pieces() : vocab_; }
  int size() const { return static_cast<int>(vocab().size()); }
  // Human name of the kind: "char", "word", "sentence", or the backend's ("byte-level BPE").
  std::string kind_label() const { return backend_ ? backend_->name() : name_of(kind_); }
  // This tokenizer's special ids; -1 when it has none. Built-in kinds: 0..3, and the mask is
  // kMaskPiece's id when the vocabulary has it.
  int pad_id() const { return backend_ ? backend_->pad() : kPad; }
  int unk_id() const { return backend_ ? backend_->unk() : kUnk; }
  int bos_id() const { return backend_ ? backend_->bos() : kBos; }
  int eos_id() const { return backend_ ? backend_->eos() : kEos; }
  int mask_id() const { return backend_ ? backend_->mask() : mask_; }
  int id_of(const std::string& piece) const;  // kUnk when absent
  // Kind::External: the file the backend was read from ("" when none); other kinds: "".
  const std::string& source() const;

 private:
  Kind kind_ = Kind::Char;
  std::vector<std::string> vocab_;
  std::unordered_map<std::string, int> index_;
  int mask_ = -1;
  std::shared_ptr<const TokenizerBackend> backend_;
};

// A tokenizer.json read into a Tokenizer, by the reader set below (io/hf_model's hf_tokenizer);
// without one (the first wasm module) this throws an ap::Error saying which module reads it.
Tokenizer read_tokenizer_json(const std::string& json_text);
using TokenizerJsonReader = Tokenizer (*)(const std::string&);
// Set once where the Hugging Face code is linked in (cpp/data/english.cpp, a static initialiser:
// the second wasm module and the native tools; the first module never sets it).
bool set_tokenizer_json_reader(TokenizerJsonReader reader);

}  // namespace ap
