#include "core/additive.hpp"

#include <cmath>
#include <limits>

#include "base/rng.hpp"
#include "core/layers.hpp"

namespace ap {

AdditiveWeights additive_random(int d_s, int d_h, int d_a, uint64_t seed) {
  if (d_s <= 0 || d_h <= 0 || d_a <= 0) fail("additive attention sizes must be positive");
  SplitMix64 rng{seed};
  AdditiveWeights w{Mat(d_s, d_a), Mat(d_h, d_a), Vec(d_a)};
  rng.fill_fan_in(w.ws, d_s);
  rng.fill_fan_in(w.wh, d_h);
  rng.fill_fan_in(w.v, d_a);
  return w;
}

namespace {

void check_additive(const Mat& s, const Mat& h, const AdditiveWeights& w) {
  if (s.rows() == 0 || h.rows() == 0) fail("additive attention needs at least one query and one key");
  if (w.ws.rows() != s.cols())
    fail("W_s has " + std::to_string(w.ws.rows()) + " rows but s has width " + std::to_string(s.cols()));
  if (w.wh.rows() != h.cols())
    fail("W_h has " + std::to_string(w.wh.rows()) + " rows but h has width " + std::to_string(h.cols()));
  if (w.ws.cols() != w.wh.cols() || w.v.size() != w.ws.cols())
    fail("W_s, W_h and v must share the attention width d_a");
  check_finite(s.data(), static_cast<size_t>(s.size()), "s");
  check_finite(h.data(), static_cast<size_t>(h.size()), "h");
}

// e (n, m): e_tj = v . tanh(a_t + b_j) with a = s W_s, b = h W_h precomputed.
void additive_scores(MatMap e, const Mat& a, const Mat& b, const Vec& v) {
  for (Eigen::Index t = 0; t < a.rows(); ++t)
    for (Eigen::Index j = 0; j < b.rows(); ++j) e(t, j) = ((a.row(t) + b.row(j)).array().tanh() * v.array()).sum();
}

}  // namespace

void additive_attention(Trace& tr, const Mat& s, const Mat& h, const AdditiveWeights& w) {
  check_additive(s, h, w);
  const int n = static_cast<int>(s.rows()), m = static_cast<int>(h.rows());
  const int d_a = static_cast<int>(w.v.size());
  Mat a = s * w.ws, b = h * w.wh;  // (n, d_a), (m, d_a)
  // The learned parameters too, so a view can show (and a test can check) every term.
  tr.add2d("add_ws", "", -1, static_cast<int>(w.ws.rows()), d_a) = w.ws;
  tr.add2d("add_wh", "", -1, static_cast<int>(w.wh.rows()), d_a) = w.wh;
  tr.add2d("add_v", "", -1, 1, d_a) = w.v;  // Vec is a row vector
  tr.add2d("add_s", "", -1, n, d_a) = a;
  tr.add2d("add_h", "", -1, m, d_a) = b;
  // tanh(W_s s_t + W_h h_j) for every pair (n, m, d_a): the hidden layer of the score network.
  Stage& th = tr.add("add_tanh", "", -1, {n, m, d_a});
  for (int t = 0; t < n; ++t)
    for (int j = 0; j < m; ++j)
      for (int c = 0; c < d_a; ++c) th.data[(static_cast<size_t>(t) * m + j) * d_a + c] = std::tanh(a(t, c) + b(j, c));
  Stage& e = tr.add("add_scores", "", -1, {1, n, m});
  additive_scores(Trace::head(e, 0), a, b, w.v);
  Stage& al = tr.add("add_weights", "", -1, {1, n, m});
  softmax_rows(Trace::head(al, 0), Trace::head(*tr.find("add_scores"), 0));
  MatMap alpha = Trace::head(*tr.find("add_weights"), 0);
  tr.add2d("add_context", "", -1, n, static_cast<int>(h.cols())) = alpha * h;  // c_t = sum_j alpha_tj h_j
}

ScoreFn score_fn_from_string(const std::string& name) {
  if (name == "dot") return ScoreFn::Dot;
  if (name == "scaled") return ScoreFn::ScaledDot;
  if (name == "additive") return ScoreFn::Additive;
  fail("unknown score function '" + name + "' (known: dot, scaled, additive)");
}

void lookup(Trace& tr, const Mat& q, const Mat& k, const Mat& v, ScoreFn fn, bool hard, const AdditiveWeights* add,
            bool causal) {
  const int n = static_cast<int>(q.rows()), m = static_cast<int>(k.rows());
  if (n == 0 || m == 0) fail("a lookup needs at least one query and one key");
  if (causal && n != m)
    fail("a causal lookup is self-attention: it needs as many keys as queries (got " + std::to_string(n) +
         " queries and " + std::to_string(m) + " keys)");
  if (v.rows() != m) fail("there are " + std::to_string(m) + " keys but " + std::to_string(v.rows()) + " values");
  check_finite(q.data(), static_cast<size_t>(q.size()), "q");
  check_finite(k.data(), static_cast<size_t>(k.size()), "k");
  check_finite(v.data(), static_cast<size_t>(v.size()), "v");
  Stage& sc = tr.add("scores", "", -1, {1, n, m});
  MatMap e = Trace::head(sc, 0);
  if (fn == ScoreFn::Additive) {
    if (!add) fail("the additive score needs W_s, W_h and v");
    check_additive(q, k, *add);
    additive_scores(e, q * add->ws, k * add->wh, add->v);
  } else {
    if (q.cols() != k.cols()) fail("q and k must have the same width for a dot product");
    e.noalias() = q * k.transpose();  // (n, m)
    if (fn == ScoreFn::ScaledDot) e /= std::sqrt(static_cast<float>(q.cols()));
  }
  const char* from = "scores";
  if (causal) {  // key j after query i: -inf, so its weight is exactly 0
    Stage& mk = tr.add("masked", "", -1, {1, n, m});
    MatMap em = Trace::head(mk, 0);
    em = Trace::head(*tr.find("scores"), 0);
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < m; ++j) em(i, j) = -std::numeric_limits<float>::infinity();
    from = "masked";
  }
  Stage& ws = tr.add("weights", "", -1, {1, n, m});
  MatMap a = Trace::head(ws, 0);
  if (hard) {  // a database lookup: all weight on the best-matching key (the first, on a tie)
    a.setZero();
    for (int i = 0; i < n; ++i) {
      Eigen::Index best;
      Trace::head(*tr.find(from), 0).row(i).maxCoeff(&best);
      a(i, best) = 1.0f;
    }
  } else {
    softmax_rows(a, Trace::head(*tr.find(from), 0));
  }
  tr.add2d("out", "", -1, n, static_cast<int>(v.cols())) = Trace::head(*tr.find("weights"), 0) * v;
}

}  // namespace ap
