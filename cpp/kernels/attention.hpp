// Attention kernels: the hot loops of scaled dot-product attention, each fast version beside a plain
// reference that the tests hold it equal to.
//
// Layout: every matrix is row-major float with an explicit leading dimension (row stride), so one
// head of a multi-head Q (n, h*d_k) is just the pointer q + i*d_k with ld = h*d_k: no copies.
// Sizes: n queries, m keys, d_k per-head width, h heads. The fast versions are hand-written SIMD
// (WASM SIMD128 in wasm, SSE2 natively, plain C++ otherwise, or the relaxed-SIMD module a wasm
// loader may switch to; see variant() and dispatch.cpp); they never allocate, except
// attention_forward_full, which holds the (n, m) matrix on purpose.
//
// Causal masking: query i may see key j iff j <= i + (m - n). The queries are taken to be the last
// n of the m positions (decoding with a cache, or n == m for plain self-attention), so the last
// query sees every key. When m < n, the first n - m queries see no key at all.
// A query row that sees no key (every score -inf) gets all-zero weights and a zero output, never NaN.
//
// Sliding window (window > 0, with causal only; Mistral's definition, as Hugging Face writes it):
// query i, at position p = i + (m - n), sees key j iff p - window < j <= p, i.e. itself and the
// window - 1 keys before it. The online kernel starts each query block at the first key its first row
// can see and stops after its last row's key: blocks wholly outside the window are never read, so a
// call costs O(n window) instead of O(n m). window >= m is plain causal attention; window 1 sees only
// the key at the query's own position.
#pragma once

#include "base/half.hpp"

