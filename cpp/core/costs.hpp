// Cost and scale (docs/concepts.md G and A): how many parameters a transformer has and where they
// live (model-sizes), how many FLOPs self-attention and an RNN spend and in how many sequential
// steps (rnn-cost, head-cost), and the sqrt(d_k) experiment on random queries and keys (scale).
//
// Conventions, stated once:
//   - Parameter counts are exact integers: every weight a configuration allocates, biases and
//     LayerNorm gains included. count_parameters(size_config_of(m.config())) equals the number of
//     floats in m.named_tensors() for any Model m (tests/cpp/test_costs.cpp holds them equal).
//   - FLOPs count matrix products only, one multiply-add = 2 FLOPs. Softmax exponentials, the
//     1/sqrt(d_k) scaling, biases and activations are O(n^2 h) or O(n d) and are not in the
//     totals (the number of exponentials is reported separately).
//
// Legend: n tokens, d = d_model, h heads, d_k = d / h, d_ff FFN width, V vocabulary, L positions.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/tensor.hpp"
#include "core/config.hpp"
#include "core/rnn.hpp"

namespace ap {

// ---- parameter counts ---------------------------------------------------------------------

// What decides a transformer's size. Unlike ModelConfig (a model this core can run), this
// describes any transformer, up to GPT-3, including the choices the published models made.
struct SizeConfig {
  Arch arch = Arch::EncoderDecoder;
  int64_t d_model = 512;
  int64_t n_heads = 8;
  int64_t enc_layers = 6;  // used when arch has an encoder
  int64_t dec_layers = 6;  // used when arch has a decoder
  int64_t d_ff = 2048;
  int64_t vocab_size = 37000;
  int64_t max_len = 512;  // rows of the learned position table (pos = learned)
  PosKind pos = PosKind::Sinusoidal;
  int64_t rel_clip = 8;              // relative positions: one bias per head and offset in [-rel_clip, rel_clip]
  NormPlace norm = NormPlace::Post;  // pre-norm adds a final LayerNorm after each stack
  bool biases = true;                // every linear map (W_Q, W_K, W_V, W_O, W_1, W_2) has a bias
  bool share_embeddings = true;      // encoder-decoder: both stacks read one token table
  bool tie_lm_head = true;           // the LM head reuses the token table (transposed): no new weights
  bool lm_head_bias = false;         // a bias of V on the LM head's logits
  int64_t segments = 0;              // BERT: token-type (segment A / B) embeddings, 2 rows
  bool embed_norm = false;           // BERT: a LayerNorm on the summed embeddings
  bool pooler = false;               // BERT: the [CLS] pooler, a d x d dense layer
  // Issue 26: grouped K/V heads (0: n_heads) make W_K and W_V (d, n_kv_heads d_k); RMSNorm has a gain
  // and no bias (d per norm); a gated FFN adds W_gate (d, d_ff), no bias.
  int64_t n_kv_heads = 0;
  NormKind norm_kind = NormKind::Layer;
  FfnKind ffn_kind = FfnKind::Mlp;

