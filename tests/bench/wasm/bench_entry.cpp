// The benchmark's entry points in the em++ builds of this project (tests/bench/build.mjs):
// attention through the public kernel API (the online-softmax path that ap.kernels.attention runs)
// and one traced forward pass of a small model (what model.forward runs). Built three ways from
// the same sources: SIMD128 kernels, scalar kernels (-DAP_KERNELS_SCALAR, no -msimd128), and
// plain Eigen in place of the kernels (eigen_kernels.cpp). Plain C exports, no embind: the JS side
// (impl/emscripten.mjs) keeps its arrays in the heap and times only the calls.
#include <emscripten.h>

#include <memory>
#include <string>
#include <vector>

#include "kernels/attention.hpp"

#if !defined(AP_BENCH_NO_MODEL)
#include "core/config.hpp"
#include "core/model.hpp"
#include "core/tokenizer.hpp"
#include "trace/trace.hpp"
#endif

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* bench_variant() { return ap::kernels::variant(); }

// out (n, h*d_k) = multi-head attention of q (n, h*d_k), k, v (m, h*d_k), scaled by 1/sqrt(d_k).
EMSCRIPTEN_KEEPALIVE void bench_attention(float* out, const float* q, const float* k, const float* v, int n, int m,
                                          int d_k, int n_heads, int causal) {
  ap::kernels::attention_forward(out, q, k, v, n, m, d_k, n_heads, causal != 0, true);
}

#if !defined(AP_BENCH_NO_MODEL)
// A decoder-only character model with seeded random weights; printable ASCII vocabulary as
// createModel() in wasm/index.js builds it. Returns an owning pointer (0 on error).
EMSCRIPTEN_KEEPALIVE ap::Model* bench_model_create(int d_model, int n_heads, int n_layers, int d_ff, int max_len,
                                                   int seed) {
  try {
    ap::ModelConfig cfg;
    cfg.arch = ap::Arch::DecoderOnly;
    cfg.d_model = d_model;
    cfg.n_heads = n_heads;
    cfg.n_layers = n_layers;
    cfg.d_ff = d_ff;
    cfg.max_len = max_len;
    std::vector<std::string> vocab = {"<pad>", "<unk>", "<bos>", "<eos>"};
    for (char c = 32; c < 127; ++c) vocab.push_back(std::string(1, c));
    ap::Tokenizer tok(ap::Tokenizer::Kind::Char, vocab);
    cfg.vocab_size = tok.size();
    auto model = std::make_unique<ap::Model>(cfg, tok);
    model->init_random(static_cast<uint64_t>(seed));
    return model.release();
  } catch (const std::exception&) {
    return nullptr;
  }
}

EMSCRIPTEN_KEEPALIVE int bench_model_vocab(const ap::Model* model) { return model->config().vocab_size; }

static double last_abs = 0.0;  // the checksum's scale: sum of |weight * logit|

// One forward pass with its full trace, as model.forward does. Returns a checksum of the logits
// (weighted like cases.mjs checksum()), or NaN on error; bench_model_last_abs() gives its scale.
EMSCRIPTEN_KEEPALIVE double bench_model_last_abs() { return last_abs; }
EMSCRIPTEN_KEEPALIVE double bench_model_forward(const ap::Model* model, const int* ids, int n) {
  try {
    ap::Trace trace;
    model->forward(trace, std::vector<int>(ids, ids + n));
    const ap::Stage* logits = trace.find("logits");
    if (!logits) return __builtin_nan("");
    double sum = 0.0, abs = 0.0;
    for (size_t i = 0; i < logits->data.size(); ++i) {
      const double term = (static_cast<long>(i * 7919) % 13 - 6) * static_cast<double>(logits->data[i]);
      sum += term;
      abs += term < 0 ? -term : term;
    }
    last_abs = abs;
    return sum;
  } catch (const std::exception&) {
    return __builtin_nan("");
  }
}

EMSCRIPTEN_KEEPALIVE void bench_model_free(ap::Model* model) { delete model; }
#endif

}  // extern "C"
