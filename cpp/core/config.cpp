// ModelConfig checks and the string forms of its enums (the names used in model files,
// URLs and the JS API). The size limits keep a hostile or mistyped config from asking
// for gigabytes before any weight is read.
#include "core/config.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "base/tensor.hpp"
#include "core/limits.hpp"
#include "core/tokenizer.hpp"

namespace ap {

namespace {

constexpr int kMaxDModel = 4096;
constexpr int kMaxLayers = 64;
constexpr int kMaxDff = 16384;  // 4 d at the largest d_model
constexpr int kMaxVocab = 1 << 20;
constexpr int kMaxRelClip = kMaxLen;  // offsets never exceed the longest sequence

void check_positive(const char* name, int value) {
  if (value <= 0) fail(std::string(name) + " must be > 0 (got " + std::to_string(value) + ")");
}

void check_at_most(const char* name, int value, int limit) {
  if (value > limit)
    fail(std::string(name) + " (" + std::to_string(value) + ") exceeds the limit of " + std::to_string(limit));
}

std::string format_float(float x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", static_cast<double>(x));
  return buf;
}

// One check for every real-valued field (the first module is built for size).
void check_above(const char* name, float value, int limit) {
  if (!std::isfinite(value) || value <= static_cast<float>(limit))
    fail(std::string(name) + " must be a finite number > " + std::to_string(limit) + " (got " + format_float(value) +
         ")");
}

// The enum <-> string tables, one per enum, entry i naming the enum's value i, so to_string and
// *_from_string cannot drift apart.
constexpr const char* kArchNames[] = {"encoder", "decoder", "encoder-decoder"};
constexpr const char* kPosNames[] = {"none", "sinusoidal", "learned", "relative", "rope"};
constexpr const char* kActNames[] = {"relu", "gelu", "gelu_tanh"};
constexpr const char* kNormNames[] = {"post", "pre"};
constexpr const char* kNormKindNames[] = {"layernorm", "rmsnorm"};
constexpr const char* kFfnKindNames[] = {"mlp", "swiglu", "geglu"};
constexpr const char* kFamilies[] = {"gpt2", "bert", "llama", "mistral", "qwen2"};  // pretrained (io/hf_model)
static_assert(static_cast<int>(Arch::EncoderDecoder) == 2 && static_cast<int>(PosKind::Rope) == 4 &&
                  static_cast<int>(Act::GeluTanh) == 2 && static_cast<int>(NormPlace::Pre) == 1 &&
                  static_cast<int>(NormKind::Rms) == 1 && static_cast<int>(FfnKind::GeGlu) == 2,
              "each table lists its enum's values in order");

template <size_t N>
const char* name_of(const char* const (&table)[N], int value) {
  return value >= 0 && value < static_cast<int>(N) ? table[value] : "?";  // "?" unreachable for a valid enum
}

// One function for every table (not a copy per enum: the first module is built for size).
int index_of(const char* const* table, int n, const std::string& s, const char* what) {
  for (int i = 0; i < n; ++i)
    if (s == table[i]) return i;
  std::string allowed;
  for (int i = 0; i < n; ++i) allowed += (i ? ", \"" : "\"") + std::string(table[i]) + "\"";
  fail(std::string("unknown ") + what + " \"" + s + "\" (allowed: " + allowed + ")");
}

template <typename E, size_t N>
E value_of(const char* const (&table)[N], const std::string& s, const char* what) {
  return static_cast<E>(index_of(table, static_cast<int>(N), s, what));
}

}  // namespace

void ModelConfig::validate() const {
  check_positive("d_model", d_model);
  check_positive("n_heads", n_heads);
  check_positive("n_layers", n_layers);
  check_positive("d_ff", d_ff);
  check_positive("max_len", max_len);
  if (vocab_size < 0) fail("vocab_size must be >= 0 (got " + std::to_string(vocab_size) + ")");
  // 0 means "take it from the tokenizer"; otherwise the four special tokens must fit.
  if (vocab_size != 0 && vocab_size < 4)
    fail("vocab_size (" + std::to_string(vocab_size) +
         ") must be at least 4 (the special tokens <pad> <unk> <bos> <eos>)");
  limits::check_heads(d_model, n_heads);
  check_at_most("d_model", d_model, kMaxDModel);
  check_at_most("n_layers", n_layers, kMaxLayers);
  check_at_most("d_ff", d_ff, kMaxDff);
  check_at_most("max_len", max_len, kMaxLen);
  check_at_most("vocab_size", vocab_size, kMaxVocab);
  if (rel_clip < 1) fail("rel_clip must be >= 1 (got " + std::to_string(rel_clip) + ")");
  check_at_most("rel_clip", rel_clip, kMaxRelClip);
  if (n_kv_heads < 0) fail("n_kv_heads must be >= 0 (0: as many as n_heads; got " + std::to_string(n_kv_heads) + ")");
  if (n_kv_heads > 0 && n_heads % n_kv_heads != 0)
    fail("n_kv_heads (" + std::to_string(n_kv_heads) + ") must divide n_heads (" + std::to_string(n_heads) +
         "): each K/V head serves n_heads / n_kv_heads query heads");
  if (window < 0) fail("window must be >= 1, or 0 for no window (got " + std::to_string(window) + ")");
  check_at_most("window", window, kMaxLen);
  check_above("eps", eps, 0);
  check_above("rope_theta", rope_theta, 1);
  if (family.empty()) {
    Tokenizer::kind_from_name(tokenizer);  // throws for an unknown name, listing the known ones
  } else {
    index_of(kFamilies, 5, family, "model family");  // throws for an unknown one, listing the known ones
    if (type_vocab < 0) fail("type_vocab must be >= 0 (got " + std::to_string(type_vocab) + ")");
    check_at_most("type_vocab", type_vocab, kMaxLen);
  }
}

namespace {
bool weight_free(PosKind p) { return p == PosKind::None || p == PosKind::Sinusoidal || p == PosKind::Rope; }
}  // namespace

ModelConfig apply_switches(const ModelConfig& base, const Switches& sw) {
  ModelConfig c = base;
  if (c.kv_heads() == c.n_heads) c.n_kv_heads = 0;  // multi-head: K/V heads follow an nHeads switch
  if (sw.causal) c.causal = *sw.causal;
  if (sw.scale) c.scale = *sw.scale;
  if (sw.norm) c.norm = *sw.norm;
  if (sw.act) c.act = *sw.act;
  if (sw.eps) c.eps = *sw.eps;
  if (sw.n_heads && *sw.n_heads != base.n_heads) {
    if (base.pos == PosKind::Relative)
      fail("nHeads cannot change on a model with relative positions: its position biases are per head");
    if (base.n_kv_heads > 0 && base.n_kv_heads != base.n_heads)
      fail("nHeads cannot change on a model with grouped K/V heads (nKvHeads " + std::to_string(base.n_kv_heads) +
           "): its wk and wv are sized for its own heads");
    c.n_heads = *sw.n_heads;
  }
  if (sw.norm_kind) c.norm_kind = *sw.norm_kind;
  if (sw.ffn_kind && *sw.ffn_kind != base.ffn_kind) {
    if (base.ffn_kind == FfnKind::Mlp || *sw.ffn_kind == FfnKind::Mlp)
      fail(std::string("ffnKind '") + to_string(*sw.ffn_kind) + "' needs " +
           (base.ffn_kind == FfnKind::Mlp ? "the tensor ffn.w_gate, which this model does not have"
                                          : "no gate, but this model's FFN is gated") +
           " (its own is '" + to_string(base.ffn_kind) + "')");
    c.ffn_kind = *sw.ffn_kind;
  }
  if (sw.n_kv_heads) {
    const int own = base.kv_heads();
    if (*sw.n_kv_heads < 1) fail("nKvHeads must be >= 1 (got " + std::to_string(*sw.n_kv_heads) + ")");
    if (own != base.n_heads && *sw.n_kv_heads != own)
      fail("nKvHeads cannot change on a model built with " + std::to_string(own) + " K/V heads");
    c.n_kv_heads = *sw.n_kv_heads;
    if (c.n_heads % c.n_kv_heads != 0)  // validate() says it too, naming the switch here
      fail("nKvHeads (" + std::to_string(c.n_kv_heads) + ") must divide nHeads (" + std::to_string(c.n_heads) + ")");
  }
  if (sw.window) {
    if (*sw.window < 0) fail("window must be >= 1, or 0 for no window (got " + std::to_string(*sw.window) + ")");
    c.window = *sw.window;
  }
  if (sw.pos && *sw.pos != base.pos) {
    if (!weight_free(*sw.pos) || !weight_free(base.pos))
      fail(std::string("switching positions to or from '") + to_string(weight_free(*sw.pos) ? base.pos : *sw.pos) +
           "' needs weights this model does not have");
    c.pos = *sw.pos;
  }
  c.validate();
  return c;
}

SwitchChoices switch_choices(const ModelConfig& base) {
  SwitchChoices out;
  if (base.pos == PosKind::Relative)
    out.n_heads = {base.n_heads};
  else
    for (int h = 1; h <= base.d_model; ++h)
      if (base.d_model % h == 0 && (h <= kMaxHeadChoice || h == base.n_heads)) out.n_heads.push_back(h);
  if (weight_free(base.pos))
    out.pos = {PosKind::None, PosKind::Sinusoidal, PosKind::Rope};
  else
    out.pos = {base.pos};
  if (base.kv_heads() == base.n_heads) {
    for (int g = 1; g <= base.n_heads; ++g)
      if (base.n_heads % g == 0) out.n_kv_heads.push_back(g);
  } else {
    out.n_kv_heads = {base.kv_heads()};
  }
  out.norm_kind = {NormKind::Layer, NormKind::Rms};
  if (base.ffn_kind == FfnKind::Mlp)
    out.ffn_kind = {FfnKind::Mlp};
  else
    out.ffn_kind = {FfnKind::SwiGlu, FfnKind::GeGlu};
  return out;
}

const char* to_string(Arch a) { return name_of(kArchNames, static_cast<int>(a)); }
const char* to_string(PosKind p) { return name_of(kPosNames, static_cast<int>(p)); }
const char* to_string(Act a) { return name_of(kActNames, static_cast<int>(a)); }
const char* to_string(NormPlace n) { return name_of(kNormNames, static_cast<int>(n)); }
const char* to_string(NormKind n) { return name_of(kNormKindNames, static_cast<int>(n)); }
const char* to_string(FfnKind f) { return name_of(kFfnKindNames, static_cast<int>(f)); }

Arch arch_from_string(const std::string& s) { return value_of<Arch>(kArchNames, s, "arch"); }
PosKind pos_from_string(const std::string& s) { return value_of<PosKind>(kPosNames, s, "pos"); }
Act act_from_string(const std::string& s) { return value_of<Act>(kActNames, s, "act"); }
NormPlace norm_from_string(const std::string& s) { return value_of<NormPlace>(kNormNames, s, "norm"); }
NormKind norm_kind_from_string(const std::string& s) { return value_of<NormKind>(kNormKindNames, s, "normKind"); }
FfnKind ffn_kind_from_string(const std::string& s) { return value_of<FfnKind>(kFfnKindNames, s, "ffnKind"); }

}  // namespace ap
