// embind bindings, nothing else: the raw interface that wasm/index.js turns into idiomatic JS.
// Every entry point catches every exception (docs/toolchain.md, exceptions: an escaping C++ exception reaches
// JS as a bare number and leaks); on failure it returns null / -1 and last_error() says why.
// Arrays cross as pointers into the wasm heap that the wrapper malloc()s, fills and free()s; records
// cross as JS objects built here with embind's val (no JSON text in between). Every rule (limits,
// switches, special tokens, prompt formatting) is the core's: this file only converts.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/additive.hpp"
#include "core/attention.hpp"
#include "core/attention_stack.hpp"
#include "core/costs.hpp"
#include "core/decode.hpp"
#include "core/layers.hpp"
#include "core/limits.hpp"
#include "core/model.hpp"
#include "core/presets.hpp"
#include "core/rnn.hpp"
#include "core/rnn_attention.hpp"
#include "io/model_io.hpp"
#include "io/rnn_attention_io.hpp"
#include "kernels/attention.hpp"
#include "kernels/parallel.hpp"
#include "trace/trace.hpp"
#ifdef AP_WITH_TRAINER
#include "data/tasks.hpp"
#include "io/hf_model.hpp"
#include "train/evaluate.hpp"
#include "train/params.hpp"
#include "train/trainer.hpp"
#endif

using namespace emscripten;

namespace {

// ---- C++ values to JS values ----
val js(const val& v) { return v; }
val js(bool b) { return val(b); }
val js(int x) { return val(x); }
val js(int64_t x) { return val(static_cast<double>(x)); }
val js(uint64_t x) { return val(static_cast<double>(x)); }
val js(double x) { return val(x); }
val js(float x) { return val(static_cast<double>(x)); }
val js(const std::string& s) { return val(s); }
val js(const char* s) { return val(std::string(s)); }
template <class T>
val js(const std::vector<T>& v) {
  val a = val::array();
  for (size_t i = 0; i < v.size(); ++i) a.set(static_cast<int>(i), js(v[i]));
  return a;
}
val js(const std::map<std::string, std::string>& m) {
  val o = val::object();
  for (const auto& [k, v] : m) o.set(k, val(v));
  return o;
}
// obj({{"name", js(x)}, ...}): a JS object, written like the JSON literals it replaces.
val obj(std::initializer_list<std::pair<const char*, val>> fields) {
  val o = val::object();
  for (const auto& [k, v] : fields) o.set(k, v);
  return o;
}
// A copy of n ints as an Int32Array.
val int32_copy(const std::vector<int>& v) { return val(typed_memory_view(v.size(), v.data())).call<val>("slice"); }

// ---- JS values to C++ values (checked here: a wrong JS type must not throw through C++ frames) ----
bool is(const val& v, const char* type) { return v.typeOf().as<std::string>() == type; }
bool given(const val& o, const char* key) { return !o[key].isUndefined() && !o[key].isNull(); }

std::vector<std::string> strings_from(const val& a, const std::string& what) {
  if (!val::global("Array").call<bool>("isArray", a)) ap::fail(what + " must be an array of strings");
  const int n = a["length"].as<int>();
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (!is(a[i], "string")) ap::fail(what + " must be an array of strings (entry " + std::to_string(i) + " is not)");
    out.push_back(a[i].as<std::string>());
  }
  return out;
}

// The teaching switches of one call, { causal, scale, nHeads, pos, norm, act, eps, normKind, ffnKind,
// nKvHeads, window }, each optional.
ap::Switches switches_from(const val& o) {
  ap::Switches sw;
  if (o.isUndefined() || o.isNull()) return sw;
  if (!is(o, "object")) ap::fail("switches must be an object like { causal: false, nHeads: 4 }");
  const std::vector<std::string> keys = strings_from(val::global("Object").call<val>("keys", o), "switch names");
  for (const std::string& k : keys) {
    const val v = o[k];
    if (v.isUndefined() || v.isNull()) continue;
    auto boolean = [&]() {
      if (!is(v, "boolean")) ap::fail("switch " + k + " must be true or false");
      return v.as<bool>();
    };
    auto number = [&]() {
      if (!is(v, "number")) ap::fail("switch " + k + " must be a number");
      return v.as<double>();
    };
    auto text = [&]() {
      if (!is(v, "string")) ap::fail("switch " + k + " must be a string");
      return v.as<std::string>();
    };
    if (k == "causal")
      sw.causal = boolean();
    else if (k == "scale")
      sw.scale = boolean();
    else if (k == "nHeads" || k == "nKvHeads" || k == "window") {
      const double h = number();
      if (h != static_cast<int>(h)) ap::fail("switch " + k + " must be an integer");
      (k == "nHeads" ? sw.n_heads : k == "window" ? sw.window : sw.n_kv_heads) = static_cast<int>(h);
    } else if (k == "normKind")
      sw.norm_kind = ap::norm_kind_from_string(text());
    else if (k == "ffnKind")
      sw.ffn_kind = ap::ffn_kind_from_string(text());
    else if (k == "pos")
      sw.pos = ap::pos_from_string(text());
    else if (k == "norm")
      sw.norm = ap::norm_from_string(text());
    else if (k == "act")
      sw.act = ap::act_from_string(text());
    else if (k == "eps")
      sw.eps = static_cast<float>(number());
    else
      ap::fail("unknown switch '" + k +
               "' (the switches are causal, scale, nHeads, pos, norm, act, eps, normKind, ffnKind, nKvHeads, window)");
  }
  return sw;
}

