// The whole model's forward pass. Each block records its stages under (stack, layer), so
// trace.find("weights", "decoder", 1) is the self-attention of decoder layer 1.
#include "core/model.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/block.hpp"
#include "core/layers.hpp"
#include "core/layout.hpp"
#include "kernels/attention.hpp"

namespace ap {

namespace {

// Zero weights of a tensor's shape (LayerNorm gains ones).
void allocate(Mat& m, const std::vector<int>& shape, TensorKind) { m.setZero(shape[0], shape[1]); }
void allocate(Weight& m, const std::vector<int>& shape, TensorKind) { m.set_zero(shape[0], shape[1]); }
void allocate(Vec& v, const std::vector<int>& shape, TensorKind kind) {
  if (kind == TensorKind::Gain)
    v.setOnes(shape[0]);
  else
    v.setZero(shape[0]);
}

// A plain copy, not an Eigen assignment: in the first module the -Oz LTO copy of Eigen's
// assign loop wins at link time and costs a call per coefficient.
void add_mat(Trace& tr, const char* name, const std::string& stack, int layer, const Mat& src) {
  if (!tr.keeps(name, layer)) return;  // a record only: nothing reads it back
  MatMap dst = tr.add2d(name, stack, layer, static_cast<int>(src.rows()), static_cast<int>(src.cols()));
  std::copy(src.data(), src.data() + src.size(), dst.data());
}

// The pretrained models' own tensors (ModelConfig::family), outside for_each_tensor: the trainer's
// parameter layout never has them.
template <typename Visit>
void for_each_extra_tensor(const ModelConfig& cfg, ModelWeights& w, Visit&& visit) {
  const int d = cfg.d_model;
  auto norm = [&](const std::string& p, LayerNormWeights& n) {
    visit(p + ".gamma", std::vector<int>{d}, TensorKind::Gain, &n.gamma);
    visit(p + ".beta", std::vector<int>{d}, TensorKind::Bias, &n.beta);
  };
  if (cfg.type_vocab > 0) visit("type_emb", std::vector<int>{cfg.type_vocab, d}, TensorKind::Embedding, &w.type_emb);
  if (cfg.emb_norm) norm("emb_norm", w.emb_norm);
  if (cfg.mlm_head) {
    visit("mlm.w", std::vector<int>{d, d}, TensorKind::Matrix, &w.mlm_w);
    visit("mlm.b", std::vector<int>{d}, TensorKind::Bias, &w.mlm_b);
    norm("mlm_norm", w.mlm_norm);
  }
}

// Every tensor of a model (the layout's, then the pretrained extras) through one instantiation of
// the layout walk: the walk expands each tensor's visit in place, and a copy per caller (the
// constructor's allocation, named_tensors) cost the first module about 10 KB.
struct TensorSlot {
  const std::string* name;
  const std::vector<int>* shape;
  TensorKind kind;
  Mat* m;     // the tensor: a matrix, or
  Vec* v;     // a vector, or
  Weight* w;  // a model's big matrix (core/weight.hpp: float32 or kept at 16 bits)
};
using SlotFn = void (*)(void* ctx, const TensorSlot&);

void walk_tensors(const ModelConfig& cfg, ModelWeights& w, SlotFn fn, void* ctx = nullptr) {
  auto visit = [&](const std::string& name, const std::vector<int>& shape, TensorKind kind, auto* t) {
    TensorSlot s{&name, &shape, kind, nullptr, nullptr, nullptr};
    if constexpr (std::is_same_v<decltype(t), Weight*>)
      s.w = t;
    else if constexpr (std::is_same_v<decltype(t), Mat*>)
      s.m = t;
    else
      s.v = t;
    fn(ctx, s);
  };
  for_each_tensor(cfg, &w, visit);
  for_each_extra_tensor(cfg, w, visit);
}

}  // namespace

Model::Model(ModelConfig cfg, Tokenizer tok, bool allocate_weights) : cfg_(std::move(cfg)), tok_(std::move(tok)) {
  if (cfg_.vocab_size == 0) cfg_.vocab_size = tok_.size();
  cfg_.validate();
  // A pretrained model's vocab_size may be larger than its tokenizer's (rows no text maps to).
  const bool external = tok_.kind() == Tokenizer::Kind::External;
  if (external ? tok_.size() > cfg_.vocab_size : tok_.size() != cfg_.vocab_size)
    fail("vocabulary has " + std::to_string(tok_.size()) + " entries but the config says vocab_size " +
         std::to_string(cfg_.vocab_size));
  if (cfg_.has_encoder()) w_.encoder.resize(cfg_.n_layers);
  if (cfg_.has_decoder()) w_.decoder.resize(cfg_.n_layers);
  for (BlockWeights& b : w_.decoder) b.has_cross = cfg_.arch == Arch::EncoderDecoder;
  // Only pre-norm files hold the final norms, but a post-norm model switched to pre-norm
  // (Switches::norm) runs them: the identity LayerNorm until the layout fills them.
  for (LayerNormWeights* n : {&w_.enc_final_norm, &w_.dec_final_norm}) {
    n->gamma.setOnes(cfg_.d_model);
    n->beta.setZero(cfg_.d_model);
  }
  walk_tensors(
      cfg_, w_,
      [](void* all, const TensorSlot& s) {
        if (s.w) {
          if (*static_cast<bool*>(all)) allocate(*s.w, *s.shape, s.kind);
        } else if (s.m) {
          allocate(*s.m, *s.shape, s.kind);
        } else {
          allocate(*s.v, *s.shape, s.kind);
        }
      },
      &allocate_weights);
}

std::vector<Model::NamedTensor> Model::named_tensors() {
  std::vector<NamedTensor> out;
  walk_tensors(
      cfg_, w_,
      [](void* o, const TensorSlot& s) {
        static_cast<std::vector<NamedTensor>*>(o)->push_back({*s.name, *s.shape,
                                                              s.w   ? s.w->data()
                                                              : s.m ? s.m->data()
                                                                    : s.v->data(),
                                                              s.kind, s.w});
      },
      &out);
  return out;
}

Model::NamedTensor Model::named_tensor(const std::string& name) {
  for (NamedTensor& t : named_tensors())
    if (t.name == name) return t;
  fail("unknown tensor '" + name + "'");
}

void Model::set_tensor(const std::string& name, const float* data, size_t length) {
  NamedTensor t = named_tensor(name);
  const size_t size = element_count(t.shape);
  if (length != size)
    fail("tensor '" + name + "' needs " + std::to_string(size) + " values, got " + std::to_string(length));
  check_finite(data, size, "tensor '" + name + "'");
  if (t.weight && t.weight->is_16bit()) {  // new float values: the Weight becomes float32
    allocate(*t.weight, t.shape, t.kind);
    t.data = t.weight->data();
  }
  std::copy(data, data + size, t.data);
}

void Model::init_random(uint64_t seed) {
  Rng rng{seed};
  for (NamedTensor& t : named_tensors()) {
    if (t.weight && t.weight->is_16bit()) {
      allocate(*t.weight, t.shape, t.kind);  // float32 of its shape
      t.data = t.weight->data();
    }
    init_tensor(t.data, element_count(t.shape), t.shape, t.kind, rng);
  }
}

Model::Prompt Model::prompt(const std::string& text) const {
  const auto sep = meta_.find("separator");
  const bool decoder_only = cfg_.arch == Arch::DecoderOnly;
  Tokenizer::Encoded e = tok_.encode(decoder_only && sep != meta_.end() ? text + sep->second : text);
  if (e.ids.empty() || text.empty()) fail("the prompt is empty: type at least one token");
  Prompt p;
  if (!cfg_.family.empty()) {
    // A pretrained model reads text as its own tokenizer.json says (BERT: [CLS] ... [SEP];
    // GPT-2: the tokens alone, as Hugging Face's generate() feeds them).
    p.ids = std::move(e.ids);
  } else if (cfg_.arch == Arch::EncoderDecoder) {
    p.src = std::move(e.ids);
    p.ids = {tok_.bos_id()};
  } else if (decoder_only) {  // the project's decoders were trained on <bos> + text (English: <|endoftext|>)
    p.ids.push_back(tok_.bos_id());
    p.ids.insert(p.ids.end(), e.ids.begin(), e.ids.end());
    e.pieces.insert(e.pieces.begin(), tok_.vocab()[static_cast<size_t>(tok_.bos_id())]);
    for (int& u : e.unknown) ++u;
  } else {
    p.ids = std::move(e.ids);
  }
  p.pieces = std::move(e.pieces);
  p.unknown = std::move(e.unknown);
  return p;
}

void Model::check_weights() const {
  for (const NamedTensor& t : const_cast<Model*>(this)->named_tensors()) {
    const std::string what = "weight '" + t.name + "'";
    if (t.weight)
      t.weight->check_finite(what);
    else
      check_finite(t.data, element_count(t.shape), what);
  }
}

void widen_weights(const ModelConfig& cfg, ModelWeights& w) {
  walk_tensors(cfg, w, [](void*, const TensorSlot& s) {
    if (s.w) s.w->widen();
  });
}

void Model::widen_weights() { ap::widen_weights(cfg_, w_); }

void Model::pack_weights() {
  walk_tensors(
      cfg_, w_,
      [](void* ctx, const TensorSlot& s) {
        if (!s.w) return;
        if (s.w == &static_cast<ModelWeights*>(ctx)->tok_emb)
          s.w->to_key_blocks();  // looked up by row; the tied head's keys
        else
          s.w->to_panels();  // a linear layer's W
      },
      &w_);
}

size_t Model::weight_bytes() const {
  size_t bytes = 0;
  for (const NamedTensor& t : const_cast<Model*>(this)->named_tensors())
    bytes += t.weight ? t.weight->bytes() : sizeof(float) * element_count(t.shape);
  return bytes;
}

namespace {

// Keys that are the tokenizer's <pad> (none for a tokenizer without one, as GPT-2's).
std::vector<uint8_t> pad_mask(const std::vector<int>& ids, int pad) {
  std::vector<uint8_t> p(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) p[i] = pad >= 0 && ids[i] == pad;
  return p;
}

// Embeddings and positions for one stack's input: x = embed + pos, rows at positions offset...
void embed_tokens(Mat& x, const std::vector<int>& ids, int offset, const ModelWeights& w, const ModelConfig& cfg,
                  Trace& tr, const std::string& stack) {
  const int n = static_cast<int>(ids.size()), d = cfg.d_model;
  Stage& tok = tr.add("tokens", stack, -1, {n});
  for (int i = 0; i < n; ++i) tok.data[i] = static_cast<float>(ids[i]);
  x.resize(n, d);
  // Row copies and the sum as plain loops (rows are contiguous: Mat is row-major); see add_mat.
  for (int i = 0; i < n; ++i) {
    float* row = x.data() + static_cast<Eigen::Index>(i) * d;
    if (w.tok_emb.is_16bit()) {
      w.tok_emb.row_into(ids[i], row);
    } else {
      const float* e = w.tok_emb.data() + static_cast<Eigen::Index>(ids[i]) * d;
      std::copy(e, e + d, row);
    }
  }
  add_mat(tr, "embed", stack, -1, x);
  if (cfg.pos == PosKind::Sinusoidal || cfg.pos == PosKind::Learned) {
    Mat pe;
    if (cfg.pos == PosKind::Sinusoidal) {
      sinusoidal_positions(pe, n, d, offset);
    } else {
      pe.resize(n, d);
      const float* p = w.pos_emb.data() + static_cast<Eigen::Index>(offset) * d;
      std::copy(p, p + static_cast<Eigen::Index>(n) * d, pe.data());
    }
    add_mat(tr, "pos", stack, -1, pe);
    float* xd = x.data();
    const float* pd = pe.data();
    for (Eigen::Index i = 0, size = x.size(); i < size; ++i) xd[i] += pd[i];
  }
  if (cfg.type_vocab > 0) {  // BERT: every token is in segment 0 (one sentence)
    Mat te(n, d);
    for (int i = 0; i < n; ++i)
      std::copy(w.type_emb.data(), w.type_emb.data() + d, te.data() + static_cast<Eigen::Index>(i) * d);
    add_mat(tr, "type_emb", stack, -1, te);
    x += te;
  }
  if (cfg.emb_norm) {  // BERT: LayerNorm over the sum before the first layer
    add_mat(tr, "emb_sum", stack, -1, x);
    Mat y;
    apply_norm(y, x, w.emb_norm.gamma, w.emb_norm.beta, cfg.norm_kind, cfg.eps);
    x.swap(y);
  }
  add_mat(tr, "x", stack, -1, x);
}

// A stack of blocks over x (new rows only when caches are given), then pre-norm's final LayerNorm.
void run_stack(Mat& x, const std::vector<uint8_t>& pad, const std::string& stack,
               const std::vector<BlockWeights>& blocks, const LayerNormWeights& fin, bool causal, const Mat* memory,
               const std::vector<uint8_t>* mem_pad, const ModelWeights& w, const ModelConfig& cfg, Trace& tr,
               std::vector<BlockCache>* caches) {
  for (size_t l = 0; l < blocks.size(); ++l) {
    Mat y;
    block_forward(y, x, memory, pad, mem_pad, blocks[l], cfg, cfg.pos == PosKind::Relative ? &w.rel_bias : nullptr,
                  causal, tr, stack, static_cast<int>(l), caches ? &(*caches)[l] : nullptr);
    x.swap(y);
  }
  if (cfg.norm == NormPlace::Pre) {  // pre-norm leaves the residual stream un-normalised: one last LN
    Mat y, stats;
    apply_norm(y, x, fin.gamma, fin.beta, cfg.norm_kind, cfg.eps, &stats);
    add_mat(tr, "final_norm", stack, -1, y);
    // The statistic it divided by, as each block's norms record theirs (the stepper's norm step reads it).
    add_mat(tr, cfg.norm_kind == NormKind::Rms ? "final_norm_rms" : "final_norm_stats", stack, -1, stats);
    tr.mark("final_norm", stack, -1, "stack_output");
    x.swap(y);
  }
}

void lm_head(const Mat& last, const ModelWeights& w, const ModelConfig& cfg, Trace& tr) {
  const Mat* h = &last;
  Mat dense, act, normed;
  if (cfg.mlm_head) {  // BERT's MLM transform: dense, activation, LayerNorm
    linear(dense, last, w.mlm_w, w.mlm_b);
    activation(act, dense, cfg.act);
    layer_norm(normed, act, w.mlm_norm.gamma, w.mlm_norm.beta, cfg.eps);
    add_mat(tr, "mlm_dense", "", -1, dense);
    add_mat(tr, "mlm_act", "", -1, act);
    add_mat(tr, "mlm_norm", "", -1, normed);
    h = &normed;
  }
  const int n = static_cast<int>(h->rows()), V = cfg.vocab_size, d = cfg.d_model;
  // Straight into the trace (logits are always kept): n x 50257 floats need no second copy.
  MatMap logits = tr.add2d("logits", "", -1, n, V);
  if (cfg.tied_head) {
    // logits(i, v) = h_i . tok_emb_v: the scores kernel (rows of one matrix against rows of another).
    const Weight& e = w.tok_emb;
    const bool blocks = e.layout() == Layout::KeyBlocks;
    if (e.stored() == Stored::F16)  // kept at 16 bits: widened in the kernel's registers
      (blocks ? kernels::qk_scores_blocks_f16 : kernels::qk_scores_f16)(logits.data(), V, h->data(), d, e.f16_data(), d,
                                                                        n, V, d, 1.0f);
    else if (e.stored() == Stored::BF16)
      (blocks ? kernels::qk_scores_blocks_bf16 : kernels::qk_scores_bf16)(logits.data(), V, h->data(), d, e.bf16_data(),
                                                                          d, n, V, d, 1.0f);
    else
      kernels::qk_scores(logits.data(), V, h->data(), d, e.data(), d, n, V, d);
    if (cfg.head_bias) logits.rowwise() += w.lm_head_b;
  } else {
    Mat out;
    if (cfg.head_bias || w.lm_head_w.is_16bit())
      linear(out, *h, w.lm_head_w, cfg.head_bias ? w.lm_head_b : Vec());  // (n, V)
    else
      out.noalias() = *h * static_cast<const Mat&>(w.lm_head_w);
    std::copy(out.data(), out.data() + out.size(), logits.data());
  }
  if (tr.keeps("probs", -1)) {  // V can be 50 000 wide: skipped when the caller keeps no probabilities
    MatMap probs = tr.add2d("probs", "", -1, n, V);  // (a deque: logits' buffer stays where it is)
    softmax_rows(probs, logits);
  }
}

}  // namespace

void Model::check_ids(const std::vector<int>& ids, const char* what, int offset) const {
  if (ids.empty()) fail(std::string(what) + " is empty (n = 0): type at least one token");
  if (offset + static_cast<int>(ids.size()) > cfg_.max_len)
    fail(std::string(what) + " has " + std::to_string(offset + ids.size()) + " tokens but the model's max length is " +
         std::to_string(cfg_.max_len));
  for (size_t i = 0; i < ids.size(); ++i)
    if (ids[i] < 0 || ids[i] >= cfg_.vocab_size)
      fail(std::string(what) + ": token id " + std::to_string(ids[i]) + " at position " + std::to_string(i) +
           " is outside the vocabulary (size " + std::to_string(cfg_.vocab_size) + ")");
}

void Model::forward(Trace& tr, const std::vector<int>& ids, const Switches& sw) const {
  if (cfg_.arch == Arch::EncoderDecoder)
    fail("an encoder-decoder model needs a source and a target sequence ({src, tgt})");
  forward(tr, cfg_.arch == Arch::EncoderOnly ? ids : std::vector<int>{},
          cfg_.arch == Arch::DecoderOnly ? ids : std::vector<int>{}, sw);
}

void Model::forward(Trace& tr, const std::vector<int>& src, const std::vector<int>& tgt, const Switches& sw) const {
  const ModelConfig cfg = config(sw);
  tr.clear();
  const bool encdec = cfg.arch == Arch::EncoderDecoder;
  if (cfg.has_encoder()) check_ids(src, encdec ? "source" : "input", 0);
  if (cfg.has_decoder()) check_ids(tgt, encdec ? "target" : "input", 0);
  Mat enc, dec;
  std::vector<uint8_t> src_pad;
  if (cfg.has_encoder()) {
    src_pad = pad_mask(src, tok_.pad_id());
    embed_tokens(enc, src, 0, w_, cfg, tr, "encoder");
    run_stack(enc, src_pad, "encoder", w_.encoder, w_.enc_final_norm, false, nullptr, nullptr, w_, cfg, tr, nullptr);
  }
  if (cfg.has_decoder()) {
    embed_tokens(dec, tgt, 0, w_, cfg, tr, "decoder");
    run_stack(dec, pad_mask(tgt, tok_.pad_id()), "decoder", w_.decoder, w_.dec_final_norm, cfg.causal,
              encdec ? &enc : nullptr, encdec ? &src_pad : nullptr, w_, cfg, tr, nullptr);
  }
  lm_head(cfg.has_decoder() ? dec : enc, w_, cfg, tr);
}

void Model::begin_decoding(DecodeState& st, Trace& tr, const std::vector<int>& src, const Switches& sw) const {
  if (!cfg_.has_decoder()) fail("an encoder-only model does not generate text (it has no decoder)");
  const ModelConfig cfg = config(sw);
  tr.clear();
  st = DecodeState();
  st.cfg = cfg;
  st.layers.resize(w_.decoder.size());
  if (cfg.arch == Arch::EncoderDecoder) {
    check_ids(src, "source", 0);
    st.mem_pad = pad_mask(src, tok_.pad_id());
    embed_tokens(st.memory, src, 0, w_, cfg, tr, "encoder");
    run_stack(st.memory, st.mem_pad, "encoder", w_.encoder, w_.enc_final_norm, false, nullptr, nullptr, w_, cfg, tr,
              nullptr);
  }
}

void Model::decode_step(DecodeState& st, Trace& tr, const std::vector<int>& new_ids) const {
  if (st.layers.size() != w_.decoder.size()) fail("decoding was not started (begin_decoding)");
  check_ids(new_ids, "the sequence", st.length);
  const ModelConfig& cfg = st.cfg;
  const bool encdec = cfg.arch == Arch::EncoderDecoder;
  Mat x;
  embed_tokens(x, new_ids, st.length, w_, cfg, tr, "decoder");
  const std::vector<uint8_t> pad(new_ids.size(), 0);
  run_stack(x, pad, "decoder", w_.decoder, w_.dec_final_norm, cfg.causal, encdec ? &st.memory : nullptr,
            encdec ? &st.mem_pad : nullptr, w_, cfg, tr, &st.layers);
  st.length += static_cast<int>(new_ids.size());
  lm_head(x, w_, cfg, tr);
}

}  // namespace ap
