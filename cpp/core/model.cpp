// The whole model's forward pass. Each block records its stages under (stack, layer), so
// trace.find("weights", "decoder", 1) is the self-attention of decoder layer 1.
#include "core/model.hpp"

#include <algorithm>
#include <cmath>

#include "core/block.hpp"
#include "core/layers.hpp"
#include "core/rng.hpp"

namespace ap {

namespace {


void alloc_attention(AttentionWeights& a, int d) {
  for (Mat* w : {&a.wq, &a.wk, &a.wv, &a.wo}) w->setZero(d, d);
  for (Vec* b : {&a.bq, &a.bk, &a.bv, &a.bo}) b->setZero(d);
}
void alloc_norm(LayerNormWeights& ln, int d) {
  ln.gamma.setOnes(d);
  ln.beta.setZero(d);
}
void alloc_block(BlockWeights& b, const ModelConfig& c, bool cross) {
  alloc_attention(b.self_attn, c.d_model);
  alloc_norm(b.norm1, c.d_model);
  b.has_cross = cross;
  if (cross) {
    alloc_attention(b.cross_attn, c.d_model);
    alloc_norm(b.norm_cross, c.d_model);
  }
  b.ffn.w1.setZero(c.d_model, c.d_ff);
  b.ffn.b1.setZero(c.d_ff);
  b.ffn.w2.setZero(c.d_ff, c.d_model);
  b.ffn.b2.setZero(c.d_model);
  alloc_norm(b.norm2, c.d_model);
}

std::vector<int> shape_of(const Mat& m) { return {static_cast<int>(m.rows()), static_cast<int>(m.cols())}; }
std::vector<int> shape_of(const Vec& v) { return {static_cast<int>(v.size())}; }

// A plain copy, not an Eigen assignment: in the first module the -Oz LTO copy of Eigen's
// assign loop wins at link time and costs a call per coefficient.
void add_mat(Trace& tr, const char* name, const std::string& stack, int layer, const Mat& src) {
  MatMap dst = tr.add2d(name, stack, layer, static_cast<int>(src.rows()), static_cast<int>(src.cols()));
  std::copy(src.data(), src.data() + src.size(), dst.data());
}

}  // namespace

Model::Model(ModelConfig cfg, Tokenizer tok) : cfg_(std::move(cfg)), tok_(std::move(tok)) {
  if (cfg_.vocab_size == 0) cfg_.vocab_size = tok_.size();
  cfg_.validate();
  if (tok_.size() != cfg_.vocab_size)
    fail("vocabulary has " + std::to_string(tok_.size()) + " entries but the config says vocab_size " +
         std::to_string(cfg_.vocab_size));
  const int d = cfg_.d_model, V = cfg_.vocab_size;
  w_.tok_emb.setZero(V, d);
  if (cfg_.pos == PosKind::Learned) w_.pos_emb.setZero(cfg_.max_len, d);
  if (cfg_.pos == PosKind::Relative) w_.rel_bias.setZero(cfg_.n_heads, 2 * cfg_.rel_clip + 1);
  if (cfg_.has_encoder()) {
    w_.encoder.resize(cfg_.n_layers);
    for (auto& b : w_.encoder) alloc_block(b, cfg_, false);
    alloc_norm(w_.enc_final_norm, d);
  }
  if (cfg_.has_decoder()) {
    w_.decoder.resize(cfg_.n_layers);
    for (auto& b : w_.decoder) alloc_block(b, cfg_, cfg_.arch == Arch::EncoderDecoder);
    alloc_norm(w_.dec_final_norm, d);
  }
  w_.lm_head_w.setZero(d, V);
  w_.lm_head_b.setZero(V);
}

std::vector<Model::NamedTensor> Model::named_tensors() {
  std::vector<NamedTensor> out;
  auto add = [&](const std::string& name, auto& t) {
    if (t.size() == 0) return;
    out.push_back({name, shape_of(t), t.data()});
  };
  auto add_attn = [&](const std::string& p, AttentionWeights& a) {
    add(p + ".wq", a.wq); add(p + ".wk", a.wk); add(p + ".wv", a.wv); add(p + ".wo", a.wo);
    add(p + ".bq", a.bq); add(p + ".bk", a.bk); add(p + ".bv", a.bv); add(p + ".bo", a.bo);
  };
  auto add_norm = [&](const std::string& p, LayerNormWeights& n) {
    add(p + ".gamma", n.gamma);
    add(p + ".beta", n.beta);
  };
  auto add_stack = [&](const std::string& stack, std::vector<BlockWeights>& blocks, LayerNormWeights& fin) {
    for (size_t i = 0; i < blocks.size(); ++i) {
      const std::string p = stack + "." + std::to_string(i);
      BlockWeights& b = blocks[i];
      add_attn(p + ".self_attn", b.self_attn);
      add_norm(p + ".norm1", b.norm1);
      if (b.has_cross) {
        add_attn(p + ".cross_attn", b.cross_attn);
        add_norm(p + ".norm_cross", b.norm_cross);
      }
      add(p + ".ffn.w1", b.ffn.w1); add(p + ".ffn.b1", b.ffn.b1);
      add(p + ".ffn.w2", b.ffn.w2); add(p + ".ffn.b2", b.ffn.b2);
      add_norm(p + ".norm2", b.norm2);
    }
    if (cfg_.norm == NormPlace::Pre && !blocks.empty()) add_norm(stack + ".final_norm", fin);
  };
  add("tok_emb", w_.tok_emb);
  if (cfg_.pos == PosKind::Learned) add("pos_emb", w_.pos_emb);
  if (cfg_.pos == PosKind::Relative) add("rel_bias", w_.rel_bias);
  add_stack("encoder", w_.encoder, w_.enc_final_norm);
  add_stack("decoder", w_.decoder, w_.dec_final_norm);
  add("lm_head.w", w_.lm_head_w);
  add("lm_head.b", w_.lm_head_b);
  return out;
}

void Model::init_random(uint64_t seed) {
  SplitMix64 rng{seed};
  for (NamedTensor& t : named_tensors()) {
    size_t size = 1;
    for (int s : t.shape) size *= static_cast<size_t>(s);
    const bool is_gamma = t.name.size() > 6 && t.name.compare(t.name.size() - 6, 6, ".gamma") == 0;
    const bool is_vector = t.shape.size() == 1;
    float a;
    if (is_gamma) a = 0.0f;                                  // LayerNorm gain starts at 1
    else if (is_vector) a = 0.02f;                           // small biases
    else if (t.name == "tok_emb" || t.name == "pos_emb") a = 1.0f;
    else a = std::sqrt(6.0f / static_cast<float>(t.shape[0] + t.shape[1]));  // Xavier uniform
    for (size_t i = 0; i < size; ++i) t.data[i] = (is_gamma ? 1.0f : 0.0f) + rng.symmetric(a);
  }
}

Model::Prompt Model::prompt(const std::string& text) const {
  const auto sep = meta_.find("separator");
  const bool decoder_only = cfg_.arch == Arch::DecoderOnly;
  Tokenizer::Encoded e = tok_.encode(decoder_only && sep != meta_.end() ? text + sep->second : text);
  if (e.ids.empty() || text.empty()) fail("the prompt is empty: type at least one token");
  Prompt p;
  if (cfg_.arch == Arch::EncoderDecoder) {
    p.src = std::move(e.ids);
    p.ids = {Tokenizer::kBos};
  } else if (decoder_only) {
    p.ids.push_back(Tokenizer::kBos);
    p.ids.insert(p.ids.end(), e.ids.begin(), e.ids.end());
    e.pieces.insert(e.pieces.begin(), tok_.vocab()[Tokenizer::kBos]);
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
    size_t size = 1;
    for (int s : t.shape) size *= static_cast<size_t>(s);
    check_finite(t.data, size, "weight '" + t.name + "'");
  }
}


namespace {

std::vector<uint8_t> pad_mask(const std::vector<int>& ids) {
  std::vector<uint8_t> p(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) p[i] = ids[i] == Tokenizer::kPad;
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
    const float* e = w.tok_emb.data() + static_cast<Eigen::Index>(ids[i]) * d;
    std::copy(e, e + d, x.data() + static_cast<Eigen::Index>(i) * d);
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
    Mat y;
    layer_norm(y, x, fin.gamma, fin.beta, cfg.eps);
    add_mat(tr, "final_norm", stack, -1, y);
    x.swap(y);
  }
}

void lm_head(const Mat& last, const ModelWeights& w, Trace& tr) {
  Mat logits, probs;
  linear(logits, last, w.lm_head_w, w.lm_head_b);  // (n, V)
  softmax_rows(probs, logits);
  add_mat(tr, "logits", "", -1, logits);
  add_mat(tr, "probs", "", -1, probs);
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
    src_pad = pad_mask(src);
    embed_tokens(enc, src, 0, w_, cfg, tr, "encoder");
    run_stack(enc, src_pad, "encoder", w_.encoder, w_.enc_final_norm, false, nullptr, nullptr, w_, cfg, tr, nullptr);
  }
  if (cfg.has_decoder()) {
    embed_tokens(dec, tgt, 0, w_, cfg, tr, "decoder");
    run_stack(dec, pad_mask(tgt), "decoder", w_.decoder, w_.dec_final_norm, cfg.causal, encdec ? &enc : nullptr,
              encdec ? &src_pad : nullptr, w_, cfg, tr, nullptr);
  }
  lm_head(cfg.has_decoder() ? dec : enc, w_, tr);
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
    st.mem_pad = pad_mask(src);
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
  lm_head(x, w_, tr);
}

}  // namespace ap
