// The RNN encoder-decoder with additive attention: every parameter's gradient against central
// finite differences (double precision), the trainer's forward against the inference core's,
// the core's stages (shapes, and each term of e_tj recomputed by hand from the recorded
// stages), the bidirectional encoder's property (a later word changes an earlier state only in
// the backward half), the model file round trip and its errors, and a short training run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "base/rng.hpp"
#include "core/rnn_attention.hpp"
#include "helpers.hpp"
#include "io/model_io.hpp"
#include "io/rnn_attention_io.hpp"
#include "train/rnn_attention.hpp"

using namespace ap;
using namespace ap::train;

namespace {

RnnAttnConfig tiny_config() {
  RnnAttnConfig c;
  c.vocab_size = 9;
  c.d_emb = 3;
  c.d_enc = 2;
  c.d_dec = 3;
  c.d_att = 4;
  c.max_len = 8;
  return c;
}

// Every weight (biases too) drawn N(0, 0.5^2): nothing sits at an easy zero.
template <typename P>
void randomise(P& p, uint64_t seed) {
  Rng rng(seed);
  for (auto& x : p.flat) x = static_cast<typename std::decay_t<decltype(p.flat)>::value_type>(0.5 * rng.normal());
}

Tokenizer tiny_tokenizer() {
  return Tokenizer(Tokenizer::Kind::Word, {"<pad>", "<unk>", "<bos>", "<eos>", "a", "b", "c", "d", "e"});
}

RnnAttnModel tiny_model(uint64_t seed) {
  RnnAttnModel m(tiny_config(), tiny_tokenizer());
  m.init_random(seed);
  return m;
}

}  // namespace

TEST(RnnAttentionGrad, EveryParameterMatchesFiniteDifferences) {
  const RnnAttnConfig cfg = tiny_config();
  RnnAttnParams<double> p(cfg), g(cfg);
  randomise(p, 3);
  Seq2Seq ex;
  ex.src = {4, 7, 5, 8, 6};                // S = 5
  ex.inputs = {Tokenizer::kBos, 6, 4, 5};  // T = 4
  ex.targets = {6, 4, 5, Tokenizer::kEos};
  RnnAttnActs<double> acts;
  const double scale = 1.0 / 4;
  auto loss = [&] { return scale * rnn_attention_forward(acts, p, ex); };
  loss();
  g.zero();
  rnn_attention_backward(g, acts, p, ex, scale);

  const double h = 1e-5;
  double worst_all = 0.0;
  for (const auto& t : p.tensors) {
    double worst = 0.0, largest = 0.0;
    for (size_t i = t.offset; i < t.offset + t.size; ++i) {
      const double x0 = p.flat[i];
      p.flat[i] = x0 + h;
      const double up = loss();
      p.flat[i] = x0 - h;
      const double down = loss();
      p.flat[i] = x0;
      const double numeric = (up - down) / (2 * h), analytic = g.flat[i];
      const double denom = std::max({std::abs(numeric), std::abs(analytic), 1e-4});
      worst = std::max(worst, std::abs(numeric - analytic) / denom);
      largest = std::max(largest, std::abs(analytic));
    }
    std::printf("  %-12s %4zu values  max |grad| %.3e  max rel err %.2e\n", t.name.c_str(), t.size, largest, worst);
    EXPECT_LT(worst, 1e-6) << t.name;
    EXPECT_GT(largest, 1e-6) << t.name << " gets no gradient at all";
    worst_all = std::max(worst_all, worst);
  }
  std::printf("  all %zu parameters: max rel err %.2e\n", p.size(), worst_all);
}