  // Throws ap::Error naming the first problem (sizes <= 0, d_model % n_heads != 0, too large...).
  void validate() const;
};

// A config from the numbers a paper states (layers: each stack of the arch); the rest at defaults.
SizeConfig size_config(Arch arch, int64_t d_model, int64_t n_heads, int64_t layers, int64_t d_ff, int64_t vocab_size,
                       PosKind pos, int64_t max_len);

// One layer's parameters by kind.
struct LayerParams {
  int64_t attention = 0;  // self (and cross) attention: W_Q, W_K, W_V, W_O (d x d) and biases
  int64_t ffn = 0;        // W_1 (d x d_ff), b_1, W_2 (d_ff x d), b_2
  int64_t norms = 0;      // LayerNorm gamma and beta, 2d each
  int64_t total() const { return attention + ffn + norms; }
};

struct ParamCount {
  // Embeddings, split by table.
  int64_t token_embeddings = 0;     // V d (twice for an encoder-decoder that does not share)
  int64_t position_embeddings = 0;  // L d learned, h (2 rel_clip + 1) relative, 0 sinusoidal / RoPE / none
  int64_t segment_embeddings = 0;   // segments d
  // Whole-model totals by kind.
  int64_t embeddings = 0;  // the three above
  int64_t attention = 0;
  int64_t ffn = 0;
  int64_t norms = 0;    // every LayerNorm: in the layers, on the embeddings, final ones
  int64_t lm_head = 0;  // d V unless tied, + V with lm_head_bias
  int64_t pooler = 0;   // d^2 + d
  int64_t total = 0;
  // The parts the totals are made of.
  LayerParams encoder_layer, decoder_layer;  // one layer of each stack (zero if absent)
  int64_t enc_layers = 0, dec_layers = 0;    // layers actually counted
};

ParamCount count_parameters(const SizeConfig& c);

// Published models with the total their authors give, for the model-sizes calculator.
struct SizePreset {
  std::string id;  // "original", "original-big", "bert-base", "gpt3"
  std::string title;
  std::string source;     // where the configuration and the published total come from
  int64_t published = 0;  // the published total, as printed (65M is 65000000)
  std::string note;       // how the computed total relates to the published one
  SizeConfig config;
};
const std::vector<SizePreset>& size_presets();
const SizePreset& find_size_preset(const std::string& id);  // throws ap::Error listing the ids

// The SizeConfig of a model this core builds (Model's constructor): one token table shared by
// both stacks, an untied LM head with a bias, biases everywhere, final norms only with pre-norm.
SizeConfig size_config_of(const ModelConfig& m);

// The KV cache of a decoder after `positions` tokens, float32: per decoder layer K and V, positions rows of
// n_kv_heads d_k each (bytes), and what multi-head attention's cache (n_heads d_k = d wide) would hold
// (mha_bytes); bytes / mha_bytes = n_kv_heads / n_heads. Encoder-decoder caches of the memory's
// cross-attention K/V are not counted (they are fixed by the source, not by decoding).
struct KvCacheSize {
  int64_t positions = 0, layers = 0, kv_width = 0;
  int64_t bytes_per_token = 0;  // 2 layers kv_width 4
  int64_t bytes = 0, mha_bytes = 0;
};
KvCacheSize kv_cache_size(const SizeConfig& c, int64_t positions);

// ---- FLOP counts ---------------------------------------------------------------------------

// One multi-head self-attention layer on n tokens (no FFN).
struct AttentionFlops {
  int64_t n = 0, d = 0, h = 0, d_k = 0;
  int64_t n_kv_heads = 0, window = 0;  // as asked (n_kv_heads h when not grouped; window 0: none)
  // Query-key pairs each head scores: n^2 without a window (the notes' count, masked or not); with a
  // causal window w, sum over queries i of min(i + 1, w) <= n w: the O(n w) of local attention.
  int64_t pairs = 0;
  int64_t projections = 0;       // X W_Q, X W_K, X W_V, concat W_O: 4 (n x d)(d x d) = 8 n d^2 (K, V: d_kv wide)
  int64_t scores = 0;            // Q K^T per head: h n^2 d_k multiply-adds = 2 n^2 d
  int64_t weighted_sum = 0;      // A V per head: h n^2 d_k multiply-adds = 2 n^2 d
  int64_t quadratic = 0;         // scores + weighted_sum: the O(n^2 d) part = 4 n^2 d
  int64_t total = 0;             // projections + quadratic
  int64_t score_entries = 0;     // h n^2: the scores held at once (memory)
  int64_t softmax_exps = 0;      // h n^2 exponentials (not in the FLOP totals)
  int64_t sequential_steps = 1;  // every token at once: one parallel step per layer
  int64_t path_length = 1;       // any token reaches any other in one hop
};

// Elman RNN over n tokens, input width = hidden width = d (the notes' assumption):
// h_t = g(W h_{t-1} + U x_t + b).
struct RnnFlops {
  int64_t n = 0, d = 0;
  int64_t per_step = 0;          // W h_{t-1} and U x_t: 2 d^2 multiply-adds = 4 d^2
  int64_t total = 0;             // n per_step = 4 n d^2: the O(n d^2)
  int64_t sequential_steps = 0;  // n: step t waits for step t-1
  int64_t path_length = 0;       // n - 1 steps from the first token to the last
};

// Throws for n or d outside [1, limits], h < 1, d % h != 0.
// n_kv_heads (0: h) must divide h; window >= 0 (0: none). scores and weighted_sum are 2 h pairs d_k each.
AttentionFlops attention_flops(int64_t n, int64_t d, int64_t h, int64_t n_kv_heads = 0, int64_t window = 0);
RnnFlops rnn_flops(int64_t n, int64_t d);

// The forward recurrence alone, h_t = tanh(x_t W_xh + h_{t-1} W_hh + b), h_0 = 0, into
// states (n, d_h): what an RNN layer costs, without rnn_forward's Jacobians (rnn-cost times it).
void rnn_states(Mat& states, const Mat& x, const RnnWeights& w);

// ---- the scale experiment -----------------------------------------------------------------

// Statistics of one way of scoring (raw q.k, or q.k / sqrt(d_k)).
struct ScoreStats {
  double mean = 0.0;        // of every score
  double std = 0.0;         // spread of every score (population std over all draws)
  double entropy = 0.0;     // softmax row entropy in nats, mean over rows (max ln n)
  double max_weight = 0.0;  // largest softmax weight of a row, mean over rows (min 1/n)
};

struct ScaleStats {
  int d_k = 0, n = 0, draws = 0;
  double sqrt_dk = 0.0;      // the divisor
  double max_entropy = 0.0;  // ln n: uniform weights
  ScoreStats unscaled, scaled;
};

// `draws` times: n queries and n keys with independent N(0, 1) entries (seeded Box-Muller), the
// n x n scores q_i.k_j, their softmax rows; statistics pooled over every draw. Var(q.k) = d_k, so
// the unscaled std grows like sqrt(d_k) and the scaled one stays near 1.
// Throws for sizes < 1 or draws n^2 d_k beyond the work limit.
ScaleStats scale_stats(int d_k, int n, int draws, uint64_t seed);

}  // namespace ap
