// Hugging Face tokenizers read from a tokenizer.json: byte-level BPE as in GPT-2 / distilgpt2, BERT's
// WordPiece, SentencePiece-style BPE with byte fallback as in Llama 2 / TinyLlama / Mistral, and
// byte-level BPE behind Llama 3's or Qwen2's split pattern. encode() gives exactly Hugging Face's ids
// (tests/cpp/test_hf_tokenizer.cpp and tests/wasm/hf-tokenizer*.test.js check them against the Rust
// `tokenizers` library, tests/reference/make_hf_tokenizers.mjs and make_llama_tokenizers.mjs).
//
// Supported tokenizer.json parts (anything else is refused with an ap::Error naming the field):
//   byte-level BPE (Kind::ByteLevelBpe): pre_tokenizer ByteLevel (add_prefix_space, use_regex:
//     GPT-2's split pattern, hand-written) or a Sequence of one ByteLevel; decoder ByteLevel or null.
//   byte-level BPE behind a split (Kind::SplitByteLevelBpe, Llama 3 and Qwen2): pre_tokenizer a
//     Sequence of Split (pattern {"Regex": Llama 3's or Qwen2's published pattern, compared as a
//     string and hand-written; any other pattern is refused showing its start}, behavior Isolated,
//     invert false) then ByteLevel (add_prefix_space false, use_regex false); decoder ByteLevel or null.
//   SentencePiece-style BPE (Kind::SentencePieceBpe, Llama 2): pre_tokenizer Metaspace (replacement
//     one character, prepend_scheme first / always / never or the older add_prefix_space, split),
//     or none when model.byte_fallback is true (Llama 2's normalizer then writes the "▁");
//     decoder Metaspace, or a Sequence of Replace ({"String": ...}), ByteFallback, Fuse and Strip.
//   All BPE: model BPE (vocab, merges as "a b" or ["a", "b"], dropout null, unk_token optional,
//     fuse_unk, ignore_merges, byte_fallback (<0xHH> pieces; SentencePiece-style only); no
//     continuing_subword_prefix / end_of_word_suffix).
//   WordPiece: normalizer BertNormalizer (clean_text, handle_chinese_chars, strip_accents,
//     lowercase) or null; pre_tokenizer BertPreTokenizer; model WordPiece (vocab, unk_token,
//     continuing_subword_prefix, max_input_chars_per_word); decoder WordPiece (prefix, cleanup) or null.
//   Normalizer (any kind): null, BertNormalizer, Prepend, Replace ({"String": ...}), NFC (Qwen2), or
//     a Sequence of Prepend, Replace and NFC (Llama 2: Prepend "▁", Replace " " -> "▁"). Not NFD,
//     NFKC, NFKD (refused by name). NFC is Unicode 14's (unicode_tables.hpp); invalid UTF-8 bytes
//     pass through it unchanged and block composition. The strings of these rules and of the
//     decoder's are short and their Sequences few (core/limits.hpp, kTokenizerRule*).
//   All: added_tokens (split out of the text first: lstrip, rstrip, single_word, normalized);
//     post_processor null, ByteLevel, TemplateProcessing (single sequence), BertProcessing,
//     RobertaProcessing, or a Sequence of these.
// Unicode data: unicode_tables.hpp (Unicode 14.0; see there for the version differences with HF).
// Text that is not valid UTF-8 (HF cannot receive it) is still tokenized: each invalid byte counts as
// one character of no category; byte-level BPE keeps its byte, byte fallback gives its <0xHH> piece,
// BertNormalizer's clean_text drops it.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/limits.hpp"

namespace ap {

class HfTokenizer {
 public:
  enum class Kind { ByteLevelBpe, WordPiece, SentencePieceBpe, SplitByteLevelBpe };
  // The pattern a byte-level BPE splits words with: GPT-2's (ByteLevel use_regex), none, or a Split
  // pre-tokenizer's Llama 3 or Qwen2 pattern.
  enum class Split { None, Gpt2, Llama3, Qwen2 };
  // Parses the text of a tokenizer.json. Throws ap::Error whose message starts with
  // "tokenizer.json: " and names the field (and the limit, for a file past one of `limits`), or is
  // "tokenizer.json nests more than 64 levels deep" (io/json_limited.hpp).
  static std::shared_ptr<const HfTokenizer> parse(const std::string& json_text,
                                                  const limits::TokenizerLimits& limits = {});
  Kind kind() const { return kind_; }
  // The words `split`'s pattern cuts `text` into, in order, covering it (None: the text itself).
  static std::vector<std::string> split_words(Split split, const std::string& text);
  Split split() const { return split_; }
  // "byte-level BPE", "WordPiece", "SentencePiece BPE", "byte-level BPE (Llama 3 split)",
  // "byte-level BPE (Qwen2 split)": what a page shows as the tokenizer's kind.
  std::string kind_name() const;

  struct Encoded {
    std::vector<int> ids;
    std::vector<std::string> pieces;  // byte-level: the token's bytes as UTF-8 (<0xC3> per byte for
                                      // part of a character); SentencePiece: the token with "▁" as a
                                      // space, a <0xHH> piece as its byte (so <0xC3> again for part of
                                      // a character); WordPiece: the token string; added tokens: the
                                      // text they matched, with any space lstrip / rstrip took
    std::vector<int> unknown;         // positions whose id is the unk token
  };
  // Hugging Face's tokenizer.encode(text, add_special_tokens).
  Encoded encode(const std::string& text, bool add_special_tokens) const;
  // Hugging Face's decode(ids, skip_special_tokens = true); ids without a token give "<id N>".
  std::string decode(const std::vector<int>& ids) const;

