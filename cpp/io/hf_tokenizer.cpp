#include "io/hf_tokenizer.hpp"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <queue>

#include "base/tensor.hpp"
#include "io/json_limited.hpp"
#include "io/unicode_tables.hpp"

namespace ap {

// ---------------------------------------------------------------------------------------------
// Unicode lookups over the generated tables.
namespace unicode {

namespace {
Class search_class(uint32_t cp) {
  if (cp >= 0x110000) return kUnassigned;
  const uint32_t key = (cp << 3) | 7;
  const uint32_t* end = kCategoryRuns + kCategoryRunsSize;
  const uint32_t* it = std::upper_bound(kCategoryRuns, end, key);
  return static_cast<Class>(*(it - 1) & 7);
}
}  // namespace

Class class_of(uint32_t cp) {
  static const std::array<Class, 128> ascii = [] {
    std::array<Class, 128> a{};
    for (uint32_t c = 0; c < 128; ++c) a[c] = search_class(c);
    return a;
  }();
  return cp < 128 ? ascii[cp] : search_class(cp);
}

bool is_whitespace(uint32_t cp) {
  switch (cp) {
    case 0x09:
    case 0x0A:
    case 0x0B:
    case 0x0C:
    case 0x0D:
    case 0x20:
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

void to_lower(uint32_t cp, std::u32string& out) {
  for (int i = 0; i + 1 < kLowerSpecialSize; i += 2)
    if (kLowerSpecial[i] == cp) {
      const uint32_t v = kLowerSpecial[i + 1];
      for (uint32_t k = 0; k < (v & 7); ++k) out.push_back(kLowerPool[(v >> 3) + k]);
      return;
    }
  // Runs of (start, count << 1 | stride-2, delta), sorted by start.
  int lo = 0, hi = kLowerRunsSize / 3 - 1, found = -1;
  while (lo <= hi) {
    const int mid = (lo + hi) / 2;
    if (kLowerRuns[3 * mid] <= cp) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (found >= 0) {
    const uint32_t start = kLowerRuns[3 * found], count = kLowerRuns[3 * found + 1] >> 1;
    const uint32_t stride = (kLowerRuns[3 * found + 1] & 1) ? 2 : 1;
    const uint32_t off = cp - start;
    if (off % stride == 0 && off / stride < count) {
      out.push_back(cp + kLowerRuns[3 * found + 2]);
      return;
    }
  }
  out.push_back(cp);
}

void decompose(uint32_t cp, std::u32string& out) {
  if (cp >= 0xAC00 && cp <= 0xD7A3) {  // Hangul syllables, by formula
    const uint32_t s = cp - 0xAC00;
    out.push_back(0x1100 + s / 588);
    out.push_back(0x1161 + (s % 588) / 28);
    if (s % 28) out.push_back(0x11A7 + s % 28);
    return;
  }
  const uint32_t* end = kDecompKeys + kDecompKeysSize;
  const uint32_t* it = std::lower_bound(kDecompKeys, end, cp);
  if (it == end || *it != cp) {
    out.push_back(cp);
    return;
  }
  const uint16_t v = kDecompVals[it - kDecompKeys];
  for (int k = 0; k < (v & 7); ++k) out.push_back(kDecompPool[(v >> 3) + k]);
}

uint8_t combining_class(uint32_t cp) {
  if (cp < 0x300 || cp >= 0x110000) return 0;
  const uint32_t key = (cp << 8) | 0xFF;
  const uint32_t* end = kCombiningRuns + kCombiningRunsSize;
  return static_cast<uint8_t>(*(std::upper_bound(kCombiningRuns, end, key) - 1) & 0xFF);
}

uint32_t compose(uint32_t a, uint32_t b) {
  // Hangul: L + V -> LV, LV + T -> LVT (Unicode 3.12).
  if (a >= 0x1100 && a < 0x1113 && b >= 0x1161 && b < 0x1176) return 0xAC00 + ((a - 0x1100) * 21 + (b - 0x1161)) * 28;
  if (a >= 0xAC00 && a <= 0xD7A3 && (a - 0xAC00) % 28 == 0 && b > 0x11A7 && b < 0x11C3) return a + (b - 0x11A7);
  // Triples (first, second, composite) sorted by (first, second).
  int lo = 0, hi = kComposeSize / 3 - 1;
  while (lo <= hi) {
    const int mid = (lo + hi) / 2;
    const uint32_t f = kCompose[3 * mid], g = kCompose[3 * mid + 1];
    if (f == a && g == b) return kCompose[3 * mid + 2];
    if (f < a || (f == a && g < b)) {
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return 0;
}

void nfc(std::u32string& s) {
  // Canonical decomposition.
  std::u32string d;
  d.reserve(s.size());
  for (uint32_t c : s) {
    if (c < 0xC0 || c >= 0x110000) {  // nothing below U+00C0 decomposes
      d.push_back(c);
    } else {
      decompose(c, d);
    }
  }
  // Canonical ordering: each run of non-starters, stably by combining class.
  std::vector<uint8_t> cc(d.size());
  for (size_t i = 0; i < d.size(); ++i) cc[i] = combining_class(d[i]);
  for (size_t i = 1; i < d.size(); ++i)
    for (size_t j = i; j > 0 && cc[j] != 0 && cc[j - 1] > cc[j]; --j) {
      std::swap(cc[j], cc[j - 1]);
      std::swap(d[j], d[j - 1]);
    }
  // Canonical composition: each character joins the last starter unless a character between them
  // blocks it (one of class 0 or of a class >= its own).
  std::u32string r;
  r.reserve(d.size());
  size_t starter = std::u32string::npos;
  uint8_t last = 0;  // class of the last character kept after the starter
  for (size_t i = 0; i < d.size(); ++i) {
    const uint32_t c = d[i];
    if (starter != std::u32string::npos) {
      const bool adjacent = starter + 1 == r.size();
      if (adjacent || (last != 0 && last < cc[i])) {
        if (const uint32_t p = compose(r[starter], c)) {
          r[starter] = p;
          continue;
        }
      }
    }
    if (cc[i] == 0) starter = r.size();
    last = cc[i];
    r.push_back(c);
  }
  s.swap(r);
}

}  // namespace unicode

namespace {

using json = nlohmann::json;
constexpr uint32_t kInvalid = 0xFFFFFFFF;  // a byte that is not part of valid UTF-8
constexpr int kMaxId = 1 << 24;
constexpr size_t kMaxHoles = 65536;

// Decodes one UTF-8 character at s[i]; returns its length and sets cp (kInvalid for a bad byte).
size_t next_cp(const std::string& s, size_t i, uint32_t& cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  const size_t n = s.size();
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  int len = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    cp = kInvalid;
    return 1;
  }
  // Maximal subpart: the bytes that could still start a valid character count as one error.
  size_t k = 1;
  for (; k < static_cast<size_t>(len); ++k) {
    if (i + k >= n) break;
    const unsigned char d = b(i + k);
    const unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
    if (d < l || d > h) break;
  }
  if (k < static_cast<size_t>(len)) {
    cp = kInvalid;
    return k;
  }
  uint32_t v = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (int j = 1; j < len; ++j) v = (v << 6) | (b(i + j) & 0x3F);
  cp = v;
  return len;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Rust's String::from_utf8_lossy: each maximal invalid subpart becomes one U+FFFD.
std::string lossy_utf8(const std::string& bytes) {
  std::string out;
  for (size_t i = 0; i < bytes.size();) {
    uint32_t cp;
    const size_t n = next_cp(bytes, i, cp);
    if (cp == kInvalid)
      out += "\xEF\xBF\xBD";
    else
      out.append(bytes, i, n);
    i += n;
  }
  return out;
}

// How a byte-level token is shown: its text, or (a token holding part of a character, which has
// no text of its own) every byte written <0xC3>, so that two such tokens read apart.
std::string shown_piece(const std::string& bytes) {
  bool valid = true;
  for (size_t i = 0; i < bytes.size() && valid;) {
    uint32_t cp;
    i += next_cp(bytes, i, cp);
    valid = cp != kInvalid;
  }
  if (valid) return bytes;
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char b : bytes) out += std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">";
  return out;
}

struct Cps {
  std::u32string cp;        // kInvalid for a bad byte
  std::vector<size_t> off;  // byte offset of each character, plus the end
};

Cps decode_cps(const std::string& s) {
  Cps r;
  for (size_t i = 0; i < s.size();) {
    uint32_t cp;
    const size_t n = next_cp(s, i, cp);
    r.cp.push_back(cp);
    r.off.push_back(i);
    i += n;
  }
  r.off.push_back(s.size());
  return r;
}

unicode::Class cls(uint32_t cp) { return cp == kInvalid ? unicode::kOther : unicode::class_of(cp); }
bool is_ws(uint32_t cp) { return cp != kInvalid && unicode::is_whitespace(cp); }
bool is_letter(uint32_t cp) { return cls(cp) == unicode::kLetter; }
bool is_number(uint32_t cp) { return cls(cp) == unicode::kNumber; }
bool is_word_char(uint32_t cp) { return is_letter(cp) || is_number(cp) || cp == '_'; }

// GPT-2's pre-tokenizer pattern, by hand:
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// Returns the byte ranges of the matches (which cover the whole text).
std::vector<std::pair<size_t, size_t>> gpt2_split(const std::string& s) {
  const Cps t = decode_cps(s);
  const size_t n = t.cp.size();
  // Each character's class once: 'L' letter, 'N' number, 'W' whitespace, 'O' anything else.
  std::string kind(n, 'O');
  for (size_t k = 0; k < n; ++k)
    kind[k] = is_ws(t.cp[k]) ? 'W' : is_letter(t.cp[k]) ? 'L' : is_number(t.cp[k]) ? 'N' : 'O';
  const auto is_letter = [&](size_t k) { return kind[k] == 'L'; };
  const auto is_number = [&](size_t k) { return kind[k] == 'N'; };
  const auto is_ws = [&](size_t k) { return kind[k] == 'W'; };
  const auto other = [&](size_t k) { return kind[k] == 'O'; };
  std::vector<std::pair<size_t, size_t>> out;
  size_t i = 0;
  while (i < n) {
    size_t end = i;
    const uint32_t c = t.cp[i];
    if (c == '\'' && i + 1 < n) {
      const uint32_t a = t.cp[i + 1], b = i + 2 < n ? t.cp[i + 2] : 0;
      if (a == 's' || a == 't' || a == 'm' || a == 'd')
        end = i + 2;
      else if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
        end = i + 3;
    }
    if (end == i) {
      const size_t j = (c == ' ' && i + 1 < n) ? i + 1 : i;
      if (is_letter(j)) {
        end = j;
        while (end < n && is_letter(end)) ++end;
      } else if (is_number(j)) {
        end = j;
        while (end < n && is_number(end)) ++end;
      } else if (other(j)) {
        end = j;
        while (end < n && other(end)) ++end;
      }
    }
    if (end == i && is_ws(i)) {
      size_t k = i;
      while (k < n && is_ws(k)) ++k;
      if (k == n || k - i == 1)
        end = k;  // \s+(?!\S) to the end, or \s+ of one character before a non-space
      else
        end = k - 1;  // \s+(?!\S): leave the last space to the next word
    }
    if (end == i) end = i + 1;  // not reachable: every character is in one of the classes
    out.emplace_back(t.off[i], t.off[end]);
    i = end;
  }
  return out;
}

// The split patterns of Llama 3 and Qwen2 (a Split pre-tokenizer before a ByteLevel one without
// its own regex), as their tokenizer.json files write them; another pattern is refused.
const char* const kLlama3Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char* const kQwen2Pattern =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

// Llama 3's (max_digits 3) and Qwen2's (max_digits 1) pattern, by hand; the alternatives in order,
// the first that matches at a position wins (Oniguruma's, as HF runs it):
//   1 (?i:'s|'t|'re|'ve|'m|'ll|'d)   a contraction, in either case (and U+017F, which folds to s)
//   2 [^\r\n\p{L}\p{N}]?\p{L}+       letters, after one character that is none of CR, LF, letter, number
//   3 \p{N}{1,3} (Qwen2: \p{N})      up to three numbers (one)
//   4  ?[^\s\p{L}\p{N}]+[\r\n]*      other characters, after an optional space, then any CR / LF
//   5 \s*[\r\n]+                     white space up to its last CR / LF
//   6 \s+(?!\S)                      white space but its last character before a non-space
//   7 \s+                            white space
// Every character is matched by one of them, so the matches cover the text (Isolated: each its own
// piece). Returns their byte ranges.
std::vector<std::pair<size_t, size_t>> llama3_split(const std::string& s, size_t max_digits) {
  const Cps t = decode_cps(s);
  const size_t n = t.cp.size();
  std::string kind(n, 'O');  // 'L' letter, 'N' number, 'W' white space, 'O' anything else
  for (size_t k = 0; k < n; ++k)
    kind[k] = is_ws(t.cp[k]) ? 'W' : is_letter(t.cp[k]) ? 'L' : is_number(t.cp[k]) ? 'N' : 'O';
  const auto newline = [&](size_t k) { return t.cp[k] == '\r' || t.cp[k] == '\n'; };
  // Oniguruma's case folding for the contraction letters: ASCII, and U+017F LONG S -> s.
  const auto fold = [&](size_t k) -> uint32_t {
    if (k >= n) return 0;
    const uint32_t c = t.cp[k];
    if (c >= 'A' && c <= 'Z') return c + 32;
    return c == 0x17F ? 's' : c;
  };
  std::vector<std::pair<size_t, size_t>> out;
  size_t i = 0;
  while (i < n) {
    size_t end = i;
    if (t.cp[i] == '\'') {  // 1
      const uint32_t a = fold(i + 1), b = fold(i + 2);
      if (a == 's' || a == 't' || a == 'm' || a == 'd')
        end = i + 2;
      else if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
        end = i + 3;
    }
    if (end == i) {  // 2
      size_t j = i;
      if (kind[i] != 'L' && kind[i] != 'N' && !newline(i) && i + 1 < n && kind[i + 1] == 'L') j = i + 1;
      if (kind[j] == 'L') {
        end = j;
        while (end < n && kind[end] == 'L') ++end;
      }
    }
    if (end == i && kind[i] == 'N') {  // 3
      while (end < n && kind[end] == 'N' && end - i < max_digits) ++end;
    }
    if (end == i) {  // 4
      const size_t j = (t.cp[i] == ' ' && i + 1 < n && kind[i + 1] == 'O') ? i + 1 : i;
      if (kind[j] == 'O') {
        end = j;
        while (end < n && kind[end] == 'O') ++end;
        while (end < n && newline(end)) ++end;
      }
    }
    if (end == i && kind[i] == 'W') {  // 5, 6, 7
      size_t k = i, last_newline = n;
      for (; k < n && kind[k] == 'W'; ++k)
        if (newline(k)) last_newline = k;
      if (last_newline < n)
        end = last_newline + 1;
      else if (k == n || k - i == 1)
        end = k;
      else
        end = k - 1;
    }
    if (end == i) end = i + 1;  // not reachable: every character is in one of the classes
    out.emplace_back(t.off[i], t.off[end]);
    i = end;
  }
  return out;
}

// A SentencePiece-style piece as bytes: a byte piece (<0x41>) its byte, else the text with the
// space symbol ("▁") as a space.
std::string sp_piece_bytes(const std::string& token, const std::string& space) {
  const auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); };
  if (token.size() == 6 && token.compare(0, 3, "<0x") == 0 && token[5] == '>' && hex(token[3]) && hex(token[4]))
    return std::string(1, static_cast<char>(std::stoi(token.substr(3, 2), nullptr, 16)));
  std::string out;
  for (size_t p = 0, q; p < token.size(); p = q + space.size()) {
    q = token.find(space, p);
    if (q == std::string::npos) {
      out.append(token, p, std::string::npos);
      break;
    }
    out.append(token, p, q - p).append(" ");
  }
  return out;
}

// Every occurrence of `from` (not empty) in `s` replaced by `to`, left to right.
std::string replace_all(const std::string& s, const std::string& from, const std::string& to) {
  std::string out;
  size_t p = 0;
  for (size_t q; (q = s.find(from, p)) != std::string::npos; p = q + from.size()) out.append(s, p, q - p).append(to);
  return out.append(s, p, std::string::npos);
}

// GPT-2's bytes_to_unicode: byte -> code point of its symbol.
std::vector<uint32_t> byte_symbols() {
  std::vector<uint32_t> sym(256, 0);
  std::vector<bool> printable(256, false);
  for (int b = 0x21; b <= 0x7E; ++b) printable[b] = true;
  for (int b = 0xA1; b <= 0xAC; ++b) printable[b] = true;
  for (int b = 0xAE; b <= 0xFF; ++b) printable[b] = true;
  int n = 0;
  for (int b = 0; b < 256; ++b) sym[b] = printable[b] ? b : 256 + n++;
  return sym;
}

const std::vector<uint32_t>& byte_symbol_table() {
  static const std::vector<uint32_t> t = byte_symbols();
  return t;
}

// Byte-level symbol string -> bytes, as HF's ByteLevel decoder: a token with a character outside the
// 256 symbols is taken as its own UTF-8 bytes.
std::string symbols_to_bytes(const std::string& token) {
  static const std::unordered_map<uint32_t, char> rev = [] {
    std::unordered_map<uint32_t, char> m;
    const auto& t = byte_symbol_table();
    for (int b = 0; b < 256; ++b) m[t[b]] = static_cast<char>(b);
    return m;
  }();
  std::string out;
  for (size_t i = 0; i < token.size();) {
    uint32_t cp;
    i += next_cp(token, i, cp);
    const auto it = rev.find(cp);
    if (it == rev.end()) return token;
    out += it->second;
  }
  return out;
}

bool is_chinese(uint32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_bert_punct(uint32_t c) {
  if (c < 0x80) return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
  return cls(c) == unicode::kPunct;
}

// ---- JSON access with the field's path in every message ---------------------------------------
[[noreturn]] void bad(const std::string& msg) { fail("tokenizer.json: " + msg); }

// At most `n` bytes of `s` (cut at a character boundary, "..." at the end when cut).
std::string prefix(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  size_t cut = n - 3;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "...";
}

// A string as a message quotes it: in quotes, at most 40 bytes of it, so a megabyte-long token or
// type name in a hostile file is never copied into an Error.
std::string quoted(const std::string& s) { return "'" + prefix(s, 40) + "'"; }

// "of <n> bytes ('<prefix>...') is longer than the limit of <limit> bytes for one piece".
std::string piece_too_long(const std::string& piece, size_t limit) {
  return "of " + std::to_string(piece.size()) + " bytes (" + quoted(piece) + ") is longer than the limit of " +
         std::to_string(limit) + " bytes for one piece";
}

std::string show(const json& j) {
  std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

const json* opt(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

const json& need(const json& obj, const std::string& path, const char* key) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) bad(path + key + " is missing");
  return *it;
}

const json& need_object(const json& obj, const std::string& path, const char* key) {
  const json& v = need(obj, path, key);
  if (!v.is_object()) bad(path + key + " is not an object");
  return v;
}

std::string str(const json& v, const std::string& path) {
  if (!v.is_string()) bad(path + " is not a string");
  return v.get<std::string>();
}

bool flag(const json& obj, const std::string& path, const char* key, bool dflt) {
  const json* v = opt(obj, key);
  if (!v) return dflt;
  if (!v->is_boolean()) bad(path + key + " is not true or false");
  return v->get<bool>();
}

int id_value(const json& v, const std::string& path) {
  if (!v.is_number_integer()) bad(path + " is not an integer id");
  const auto x = v.get<int64_t>();
  if (x < 0 || x >= kMaxId)
    bad(path + " = " + std::to_string(x) + " is out of range (0.." + std::to_string(kMaxId - 1) + ")");
  return static_cast<int>(x);
}

std::string type_of(const json& obj, const std::string& path) {
  if (!obj.is_object()) bad(path + " is not an object");
  return str(need(obj, path + ".", "type"), path + ".type");
}

[[noreturn]] void unsupported(const std::string& path, const std::string& type, const std::string& what) {
  bad(path + ".type " + quoted(type) + " is not supported (" + what + ")");
}

// A string of a normalizer or decoder rule: at most kTokenizerRuleBytes.
std::string rule_string(const json& v, const std::string& path) {
  const std::string r = str(v, path);
  if (r.size() > limits::kTokenizerRuleBytes)
    bad(path + " of " + std::to_string(r.size()) + " bytes (" + quoted(r) + ") is longer than the limit of " +
        std::to_string(limits::kTokenizerRuleBytes) + " bytes for a rule");
  return r;
}

// One character (a Metaspace replacement, a Strip content): its UTF-8.
std::string one_char(const json& v, const std::string& path) {
  const std::string r = str(v, path);
  uint32_t cp = kInvalid;
  if (r.empty() || next_cp(r, 0, cp) != r.size() || cp == kInvalid)
    bad(path + " " + quoted(r) + " is not one character");
  return r;
}

// A Replace rule's pattern: {"String": "..."} (not empty); {"Regex": ...} is refused.
std::string string_pattern(const json& rule, const std::string& path) {
  const json& p = need(rule, path + ".", "pattern");
  if (p.is_object() && p.size() == 1 && p.contains("String")) {
    const std::string r = rule_string(p["String"], path + ".pattern.String");
    if (r.empty()) bad(path + ".pattern.String is empty");
    return r;
  }
  if (p.is_object() && p.contains("Regex")) bad(path + ".pattern: a Regex is not supported (only {\"String\": ...})");
  bad(path + ".pattern is not {\"String\": ...}");
}

// The entries of a Sequence (its `key` array) with their paths, or the one part itself.
std::vector<std::pair<const json*, std::string>> parts_of(const json& part, const std::string& path, const char* key) {
  std::vector<std::pair<const json*, std::string>> out;
  if (type_of(part, path) != "Sequence") {
    out.emplace_back(&part, path);
    return out;
  }
  const json& list = need(part, path + ".", key);
  if (!list.is_array()) bad(path + "." + key + " is not an array");
  if (static_cast<int64_t>(list.size()) > limits::kTokenizerRules)
    bad(path + "." + key + " has " + std::to_string(list.size()) + " entries, more than the limit of " +
        std::to_string(limits::kTokenizerRules));
  for (size_t i = 0; i < list.size(); ++i) out.emplace_back(&list[i], path + "." + key + "[" + std::to_string(i) + "]");
  return out;
}

// Reads a tokenizer.json as nlohmann's DOM, except its two large members: model.vocab (token ->
// id, tens of thousands of entries) and model.merges (as many "a b" strings or ["a", "b"] pairs)
// are kept in plain vectors as they stream past, and the DOM gets an empty object / array in
// their place. The DOM of those two was most of the reading's time (a std::map node and heap
// strings per entry, built and then freed). A value that is not what it should be is kept as a
// stand-in for the checks after reading to name (a vocab value that is an object or array: an
// empty array; a merge that is not a string or a pair of strings: Merge::Bad).
class TokenizerJsonReader {
 public:
  struct Merge {
    enum Form : uint8_t { Joined, Pair, Bad };
    std::string a, b;  // Joined: the whole "a b" in a, split by the checks
    Form form = Bad;
  };
  explicit TokenizerJsonReader(json& root) : dom_(root) {}

  bool vocab_read = false, merges_read = false;
  std::vector<std::pair<std::string, json>> vocab;  // (token, its id value), in file order
  std::vector<Merge> merges;

  bool null() { return mode_ == Mode::Dom ? dom_.null() : value(json()); }
  bool boolean(bool v) { return mode_ == Mode::Dom ? dom_.boolean(v) : value(json(v)); }
  bool number_integer(json::number_integer_t v) { return mode_ == Mode::Dom ? dom_.number_integer(v) : value(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) {
    return mode_ == Mode::Dom ? dom_.number_unsigned(v) : value(json(v));
  }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return mode_ == Mode::Dom ? dom_.number_float(v, s) : value(json(v));
  }
  bool binary(json::binary_t& v) { return mode_ == Mode::Dom ? dom_.binary(v) : value(json()); }
  bool string(json::string_t& v) {
    if (mode_ == Mode::Dom) return dom_.string(v);
    if (mode_ == Mode::Merges && skip_ == 0) {
      merges.push_back({std::move(v), {}, Merge::Joined});
    } else if (mode_ == Mode::Merges && skip_ == 1 && merges.back().form == Merge::Pair && pair_n_ < 2) {
      (pair_n_ == 0 ? merges.back().a : merges.back().b) = std::move(v);
      ++pair_n_;
    } else {
      return value(json(std::move(v)));
    }
    return true;
  }
  bool key(json::string_t& k) {
    if (mode_ == Mode::Vocab && skip_ == 0) {
      key_ = std::move(k);
      return true;
    }
    if (mode_ != Mode::Dom) return true;
    if (depth_ == 1) in_model_ = k == "model";
    if (depth_ <= 2) key_ = k;
    return dom_.key(k);
  }
  bool start_object(std::size_t n) {
    if (mode_ == Mode::Dom) {
      if (++depth_ == 3 && in_model_ && key_ == "vocab" && !vocab_read) {
        mode_ = Mode::Vocab;
        vocab_read = true;
        return dom_.start_object(0) && dom_.end_object();
      }
      return dom_.start_object(n);
    }
    return open(false);
  }
  bool start_array(std::size_t n) {
    if (mode_ == Mode::Dom) {
      if (++depth_ == 3 && in_model_ && key_ == "merges" && !merges_read) {
        mode_ = Mode::Merges;
        merges_read = true;
        return dom_.start_array(0) && dom_.end_array();
      }
      return dom_.start_array(n);
    }
    return open(true);
  }
  bool end_object() { return mode_ == Mode::Dom ? dom_close(false) : close(); }
  bool end_array() {
    if (mode_ == Mode::Merges && skip_ == 1 && merges.back().form == Merge::Pair && pair_n_ != 2)
      merges.back().form = Merge::Bad;  // ["a"] or ["a", "b", "c"]
    return mode_ == Mode::Dom ? dom_close(true) : close();
  }
  template <class Exception>
  bool parse_error(std::size_t at, const std::string& token, const Exception& e) {
    return dom_.parse_error(at, token, e);
  }

 private:
  enum class Mode { Dom, Vocab, Merges };
  // A scalar inside model.vocab or model.merges.
  bool value(json v) {
    if (skip_ == 0) {
      if (mode_ == Mode::Vocab)
        vocab.emplace_back(std::move(key_), std::move(v));
      else
        merges.push_back({});  // a merge that is a number, true, null...: Bad
    } else if (mode_ == Mode::Merges && skip_ == 1) {
      merges.back().form = Merge::Bad;  // ["a", 3]
    }
    return true;
  }
  // An object or array inside model.vocab or model.merges; skip_ counts how deep.
  bool open(bool array) {
    if (skip_ == 0 && mode_ == Mode::Vocab) vocab.emplace_back(std::move(key_), json::array());  // not an id
    if (skip_ == 0 && mode_ == Mode::Merges) {
      merges.push_back({});
      if (array) merges.back().form = Merge::Pair;  // until shown otherwise
      pair_n_ = 0;
    }
    if (skip_ == 1 && mode_ == Mode::Merges) merges.back().form = Merge::Bad;  // [["a"], "b"]
    ++skip_;
    return true;
  }
  bool close() {
    if (skip_ == 0) {  // the end of model.vocab / model.merges itself
      mode_ = Mode::Dom;
      --depth_;
    } else {
      --skip_;
    }
    return true;
  }
  bool dom_close(bool array) {
    if (depth_-- == 2) in_model_ = false;
    return array ? dom_.end_array() : dom_.end_object();
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  Mode mode_ = Mode::Dom;
  int depth_ = 0, skip_ = 0, pair_n_ = 0;
  bool in_model_ = false;
  std::string key_;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
std::shared_ptr<const HfTokenizer> HfTokenizer::parse(const std::string& json_text,
                                                      const limits::TokenizerLimits& limits) {
  json root;
  TokenizerJsonReader reader(root);
  try {
    sax_parse_limited(json_text.begin(), json_text.end(), "tokenizer.json", &reader);
  } catch (const json::exception& e) {
    bad("not JSON (" + prefix(e.what(), 200) + ")");  // it quotes what it last read: an unterminated string is the file
  }
  if (!root.is_object()) bad("not a tokenizer (the top level is not an object)");
  std::shared_ptr<HfTokenizer> t(new HfTokenizer());
  // A Metaspace pre-tokenizer or decoder: replacement (one character), prepend_scheme (always by
  // default; the older add_prefix_space false must come with never, as HF requires), split.
  const auto metaspace = [](const json& m, const std::string& path) {
    Metaspace r;
    r.rep = one_char(need(m, path + ".", "replacement"), path + ".replacement");
    if (const json* v = opt(m, "prepend_scheme")) {
      const std::string scheme = str(*v, path + ".prepend_scheme");
      if (scheme == "always")
        r.prepend = Prepend::Always;
      else if (scheme == "first")
        r.prepend = Prepend::First;
      else if (scheme == "never")
        r.prepend = Prepend::Never;
      else
        bad(path + ".prepend_scheme " + quoted(scheme) + " is not first, always or never");
    }
    if (!flag(m, path + ".", "add_prefix_space", true) && r.prepend != Prepend::Never)
      bad(path + ".add_prefix_space false does not match prepend_scheme (it needs never)");
    r.split = flag(m, path + ".", "split", true);
    return r;
  };
  try {
    // ---- model
    const json& model = need_object(root, "", "model");
    const json* mtype = opt(model, "type");
    if (!mtype) bad("model.type is missing");
    const std::string type = str(*mtype, "model.type");
    if (type == "BPE")
      t->kind_ = Kind::ByteLevelBpe;
    else if (type == "WordPiece")
      t->kind_ = Kind::WordPiece;
    else
      bad("model.type " + quoted(type) + " is not supported (byte-level BPE as in GPT-2, or WordPiece as in BERT)");
    const bool bpe = t->kind_ == Kind::ByteLevelBpe;

    need(model, "model.", "vocab");
    if (!reader.vocab_read) bad("model.vocab is not an object (token -> id)");
    const auto& vocab = reader.vocab;
    if (static_cast<int64_t>(vocab.size()) > limits.vocab)
      bad("model.vocab has " + std::to_string(vocab.size()) + " pieces, more than the limit of " +
          std::to_string(limits.vocab));
    // Ids may leave holes (a model's embedding can be larger than its tokenizer), but not millions.
    const json* added_json = opt(root, "added_tokens");
    const size_t n_tokens = vocab.size() + (added_json && added_json->is_array() ? added_json->size() : 0);
    const auto grow = [&](int id, const std::string& path) {
      if (static_cast<size_t>(id) >= n_tokens + kMaxHoles)
        bad(path + " = " + std::to_string(id) + " leaves more than " + std::to_string(kMaxHoles) +
            " ids without a token (there are " + std::to_string(n_tokens) + " tokens)");
      if (id >= static_cast<int>(t->vocab_.size())) t->vocab_.resize(id + 1);
    };
    // The two loops below run once per token and per merge (thousands to a hundred thousand): the
    // path an error names is only written out when there is an error.
    t->model_index_.reserve(vocab.size());
    for (const auto& [token, v] : vocab) {
      if (token.size() > limits.piece_bytes) bad("model.vocab: a piece " + piece_too_long(token, limits.piece_bytes));
      const bool plain = v.is_number_unsigned() && v.get<uint64_t>() < std::min<uint64_t>(n_tokens + kMaxHoles, kMaxId);
      const int id = plain ? static_cast<int>(v.get<uint64_t>()) : id_value(v, "model.vocab[" + quoted(token) + "]");
      if (!plain) grow(id, "model.vocab[" + quoted(token) + "]");
      if (id >= static_cast<int>(t->vocab_.size())) t->vocab_.resize(static_cast<size_t>(id) + 1);
      if (!t->vocab_[id].empty()) bad("model.vocab has two tokens with id " + std::to_string(id));
      if (token.empty()) bad("model.vocab has an empty token");
      t->vocab_[id] = token;
      t->model_index_.emplace(token, id);
    }
    if (t->model_index_.empty()) bad("model.vocab is empty");
    // path() writes the place an error names (called only on an error).
    const auto model_id = [&](const std::string& tok, const auto& path) {
      const auto f = t->model_index_.find(tok);
      if (f == t->model_index_.end()) bad(path() + " " + quoted(tok) + " is not in model.vocab");
      return f->second;
    };
    if (const json* u = opt(model, "unk_token"))
      t->model_unk_ = model_id(str(*u, "model.unk_token"), [] { return std::string("model.unk_token"); });

    if (bpe) {
      if (const json* d = opt(model, "dropout")) {
        if (!d->is_number() || d->get<double>() != 0.0)
          bad("model.dropout " + show(*d) + " is not supported (only null)");
      }
      for (const char* k : {"continuing_subword_prefix", "end_of_word_suffix"})
        if (const json* v = opt(model, k)) {
          if (!v->is_string() || !v->get<std::string>().empty())
            bad(std::string("model.") + k + " " + show(*v) + " is not supported (only null, as in GPT-2)");
        }
      t->byte_fallback_ = flag(model, "model.", "byte_fallback", false);
      t->fuse_unk_ = flag(model, "model.", "fuse_unk", false);
      t->ignore_merges_ = flag(model, "model.", "ignore_merges", false);
      need(model, "model.", "merges");
      if (!reader.merges_read) bad("model.merges is not an array");
      const auto& merges = reader.merges;
      if (static_cast<int64_t>(merges.size()) > limits.merges)
        bad("model.merges has " + std::to_string(merges.size()) + " merges, more than the limit of " +
            std::to_string(limits.merges));
      t->merges_.reserve(merges.size());
      std::string a, b, ab;
      for (size_t i = 0; i < merges.size(); ++i) {
        const auto path = [i] { return "model.merges[" + std::to_string(i) + "]"; };
        const auto& m = merges[i];
        if (m.form == TokenizerJsonReader::Merge::Joined) {
          const std::string& s = m.a;
          const size_t sp = s.find(' ');
          if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos) bad(path() + " is not a pair");
          a.assign(s, 0, sp);
          b.assign(s, sp + 1, std::string::npos);
        } else if (m.form == TokenizerJsonReader::Merge::Pair) {
          a = m.a;
          b = m.b;
        } else {
          bad(path() + " is not a pair");
        }
        for (const std::string* side : {&a, &b})
          if (side->size() > limits.piece_bytes) bad(path() + ": a piece " + piece_too_long(*side, limits.piece_bytes));
        ab.assign(a).append(b);
        const int ia = model_id(a, path), ib = model_id(b, path), ic = model_id(ab, path);
        t->merges_[(static_cast<uint64_t>(ia) << 32) | static_cast<uint32_t>(ib)] = {static_cast<uint32_t>(i), ic};
      }
    } else {
      if (const json* p = opt(model, "continuing_subword_prefix"))
        t->wp_prefix_ = str(*p, "model.continuing_subword_prefix");
      if (const json* m = opt(model, "max_input_chars_per_word")) {
        if (!m->is_number_integer() || m->get<int64_t>() < 0) bad("model.max_input_chars_per_word is not a count");
        t->max_chars_ = static_cast<int>(std::min<int64_t>(m->get<int64_t>(), 1 << 30));
      }
      if (t->model_unk_ < 0) bad("model.unk_token is missing");
    }

    // ---- added tokens
    if (const json* added = opt(root, "added_tokens")) {
      if (!added->is_array()) bad("added_tokens is not an array");
      if (static_cast<int64_t>(added->size()) > limits.added)
        bad("added_tokens has " + std::to_string(added->size()) + " entries, more than the limit of " +
            std::to_string(limits.added));
      for (size_t i = 0; i < added->size(); ++i) {
        const std::string path = "added_tokens[" + std::to_string(i) + "].";
        const json& a = (*added)[i];
        if (!a.is_object()) bad(path.substr(0, path.size() - 1) + " is not an object");
        AddedToken tok;
        tok.id = id_value(need(a, path, "id"), path + "id");
        tok.content = str(need(a, path, "content"), path + "content");
        if (tok.content.empty()) bad(path + "content is empty");
        if (tok.content.size() > limits.piece_bytes)
          bad(path + "content: a piece " + piece_too_long(tok.content, limits.piece_bytes));
        tok.single_word = flag(a, path, "single_word", false);
        tok.lstrip = flag(a, path, "lstrip", false);
        tok.rstrip = flag(a, path, "rstrip", false);
        tok.normalized = flag(a, path, "normalized", false);
        tok.special = flag(a, path, "special", false);
        grow(tok.id, path + "id");
        // HF (AddedVocabulary::add_tokens) gives an added token whose content is a piece of the model's
        // vocabulary that piece's id, whatever id the file writes (the files HF itself writes agree).
        if (const auto f = t->model_index_.find(tok.content); f != t->model_index_.end()) tok.id = f->second;
        t->vocab_[tok.id] = tok.content;
        t->added_.push_back(tok);
      }
    }

    // ---- normalizer
    if (const json* n = opt(root, "normalizer")) {
      if (type_of(*n, "normalizer") == "BertNormalizer") {
        t->has_bert_normalizer_ = true;
        t->clean_text_ = flag(*n, "normalizer.", "clean_text", true);
        t->chinese_chars_ = flag(*n, "normalizer.", "handle_chinese_chars", true);
        t->lowercase_ = flag(*n, "normalizer.", "lowercase", true);
        t->strip_accents_ = flag(*n, "normalizer.", "strip_accents", t->lowercase_);
      } else {
        int64_t growth = 1;
        for (const auto& [q, path] : parts_of(*n, "normalizer", "normalizers")) {
          const std::string nt = type_of(*q, path);
          if (nt == "Prepend") {
            t->rules_.push_back({Rule::Prepend, rule_string(need(*q, path + ".", "prepend"), path + ".prepend"), {}});
          } else if (nt == "NFC") {
            t->rules_.push_back({Rule::Nfc, {}, {}});
          } else if (nt == "Replace") {
            Rule r{Rule::Replace, string_pattern(*q, path),
                   rule_string(need(*q, path + ".", "content"), path + ".content")};
            growth *= std::max<int64_t>(1, (r.b.size() + r.a.size() - 1) / r.a.size());
            if (growth > limits::kTokenizerRuleGrowth)
              bad(path + ": the Replace rules make a text up to " + std::to_string(growth) +
                  " times longer, more than the limit of " + std::to_string(limits::kTokenizerRuleGrowth));
            if (r.a == " " && !r.b.empty()) t->space_symbol_ = r.b;  // Llama 2: " " -> "▁"
            t->rules_.push_back(std::move(r));
          } else {
            unsupported(path, nt,
                        path == "normalizer"
                            ? "null, BertNormalizer, Prepend, Replace, NFC or a Sequence of Prepend, Replace and NFC"
                            : "Prepend, Replace or NFC in a Sequence");
          }
        }
      }
    }

    // ---- pre-tokenizer
    {
      std::vector<std::pair<const json*, std::string>> pres;
      if (const json* p = opt(root, "pre_tokenizer")) pres = parts_of(*p, "pre_tokenizer", "pretokenizers");
      std::vector<std::string> types;
      for (const auto& [q, path] : pres) types.push_back(type_of(*q, path));
      const std::string many =
          "pre_tokenizer.pretokenizers: only a Sequence of one ByteLevel, Metaspace or BertPreTokenizer, or of Split "
          "then ByteLevel, is supported";
      if (!bpe) {
        if (pres.empty()) bad("pre_tokenizer is missing (BertPreTokenizer for WordPiece)");
        if (pres.size() != 1) bad(many);
        if (types[0] != "BertPreTokenizer")
          unsupported(pres[0].second, types[0], "BertPreTokenizer with a WordPiece model");
      } else if (pres.empty()) {
        if (!t->byte_fallback_)
          bad("pre_tokenizer is missing (ByteLevel or Metaspace for BPE; none only with model.byte_fallback true, as "
              "in Llama 2)");
        t->kind_ = Kind::SentencePieceBpe;
        t->split_ = Split::None;
      } else if (pres.size() == 1 && types[0] == "ByteLevel") {
        const auto& [q, path] = pres[0];
        t->add_prefix_space_ = flag(*q, path + ".", "add_prefix_space", true);
        t->use_regex_ = flag(*q, path + ".", "use_regex", true);
        t->split_ = t->use_regex_ ? Split::Gpt2 : Split::None;
      } else if (pres.size() == 1 && types[0] == "Metaspace") {
        t->kind_ = Kind::SentencePieceBpe;
        t->split_ = Split::None;
        t->has_metaspace_ = true;
        t->metaspace_ = metaspace(*pres[0].first, pres[0].second);
        t->space_symbol_ = t->metaspace_.rep;
      } else if (pres.size() == 1) {
        unsupported(pres[0].second, types[0],
                    "ByteLevel, Metaspace, or a Sequence of Split then ByteLevel with a BPE model");
      } else if (pres.size() == 2 && types[0] == "Split" && types[1] == "ByteLevel") {
        const auto& [q, path] = pres[0];
        t->kind_ = Kind::SplitByteLevelBpe;
        const json& pat = need(*q, path + ".", "pattern");
        if (!pat.is_object() || !pat.contains("Regex"))
          bad(path + ".pattern is not {\"Regex\": ...} (only Llama 3's or Qwen2's split pattern is supported)");
        const std::string re = str(pat["Regex"], path + ".pattern.Regex");
        if (re == kLlama3Pattern)
          t->split_ = Split::Llama3;
        else if (re == kQwen2Pattern)
          t->split_ = Split::Qwen2;
        else
          bad(path + ".pattern.Regex " + quoted(re) + " is not supported (only Llama 3's or Qwen2's split pattern)");
        const std::string behavior = str(need(*q, path + ".", "behavior"), path + ".behavior");
        if (behavior != "Isolated") bad(path + ".behavior " + quoted(behavior) + " is not supported (only Isolated)");
        if (flag(*q, path + ".", "invert", false)) bad(path + ".invert true is not supported (only false)");
        const auto& [b, bpath] = pres[1];
        if (flag(*b, bpath + ".", "add_prefix_space", true))
          bad(bpath + ".add_prefix_space true is not supported after a Split (only false)");
        if (flag(*b, bpath + ".", "use_regex", true))
          bad(bpath + ".use_regex true is not supported after a Split (only false)");
        t->add_prefix_space_ = false;
        t->use_regex_ = false;
      } else {
        bad(many);
      }
      if (t->byte_fallback_ && t->kind_ != Kind::SentencePieceBpe)
        bad("model.byte_fallback true is not supported with a ByteLevel pre-tokenizer (only with Metaspace or none, "
            "as in Llama 2)");
    }

    // ---- post-processor
    if (const json* p = opt(root, "post_processor")) {
      std::vector<std::pair<const json*, std::string>> procs;
      if (type_of(*p, "post_processor") == "Sequence") {
        const json& list = need(*p, "post_processor.", "processors");
        if (!list.is_array()) bad("post_processor.processors is not an array");
        for (size_t i = 0; i < list.size(); ++i)
          procs.emplace_back(&list[i], "post_processor.processors[" + std::to_string(i) + "]");
      } else {
        procs.emplace_back(p, "post_processor");
      }
      bool templated = false;
      for (const auto& [q, path] : procs) {
        const std::string pt = type_of(*q, path);
        if (pt == "ByteLevel") continue;  // offsets only
        if (templated) bad(path + ": a second template post-processor is not supported");
        templated = true;
        if (pt == "BertProcessing" || pt == "RobertaProcessing") {
          for (const char* k : {"cls", "sep"}) {
            const json& v = need(*q, path + ".", k);
            if (!v.is_array() || v.size() != 2 || !v[0].is_string()) bad(path + "." + k + " is not a [token, id] pair");
            const int id = id_value(v[1], path + "." + k + "[1]");
            (k[0] == 'c' ? t->prefix_ids_ : t->suffix_ids_).push_back(id);
            (k[0] == 'c' ? t->prefix_tokens_ : t->suffix_tokens_).push_back(v[0].get<std::string>());
          }
        } else if (pt == "TemplateProcessing") {
          const json& single = need(*q, path + ".", "single");
          const json& specials = need(*q, path + ".", "special_tokens");
          if (!single.is_array()) bad(path + ".single is not an array");
          if (!specials.is_object()) bad(path + ".special_tokens is not an object");
          bool seen_a = false;
          for (size_t i = 0; i < single.size(); ++i) {
            const std::string ip = path + ".single[" + std::to_string(i) + "]";
            const json& e = single[i];
            if (e.is_object() && e.contains("Sequence")) {
              const json& s = e["Sequence"];
              if (!s.is_object() || !s.contains("id") || s["id"] != "A" || seen_a)
                bad(ip + ": only one Sequence A is supported");
              seen_a = true;
            } else if (e.is_object() && e.contains("SpecialToken")) {
              const json& s = e["SpecialToken"];
              if (!s.is_object()) bad(ip + ".SpecialToken is not an object");
              const std::string name = str(need(s, ip + ".SpecialToken.", "id"), ip + ".SpecialToken.id");
              const auto f = specials.find(name);
              const std::string sp = path + ".special_tokens[" + quoted(name) + "]";
              if (f == specials.end() || !f->is_object()) bad(sp + " is missing");
              const json& ids = need(*f, sp + ".", "ids");
              const json& toks = need(*f, sp + ".", "tokens");
              if (!ids.is_array() || !toks.is_array() || ids.size() != toks.size())
                bad(sp + ": ids and tokens are not arrays of one length");
              for (size_t k = 0; k < ids.size(); ++k) {
                (seen_a ? t->suffix_ids_ : t->prefix_ids_)
                    .push_back(id_value(ids[k], sp + ".ids[" + std::to_string(k) + "]"));
                (seen_a ? t->suffix_tokens_ : t->prefix_tokens_)
                    .push_back(str(toks[k], sp + ".tokens[" + std::to_string(k) + "]"));
              }
            } else {
              bad(ip + " is neither a Sequence nor a SpecialToken");
            }
          }
          if (!seen_a) bad(path + ".single has no Sequence A");
        } else {
          unsupported(path, pt, "null, ByteLevel, TemplateProcessing, BertProcessing, RobertaProcessing or a Sequence");
        }
      }
    }

    // ---- decoder
    if (const json* d = opt(root, "decoder")) {
      const std::string dt = type_of(*d, "decoder");
      const bool sp = t->kind_ == Kind::SentencePieceBpe;
      if (dt == "ByteLevel" && bpe && !sp) {
        t->decoder_ = Decoder::ByteLevel;
      } else if (dt == "WordPiece" && !bpe) {
        t->decoder_ = Decoder::WordPiece;
        if (const json* p = opt(*d, "prefix")) t->dec_prefix_ = str(*p, "decoder.prefix");
        t->dec_cleanup_ = flag(*d, "decoder.", "cleanup", true);
      } else if (sp) {
        t->decoder_ = Decoder::Steps;
        int64_t growth = 1;
        for (const auto& [q, path] : parts_of(*d, "decoder", "decoders")) {
          const std::string st = type_of(*q, path);
          DecodeStep step{DecodeStep::Fuse, {}, {}};
          if (st == "Replace") {
            step.type = DecodeStep::Replace;
            step.a = string_pattern(*q, path);
            step.b = rule_string(need(*q, path + ".", "content"), path + ".content");
            growth *= std::max<int64_t>(1, (step.b.size() + step.a.size() - 1) / step.a.size());
            if (growth > limits::kTokenizerRuleGrowth)
              bad(path + ": the Replace rules make a text up to " + std::to_string(growth) +
                  " times longer, more than the limit of " + std::to_string(limits::kTokenizerRuleGrowth));
          } else if (st == "ByteFallback") {
            step.type = DecodeStep::ByteFallback;
          } else if (st == "Fuse") {
            step.type = DecodeStep::Fuse;
          } else if (st == "Strip") {
            step.type = DecodeStep::Strip;
            step.a = one_char(need(*q, path + ".", "content"), path + ".content");
            for (const char* k : {"start", "stop"}) {
              const json& v = need(*q, path + ".", k);
              if (!v.is_number_unsigned() || v.get<uint64_t>() > limits::kTokenizerPieceBytes)
                bad(path + "." + k + " " + show(v) + " is not a count of at most " +
                    std::to_string(limits::kTokenizerPieceBytes));
              (std::string(k) == "start" ? step.start : step.stop) = static_cast<size_t>(v.get<uint64_t>());
            }
          } else if (st == "Metaspace") {
            step.type = DecodeStep::Metaspace;
            const Metaspace m = metaspace(*q, path);
            step.a = m.rep;
            step.prepend = m.prepend;
          } else {
            unsupported(path, st,
                        "Metaspace, or a Sequence of Replace, ByteFallback, Fuse and Strip with a SentencePiece-style "
                        "BPE");
          }
          t->steps_.push_back(std::move(step));
        }
      } else {
        unsupported("decoder", dt,
                    bpe ? "null or ByteLevel with a byte-level BPE model" : "null or WordPiece with a WordPiece model");
      }
    }
  } catch (const json::exception& e) {
    bad("malformed (" + prefix(e.what(), 200) + ")");
  }

  // ---- derived tables
  t->special_.assign(t->vocab_.size(), 0);
  for (size_t i = 0; i < t->vocab_.size(); ++i)
    if (!t->vocab_[i].empty()) t->index_.emplace(t->vocab_[i], static_cast<int>(i));
  for (auto& a : t->added_) {
    t->index_[a.content] = a.id;
    if (a.special) t->special_[a.id] = 1;
  }
  for (int id : t->prefix_ids_)
    if (id >= t->size()) bad("post_processor: special id " + std::to_string(id) + " is not in the vocabulary");
  for (int id : t->suffix_ids_)
    if (id >= t->size()) bad("post_processor: special id " + std::to_string(id) + " is not in the vocabulary");
  // Added tokens matched in normalized text are searched for in their normalized form.
  // (HF also gives that form as the token's string, so decode() uses it too.)
  t->decode_as_ = t->vocab_;
  for (size_t k = 0; k < t->added_.size(); ++k) {
    AddedToken& a = t->added_[k];
    a.match = a.normalized ? t->normalize(a.content) : a.content;
    t->decode_as_[a.id] = a.match;
    t->index_.emplace(a.match, a.id);
    if (!a.match.empty()) t->added_by_byte_[static_cast<unsigned char>(a.match[0])].push_back(static_cast<int>(k));
  }
  for (const auto& kv : t->model_index_) t->max_token_bytes_ = std::max(t->max_token_bytes_, kv.first.size());
  t->piece_of_.resize(t->vocab_.size());
  if (t->kind_ == Kind::ByteLevelBpe || t->kind_ == Kind::SplitByteLevelBpe) {
    const auto& sym = byte_symbol_table();
    for (int b = 0; b < 256; ++b) {
      std::string s;
      append_utf8(s, sym[b]);
      const auto f = t->model_index_.find(s);
      t->byte_id_[b] = f == t->model_index_.end() ? -1 : f->second;
    }
    for (size_t i = 0; i < t->vocab_.size(); ++i) t->piece_of_[i] = shown_piece(symbols_to_bytes(t->vocab_[i]));
  } else if (t->kind_ == Kind::SentencePieceBpe) {
    for (int b = 0; b < 256; ++b) {
      static const char* hex = "0123456789ABCDEF";
      const auto f = t->model_index_.find(std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">");
      t->byte_piece_[b] = f == t->model_index_.end() ? -1 : f->second;
    }
    for (size_t i = 0; i < t->vocab_.size(); ++i)
      t->piece_of_[i] = shown_piece(sp_piece_bytes(t->vocab_[i], t->space_symbol_));
  } else {
    t->piece_of_ = t->vocab_;
  }
  for (const auto& a : t->added_) t->piece_of_[a.id] = a.content;

  const auto find = [&](std::initializer_list<const char*> names) {
    for (const char* n : names) {
      const int id = t->id_of(n);
      if (id >= 0) return id;
    }
    return -1;
  };
  t->unk_ = t->model_unk_;
  if (t->unk_ < 0) t->unk_ = find({"[UNK]", "<unk>"});
  t->pad_ = find({"[PAD]", "<pad>", "<|padding|>"});
  t->bos_ = find({"[CLS]", "<s>", "<|begin_of_text|>", "<|endoftext|>"});
  t->eos_ = find({"[SEP]", "</s>", "<|end_of_text|>", "<|endoftext|>"});
  t->mask_ = find({"[MASK]", "<mask>"});
  return t;
}

std::vector<std::string> HfTokenizer::split_words(Split split, const std::string& text) {
  if (split == Split::None) return {text};
  std::vector<std::string> out;
  for (const auto& [b, e] :
       split == Split::Gpt2 ? gpt2_split(text) : llama3_split(text, split == Split::Llama3 ? 3 : 1))
    out.push_back(text.substr(b, e - b));
  return out;
}

std::string HfTokenizer::kind_name() const {
  switch (kind_) {
    case Kind::ByteLevelBpe:
      return "byte-level BPE";
    case Kind::WordPiece:
      return "WordPiece";
    case Kind::SentencePieceBpe:
      return "SentencePiece BPE";
    case Kind::SplitByteLevelBpe:
      return split_ == Split::Qwen2 ? "byte-level BPE (Qwen2 split)" : "byte-level BPE (Llama 3 split)";
  }
  return "";
}

int HfTokenizer::id_of(const std::string& token) const {
  const auto it = index_.find(token);
  return it == index_.end() ? -1 : it->second;
}

namespace {
// NFC of UTF-8 text; an invalid byte stays as it is (stood in for by 0x110000 + byte meanwhile).
std::string nfc_utf8(const std::string& s) {
  bool ascii = true;
  for (unsigned char c : s) ascii = ascii && c < 0x80;
  if (ascii) return s;
  const Cps t = decode_cps(s);
  std::u32string u = t.cp;
  for (size_t k = 0; k < u.size(); ++k)
    if (u[k] == kInvalid) u[k] = 0x110000 + static_cast<unsigned char>(s[t.off[k]]);
  unicode::nfc(u);
  std::string out;
  out.reserve(s.size());
  for (uint32_t c : u) {
    if (c >= 0x110000) {
      out.push_back(static_cast<char>(c - 0x110000));
    } else {
      append_utf8(out, c);
    }
  }
  return out;
}
}  // namespace

// BertNormalizer, or the Prepend / Replace / NFC rules in order: returns the normalized text.
std::string HfTokenizer::normalize(const std::string& s) const {
  if (!has_bert_normalizer_) {
    std::string out = s;
    for (const Rule& r : rules_) {
      if (r.type == Rule::Prepend) {
        if (!out.empty()) out = r.a + out;  // HF prepends to a text that is not empty
      } else if (r.type == Rule::Nfc) {
        out = nfc_utf8(out);
      } else {
        out = replace_all(out, r.a, r.b);
      }
    }
    return out;
  }
  const Cps in = decode_cps(s);
  std::u32string a;
  for (uint32_t c : in.cp) {
    if (clean_text_) {
      // HF: drop NUL, U+FFFD and "other" characters (its is_other: Cc, Cf, Co; not Cn) except tab, LF
      // and CR, then map whitespace to a space. So VT, FF and NEL (Cc) are dropped, not spaces.
      if (c == 0 || c == 0xFFFD || c == kInvalid) continue;
      if (c != '\t' && c != '\n' && c != '\r' && cls(c) == unicode::kControl) continue;
      if (is_ws(c)) {
        a.push_back(' ');
        continue;
      }
    }
    if (chinese_chars_ && c != kInvalid && is_chinese(c)) {
      a.push_back(' ');
      a.push_back(c);
      a.push_back(' ');
      continue;
    }
    a.push_back(c);
  }
  if (strip_accents_) {
    std::u32string b;
    for (uint32_t c : a) {
      if (c == kInvalid) {
        b.push_back(c);
        continue;
      }
      std::u32string d;
      unicode::decompose(c, d);
      for (uint32_t x : d)
        if (cls(x) != unicode::kMarkNonspacing) b.push_back(x);
    }
    a.swap(b);
  }
  std::string out;
  for (uint32_t c : a) {
    if (c == kInvalid) {
      out += "\xEF\xBF\xBD";
      continue;
    }
    if (lowercase_) {
      std::u32string l;
      unicode::to_lower(c, l);
      for (uint32_t x : l) append_utf8(out, x);
    } else {
      append_utf8(out, c);
    }
  }
  return out;
}

// HF's AddedVocabulary::find_matches: leftmost-longest matches of the added tokens of this pass
// (non-normalized ones on the raw text, normalized ones on the normalized text).
void HfTokenizer::split_added(const std::string& s, bool normalized_pass, std::vector<Span>& out) const {
  size_t start_offset = 0;
  size_t pos = 0;
  while (pos < s.size()) {
    int best = -1;
    size_t best_len = 0;
    for (const int k : added_by_byte_[static_cast<unsigned char>(s[pos])]) {
      const AddedToken& a = added_[k];
      if (a.normalized != normalized_pass || a.match.size() <= best_len) continue;
      if (s.compare(pos, a.match.size(), a.match) == 0) {
        best = k;
        best_len = a.match.size();
      }
    }
    if (best < 0) {
      ++pos;
      continue;
    }
    const AddedToken& a = added_[best];
    size_t start = pos, stop = pos + best_len;
    pos = stop;  // the search goes on after the match itself
    if (a.single_word) {
      bool start_space = start == 0, stop_space = stop == s.size();
      if (!start_space) {
        size_t k = start - 1;
        while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
        uint32_t cp;
        next_cp(s, k, cp);
        start_space = !is_word_char(cp);
      }
      if (!stop_space) {
        uint32_t cp;
        next_cp(s, stop, cp);
        stop_space = !is_word_char(cp);
      }
      if (!start_space || !stop_space) continue;
    }
    if (a.lstrip) {
      size_t k = start;
      while (k > start_offset) {
        size_t b = k - 1;
        while (b > start_offset && (static_cast<unsigned char>(s[b]) & 0xC0) == 0x80) --b;
        uint32_t cp;
        next_cp(s, b, cp);
        if (!is_ws(cp)) break;
        k = b;
      }
      start = k;
    }
    if (a.rstrip) {
      while (stop < s.size()) {
        uint32_t cp;
        const size_t n = next_cp(s, stop, cp);
        if (!is_ws(cp)) break;
        stop += n;
      }
      pos = std::max(pos, stop);
    }
    if (start_offset < start) out.push_back({start_offset, start, -1});
    out.push_back({start, stop, best});
    start_offset = stop;
  }
  if (start_offset < s.size()) out.push_back({start_offset, s.size(), -1});
}

void HfTokenizer::push(Encoded& out, int id, std::string piece) const {
  if (id == unk_ && unk_ >= 0) out.unknown.push_back(static_cast<int>(out.ids.size()));
  out.ids.push_back(id);
  out.pieces.push_back(std::move(piece));
}

HfTokenizer::Encoded HfTokenizer::encode(const std::string& text, bool add_special_tokens) const {
  Encoded out;
  if (add_special_tokens)
    for (size_t i = 0; i < prefix_ids_.size(); ++i) push(out, prefix_ids_[i], prefix_tokens_[i]);
  std::vector<Span> raw;
  split_added(text, false, raw);
  for (const Span& r : raw) {
    if (r.added >= 0) {
      push(out, added_[r.added].id, text.substr(r.begin, r.end - r.begin));
      continue;
    }
    const std::string norm = normalize(text.substr(r.begin, r.end - r.begin));
    std::vector<Span> parts;
    split_added(norm, true, parts);
    for (const Span& p : parts) {
      if (p.added >= 0)
        push(out, added_[p.added].id, norm.substr(p.begin, p.end - p.begin));
      else  // at_start: the stretch begins the text (Metaspace's prepend_scheme first)
        encode_plain(norm.substr(p.begin, p.end - p.begin), r.begin == 0 && p.begin == 0, out);
    }
  }
  if (add_special_tokens)
    for (size_t i = 0; i < suffix_ids_.size(); ++i) push(out, suffix_ids_[i], suffix_tokens_[i]);
  return out;
}

// Pre-tokenizer and model on one stretch of normalized text without added tokens.
void HfTokenizer::encode_plain(const std::string& s0, bool at_start, Encoded& out) const {
  if (s0.empty()) return;
  if (kind_ == Kind::SentencePieceBpe) {
    if (!has_metaspace_) {  // Llama 2: the normalizer wrote the "▁"; the stretch is one word
      sp_word(s0, out);
      return;
    }
    // HF's Metaspace: spaces become the replacement, which is put in front (always, or on the
    // stretch that begins the text) unless there already; split: a word begins at each replacement.
    const Metaspace& m = metaspace_;
    std::string s = replace_all(s0, " ", m.rep);
    if ((m.prepend == Prepend::Always || (m.prepend == Prepend::First && at_start)) &&
        s.compare(0, m.rep.size(), m.rep) != 0)
      s = m.rep + s;
    if (!m.split) {
      sp_word(s, out);
      return;
    }
    size_t begin = 0;
    for (size_t q = s.find(m.rep, 1); q != std::string::npos; q = s.find(m.rep, q + m.rep.size())) {
      sp_word(s.substr(begin, q - begin), out);
      begin = q;
    }
    sp_word(s.substr(begin), out);
    return;
  }
  if (kind_ == Kind::SplitByteLevelBpe) {
    for (const auto& [b, e] : llama3_split(s0, split_ == Split::Llama3 ? 3 : 1)) bpe_word(s0.substr(b, e - b), out);
    return;
  }
  if (kind_ == Kind::ByteLevelBpe) {
    const std::string s = (add_prefix_space_ && s0[0] != ' ') ? " " + s0 : s0;
    if (!use_regex_) {
      bpe_word(s, out);
      return;
    }
    for (const auto& [b, e] : gpt2_split(s)) bpe_word(s.substr(b, e - b), out);
    return;
  }
  // BertPreTokenizer: split on whitespace (removed), each punctuation character its own word.
  const Cps t = decode_cps(s0);
  std::u32string word;
  const auto flush = [&] {
    if (!word.empty()) wordpiece_word(word, out);
    word.clear();
  };
  for (uint32_t c : t.cp) {
    if (is_ws(c)) {
      flush();
    } else if (c != kInvalid && is_bert_punct(c)) {
      flush();
      word.push_back(c);
      flush();
    } else {
      word.push_back(c);
    }
  }
  flush();
}

// Byte-level BPE on one word: its bytes' symbols, merged.
void HfTokenizer::bpe_word(const std::string& bytes, Encoded& out) const {
  if (bytes.empty()) return;
  if (ignore_merges_) {
    std::string sym;
    for (unsigned char b : bytes) append_utf8(sym, byte_symbol_table()[b]);
    const auto f = model_index_.find(sym);
    if (f != model_index_.end()) {
      push(out, f->second, piece_of_[f->second]);
      return;
    }
  }
  std::vector<int> ids;
  for (unsigned char b : bytes) {
    int id = byte_id_[b];
    if (id < 0) {
      if (model_unk_ < 0) continue;  // HF drops a character it cannot represent without unk
      if (fuse_unk_ && !ids.empty() && ids.back() == model_unk_) continue;
      id = model_unk_;
    }
    ids.push_back(id);
  }
  bpe_merge(ids, out);
}

// SentencePiece-style BPE on one word (HF's BPE::merge_word): each character its piece; one that is
// not in the vocabulary its bytes' <0xHH> pieces (byte_fallback, when all are there), else unk
// (consecutive ones fused into one with fuse_unk). As HF, an unk waiting to be written goes after
// the byte pieces of a character that follows it, and before the next piece found in the vocabulary.
void HfTokenizer::sp_word(const std::string& word, Encoded& out) const {
  if (word.empty()) return;
  if (ignore_merges_) {
    const auto f = model_index_.find(word);
    if (f != model_index_.end()) {
      push(out, f->second, piece_of_[f->second]);
      return;
    }
  }
  std::vector<int> ids;
  bool unk_waiting = false;
  std::string ch;
  for (size_t i = 0; i < word.size();) {
    uint32_t cp;
    const size_t n = next_cp(word, i, cp);
    ch.assign(word, i, n);
    i += n;
    const auto f = model_index_.find(ch);
    if (f != model_index_.end()) {
      if (unk_waiting) ids.push_back(model_unk_);
      unk_waiting = false;
      ids.push_back(f->second);
      continue;
    }
    if (byte_fallback_) {
      bool all = true;
      for (unsigned char b : ch) all = all && byte_piece_[b] >= 0;
      if (all) {
        for (unsigned char b : ch) ids.push_back(byte_piece_[b]);
        continue;
      }
    }
    if (model_unk_ < 0) continue;  // HF drops it
    if (unk_waiting && !fuse_unk_) ids.push_back(model_unk_);
    unk_waiting = true;
  }
  if (unk_waiting) ids.push_back(model_unk_);
  bpe_merge(ids, out);
}

// HF's BPE Word::merge_all: lowest rank first, then leftmost.
void HfTokenizer::bpe_merge(std::vector<int>& ids, Encoded& out) const {
  struct Sym {
    int id, prev, next, len;
  };
  std::vector<Sym> syms;
  syms.reserve(ids.size());
  for (int id : ids) {
    const int n = static_cast<int>(syms.size());
    syms.push_back({id, n - 1, n + 1, 1});
  }
  if (syms.empty()) return;
  syms.back().next = -1;
  struct Merge {
    uint32_t rank;
    int pos, new_id;
    bool operator<(const Merge& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  const auto lookup = [&](int a, int b) {
    return merges_.find((static_cast<uint64_t>(a) << 32) | static_cast<uint32_t>(b));
  };
  std::priority_queue<Merge> queue;
  for (size_t i = 0; i + 1 < syms.size(); ++i) {
    const auto m = lookup(syms[i].id, syms[i + 1].id);
    if (m != merges_.end()) queue.push({m->second.first, static_cast<int>(i), m->second.second});
  }
  while (!queue.empty()) {
    const Merge top = queue.top();
    queue.pop();
    Sym& cur = syms[top.pos];
    if (cur.len == 0 || cur.next == -1) continue;
    const int next_pos = cur.next;
    const Sym right = syms[next_pos];
    const auto m = lookup(cur.id, right.id);
    if (m == merges_.end() || m->second.second != top.new_id) continue;
    cur.id = top.new_id;
    cur.len += right.len;
    cur.next = right.next;
    syms[next_pos].len = 0;
    if (right.next >= 0) syms[right.next].prev = top.pos;
    if (cur.prev >= 0) {
      const auto p = lookup(syms[cur.prev].id, cur.id);
      if (p != merges_.end()) queue.push({p->second.first, cur.prev, p->second.second});
    }
    if (cur.next >= 0) {
      const auto n = lookup(cur.id, syms[cur.next].id);
      if (n != merges_.end()) queue.push({n->second.first, top.pos, n->second.second});
    }
  }
  for (const Sym& s : syms)
    if (s.len > 0) push(out, s.id, piece_of_[s.id]);
}

// HF's WordPiece: greedy longest match first; a word with an unmatched part is one unk.
void HfTokenizer::wordpiece_word(const std::u32string& word, Encoded& out) const {
  if (static_cast<int64_t>(word.size()) > max_chars_) {
    push(out, model_unk_, vocab_[model_unk_]);
    return;
  }
  std::vector<std::string> chars;
  for (uint32_t c : word) {
    std::string u;
    if (c == kInvalid)
      u = "\xEF\xBF\xBD";
    else
      append_utf8(u, c);
    chars.push_back(u);
  }
  std::vector<int> ids;
  size_t start = 0;
  while (start < chars.size()) {
    int found = -1;
    // Longest first; candidates longer (in bytes) than the longest vocabulary entry cannot match.
    std::string sub = start > 0 ? wp_prefix_ : std::string();
    size_t end = start;
    while (end < chars.size() && sub.size() + chars[end].size() <= max_token_bytes_) sub += chars[end++];
    for (; end > start; --end) {  // sub is the prefix + chars[start, end)
      const auto f = model_index_.find(sub);
      if (f != model_index_.end()) {
        found = f->second;
        break;
      }
      sub.resize(sub.size() - chars[end - 1].size());
    }
    if (found < 0) {
      push(out, model_unk_, vocab_[model_unk_]);
      return;
    }
    ids.push_back(found);
    start = end;
  }
  for (int id : ids) push(out, id, vocab_[id]);
}

// One step of HF's decoder chain over the tokens (their strings, specials already dropped).
void HfTokenizer::decode_step(const DecodeStep& step, std::vector<std::string>& tokens) {
  switch (step.type) {
    case DecodeStep::Replace:
      for (auto& t : tokens) t = replace_all(t, step.a, step.b);
      return;
    case DecodeStep::Fuse: {
      std::string all;
      for (const auto& t : tokens) all += t;
      tokens.assign(1, all);
      return;
    }
    case DecodeStep::ByteFallback: {
      // Runs of <0xHH> tokens become their bytes, or one U+FFFD per token when those bytes are not
      // UTF-8. As Rust's u8::from_str_radix, HH may also be "+H".
      const auto hex = [](char c) {
        return c >= '0' && c <= '9'   ? c - '0'
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
               : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                      : -1;
      };
      std::vector<std::string> res;
      std::string run;
      size_t run_tokens = 0;
      const auto flush = [&] {
        if (run_tokens == 0) return;
        bool valid = true;
        for (size_t i = 0; i < run.size() && valid;) {
          uint32_t cp;
          i += next_cp(run, i, cp);
          valid = cp != kInvalid;
        }
        if (valid)
          res.push_back(run);
        else
          for (size_t k = 0; k < run_tokens; ++k) res.push_back("\xEF\xBF\xBD");
        run.clear();
        run_tokens = 0;
      };
      for (auto& t : tokens) {
        int value = -1;
        if (t.size() == 6 && t.compare(0, 3, "<0x") == 0 && t[5] == '>') {
          if (t[3] == '+')
            value = hex(t[4]);
          else if (hex(t[3]) >= 0 && hex(t[4]) >= 0)
            value = hex(t[3]) * 16 + hex(t[4]);
        }
        if (value >= 0) {
          run += static_cast<char>(value);
          ++run_tokens;
          continue;
        }
        flush();
        res.push_back(std::move(t));
      }
      flush();
      tokens.swap(res);
      return;
    }
    case DecodeStep::Strip:
      // Up to `start` leading and `stop` trailing characters equal to the content.
      for (auto& t : tokens) {
        size_t b = 0, e = t.size();
        for (size_t k = 0; k < step.start && t.compare(b, step.a.size(), step.a) == 0 && b < e; ++k) b += step.a.size();
        for (size_t k = 0;
             k < step.stop && e >= b + step.a.size() && t.compare(e - step.a.size(), step.a.size(), step.a) == 0; ++k)
          e -= step.a.size();
        t = t.substr(b, e - b);
      }
      return;
    case DecodeStep::Metaspace:
      // The replacement is a space, except in the first token (all of them there) unless never.
      for (size_t i = 0; i < tokens.size(); ++i)
        tokens[i] = replace_all(tokens[i], step.a, i == 0 && step.prepend != Prepend::Never ? "" : " ");
      return;
  }
}

std::string HfTokenizer::decode(const std::vector<int>& ids) const {
  std::vector<std::string> tokens;
  for (int id : ids) {
    if (id < 0 || id >= size() || vocab_[id].empty()) {
      tokens.push_back("<id " + std::to_string(id) + ">");
      continue;
    }
    if (special_[id]) continue;
    tokens.push_back(decode_as_[id]);
  }
  std::string out;
  switch (decoder_) {
    case Decoder::None:
      for (size_t i = 0; i < tokens.size(); ++i) out += (i ? " " : "") + tokens[i];
      return out;
    case Decoder::Steps:
      for (const DecodeStep& step : steps_) decode_step(step, tokens);
      for (const auto& t : tokens) out += t;
      return out;
    case Decoder::ByteLevel: {
      std::string bytes;
      for (const auto& t : tokens) bytes += symbols_to_bytes(t);
      return lossy_utf8(bytes);
    }
    case Decoder::WordPiece:
      for (size_t i = 0; i < tokens.size(); ++i) {
        std::string tok = tokens[i];
        if (i != 0) {
          if (!dec_prefix_.empty() && tok.compare(0, dec_prefix_.size(), dec_prefix_) == 0)
            tok.erase(0, dec_prefix_.size());
          else
            tok = " " + tok;
        }
        if (dec_cleanup_) {
          static const std::pair<const char*, const char*> kCleanup[] = {
              {" .", "."},   {" ?", "?"},           {" !", "!"},   {" ,", ","},     {" ' ", "'"},   {" n't", "n't"},
              {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
          for (const auto& [from, to] : kCleanup) {
            const std::string f = from, r = to;
            std::string res;
            size_t p = 0;
            for (size_t q; (q = tok.find(f, p)) != std::string::npos; p = q + f.size()) res += tok.substr(p, q - p) + r;
            res += tok.substr(p);
            tok.swap(res);
          }
        }
        out += tok;
      }
      return out;
  }
  return out;
}

}  // namespace ap
