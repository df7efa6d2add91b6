// How each preset is built: with one-hot inputs X = I, scores = W_Q W_K^T. Choosing
// W_K = I and W_Q = sqrt(d_k) * ln(A) makes the scaled scores ln(A), so softmax returns
// exactly the table A of the notes (its rows already sum to 1).
#include "core/presets.hpp"

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "base/rng.hpp"
#include "core/attention.hpp"
#include "core/layers.hpp"

namespace ap {

namespace {

Mat from_rows(std::initializer_list<std::initializer_list<float>> rows) {
  Mat m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows.begin()->size()));
  Eigen::Index i = 0;
  for (auto& r : rows) {
    Eigen::Index j = 0;
    for (float v : r) m(i, j++) = v;
    ++i;
  }
  return m;
}

// W_Q for one-hot inputs and W_K = I whose softmax(scores / sqrt(d)) is the row-stochastic table a.
Mat log_table_query(const Mat& a) {
  const float sqrt_dk = std::sqrt(static_cast<float>(a.cols()));
  return (a.array().log() * sqrt_dk).matrix();
}

// The words a preset shows about itself (its view lists and titles them); the numbers follow.
Preset described(std::string id, std::vector<std::string> concepts, std::string source, std::string title,
                 std::string claim, std::vector<std::string> tokens) {
  Preset p;
  p.id = std::move(id);
  p.concepts = std::move(concepts);
  p.source = std::move(source);
  p.title = std::move(title);
  p.claim = std::move(claim);
  p.tokens = std::move(tokens);
  return p;
}

Preset the_cat_sat(const std::string& id) {
  Preset p = described(id, {"softmax"}, "000", "\"the cat sat\": weights and the weighted sum",
                       "weights .7 .2 .1 / .1 .6 .3 / .2 .3 .5; z_cat = 0.1 v_the + 0.6 v_cat + 0.3 v_sat",
                       {"the", "cat", "sat"});
  // The same example under each concept, each titled by what it shows there (the model picker
  // lists both, and two equal titles could not be told apart). Each lists only its own concept:
  // a view lists its concept's presets, and listing both under one would show the example twice.
  if (id.rfind("weighted-sum.", 0) == 0) {
    p.concepts = {"weighted-sum"};
    p.title = "\"the cat sat\": the weighted sum z_cat";
  }
  p.d_model = 3;
  p.row = 1;  // z_cat: the row of "cat"
  p.x = Mat::Identity(3, 3);
  const Mat a = from_rows({{0.7f, 0.2f, 0.1f}, {0.1f, 0.6f, 0.3f}, {0.2f, 0.3f, 0.5f}});
  p.wq = log_table_query(a);
  p.wk = Mat::Identity(3, 3);
  p.wv = from_rows({{2, 0, 1}, {0, 1, 3}, {1, 4, 0}});  // rows are v_the, v_cat, v_sat
  p.wo = Mat::Identity(3, 3);
  return p;
}

Preset thinking_machines() {
  // d_k = 64 so sqrt(d_k) = 8: q1.k1 = 112 and q1.k2 = 96 scale to 14 and 12.
  Preset p = described("softmax.thinking-machines", {"softmax", "quiz"}, "003",
                       "\"Thinking Machines\": 112 and 96 scaled by 8",
                       "q1.k1 = 112, q1.k2 = 96; / sqrt(64) = 14, 12; softmax 0.88, 0.12; z1 = 0.88 v1 + 0.12 v2",
                       {"Thinking", "Machines"});
  const int d = 64;
  p.d_model = d;
  p.x = Mat::Zero(2, d);
  p.x(0, 0) = 1;  // one-hot embeddings: x1 = e0, x2 = e1
  p.x(1, 1) = 1;
  p.wq = Mat::Zero(d, d);
  p.wq(0, 0) = 8;  // q1 = 8 e0
  p.wq(1, 0) = 6;  // q2 = 6 e0
  p.wk = Mat::Zero(d, d);
  p.wk(0, 0) = 14;  // k1 = 14 e0
  p.wk(1, 0) = 12;  // k2 = 12 e0
  p.wv = Mat::Zero(d, d);
  for (int j = 0; j < d; ++j) {  // two distinct value vectors v1, v2
    p.wv(0, j) = static_cast<float>((j % 5) - 2);
    p.wv(1, j) = static_cast<float>((j % 3) + 1);
  }
  p.wo = Mat::Identity(d, d);
  return p;
}

