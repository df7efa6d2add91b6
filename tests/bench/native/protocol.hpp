// What the native benchmark runners (bench_native.cpp, bench_gpt2.cpp) share: the JSON-lines
// protocol of tests/bench/node-runner.mjs (one request a line on stdin, one reply a line on
// stdout) and the timing of a run.
#pragma once
#include <nlohmann/json.hpp>

#include <chrono>
#include <ctime>
#include <exception>
#include <iostream>
#include <string>

namespace bench {

using json = nlohmann::json;

inline double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// Wall time and this process's CPU time of reps calls (the machine is shared: wall time also
// counts the time other users' work held the core).
template <class Call>
json timed(int reps, Call&& call) {
  const double c0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < reps; ++r) call();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {{"seconds", seconds}, {"cpuSeconds", cpu_seconds() - c0}};
}

// Answers requests until "quit" or the end of input: handle(op, msg) gives the op's result
// (init, supports, prepare, run, release) or throws; a throw replies { ok: false, error }.
template <class Handle>
int serve(Handle&& handle) {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    json reply;
    try {
      const json msg = json::parse(line);
      const std::string op = msg.at("op");
      if (op == "quit") break;
      reply = {{"ok", true}, {"result", handle(op, msg)}};
    } catch (const std::exception& e) {
      reply = {{"ok", false}, {"error", e.what()}};
    }
    std::cout << reply.dump() << std::endl;
  }
  return 0;
}

}  // namespace bench
