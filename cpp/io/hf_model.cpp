// Hugging Face GPT-2, BERT and Llama-family folders -> the core's Model (see hf_model.hpp).
#include "io/hf_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "base/tensor.hpp"
#include "core/layout.hpp"
#include "io/hf_tokenizer.hpp"
#include "io/json_limited.hpp"
#include "io/safetensors.hpp"

namespace ap {

namespace {

using json = nlohmann::json;

// ---- config.json -------------------------------------------------------------------------

struct ConfigReader {
  const json& j;
  [[noreturn]] void bad(const std::string& key, const std::string& why) const {
    fail("config.json: " + key + " " + why);
  }
  bool has(const char* key) const { return j.contains(key) && !j[key].is_null(); }
  int integer(const char* key, int fallback = std::numeric_limits<int>::min()) const {
    if (!has(key)) {
      if (fallback == std::numeric_limits<int>::min()) bad(key, "is missing");
      return fallback;
    }
    const json& v = j[key];
    if (!v.is_number_integer()) bad(key, "must be an integer, got " + v.dump().substr(0, 40));
    const int64_t x = v.get<int64_t>();
    if (x <= 0 || x > (1 << 24)) bad(key, "is out of range (" + std::to_string(x) + ")");
    return static_cast<int>(x);
  }
  float number(const char* key, float fallback) const {
    if (!has(key)) return fallback;
    const json& v = j[key];
    if (!v.is_number()) bad(key, "must be a number, got " + v.dump().substr(0, 40));
    const double x = v.get<double>();
    if (!std::isfinite(x) || x <= 0 || x > 1) bad(key, "is out of range (" + v.dump() + ")");
    return static_cast<float>(x);
  }
  // A number in (lo, hi], for fields that are not a probability or an epsilon (rope_theta).
  double real(const char* key, double fallback, double lo, double hi) const {
    if (!has(key)) return fallback;
    const json& v = j[key];
    if (!v.is_number()) bad(key, "must be a number, got " + v.dump().substr(0, 40));
    const double x = v.get<double>();
    if (!std::isfinite(x) || x <= lo || x > hi) bad(key, "is out of range (" + v.dump() + ")");
    return x;
  }
  bool flag(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!j[key].is_boolean()) bad(key, "must be true or false, got " + j[key].dump().substr(0, 40));
    return j[key].get<bool>();
  }
  std::string text(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!j[key].is_string()) bad(key, "must be a string, got " + j[key].dump().substr(0, 40));
    return j[key].get<std::string>();
  }
  Act act(const char* key, const std::string& fallback) const {
    const std::string a = text(key, fallback);
    if (a == "gelu_new" || a == "gelu_pytorch_tanh" || a == "gelu_fast") return Act::GeluTanh;
    if (a == "gelu") return Act::Gelu;
    if (a == "relu") return Act::Relu;
    bad(key, "'" + a.substr(0, 40) + "' is not supported (gelu_new, gelu or relu)");
  }
  void must_be(const char* key, bool fallback, bool wanted, const std::string& why) const {
    if (flag(key, fallback) != wanted) bad(key, why);
  }
};

// Llama (SmolLM, TinyLlama, the llama2.c "stories" models), Mistral and Qwen2 (modeling_llama.py,
// modeling_mistral.py, modeling_qwen2.py): decoder-only, pre-norm RMSNorm, RoPE with rope_theta, grouped K/V
// heads, SwiGLU; Mistral's sliding window; Qwen2's q/k/v biases.
// Which projections of a Llama-family attention have biases (none in Llama unless attention_bias; q, k, v in
// Qwen2): not a field of the core's config, whose attention always has its biases (zero when the file has none).
struct AttentionBiases {
  bool qkv = false, o = false;
};

