// One model = one safetensors file: the weights as F32 tensors named as in model.hpp, and in
// the metadata the format tag, the config (JSON) and the vocabulary (JSON array). Loading
// checks the file against the config it carries: every tensor present, shaped and finite.
#include "io/model_io.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/tensor.hpp"
#include "io/json_limited.hpp"
#include "io/safetensors.hpp"

namespace ap {

namespace {

using json = nlohmann::json;

// Parses text as JSON; `what` names it in the error ("config is not valid JSON: ...").
json parse_json(const std::string& text, const char* what) {
  try {
    return parse_json_limited(text.begin(), text.end(), what);
  } catch (const json::exception& e) {
    fail(std::string(what) + " is not valid JSON: " + e.what());
  }
}

constexpr const char* kFormat = "attention-playground/1";
constexpr const char* kTokenizerJson = "tokenizer.json";

// The shortest decimal that reads back as the same float, so a config shows "eps": 1e-05
// rather than 9.99999974737875e-06.
double shortest_decimal(float x) {
  char buf[32];
  for (int digits = 6; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(x));
    const double d = std::strtod(buf, nullptr);
    if (static_cast<float>(d) == x) return d;
  }
  return static_cast<double>(x);
}

void read_int(const json& j, const char* key, int& out) {
  if (!j.contains(key)) return;
  const json& v = j[key];
  if (!v.is_number_integer()) fail(std::string("config key '") + key + "' must be an integer, got " + v.type_name());
  // The unsigned check first: a huge unsigned value would wrap when read as int64.
  if ((v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT_MAX)) ||
      (!v.is_number_unsigned() && (v.get<int64_t>() > INT_MAX || v.get<int64_t>() < INT_MIN)))
    fail(std::string("config key '") + key + "' is out of range (" + v.dump() + ")");
  out = static_cast<int>(v.get<int64_t>());
}

void read_float(const json& j, const char* key, float& out) {
  if (!j.contains(key)) return;
  const json& v = j[key];
  if (!v.is_number()) fail(std::string("config key '") + key + "' must be a number, got " + v.type_name());
  out = static_cast<float>(v.get<double>());  // too large becomes inf: validate() says so
}

void read_bool(const json& j, const char* key, bool& out) {
  if (!j.contains(key)) return;
  const json& v = j[key];
  if (!v.is_boolean()) fail(std::string("config key '") + key + "' must be true or false, got " + v.type_name());
  out = v.get<bool>();
}

bool read_string(const json& j, const char* key, std::string& out) {
  if (!j.contains(key)) return false;
  const json& v = j[key];
  if (!v.is_string()) fail(std::string("config key '") + key + "' must be a string, got " + v.type_name());
  out = v.get<std::string>();
  return true;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// A lower bound on the floats a model with this config holds (tok_emb and the block matrices
// named in model.hpp; biases, norms and the LM head left out), checked against the file
// before the Model allocates: a wrong or truncated file fails fast instead of asking for
// gigabytes of zeros.
uint64_t min_weight_count(const ModelConfig& cfg) {
  const uint64_t d = cfg.d_model, d_ff = cfg.d_ff, layers = cfg.n_layers;
  const uint64_t kv = cfg.d_kv(), ffn_mats = cfg.ffn_kind == FfnKind::Mlp ? 2 : 3;
  const uint64_t block =
      2 * d * d + 2 * d * kv + (cfg.ffn ? ffn_mats * d * d_ff : 0);  // W_Q W_O, W_K W_V, W_1 W_2 [W_gate]
  uint64_t n = static_cast<uint64_t>(cfg.vocab_size) * d;
  if (cfg.has_encoder()) n += layers * block;
  if (cfg.has_decoder()) n += layers * block;
  if (cfg.arch == Arch::EncoderDecoder) n += layers * 4 * d * d;  // cross-attention
  return n;
}

}  // namespace

std::string meta_or_fail(const ModelFile& file, const char* key) {
  const auto it = file.metadata.find(key);
  if (it == file.metadata.end())
    fail(std::string("not an attention-playground model file: metadata has no \"") + key + "\"");
  return it->second;
}

