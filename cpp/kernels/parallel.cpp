// The thread pool behind kernels/parallel.hpp (native and pthreads builds only). Workers sleep on a
// condition variable between jobs; a job is a task counter they and the caller take tasks from.
#include "kernels/parallel.hpp"

#if AP_KERNELS_THREADED
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace ap::kernels {
namespace {

thread_local bool in_task = false;  // set on pool threads and on a caller while it runs tasks

class Pool {
 public:
  ~Pool() { resize(0); }

  int size() const { return static_cast<int>(workers_.size()); }

  // n worker threads besides the caller.
  void resize(int n) {
    if (n == size()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      ++generation_;
    }
    wake_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
    stop_ = false;
    // A new thread starts from the current generation, so a job posted before it first waits is
    // still seen as new.
    const unsigned now = generation_;
    for (int i = 0; i < n; ++i) workers_.emplace_back([this, now] { work(now); });
  }

  void run(int tasks, void (*fn)(void*, int), void* ctx) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      fn_ = fn;
      ctx_ = ctx;
      tasks_ = tasks;
      next_.store(0);
      busy_ = size();
      ++generation_;
    }
    wake_.notify_all();
    in_task = true;
    take_tasks();
    in_task = false;
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock, [this] { return busy_ == 0; });
  }

 private:
  void take_tasks() {
    for (int t; (t = next_.fetch_add(1)) < tasks_;) fn_(ctx_, t);
  }

  void work(unsigned seen) {
    in_task = true;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (stop_) return;
      }
      take_tasks();
      std::lock_guard<std::mutex> lock(mu_);
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_, done_;
  unsigned generation_ = 0;
  bool stop_ = false;
  void (*fn_)(void*, int) = nullptr;
  void* ctx_ = nullptr;
  int tasks_ = 0;
  std::atomic<int> next_{0};
  int busy_ = 0;
};

Pool& pool() {
  static Pool p;
  return p;
}
std::mutex submit;  // one job at a time; a second caller runs its tasks itself

}  // namespace

int max_threads() {
  const unsigned hc = std::thread::hardware_concurrency();
  return hc > 0 ? static_cast<int>(hc) : 1;
}

int threads() { return pool().size() + 1; }

int set_threads(int n) {
  n = std::clamp(n, 1, max_threads());
  std::lock_guard<std::mutex> lock(submit);
  pool().resize(n - 1);
  return threads();
}

void parallel_for(int tasks, void (*fn)(void*, int), void* ctx) {
  if (tasks <= 1 || in_task || pool().size() == 0 || !submit.try_lock()) {
    for (int t = 0; t < tasks; ++t) fn(ctx, t);
    return;
  }
  pool().run(tasks, fn, ctx);
  submit.unlock();
}

}  // namespace ap::kernels
#endif
