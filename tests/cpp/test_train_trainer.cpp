// The training loop: same seed, same weights (for any thread count); training lowers the
// held-out loss; and the trainer's own greedy evaluation agrees with the inference core's
// evaluation of the saved-and-reloaded model, example for example.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>

#include "core/model.hpp"
#include "helpers.hpp"
#include "io/model_io.hpp"
#include "kernels/parallel.hpp"
#include "train/evaluate.hpp"
#include "train/trainer.hpp"

using namespace ap;
using namespace ap::train;

namespace {

TrainConfig small(const char* task, int threads, uint64_t seed = 3) {
  TrainConfig c;
  c.task = task;
  c.model.d_model = 16;
  c.model.n_heads = 2;
  c.model.n_layers = 1;
  c.model.d_ff = 32;
  c.model.pos = PosKind::Learned;
  c.model.act = Act::Gelu;
  c.batch = 16;
  c.seed = seed;
  c.threads = threads;
  c.optim.lr = 3e-3f;
  c.optim.warmup_steps = 5;
  c.optim.total_steps = 100;
  return c;
}

// Trains t for `steps` steps; returns the held-out loss (200 examples, seed 11) before and after.
// Untrained, the output distribution is near uniform over the vocabulary: loss ~ log V.
std::pair<double, double> train_measuring_heldout_loss(Trainer& t, int steps, const char* what) {
  const double before = t.heldout_loss(200, 11);
  EXPECT_NEAR(before, std::log(static_cast<double>(t.model_config().vocab_size)), 1.0);
  for (int s = 0; s < steps; ++s) t.step();
  const double after = t.heldout_loss(200, 11);
  std::printf("  %s, %d steps: held-out loss %.3f -> %.3f\n", what, steps, before, after);
  return {before, after};
}

// The trainer's weights as the inference core sees them: copied into a Model, saved to a
// model file and loaded back.
Model saved_and_reloaded(const Trainer& t) {
  Model model(t.model_config(), t.task().tokenizer());
  params_to_model(model.weights(), t.params());
  const std::vector<uint8_t> bytes = save_model(model);
  return load_model(bytes.data(), bytes.size());
}

}  // namespace

TEST(TrainTrainer, SameSeedSameWeights) {
  for (const char* task : {"sort", "dates", "mlm"}) {
    SCOPED_TRACE(task);
    Trainer a(small(task, 1)), b(small(task, 1)), d(small(task, 1, 4));
    for (int s = 0; s < 3; ++s) {
      const float la = a.step(), lb = b.step();
      d.step();
      EXPECT_EQ(la, lb);
    }
    EXPECT_EQ(a.params().flat, b.params().flat);
    EXPECT_NE(a.params().flat, d.params().flat) << "another seed, other weights";
  }
}

// The batch's shards on the core's pool (kernels/parallel.hpp) at 1, 2 and 3 threads: the same
// losses and the same weights, bit for bit, after 4 steps, for a decoder (reverse), an
// encoder-decoder (dates) and an encoder (mlm), with GELU and with ReLU. (On a machine with fewer
// cores the pool clamps the count; the message says how many ran.)
TEST(TrainTrainer, ShardsOnOneTwoOrThreeThreadsGiveTheSameBits) {
  for (const char* task : {"reverse", "dates", "mlm"})
    for (Act act : {Act::Gelu, Act::Relu}) {
      SCOPED_TRACE(std::string(task) + (act == Act::Gelu ? " gelu" : " relu"));
      std::vector<float> one_losses, one_weights;
      for (int threads : {1, 2, 3}) {
        TrainConfig c = small(task, threads);
        c.model.act = act;
        c.batch = 24;  // 6 shards of 4 sequences
        Trainer t(c);
        EXPECT_EQ(t.config().shards, 6);
        const int used = kernels::threads();
        EXPECT_EQ(used, std::min(threads, kernels::max_threads()));
        std::vector<float> losses;
        for (int s = 0; s < 4; ++s) losses.push_back(t.step());
        if (threads == 1) {
          one_losses = losses;
          one_weights = t.params().flat;
          continue;
        }
        EXPECT_EQ(losses, one_losses) << used << " threads";
        EXPECT_EQ(std::memcmp(t.params().flat.data(), one_weights.data(), one_weights.size() * sizeof(float)), 0)
            << used << " threads: other weights than 1 thread";
      }
    }
  kernels::set_threads(1);
}

// Shards split a sum: one shard or six give the same steps up to float rounding: each step's mean
// loss, and the norm of the summed gradient before clipping. (Not the weights: AdamW's first steps
// move a weight by about lr g / |g|, so a gradient that is 0 up to rounding moves it by a whole lr
// either way.)
TEST(TrainTrainer, ShardCountChangesOnlyTheRounding) {
  TrainConfig c = small("reverse", 1);
  c.batch = 24;
  c.shards = 1;
  Trainer whole(c);
  c.shards = 6;
  Trainer split(c);
  for (int s = 0; s < 3; ++s) {
    EXPECT_NEAR(whole.step(), split.step(), 1e-5);
    EXPECT_NEAR(whole.last_grad_norm(), split.last_grad_norm(), 1e-5 * whole.last_grad_norm());
  }
}

TEST(TrainTrainer, TrainingLowersTheHeldOutLoss) {
  TrainConfig c = small("reverse", 1);
  c.optim.total_steps = 200;
  Trainer t(c);
  const auto [before, after] = train_measuring_heldout_loss(t, 200, "reverse");
  EXPECT_LT(after, before - 0.5);
}

