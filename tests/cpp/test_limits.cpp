// The call limits of cpp/core/limits.hpp that the bindings used to check inline: each refuses the
// first value past its rule with the message the JS tests match, and accepts the value at it.
#include <gtest/gtest.h>

#include "core/limits.hpp"
#include "helpers.hpp"

using aptest::error_of;
namespace L = ap::limits;

TEST(Limits, KernelSizesNeedOneTokenAndPositiveWidthsButNoTokenLimit) {
  EXPECT_EQ(error_of([] { L::check_kernel_sizes(0, 4, 8, 1); }), "n and m must be at least 1");
  EXPECT_EQ(error_of([] { L::check_kernel_sizes(4, 0, 8, 1); }), "n and m must be at least 1");
  EXPECT_EQ(error_of([] { L::check_kernel_sizes(4, 4, 0, 1); }), "dK and nHeads must be positive");
  EXPECT_EQ(error_of([] { L::check_kernel_sizes(4, 4, 8, 0); }), "dK and nHeads must be positive");
  // kernels.memory() may be asked about any length: a million tokens is 15 times kKernelTokens.
  EXPECT_NO_THROW(L::check_kernel_sizes(1000000, 1000000, 64, 8));
  EXPECT_NO_THROW(L::check_kernel_sizes(1, 1, 1, 1));
  // The kernel call itself keeps the same two messages first.
  EXPECT_EQ(error_of([] { L::check_kernel_attention(0, 4, 8, 1, false); }), "n and m must be at least 1");
}

TEST(Limits, OnlineSoftmaxStepsNeedKeysDkAndATile) {
  EXPECT_EQ(error_of([] { L::check_online_softmax(0, 8, 2); }), "m (keys) must be between 1 and 4096 (got 0)");
  EXPECT_EQ(error_of([] { L::check_online_softmax(4097, 8, 2); }), "m (keys) must be between 1 and 4096 (got 4097)");
  EXPECT_EQ(error_of([] { L::check_online_softmax(8, 0, 2); }), "dK must be between 1 and 4096 (got 0)");
  EXPECT_EQ(error_of([] { L::check_online_softmax(8, 4, 0); }), "tile must be at least 1");
  EXPECT_NO_THROW(L::check_online_softmax(4096, 4096, 1));
}

TEST(Limits, AdditiveAttentionCountsNTimesMTimesDa) {
  EXPECT_EQ(error_of([] { L::check_additive(0, 4, 2); }), "n must be at least 1 (got 0): there are no tokens");
  EXPECT_EQ(error_of([] { L::check_additive(4, 4097, 2); }), "m (4097) exceeds the limit of 4096 tokens per call");
  // 4096 * 4096 * 1 = 16,777,216 = 2^24 exactly: allowed; dA = 2 doubles it past the limit.
  EXPECT_NO_THROW(L::check_additive(4096, 4096, 1));
  EXPECT_EQ(error_of([] { L::check_additive(4096, 4096, 2); }), "n*m*dA exceeds the limit of 16777216");
  // 2048 * 4096 * 3 = 25,165,824 > 16,777,216.
  EXPECT_EQ(error_of([] { L::check_additive(2048, 4096, 3); }), "n*m*dA exceeds the limit of 16777216");
}

TEST(Limits, LookupNeedsPositiveWidthsThenTokens) {
  EXPECT_EQ(error_of([] { L::check_lookup(3, 3, 0, 2); }), "lookup sizes must be positive");
  EXPECT_EQ(error_of([] { L::check_lookup(3, 3, 2, 0); }), "lookup sizes must be positive");
  // The widths come first: with both wrong, the message is theirs.
  EXPECT_EQ(error_of([] { L::check_lookup(0, 3, 0, 2); }), "lookup sizes must be positive");
  EXPECT_EQ(error_of([] { L::check_lookup(0, 3, 2, 2); }), "n must be at least 1 (got 0): there are no tokens");
  EXPECT_NO_THROW(L::check_lookup(4096, 4096, 1, 1));
}

TEST(Limits, RnnStatesTakeUpToTheKernelTokenLimit) {
  EXPECT_EQ(error_of([] { L::check_rnn_states(0, 4, 4); }), "n must be at least 1");
  // kKernelTokens = 65,536 = 2^16: allowed; one more is not.
  EXPECT_NO_THROW(L::check_rnn_states(65536, 4, 4));
  EXPECT_EQ(error_of([] { L::check_rnn_states(65537, 4, 4); }), "n is limited to 65536 tokens in rnnStates");
  EXPECT_EQ(error_of([] { L::check_rnn_states(8, 0, 4); }), "dIn must be between 1 and 4096 (got 0)");
  EXPECT_EQ(error_of([] { L::check_rnn_states(8, 4, 4097); }), "dHidden must be between 1 and 4096 (got 4097)");
}
