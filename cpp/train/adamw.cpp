// AdamW, its schedule and gradient clipping (see adamw.hpp).
#include "train/adamw.hpp"

#include <cmath>
#include <sstream>
#include <string>
#include <utility>

#include "base/tensor.hpp"

namespace ap::train {

void check_optim(const OptimConfig& c) {
  if (!(c.lr > 0.0f) || !std::isfinite(c.lr)) {
    std::ostringstream got;
    got << c.lr;
    fail("lr must be a finite number > 0 (got " + got.str() + ")");
  }
  if (c.warmup_steps < 0) fail("warmupSteps must be >= 0 (got " + std::to_string(c.warmup_steps) + ")");
  if (c.total_steps < 1) fail("totalSteps must be >= 1 (got " + std::to_string(c.total_steps) + ")");
}

float learning_rate(const OptimConfig& c, int step) {
  if (step < c.warmup_steps) return c.lr * static_cast<float>(step + 1) / static_cast<float>(c.warmup_steps);
  const int decay_steps = c.total_steps - c.warmup_steps;
  if (decay_steps <= 0) return c.lr;
  const double progress = std::min(1.0, static_cast<double>(step - c.warmup_steps) / decay_steps);
  const double cosine = 0.5 * (1.0 + std::cos(3.14159265358979323846 * progress));  // 1 -> 0
  return static_cast<float>(c.lr * (c.min_lr_ratio + (1.0 - c.min_lr_ratio) * cosine));
}

float clip_grad_norm(std::vector<float>& g, float max_norm) {
  double sq = 0.0;
  for (float x : g) sq += static_cast<double>(x) * x;
  const float norm = static_cast<float>(std::sqrt(sq));
  if (max_norm > 0.0f && norm > max_norm) {
    const float s = max_norm / (norm + 1e-6f);
    for (float& x : g) x *= s;
  }
  return norm;
}

AdamW::AdamW(const Params<float>& p)
    : m_(p.size(), 0.0f), v_(p.size(), 0.0f), decay_(p.size(), 0.0f), scale_(p.size(), 1.0f) {
  for (const auto& t : p.tensors) {
    const auto from = static_cast<std::ptrdiff_t>(t.offset), to = static_cast<std::ptrdiff_t>(t.offset + t.size);
    if (t.decay) std::fill(decay_.begin() + from, decay_.begin() + to, 1.0f);
    if (t.name == "rel_bias") std::fill(scale_.begin() + from, scale_.begin() + to, kRelBiasLrScale);
  }
}

AdamW::AdamW(std::vector<float> decay)
    : m_(decay.size(), 0.0f), v_(decay.size(), 0.0f), decay_(std::move(decay)), scale_(decay_.size(), 1.0f) {}

void AdamW::step(Params<float>& p, const Params<float>& g, const OptimConfig& c, float lr) {
  step(p.flat.data(), g.flat.data(), c, lr);
}

void AdamW::step(float* w, const float* grad, const OptimConfig& c, float lr) {
  ++t_;
  const float bc1 = 1.0f - std::pow(c.beta1, static_cast<float>(t_));  // bias corrections
  const float bc2 = 1.0f - std::pow(c.beta2, static_cast<float>(t_));
  for (size_t i = 0; i < m_.size(); ++i) {
    m_[i] = c.beta1 * m_[i] + (1.0f - c.beta1) * grad[i];
    v_[i] = c.beta2 * v_[i] + (1.0f - c.beta2) * grad[i] * grad[i];
    const float m_hat = m_[i] / bc1, v_hat = v_[i] / bc2;
    // Decoupled decay: shrink the weight directly, not through the gradient.
    w[i] -= lr * scale_[i] * (m_hat / (std::sqrt(v_hat) + c.eps) + c.weight_decay * decay_[i] * w[i]);
  }
}

}  // namespace ap::train
