// embind bindings, nothing else: the raw interface that wasm/index.js turns into idiomatic JS.
// Every entry point catches every exception (docs/toolchain.md, exceptions: an escaping C++ exception reaches
// JS as a bare number and leaks); on failure it returns null / -1 and last_error() says why.
// Arrays cross as pointers into the wasm heap that the wrapper malloc()s, fills and free()s.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/additive.hpp"
#include "core/attention.hpp"
#include "core/attention_stack.hpp"
#include "core/costs.hpp"
#include "core/decode.hpp"
#include "core/layers.hpp"
#include "core/model.hpp"
#include "core/presets.hpp"
#include "core/rnn.hpp"
#include "core/rnn_attention.hpp"
#include "io/model_io.hpp"
#include "io/rnn_attention_io.hpp"
#include "kernels/attention.hpp"
#include "trace/trace.hpp"
#ifdef AP_WITH_TRAINER
#include "train/evaluate.hpp"
#include "train/params.hpp"
#include "train/tasks.hpp"
#include "train/trainer.hpp"
#endif

using namespace emscripten;
using json = nlohmann::json;

namespace {

std::string g_last_error;

template <class F>
auto guard(F&& f, decltype(f()) on_error) -> decltype(f()) {
  try {
    g_last_error.clear();
    return f();
  } catch (const std::bad_alloc&) {
    g_last_error = "out of memory";
  } catch (const std::exception& e) {
    g_last_error = e.what();
  } catch (...) {
    g_last_error = "unknown error";
  }
  return on_error;
}

const float* fptr(uintptr_t p) { return reinterpret_cast<const float*>(p); }

// tokenizer.encode(text) as { ids, pieces, unknown } JSON ("" on error), for every model kind.
std::string encoded_json(const ap::Tokenizer& tok, const std::string& text) {
  return guard([&]() {
    const ap::Tokenizer::Encoded e = tok.encode(text);
    return json{{"ids", e.ids}, {"pieces", e.pieces}, {"unknown", e.unknown}}.dump();
  }, std::string());
}

// A plain memcpy, not an Eigen assignment: this file is built for size (-Oz, CMakeLists.txt), where
// Eigen's copy loop stays a call per coefficient (3x slower on a 64 x 64 traced attention call).
ap::Mat mat_from(uintptr_t p, int rows, int cols) {
  ap::Mat m(rows, cols);
  if (m.size() > 0) std::memcpy(m.data(), fptr(p), sizeof(float) * static_cast<size_t>(m.size()));
  return m;
}

}  // namespace

// Limits of one traced attention call: every stage of every head is kept, so the scores must fit.
constexpr int kMaxTokens = 4096;
constexpr int64_t kMaxScores = int64_t{1} << 22;  // nHeads * n * m
void check_tokens(int n, const char* what) {
  if (n > kMaxTokens)
    ap::fail(std::string(what) + " (" + std::to_string(n) + ") exceeds the limit of " + std::to_string(kMaxTokens) +
             " tokens per call");
}
void check_attention_limits(int n, int m, int h) {
  check_tokens(n, "n");
  check_tokens(m, "m");
  if (int64_t{h} * n * m > kMaxScores)
    ap::fail("nHeads*n*m = " + std::to_string(int64_t{h} * n * m) + " exceeds the limit of " +
             std::to_string(kMaxScores) + " attention scores per call");
}

// A finished trace: stages live here until delete(); views are handed out per call.
class TraceHandle {
 public:
  ap::Trace trace;

  std::string stages_json() const {
    json out = json::array();
    for (const ap::Stage& s : trace.stages())
      out.push_back({{"name", s.name}, {"stack", s.stack}, {"layer", s.layer}, {"shape", s.shape}});
    return out.dump();
  }
  int count() const { return static_cast<int>(trace.stages().size()); }
  val view(int i) const {  // zero-copy; the wrapper copies at once (memory growth detaches it)
    const ap::Stage& s = trace.stages().at(static_cast<size_t>(i));
    return val(typed_memory_view(s.data.size(), s.data.data()));
  }
};

