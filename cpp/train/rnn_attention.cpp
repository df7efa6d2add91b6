// The RNN encoder-decoder's layers, forward, backward and training run (see rnn_attention.hpp).
// Matrix products go through Eigen maps over the flat buffers; the recurrences are loops over
// time, in the same order as the core's forward.
#include "train/rnn_attention.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>

#include "core/layers.hpp"
#include "core/tokenizer.hpp"
#include "train/ops.hpp"

namespace ap::train {

namespace {

template <typename T>
using RMapT = Eigen::Map<RowT<T>>;
template <typename T>
using CRMapT = Eigen::Map<const RowT<T>>;

template <typename T>
void resize(std::vector<T>& v, size_t n) {
  v.assign(n, T(0));
}

}  // namespace

// ---- one encoder direction -------------------------------------------------------------------

template <typename T>
void rnn_dir_forward(T* states, const T* x, const T* wx, const T* wh, const T* b, int S, int E, int H, bool reverse) {
  MapT<T> st(states, S, H);
  st.noalias() = CMapT<T>(x, S, E) * CMapT<T>(wx, E, H);  // (S, H): the input part of every step
  st.rowwise() += CRMapT<T>(b, H);
  CMapT<T> whm(wh, H, H);
  for (int k = 0; k < S; ++k) {
    const int j = reverse ? S - 1 - k : k;
    if (k > 0) st.row(j).noalias() += st.row(reverse ? j + 1 : j - 1) * whm;  // + state_prev W_h
    st.row(j) = st.row(j).array().tanh();
  }
}

template <typename T>
void rnn_dir_backward(T* dx, T* dwx, T* dwh, T* db, T* dstates, const T* states, const T* x, const T* wx, const T* wh,
                      int S, int E, int H, bool reverse) {
  MapT<T> ds(dstates, S, H);
  CMapT<T> st(states, S, H), whm(wh, H, H);
  MapT<T> dwhm(dwh, H, H);
  // Walk the steps backwards in time; ds(j) turns into d loss / d pre_j on the way.
  for (int k = S - 1; k >= 0; --k) {
    const int j = reverse ? S - 1 - k : k;
    ds.row(j).array() *= T(1) - st.row(j).array().square();  // tanh' = 1 - state^2
    if (k > 0) {
      const int prev = reverse ? j + 1 : j - 1;
      ds.row(prev).noalias() += ds.row(j) * whm.transpose();   // (1, H)
      dwhm.noalias() += st.row(prev).transpose() * ds.row(j);  // (H, H)
    }
  }
  // Now ds = d pre (S, H); pre = x wx + b.
  linear_backward(dx, dwx, db, dstates, x, wx, S, E, H);
}

// ---- one additive attention step -------------------------------------------------------------

template <typename T>
void additive_step_forward(T* ctx, T* alpha, T* e, T* th, T* ws, const T* s_prev, const T* h, const T* wh_h,
                           const T* att_ws, const T* v, int S, int D, int Ds, int A) {
  RMapT<T> wsr(ws, A);
  wsr.noalias() = CRMapT<T>(s_prev, Ds) * CMapT<T>(att_ws, Ds, A);  // (1, A) = W_s s_{t-1}
  MapT<T> thm(th, S, A);
  CMapT<T> whh(wh_h, S, A);
  CRMapT<T> vr(v, A);
  for (int j = 0; j < S; ++j) {
    thm.row(j) = (wsr + whh.row(j)).array().tanh();  // tanh(W_s s_{t-1} + W_h h_j)
    e[j] = thm.row(j).dot(vr);                       // e_tj = v . tanh(...)
  }
  softmax_row(alpha, e, S);
  RMapT<T>(ctx, D).noalias() = CRMapT<T>(alpha, S) * CMapT<T>(h, S, D);  // C_t = sum_j alpha_tj h_j
}

template <typename T>
void additive_step_backward(T* ds_prev, T* dh, T* dwh_h, T* datt_ws, T* dv, const T* dctx, const T* alpha, const T* th,
                            const T* s_prev, const T* h, const T* att_ws, const T* v, int S, int D, int Ds, int A) {
  CMapT<T> hm(h, S, D), thm(th, S, A);
  CRMapT<T> dc(dctx, D), vr(v, A);
  // C = alpha h: d alpha_j = dC . h_j; dh_j += alpha_j dC.
  RowT<T> dalpha = dc * hm.transpose();                       // (1, S)
  MapT<T>(dh, S, D).noalias() += CMapT<T>(alpha, S, 1) * dc;  // (S, D) outer product
  // softmax: de_j = alpha_j (dalpha_j - sum_k alpha_k dalpha_k)
  T dot = 0;
  for (int j = 0; j < S; ++j) dot += alpha[j] * dalpha(j);
  RowT<T> dws = RowT<T>::Zero(A);
  RMapT<T> dvr(dv, A);
  MapT<T> dwhh(dwh_h, S, A);
  for (int j = 0; j < S; ++j) {
    const T de = alpha[j] * (dalpha(j) - dot);
    dvr += de * thm.row(j);                                                       // e_j = th_j . v
    const RowT<T> dz = (de * vr).array() * (T(1) - thm.row(j).array().square());  // through tanh
    dwhh.row(j) += dz;
    dws += dz;
  }
  // ws = s_prev W_s
  MapT<T>(datt_ws, Ds, A).noalias() += CMapT<T>(s_prev, Ds, 1) * dws;  // (Ds, A)
  RMapT<T>(ds_prev, Ds).noalias() += dws * CMapT<T>(att_ws, Ds, A).transpose();
}

// ---- the decoder cell ------------------------------------------------------------------------

template <typename T>
void decoder_cell_forward(T* s, const T* yproj, const T* ctx, const T* s_prev, const T* wc, const T* ws, int D,
                          int Ds) {
  RMapT<T> out(s, Ds);
  out = CRMapT<T>(yproj, Ds);
  out.noalias() += CRMapT<T>(ctx, D) * CMapT<T>(wc, D, Ds);
  out.noalias() += CRMapT<T>(s_prev, Ds) * CMapT<T>(ws, Ds, Ds);
  out = out.array().tanh();
}

template <typename T>
void decoder_cell_backward(T* dyproj, T* dctx, T* ds_prev, T* dwc, T* dws, const T* ds, const T* s, const T* ctx,
                           const T* s_prev, const T* wc, const T* ws, int D, int Ds) {
  const RowT<T> dpre = CRMapT<T>(ds, Ds).array() * (T(1) - CRMapT<T>(s, Ds).array().square());
  RMapT<T>(dyproj, Ds) += dpre;
  RMapT<T>(dctx, D).noalias() += dpre * CMapT<T>(wc, D, Ds).transpose();
  RMapT<T>(ds_prev, Ds).noalias() += dpre * CMapT<T>(ws, Ds, Ds).transpose();
  MapT<T>(dwc, D, Ds).noalias() += CMapT<T>(ctx, D, 1) * dpre;
  MapT<T>(dws, Ds, Ds).noalias() += CMapT<T>(s_prev, Ds, 1) * dpre;
}

// ---- parameters --------------------------------------------------------------------------------

template <typename T>
RnnAttnParams<T>::RnnAttnParams(const RnnAttnConfig& c) : cfg(c) {
  if (cfg.vocab_size <= 0) fail("RnnAttnParams needs the vocabulary size");
  const int V = cfg.vocab_size, E = cfg.d_emb, H = cfg.d_enc, D = 2 * H, Ds = cfg.d_dec, A = cfg.d_att;
  size_t off = 0;
  auto add = [&](const char* name, std::vector<int> shape, bool decay) {
    size_t n = 1;
    for (int d : shape) n *= static_cast<size_t>(d);
    tensors.push_back({name, std::move(shape), off, n, decay});
    off += n;
  };
  add("emb", {V, E}, false);
  add("enc_fwd.wx", {E, H}, true);
  add("enc_fwd.wh", {H, H}, true);
  add("enc_fwd.b", {H}, false);
  add("enc_bwd.wx", {E, H}, true);
  add("enc_bwd.wh", {H, H}, true);
  add("enc_bwd.b", {H}, false);
  add("dec_init.w", {H, Ds}, true);
  add("dec_init.b", {Ds}, false);
  add("attn.ws", {Ds, A}, true);
  add("attn.wh", {D, A}, true);
  add("attn.v", {A}, false);
  add("dec.wy", {E, Ds}, true);
  add("dec.wc", {D, Ds}, true);
  add("dec.ws", {Ds, Ds}, true);
  add("dec.b", {Ds}, false);
  add("out.w", {Ds + D, V}, true);
  add("out.b", {V}, false);
  flat.assign(off, T(0));
  T** ptrs[] = {&emb,    &fwd_wx, &fwd_wh, &fwd_b,  &bwd_wx, &bwd_wh, &bwd_b, &init_w, &init_b,
                &att_ws, &att_wh, &att_v,  &dec_wy, &dec_wc, &dec_ws, &dec_b, &out_w,  &out_b};
  for (size_t i = 0; i < tensors.size(); ++i) *ptrs[i] = flat.data() + tensors[i].offset;
}

template <typename T>
void RnnAttnParams<T>::zero() {
  std::fill(flat.begin(), flat.end(), T(0));
}

template <typename T>
void init_params(RnnAttnParams<T>& p, uint64_t seed) {
  Rng rng(seed);
  for (const auto& t : p.tensors) init_rnn_attention_tensor(t.name, t.shape, p.flat.data() + t.offset, t.size, rng);
}

void params_to_model(RnnAttnModel& m, const RnnAttnParams<float>& p) {
  for (auto& nt : m.named_tensors()) {
    const auto it = std::find_if(p.tensors.begin(), p.tensors.end(), [&](const auto& t) { return t.name == nt.name; });
    if (it == p.tensors.end() || it->shape != nt.shape) fail("trainer and model disagree on tensor '" + nt.name + "'");
    std::copy(p.flat.data() + it->offset, p.flat.data() + it->offset + it->size, nt.data);
  }
}

Seq2Seq make_seq2seq(const Task& task, const Example& ex) {
  const Tokenizer& tok = task.tokenizer();
  Seq2Seq s;
  s.src = tok.encode(ex.src).ids;
  const std::vector<int> tgt = tok.encode(ex.tgt).ids;
  s.inputs.push_back(Tokenizer::kBos);
  s.inputs.insert(s.inputs.end(), tgt.begin(), tgt.end());
  s.targets = tgt;
  s.targets.push_back(Tokenizer::kEos);
  return s;
}

// ---- the whole model -----------------------------------------------------------------------------

template <typename T>
double rnn_attention_forward(RnnAttnActs<T>& a, const RnnAttnParams<T>& p, const Seq2Seq& ex) {
  const RnnAttnConfig& c = p.cfg;
  const int V = c.vocab_size, E = c.d_emb, H = c.d_enc, D = 2 * H, Ds = c.d_dec, A = c.d_att;
  const int S = static_cast<int>(ex.src.size()), Tn = static_cast<int>(ex.inputs.size());
  if (S == 0 || Tn == 0 || ex.targets.size() != ex.inputs.size()) fail("rnn-attention: empty or malformed example");
  a.S = S;
  a.T_ = Tn;
  // resize() only grows the capacity once; same-size examples reuse the memory.
  a.enc_embed.resize(size_t(S) * E);
  a.dec_embed.resize(size_t(Tn) * E);
  a.enc_fwd.resize(size_t(S) * H);
  a.enc_bwd.resize(size_t(S) * H);
  a.enc_h.resize(size_t(S) * D);
  a.dec_s.resize(size_t(Tn + 1) * Ds);
  a.add_h.resize(size_t(S) * A);
  a.yproj.resize(size_t(Tn) * Ds);
  a.add_s.resize(size_t(Tn) * A);
  a.add_tanh.resize(size_t(Tn) * S * A);
  a.add_scores.resize(size_t(Tn) * S);
  a.add_weights.resize(size_t(Tn) * S);
  a.add_context.resize(size_t(Tn) * D);
  a.oin.resize(size_t(Tn) * (Ds + D));
  a.logits.resize(size_t(Tn) * V);
  a.probs.resize(size_t(Tn) * V);
  a.losses.resize(size_t(Tn));

  // Encoder: embeddings, both directions, h = [fwd ; bwd].
  embed_forward(a.enc_embed.data(), ex.src.data(), p.emb, static_cast<const T*>(nullptr),
                static_cast<const T*>(nullptr), 1, S, E);
  rnn_dir_forward(a.enc_fwd.data(), a.enc_embed.data(), p.fwd_wx, p.fwd_wh, p.fwd_b, S, E, H, false);
  rnn_dir_forward(a.enc_bwd.data(), a.enc_embed.data(), p.bwd_wx, p.bwd_wh, p.bwd_b, S, E, H, true);
  MapT<T> hm(a.enc_h.data(), S, D);
  hm.leftCols(H) = CMapT<T>(a.enc_fwd.data(), S, H);
  hm.rightCols(H) = CMapT<T>(a.enc_bwd.data(), S, H);

  // s_0 = tanh(bwd_1 W_init + b_init); W_h h_j once; y W_y + b for every step.
  linear_forward(a.dec_s.data(), a.enc_bwd.data(), p.init_w, p.init_b, 1, H, Ds);
  for (int i = 0; i < Ds; ++i) a.dec_s[size_t(i)] = std::tanh(a.dec_s[size_t(i)]);
  linear_forward(a.add_h.data(), a.enc_h.data(), p.att_wh, static_cast<const T*>(nullptr), S, D, A);
  embed_forward(a.dec_embed.data(), ex.inputs.data(), p.emb, static_cast<const T*>(nullptr),
                static_cast<const T*>(nullptr), 1, Tn, E);
  linear_forward(a.yproj.data(), a.dec_embed.data(), p.dec_wy, p.dec_b, Tn, E, Ds);

  // Decoder steps: attention from s_{t-1}, then the cell.
  for (int t = 0; t < Tn; ++t) {
    const T* s_prev = a.dec_s.data() + size_t(t) * Ds;
    T* ctx = a.add_context.data() + size_t(t) * D;
    additive_step_forward(ctx, a.add_weights.data() + size_t(t) * S, a.add_scores.data() + size_t(t) * S,
                          a.add_tanh.data() + size_t(t) * S * A, a.add_s.data() + size_t(t) * A, s_prev, a.enc_h.data(),
                          a.add_h.data(), p.att_ws, p.att_v, S, D, Ds, A);
    T* s = a.dec_s.data() + size_t(t + 1) * Ds;
    decoder_cell_forward(s, a.yproj.data() + size_t(t) * Ds, ctx, s_prev, p.dec_wc, p.dec_ws, D, Ds);
    T* o = a.oin.data() + size_t(t) * (Ds + D);
    std::copy(s, s + Ds, o);
    std::copy(ctx, ctx + D, o + Ds);
  }
  // Output layer over all steps at once: logits = [s_t ; C_t] W_o + b_o.
  linear_forward(a.logits.data(), a.oin.data(), p.out_w, p.out_b, Tn, Ds + D, V);
  crossentropy_forward(a.losses.data(), a.probs.data(), a.logits.data(), ex.targets.data(), Tn, V);
  double loss = 0.0;
  for (T l : a.losses) loss += static_cast<double>(l);
  return loss;
}

template <typename T>
void rnn_attention_backward(RnnAttnParams<T>& g, RnnAttnActs<T>& a, const RnnAttnParams<T>& p, const Seq2Seq& ex,
                            T loss_scale) {
  const RnnAttnConfig& c = p.cfg;
  const int V = c.vocab_size, E = c.d_emb, H = c.d_enc, D = 2 * H, Ds = c.d_dec, A = c.d_att;
  const int S = a.S, Tn = a.T_;
  resize(a.d_logits, size_t(Tn) * V);
  resize(a.d_oin, size_t(Tn) * (Ds + D));
  resize(a.d_dec_s, size_t(Tn + 1) * Ds);
  resize(a.d_add_context, size_t(Tn) * D);
  resize(a.d_enc_h, size_t(S) * D);
  resize(a.d_add_h, size_t(S) * A);
  resize(a.d_yproj, size_t(Tn) * Ds);
  resize(a.d_enc_embed, size_t(S) * E);
  resize(a.d_dec_embed, size_t(Tn) * E);
  resize(a.d_enc_fwd, size_t(S) * H);
  resize(a.d_enc_bwd, size_t(S) * H);
  resize(a.d_pre0, size_t(Ds));

  crossentropy_backward(a.d_logits.data(), a.probs.data(), ex.targets.data(), loss_scale, Tn, V);
  linear_backward(a.d_oin.data(), g.out_w, g.out_b, a.d_logits.data(), a.oin.data(), p.out_w, Tn, Ds + D, V);
  for (int t = 0; t < Tn; ++t) {
    const T* d = a.d_oin.data() + size_t(t) * (Ds + D);
    for (int i = 0; i < Ds; ++i) a.d_dec_s[size_t(t + 1) * Ds + i] += d[i];
    for (int i = 0; i < D; ++i) a.d_add_context[size_t(t) * D + i] += d[Ds + i];
  }
  // Decoder steps in reverse: the cell, then the attention that made its context.
  for (int t = Tn - 1; t >= 0; --t) {
    const T* s_prev = a.dec_s.data() + size_t(t) * Ds;
    const T* ctx = a.add_context.data() + size_t(t) * D;
    decoder_cell_backward(a.d_yproj.data() + size_t(t) * Ds, a.d_add_context.data() + size_t(t) * D,
                          a.d_dec_s.data() + size_t(t) * Ds, g.dec_wc, g.dec_ws, a.d_dec_s.data() + size_t(t + 1) * Ds,
                          a.dec_s.data() + size_t(t + 1) * Ds, ctx, s_prev, p.dec_wc, p.dec_ws, D, Ds);
    additive_step_backward(a.d_dec_s.data() + size_t(t) * Ds, a.d_enc_h.data(), a.d_add_h.data(), g.att_ws, g.att_v,
                           a.d_add_context.data() + size_t(t) * D, a.add_weights.data() + size_t(t) * S,
                           a.add_tanh.data() + size_t(t) * S * A, s_prev, a.enc_h.data(), p.att_ws, p.att_v, S, D, Ds,
                           A);
  }
  linear_backward(a.d_dec_embed.data(), g.dec_wy, g.dec_b, a.d_yproj.data(), a.dec_embed.data(), p.dec_wy, Tn, E, Ds);
  embed_backward(g.emb, static_cast<T*>(nullptr), a.d_dec_embed.data(), ex.inputs.data(), 1, Tn, E);
  linear_backward(a.d_enc_h.data(), g.att_wh, static_cast<T*>(nullptr), a.d_add_h.data(), a.enc_h.data(), p.att_wh, S,
                  D, A);
  // s_0 = tanh(pre0), pre0 = bwd_1 W_init + b_init.
  for (int i = 0; i < Ds; ++i)
    a.d_pre0[size_t(i)] = a.d_dec_s[size_t(i)] * (T(1) - a.dec_s[size_t(i)] * a.dec_s[size_t(i)]);
  for (int j = 0; j < S; ++j) {
    for (int i = 0; i < H; ++i) a.d_enc_fwd[size_t(j) * H + i] = a.d_enc_h[size_t(j) * D + i];
    for (int i = 0; i < H; ++i) a.d_enc_bwd[size_t(j) * H + i] = a.d_enc_h[size_t(j) * D + H + i];
  }
  linear_backward(a.d_enc_bwd.data(), g.init_w, g.init_b, a.d_pre0.data(), a.enc_bwd.data(), p.init_w, 1, H, Ds);
  rnn_dir_backward(a.d_enc_embed.data(), g.fwd_wx, g.fwd_wh, g.fwd_b, a.d_enc_fwd.data(), a.enc_fwd.data(),
                   a.enc_embed.data(), p.fwd_wx, p.fwd_wh, S, E, H, false);
  rnn_dir_backward(a.d_enc_embed.data(), g.bwd_wx, g.bwd_wh, g.bwd_b, a.d_enc_bwd.data(), a.enc_bwd.data(),
                   a.enc_embed.data(), p.bwd_wx, p.bwd_wh, S, E, H, true);
  embed_backward(g.emb, static_cast<T*>(nullptr), a.d_enc_embed.data(), ex.src.data(), 1, S, E);
}

#define AP_RNN_ATTN_INSTANTIATE(T)                                                                                     \
  template void rnn_dir_forward<T>(T*, const T*, const T*, const T*, const T*, int, int, int, bool);                   \
  template void rnn_dir_backward<T>(T*, T*, T*, T*, T*, const T*, const T*, const T*, const T*, int, int, int, bool);  \
  template void additive_step_forward<T>(T*, T*, T*, T*, T*, const T*, const T*, const T*, const T*, const T*, int,    \
                                         int, int, int);                                                               \
  template void additive_step_backward<T>(T*, T*, T*, T*, T*, const T*, const T*, const T*, const T*, const T*,        \
                                          const T*, const T*, int, int, int, int);                                     \
  template void decoder_cell_forward<T>(T*, const T*, const T*, const T*, const T*, const T*, int, int);               \
  template void decoder_cell_backward<T>(T*, T*, T*, T*, T*, const T*, const T*, const T*, const T*, const T*,         \
                                         const T*, int, int);                                                          \
  template struct RnnAttnParams<T>;                                                                                    \
  template void init_params<T>(RnnAttnParams<T>&, uint64_t);                                                           \
  template double rnn_attention_forward<T>(RnnAttnActs<T>&, const RnnAttnParams<T>&, const Seq2Seq&);                  \
  template void rnn_attention_backward<T>(RnnAttnParams<T>&, RnnAttnActs<T>&, const RnnAttnParams<T>&, const Seq2Seq&, \
                                          T);
AP_RNN_ATTN_INSTANTIATE(float)
AP_RNN_ATTN_INSTANTIATE(double)
#undef AP_RNN_ATTN_INSTANTIATE

// ---- a training run ----------------------------------------------------------------------------

namespace {

RnnAttnConfig sized_for(const Task& task, RnnAttnConfig c) {
  c.vocab_size = task.tokenizer().size();
  c.max_len = std::max(c.max_len, task.max_len() + 2);
  c.tokenizer = Tokenizer::name_of(task.tokenizer().kind());
  c.validate();
  return c;
}

std::vector<float> decay_mask(const RnnAttnParams<float>& p) {
  std::vector<float> m(p.size(), 0.0f);
  for (const auto& t : p.tensors)
    if (t.decay)
      std::fill(m.begin() + static_cast<std::ptrdiff_t>(t.offset),
                m.begin() + static_cast<std::ptrdiff_t>(t.offset + t.size), 1.0f);
  return m;
}

}  // namespace

RnnAttnTrainer::RnnAttnTrainer(const RnnAttnTrainConfig& cfg)
    : cfg_(cfg),
      task_(make_task(cfg.task)),
      params_(sized_for(*task_, cfg.model)),
      grads_(params_.cfg),
      opt_(decay_mask(params_)),
      data_rng_(cfg.seed * 0x9E3779B97F4A7C15ull + 7) {
  if (task_->arch() != Arch::EncoderDecoder)
    fail("the RNN encoder-decoder trains on source -> target tasks (dates, translate), not \"" + cfg.task + "\"");
  init_params(params_, cfg.seed);
}

float RnnAttnTrainer::step() {
  grads_.zero();
  std::vector<Seq2Seq> batch;
  int targets = 0;
  for (int i = 0; i < cfg_.batch; ++i) {
    batch.push_back(make_seq2seq(*task_, task_->sample(data_rng_, Split::Train)));
    targets += static_cast<int>(batch.back().targets.size());
  }
  double loss = 0.0;
  const float scale = 1.0f / static_cast<float>(targets);  // the mean over target tokens
  for (const Seq2Seq& ex : batch) {
    loss += rnn_attention_forward(acts_, params_, ex);
    rnn_attention_backward(grads_, acts_, params_, ex, scale);
  }
  grad_norm_ = clip_grad_norm(grads_.flat, cfg_.optim.clip_norm);
  opt_.step(params_.flat.data(), grads_.flat.data(), cfg_.optim, learning_rate(cfg_.optim, opt_.steps_taken()));
  return static_cast<float>(loss / targets);
}

RnnAttnModel RnnAttnTrainer::to_model() const {
  RnnAttnModel m(params_.cfg, task_->tokenizer());
  params_to_model(m, params_);
  m.mutable_metadata()["task"] = task_->name();
  return m;
}

EvalResult RnnAttnTrainer::evaluate(int n, uint64_t seed) const {
  return evaluate_rnn_attention(to_model(), *task_, n, seed);
}

EvalResult evaluate_rnn_attention(const RnnAttnModel& model, const Task& task, int n, uint64_t seed) {
  Rng rng(seed);
  EvalResult r;
  for (int i = 0; i < n; ++i) {
    const Example ex = task.sample(rng, Split::HeldOut);
    Trace tr;
    std::vector<int> out = model.forward(tr, task.tokenizer().encode(ex.src).ids, nullptr);
    if (!out.empty() && out.back() == Tokenizer::kEos)
      out.pop_back();
    else
      out.push_back(-1);  // never reached <eos>: wrong
    r.add(ex.kind, out == task.tokenizer().encode(ex.tgt).ids);
  }
  return r;
}

}  // namespace ap::train
