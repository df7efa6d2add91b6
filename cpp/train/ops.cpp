// The layers of ops.hpp. Matrix products go through Eigen maps over the flat buffers (in wasm, the
// core's SIMD kernel: see "the products" below);
// the loops that remain are the elementwise parts, written as the formulas.
#include "train/ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include <Eigen/Dense>

#include "core/layers.hpp"
#include "kernels/gemm.hpp"

namespace ap::train {

// ---- the products of the linear layers and heads -----------------------------------------------
//
// Eigen 3.4 has no WebAssembly SIMD: in the wasm build its products are scalar (a 1 x 4 register
// block) and were half of a training step there. So in wasm a float product runs the core's own
// SIMD128 kernel (kernels::gemm_tiled, the one every forward pass uses), an operand that is used
// transposed copied once into a scratch buffer. Natively, and in double (the gradient checks),
// Eigen's products stay: the shipped models are trained natively and keep their exact bits.
namespace {

#if defined(__wasm_simd128__)
constexpr bool kSimdProducts = true;
#else
constexpr bool kSimdProducts = false;
#endif

// (cols, rows) = src (rows, cols; row stride ld, cols when 0) transposed, in a scratch buffer that
// lives until the next call with the same slot.
[[maybe_unused]] const float* transposed(const float* src, int rows, int cols, int slot, int ld = 0) {
  thread_local std::vector<float> scratch[2];
  std::vector<float>& t = scratch[slot];
  if (ld == 0) ld = cols;
  t.resize(static_cast<size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) t[static_cast<size_t>(c) * rows + r] = src[static_cast<size_t>(r) * ld + c];
  return t.data();
}

// c (m, n) = a (m, k) b (k, n) [+ bias], or c += a b when accumulate; all row-major, dense.
[[maybe_unused]] void product(float* c, const float* a, const float* b, const float* bias, int m, int k, int n,
                              bool accumulate) {
  kernels::gemm_tiled(c, n, a, k, b, n, bias, m, k, n, accumulate);
}

}  // namespace

// ---- embeddings and positions ------------------------------------------------------------

template <typename T>
void embed_forward(T* out, const int* ids, const T* tok_emb, const T* pos_emb, const T* pe, int B, int T_, int d) {
  const T* pos = pos_emb ? pos_emb : pe;  // both (L, d) tables indexed by position
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T_; ++t) {
      T* o = out + (static_cast<size_t>(b) * T_ + t) * d;
      const T* e = tok_emb + static_cast<size_t>(ids[b * T_ + t]) * d;
      for (int i = 0; i < d; ++i) o[i] = e[i] + (pos ? pos[static_cast<size_t>(t) * d + i] : T(0));
    }
}

template <typename T>
void embed_backward(T* dtok_emb, T* dpos_emb, const T* dout, const int* ids, int B, int T_, int d) {
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T_; ++t) {
      const T* g = dout + (static_cast<size_t>(b) * T_ + t) * d;
      T* de = dtok_emb + static_cast<size_t>(ids[b * T_ + t]) * d;
      for (int i = 0; i < d; ++i) de[i] += g[i];
      if (dpos_emb)
        for (int i = 0; i < d; ++i) dpos_emb[static_cast<size_t>(t) * d + i] += g[i];
    }
}

// ---- linear ---------------------------------------------------------------------------------

template <typename T>
void linear_forward(T* out, const T* inp, const T* w, const T* b, int N, int C, int OC) {
  if constexpr (kSimdProducts && std::is_same_v<T, float>) {
    product(out, inp, w, b, N, C, OC, false);  // (N, OC) = (N, C)(C, OC) + b
    return;
  }
  MapT<T> o(out, N, OC);
  o.noalias() = CMapT<T>(inp, N, C) * CMapT<T>(w, C, OC);  // (N, OC) = (N, C)(C, OC)
  if (b) o.rowwise() += Eigen::Map<const RowT<T>>(b, OC);
}

