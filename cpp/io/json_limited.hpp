// JSON from a file (a model's header, a config.json, a tokenizer.json) parsed with a depth limit.
// nlohmann's values are built and destroyed recursively: a value nested 100,000 arrays deep
// overflowed the wasm stack ("RangeError: Maximum call stack size exceeded").
// No file the core reads nests deeper than a few levels.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include "base/tensor.hpp"

namespace ap {

inline constexpr int kMaxJsonDepth = 64;

// Parses [first, last) as JSON; nlohmann::json::exception on malformed text (the caller names the
// file), ap::Error "<what> nests more than 64 levels deep" on a value nested deeper. The depth is
// measured by one pass over the text first (brackets outside strings), then nlohmann's plain parser
// reads it: its parser with a callback scans an object's or array's members again at the end of
// each member object, quadratic in their number (a tokenizer.json of 160,000 added tokens took 8 s).
template <class It>
void check_json_depth(It first, It last, const std::string& what) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (It p = first; p != last; ++p) {
    const char c = static_cast<char>(*p);
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) fail(what + " nests more than " + std::to_string(kMaxJsonDepth) + " levels deep");
    } else if (c == ']' || c == '}') {
      --depth;  // unbalanced text is the parser's to refuse
    }
  }
}

template <class It>
nlohmann::json parse_json_limited(It first, It last, const std::string& what) {
  check_json_depth(first, last, what);
  return nlohmann::json::parse(first, last);
}

// The same check, then nlohmann's SAX parser with `sax` (a reader that keeps what it needs as it
// goes, where a DOM of a large file would cost more than the reading).
template <class It, class Sax>
void sax_parse_limited(It first, It last, const std::string& what, Sax* sax) {
  check_json_depth(first, last, what);
  nlohmann::json::sax_parse(first, last, sax);
}

}  // namespace ap