TraceHandle* attention(uintptr_t x, uintptr_t memory, uintptr_t wq, uintptr_t wk, uintptr_t wv, uintptr_t wo,
                       uintptr_t bq, uintptr_t bk, uintptr_t bv, uintptr_t bo, uintptr_t key_padding, int n, int m,
                       int d, int h, bool causal, bool scale, double additive_mask) {
  return guard([&]() -> TraceHandle* {
    if (n <= 0) ap::fail("n must be at least 1 (got " + std::to_string(n) + "): there are no tokens");
    if (m <= 0) ap::fail("m must be at least 1 (got " + std::to_string(m) + ")");
    check_attention_limits(n, m, h);
    ap::AttentionWeights w;
    if (h <= 0) ap::fail("nHeads must be positive, got " + std::to_string(h));
    if (d <= 0 || d % h != 0)
      ap::fail("dModel (" + std::to_string(d) + ") is not divisible by nHeads (" + std::to_string(h) + ")");
    w.wq = mat_from(wq, d, d);
    w.wk = mat_from(wk, d, d);
    w.wv = mat_from(wv, d, d);
    w.wo = mat_from(wo, d, d);
    if (bq) w.bq = Eigen::Map<const ap::Vec>(fptr(bq), d);
    if (bk) w.bk = Eigen::Map<const ap::Vec>(fptr(bk), d);
    if (bv) w.bv = Eigen::Map<const ap::Vec>(fptr(bv), d);
    if (bo) w.bo = Eigen::Map<const ap::Vec>(fptr(bo), d);
    ap::check_attention_weights(w, d, h);
    ap::Mat xm = mat_from(x, n, d);
    ap::check_finite(xm.data(), static_cast<size_t>(xm.size()), "x");
    ap::Mat mem;
    if (memory) {
      mem = mat_from(memory, m, d);
      ap::check_finite(mem.data(), static_cast<size_t>(mem.size()), "memory");
    }
    std::vector<uint8_t> pad;
    ap::AttentionOptions opt;
    opt.n_heads = h;
    opt.causal = causal;
    opt.scale = scale;
    opt.additive_mask = static_cast<float>(additive_mask);
    if (key_padding) {
      const uint8_t* kp = reinterpret_cast<const uint8_t*>(key_padding);
      pad.assign(kp, kp + m);
      opt.key_padding = &pad;
    }
    auto t = std::make_unique<TraceHandle>();
    ap::Mat out;
    ap::multi_head_attention(out, xm, memory ? mem : xm, w, opt, &t->trace);
    return t.release();
  }, nullptr);
}

TraceHandle* run_preset(std::string id) {
  return guard([&]() -> TraceHandle* {
    auto t = std::make_unique<TraceHandle>();
    ap::run_preset(ap::find_preset(id), t->trace);
    return t.release();
  }, nullptr);
}

std::string presets_json() {
  json out = json::array();
  for (const ap::Preset& p : ap::lecture_presets())
    out.push_back({{"id", p.id}, {"concepts", p.concepts}, {"source", p.source}, {"title", p.title},
                   {"claim", p.claim}, {"tokens", p.tokens}, {"dModel", p.d_model}, {"nHeads", p.n_heads},
                   {"causal", p.causal}, {"scale", p.scale}, {"pos", ap::to_string(p.pos)}});
  return out.dump();
}

// One of the preset's input matrices ("x", "wq", "wk", "wv", "wo") copied out by the wrapper.
val preset_matrix(std::string id, std::string which) {
  static ap::Mat keep;  // lives until the next call; the wrapper copies at once
  const bool ok = guard([&]() -> bool {
    const ap::Preset& p = ap::find_preset(id);
    if (which == "x") keep = p.x;
    else if (which == "wq") keep = p.wq;
    else if (which == "wk") keep = p.wk;
    else if (which == "wv") keep = p.wv;
    else if (which == "wo") keep = p.wo;
    else ap::fail("unknown preset matrix '" + which + "'");
    return true;
  }, false);
  if (!ok) return val::null();
  return val(typed_memory_view(static_cast<size_t>(keep.size()), keep.data()));
}

// The result of model.generate(): the wrapper takes each step's trace out once, then deletes this.
class GenerationHandle {
 public:
  ap::Generation gen;

  std::string info_json() const {
    json steps = json::array();
    for (const ap::DecodeStep& s : gen.steps) steps.push_back({{"token", s.token}, {"cacheLen", s.cache_len}});
    return json{{"prompt", gen.prompt}, {"tokens", gen.tokens}, {"stop", gen.stop}, {"steps", steps}}.dump();
  }
  TraceHandle* take_step(int i) {
    auto t = std::make_unique<TraceHandle>();
    t->trace = std::move(gen.steps.at(static_cast<size_t>(i)).trace);
    return t.release();
  }
  TraceHandle* take_encoder() {
    auto t = std::make_unique<TraceHandle>();
    t->trace = std::move(gen.encoder);
    return t.release();
  }
  val distribution(int i) const {
    const auto& d = gen.steps.at(static_cast<size_t>(i)).distribution;
    return val(typed_memory_view(d.size(), d.data()));
  }
};

class ModelHandle {
 public:
  std::unique_ptr<ap::Model> model;
  std::vector<uint8_t> saved;