  const std::vector<std::string>& pieces() const { return piece_of_; }  // id -> the piece encode shows
  const std::vector<std::string>& vocab() const { return vocab_; }      // id -> token ("" for holes)
  int size() const { return static_cast<int>(vocab_.size()); }
  int id_of(const std::string& token) const;  // -1 when absent
  // -1 when the tokenizer has none. BERT: [UNK] [PAD] [CLS] [SEP] [MASK]; GPT-2: bos = eos =
  // <|endoftext|>.
  int unk() const { return unk_; }
  int pad() const { return pad_; }
  int bos() const { return bos_; }
  int eos() const { return eos_; }
  int mask() const { return mask_; }

  struct AddedToken {
    std::string content;
    std::string match;  // what is searched in the text: content, normalized when `normalized`
    int id = -1;
    bool single_word = false, lstrip = false, rstrip = false, normalized = false, special = false;
  };

 private:
  HfTokenizer() = default;
  struct Span {
    size_t begin, end;
    int added;  // index into added_, or -1 for plain text
  };
  void split_added(const std::string& s, bool normalized_pass, std::vector<Span>& out) const;
  std::string normalize(const std::string& s) const;
  void encode_plain(const std::string& s, bool at_start, Encoded& out) const;
  void bpe_word(const std::string& bytes, Encoded& out) const;
  void sp_word(const std::string& word, Encoded& out) const;
  void bpe_merge(std::vector<int>& ids, Encoded& out) const;
  void wordpiece_word(const std::u32string& word, Encoded& out) const;
  void push(Encoded& out, int id, std::string piece) const;

  Kind kind_ = Kind::ByteLevelBpe;
  Split split_ = Split::Gpt2;
  std::vector<std::string> vocab_;
  std::unordered_map<std::string, int> index_;        // model vocab + added tokens
  std::unordered_map<std::string, int> model_index_;  // model vocab only
  std::vector<AddedToken> added_;
  // Indices into added_ by the first byte of their match, in added_'s order: a position of the text
  // is compared with the added tokens that start with its byte only (a tokenizer.json with a million
  // added tokens took 6 s to encode a sentence comparing each position with all of them).
  std::array<std::vector<int>, 256> added_by_byte_;
  std::vector<std::string> decode_as_;  // id -> token for decode (a normalized added token: normalized)
  std::vector<char> special_;           // per id
  int unk_ = -1, pad_ = -1, bos_ = -1, eos_ = -1, mask_ = -1;
  int model_unk_ = -1;

  // Normalizer: BertNormalizer when has_bert_normalizer_, else these rules in order.
  struct Rule {
    enum Type : uint8_t { Prepend, Replace, Nfc } type;
    std::string a, b;  // Prepend: a; Replace: a -> b; Nfc: none
  };
  std::vector<Rule> rules_;
  bool has_bert_normalizer_ = false, clean_text_ = false, chinese_chars_ = false, strip_accents_ = false,
       lowercase_ = false;
  // Byte-level BPE.
  bool add_prefix_space_ = false, use_regex_ = true, fuse_unk_ = false, ignore_merges_ = false;
  int byte_id_[256] = {};                                          // byte -> id of its symbol, -1
  std::unordered_map<uint64_t, std::pair<uint32_t, int>> merges_;  // (a, b) -> (rank, merged id)
  std::vector<std::string> piece_of_;  // id -> displayed piece (<0xC3> for part of a character)
  // SentencePiece-style BPE.
  bool byte_fallback_ = false;
  int byte_piece_[256] = {};  // byte -> id of its <0xHH> piece, -1
  enum class Prepend : uint8_t { Always, First, Never };
  struct Metaspace {
    std::string rep = "\xE2\x96\x81";  // "▁"
    Prepend prepend = Prepend::Always;
    bool split = true;
  };
  bool has_metaspace_ = false;
  Metaspace metaspace_;
  std::string space_symbol_ = "\xE2\x96\x81";  // what a piece shows as a space
  // WordPiece.
  std::string wp_prefix_ = "##";
  int max_chars_ = 100;
  size_t max_token_bytes_ = 0;  // the longest model vocabulary entry
  // Post-processor: ids (and their token strings) around the sequence.
  std::vector<int> prefix_ids_, suffix_ids_;
  std::vector<std::string> prefix_tokens_, suffix_tokens_;
  // Decoder.
  enum class Decoder { None, ByteLevel, WordPiece, Steps } decoder_ = Decoder::None;
  struct DecodeStep {
    enum Type : uint8_t { Replace, ByteFallback, Fuse, Strip, Metaspace } type;
    std::string a, b;                   // Replace: a -> b; Strip: a is the character
    size_t start = 0, stop = 0;         // Strip
    Prepend prepend = Prepend::Always;  // Metaspace (a: its replacement)
  };
  std::vector<DecodeStep> steps_;
  static void decode_step(const DecodeStep& step, std::vector<std::string>& tokens);
  std::string dec_prefix_ = "##";
  bool dec_cleanup_ = true;
};

}  // namespace ap
