// An RNN encoder-decoder with additive attention (Bahdanau, Cho and Bengio 2015; notes 004,
// eq. 2-9), the model the birnn, bahdanau and translation views run once it is trained:
//
//   encoder (bidirectional tanh RNN over the source x_1..x_S):
//     fwd_j = tanh(x_j W_x^f + fwd_{j-1} W_h^f + b^f)        fwd_0 = 0       (S, H)
//     bwd_j = tanh(x_j W_x^b + bwd_{j+1} W_h^b + b^b)        bwd_{S+1} = 0   (S, H)
//     h_j = [fwd_j ; bwd_j]                                                  (S, D = 2H)
//   decoder, for output step t = 1..T (s_0 = tanh(bwd_1 W_init + b_init), as in the paper):
//     e_tj = v^T tanh(W_s s_{t-1} + W_h h_j)    alpha_t = softmax_j(e_t)    C_t = sum_j alpha_tj h_j
//     s_t = tanh(y_{t-1} W_y + C_t W_c + s_{t-1} W_ss + b_s)   y_{t-1}: embedding of the previous word
//     logits_t = [s_t ; C_t] W_o + b_o                                       (V)
//
// Dimension letters: S source length, T decoder steps, E embedding width, H one direction of
// the encoder, D = 2H, Ds decoder state width, A attention width, V vocabulary.
// Every W is (in, out), applied as x @ W. Tensor names (safetensors):
//   emb (V, E)  enc_fwd.{wx (E, H), wh (H, H), b (H)}  enc_bwd.{wx, wh, b}
//   dec_init.{w (H, Ds), b (Ds)}  attn.{ws (Ds, A), wh (D, A), v (A)}
//   dec.{wy (E, Ds), wc (D, Ds), ws (Ds, Ds), b (Ds)}  out.{w (Ds + D, V), b (V)}
// One word tokenizer for both languages; the decoder starts from <bos> and stops at <eos>.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>
#include "base/rng.hpp"
#include "base/tensor.hpp"
#include "core/tokenizer.hpp"
#include "trace/trace.hpp"

namespace ap {

struct RnnAttnConfig {
  int vocab_size = 0;  // V (0 = from the tokenizer)
  int d_emb = 32;      // E
  int d_enc = 32;      // H, one direction (h_j has 2H numbers)
  int d_dec = 64;      // Ds
  int d_att = 32;      // A
  int max_len = 40;    // longest source, and most decoder steps
  std::string tokenizer = "word";
  void validate() const;  // throws ap::Error naming the bad size
};

struct RnnAttnWeights {
  Mat emb;  // (V, E)
  Mat fwd_wx, fwd_wh;
  Vec fwd_b;  // (E, H) (H, H) (H)
  Mat bwd_wx, bwd_wh;
  Vec bwd_b;  // (E, H) (H, H) (H)
  Mat init_w;
  Vec init_b;  // (H, Ds) (Ds)
  Mat att_ws, att_wh;
  Vec att_v;  // (Ds, A) (D, A) (A)
  Mat dec_wy, dec_wc, dec_ws;
  Vec dec_b;  // (E, Ds) (D, Ds) (Ds, Ds) (Ds)
  Mat out_w;
  Vec out_b;  // (Ds + D, V) (V)
};

// The one initialisation recipe (the trainer's start and RnnAttnModel::init_random alike): one
// tensor drawn from rng, tensors taken in named_tensors() order. The embedding ("emb", (V, E))
// is N(0, 1 / E), every other matrix Xavier-uniform [-sqrt(6 / (in + out)), ...), every vector
// (biases and attn.v) zero.
template <typename T>
void init_rnn_attention_tensor(const std::string& name, const std::vector<int>& shape, T* data, size_t size, Rng& rng) {
  if (name == "emb") {
    const double sc = 1.0 / std::sqrt(static_cast<double>(shape[1]));
    for (size_t i = 0; i < size; ++i) data[i] = static_cast<T>(rng.normal() * sc);
  } else if (shape.size() == 2) {
    const double a = std::sqrt(6.0 / (shape[0] + shape[1]));
    for (size_t i = 0; i < size; ++i) data[i] = static_cast<T>((2.0 * rng.unit() - 1.0) * a);
  } else {
    std::fill(data, data + size, T(0));
  }
}

class RnnAttnModel {
 public:
  RnnAttnModel(RnnAttnConfig cfg, Tokenizer tok);  // zero weights of the right shapes
  void init_random(uint64_t seed);                 // the trainer's initial weights for this seed

  const RnnAttnConfig& config() const { return cfg_; }
  const Tokenizer& tokenizer() const { return tok_; }
  RnnAttnWeights& weights() { return w_; }
  const RnnAttnWeights& weights() const { return w_; }
  std::map<std::string, std::string>& mutable_metadata() { return meta_; }
  const std::map<std::string, std::string>& metadata() const { return meta_; }

  // Every tensor by its file name, in a stable order (the data is the model's own buffer).
  struct NamedTensor {
    std::string name;
    std::vector<int> shape;
    float* data;
  };
  std::vector<NamedTensor> named_tensors();

  // The encoder alone on source ids: records tokens (S), enc_embed (S, E), enc_fwd (S, H),
  // enc_bwd (S, H), enc_h (S, D). Returns h (S, D).
  Mat encode(Trace& trace, const std::vector<int>& src) const;

  // Encoder, then the decoder. With `tgt` (ids, without <bos>/<eos>) the decoder reads <bos> + tgt
  // (teacher forcing) and runs |tgt| + 1 steps; without it, greedy decoding: each step reads the
  // previous step's argmax, until <eos> or max_len steps. Records, besides the encoder's stages:
  //   dec_tokens (T) the words read (<bos> first), dec_embed (T, E),
  //   dec_s (T + 1, Ds) s_0 .. s_T,
  //   add_ws (Ds, A), add_wh (D, A), add_v (1, A) the attention's parameters,
  //   add_s (T, A) = W_s s_{t-1}, add_h (S, A) = W_h h_j, add_tanh (T, S, A),
  //   add_scores (1, T, S) = e, add_weights (1, T, S) = alpha, add_context (T, D) = C,
  //   logits (T, V), probs (T, V), out_tokens (T) the argmax of each step.
  // Returns the argmax ids (greedy: the translation, <eos> included if reached).
  std::vector<int> forward(Trace& trace, const std::vector<int>& src, const std::vector<int>* tgt) const;

  // The same on texts, as the views type them: the encoder on `src`, and forward with the target
  // text `tgt` (teacher forcing; null for greedy decoding). Throw ap::Error for a source with no words.
  Mat encode_text(Trace& trace, const std::string& src) const;
  std::vector<int> forward_text(Trace& trace, const std::string& src, const std::string* tgt) const;

  // Greedy translation of text, without its <eos>.
  std::string translate(const std::string& text) const;

 private:
  RnnAttnConfig cfg_;
  Tokenizer tok_;
  RnnAttnWeights w_;
  std::map<std::string, std::string> meta_;
};

}  // namespace ap