  std::string config_json() const {
    return guard([&]() { return ap::config_to_json(model->config()); }, std::string());
  }
  std::string vocab_json() const { return json(model->tokenizer().vocab()).dump(); }
  std::string encode(std::string text) const { return encoded_json(model->tokenizer(), text); }
  std::string decode(uintptr_t ids, int n) const {
    return guard([&]() {
      const int* p = reinterpret_cast<const int*>(ids);
      const int V = model->config().vocab_size;
      for (int i = 0; i < n; ++i)
        if (p[i] < 0 || p[i] >= V)
          ap::fail("token id " + std::to_string(p[i]) + " is outside the vocabulary (size " + std::to_string(V) + ")");
      return model->tokenizer().decode(std::vector<int>(p, p + n));
    }, std::string("\x01"));
  }
  TraceHandle* forward(uintptr_t src, int n_src, uintptr_t tgt, int n_tgt) const {
    return guard([&]() -> TraceHandle* {
      const int* s = reinterpret_cast<const int*>(src);
      const int* t = reinterpret_cast<const int*>(tgt);
      auto h = std::make_unique<TraceHandle>();
      if (model->config().arch == ap::Arch::EncoderDecoder)
        model->forward(h->trace, std::vector<int>(s, s + n_src), std::vector<int>(t, t + n_tgt));
      else
        model->forward(h->trace, std::vector<int>(s, s + n_src));
      return h.release();
    }, nullptr);
  }
  GenerationHandle* generate(uintptr_t prompt, int n_prompt, uintptr_t src, int n_src, int max_tokens,
                             double temperature, int top_k, double top_p, double seed, bool use_cache) const {
    return guard([&]() -> GenerationHandle* {
      const int* p = reinterpret_cast<const int*>(prompt);
      const int* s = reinterpret_cast<const int*>(src);
      ap::GenerateOptions opt;
      opt.max_tokens = max_tokens;
      opt.sampling.temperature = static_cast<float>(temperature);
      opt.sampling.top_k = top_k;
      opt.sampling.top_p = static_cast<float>(top_p);
      opt.sampling.seed = static_cast<uint64_t>(seed);
      opt.use_cache = use_cache;
      auto g = std::make_unique<GenerationHandle>();
      g->gen = ap::generate(*model, std::vector<int>(p, p + n_prompt), std::vector<int>(s, s + n_src), opt);
      return g.release();
    }, nullptr);
  }
  std::string metadata_json() const { return json(model->metadata()).dump(); }
  // Teaching switches that keep the weights: causal, scale, norm, pos (when no weights needed), heads.
  bool configure(std::string patch) {
    return guard([&]() {
      ap::ModelConfig c = model->config();
      json j = json::parse(patch);
      json merged = json::parse(ap::config_to_json(c));
      for (auto& [k, v] : j.items()) merged[k] = v;
      ap::ModelConfig next = ap::config_from_json(merged.dump());
      if (next.d_model != c.d_model || next.d_ff != c.d_ff || next.n_layers != c.n_layers ||
          next.vocab_size != c.vocab_size || next.arch != c.arch || next.tokenizer != c.tokenizer)
        ap::fail("only causal, scale, norm, pos, n_heads, act and eps can change on a built model");
      if (next.max_len != c.max_len && c.pos == ap::PosKind::Learned)
        ap::fail("max_len cannot change on a model with learned positions");
      if ((next.pos == ap::PosKind::Learned) != (c.pos == ap::PosKind::Learned) ||
          (next.pos == ap::PosKind::Relative) != (c.pos == ap::PosKind::Relative))
        ap::fail(std::string("switching positions to or from '") +
                 ap::to_string(next.pos == ap::PosKind::Learned || next.pos == ap::PosKind::Relative ? next.pos : c.pos) +
                 "' needs weights this model does not have");
      model->mutable_config() = next;
      return true;
    }, false);
  }
  std::string tensors_json() {
    json out = json::array();
    for (const auto& t : model->named_tensors()) out.push_back({{"name", t.name}, {"shape", t.shape}});
    return out.dump();
  }
  val tensor_view(std::string name) {
    for (const auto& t : model->named_tensors())
      if (t.name == name) {
        size_t size = 1;
        for (int s : t.shape) size *= static_cast<size_t>(s);
        return val(typed_memory_view(size, t.data));
      }
    g_last_error = "unknown tensor '" + name + "'";
    return val::null();
  }
  bool set_tensor(std::string name, uintptr_t data, int length) {
    return guard([&]() {
      for (const auto& t : model->named_tensors())
        if (t.name == name) {
          size_t size = 1;
          for (int s : t.shape) size *= static_cast<size_t>(s);
          if (static_cast<size_t>(length) != size)
            ap::fail("tensor '" + name + "' needs " + std::to_string(size) + " values, got " + std::to_string(length));
          ap::check_finite(fptr(data), size, "tensor '" + name + "'");
          std::copy(fptr(data), fptr(data) + size, t.data);
          return true;
        }
      ap::fail("unknown tensor '" + name + "'");
    }, false);
  }
  val save() {
    const bool ok = guard([&]() { saved = ap::save_model(*model); return true; }, false);
    if (!ok) return val::null();
    return val(typed_memory_view(saved.size(), saved.data()));
  }
};

// ffn's "why": the model's input rows (stage x of its main stack) through one of its blocks applied
// `depth` times, attention only (stack "attention_only") and with the block's FFN ("with_ffn").
TraceHandle* attention_stacks(ModelHandle& m, uintptr_t ids, int n, int layer, int depth, bool residual, bool causal) {
  return guard([&]() -> TraceHandle* {
    const ap::ModelConfig& cfg = m.model->config();
    if (cfg.arch == ap::Arch::EncoderDecoder) ap::fail("attentionStacks needs a decoder-only or encoder-only model");
    if (layer < 0 || layer >= cfg.n_layers)
      ap::fail("layer " + std::to_string(layer) + " is out of range: the model has " + std::to_string(cfg.n_layers) + " layers");
    const int* p = reinterpret_cast<const int*>(ids);
    ap::Trace fwd;
    m.model->forward(fwd, std::vector<int>(p, p + n));
    const std::string stack = cfg.arch == ap::Arch::EncoderOnly ? "encoder" : "decoder";
    const ap::Stage* x = nullptr;
    for (const ap::Stage& s : fwd.stages())
      if (s.name == "x" && s.stack == stack) x = &s;
    if (!x) ap::fail("the forward pass recorded no input rows");
    const ap::Mat x0 = mat_from(reinterpret_cast<uintptr_t>(x->data.data()), x->shape[0], x->shape[1]);
    const auto& blocks = cfg.arch == ap::Arch::EncoderOnly ? m.model->weights().encoder : m.model->weights().decoder;
    auto h = std::make_unique<TraceHandle>();
    for (const bool ffn : {false, true}) {
      ap::AttentionStackOptions opt;
      opt.depth = depth;
      opt.with_ffn = ffn;
      opt.residual = residual;
      opt.causal = causal;
      ap::attention_stack(h->trace, x0, blocks[static_cast<size_t>(layer)], cfg, opt, ffn ? "with_ffn" : "attention_only");
    }
    return h.release();
  }, nullptr);
}

