// Training the RNN encoder-decoder with additive attention (core/rnn_attention.hpp), llm.c
// style: a forward/backward pair per layer (one encoder direction with BPTT, one additive
// attention step, one decoder cell; embedding, linear and softmax cross-entropy come from
// train/ops.hpp), the whole model's forward that keeps every activation, and its backward.
// One example at a time (the source and target lengths vary; no padding), gradients summed
// over a batch, AdamW (train/adamw.hpp). Templated on the scalar: float to train, double for
// the finite-difference test. The forward is the core's to within float rounding
// (test_train_rnn_attention holds them equal), so a trained file does in the browser what it did here.
//
// Dimension letters as in rnn_attention.hpp: S source length, T decoder steps, E embedding,
// H one encoder direction, D = 2H, Ds decoder state, A attention width, V vocabulary.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include "base/rng.hpp"
#include "core/rnn_attention.hpp"
#include "data/tasks.hpp"
#include "train/adamw.hpp"
#include "train/evaluate.hpp"

namespace ap::train {

// ---- layers ----------------------------------------------------------------------------------

// One encoder direction: state_j = tanh(x_j wx + state_prev wh + b), j = 0..S-1 (reverse: S-1..0).
// states (S, H); x (S, E); wx (E, H); wh (H, H); b (H).
template <typename T>
void rnn_dir_forward(T* states, const T* x, const T* wx, const T* wh, const T* b, int S, int E, int H, bool reverse);
// Backpropagation through time. dstates (S, H) holds d loss / d state_j from outside the
// recurrence; it is used as scratch (it ends as d loss / d pre-activation). Adds into dx (S, E)
// (may be nullptr), dwx, dwh, db.
template <typename T>
void rnn_dir_backward(T* dx, T* dwx, T* dwh, T* db, T* dstates, const T* states, const T* x, const T* wx, const T* wh,
                      int S, int E, int H, bool reverse);

// One additive attention step from the previous decoder state s_prev (Ds) over h (S, D), with
// wh_h = h W_h (S, A) precomputed: ws (A) = s_prev W_s; th (S, A) = tanh(ws + wh_h[j]);
// e (S) = th v; alpha (S) = softmax(e); ctx (D) = alpha h.
template <typename T>
void additive_step_forward(T* ctx, T* alpha, T* e, T* th, T* ws, const T* s_prev, const T* h, const T* wh_h,
                           const T* att_ws, const T* v, int S, int D, int Ds, int A);
// Adds into ds_prev (Ds), dh (S, D), dwh_h (S, A), datt_ws (Ds, A), dv (A), given dctx (D).
template <typename T>
void additive_step_backward(T* ds_prev, T* dh, T* dwh_h, T* datt_ws, T* dv, const T* dctx, const T* alpha, const T* th,
                            const T* s_prev, const T* h, const T* att_ws, const T* v, int S, int D, int Ds, int A);

// The decoder cell: s = tanh(yproj + ctx wc + s_prev ws), yproj = y W_y + b precomputed (Ds).
template <typename T>
void decoder_cell_forward(T* s, const T* yproj, const T* ctx, const T* s_prev, const T* wc, const T* ws, int D, int Ds);
// Given ds (Ds), adds into dyproj (Ds), dctx (D), ds_prev (Ds), dwc (D, Ds), dws (Ds, Ds).
template <typename T>
void decoder_cell_backward(T* dyproj, T* dctx, T* ds_prev, T* dwc, T* dws, const T* ds, const T* s, const T* ctx,
                           const T* s_prev, const T* wc, const T* ws, int D, int Ds);

// ---- the model -------------------------------------------------------------------------------

template <typename T>
struct RnnAttnParams {
  struct Tensor {
    std::string name;
    std::vector<int> shape;
    size_t offset, size;
    bool decay;
  };
  explicit RnnAttnParams(const RnnAttnConfig& cfg);  // cfg.vocab_size must be set
  RnnAttnParams(const RnnAttnParams&) = delete;
  RnnAttnParams& operator=(const RnnAttnParams&) = delete;

