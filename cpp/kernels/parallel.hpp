// The core's one thread pool (issue 27): parallel_for(tasks, fn) runs fn(0) .. fn(tasks - 1) over
// threads() threads, the caller being one of them, and returns when every task has run. Callers
// split work only over independent outputs (rows or column panels of a product, query blocks or
// heads of attention), never a sum, so every number is the same whatever the thread count.
//
// Three builds: native (std::thread), the pthreads wasm module (ap_mt: std::thread on Emscripten's
// Web Workers, SharedArrayBuffer memory) and the single-thread wasm modules, where threads() is the
// constant 1 and parallel_for a plain loop that the compiler reduces to the caller's own loop.
// A parallel_for called from inside a task runs its tasks inline (no nesting).
#pragma once

#include <type_traits>

#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__)
#define AP_KERNELS_THREADED 1
#else
#define AP_KERNELS_THREADED 0
#endif

namespace ap::kernels {

#if AP_KERNELS_THREADED
// Threads parallel_for uses: 1 (the caller alone) until set_threads.
int threads();
// Sets the thread count, clamped to [1, max_threads()], starting or stopping pool threads as
// needed; returns the count in use. Call it between kernels, not from inside a task.
int set_threads(int n);
// The most threads this process may use: the machine's logical cores (in a browser
// navigator.hardwareConcurrency, in Node the CPU count), at least 1.
int max_threads();
// fn(ctx, t) for t in [0, tasks); fn must not throw.
void parallel_for(int tasks, void (*fn)(void*, int), void* ctx);
#else
constexpr int threads() { return 1; }
inline int set_threads(int) { return 1; }
constexpr int max_threads() { return 1; }
inline void parallel_for(int tasks, void (*fn)(void*, int), void* ctx) {
  for (int t = 0; t < tasks; ++t) fn(ctx, t);
}
#endif

// Work (multiply-adds, or scores) below which a call stays on one thread: waking the pool costs
// tens of microseconds in wasm, about what 65,536 multiply-adds take.
constexpr double kParallelMinWork = 1 << 16;

// parallel_for over a callable: f(t) for t in [0, tasks).
template <class F>
inline void parallel_for(int tasks, F&& f) {
  if (threads() == 1 || tasks <= 1) {
    for (int t = 0; t < tasks; ++t) f(t);
    return;
  }
  using Fn = std::remove_reference_t<F>;
  parallel_for(
      tasks, [](void* ctx, int t) { (*static_cast<Fn*>(ctx))(t); }, const_cast<void*>(static_cast<const void*>(&f)));
}

// Splits [0, total) into `parts` ranges whose interior boundaries are multiples of `align`
// (range t is [split_at(t), split_at(t + 1))): the same tile shapes as one call over the whole.
inline int split_at(int total, int parts, int align, int t) {
  if (t >= parts) return total;
  const long units = (static_cast<long>(total) + align - 1) / align;
  const long at = units * t / parts * align;
  return at < total ? static_cast<int>(at) : total;
}

}  // namespace ap::kernels
