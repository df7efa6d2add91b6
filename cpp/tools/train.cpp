// train: trains one of the playground's tasks with the C++ trainer and writes the model as
// safetensors (config, vocabulary and task in the metadata). Prints the loss as it goes,
// evaluates on held-out data with the trainer, then reloads the written file and measures
// it again through the inference core (ap::Model), which is what the browser runs.
//
//   train --task sort --steps 3000 --d-model 64 --heads 4 --layers 2 --d-ff 256 --batch 64 \
//         --lr 2e-3 --seed 1 --out web/models/sort.safetensors
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/tensor.hpp"
#include "core/model.hpp"
#include "io/model_io.hpp"
#include "tools/options.hpp"
#include "train/evaluate.hpp"
#include "train/trainer.hpp"

using namespace ap;
using namespace ap::train;

namespace {

const char kUsage[] =
    "usage: train --task sort|reverse|dates|grammar|mlm|translate|induction|english|english-mlm [options]\n"
    "  --data DIR         the english tasks' data folder (npm run train -- english --data-only)\n"
    "  --tied 1           the output head is the token embeddings (no lm_head.w)\n"
    "  --ffn 0            attention-only blocks (no FFN, no norm2)\n"
    "  --f16 1            write the weights as F16 (half the bytes)\n"
    "  --steps N          optimisation steps (default 2000)\n"
    "  --d-model D --heads H --layers L --d-ff F     model size (default 64 4 2 256)\n"
    "  --pos learned|relative|sinusoidal|none  --act gelu|relu  --norm post|pre   (default learned gelu post)\n"
    "  --batch B          sequences per step (default 64)\n"
    "  --lr LR            peak learning rate (default 2e-3)\n"
    "  --warmup N         warm-up steps (default steps/20)\n"
    "  --min-lr R         final learning rate as a fraction of the peak (default 0.1)\n"
    "  --weight-decay W   AdamW decoupled weight decay on matrices (default 0.01)\n"
    "  --clip C           global gradient-norm clip, 0 = off (default 1)\n"
    "  --seed S           initial weights and training data (default 1)\n"
    "  --threads T        worker threads (default 2; the result does not depend on it)\n"
    "  --log-every N      print the loss every N steps (default 100)\n"
    "  --eval-every N     quick held-out check on 200 examples every N steps (default 1000, 0 = off)\n"
    "  --eval-n N         final held-out examples (default 2000)\n"
    "  --eval-seed S      seed of the held-out draw (default 20261122)\n"
    "  --out FILE         write the model here (safetensors)\n"
    "  --init FILE        fine-tune: start from this model's weights (sizes come from it)\n"
    "  --description TEXT what the page says of the model ({n_layers}, {d_model}, ... : its config's numbers)\n"
    "  --example TEXT     the text the page types into the model when it is picked\n"
    "  --prompt TEXT      the text the decoding views start from (default: the example)\n";

void print_eval(const char* what, const EvalResult& r) {
  std::printf("%s: %.2f%% (%d/%d)", what, 100.0 * r.accuracy(), r.correct, r.total);
  std::string worst;
  const double w = r.worst_kind(&worst);
  std::printf("; worst kind %s %.2f%%\n", worst.c_str(), 100.0 * w);
  tools::print_kinds(r);
}

}  // namespace

