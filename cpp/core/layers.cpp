#include "core/layers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/attention.hpp"
#include "kernels/convert.hpp"
#include "kernels/gemm.hpp"

namespace ap {

void linear(Mat& out, const Mat& in, const Mat& w, const Vec& b) {
  out.resize(in.rows(), w.cols());
  if (in.rows() == 0) return;
  kernels::gemm(out.data(), in.data(), w.data(), b.size() ? b.data() : nullptr, static_cast<int>(in.rows()),
                static_cast<int>(in.cols()), static_cast<int>(w.cols()));
}

void linear(Mat& out, const Mat& in, const Weight& w, const Vec& b) {
  if (!w.is_16bit()) {
    linear(out, in, static_cast<const Mat&>(w), b);
    return;
  }
  const int n = static_cast<int>(in.rows()), k = static_cast<int>(in.cols()), m = static_cast<int>(w.cols());
  out.resize(n, m);
  if (n == 0) return;
  const float* bias = b.size() ? b.data() : nullptr;
  if (w.layout() == Layout::Panels) {
    if (w.stored() == Stored::F16)
      kernels::gemm_panels_f16(out.data(), m, in.data(), k, w.f16_data(), bias, n, k, m);
    else
      kernels::gemm_panels_bf16(out.data(), m, in.data(), k, w.bf16_data(), bias, n, k, m);
    return;
  }
  if (w.stored() == Stored::F16)
    kernels::gemm_tiled_f16(out.data(), m, in.data(), k, w.f16_data(), m, bias, n, k, m);
  else
    kernels::gemm_tiled_bf16(out.data(), m, in.data(), k, w.bf16_data(), m, bias, n, k, m);
}

size_t Weight::index_of(Eigen::Index r, Eigen::Index c) const {
  switch (layout_) {
    case Layout::Panels: {
      const Eigen::Index j0 = c / kernels::kPanel * kernels::kPanel;  // the panel's first column
      const Eigen::Index w = std::min<Eigen::Index>(kernels::kPanel, cols_ - j0);
      return static_cast<size_t>(j0 * rows_ + r * w + (c - j0));
    }
    case Layout::KeyBlocks: {
      constexpr Eigen::Index B = kernels::kKeyBlock;
      if (r >= rows_ / B * B) break;  // after the last whole block: row-major
      const Eigen::Index block = r / B * B * cols_, i = r % B, d8 = cols_ / 8 * 8;
      return static_cast<size_t>(c < d8 ? block + (c / 8) * 8 * B + i * 8 + c % 8
                                        : block + d8 * B + i * (cols_ - d8) + (c - d8));
    }
    default:
      break;
  }
  return static_cast<size_t>(r * cols_ + c);
}

void Weight::lay_out(Layout to) {
  if (!is_16bit() || layout_ != Layout::RowMajor || to == Layout::RowMajor) return;
  // Value i (row-major) moves to index_of() of the new layout: cycle by cycle, in place, with one
  // bit a value for those moved. A copy of the matrix (77 MB for GPT-2 small's embeddings) had
  // grown wasm memory for good.
  layout_ = to;
  const size_t n = bits_.size();
  const auto cols = static_cast<size_t>(cols_);
  std::vector<bool> moved(n);
  for (size_t start = 0; start < n; ++start) {
    if (moved[start]) continue;
    uint16_t carry = bits_[start];  // row-major value `start`, on its way to index_of(start)
    size_t i = start;
    do {
      moved[i] = true;
      const size_t to_at = index_of(static_cast<Eigen::Index>(i / cols), static_cast<Eigen::Index>(i % cols));
      std::swap(carry, bits_[to_at]);  // carry is now row-major value to_at, bound for its own place
      i = to_at;
    } while (i != start);
  }
}

float Weight::value(size_t i) const {
  auto at = [&](size_t i) {
    return layout_ != Layout::RowMajor
               ? index_of(static_cast<Eigen::Index>(i) / cols_, static_cast<Eigen::Index>(i) % cols_)
               : i;
  };
  switch (stored()) {
    case Stored::F16:
      return kernels::half_to_float(bits_[at(i)]);
    case Stored::BF16:
      return bf16_to_float(bf16{bits_[at(i)]});
    default:
      return Mat::data()[i];
  }
}

// Row r as runs of contiguous values: the whole row (row-major), up to kPanel values a panel, or
// 8 values a step of a key block (then its last cols % 8).
void Weight::row_into(Eigen::Index r, float* out) const {
  const Eigen::Index c = cols();
  const Layout lay = layout();
  const bool in_block = lay == Layout::KeyBlocks && r < rows_ / kernels::kKeyBlock * kernels::kKeyBlock;
  const Eigen::Index run = lay == Layout::Panels ? kernels::kPanel : in_block ? 8 : c;
  for (Eigen::Index j = 0; j < c; j += run) {
    const size_t n = static_cast<size_t>(std::min(run, c - j)), at = is_16bit() ? index_of(r, j) : 0;
    if (stored() == Stored::F16)
      kernels::halves_to_floats(out + j, reinterpret_cast<const uint8_t*>(bits_.data() + at), n);
    else
      for (size_t t = 0; t < n; ++t) out[j + t] = value(static_cast<size_t>(r * c + j) + t);
  }
}

Mat Weight::widened() const {
  if (!is_16bit()) return *this;
  Mat m(rows_, cols_);
  for (Eigen::Index r = 0; r < rows_; ++r) row_into(r, m.data() + r * cols_);
  return m;
}

void Weight::widen() {
  if (!is_16bit()) return;
  Mat m = widened();
  static_cast<Mat&>(*this).swap(m);
  bits_.clear();
  bits_.shrink_to_fit();
  stored_ = Stored::F32;
  layout_ = Layout::RowMajor;
  rows_ = cols_ = 0;
}

void Weight::check_finite(const std::string& what) const {
  if (!is_16bit()) {
    ap::check_finite(Mat::data(), static_cast<size_t>(Mat::size()), what);
    return;
  }
  // Every forward checks its weights (core/attention.cpp's check_matrix): one branch-free pass over
  // the bits first, which the compiler vectorises (a value is not finite when its exponent field is
  // all ones, base/half.hpp), and the search for the first such value only when there is one.
  const uint16_t exponent = stored() == Stored::F16 ? kF16Exponent : kBF16Exponent;
  const uint16_t* bits = bits_.data();
  const size_t n = bits_.size();
  unsigned any = 0;
  for (size_t i = 0; i < n; ++i) any |= (bits[i] & exponent) == exponent;
  if (!any) return;
  for (size_t i = 0; i < n; ++i)  // row-major order, whatever the layout
    if ((bits[layout_ != Layout::RowMajor
                  ? index_of(static_cast<Eigen::Index>(i) / cols_, static_cast<Eigen::Index>(i) % cols_)
                  : i] &
         exponent) == exponent)
      fail(what + " contains " + (std::isnan(value(i)) ? "NaN" : "Infinity") + " (at index " + std::to_string(i) + ")");
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
