// The plain reference versions of the attention kernels (what the tests hold the fast ones equal
// to), and attention through the full (n, m) matrix built from the fast pieces.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/attention.hpp"
#include "kernels/convert.hpp"

#if defined(__EMSCRIPTEN__) || defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ap::kernels {

namespace {

// Bytes the allocator has handed out and not yet had back; -1 where the C library cannot say.
double heap_in_use() {
#if defined(__EMSCRIPTEN__)
  return static_cast<double>(mallinfo().uordblks);
#elif defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  return static_cast<double>(mallinfo2().uordblks);
#else
  return -1.0;
#endif
}

// attention_forward_full; with `heap_before` >= 0, returns the heap in use at its peak minus that.
double attention_full(float* out, const float* q, const float* k, const float* v, int n, int m, int d_k, int n_heads,
                      bool causal, bool scale, int window, double heap_before) {
  if (n <= 0 || d_k <= 0 || n_heads <= 0) return 0.0;
  const int ld = n_heads * d_k;
  const float alpha = scale ? 1.0f / std::sqrt(static_cast<float>(d_k)) : 1.0f;
  std::vector<float> weights(static_cast<size_t>(n) * (m > 0 ? m : 1));  // (n, m), reused per head
  // The peak: nothing below allocates.
  const double held = heap_before >= 0.0 ? heap_in_use() - heap_before : -1.0;
  for (int h = 0; h < n_heads; ++h) {
    const int col = h * d_k;
    qk_scores(weights.data(), m, q + col, ld, k + col, ld, n, m, d_k, alpha);  // (n, m) = Q_h K_h^T
    if (causal) mask_causal(weights.data(), m, n, m, window);
    softmax_rows(weights.data(), m, weights.data(), m, n, m);             // in place: rows are independent
    weights_v(out + col, ld, weights.data(), m, v + col, ld, n, m, d_k);  // (n, d_k) = (n, m)(m, d_k)
  }
  return held;
}

}  // namespace

void qk_scores_ref(float* scores, int ld_s, const float* q, int ld_q, const float* k, int ld_k, int n, int m, int d_k,
                   float alpha) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      float s = 0.0f;
      for (int p = 0; p < d_k; ++p) s += q[i * ld_q + p] * k[j * ld_k + p];
      scores[i * ld_s + j] = alpha * s;
    }
}

namespace {
template <typename K, typename Widen>
void qk_scores_ref_16(float* scores, int ld_s, const float* q, int ld_q, const K* k, int ld_k, int n, int m, int d_k,
                      float alpha, Widen widen) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < m; ++j) {
      float s = 0.0f;
      for (int p = 0; p < d_k; ++p) s += q[i * ld_q + p] * widen(k[j * ld_k + p]);
      scores[i * ld_s + j] = alpha * s;
    }
}
}  // namespace

void qk_scores_ref_f16(float* scores, int ld_s, const float* q, int ld_q, const f16* k, int ld_k, int n, int m, int d_k,
                       float alpha) {
  qk_scores_ref_16(scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha, [](f16 h) { return half_to_float(h.bits); });
}
void qk_scores_ref_bf16(float* scores, int ld_s, const float* q, int ld_q, const bf16* k, int ld_k, int n, int m,
                        int d_k, float alpha) {
  qk_scores_ref_16(scores, ld_s, q, ld_q, k, ld_k, n, m, d_k, alpha, [](bf16 h) { return bf16_to_float(h); });
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

void weights_v_ref(float* out, int ld_out, const float* weights, int ld_w, const float* v, int ld_v, int n, int m,
                   int d_k) {
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < d_k; ++c) {
      float s = 0.0f;
      for (int j = 0; j < m; ++j) s += weights[i * ld_w + j] * v[j * ld_v + c];
      out[i * ld_out + c] = s;
    }
}

