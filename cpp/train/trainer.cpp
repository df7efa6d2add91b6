// The training loop's pieces (see trainer.hpp). Threads only split the batch; every shard
// owns its activations and gradient buffer, and the shards' gradients are added in order.
#include "train/trainer.hpp"

#include <algorithm>
#include <cmath>
#include <exception>

#include "base/tensor.hpp"
#include "kernels/parallel.hpp"

namespace ap::train {

struct Trainer::Shard {
  explicit Shard(const ModelConfig& cfg) : grads(cfg) {}
  Activations<float> acts;
  Params<float> grads;
  Batch batch;
  double loss_sum = 0.0;
  std::exception_ptr error;  // what its task threw (a pool task must not throw)
};

double Trainer::steps(int n) {
  if (n <= 0) fail("step(n) needs n >= 1");
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += step();
  return sum / n;
}

ModelConfig task_model_config(const Task& task, ModelConfig m) {
  m.arch = task.arch();
  m.vocab_size = task.tokenizer().size();
  m.max_len = task.max_len();
  m.tokenizer = Tokenizer::name_of(task.tokenizer().kind());
  m.validate();
  return m;
}

Trainer::Trainer(const TrainConfig& cfg)
    : cfg_(cfg),
      task_(make_task(cfg.task, cfg.data)),
      params_(task_model_config(*task_, cfg.model)),
      grads_(params_.cfg),
      opt_(params_),
      data_rng_(cfg.seed ^ 0xDA7A5EEDull) {
  if (cfg_.batch < 1) fail("batch must be >= 1 (got " + std::to_string(cfg_.batch) + ")");
  check_optim(cfg_.optim);
  if (cfg_.threads < 1) fail("threads must be >= 1 (got " + std::to_string(cfg_.threads) + ")");
  if (cfg_.shards < 0) fail("shards must be >= 0 (got " + std::to_string(cfg_.shards) + ")");
  if (cfg_.shards == 0) cfg_.shards = default_shards(cfg_.batch);
  cfg_.shards = std::max(1, std::min(cfg_.shards, cfg_.batch));
  kernels::set_threads(cfg_.threads);
  init_params(params_, cfg_.seed);
  for (int s = 0; s < cfg_.shards; ++s) shards_.push_back(std::make_unique<Shard>(params_.cfg));
}

Trainer::~Trainer() = default;

void Trainer::start_from(const Model& model) {
  if (steps_done() > 0) fail("start_from: the trainer has already taken " + std::to_string(steps_done()) + " steps");
  const ModelConfig& a = model.config();
  const ModelConfig& b = params_.cfg;
  auto differ = [&](const char* what, const std::string& have, const std::string& want) {
    fail(std::string("start_from: the model's ") + what + " is " + have + " but task " + cfg_.task + " trains " + want);
  };
  // An encoder may start from a decoder-only model of the same sizes: its blocks become the
  // encoder's (the same tensors; only the causal mask goes), its final norm the encoder's, and the
  // first max_len rows of its learned positions are kept.
  const bool from_decoder = a.arch == Arch::DecoderOnly && b.arch == Arch::EncoderOnly;
  if (a.arch != b.arch && !from_decoder) differ("architecture", to_string(a.arch), to_string(b.arch));
  if (from_decoder ? a.max_len < b.max_len : a.max_len != b.max_len)
    differ("max_len", std::to_string(a.max_len), std::to_string(b.max_len));
  const std::pair<const char*, std::pair<int, int>> sizes[] = {{"d_model", {a.d_model, b.d_model}},
                                                               {"n_heads", {a.n_heads, b.n_heads}},
                                                               {"n_layers", {a.n_layers, b.n_layers}},
                                                               {"d_ff", {a.d_ff, b.d_ff}},
                                                               {"vocab_size", {a.vocab_size, b.vocab_size}}};
  for (const auto& [name, v] : sizes)
    if (v.first != v.second) differ(name, std::to_string(v.first), std::to_string(v.second));
  // ... and may trade the decoder's learned positions for relative ones (its blocks kept, the
  // position table dropped, the relative biases at their start: see init_params).
  const bool to_relative = from_decoder && a.pos == PosKind::Learned && b.pos == PosKind::Relative;
  if (a.pos != b.pos && !to_relative) differ("position kind", to_string(a.pos), to_string(b.pos));
  if (a.norm != b.norm) differ("norm placement", to_string(a.norm), to_string(b.norm));
  if (a.act != b.act) differ("activation", to_string(a.act), to_string(b.act));
  if (model.tokenizer().vocab() != task_->tokenizer().vocab())
    fail("start_from: the model's vocabulary differs from task " + cfg_.task + "'s");
  // Training runs in float32: a model whose big matrices are kept at 16 bits (core/weight.hpp)
  // starts from a widened copy.
  ModelWeights w = model.weights();
  widen_weights(a, w);
  if (!from_decoder) {
    params_from_model(params_, w);
    return;
  }
  w.encoder = std::move(w.decoder);
  w.decoder.clear();
  w.enc_final_norm = w.dec_final_norm;
  if (to_relative) {
    w.pos_emb = Mat();
    w.rel_bias = Mat(b.n_heads, 2 * b.rel_clip + 1);
    std::copy(params_.rel_bias, params_.rel_bias + w.rel_bias.size(), w.rel_bias.data());
  } else if (w.pos_emb.size() > 0) {
    w.pos_emb = Mat(w.pos_emb.topRows(b.max_len));
  }
  params_from_model(params_, w);
}

Model Trainer::snapshot() const {
  Model model(model_config(), task_->tokenizer());
  params_to_model(model.weights(), params_);
  auto& meta = model.mutable_metadata();
  for (const auto& [key, value] : task_->file_metadata()) meta[key] = value;
  meta["task"] = cfg_.task;
  if (!task_->separator().empty()) meta["separator"] = task_->separator();
  return model;
}

float Trainer::current_lr() const { return learning_rate(cfg_.optim, steps_done()); }

int default_shards(int batch) { return std::max(1, (batch + kShardSequences - 1) / kShardSequences); }

template <typename Fn>
void Trainer::for_each_shard(int tasks, Fn&& fn) {
  // The core's pool takes the tasks in any order on any thread; each writes only its own shard's
  // (or chunk's) buffers, so the result is the same for every thread count. The kernels a task
  // calls run on its thread alone (the pool does not nest).
  for (int t = 0; t < tasks; ++t) shards_[static_cast<size_t>(t)]->error = nullptr;
  kernels::parallel_for(tasks, [&](int t) {
    try {
      fn(t);
    } catch (...) {
      shards_[static_cast<size_t>(t)]->error = std::current_exception();
    }
  });
  for (int t = 0; t < tasks; ++t)
    if (shards_[static_cast<size_t>(t)]->error) std::rethrow_exception(shards_[static_cast<size_t>(t)]->error);
}

float Trainer::step() {
  // Draw the batch on the main thread so the data stream does not depend on the threads.
  std::vector<EncodedExample> examples;
  examples.reserve(static_cast<size_t>(cfg_.batch));
  for (int i = 0; i < cfg_.batch; ++i)
    examples.push_back(encode_example(*task_, task_->sample(data_rng_, Split::Train)));
  int count = 0;
  const int S = cfg_.shards;
  for (int s = 0; s < S; ++s) {
    const int lo = cfg_.batch * s / S, hi = cfg_.batch * (s + 1) / S;
    shards_[static_cast<size_t>(s)]->batch = make_batch({examples.begin() + lo, examples.begin() + hi});
    count += shards_[static_cast<size_t>(s)]->batch.count_targets();
  }
  const float scale = count ? 1.0f / static_cast<float>(count) : 0.0f;
  for_each_shard(S, [&](int s) {
    Shard& sh = *shards_[static_cast<size_t>(s)];
    sh.loss_sum = transformer_forward(sh.acts, params_, sh.batch);
    sh.grads.zero();
    transformer_backward(sh.grads, sh.acts, params_, sh.batch, scale);
  });
  // Sum the shards' gradients in shard order (the same order for any thread count), each thread
  // over its own range of the parameters.
  double loss = 0.0;
  for (auto& sh : shards_) loss += sh->loss_sum;
  const int total = static_cast<int>(grads_.flat.size()), parts = kernels::threads();
  kernels::parallel_for(parts, [&](int t) {
    const int lo = kernels::split_at(total, parts, 16, t), hi = kernels::split_at(total, parts, 16, t + 1);
    float* g = grads_.flat.data();
    std::fill(g + lo, g + hi, 0.0f);
    for (const auto& sh : shards_) {
      const float* from = sh->grads.flat.data();
      for (int i = lo; i < hi; ++i) g[i] += from[i];
    }
  });
  grad_norm_ = clip_grad_norm(grads_.flat, cfg_.optim.clip_norm);
  opt_.step(params_, grads_, cfg_.optim, learning_rate(cfg_.optim, steps_done()));
  return static_cast<float>(loss * scale);
}

std::vector<std::vector<float>> Trainer::last_logits(const std::vector<std::vector<int>>& srcs,
                                                     const std::vector<std::vector<int>>& prefixes) {
  const int V = params_.cfg.vocab_size, n = static_cast<int>(prefixes.size());
  const bool encdec = params_.cfg.arch == Arch::EncoderDecoder;
  std::vector<std::vector<float>> out(static_cast<size_t>(n));
  constexpr int kChunk = 128;  // sequences per forward pass
  const int chunks = (n + kChunk - 1) / kChunk;
  // One task per thread (at most one per shard, whose error slot it uses), each with its own
  // activations, taking every workers-th chunk.
  const int workers = std::max(1, std::min({kernels::threads(), chunks, cfg_.shards}));
  std::vector<std::unique_ptr<Activations<float>>> acts(static_cast<size_t>(workers));
  for (auto& a : acts) a = std::make_unique<Activations<float>>();
  for_each_shard(workers, [&](int w) {
    for (int c = w; c < chunks; c += workers) {
      const int lo = c * kChunk, hi = std::min(n, lo + kChunk);
      std::vector<EncodedExample> ex(static_cast<size_t>(hi - lo));
      for (int i = lo; i < hi; ++i) {
        auto& e = ex[static_cast<size_t>(i - lo)];
        e.inputs = prefixes[static_cast<size_t>(i)];
        e.targets.assign(e.inputs.size(), 0);
        if (encdec) e.src = srcs[static_cast<size_t>(i)];
      }
      const Batch b = make_batch(ex);
      transformer_forward(*acts[static_cast<size_t>(w)], params_, b);
      for (int i = lo; i < hi; ++i) {
        const size_t row = static_cast<size_t>(i - lo) * b.T + prefixes[static_cast<size_t>(i)].size() - 1;
        const float* z = acts[static_cast<size_t>(w)]->logits.data() + row * V;
        out[static_cast<size_t>(i)].assign(z, z + V);
      }
    }
  });
  return out;
}

std::vector<std::vector<int>> Trainer::greedy_ids(const std::vector<std::string>& sources) {
  if (task_->arch() == Arch::EncoderOnly) fail("an encoder-only model does not generate text (it has no decoder)");
  const Tokenizer& tok = task_->tokenizer();
  const int n = static_cast<int>(sources.size()), L = params_.cfg.max_len;
  std::vector<std::vector<int>> srcs(static_cast<size_t>(n)), seqs(static_cast<size_t>(n));
  std::vector<std::vector<int>> generated(static_cast<size_t>(n));
  std::vector<int> active;
  for (int i = 0; i < n; ++i) {
    if (task_->arch() == Arch::EncoderDecoder) {
      srcs[static_cast<size_t>(i)] = tok.encode(sources[static_cast<size_t>(i)]).ids;
      if (srcs[static_cast<size_t>(i)].empty() || static_cast<int>(srcs[static_cast<size_t>(i)].size()) > L)
        fail("source length out of range for greedy decoding");
    }
    seqs[static_cast<size_t>(i)] = prompt_ids(*task_, sources[static_cast<size_t>(i)]);
    if (static_cast<int>(seqs[static_cast<size_t>(i)].size()) > L) fail("prompt longer than max_len");
    active.push_back(i);
  }
  while (!active.empty()) {
    std::vector<std::vector<int>> s, p;
    for (int i : active) {
      s.push_back(srcs[static_cast<size_t>(i)]);
      p.push_back(seqs[static_cast<size_t>(i)]);
    }
    const auto logits = last_logits(s, p);
    std::vector<int> still;
    for (size_t a = 0; a < active.size(); ++a) {
      const int i = active[a];
      const auto& z = logits[a];
      const int next = static_cast<int>(std::max_element(z.begin(), z.end()) - z.begin());
      auto& seq = seqs[static_cast<size_t>(i)];
      if (next == task_->tokenizer().eos_id()) continue;
      seq.push_back(next);
      generated[static_cast<size_t>(i)].push_back(next);
      if (static_cast<int>(seq.size()) < L) still.push_back(i);  // no room left: stop
    }
    active.swap(still);
  }
  return generated;
}

std::vector<std::string> Trainer::greedy(const std::vector<std::string>& sources) {
  std::vector<std::string> texts;
  for (const auto& g : greedy_ids(sources)) texts.push_back(task_->tokenizer().decode(g));
  return texts;
}

namespace {

// Draws n held-out examples from rng in chunks of `chunk`, runs each chunk as one padded batch
// and hands score(examples, encoded, batch, activations) the chunk's forward.
template <typename Score>
void forward_held_out(const Task& task, const Params<float>& p, Rng& rng, int n, int chunk, Score&& score) {
  Activations<float> acts;
  for (int lo = 0; lo < n; lo += chunk) {
    std::vector<Example> ex;
    std::vector<EncodedExample> enc;
    for (int i = lo; i < std::min(n, lo + chunk); ++i) {
      ex.push_back(task.sample(rng, Split::HeldOut));
      enc.push_back(encode_example(task, ex.back()));
    }
    const Batch b = make_batch(enc);
    transformer_forward(acts, p, b);
    score(ex, enc, b, acts);
  }
}

}  // namespace

EvalResult Trainer::evaluate(int n, uint64_t seed) {
  EvalResult r;
  Rng rng(seed);
  auto count = [&](const std::string& kind, bool ok) { r.add(kind, ok); };
  const auto pairs = task_->agreement_pairs(rng, n);
  if (!pairs.empty()) {
    std::vector<std::vector<int>> srcs(pairs.size()), prefixes;
    for (const auto& p : pairs) prefixes.push_back(p.prefix);
    const auto logits = last_logits(srcs, prefixes);
    for (size_t i = 0; i < pairs.size(); ++i)
      count(pairs[i].kind,
            logits[i][static_cast<size_t>(pairs[i].good)] > logits[i][static_cast<size_t>(pairs[i].bad)]);
    return r;
  }
  if (task_->corpus_lm()) {  // next-token top-1 at every position of n held-out passages
    const int V = params_.cfg.vocab_size;
    constexpr int kChunk = 16;  // logits are (16 * max_len, V)
    forward_held_out(*task_, params_, rng, n, kChunk,
                     [&](const std::vector<Example>& ex, const std::vector<EncodedExample>&, const Batch& b,
                         const Activations<float>& acts) {
                       for (size_t at = 0; at < b.targets.size(); ++at) {
                         if (b.targets[at] == 0) continue;
                         const float* z = acts.logits.data() + at * static_cast<size_t>(V);
                         const size_t T = static_cast<size_t>(b.T);
                         const std::string kind = task_->token_kind(ex[at / T], static_cast<int>(at % T));
                         count(kind, static_cast<int>(std::max_element(z, z + V) - z) == b.targets[at]);
                         // -ln softmax(z)[target], as the loss computes it: log-sum-exp about the largest logit.
                         const float top = *std::max_element(z, z + V);
                         double sum = 0.0;
                         for (int v = 0; v < V; ++v) sum += std::exp(static_cast<double>(z[v] - top));
                         r.nll[kind] += std::log(sum) - static_cast<double>(z[b.targets[at]] - top);
                       }
                     });
    return r;
  }
  if (task_->arch() == Arch::EncoderOnly) {  // masked LM: top-1 at the masked position
    const int V = params_.cfg.vocab_size;
    constexpr int kChunk = 128;
    forward_held_out(
        *task_, params_, rng, n, kChunk,
        [&](const std::vector<Example>& ex, const std::vector<EncodedExample>& enc, const Batch& b,
            const Activations<float>& acts) {
          for (size_t i = 0; i < ex.size(); ++i) {
            bool all = true;  // held-out examples hide one word; an example counts if every one is right
            for (int at : ex[i].masked) {
              const float* z = acts.logits.data() + (i * static_cast<size_t>(b.T) + static_cast<size_t>(at)) * V;
              all &= static_cast<int>(std::max_element(z, z + V) - z) == enc[i].targets[static_cast<size_t>(at)];
            }
            count(ex[i].kind, all);
          }
        });
    return r;
  }
  std::vector<Example> examples;
  std::vector<std::string> sources;
  for (int i = 0; i < n; ++i) {
    examples.push_back(task_->sample(rng, Split::HeldOut));
    sources.push_back(examples.back().src);
  }
  // Exact match on token ids (a stray <pad> or <bos> would vanish from decoded text).
  const auto outputs = greedy_ids(sources);
  for (int i = 0; i < n; ++i) {
    const Example& e = examples[static_cast<size_t>(i)];
    count(e.kind, outputs[static_cast<size_t>(i)] == task_->tokenizer().encode(e.tgt).ids);
  }
  return r;
}

double Trainer::heldout_loss(int n, uint64_t seed) {
  Rng rng(seed);
  std::vector<EncodedExample> ex;
  for (int i = 0; i < n; ++i) ex.push_back(encode_example(*task_, task_->sample(rng, Split::HeldOut)));
  Activations<float> acts;
  const Batch b = make_batch(ex);
  const double sum = transformer_forward(acts, params_, b);
  return sum / std::max(1, b.count_targets());
}

}  // namespace ap::train
