#include "core/layers.hpp"

#include <cmath>
#include <limits>

#include "kernels/attention.hpp"
#include "kernels/gemm.hpp"

namespace ap {

void linear(Mat& out, const Mat& in, const Mat& w, const Vec& b) {
  out.resize(in.rows(), w.cols());
  if (in.rows() == 0) return;
  kernels::gemm(out.data(), in.data(), w.data(), b.size() ? b.data() : nullptr, static_cast<int>(in.rows()),
                static_cast<int>(in.cols()), static_cast<int>(w.cols()));
}

void softmax_rows(MatMap out, const MatMap& in) {
  const int n = static_cast<int>(in.cols());
  for (Eigen::Index i = 0; i < in.rows(); ++i) softmax_row(out.data() + i * n, in.data() + i * n, n);
}

void softmax_rows(Mat& out, const Mat& in) {
  out.resize(in.rows(), in.cols());
  softmax_rows(MatMap(out.data(), out.rows(), out.cols()), MatMap(const_cast<float*>(in.data()), in.rows(), in.cols()));
}

void layer_norm(Mat& out, const Mat& in, const Vec& gamma, const Vec& beta, float eps, Mat* stats) {
  const Eigen::Index n = in.rows(), d = in.cols();
  out.resize(n, d);
  if (stats) stats->resize(n, 2);
  for (Eigen::Index i = 0; i < n; ++i) {
    const NormStats s = layer_norm_row(out.data() + i * d, in.data() + i * d, gamma.data(), beta.data(),
                                       static_cast<int>(d), static_cast<double>(eps));
    if (stats) {
      (*stats)(i, 0) = static_cast<float>(s.mean);
      (*stats)(i, 1) = static_cast<float>(s.sigma);
    }
  }
}

void activation(Mat& out, const Mat& in, Act act) {
  out.resize(in.rows(), in.cols());
  if (act == Act::Relu) {
    out = in.cwiseMax(0.0f);
  } else if (act == Act::GeluTanh) {
    // The vectorised form of gelu_tanh (kernels/attention.hpp): the per-element std::tanh was a tenth
    // of a GPT-2 forward pass in wasm.
    kernels::gelu_tanh_vec(out.data(), in.data(), static_cast<int>(in.size()));
  } else {
    for (Eigen::Index i = 0; i < in.size(); ++i) out.data()[i] = gelu(in.data()[i]);
  }
}

void sinusoidal_positions(Mat& pe, int rows, int d, int offset) {
  pe.resize(rows, d);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < d; ++c) pe(r, c) = static_cast<float>(sinusoid(offset + r, c, d));
}

void apply_rope(Mat& x, int n_heads, int offset, double theta_base) {
  const int d = static_cast<int>(x.cols()), d_k = d / n_heads;
  // theta_base^e as exp(e ln theta_base): a general pow costs the first module 850 bytes (the constant
  // 10000^e did not need it).
  const double log_base = std::log(theta_base);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double pos = offset + static_cast<double>(r);
    for (int h = 0; h < n_heads; ++h)
      for (int i = 0; i + 1 < d_k; i += 2) {
        const double theta = pos * std::exp(-static_cast<double>(i) / d_k * log_base);
        const float c = static_cast<float>(std::cos(theta)), s = static_cast<float>(std::sin(theta));
        float& a = x(r, h * d_k + i);
        float& b = x(r, h * d_k + i + 1);
        const float a0 = a, b0 = b;
        a = a0 * c - b0 * s;  // rotate the pair (a, b) by theta
        b = a0 * s + b0 * c;
      }
  }
}

void check_finite(const float* data, size_t size, const std::string& what) {
  for (size_t i = 0; i < size; ++i) {
    if (std::isnan(data[i])) fail(what + " contains NaN (at index " + std::to_string(i) + ")");
    if (std::isinf(data[i])) fail(what + " contains Infinity (at index " + std::to_string(i) + ")");
  }
}

}  // namespace ap