void llama_config(ModelConfig& c, const ConfigReader& r, const std::string& type, AttentionBiases& biases) {
  c.family = type;
  c.arch = Arch::DecoderOnly;
  c.vocab_size = r.integer("vocab_size");
  c.d_model = r.integer("hidden_size");
  c.n_layers = r.integer("num_hidden_layers");
  c.n_heads = r.integer("num_attention_heads");
  const int kv = r.integer("num_key_value_heads", c.n_heads);
  if (c.n_heads % kv != 0)
    r.bad("num_key_value_heads", "(" + std::to_string(kv) + ") must divide num_attention_heads (" +
                                     std::to_string(c.n_heads) + "): each K/V head serves a group of query heads");
  c.n_kv_heads = kv == c.n_heads ? 0 : kv;
  if (c.d_model % c.n_heads != 0)
    r.bad("num_attention_heads",
          "(" + std::to_string(c.n_heads) + ") must divide hidden_size (" + std::to_string(c.d_model) + ")");
  if (r.has("head_dim") && r.integer("head_dim") != c.d_model / c.n_heads)
    r.bad("head_dim", "is not hidden_size / num_attention_heads (" + std::to_string(c.d_model / c.n_heads) +
                          "): heads of another width are not supported");
  if (c.d_k() % 2 != 0)
    r.bad("num_attention_heads",
          "gives heads of odd width " + std::to_string(c.d_k()) + ": RoPE turns pairs of values");
  c.d_ff = r.integer("intermediate_size");
  // RoPE has no table of positions: a longer context than the core takes is cut to its limit.
  c.max_len = std::min(r.integer("max_position_embeddings", 2048), kMaxLen);
  const std::string act = r.text("hidden_act", "silu");
  if (act != "silu") r.bad("hidden_act", "'" + act.substr(0, 40) + "' is not supported (silu: SwiGLU)");
  c.ffn_kind = FfnKind::SwiGlu;
  c.norm_kind = NormKind::Rms;
  c.eps = r.number("rms_norm_eps", 1e-6f);
  c.pos = PosKind::Rope;
  c.rope_theta = static_cast<float>(r.real("rope_theta", 10000.0, 1.0, 1e12));
  if (r.has("rope_scaling"))
    r.bad("rope_scaling", "is " + r.j["rope_scaling"].dump().substr(0, 60) +
                              ": scaled RoPE (linear, dynamic, yarn, llama3) is not supported, only null");
  c.norm = NormPlace::Pre;
  c.causal = true;
  c.scale = true;
  c.tied_head = r.flag("tie_word_embeddings", false);
  c.head_bias = false;
  r.must_be("mlp_bias", false, false, "is true: biases on gate_proj / up_proj / down_proj are not supported");
  biases.qkv = type == "qwen2" || (type == "llama" && r.flag("attention_bias", false));
  biases.o = type == "llama" && biases.qkv;
  int window = 0;
  if (type == "mistral") {
    window = r.has("sliding_window") ? r.integer("sliding_window") : 0;
  } else if (type == "qwen2" && r.flag("use_sliding_window", false)) {
    // Qwen2 windows the layers from max_window_layers on; the core has one window for every layer.
    int from = 28;  // Qwen2Config's default
    if (r.has("max_window_layers")) {
      const json& v = r.j["max_window_layers"];
      if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > (1 << 24))
        r.bad("max_window_layers", "must be an integer >= 0, got " + v.dump().substr(0, 40));
      from = v.get<int>();
    }
    if (from > 0 && from < c.n_layers)
      r.bad("max_window_layers", "(" + std::to_string(from) + ") windows some layers only (use_sliding_window is " +
                                     "true): one window for all layers or none is supported");
    if (from == 0) window = r.integer("sliding_window");
  }
  c.window = window >= c.max_len ? 0 : window;  // a window as long as the context hides nothing
}

