// The trainer's forward is the inference core's forward: an ap::Model with random weights,
// copied into the trainer, gives the same logits (within 1e-5) in both. This is what makes a
// shipped model behave in the browser as it did in training. Also: the trainer's right-padded
// batches give, at every real position, the logits of the unpadded sequence in the core.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/model.hpp"
#include "data/tasks.hpp"
#include "helpers.hpp"
#include "io/model_io.hpp"
#include "train/params.hpp"
#include "train/transformer.hpp"

using namespace ap;
using namespace ap::train;

namespace {

Tokenizer vocab_of(int V) {
  std::vector<std::string> v = {"<pad>", "<unk>", "<bos>", "<eos>"};
  for (int i = 4; i < V; ++i) v.push_back(std::string(1, static_cast<char>('a' + i - 4)));
  return Tokenizer(Tokenizer::Kind::Char, v);
}

ModelConfig small(Arch arch, NormPlace norm, PosKind pos, Act act) {
  return aptest::model_config(arch, {16, 4, 2, 32, 12, 16}, pos, norm, act);
}

// Largest |a - b| / max(1, |b|) over the rows of the core's logits for one sequence.
double logits_diff(const float* ours, const Stage& core) {
  double worst = 0;
  for (size_t i = 0; i < core.data.size(); ++i)
    worst = std::max(worst, std::abs(ours[i] - core.data[i]) / std::max(1.0, std::abs(double(core.data[i]))));
  return worst;
}

struct Seq {
  std::vector<int> src, tgt;
};

// Runs the core per sequence and the trainer on the padded batch of all of them.
void check(const char* name, const ModelConfig& cfg, const std::vector<Seq>& seqs) {
  Model model(cfg, vocab_of(cfg.vocab_size));
  model.init_random(42);
  Params<float> p(model.config());
  params_from_model(p, model.weights());

  // Round trip: the trainer's copy writes back exactly the same numbers.
  Model back(cfg, vocab_of(cfg.vocab_size));
  params_to_model(back.weights(), p);
  auto a = model.named_tensors(), b = back.named_tensors();
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), p.tensors.size()) << "every tensor of the model is trained";
  for (size_t i = 0; i < a.size(); ++i) {
    size_t n = 1;
    for (int s : a[i].shape) n *= static_cast<size_t>(s);
    for (size_t j = 0; j < n; ++j) ASSERT_EQ(a[i].data[j], b[i].data[j]) << a[i].name;
  }

  std::vector<EncodedExample> ex;
  for (const auto& s : seqs) {
    EncodedExample e;
    e.src = s.src;
    e.inputs = s.tgt;
    e.targets.assign(s.tgt.size(), 0);
    ex.push_back(e);
  }
  const Batch batch = make_batch(ex);
  Activations<float> acts;
  transformer_forward(acts, p, batch);

  double worst = 0;
  for (size_t i = 0; i < seqs.size(); ++i) {
    Trace tr;
    if (cfg.arch == Arch::EncoderDecoder)
      model.forward(tr, seqs[i].src, seqs[i].tgt);
    else
      model.forward(tr, seqs[i].tgt);
    const Stage* logits = tr.find("logits");
    ASSERT_NE(logits, nullptr);
    ASSERT_EQ(logits->shape, (std::vector<int>{static_cast<int>(seqs[i].tgt.size()), cfg.vocab_size}));
    const double diff = logits_diff(acts.logits.data() + i * batch.T * cfg.vocab_size, *logits);
    worst = std::max(worst, diff);
    EXPECT_LT(diff, 1e-5) << name << ", sequence " << i;
  }
  std::printf("  %-52s logits max diff %.2e\n", name, worst);
}

const std::vector<Seq> kDecoderSeqs = {{{}, {2, 5, 7, 4, 9, 11, 6}}, {{}, {2, 8}}, {{}, {2, 10, 10, 5, 4}}};
const std::vector<Seq> kEncDecSeqs = {
    {{5, 6, 7, 8, 9, 10, 11}, {2, 6, 4, 7}}, {{9, 4}, {2, 9, 5, 6, 7, 8}}, {{4, 4, 11, 5}, {2}}};

}  // namespace

TEST(TrainConsistency, EncoderOnlyPostNormMatchesCore) {
  // Bidirectional: the right-padded rows of the batch are masked as keys, so the real positions
  // see only the real tokens, as the core does on the unpadded sequence.
  check("encoder-only, post-norm, GELU, learned",
        small(Arch::EncoderOnly, NormPlace::Post, PosKind::Learned, Act::Gelu),
        {{{}, {5, 7, 4, 9, 11, 6}}, {{}, {8}}, {{}, {10, 11, 5, 4}}});
}

TEST(TrainConsistency, EncoderOnlyPreNormSinusoidalMatchesCore) {
  check("encoder-only, pre-norm, ReLU, sinusoidal",
        small(Arch::EncoderOnly, NormPlace::Pre, PosKind::Sinusoidal, Act::Relu),
        {{{}, {5, 7, 4, 9, 11, 6}}, {{}, {8, 9}}, {{}, {10, 11, 5, 4}}});
}