#ifdef AP_WITH_TRAINER
// Held-out accuracy of a trained model on its own task (from the file's "task" metadata):
// exact match for sort / reverse / dates, agreement pairs won for grammar, top-1 at [MASK] for mlm.
std::string evaluate_task(ModelHandle& m, int n, double seed) {
  return guard([&]() {
    const auto it = m.model->metadata().find("task");
    if (it == m.model->metadata().end()) ap::fail("this model has no \"task\" in its metadata: it was not trained on a task");
    if (n <= 0) ap::fail("the number of held-out examples must be at least 1");
    const auto task = ap::train::make_task(it->second);
    const ap::train::EvalResult r = ap::train::evaluate_model(*m.model, *task, n, static_cast<uint64_t>(seed), 1);
    json kinds = json::object();
    for (const auto& [kind, ct] : r.by_kind) kinds[kind] = {{"correct", ct.first}, {"total", ct.second}};
    return json{{"task", it->second}, {"total", r.total}, {"correct", r.correct}, {"accuracy", r.accuracy()},
                {"byKind", kinds}}.dump();
  }, std::string());
}

// Training in the page: the C++ trainer (one thread) on a task, stepped from JS (a Web Worker).
class TrainerHandle {
 public:
  std::unique_ptr<ap::train::Trainer> trainer;

  double step(int n) {  // mean loss over n steps, NaN on error
    return guard([&]() {
      if (n <= 0) ap::fail("step(n) needs n >= 1");
      double sum = 0.0;
      for (int i = 0; i < n; ++i) sum += trainer->step();
      return sum / n;
    }, std::nan(""));
  }
  std::string info_json() const {
    return json{{"steps", trainer->steps_done()}, {"lr", trainer->current_lr()},
                {"gradNorm", trainer->last_grad_norm()}, {"task", trainer->config().task}}.dump();
  }
  std::string evaluate(int n, double seed) {
    return guard([&]() {
      const ap::train::EvalResult r = trainer->evaluate(n, static_cast<uint64_t>(seed));
      return json{{"total", r.total}, {"correct", r.correct}, {"accuracy", r.accuracy()}}.dump();
    }, std::string());
  }
  // Fine-tuning: start from a loaded model's weights (before the first step).
  bool start_from(ModelHandle* m) {
    return guard([&]() {
      if (!m || !m->model) ap::fail("startFrom needs a model");
      trainer->start_from(*m->model);
      return true;
    }, false);
  }
  // The current weights as an inference model (to run forward and read attention patterns).
  ModelHandle* snapshot() {
    return guard([&]() -> ModelHandle* {
      auto h = std::make_unique<ModelHandle>();
      h->model = std::make_unique<ap::Model>(trainer->model_config(), trainer->task().tokenizer());
      ap::train::params_to_model(h->model->weights(), trainer->params());
      h->model->mutable_metadata()["task"] = trainer->config().task;
      if (!trainer->task().separator().empty()) h->model->mutable_metadata()["separator"] = trainer->task().separator();
      return h.release();
    }, nullptr);
  }
};

TrainerHandle* create_trainer(std::string task, std::string sizes_json, double lr, int warmup, int total_steps,
                              int batch, double seed) {
  return guard([&]() -> TrainerHandle* {
    ap::train::TrainConfig cfg;
    cfg.task = task;
    cfg.model = ap::config_from_json(sizes_json);
    cfg.optim.lr = static_cast<float>(lr);
    cfg.optim.warmup_steps = warmup;
    cfg.optim.total_steps = total_steps;
    if (batch <= 0) ap::fail("batch must be at least 1");
    cfg.batch = batch;
    cfg.seed = static_cast<uint64_t>(seed);
    cfg.threads = 1;  // no threads in this wasm build
    auto h = std::make_unique<TrainerHandle>();
    h->trainer = std::make_unique<ap::train::Trainer>(cfg);
    return h.release();
  }, nullptr);
}
#endif  // AP_WITH_TRAINER

ModelHandle* create_model(std::string config, std::string vocab, double seed) {
  return guard([&]() -> ModelHandle* {
    ap::ModelConfig cfg = ap::config_from_json(config);
    std::vector<std::string> pieces;
    try {
      pieces = json::parse(vocab).get<std::vector<std::string>>();
    } catch (const json::exception&) {
      ap::fail("vocab must be an array of strings");
    }
    std::vector<std::string> full = {"<pad>", "<unk>", "<bos>", "<eos>"};
    full.insert(full.end(), pieces.begin(), pieces.end());
    ap::Tokenizer tok(ap::Tokenizer::kind_from_name(cfg.tokenizer), full);
    if (cfg.vocab_size == 0) cfg.vocab_size = tok.size();
    auto h = std::make_unique<ModelHandle>();
    h->model = std::make_unique<ap::Model>(cfg, tok);
    h->model->init_random(static_cast<uint64_t>(seed));
    return h.release();
  }, nullptr);
}

