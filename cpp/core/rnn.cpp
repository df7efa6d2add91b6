#include "core/rnn.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include <Eigen/Eigenvalues>

#include "base/rng.hpp"
#include "core/layers.hpp"

namespace ap {

float spectral_radius(const Mat& w) {
  Eigen::EigenSolver<Eigen::MatrixXd> es(w.cast<double>(), false);
  return static_cast<float>(es.eigenvalues().cwiseAbs().maxCoeff());
}

RnnWeights rnn_random(int d_in, int d_h, float rho, uint64_t seed) {
  if (d_in <= 0 || d_h <= 0) fail("RNN sizes must be positive");
  if (!(rho >= 0.0f) || !std::isfinite(rho)) fail("spectral radius must be a finite number >= 0");
  SplitMix64 rng{seed};
  RnnWeights w{Mat(d_in, d_h), Mat(d_h, d_h), Vec::Zero(d_h)};
  rng.fill_fan_in(w.wxh, d_in);
  rng.fill_symmetric(w.whh.data(), static_cast<size_t>(w.whh.size()), 1.0);  // rescaled below
  const float r = spectral_radius(w.whh);
  if (r > 0.0f) w.whh *= rho / r;  // the knob the vanishing-gradient view turns
  return w;
}

// Largest singular value of the d x d row-major matrix a (overwritten): one-sided Jacobi
// (Hestenes), rotating column pairs until all are orthogonal; the singular values are then the
// column norms. Plain loops: this file is built at -Oz in the first module (see rnn_forward).
static double largest_singular_value(std::vector<double>& a, int d) {
  auto at = [&](int r, int c) -> double& { return a[static_cast<size_t>(r) * d + c]; };
  for (int sweep = 0; sweep < 60; ++sweep) {
    bool rotated = false;
    for (int p = 0; p < d - 1; ++p)
      for (int q = p + 1; q < d; ++q) {
        double alpha = 0.0, beta = 0.0, gamma = 0.0;
        for (int r = 0; r < d; ++r) {
          alpha += at(r, p) * at(r, p);
          beta += at(r, q) * at(r, q);
          gamma += at(r, p) * at(r, q);
        }
        if (gamma == 0.0 || std::abs(gamma) <= 1e-15 * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2.0 * gamma);
        const double tan = (zeta >= 0 ? 1.0 : -1.0) / (std::abs(zeta) + std::sqrt(1.0 + zeta * zeta));
        const double cos = 1.0 / std::sqrt(1.0 + tan * tan), sin = cos * tan;
        for (int r = 0; r < d; ++r) {
          const double u = at(r, p), v = at(r, q);
          at(r, p) = cos * u - sin * v;
          at(r, q) = sin * u + cos * v;
        }
      }
    if (!rotated) break;
  }
  double best = 0.0;
  for (int c = 0; c < d; ++c) {
    double s = 0.0;
    for (int r = 0; r < d; ++r) s += at(r, c) * at(r, c);
    best = std::max(best, s);
  }
  return std::sqrt(best);
}

void rnn_forward(Trace& tr, const Mat& x, const RnnWeights& w) {
  const int n = static_cast<int>(x.rows()), d_h = static_cast<int>(w.whh.rows());
  if (n <= 0) fail("the RNN needs at least one token");
  if (x.cols() != w.wxh.rows())
    fail("RNN input has width " + std::to_string(x.cols()) + " but W_xh expects " + std::to_string(w.wxh.rows()));
  check_finite(x.data(), static_cast<size_t>(x.size()), "RNN input");
  // Plain loops throughout, no Eigen expressions: the first module builds this file at -Oz,
  // where Eigen's helpers stay calls per coefficient (and JacobiSVD was most of its time).
  const int d_in = static_cast<int>(x.cols());
  MatMap wxh = tr.add2d("rnn_wxh", "", -1, d_in, d_h);
  std::copy(w.wxh.data(), w.wxh.data() + w.wxh.size(), wxh.data());
  MatMap whh = tr.add2d("rnn_whh", "", -1, d_h, d_h);
  std::copy(w.whh.data(), w.whh.data() + w.whh.size(), whh.data());
  float* pre = tr.add2d("rnn_pre", "", -1, n, d_h).data();
  float* h = tr.add2d("rnn_h", "", -1, n, d_h).data();
  const float* wx = w.wxh.data();
  const float* wh = w.whh.data();
  std::vector<float> prev(static_cast<size_t>(d_h), 0.0f);
  for (int t = 0; t < n; ++t) {                     // sequential: step t waits for step t-1
    float* p = pre + static_cast<size_t>(t) * d_h;  // (1, d_h): x_t W_xh + h_{t-1} W_hh + b
    const float* xt = x.data() + static_cast<size_t>(t) * d_in;
    for (int j = 0; j < d_h; ++j) p[j] = 0.0f;
    for (int k = 0; k < d_in; ++k)
      for (int j = 0; j < d_h; ++j) p[j] += xt[k] * wx[static_cast<size_t>(k) * d_h + j];
    for (int k = 0; k < d_h; ++k)
      for (int j = 0; j < d_h; ++j) p[j] += prev[k] * wh[static_cast<size_t>(k) * d_h + j];
    for (int j = 0; j < d_h; ++j) {
      p[j] += w.b[j];
      prev[j] = h[static_cast<size_t>(t) * d_h + j] = std::tanh(p[j]);
    }
  }
  // d h_T / d h_t = J_T J_{T-1} ... J_{t+1}, with J_k = d h_k / d h_{k-1} = diag(1 - h_k^2) W_hh^T.
  Stage& g = tr.add("rnn_grad_norm", "", -1, {n});
  const size_t dd = static_cast<size_t>(d_h) * d_h;
  std::vector<double> jac(dd, 0.0), next(dd), a(dd);
  for (int i = 0; i < d_h; ++i) jac[static_cast<size_t>(i) * d_h + i] = 1.0;
  g.data[static_cast<size_t>(n - 1)] = 1.0f;
  for (int t = n - 1; t >= 1; --t) {
    // next = jac * step, step(k, j) = (1 - h_t[k]^2) W_hh(j, k): now d h_T / d h_{t-1}
    const float* ht = h + static_cast<size_t>(t) * d_h;
    std::fill(next.begin(), next.end(), 0.0);
    for (int k = 0; k < d_h; ++k) {
      const double damp = 1.0 - static_cast<double>(ht[k]) * ht[k];
      for (int j = 0; j < d_h; ++j) {
        const double s = damp * wh[static_cast<size_t>(j) * d_h + k];
        for (int i = 0; i < d_h; ++i)
          next[static_cast<size_t>(i) * d_h + j] += jac[static_cast<size_t>(i) * d_h + k] * s;
      }
    }
    jac.swap(next);
    a = jac;
    g.data[static_cast<size_t>(t - 1)] = static_cast<float>(largest_singular_value(a, d_h));
  }
}

}  // namespace ap
