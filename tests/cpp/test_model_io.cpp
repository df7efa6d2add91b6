// Config validation and JSON, and model files: a saved model loads back with identical weights
// and identical forward output, and every way a model file can be wrong is an ap::Error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/tensor.hpp"
#include "core/config.hpp"
#include "core/model.hpp"
#include "core/tokenizer.hpp"
#include "helpers.hpp"
#include "io/hf_model.hpp"
#include "io/model_io.hpp"
#include "io/safetensors.hpp"
#include "trace/trace.hpp"

namespace {

using ap::ModelConfig;
using Bytes = std::vector<uint8_t>;

using aptest::error_of;
using aptest::model_config;

// ---- ModelConfig::validate and the enum names ------------------------------------------

TEST(ConfigValidate, DefaultsAreValid) { EXPECT_NO_THROW(ModelConfig().validate()); }

TEST(ConfigValidate, HeadsMustDivideDModel) {
  ModelConfig c;
  c.d_model = 10;
  c.n_heads = 3;
  EXPECT_MENTIONS(error_of([&] { c.validate(); }), "d_model (10) is not divisible by n_heads (3)");
}

TEST(ConfigValidate, EachBadValueIsNamed) {
  struct Case {
    void (*edit)(ModelConfig&);
    const char* message;
  };
  const Case cases[] = {
      {[](ModelConfig& c) { c.d_model = 0; }, "d_model must be > 0 (got 0)"},
      {[](ModelConfig& c) { c.n_heads = -2; }, "n_heads must be > 0 (got -2)"},
      {[](ModelConfig& c) { c.n_layers = 0; }, "n_layers must be > 0"},
      {[](ModelConfig& c) { c.d_ff = 0; }, "d_ff must be > 0"},
      {[](ModelConfig& c) { c.max_len = 0; }, "max_len must be > 0"},
      {[](ModelConfig& c) { c.vocab_size = 3; }, "vocab_size (3) must be at least 4"},
      {[](ModelConfig& c) { c.vocab_size = -1; }, "vocab_size must be >= 0"},
      {[](ModelConfig& c) { c.eps = 0; }, "eps must be a finite number > 0 (got 0)"},
      {[](ModelConfig& c) { c.eps = -1e-5f; }, "eps must be a finite number > 0 (got -1e-05)"},
      {[](ModelConfig& c) { c.eps = NAN; }, "eps must be a finite number > 0"},
      {[](ModelConfig& c) { c.eps = INFINITY; }, "eps must be a finite number > 0 (got inf)"},
      {[](ModelConfig& c) { c.rope_theta = 1; }, "rope_theta must be a finite number > 1 (got 1)"},
      {[](ModelConfig& c) { c.rope_theta = NAN; }, "rope_theta must be a finite number > 1"},
      {[](ModelConfig& c) { c.family = "t5"; },
       "unknown model family \"t5\" (allowed: \"gpt2\", \"bert\", \"llama\", \"mistral\", \"qwen2\")"},
      {[](ModelConfig& c) { c.rel_clip = 0; }, "rel_clip must be >= 1 (got 0)"},
      {[](ModelConfig& c) { c.max_len = 4097; }, "max_len (4097) exceeds the limit of 4096"},
      {[](ModelConfig& c) { c.d_model = 4100; }, "d_model (4100) exceeds the limit of 4096"},
      {[](ModelConfig& c) { c.n_layers = 65; }, "n_layers (65) exceeds the limit of 64"},
      {[](ModelConfig& c) { c.tokenizer = "bpe"; },
       "unknown tokenizer \"bpe\" (allowed: \"char\", \"word\", \"sentence\", \"hf\")"},
  };
  for (const Case& k : cases) {
    ModelConfig c;
    k.edit(c);
    EXPECT_MENTIONS(error_of([&] { c.validate(); }), k.message);
  }
}

TEST(ConfigValidate, LimitsThemselvesAreAllowed) {
  ModelConfig c = model_config(ap::Arch::DecoderOnly, {4096, 64, 64, 64, 4, 4096});
  c.rel_clip = 1;
  c.tokenizer = "word";
  EXPECT_NO_THROW(c.validate());
}

TEST(ConfigNames, EveryEnumRoundTripsThroughItsName) {
  using ap::Act;
  using ap::Arch;
  using ap::NormPlace;
  using ap::PosKind;
  EXPECT_STREQ(ap::to_string(Arch::EncoderOnly), "encoder");
  EXPECT_STREQ(ap::to_string(Arch::DecoderOnly), "decoder");
  EXPECT_STREQ(ap::to_string(Arch::EncoderDecoder), "encoder-decoder");
  EXPECT_STREQ(ap::to_string(PosKind::None), "none");
  EXPECT_STREQ(ap::to_string(PosKind::Sinusoidal), "sinusoidal");
  EXPECT_STREQ(ap::to_string(PosKind::Learned), "learned");
  EXPECT_STREQ(ap::to_string(PosKind::Relative), "relative");
  EXPECT_STREQ(ap::to_string(PosKind::Rope), "rope");
  EXPECT_STREQ(ap::to_string(Act::Relu), "relu");
  EXPECT_STREQ(ap::to_string(Act::Gelu), "gelu");
  EXPECT_STREQ(ap::to_string(NormPlace::Post), "post");
  EXPECT_STREQ(ap::to_string(NormPlace::Pre), "pre");
  for (Arch a : {Arch::EncoderOnly, Arch::DecoderOnly, Arch::EncoderDecoder})
    EXPECT_EQ(ap::arch_from_string(ap::to_string(a)), a);
  for (PosKind p : {PosKind::None, PosKind::Sinusoidal, PosKind::Learned, PosKind::Relative, PosKind::Rope})
    EXPECT_EQ(ap::pos_from_string(ap::to_string(p)), p);
  for (Act a : {Act::Relu, Act::Gelu}) EXPECT_EQ(ap::act_from_string(ap::to_string(a)), a);
  for (NormPlace n : {NormPlace::Post, NormPlace::Pre}) EXPECT_EQ(ap::norm_from_string(ap::to_string(n)), n);
}

TEST(ConfigNames, UnknownNamesListTheAllowedOnes) {
  EXPECT_MENTIONS(error_of([] { ap::arch_from_string("gpt"); }),
                  "unknown arch \"gpt\" (allowed: \"encoder\", \"decoder\", \"encoder-decoder\")");
  EXPECT_MENTIONS(error_of([] { ap::pos_from_string("alibi"); }),
                  "unknown pos \"alibi\" (allowed: \"none\", \"sinusoidal\", \"learned\", \"relative\", \"rope\")");
  EXPECT_MENTIONS(error_of([] { ap::act_from_string("ReLU"); }),
                  "unknown act \"ReLU\" (allowed: \"relu\", \"gelu\", \"gelu_tanh\")");
  EXPECT_MENTIONS(error_of([] { ap::norm_from_string(""); }), "unknown norm \"\" (allowed: \"post\", \"pre\")");
}

// ---- config JSON ----------------------------------------------------------------------

TEST(ConfigJson, WritesEveryKeyWithReadableValues) {
  const nlohmann::json j = nlohmann::json::parse(ap::config_to_json(ModelConfig()));
  const nlohmann::json expected = {{"arch", "decoder"}, {"d_model", 16},   {"n_heads", 2},       {"n_layers", 1},
                                   {"d_ff", 64},        {"vocab_size", 0}, {"max_len", 64},      {"pos", "sinusoidal"},
                                   {"rel_clip", 8},     {"act", "relu"},   {"norm", "post"},     {"eps", 1e-5},
                                   {"scale", true},     {"causal", true},  {"tokenizer", "char"}};
  EXPECT_EQ(j, expected);
  // The float 1e-5f is written as the short decimal, not as 9.99999974737875e-06.
  EXPECT_MENTIONS(ap::config_to_json(ModelConfig()), "\"eps\":1e-05");
}

TEST(ConfigJson, RoundTripKeepsEveryField) {
  ModelConfig c = model_config(ap::Arch::EncoderDecoder, {24, 3, 2, 40, 77, 33}, ap::PosKind::Relative,
                               ap::NormPlace::Pre, ap::Act::Gelu);
  c.rel_clip = 5;
  c.eps = 3.3e-7f;
  c.scale = false;
  c.causal = false;
  c.tokenizer = "word";
  c.rope_theta = 500000.0f;  // written only when it is not 10000 (WritesEveryKeyWithReadableValues)
  const ModelConfig r = ap::config_from_json(ap::config_to_json(c));
  EXPECT_EQ(r.rope_theta, 500000.0f);
  EXPECT_EQ(r.arch, c.arch);
  EXPECT_EQ(r.d_model, 24);
  EXPECT_EQ(r.n_heads, 3);
  EXPECT_EQ(r.n_layers, 2);
  EXPECT_EQ(r.d_ff, 40);
  EXPECT_EQ(r.vocab_size, 77);
  EXPECT_EQ(r.max_len, 33);
  EXPECT_EQ(r.pos, c.pos);
  EXPECT_EQ(r.rel_clip, 5);
  EXPECT_EQ(r.act, c.act);
  EXPECT_EQ(r.norm, c.norm);
  EXPECT_EQ(r.eps, 3.3e-7f);  // bit-exact: the shortest decimal reads back as the same float
  EXPECT_FALSE(r.scale);
  EXPECT_FALSE(r.causal);
  EXPECT_EQ(r.tokenizer, "word");
  EXPECT_EQ(ap::config_to_json(r), ap::config_to_json(c));
}

TEST(ConfigJson, MissingKeysKeepDefaultsAndUnknownKeysAreIgnored) {
  const ModelConfig r = ap::config_from_json(R"({"d_model": 8, "n_heads": 4, "comment": [1, 2]})");
  EXPECT_EQ(r.d_model, 8);
  EXPECT_EQ(r.n_heads, 4);
  EXPECT_EQ(r.n_layers, 1);
  EXPECT_EQ(r.d_ff, 64);
  EXPECT_EQ(r.arch, ap::Arch::DecoderOnly);
  EXPECT_EQ(r.eps, 1e-5f);
  EXPECT_EQ(r.eps, ModelConfig().eps);
  EXPECT_TRUE(r.causal);
  EXPECT_EQ(ap::config_from_json("{}").d_model, 16);
  EXPECT_EQ(ap::config_from_json(R"({"eps": 1})").eps, 1.0f);  // an integer is a number too
}

TEST(ConfigJson, WrongTypesNameTheKey) {
  const char* const json_and_message[][2] = {
      {R"({"d_model": "16"})", "config key 'd_model' must be an integer, got string"},
      {R"({"n_layers": 1.5})", "config key 'n_layers' must be an integer, got number"},
      {R"({"causal": 1})", "config key 'causal' must be true or false, got number"},
      {R"({"pos": 3})", "config key 'pos' must be a string, got number"},
      {R"({"eps": "small"})", "config key 'eps' must be a number, got string"},
      {R"({"scale": null})", "config key 'scale' must be true or false, got null"},
      {R"({"max_len": 3000000000})", "config key 'max_len' is out of range (3000000000)"},
      {R"({"max_len": -3000000000})", "config key 'max_len' is out of range"},
  };
  for (const auto& c : json_and_message) {  // no structured binding: a lambda may not capture one in C++17
    const std::string json = c[0];
    EXPECT_MENTIONS(error_of([&] { ap::config_from_json(json); }), c[1]);
  }
}

TEST(ConfigJson, BadValuesAreValidated) {
  EXPECT_MENTIONS(error_of([] { ap::config_from_json(R"({"d_model": 10, "n_heads": 3})"); }),
                  "d_model (10) is not divisible by n_heads (3)");
  EXPECT_MENTIONS(error_of([] { ap::config_from_json(R"({"arch": "gpt"})"); }), "unknown arch \"gpt\"");
  EXPECT_MENTIONS(error_of([] { ap::config_from_json(R"({"eps": 1e300})"); }), "eps must be a finite number");
  EXPECT_MENTIONS(error_of([] { ap::config_from_json(R"({"tokenizer": "bpe"})"); }), "unknown tokenizer \"bpe\"");
}

TEST(ConfigJson, NotJsonOrNotAnObject) {
  EXPECT_MENTIONS(error_of([] { ap::config_from_json(R"({"d_model": 16,)"); }), "config is not valid JSON");
  EXPECT_MENTIONS(error_of([] { ap::config_from_json(""); }), "config is not valid JSON");
  EXPECT_MENTIONS(error_of([] { ap::config_from_json("[16, 2]"); }), "config must be a JSON object, got array");
}

TEST(ConfigCorpus, ValidSeedsParseAndBrokenSeedsFailCleanly) {
  const auto [valid, broken] =
      aptest::check_corpus("config", [](const std::string& text) { ap::config_from_json(text); });
  EXPECT_GE(valid, 3);
  EXPECT_GE(broken, 8);
}

// ---- model files ------------------------------------------------------------------------

ap::Model make_model(ModelConfig cfg, const std::vector<std::string>& corpus, uint64_t seed) {
  return aptest::random_model(
      cfg, cfg.tokenizer == "word" ? aptest::word_tokenizer(corpus) : aptest::char_tokenizer(corpus), seed);
}

ModelConfig small_decoder() { return model_config(ap::Arch::DecoderOnly, {8, 2, 2, 12, 0, 16}, ap::PosKind::Learned); }

ModelConfig small_encoder_decoder() {
  ModelConfig c = model_config(ap::Arch::EncoderDecoder, {8, 4, 1, 16, 0, 12}, ap::PosKind::Relative,
                               ap::NormPlace::Pre, ap::Act::Gelu);
  c.rel_clip = 3;
  c.tokenizer = "word";
  return c;
}

Bytes save(ap::Model& m) { return ap::save_model(m); }
ap::Model load(const Bytes& b) { return ap::load_model(b.data(), b.size()); }

void expect_same_weights(ap::Model& a, ap::Model& b) {
  aptest::expect_same_tensors(a.named_tensors(), b.named_tensors());
}

const ap::Stage& stage(const ap::Trace& t, const char* name) {
  const ap::Stage* s = t.find(name);
  if (!s) throw std::runtime_error(std::string("no stage ") + name);
  return *s;
}

TEST(ModelIo, DecoderRoundTripGivesTheSameWeightsAndLogits) {
  ap::Model m = make_model(small_decoder(), {"hello world", "attention!"}, 7);
  // A weight set by hand, found again by name after the round trip.
  m.weights().tok_emb(5, 3) = 0.125f;
  const Bytes file = save(m);
  ap::Model r = load(file);

  EXPECT_EQ(ap::config_to_json(r.config()), ap::config_to_json(m.config()));
  EXPECT_EQ(r.tokenizer().vocab(), m.tokenizer().vocab());
  EXPECT_EQ(r.tokenizer().kind(), ap::Tokenizer::Kind::Char);
  EXPECT_EQ(r.weights().tok_emb(5, 3), 0.125f);
  expect_same_weights(m, r);

  const std::vector<int> ids = m.tokenizer().encode("hello").ids;
  ap::Trace tm, tr;
  m.forward(tm, ids);
  r.forward(tr, ids);
  EXPECT_EQ(stage(tm, "logits").shape, (std::vector<int>{5, m.config().vocab_size}));
  EXPECT_EQ(stage(tr, "logits").data, stage(tm, "logits").data);
  EXPECT_EQ(stage(tr, "probs").data, stage(tm, "probs").data);

  // Saving the loaded model reproduces the file byte for byte.
  EXPECT_EQ(save(r), file);
}

TEST(ModelIo, EncoderDecoderRoundTripGivesTheSameWeightsAndLogits) {
  ap::Model m = make_model(small_encoder_decoder(), {"22 Nov 2026 -> 2026 - 11 - 22"}, 11);
  const Bytes file = save(m);
  ap::Model r = load(file);
  EXPECT_EQ(r.tokenizer().kind(), ap::Tokenizer::Kind::Word);
  EXPECT_EQ(r.config().pos, ap::PosKind::Relative);
  EXPECT_EQ(r.config().norm, ap::NormPlace::Pre);
  expect_same_weights(m, r);

  const std::vector<int> src = m.tokenizer().encode("22 nov 2026").ids;
  const std::vector<int> tgt = m.tokenizer().encode("2026 - 11").ids;
  ap::Trace tm, tr;
  m.forward(tm, src, tgt);
  r.forward(tr, src, tgt);
  EXPECT_EQ(stage(tr, "logits").data, stage(tm, "logits").data);
  EXPECT_EQ(save(r), file);
}

TEST(ModelIo, FileCarriesFormatConfigAndVocabularyInItsMetadata) {
  ap::Model m = make_model(small_decoder(), {"ab"}, 1);
  const Bytes file = save(m);
  const ap::SafeTensors st = ap::read_safetensors(file.data(), file.size());
  EXPECT_EQ(st.metadata.at("format"), "attention-playground/1");
  EXPECT_EQ(nlohmann::json::parse(st.metadata.at("vocab")),
            nlohmann::json({"<pad>", "<unk>", "<bos>", "<eos>", "a", "b"}));
  const nlohmann::json cfg = nlohmann::json::parse(st.metadata.at("config"));
  EXPECT_EQ(cfg.at("vocab_size"), 6);
  EXPECT_EQ(cfg.at("pos"), "learned");
  EXPECT_EQ(st.metadata.size(), 3u);
  // Names and shapes as documented in model.hpp: tok_emb (V, d), pos_emb (L, d), ffn.w1 (d, d_ff).
  EXPECT_EQ(st.tensors.at("tok_emb").shape, (std::vector<int64_t>{6, 8}));
  EXPECT_EQ(st.tensors.at("pos_emb").shape, (std::vector<int64_t>{16, 8}));
  EXPECT_EQ(st.tensors.at("decoder.1.ffn.w1").shape, (std::vector<int64_t>{8, 12}));
  EXPECT_EQ(st.tensors.at("lm_head.b").shape, (std::vector<int64_t>{6}));
}

// Loads a saved decoder after `edit` changes its safetensors content; returns the error.
template <typename Edit>
std::string load_error_after(Edit&& edit) {
  ap::Model m = make_model(small_decoder(), {"abc"}, 3);
  const Bytes file = save(m);
  ap::SafeTensors st = ap::read_safetensors(file.data(), file.size());
  edit(st);
  const Bytes changed = ap::write_safetensors(st);
  return error_of([&] { load(changed); });
}

TEST(ModelIoBad, MissingTensor) {
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) { st.tensors.erase("decoder.0.ffn.w1"); }),
                  "missing tensor 'decoder.0.ffn.w1'");
}