ModelHandle* load_model(uintptr_t bytes, int size) {
  return guard([&]() -> ModelHandle* {
    auto h = std::make_unique<ModelHandle>();
    h->model = std::make_unique<ap::Model>(ap::load_model(reinterpret_cast<const uint8_t*>(bytes), static_cast<size_t>(size)));
    return h.release();
  }, nullptr);
}

// The fast path without a trace: online-softmax tiled attention, never the n x n matrix.
constexpr int64_t kKernelFullMaxScores = int64_t{1} << 24;  // n*m with full: true (64 MB of floats)
void check_kernel_attention(int n, int m, int d_k, int h, bool full) {
  if (n <= 0 || m <= 0) ap::fail("n and m must be at least 1");
  if (d_k <= 0 || h <= 0) ap::fail("dK and nHeads must be positive");
  if (n > 65536 || m > 65536) ap::fail("n and m are limited to 65536 tokens in kernels.attention");
  if (full && int64_t{n} * m > kKernelFullMaxScores)
    ap::fail("n*m = " + std::to_string(int64_t{n} * m) + " exceeds the limit of " + std::to_string(kKernelFullMaxScores) +
             " scores with full: true (use the online kernel, full: false, for long inputs)");
}

bool kernel_attention(uintptr_t out, uintptr_t q, uintptr_t k, uintptr_t v, int n, int m, int d_k, int h,
                      bool causal, bool scale, bool full) {
  return guard([&]() {
    check_kernel_attention(n, m, d_k, h, full);
    float* o = reinterpret_cast<float*>(out);
    if (full) ap::kernels::attention_forward_full(o, fptr(q), fptr(k), fptr(v), n, m, d_k, h, causal, scale);
    else ap::kernels::attention_forward(o, fptr(q), fptr(k), fptr(v), n, m, d_k, h, causal, scale);
    return true;
  }, false);
}

// kernel_attention, returning the heap bytes the call held at its peak beyond what was in use
// before it (the allocator's count; the online kernel allocates nothing). -1 on error.
double kernel_attention_measured(uintptr_t out, uintptr_t q, uintptr_t k, uintptr_t v, int n, int m, int d_k,
                                 int h, bool causal, bool scale, bool full) {
  return guard([&]() {
    check_kernel_attention(n, m, d_k, h, full);
    float* o = reinterpret_cast<float*>(out);
    if (full) return ap::kernels::attention_forward_full_measured(o, fptr(q), fptr(k), fptr(v), n, m, d_k, h, causal, scale);
    const double before = static_cast<double>(mallinfo().uordblks);
    ap::kernels::attention_forward(o, fptr(q), fptr(k), fptr(v), n, m, d_k, h, causal, scale);
    return static_cast<double>(mallinfo().uordblks) - before;
  }, -1.0);
}

// The working memory of each path (no call made): sizes only, so any n and m may be asked about.
std::string kernel_attention_memory(int n, int m, int d_k, int h, bool full) {
  return guard([&]() {
    if (n <= 0 || m <= 0) ap::fail("n and m must be at least 1");
    if (d_k <= 0 || h <= 0) ap::fail("dK and nHeads must be positive");
    ap::kernels::AttentionMemory mem = ap::kernels::attention_memory(n, m, full);
    const double width = double(h) * d_k;
    return json{{"scoresHeld", mem.scores_held}, {"scratchBytes", mem.scratch_bytes},
                {"ioBytes", (2.0 * n + 2.0 * m) * width * sizeof(float)},  // q, out (n rows); k, v (m rows)
                {"limitScores", kKernelFullMaxScores}}.dump();
  }, std::string());
}

// The online softmax of one query, tile by tile (see ap::kernels::online_softmax_steps).
int kernel_online_softmax_steps(uintptr_t steps, uintptr_t out, uintptr_t scores, uintptr_t q, uintptr_t k,
                                uintptr_t v, int m, int d_k, int tile, bool scale) {
  return guard([&]() {
    if (m <= 0 || m > 4096) ap::fail("m must be between 1 and 4096 keys");
    if (d_k <= 0 || d_k > 4096) ap::fail("dK must be between 1 and 4096");
    if (tile <= 0) ap::fail("tile must be at least 1");
    return ap::kernels::online_softmax_steps(reinterpret_cast<float*>(steps), reinterpret_cast<float*>(out),
                                             reinterpret_cast<float*>(scores), fptr(q), fptr(k), fptr(v), m, d_k,
                                             tile, scale);
  }, -1);
}

// rnn-chain / rnn-vanishing: an Elman RNN with seeded weights scaled to a spectral radius.
TraceHandle* rnn(uintptr_t x, int n, int d_in, int d_h, double rho, double seed) {
  return guard([&]() -> TraceHandle* {
    if (n <= 0) ap::fail("the RNN needs at least one token (n = " + std::to_string(n) + ")");
    check_tokens(n, "n");
    if (d_in > 4096 || d_h > 4096) ap::fail("RNN sizes are limited to 4096");
    const ap::RnnWeights w = ap::rnn_random(d_in, d_h, static_cast<float>(rho), static_cast<uint64_t>(seed));
    auto t = std::make_unique<TraceHandle>();
    ap::rnn_forward(t->trace, mat_from(x, n, d_in), w);
    return t.release();
  }, nullptr);
}