// The decoder-only and encoder-decoder stacks in both norm places, with learned positions and
// GELU (post-norm) or sinusoidal positions and ReLU (pre-norm).
TEST(TrainConsistency, DecoderAndEncoderDecoderStacksMatchCore) {
  struct Case {
    const char* name;
    Arch arch;
    NormPlace norm;
    PosKind pos;
    Act act;
  };
  const Case cases[] = {
      {"decoder-only, post-norm, GELU, learned", Arch::DecoderOnly, NormPlace::Post, PosKind::Learned, Act::Gelu},
      {"decoder-only, pre-norm, ReLU, sinusoidal", Arch::DecoderOnly, NormPlace::Pre, PosKind::Sinusoidal, Act::Relu},
      {"encoder-decoder, post-norm, GELU, learned", Arch::EncoderDecoder, NormPlace::Post, PosKind::Learned, Act::Gelu},
      {"encoder-decoder, pre-norm, ReLU, sinusoidal", Arch::EncoderDecoder, NormPlace::Pre, PosKind::Sinusoidal,
       Act::Relu},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    check(c.name, small(c.arch, c.norm, c.pos, c.act), c.arch == Arch::DecoderOnly ? kDecoderSeqs : kEncDecSeqs);
  }
}

// Relative positions: one bias table for every block's self-attention, offsets clipped (clip 2
// on sequences of up to 7), as the core's pos_bias stage.
TEST(TrainConsistency, RelativePositionsMatchCore) {
  ModelConfig enc = small(Arch::EncoderOnly, NormPlace::Pre, PosKind::Relative, Act::Gelu);
  enc.rel_clip = 2;
  check("encoder-only, pre-norm, GELU, relative", enc, {{{}, {5, 7, 4, 9, 11, 6}}, {{}, {8}}, {{}, {10, 11, 5, 4}}});
  ModelConfig dec = small(Arch::DecoderOnly, NormPlace::Post, PosKind::Relative, Act::Relu);
  dec.rel_clip = 2;
  check("decoder-only, post-norm, ReLU, relative", dec, kDecoderSeqs);
}

TEST(TrainConsistency, PositionsNoneMatchesCore) {
  check("decoder-only, no positions", small(Arch::DecoderOnly, NormPlace::Post, PosKind::None, Act::Gelu),
        kDecoderSeqs);
}

// The English models' shape: a head tied to the token embeddings, in a decoder and in a masked-LM
// encoder; the trainer's logits (h tok_emb^T + b) equal the core's.
TEST(TrainConsistency, TiedHeadMatchesCore) {
  ModelConfig dec = small(Arch::DecoderOnly, NormPlace::Pre, PosKind::Learned, Act::Gelu);
  dec.tied_head = true;
  check("decoder-only, pre-norm, GELU, learned, tied head", dec, kDecoderSeqs);
  ModelConfig enc = small(Arch::EncoderOnly, NormPlace::Pre, PosKind::Learned, Act::Gelu);
  enc.tied_head = true;
  check("encoder-only, pre-norm, GELU, learned, tied head", enc, {{{}, {5, 7, 4, 9, 11, 6}}, {{}, {8, 9}}});
}

// The induction view's attention-only models (no FFN, no norm2), pre- and post-norm: the trainer's
// logits equal the core's, and the core's file round trip keeps the flag.
TEST(TrainConsistency, AttentionOnlyMatchesCore) {
  for (NormPlace norm : {NormPlace::Pre, NormPlace::Post}) {
    ModelConfig cfg = small(Arch::DecoderOnly, norm, PosKind::Learned, Act::Gelu);
    cfg.ffn = false;
    SCOPED_TRACE(to_string(norm));
    check("decoder-only, attention-only", cfg, kDecoderSeqs);
  }
  ModelConfig cfg = small(Arch::DecoderOnly, NormPlace::Pre, PosKind::Learned, Act::Gelu);
  cfg.ffn = false;
  Model model(cfg, vocab_of(cfg.vocab_size));
  model.init_random(5);
  EXPECT_EQ(model.named_tensors().size(), 2u + 10u * static_cast<size_t>(cfg.n_layers) + 4u)
      << "tok_emb, pos_emb; per block 8 attention tensors and norm1's 2; final norm 2, lm_head w and b";
  const std::vector<uint8_t> bytes = save_model(model);
  const Model back = load_model(bytes.data(), bytes.size());
  EXPECT_FALSE(back.config().ffn);
  Trace t1, t2;
  model.forward(t1, kDecoderSeqs[0].tgt);
  back.forward(t2, kDecoderSeqs[0].tgt);
  EXPECT_EQ(t1.find("logits")->data, t2.find("logits")->data);
  EXPECT_EQ(t1.find("ffn_out"), nullptr) << "no FFN stage in an attention-only block";
}