TEST(TrainTrainer, TrainerAndInferenceCoreEvaluateAlike) {
  for (const char* task : {"sort", "dates", "grammar"}) {
    SCOPED_TRACE(task);
    Trainer t(small(task, 1));
    for (int s = 0; s < 60; ++s) t.step();
    const Model reloaded = saved_and_reloaded(t);
    const EvalResult ours = t.evaluate(40, 5), core = evaluate_model(reloaded, t.task(), 40, 5);
    std::printf("  %s after 60 steps: trainer %d/%d, core %d/%d\n", task, ours.correct, ours.total, core.correct,
                core.total);
    EXPECT_EQ(ours.total, 40);
    EXPECT_EQ(ours.correct, core.correct);
    EXPECT_EQ(ours.by_kind, core.by_kind);
    // Token for token, right or wrong, greedy decoding gives the same output in both.
    Rng rng(6);
    std::vector<std::string> sources;
    for (int i = 0; i < 20; ++i) sources.push_back(t.task().sample(rng, Split::HeldOut).src);
    const auto generated = t.greedy_ids(sources);
    for (size_t i = 0; i < sources.size(); ++i)
      EXPECT_EQ(generated[i], core_greedy(reloaded, t.task(), sources[i])) << "source \"" << sources[i] << "\"";
    std::printf("    e.g. \"%s\" -> \"%s\"\n", sources[0].c_str(), t.task().tokenizer().decode(generated[0]).c_str());
  }
}

// induction: held-out accuracy and loss per kind of target. The losses per kind add up to the
// loss the training forward computes on the same examples, the trainer and the core agree on
// every kind's accuracy, and after 30 steps the first pass's loss is near ln 26 (a guess among
// 26 equally likely letters: the best anything can do there).
TEST(TrainTrainer, InductionReportsLossAndAccuracyPerKindOfTarget) {
  TrainConfig c = small("induction", 1);
  c.model.ffn = false;
  Trainer t(c);
  for (int s = 0; s < 30; ++s) t.step();
  const EvalResult r = t.evaluate(40, 5);
  ASSERT_EQ(r.by_kind.size(), 2u);
  EXPECT_EQ(r.by_kind.at("first pass").second, r.by_kind.at("repeat").second) << "one repeat letter per first-pass one";
  EXPECT_EQ(r.total, 2 * r.by_kind.at("repeat").second);
  double sum = 0;
  for (const auto& [kind, nll] : r.nll) sum += nll;
  EXPECT_NEAR(sum / r.total, t.heldout_loss(40, 5), 1e-4);
  const double half = r.total / 2.0;
  const double first = r.nll.at("first pass") / half;
  std::printf("  induction, 30 steps: first pass %.3f, repeat %.3f nats\n", first, r.nll.at("repeat") / half);
  EXPECT_NEAR(first, std::log(26.0), 0.3);
  const Model reloaded = saved_and_reloaded(t);
  EXPECT_EQ(r.by_kind, evaluate_model(reloaded, t.task(), 40, 5).by_kind);
}

// The masked LM (encoder-only): training lowers the held-out loss at the masked positions, the
// trainer's top-1 evaluation agrees with the core's on the saved file example for example, and
// neither pretends to generate.
TEST(TrainTrainer, MaskedLanguageModelTrainsAndEvaluatesLikeTheCore) {
  TrainConfig c = small("mlm", 1);
  c.model.d_model = 32;
  c.model.d_ff = 64;
  c.optim.total_steps = 400;
  Trainer t(c);
  EXPECT_EQ(t.model_config().arch, Arch::EncoderOnly);
  const auto [before, after] = train_measuring_heldout_loss(t, 400, "mlm");
  EXPECT_LT(after, before - 1.0);

  const Model reloaded = saved_and_reloaded(t);
  const EvalResult ours = t.evaluate(300, 5), core = evaluate_model(reloaded, t.task(), 300, 5);
  std::printf("  mlm after 400 steps: top-1 trainer %d/%d, core %d/%d\n", ours.correct, ours.total, core.correct,
              core.total);
  EXPECT_EQ(ours.total, 300);
  EXPECT_EQ(ours.by_kind, core.by_kind);
  Trainer fresh(c);
  const int untrained = fresh.evaluate(300, 5).correct;
  EXPECT_GT(ours.correct, untrained + 15) << "better than the untrained model (" << untrained << ")";
  EXPECT_THROW(t.greedy({""}), Error);
  EXPECT_THROW(core_greedy(reloaded, t.task(), ""), Error);
}

TEST(TrainTrainer, BadSettingsAreErrors) {
  TrainConfig c = small("sort", 1);
  c.batch = 0;
  EXPECT_THROW(Trainer{c}, Error);
  c = small("sort", 1);
  c.model.pos = PosKind::Rope;
  EXPECT_THROW(Trainer{c}, Error);
  c = small("sort", 1);
  c.model.d_model = 15;  // not divisible by 2 heads
  EXPECT_THROW(Trainer{c}, Error);
  c = small("spelling", 1);
  EXPECT_THROW(Trainer{c}, Error);
}

TEST(TrainTrainer, StepsTakesNStepsAndReturnsTheirMeanLoss) {
  Trainer a(small("reverse", 1)), b(small("reverse", 1));
  EXPECT_EQ(aptest::error_of([&] { a.steps(0); }), "step(n) needs n >= 1");
  EXPECT_EQ(a.steps_done(), 0);  // the refused call took no step
  // Same seed, same batches: three single steps of b are the three steps of a.
  const double l1 = b.step(), l2 = b.step(), l3 = b.step();
  EXPECT_DOUBLE_EQ(a.steps(3), (l1 + l2 + l3) / 3);
  EXPECT_EQ(a.steps_done(), 3);
}