ModelConfig read_config(const std::string& text, AttentionBiases& biases) {
  json j;
  try {
    j = parse_json_limited(text.begin(), text.end(), "config.json");
  } catch (const json::exception& e) {
    fail(std::string("config.json is not JSON: ") + e.what());
  }
  if (!j.is_object()) fail("config.json must be a JSON object");
  const ConfigReader r{j};
  const std::string type = r.text("model_type", "");
  ModelConfig c;
  c.tokenizer = "hf";
  if (type == "gpt2") {
    c.family = "gpt2";
    c.arch = Arch::DecoderOnly;
    c.vocab_size = r.integer("vocab_size");
    c.max_len = r.integer("n_positions", r.integer("n_ctx", 1024));
    c.d_model = r.integer("n_embd");
    c.n_layers = r.integer("n_layer");
    c.n_heads = r.integer("n_head");
    c.d_ff = r.integer("n_inner", 4 * c.d_model);
    c.act = r.act("activation_function", "gelu_new");
    c.eps = r.number("layer_norm_epsilon", 1e-5f);
    c.pos = PosKind::Learned;
    c.norm = NormPlace::Pre;
    c.causal = true;
    c.scale = r.flag("scale_attn_weights", true);
    c.tied_head = r.flag("tie_word_embeddings", true);
    c.head_bias = false;
    r.must_be("scale_attn_by_inverse_layer_idx", false, false,
              "is true: scores scaled by 1 / layer index are not supported");
    r.must_be("add_cross_attention", false, false, "is true: GPT-2 with cross-attention is not supported");
  } else if (type == "bert" || type == "distilbert") {
    // DistilBERT: BERT's layers under other names, no token types, LayerNorm eps fixed in its code.
    const bool distil = type == "distilbert";
    c.family = "bert";
    c.arch = Arch::EncoderOnly;
    c.vocab_size = r.integer("vocab_size");
    c.max_len = r.integer("max_position_embeddings", 512);
    c.d_model = r.integer(distil ? "dim" : "hidden_size");
    c.n_layers = r.integer(distil ? "n_layers" : "num_hidden_layers");
    c.n_heads = r.integer(distil ? "n_heads" : "num_attention_heads");
    c.d_ff = r.integer(distil ? "hidden_dim" : "intermediate_size");
    c.act = r.act(distil ? "activation" : "hidden_act", "gelu");
    c.eps = distil ? 1e-12f : r.number("layer_norm_eps", 1e-12f);
    c.type_vocab = distil ? 0 : r.integer("type_vocab_size", 2);
    c.pos = PosKind::Learned;
    c.norm = NormPlace::Post;
    c.causal = false;
    c.emb_norm = true;
    c.tied_head = r.flag("tie_word_embeddings", true);
    c.head_bias = true;
    c.mlm_head = true;
    const std::string pet = r.text("position_embedding_type", "absolute");
    if (pet != "absolute")
      r.bad("position_embedding_type", "'" + pet.substr(0, 40) + "' is not supported (only absolute positions)");
    r.must_be("is_decoder", false, false, "is true: only BERT as an encoder (masked LM) is supported");
    if (!c.tied_head) r.bad("tie_word_embeddings", "is false: BERT's MLM decoder is read as tied to the embeddings");
  } else if (type == "llama" || type == "mistral" || type == "qwen2") {
    llama_config(c, r, type, biases);
  } else if (type.empty()) {
    fail(
        "config.json: model_type is missing (a Hugging Face config names it: \"gpt2\", \"bert\", \"distilbert\", "
        "\"llama\", \"mistral\" or \"qwen2\")");
  } else {
    fail("config.json: model_type '" + type.substr(0, 40) +
         "' is not supported (GPT-2 family: \"gpt2\"; BERT family: \"bert\", \"distilbert\"; Llama family: "
         "\"llama\", \"mistral\", \"qwen2\")");
  }
  try {
    c.validate();
  } catch (const Error& e) {
    fail(std::string("config.json: ") + e.what());
  }
  uint64_t params = 0;
  for_each_tensor(
      c, [&](const std::string&, const std::vector<int>& shape, TensorKind, auto) { params += element_count(shape); });
  if (params * 4 > kMaxPretrainedBytes)
    fail("config.json: the model has " + std::to_string(params / 1000000) + " M parameters (" +
         std::to_string(params * 4 >> 20) + " MB as float32); the playground holds at most " +
         std::to_string(kMaxPretrainedBytes >> 20) + " MB of weights");
  return c;
}

}  // namespace

ModelConfig hf_config(const std::string& text) {
  AttentionBiases unused;
  return read_config(text, unused);
}

// ---- tokenizer.json --------------------------------------------------------------------

namespace {

class HfBackend : public TokenizerBackend {
 public:
  HfBackend(std::shared_ptr<const HfTokenizer> t, std::string source) : t_(std::move(t)), source_(std::move(source)) {}
  Encoded encode(const std::string& text) const override {
    HfTokenizer::Encoded e = t_->encode(text, true);
    return {std::move(e.ids), std::move(e.pieces), std::move(e.unknown)};
  }
  std::string decode(const std::vector<int>& ids) const override { return t_->decode(ids); }
  const std::vector<std::string>& vocab() const override { return t_->vocab(); }
  const std::vector<std::string>& pieces() const override { return t_->pieces(); }
  int id_of(const std::string& token) const override { return t_->id_of(token); }
  std::string name() const override { return t_->kind_name(); }
  int pad() const override { return t_->pad(); }
  int unk() const override { return t_->unk(); }
  int bos() const override { return t_->bos(); }
  int eos() const override { return t_->eos(); }
  int mask() const override { return t_->mask(); }
  const std::string& source() const override { return source_; }

 private:
  std::shared_ptr<const HfTokenizer> t_;
  std::string source_;
};

}  // namespace

Tokenizer hf_tokenizer(const std::string& text) {
  return Tokenizer(std::make_shared<HfBackend>(HfTokenizer::parse(text), text));
}

// ---- model.safetensors -----------------------------------------------------------------

namespace {

// Where one file tensor's values go: parts.size() equal column blocks (GPT-2's c_attn: W_Q W_K
// W_V side by side), each (rows, cols / parts) row-major; or, transposed (nn.Linear's (out, in)),
// value (r, c) to dst[c * rows + r].
// A Weight target (weights: one per part, each (w_rows, w_cols) in the core) is sized when the
// file's header gives its dtype: kept at 16 bits for F16 / BF16 (core/weight.hpp's rule), the file's
// bits then copied into parts16 in the same places, or float32 with the values converted into parts.
struct Target {
  std::vector<float*> parts;
  std::vector<int64_t> shape;  // what the file must hold
  bool transpose = false;
  // > 0: the file's output index j (a transposed row, or a bias entry) goes to rope_column(j, rope_d_k):
  // Hugging Face's Llama rotates pairs (i, i + d_k/2) of a head (rotate_half), the core pairs (2i, 2i+1).
  int rope_d_k = 0;
  std::vector<Weight*> weights;
  int64_t w_rows = 0, w_cols = 0;
  std::vector<uint16_t*> parts16;

