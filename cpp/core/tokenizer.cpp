// Character- and word-level tokenizers. Text is UTF-8; a byte that does not start a
// well-formed UTF-8 sequence becomes a piece of its own (never a crash, never a merged
// code point), and such pieces are never put in a vocabulary, so every vocabulary is
// valid UTF-8 and can be stored as JSON.
#include "core/tokenizer.hpp"

#include <string>
#include <utility>
#include <vector>

#include "base/error.hpp"

namespace ap {

namespace {

const char* const kSpecials[4] = {"<pad>", "<unk>", "<bos>", "<eos>"};

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// Length of the well-formed UTF-8 sequence starting at s[i] (1..4), or 0 if s[i] does not start
// one. Rejects overlong forms, surrogates and code points above U+10FFFF (Unicode Table 3-7).
size_t utf8_sequence_length(const std::string& s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = byte(0);
  if (c < 0x80) return 1;
  size_t len = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // surrogates D800..DFFF
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
  } else {
    return 0;  // 80..C1 (continuation or overlong lead) and F5..FF never start a character
  }
  if (i + len > s.size()) return 0;
  if (byte(1) < lo || byte(1) > hi) return 0;
  for (size_t k = 2; k < len; ++k)
    if (!is_continuation(byte(k))) return 0;
  return len;
}

bool is_valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const size_t len = utf8_sequence_length(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

// ASCII only on purpose: the C locale's answer, the same in every build and browser.
bool is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_punct(unsigned char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}
bool is_punct_piece(const std::string& p) { return p.size() == 1 && is_punct(static_cast<unsigned char>(p[0])); }

const char* kind_name(Tokenizer::Kind k) { return Tokenizer::name_of(k); }

}  // namespace

Tokenizer::Kind Tokenizer::kind_from_name(const std::string& name) {
  if (name == "char") return Kind::Char;
  if (name == "word") return Kind::Word;
  if (name == "sentence") return Kind::Sentence;
  if (name == "hf") return Kind::External;
  fail("unknown tokenizer \"" + name.substr(0, 80) + "\" (allowed: \"char\", \"word\", \"sentence\", \"hf\")");
}

const char* Tokenizer::name_of(Kind kind) {
  switch (kind) {
    case Kind::Char:
      return "char";
    case Kind::Word:
      return "word";
    case Kind::Sentence:
      return "sentence";
    case Kind::External:
      return "hf";
  }
  return "char";
}

Tokenizer::Tokenizer(Kind kind, std::vector<std::string> vocab) : kind_(kind), vocab_(std::move(vocab)) {
  if (vocab_.size() < 4)
    fail("vocabulary has " + std::to_string(vocab_.size()) +
         " entries; it must start with the 4 special tokens <pad> <unk> <bos> <eos>");
  for (int id = 0; id < 4; ++id)
    if (vocab_[id] != kSpecials[id])
      fail("vocabulary entry " + std::to_string(id) + " is \"" + vocab_[id] + "\"; expected \"" + kSpecials[id] + "\"");
  index_.reserve(vocab_.size());
  for (size_t id = 0; id < vocab_.size(); ++id) {
    const std::string& piece = vocab_[id];
    if (piece.empty()) fail("vocabulary entry " + std::to_string(id) + " is empty");
    if (!is_valid_utf8(piece)) fail("vocabulary entry " + std::to_string(id) + " is not valid UTF-8");
    const auto [it, inserted] = index_.emplace(piece, static_cast<int>(id));
    if (!inserted)
      fail("vocabulary entry " + std::to_string(id) + " \"" + piece + "\" duplicates entry " +
           std::to_string(it->second));
  }
  const auto mask = index_.find(kMaskPiece);
  if (mask != index_.end()) mask_ = mask->second;
}

Tokenizer::Tokenizer(std::shared_ptr<const TokenizerBackend> backend)
    : kind_(Kind::External), backend_(std::move(backend)) {
  if (!backend_) fail("a tokenizer needs a backend");
}

std::vector<std::string> Tokenizer::with_specials(const std::vector<std::string>& pieces) {
  std::vector<std::string> vocab(std::begin(kSpecials), std::end(kSpecials));
  vocab.insert(vocab.end(), pieces.begin(), pieces.end());
  return vocab;
}

Tokenizer Tokenizer::build(Kind kind, const std::vector<std::string>& corpus) {
  std::vector<std::string> vocab(std::begin(kSpecials), std::end(kSpecials));
  std::unordered_map<std::string, int> seen;
  for (const char* s : kSpecials) seen.emplace(s, 0);
  Tokenizer splitter;
  splitter.kind_ = kind;
  for (const std::string& text : corpus)
    for (std::string& piece : splitter.split(text)) {
      // A stray byte is not a character: it stays unknown rather than poisoning the vocabulary.
      if (!is_valid_utf8(piece)) continue;
      if (seen.emplace(piece, 0).second) vocab.push_back(std::move(piece));
    }
  return Tokenizer(kind, std::move(vocab));
}

std::vector<std::string> Tokenizer::split(const std::string& text) const {
  std::vector<std::string> pieces;
  if (kind_ == Kind::Char) {
    for (size_t i = 0; i < text.size();) {
      const size_t len = utf8_sequence_length(text, i);
      const size_t take = len == 0 ? 1 : len;  // a bad byte is its own piece
      pieces.push_back(text.substr(i, take));
      i += take;
    }
    return pieces;
  }
  std::string word;
  const auto flush = [&] {
    if (!word.empty()) pieces.push_back(std::move(word));
    word.clear();
  };
  const bool elision = kind_ == Kind::Sentence;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    // Sentence level: an apostrophe ending an elided word stays on it ("l'", "j'", "s'"); the
    // typographic one (U+2019, E2 80 99) is written as the ASCII one.
    const size_t apostrophe = c == '\'' ? 1 : (c == 0xE2 && text.compare(i, 3, "\xE2\x80\x99") == 0) ? 3 : 0;
    if (elision && apostrophe && !word.empty()) {
      word += '\'';
      flush();
      i += apostrophe;
    } else if (is_space(c)) {
      flush();
      ++i;
    } else if (is_punct(c)) {
      flush();
      pieces.emplace_back(1, static_cast<char>(c));
      ++i;
    } else if (c < 0x80) {
      word += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : static_cast<char>(c);
      ++i;
    } else {
      const size_t len = utf8_sequence_length(text, i);
      if (len == 0) {  // a bad byte splits the word and stands alone, as at char level
        flush();
        pieces.emplace_back(1, static_cast<char>(c));
        ++i;
      } else {
        word.append(text, i, len);
        i += len;
      }
    }
  }
  flush();
  return pieces;
}

