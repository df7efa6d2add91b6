// The attention-only stack beside the same stack with FFNs (see attention_stack.hpp).
#include "core/attention_stack.hpp"

#include <cmath>

#include "core/block.hpp"
#include "core/layers.hpp"

namespace ap {

double mean_row_cosine(const Mat& x, Mat* cos) {
  const int n = static_cast<int>(x.rows());
  const Eigen::VectorXf norms = x.rowwise().norm();  // (n)
  Mat c(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const float denom = norms(i) * norms(j);
      c(i, j) = denom > 0.0f ? x.row(i).dot(x.row(j)) / denom : 0.0f;
    }
  double sum = 0.0;
  int pairs = 0;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j, ++pairs) sum += c(i, j);
  if (cos) *cos = c;
  return pairs ? sum / pairs : 1.0;
}

void attention_stack(Trace& tr, const Mat& x0, const BlockWeights& b, const ModelConfig& cfg,
                     const AttentionStackOptions& opt, const std::string& stack) {
  if (opt.depth < 1 || opt.depth > 32) fail("depth must be between 1 and 32, got " + std::to_string(opt.depth));
  if (x0.rows() < 1) fail("the stack needs at least one token");
  if (x0.cols() != cfg.d_model)
    fail("x has " + std::to_string(x0.cols()) + " columns but the model's d_model is " + std::to_string(cfg.d_model));
  check_finite(x0.data(), static_cast<size_t>(x0.size()), "x");
  const int n = static_cast<int>(x0.rows()), d = cfg.d_model;
  auto record = [&](const Mat& x, int l) {
    tr.add2d("stack_x", stack, l, n, d) = x;
    Mat cos;
    const double mean = mean_row_cosine(x, &cos);
    tr.add2d("row_cosine", stack, l, n, n) = cos;
    tr.add2d("mean_cosine", stack, l, 1, 1)(0, 0) = static_cast<float>(mean);
  };
  AttentionOptions ao;
  ao.n_heads = cfg.n_heads;
  ao.scale = cfg.scale;
  ao.causal = opt.causal;
  ao.n_kv_heads = cfg.kv_heads();
  ao.window = opt.causal ? cfg.window : 0;
  Mat x = x0, a, f, sum;  // (n, d) each
  record(x, 0);
  for (int l = 1; l <= opt.depth; ++l) {
    Trace scratch;  // the attention's own stages; only its weights are kept
    multi_head_attention(a, x, x, b.self_attn, ao, &scratch);
    for (const Stage& s : scratch.stages())
      if (s.name == "weights") tr.add("stack_weights", stack, l, s.shape).data = s.data;
    sum = opt.residual ? Mat(x + a) : a;  // (n, d)
    apply_norm(x, sum, b.norm1.gamma, b.norm1.beta, cfg.norm_kind, cfg.eps);
    if (opt.with_ffn) {
      // FFN(x) = act(x W_1 + b_1) W_2 + b_2 (or its gated form), on each row alone: the elementwise nonlinearity.
      ffn_forward(f, x, b.ffn, cfg, nullptr, stack, l);
      sum = opt.residual ? Mat(x + f) : f;
      apply_norm(x, sum, b.norm2.gamma, b.norm2.beta, cfg.norm_kind, cfg.eps);
    }
    record(x, l);
  }
}

void attention_stacks(Trace& tr, const Model& model, const std::vector<int>& ids, int layer,
                      AttentionStackOptions opt) {
  const ModelConfig& cfg = model.config();
  if (cfg.arch == Arch::EncoderDecoder) fail("attentionStacks needs a decoder-only or encoder-only model");
  if (layer < 0 || layer >= cfg.n_layers)
    fail("layer " + std::to_string(layer) + " is out of range: the model has " + std::to_string(cfg.n_layers) +
         " layers");
  Trace fwd;
  model.forward(fwd, ids);
  const std::string stack = cfg.arch == Arch::EncoderOnly ? "encoder" : "decoder";
  const Stage* x = fwd.find("x", stack);
  if (!x) fail("the forward pass recorded no input rows");
  const Mat x0 = Eigen::Map<const Mat>(x->data.data(), x->shape[0], x->shape[1]);
  const auto& blocks = cfg.arch == Arch::EncoderOnly ? model.weights().encoder : model.weights().decoder;
  tr.clear();
  for (const bool ffn : {false, true}) {
    opt.with_ffn = ffn;
    attention_stack(tr, x0, blocks[static_cast<size_t>(layer)], cfg, opt, ffn ? "with_ffn" : "attention_only");
  }
}

}  // namespace ap
