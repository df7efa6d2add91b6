// The RNN encoder-decoder with additive attention (see rnn_attention.hpp): one loop over the
// source for each encoder direction, one loop over output steps for the decoder, every
// intermediate written straight into its trace stage (what a view shows is what was used).
#include "core/rnn_attention.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "base/rng.hpp"
#include "core/layers.hpp"

namespace ap {

void RnnAttnConfig::validate() const {
  auto positive = [](int v, const char* name, int most) {
    if (v <= 0 || v > most)
      fail(std::string("rnn-attention config: ") + name + " must be between 1 and " + std::to_string(most) + " (got " +
           std::to_string(v) + ")");
  };
  positive(d_emb, "d_emb", 1024);
  positive(d_enc, "d_enc", 1024);
  positive(d_dec, "d_dec", 1024);
  positive(d_att, "d_att", 1024);
  positive(max_len, "max_len", 512);
  if (vocab_size < 0 || vocab_size > 1000000) fail("rnn-attention config: vocab_size out of range");
  Tokenizer::kind_from_name(tokenizer);  // throws naming the known kinds
}

RnnAttnModel::RnnAttnModel(RnnAttnConfig cfg, Tokenizer tok) : cfg_(std::move(cfg)), tok_(std::move(tok)) {
  if (cfg_.vocab_size == 0) cfg_.vocab_size = tok_.size();
  cfg_.tokenizer = Tokenizer::name_of(tok_.kind());  // the tokenizer object is the truth
  cfg_.validate();
  if (cfg_.vocab_size != tok_.size())
    fail("rnn-attention config: vocab_size is " + std::to_string(cfg_.vocab_size) + " but the vocabulary has " +
         std::to_string(tok_.size()) + " entries");
  const int V = cfg_.vocab_size, E = cfg_.d_emb, H = cfg_.d_enc, D = 2 * H, Ds = cfg_.d_dec, A = cfg_.d_att;
  w_.emb.setZero(V, E);
  w_.fwd_wx.setZero(E, H);
  w_.fwd_wh.setZero(H, H);
  w_.fwd_b.setZero(H);
  w_.bwd_wx.setZero(E, H);
  w_.bwd_wh.setZero(H, H);
  w_.bwd_b.setZero(H);
  w_.init_w.setZero(H, Ds);
  w_.init_b.setZero(Ds);
  w_.att_ws.setZero(Ds, A);
  w_.att_wh.setZero(D, A);
  w_.att_v.setZero(A);
  w_.dec_wy.setZero(E, Ds);
  w_.dec_wc.setZero(D, Ds);
  w_.dec_ws.setZero(Ds, Ds);
  w_.dec_b.setZero(Ds);
  w_.out_w.setZero(Ds + D, V);
  w_.out_b.setZero(V);
}

std::vector<RnnAttnModel::NamedTensor> RnnAttnModel::named_tensors() {
  auto m = [](const char* name, Mat& x) { return NamedTensor{name, {int(x.rows()), int(x.cols())}, x.data()}; };
  auto v = [](const char* name, Vec& x) { return NamedTensor{name, {int(x.size())}, x.data()}; };
  RnnAttnWeights& w = w_;
  return {m("emb", w.emb),           m("enc_fwd.wx", w.fwd_wx), m("enc_fwd.wh", w.fwd_wh), v("enc_fwd.b", w.fwd_b),
          m("enc_bwd.wx", w.bwd_wx), m("enc_bwd.wh", w.bwd_wh), v("enc_bwd.b", w.bwd_b),   m("dec_init.w", w.init_w),
          v("dec_init.b", w.init_b), m("attn.ws", w.att_ws),    m("attn.wh", w.att_wh),    v("attn.v", w.att_v),
          m("dec.wy", w.dec_wy),     m("dec.wc", w.dec_wc),     m("dec.ws", w.dec_ws),     v("dec.b", w.dec_b),
          m("out.w", w.out_w),       v("out.b", w.out_b)};
}

void RnnAttnModel::init_random(uint64_t seed) {
  Rng rng(seed);
  for (NamedTensor& t : named_tensors()) {
    size_t n = 1;
    for (int d : t.shape) n *= static_cast<size_t>(d);
    init_rnn_attention_tensor(t.name, t.shape, t.data, n, rng);
  }
}

namespace {

void check_ids(const std::vector<int>& ids, int vocab, const char* what) {
  for (int id : ids)
    if (id < 0 || id >= vocab)
      fail(std::string(what) + " holds token id " + std::to_string(id) + " outside the vocabulary (0.." +
           std::to_string(vocab - 1) + ")");
}

// One direction of the encoder: state_j = tanh(x_j W_x + state_prev W_h + b), reading j in
// `order`; state (S, H) is written row by row.
void rnn_direction(MatMap state, const Mat& x, const Mat& wx, const Mat& wh, const Vec& b, bool backward) {
  const int S = static_cast<int>(x.rows()), H = static_cast<int>(wh.rows());
  Mat pre = x * wx;  // (S, H) = (S, E)(E, H): the input part of every step at once
  pre.rowwise() += b;
  Vec prev = Vec::Zero(H), cur(H);
  for (int k = 0; k < S; ++k) {  // sequential: each step waits for the one before
    const int j = backward ? S - 1 - k : k;
    cur.noalias() = prev * wh;  // (1, H)
    cur += pre.row(j);
    state.row(j) = cur.array().tanh();
    prev = state.row(j);
  }
}

}  // namespace

Mat RnnAttnModel::encode(Trace& tr, const std::vector<int>& src) const {
  const int S = static_cast<int>(src.size()), E = cfg_.d_emb, H = cfg_.d_enc;
  if (S == 0) fail("the encoder needs at least one source word");
  if (S > cfg_.max_len)
    fail("the source has " + std::to_string(S) + " tokens; this model reads at most " + std::to_string(cfg_.max_len));
  check_ids(src, cfg_.vocab_size, "the source");
  Stage& tok = tr.add("tokens", "encoder", -1, {S});
  for (int j = 0; j < S; ++j) tok.data[static_cast<size_t>(j)] = static_cast<float>(src[static_cast<size_t>(j)]);
  MatMap x = tr.add2d("enc_embed", "encoder", -1, S, E);
  for (int j = 0; j < S; ++j) x.row(j) = w_.emb.row(src[static_cast<size_t>(j)]);
  const Mat xm = x;                                       // (S, E)
  MatMap fwd = tr.add2d("enc_fwd", "encoder", -1, S, H);  // forward states, left to right
  MatMap bwd = tr.add2d("enc_bwd", "encoder", -1, S, H);  // backward states, right to left
  rnn_direction(fwd, xm, w_.fwd_wx, w_.fwd_wh, w_.fwd_b, false);
  rnn_direction(bwd, xm, w_.bwd_wx, w_.bwd_wh, w_.bwd_b, true);
  MatMap h = tr.add2d("enc_h", "encoder", -1, S, 2 * H);  // h_j = [fwd_j ; bwd_j]
  h.leftCols(H) = fwd;
  h.rightCols(H) = bwd;
  return h;
}

std::vector<int> RnnAttnModel::forward(Trace& tr, const std::vector<int>& src, const std::vector<int>* tgt) const {
  const int V = cfg_.vocab_size, E = cfg_.d_emb, H = cfg_.d_enc, D = 2 * H, Ds = cfg_.d_dec, A = cfg_.d_att;
  if (tgt) {
    if (static_cast<int>(tgt->size()) + 1 > cfg_.max_len)
      fail("the target has " + std::to_string(tgt->size()) + " tokens; this model writes at most " +
           std::to_string(cfg_.max_len - 1) + " before <eos>");
    check_ids(*tgt, V, "the target");
  }
  const Mat h = encode(tr, src);  // (S, D)
  const int S = static_cast<int>(h.rows());
  const int T_max = tgt ? static_cast<int>(tgt->size()) + 1 : cfg_.max_len;

  // Working buffers for up to T_max steps, allocated once; the trace gets the T rows used.
  Mat s(T_max + 1, Ds);                             // s_0 .. s_T
  Mat ws(T_max, A);                                 // W_s s_{t-1}
  Mat th(static_cast<Eigen::Index>(T_max) * S, A);  // tanh(W_s s_{t-1} + W_h h_j), row t*S + j
  Mat e(T_max, S), alpha(T_max, S);
  Mat ctx(T_max, D);  // C_t
  Mat logits(T_max, V);
  std::vector<int> in = {Tokenizer::kBos}, out;
  Vec pre(Ds);

  const Mat wh_h = h * w_.att_wh;  // (S, A) = (S, D)(D, A): W_h h_j, once for every step
  // s_0 from the backward state of the first word, which has read the whole sentence.
  s.row(0) = (h.row(0).rightCols(H) * w_.init_w + w_.init_b).array().tanh();
  int T = 0;
  for (int t = 0; t < T_max; ++t) {              // step t + 1 of the notes: reads s_t, writes s_{t+1}
    ws.row(t).noalias() = s.row(t) * w_.att_ws;  // (1, A) = (1, Ds)(Ds, A)
    for (int j = 0; j < S; ++j) {
      const Eigen::Index r = static_cast<Eigen::Index>(t) * S + j;
      th.row(r) = (ws.row(t) + wh_h.row(j)).array().tanh();
      e(t, j) = th.row(r).dot(w_.att_v);  // e_tj = v . tanh(...)
    }
    softmax_row(alpha.row(t).data(), e.row(t).data(), S);  // alpha_t = softmax over the source (as the trainer)
    ctx.row(t).noalias() = alpha.row(t) * h;               // C_t = sum_j alpha_tj h_j  (1, D)
    pre.noalias() = w_.emb.row(in.back()) * w_.dec_wy;
    pre.noalias() += ctx.row(t) * w_.dec_wc;
    pre.noalias() += s.row(t) * w_.dec_ws;
    pre += w_.dec_b;
    s.row(t + 1) = pre.array().tanh();
    logits.row(t).noalias() = s.row(t + 1) * w_.out_w.topRows(Ds);  // [s_t ; C_t] W_o, in two halves
    logits.row(t).noalias() += ctx.row(t) * w_.out_w.bottomRows(D);
    logits.row(t) += w_.out_b;
    Eigen::Index best;
    logits.row(t).maxCoeff(&best);
    out.push_back(static_cast<int>(best));
    T = t + 1;
    if (tgt) {
      if (t < static_cast<int>(tgt->size())) in.push_back((*tgt)[static_cast<size_t>(t)]);
    } else {
      if (best == Tokenizer::kEos) break;
      in.push_back(static_cast<int>(best));
    }
  }
  in.resize(static_cast<size_t>(T));  // the words read by the T steps

  Stage& dt = tr.add("dec_tokens", "decoder", -1, {T});
  for (int t = 0; t < T; ++t) dt.data[static_cast<size_t>(t)] = static_cast<float>(in[static_cast<size_t>(t)]);
  MatMap de = tr.add2d("dec_embed", "decoder", -1, T, E);
  for (int t = 0; t < T; ++t) de.row(t) = w_.emb.row(in[static_cast<size_t>(t)]);
  tr.add2d("dec_s", "decoder", -1, T + 1, Ds) = s.topRows(T + 1);
  tr.add2d("add_ws", "decoder", -1, Ds, A) = w_.att_ws;
  tr.add2d("add_wh", "decoder", -1, D, A) = w_.att_wh;
  tr.add2d("add_v", "decoder", -1, 1, A) = w_.att_v;
  tr.add2d("add_s", "decoder", -1, T, A) = ws.topRows(T);
  tr.add2d("add_h", "decoder", -1, S, A) = wh_h;
  Stage& ths = tr.add("add_tanh", "decoder", -1, {T, S, A});
  std::copy(th.data(), th.data() + static_cast<size_t>(T) * S * A, ths.data.begin());
  Trace::head(tr.add("add_scores", "decoder", -1, {1, T, S}), 0) = e.topRows(T);
  Trace::head(tr.add("add_weights", "decoder", -1, {1, T, S}), 0) = alpha.topRows(T);
  tr.add2d("add_context", "decoder", -1, T, D) = ctx.topRows(T);
  tr.add2d("logits", "decoder", -1, T, V) = logits.topRows(T);
  MatMap probs = tr.add2d("probs", "decoder", -1, T, V);
  for (int t = 0; t < T; ++t) {
    probs.row(t) = (logits.row(t).array() - logits.row(t).maxCoeff()).exp();
    probs.row(t) /= probs.row(t).sum();
  }
  Stage& ot = tr.add("out_tokens", "decoder", -1, {T});
  for (int t = 0; t < T; ++t) ot.data[static_cast<size_t>(t)] = static_cast<float>(out[static_cast<size_t>(t)]);
  return out;
}

Mat RnnAttnModel::encode_text(Trace& trace, const std::string& src) const {
  const std::vector<int> ids = tok_.encode(src).ids;
  if (ids.empty()) fail("there are no words: type a sentence for the encoder to read");
  return encode(trace, ids);
}

std::vector<int> RnnAttnModel::forward_text(Trace& trace, const std::string& src, const std::string* tgt) const {
  const std::vector<int> ids = tok_.encode(src).ids;
  if (ids.empty()) fail("there is nothing to translate: type a sentence");
  if (!tgt) return forward(trace, ids, nullptr);
  const std::vector<int> t = tok_.encode(*tgt).ids;
  return forward(trace, ids, &t);
}

std::string RnnAttnModel::translate(const std::string& text) const {
  const Tokenizer::Encoded enc = tok_.encode(text);
  if (enc.ids.empty()) fail("there is nothing to translate: type a sentence");
  Trace tr;
  std::vector<int> ids = forward(tr, enc.ids, nullptr);
  if (!ids.empty() && ids.back() == Tokenizer::kEos) ids.pop_back();
  return tok_.decode(ids);
}

}  // namespace ap