std::vector<std::string> vocab_from_json(const std::string& text) {
  const json j = parse_json(text, "model vocabulary");
  if (!j.is_array()) fail(std::string("model vocabulary must be a JSON array, got ") + j.type_name());
  std::vector<std::string> vocab;
  vocab.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string())
      fail("model vocabulary entry " + std::to_string(i) + " must be a string, got " + j[i].type_name());
    vocab.push_back(j[i].get<std::string>());
  }
  return vocab;
}

namespace {
// The config's sizes as a file names them, in the order it writes them: one list for both ways.
constexpr std::pair<const char*, int ModelConfig::*> kSizes[] = {
    {"d_model", &ModelConfig::d_model}, {"n_heads", &ModelConfig::n_heads},       {"n_layers", &ModelConfig::n_layers},
    {"d_ff", &ModelConfig::d_ff},       {"vocab_size", &ModelConfig::vocab_size}, {"max_len", &ModelConfig::max_len},
};
}  // namespace

std::string config_to_json(const ModelConfig& cfg) {
  nlohmann::ordered_json j;
  j["arch"] = to_string(cfg.arch);
  for (const auto& [key, field] : kSizes) j[key] = cfg.*field;
  j["pos"] = to_string(cfg.pos);
  j["rel_clip"] = cfg.rel_clip;
  j["act"] = to_string(cfg.act);
  j["norm"] = to_string(cfg.norm);
  j["eps"] = shortest_decimal(cfg.eps);
  j["scale"] = cfg.scale;
  j["causal"] = cfg.causal;
  j["tokenizer"] = cfg.tokenizer;
  if (!cfg.ffn) j["ffn"] = false;  // an attention-only model (the induction view's)
  // Issue 26's parts, written only when on: the files of models without them stay as they were.
  if (cfg.norm_kind != NormKind::Layer) j["norm_kind"] = to_string(cfg.norm_kind);
  if (cfg.ffn_kind != FfnKind::Mlp) j["ffn_kind"] = to_string(cfg.ffn_kind);
  if (cfg.kv_heads() != cfg.n_heads) j["n_kv_heads"] = cfg.n_kv_heads;
  if (cfg.window != 0) j["window"] = cfg.window;
  if (cfg.rope_theta != 10000.0f) j["rope_theta"] = shortest_decimal(cfg.rope_theta);
  if (cfg.family.empty() && cfg.tied_head) j["tied_head"] = true;  // the English models share tok_emb with the head
  if (!cfg.family.empty()) {  // a pretrained model's parts (never in the playground's own files)
    j["family"] = cfg.family;
    j["type_vocab"] = cfg.type_vocab;
    j["emb_norm"] = cfg.emb_norm;
    j["tied_head"] = cfg.tied_head;
    j["head_bias"] = cfg.head_bias;
    j["mlm_head"] = cfg.mlm_head;
  }
  try {
    return j.dump();
  } catch (const nlohmann::json::exception&) {  // only a non-UTF-8 tokenizer string can throw
    fail("config tokenizer name is not valid UTF-8");
  }
}

json config_object_from_json(const std::string& text) {
  json j = parse_json(text, "config");
  if (!j.is_object()) fail(std::string("config must be a JSON object, got ") + j.type_name());
  return j;
}

ModelConfig config_from_json(const std::string& text) {
  const json j = config_object_from_json(text);

  ModelConfig cfg;
  std::string s;
  if (read_string(j, "arch", s)) cfg.arch = arch_from_string(s);
  for (const auto& [key, field] : kSizes) read_int(j, key, cfg.*field);
  if (read_string(j, "pos", s)) cfg.pos = pos_from_string(s);
  read_int(j, "rel_clip", cfg.rel_clip);
  if (read_string(j, "act", s)) cfg.act = act_from_string(s);
  if (read_string(j, "norm", s)) cfg.norm = norm_from_string(s);
  read_float(j, "eps", cfg.eps);
  read_float(j, "rope_theta", cfg.rope_theta);
  read_bool(j, "scale", cfg.scale);
  read_bool(j, "causal", cfg.causal);
  read_string(j, "tokenizer", cfg.tokenizer);
  read_bool(j, "tied_head", cfg.tied_head);
  read_bool(j, "ffn", cfg.ffn);
  if (read_string(j, "norm_kind", s)) cfg.norm_kind = norm_kind_from_string(s);
  if (read_string(j, "ffn_kind", s)) cfg.ffn_kind = ffn_kind_from_string(s);
  read_int(j, "n_kv_heads", cfg.n_kv_heads);
  read_int(j, "window", cfg.window);
  cfg.validate();
  return cfg;
}

