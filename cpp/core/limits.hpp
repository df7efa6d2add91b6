// Every limit of a call into the core, in one place: the bindings check a call against these
// before reading its arrays, and the JS wrapper adds none of its own. The sizes keep one call
// from asking for more memory than a browser tab has (a traced call keeps every stage).
#pragma once
#include <cstddef>
#include <cstdint>

namespace ap::limits {

constexpr int kTracedTokens = 4096;                    // n or m of one traced call (every stage kept)
constexpr int64_t kTracedScores = int64_t{1} << 22;    // nHeads * n * m of one traced attention call
constexpr int64_t kAdditiveScores = int64_t{1} << 24;  // n * m * dA of one additive-attention call
constexpr int kSize = 4096;           // d_in, d_hidden of an RNN; keys and dK of the online-softmax demo
constexpr int kKernelTokens = 65536;  // n or m of the untraced kernels (and rnnStates)
constexpr int64_t kKernelFullScores = int64_t{1} << 24;  // n * m with full: true (64 MB of floats)

// A Hugging Face tokenizer.json (cpp/io/hf_tokenizer.cpp; the README's limits say why each is
// what it is). Every real tokenizer passes with room (GPT-2: 50,257 pieces, 50,000 merges, its
// longest piece 256 bytes as the file writes it; BERT: 30,522 pieces; Llama 3: 128,256 pieces, about
// 280,000 merges); past them a file is refused before its pieces are read, with an Error naming the
// field and the limit.
constexpr int64_t kTokenizerVocab = int64_t{1} << 20;   // model.vocab entries: a model's largest vocab_size
constexpr int64_t kTokenizerMerges = int64_t{1} << 21;  // model.merges: twice the largest vocabulary
constexpr size_t kTokenizerPieceBytes = 1024;           // one piece (vocab, each side of a merge, added token)
// added_tokens entries: real files have a handful to a few hundred (GPT-2 1, BERT 5, Llama 3 256);
// 65,536 read in about 0.4 s natively, where a million took 6.7 s.
constexpr int64_t kTokenizerAddedTokens = int64_t{1} << 16;
// The rules of a normalizer and a decoder (Llama 2: Prepend "▁", Replace " " -> "▁"; Replace "▁" -> " ",
// ByteFallback, Fuse, Strip " "): each string at most 16 bytes (real ones: 1 to 3), a Sequence at most
// 8 rules (real: 2 and 4), and the Replace rules of one Sequence make a text at most 16 times longer
// (the product of their content / pattern lengths in bytes, rounded up; Llama 2's: 3). Without them a
// file of a few bytes could make the normalized text of a short input gigabytes long (" " -> 16
// spaces, eight times over).
constexpr size_t kTokenizerRuleBytes = 16;
constexpr int kTokenizerRules = 8;
constexpr int64_t kTokenizerRuleGrowth = 16;

// The limits a tokenizer.json is read with: these, except in a test that tries one just under and
// just over a small limit (a million-piece file per test would take seconds).
struct TokenizerLimits {
  int64_t vocab = kTokenizerVocab;
  int64_t merges = kTokenizerMerges;
  size_t piece_bytes = kTokenizerPieceBytes;
  int64_t added = kTokenizerAddedTokens;
};

// Each throws ap::Error naming the value and the limit.
void check_tokens(int n, const char* what);              // 1 <= n <= kTracedTokens
void check_heads(int d_model, int n_heads);              // both positive, d_model % n_heads == 0
void check_kv_heads(int n_heads, int n_kv_heads);        // 0 (as n_heads) or a divisor of n_heads
void check_window(int window);                           // 0 (none) or >= 1
void check_traced_attention(int n, int m, int n_heads);  // tokens, and nHeads * n * m <= kTracedScores
void check_kernel_attention(int n, int m, int d_k, int n_heads, bool full);
void check_size(int value, const char* what);  // 1 <= value <= kSize
// The sizes of a kernel call (n, m >= 1; dK, nHeads >= 1): kernels.memory() asks about any n and m.
void check_kernel_sizes(int n, int m, int d_k, int n_heads);
void check_online_softmax(int m, int d_k, int tile);  // keys and dK as check_size; tile >= 1
void check_additive(int n, int m, int d_a);           // tokens, and n * m * dA <= kAdditiveScores
void check_lookup(int n, int m, int d, int d_v);      // d, dV >= 1, then tokens
void check_rnn_states(int n, int d_in, int d_h);      // 1 <= n <= kKernelTokens; sizes

}  // namespace ap::limits
