// A quick measurement, not a test: GFLOP/s of the hand-written kernels next to Eigen, at
// n = 256 and 1024, d_k = 64, one head. Builds natively (CMake tool) and with em++ for Node:
//   em++ -std=c++17 -O3 -msimd128 -Icpp -I/usr/include/eigen3 cpp/tools/kernel_bench.cpp
//        cpp/kernels/*.cpp -sALLOW_MEMORY_GROWTH=1 -sENVIRONMENT=node -sWASM_ASYNC_COMPILATION=0
//        -o kernel_bench.js && node kernel_bench.js
// Each figure is the best of 7 timed runs after a warm-up (V8 tiers a function up only once it
// has been entered again, so the first calls run on the baseline compiler). Time is the process's
// CPU time, not wall time, and the best run is kept: the machine is shared, and both keep other
// processes' load out of the figures (cache sharing aside).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#else
#include <ctime>
#endif

#include "base/rng.hpp"
#include "base/tensor.hpp"
#include "kernels/attention.hpp"
#include "kernels/gemm.hpp"

namespace {

#if defined(__EMSCRIPTEN__)
// Node's process CPU time (user + system), in seconds.
EM_JS(double, cpu_seconds, (), {
  const u = process.cpuUsage();
  return (u.user + u.system) * 1e-6;
});
#else
double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
#endif

// Best seconds per call of f over 7 runs, each timed run repeating f enough times to last >= 50 ms.
double seconds_per_call(const std::function<void()>& f) {
  for (int i = 0; i < 3; ++i) f();  // warm-up
  int reps = 1;
  for (;;) {
    double t0 = cpu_seconds();
    for (int i = 0; i < reps; ++i) f();
    double s = cpu_seconds() - t0;
    if (s >= 0.05) break;
    reps *= 2;
  }
  std::vector<double> runs;
  for (int r = 0; r < 7; ++r) {
    double t0 = cpu_seconds();
    for (int i = 0; i < reps; ++i) f();
    runs.push_back((cpu_seconds() - t0) / reps);
  }
  return *std::min_element(runs.begin(), runs.end());
}

void report(const char* what, int n, double flops, double seconds) {
  std::printf("| %-34s | %5d | %9.3f | %7.1f |\n", what, n, seconds * 1e3, flops / seconds * 1e-9);
}

std::vector<float> random_vec(size_t count, ap::Rng& rng) {  // uniform in [-1, 1)
  std::vector<float> v(count);
  rng.fill_symmetric(v.data(), count, 1.0);
  return v;
}

// Attention with Eigen, the way a straightforward core would write it (the baseline to beat).
void attention_eigen(float* out, const float* q, const float* k, const float* v, int n, int d_k, ap::Mat& scores) {
  ap::CMatMap Q(q, n, d_k), K(k, n, d_k), V(v, n, d_k);
  ap::MatMap O(out, n, d_k);
  scores.noalias() = Q * K.transpose();  // (n, n) = (n, d_k)(d_k, n)
  scores *= 1.0f / std::sqrt(static_cast<float>(d_k));
  for (int i = 0; i < n; ++i) {
    auto row = scores.row(i);
    row = (row.array() - row.maxCoeff()).exp();
    row /= row.sum();
  }
  O.noalias() = scores * V;  // (n, d_k) = (n, n)(n, d_k)
}

}  // namespace

