// Blocks and whole models against PyTorch: nn.TransformerEncoderLayer / DecoderLayer
// (post-norm and norm_first, ReLU and GELU), and two small models stage by stage.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/block.hpp"
#include "core/model.hpp"
#include "fixture.hpp"

namespace {

using ap::Mat;

ap::AttentionWeights attn_from(const fixture::json& w, const std::string& p) {
  return {fixture::mat(w.at(p + "wq")), fixture::mat(w.at(p + "wk")), fixture::mat(w.at(p + "wv")),
          fixture::mat(w.at(p + "wo")), fixture::vec(w.at(p + "bq")), fixture::vec(w.at(p + "bk")),
          fixture::vec(w.at(p + "bv")), fixture::vec(w.at(p + "bo"))};
}

ap::LayerNormWeights norm_from(const fixture::json& w, const std::string& p) {
  return {fixture::vec(w.at(p + "gamma")), fixture::vec(w.at(p + "beta"))};
}

void check_block(const std::string& file) {
  SCOPED_TRACE(file);
  const auto fx = fixture::load("torch/" + file);
  const auto& p = fx.at("params");
  const auto& w = fx.at("weights");
  ap::ModelConfig cfg;
  cfg.d_model = p.at("d_model");
  cfg.n_heads = p.at("n_heads");
  cfg.d_ff = p.at("d_ff");
  cfg.act = ap::act_from_string(p.at("act"));
  cfg.norm = ap::norm_from_string(p.at("norm"));
  cfg.eps = p.at("eps");
  cfg.pos = ap::PosKind::None;
  ap::BlockWeights b;
  b.self_attn = attn_from(w, "self_attn.");
  b.norm1 = norm_from(w, "norm1.");
  b.norm2 = norm_from(w, "norm2.");
  b.ffn = {fixture::mat(w.at("ffn.w1")), fixture::vec(w.at("ffn.b1")), fixture::mat(w.at("ffn.w2")),
           fixture::vec(w.at("ffn.b2"))};
  const bool decoder = fx.at("kind") == "decoder_layer";
  Mat memory;
  std::vector<uint8_t> mem_pad;
  if (decoder) {
    b.has_cross = true;
    b.cross_attn = attn_from(w, "cross_attn.");
    b.norm_cross = norm_from(w, "norm_cross.");
    memory = fixture::mat(fx.at("inputs").at("memory"));
    mem_pad.assign(static_cast<size_t>(memory.rows()), 0);
  }
  const Mat x = fixture::mat(fx.at("inputs").at("x"));
  std::vector<uint8_t> pad(static_cast<size_t>(x.rows()), 0);
  ap::Trace tr;
  Mat out;
  ap::block_forward(out, x, decoder ? &memory : nullptr, pad, decoder ? &mem_pad : nullptr, b, cfg, nullptr,
                    p.value("causal", false), tr, "decoder", 0);
  for (auto& [name, want] : fx.at("stages").items()) {
    const ap::Stage* s = tr.find(name, "decoder", 0);
    ASSERT_NE(s, nullptr) << "stage " << name << " missing";
    const auto t = fixture::tensor(want);
    EXPECT_EQ(s->shape, t.shape) << name;
    EXPECT_TRUE(fixture::close(s->data.data(), s->data.size(), t, name));
  }
}

// "decoder.1.weights" -> ("weights", "decoder", 1); "encoder.final_norm" -> ("final_norm", "encoder", -1);
// plain "embed" in a decoder-only model -> ("embed", "decoder", -1); "logits" -> ("logits", "", -1).
void split_key(const std::string& key, const std::string& main_stack, std::string& name, std::string& stack,
               int& layer) {
  layer = -1;
  stack = "";
  name = key;
  const auto dot = key.find('.');
  if (dot != std::string::npos) {
    stack = key.substr(0, dot);
    name = key.substr(dot + 1);
    const auto dot2 = name.find('.');
    if (dot2 != std::string::npos && isdigit(static_cast<unsigned char>(name[0]))) {
      layer = std::stoi(name.substr(0, dot2));
      name = name.substr(dot2 + 1);
    }
  } else if (name != "logits" && name != "probs") {
    stack = main_stack;
  }
}

void check_model(const std::string& file) {
  SCOPED_TRACE(file);
  const auto fx = fixture::load("torch/" + file);
  ap::ModelConfig cfg;
  const auto& c = fx.at("config");
  cfg.arch = ap::arch_from_string(c.at("arch"));
  cfg.d_model = c.at("d_model");
  cfg.n_heads = c.at("n_heads");
  cfg.n_layers = c.at("n_layers");
  cfg.d_ff = c.at("d_ff");
  cfg.vocab_size = c.at("vocab_size");
  cfg.max_len = c.at("max_len");
  cfg.pos = ap::pos_from_string(c.at("pos"));
  cfg.act = ap::act_from_string(c.at("act"));
  cfg.norm = ap::norm_from_string(c.at("norm"));
  cfg.eps = c.at("eps");
  ap::Tokenizer tok(ap::Tokenizer::Kind::Char, fx.at("vocab").get<std::vector<std::string>>());
  ap::Model model(cfg, tok);
  int filled = 0;
  for (auto& t : model.named_tensors()) {
    ASSERT_TRUE(fx.at("weights").contains(t.name)) << "fixture lacks " << t.name;
    const auto want = fixture::tensor(fx.at("weights").at(t.name));
    std::copy(want.data.begin(), want.data.end(), t.data);
    ++filled;
  }
  EXPECT_EQ(filled, static_cast<int>(fx.at("weights").size())) << "the fixture has tensors the model does not";
  ap::Trace tr;
  const auto& in = fx.at("inputs");
  if (cfg.arch == ap::Arch::EncoderDecoder)
    model.forward(tr, in.at("src_ids").get<std::vector<int>>(), in.at("tgt_ids").get<std::vector<int>>());
  else
    model.forward(tr, in.at("ids").get<std::vector<int>>());
  const std::string main_stack = cfg.arch == ap::Arch::EncoderOnly ? "encoder" : "decoder";
  int compared = 0;
  for (auto& [key, want] : fx.at("stages").items()) {
    std::string name, stack;
    int layer;
    split_key(key, main_stack, name, stack, layer);
    const ap::Stage* s = tr.find(name, stack, layer);
    ASSERT_NE(s, nullptr) << "stage " << key << " missing";
    const auto t = fixture::tensor(want);
    EXPECT_EQ(s->shape, t.shape) << key;
    EXPECT_TRUE(fixture::close(s->data.data(), s->data.size(), t, key));
    ++compared;
  }
  EXPECT_GT(compared, 20);
}

}  // namespace