TEST(RnnAttentionGrad, FloatGradientsAgreeWithDouble) {
  const RnnAttnConfig cfg = tiny_config();
  RnnAttnParams<double> pd(cfg), gd(cfg);
  RnnAttnParams<float> pf(cfg), gf(cfg);
  randomise(pd, 5);
  for (size_t i = 0; i < pd.size(); ++i) pf.flat[i] = static_cast<float>(pd.flat[i]);
  Seq2Seq ex{{5, 6, 7}, {Tokenizer::kBos, 8, 8}, {8, 8, Tokenizer::kEos}};
  RnnAttnActs<double> ad;
  RnnAttnActs<float> af;
  const double ld = rnn_attention_forward(ad, pd, ex);
  const double lf = rnn_attention_forward(af, pf, ex);
  EXPECT_NEAR(lf, ld, 1e-5 * std::abs(ld));
  gd.zero();
  gf.zero();
  rnn_attention_backward(gd, ad, pd, ex, 1.0);
  rnn_attention_backward(gf, af, pf, ex, 1.0f);
  for (size_t i = 0; i < pd.size(); ++i) EXPECT_NEAR(gf.flat[i], gd.flat[i], 1e-4 + 1e-4 * std::abs(gd.flat[i])) << i;
}

TEST(RnnAttentionCore, TrainerForwardEqualsTheInferenceCore) {
  const RnnAttnConfig cfg = tiny_config();
  RnnAttnParams<float> p(cfg);
  randomise(p, 9);
  RnnAttnModel m(cfg, tiny_tokenizer());
  params_to_model(m, p);
  const Seq2Seq ex{{4, 5, 6, 7}, {Tokenizer::kBos, 8, 4}, {8, 4, Tokenizer::kEos}};
  RnnAttnActs<float> a;
  rnn_attention_forward(a, p, ex);
  Trace tr;
  const std::vector<int> tgt = {8, 4};
  m.forward(tr, ex.src, &tgt);
  const Stage* logits = tr.find("logits", "decoder");
  ASSERT_NE(logits, nullptr);
  ASSERT_EQ(logits->data.size(), a.logits.size());
  for (size_t i = 0; i < a.logits.size(); ++i) EXPECT_NEAR(logits->data[i], a.logits[i], 1e-5f) << i;
  const Stage* alpha = tr.find("add_weights", "decoder");
  for (size_t i = 0; i < a.add_weights.size(); ++i) EXPECT_NEAR(alpha->data[i], a.add_weights[i], 1e-6f) << i;
}

TEST(RnnAttentionCore, StagesHaveTheDocumentedShapes) {
  const RnnAttnModel m = tiny_model(1);
  Trace tr;
  const std::vector<int> src = {4, 5, 6, 7, 8}, tgt = {5, 6};  // S = 5, T = 3 (<bos> + 2 words)
  m.forward(tr, src, &tgt);
  const int S = 5, T = 3, E = 3, H = 2, D = 4, Ds = 3, A = 4, V = 9;
  const std::vector<std::pair<std::string, std::vector<int>>> want = {
      {"tokens", {S}},         {"enc_embed", {S, E}},   {"enc_fwd", {S, H}},       {"enc_bwd", {S, H}},
      {"enc_h", {S, D}},       {"dec_tokens", {T}},     {"dec_embed", {T, E}},     {"dec_s", {T + 1, Ds}},
      {"add_ws", {Ds, A}},     {"add_wh", {D, A}},      {"add_v", {1, A}},         {"add_s", {T, A}},
      {"add_h", {S, A}},       {"add_tanh", {T, S, A}}, {"add_scores", {1, T, S}}, {"add_weights", {1, T, S}},
      {"add_context", {T, D}}, {"logits", {T, V}},      {"probs", {T, V}},         {"out_tokens", {T}}};
  for (const auto& [name, shape] : want) {
    const Stage* s = tr.find(name, name.rfind("enc", 0) == 0 || name == "tokens" ? "encoder" : "decoder");
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(s->shape, shape) << name;
  }
}

TEST(RnnAttentionCore, TextsAreTokenizedByTheModelAndAnEmptySourceIsRefused) {
  const RnnAttnModel m = tiny_model(1);
  Trace tr;
  EXPECT_EQ(aptest::error_of([&] { m.encode_text(tr, "   "); }),
            "there are no words: type a sentence for the encoder to read");
  EXPECT_EQ(aptest::error_of([&] { m.forward_text(tr, "", nullptr); }),
            "there is nothing to translate: type a sentence");
  // "a b c d e" is ids 4..8 of the tiny vocabulary, "b c" is 5 6: the same run as on the ids.
  const std::string tgt_text = "b c";
  Trace by_text, by_ids;
  const std::vector<int> src = {4, 5, 6, 7, 8}, tgt = {5, 6};
  EXPECT_EQ(m.forward_text(by_text, "a b c d e", &tgt_text), m.forward(by_ids, src, &tgt));
  EXPECT_EQ(by_text.find("dec_tokens", "decoder")->data, (std::vector<float>{2, 5, 6}));  // <bos> b c
  EXPECT_EQ(by_text.find("add_weights", "decoder")->data, by_ids.find("add_weights", "decoder")->data);
  Trace enc;
  m.encode_text(enc, "e d");
  EXPECT_EQ(enc.find("tokens", "encoder")->data, (std::vector<float>{8, 7}));
}

