#include "core/rnn.hpp"

#include <cmath>
#include <complex>

#include <Eigen/Eigenvalues>

#include "core/layers.hpp"
#include "core/rng.hpp"

namespace ap {

float spectral_radius(const Mat& w) {
  Eigen::EigenSolver<Eigen::MatrixXd> es(w.cast<double>(), false);
  return static_cast<float>(es.eigenvalues().cwiseAbs().maxCoeff());
}

RnnWeights rnn_random(int d_in, int d_h, float rho, uint64_t seed) {
  if (d_in <= 0 || d_h <= 0) fail("RNN sizes must be positive");
  if (!(rho >= 0.0f) || !std::isfinite(rho)) fail("spectral radius must be a finite number >= 0");
  SplitMix64 rng{seed};
  auto uniform = [&rng](double a) { return rng.symmetric(a); };

  RnnWeights w;
  w.wxh.resize(d_in, d_h);
  w.whh.resize(d_h, d_h);
  w.b.setZero(d_h);
  for (Eigen::Index i = 0; i < w.wxh.size(); ++i) w.wxh.data()[i] = uniform(std::sqrt(3.0 / d_in));
  for (Eigen::Index i = 0; i < w.whh.size(); ++i) w.whh.data()[i] = uniform(1.0);
  const float r = spectral_radius(w.whh);
  if (r > 0.0f) w.whh *= rho / r;  // the knob the vanishing-gradient view turns
  return w;
}

void rnn_forward(Trace& tr, const Mat& x, const RnnWeights& w) {
  const int n = static_cast<int>(x.rows()), d_h = static_cast<int>(w.whh.rows());
  if (n <= 0) fail("the RNN needs at least one token");
  if (x.cols() != w.wxh.rows())
    fail("RNN input has width " + std::to_string(x.cols()) + " but W_xh expects " + std::to_string(w.wxh.rows()));
  check_finite(x.data(), static_cast<size_t>(x.size()), "RNN input");
  tr.add2d("rnn_wxh", "", -1, static_cast<int>(w.wxh.rows()), d_h) = w.wxh;
  tr.add2d("rnn_whh", "", -1, d_h, d_h) = w.whh;
  MatMap pre = tr.add2d("rnn_pre", "", -1, n, d_h);
  MatMap h = tr.add2d("rnn_h", "", -1, n, d_h);
  Vec prev = Vec::Zero(d_h);
  for (int t = 0; t < n; ++t) {  // sequential: step t waits for step t-1
    pre.row(t) = x.row(t) * w.wxh + prev * w.whh + w.b;  // (1, d_h)
    h.row(t) = pre.row(t).array().tanh();
    prev = h.row(t);
  }
  // d h_T / d h_t = J_T J_{T-1} ... J_{t+1}, with J_k = d h_k / d h_{k-1} = diag(1 - h_k^2) W_hh^T.
  Stage& g = tr.add("rnn_grad_norm", "", -1, {n});
  Eigen::MatrixXd jac = Eigen::MatrixXd::Identity(d_h, d_h);
  g.data[static_cast<size_t>(n - 1)] = 1.0f;
  for (int t = n - 1; t >= 1; --t) {
    Eigen::MatrixXd step = w.whh.transpose().cast<double>();
    for (int i = 0; i < d_h; ++i) step.row(i) *= 1.0 - static_cast<double>(h(t, i)) * h(t, i);
    jac = jac * step;  // now d h_T / d h_{t-1}
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(jac);
    g.data[static_cast<size_t>(t - 1)] = static_cast<float>(svd.singularValues()(0));
  }
}

}  // namespace ap
