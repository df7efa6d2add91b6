// What many test files need, written once: the message of the ap::Error a call throws, model
// configs from their sizes, tokenizers built from a corpus, and a seeded random model.
// Header-only (inline): under Emscripten every test file links into one executable.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "base/tensor.hpp"
#include "core/config.hpp"
#include "core/model.hpp"
#include "core/tokenizer.hpp"

// Expects `part` in `message`, showing the whole message when it is not.
#define EXPECT_MENTIONS(message, part) \
  EXPECT_NE(std::string(message).find(part), std::string::npos) << "message: " << (message)

namespace aptest {

// Runs f and returns the ap::Error message, or fails the test (and returns "") if nothing was thrown.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ap::Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an ap::Error";
  return "";
}

// The sizes of a ModelConfig, in its order (vocab_size 0: from the tokenizer).
struct Sizes {
  int d_model, n_heads, n_layers, d_ff, vocab_size, max_len;
};

// A ModelConfig of these sizes and kinds; every other field keeps its default.
inline ap::ModelConfig model_config(ap::Arch arch, const Sizes& s, ap::PosKind pos = ap::PosKind::Sinusoidal,
                                    ap::NormPlace norm = ap::NormPlace::Post, ap::Act act = ap::Act::Relu) {
  ap::ModelConfig c;
  std::tie(c.d_model, c.n_heads, c.n_layers, c.d_ff, c.vocab_size, c.max_len) =
      std::tie(s.d_model, s.n_heads, s.n_layers, s.d_ff, s.vocab_size, s.max_len);
  std::tie(c.arch, c.pos, c.norm, c.act) = std::tie(arch, pos, norm, act);
  return c;
}

inline ap::Tokenizer char_tokenizer(const std::vector<std::string>& corpus) {
  return ap::Tokenizer::build(ap::Tokenizer::Kind::Char, corpus);
}
inline ap::Tokenizer word_tokenizer(const std::vector<std::string>& corpus) {
  return ap::Tokenizer::build(ap::Tokenizer::Kind::Word, corpus);
}

// A model with Model::init_random(seed) weights.
inline ap::Model random_model(const ap::ModelConfig& cfg, ap::Tokenizer tok, uint64_t seed) {
  ap::Model m(cfg, std::move(tok));
  m.init_random(seed);
  return m;
}

// Two models' named_tensors() (ap::Model's or ap::RnnAttnModel's): the same names and shapes in
// the same order, and the same floats bit for bit.
// Value j of a tensor as a float: a model's Weight kept at 16 bits has no float data (core/weight.hpp).
inline float value_at(const ap::Model::NamedTensor& t, size_t j) { return t.data ? t.data[j] : t.weight->value(j); }
template <typename Named>
float value_at(const Named& t, size_t j) {
  return t.data[j];
}

template <typename Named>
void expect_same_tensors(const std::vector<Named>& a, const std::vector<Named>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].name, b[i].name);
    ASSERT_EQ(a[i].shape, b[i].shape) << a[i].name;
    size_t n = 1;
    for (const int s : a[i].shape) n *= static_cast<size_t>(s);
    size_t differ = 0;  // bit for bit, whatever each side holds
    for (size_t j = 0; j < n; ++j) {
      const float x = value_at(a[i], j), y = value_at(b[i], j);
      differ += std::memcmp(&x, &y, sizeof x) != 0;
    }
    EXPECT_EQ(differ, 0u) << a[i].name;
  }
}

// Every seed file of tests/corpus/<folder>: a `valid_*` one must go through use(bytes) without an
// error, a `bad_*` one must make it throw an ap::Error. Returns how many of each there were.
template <typename Use>
std::pair<int, int> check_corpus(const char* folder, Use&& use) {
  int valid = 0, bad = 0;
  const std::filesystem::path dir = std::filesystem::path(AP_FIXTURES_DIR) / ".." / "corpus" / folder;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string name = entry.path().filename().string();
    if (name.rfind("valid_", 0) == 0) {
      EXPECT_NO_THROW(use(bytes)) << name;
      ++valid;
    } else if (name.rfind("bad_", 0) == 0) {
      EXPECT_THROW(use(bytes), ap::Error) << name;
      ++bad;
    }
  }
  return {valid, bad};
}

}  // namespace aptest