template <typename T>
void linear_backward(T* dinp, T* dw, T* db, const T* dout, const T* inp, const T* w, int N, int C, int OC) {
  CMapT<T> g(dout, N, OC);
  if constexpr (kSimdProducts && std::is_same_v<T, float>) {
    if (dinp) product(dinp, dout, transposed(w, C, OC, 0), nullptr, N, OC, C, true);  // (N, C) += (N, OC)(OC, C)
    product(dw, transposed(inp, N, C, 1), dout, nullptr, C, N, OC, true);             // (C, OC) += (C, N)(N, OC)
    if (db) Eigen::Map<RowT<T>>(db, OC) += g.colwise().sum();
    return;
  }
  if (dinp) MapT<T>(dinp, N, C).noalias() += g * CMapT<T>(w, C, OC).transpose();  // (N, C)
  MapT<T>(dw, C, OC).noalias() += CMapT<T>(inp, N, C).transpose() * g;            // (C, OC)
  if (db) Eigen::Map<RowT<T>>(db, OC) += g.colwise().sum();                       // (OC)
}

// out (N, V) = inp (N, C) emb^T (+ b): a head tied to the token embeddings emb (V, C).
template <typename T>
void tied_head_forward(T* out, const T* inp, const T* emb, const T* b, int N, int C, int V) {
  if constexpr (kSimdProducts && std::is_same_v<T, float>) {
    product(out, inp, transposed(emb, V, C, 0), b, N, C, V, false);  // (N, V) = (N, C)(C, V) + b
    return;
  }
  MapT<T> o(out, N, V);
  o.noalias() = CMapT<T>(inp, N, C) * CMapT<T>(emb, V, C).transpose();
  if (b) o.rowwise() += Eigen::Map<const RowT<T>>(b, V);
}

template <typename T>
void tied_head_backward(T* dinp, T* demb, T* db, const T* dout, const T* inp, const T* emb, int N, int C, int V) {
  CMapT<T> g(dout, N, V);
  if constexpr (kSimdProducts && std::is_same_v<T, float>) {
    product(dinp, dout, emb, nullptr, N, V, C, true);                       // (N, C) += (N, V)(V, C)
    product(demb, transposed(dout, N, V, 0), inp, nullptr, V, N, C, true);  // (V, C) += (V, N)(N, C)
    if (db) Eigen::Map<RowT<T>>(db, V) += g.colwise().sum();
    return;
  }
  MapT<T>(dinp, N, C).noalias() += g * CMapT<T>(emb, V, C);              // (N, C)
  MapT<T>(demb, V, C).noalias() += g.transpose() * CMapT<T>(inp, N, C);  // (V, C)
  if (db) Eigen::Map<RowT<T>>(db, V) += g.colwise().sum();
}

// ---- LayerNorm ------------------------------------------------------------------------------

template <typename T>
void layernorm_forward(T* out, T* mean, T* rstd, const T* inp, const T* gamma, const T* beta, int N, int C, T eps) {
  for (int i = 0; i < N; ++i) {
    const size_t row = static_cast<size_t>(i) * C;
    const NormStats s = layer_norm_row(out + row, inp + row, gamma, beta, C, static_cast<double>(eps));
    mean[i] = static_cast<T>(s.mean);
    rstd[i] = static_cast<T>(1.0 / s.sigma);
  }
}