TEST(BlockVsTorch, EncoderLayerPostNormRelu) { check_block("encoder_layer_post_relu.json"); }
TEST(BlockVsTorch, EncoderLayerPostNormGelu) { check_block("encoder_layer_post_gelu.json"); }
TEST(BlockVsTorch, EncoderLayerPreNormRelu) { check_block("encoder_layer_pre_relu.json"); }
TEST(BlockVsTorch, DecoderLayerPostNormRelu) { check_block("decoder_layer_post_relu.json"); }
TEST(BlockVsTorch, DecoderLayerPreNormGelu) { check_block("decoder_layer_pre_gelu.json"); }
TEST(ModelVsTorch, DecoderOnlyTwoLayersSinusoidal) { check_model("model_decoder_only.json"); }
TEST(ModelVsTorch, EncoderDecoderLearnedPositionsPreNorm) { check_model("model_encoder_decoder.json"); }

TEST(Model, RejectsEmptyTooLongAndOutOfVocabularyInput) {
  ap::ModelConfig cfg;
  cfg.max_len = 4;
  ap::Model m(cfg, ap::Tokenizer::build(ap::Tokenizer::Kind::Char, {"abc"}));
  m.init_random(1);
  ap::Trace tr;
  auto message = [&](const std::vector<int>& ids) {
    try {
      m.forward(tr, ids);
    } catch (const ap::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({}).find("empty"), std::string::npos);
  EXPECT_NE(message({4, 5, 6, 4, 5}).find("max length is 4"), std::string::npos);
  EXPECT_NE(message({4, 99}).find("outside the vocabulary"), std::string::npos);
  EXPECT_NO_THROW(m.forward(tr, {4, 5}));
}

TEST(Model, SetTensorChecksTheNameTheLengthAndTheValues) {
  ap::ModelConfig cfg;
  cfg.d_model = 8;
  cfg.n_heads = 2;
  ap::Model m(cfg, ap::Tokenizer::build(ap::Tokenizer::Kind::Char, {"abc"}));
  m.init_random(1);
  // tok_emb: 7 tokens (<pad> <unk> <bos> <eos> a b c) x d_model 8 = 56 values.
  const ap::Model::NamedTensor t = m.named_tensor("tok_emb");
  EXPECT_EQ(t.shape, (std::vector<int>{7, 8}));
  const std::vector<float> before(t.data, t.data + 56);
  auto message = [&](const std::string& name, const std::vector<float>& v) {
    try {
      m.set_tensor(name, v.data(), v.size());
    } catch (const ap::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("nope", {1.0f}), "unknown tensor 'nope'");
  EXPECT_EQ(message("tok_emb", {1.0f, 2.0f, 3.0f}), "tensor 'tok_emb' needs 56 values, got 3");
  std::vector<float> bad(56, 0.5f);
  bad[9] = std::nanf("");
  EXPECT_NE(message("tok_emb", bad).find("tensor 'tok_emb'"), std::string::npos);
  EXPECT_EQ(std::vector<float>(t.data, t.data + 56), before);  // a refused call changes nothing
  std::vector<float> good(56);
  for (int i = 0; i < 56; ++i) good[static_cast<size_t>(i)] = 0.25f * static_cast<float>(i);
  EXPECT_EQ(message("tok_emb", good), "no error");
  EXPECT_EQ(m.weights().tok_emb(1, 2), 0.25f * 10);  // row 1, column 2: index 1 * 8 + 2 = 10
  EXPECT_THROW(m.named_tensor("tok_emb.weight"), ap::Error);
}

TEST(Model, SameSeedSameWeights) {
  ap::ModelConfig cfg;
  auto tok = ap::Tokenizer::build(ap::Tokenizer::Kind::Char, {"hello"});
  ap::Model a(cfg, tok), b(cfg, tok);
  a.init_random(7);
  b.init_random(7);
  EXPECT_TRUE(a.weights().decoder[0].ffn.w1.isApprox(b.weights().decoder[0].ffn.w1));
  b.init_random(8);
  EXPECT_FALSE(a.weights().decoder[0].ffn.w1.isApprox(b.weights().decoder[0].ffn.w1));
}

TEST(Model, PermutingTokensWithoutPositionsPermutesTheOutputRows) {
  // Without positions, self-attention (no mask) is permutation-equivariant (notes 004).
  ap::ModelConfig cfg;
  cfg.arch = ap::Arch::EncoderOnly;
  cfg.pos = ap::PosKind::None;
  cfg.causal = false;
  auto tok = ap::Tokenizer::build(ap::Tokenizer::Kind::Word, {"the cat sat on mat"});
  ap::Model m(cfg, tok);
  m.init_random(3);
  const std::vector<int> ids = tok.encode("the cat sat on the mat").ids;
  const std::vector<int> perm = {5, 0, 3, 2, 1, 4};  // "mat the on sat cat the"
  std::vector<int> shuffled;
  for (int p : perm) shuffled.push_back(ids[p]);
  ap::Trace a, b;
  m.forward(a, ids);
  m.forward(b, shuffled);
  const ap::Stage* oa = a.find("norm2", "encoder", 0);
  const ap::Stage* ob = b.find("norm2", "encoder", 0);
  const int d = cfg.d_model;
  for (size_t i = 0; i < perm.size(); ++i)
    for (int j = 0; j < d; ++j) EXPECT_NEAR(ob->data[i * d + j], oa->data[perm[i] * d + j], 1e-5);
}
