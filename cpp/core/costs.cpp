// Parameter counts, FLOP counts and the sqrt(d_k) experiment (see costs.hpp for conventions).
#include "core/costs.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "base/rng.hpp"
#include "core/layers.hpp"

namespace ap {

namespace {

// Large enough for GPT-3 and beyond, small enough that no count can overflow int64
// (the largest term, 2 d d_ff layers, stays below 2^60).
constexpr int64_t kMaxD = int64_t{1} << 20;
constexpr int64_t kMaxLayers = 10000;
constexpr int64_t kMaxWide = int64_t{1} << 24;       // d_ff, vocabulary, positions
constexpr int64_t kMaxTokens = int64_t{1} << 20;     // n for FLOP counts
constexpr int64_t kMaxFlopD = int64_t{1} << 17;      // d for FLOP counts: 4 n^2 d < 2^63
constexpr int64_t kMaxScaleWork = int64_t{1} << 27;  // draws n^2 d_k multiply-adds

std::string str(int64_t v) { return std::to_string(v); }

void check_range(const char* name, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo) fail(std::string(name) + " must be >= " + str(lo) + " (got " + str(value) + ")");
  if (value > hi) fail(std::string(name) + " (" + str(value) + ") exceeds the limit of " + str(hi));
}

void check_heads(int64_t d, int64_t h) {
  if (d % h != 0) fail("d_model (" + str(d) + ") is not divisible by n_heads (" + str(h) + ")");
}

}  // namespace

// ---- parameter counts ---------------------------------------------------------------------

void SizeConfig::validate() const {
  check_range("d_model", d_model, 1, kMaxD);
  check_range("n_heads", n_heads, 1, kMaxD);
  check_heads(d_model, n_heads);
  if (arch != Arch::DecoderOnly) check_range("encoder layers", enc_layers, 1, kMaxLayers);
  if (arch != Arch::EncoderOnly) check_range("decoder layers", dec_layers, 1, kMaxLayers);
  check_range("d_ff", d_ff, 1, kMaxWide);
  check_range("vocab_size", vocab_size, 1, kMaxWide);
  if (pos == PosKind::Learned) check_range("max_len", max_len, 1, kMaxWide);
  if (pos == PosKind::Relative) check_range("rel_clip", rel_clip, 1, kMaxWide);
  check_range("segments", segments, 0, 1024);
  check_range("n_kv_heads", n_kv_heads, 0, n_heads);
  if (n_kv_heads > 0 && n_heads % n_kv_heads != 0)
    fail("n_kv_heads (" + str(n_kv_heads) + ") must divide n_heads (" + str(n_heads) + ")");
}

ParamCount count_parameters(const SizeConfig& c) {
  c.validate();
  const int64_t d = c.d_model, V = c.vocab_size;
  const int64_t linear_bias = c.biases ? 1 : 0;
  const int64_t kv = (c.n_kv_heads > 0 ? c.n_kv_heads : c.n_heads) * (d / c.n_heads);  // K, V width
  const int64_t attention = 2 * d * d + 2 * d * kv + linear_bias * (2 * d + 2 * kv);  // W_Q W_O (d, d), W_K W_V (d, kv)
  const int64_t ffn_mats = c.ffn_kind == FfnKind::Mlp ? 2 : 3;                        // + W_gate (d, d_ff)
  const int64_t ffn = ffn_mats * d * c.d_ff + linear_bias * (c.d_ff + d);  // W_1 (d, d_ff) W_2 (d_ff, d) + b_1 b_2
  const int64_t norm = c.norm_kind == NormKind::Layer ? 2 * d : d;         // gamma, beta (RMSNorm: gamma)

  ParamCount p;
  const bool enc = c.arch != Arch::DecoderOnly, dec = c.arch != Arch::EncoderOnly;
  const bool cross = c.arch == Arch::EncoderDecoder;
  p.enc_layers = enc ? c.enc_layers : 0;
  p.dec_layers = dec ? c.dec_layers : 0;
  if (enc) p.encoder_layer = {attention, ffn, 2 * norm};  // self-attn, FFN, 2 Add & Norm
  if (dec) p.decoder_layer = {cross ? 2 * attention : attention, ffn, (cross ? 3 : 2) * norm};

  const int64_t tables = (cross && !c.share_embeddings) ? 2 : 1;
  p.token_embeddings = tables * V * d;
  if (c.pos == PosKind::Learned) p.position_embeddings = c.max_len * d;
  if (c.pos == PosKind::Relative) p.position_embeddings = c.n_heads * (2 * c.rel_clip + 1);
  p.segment_embeddings = c.segments * d;
  p.embeddings = p.token_embeddings + p.position_embeddings + p.segment_embeddings;

  p.attention = p.enc_layers * p.encoder_layer.attention + p.dec_layers * p.decoder_layer.attention;
  p.ffn = p.enc_layers * p.encoder_layer.ffn + p.dec_layers * p.decoder_layer.ffn;
  const int64_t final_norms = c.norm == NormPlace::Pre ? (enc ? 1 : 0) + (dec ? 1 : 0) : 0;
  p.norms = p.enc_layers * p.encoder_layer.norms + p.dec_layers * p.decoder_layer.norms + (c.embed_norm ? norm : 0) +
            final_norms * norm;
  p.lm_head = (c.tie_lm_head ? 0 : d * V) + (c.lm_head_bias ? V : 0);
  p.pooler = c.pooler ? d * d + linear_bias * d : 0;
  p.total = p.embeddings + p.attention + p.ffn + p.norms + p.lm_head + p.pooler;
  return p;
}

