// The small operations a block is made of, each a free function with outputs first:
// linear, row softmax, LayerNorm, activations, sinusoidal positions, RoPE.
#pragma once
#include <cmath>
#include <limits>

#include "base/tensor.hpp"
#include "core/config.hpp"
#include "core/weight.hpp"

namespace ap {

// ---- one row's formulas -------------------------------------------------------------------
// The single definition of each small formula, used by the layers below (float) and by the
// trainer's forward functions (cpp/train/ops.cpp, float and double), which keep their own
// backward passes.

// Softmax of one row of n scores z into p (p may be z). Subtracts the row max only for numerical
// stability; -inf scores and hidden keys (hidden[j] != 0, if given) get weight 0; a row with
// nothing visible is all zeros (not NaN). Returns the max and the sum of exp(z - max).
template <typename T>
struct SoftmaxSums {
  T max, sum;
};
template <typename T>
SoftmaxSums<T> softmax_row(T* p, const T* z, int n, const unsigned char* hidden = nullptr) {
  const T neg_inf = -std::numeric_limits<T>::infinity();
  T mx = neg_inf;
  for (int j = 0; j < n; ++j)
    if (!(hidden && hidden[j]) && z[j] > mx) mx = z[j];
  T sum = 0;
  if (mx == neg_inf) {  // every key masked: no distribution exists; we define zeros
    for (int j = 0; j < n; ++j) p[j] = 0;
    return {mx, sum};
  }
  for (int j = 0; j < n; ++j) {
    const T e = hidden && hidden[j] ? T(0) : std::exp(z[j] - mx);  // exp(-inf) = 0 too
    p[j] = e;
    sum += e;
  }
  for (int j = 0; j < n; ++j) p[j] /= sum;
  return {mx, sum};
}

// LayerNorm of one row of n values: out = (x - mean) / sigma * gamma + beta, sigma =
// sqrt(var + eps), var biased (divide by n) as torch. Mean and variance in double, two passes
// (no cancellation). Returns mean and sigma.
struct NormStats {
  double mean, sigma;
};
template <typename T>
NormStats layer_norm_row(T* out, const T* x, const T* gamma, const T* beta, int n, double eps) {
  double mu = 0.0;
  for (int j = 0; j < n; ++j) mu += x[j];
  mu /= static_cast<double>(n);
  double var = 0.0;
  for (int j = 0; j < n; ++j) var += (x[j] - mu) * (x[j] - mu);
  var /= static_cast<double>(n);
  const double sigma = std::sqrt(var + eps);
  for (int j = 0; j < n; ++j) out[j] = static_cast<T>((x[j] - mu) / sigma) * gamma[j] + beta[j];
  return {mu, sigma};
}

// RMSNorm of one row of n values (Zhang & Sennrich 2019): out = x / rms * gamma, rms =
// sqrt(mean(x^2) + eps), the mean of squares in double. No mean is subtracted and there is no bias.
// Returns rms.
template <typename T>
double rms_norm_row(T* out, const T* x, const T* gamma, int n, double eps) {
  double ms = 0.0;
  for (int j = 0; j < n; ++j) ms += static_cast<double>(x[j]) * x[j];
  const double rms = std::sqrt(ms / static_cast<double>(n) + eps);
  for (int j = 0; j < n; ++j) out[j] = static_cast<T>(x[j] / rms) * gamma[j];
  return rms;
}

// SiLU (swish), x * sigmoid(x), the gate of SwiGLU, in double.
template <typename T>
T silu(T x) {
  const double v = x;
  return static_cast<T>(v / (1.0 + std::exp(-v)));
}

// GELU, the exact erf form (torch's default), computed in double.
template <typename T>
T gelu(T x) {
  const double v = x;
  return static_cast<T>(0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))));
}

// GPT-2's GELU ("gelu_new"): 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), in float.
inline float gelu_tanh(float x) {
  constexpr float k = 0.7978845608028654f;  // sqrt(2 / pi)
  return 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
}

