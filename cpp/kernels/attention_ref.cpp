// The plain reference versions of the attention kernels (what the tests hold the fast ones equal
// to), and attention through the full (n, m) matrix built from the fast pieces.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/attention.hpp"

namespace ap::kernels {

void qk_scores_ref(float* scores, int ld_s, const float* q, int ld_q, const float* k, int ld_k,
                   int n, int m, int d_k, float alpha) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      float s = 0.0f;
      for (int p = 0; p < d_k; ++p) s += q[i * ld_q + p] * k[j * ld_k + p];
      scores[i * ld_s + j] = alpha * s;
    }
}

void softmax_rows_ref(float* out, int ld_out, const float* in, int ld_in, int n, int m) {
  for (int i = 0; i < n; ++i) {
    const float* x = in + i * ld_in;
    float* y = out + i * ld_out;
    float mx = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < m; ++j) mx = std::max(mx, x[j]);
    if (std::isinf(mx) && mx < 0) {  // fully masked row: zero weights by definition
      for (int j = 0; j < m; ++j) y[j] = 0.0f;
      continue;
    }
    float sum = 0.0f;
    for (int j = 0; j < m; ++j) sum += (y[j] = std::exp(x[j] - mx));
    for (int j = 0; j < m; ++j) y[j] /= sum;
  }
}

void weights_v_ref(float* out, int ld_out, const float* weights, int ld_w, const float* v, int ld_v,
                   int n, int m, int d_k) {
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < d_k; ++c) {
      float s = 0.0f;
      for (int j = 0; j < m; ++j) s += weights[i * ld_w + j] * v[j * ld_v + c];
      out[i * ld_out + c] = s;
    }
}

void attention_forward_ref(float* out, const float* q, const float* k, const float* v, int n, int m,
                           int d_k, int n_heads, bool causal, bool scale) {
  const int ld = n_heads * d_k;
  const double alpha = scale ? 1.0 / std::sqrt(static_cast<double>(d_k)) : 1.0;
  std::vector<double> s(m > 0 ? m : 1);  // one row of scores, then of weights
  for (int h = 0; h < n_heads; ++h)
    for (int i = 0; i < n; ++i) {
      int visible = causal ? std::min(m, std::max(0, i + (m - n) + 1)) : m;  // keys j < visible
      double mx = -std::numeric_limits<double>::infinity();
      for (int j = 0; j < visible; ++j) {
        double dot = 0.0;
        for (int p = 0; p < d_k; ++p)
          dot += static_cast<double>(q[i * ld + h * d_k + p]) * k[j * ld + h * d_k + p];
        s[j] = alpha * dot;
        mx = std::max(mx, s[j]);
      }
      double sum = 0.0;
      for (int j = 0; j < visible; ++j) sum += (s[j] = std::exp(s[j] - mx));
      for (int c = 0; c < d_k; ++c) {
        double acc = 0.0;
        for (int j = 0; j < visible; ++j) acc += s[j] * v[j * ld + h * d_k + c];
        out[i * ld + h * d_k + c] = visible > 0 ? static_cast<float>(acc / sum) : 0.0f;
      }
    }
}

void attention_forward_full(float* out, const float* q, const float* k, const float* v, int n,
                            int m, int d_k, int n_heads, bool causal, bool scale) {
  if (n <= 0 || d_k <= 0 || n_heads <= 0) return;
  const int ld = n_heads * d_k;
  const float alpha = scale ? 1.0f / std::sqrt(static_cast<float>(d_k)) : 1.0f;
  std::vector<float> weights(static_cast<size_t>(n) * (m > 0 ? m : 1));  // (n, m), reused per head
  for (int h = 0; h < n_heads; ++h) {
    const int col = h * d_k;
    qk_scores(weights.data(), m, q + col, ld, k + col, ld, n, m, d_k, alpha);  // (n, m) = Q_h K_h^T
    if (causal) mask_causal(weights.data(), m, n, m);
    softmax_rows(weights.data(), m, weights.data(), m, n, m);  // in place: rows are independent
    weights_v(out + col, ld, weights.data(), m, v + col, ld, n, m, d_k);  // (n, d_k) = (n, m)(m, d_k)
  }
}

}  // namespace ap::kernels