SizeConfig size_config(Arch arch, int64_t d_model, int64_t n_heads, int64_t layers, int64_t d_ff, int64_t vocab_size,
                       PosKind pos, int64_t max_len) {
  SizeConfig c;
  c.arch = arch;
  c.d_model = d_model;
  c.n_heads = n_heads;
  c.enc_layers = c.dec_layers = layers;
  c.d_ff = d_ff;
  c.vocab_size = vocab_size;
  c.pos = pos;
  c.max_len = max_len;
  return c;
}

const std::vector<SizePreset>& size_presets() {
  static const std::vector<SizePreset> presets = [] {
    std::vector<SizePreset> v;
    SizeConfig c;  // the defaults are the original base model
    v.push_back({"original", "Original Transformer (base)",
                 "Vaswani et al. 2017 (Attention Is All You Need, sec. 3 and 5.1, Table 3): 65M. The notes (004) "
                 "give this model's shape (d_model = 512, 6 layers, 8 heads), not its total.",
                 65000000,
                 "The stated setup (a shared vocabulary of about 37000 BPE tokens, one matrix for both embeddings "
                 "and the output layer) gives 63.1M, 2.95% under the published 65M. The paper gives the "
                 "vocabulary only as \"about 37000\": all eight base-width rows of its Table 3 fit one table of "
                 "about 41,000 rows (65.1M here), while its big row fits 37000.",
                 c});
    c.d_model = 1024;
    c.n_heads = 16;
    c.d_ff = 4096;
    v.push_back({"original-big", "Original Transformer (big)",
                 "Vaswani et al. 2017 (Attention Is All You Need, Table 3, big): 213M. Not in the notes.", 213000000,
                 "Same vocabulary and sharing as base; within 1% of the published 213M.", c});
    SizeConfig b = size_config(Arch::EncoderOnly, 768, 12, 12, 3072, 30522, PosKind::Learned, 512);
    b.segments = 2;
    b.embed_norm = true;
    b.pooler = true;
    v.push_back({"bert-base", "BERT-base",
                 "Devlin et al. 2018 (BERT, sec. 3): 110M; vocabulary of the released uncased model. The notes "
                 "(004) give this model's shape (d_model = 768, 12 layers, 12 heads), not its total.",
                 110000000,
                 "Token, position (512) and segment (2) embeddings with a LayerNorm, 12 encoder layers and the "
                 "pooler; the masked-LM output layer reuses the token table.",
                 b});
    SizeConfig g = size_config(Arch::DecoderOnly, 12288, 96, 96, 4 * 12288, 50257, PosKind::Learned, 2048);
    g.norm = NormPlace::Pre;
    v.push_back({"gpt3", "GPT-3 175B",
                 "Notes 004: 175B parameters (d_model = 12288, 96 layers, 96 heads), as in Brown et al. 2020 "
                 "(Language Models are Few-Shot Learners, Table 2.1: 175.0B).",
                 175000000000,
                 "96 decoder layers of d 12288 (96 heads of 128, d_ff = 4d), 2048 learned positions, the GPT-2 "
                 "vocabulary of 50257, tied input and output embeddings, pre-norm.",
                 g});
    return v;
  }();
  return presets;
}