template <typename T>
void layernorm_backward(T* dinp, T* dgamma, T* dbeta, const T* dout, const T* inp, const T* gamma, const T* mean,
                        const T* rstd, int N, int C) {
  for (int i = 0; i < N; ++i) {
    const T* g = dout + static_cast<size_t>(i) * C;
    const T* x = inp + static_cast<size_t>(i) * C;
    T* dx = dinp + static_cast<size_t>(i) * C;
    // y = xhat * gamma + beta with xhat = (x - mean) * rstd. Through mean and rstd every x_j
    // touches every xhat_k, which gives the two row averages below.
    T dnorm_mean = 0, dnorm_norm_mean = 0;
    for (int j = 0; j < C; ++j) {
      const T xhat = (x[j] - mean[i]) * rstd[i];
      const T dnorm = g[j] * gamma[j];
      dnorm_mean += dnorm;
      dnorm_norm_mean += dnorm * xhat;
    }
    dnorm_mean /= C;
    dnorm_norm_mean /= C;
    for (int j = 0; j < C; ++j) {
      const T xhat = (x[j] - mean[i]) * rstd[i];
      const T dnorm = g[j] * gamma[j];
      dx[j] += (dnorm - dnorm_mean - xhat * dnorm_norm_mean) * rstd[i];
      dgamma[j] += g[j] * xhat;
      dbeta[j] += g[j];
    }
  }
}

// ---- activations and residual ---------------------------------------------------------------

template <typename T>
void relu_forward(T* out, const T* inp, int n) {
  for (int i = 0; i < n; ++i) out[i] = inp[i] > T(0) ? inp[i] : T(0);
}
template <typename T>
void relu_backward(T* dinp, const T* inp, const T* dout, int n) {
  for (int i = 0; i < n; ++i) dinp[i] += inp[i] > T(0) ? dout[i] : T(0);
}