Preset clouds(const std::string& id, bool causal) {
  Preset p;
  p.id = id;
  p.source = "004";
  p.tokens = {"clouds", "drift", "across", "blue", "sky"};
  p.d_model = 5;
  p.causal = causal;
  p.x = Mat::Identity(5, 5);
  // Bidirectional weights; the "sky" row is the notes' [0.30, 0.10, 0.10, 0.30, 0.20].
  const Mat a = from_rows({{0.40f, 0.30f, 0.10f, 0.10f, 0.10f},
                           {0.30f, 0.40f, 0.20f, 0.05f, 0.05f},
                           {0.20f, 0.30f, 0.30f, 0.10f, 0.10f},
                           {0.10f, 0.05f, 0.05f, 0.40f, 0.40f},
                           {0.30f, 0.10f, 0.10f, 0.30f, 0.20f}});
  p.wq = log_table_query(a);
  p.wk = Mat::Identity(5, 5);
  p.wv = from_rows({{1, 0, 0, 2, 0}, {0, 1, 0, 0, 1}, {0, 0, 1, 1, 0}, {2, 0, 1, 0, 0}, {0, 1, 0, 0, 2}});
  p.wo = Mat::Identity(5, 5);
  if (causal) {
    p.concepts = {"causal-mask"};
    p.title = "\"Clouds drift across blue sky\" with the look-ahead mask";
    p.claim = "look-ahead mask for n = 5; \"across\" attends to clouds, drift, across only";
    p.row = 2;  // "across"
  } else {
    p.concepts = {"softmax", "weighted-sum"};
    p.title = "\"Clouds drift across blue sky\": the weights for \"sky\"";
    p.claim = "weights for \"sky\": [0.30, 0.10, 0.10, 0.30, 0.20]";
    p.row = 4;  // "sky"
  }
  return p;
}

Preset pe_d4() {
  Preset p = described("sinusoidal.d4", {"sinusoidal"}, "004", "Sinusoidal positions with d_model = 4",
                       "PE(0, *) = 0, 1, 0, 1; PE(1, 0) = sin 1 = 0.84; PE(1, 1) = cos 1 = 0.54",
                       {"the", "cat", "sat", "down"});
  p.d_model = 4;
  p.pos = PosKind::Sinusoidal;
  p.x = Mat::Zero(4, 4);  // zero embeddings: x = PE exactly, so the view shows the table itself
  p.wq = p.wk = p.wv = p.wo = Mat::Identity(4, 4);
  return p;
}