TEST(RnnAttentionCore, EveryTermOfTheScoreRecomputedByHandFromTheStages) {
  const RnnAttnModel m = tiny_model(2);
  Trace tr;
  const std::vector<int> src = {4, 6, 8, 5};
  m.forward(tr, src, nullptr);  // greedy
  auto get = [&](const char* name) { return tr.find(name, "decoder")->data; };
  const std::vector<float> s = get("dec_s"), ws_w = get("add_ws"), wh_w = get("add_wh"), v = get("add_v");
  const std::vector<float> ws = get("add_s"), wh = get("add_h"), e = get("add_scores"), al = get("add_weights");
  const std::vector<float> ctx = get("add_context"), h = tr.find("enc_h", "encoder")->data;
  const int T = tr.find("add_s", "decoder")->shape[0], S = 4, D = 4, Ds = 3, A = 4;
  ASSERT_GE(T, 1);
  for (int t = 0; t < T; ++t) {
    for (int c = 0; c < A; ++c) {  // (W_s s_{t-1})_c = sum_k s_{t-1,k} W_s[k, c]
      double sum = 0;
      for (int k = 0; k < Ds; ++k) sum += s[t * Ds + k] * ws_w[k * A + c];
      EXPECT_NEAR(ws[t * A + c], sum, 1e-5);
    }
    double z = 0;
    std::vector<double> ex(S);
    double mx = -1e30;
    for (int j = 0; j < S; ++j) {  // e_tj = sum_c v_c tanh((W_s s)_c + (W_h h_j)_c)
      double ej = 0;
      for (int c = 0; c < A; ++c) ej += v[c] * std::tanh(ws[t * A + c] + wh[j * A + c]);
      EXPECT_NEAR(e[t * S + j], ej, 1e-5);
      mx = std::max(mx, ej);
    }
    for (int j = 0; j < S; ++j) z += (ex[j] = std::exp(e[t * S + j] - mx));
    for (int j = 0; j < S; ++j) EXPECT_NEAR(al[t * S + j], ex[j] / z, 1e-6);
    for (int c = 0; c < D; ++c) {  // C_t = sum_j alpha_tj h_j
      double cc = 0;
      for (int j = 0; j < S; ++j) cc += al[t * S + j] * h[j * D + c];
      EXPECT_NEAR(ctx[t * D + c], cc, 1e-5);
    }
  }
  for (int j = 0; j < S; ++j)  // (W_h h_j)_c
    for (int c = 0; c < A; ++c) {
      double sum = 0;
      for (int k = 0; k < D; ++k) sum += h[j * D + k] * wh_w[k * A + c];
      EXPECT_NEAR(wh[j * A + c], sum, 1e-5);
    }
}

TEST(RnnAttentionCore, ALaterWordChangesEarlierStatesOnlyInTheBackwardHalf) {
  const RnnAttnModel m = tiny_model(4);
  const std::vector<int> a = {4, 5, 6, 7, 8}, b = {4, 5, 6, 7, 4};  // differ only in the last word
  Trace ta, tb;
  m.encode(ta, a);
  m.encode(tb, b);
  const std::vector<float>& fa = ta.find("enc_fwd", "encoder")->data;
  const std::vector<float>& fb = tb.find("enc_fwd", "encoder")->data;
  const std::vector<float>& ba = ta.find("enc_bwd", "encoder")->data;
  const std::vector<float>& bb = tb.find("enc_bwd", "encoder")->data;
  const int H = 2;
  for (int j = 0; j < 4; ++j) {  // positions before the changed word
    double df = 0, db = 0;
    for (int c = 0; c < H; ++c) {
      df += std::abs(fa[j * H + c] - fb[j * H + c]);
      db += std::abs(ba[j * H + c] - bb[j * H + c]);
    }
    EXPECT_EQ(df, 0.0) << "forward state " << j << " saw a later word";
    EXPECT_GT(db, 0.0) << "backward state " << j << " did not see the later word";
  }
}

