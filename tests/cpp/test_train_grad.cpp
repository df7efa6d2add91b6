// Gradient checks: every layer's backward, and whole tiny models' gradients, against central
// finite differences of the forward pass, all in double precision (the trainer's templates
// instantiated on double), so the only error left is the difference formula's O(h^2).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#include "base/rng.hpp"
#include "helpers.hpp"
#include "train/ops.hpp"
#include "train/params.hpp"
#include "train/transformer.hpp"

using namespace ap;
using namespace ap::train;

namespace {

using Vecd = std::vector<double>;

Vecd random_vec(Rng& rng, size_t n, double scale = 1.0) {
  Vecd v(n);
  for (auto& x : v) x = scale * rng.normal();
  return v;
}

// d loss / d x by central differences, perturbing x in place.
Vecd numeric_grad(Vecd& x, const std::function<double()>& loss, double h = 1e-5) {
  Vecd g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double x0 = x[i];
    x[i] = x0 + h;
    const double up = loss();
    x[i] = x0 - h;
    const double down = loss();
    x[i] = x0;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

// Largest elementwise relative error, with magnitudes below 1e-4 treated as 1e-4
// (a gradient that is 0 analytically shows up as ~1e-11 of rounding numerically).
double max_rel_err(const Vecd& analytic, const Vecd& numeric) {
  double worst = 0.0;
  for (size_t i = 0; i < analytic.size(); ++i) {
    const double scale = std::max({std::abs(analytic[i]), std::abs(numeric[i]), 1e-4});
    worst = std::max(worst, std::abs(analytic[i] - numeric[i]) / scale);
  }
  return worst;
}

double dot(const Vecd& a, const Vecd& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

constexpr double kTol = 1e-6;

void expect_close(const char* what, const Vecd& analytic, const Vecd& numeric) {
  const double err = max_rel_err(analytic, numeric);
  std::printf("  %-28s max rel err %.2e\n", what, err);
  EXPECT_LT(err, kTol) << what;
}

}  // namespace

TEST(TrainGrad, LinearBackwardMatchesFiniteDifferences) {
  Rng rng(1);
  const int N = 5, C = 4, OC = 3;
  Vecd x = random_vec(rng, N * C), w = random_vec(rng, C * OC), b = random_vec(rng, OC), r = random_vec(rng, N * OC);
  Vecd out(N * OC);
  auto loss = [&] {
    linear_forward(out.data(), x.data(), w.data(), b.data(), N, C, OC);
    return dot(out, r);  // loss = sum(out * r), so dloss/dout = r
  };
  Vecd dx(N * C, 0.0), dw(C * OC, 0.0), db(OC, 0.0);
  linear_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), N, C, OC);
  expect_close("linear dinp", dx, numeric_grad(x, loss));
  expect_close("linear dweight", dw, numeric_grad(w, loss));
  expect_close("linear dbias", db, numeric_grad(b, loss));
}

TEST(TrainGrad, LayerNormBackwardMatchesFiniteDifferences) {
  Rng rng(2);
  const int N = 4, C = 6;
  Vecd x = random_vec(rng, N * C, 2.0), g = random_vec(rng, C), be = random_vec(rng, C), r = random_vec(rng, N * C);
  Vecd out(N * C), mean(N), rstd(N);
  auto loss = [&] {
    layernorm_forward(out.data(), mean.data(), rstd.data(), x.data(), g.data(), be.data(), N, C, 1e-5);
    return dot(out, r);
  };
  loss();
  Vecd dx(N * C, 0.0), dg(C, 0.0), dbe(C, 0.0);
  layernorm_backward(dx.data(), dg.data(), dbe.data(), r.data(), x.data(), g.data(), mean.data(), rstd.data(), N, C);
  expect_close("layernorm dinp", dx, numeric_grad(x, loss));
  expect_close("layernorm dgamma", dg, numeric_grad(g, loss));
  expect_close("layernorm dbeta", dbe, numeric_grad(be, loss));
}