// What a traced call keeps: undefined (everything) or { layers: [i, ...], stages: [name, ...],
// drop: [name, ...] } (trace/trace.hpp's TraceKeep).
ap::TraceKeep keep_from(const val& o) {
  ap::TraceKeep k;
  if (o.isUndefined() || o.isNull()) return k;
  if (!is(o, "object")) ap::fail("keep must be an object like { layers: [0], stages: ['weights'] }");
  const std::vector<std::string> keys = strings_from(val::global("Object").call<val>("keys", o), "keep's keys");
  for (const std::string& key : keys) {
    const val v = o[key];
    if (key == "layers") {
      if (!val::global("Array").call<bool>("isArray", v)) ap::fail("keep.layers must be an array of layer numbers");
      k.all = false;
      for (int i = 0, n = v["length"].as<int>(); i < n; ++i) {
        if (!is(v[i], "number") || v[i].as<double>() != v[i].as<int>()) ap::fail("keep.layers must hold integers");
        k.layers.push_back(v[i].as<int>());
      }
    } else if (key == "stages") {
      k.all = false;
      k.names = strings_from(v, "keep.stages");
    } else if (key == "drop") {
      k.drop = strings_from(v, "keep.drop");
    } else {
      ap::fail("unknown keep option '" + key + "' (layers, stages, drop)");
    }
  }
  return k;
}

std::string g_last_error;

