// Every limit of a call into the core, in one place: the bindings check a call against these
// before reading its arrays, and the JS wrapper adds none of its own. The sizes keep one call
// from asking for more memory than a browser tab has (a traced call keeps every stage).
#pragma once
#include <cstdint>

namespace ap::limits {

constexpr int kTracedTokens = 4096;                    // n or m of one traced call (every stage kept)
constexpr int64_t kTracedScores = int64_t{1} << 22;    // nHeads * n * m of one traced attention call
constexpr int64_t kAdditiveScores = int64_t{1} << 24;  // n * m * dA of one additive-attention call
constexpr int kSize = 4096;           // d_in, d_hidden of an RNN; keys and dK of the online-softmax demo
constexpr int kKernelTokens = 65536;  // n or m of the untraced kernels (and rnnStates)
constexpr int64_t kKernelFullScores = int64_t{1} << 24;  // n * m with full: true (64 MB of floats)

// Each throws ap::Error naming the value and the limit.
void check_tokens(int n, const char* what);              // 1 <= n <= kTracedTokens
void check_heads(int d_model, int n_heads);              // both positive, d_model % n_heads == 0
void check_traced_attention(int n, int m, int n_heads);  // tokens, and nHeads * n * m <= kTracedScores
void check_kernel_attention(int n, int m, int d_k, int n_heads, bool full);
void check_size(int value, const char* what);  // 1 <= value <= kSize

}  // namespace ap::limits
