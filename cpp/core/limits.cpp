#include "core/limits.hpp"

#include <string>

#include "base/error.hpp"

namespace ap::limits {

void check_tokens(int n, const char* what) {
  if (n <= 0) fail(std::string(what) + " must be at least 1 (got " + std::to_string(n) + "): there are no tokens");
  if (n > kTracedTokens)
    fail(std::string(what) + " (" + std::to_string(n) + ") exceeds the limit of " + std::to_string(kTracedTokens) +
         " tokens per call");
}

void check_heads(int d_model, int n_heads) {
  if (n_heads <= 0) fail("n_heads must be positive, got " + std::to_string(n_heads));
  if (d_model <= 0) fail("d_model must be positive, got " + std::to_string(d_model));
  if (d_model % n_heads != 0)
    fail("d_model (" + std::to_string(d_model) + ") is not divisible by n_heads (" + std::to_string(n_heads) + ")");
}

void check_kv_heads(int n_heads, int n_kv_heads) {
  if (n_kv_heads < 0)
    fail("nKvHeads must be >= 1, or 0 for as many as nHeads (got " + std::to_string(n_kv_heads) + ")");
  if (n_kv_heads > 0 && n_heads % n_kv_heads != 0)
    fail("nKvHeads (" + std::to_string(n_kv_heads) + ") must divide nHeads (" + std::to_string(n_heads) + ")");
}

void check_window(int window) {
  if (window < 0) fail("window must be >= 1, or 0 for no window (got " + std::to_string(window) + ")");
}

void check_traced_attention(int n, int m, int n_heads) {
  check_tokens(n, "n");
  check_tokens(m, "m");
  const int64_t scores = int64_t{n_heads} * n * m;
  if (scores > kTracedScores)
    fail("nHeads*n*m = " + std::to_string(scores) + " exceeds the limit of " + std::to_string(kTracedScores) +
         " attention scores per call");
}

void check_kernel_sizes(int n, int m, int d_k, int n_heads) {
  if (n <= 0 || m <= 0) fail("n and m must be at least 1");
  if (d_k <= 0 || n_heads <= 0) fail("dK and nHeads must be positive");
}

void check_kernel_attention(int n, int m, int d_k, int n_heads, bool full) {
  check_kernel_sizes(n, m, d_k, n_heads);
  if (n > kKernelTokens || m > kKernelTokens)
    fail("n and m are limited to " + std::to_string(kKernelTokens) + " tokens in kernels.attention");
  if (full && int64_t{n} * m > kKernelFullScores)
    fail("n*m = " + std::to_string(int64_t{n} * m) + " exceeds the limit of " + std::to_string(kKernelFullScores) +
         " scores with full: true (use the online kernel, full: false, for long inputs)");
}

void check_size(int value, const char* what) {
  if (value <= 0 || value > kSize)
    fail(std::string(what) + " must be between 1 and " + std::to_string(kSize) + " (got " + std::to_string(value) +
         ")");
}

void check_online_softmax(int m, int d_k, int tile) {
  check_size(m, "m (keys)");
  check_size(d_k, "dK");
  if (tile <= 0) fail("tile must be at least 1");
}

void check_additive(int n, int m, int d_a) {
  check_tokens(n, "n");
  check_tokens(m, "m");
  if (int64_t{n} * m * d_a > kAdditiveScores) fail("n*m*dA exceeds the limit of " + std::to_string(kAdditiveScores));
}

void check_lookup(int n, int m, int d, int d_v) {
  if (d <= 0 || d_v <= 0) fail("lookup sizes must be positive");
  check_tokens(n, "n");
  check_tokens(m, "m");
}

void check_rnn_states(int n, int d_in, int d_h) {
  if (n <= 0) fail("n must be at least 1");
  if (n > kKernelTokens) fail("n is limited to " + std::to_string(kKernelTokens) + " tokens in rnnStates");
  check_size(d_in, "dIn");
  check_size(d_h, "dHidden");
}

}  // namespace ap::limits