Tokenizer::Encoded Tokenizer::encode(const std::string& text) const {
  if (backend_) {
    TokenizerBackend::Encoded e = backend_->encode(text);
    return {std::move(e.ids), std::move(e.pieces), std::move(e.unknown)};
  }
  Encoded enc;
  enc.pieces = split(text);
  enc.ids.reserve(enc.pieces.size());
  for (size_t pos = 0; pos < enc.pieces.size(); ++pos) {
    const int id = id_of(enc.pieces[pos]);
    if (id == kUnk) enc.unknown.push_back(static_cast<int>(pos));
    enc.ids.push_back(id);
  }
  return enc;
}

std::string Tokenizer::decode(const std::vector<int>& ids) const {
  if (backend_) return backend_->decode(ids);
  std::string text;
  for (const int id : ids) {
    if (id < 0 || id >= size())
      fail("token id " + std::to_string(id) + " is out of range for a " + kind_name(kind_) + " vocabulary of " +
           std::to_string(size()));
    if (id == kPad || id == kBos || id == kEos) continue;
    const std::string& piece = vocab_[id];  // vocab_[kUnk] is "<unk>"
    const bool after_elision = kind_ == Kind::Sentence && !text.empty() && text.back() == '\'';
    if (kind_ != Kind::Char && !text.empty() && !is_punct_piece(piece) && !after_elision) text += ' ';
    text += piece;
  }
  if (kind_ == Kind::Sentence && !text.empty() && text[0] >= 'a' && text[0] <= 'z')
    text[0] = static_cast<char>(text[0] - 'a' + 'A');
  return text;
}

int Tokenizer::id_of(const std::string& piece) const {
  if (backend_) {
    const int id = backend_->id_of(piece);
    return id >= 0 ? id : backend_->unk();
  }
  const auto it = index_.find(piece);
  return it == index_.end() ? kUnk : it->second;
}

const std::string& Tokenizer::source() const {
  static const std::string kNone;
  return backend_ ? backend_->source() : kNone;
}

namespace {
TokenizerJsonReader g_json_reader = nullptr;
}  // namespace

bool set_tokenizer_json_reader(TokenizerJsonReader reader) {
  g_json_reader = reader;
  return true;
}

Tokenizer read_tokenizer_json(const std::string& json_text) {
  if (!g_json_reader)
    fail(
        "this model's tokenizer is a tokenizer.json (byte-level BPE), which the first module does not read: "
        "open the model with ap.openModel(), which uses the second module");
  return g_json_reader(json_text);
}

}  // namespace ap
