// A training run: a task, the parameters, AdamW, and a step() that draws a batch, runs the
// forward and backward passes and updates the weights; plus greedy decoding and held-out
// evaluation with the same forward. The batch is always split into `shards` parts, a number that
// depends on the batch alone; the core's thread pool (kernels/parallel.hpp) runs the shards, and
// their gradients are summed in shard order, so any number of threads gives the same weights:
// same seed, same machine, same model.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "data/tasks.hpp"
#include "train/adamw.hpp"
#include "train/evaluate.hpp"
#include "train/params.hpp"
#include "train/transformer.hpp"

namespace ap::train {

struct TrainConfig {
  std::string task = "sort";
  std::string data;  // the corpus tasks' data folder (english, english-mlm)
  // Sizes and switches. arch, vocab_size, max_len and tokenizer are taken from the task.
  ModelConfig model;
  OptimConfig optim;
  int batch = 64;     // sequences per step
  uint64_t seed = 1;  // initial weights and the training data stream
  // Threads for the shards: the trainer sets the core's pool to this count when it is made
  // (clamped to the machine's cores; the single-thread wasm modules have 1, the threaded one the
  // count its loader set). The weights do not depend on it.
  int threads = 1;
  int shards = 0;  // parts the batch is split into (fixes the summation order); 0: default_shards(batch)
};

// Sequences per shard by default: small enough that a batch of 32 gives 8 shards for up to 8
// threads, large enough that a shard's products keep some 80 rows (the reverse task's 20-22
// positions a sequence). On one thread, 8 shards at batch 32 took 2 % less CPU a step than 2 (each
// shard is padded to its own longest sequence).
constexpr int kShardSequences = 4;
// ceil(batch / kShardSequences): the default shard count, the batch's alone.
int default_shards(int batch);

class Trainer {
 public:
  explicit Trainer(const TrainConfig& cfg);
  ~Trainer();

  // Fine-tuning: replaces the freshly initialised weights with a trained model's (pre-training
  // done elsewhere, e.g. a shipped model of another task). Only before the first step; the
  // model must have this trainer's architecture, sizes, positions, norm, activation and the
  // task's exact vocabulary, else ap::Error names the first difference. An encoder-only trainer
  // may also start from a decoder-only model (its blocks, final norm and first max_len positions).
  void start_from(const Model& model);

  // One optimisation step on a fresh batch; returns the batch's mean loss.
  float step();
  // n steps (n >= 1, else ap::Error); returns the mean of their losses.
  double steps(int n);
  int steps_done() const { return opt_.steps_taken(); }
  float last_grad_norm() const { return grad_norm_; }
  float current_lr() const;

  const TrainConfig& config() const { return cfg_; }
  const ModelConfig& model_config() const { return params_.cfg; }
  const Task& task() const { return *task_; }
  Params<float>& params() { return params_; }
  const Params<float>& params() const { return params_; }
  // The current weights as an inference model, with what its file records of how to prompt it
  // (metadata "task", and "separator" when the task has one).
  Model snapshot() const;

  // Greedy decoding from the task's prompt for each source text; returns the generated text
  // (up to <eos>, without it). Recomputes the whole prefix at every step. Throws for mlm.
  std::vector<std::string> greedy(const std::vector<std::string>& sources);
  std::vector<std::vector<int>> greedy_ids(const std::vector<std::string>& sources);
  // `n` held-out examples drawn with `seed`: exact match (seq2seq tasks), agreement pairs
  // (grammar) or the top-1 word at the masked position (mlm).
  EvalResult evaluate(int n, uint64_t seed);
  // Mean loss on n held-out examples.
  double heldout_loss(int n, uint64_t seed);

 private:
  struct Shard;
  // Runs fn(t) for t in [0, tasks) (tasks <= shards) on the pool; rethrows the first task's error.
  template <typename Fn>
  void for_each_shard(int tasks, Fn&& fn);
  // Logits at the last real position of each prefix (decoder inputs), for the given sources.
  std::vector<std::vector<float>> last_logits(const std::vector<std::vector<int>>& srcs,
                                              const std::vector<std::vector<int>>& prefixes);

  TrainConfig cfg_;
  std::unique_ptr<Task> task_;
  Params<float> params_;
  Params<float> grads_;
  AdamW opt_;
  Rng data_rng_;
  std::vector<std::unique_ptr<Shard>> shards_;
  float grad_norm_ = 0.0f;
};

// The model config a task needs, from user sizes: arch, vocab, max_len, tokenizer filled in.
ModelConfig task_model_config(const Task& task, ModelConfig sizes);

}  // namespace ap::train
