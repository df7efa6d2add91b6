// The GPT-2 section of the benchmark (issue 16): a GPT-2-small-shaped model (124M parameters,
// build/hf/gpt2-small-shape, random weights from tests/tools/lib/hf-synthetic.mjs) run by this
// project's core (wasm through the JS API, and natively) and by onnxruntime-web on the same
// weights exported to ONNX (build/bench/onnx, tests/reference/make_hf_fixtures.py --onnx); and
// (issue 26) a SmolLM-135M-shaped Llama model the same way (build/hf/smollm-135m-shape,
// hf-synthetic.mjs --smollm; ONNX by tests/reference/make_smollm_onnx.py).
//   prefill n: one forward pass over n prompt tokens, logits for every position;
//   generate n+k: n prompt tokens, then k new tokens, greedy, with the KV cache.
// Every implementation reports the argmax of every logits row (prefill) or the generated ids
// (generate), which must be the same ids everywhere, and a weighted sum of the last logits row,
// which must agree to float rounding, before its times count. A case carries its model's folder
// (dir), ONNX file prefix (onnx) and vocabulary size (vocab): every runner, the native one too,
// reads them from the case.
import { rng } from './cases.mjs';

export const HF_DIR = 'build/hf/gpt2-small-shape';
export const SMOLLM_DIR = 'build/hf/smollm-135m-shape';
export const ONNX_DIR = 'build/bench/onnx';
export const VOCAB = 50257;
export const N_LAYER = 12;
export const N_HEAD = 12;
export const D_HEAD = 64;

export const MODELS = {
  gpt2: { dir: HF_DIR, onnx: 'gpt2', vocab: VOCAB, label: '' },
  smollm: { dir: SMOLLM_DIR, onnx: 'smollm', vocab: 49152, label: 'SmolLM ' },
};

export function gpt2Cases({ quick = false, models = ['gpt2', 'smollm'] } = {}) {
  const out = [];
  for (const name of models) {
    const { dir, onnx, vocab } = MODELS[name];
    const m = { kind: 'gpt2', model: name, dir, onnx, vocab };
    out.push({ ...m, mode: 'prefill', n: 64 }, ...(quick ? [] : [{ ...m, mode: 'prefill', n: 512 }]), {
      ...m,
      mode: 'generate',
      n: 64,
      newTokens: 32,
    });
  }
  return out;
}

export const gpt2CaseId = (c) =>
  (MODELS[c.model ?? 'gpt2'].label ?? '') +
  (c.mode === 'prefill' ? `prefill n=${c.n}` : `generate ${c.n}+${c.newTokens}`);

// Tokens a call produces: n logits rows for a prefill, the new tokens for a generation.
export const gpt2Tokens = (c) => (c.mode === 'prefill' ? c.n : c.newTokens);

// The vocabulary size of a case's model.
export const vocabOf = (c) => c.vocab ?? VOCAB;

// The prompt: seeded ids over the whole vocabulary but its last id (GPT-2's <|endoftext|>).
export function promptIds(c) {
  const next = rng(16);
  const V = vocabOf(c);
  return Int32Array.from({ length: c.n }, () => next() % (V - 1));
}

// Index of the largest value of row r of a (rows, V) matrix (the first one on ties, as the core's
// std::max_element).
export function argmaxRow(logits, r, V = VOCAB) {
  let best = 0,
    bestValue = -Infinity;
  const base = r * V;
  for (let j = 0; j < V; j++) {
    const x = logits[base + j];
    if (x > bestValue) {
      bestValue = x;
      best = j;
    }
  }
  return best;
}

// A weighted sum of one logits row and its magnitude (as cases.mjs checksum, over one row).
export function rowSum(logits, r, V = VOCAB) {
  let sum = 0,
    abs = 0;
  for (let j = 0; j < V; j++) {
    const w = ((j * 7919) % 13) - 6;
    sum += w * logits[r * V + j];
    abs += Math.abs(w * logits[r * V + j]);
  }
  return { sum, abs };
}

// The checksum of a prefill: every row's argmax, the last row's weighted sum.
export function prefillChecksum(logits, n, V = VOCAB) {
  const ids = [];
  for (let r = 0; r < n; r++) ids.push(argmaxRow(logits, r, V));
  return { ids, ...rowSum(logits, n - 1, V) };
}

// Whether two checksums agree: the same ids, and the sums to `tol` relative to their magnitude.
// Returns null when they do, else what differs.
export function gpt2Disagreement(a, b, tol = 1e-3) {
  if (a.ids.length !== b.ids.length) return `${a.ids.length} ids vs ${b.ids.length}`;
  const diff = a.ids.map((x, i) => (x === b.ids[i] ? -1 : i)).filter((i) => i >= 0);
  if (diff.length)
    return `ids differ at ${diff.length} position(s), first ${diff[0]}: ${a.ids[diff[0]]} vs ${b.ids[diff[0]]}`;
  if (Math.abs(a.sum - b.sum) > tol * Math.max(a.abs, b.abs, 1e-30)) return `last logits row sum ${a.sum} vs ${b.sum}`;
  return null;
}