// bahdanau: additive attention of decoder states s (n, d_s) over encoder states h (m, d_h).
TraceHandle* additive(uintptr_t s, int n, int d_s, uintptr_t h, int m, int d_h, int d_a, double seed) {
  return guard([&]() -> TraceHandle* {
    if (n <= 0 || m <= 0) ap::fail("additive attention needs at least one query and one key");
    check_tokens(n, "n");
    check_tokens(m, "m");
    if (int64_t{n} * m * d_a > (int64_t{1} << 24)) ap::fail("n*m*dA exceeds the limit of 16777216");
    const ap::AdditiveWeights w = ap::additive_random(d_s, d_h, d_a, static_cast<uint64_t>(seed));
    auto t = std::make_unique<TraceHandle>();
    ap::additive_attention(t->trace, mat_from(s, n, d_s), mat_from(h, m, d_h), w);
    return t.release();
  }, nullptr);
}

// soft-lookup / general-form: e = g(q, k) (dot, scaled, additive), soft or hard, then a = weights V.
TraceHandle* lookup(uintptr_t q, uintptr_t k, uintptr_t v, int n, int m, int d, int d_v, std::string fn, bool hard,
                    int d_a, double seed) {
  return guard([&]() -> TraceHandle* {
    if (n <= 0 || m <= 0 || d <= 0 || d_v <= 0) ap::fail("lookup sizes must be positive");
    check_tokens(n, "n");
    check_tokens(m, "m");
    const ap::ScoreFn f = ap::score_fn_from_string(fn);
    ap::AdditiveWeights w;
    if (f == ap::ScoreFn::Additive) w = ap::additive_random(d, d, d_a, static_cast<uint64_t>(seed));
    auto t = std::make_unique<TraceHandle>();
    ap::lookup(t->trace, mat_from(q, n, d), mat_from(k, m, d), mat_from(v, m, d_v), f, hard,
               f == ap::ScoreFn::Additive ? &w : nullptr);
    return t.release();
  }, nullptr);
}

// ---- costs (model-sizes, rnn-cost, head-cost, scale): counts and the sqrt(d_k) experiment ----

json size_config_json(const ap::SizeConfig& c) {
  return {{"arch", ap::to_string(c.arch)}, {"dModel", c.d_model}, {"nHeads", c.n_heads},
          {"encoderLayers", c.enc_layers}, {"decoderLayers", c.dec_layers}, {"dFf", c.d_ff},
          {"vocabSize", c.vocab_size}, {"maxLen", c.max_len}, {"pos", ap::to_string(c.pos)},
          {"relClip", c.rel_clip}, {"norm", ap::to_string(c.norm)}, {"biases", c.biases},
          {"shareEmbeddings", c.share_embeddings}, {"tieEmbeddings", c.tie_lm_head},
          {"lmHeadBias", c.lm_head_bias}, {"segments", c.segments}, {"embedNorm", c.embed_norm},
          {"pooler", c.pooler}};
}

// The wrapper sends every key, already checked for type; this only reads them.
ap::SizeConfig size_config_from(const json& j) {
  ap::SizeConfig c;
  c.arch = ap::arch_from_string(j.at("arch").get<std::string>());
  c.d_model = j.at("dModel").get<int64_t>();
  c.n_heads = j.at("nHeads").get<int64_t>();
  c.enc_layers = j.at("encoderLayers").get<int64_t>();
  c.dec_layers = j.at("decoderLayers").get<int64_t>();
  c.d_ff = j.at("dFf").get<int64_t>();
  c.vocab_size = j.at("vocabSize").get<int64_t>();
  c.max_len = j.at("maxLen").get<int64_t>();
  c.pos = ap::pos_from_string(j.at("pos").get<std::string>());
  c.rel_clip = j.at("relClip").get<int64_t>();
  c.norm = ap::norm_from_string(j.at("norm").get<std::string>());
  c.biases = j.at("biases").get<bool>();
  c.share_embeddings = j.at("shareEmbeddings").get<bool>();
  c.tie_lm_head = j.at("tieEmbeddings").get<bool>();
  c.lm_head_bias = j.at("lmHeadBias").get<bool>();
  c.segments = j.at("segments").get<int64_t>();
  c.embed_norm = j.at("embedNorm").get<bool>();
  c.pooler = j.at("pooler").get<bool>();
  return c;
}

json layer_params_json(const ap::LayerParams& l) {
  return {{"attention", l.attention}, {"ffn", l.ffn}, {"norms", l.norms}, {"total", l.total()}};
}

std::string parameter_count(std::string config) {
  return guard([&]() {
    const ap::SizeConfig c = size_config_from(json::parse(config));
    const ap::ParamCount p = ap::count_parameters(c);
    return json{{"total", p.total}, {"embeddings", p.embeddings}, {"attention", p.attention}, {"ffn", p.ffn},
                {"norms", p.norms}, {"lmHead", p.lm_head}, {"pooler", p.pooler},
                {"tokenEmbeddings", p.token_embeddings}, {"positionEmbeddings", p.position_embeddings},
                {"segmentEmbeddings", p.segment_embeddings}, {"encoderLayers", p.enc_layers},
                {"decoderLayers", p.dec_layers}, {"encoderLayer", layer_params_json(p.encoder_layer)},
                {"decoderLayer", layer_params_json(p.decoder_layer)}, {"config", size_config_json(c)}}.dump();
  }, std::string());
}

