// Reading and writing RNN-attention model files (see rnn_attention_io.hpp).
#include "io/rnn_attention_io.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "io/model_io.hpp"
#include "io/safetensors.hpp"

namespace ap {

namespace {

using json = nlohmann::json;
constexpr const char* kFormat = "attention-playground/1";  // the same tag as io/model_io.cpp
constexpr const char* kArch = "rnn-attention";

int read_size(const json& j, const char* key, int fallback) {
  if (!j.contains(key)) return fallback;
  const json& v = j[key];
  if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > 1000000)
    fail(std::string("rnn-attention config key '") + key + "' must be an integer between 0 and 1000000");
  return static_cast<int>(v.get<int64_t>());
}

}  // namespace

std::string rnn_attention_config_to_json(const RnnAttnConfig& c) {
  nlohmann::ordered_json j;
  j["arch"] = kArch;
  j["vocab_size"] = c.vocab_size;
  j["d_emb"] = c.d_emb;
  j["d_enc"] = c.d_enc;
  j["d_dec"] = c.d_dec;
  j["d_att"] = c.d_att;
  j["max_len"] = c.max_len;
  j["tokenizer"] = c.tokenizer;
  return j.dump();
}

RnnAttnConfig rnn_attention_config_from_json(const std::string& text) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    fail(std::string("config is not valid JSON: ") + e.what());
  }
  if (!j.is_object()) fail("config must be a JSON object");
  const std::string arch = j.contains("arch") && j["arch"].is_string() ? j["arch"].get<std::string>() : "";
  if (arch != kArch)
    fail("this is not an RNN-attention model (config arch is \"" + arch.substr(0, 40) +
         "\"; expected \"rnn-attention\"): load transformer models with loadModel()");
  RnnAttnConfig c;
  c.vocab_size = read_size(j, "vocab_size", 0);
  c.d_emb = read_size(j, "d_emb", c.d_emb);
  c.d_enc = read_size(j, "d_enc", c.d_enc);
  c.d_dec = read_size(j, "d_dec", c.d_dec);
  c.d_att = read_size(j, "d_att", c.d_att);
  c.max_len = read_size(j, "max_len", c.max_len);
  if (j.contains("tokenizer")) {
    if (!j["tokenizer"].is_string()) fail("rnn-attention config key 'tokenizer' must be a string");
    c.tokenizer = j["tokenizer"].get<std::string>();
  }
  c.validate();
  return c;
}

std::vector<uint8_t> save_rnn_attention(RnnAttnModel& model) {
  SafeTensors st;
  for (const auto& [k, v] : model.metadata()) st.metadata[k] = v;
  st.metadata["format"] = kFormat;
  st.metadata["config"] = rnn_attention_config_to_json(model.config());
  st.metadata["vocab"] = json(model.tokenizer().vocab()).dump();
  for (const auto& nt : model.named_tensors()) {
    TensorData t;
    size_t n = 1;
    for (int d : nt.shape) {
      t.shape.push_back(d);
      n *= static_cast<size_t>(d);
    }
    t.data.assign(nt.data, nt.data + n);
    st.tensors.emplace(nt.name, std::move(t));
  }
  return write_safetensors(st);
}

RnnAttnModel load_rnn_attention(const uint8_t* bytes, size_t size) {
  SafeTensors st = read_safetensors(bytes, size);
  const std::string format = meta_or_fail(st, "format");
  if (format != kFormat)
    fail("unsupported model format \"" + format.substr(0, 80) + "\" (expected \"" + kFormat + "\")");
  RnnAttnConfig cfg;
  try {
    cfg = rnn_attention_config_from_json(meta_or_fail(st, "config"));
  } catch (const Error& e) {
    fail(std::string("model file: ") + e.what());
  }
  std::vector<std::string> vocab = vocab_from_json(meta_or_fail(st, "vocab"));
  // The weights the config asks for must be in the file before anything is allocated.
  {
    const uint64_t V = vocab.size(), E = cfg.d_emb, H = cfg.d_enc, Ds = cfg.d_dec, A = cfg.d_att;
    const uint64_t need = V * E + 2 * (E * H + H * H) + H * Ds + Ds * A + 2 * H * A + E * Ds + 2 * H * Ds +
                          Ds * Ds + (Ds + 2 * H) * V;
    uint64_t have = 0;
    for (const auto& [name, t] : st.tensors) have += t.data.size();
    if (have < need)
      fail("model file holds " + std::to_string(have) + " weights but its config needs " + std::to_string(need) +
           " (wrong or truncated file?)");
  }
  const auto kind = Tokenizer::kind_from_name(cfg.tokenizer);
  RnnAttnModel model = [&] {
    try {
      return RnnAttnModel(cfg, Tokenizer(kind, std::move(vocab)));
    } catch (const Error& e) {
      fail(std::string("model file: ") + e.what());
    }
  }();
  std::set<std::string> expected;
  for (const auto& nt : model.named_tensors()) {
    expected.insert(nt.name);
    const auto it = st.tensors.find(nt.name);
    if (it == st.tensors.end()) fail("missing tensor '" + nt.name + "'");
    const std::vector<int64_t> want(nt.shape.begin(), nt.shape.end());
    if (it->second.shape != want) {
      std::string got;
      for (int64_t d : it->second.shape) got += (got.empty() ? "" : ", ") + std::to_string(d);
      std::string exp;
      for (int64_t d : want) exp += (exp.empty() ? "" : ", ") + std::to_string(d);
      fail("tensor '" + nt.name + "' has shape [" + got + "]; expected [" + exp + "]");
    }
    const std::vector<float>& d = it->second.data;
    for (size_t i = 0; i < d.size(); ++i)
      if (!std::isfinite(d[i])) fail("tensor '" + nt.name + "' contains " + (std::isnan(d[i]) ? "NaN" : "Inf"));
    std::copy(d.begin(), d.end(), nt.data);
  }
  for (const auto& [name, t] : st.tensors)
    if (!expected.count(name)) fail("unexpected tensor '" + name.substr(0, 120) + "' in an rnn-attention model file");
  for (const auto& [k, v] : st.metadata)
    if (k != "format" && k != "config" && k != "vocab") model.mutable_metadata()[k] = v;
  return model;
}

}  // namespace ap