TEST(TrainGrad, ActivationBackwardsMatchFiniteDifferences) {
  Rng rng(3);
  const int n = 40;
  Vecd x = random_vec(rng, n, 2.0), r = random_vec(rng, n), out(n);
  for (auto& v : x)
    if (std::abs(v) < 1e-3) v = 0.5;  // ReLU has no derivative at 0
  Vecd slope(n);
  auto gelu = [&] {
    gelu_forward(out.data(), slope.data(), x.data(), n);
    return dot(out, r);
  };
  gelu();  // the slope at x itself (numeric_grad's last call leaves x as it was)
  Vecd dx(n, 0.0);
  gelu_backward(dx.data(), slope.data(), r.data(), n);
  expect_close("gelu dinp", dx, numeric_grad(x, gelu));
  auto relu = [&] {
    relu_forward(out.data(), x.data(), n);
    return dot(out, r);
  };
  std::fill(dx.begin(), dx.end(), 0.0);
  relu_backward(dx.data(), x.data(), r.data(), n);
  expect_close("relu dinp", dx, numeric_grad(x, relu));
}

// The trainer's GELU in float (erfcf and expf, ops.cpp) against the formula in double (Phi =
// erfc(-x / sqrt 2) / 2; 1 + erf would cancel to 0 below x = -8) at every 1/1024 of [-12, 12].
// The bound, in float ulps (2^-24 relative), is 8 (1 + x^2): rounding -x / sqrt 2 to float moves
// erfc's argument z by z 2^-24, which moves erfc(z) by about 2 z^2 = x^2 times that, relatively.
// The value x Phi(x) is held to it relatively; the slope Phi(x) + x phi(x), which crosses 0 near
// x = -0.75, relative to the size of its two terms, Phi(x) + |x| phi(x).
TEST(TrainGrad, GeluInFloatIsTheDoubleFormulaRounded) {
  const int n = 24 * 1024 + 1;
  std::vector<float> x(n), out(n), slope(n);
  for (int i = 0; i < n; ++i) x[i] = -12.0f + static_cast<float>(i) / 1024.0f;
  gelu_forward(out.data(), slope.data(), x.data(), n);
  double worst_value = 0, worst_slope = 0;  // in units of (1 + x^2) ulps
  for (int i = 0; i < n; ++i) {
    const double v = x[i], ulps = std::ldexp(1.0 + v * v, -24);
    const double cdf = 0.5 * std::erfc(-v / std::sqrt(2.0));
    const double pdf = std::exp(-0.5 * v * v) / std::sqrt(2.0 * 3.14159265358979323846);
    if (v != 0) worst_value = std::max(worst_value, std::abs(out[i] - v * cdf) / std::abs(v * cdf) / ulps);
    worst_slope = std::max(worst_slope, std::abs(slope[i] - (cdf + v * pdf)) / (cdf + std::abs(v) * pdf) / ulps);
  }
  std::printf("  float GELU: worst error %.2f (value), %.2f (slope) times (1 + x^2) ulps\n", worst_value, worst_slope);
  EXPECT_LT(worst_value, 8.0);
  EXPECT_LT(worst_slope, 8.0);
}

TEST(TrainGrad, EmbeddingBackwardMatchesFiniteDifferences) {
  Rng rng(4);
  const int B = 2, T = 3, d = 4, V = 5, L = 4;
  const std::vector<int> ids = {1, 4, 1, 0, 2, 4};  // repeated ids collect both rows' gradients
  Vecd emb = random_vec(rng, V * d), pos = random_vec(rng, L * d), r = random_vec(rng, B * T * d), out(B * T * d);
  auto loss = [&] {
    embed_forward(out.data(), ids.data(), emb.data(), pos.data(), static_cast<const double*>(nullptr), B, T, d);
    return dot(out, r);
  };
  Vecd demb(V * d, 0.0), dpos(L * d, 0.0);
  embed_backward(demb.data(), dpos.data(), r.data(), ids.data(), B, T, d);
  expect_close("embedding dtok_emb", demb, numeric_grad(emb, loss));
  expect_close("learned positions dpos_emb", dpos, numeric_grad(pos, loss));
}