std::string size_presets_json() {
  json out = json::array();
  for (const ap::SizePreset& p : ap::size_presets())
    out.push_back({{"id", p.id}, {"title", p.title}, {"source", p.source}, {"published", p.published},
                   {"note", p.note}, {"config", size_config_json(p.config)}});
  return out.dump();
}

std::string flops(double n, double d, double h) {
  return guard([&]() {
    const auto a = ap::attention_flops(static_cast<int64_t>(n), static_cast<int64_t>(d), static_cast<int64_t>(h));
    const auto one = ap::attention_flops(static_cast<int64_t>(n), static_cast<int64_t>(d), 1);
    const auto r = ap::rnn_flops(static_cast<int64_t>(n), static_cast<int64_t>(d));
    auto attn = [](const ap::AttentionFlops& f) {
      return json{{"h", f.h}, {"dK", f.d_k}, {"projections", f.projections}, {"scores", f.scores},
                  {"weightedSum", f.weighted_sum}, {"quadratic", f.quadratic}, {"total", f.total},
                  {"scoreEntries", f.score_entries}, {"softmaxExps", f.softmax_exps},
                  {"sequentialSteps", f.sequential_steps}, {"pathLength", f.path_length}};
    };
    return json{{"n", a.n}, {"d", a.d}, {"flopsPerMultiplyAdd", 2}, {"attention", attn(a)}, {"singleHead", attn(one)},
                {"rnn", {{"perStep", r.per_step}, {"total", r.total}, {"sequentialSteps", r.sequential_steps},
                         {"pathLength", r.path_length}}},
                {"crossoverN", a.d}}.dump();  // 4 n^2 d = 4 n d^2 exactly when n = d
  }, std::string());
}

std::string scale_stats(int d_k, int n, int draws, double seed) {
  return guard([&]() {
    const ap::ScaleStats s = ap::scale_stats(d_k, n, draws, static_cast<uint64_t>(seed));
    auto side = [](const ap::ScoreStats& t) {
      return json{{"mean", t.mean}, {"std", t.std}, {"entropy", t.entropy}, {"maxWeight", t.max_weight}};
    };
    return json{{"dK", s.d_k}, {"n", s.n}, {"draws", s.draws}, {"sqrtDk", s.sqrt_dk}, {"maxEntropy", s.max_entropy},
                {"unscaled", side(s.unscaled)}, {"scaled", side(s.scaled)}}.dump();
  }, std::string());
}

// The RNN recurrence alone (no trace, no Jacobians), for timing against the attention kernel.
bool rnn_states(uintptr_t out, uintptr_t x, uintptr_t wxh, uintptr_t whh, int n, int d_in, int d_h) {
  return guard([&]() {
    if (n <= 0 || d_in <= 0 || d_h <= 0) ap::fail("n, dIn and dHidden must be at least 1");
    if (n > 65536) ap::fail("n is limited to 65536 tokens in rnnStates");
    if (d_in > 4096 || d_h > 4096) ap::fail("RNN sizes are limited to 4096");
    ap::RnnWeights w;
    w.wxh = mat_from(wxh, d_in, d_h);
    w.whh = mat_from(whh, d_h, d_h);
    ap::Mat h;
    ap::rnn_states(h, mat_from(x, n, d_in), w);
    std::copy(h.data(), h.data() + h.size(), reinterpret_cast<float*>(out));
    return true;
  }, false);
}

// ---- end of costs ----

std::string last_error() { return g_last_error; }
double heap_used() { return static_cast<double>(mallinfo().uordblks); }
std::string kernel_variant() { return ap::kernels::variant(); }

EMSCRIPTEN_BINDINGS(attention_playground) {
  class_<TraceHandle>("TraceHandle")
      .function("stagesJson", &TraceHandle::stages_json)
      .function("count", &TraceHandle::count)
      .function("view", &TraceHandle::view);
  class_<GenerationHandle>("GenerationHandle")
      .function("infoJson", &GenerationHandle::info_json)
      .function("takeStep", &GenerationHandle::take_step, allow_raw_pointers())
      .function("takeEncoder", &GenerationHandle::take_encoder, allow_raw_pointers())
      .function("distribution", &GenerationHandle::distribution);
  class_<ModelHandle>("ModelHandle")
      .function("generate", &ModelHandle::generate, allow_raw_pointers())
      .function("metadataJson", &ModelHandle::metadata_json)
      .function("configJson", &ModelHandle::config_json)
      .function("vocabJson", &ModelHandle::vocab_json)
      .function("encode", &ModelHandle::encode)
      .function("decode", &ModelHandle::decode)
      .function("forward", &ModelHandle::forward, allow_raw_pointers())
      .function("configure", &ModelHandle::configure)
      .function("tensorsJson", &ModelHandle::tensors_json)
      .function("tensorView", &ModelHandle::tensor_view)
      .function("setTensor", &ModelHandle::set_tensor)
      .function("save", &ModelHandle::save);
  function("attention", &attention, allow_raw_pointers());
  function("runPreset", &run_preset, allow_raw_pointers());
  function("presetsJson", &presets_json);
  function("presetMatrix", &preset_matrix);
  function("createModel", &create_model, allow_raw_pointers());
  function("loadModel", &load_model, allow_raw_pointers());
  function("kernelAttention", &kernel_attention);
  function("kernelAttentionMeasured", &kernel_attention_measured);
  function("kernelAttentionMemory", &kernel_attention_memory);
  function("kernelOnlineSoftmaxSteps", &kernel_online_softmax_steps);
  function("attentionStacks", &attention_stacks, allow_raw_pointers());
  function("rnn", &rnn, allow_raw_pointers());
  function("additive", &additive, allow_raw_pointers());
  function("lookup", &lookup, allow_raw_pointers());
  function("parameterCount", &parameter_count);  // costs
  function("sizePresetsJson", &size_presets_json);
  function("flops", &flops);
  function("scaleStats", &scale_stats);
  function("rnnStates", &rnn_states);
  function("lastError", &last_error);
  function("heapUsed", &heap_used);
  function("kernelVariant", &kernel_variant);
}

