// ffn's "why" (notes 003): "there are no elementwise nonlinearities in self-attention; stacking
// more self-attention layers just re-averages value vectors". One block's weights applied again
// and again to X, either as attention only or as attention followed by the block's FFN, so the
// two stacks differ only by the FFN. Residual paths are a switch: without them, each output row
// is a weighted average of the previous rows' values (then LayerNorm), and the rows converge.
#pragma once
#include <string>
#include <vector>
#include "core/model.hpp"

namespace ap {

struct AttentionStackOptions {
  int depth = 6;          // how many times the block is applied
  bool with_ffn = false;  // the block's FFN after each attention (+ its norm2)
  bool residual = false;  // X + Sublayer(X) as in the model, or the sublayer alone
  bool causal = false;    // causal mask in the attention
};

// Records, under `stack`, for l = 0 (the input) .. depth:
//   stack_x (n, d)       the rows after l applications
//   row_cosine (n, n)    cos(x_i, x_j) = x_i . x_j / (|x_i| |x_j|)
//   mean_cosine (1, 1)   the mean of row_cosine over pairs i < j (1 = every row points the same way)
// and, for l >= 1, the attention weights of that application as stack_weights (h, n, n).
// Post-norm, as the trained models: x <- LN1(attn(x) [+ x]); with the FFN x <- LN2(ffn(x) [+ x]).
void attention_stack(Trace& tr, const Mat& x, const BlockWeights& b, const ModelConfig& cfg,
                     const AttentionStackOptions& opt, const std::string& stack);

// The model's input rows for `ids` (stage x of its main stack) through its block `layer`, applied
// opt.depth times as attention only (stack "attention_only") and with the FFN ("with_ffn"), both
// into tr. opt.with_ffn is ignored. Throws for an encoder-decoder model or a layer out of range.
void attention_stacks(Trace& tr, const Model& model, const std::vector<int>& ids, int layer, AttentionStackOptions opt);

// Mean of cos(x_i, x_j) over pairs i < j of the rows of x (1 for a single row); cos (n, n) if given.
double mean_row_cosine(const Mat& x, Mat* cos = nullptr);

}  // namespace ap