  // Sizes the Weights for a tensor of this dtype and points parts / parts16 at them.
  void allocate(const std::string& dtype) {
    if (weights.empty()) return;  // a vector's target: already in place
    const Stored stored = dtype == "F16" ? Stored::F16 : dtype == "BF16" ? Stored::BF16 : Stored::F32;
    parts.clear();
    parts16.clear();
    for (Weight* w : weights) {
      if (Weight::keeps_as_stored(stored)) {
        w->hold_16bit(stored, w_rows, w_cols);
        parts16.push_back(w->bits());
      } else {
        w->set_zero(w_rows, w_cols);
        parts.push_back(w->data());
      }
    }
  }
};

// Within each head of width d_k, HF's column i < d_k/2 becomes the core's 2i and i + d_k/2 becomes 2i + 1,
// so the core's rotation of pair (2i, 2i+1) by pos * theta^(-2i/d_k) is HF's rotation of (i, i + d_k/2) by
// pos * theta^(-2i/d_k): the same angles, the same q.k. Q and K are permuted alike, so scores, weights and
// everything after them are HF's; the q, k, q_rot, k_rot stages list each head's values in the core's order.
int64_t rope_column(int64_t j, int64_t d_k) {
  const int64_t i = j % d_k, half = d_k / 2;
  return j - i + (i < half ? 2 * i : 2 * (i - half) + 1);
}

struct Planned {
  std::string name;  // as in the file
  TensorInfo info;
  Target target;
  uint64_t count = 0, done = 0;  // values
  uint64_t elem = 0;             // bytes per value
};

std::string shape_text(const std::vector<int64_t>& s) {
  std::string t = "[";
  for (size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + "]";
}

std::string tensor_name(const std::string& name) {
  return "'" + (name.size() <= 120 ? name : name.substr(0, 120) + "...") + "'";
}

// The tensors a family's checkpoint holds, by their name without the model's prefix
// ("transformer.", "bert."); LayerNorm gamma / beta are read as weight / bias.
std::map<std::string, Target> expected_tensors(const ModelConfig& c, ModelWeights& w, const AttentionBiases& biases) {
  std::map<std::string, Target> t;
  const int64_t d = c.d_model, F = c.d_ff, V = c.vocab_size, L = c.max_len;
  auto copy = [&](const std::string& name, float* dst, std::vector<int64_t> shape) {
    t[name] = Target{{dst}, std::move(shape), false};
  };
  auto linear_t = [&](const std::string& name, Mat& dst) {  // nn.Linear (out, in) -> (in, out)
    t[name] = Target{{dst.data()}, {dst.cols(), dst.rows()}, true};
  };
  // A Weight (sized when the header gives its dtype): parts side by side, each (rows, cols).
  auto weight = [&](const std::string& name, std::vector<Weight*> parts, int64_t rows, int64_t cols, bool transpose) {
    Target& x = t[name];
    x.shape = transpose ? std::vector<int64_t>{cols, rows}
                        : std::vector<int64_t>{rows, cols * static_cast<int64_t>(parts.size())};
    x.transpose = transpose;
    x.weights = std::move(parts);
    x.w_rows = rows;
    x.w_cols = cols;
  };
  auto linear_w = [&](const std::string& name, Weight& dst, int64_t in, int64_t out) {
    weight(name, {&dst}, in, out, true);
  };
  auto norm = [&](const std::string& name, LayerNormWeights& n) {
    copy(name + ".weight", n.gamma.data(), {d});
    copy(name + ".bias", n.beta.data(), {d});
  };
  if (c.family == "gpt2") {
    weight("wte.weight", {&w.tok_emb}, V, d, false);
    copy("wpe.weight", w.pos_emb.data(), {L, d});
    for (int i = 0; i < c.n_layers; ++i) {
      BlockWeights& b = w.decoder[static_cast<size_t>(i)];
      const std::string p = "h." + std::to_string(i) + ".";
      norm(p + "ln_1", b.norm1);
      AttentionWeights& a = b.self_attn;
      weight(p + "attn.c_attn.weight", {&a.wq, &a.wk, &a.wv}, d, d, false);
      t[p + "attn.c_attn.bias"] = Target{{a.bq.data(), a.bk.data(), a.bv.data()}, {3 * d}, false};
      weight(p + "attn.c_proj.weight", {&a.wo}, d, d, false);
      copy(p + "attn.c_proj.bias", a.bo.data(), {d});
      norm(p + "ln_2", b.norm2);
      weight(p + "mlp.c_fc.weight", {&b.ffn.w1}, d, F, false);
      copy(p + "mlp.c_fc.bias", b.ffn.b1.data(), {F});
      weight(p + "mlp.c_proj.weight", {&b.ffn.w2}, F, d, false);
      copy(p + "mlp.c_proj.bias", b.ffn.b2.data(), {d});
    }
    norm("ln_f", w.dec_final_norm);
    if (!c.tied_head) linear_w("lm_head.weight", w.lm_head_w, d, V);
  } else if (c.family == "llama" || c.family == "mistral" || c.family == "qwen2") {
    const int64_t dk = c.d_k(), kv = c.d_kv();
    auto rope = [&](const std::string& name) { t[name].rope_d_k = static_cast<int>(dk); };
    weight("model.embed_tokens.weight", {&w.tok_emb}, V, d, false);
    for (int i = 0; i < c.n_layers; ++i) {
      BlockWeights& b = w.decoder[static_cast<size_t>(i)];
      const std::string p = "model.layers." + std::to_string(i) + ".";
      AttentionWeights& a = b.self_attn;
      copy(p + "input_layernorm.weight", b.norm1.gamma.data(), {d});
      linear_w(p + "self_attn.q_proj.weight", a.wq, d, d);
      rope(p + "self_attn.q_proj.weight");
      linear_w(p + "self_attn.k_proj.weight", a.wk, d, kv);
      rope(p + "self_attn.k_proj.weight");
      linear_w(p + "self_attn.v_proj.weight", a.wv, d, kv);
      linear_w(p + "self_attn.o_proj.weight", a.wo, d, d);
      if (biases.qkv) {
        copy(p + "self_attn.q_proj.bias", a.bq.data(), {d});
        rope(p + "self_attn.q_proj.bias");
        copy(p + "self_attn.k_proj.bias", a.bk.data(), {kv});
        rope(p + "self_attn.k_proj.bias");
        copy(p + "self_attn.v_proj.bias", a.bv.data(), {kv});
      }
      if (biases.o) copy(p + "self_attn.o_proj.bias", a.bo.data(), {d});
      copy(p + "post_attention_layernorm.weight", b.norm2.gamma.data(), {d});
      linear_w(p + "mlp.gate_proj.weight", b.ffn.w_gate, d, F);
      linear_w(p + "mlp.up_proj.weight", b.ffn.w1, d, F);
      linear_w(p + "mlp.down_proj.weight", b.ffn.w2, F, d);
    }
    copy("model.norm.weight", w.dec_final_norm.gamma.data(), {d});
    if (!c.tied_head) linear_w("lm_head.weight", w.lm_head_w, d, V);
  } else {  // bert
    weight("embeddings.word_embeddings.weight", {&w.tok_emb}, V, d, false);
    copy("embeddings.position_embeddings.weight", w.pos_emb.data(), {L, d});
    if (c.type_vocab > 0) copy("embeddings.token_type_embeddings.weight", w.type_emb.data(), {c.type_vocab, d});
    norm("embeddings.LayerNorm", w.emb_norm);
    for (int i = 0; i < c.n_layers; ++i) {
      BlockWeights& b = w.encoder[static_cast<size_t>(i)];
      const std::string p = "encoder.layer." + std::to_string(i) + ".";
      AttentionWeights& a = b.self_attn;
      linear_w(p + "attention.self.query.weight", a.wq, d, d);
      copy(p + "attention.self.query.bias", a.bq.data(), {d});
      linear_w(p + "attention.self.key.weight", a.wk, d, d);
      copy(p + "attention.self.key.bias", a.bk.data(), {d});
      linear_w(p + "attention.self.value.weight", a.wv, d, d);
      copy(p + "attention.self.value.bias", a.bv.data(), {d});
      linear_w(p + "attention.output.dense.weight", a.wo, d, d);
      copy(p + "attention.output.dense.bias", a.bo.data(), {d});
      norm(p + "attention.output.LayerNorm", b.norm1);
      linear_w(p + "intermediate.dense.weight", b.ffn.w1, d, F);
      copy(p + "intermediate.dense.bias", b.ffn.b1.data(), {F});
      linear_w(p + "output.dense.weight", b.ffn.w2, F, d);
      copy(p + "output.dense.bias", b.ffn.b2.data(), {d});
      norm(p + "output.LayerNorm", b.norm2);
    }
    linear_t("cls.predictions.transform.dense.weight", w.mlm_w);
    copy("cls.predictions.transform.dense.bias", w.mlm_b.data(), {d});
    norm("cls.predictions.transform.LayerNorm", w.mlm_norm);
    copy("cls.predictions.bias", w.lm_head_b.data(), {V});
  }
  return t;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A file name -> its name in expected_tensors, or "" for a tensor a checkpoint may hold that the
// forward pass does not use (GPT-2's causal-mask buffers, a tied head's copy, BERT's pooler and
// next-sentence head).
std::string canonical(const ModelConfig& c, std::string name) {
  const std::string& family = c.family;
  if (family == "llama" || family == "mistral" || family == "qwen2") {
    // Older checkpoints save RoPE's inverse frequencies; a tied head may be saved as its own copy.
    if (ends_with(name, ".self_attn.rotary_emb.inv_freq") || (c.tied_head && name == "lm_head.weight")) return "";
    return name;
  }
  for (const char* prefix : {"transformer.", "bert.", "distilbert."})
    if (name.rfind(prefix, 0) == 0) name = name.substr(std::string(prefix).size());
  if (ends_with(name, "LayerNorm.gamma")) name = name.substr(0, name.size() - 5) + "weight";
  if (ends_with(name, "LayerNorm.beta")) name = name.substr(0, name.size() - 4) + "bias";
  if (family == "gpt2") {
    if (ends_with(name, ".attn.bias") || ends_with(name, ".attn.masked_bias")) return "";
    return name;
  }
  if (name.rfind("pooler.", 0) == 0 || name.rfind("cls.seq_relationship.", 0) == 0 ||
      name == "cls.predictions.decoder.weight" || name == "cls.predictions.decoder.bias" ||
      name == "embeddings.position_ids" || name == "vocab_projector.weight")
    return "";
  // DistilBERT's names for BERT's parts (its layers are "transformer.layer.i." after the prefix
  // came off as GPT-2's "transformer.": they are "layer.i." here).
  static const std::pair<const char*, const char*> kDistil[] = {
      {"attention.q_lin.", "attention.self.query."},
      {"attention.k_lin.", "attention.self.key."},
      {"attention.v_lin.", "attention.self.value."},
      {"attention.out_lin.", "attention.output.dense."},
      {"sa_layer_norm.", "attention.output.LayerNorm."},
      {"ffn.lin1.", "intermediate.dense."},
      {"ffn.lin2.", "output.dense."},
      {"output_layer_norm.", "output.LayerNorm."},
  };
  if (name.rfind("transformer.layer.", 0) == 0 || name.rfind("layer.", 0) == 0) {
    name = "encoder." + name.substr(name.rfind("layer.", 0) == 0 ? 0 : std::string("transformer.").size());
    const size_t dot = name.find('.', std::string("encoder.layer.").size());  // after the layer number
    if (dot != std::string::npos)
      for (const auto& [from, to] : kDistil)
        if (name.compare(dot + 1, std::string(from).size(), from) == 0) {
          name = name.substr(0, dot + 1) + to + name.substr(dot + 1 + std::string(from).size());
          break;
        }
  }
  for (const auto& [from, to] :
       {std::pair<const char*, const char*>{"vocab_transform.", "cls.predictions.transform.dense."},
        {"vocab_layer_norm.", "cls.predictions.transform.LayerNorm."},
        {"vocab_projector.bias", "cls.predictions.bias"}})
    if (name.rfind(from, 0) == 0) name = to + name.substr(std::string(from).size());
  return name;
}

}  // namespace

struct HfLoader::Impl {
  std::unique_ptr<Model> model;
  AttentionBiases biases;
  std::string file = "model.safetensors";         // the file being read (a shard's name when sharded)
  std::map<std::string, std::string> weight_map;  // sharded: tensor -> shard file (model.safetensors.index.json)
  std::vector<std::string> shards;                // the files the index names, in order
  std::map<std::string, std::string> seen;        // canonical name -> the file's name, over every file
  std::set<std::string> done;                     // shard files read to their end
  uint64_t header_len = 0, data_size = 0, received = 0;
  bool header_read = false;
  std::vector<Planned> plan;
  std::vector<uint8_t> tail;  // bytes of values cut by the end of the last chunk
  std::vector<float> scratch;

  // Every tensor the model needs was in some file (else an Error naming the first missing one).
  void check_complete(const std::map<std::string, Target>& want);
  // The file read so far arrived whole (else an Error naming the tensor it cut).
  void check_file_done() {
    for (const Planned& p : plan)
      if (p.done != p.count)
        fail(file + " is truncated: tensor " + tensor_name(p.name) + " has " + std::to_string(p.done) + " of " +
             std::to_string(p.count) + " values (" + std::to_string(received) + " of " + std::to_string(data_size) +
             " data bytes arrived)");
  }

  void convert(Planned& p, const uint8_t* src, uint64_t n) {
    const Target& t = p.target;
    if (!t.parts16.empty()) {  // kept as stored: the file's 16-bit values (little-endian) into place
      place(t, t.parts16, p.done, n,
            [&](uint64_t i) { return static_cast<uint16_t>(src[2 * i] | src[2 * i + 1] << 8); });
      return;
    }
    constexpr uint64_t kBlock = 4096;
    scratch.resize(kBlock);
    for (uint64_t off = 0; off < n; off += kBlock) {
      const uint64_t m = std::min(kBlock, n - off);
      to_float(p.info.dtype, src + off * p.elem, static_cast<size_t>(m), scratch.data());
      place(t, t.parts, p.done + off, m, [&](uint64_t i) { return scratch[i]; });
    }
  }

  // Values e0 .. e0 + m - 1 of the file's tensor (value(i) the i-th of them) into the target's parts.
  template <typename T, typename Value>
  static void place(const Target& t, const std::vector<T*>& parts, uint64_t e0, uint64_t m, Value&& value) {
    const int64_t cols_total = t.shape.size() == 2 ? t.shape[1] : t.shape[0];
    const int64_t rows = t.shape.size() == 2 ? t.shape[0] : 1;
    const int64_t cols = cols_total / static_cast<int64_t>(parts.size());
    int64_t r = static_cast<int64_t>(e0 / static_cast<uint64_t>(cols_total));
    int64_t c = static_cast<int64_t>(e0 % static_cast<uint64_t>(cols_total));
    for (uint64_t i = 0; i < m; ++i) {
      const T v = value(i);
      if (t.transpose)
        parts[0][c * rows + (t.rope_d_k ? rope_column(r, t.rope_d_k) : r)] = v;
      else if (t.rope_d_k)  // a bias: one row
        parts[0][rope_column(c, t.rope_d_k)] = v;
      else
        parts[static_cast<size_t>(c / cols)][r * cols + c % cols] = v;
      if (++c == cols_total) {
        c = 0;
        ++r;
      }
    }
  }
};

HfLoader::HfLoader(const std::string& config_json, const std::string& tokenizer_json) : impl_(new Impl) {
  ModelConfig cfg = read_config(config_json, impl_->biases);
  Tokenizer tok = hf_tokenizer(tokenizer_json);
  if (tok.size() > cfg.vocab_size)
    fail("tokenizer.json has " + std::to_string(tok.size()) + " tokens but config.json's vocab_size is " +
         std::to_string(cfg.vocab_size) + ": they are not from the same model");
  // The big matrices are sized as each file tensor's header says (Target::allocate): a checkpoint's
  // F16 / BF16 weights are kept at 16 bits and never take float32 room, even for a moment.
  impl_->model = std::make_unique<Model>(cfg, std::move(tok), false);
}

HfLoader::~HfLoader() = default;

uint64_t HfLoader::header_length(const uint8_t* first8, uint64_t file_size) {
  Impl& m = *impl_;
  try {
    impl_->header_len = safetensors_header_length(first8, file_size);
  } catch (const Error& e) {
    fail(m.file + ": " + e.what());
  }
  impl_->data_size = file_size - 8 - impl_->header_len;
  return impl_->header_len;
}

uint64_t HfLoader::read_header(const uint8_t* bytes, size_t size) {
  Impl& m = *impl_;
  if (m.header_read) fail(m.file + ": the header was already read");
  if (m.header_len == 0 || size != m.header_len)
    fail(m.file + ": the header has " + std::to_string(size) + " bytes; its length field says " +
         std::to_string(m.header_len));
  SafeTensorsHeader h;
  try {
    h = read_safetensors_header(bytes, size, m.data_size);
  } catch (const Error& e) {
    fail(m.file + ": " + e.what());
  }
  const ModelConfig& c = m.model->config();
  std::map<std::string, Target> want = expected_tensors(c, m.model->weights(), m.biases);
  std::map<std::string, std::string>& seen = m.seen;
  for (auto& [name, info] : h.tensors) {
    if (!m.weight_map.empty()) {
      const auto at = m.weight_map.find(name);
      if (at == m.weight_map.end() || at->second != m.file)
        fail(m.file + ": tensor " + tensor_name(name) + " is not where model.safetensors.index.json puts it (" +
             (at == m.weight_map.end() ? std::string("it is not in weight_map") : "weight_map says " + at->second) +
             ")");
    }
    const std::string key = canonical(c, name);
    if (key.empty()) continue;
    const auto it = want.find(key);
    if (it == want.end())
      fail(m.file + ": tensor " + tensor_name(name) + " is not part of a " + c.family +
           " model as config.json describes it (is this the folder's own config.json?)");
    if (!seen.emplace(key, name).second)
      fail(m.file + ": tensors " + tensor_name(seen[key]) + " and " + tensor_name(name) + " are the same weight");
    if (!float_dtype(info.dtype))
      fail(m.file + ": tensor " + tensor_name(name) + " has dtype " + info.dtype +
           "; weights are read from F32, F16 and BF16");
    if (info.shape != it->second.shape)
      fail(m.file + ": tensor " + tensor_name(name) + " has shape " + shape_text(info.shape) +
           " but config.json gives " + shape_text(it->second.shape));
    Planned p;
    p.name = name;
    p.elem = dtype_size(info.dtype);
    p.count = (info.end - info.begin) / p.elem;
    p.info = std::move(info);
    p.target = it->second;
    p.target.allocate(p.info.dtype);
    m.plan.push_back(std::move(p));
  }
  if (m.weight_map.empty()) m.check_complete(want);
  std::sort(m.plan.begin(), m.plan.end(),
            [](const Planned& a, const Planned& b) { return a.info.begin < b.info.begin; });
  m.header_read = true;
  return m.data_size;
}

void HfLoader::Impl::check_complete(const std::map<std::string, Target>& want) {
  const ModelConfig& c = model->config();
  for (const auto& [key, target] : want)
    if (!seen.count(key))
      fail((weight_map.empty() ? file : std::string("the shards of model.safetensors.index.json")) + ": tensor '" +
           key + "' is missing (" + c.family +
           (c.family == "bert" && key.rfind("cls.", 0) == 0 ? ": a masked-LM checkpoint (BertForMaskedLM) has it)"
            : key == "lm_head.weight" ? ": config.json's tie_word_embeddings is false, so the head is its own tensor)"
                                      : " checkpoints have it)"));
}

void HfLoader::feed(const uint8_t* bytes, size_t size) {
  Impl& m = *impl_;
  if (!m.header_read) fail(m.file + ": data before the header");
  if (m.received + size > m.data_size)
    fail(m.file + ": more data than the header describes (" + std::to_string(m.data_size) + " bytes)");
  // Values cut by the previous chunk's end come first.
  std::vector<uint8_t> joined;
  const uint8_t* buf = bytes;
  if (!m.tail.empty()) {
    joined.reserve(m.tail.size() + size);
    joined.insert(joined.end(), m.tail.begin(), m.tail.end());
    joined.insert(joined.end(), bytes, bytes + size);
    buf = joined.data();
  }
  const uint64_t base = m.received - m.tail.size(), end = m.received + size;
  uint64_t keep_from = end;
  for (Planned& p : m.plan) {
    if (p.done == p.count) continue;
    const uint64_t start = p.info.begin + p.done * p.elem;
    if (start >= end) continue;
    const uint64_t stop = std::min(end, p.info.end);
    const uint64_t n = (stop - start) / p.elem;
    m.convert(p, buf + (start - base), n);
    p.done += n;
    if (p.done < p.count) keep_from = std::min(keep_from, p.info.begin + p.done * p.elem);
  }
  m.tail.assign(buf + (keep_from - base), buf + (end - base));
  m.received = end;
}

uint64_t HfLoader::received() const { return impl_->received; }

std::unique_ptr<Model> HfLoader::finish() {
  Impl& m = *impl_;
  if (!m.model) fail(m.file + ": this loader already handed its model over");
  if (!m.header_read) fail(m.file + ": the header was not read");
  m.check_file_done();
  if (!m.weight_map.empty()) {
    m.done.insert(m.file);
    for (const std::string& f : m.shards)
      if (!m.done.count(f)) fail(f + " was not read (model.safetensors.index.json names it)");
    m.check_complete(expected_tensors(m.model->config(), m.model->weights(), m.biases));
  }
  try {
    m.model->check_weights();
  } catch (const Error& e) {
    fail(m.file + ": " + e.what());
  }
  m.model->pack_weights();
  return std::move(m.model);
}

std::vector<std::string> HfLoader::read_index(const std::string& text) {
  Impl& m = *impl_;
  const std::string file = "model.safetensors.index.json";
  if (!m.shards.empty()) fail(file + " was already read");
  json j;
  try {
    j = parse_json_limited(text.begin(), text.end(), file.c_str());
  } catch (const json::exception& e) {
    fail(file + " is not JSON: " + e.what());
  }
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object() || j["weight_map"].empty())
    fail(file + ": weight_map is missing (an object: tensor name -> shard file)");
  for (const auto& [name, where] : j["weight_map"].items()) {
    if (!where.is_string())
      fail(file + ": weight_map[" + tensor_name(name) + "] must be a file name, got " + where.dump().substr(0, 40));
    const std::string f = where.get<std::string>();
    if (f.empty() || f.size() > 200 || f.find('/') != std::string::npos || f.find('\\') != std::string::npos ||
        !ends_with(f, ".safetensors"))
      fail(file + ": weight_map[" + tensor_name(name) + "] is not a .safetensors file in the folder ('" +
           f.substr(0, 60) + "')");
    m.weight_map[name] = f;
    if (std::find(m.shards.begin(), m.shards.end(), f) == m.shards.end()) m.shards.push_back(f);
  }
  std::sort(m.shards.begin(), m.shards.end());
  m.file = m.shards.front();
  return m.shards;
}

void HfLoader::next_shard(const std::string& file) {
  Impl& m = *impl_;
  if (m.shards.empty()) fail(file + ": model.safetensors.index.json was not read");
  if (std::find(m.shards.begin(), m.shards.end(), file) == m.shards.end())
    fail(file + " is not one of the shards model.safetensors.index.json names");
  if (m.header_read) {
    m.check_file_done();
    m.done.insert(m.file);
  }
  if (m.done.count(file)) fail(file + " was already read");
  m.file = file;
  m.header_len = m.data_size = m.received = 0;
  m.header_read = false;
  m.plan.clear();
  m.tail.clear();
}

}  // namespace ap