TEST(RnnAttentionIo, SaveLoadRoundTripGivesTheSameTranslation) {
  RnnAttnModel m = tiny_model(6);
  m.mutable_metadata()["task"] = "toy";
  const std::vector<uint8_t> bytes = save_rnn_attention(m);
  const RnnAttnModel r = load_rnn_attention(bytes.data(), bytes.size());
  EXPECT_EQ(r.metadata().at("task"), "toy");
  EXPECT_EQ(r.config().d_att, 4);
  EXPECT_EQ(r.translate("a b c"), m.translate("a b c"));
  // The transformer loader refuses it by its arch, with a message.
  try {
    load_model(bytes.data(), bytes.size());
    FAIL() << "a transformer loader accepted an rnn-attention file";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("rnn-attention"), std::string::npos) << e.what();
  }
}

TEST(RnnAttentionIo, BadFilesAreErrorsThatNameTheProblem) {
  RnnAttnModel m = tiny_model(7);
  std::vector<uint8_t> bytes = save_rnn_attention(m);
  auto message = [](const std::vector<uint8_t>& b) -> std::string {
    try {
      load_rnn_attention(b.data(), b.size());
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(message(std::vector<uint8_t>(bytes.begin(), bytes.begin() + 20)), "");
  // A tensor of the wrong shape: rename a key in the header to another tensor's name.
  std::string text(bytes.begin(), bytes.end());
  const size_t at = text.find("\"attn.v\"");
  ASSERT_NE(at, std::string::npos);
  std::string renamed = text;
  renamed.replace(at, 8, "\"attn.q\"");
  const std::string msg = message(std::vector<uint8_t>(renamed.begin(), renamed.end()));
  EXPECT_NE(msg.find("attn.v"), std::string::npos) << msg;  // missing tensor 'attn.v'
}

// A small model on dates, for 60 steps.
RnnAttnTrainConfig short_dates_run() {
  RnnAttnTrainConfig cfg;
  cfg.task = "dates";
  cfg.model.d_emb = 16;
  cfg.model.d_enc = 16;
  cfg.model.d_dec = 32;
  cfg.model.d_att = 16;
  cfg.batch = 8;
  cfg.optim.lr = 1e-2f;
  cfg.optim.warmup_steps = 5;
  cfg.optim.total_steps = 60;
  return cfg;
}

// One recipe: a seed starts the trainer from exactly RnnAttnModel::init_random's weights.
TEST(RnnAttentionTrain, ASeedStartsFromInitRandomsWeights) {
  RnnAttnTrainConfig cfg = short_dates_run();
  cfg.seed = 9;
  const RnnAttnTrainer tr(cfg);
  RnnAttnModel start = tr.to_model();
  RnnAttnModel core(start.config(), tr.task().tokenizer());
  core.init_random(9);
  aptest::expect_same_tensors(start.named_tensors(), core.named_tensors());
  // and the recipe: the embedding drawn, the matrices drawn, the biases zero
  EXPECT_NE(core.weights().emb(0, 0), 0.0f);
  EXPECT_NE(core.weights().att_ws(0, 0), 0.0f);
  EXPECT_EQ(core.weights().dec_b.cwiseAbs().maxCoeff(), 0.0f);
}

TEST(RnnAttentionTrain, AShortRunOnDatesLowersTheLoss) {
  RnnAttnTrainer tr(short_dates_run());
  const float first = tr.step();
  float last = first;
  for (int i = 1; i < 60; ++i) last = tr.step();
  std::printf("  loss %.3f -> %.3f (uniform over %d tokens would be %.3f)\n", first, last, tr.task().tokenizer().size(),
              std::log(static_cast<float>(tr.task().tokenizer().size())));
  EXPECT_LT(last, 0.6f * first);
  const RnnAttnModel model = tr.to_model();
  EXPECT_EQ(model.metadata().at("task"), "dates");
}