TEST(ModelIoBad, WrongShapeNamesExpectedAndFound) {
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) {
                    st.tensors["decoder.1.ffn.w2"] = ap::TensorData{{8, 12}, std::vector<float>(96)};
                  }),
                  "tensor 'decoder.1.ffn.w2' has shape [8, 12]; expected [12, 8]");
}

TEST(ModelIoBad, NanOrInfWeights) {
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) { st.tensors["decoder.0.self_attn.wq"].data[5] = NAN; }),
                  "tensor 'decoder.0.self_attn.wq' contains NaN (at element 5)");
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) { st.tensors["lm_head.b"].data[0] = -INFINITY; }),
                  "tensor 'lm_head.b' contains Inf");
}

TEST(ModelIoBad, ExtraTensor) {
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) {
                    st.tensors["encoder.0.ffn.w1"] = {{1}, {0.f}};
                  }),
                  "unexpected tensor 'encoder.0.ffn.w1'");
}

TEST(ModelIoBad, VocabularyDisagreesWithConfig) {
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) {
                    st.metadata["vocab"] = R"(["<pad>","<unk>","<bos>","<eos>","a","b","c","d"])";
                  }),
                  "config vocab_size is 7 but the vocabulary has 8 entries");
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) { st.metadata["vocab"] = R"({"a": 1})"; }),
                  "model vocabulary must be a JSON array");
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) { st.metadata["vocab"] = R"(["<pad>", 1])"; }),
                  "model vocabulary entry 1 must be a string, got number");
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) {
                    st.metadata["vocab"] = R"(["<pad>","<unk>","<bos>","<eos>","a","a","c"])";
                  }),
                  "entry 5 \"a\" duplicates entry 4");
}

