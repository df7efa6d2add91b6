#include "core/decode.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "base/rng.hpp"
#include "core/layers.hpp"

namespace ap {

namespace {

int draw(const std::vector<float>& dist, SplitMix64& rng) {
  const double u = rng.unit();
  double acc = 0.0;
  int last = 0;
  for (size_t i = 0; i < dist.size(); ++i) {
    if (dist[i] <= 0.0f) continue;
    acc += dist[i];
    last = static_cast<int>(i);
    if (u < acc) return last;
  }
  return last;  // rounding left u just above the total
}

}  // namespace

void check_sampling(const SamplingOptions& s) {
  if (std::isnan(s.temperature) || std::isinf(s.temperature))
    fail("temperature must be a finite number (<= 0 means greedy)");
  if (s.top_k < 0) fail("topK must be >= 0 (0 turns it off), got " + std::to_string(s.top_k));
  if (!(s.top_p > 0.0f && s.top_p <= 1.0f)) fail("topP must be in (0, 1], got " + std::to_string(s.top_p));
}

std::vector<float> sampling_distribution(const float* logits, int vocab, const SamplingOptions& s,
                                         const std::vector<int>& banned) {
  check_sampling(s);
  std::vector<float> z(logits, logits + vocab);
  for (int b : banned)
    if (b >= 0 && b < vocab) z[static_cast<size_t>(b)] = -std::numeric_limits<float>::infinity();
  std::vector<float> p(static_cast<size_t>(vocab), 0.0f);
  const int best = static_cast<int>(std::max_element(z.begin(), z.end()) - z.begin());
  if (s.temperature <= 0.0f) {  // greedy
    p[static_cast<size_t>(best)] = 1.0f;
    return p;
  }
  // softmax(z / T), in double
  std::vector<double> scaled(static_cast<size_t>(vocab)), pd(static_cast<size_t>(vocab));
  for (int i = 0; i < vocab; ++i) scaled[i] = static_cast<double>(z[i]) / s.temperature;
  softmax_row(pd.data(), scaled.data(), vocab);
  for (int i = 0; i < vocab; ++i) p[i] = static_cast<float>(pd[i]);
  // keep the top-k, then the smallest prefix (by probability) whose mass reaches top_p. top_p = 1
  // keeps every token (as Hugging Face's does): summed in order, the rounded masses reach 1 before
  // the last tokens, and a 4096-token vocabulary lost its 192 least likely tokens that way.
  std::vector<int> order(static_cast<size_t>(vocab));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[a] > p[b]; });
  size_t keep = static_cast<size_t>(vocab);
  if (s.top_k > 0) keep = std::min(keep, static_cast<size_t>(s.top_k));
  double mass = 0.0;
  for (size_t r = 0; s.top_p < 1.0f && r < keep; ++r) {
    mass += pd[order[r]];
    if (mass >= s.top_p) {
      keep = r + 1;
      break;
    }
  }
  std::vector<float> out(static_cast<size_t>(vocab), 0.0f);
  double kept = 0.0;
  for (size_t r = 0; r < keep; ++r) kept += p[order[r]];
  for (size_t r = 0; r < keep; ++r) out[order[r]] = static_cast<float>(p[order[r]] / kept);
  return out;
}

Generation generate(const Model& model, const std::vector<int>& prompt, const std::vector<int>& src,
                    const GenerateOptions& opt) {
  Switches sw = opt.switches;
  sw.causal = true;
  const ModelConfig cfg = model.config(sw);
  if (!cfg.has_decoder()) fail("an encoder-only model does not generate text (it has no decoder)");
  check_sampling(opt.sampling);
  if (prompt.empty()) fail("the prompt is empty: give at least one token");
  if (opt.max_tokens < 1) fail("maxTokens must be at least 1, got " + std::to_string(opt.max_tokens));
  if (opt.max_tokens > cfg.max_len)
    fail("maxTokens (" + std::to_string(opt.max_tokens) + ") exceeds the model's context length (" +
         std::to_string(cfg.max_len) + ")");
  if (static_cast<int>(prompt.size()) >= cfg.max_len)
    fail("the prompt has " + std::to_string(prompt.size()) + " tokens but the model's context length is " +
         std::to_string(cfg.max_len) + ": no room to generate");
  const bool encdec = cfg.arch == Arch::EncoderDecoder;
  if (encdec && src.empty()) fail("the source text is empty: an encoder-decoder model needs a source");

  Generation g;
  g.prompt = prompt;
  SplitMix64 rng{opt.sampling.seed};
  // Never sampled: the tokenizer's <pad>, <unk> and <bos> (unless <bos> is also <eos>, as GPT-2's
  // <|endoftext|>). Rows of a pretrained vocabulary beyond its tokenizer's stay allowed, as in
  // Hugging Face's generate(); they decode to "<id N>".
  const Tokenizer& tok = model.tokenizer();
  std::vector<int> banned;
  for (int id : {tok.pad_id(), tok.unk_id(), tok.bos_id() == tok.eos_id() ? -1 : tok.bos_id()})
    if (id >= 0) banned.push_back(id);
  const int V = cfg.vocab_size;
  std::vector<int> seq = prompt;
  DecodeState state;
  g.encoder.set_keep(opt.keep);
  if (opt.use_cache) model.begin_decoding(state, g.encoder, src, sw);
  g.stop = "max_tokens";
  for (int t = 0; t < opt.max_tokens; ++t) {
    if (static_cast<int>(seq.size()) > cfg.max_len) {
      g.stop = "max_len";
      break;
    }
    DecodeStep step;
    step.trace.set_keep(opt.keep);
    if (opt.use_cache) {
      // The first step feeds the whole prompt; every later step only the token just chosen.
      const std::vector<int> fresh = t == 0 ? prompt : std::vector<int>{seq.back()};
      model.decode_step(state, step.trace, fresh);
    } else {
      if (encdec)
        model.forward(step.trace, src, seq, sw);  // recompute the whole prefix
      else
        model.forward(step.trace, seq, sw);
    }
    step.cache_len = static_cast<int>(seq.size());
    const Stage* logits = step.trace.find("logits");
    const int rows = logits->shape[0];
    step.distribution =
        sampling_distribution(logits->data.data() + static_cast<size_t>(rows - 1) * V, V, opt.sampling, banned);
    step.token = draw(step.distribution, rng);
    g.tokens.push_back(step.token);
    g.steps.push_back(std::move(step));
    if (g.tokens.back() == tok.eos_id()) {
      g.stop = "eos";
      break;
    }
    if (static_cast<int>(seq.size()) == cfg.max_len) {
      g.stop = "max_len";
      break;
    }
    seq.push_back(g.tokens.back());
  }
  if (opt.use_cache) g.kv_cache_bytes = state.kv_cache_bytes();
  if (!opt.use_cache && encdec) model.begin_decoding(state, g.encoder, src, sw);  // the encoder's stages
  return g;
}

}  // namespace ap