namespace ap::kernels {

// The kernels in use: "simd128" (WASM SIMD128), "relaxed" (the relaxed-SIMD module, fused
// multiply-add, switched in at load time), "sse2" (native x86-64 build of the same kernels) or
// "scalar" (built without a vector unit, or with -DAP_KERNELS_SCALAR).
const char* variant();

// ---- pieces, per head ----------------------------------------------------------------------

// scores (n, m) = alpha * Q (n, d_k) K^T (d_k, m), with K given row-major as (m, d_k).
void qk_scores(float* scores, int ld_s, const float* q, int ld_q, const float* k, int ld_k, int n, int m, int d_k,
               float alpha = 1.0f);
void qk_scores_ref(float* scores, int ld_s, const float* q, int ld_q, const float* k, int ld_k, int n, int m, int d_k,
                   float alpha = 1.0f);
// The same with K kept as its checkpoint stored it (a tied head's F16 / BF16 embedding rows),
// widened in registers: bit for bit qk_scores() on the widened K where both run this module's
// kernels (see gemm_tiled_f16, kernels/gemm.hpp). Finite K values only.
void qk_scores_f16(float* scores, int ld_s, const float* q, int ld_q, const f16* k, int ld_k, int n, int m, int d_k,
                   float alpha = 1.0f);
void qk_scores_bf16(float* scores, int ld_s, const float* q, int ld_q, const bf16* k, int ld_k, int n, int m, int d_k,
                    float alpha = 1.0f);
// The same with K in key blocks, the layout a model keeps a 16-bit embedding matrix in (its tied
// head's keys, core/weight.hpp): block b holds keys 8b .. 8b + 7 as d_k / 8 steps, each the next 8
// values of key 0, then of key 1, ... key 7 (64 values a step), then each key's last d_k % 8 values
// in turn; keys after the last whole block stay row-major. ld_k is d_k. A decoding step (n = 1)
// then reads the keys as one sequential stream, where 8 rows read in step were 8 streams (GPT-2
// small's head, wasm: 10.5 ms a token row-major, 4.4 ms in blocks). The same sums in the same
// order: bit for bit qk_scores_f16 / _bf16 on the row-major keys.
constexpr int kKeyBlock = 8;
void qk_scores_blocks_f16(float* scores, int ld_s, const float* q, int ld_q, const f16* k, int ld_k, int n, int m,
                          int d_k, float alpha = 1.0f);
void qk_scores_blocks_bf16(float* scores, int ld_s, const float* q, int ld_q, const bf16* k, int ld_k, int n, int m,
                           int d_k, float alpha = 1.0f);
void qk_scores_ref_f16(float* scores, int ld_s, const float* q, int ld_q, const f16* k, int ld_k, int n, int m, int d_k,
                       float alpha = 1.0f);
void qk_scores_ref_bf16(float* scores, int ld_s, const float* q, int ld_q, const bf16* k, int ld_k, int n, int m,
                        int d_k, float alpha = 1.0f);

// scores[i][j] = -inf where j > i + (m - n) (see "Causal masking" above), and with window > 0 where
// j <= i + (m - n) - window (see "Sliding window"), in place.
void mask_causal(float* scores, int ld_s, int n, int m, int window = 0);

// out (n, m) = softmax of each row of in (n, m), subtracting the row max first so exp never
// overflows. A row that is entirely -inf gives a row of zeros. `out` may be `in` (same ld) but must
// not partially overlap it.
void softmax_rows(float* out, int ld_out, const float* in, int ld_in, int n, int m);
void softmax_rows_ref(float* out, int ld_out, const float* in, int ld_in, int n, int m);

// out (n, d_k) = weights (n, m) V (m, d_k).
void weights_v(float* out, int ld_out, const float* weights, int ld_w, const float* v, int ld_v, int n, int m, int d_k);
void weights_v_ref(float* out, int ld_out, const float* weights, int ld_w, const float* v, int ld_v, int n, int m,
                   int d_k);

// out[i] = e^in[i] with the vectorised exp the softmax uses. Max relative error against std::exp
// for in[i] in [-87.3365, 88.7228] (results in the normal float range): 1.19e-7 measured (1e8
// random inputs natively, and every 1e-4 over [-87, 88] in the tests, native and wasm), i.e. about
// one float epsilon; kExpMaxRelError is the bound the tests hold it to. Below that range (including
// -inf) the result is exactly 0 (denormal results are flushed to 0: an absolute error < 1.2e-38);
// above it, +inf.
void exp_vec(float* out, const float* in, int n);
constexpr double kExpMaxRelError = 2.0e-7;

// GPT-2's tanh GELU ("gelu_new") over n values: 0.5 x (1 + tanh u), u = sqrt(2 / pi) (x + 0.044715 x^3),
// computed as x / (1 + e^(-2u)) (the same function: 1 + tanh u = 2 / (1 + e^(-2u))) with the exp
// above, 4 values at a time. Within a few float epsilons of the scalar gelu_tanh (core/layers.hpp),
// and closer than it to the exact value for negative x, where 1 + tanh u cancels.
void gelu_tanh_vec(float* out, const float* in, int n);

// ---- whole multi-head attention --------------------------------------------------------------
// out (n, h*d_k) = concat over heads i of softmax(Q_i K_i^T [/ sqrt(d_k)] [causal mask]) V_i, where
// q is (n, h*d_k), k and v are (m, h*d_k), head i in columns [i*d_k, (i+1)*d_k). `scale` divides the
// scores by sqrt(d_k). out must not overlap the inputs.

// Tiled, online softmax (running max and sum per query row, rescaling the partial output): it never
// holds the (n, m) matrix; extra memory is a few KB of stack, independent of n and m.
// window: see "Sliding window" above (0: none; used only with causal).
void attention_forward(float* out, const float* q, const float* k, const float* v, int n, int m, int d_k, int n_heads,
                       bool causal, bool scale, int window = 0);
// Through the full (n, m) score matrix per head with the fast pieces above (allocates n*m floats).
void attention_forward_full(float* out, const float* q, const float* k, const float* v, int n, int m, int d_k,
                            int n_heads, bool causal, bool scale, int window = 0);
// Plain loops in double precision with std::exp: the independent reference (reads only the visible keys).
void attention_forward_ref(float* out, const float* q, const float* k, const float* v, int n, int m, int d_k,
                           int n_heads, bool causal, bool scale, int window = 0);

// ---- memory, and online softmax step by step (the long-context lesson) -------------------------
// The working memory of one call besides its inputs and output. Full path: the (n, m) score matrix
// (n*m floats, reused across heads). Online path: fixed tiles on the stack whatever n and m are (a
// BQ x BK score block, the running max and sum of BQ rows, a transposed K panel). double: the full
// matrix of long inputs (n = 50,000: 10 GB) does not fit in 32 bits.
struct AttentionMemory {
  double scores_held;    // scores alive at once: n*m, or one BQ x BK tile
  double scratch_bytes;  // bytes of that working memory
};
AttentionMemory attention_memory(int n, int m, bool full);

// attention_forward_full that also measures what it held: the allocator's bytes in use at the
// call's peak (right after the (n, m) matrix is allocated) minus those before the call. -1 where
// the C library cannot say (not wasm, not glibc >= 2.33).
double attention_forward_full_measured(float* out, const float* q, const float* k, const float* v, int n, int m,
                                       int d_k, int n_heads, bool causal, bool scale, int window = 0);

// Query-key pairs the online kernel computes scores for, per head (whole BQ x BK tiles, as it reads
// them): n m unmasked; about n^2 / 2 causal; about n (window + BQ + BK) with a window.
double attention_pairs_computed(int n, int m, bool causal, int window);

// The online softmax of one query over m keys, tile by tile, as attention_forward does it, for a
// worked example: s_j = alpha q.k_j (alpha = 1/sqrt(d_k) if scale), keys taken `tile` at a time.
// scores (m) = s. steps: per tile 6 + d_k floats: first key, end key (exclusive), tile max, running
// max m, correction e^(m_old - m_new) applied to l and o, running sum l, then the running output
// o (d_k, not yet divided by l). out (d_k) = o / l. Returns the number of tiles, ceil(m / tile).
int online_softmax_steps(float* steps, float* out, float* scores, const float* q, const float* k, const float* v, int m,
                         int d_k, int tile, bool scale);

}  // namespace ap::kernels
