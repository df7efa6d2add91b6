// AdamW (decoupled weight decay, Loshchilov & Hutter) over the flat parameter buffer, the
// learning-rate schedule (linear warm-up, then cosine decay to a floor) and global-norm
// gradient clipping. Weight decay touches only the tensors marked `decay` (the matrices),
// never biases, LayerNorm or embeddings.
#pragma once
#include <vector>
#include "train/params.hpp"

namespace ap::train {

// The relative-position biases learn this many times faster than the other weights. Adam moves
// each weight by about lr per step, and a head that picks out one neighbour needs biases a few
// nats apart: at lr 1e-3 that took thousands of steps, during which a masked LM stayed at a bag
// of words' loss. (They are 68 numbers, each the sum of a gradient over every query and key.)
constexpr float kRelBiasLrScale = 30.0f;

struct OptimConfig {
  float lr = 1e-3f;  // peak learning rate
  float beta1 = 0.9f, beta2 = 0.98f;
  float eps = 1e-8f;
  float weight_decay = 0.01f;
  int warmup_steps = 100;  // linear from lr/warmup to lr
  int total_steps = 1000;  // cosine from lr (end of warm-up) to min_lr_ratio * lr here
  float min_lr_ratio = 0.1f;
  float clip_norm = 1.0f;  // global gradient norm cap; <= 0 disables clipping
};

// Throws ap::Error naming a setting out of range (lr <= 0 or not finite, warm-up < 0, total < 1).
void check_optim(const OptimConfig& c);

// The learning rate at step (0-based).
float learning_rate(const OptimConfig& c, int step);

// Scales g so that its global L2 norm is at most max_norm; returns the norm before clipping.
float clip_grad_norm(std::vector<float>& g, float max_norm);

class AdamW {
 public:
  explicit AdamW(const Params<float>& p);
  // For a model outside Params (the RNN encoder-decoder): decay[i] = 1 where weight decay applies.
  explicit AdamW(std::vector<float> decay);
  // One update of p with gradient g at learning rate lr (the step counter is internal).
  void step(Params<float>& p, const Params<float>& g, const OptimConfig& c, float lr);
  // The same over raw buffers of decay.size() weights.
  void step(float* w, const float* grad, const OptimConfig& c, float lr);
  int steps_taken() const { return t_; }

 private:
  std::vector<float> m_, v_;  // first and second moment estimates, same layout as p
  std::vector<float> decay_;  // 1 where weight decay applies
  std::vector<float> scale_;  // the learning rate's multiplier per weight (1 but for the relative biases)
  int t_ = 0;
};

}  // namespace ap::train
