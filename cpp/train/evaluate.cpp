// Held-out evaluation through the inference core (see evaluate.hpp).
#include "train/evaluate.hpp"

#include <algorithm>
#include <exception>
#include <thread>

#include "trace/trace.hpp"

namespace ap::train {

void EvalResult::add(const std::string& kind, bool ok) {
  ++total;
  correct += ok;
  auto& ct = by_kind[kind];
  ct.first += ok;
  ++ct.second;
}

double EvalResult::worst_kind(std::string* kind) const {
  double worst = 1.0;
  for (const auto& [k, ct] : by_kind) {
    const double a = ct.second ? static_cast<double>(ct.first) / ct.second : 0.0;
    if (a <= worst) {
      worst = a;
      if (kind) *kind = k;
    }
  }
  return worst;
}

namespace {

// The logits row of the last position after running the core on (src, prefix).
std::vector<float> last_logits(const Model& model, Trace& tr, const std::vector<int>& src,
                               const std::vector<int>& prefix) {
  if (model.config().arch == Arch::EncoderDecoder)
    model.forward(tr, src, prefix);
  else
    model.forward(tr, prefix);
  const Stage* logits = tr.find("logits");
  const size_t V = static_cast<size_t>(model.config().vocab_size);
  return {logits->data.end() - static_cast<std::ptrdiff_t>(V), logits->data.end()};
}

}  // namespace

std::vector<int> core_greedy(const Model& model, const Task& task, const std::string& src) {
  if (!model.config().has_decoder()) fail("an encoder-only model does not generate text (it has no decoder)");
  const auto& tok = model.tokenizer();
  std::vector<int> src_ids, seq = prompt_ids(task, src), out;
  if (model.config().arch == Arch::EncoderDecoder) src_ids = tok.encode(src).ids;
  Trace tr;
  while (static_cast<int>(seq.size()) < model.config().max_len) {
    const auto z = last_logits(model, tr, src_ids, seq);
    const int next = static_cast<int>(std::max_element(z.begin(), z.end()) - z.begin());
    if (next == tok.eos_id()) break;
    seq.push_back(next);
    out.push_back(next);
  }
  return out;
}

EvalResult evaluate_model(const Model& model, const Task& task, int n, uint64_t seed, int threads) {
  Rng rng(seed);
  const auto pairs = task.agreement_pairs(rng, n);
  std::vector<Example> examples;
  if (pairs.empty())
    for (int i = 0; i < n; ++i) examples.push_back(task.sample(rng, Split::HeldOut));
  const bool mlm = task.arch() == Arch::EncoderOnly;
  if (mlm && model.config().arch != Arch::EncoderOnly) fail("the mlm task needs an encoder-only model");
  const int total = pairs.empty() ? static_cast<int>(examples.size()) : static_cast<int>(pairs.size());
  std::vector<char> ok(static_cast<size_t>(total), 0);
  std::vector<std::vector<char>> hits(static_cast<size_t>(total));  // corpus LM: each target right or not
  auto work = [&](int w, int workers) {
    Trace tr;
    for (int i = w; i < total; i += workers) {
      if (task.corpus_lm()) {  // next-token top-1 at every position (counted per example: all right)
        const EncodedExample ex = encode_example(task, examples[static_cast<size_t>(i)]);
        model.forward(tr, ex.inputs);
        const Stage* logits = tr.find("logits");
        const size_t V = static_cast<size_t>(model.config().vocab_size);
        auto& right = hits[static_cast<size_t>(i)];
        for (size_t at = 0; at < ex.targets.size(); ++at) {
          const float* z = logits->data.data() + at * V;
          right.push_back(static_cast<int>(std::max_element(z, z + V) - z) == ex.targets[at]);
        }
      } else if (mlm) {  // the top-1 word at the (one) masked position
        const EncodedExample ex = encode_example(task, examples[static_cast<size_t>(i)]);
        model.forward(tr, ex.inputs);
        const Stage* logits = tr.find("logits");
        const size_t V = static_cast<size_t>(model.config().vocab_size);
        bool all = true;
        for (int at : examples[static_cast<size_t>(i)].masked) {
          const float* z = logits->data.data() + static_cast<size_t>(at) * V;
          all &= static_cast<int>(std::max_element(z, z + V) - z) == ex.targets[static_cast<size_t>(at)];
        }
        ok[static_cast<size_t>(i)] = all;
      } else if (!pairs.empty()) {
        const auto& p = pairs[static_cast<size_t>(i)];
        const auto z = last_logits(model, tr, {}, p.prefix);
        ok[static_cast<size_t>(i)] = z[static_cast<size_t>(p.good)] > z[static_cast<size_t>(p.bad)];
      } else {
        const Example& e = examples[static_cast<size_t>(i)];
        ok[static_cast<size_t>(i)] = core_greedy(model, task, e.src) == model.tokenizer().encode(e.tgt).ids;
      }
    }
  };
  const int workers = std::max(1, std::min(threads, total));
  std::vector<std::exception_ptr> errors(static_cast<size_t>(workers));
  auto guarded = [&](int w) {
    try {
      work(w, workers);
    } catch (...) {
      errors[static_cast<size_t>(w)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(guarded, w);
  guarded(0);
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  EvalResult r;
  if (task.corpus_lm()) {  // one count per token
    for (size_t i = 0; i < hits.size(); ++i)
      for (size_t at = 0; at < hits[i].size(); ++at)
        r.add(task.token_kind(examples[i], static_cast<int>(at)), hits[i][at] != 0);
    return r;
  }
  for (int i = 0; i < total; ++i)
    r.add(pairs.empty() ? examples[static_cast<size_t>(i)].kind : pairs[static_cast<size_t>(i)].kind,
          ok[static_cast<size_t>(i)] != 0);
  return r;
}

EvalResult evaluate_on_own_task(const Model& model, int n, uint64_t seed) {
  const auto it = model.metadata().find("task");
  if (it == model.metadata().end()) fail("this model has no \"task\" in its metadata: it was not trained on a task");
  if (n <= 0) fail("the number of held-out examples must be at least 1");
  return evaluate_model(model, *make_task(it->second), n, seed, 1);
}

}  // namespace ap::train