SafeTensors model_file(const std::map<std::string, std::string>& metadata, const std::string& config_json,
                       const std::vector<std::string>& vocab) {
  SafeTensors st;
  for (const auto& [key, value] : metadata) st.metadata[key] = value;
  st.metadata["format"] = kFormat;
  st.metadata["config"] = config_json;
  st.metadata["vocab"] = json(vocab).dump();  // the Tokenizer guarantees valid UTF-8
  return st;
}

void add_tensor(SafeTensors& st, const std::string& name, const std::vector<int>& shape, const float* data) {
  TensorData t;
  t.shape.assign(shape.begin(), shape.end());
  t.data.assign(data, data + element_count(shape));
  if (!st.tensors.emplace(name, std::move(t)).second) fail("model has two tensors named '" + name + "'");
}

ModelFile read_model_file(const uint8_t* bytes, size_t size) {
  SafeTensorsView view = read_safetensors_view(bytes, size);
  ModelFile file;
  file.metadata = std::move(view.header.metadata);
  for (auto& [name, info] : view.header.tensors) file.tensors.emplace(name, std::move(info));
  file.data = view.data;
  const std::string format = meta_or_fail(file, "format");
  if (format != kFormat)
    fail("unsupported model format \"" + format.substr(0, 80) + "\" (expected \"" + kFormat + "\")");
  return file;
}

namespace {
uint64_t count_of(const TensorInfo& t) { return (t.end - t.begin) / dtype_size(t.dtype); }
}  // namespace

void check_weight_count(const ModelFile& file, uint64_t needed) {
  uint64_t file_floats = 0;
  for (const auto& [name, t] : file.tensors) file_floats += count_of(t);
  if (file_floats < needed)
    fail("model file holds " + std::to_string(file_floats) + " weights but its config needs at least " +
         std::to_string(needed) + " (wrong or truncated file?)");
}

namespace {
// The file's tensor `name`, after checking it is there and has this shape.
const TensorInfo& tensor_info(const ModelFile& file, const std::string& name, const std::vector<int>& shape) {
  const auto it = file.tensors.find(name);
  if (it == file.tensors.end()) fail("missing tensor '" + name + "'");
  const TensorInfo& t = it->second;
  const std::vector<int64_t> want(shape.begin(), shape.end());
  if (t.shape != want)
    fail("tensor '" + name + "' has shape " + shape_string(t.shape) + "; expected " + shape_string(want));
  return t;
}
}  // namespace

void read_weight(const ModelFile& file, const std::string& name, const std::vector<int>& shape, Weight& w) {
  const TensorInfo& t = tensor_info(file, name, shape);
  const Stored stored = t.dtype == "F16" ? Stored::F16 : t.dtype == "BF16" ? Stored::BF16 : Stored::F32;
  if (!Weight::keeps_as_stored(stored)) {
    w.set_zero(shape[0], shape[1]);
    read_tensor(file, name, shape, w.data());
    return;
  }
  w.hold_16bit(stored, shape[0], shape[1]);
  const size_t n = static_cast<size_t>(count_of(t));
  const uint8_t* src = file.data + t.begin;
  uint16_t* bits = w.bits();
  for (size_t i = 0; i < n; ++i) bits[i] = static_cast<uint16_t>(src[2 * i] | src[2 * i + 1] << 8);
  w.check_finite("tensor '" + name + "'");
}

void read_tensor(const ModelFile& file, const std::string& name, const std::vector<int>& shape, float* data) {
  const TensorInfo& t = tensor_info(file, name, shape);
  const size_t n = static_cast<size_t>(count_of(t));
  to_float(t.dtype, file.data + t.begin, n, data);
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(data[i]))
      fail("tensor '" + name + "' contains " + (std::isnan(data[i]) ? "NaN" : "Inf") + " (at element " +
           std::to_string(i) + ")");
}

