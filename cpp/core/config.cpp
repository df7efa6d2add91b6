// ModelConfig checks and the string forms of its enums (the names used in model files,
// URLs and the JS API). The size limits keep a hostile or mistyped config from asking
// for gigabytes before any weight is read.
#include "core/config.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "core/limits.hpp"
#include "core/tensor.hpp"
#include "io/tokenizer.hpp"

namespace ap {

namespace {

constexpr int kMaxLen = 4096;
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

// The enum <-> string tables, one per enum, so to_string and *_from_string cannot drift apart.
template <typename E>
struct Named {
  E value;
  const char* name;
};

constexpr Named<Arch> kArchNames[] = {
    {Arch::EncoderOnly, "encoder"}, {Arch::DecoderOnly, "decoder"}, {Arch::EncoderDecoder, "encoder-decoder"}};
constexpr Named<PosKind> kPosNames[] = {{PosKind::None, "none"},
                                        {PosKind::Sinusoidal, "sinusoidal"},
                                        {PosKind::Learned, "learned"},
                                        {PosKind::Relative, "relative"},
                                        {PosKind::Rope, "rope"}};
constexpr Named<Act> kActNames[] = {{Act::Relu, "relu"}, {Act::Gelu, "gelu"}, {Act::GeluTanh, "gelu_tanh"}};
constexpr Named<NormPlace> kNormNames[] = {{NormPlace::Post, "post"}, {NormPlace::Pre, "pre"}};

template <typename E, size_t N>
const char* name_of(const Named<E> (&table)[N], E value) {
  for (const auto& entry : table)
    if (entry.value == value) return entry.name;
  return "?";  // unreachable for a valid enum value
}

template <typename E, size_t N>
E value_of(const Named<E> (&table)[N], const std::string& s, const char* what) {
  for (const auto& entry : table)
    if (s == entry.name) return entry.value;
  std::string allowed;
  for (size_t i = 0; i < N; ++i) allowed += (i ? ", \"" : "\"") + std::string(table[i].name) + "\"";
  fail(std::string("unknown ") + what + " \"" + s + "\" (allowed: " + allowed + ")");
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
  if (!std::isfinite(eps) || eps <= 0.0f) fail("eps must be a finite number > 0 (got " + format_float(eps) + ")");
  if (family.empty()) {
    Tokenizer::kind_from_name(tokenizer);  // throws for an unknown name, listing the known ones
  } else {
    if (family != "gpt2" && family != "bert") fail("unknown model family \"" + family + "\" (allowed: gpt2, bert)");
    if (type_vocab < 0) fail("type_vocab must be >= 0 (got " + std::to_string(type_vocab) + ")");
    check_at_most("type_vocab", type_vocab, kMaxLen);
  }
}

namespace {
bool weight_free(PosKind p) { return p == PosKind::None || p == PosKind::Sinusoidal || p == PosKind::Rope; }
}  // namespace

ModelConfig apply_switches(const ModelConfig& base, const Switches& sw) {
  ModelConfig c = base;
  if (sw.causal) c.causal = *sw.causal;
  if (sw.scale) c.scale = *sw.scale;
  if (sw.norm) c.norm = *sw.norm;
  if (sw.act) c.act = *sw.act;
  if (sw.eps) c.eps = *sw.eps;
  if (sw.n_heads && *sw.n_heads != base.n_heads) {
    if (base.pos == PosKind::Relative)
      fail("nHeads cannot change on a model with relative positions: its position biases are per head");
    c.n_heads = *sw.n_heads;
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
  return out;
}

const char* to_string(Arch a) { return name_of(kArchNames, a); }
const char* to_string(PosKind p) { return name_of(kPosNames, p); }
const char* to_string(Act a) { return name_of(kActNames, a); }
const char* to_string(NormPlace n) { return name_of(kNormNames, n); }

Arch arch_from_string(const std::string& s) { return value_of(kArchNames, s, "arch"); }
PosKind pos_from_string(const std::string& s) { return value_of(kPosNames, s, "pos"); }
Act act_from_string(const std::string& s) { return value_of(kActNames, s, "act"); }
NormPlace norm_from_string(const std::string& s) { return value_of(kNormNames, s, "norm"); }

}  // namespace ap