// Self-attention with the causal mask and cross-attention with padded keys, including a
// sequence whose keys are all padding (its rows get zero weights and zero gradient).
TEST(TrainGrad, AttentionBackwardMatchesFiniteDifferences) {
  Rng rng(5);
  struct Case {
    const char* name;
    int T, S;
    bool causal;
    std::vector<unsigned char> pad;
    bool all_pad_second;
  };
  const Case cases[] = {
      {"causal self-attention", 4, 4, true, {}, false},
      {"padded self-attention", 4, 4, false, {0, 0, 1, 1, 0, 0, 0, 1}, false},
      {"cross-attention, padding", 3, 5, false, {0, 0, 0, 1, 1, 1, 1, 1, 1, 1}, true},  // 2nd all padding
  };
  const int B = 2, d = 6, NH = 2;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Vecd q = random_vec(rng, B * c.T * d), k = random_vec(rng, B * c.S * d), v = random_vec(rng, B * c.S * d);
    Vecd r = random_vec(rng, B * c.T * d), out(B * c.T * d), att(B * NH * c.T * c.S);
    const unsigned char* pad = c.pad.empty() ? nullptr : c.pad.data();
    auto loss = [&] {
      attention_forward(out.data(), att.data(), q.data(), k.data(), v.data(), pad, c.causal, true, B, c.T, c.S, d, NH);
      return dot(out, r);
    };
    loss();
    Vecd dq(q.size(), 0.0), dk(k.size(), 0.0), dv(v.size(), 0.0);
    attention_backward(dq.data(), dk.data(), dv.data(), r.data(), att.data(), q.data(), k.data(), v.data(), true, B,
                       c.T, c.S, d, NH);
    std::printf(" %s\n", c.name);
    expect_close("attention dq", dq, numeric_grad(q, loss));
    expect_close("attention dk", dk, numeric_grad(k, loss));
    expect_close("attention dv", dv, numeric_grad(v, loss));
    if (c.all_pad_second) {  // the all-padding sequence: zero weights, so zero output
      for (int t = 0; t < c.T; ++t)
        for (int j = 0; j < d; ++j) EXPECT_EQ(out[(1 * c.T + t) * d + j], 0.0);
    }
  }
}

// Relative positions (T5's bias per head and clipped offset s - t, added after the 1/sqrt(d_k)):
// the bias table's gradient, with offsets beyond the clip (|s - t| = 3 > 2) sharing its end columns.
TEST(TrainGrad, AttentionRelativeBiasBackwardMatchesFiniteDifferences) {
  Rng rng(9);
  const int B = 2, T = 4, d = 6, NH = 2, clip = 2;
  for (const bool causal : {false, true}) {
    SCOPED_TRACE(causal ? "causal" : "bidirectional, padded");
    const std::vector<unsigned char> pad = {0, 0, 0, 1, 0, 0, 0, 0};
    const unsigned char* key_pad = causal ? nullptr : pad.data();
    Vecd q = random_vec(rng, B * T * d), k = random_vec(rng, B * T * d), v = random_vec(rng, B * T * d);
    Vecd bias = random_vec(rng, NH * (2 * clip + 1)), r = random_vec(rng, B * T * d), out(B * T * d),
         att(B * NH * T * T);
    auto loss = [&] {
      attention_forward(out.data(), att.data(), q.data(), k.data(), v.data(), key_pad, causal, true, B, T, T, d, NH,
                        bias.data(), clip);
      return dot(out, r);
    };
    loss();
    Vecd dq(q.size(), 0.0), dk(k.size(), 0.0), dv(v.size(), 0.0), dbias(bias.size(), 0.0);
    attention_backward(dq.data(), dk.data(), dv.data(), r.data(), att.data(), q.data(), k.data(), v.data(), true, B, T,
                       T, d, NH, dbias.data(), clip);
    expect_close("attention dq", dq, numeric_grad(q, loss));
    expect_close("attention dk", dk, numeric_grad(k, loss));
    expect_close("attention d(rel_bias)", dbias, numeric_grad(bias, loss));
    // A causal head never sees a key to its right: the positive offsets get no gradient.
    if (causal)
      for (int h = 0; h < NH; ++h)
        for (int off = 1; off <= clip; ++off) EXPECT_EQ(dbias[h * (2 * clip + 1) + clip + off], 0.0);
  }
}