const SizePreset& find_size_preset(const std::string& id) {
  std::string known;
  for (const SizePreset& p : size_presets()) {
    if (p.id == id) return p;
    known += (known.empty() ? "" : ", ") + p.id;
  }
  fail("unknown model-size preset '" + id + "' (known: " + known + ")");
}

KvCacheSize kv_cache_size(const SizeConfig& c, int64_t positions) {
  c.validate();
  check_range("positions", positions, 0, kMaxTokens);
  KvCacheSize k;
  k.positions = positions;
  k.layers = c.arch == Arch::EncoderOnly ? 0 : c.dec_layers;
  k.kv_width = (c.n_kv_heads > 0 ? c.n_kv_heads : c.n_heads) * (c.d_model / c.n_heads);
  k.bytes_per_token = 2 * k.layers * k.kv_width * static_cast<int64_t>(sizeof(float));
  k.bytes = positions * k.bytes_per_token;
  k.mha_bytes = positions * 2 * k.layers * c.d_model * static_cast<int64_t>(sizeof(float));
  return k;
}

SizeConfig size_config_of(const ModelConfig& m) {
  SizeConfig c;
  c.n_kv_heads = m.kv_heads() == m.n_heads ? 0 : m.kv_heads();
  c.norm_kind = m.norm_kind;
  c.ffn_kind = m.ffn_kind;
  c.arch = m.arch;
  c.d_model = m.d_model;
  c.n_heads = m.n_heads;
  c.enc_layers = c.dec_layers = m.n_layers;
  c.d_ff = m.d_ff;
  c.vocab_size = m.vocab_size;
  c.max_len = m.max_len;
  c.pos = m.pos;
  c.rel_clip = m.rel_clip;
  c.norm = m.norm;
  c.biases = true;
  c.share_embeddings = true;  // tok_emb serves the encoder and the decoder
  c.tie_lm_head = false;      // lm_head.w (d, V) is its own tensor
  c.lm_head_bias = true;      // lm_head.b (V)
  return c;
}

// ---- FLOP counts ---------------------------------------------------------------------------

AttentionFlops attention_flops(int64_t n, int64_t d, int64_t h, int64_t n_kv_heads, int64_t window) {
  check_range("n", n, 1, kMaxTokens);
  check_range("d", d, 1, kMaxFlopD);
  check_range("h", h, 1, d);
  check_heads(d, h);
  check_range("n_kv_heads", n_kv_heads, 0, h);
  if (n_kv_heads > 0 && h % n_kv_heads != 0)
    fail("n_kv_heads (" + str(n_kv_heads) + ") must divide h (" + str(h) + ")");
  check_range("window", window, 0, kMaxTokens);
  AttentionFlops f;
  f.n = n;
  f.d = d;
  f.h = h;
  f.d_k = d / h;
  f.n_kv_heads = n_kv_heads > 0 ? n_kv_heads : h;
  f.window = window;
  // Causal window w: query i scores min(i + 1, w) keys; w(w + 1) / 2 for the first w, then w each.
  const int64_t full = window > 0 ? std::min(window, n) : 0;
  f.pairs = window > 0 ? full * (full + 1) / 2 + (n - full) * window : n * n;
  const int64_t kv = f.n_kv_heads * f.d_k;
  f.projections = 2 * 2 * n * d * d + 2 * 2 * n * d * kv;  // (n, d)(d, d) for Q and O, (n, d)(d, kv) for K and V
  f.scores = 2 * h * f.pairs * f.d_k;                      // h x (n, d_k)(d_k, n), visible pairs only
  f.weighted_sum = 2 * h * f.pairs * f.d_k;                // h x (n, n)(n, d_k)
  f.quadratic = f.scores + f.weighted_sum;
  f.total = f.projections + f.quadratic;
  f.score_entries = h * f.pairs;
  f.softmax_exps = h * f.pairs;
  f.sequential_steps = 1;
  f.path_length = n > 1 ? 1 : 0;
  return f;
}

RnnFlops rnn_flops(int64_t n, int64_t d) {
  check_range("n", n, 1, kMaxTokens);
  check_range("d", d, 1, kMaxFlopD);
  RnnFlops f;
  f.n = n;
  f.d = d;
  f.per_step = 2 * (2 * d * d);  // h_{t-1} W (d, d) and x_t U (d, d)
  f.total = n * f.per_step;
  f.sequential_steps = n;
  f.path_length = n - 1;
  return f;
}

