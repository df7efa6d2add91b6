// Why attention: an Elman RNN run on the same tokens, for the rnn-chain and rnn-vanishing views.
//   pre_t = x_t W_xh + h_{t-1} W_hh + b;  h_t = tanh(pre_t);  h_0 = 0
// and the norm of the Jacobian d h_T / d h_t for every t: how much of token t's state still
// reaches the last step. Attention reaches every token in one hop instead.
#pragma once
#include <cstdint>
#include "base/tensor.hpp"
#include "trace/trace.hpp"

namespace ap {

struct RnnWeights {
  Mat wxh;  // (d_in, d_h)
  Mat whh;  // (d_h, d_h)
  Vec b;    // (d_h)
};

// Seeded weights; W_hh rescaled so its spectral radius (largest |eigenvalue|) is `spectral_radius`.
RnnWeights rnn_random(int d_in, int d_h, float spectral_radius, uint64_t seed);

// Largest |eigenvalue| of a square matrix.
float spectral_radius(const Mat& w);

// Records rnn_pre (n, d_h), rnn_h (n, d_h) and rnn_grad_norm (n): ||d h_{n-1} / d h_t||_2
// (spectral norm of the Jacobian, 1 for t = n-1), computed by multiplying the step Jacobians
// diag(1 - h_k^2) W_hh^T backwards.
void rnn_forward(Trace& trace, const Mat& x, const RnnWeights& w);

}  // namespace ap