TEST(TrainGrad, CrossEntropyBackwardMatchesFiniteDifferencesAndIgnoresPadding) {
  Rng rng(6);
  const int N = 4, V = 5;
  const std::vector<int> targets = {2, 0, 4, 1};  // row 1 has no target
  Vecd z = random_vec(rng, N * V, 2.0), probs(N * V), losses(N);
  auto loss = [&] {
    crossentropy_forward(losses.data(), probs.data(), z.data(), targets.data(), N, V);
    return (losses[0] + losses[1] + losses[2] + losses[3]) / 3.0;
  };
  loss();
  EXPECT_EQ(losses[1], 0.0);
  // Row 0 by hand: -log softmax(z)[2].
  double sum = 0;
  for (int j = 0; j < V; ++j) sum += std::exp(z[j]);
  EXPECT_NEAR(losses[0], std::log(sum) - z[2], 1e-12);
  Vecd dz(N * V);
  crossentropy_backward(dz.data(), probs.data(), targets.data(), 1.0 / 3.0, N, V);
  for (int j = 0; j < V; ++j) EXPECT_EQ(dz[1 * V + j], 0.0);
  expect_close("cross-entropy dlogits", dz, numeric_grad(z, loss));
}

// ---- whole models --------------------------------------------------------------------------

namespace {

// Every parameter of a tiny model (LayerNorm and biases moved off 1 and 0 so every path carries
// a generic gradient) against finite differences of the mean loss of a padded batch.
void check_model(const char* name, const ModelConfig& cfg, const Batch& batch) {
  Params<double> p(cfg), g(cfg);
  init_params(p, 7);
  Rng rng(8);
  for (const auto& t : p.tensors)
    if (t.shape.size() == 1)
      for (size_t i = 0; i < t.size; ++i) p.data(t)[i] += 0.3 * rng.normal();
  Activations<double> acts;
  const double count = batch.count_targets();
  auto loss = [&] { return transformer_forward(acts, p, batch) / count; };
  loss();
  g.zero();
  transformer_backward(g, acts, p, batch, 1.0 / count);
  Vecd analytic(g.flat.begin(), g.flat.end());
  Vecd numeric = numeric_grad(p.flat, loss);
  std::printf(" %s (%zu parameters)\n", name, p.size());
  double worst = 0;
  for (const auto& t : p.tensors) {
    Vecd a(analytic.begin() + t.offset, analytic.begin() + t.offset + t.size);
    Vecd n(numeric.begin() + t.offset, numeric.begin() + t.offset + t.size);
    const double err = max_rel_err(a, n);
    worst = std::max(worst, err);
    EXPECT_LT(err, kTol) << name << ": " << t.name;
  }
  std::printf("  all tensors: max rel err %.2e\n", worst);
  // Padding gets no gradient: the embedding row of <pad> (id 0) is only read at padded positions
  // whose outputs are masked or ignored... except as an encoder key, which is masked too. (A tied
  // head reads every row, <pad>'s too, as an output logit: there it does get one.)
  if (cfg.tied_head) return;
  const auto* emb = p.find("tok_emb");
  for (int j = 0; j < cfg.d_model; ++j) EXPECT_NEAR(analytic[emb->offset + j], 0.0, 1e-12) << "<pad> embedding";
}

ModelConfig tiny(Arch arch, NormPlace norm, PosKind pos, Act act) {
  return aptest::model_config(arch, {4, 2, 2, 6, 7, 6}, pos, norm, act);
}

Batch decoder_batch() {
  Batch b;
  b.B = 2;
  b.T = 5;
  b.inputs = {2, 4, 5, 6, 4, /**/ 2, 6, 5, 0, 0};   // second sequence right-padded
  b.targets = {0, 5, 6, 4, 3, /**/ 6, 5, 3, 0, 0};  // first target masked (a prompt position)
  return b;
}

Batch encdec_batch() {
  Batch b = decoder_batch();
  b.S = 6;  // longer than the target: the encoder's buffers have more rows than the decoder's
  b.src = {4, 5, 6, 0, 0, 0, /**/ 6, 6, 4, 5, 5, 4};
  return b;
}

// A masked-LM batch (encoder-only): id 6 plays [MASK]; targets only at the masked positions,
// the second sequence right-padded (its <pad> keys are masked: bidirectional attention would
// otherwise read them).
Batch mlm_batch() {
  Batch b;
  b.B = 2;
  b.T = 5;
  b.inputs = {2, 6, 5, 4, 6, /**/ 3, 4, 6, 0, 0};
  b.targets = {0, 4, 0, 0, 5, /**/ 0, 0, 3, 0, 0};
  return b;
}

}  // namespace