TEST(ModelIoBad, MetadataMissingOrWrong) {
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) { st.metadata.erase("format"); }),
                  "not an attention-playground model file: metadata has no \"format\"");
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) { st.metadata["format"] = "other/2"; }),
                  "unsupported model format \"other/2\"");
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) { st.metadata.erase("config"); }),
                  "metadata has no \"config\"");
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) { st.metadata.erase("vocab"); }),
                  "metadata has no \"vocab\"");
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) { st.metadata["config"] = R"({"d_model": 9})"; }),
                  "model file: d_model (9) is not divisible by n_heads (2)");
}

TEST(ModelIoBad, ConfigTooLargeForTheFileFailsBeforeAllocating) {
  // 64 layers of d = 4096 would need gigabytes; the file holds a few hundred floats.
  EXPECT_MENTIONS(load_error_after([](ap::SafeTensors& st) {
                    st.metadata["config"] =
                        R"({"d_model": 4096, "n_heads": 8, "n_layers": 64, "d_ff": 16384, "vocab_size": 7})";
                  }),
                  "but its config needs at least");
}

TEST(ModelIoBad, TruncatedOrGarbageFile) {
  ap::Model m = make_model(small_decoder(), {"abc"}, 3);
  const Bytes file = save(m);
  EXPECT_MENTIONS(error_of([&] { ap::load_model(file.data(), file.size() - 4); }), "out of range");
  EXPECT_MENTIONS(error_of([&] { ap::load_model(file.data(), 100); }), "is larger than the file");
  EXPECT_MENTIONS(error_of([&] { ap::load_model(file.data(), 3); }), "too short");
}

