// libFuzzer target: a small model of fuzzed shape (arch, positions, norm place, activation,
// heads, layers), fuzzed finite weights and fuzzed token ids through forward(), generate() with
// and without the KV cache, and save/load. Never crash or hit UB; with bounded weights
// (|w| <= 4) every stage except "masked" must be finite and the sampling distribution must sum to 1.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/tensor.hpp"
#include "core/decode.hpp"
#include "core/model.hpp"
#include "core/tokenizer.hpp"
#include "io/model_io.hpp"
#include "trace/trace.hpp"

namespace {

#define CHECK(cond)                \
  do {                             \
    if (!(cond)) __builtin_trap(); \
  } while (0)

void check_finite_trace(const ap::Trace& trace) {
  for (const ap::Stage& s : trace.stages()) {
    if (s.name == "masked" || s.name == "cross_masked") continue;  // -inf on purpose
    for (float x : s.data) CHECK(std::isfinite(x));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  ap::ModelConfig cfg;
  cfg.arch = static_cast<ap::Arch>(in.ConsumeIntegralInRange<int>(0, 2));
  cfg.n_heads = in.ConsumeIntegralInRange<int>(1, 3);
  cfg.d_model = cfg.n_heads * 2 * in.ConsumeIntegralInRange<int>(1, 3);  // even: RoPE rotates pairs
  cfg.n_layers = in.ConsumeIntegralInRange<int>(1, 2);
  cfg.d_ff = in.ConsumeIntegralInRange<int>(1, 16);
  cfg.max_len = in.ConsumeIntegralInRange<int>(1, 12);
  cfg.pos = static_cast<ap::PosKind>(in.ConsumeIntegralInRange<int>(0, 4));
  cfg.rel_clip = in.ConsumeIntegralInRange<int>(1, 4);
  cfg.act = in.ConsumeBool() ? ap::Act::Gelu : ap::Act::Relu;
  cfg.norm = in.ConsumeBool() ? ap::NormPlace::Pre : ap::NormPlace::Post;
  cfg.scale = in.ConsumeBool();
  cfg.causal = in.ConsumeBool();
  cfg.eps = in.ConsumeBool() ? 1e-5f : in.ConsumeFloatingPointInRange<float>(1e-38f, 10.0f);
  const bool bounded = in.ConsumeBool();
  try {
    ap::Tokenizer tok(ap::Tokenizer::Kind::Char, {"<pad>", "<unk>", "<bos>", "<eos>", "a", "b", "c"});
    ap::Model model(cfg, tok);
    model.init_random(in.ConsumeIntegral<uint64_t>());
    // Overwrite a fuzzed selection of weights with fuzzed finite values (large, tiny, denormal).
    for (const ap::Model::NamedTensor& t : model.named_tensors()) {
      if (!in.ConsumeBool()) continue;
      size_t numel = 1;
      for (int s : t.shape) numel *= static_cast<size_t>(s);
      for (size_t i = 0; i < numel && in.remaining_bytes() > 0; ++i) {
        float x = in.ConsumeFloatingPoint<float>();
        if (!std::isfinite(x)) x = 0.0f;
        if (bounded) x = std::fmax(-4.0f, std::fmin(4.0f, x));
        t.data[i] = x;
      }
    }
    const int V = model.config().vocab_size;
    auto ids = [&](int max_count) {
      std::vector<int> out(static_cast<size_t>(in.ConsumeIntegralInRange<int>(0, max_count)));
      for (int& id : out) id = in.ConsumeIntegralInRange<int>(-1, V);  // -1 and V are out of range
      return out;
    };
    ap::Trace trace;
    const std::vector<int> src = ids(cfg.max_len + 1), tgt = ids(cfg.max_len + 1);
    try {
      if (cfg.arch == ap::Arch::EncoderDecoder)
        model.forward(trace, src, tgt);
      else
        model.forward(trace, src);
      if (bounded) check_finite_trace(trace);
    } catch (const ap::Error&) {
    }
    if (cfg.arch != ap::Arch::EncoderOnly) {
      ap::GenerateOptions opt;
      // Up to 6 steps: later steps run the same code, and each costs a forward pass under ASan.
      opt.max_tokens = in.ConsumeIntegralInRange<int>(0, std::min(cfg.max_len + 1, 6));
      opt.use_cache = in.ConsumeBool();
      opt.sampling.temperature = in.ConsumeBool() ? 0.0f : in.ConsumeFloatingPoint<float>();
      opt.sampling.top_k = in.ConsumeIntegralInRange<int>(-1, V + 1);
      opt.sampling.top_p = in.ConsumeBool() ? 1.0f : in.ConsumeFloatingPoint<float>();
      opt.sampling.seed = in.ConsumeIntegral<uint64_t>();
      std::vector<int> prompt = ids(cfg.max_len);
      if (in.ConsumeBool()) prompt.insert(prompt.begin(), ap::Tokenizer::kBos);
      try {
        const ap::Generation g = ap::generate(model, prompt, src, opt);
        for (const ap::DecodeStep& s : g.steps) {
          CHECK(s.token >= 0 && s.token < V);
          if (!bounded) continue;
          check_finite_trace(s.trace);
          double sum = 0.0;
          for (float p : s.distribution) {
            CHECK(p >= 0.0f && std::isfinite(p));
            sum += p;
          }
          CHECK(std::fabs(sum - 1.0) < 1e-4);
        }
      } catch (const ap::Error&) {
      }
    }
    const std::vector<uint8_t> bytes = ap::save_model(model);
    const ap::Model again = ap::load_model(bytes.data(), bytes.size());
    CHECK(again.config().d_model == cfg.d_model);
  } catch (const ap::Error&) {
  }
  return 0;
}
