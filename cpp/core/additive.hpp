// Attention before transformers, and attention in general.
// Bahdanau (additive): e_tj = v^T tanh(W_s s_t + W_h h_j); alpha_t = softmax_j(e_t); c_t = sum_j alpha_tj h_j.
// The general form (notes 003): e = g(q, k); alpha = softmax(e); a = sum_i alpha_i v_i, with g a dot
// product, a scaled dot product or the additive score; a hard lookup takes the argmax instead.
#pragma once
#include <cstdint>
#include "base/tensor.hpp"
#include "trace/trace.hpp"

namespace ap {

struct AdditiveWeights {
  Mat ws;  // (d_s, d_a)
  Mat wh;  // (d_h, d_a)
  Vec v;   // (d_a)
};

AdditiveWeights additive_random(int d_s, int d_h, int d_a, uint64_t seed);

// Records add_s (n, d_a) = s W_s, add_h (m, d_a) = h W_h, add_scores (1, n, m) = e,
// add_weights (1, n, m) = softmax rows, add_context (n, d_h) = weights h.
void additive_attention(Trace& trace, const Mat& s, const Mat& h, const AdditiveWeights& w);

enum class ScoreFn { Dot, ScaledDot, Additive };
ScoreFn score_fn_from_string(const std::string& name);

// Records scores (1, n, m) = g(q_i, k_j), weights (1, n, m) (softmax rows, or one-hot argmax
// when hard), out (n, d_v) = weights V. `additive` is required for ScoreFn::Additive. `causal`
// (self-attention of a decoder: n == m) also records masked (1, n, m), the scores with -inf where
// key j comes after query i, and the weights are taken from it, as a decoder's attention does.
void lookup(Trace& trace, const Mat& q, const Mat& k, const Mat& v, ScoreFn fn, bool hard,
            const AdditiveWeights* additive, bool causal = false);

}  // namespace ap
