// The small operations a block is made of, each a free function with outputs first:
// linear, row softmax, LayerNorm, activations, sinusoidal positions, RoPE.
#pragma once
#include "core/config.hpp"
#include "core/tensor.hpp"

namespace ap {

// out (n, d_out) = in (n, d_in) W (d_in, d_out) + b (d_out; empty for no bias)
void linear(Mat& out, const Mat& in, const Mat& w, const Vec& b);

// Row softmax of `in` into `out` (same shape). Subtracts the row max only for numerical
// stability; -inf entries get weight 0; a row that is entirely -inf gets all zeros (not NaN).
void softmax_rows(MatMap out, const MatMap& in);
void softmax_rows(Mat& out, const Mat& in);

// LayerNorm per row: (x - mu) / sqrt(var + eps) * gamma + beta, var biased (divide by d) as torch.
// stats (n, 2), if given, receives mu and sqrt(var + eps) for each row.
void layer_norm(Mat& out, const Mat& in, const Vec& gamma, const Vec& beta, float eps, Mat* stats = nullptr);

// ReLU or GELU (exact erf form, torch's default).
void activation(Mat& out, const Mat& in, Act act);
float gelu(float x);

// PE (rows, d): PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)),
// pos = offset + row.
void sinusoidal_positions(Mat& pe, int rows, int d, int offset = 0);

// RoPE: in each head's d_k columns, rotate pairs (2i, 2i+1) of row r by angle
// (offset + r) * 10000^(-2i/d_k). q.k then depends only on the offset between positions.
void apply_rope(Mat& x, int n_heads, int offset);

// Throws ap::Error("<what> contains NaN" / "... Infinity") if any value is not finite.
void check_finite(const float* data, size_t size, const std::string& what);

}  // namespace ap