void finish_reading(const ModelFile& file, const std::set<std::string>& expected, const std::string& what,
                    std::map<std::string, std::string>& metadata) {
  for (const auto& [name, t] : file.tensors)
    if (!expected.count(name)) fail("unexpected tensor '" + name.substr(0, 120) + "' " + what);
  for (const auto& [key, value] : file.metadata)  // keep free-form keys (task, separator, ...)
    if (key != "format" && key != "config" && key != "vocab" && key != kTokenizerJson) metadata[key] = value;
}

std::vector<uint8_t> save_model(Model& model, bool f16) {
  ModelConfig cfg = model.config();
  if (!cfg.family.empty())
    fail("a pretrained " + cfg.family +
         " model is not saved in the playground's own format: its Hugging Face folder is the file to keep");
  const Tokenizer& tok = model.tokenizer();
  // The tokenizer object is the truth about its kind; the config string follows it.
  cfg.tokenizer = Tokenizer::name_of(tok.kind());
  if (cfg.vocab_size == 0) cfg.vocab_size = tok.size();
  if (cfg.vocab_size != tok.size())
    fail("model config vocab_size (" + std::to_string(cfg.vocab_size) + ") differs from its tokenizer's vocabulary (" +
         std::to_string(tok.size()) + ")");
  const bool json_tok = tok.kind() == Tokenizer::Kind::External;
  if (json_tok && tok.source().empty()) fail("this model's tokenizer has no tokenizer.json to save with it");
  SafeTensors st =
      model_file(model.metadata(), config_to_json(cfg), json_tok ? std::vector<std::string>{} : tok.vocab());
  if (json_tok) {  // the tokenizer.json itself: its vocabulary, merges and special tokens
    st.metadata.erase("vocab");
    st.metadata[kTokenizerJson] = tok.source();
  }
  for (const Model::NamedTensor& nt : model.named_tensors()) {
    if (!nt.weight || !nt.weight->is_16bit()) {
      add_tensor(st, nt.name, nt.shape, nt.data);
    } else {  // a Weight kept at 16 bits: its float values (exact), rounded back to F16 if asked
      const Mat values = nt.weight->widened();
      add_tensor(st, nt.name, nt.shape, values.data());
    }
    st.tensors[nt.name].f16 = f16;
  }
  return write_safetensors(st);
}

Model load_model(const uint8_t* bytes, size_t size) {
  const ModelFile st = read_model_file(bytes, size);
  ModelConfig cfg = in_model_file([&] { return config_from_json(meta_or_fail(st, "config")); });
  const auto kind = Tokenizer::kind_from_name(cfg.tokenizer);
  Tokenizer tok = kind == Tokenizer::Kind::External
                      ? read_tokenizer_json(meta_or_fail(st, kTokenizerJson))
                      : in_model_file([&] { return Tokenizer(kind, vocab_from_json(meta_or_fail(st, "vocab"))); });
  if (cfg.vocab_size == 0) cfg.vocab_size = tok.size();  // 0 means "from the tokenizer"
  if (cfg.vocab_size != tok.size())
    fail("model file: config vocab_size is " + std::to_string(cfg.vocab_size) + " but the vocabulary has " +
         std::to_string(tok.size()) + " entries");
  check_weight_count(st, min_weight_count(cfg));

  // Each Weight sized as the file stores it (read_weight), where this build keeps 16-bit weights.
  constexpr bool as_stored = Weight::kKeeps16Bit;
  Model model(cfg, std::move(tok), !as_stored);
  std::set<std::string> expected;
  for (const Model::NamedTensor& nt : model.named_tensors()) {
    expected.insert(nt.name);
    if (as_stored && nt.weight)
      read_weight(st, nt.name, nt.shape, *nt.weight);
    else
      read_tensor(st, nt.name, nt.shape, nt.data);
  }
  finish_reading(st, expected,
                 std::string("(not part of a ") + to_string(cfg.arch) + " model with this config; wrong file?)",
                 model.mutable_metadata());
  model.pack_weights();
  return model;
}

}  // namespace ap