  RnnAttnConfig cfg;
  std::vector<T> flat;
  std::vector<Tensor> tensors;  // the file's names, in RnnAttnModel::named_tensors() order
  T *emb, *fwd_wx, *fwd_wh, *fwd_b, *bwd_wx, *bwd_wh, *bwd_b, *init_w, *init_b;
  T *att_ws, *att_wh, *att_v, *dec_wy, *dec_wc, *dec_ws, *dec_b, *out_w, *out_b;

  size_t size() const { return flat.size(); }
  void zero();
};

// Seeded: Xavier-uniform matrices, N(0, 1)/sqrt(E)-scaled embeddings, zero biases.
template <typename T>
void init_params(RnnAttnParams<T>& p, uint64_t seed);
void params_to_model(RnnAttnModel& m, const RnnAttnParams<float>& p);

// One example: source ids, decoder input (<bos> + target) and targets (target + <eos>).
struct Seq2Seq {
  std::vector<int> src, inputs, targets;
};
Seq2Seq make_seq2seq(const Task& task, const Example& ex);

template <typename T>
struct RnnAttnActs {
  // Named after the core's trace stages (core/rnn_attention.cpp), so a buffer here is the stage
  // the page shows; yproj, oin and pre0 are the trainer's own (no stage records them).
  int S = 0, T_ = 0;
  std::vector<T> enc_embed, dec_embed;                  // (S, E) (T, E)
  std::vector<T> enc_fwd, enc_bwd, enc_h;               // (S, H) (S, H) (S, D)
  std::vector<T> dec_s;                                 // (T + 1, Ds) s_0 .. s_T
  std::vector<T> add_h, yproj;                          // (S, A) h W_h; (T, Ds) y W_y + b
  std::vector<T> add_s, add_tanh;                       // (T, A) s_prev W_s; (T*S, A)
  std::vector<T> add_scores, add_weights, add_context;  // (T, S) (T, S) (T, D)
  std::vector<T> oin, logits, probs, losses;            // (T, Ds + D) (T, V) (T, V) (T)
  // backward scratch: d_<stage> is d loss / d <stage>
  std::vector<T> d_oin, d_logits, d_dec_s, d_add_context, d_enc_h, d_enc_fwd, d_enc_bwd, d_add_h, d_yproj, d_enc_embed,
      d_dec_embed, d_pre0;
};

// Runs one example, keeps every activation; returns the summed loss over its targets.
template <typename T>
double rnn_attention_forward(RnnAttnActs<T>& a, const RnnAttnParams<T>& p, const Seq2Seq& ex);
// Adds d(loss_scale * summed loss)/d(param) into grads. Call after the forward of the same example.
template <typename T>
void rnn_attention_backward(RnnAttnParams<T>& grads, RnnAttnActs<T>& a, const RnnAttnParams<T>& p, const Seq2Seq& ex,
                            T loss_scale);

// ---- a training run --------------------------------------------------------------------------

struct RnnAttnTrainConfig {
  std::string task = "dates";
  RnnAttnConfig model;  // sizes; vocab, max_len and tokenizer come from the task
  OptimConfig optim;
  int batch = 32;
  uint64_t seed = 1;
};

class RnnAttnTrainer {
 public:
  explicit RnnAttnTrainer(const RnnAttnTrainConfig& cfg);
  float step();  // one AdamW step on a fresh batch; returns its mean loss per target token
  float last_grad_norm() const { return grad_norm_; }
  const Task& task() const { return *task_; }
  const RnnAttnParams<float>& params() const { return params_; }
  // The trained weights as an inference model (metadata: task).
  RnnAttnModel to_model() const;
  // Exact match of greedy decoding (by the core) on n held-out examples drawn with seed.
  EvalResult evaluate(int n, uint64_t seed) const;

 private:
  RnnAttnTrainConfig cfg_;
  std::unique_ptr<Task> task_;
  RnnAttnParams<float> params_, grads_;
  AdamW opt_;
  Rng data_rng_;
  RnnAttnActs<float> acts_;
  float grad_norm_ = 0.0f;
};

// Exact match of the core's greedy translation on n held-out examples of the task.
EvalResult evaluate_rnn_attention(const RnnAttnModel& model, const Task& task, int n, uint64_t seed);

}  // namespace ap::train
