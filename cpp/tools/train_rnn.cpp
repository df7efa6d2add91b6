// train_rnn: trains the RNN encoder-decoder with additive attention (core/rnn_attention.hpp) on a
// source -> target task and writes it as safetensors (config, vocabulary, task in the metadata).
// Prints the loss, the held-out exact match through the inference core on the saved file, and
// for the translate task the notes' sentence (004): its greedy translation and, for each French
// word, the English word it attends to most.
//
//   train_rnn --task translate --steps 3000 --batch 32 --lr 5e-3 --out web/models/translate-rnn.safetensors
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/rnn_attention.hpp"
#include "io/rnn_attention_io.hpp"
#include "tools/options.hpp"
#include "train/rnn_attention.hpp"

using namespace ap;
using namespace ap::train;

namespace {

const char kUsage[] =
    "usage: train_rnn --task dates|translate [options]\n"
    "  --steps N          optimisation steps (default 3000)\n"
    "  --d-emb E --d-enc H --d-dec Ds --d-att A   sizes (default 32 32 64 32; h_j has 2H numbers)\n"
    "  --batch B          examples per step (default 32)\n"
    "  --lr LR            peak learning rate (default 5e-3)\n"
    "  --warmup N         warm-up steps (default steps/20)\n"
    "  --min-lr R         final learning rate as a fraction of the peak (default 0.05)\n"
    "  --weight-decay W   AdamW decoupled weight decay on matrices (default 0.0)\n"
    "  --clip C           global gradient-norm clip (default 1)\n"
    "  --seed S           initial weights and training data (default 1)\n"
    "  --log-every N      print the loss every N steps (default 100)\n"
    "  --eval-n N         held-out examples (default 1000)\n"
    "  --eval-seed S      seed of the held-out draw (default 20261122)\n"
    "  --out FILE         write the model here (safetensors)\n";

const char* const kNotesEnglish = "The agreement on the European Economic Area was signed in August 1992.";

// The notes' sentence: translation, and the source word of largest weight for each output word.
void report_alignment(const RnnAttnModel& m) {
  const Tokenizer& tok = m.tokenizer();
  const Tokenizer::Encoded src = tok.encode(kNotesEnglish);
  Trace tr;
  std::vector<int> out = m.forward(tr, src.ids, nullptr);
  std::printf("notes' sentence: %s\n  -> %s\n", kNotesEnglish, m.translate(kNotesEnglish).c_str());
  const Stage* w = tr.find("add_weights", "decoder");
  const int T = w->shape[1], S = w->shape[2];
  for (int t = 0; t < T; ++t) {
    int best = 0;
    for (int j = 1; j < S; ++j)
      if (w->data[size_t(t) * S + j] > w->data[size_t(t) * S + best]) best = j;
    const std::string word = tok.vocab()[size_t(out[size_t(t)])];
    std::printf("  %-12s attends most to %-10s (%.2f)\n", word.c_str(), src.pieces[size_t(best)].c_str(),
                w->data[size_t(t) * S + best]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  tools::Options opt;
  if (const int code = opt.parse(argc, argv, "train_rnn", kUsage); code >= 0) return code;
  auto get = [&](const char* key, const std::string& fallback) { return opt.get(key, fallback); };
  auto num = [&](const char* key, double fallback) { return opt.num(key, fallback); };
  try {
    RnnAttnTrainConfig cfg;
    cfg.task = get("task", "");
    if (cfg.task.empty()) fail("--task is required (dates, translate)");
    const int steps = static_cast<int>(num("steps", 3000));
    cfg.model.d_emb = static_cast<int>(num("d-emb", 32));
    cfg.model.d_enc = static_cast<int>(num("d-enc", 32));
    cfg.model.d_dec = static_cast<int>(num("d-dec", 64));
    cfg.model.d_att = static_cast<int>(num("d-att", 32));
    cfg.batch = static_cast<int>(num("batch", 32));
    cfg.optim = tools::read_optim(opt, steps, {5e-3, 0.05, 0.0});
    cfg.seed = static_cast<uint64_t>(num("seed", 1));
    const int log_every = static_cast<int>(num("log-every", 100));
    const int eval_n = static_cast<int>(num("eval-n", 1000));
    const uint64_t eval_seed = static_cast<uint64_t>(num("eval-seed", 20261122));
    const std::string out = get("out", "");
    opt.finish();

    RnnAttnTrainer trainer(cfg);
    const RnnAttnConfig& mc = trainer.params().cfg;
    std::printf("%s\ntask %s: vocab %d, max_len %d, E %d, H %d (h_j: %d), Ds %d, A %d, %zu parameters (%.0f KB)\n",
                opt.command().c_str(), cfg.task.c_str(), mc.vocab_size, mc.max_len, mc.d_emb, mc.d_enc, 2 * mc.d_enc,
                mc.d_dec, mc.d_att, trainer.params().size(), trainer.params().size() * 4 / 1024.0);
    std::fflush(stdout);
    const double train_time = tools::train_loop(trainer, cfg.optim, steps, log_every, [](int) {});
    std::printf("trained %d steps in %.1fs wall\n", steps, train_time);

    RnnAttnModel model = trainer.to_model();
    model.mutable_metadata()["train_command"] = opt.command();
    const std::vector<uint8_t> bytes = save_rnn_attention(model);
    const RnnAttnModel reloaded = load_rnn_attention(bytes.data(), bytes.size());
    const EvalResult r = evaluate_rnn_attention(reloaded, trainer.task(), eval_n, eval_seed);
    std::printf("held-out exact match (inference core, saved file): %.2f%% (%d/%d)\n", 100.0 * r.accuracy(), r.correct,
                r.total);
    tools::print_kinds(r);
    if (cfg.task == "translate") report_alignment(reloaded);
    tools::write_file(out, bytes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_rnn: %s\n", e.what());
    return 1;
  }
  return 0;
}