// A message quotes what it refuses (a token, a type name, a merge): at most 400 bytes of it cross
// to JS, cut at a character boundary, so a 50 MB string in a hostile tokenizer.json does not come
// back as a 50 MB Error.
constexpr size_t kMaxMessage = 400;
// Assigned in place (no new buffer when the old one is large enough): a failing call repeated
// leaves the heap exactly as the first left it (tests/wasm/pretrained.test.js checks it).
void set_last_error(const char* what) {
  const size_t n = std::strlen(what);
  if (n <= kMaxMessage) {
    g_last_error.assign(what, n);
    return;
  }
  size_t cut = kMaxMessage - 60;
  while (cut > 0 && (static_cast<unsigned char>(what[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  g_last_error.assign(what, cut);
  g_last_error += "... (";
  g_last_error += std::to_string(n);
  g_last_error += " bytes in all)";
}

template <class F>
auto guard(F&& f, decltype(f()) on_error) -> decltype(f()) {
  try {
    g_last_error.clear();
    return f();
  } catch (const std::bad_alloc&) {
    g_last_error = "out of memory";
  } catch (const std::exception& e) {
    set_last_error(e.what());
  } catch (...) {
    g_last_error = "unknown error";
  }
  return on_error;
}

const float* fptr(uintptr_t p) { return reinterpret_cast<const float*>(p); }

// tokenizer.encode(text) as { ids, pieces, unknown } (null on error), for every model kind.
val encoded(const ap::Tokenizer& tok, const std::string& text) {
  return guard(
      [&]() {
        const ap::Tokenizer::Encoded e = tok.encode(text);
        return obj({{"ids", int32_copy(e.ids)}, {"pieces", js(e.pieces)}, {"unknown", js(e.unknown)}});
      },
      val::null());
}

// A plain memcpy, not an Eigen assignment: this file is built for size (-Oz, CMakeLists.txt), where
// Eigen's copy loop stays a call per coefficient (3x slower on a 64 x 64 traced attention call).
ap::Mat mat_from(uintptr_t p, int rows, int cols) {
  ap::Mat m(rows, cols);
  if (m.size() > 0) std::memcpy(m.data(), fptr(p), sizeof(float) * static_cast<size_t>(m.size()));
  return m;
}

}  // namespace

// A finished trace: stages live here until delete(); views are handed out per call.
class TraceHandle {
 public:
  ap::Trace trace;

  val stages() const {
    val out = val::array();
    int i = 0;
    for (const ap::Stage& s : trace.stages())
      out.set(i++, obj({{"name", js(s.name)},
                        {"stack", js(s.stack)},
                        {"layer", js(s.layer)},
                        {"shape", js(s.shape)},
                        {"role", js(s.role)}}));
    return out;
  }
  int count() const { return static_cast<int>(trace.stages().size()); }
  val view(int i) const {  // zero-copy; the wrapper copies at once (memory growth detaches it)
    const ap::Stage& s = trace.stages().at(static_cast<size_t>(i));
    return val(typed_memory_view(s.data.size(), s.data.data()));
  }
};

TraceHandle* attention(uintptr_t x, uintptr_t memory, uintptr_t wq, uintptr_t wk, uintptr_t wv, uintptr_t wo,
                       uintptr_t bq, uintptr_t bk, uintptr_t bv, uintptr_t bo, uintptr_t key_padding, int n, int m,
                       int d, int h, bool causal, bool scale, double additive_mask, int n_kv_heads, int window) {
  return guard(
      [&]() -> TraceHandle* {
        ap::limits::check_traced_attention(n, m, h);
        ap::limits::check_heads(d, h);
        ap::limits::check_kv_heads(h, n_kv_heads);
        ap::limits::check_window(window);
        const int kv = n_kv_heads > 0 ? n_kv_heads * (d / h) : d;  // wk, wv: (d, kv)
        ap::AttentionWeights w;
        w.wq = mat_from(wq, d, d);
        w.wk = mat_from(wk, d, kv);
        w.wv = mat_from(wv, d, kv);
        w.wo = mat_from(wo, d, d);
        if (bq) w.bq = Eigen::Map<const ap::Vec>(fptr(bq), d);
        if (bk) w.bk = Eigen::Map<const ap::Vec>(fptr(bk), kv);
        if (bv) w.bv = Eigen::Map<const ap::Vec>(fptr(bv), kv);
        if (bo) w.bo = Eigen::Map<const ap::Vec>(fptr(bo), d);
        ap::check_attention_weights(w, d, h, n_kv_heads);
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
        opt.n_kv_heads = n_kv_heads;
        opt.window = window;
        if (key_padding) {
          const uint8_t* kp = reinterpret_cast<const uint8_t*>(key_padding);
          pad.assign(kp, kp + m);
          opt.key_padding = &pad;
        }
        auto t = std::make_unique<TraceHandle>();
        ap::Mat out;
        ap::multi_head_attention(out, xm, memory ? mem : xm, w, opt, &t->trace);
        return t.release();
      },
      nullptr);
}

TraceHandle* run_preset(std::string id) {
  return guard(
      [&]() -> TraceHandle* {
        auto t = std::make_unique<TraceHandle>();
        ap::run_preset(ap::find_preset(id), t->trace);
        return t.release();
      },
      nullptr);
}

val presets() {
  val out = val::array();
  int i = 0;
  for (const ap::Preset& p : ap::lecture_presets())
    out.set(i++, obj({{"id", js(p.id)},
                      {"concepts", js(p.concepts)},
                      {"source", js(p.source)},
                      {"title", js(p.title)},
                      {"claim", js(p.claim)},
                      {"row", js(p.row)},
                      {"tokens", js(p.tokens)},
                      {"dModel", js(p.d_model)},
                      {"nHeads", js(p.n_heads)},
                      {"causal", js(p.causal)},
                      {"scale", js(p.scale)},
                      {"pos", js(ap::to_string(p.pos))},
                      {"headChoices", js(ap::preset_head_choices(p))}}));
  return out;
}

// One of the preset's input matrices ("x", "wq", "wk", "wv", "wo") copied out by the wrapper.
val preset_matrix(std::string id, std::string which) {
  return guard(
      [&]() {  // the preset's own matrix, which lives as long as the module; the wrapper copies it
        const ap::Mat& m = ap::preset_matrix(ap::find_preset(id), which);
        return val(typed_memory_view(static_cast<size_t>(m.size()), m.data()));
      },
      val::null());
}

// The result of model.generate(): the wrapper takes each step's trace out once, then deletes this.
class GenerationHandle {
 public:
  ap::Generation gen;

  val info() const {
    val steps = val::array();
    int i = 0;
    for (const ap::DecodeStep& s : gen.steps)
      steps.set(i++, obj({{"token", js(s.token)}, {"cacheLen", js(s.cache_len)}}));
    return obj({{"prompt", int32_copy(gen.prompt)},
                {"tokens", int32_copy(gen.tokens)},
                {"stop", js(gen.stop)},
                {"kvCacheBytes", js(static_cast<double>(gen.kv_cache_bytes))},
                {"steps", steps}});
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

// What both model handles (ModelHandle, RnnAttnHandle) bind of their model's own tokenizer: one
// binding (embind base<>), over the tokenizer the handle's model owns. Not polymorphic (a virtual
// accessor cost the first module 370 bytes of RTTI and down-casting).
class TokenizerHandle {
 public:
  explicit TokenizerHandle(const ap::Tokenizer& tok) : tok_(tok) {}
  const ap::Tokenizer& tokenizer() const { return tok_; }

  val vocab() const { return js(tokenizer().vocab()); }
  val pieces() const { return js(tokenizer().pieces()); }
  // Its kind and special ids (-1 for none; GPT-2 has no <pad>).
  val tokenizer_info() const {
    const ap::Tokenizer& t = tokenizer();
    return obj({{"kind", js(t.kind_label())},
                {"size", js(t.size())},
                {"pad", js(t.pad_id())},
                {"unk", js(t.unk_id())},
                {"bos", js(t.bos_id())},
                {"eos", js(t.eos_id())},
                {"mask", js(t.mask_id())}});
  }
  val encode(std::string text) const { return encoded(tokenizer(), text); }
  // ids at a heap pointer; "\x01" on error (the tokenizer checks the ids).
  std::string decode(uintptr_t ids, int n) const {
    return guard(
        [&]() {
          const int* p = reinterpret_cast<const int*>(ids);
          return tokenizer().decode(std::vector<int>(p, p + n));
        },
        std::string("\x01"));
  }

 private:
  const ap::Tokenizer& tok_;
};

class ModelHandle : public TokenizerHandle {
 public:
  explicit ModelHandle(std::unique_ptr<ap::Model> m) : TokenizerHandle(m->tokenizer()), model(std::move(m)) {}
  std::unique_ptr<ap::Model> model;
  std::vector<uint8_t> saved;
  ap::Mat widened;  // tensor_view's float copy of a weight kept at 16 bits (core/weight.hpp)

  // The model's config file JSON; with switches, the config one call with them runs with ("" on error).
  std::string config_json(val switches) const {
    return guard([&]() { return ap::config_to_json(model->config(switches_from(switches))); }, std::string());
  }
  // model.prompt(text): the ids a text prompt runs on (core/model.hpp), null on error.
  val prompt(std::string text) const {
    return guard(
        [&]() {
          const ap::Model::Prompt p = model->prompt(text);
          return obj({{"src", int32_copy(p.src)},
                      {"ids", int32_copy(p.ids)},
                      {"pieces", js(p.pieces)},
                      {"unknown", js(p.unknown)}});
        },
        val::null());
  }
  // What the model's switches can be set to, for a page to offer.
  val switch_choices() const {
    const ap::SwitchChoices c = ap::switch_choices(model->config());
    std::vector<std::string> pos, norm_kind, ffn_kind;
    for (ap::PosKind k : c.pos) pos.push_back(ap::to_string(k));
    for (ap::NormKind k : c.norm_kind) norm_kind.push_back(ap::to_string(k));
    for (ap::FfnKind k : c.ffn_kind) ffn_kind.push_back(ap::to_string(k));
    return obj({{"nHeads", js(c.n_heads)},
                {"pos", js(pos)},
                {"nKvHeads", js(c.n_kv_heads)},
                {"normKind", js(norm_kind)},
                {"ffnKind", js(ffn_kind)}});
  }
  TraceHandle* forward(uintptr_t src, int n_src, uintptr_t tgt, int n_tgt, val switches, val keep) const {
    return guard(
        [&]() -> TraceHandle* {
          const int* s = reinterpret_cast<const int*>(src);
          const int* t = reinterpret_cast<const int*>(tgt);
          const ap::Switches sw = switches_from(switches);
          auto h = std::make_unique<TraceHandle>();
          h->trace.set_keep(keep_from(keep));
          if (model->config().arch == ap::Arch::EncoderDecoder)
            model->forward(h->trace, std::vector<int>(s, s + n_src), std::vector<int>(t, t + n_tgt), sw);
          else
            model->forward(h->trace, std::vector<int>(s, s + n_src), sw);
          return h.release();
        },
        nullptr);
  }
  GenerationHandle* generate(uintptr_t prompt, int n_prompt, uintptr_t src, int n_src, int max_tokens,
                             double temperature, int top_k, double top_p, double seed, bool use_cache, val switches,
                             val keep) const {
    return guard(
        [&]() -> GenerationHandle* {
          const int* p = reinterpret_cast<const int*>(prompt);
          const int* s = reinterpret_cast<const int*>(src);
          ap::GenerateOptions opt;
          opt.max_tokens = max_tokens;
          opt.sampling.temperature = static_cast<float>(temperature);
          opt.sampling.top_k = top_k;
          opt.sampling.top_p = static_cast<float>(top_p);
          opt.sampling.seed = static_cast<uint64_t>(seed);
          opt.use_cache = use_cache;
          opt.switches = switches_from(switches);
          opt.keep = keep_from(keep);
          auto g = std::make_unique<GenerationHandle>();
          g->gen = ap::generate(*model, std::vector<int>(p, p + n_prompt), std::vector<int>(s, s + n_src), opt);
          return g.release();
        },
        nullptr);
  }
  val metadata() const { return js(model->metadata()); }
  val tensors() {
    val out = val::array();
    int i = 0;
    for (const auto& t : model->named_tensors()) {
      const ap::Stored s = t.weight ? t.weight->stored() : ap::Stored::F32;  // as held (core/weight.hpp)
      const char* dtype = s == ap::Stored::F16 ? "F16" : s == ap::Stored::BF16 ? "BF16" : "F32";
      out.set(i++, obj({{"name", js(t.name)}, {"shape", js(t.shape)}, {"dtype", js(dtype)}}));
    }
    return out;
  }
  val tensor_view(std::string name) {
    return guard(
        [&]() {
          const ap::Model::NamedTensor t = model->named_tensor(name);
          if (!t.weight || !t.weight->is_16bit()) return val(typed_memory_view(ap::element_count(t.shape), t.data));
          widened = t.weight->widened();  // kept at 16 bits: a float copy, the model unchanged
          return val(typed_memory_view(static_cast<size_t>(widened.size()), widened.data()));
        },
        val::null());
  }
  bool set_tensor(std::string name, uintptr_t data, int length) {
    return guard(
        [&]() {
          model->set_tensor(name, fptr(data), static_cast<size_t>(length));
          return true;
        },
        false);
  }
  val save() {
    const bool ok = guard(
        [&]() {
          saved = ap::save_model(*model);
          return true;
        },
        false);
    if (!ok) return val::null();
    return val(typed_memory_view(saved.size(), saved.data()));
  }
};

// ffn's "why": the model's input rows (stage x of its main stack) through one of its blocks applied
// `depth` times, attention only (stack "attention_only") and with the block's FFN ("with_ffn").
TraceHandle* attention_stacks(ModelHandle& m, uintptr_t ids, int n, int layer, int depth, bool residual, bool causal) {
  return guard(
      [&]() -> TraceHandle* {
        const int* p = reinterpret_cast<const int*>(ids);
        ap::AttentionStackOptions opt;
        opt.depth = depth;
        opt.residual = residual;
        opt.causal = causal;
        auto h = std::make_unique<TraceHandle>();
        ap::attention_stacks(h->trace, *m.model, std::vector<int>(p, p + n), layer, opt);
        return h.release();
      },
      nullptr);
}

#ifdef AP_WITH_TRAINER
// Held-out accuracy of a trained model on its own task (from the file's "task" metadata):
// exact match for sort / reverse / dates, agreement pairs won for grammar, top-1 at [MASK] for mlm.
val evaluate_task(ModelHandle& m, int n, double seed) {
  return guard(
      [&]() {
        const ap::train::EvalResult r = ap::train::evaluate_on_own_task(*m.model, n, static_cast<uint64_t>(seed));
        val kinds = val::object();
        for (const auto& [kind, ct] : r.by_kind)
          kinds.set(kind, obj({{"correct", js(ct.first)}, {"total", js(ct.second)}}));
        return obj({{"task", js(m.model->metadata().at("task"))},
                    {"total", js(r.total)},
                    {"correct", js(r.correct)},
                    {"accuracy", js(r.accuracy())},
                    {"byKind", kinds}});
      },
      val::null());
}

// Training in the page: the C++ trainer on a task, stepped from JS (a Web Worker); in the threaded
// module its batch shards run on the pool's threads, with the same weights as on one.
class TrainerHandle {
 public:
  std::unique_ptr<ap::train::Trainer> trainer;

  double step(int n) {  // mean loss over n steps, NaN on error
    return guard([&]() { return trainer->steps(n); }, std::nan(""));
  }
  val info() const {
    return obj({{"steps", js(trainer->steps_done())},
                {"lr", js(trainer->current_lr())},
                {"gradNorm", js(trainer->last_grad_norm())},
                {"task", js(trainer->config().task)},
                {"shards", js(trainer->config().shards)},
                {"threads", js(ap::kernels::threads())}});
  }
  val evaluate(int n, double seed) {
    return guard(
        [&]() {
          const ap::train::EvalResult r = trainer->evaluate(n, static_cast<uint64_t>(seed));
          // Per kind of example or target; a language model's kinds also carry their mean loss.
          val kinds = val::object();
          for (const auto& [kind, ct] : r.by_kind) {
            val k = obj({{"correct", js(ct.first)}, {"total", js(ct.second)}});
            const auto it = r.nll.find(kind);
            if (it != r.nll.end()) k.set("loss", js(it->second / ct.second));
            kinds.set(kind, k);
          }
          return obj(
              {{"total", js(r.total)}, {"correct", js(r.correct)}, {"accuracy", js(r.accuracy())}, {"byKind", kinds}});
        },
        val::null());
  }
  // Fine-tuning: start from a loaded model's weights (before the first step).
  bool start_from(ModelHandle* m) {
    return guard(
        [&]() {
          if (!m || !m->model) ap::fail("startFrom needs a model");
          trainer->start_from(*m->model);
          return true;
        },
        false);
  }
  // The current weights as an inference model (to run forward and read attention patterns).
  ModelHandle* snapshot() {
    return guard([&]() -> ModelHandle* { return new ModelHandle(std::make_unique<ap::Model>(trainer->snapshot())); },
                 nullptr);
  }
};

TrainerHandle* create_trainer(std::string task, std::string sizes_json, double lr, int warmup, int total_steps,
                              int batch, double seed) {
  return guard(
      [&]() -> TrainerHandle* {
        ap::train::TrainConfig cfg;
        cfg.task = task;
        cfg.model = ap::config_from_json(sizes_json);
        cfg.optim.lr = static_cast<float>(lr);
        cfg.optim.warmup_steps = warmup;
        cfg.optim.total_steps = total_steps;
        cfg.batch = batch;
        cfg.seed = static_cast<uint64_t>(seed);
        cfg.threads = ap::kernels::threads();  // the pool as the loader set it (1 but in ap_mt)
        auto h = std::make_unique<TrainerHandle>();
        h->trainer = std::make_unique<ap::train::Trainer>(cfg);
        return h.release();
      },
      nullptr);
}

// A Hugging Face folder, streamed in (io/hf_model.hpp): config.json and tokenizer.json as text,
// then model.safetensors' first 8 bytes, its header, and its data in chunks. Each call returns
// -1 / false / null on error with last_error() naming the file and the field.
class HfLoaderHandle {
 public:
  std::unique_ptr<ap::HfLoader> loader;
  double header_length(uintptr_t first8, double file_size) {
    return guard(
        [&]() {
          return static_cast<double>(
              loader->header_length(reinterpret_cast<const uint8_t*>(first8), static_cast<uint64_t>(file_size)));
        },
        -1.0);
  }
  double read_header(uintptr_t bytes, double size) {
    return guard(
        [&]() {
          return static_cast<double>(
              loader->read_header(reinterpret_cast<const uint8_t*>(bytes), static_cast<size_t>(size)));
        },
        -1.0);
  }
  bool feed(uintptr_t bytes, double size) {
    return guard(
        [&]() {
          loader->feed(reinterpret_cast<const uint8_t*>(bytes), static_cast<size_t>(size));
          return true;
        },
        false);
  }
  // model.safetensors.index.json -> the shard files it names (a JS array), or null.
  val read_index(std::string index_json) {
    return guard([&]() { return js(loader->read_index(index_json)); }, val::null());
  }
  bool next_shard(std::string file) {
    return guard(
        [&]() {
          loader->next_shard(file);
          return true;
        },
        false);
  }
  ModelHandle* finish() {
    return guard([&]() -> ModelHandle* { return new ModelHandle(loader->finish()); }, nullptr);
  }
};

HfLoaderHandle* hf_begin(std::string config_json, std::string tokenizer_json) {
  return guard(
      [&]() -> HfLoaderHandle* {
        auto h = std::make_unique<HfLoaderHandle>();
        h->loader = std::make_unique<ap::HfLoader>(config_json, tokenizer_json);
        return h.release();
      },
      nullptr);
}
#endif  // AP_WITH_TRAINER

ModelHandle* create_model(std::string config, val vocab, double seed) {
  return guard(
      [&]() -> ModelHandle* {
        ap::ModelConfig cfg = ap::config_from_json(config);
        const std::vector<std::string> full = ap::Tokenizer::with_specials(strings_from(vocab, "vocab"));
        ap::Tokenizer tok(ap::Tokenizer::kind_from_name(cfg.tokenizer), full);
        auto model = std::make_unique<ap::Model>(cfg, tok);
        model->init_random(static_cast<uint64_t>(seed));
        return new ModelHandle(std::move(model));
      },
      nullptr);
}

ModelHandle* load_model(uintptr_t bytes, int size) {
  return guard(
      [&]() -> ModelHandle* {
        return new ModelHandle(std::make_unique<ap::Model>(
            ap::load_model(reinterpret_cast<const uint8_t*>(bytes), static_cast<size_t>(size))));
      },
      nullptr);
}

// The fast path without a trace: online-softmax tiled attention, never the n x n matrix.
bool kernel_attention(uintptr_t out, uintptr_t q, uintptr_t k, uintptr_t v, int n, int m, int d_k, int h, bool causal,
                      bool scale, bool full, int window) {
  return guard(
      [&]() {
        ap::limits::check_kernel_attention(n, m, d_k, h, full);
        ap::limits::check_window(window);
        float* o = reinterpret_cast<float*>(out);
        if (full)
          ap::kernels::attention_forward_full(o, fptr(q), fptr(k), fptr(v), n, m, d_k, h, causal, scale, window);
        else
          ap::kernels::attention_forward(o, fptr(q), fptr(k), fptr(v), n, m, d_k, h, causal, scale, window);
        return true;
      },
      false);
}

// kernel_attention, returning the heap bytes the call held at its peak beyond what was in use
// before it (the allocator's count; the online kernel allocates nothing). -1 on error.
double kernel_attention_measured(uintptr_t out, uintptr_t q, uintptr_t k, uintptr_t v, int n, int m, int d_k, int h,
                                 bool causal, bool scale, bool full, int window) {
  return guard(
      [&]() {
        ap::limits::check_kernel_attention(n, m, d_k, h, full);
        ap::limits::check_window(window);
        float* o = reinterpret_cast<float*>(out);
        if (full)
          return ap::kernels::attention_forward_full_measured(o, fptr(q), fptr(k), fptr(v), n, m, d_k, h, causal, scale,
                                                              window);
        const double before = static_cast<double>(mallinfo().uordblks);
        ap::kernels::attention_forward(o, fptr(q), fptr(k), fptr(v), n, m, d_k, h, causal, scale, window);
        return static_cast<double>(mallinfo().uordblks) - before;
      },
      -1.0);
}

// The working memory of each path (no call made): sizes only, so any n and m may be asked about.
val kernel_attention_memory(int n, int m, int d_k, int h, bool full, bool causal, int window) {
  return guard(
      [&]() {
        ap::limits::check_kernel_sizes(n, m, d_k, h);  // any n and m may be asked about
        ap::limits::check_window(window);
        ap::kernels::AttentionMemory mem = ap::kernels::attention_memory(n, m, full);
        const double width = double(h) * d_k;
        return obj({{"scoresHeld", js(mem.scores_held)},
                    {"scratchBytes", js(mem.scratch_bytes)},
                    {"ioBytes", js((2.0 * n + 2.0 * m) * width * sizeof(float))},  // q, out (n rows); k, v (m rows)
                    {"limitScores", js(ap::limits::kKernelFullScores)},
                    // query-key pairs the online kernel scores, all heads (whole tiles; O(n window) with a window)
                    {"pairsComputed", js(h * ap::kernels::attention_pairs_computed(n, m, causal, window))}});
      },
      val::null());
}

// The online softmax of one query, tile by tile (see ap::kernels::online_softmax_steps).
int kernel_online_softmax_steps(uintptr_t steps, uintptr_t out, uintptr_t scores, uintptr_t q, uintptr_t k, uintptr_t v,
                                int m, int d_k, int tile, bool scale) {
  return guard(
      [&]() {
        ap::limits::check_online_softmax(m, d_k, tile);
        return ap::kernels::online_softmax_steps(reinterpret_cast<float*>(steps), reinterpret_cast<float*>(out),
                                                 reinterpret_cast<float*>(scores), fptr(q), fptr(k), fptr(v), m, d_k,
                                                 tile, scale);
      },
      -1);
}

// rnn-chain / rnn-vanishing: an Elman RNN with seeded weights scaled to a spectral radius.
TraceHandle* rnn(uintptr_t x, int n, int d_in, int d_h, double rho, double seed) {
  return guard(
      [&]() -> TraceHandle* {
        ap::limits::check_tokens(n, "n");
        ap::limits::check_size(d_in, "dIn");
        ap::limits::check_size(d_h, "dHidden");
        const ap::RnnWeights w = ap::rnn_random(d_in, d_h, static_cast<float>(rho), static_cast<uint64_t>(seed));
        auto t = std::make_unique<TraceHandle>();
        ap::rnn_forward(t->trace, mat_from(x, n, d_in), w);
        return t.release();
      },
      nullptr);
}

// bahdanau: additive attention of decoder states s (n, d_s) over encoder states h (m, d_h).
TraceHandle* additive(uintptr_t s, int n, int d_s, uintptr_t h, int m, int d_h, int d_a, double seed) {
  return guard(
      [&]() -> TraceHandle* {
        ap::limits::check_additive(n, m, d_a);
        const ap::AdditiveWeights w = ap::additive_random(d_s, d_h, d_a, static_cast<uint64_t>(seed));
        auto t = std::make_unique<TraceHandle>();
        ap::additive_attention(t->trace, mat_from(s, n, d_s), mat_from(h, m, d_h), w);
        return t.release();
      },
      nullptr);
}

// soft-lookup / general-form: e = g(q, k) (dot, scaled, additive), soft or hard, then a = weights V.
TraceHandle* lookup(uintptr_t q, uintptr_t k, uintptr_t v, int n, int m, int d, int d_v, std::string fn, bool hard,
                    int d_a, double seed, bool causal) {
  return guard(
      [&]() -> TraceHandle* {
        ap::limits::check_lookup(n, m, d, d_v);
        const ap::ScoreFn f = ap::score_fn_from_string(fn);
        ap::AdditiveWeights w;
        if (f == ap::ScoreFn::Additive) w = ap::additive_random(d, d, d_a, static_cast<uint64_t>(seed));
        auto t = std::make_unique<TraceHandle>();
        ap::lookup(t->trace, mat_from(q, n, d), mat_from(k, m, d), mat_from(v, m, d_v), f, hard,
                   f == ap::ScoreFn::Additive ? &w : nullptr, causal);
        return t.release();
      },
      nullptr);
}

// ---- costs (model-sizes, rnn-cost, head-cost, scale): counts and the sqrt(d_k) experiment ----

val size_config_js(const ap::SizeConfig& c) {
  return obj({{"arch", js(ap::to_string(c.arch))},
              {"dModel", js(c.d_model)},
              {"nHeads", js(c.n_heads)},
              {"encoderLayers", js(c.enc_layers)},
              {"decoderLayers", js(c.dec_layers)},
              {"dFf", js(c.d_ff)},
              {"vocabSize", js(c.vocab_size)},
              {"maxLen", js(c.max_len)},
              {"pos", js(ap::to_string(c.pos))},
              {"relClip", js(c.rel_clip)},
              {"norm", js(ap::to_string(c.norm))},
              {"biases", js(c.biases)},
              {"shareEmbeddings", js(c.share_embeddings)},
              {"tieEmbeddings", js(c.tie_lm_head)},
              {"lmHeadBias", js(c.lm_head_bias)},
              {"segments", js(c.segments)},
              {"embedNorm", js(c.embed_norm)},
              {"pooler", js(c.pooler)},
              {"nKvHeads", js(c.n_kv_heads)},
              {"normKind", js(ap::to_string(c.norm_kind))},
              {"ffnKind", js(ap::to_string(c.ffn_kind))}});
}

// The wrapper sends every key, already checked for type; this only reads them.
ap::SizeConfig size_config_from(const val& j) {
  auto count = [&](const char* k) { return static_cast<int64_t>(j[k].as<double>()); };
  ap::SizeConfig c;
  c.arch = ap::arch_from_string(j["arch"].as<std::string>());
  c.d_model = count("dModel");
  c.n_heads = count("nHeads");
  c.enc_layers = count("encoderLayers");
  c.dec_layers = count("decoderLayers");
  c.d_ff = count("dFf");
  c.vocab_size = count("vocabSize");
  c.max_len = count("maxLen");
  c.pos = ap::pos_from_string(j["pos"].as<std::string>());
  c.rel_clip = count("relClip");
  c.norm = ap::norm_from_string(j["norm"].as<std::string>());
  c.biases = j["biases"].as<bool>();
  c.share_embeddings = j["shareEmbeddings"].as<bool>();
  c.tie_lm_head = j["tieEmbeddings"].as<bool>();
  c.lm_head_bias = j["lmHeadBias"].as<bool>();
  c.segments = count("segments");
  c.embed_norm = j["embedNorm"].as<bool>();
  c.pooler = j["pooler"].as<bool>();
  c.n_kv_heads = count("nKvHeads");
  c.norm_kind = ap::norm_kind_from_string(j["normKind"].as<std::string>());
  c.ffn_kind = ap::ffn_kind_from_string(j["ffnKind"].as<std::string>());
  return c;
}

val layer_params_js(const ap::LayerParams& l) {
  return obj({{"attention", js(l.attention)}, {"ffn", js(l.ffn)}, {"norms", js(l.norms)}, {"total", js(l.total())}});
}

val parameter_count(val config) {
  return guard(
      [&]() {
        const ap::SizeConfig c = size_config_from(config);
        const ap::ParamCount p = ap::count_parameters(c);
        return obj({{"total", js(p.total)},
                    {"embeddings", js(p.embeddings)},
                    {"attention", js(p.attention)},
                    {"ffn", js(p.ffn)},
                    {"norms", js(p.norms)},
                    {"lmHead", js(p.lm_head)},
                    {"pooler", js(p.pooler)},
                    {"tokenEmbeddings", js(p.token_embeddings)},
                    {"positionEmbeddings", js(p.position_embeddings)},
                    {"segmentEmbeddings", js(p.segment_embeddings)},
                    {"encoderLayers", js(p.enc_layers)},
                    {"decoderLayers", js(p.dec_layers)},
                    {"encoderLayer", layer_params_js(p.encoder_layer)},
                    {"decoderLayer", layer_params_js(p.decoder_layer)},
                    {"config", size_config_js(c)}});
      },
      val::null());
}

val size_presets() {
  val out = val::array();
  int i = 0;
  for (const ap::SizePreset& p : ap::size_presets())
    out.set(i++, obj({{"id", js(p.id)},
                      {"title", js(p.title)},
                      {"source", js(p.source)},
                      {"published", js(p.published)},
                      {"note", js(p.note)},
                      {"config", size_config_js(p.config)}}));
  return out;
}

val kv_cache_size(val config, double positions) {
  return guard(
      [&]() {
        const ap::KvCacheSize k = ap::kv_cache_size(size_config_from(config), static_cast<int64_t>(positions));
        return obj({{"positions", js(k.positions)},
                    {"layers", js(k.layers)},
                    {"kvWidth", js(k.kv_width)},
                    {"bytesPerToken", js(k.bytes_per_token)},
                    {"bytes", js(k.bytes)},
                    {"mhaBytes", js(k.mha_bytes)}});
      },
      val::null());
}

val flops(double n, double d, double h, double n_kv_heads, double window) {
  return guard(
      [&]() {
        const auto a = ap::attention_flops(static_cast<int64_t>(n), static_cast<int64_t>(d), static_cast<int64_t>(h),
                                           static_cast<int64_t>(n_kv_heads), static_cast<int64_t>(window));
        const auto one =
            ap::attention_flops(static_cast<int64_t>(n), static_cast<int64_t>(d), 1, 0, static_cast<int64_t>(window));
        const auto r = ap::rnn_flops(static_cast<int64_t>(n), static_cast<int64_t>(d));
        auto attn = [](const ap::AttentionFlops& f) {
          return obj({{"h", js(f.h)},
                      {"dK", js(f.d_k)},
                      {"nKvHeads", js(f.n_kv_heads)},
                      {"window", js(f.window)},
                      {"pairs", js(f.pairs)},
                      {"projections", js(f.projections)},
                      {"scores", js(f.scores)},
                      {"weightedSum", js(f.weighted_sum)},
                      {"quadratic", js(f.quadratic)},
                      {"total", js(f.total)},
                      {"scoreEntries", js(f.score_entries)},
                      {"softmaxExps", js(f.softmax_exps)},
                      {"sequentialSteps", js(f.sequential_steps)},
                      {"pathLength", js(f.path_length)}});
        };
        return obj({{"n", js(a.n)},
                    {"d", js(a.d)},
                    {"flopsPerMultiplyAdd", js(2)},
                    {"attention", attn(a)},
                    {"singleHead", attn(one)},
                    {"rnn", obj({{"perStep", js(r.per_step)},
                                 {"total", js(r.total)},
                                 {"sequentialSteps", js(r.sequential_steps)},
                                 {"pathLength", js(r.path_length)}})},
                    {"crossoverN", js(a.d)}});  // 4 n^2 d = 4 n d^2 exactly when n = d
      },
      val::null());
}

val scale_stats(int d_k, int n, int draws, double seed) {
  return guard(
      [&]() {
        const ap::ScaleStats s = ap::scale_stats(d_k, n, draws, static_cast<uint64_t>(seed));
        auto side = [](const ap::ScoreStats& t) {
          return obj(
              {{"mean", js(t.mean)}, {"std", js(t.std)}, {"entropy", js(t.entropy)}, {"maxWeight", js(t.max_weight)}});
        };
        return obj({{"dK", js(s.d_k)},
                    {"n", js(s.n)},
                    {"draws", js(s.draws)},
                    {"sqrtDk", js(s.sqrt_dk)},
                    {"maxEntropy", js(s.max_entropy)},
                    {"unscaled", side(s.unscaled)},
                    {"scaled", side(s.scaled)}});
      },
      val::null());
}

// The RNN recurrence alone (no trace, no Jacobians), for timing against the attention kernel.
bool rnn_states(uintptr_t out, uintptr_t x, uintptr_t wxh, uintptr_t whh, int n, int d_in, int d_h) {
  return guard(
      [&]() {
        ap::limits::check_rnn_states(n, d_in, d_h);
        ap::RnnWeights w;
        w.wxh = mat_from(wxh, d_in, d_h);
        w.whh = mat_from(whh, d_h, d_h);
        ap::Mat h;
        ap::rnn_states(h, mat_from(x, n, d_in), w);
        std::copy(h.data(), h.data() + h.size(), reinterpret_cast<float*>(out));
        return true;
      },
      false);
}

// ---- end of costs ----

std::string last_error() { return g_last_error; }
// The special tokens' ids and pieces (core/tokenizer.hpp), so JS never types them again.
val special_tokens() {
  return obj({{"pad", js(ap::Tokenizer::kPad)},
              {"unk", js(ap::Tokenizer::kUnk)},
              {"bos", js(ap::Tokenizer::kBos)},
              {"eos", js(ap::Tokenizer::kEos)},
              {"pieces", js(ap::Tokenizer::with_specials({}))},
              {"maskPiece", js(ap::Tokenizer::kMaskPiece)}});
}
double heap_used() { return static_cast<double>(mallinfo().uordblks); }
std::string kernel_variant() { return ap::kernels::variant(); }

EMSCRIPTEN_BINDINGS(attention_playground) {
  class_<TraceHandle>("TraceHandle")
      .function("stages", &TraceHandle::stages)
      .function("count", &TraceHandle::count)
      .function("view", &TraceHandle::view);
  class_<GenerationHandle>("GenerationHandle")
      .function("info", &GenerationHandle::info)
      .function("takeStep", &GenerationHandle::take_step, allow_raw_pointers())
      .function("takeEncoder", &GenerationHandle::take_encoder, allow_raw_pointers())
      .function("distribution", &GenerationHandle::distribution);
  class_<TokenizerHandle>("TokenizerHandle")
      .function("vocab", &TokenizerHandle::vocab)
      .function("pieces", &TokenizerHandle::pieces)
      .function("tokenizerInfo", &TokenizerHandle::tokenizer_info)
      .function("encode", &TokenizerHandle::encode)
      .function("decode", &TokenizerHandle::decode, allow_raw_pointers());
  class_<ModelHandle, base<TokenizerHandle>>("ModelHandle")
      .function("generate", &ModelHandle::generate, allow_raw_pointers())
      .function("metadata", &ModelHandle::metadata)
      .function("configJson", &ModelHandle::config_json)
      .function("prompt", &ModelHandle::prompt)
      .function("switchChoices", &ModelHandle::switch_choices)
      .function("forward", &ModelHandle::forward, allow_raw_pointers())
      .function("tensors", &ModelHandle::tensors)
      .function("tensorView", &ModelHandle::tensor_view)
      .function("setTensor", &ModelHandle::set_tensor)
      .function("save", &ModelHandle::save);
  function("attention", &attention, allow_raw_pointers());
  function("runPreset", &run_preset, allow_raw_pointers());
  function("presets", &presets);
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
  function("sizePresets", &size_presets);
  function("flops", &flops);
  function("kvCacheSize", &kv_cache_size);
  function("scaleStats", &scale_stats);
  function("rnnStates", &rnn_states);
  function("specialTokens", &special_tokens);
  function("lastError", &last_error);
  function("heapUsed", &heap_used);
  function("kernelVariant", &kernel_variant);
#if AP_KERNELS_THREADED
  // The thread pool (kernels/parallel.hpp), in the threaded module only (the others have one thread).
  function("threads", &ap::kernels::threads);
  function("setThreads", &ap::kernels::set_threads);
#endif
}

// ---- RNN encoder-decoder with additive attention (birnn, bahdanau, translation) ----------------
// A trained model file (io/rnn_attention_io.hpp) loaded once; each call runs the core and
// returns a trace of every stage (core/rnn_attention.hpp names them).
class RnnAttnHandle : public TokenizerHandle {
 public:
  explicit RnnAttnHandle(std::unique_ptr<ap::RnnAttnModel> m) : TokenizerHandle(m->tokenizer()), model(std::move(m)) {}
  std::unique_ptr<ap::RnnAttnModel> model;

  std::string config_json() const { return ap::rnn_attention_config_to_json(model->config()); }
  val metadata() const { return js(model->metadata()); }
  // The encoder alone on the source text.
  TraceHandle* encoder(std::string src) const {
    return guard(
        [&]() -> TraceHandle* {
          auto h = std::make_unique<TraceHandle>();
          model->encode_text(h->trace, src);
          return h.release();
        },
        nullptr);
  }
  // Greedy translation (teacher = false), or the decoder reading <bos> + tgt (teacher = true).
  TraceHandle* translate(std::string src, std::string tgt, bool teacher) const {
    return guard(
        [&]() -> TraceHandle* {
          auto h = std::make_unique<TraceHandle>();
          model->forward_text(h->trace, src, teacher ? &tgt : nullptr);
          return h.release();
        },
        nullptr);
  }
};

RnnAttnHandle* load_rnn_attention(uintptr_t bytes, int size) {
  return guard(
      [&]() -> RnnAttnHandle* {
        return new RnnAttnHandle(std::make_unique<ap::RnnAttnModel>(
            ap::load_rnn_attention(reinterpret_cast<const uint8_t*>(bytes), static_cast<size_t>(size))));
      },
      nullptr);
}

#ifdef AP_WITH_TRAINER
// Only in the second module (ap_train), loaded when a page or script first trains.
EMSCRIPTEN_BINDINGS(attention_playground_trainer) {
  class_<TrainerHandle>("TrainerHandle")
      .function("step", &TrainerHandle::step)
      .function("info", &TrainerHandle::info)
      .function("evaluate", &TrainerHandle::evaluate)
      .function("snapshot", &TrainerHandle::snapshot, allow_raw_pointers())
      .function("startFrom", &TrainerHandle::start_from, allow_raw_pointers());
  function("createTrainer", &create_trainer, allow_raw_pointers());
  class_<HfLoaderHandle>("HfLoaderHandle")
      .function("headerLength", &HfLoaderHandle::header_length)
      .function("readHeader", &HfLoaderHandle::read_header)
      .function("feed", &HfLoaderHandle::feed)
      .function("readIndex", &HfLoaderHandle::read_index)
      .function("nextShard", &HfLoaderHandle::next_shard)
      .function("finish", &HfLoaderHandle::finish, allow_raw_pointers());
  function("hfBegin", &hf_begin, allow_raw_pointers());
  function("evaluateTask", &evaluate_task);
}
#endif  // AP_WITH_TRAINER

EMSCRIPTEN_BINDINGS(attention_playground_rnn_attention) {
  class_<RnnAttnHandle, base<TokenizerHandle>>("RnnAttnHandle")
      .function("configJson", &RnnAttnHandle::config_json)
      .function("metadata", &RnnAttnHandle::metadata)
      .function("encoder", &RnnAttnHandle::encoder, allow_raw_pointers())
      .function("translate", &RnnAttnHandle::translate, allow_raw_pointers());
  function("loadRnnAttention", &load_rnn_attention, allow_raw_pointers());
}