int main() {
  namespace k = ap::kernels;
  ap::Rng rng(1);
  const int d_k = 64;
  std::printf("kernels variant: %s\n\n", k::variant());
  std::printf("| %-34s | %5s | %9s | %7s |\n", "kernel", "n", "ms", "GFLOP/s");
  std::printf("|%s|%s|%s|%s|\n", std::string(36, '-').c_str(), std::string(7, '-').c_str(),
              std::string(11, '-').c_str(), std::string(9, '-').c_str());
  for (int n : {256, 1024}) {
    // Square products: 2 n^3 flops.
    auto a = random_vec(static_cast<size_t>(n) * n, rng), b = random_vec(static_cast<size_t>(n) * n, rng);
    std::vector<float> c(static_cast<size_t>(n) * n);
    const double gemm_flops = 2.0 * n * n * n;
    report("gemm_tiled (n x n x n)", n, gemm_flops,
           seconds_per_call([&] { k::gemm_tiled(c.data(), n, a.data(), n, b.data(), n, nullptr, n, n, n); }));
    report("Eigen product (n x n x n)", n, gemm_flops, seconds_per_call([&] {
             ap::MatMap C(c.data(), n, n);
             C.noalias() = ap::CMatMap(a.data(), n, n) * ap::CMatMap(b.data(), n, n);
           }));
    // A projection as in the core: (n, 512) x (512, 512).
    auto x = random_vec(static_cast<size_t>(n) * 512, rng), w = random_vec(512 * 512, rng);
    std::vector<float> y(static_cast<size_t>(n) * 512);
    report("gemm_tiled (n x 512 x 512)", n, 2.0 * n * 512 * 512,
           seconds_per_call([&] { k::gemm_tiled(y.data(), 512, x.data(), 512, w.data(), 512, nullptr, n, 512, 512); }));

    // Attention, one head of d_k = 64: 4 n^2 d_k flops (Q K^T and weights V), softmax not counted.
    auto q = random_vec(static_cast<size_t>(n) * d_k, rng), kk = random_vec(static_cast<size_t>(n) * d_k, rng),
         v = random_vec(static_cast<size_t>(n) * d_k, rng);
    std::vector<float> o(static_cast<size_t>(n) * d_k);
    const double attn_flops = 4.0 * n * n * d_k;
    report("attention online (d_k 64)", n, attn_flops, seconds_per_call([&] {
             k::attention_forward(o.data(), q.data(), kk.data(), v.data(), n, n, d_k, 1, false, true);
           }));
    report("attention online causal (half)", n, attn_flops / 2, seconds_per_call([&] {
             k::attention_forward(o.data(), q.data(), kk.data(), v.data(), n, n, d_k, 1, true, true);
           }));
    report("attention full n x n (d_k 64)", n, attn_flops, seconds_per_call([&] {
             k::attention_forward_full(o.data(), q.data(), kk.data(), v.data(), n, n, d_k, 1, false, true);
           }));
    ap::Mat scores(n, n);
    report("attention with Eigen (d_k 64)", n, attn_flops,
           seconds_per_call([&] { attention_eigen(o.data(), q.data(), kk.data(), v.data(), n, d_k, scores); }));
    std::vector<float> s(static_cast<size_t>(n) * n);
    report("  qk_scores alone", n, 2.0 * n * n * d_k,
           seconds_per_call([&] { k::qk_scores(s.data(), n, q.data(), d_k, kk.data(), d_k, n, n, d_k, 0.125f); }));
    report("  weights_v alone", n, 2.0 * n * n * d_k,
           seconds_per_call([&] { k::weights_v(o.data(), d_k, s.data(), n, v.data(), d_k, n, n, d_k); }));
    report("  softmax_rows alone (n^2 exps)", n, 1.0 * n * n,
           seconds_per_call([&] { k::softmax_rows(s.data(), n, s.data(), n, n, n); }));
  }
  // Long context, causal, one head: a single timed call each (a run takes about a second), with the
  // online kernel, whose only memory is the output and a few KB of stack.
  std::printf("\n| %-34s | %5s | %9s | %7s |\n", "long context, causal, one call", "n", "ms", "GFLOP/s");
  for (int n : {8192, 16384}) {
    auto q = random_vec(static_cast<size_t>(n) * d_k, rng), kk = random_vec(static_cast<size_t>(n) * d_k, rng),
         v = random_vec(static_cast<size_t>(n) * d_k, rng);
    std::vector<float> o(static_cast<size_t>(n) * d_k);
    double t0 = cpu_seconds();
    k::attention_forward(o.data(), q.data(), kk.data(), v.data(), n, n, d_k, 1, true, true);
    report("attention online causal (d_k 64)", n, 2.0 * n * n * d_k, cpu_seconds() - t0);
  }
  return 0;
}