TEST(ModelIoCorpus, SeedModelsLoad) {
  const int models =
      aptest::check_corpus("model", [](const std::string& text) { load(Bytes(text.begin(), text.end())); }).first;
  EXPECT_GE(models, 1);
}

}  // namespace

// ---- a model whose tokenizer is a tokenizer.json, saved in F16 (the English models) -------------

namespace {
std::string fixture_text(const std::string& path) {
  std::ifstream in(std::string(AP_FIXTURES_DIR) + "/" + path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
}  // namespace

TEST(ModelIo, TokenizerJsonModelInF16RoundTripsAndNeedsTheReader) {
  const std::string json = fixture_text("hf/gpt2-tiny/tokenizer.json");
  ap::Tokenizer tok = ap::hf_tokenizer(json);
  ModelConfig cfg = model_config(ap::Arch::DecoderOnly, {8, 2, 1, 16, 0, 16}, ap::PosKind::Learned, ap::NormPlace::Pre,
                                 ap::Act::Gelu);
  cfg.tokenizer = "hf";
  cfg.tied_head = true;
  cfg.vocab_size = tok.size();
  ap::Model m(cfg, tok);
  m.init_random(5);
  const Bytes file = ap::save_model(m, /*f16=*/true);

  const ap::SafeTensors st = ap::read_safetensors(file.data(), file.size());
  EXPECT_EQ(st.metadata.at("tokenizer.json"), json);  // the file itself, not a re-encoding
  EXPECT_EQ(st.metadata.count("vocab"), 0u);
  EXPECT_NE(st.metadata.at("config").find("\"tied_head\":true"), std::string::npos);
  EXPECT_EQ(st.tensors.count("lm_head.w"), 0u);  // tied: the head is tok_emb

  // Without the Hugging Face reader (the first wasm module) the error says where to open it.
  ap::set_tokenizer_json_reader(nullptr);
  EXPECT_NE(error_of([&] { load(file); }).find("openModel"), std::string::npos);
  ap::set_tokenizer_json_reader(&ap::hf_tokenizer);
  ap::Model r = load(file);
  EXPECT_EQ(r.tokenizer().kind(), ap::Tokenizer::Kind::External);
  EXPECT_TRUE(r.config().tied_head);
  EXPECT_EQ(r.tokenizer().encode("The cat sat.").ids, m.tokenizer().encode("The cat sat.").ids);
  // Every weight is the F16 rounding of the saved one; the big matrices (core/weight.hpp) are kept
  // at 16 bits, every other tensor (positions, biases, norms) is float32.
  const auto a = m.named_tensors(), b = r.named_tensors();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(b[i].weight != nullptr, b[i].kind == ap::TensorKind::Matrix || b[i].name == "tok_emb") << b[i].name;
    if (b[i].weight) EXPECT_EQ(b[i].weight->stored(), ap::Stored::F16) << b[i].name;
    for (size_t j = 0; j < ap::element_count(a[i].shape); ++j)
      ASSERT_EQ(aptest::value_at(b[i], j), ap::half_to_float(ap::float_to_half(a[i].data[j]))) << a[i].name;
  }
  // The same file's model in float32 (save_model F32, load): the same weights, and forward gives the
  // same logits within float rounding (the 16-bit path sums in the tiled kernel's order, natively
  // Eigen's for float32: |difference| <= d * 2^-24 * sum |x||w| per product, well under 1e-5 here).
  ap::Model f32 = load(ap::save_model(r, false));
  EXPECT_FALSE(f32.named_tensor("tok_emb").weight->is_16bit());
  aptest::expect_same_tensors(f32.named_tensors(), r.named_tensors());
  ap::Trace t16, t32;
  const std::vector<int> ids = r.tokenizer().encode("The cat sat on the mat.").ids;
  r.forward(t16, ids);
  f32.forward(t32, ids);
  const ap::Stage& l16 = *t16.find("logits", "", -1);
  const ap::Stage& l32 = *t32.find("logits", "", -1);
  ASSERT_EQ(l16.data.size(), l32.data.size());
  for (size_t j = 0; j < l16.data.size(); ++j) ASSERT_NEAR(l16.data[j], l32.data[j], 1e-5f) << j;
  // The loaded model saves to the same bytes (the tokenizer.json travels unchanged).
  EXPECT_EQ(ap::save_model(r, true), file);
}

// A 16-bit Weight laid out in column panels (Model::pack_weights after loading, core/weight.hpp):
// where each value goes, written out from kernels/gemm.hpp's description, and every reader (value,
// row_into, widened, check_finite's index) still speaking of row-major positions.
TEST(Weight16, PanelsKeepEveryValueAndItsRowMajorPosition) {
  const int rows = 3, cols = 70;  // panels of 32, 32 and 6 columns
  ap::Weight w;
  w.hold_16bit(ap::Stored::F16, rows, cols);
  std::vector<float> want(static_cast<size_t>(rows) * cols);
  for (int i = 0; i < rows * cols; ++i) {
    w.bits()[i] = ap::float_to_half(static_cast<float>(i) / 64.0f);  // exact in F16: i / 64, i < 210
    want[static_cast<size_t>(i)] = static_cast<float>(i) / 64.0f;
  }
  w.to_panels();
  ASSERT_EQ(w.layout(), ap::Layout::Panels);
  // Value (r, c) of panel j0 = 32 (c / 32) sits at j0 * rows + r * width + (c - j0).
  EXPECT_EQ(w.bits()[0], ap::float_to_half(want[0]));                                   // (0, 0)
  EXPECT_EQ(w.bits()[1 * 32 + 5], ap::float_to_half(want[1 * cols + 5]));               // (1, 5), panel 0
  EXPECT_EQ(w.bits()[32 * rows + 2 * 32 + 1], ap::float_to_half(want[2 * cols + 33]));  // (2, 33), panel 1
  EXPECT_EQ(w.bits()[64 * rows + 1 * 6 + 5], ap::float_to_half(want[1 * cols + 69]));   // (1, 69), the last, 6 wide
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(w.value(i), want[i]) << i;
  std::vector<float> row(cols);
  for (int r = 0; r < rows; ++r) {
    w.row_into(r, row.data());
    for (int c = 0; c < cols; ++c) ASSERT_EQ(row[static_cast<size_t>(c)], want[static_cast<size_t>(r) * cols + c]);
  }
  const ap::Mat m = w.widened();
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) ASSERT_EQ(m(r, c), want[static_cast<size_t>(r) * cols + c]);
  w.bits()[32 * rows + 2 * 32 + 1] = 0x7e00;  // a NaN at (2, 33): row-major index 2 * 70 + 33 = 173
  EXPECT_MENTIONS(error_of([&] { w.check_finite("weight 'w'"); }), "weight 'w' contains NaN (at index 173)");
  w.widen();  // float32 from here: the values as they were
  EXPECT_EQ(w.layout(), ap::Layout::RowMajor);
  EXPECT_EQ(w(1, 69), want[1 * cols + 69]);
}

