// Held-out figures of the English models through the JS API (the code a page runs), shared by
// `npm run train -- report` (tests/tools/english-report.mjs, which records them) and the tests
// (tests/wasm/english.test.js, which recompute them on a subset):
// - decoder: bits per byte, next-token top-1 / top-5 over passages read from <bos>
//   (tests/tools/lib/english-data.mjs cuts them);
// - masked LM: top-1 / top-5 at 15 % of the tokens hidden behind [MASK] (seeded), beside a unigram.
import { englishChunks, tokenByteLengths } from './english-data.mjs';

export { tokenizerJsonOf } from './english-data.mjs';

/** ids -> the number of UTF-8 bytes they stand for (byte-level BPE: one character per byte). */
export function byteLengthOf(tokenizerJson) {
  const len = tokenByteLengths(tokenizerJson);
  return (ids) => ids.reduce((a, id) => a + len[id], 0);
}

/** Passages of the samples as the model reads them (synchronous encode through the core). */
export function chunksFor(model, tokenizerJson, samples, maxTokens) {
  const encode = (text) => Array.from(model.tokenizer.encode(text).ids);
  // englishChunks awaits encode; with a synchronous one every await resolves at once.
  return englishChunks(samples, encode, maxTokens, byteLengthOf(tokenizerJson));
}

/** The subset the tests recompute: the first passage of every held-out sample. */
export function firstPassages(chunks) {
  return chunks.filter((c, i) => i === 0 || chunks[i - 1].sample !== c.sample);
}

// log-softmax of one row in float64; rank of `target` (ties: lower id first) for top-k.
function scoreRow(z, target) {
  let max = -Infinity;
  for (let v = 0; v < z.length; v++) if (z[v] > max) max = z[v];
  let sum = 0;
  for (let v = 0; v < z.length; v++) sum += Math.exp(z[v] - max);
  const logp = z[target] - max - Math.log(sum);
  let rank = 0;
  for (let v = 0; v < z.length && rank < 5; v++) if (z[v] > z[target] || (z[v] === z[target] && v < target)) rank++;
  return { logp, rank };
}

const KEEP_LOGITS = { layers: [], stages: [], drop: ['probs'] };

/** Decoder figures over passages: { bits, bytes, tokens, bitsPerByte, top1, top5, perChunk }. */
export function decoderFigures(model, chunks, bos) {
  const V = model.config.vocabSize;
  let bits = 0;
  let bytes = 0;
  let tokens = 0;
  let top1 = 0;
  let top5 = 0;
  const perChunk = [];
  for (const c of chunks) {
    const tr = model.forward([bos, ...c.ids], {}, KEEP_LOGITS);
    try {
      const logits = tr.get('logits');
      let b = 0;
      for (let i = 0; i < c.ids.length; i++) {
        const { logp, rank } = scoreRow(logits.subarray(i * V, (i + 1) * V), c.ids[i]);
        b -= logp / Math.LN2;
        top1 += rank === 0;
        top5 += rank < 5;
      }
      bits += b;
      perChunk.push(b);
    } finally {
      tr.dispose();
    }
    bytes += c.bytes;
    tokens += c.ids.length;
  }
  return { bits, bytes, tokens, bitsPerByte: bits / bytes, top1: top1 / tokens, top5: top5 / tokens, perChunk };
}

// A small seeded generator (the masks must be the same in the report and in the test).
function lcg(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Masked-LM figures: in each passage 15 % of the tokens (at least one; seeded) become [MASK] at
 * once, as in training; top-1 / top-5 of the hidden token at each masked position. `unigram`
 * (token counts of the training split) gives the baseline that always guesses the most frequent tokens.
 */
export function mlmFigures(model, chunks, maskId, { seed = 20261126, unigram } = {}) {
  const V = model.config.vocabSize;
  const next = lcg(seed);
  let masked = 0;
  let top1 = 0;
  let top5 = 0;
  let base1 = 0;
  let base5 = 0;
  const ranked = unigram ? [...unigram.keys()].sort((a, b) => unigram.get(b) - unigram.get(a) || a - b) : [];
  const baseRank = new Map(ranked.slice(0, 5).map((id, i) => [id, i]));
  for (const c of chunks) {
    const ids = [...c.ids];
    let at = ids.map((_, i) => i).filter(() => next() < 0.15);
    if (!at.length) at = [Math.floor(next() * ids.length)];
    for (const i of at) ids[i] = maskId;
    const tr = model.forward(ids, {}, KEEP_LOGITS);
    try {
      const logits = tr.get('logits');
      for (const i of at) {
        const { rank } = scoreRow(logits.subarray(i * V, (i + 1) * V), c.ids[i]);
        top1 += rank === 0;
        top5 += rank < 5;
        const br = baseRank.get(c.ids[i]);
        base1 += br === 0;
        base5 += br !== undefined;
      }
    } finally {
      tr.dispose();
    }
    masked += at.length;
  }
  return { masked, top1: top1 / masked, top5: top5 / masked, unigramTop1: base1 / masked, unigramTop5: base5 / masked };
}
