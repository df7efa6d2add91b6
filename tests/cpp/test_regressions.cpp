// Replays every committed fuzz input (tests/corpus) through the code path its fuzz target drives,
// natively and in wasm (where size_t is 32 bits). The file name states the expected outcome:
//   valid_*   must load, and what was loaded must write back and load again unchanged;
//   bad_*     must be refused with an ap::Error (never a crash, never a silent success);
//   regress_* an input that once crashed a fuzz target: either outcome, but no crash, no
//             sanitizer report (run under `npm run sanitize`).
// A crash found by `npm run fuzz` is committed as tests/corpus/<target>/regress_<what>.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/tensor.hpp"
#include "core/tokenizer.hpp"
#include "io/model_io.hpp"
#include "io/safetensors.hpp"
#include "trace/trace.hpp"

namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

const fs::path kCorpus = fs::path(AP_FIXTURES_DIR) / ".." / "corpus";

struct Input {
  std::string name;
  Bytes bytes;
};

// Every file of tests/corpus/<dir>, sorted by name so failures are reproducible.
std::vector<Input> corpus(const std::string& dir) {
  std::vector<Input> out;
  for (const auto& entry : fs::directory_iterator(kCorpus / dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream f(entry.path(), std::ios::binary);
    out.push_back(
        {entry.path().filename().string(), Bytes(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>())});
  }
  std::sort(out.begin(), out.end(), [](const Input& a, const Input& b) { return a.name < b.name; });
  return out;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Runs `load` on the input and checks the outcome its name promises. Returns true if it loaded.
template <class Load>
bool expect_outcome(const Input& in, Load&& load) {
  std::string error;
  try {
    load(in.bytes);
  } catch (const ap::Error& e) {
    error = e.what();
  }
  if (starts_with(in.name, "valid_"))
    EXPECT_EQ(error, "") << in.name << " should load";
  else if (starts_with(in.name, "bad_"))
    EXPECT_NE(error, "") << in.name << " should be refused";
  else
    EXPECT_TRUE(starts_with(in.name, "regress_")) << in.name << ": name it valid_, bad_ or regress_";
  if (!error.empty()) EXPECT_LT(error.size(), 2000u) << in.name << ": an error message should be short";
  return error.empty();
}

TEST(FuzzCorpus, SafetensorsFilesLoadOrFailAsNamedAndRoundTrip) {
  const std::vector<Input> inputs = corpus("safetensors");
  ASSERT_GE(inputs.size(), 10u);
  for (const Input& in : inputs) {
    ap::SafeTensors st;
    if (!expect_outcome(in, [&](const Bytes& b) { st = ap::read_safetensors(b.data(), b.size()); })) continue;
    // What we accept we can write, and the written file reads back as the same tensors.
    const Bytes again = ap::write_safetensors(st);
    const ap::SafeTensors st2 = ap::read_safetensors(again.data(), again.size());
    EXPECT_EQ(st2.metadata, st.metadata) << in.name;
    ASSERT_EQ(st2.tensors.size(), st.tensors.size()) << in.name;
    for (const auto& [name, t] : st.tensors) {
      EXPECT_EQ(st2.tensors.at(name).shape, t.shape) << in.name << " " << name;
      EXPECT_EQ(st2.tensors.at(name).data, t.data) << in.name << " " << name;
    }
  }
}

TEST(FuzzCorpus, ModelFilesLoadOrFailAsNamedAndSaveIsStable) {
  const std::vector<Input> inputs = corpus("model");
  ASSERT_GE(inputs.size(), 4u);
  // The safetensors seeds also go through the model loader (fuzz_safetensors does both): none of
  // them is a model file, so each must be refused.
  for (const Input& in : corpus("safetensors")) {
    EXPECT_THROW(ap::load_model(in.bytes.data(), in.bytes.size()), ap::Error) << in.name;
  }
  for (const Input& in : inputs) {
    Bytes saved;
    if (!expect_outcome(in, [&](const Bytes& b) {
          ap::Model m = ap::load_model(b.data(), b.size());
          saved = ap::save_model(m);
        }))
      continue;
    ap::Model again = ap::load_model(saved.data(), saved.size());
    EXPECT_EQ(ap::save_model(again), saved) << in.name << ": save(load(save(x))) differs from save(x)";
  }
}

TEST(FuzzCorpus, ConfigsParseOrFailAsNamedAndRoundTrip) {
  const std::vector<Input> inputs = corpus("config");
  ASSERT_GE(inputs.size(), 10u);
  for (const Input& in : inputs) {
    ap::ModelConfig cfg;
    if (!expect_outcome(in, [&](const Bytes& b) { cfg = ap::config_from_json(std::string(b.begin(), b.end())); }))
      continue;
    const std::string json = ap::config_to_json(cfg);
    EXPECT_EQ(ap::config_to_json(ap::config_from_json(json)), json) << in.name;
  }
}

// Text has no valid/bad split: every input must tokenize. The independent facts checked: the
// char pieces partition the text byte for byte; with a vocabulary built from the text itself,
// valid UTF-8 decodes back to exactly the text; and every decoded string is valid UTF-8 (JSON
// accepts it), whatever bytes came in.
TEST(FuzzCorpus, TokenizerTextsSplitDecodeAndStayValidUtf8) {
  const std::vector<Input> inputs = corpus("tokenizer");
  ASSERT_GE(inputs.size(), 5u);
  for (const Input& in : inputs) {
    const std::string text(in.bytes.begin(), in.bytes.end());
    for (auto kind : {ap::Tokenizer::Kind::Char, ap::Tokenizer::Kind::Word}) {
      const ap::Tokenizer tok = ap::Tokenizer::build(kind, {text});
      const ap::Tokenizer::Encoded e = tok.encode(text);
      ASSERT_EQ(e.ids.size(), e.pieces.size()) << in.name;
      for (int id : e.ids) ASSERT_TRUE(id >= 0 && id < tok.size()) << in.name;
      const std::string decoded = tok.decode(e.ids);
      EXPECT_NO_THROW((void)nlohmann::json(decoded).dump()) << in.name << ": decode gave invalid UTF-8";
      if (kind != ap::Tokenizer::Kind::Char) continue;
      std::string joined;
      for (const std::string& p : e.pieces) joined += p;
      EXPECT_EQ(joined, text) << in.name;
      if (e.unknown.empty()) EXPECT_EQ(decoded, text) << in.name;
    }
  }
}

}  // namespace

TEST(Regressions, StageTooLargeToRecordIsAnErrorNotAWrappedSize) {
  // In wasm size_t is 32 bits: 4 * 32768 * 32768 = 2^32 used to wrap to a zero-length buffer.
  ap::Trace t;
  EXPECT_THROW(t.add("scores", "", -1, {4, 32768, 32768}), ap::Error);
  EXPECT_THROW(t.add("scores", "", -1, {2, -3, 4}), ap::Error);
}