// Sinusoidal positions: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(same).
inline double sinusoid(double pos, int c, int d) {
  const int two_i = c - (c % 2);  // columns 2i and 2i+1 share a frequency
  const double angle = pos / std::pow(10000.0, static_cast<double>(two_i) / d);
  return c % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

// ---- layers over matrices -----------------------------------------------------------------

// out (n, d_out) = in (n, d_in) W (d_in, d_out) + b (d_out; empty for no bias)
void linear(Mat& out, const Mat& in, const Mat& w, const Vec& b);
// The same with a model's Weight: float32 as above, or its 16-bit values widened inside the kernel
// (kernels::gemm_tiled_f16 / _bf16: bit for bit the tiled kernel on the widened matrix).
void linear(Mat& out, const Mat& in, const Weight& w, const Vec& b);

// Row softmax of `in` into `out` (same shape), softmax_row on each row.
void softmax_rows(MatMap out, const MatMap& in);
void softmax_rows(Mat& out, const Mat& in);

// LayerNorm per row (layer_norm_row). stats (n, 2), if given, receives mean and sigma per row.
void layer_norm(Mat& out, const Mat& in, const Vec& gamma, const Vec& beta, float eps, Mat* stats = nullptr);

// ---- issue 26's parts (core/modern.cpp: built for size in the first module, off the hot paths) ----

// RMSNorm per row (rms_norm_row). rms (n, 1), if given, receives each row's rms.
void rms_norm(Mat& out, const Mat& in, const Vec& gamma, float eps, Mat* rms = nullptr);

// The model's norm: LayerNorm (stats (n, 2): mean, sigma) or RMSNorm (stats (n, 1): rms; beta unused).
// An empty beta is a zero bias (LayerNorm switched onto an RMSNorm model, whose file has no beta).
void apply_norm(Mat& out, const Mat& in, const Vec& gamma, const Vec& beta, NormKind kind, float eps,
                Mat* stats = nullptr);

// A gated FFN's hidden vector: gate = x W_gate, act = SiLU(gate) (SwiGLU) or GELU(gate) (GeGLU),
// up = x W1 + b1, hidden = act * up elementwise (n, d_ff each).
void gated_hidden(Mat& hidden, Mat& gate, Mat& act, Mat& up, const Mat& x, const Weight& w_gate, const Weight& w1,
                  const Vec& b1, FfnKind kind);

// Grouped K/V from a multi-head projection (Ainslie et al. 2023, sec. 2.1): w (d, n_heads d_k) -> out
// (d, n_kv d_k), K/V head g the mean of query heads g*G .. g*G + G - 1 (G = n_heads / n_kv); the bias too
// (empty stays empty).
void pool_kv_heads(Mat& out, Vec& out_b, const Mat& w, const Vec& b, int n_heads, int n_kv);

// ReLU, GELU (gelu above) or GPT-2's tanh GELU (gelu_tanh).
void activation(Mat& out, const Mat& in, Act act);

// PE (rows, d): PE(pos, c) = sinusoid(pos, c, d), pos = offset + row.
void sinusoidal_positions(Mat& pe, int rows, int d, int offset = 0);

// RoPE: in each head's d_k columns, rotate pairs (2i, 2i+1) of row r by angle
// (offset + r) * theta^(-2i/d_k) (theta: ModelConfig::rope_theta, 10000 in the paper). q.k then depends
// only on the offset between positions. Hugging Face's Llama pairs (i, i + d_k/2) instead (rotate_half):
// io/hf_model permutes its Q and K rows at load so that this rotation computes the same scores.
void apply_rope(Mat& x, int n_heads, int offset, double theta);

// Throws ap::Error("<what> contains NaN" / "... Infinity") if any value is not finite.
void check_finite(const float* data, size_t size, const std::string& what);

}  // namespace ap