TEST(TrainGrad, EncoderOnlyMaskedLMPostNormGeluLearned) {
  check_model("encoder-only (masked LM), post-norm, GELU, learned",
              tiny(Arch::EncoderOnly, NormPlace::Post, PosKind::Learned, Act::Gelu), mlm_batch());
}

TEST(TrainGrad, EncoderOnlyMaskedLMPreNormReluSinusoidal) {
  check_model("encoder-only (masked LM), pre-norm, ReLU, sinusoidal",
              tiny(Arch::EncoderOnly, NormPlace::Pre, PosKind::Sinusoidal, Act::Relu), mlm_batch());
}

TEST(TrainGrad, EncoderOnlyMaskedLMPreNormGeluRelative) {
  ModelConfig cfg = tiny(Arch::EncoderOnly, NormPlace::Pre, PosKind::Relative, Act::Gelu);
  cfg.rel_clip = 2;  // the batch's 5 positions reach offsets +-4: the clipped ends share a bias
  cfg.tied_head = true;
  check_model("encoder-only (masked LM), pre-norm, GELU, relative, tied", cfg, mlm_batch());
}

TEST(TrainGrad, DecoderOnlyPostNormReluRelative) {
  ModelConfig cfg = tiny(Arch::DecoderOnly, NormPlace::Post, PosKind::Relative, Act::Relu);
  cfg.rel_clip = 2;
  check_model("decoder-only, post-norm, ReLU, relative", cfg, decoder_batch());
}

// Bidirectional: the loss at a masked position depends on the tokens after it. A sequence whose
// only loss is at position 0 ([MASK] first): the embedding of id 5, present only at position 3,
// gets a gradient in the encoder; in a decoder (causal) the same batch gives it exactly none.
TEST(TrainGrad, EncoderOnlyLossSeesTheFutureDecoderDoesNot) {
  Batch b;
  b.B = 1;
  b.T = 4;
  b.inputs = {6, 2, 2, 5};   // [MASK] first, id 5 only at the end
  b.targets = {4, 0, 0, 0};  // the only loss: at position 0
  auto grad_of_5 = [&](Arch arch) {
    const ModelConfig cfg = tiny(arch, NormPlace::Post, PosKind::Learned, Act::Gelu);
    Params<double> p(cfg), g(cfg);
    init_params(p, 7);
    Activations<double> acts;
    transformer_forward(acts, p, b);
    g.zero();
    transformer_backward(g, acts, p, b, 1.0);
    const auto* emb = p.find("tok_emb");
    double norm = 0;
    for (int j = 0; j < cfg.d_model; ++j) norm += std::abs(g.flat[emb->offset + 5 * cfg.d_model + j]);
    return norm;
  };
  const double enc = grad_of_5(Arch::EncoderOnly), dec = grad_of_5(Arch::DecoderOnly);
  std::printf("  sum |d loss(position 0) / d tok_emb[5]| (id 5 at position 3): encoder %.3e, decoder %.3e\n", enc, dec);
  EXPECT_GT(enc, 1e-6) << "the encoder reads the token after the mask";
  EXPECT_EQ(dec, 0.0) << "the decoder cannot";
}

TEST(TrainGrad, DecoderOnlyPostNormGeluLearnedPositions) {
  check_model("decoder-only, post-norm, GELU, learned positions",
              tiny(Arch::DecoderOnly, NormPlace::Post, PosKind::Learned, Act::Gelu), decoder_batch());
}