// GELU with Phi(x) = erfc(-x / sqrt 2) / 2, written as erfc so that its left tail keeps its
// relative accuracy (1 + erf(x / sqrt 2) cancels to nothing there). The forward also keeps the
// slope d gelu / dx = Phi(x) + x phi(x) that the backward multiplies by: one erfc per value, not
// one in each pass. In double (the gradient checks) with std::erfc and std::exp. In float (training)
// without a libm call, so that the loop is vectorised (SIMD128 in wasm): erfc by Numerical
// Recipes' erfcc (fractional error below 1.2e-7 for every argument) and e^a by float_exp below.
// Against the formula in double the value and the slope are within 8 (1 + x^2) float ulps (the
// x^2 from rounding erfc's argument to float; test_train_grad's GeluInFloatIsTheDoubleFormulaRounded
// sweeps [-12, 12]).
namespace {

// e^a for a <= 0 in float arithmetic alone: 2^n e^r with n = round(a / ln 2), r = a - n ln 2 (ln 2
// in two parts, so r is exact to float rounding), e^r by its Taylor polynomial of degree 7 (|r| <=
// ln 2 / 2: truncation below 6e-9 relative), 2^n put in the exponent bits. a is clamped to -87,
// where e^a (1.6e-38) is still a normal float.
inline float float_exp(float a) {
  a = std::max(a, -87.0f);
  const float n = std::floor(a * 1.44269504088896341f + 0.5f);
  const float r = (a - n * 0.693145751953125f) - n * 1.428606765330187e-06f;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

}  // namespace

template <typename T>
void gelu_forward(T* out, T* slope, const T* inp, int n) {
  const T inv_sqrt_2pi = static_cast<T>(0.39894228040143267794);
  if constexpr (std::is_same_v<T, float>) {
    // Phi(x) (and phi(x) / Phi's slope when asked), one loop each way so that both vectorise.
    auto cdf_of = [](float x) {
      const float z = std::abs(x) * 0.70710678118654752f;
      const float t = 1.0f / (1.0f + 0.5f * z);
      float p = 0.17087277f;  // erfcc's polynomial: erfc(z) = t e^(-z^2 + p(t))
      p = p * t - 0.82215223f;
      p = p * t + 1.48851587f;
      p = p * t - 1.13520398f;
      p = p * t + 0.27886807f;
      p = p * t - 0.18628806f;
      p = p * t + 0.09678418f;
      p = p * t + 0.37409196f;
      p = p * t + 1.00002368f;
      p = p * t - 1.26551223f;
      const float half_erfc = 0.5f * t * float_exp(p - z * z);  // Phi(-|x|)
      return x >= 0.0f ? 1.0f - half_erfc : half_erfc;
    };
    if (!slope) {
      for (int i = 0; i < n; ++i) out[i] = inp[i] * cdf_of(inp[i]);
      return;
    }
    for (int i = 0; i < n; ++i) {
      const float x = inp[i], cdf = cdf_of(x);
      out[i] = x * cdf;
      slope[i] = cdf + x * float_exp(-0.5f * x * x) * inv_sqrt_2pi;
    }
  } else {
    const T inv_sqrt2 = static_cast<T>(0.70710678118654752440);
    for (int i = 0; i < n; ++i) {
      const T x = inp[i];
      const T cdf = T(0.5) * std::erfc(-x * inv_sqrt2);
      out[i] = x * cdf;
      if (slope) slope[i] = cdf + x * std::exp(T(-0.5) * x * x) * inv_sqrt_2pi;
    }
  }
}
template <typename T>
void gelu_backward(T* dinp, const T* slope, const T* dout, int n) {
  for (int i = 0; i < n; ++i) dinp[i] += dout[i] * slope[i];
}

template <typename T>
void residual_forward(T* out, const T* a, const T* b, int n) {
  for (int i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

// ---- attention ------------------------------------------------------------------------------

namespace {
// The column of offset s - t in a relative-bias row: offsets clipped to [-clip, clip], shifted by clip.
inline int clip_offset(int off, int clip) { return std::max(-clip, std::min(clip, off)) + clip; }
}  // namespace

template <typename T>
void attention_forward(T* out, T* att, const T* q, const T* k, const T* v, const unsigned char* key_pad, bool causal,
                       bool scale, int B, int T_, int S, int d, int NH, const T* rel_bias, int rel_clip) {
  const int dk = d / NH;
  const T inv_sqrt_dk = scale ? T(1) / std::sqrt(static_cast<T>(dk)) : T(1);
  CMapT<T> Q(q, B * T_, d), K(k, B * S, d), Vv(v, B * S, d);
  MapT<T> O(out, B * T_, d);
  thread_local std::vector<unsigned char> hidden;  // per thread, grown once: no allocation per step
  hidden.resize(static_cast<size_t>(T_) * S);
  for (int b = 0; b < B; ++b) {
    // 1. Which keys each query may not see: the future (causal) and <pad> keys.
    for (int t = 0; t < T_; ++t)
      for (int s = 0; s < S; ++s)
        hidden[static_cast<size_t>(t) * S + s] =
            (causal && s > t) || (key_pad && key_pad[static_cast<size_t>(b) * S + s]);
    for (int h = 0; h < NH; ++h) {
      // A head owns d_k consecutive columns of q, k, v: heads are a batch axis.
      auto q_h = Q.block(b * T_, h * dk, T_, dk);  // (T, d_k)
      auto k_h = K.block(b * S, h * dk, S, dk);    // (S, d_k)
      auto v_h = Vv.block(b * S, h * dk, S, dk);   // (S, d_k)
      MapT<T> a(att + (static_cast<size_t>(b) * NH + h) * T_ * S, T_, S);
      // 2. scores = q_h k_h^T, scaled: dot products grow like sqrt(d_k).
      if constexpr (kSimdProducts && std::is_same_v<T, float>)
        kernels::gemm_tiled(a.data(), S, q_h.data(), d, transposed(k_h.data(), S, dk, 0, d), S, nullptr, T_, dk, S);
      else
        a.noalias() = q_h * k_h.transpose();  // (T, S) = (T, d_k)(d_k, S)
      a *= inv_sqrt_dk;
      // 2b. Relative positions: a learned bias per head and clipped offset s - t (after the scaling, as the core).
      if (rel_bias)
        for (int t = 0; t < T_; ++t)
          for (int s = 0; s < S; ++s)
            a(t, s) += rel_bias[static_cast<size_t>(h) * (2 * rel_clip + 1) + clip_offset(s - t, rel_clip)];
      // 3. Softmax over the visible keys (a row with every key hidden stays all zero).
      for (int t = 0; t < T_; ++t) softmax_row(&a(t, 0), &a(t, 0), S, &hidden[static_cast<size_t>(t) * S]);
      // 4. head_out = att v_h into this head's columns of the concatenation.
      if constexpr (kSimdProducts && std::is_same_v<T, float>)
        kernels::gemm_tiled(&O(b * T_, h * dk), d, a.data(), S, v_h.data(), d, nullptr, T_, S, dk);
      else
        O.block(b * T_, h * dk, T_, dk).noalias() = a * v_h;  // (T, d_k) = (T, S)(S, d_k)
    }
  }
}

template <typename T>
void attention_backward(T* dq, T* dk, T* dv, const T* dout, const T* att, const T* q, const T* k, const T* v,
                        bool scale, int B, int T_, int S, int d, int NH, T* g_rel_bias, int rel_clip) {
  const int dkh = d / NH;
  const T inv_sqrt_dk = scale ? T(1) / std::sqrt(static_cast<T>(dkh)) : T(1);
  CMapT<T> Q(q, B * T_, d), K(k, B * S, d), Vv(v, B * S, d), G(dout, B * T_, d);
  MapT<T> dQ(dq, B * T_, d), dK(dk, B * S, d), dV(dv, B * S, d);
  thread_local std::vector<T> datt_buffer;  // per thread, grown once: no allocation per step
  datt_buffer.resize(static_cast<size_t>(T_) * S);
  MapT<T> datt(datt_buffer.data(), T_, S);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < NH; ++h) {
      CMapT<T> a(att + (static_cast<size_t>(b) * NH + h) * T_ * S, T_, S);
      auto g_h = G.block(b * T_, h * dkh, T_, dkh);  // (T, d_k)
      // head_out = a v_h
      if constexpr (kSimdProducts && std::is_same_v<T, float>) {
        const float* vT = transposed(v + (static_cast<size_t>(b) * S) * d + h * dkh, S, dkh, 0, d);
        kernels::gemm_tiled(datt.data(), S, g_h.data(), d, vT, S, nullptr, T_, dkh, S);  // (T, S)
        kernels::gemm_tiled(&dV(b * S, h * dkh), d, transposed(a.data(), T_, S, 1), T_, g_h.data(), d, nullptr, S, T_,
                            dkh, true);  // (S, d_k) += (S, T)(T, d_k)
      } else {
        datt.noalias() = g_h * Vv.block(b * S, h * dkh, S, dkh).transpose();  // (T, S)
        dV.block(b * S, h * dkh, S, dkh).noalias() += a.transpose() * g_h;    // (S, d_k)
      }
      // Softmax: dscore_ts = a_ts (datt_ts - sum_s' a_ts' datt_ts'). Masked entries have a = 0,
      // so they get no gradient, as the -inf they stood for. The relative bias was added after the
      // scaling: its gradient is dscore before the 1/sqrt(d_k).
      T* g_bias = g_rel_bias ? g_rel_bias + static_cast<size_t>(h) * (2 * rel_clip + 1) : nullptr;
      for (int t = 0; t < T_; ++t) {
        const T dot = a.row(t).dot(datt.row(t));
        for (int s = 0; s < S; ++s) {
          const T g = a(t, s) * (datt(t, s) - dot);
          if (g_bias) g_bias[clip_offset(s - t, rel_clip)] += g;
          datt(t, s) = g * inv_sqrt_dk;
        }
      }
      // scores = q_h k_h^T
      if constexpr (kSimdProducts && std::is_same_v<T, float>) {
        kernels::gemm_tiled(&dQ(b * T_, h * dkh), d, datt.data(), S, k + (static_cast<size_t>(b) * S) * d + h * dkh, d,
                            nullptr, T_, S, dkh, true);
        kernels::gemm_tiled(&dK(b * S, h * dkh), d, transposed(datt.data(), T_, S, 0), T_,
                            q + (static_cast<size_t>(b) * T_) * d + h * dkh, d, nullptr, S, T_, dkh, true);
      } else {
        dQ.block(b * T_, h * dkh, T_, dkh).noalias() += datt * K.block(b * S, h * dkh, S, dkh);
        dK.block(b * S, h * dkh, S, dkh).noalias() += datt.transpose() * Q.block(b * T_, h * dkh, T_, dkh);
      }
    }
}

// ---- LM head loss ---------------------------------------------------------------------------

template <typename T>
void crossentropy_forward(T* losses, T* probs, const T* logits, const int* targets, int N, int V) {
  for (int i = 0; i < N; ++i) {
    const T* z = logits + static_cast<size_t>(i) * V;
    const SoftmaxSums<T> s = softmax_row(probs + static_cast<size_t>(i) * V, z, V);
    // -log softmax = log sum exp(z - max) - (z_target - max): no log of a rounded-to-0 prob.
    losses[i] = targets[i] == 0 ? T(0) : std::log(s.sum) - (z[targets[i]] - s.max);
  }
}

template <typename T>
void crossentropy_backward(T* dlogits, const T* probs, const int* targets, T scale, int N, int V) {
  for (int i = 0; i < N; ++i) {
    T* g = dlogits + static_cast<size_t>(i) * V;
    const T* p = probs + static_cast<size_t>(i) * V;
    if (targets[i] == 0) {
      for (int j = 0; j < V; ++j) g[j] = 0;
      continue;
    }
    for (int j = 0; j < V; ++j) g[j] = p[j] * scale;
    g[targets[i]] -= scale;
  }
}

#define AP_TRAIN_OPS(T)                                                                                                \
  template void embed_forward<T>(T*, const int*, const T*, const T*, const T*, int, int, int);                         \
  template void embed_backward<T>(T*, T*, const T*, const int*, int, int, int);                                        \
  template void linear_forward<T>(T*, const T*, const T*, const T*, int, int, int);                                    \
  template void linear_backward<T>(T*, T*, T*, const T*, const T*, const T*, int, int, int);                           \
  template void tied_head_forward<T>(T*, const T*, const T*, const T*, int, int, int);                                 \
  template void tied_head_backward<T>(T*, T*, T*, const T*, const T*, const T*, int, int, int);                        \
  template void layernorm_forward<T>(T*, T*, T*, const T*, const T*, const T*, int, int, T);                           \
  template void layernorm_backward<T>(T*, T*, T*, const T*, const T*, const T*, const T*, const T*, int, int);         \
  template void relu_forward<T>(T*, const T*, int);                                                                    \
  template void relu_backward<T>(T*, const T*, const T*, int);                                                         \
  template void gelu_forward<T>(T*, T*, const T*, int);                                                                \
  template void gelu_backward<T>(T*, const T*, const T*, int);                                                         \
  template void residual_forward<T>(T*, const T*, const T*, int);                                                      \
  template void attention_forward<T>(T*, T*, const T*, const T*, const T*, const unsigned char*, bool, bool, int, int, \
                                     int, int, int, const T*, int);                                                    \
  template void attention_backward<T>(T*, T*, T*, const T*, const T*, const T*, const T*, const T*, bool, int, int,    \
                                      int, int, int, T*, int);                                                         \
  template void crossentropy_forward<T>(T*, T*, const T*, const int*, int, int);                                       \
  template void crossentropy_backward<T>(T*, const T*, const int*, T, int, int);

AP_TRAIN_OPS(float)
AP_TRAIN_OPS(double)
#undef AP_TRAIN_OPS

}  // namespace ap::train
