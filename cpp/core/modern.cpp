// Issue 26's parts that are not hot loops: RMSNorm, the gated FFN's hidden vector and the mean-pooling
// of K/V heads. Outside AP_FIRST_FAST (CMakeLists.txt), so the first module builds them for size.
#include <algorithm>

#include "core/layers.hpp"

namespace ap {

void rms_norm(Mat& out, const Mat& in, const Vec& gamma, float eps, Mat* rms) {
  const Eigen::Index n = in.rows(), d = in.cols();
  out.resize(n, d);
  if (rms) rms->resize(n, 1);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double r = rms_norm_row(out.data() + i * d, in.data() + i * d, gamma.data(), static_cast<int>(d),
                                  static_cast<double>(eps));
    if (rms) (*rms)(i, 0) = static_cast<float>(r);
  }
}

void apply_norm(Mat& out, const Mat& in, const Vec& gamma, const Vec& beta, NormKind kind, float eps, Mat* stats) {
  if (kind == NormKind::Rms) return rms_norm(out, in, gamma, eps, stats);
  if (beta.size() == 0) {  // an RMSNorm model's file has no beta: a zero bias
    Vec zero(gamma.size());
    std::fill(zero.data(), zero.data() + zero.size(), 0.0f);
    return layer_norm(out, in, gamma, zero, eps, stats);
  }
  layer_norm(out, in, gamma, beta, eps, stats);
}

void gated_hidden(Mat& hidden, Mat& gate, Mat& act, Mat& up, const Mat& x, const Weight& w_gate, const Weight& w1,
                  const Vec& b1, FfnKind kind) {
  linear(gate, x, w_gate, Vec());  // (n, d_ff), the gate's pre-activation
  linear(up, x, w1, b1);           // (n, d_ff), the up projection
  act.resize(gate.rows(), gate.cols());
  hidden.resize(gate.rows(), gate.cols());
  const bool swish = kind == FfnKind::SwiGlu;
  for (Eigen::Index i = 0; i < gate.size(); ++i) {
    const float g = gate.data()[i];
    act.data()[i] = swish ? silu(g) : gelu(g);
    hidden.data()[i] = act.data()[i] * up.data()[i];
  }
}

void pool_kv_heads(Mat& out, Vec& out_b, const Mat& w, const Vec& b, int n_heads, int n_kv) {
  const int rows = static_cast<int>(w.rows()), d_k = static_cast<int>(w.cols()) / n_heads, group = n_heads / n_kv;
  const int width = n_kv * d_k;
  out.resize(rows, width);
  std::fill(out.data(), out.data() + out.size(), 0.0f);
  if (b.size()) {
    out_b.resize(width);
    std::fill(out_b.data(), out_b.data() + width, 0.0f);
  }
  const float inv = 1.0f / static_cast<float>(group);
  for (int hd = 0; hd < n_heads; ++hd)
    for (int c = 0; c < d_k; ++c) {
      const int src = hd * d_k + c, dst = (hd / group) * d_k + c;
      for (int r = 0; r < rows; ++r) out.data()[r * width + dst] += w.data()[r * w.cols() + src] * inv;
      if (b.size()) out_b.data()[dst] += b.data()[src] * inv;
    }
}

}  // namespace ap