TEST(TrainGrad, DecoderOnlyPreNormReluSinusoidal) {
  check_model("decoder-only, pre-norm, ReLU, sinusoidal",
              tiny(Arch::DecoderOnly, NormPlace::Pre, PosKind::Sinusoidal, Act::Relu), decoder_batch());
}

// The English models' shape: the output head is the token embeddings (logits = h tok_emb^T + b),
// so tok_emb gets gradient from both ends.
TEST(TrainGrad, DecoderOnlyPreNormGeluLearnedTiedHead) {
  ModelConfig cfg = tiny(Arch::DecoderOnly, NormPlace::Pre, PosKind::Learned, Act::Gelu);
  cfg.tied_head = true;
  check_model("decoder-only, pre-norm, GELU, learned, tied head", cfg, decoder_batch());
}

// The induction view's models: attention-only blocks (no FFN, no norm2), pre- and post-norm.
TEST(TrainGrad, DecoderOnlyAttentionOnlyPreNorm) {
  ModelConfig cfg = tiny(Arch::DecoderOnly, NormPlace::Pre, PosKind::Learned, Act::Gelu);
  cfg.ffn = false;
  check_model("decoder-only, attention-only, pre-norm", cfg, decoder_batch());
}

TEST(TrainGrad, DecoderOnlyAttentionOnlyPostNorm) {
  ModelConfig cfg = tiny(Arch::DecoderOnly, NormPlace::Post, PosKind::Sinusoidal, Act::Relu);
  cfg.ffn = false;
  check_model("decoder-only, attention-only, post-norm", cfg, decoder_batch());
}

TEST(TrainGrad, EncoderOnlyMaskedLMTiedHead) {
  ModelConfig cfg = tiny(Arch::EncoderOnly, NormPlace::Pre, PosKind::Learned, Act::Gelu);
  cfg.tied_head = true;
  check_model("encoder-only (masked LM), pre-norm, tied head", cfg, mlm_batch());
}

TEST(TrainGrad, EncoderDecoderPostNormWithPaddedSource) {
  check_model("encoder-decoder, post-norm, GELU, learned",
              tiny(Arch::EncoderDecoder, NormPlace::Post, PosKind::Learned, Act::Gelu), encdec_batch());
}

TEST(TrainGrad, EncoderDecoderPreNormWithPaddedSource) {
  check_model("encoder-decoder, pre-norm, GELU, sinusoidal",
              tiny(Arch::EncoderDecoder, NormPlace::Pre, PosKind::Sinusoidal, Act::Gelu), encdec_batch());
}

// The float instantiation used for training computes the same gradients as the double one.
TEST(TrainGrad, FloatGradientsAgreeWithDouble) {
  const ModelConfig cfg = tiny(Arch::EncoderDecoder, NormPlace::Post, PosKind::Learned, Act::Gelu);
  const Batch batch = encdec_batch();
  Params<double> pd(cfg), gd(cfg);
  Params<float> pf(cfg), gf(cfg);
  init_params(pd, 11);
  init_params(pf, 11);
  for (size_t i = 0; i < pd.size(); ++i)
    ASSERT_EQ(static_cast<float>(pd.flat[i]), pf.flat[i]) << "same seed, same weights";
  Activations<double> ad;
  Activations<float> af;
  const double n = batch.count_targets();
  const double ld = transformer_forward(ad, pd, batch) / n;
  const double lf = transformer_forward(af, pf, batch) / n;
  EXPECT_NEAR(lf, ld, 1e-5 * std::abs(ld));
  gd.zero();
  gf.zero();
  transformer_backward(gd, ad, pd, batch, 1.0 / n);
  transformer_backward(gf, af, pf, batch, static_cast<float>(1.0 / n));
  double worst = 0, scale = 0;
  for (size_t i = 0; i < pd.size(); ++i) {
    worst = std::max(worst, std::abs(gd.flat[i] - gf.flat[i]));
    scale = std::max(scale, std::abs(gd.flat[i]));
  }
  std::printf("  float vs double gradients: max abs diff %.2e (max |grad| %.2e)\n", worst, scale);
  EXPECT_LT(worst, 1e-5 * scale);
}
