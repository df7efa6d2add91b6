// The native runner of the GPT-2 section of the benchmark: this project's core built by g++ -O3
// (tests/bench/build.mjs, the same sources as the wasm modules), on the same GPT-2-small-shaped
// model, over the same JSON-lines protocol as tests/bench/node-runner.mjs. Loads the case's folder
// (its "dir": build/hf/gpt2-small-shape or build/hf/smollm-135m-shape, relative to the working
// directory, the repository root) through ap::HfLoader when a case first asks for it; a prefill is Model::forward with
// a trace that keeps no layer and no probs, a generation is ap::generate greedy with the KV cache, as wasm/index.js
// asks for them.
#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/decode.hpp"
#include "io/hf_model.hpp"
#include "kernels/attention.hpp"
#include "protocol.hpp"
#include "trace/trace.hpp"

namespace {

using bench::json;

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::unique_ptr<ap::Model> load_model(const std::string& dir) {
  ap::HfLoader loader(read_text(dir + "config.json"), read_text(dir + "tokenizer.json"));
  std::ifstream f(dir + "model.safetensors", std::ios::binary | std::ios::ate);
  if (!f) throw std::runtime_error("cannot read " + dir + "model.safetensors");
  const uint64_t size = static_cast<uint64_t>(f.tellg());
  f.seekg(0);
  std::vector<uint8_t> buf(8);
  f.read(reinterpret_cast<char*>(buf.data()), 8);
  const uint64_t header = loader.header_length(buf.data(), size);
  buf.resize(header);
  f.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(header));
  uint64_t left = loader.read_header(buf.data(), header);
  buf.resize(8 << 20);
  while (left > 0) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, buf.size()));
    f.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(n));
    loader.feed(buf.data(), n);
    left -= n;
  }
  return loader.finish();
}

// gpt2-cases.mjs promptIds(): mulberry32 with seed 16, each id % (V - 1).
std::vector<int> prompt_ids(int n, int vocab) {
  std::vector<int> ids(n);
  uint32_t a = 16;
  for (int& id : ids) {
    a += 0x6d2b79f5u;
    uint32_t t = (a ^ (a >> 15)) * (1u | a);
    t = (t + (t ^ (t >> 7)) * (61u | t)) ^ t;
    t ^= t >> 14;
    id = static_cast<int>(t % (vocab - 1));
  }
  return ids;
}

int argmax_row(const float* row, int vocab) {
  int best = 0;
  for (int j = 1; j < vocab; ++j)
    if (row[j] > row[best]) best = j;
  return best;
}

void row_sum(json& out, const float* row, int vocab) {
  double sum = 0.0, abs = 0.0;
  for (int j = 0; j < vocab; ++j) {
    const double term = static_cast<double>(static_cast<int64_t>(j) * 7919 % 13 - 6) * row[j];
    sum += term;
    abs += std::fabs(term);
  }
  out["sum"] = sum;
  out["abs"] = abs;
}

ap::TraceKeep keep() {
  ap::TraceKeep k;
  k.all = false;
  k.drop = {"probs"};
  return k;
}

struct Runner {
  std::unique_ptr<ap::Model> model;
  std::string dir;  // the folder `model` was loaded from
  int vocab = 0;
  std::string mode;
  int n = 0, new_tokens = 0;
  std::vector<int> ids;

  json prefill() {
    ap::Trace trace;
    trace.set_keep(keep());
    model->forward(trace, ids);
    const ap::Stage* logits = trace.find("logits");
    json sum = json::object(), out_ids = json::array();
    if (logits) {
      for (int r = 0; r < n; ++r)
        out_ids.push_back(argmax_row(logits->data.data() + static_cast<size_t>(r) * vocab, vocab));
      row_sum(sum, logits->data.data() + static_cast<size_t>(n - 1) * vocab, vocab);
    }
    sum["ids"] = out_ids;
    return sum;
  }

  json generate() {
    ap::GenerateOptions opt;
    opt.max_tokens = new_tokens;
    opt.use_cache = true;
    opt.keep = keep();
    const ap::Generation g = ap::generate(*model, ids, {}, opt);
    json sum = json::object();
    const ap::Stage* logits = g.steps.back().trace.find("logits");
    row_sum(sum, logits->data.data() + static_cast<size_t>(logits->shape[0] - 1) * vocab, vocab);
    sum["ids"] = g.tokens;
    return sum;
  }

  json call() { return mode == "prefill" ? prefill() : generate(); }

  json run(int reps) {
    return bench::timed(reps, [&] { call(); });
  }
};

}  // namespace

int main() {
  Runner runner;
  return bench::serve([&](const std::string& op, const json& msg) -> json {
    if (op == "init")
      return {{"variant", std::string(ap::kernels::variant()) + " kernels + Eigen GEMM (" +
                              Eigen::SimdInstructionSetsInUse() + "), g++ -O3 native"}};
    if (op == "supports") return msg.at("case").at("kind") == "gpt2" ? json(true) : json("GPT-2 cases only");
    if (op == "prepare") {
      const json& c = msg.at("case");
      const std::string dir = c.value("dir", std::string("build/hf/gpt2-small-shape")) + "/";
      if (dir != runner.dir) {
        runner.model.reset();  // one model at a time
        runner.model = load_model(dir);
        runner.dir = dir;
      }
      runner.vocab = c.value("vocab", 50257);
      runner.mode = c.at("mode");
      runner.n = c.at("n");
      runner.new_tokens = c.value("newTokens", 0);
      runner.ids = prompt_ids(runner.n, runner.vocab);
      const int tokens = runner.mode == "prefill" ? runner.n : runner.new_tokens;
      return {{"checksum", runner.call()}, {"tokens", tokens}};
    }
    if (op == "run") return runner.run(msg.at("reps"));
    if (op == "release") return nullptr;
    throw std::runtime_error("unknown op " + op);
  });
}
