// What the training tools (train, train_rnn) share: command-line options ("--name value"
// pairs, each read once by get() / num(); finish() refuses whatever is left, so a misspelt
// option is an error rather than silently ignored), the optimiser's options, the logged
// training loop, the per-kind report and writing the file.
#pragma once

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "base/tensor.hpp"
#include "train/adamw.hpp"
#include "train/evaluate.hpp"

namespace ap::tools {

class Options {
 public:
  // Reads argv. Returns -1 when the tool should go on, else the exit code to return
  // (0 after printing `usage` for -h / --help, 2 after a malformed argument).
  int parse(int argc, char** argv, const char* tool, const char* usage) {
    command_ = tool;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "-h" || a == "--help") {
        std::fputs(usage, stdout);
        return 0;
      }
      if (a.rfind("--", 0) != 0 || i + 1 >= argc) {
        std::fprintf(stderr, "bad argument \"%s\"\n%s", a.c_str(), usage);
        return 2;
      }
      command_ += " " + a + " " + shell_quoted(argv[i + 1]);
      opt_[a.substr(2)] = argv[++i];
    }
    return -1;
  }

  // The value of --key, or `fallback` when it was not given.
  std::string get(const char* key, const std::string& fallback) {
    const auto it = opt_.find(key);
    if (it == opt_.end()) return fallback;
    std::string v = it->second;
    opt_.erase(it);
    return v;
  }

  // --key as a number (an error names the option when it is not one).
  double num(const char* key, double fallback) {
    const std::string v = get(key, "");
    if (v.empty()) return fallback;
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (*end != '\0') fail(std::string("--") + key + " expects a number, got \"" + v + "\"");
    return x;
  }

  // Every option must have been read.
  void finish() const {
    if (!opt_.empty()) fail("unknown option --" + opt_.begin()->first);
  }

  // The command line as typed (kept in the model file's metadata), a value with a space or a
  // quote in single quotes, so that a shell runs it again with the same arguments.
  const std::string& command() const { return command_; }

 private:
  static std::string shell_quoted(const std::string& v) {
    const bool plain = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || std::string("_./:=,+-").find(c) != std::string::npos;
    });
    if (plain) return v;
    std::string out = "'";
    for (const char c : v) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }

  std::map<std::string, std::string> opt_;
  std::string command_;
};

// The AdamW options over `steps` steps, with each tool's defaults.
struct OptimDefaults {
  double lr, min_lr, weight_decay;
};
inline train::OptimConfig read_optim(Options& opt, int steps, OptimDefaults d) {
  train::OptimConfig c;
  c.lr = static_cast<float>(opt.num("lr", d.lr));
  c.total_steps = steps;
  c.warmup_steps = static_cast<int>(opt.num("warmup", std::max(1, steps / 20)));
  c.min_lr_ratio = static_cast<float>(opt.num("min-lr", d.min_lr));
  c.weight_decay = static_cast<float>(opt.num("weight-decay", d.weight_decay));
  c.clip_norm = static_cast<float>(opt.num("clip", 1.0));
  return c;
}

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs `steps` steps of trainer, printing the loss every log_every steps; after_step(s) runs
// after each step s. Returns the wall time in seconds.
template <typename Trainer, typename AfterStep>
double train_loop(Trainer& trainer, const train::OptimConfig& optim, int steps, int log_every, AfterStep&& after_step) {
  const auto t0 = std::chrono::steady_clock::now();
  double avg = 0.0;
  for (int s = 0; s < steps; ++s) {
    const float loss = trainer.step();
    avg = s == 0 ? loss : 0.95 * avg + 0.05 * loss;
    if ((s + 1) % log_every == 0 || s == 0 || s + 1 == steps) {
      std::printf("step %5d  loss %.4f (avg %.4f)  lr %.2e  |g| %.3f  %.0fs\n", s + 1, loss, avg,
                  train::learning_rate(optim, s), trainer.last_grad_norm(), seconds_since(t0));
      std::fflush(stdout);
    }
    after_step(s);
  }
  return seconds_since(t0);
}

// One line per kind of example: accuracy and counts.
inline void print_kinds(const train::EvalResult& r) {
  for (const auto& [kind, ct] : r.by_kind)
    std::printf("    %-22s %6.2f%% (%d/%d)\n", kind.c_str(), 100.0 * ct.first / ct.second, ct.first, ct.second);
}

inline void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  if (path.empty()) return;
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!f) fail("cannot write " + path);
  std::printf("wrote %s (%zu bytes)\n", path.c_str(), bytes.size());
}

}  // namespace ap::tools
