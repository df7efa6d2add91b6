// Reading and writing RNN-attention model files (see rnn_attention_io.hpp).
#include "io/rnn_attention_io.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "io/model_io.hpp"
#include "io/safetensors.hpp"

namespace ap {

namespace {

using json = nlohmann::json;
constexpr const char* kArch = "rnn-attention";

int read_size(const json& j, const char* key, int fallback) {
  if (!j.contains(key)) return fallback;
  const json& v = j[key];
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 1000000)
    fail(std::string("rnn-attention config key '") + key + "' must be an integer between 0 and 1000000");
  return static_cast<int>(v.get<int64_t>());
}

// The config's sizes as a file names them, in the order it writes them: one list for both ways.
constexpr std::pair<const char*, int RnnAttnConfig::*> kSizes[] = {
    {"vocab_size", &RnnAttnConfig::vocab_size}, {"d_emb", &RnnAttnConfig::d_emb}, {"d_enc", &RnnAttnConfig::d_enc},
    {"d_dec", &RnnAttnConfig::d_dec},           {"d_att", &RnnAttnConfig::d_att}, {"max_len", &RnnAttnConfig::max_len},
};

}  // namespace

std::string rnn_attention_config_to_json(const RnnAttnConfig& c) {
  nlohmann::ordered_json j;
  j["arch"] = kArch;
  for (const auto& [key, field] : kSizes) j[key] = c.*field;
  j["tokenizer"] = c.tokenizer;
  return j.dump();
}

RnnAttnConfig rnn_attention_config_from_json(const std::string& text) {
  const json j = config_object_from_json(text);
  const std::string arch = j.contains("arch") && j["arch"].is_string() ? j["arch"].get<std::string>() : "";
  if (arch != kArch)
    fail("this is not an RNN-attention model (config arch is \"" + arch.substr(0, 40) +
         "\"; expected \"rnn-attention\"): load transformer models with loadModel()");
  RnnAttnConfig c;
  for (const auto& [key, field] : kSizes) c.*field = read_size(j, key, c.*field);
  if (j.contains("tokenizer")) {
    if (!j["tokenizer"].is_string()) fail("rnn-attention config key 'tokenizer' must be a string");
    c.tokenizer = j["tokenizer"].get<std::string>();
  }
  c.validate();
  return c;
}

std::vector<uint8_t> save_rnn_attention(RnnAttnModel& model) {
  SafeTensors st =
      model_file(model.metadata(), rnn_attention_config_to_json(model.config()), model.tokenizer().vocab());
  for (const auto& nt : model.named_tensors()) add_tensor(st, nt.name, nt.shape, nt.data);
  return write_safetensors(st);
}

RnnAttnModel load_rnn_attention(const uint8_t* bytes, size_t size) {
  const ModelFile st = read_model_file(bytes, size);
  const RnnAttnConfig cfg = in_model_file([&] { return rnn_attention_config_from_json(meta_or_fail(st, "config")); });
  std::vector<std::string> vocab = vocab_from_json(meta_or_fail(st, "vocab"));
  // The weights the config asks for must be in the file before anything is allocated.
  const uint64_t V = vocab.size(), E = cfg.d_emb, H = cfg.d_enc, Ds = cfg.d_dec, A = cfg.d_att;
  check_weight_count(
      st, V * E + 2 * (E * H + H * H) + H * Ds + Ds * A + 2 * H * A + E * Ds + 2 * H * Ds + Ds * Ds + (Ds + 2 * H) * V);
  const auto kind = Tokenizer::kind_from_name(cfg.tokenizer);
  RnnAttnModel model = in_model_file([&] { return RnnAttnModel(cfg, Tokenizer(kind, std::move(vocab))); });
  std::set<std::string> expected;
  for (const auto& nt : model.named_tensors()) {
    expected.insert(nt.name);
    read_tensor(st, nt.name, nt.shape, nt.data);
  }
  finish_reading(st, expected, "in an rnn-attention model file", model.mutable_metadata());
  return model;
}

}  // namespace ap
