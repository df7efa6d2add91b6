// JSON from a file (a model's header, a config.json, a tokenizer.json) parsed with a depth limit.
// nlohmann's values are built and destroyed recursively: a value nested 100,000 arrays deep
// overflowed the wasm stack ("RangeError: Maximum call stack size exceeded", issue 25 item 2).
// No file the core reads nests deeper than a few levels.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include "core/tensor.hpp"

namespace ap {

inline constexpr int kMaxJsonDepth = 64;

// Parses [first, last) as JSON; nlohmann::json::exception on malformed text (the caller names the
// file), ap::Error "<what> nests more than 64 levels deep" on a value nested deeper.
template <class It>
nlohmann::json parse_json_limited(It first, It last, const std::string& what) {
  return nlohmann::json::parse(first, last, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxJsonDepth) fail(what + " nests more than " + std::to_string(kMaxJsonDepth) + " levels deep");
    return true;
  });
}

}  // namespace ap