int main(int argc, char** argv) {
  tools::Options opt;
  if (const int code = opt.parse(argc, argv, "train", kUsage); code >= 0) return code;
  auto get = [&](const char* key, const std::string& fallback) { return opt.get(key, fallback); };
  auto num = [&](const char* key, double fallback) { return opt.num(key, fallback); };
  try {
    TrainConfig cfg;
    cfg.task = get("task", "");
    if (cfg.task.empty()) fail("--task is required (sort, reverse, dates, grammar, mlm, english, english-mlm)");
    cfg.data = get("data", "");
    cfg.model.tied_head = num("tied", 0) != 0;
    cfg.model.ffn = num("ffn", 1) != 0;
    const bool f16 = num("f16", 0) != 0;
    const int steps = static_cast<int>(num("steps", 2000));
    cfg.model.d_model = static_cast<int>(num("d-model", 64));
    cfg.model.n_heads = static_cast<int>(num("heads", 4));
    cfg.model.n_layers = static_cast<int>(num("layers", 2));
    cfg.model.d_ff = static_cast<int>(num("d-ff", 256));
    cfg.model.pos = pos_from_string(get("pos", "learned"));
    cfg.model.act = act_from_string(get("act", "gelu"));
    cfg.model.norm = norm_from_string(get("norm", "post"));
    cfg.batch = static_cast<int>(num("batch", 64));
    cfg.optim = tools::read_optim(opt, steps, {2e-3, 0.1, 0.01});
    cfg.seed = static_cast<uint64_t>(num("seed", 1));
    cfg.threads = static_cast<int>(num("threads", 2));
    const int log_every = static_cast<int>(num("log-every", 100));
    const int eval_every = static_cast<int>(num("eval-every", 1000));
    const int eval_n = static_cast<int>(num("eval-n", 2000));
    const uint64_t eval_seed = static_cast<uint64_t>(num("eval-seed", 20261122));
    const std::string out = get("out", "");
    const std::string init = get("init", "");
    // What the page shows of the model, kept in the file (metadata) so that the page restates none of it.
    std::map<std::string, std::string> facts;
    for (const char* key : {"description", "example", "prompt"})
      if (const std::string v = get(key, ""); !v.empty()) facts[key] = v;
    std::unique_ptr<Model> init_model;
    if (!init.empty()) {  // fine-tuning: the architecture is the pre-trained model's
      std::ifstream f(init, std::ios::binary);
      if (!f) fail("cannot read " + init);
      const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      init_model = std::make_unique<Model>(load_model(bytes.data(), bytes.size()));
      const ModelConfig& mc = init_model->config();
      cfg.model.d_model = mc.d_model;
      cfg.model.n_heads = mc.n_heads;
      cfg.model.n_layers = mc.n_layers;
      cfg.model.d_ff = mc.d_ff;
      // --pos relative turns a learned-position decoder into a relative-position encoder (english-mlm).
      if (get("pos", "").empty()) cfg.model.pos = mc.pos;
      cfg.model.act = mc.act;
      cfg.model.norm = mc.norm;
      cfg.model.ffn = mc.ffn;
      cfg.model.tied_head = mc.tied_head;
    }
    opt.finish();
    if (steps < 1) fail("--steps must be >= 1");

    Trainer trainer(cfg);
    if (init_model) trainer.start_from(*init_model);
    const ModelConfig& mc = trainer.model_config();
    std::printf("%s\n", opt.command().c_str());
    std::printf(
        "task %s: %s, vocab %d, max_len %d, d_model %d, heads %d, layers %d, d_ff %d, %zu parameters (%.0f KB)\n",
        cfg.task.c_str(), to_string(mc.arch), mc.vocab_size, mc.max_len, mc.d_model, mc.n_heads, mc.n_layers, mc.d_ff,
        trainer.params().size(), trainer.params().size() * 4 / 1024.0);
    std::fflush(stdout);

    double eval_time = 0.0;
    const double train_time = tools::train_loop(trainer, cfg.optim, steps, log_every, [&](int s) {
      if (eval_every > 0 && (s + 1) % eval_every == 0 && s + 1 < steps) {
        const auto e0 = std::chrono::steady_clock::now();
        const EvalResult r = trainer.evaluate(200, eval_seed);
        eval_time += tools::seconds_since(e0);
        std::printf("  held-out (200): %.2f%%\n", 100.0 * r.accuracy());
        std::fflush(stdout);
      }
    });
    std::printf("trained %d steps in %.1fs wall (%.1fs of it quick evaluations)\n", steps, train_time, eval_time);

    auto e0 = std::chrono::steady_clock::now();
    print_eval("held-out, trainer forward", trainer.evaluate(eval_n, eval_seed));
    std::printf("  (%.1fs)\n", tools::seconds_since(e0));

    // The model file: weights, config, vocabulary, and how to prompt it.
    Model model = trainer.snapshot();
    model.mutable_metadata()["train_command"] = opt.command();
    for (const auto& [key, value] : facts) model.mutable_metadata()[key] = value;
    if (init_model) {  // fine-tuned: how the starting weights were made, so the file tells its whole history
      const auto& im = init_model->metadata();
      const auto it = im.find("train_command");
      if (it != im.end()) model.mutable_metadata()["init_train_command"] = it->second;
    }
    const std::vector<uint8_t> bytes = save_model(model, f16);
    const Model reloaded = load_model(bytes.data(), bytes.size());
    e0 = std::chrono::steady_clock::now();
    const EvalResult core = evaluate_model(reloaded, trainer.task(), eval_n, eval_seed, cfg.threads);
    print_eval("held-out, inference core on the saved file", core);
    std::printf("  (%.1fs)\n", tools::seconds_since(e0));
    tools::write_file(out, bytes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train: %s\n", e.what());
    return 1;
  }
  return 0;
}