void attention_forward_ref(float* out, const float* q, const float* k, const float* v, int n, int m, int d_k,
                           int n_heads, bool causal, bool scale, int window) {
  const int ld = n_heads * d_k;
  const double alpha = scale ? 1.0 / std::sqrt(static_cast<double>(d_k)) : 1.0;
  std::vector<double> s(m > 0 ? m : 1);  // one row of scores, then of weights
  for (int h = 0; h < n_heads; ++h)
    for (int i = 0; i < n; ++i) {
      int visible = causal ? std::min(m, std::max(0, i + (m - n) + 1)) : m;  // keys j < visible
      // With a window: keys j > i + (m - n) - window only, i.e. j >= first.
      const int first = causal && window > 0 ? std::min(visible, std::max(0, i + (m - n) - window + 1)) : 0;
      double mx = -std::numeric_limits<double>::infinity();
      for (int j = first; j < visible; ++j) {
        double dot = 0.0;
        for (int p = 0; p < d_k; ++p) dot += static_cast<double>(q[i * ld + h * d_k + p]) * k[j * ld + h * d_k + p];
        s[j] = alpha * dot;
        mx = std::max(mx, s[j]);
      }
      double sum = 0.0;
      for (int j = first; j < visible; ++j) sum += (s[j] = std::exp(s[j] - mx));
      for (int c = 0; c < d_k; ++c) {
        double acc = 0.0;
        for (int j = first; j < visible; ++j) acc += s[j] * v[j * ld + h * d_k + c];
        out[i * ld + h * d_k + c] = visible > first ? static_cast<float>(acc / sum) : 0.0f;
      }
    }
}

void attention_forward_full(float* out, const float* q, const float* k, const float* v, int n, int m, int d_k,
                            int n_heads, bool causal, bool scale, int window) {
  attention_full(out, q, k, v, n, m, d_k, n_heads, causal, scale, window, -1.0);
}

double attention_forward_full_measured(float* out, const float* q, const float* k, const float* v, int n, int m,
                                       int d_k, int n_heads, bool causal, bool scale, int window) {
  const double before = heap_in_use();
  return attention_full(out, q, k, v, n, m, d_k, n_heads, causal, scale, window, before);
}

int online_softmax_steps(float* steps, float* out, float* scores, const float* q, const float* k, const float* v, int m,
                         int d_k, int tile, bool scale) {
  const float alpha = scale ? 1.0f / std::sqrt(static_cast<float>(d_k)) : 1.0f;
  for (int j = 0; j < m; ++j) {  // s_j = alpha q . k_j
    float dot = 0.0f;
    for (int p = 0; p < d_k; ++p) dot += q[p] * k[j * d_k + p];
    scores[j] = alpha * dot;
  }
  const int width = 6 + d_k;
  float m_run = -std::numeric_limits<float>::infinity(), l_run = 0.0f;
  std::vector<float> o(d_k, 0.0f);  // running output, unnormalised
  int b = 0;
  for (int j0 = 0; j0 < m; j0 += tile, ++b) {
    const int j1 = std::min(m, j0 + tile);
    float tile_max = -std::numeric_limits<float>::infinity();
    for (int j = j0; j < j1; ++j) tile_max = std::max(tile_max, scores[j]);
    const float m_new = std::max(m_run, tile_max);
    // Everything summed so far was e^(s - m_run): bring it to the new max (e^-inf = 0 at first).
    const float corr = m_run == m_new ? 1.0f : std::exp(m_run - m_new);
    l_run *= corr;
    for (float& x : o) x *= corr;
    for (int j = j0; j < j1; ++j) {
      const float p = std::exp(scores[j] - m_new);  // <= 1: never overflows
      l_run += p;
      for (int c = 0; c < d_k; ++c) o[c] += p * v[j * d_k + c];
    }
    m_run = m_new;
    float* row = steps + static_cast<long>(b) * width;
    row[0] = static_cast<float>(j0);
    row[1] = static_cast<float>(j1);
    row[2] = tile_max;
    row[3] = m_run;
    row[4] = corr;
    row[5] = l_run;
    for (int c = 0; c < d_k; ++c) row[6 + c] = o[c];
  }
  for (int c = 0; c < d_k; ++c) out[c] = l_run > 0.0f ? o[c] / l_run : 0.0f;
  return b;
}

}  // namespace ap::kernels