// The token embeddings in key blocks (the tied head's keys, kernels/attention.hpp): where each value
// goes, written out from that description, and the readers as above.
TEST(Weight16, KeyBlocksKeepEveryValueAndItsRowMajorPosition) {
  const int rows = 19, cols = 21;  // 2 whole blocks of 8 keys and 3 row-major keys; 2 steps of 8 and 5 last values
  ap::Weight w;
  w.hold_16bit(ap::Stored::F16, rows, cols);
  std::vector<float> want(static_cast<size_t>(rows) * cols);
  for (int i = 0; i < rows * cols; ++i) {
    w.bits()[i] = ap::float_to_half(static_cast<float>(i) / 64.0f);  // exact in F16: i / 64, i < 399
    want[static_cast<size_t>(i)] = static_cast<float>(i) / 64.0f;
  }
  w.to_key_blocks();
  ASSERT_EQ(w.layout(), ap::Layout::KeyBlocks);
  const auto at = [&](int r, int c) { return ap::float_to_half(want[static_cast<size_t>(r) * cols + c]); };
  // Block 1 (keys 8..15) starts at 8 * 21 = 168: step s holds values 8s..8s+7 of key 8, then key 9, ...
  EXPECT_EQ(w.bits()[168 + 0 * 64 + 3 * 8 + 2], at(11, 2));    // key 11, value 2: step 0
  EXPECT_EQ(w.bits()[168 + 1 * 64 + 7 * 8 + 7], at(15, 15));   // key 15, value 15: step 1
  EXPECT_EQ(w.bits()[168 + 2 * 64 + 4 * 5 + 1], at(12, 17));   // key 12, value 17: its last 5 values
  EXPECT_EQ(w.bits()[16 * cols + 2 * cols + 20], at(18, 20));  // key 18: after the blocks, row-major
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(w.value(i), want[i]) << i;
  std::vector<float> row(cols);
  for (int r = 0; r < rows; ++r) {
    w.row_into(r, row.data());
    for (int c = 0; c < cols; ++c) ASSERT_EQ(row[static_cast<size_t>(c)], want[static_cast<size_t>(r) * cols + c]);
  }
  w.bits()[168 + 2 * 64 + 4 * 5 + 1] = 0x7c00;  // +Infinity at (12, 17): row-major index 12 * 21 + 17 = 269
  EXPECT_MENTIONS(error_of([&] { w.check_finite("weight 'e'"); }), "weight 'e' contains Infinity (at index 269)");
}