void rnn_states(Mat& states, const Mat& x, const RnnWeights& w) {
  const Eigen::Index n = x.rows(), d_h = w.whh.rows();
  if (n <= 0) fail("the RNN needs at least one token");
  if (x.cols() != w.wxh.rows()) fail("RNN input has width " + str(x.cols()) + " but W_xh expects " + str(w.wxh.rows()));
  if (w.wxh.cols() != d_h || w.whh.cols() != d_h || (w.b.size() != 0 && w.b.size() != d_h))
    fail("RNN weights disagree: W_xh (" + str(w.wxh.rows()) + ", " + str(w.wxh.cols()) + "), W_hh (" +
         str(w.whh.rows()) + ", " + str(w.whh.cols()) + ")");
  states.resize(n, d_h);
  states.noalias() = x * w.wxh;  // (n, d_h): the input part of every step at once
  if (w.b.size() != 0) states.rowwise() += w.b;
  Vec prev = Vec::Zero(d_h), pre(d_h);
  for (Eigen::Index t = 0; t < n; ++t) {  // sequential: step t waits for step t-1
    pre.noalias() = prev * w.whh;         // (1, d_h) = (1, d_h)(d_h, d_h)
    states.row(t) = (states.row(t) + pre).array().tanh();
    prev = states.row(t);
  }
}

// ---- the scale experiment -----------------------------------------------------------------

namespace {

// Accumulates the statistics of score rows (one softmax per row).
struct StatsSum {
  double sum = 0.0, sum_sq = 0.0, entropy = 0.0, max_weight = 0.0;
  int64_t values = 0, rows = 0;

  void add_row(const double* s, int n, std::vector<double>& w) {
    for (int j = 0; j < n; ++j) {
      sum += s[j];
      sum_sq += s[j] * s[j];
    }
    softmax_row(w.data(), s, n);
    double h = 0.0, top = 0.0;
    for (int j = 0; j < n; ++j) {
      const double p = w[j];
      if (p > 0.0) h -= p * std::log(p);
      if (p > top) top = p;
    }
    entropy += h;
    max_weight += top;
    values += n;
    rows += 1;
  }

  ScoreStats result() const {
    ScoreStats r;
    r.mean = sum / values;
    r.std = std::sqrt(std::max(0.0, sum_sq / values - r.mean * r.mean));
    r.entropy = entropy / rows;
    r.max_weight = max_weight / rows;
    return r;
  }
};

}  // namespace

ScaleStats scale_stats(int d_k, int n, int draws, uint64_t seed) {
  check_range("d_k", d_k, 1, 65536);
  check_range("n", n, 1, 4096);
  check_range("draws", draws, 1, 1000000);
  const int64_t work = int64_t{draws} * n * n * d_k;
  if (work > kMaxScaleWork)
    fail("draws*n*n*d_k = " + str(work) + " exceeds the limit of " + str(kMaxScaleWork) + " multiply-adds");

  SplitMix64 rng{seed};
  // Standard normals; each matrix starts a new Box-Muller pair (an odd count drops the last one).
  auto normals = [&rng](Eigen::MatrixXd& m) {
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = rng.normal();
    rng.drop_spare();
  };

  ScaleStats out;
  out.d_k = d_k;
  out.n = n;
  out.draws = draws;
  out.sqrt_dk = std::sqrt(static_cast<double>(d_k));
  out.max_entropy = std::log(static_cast<double>(n));
  Eigen::MatrixXd q(n, d_k), k(n, d_k);
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows(n, n);
  std::vector<double> w(static_cast<size_t>(n)), scaled(static_cast<size_t>(n));
  StatsSum raw_sum, scaled_sum;
  for (int draw = 0; draw < draws; ++draw) {
    normals(q);
    normals(k);
    rows.noalias() = q * k.transpose();  // (n, n) = (n, d_k)(d_k, n): q_i . k_j
    for (int i = 0; i < n; ++i) {
      const double* r = rows.data() + static_cast<size_t>(i) * n;
      raw_sum.add_row(r, n, w);
      for (int j = 0; j < n; ++j) scaled[static_cast<size_t>(j)] = r[j] / out.sqrt_dk;
      scaled_sum.add_row(scaled.data(), n, w);
    }
  }
  out.unscaled = raw_sum.result();
  out.scaled = scaled_sum.result();
  return out;
}

}  // namespace ap