Preset scale_512() {
  // The notes' case (004): d_k = 512, queries and keys with N(0, 1) entries, so q.k has variance
  // d_k and spreads by about sqrt(512) = 22.6. The queries are the token vectors themselves
  // (W_Q = I); W_K shuffles the 512 coordinates and flips random signs (a signed permutation,
  // orthogonal), so every key is an N(0, 1) vector too, and no query meets a copy of itself
  // (with W_K = I the diagonal q_i.k_i = |x_i|^2 = 512 would win every row, scaled or not).
  // Unscaled, the softmax puts nearly all of a row's weight on one key; divided by sqrt(512)
  // the scores spread by about 1 and the weights spread too. One draw of 5 x 5 scores (seed 3,
  // a typical one: spread 22.0); the scale view's d_k slider averages many draws (scale_stats).
  Preset p = described("scale.d512", {"scale"}, "004", "Why scale: d_k = 512",
                       "d_k = 512: q.k spreads by about sqrt(d_k) = 22.6; the softmax of such scores is extremely "
                       "peaked (one weight near 1), dividing by sqrt(d_k) brings the variance back to 1",
                       {"clouds", "drift", "across", "blue", "sky"});
  const int d = 512;
  p.d_model = d;
  SplitMix64 rng{3};
  auto gauss = [&rng]() {  // Box-Muller: deterministic everywhere
    const double u1 = rng.unit_open(), u2 = rng.unit_open();
    return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  };
  p.x.resize(5, d);  // (n, d_k): q_i = x_i
  for (Eigen::Index i = 0; i < p.x.size(); ++i) p.x.data()[i] = gauss();
  std::vector<int> perm(static_cast<size_t>(d));
  for (int i = 0; i < d; ++i) perm[static_cast<size_t>(i)] = i;
  for (int i = d - 1; i > 0; --i)  // Fisher-Yates
    std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(rng.next() % static_cast<uint64_t>(i + 1))]);
  p.wk = Mat::Zero(d, d);  // (d, d): k_j = x_j W_K, coordinate i of x goes to perm[i], sign +-1
  for (int i = 0; i < d; ++i) p.wk(i, perm[static_cast<size_t>(i)]) = (rng.next() & 1) ? 1.0f : -1.0f;
  p.wq = p.wv = p.wo = Mat::Identity(d, d);
  return p;
}

}  // namespace

const std::vector<Preset>& lecture_presets() {
  static const std::vector<Preset> presets = [] {
    std::vector<Preset> v;
    v.push_back(the_cat_sat("softmax.the-cat-sat"));
    v.push_back(the_cat_sat("weighted-sum.the-cat-sat"));
    v.push_back(thinking_machines());
    v.push_back(clouds("softmax.clouds", false));
    v.push_back(clouds("causal-mask.clouds", true));
    v.push_back(pe_d4());
    v.push_back(scale_512());
    return v;
  }();
  return presets;
}

const Mat& preset_matrix(const Preset& p, const std::string& which) {
  if (which == "x") return p.x;
  if (which == "wq") return p.wq;
  if (which == "wk") return p.wk;
  if (which == "wv") return p.wv;
  if (which == "wo") return p.wo;
  fail("unknown preset matrix '" + which + "'");
}

std::vector<int> preset_head_choices(const Preset& p) {
  ModelConfig c;
  c.d_model = p.d_model;
  c.n_heads = p.n_heads;
  c.pos = PosKind::None;
  return switch_choices(c).n_heads;
}

const Preset& find_preset(const std::string& id) {
  std::string known;
  for (const Preset& p : lecture_presets()) {
    if (p.id == id) return p;
    known += (known.empty() ? "" : ", ") + p.id;
  }
  fail("unknown preset '" + id + "' (known: " + known + ")");
}

void run_preset(const Preset& p, Trace& trace) {
  trace.clear();
  Mat x = p.x;
  trace.add2d("embed", "", -1, static_cast<int>(x.rows()), static_cast<int>(x.cols())) = x;
  if (p.pos == PosKind::Sinusoidal) {
    Mat pe;
    sinusoidal_positions(pe, static_cast<int>(x.rows()), p.d_model);
    trace.add2d("pos", "", -1, static_cast<int>(pe.rows()), static_cast<int>(pe.cols())) = pe;
    x += pe;
  }
  trace.add2d("x", "", -1, static_cast<int>(x.rows()), static_cast<int>(x.cols())) = x;
  AttentionWeights w{p.wq, p.wk, p.wv, p.wo, {}, {}, {}, {}};
  AttentionOptions opt;
  opt.n_heads = p.n_heads;
  opt.causal = p.causal;
  opt.scale = p.scale;
  Mat out;
  multi_head_attention(out, x, x, w, opt, &trace);
}

}  // namespace ap