// ---- RNN encoder-decoder with additive attention (birnn, bahdanau, translation) ----------------
// A trained model file (io/rnn_attention_io.hpp) loaded once; each call runs the core and
// returns a trace of every stage (core/rnn_attention.hpp names them).
class RnnAttnHandle {
 public:
  std::unique_ptr<ap::RnnAttnModel> model;

  std::string config_json() const { return ap::rnn_attention_config_to_json(model->config()); }
  std::string metadata_json() const { return json(model->metadata()).dump(); }
  std::string vocab_json() const { return json(model->tokenizer().vocab()).dump(); }
  std::string encode(std::string text) const { return encoded_json(model->tokenizer(), text); }
  // ids as a JSON array; "\x01" on error.
  std::string decode(std::string ids_json) const {
    return guard([&]() {
      std::vector<int> ids;
      try {
        ids = json::parse(ids_json).get<std::vector<int>>();
      } catch (const json::exception&) {
        ap::fail("ids must be an array of integers");
      }
      for (int id : ids)
        if (id < 0 || id >= model->config().vocab_size) ap::fail("token id " + std::to_string(id) + " is outside the vocabulary");
      return model->tokenizer().decode(ids);
    }, std::string("\x01"));
  }
  // The encoder alone on the source text.
  TraceHandle* encoder(std::string src) const {
    return guard([&]() -> TraceHandle* {
      const std::vector<int> ids = model->tokenizer().encode(src).ids;
      if (ids.empty()) ap::fail("there are no words: type a sentence for the encoder to read");
      auto h = std::make_unique<TraceHandle>();
      model->encode(h->trace, ids);
      return h.release();
    }, nullptr);
  }
  // Greedy translation (teacher = false), or the decoder reading <bos> + tgt (teacher = true).
  TraceHandle* translate(std::string src, std::string tgt, bool teacher) const {
    return guard([&]() -> TraceHandle* {
      const std::vector<int> ids = model->tokenizer().encode(src).ids;
      if (ids.empty()) ap::fail("there is nothing to translate: type a sentence");
      const std::vector<int> t = model->tokenizer().encode(tgt).ids;
      auto h = std::make_unique<TraceHandle>();
      model->forward(h->trace, ids, teacher ? &t : nullptr);
      return h.release();
    }, nullptr);
  }
};

RnnAttnHandle* load_rnn_attention(uintptr_t bytes, int size) {
  return guard([&]() -> RnnAttnHandle* {
    auto h = std::make_unique<RnnAttnHandle>();
    h->model = std::make_unique<ap::RnnAttnModel>(
        ap::load_rnn_attention(reinterpret_cast<const uint8_t*>(bytes), static_cast<size_t>(size)));
    return h.release();
  }, nullptr);
}

#ifdef AP_WITH_TRAINER
// Only in the second module (ap_train), loaded when a page or script first trains.
EMSCRIPTEN_BINDINGS(attention_playground_trainer) {
  class_<TrainerHandle>("TrainerHandle")
      .function("step", &TrainerHandle::step)
      .function("infoJson", &TrainerHandle::info_json)
      .function("evaluate", &TrainerHandle::evaluate)
      .function("snapshot", &TrainerHandle::snapshot, allow_raw_pointers())
      .function("startFrom", &TrainerHandle::start_from, allow_raw_pointers());
  function("createTrainer", &create_trainer, allow_raw_pointers());
  function("evaluateTask", &evaluate_task);
}
#endif  // AP_WITH_TRAINER

EMSCRIPTEN_BINDINGS(attention_playground_rnn_attention) {
  class_<RnnAttnHandle>("RnnAttnHandle")
      .function("configJson", &RnnAttnHandle::config_json)
      .function("metadataJson", &RnnAttnHandle::metadata_json)
      .function("vocabJson", &RnnAttnHandle::vocab_json)
      .function("encode", &RnnAttnHandle::encode)
      .function("decode", &RnnAttnHandle::decode)
      .function("encoder", &RnnAttnHandle::encoder, allow_raw_pointers())
      .function("translate", &RnnAttnHandle::translate, allow_raw_pointers());
  function("loadRnnAttention", &load_rnn_attention, allow_raw_pointers());
}
