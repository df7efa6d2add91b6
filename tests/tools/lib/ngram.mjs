// Count-based baselines for the English models: what a classical n-gram model of the same tokens
// achieves on the same held-out chunks, so that a transformer's bits per byte can be read against
// something. Two models:
// - an add-one (Laplace) unigram: the floor, no context at all;
// - interpolated modified Kneser-Ney (Chen and Goodman 1998, "An empirical study of smoothing
//   techniques for language modeling", Harvard TR-10-98, section 3): the strong classical
//   baseline. Three discounts per order (D1, D2, D3+) from that order's count-of-counts, continuation
//   counts for the lower orders, and interpolation all the way down to a uniform distribution over the
//   vocabulary, so every token, even one never seen in training, has a probability > 0.
//
// Like the decoder, a sequence is read from a begin symbol <bos> (id -1 here; it is a context, never
// predicted), so the first token is predicted from <bos> alone. There is no end symbol: the chunks end
// where the token budget does, not where a text does. N-grams never reach left of <bos>, and an n-gram
// starting with <bos> keeps its raw count at every order (nothing can precede <bos>, so it has no
// continuation count; this is what SRILM and KenLM do).
//
// A model is { kind, order, vocabSize, logprob2(context, token), topK(context, k) }: context is the
// sequence's tokens before the one predicted, from its start (an empty context is the first position);
// only its last order - 1 tokens matter once it is that long. It may be a typed array (a subarray
// costs no copy).

const BOS = -1;

/** Add-one unigram: p(w) = (c(w) + 1) / (N + V). */
export function trainUnigram(sequences, vocabSize) {
  const counts = new Float64Array(vocabSize);
  let total = 0;
  for (const seq of sequences)
    for (const id of seq) {
      checkId(id, vocabSize);
      counts[id]++;
      total++;
    }
  const logp = Array.from(counts, (c) => Math.log2((c + 1) / (total + vocabSize)));
  // Context-free, so the ranking is the same everywhere: computed once.
  const ranked = byScore(Array.from(counts.keys()), (w) => logp[w]);
  return {
    kind: 'unigram (add-one)',
    order: 1,
    vocabSize,
    logprob2: (context, token) => logp[token],
    topK: (context, k) => ranked.slice(0, k),
  };
}

/**
 * Interpolated modified Kneser-Ney of the given order (1 = unigram level only), over ids 0..vocabSize-1.
 * Contexts are packed into one exact number (see contextBase), which limits (vocabSize + 1)^(order-1) to
 * 2^53: order 5 with up to 9,740 tokens.
 */
export function trainKneserNey(sequences, order, vocabSize) {
  if (!(order >= 1)) throw new Error(`Kneser-Ney: order ${order} < 1`);
  for (const seq of sequences) for (const id of seq) checkId(id, vocabSize);
  const pow = contextBase(vocabSize, order);

  // tables[k] (k = 1..order): the k-grams' adjusted counts (raw at the top order and for n-grams
  // starting with <bos>, continuation counts otherwise), grouped by context.
  const tables = new Array(order + 1);
  let above = rawCounts(sequences, order, pow);
  tables[order] = buildOrder(above, vocabSize);
  for (let k = order - 1; k >= 1; k--) {
    const raw = rawCounts(sequences, k, pow);
    tables[k] = buildOrder(continuationCounts(raw, above, k, pow), vocabSize);
    above = raw;
  }
  const uniform = 1 / vocabSize;

  // The distribution with no context (unigram level interpolated with uniform), and its ranking:
  // tokens no longer context has seen share this shape, which is what makes topK cheap.
  const base = new Float64Array(vocabSize).fill(uniform);
  const t1 = tables[1];
  if (t1.contexts.length) {
    for (let w = 0; w < vocabSize; w++) base[w] = t1.gamma[0] * uniform;
    for (let e = 0; e < t1.succ.length; e++) base[t1.succ[e]] += t1.disc[e];
  }
  const ranked = byScore(Array.from(base.keys()), (w) => base[w]);

  // The key of order k's context given order k-1's: adds the (k-1)-th previous item (<bos> past the start).
  const extend = (key, context, k) => {
    const j = k - 1;
    const item = j <= context.length ? context[context.length - j] : BOS;
    return key + (item + 1) * pow[j - 1];
  };

  function prob(context, token) {
    // p_k = max(c - D, 0) / total + gamma * p_{k-1}, from order 0 (uniform) up; an order whose context
    // was never seen passes the lower order's distribution through unchanged.
    const top = Math.min(order, context.length + 2);
    let p = uniform;
    let key = 0;
    for (let k = 1; k <= top; k++) {
      if (k >= 2) key = extend(key, context, k);
      const t = tables[k];
      const ci = findContext(t, key);
      if (ci < 0) continue;
      const e = findSuccessor(t, ci, token);
      p = (e >= 0 ? t.disc[e] : 0) + t.gamma[ci] * p;
    }
    return p;
  }

  const mark = new Uint8Array(vocabSize);
  const val = new Float64Array(vocabSize);

  function topK(context, k) {
    // Only tokens seen after this context at some order >= 2 can rise above their rank in `base`;
    // every other token goes through the same multiplications by the gammas, so among those the
    // first k in base's ranking are the only ones that can make the top k.
    const top = Math.min(order, context.length + 2);
    const found = [];
    let key = 0;
    for (let o = 2; o <= top; o++) {
      key = extend(key, context, o);
      const ci = findContext(tables[o], key);
      if (ci >= 0) found.push(tables[o], ci);
    }
    const cand = [];
    for (let f = 0; f < found.length; f += 2) {
      const t = found[f];
      const ci = found[f + 1];
      for (let e = t.start[ci]; e < t.start[ci + 1]; e++)
        if (!mark[t.succ[e]]) {
          mark[t.succ[e]] = 1;
          cand.push(t.succ[e]);
        }
    }
    for (let r = 0, extra = 0; r < vocabSize && extra < k; r++)
      if (!mark[ranked[r]]) {
        mark[ranked[r]] = 1;
        cand.push(ranked[r]);
        extra++;
      }
    for (const w of cand) val[w] = base[w];
    for (let f = 0; f < found.length; f += 2) {
      const t = found[f];
      const ci = found[f + 1];
      const g = t.gamma[ci];
      for (const w of cand) val[w] *= g;
      for (let e = t.start[ci]; e < t.start[ci + 1]; e++) val[t.succ[e]] += t.disc[e];
    }
    for (const w of cand) mark[w] = 0;
    return selectTop(cand, (w) => val[w], k);
  }

  return {
    kind: 'Kneser-Ney (interpolated, modified)',
    order,
    vocabSize,
    discounts: tables.slice(1).map((t) => t.D.slice(1)),
    ngrams: tables.slice(1).map((t) => t.succ.length),
    logprob2: (context, token) => Math.log2(prob(context, token)),
    topK,
  };
}

/**
 * Chen and Goodman's estimates from an order's count-of-counts [n1, n2, n3, n4]:
 * Y = n1 / (n1 + 2 n2), D1 = 1 - 2Y n2/n1, D2 = 2 - 3Y n3/n2, D3+ = 3 - 4Y n4/n3. Returns [0, D1, D2, D3+].
 * On tiny data the formulas can divide by zero or leave [0, c]; each D_c is then kept in
 * [MIN_DISCOUNT, c] (c/2 if undefined): above 0 so every seen context passes some mass to the lower
 * orders (every token keeps p > 0), at most c so no count goes negative. Real corpora are well inside.
 */
export function estimateDiscounts([n1, n2, n3, n4]) {
  const y = n1 / (n1 + 2 * n2);
  const est = [1 - (2 * y * n2) / n1, 2 - (3 * y * n3) / n2, 3 - (4 * y * n4) / n3];
  return [0, ...est.map((d, i) => Math.min(i + 1, Math.max(MIN_DISCOUNT, Number.isFinite(d) ? d : (i + 1) / 2)))];
}
const MIN_DISCOUNT = 0.01;

/**
 * { bits, bytes, bitsPerByte, tokens, top1, top5 } over chunks [{ ids, bytes }]: each chunk read from
 * <bos>; top1 / top5 are the shares of tokens that are the model's most probable / among its 5 most
 * probable (ties to the lower id).
 */
export function bitsPerByte(model, chunks) {
  let bits = 0;
  let bytes = 0;
  let tokens = 0;
  let top1 = 0;
  let top5 = 0;
  const topK = model.topK ?? ((context, k) => topKDense(model, context, k));
  for (const chunk of chunks) {
    const ids = Int32Array.from(chunk.ids);
    for (let i = 0; i < ids.length; i++) {
      const context = ids.subarray(0, i);
      bits -= model.logprob2(context, ids[i]);
      const top = topK(context, 5);
      if (top[0] === ids[i]) top1++;
      if (top.includes(ids[i])) top5++;
    }
    bytes += chunk.bytes;
    tokens += ids.length;
  }
  return { bits, bytes, bitsPerByte: bits / bytes, tokens, top1: top1 / tokens, top5: top5 / tokens };
}

/** The k most probable tokens from all vocabSize probabilities (the slow, obvious way; for checks). */
export function topKDense(model, context, k) {
  const lp = new Float64Array(model.vocabSize);
  for (let w = 0; w < model.vocabSize; w++) lp[w] = model.logprob2(context, w);
  return selectTop(Array.from(lp.keys()), (w) => lp[w], k);
}

/** The worst |sum over the vocabulary of p(w | context) - 1| over the contexts. */
export function checkNormalised(model, contexts, vocabSize = model.vocabSize) {
  let worst = 0;
  for (const context of contexts) {
    let sum = 0;
    for (let w = 0; w < vocabSize; w++) sum += 2 ** model.logprob2(context, w);
    worst = Math.max(worst, Math.abs(sum - 1));
  }
  return worst;
}

/**
 * A self-check on a tiny hand-made corpus (6 token ids, id 5 never seen, id 4 once) where every
 * probability can be checked against a second, deliberately naive implementation of the same formulas
 * (string-keyed maps, recursion, no packing or binary search), for orders 1-4:
 * - normalisation: p(. | context) sums to 1 over the vocabulary, for every prefix of every training
 *   sequence and for contexts never seen (returns the worst |sum - 1|, also for the unigram);
 * - every probability > 0 (the smallest is returned);
 * - the fast model equals the naive one (worst |log2 difference|);
 * - topK (candidates only) equals the top k of all vocabSize probabilities, for k = 1, 2, 5 and all;
 * - two bigram probabilities worked out by hand (worst |difference|), below.
 * Extra sequences (e.g. a slice of the real data) can be added to the corpus.
 *
 * By hand, order 2. Bigram counts (-1 = <bos>): -1 0: 3, -1 1: 1, -1 2: 1, -1 3: 1, 0 1: 5, 1 2: 5,
 * 1 4: 1, 2 0: 1, 2 1: 1, 2 3: 3, 3 0: 2, 3 3: 3; count-of-counts 6, 1, 3, 0, so Y = 6/8 and
 * D = 0.75, 0.01 (2 - 3Y 3/1 < 0, clamped), 3. Continuation counts of the unigrams (distinct left
 * neighbours): 0: 3, 1: 3, 2: 2, 3: 3, 4: 1, 5: 0; total 12, count-of-counts 1, 1, 3, 0, so Y = 1/3 and
 * D = 1/3, 0.01 (clamped), 3; the unigram level leaves g1 = (1/3 + 0.01 + 3 * 3) / 12 to uniform, and
 * p1(2) = (2 - 0.01) / 12 + g1 / 6. After <bos> (total 6; three seen once, one 3 times):
 * gamma = (3 * 0.75 + 3) / 6 = 0.875, and p(5 | <bos>) = 0.875 g1 / 6. After 1 (2: 5, 4: 1):
 * gamma = (0.75 + 3) / 6, p(2 | 1) = (5 - 3) / 6 + gamma p1(2).
 */
export function selfCheck(extra = [], vocabSize = 6) {
  const corpus = [
    [0, 1, 2, 3],
    [0, 1, 2, 1, 2],
    [1, 2, 3, 0],
    [3, 3, 3, 0, 1],
    [2, 0, 1, 4],
    [0, 1, 2, 3, 3],
    ...extra,
  ];
  const contexts = [[], [5], [5, 5], [4, 0], [2, 2, 2, 2], [3, 3, 3, 3, 3]];
  for (const seq of corpus) for (let i = 0; i <= Math.min(seq.length, 8); i++) contexts.push(seq.slice(0, i));
  const result = { worstNormalisation: 0, minProb: 1, worstReferenceDiff: 0, topKMismatches: 0, handDiff: 0 };
  if (!extra.length) {
    const bigram = trainKneserNey(corpus, 2, vocabSize);
    const g1 = (1 / 3 + 0.01 + 9) / 12;
    const byHand = [
      [[], 5, (0.875 * g1) / 6],
      [[1], 2, 2 / 6 + ((0.75 + 3) / 6) * (1.99 / 12 + g1 / 6)],
    ];
    for (const [context, w, p] of byHand)
      result.handDiff = Math.max(result.handDiff, Math.abs(2 ** bigram.logprob2(context, w) - p));
  }
  result.worstNormalisation = checkNormalised(trainUnigram(corpus, vocabSize), contexts);
  for (let order = 1; order <= 4; order++) {
    const fast = trainKneserNey(corpus, order, vocabSize);
    const naive = naiveKneserNey(corpus, order, vocabSize);
    result.worstNormalisation = Math.max(result.worstNormalisation, checkNormalised(fast, contexts));
    for (const context of contexts) {
      for (let w = 0; w < vocabSize; w++) {
        const lp = fast.logprob2(context, w);
        result.minProb = Math.min(result.minProb, 2 ** lp);
        result.worstReferenceDiff = Math.max(result.worstReferenceDiff, Math.abs(lp - naive(context, w)));
      }
      for (const k of [1, 2, 5, vocabSize])
        if (fast.topK(context, k).join() !== topKDense(fast, context, k).join()) result.topKMismatches++;
    }
  }
  return result;
}

// The naive twin of trainKneserNey for selfCheck: the definitions written out directly.
function naiveKneserNey(sequences, order, vocabSize) {
  const raw = [];
  for (let k = 1; k <= order; k++) raw[k] = new Map();
  for (const seq of sequences) {
    const h = [BOS, ...seq];
    for (let i = 1; i < h.length; i++)
      for (let k = 1; k <= order && i - k + 1 >= 0; k++) {
        const g = h.slice(i - k + 1, i + 1).join();
        raw[k].set(g, (raw[k].get(g) ?? 0) + 1);
      }
  }
  const adj = [];
  adj[order] = raw[order];
  for (let k = 1; k < order; k++) {
    adj[k] = new Map();
    for (const [g, c] of raw[k]) {
      if (g.split(',')[0] === String(BOS)) adj[k].set(g, c);
      else adj[k].set(g, [...raw[k + 1].keys()].filter((v) => v.endsWith(',' + g)).length);
    }
  }
  const D = [];
  const ctxStats = [];
  for (let k = 1; k <= order; k++) {
    const n = [0, 0, 0, 0];
    for (const c of adj[k].values()) if (c <= 4) n[c - 1]++;
    D[k] = estimateDiscounts(n);
    ctxStats[k] = new Map();
    for (const [g, c] of adj[k]) {
      const ctx = g.split(',').slice(0, -1).join();
      const s = ctxStats[k].get(ctx) ?? { total: 0, n: [0, 0, 0, 0] };
      s.total += c;
      s.n[Math.min(c, 3)]++;
      ctxStats[k].set(ctx, s);
    }
  }
  const p = (k, ctx, w) => {
    if (k === 0) return 1 / vocabSize;
    const s = ctxStats[k].get(ctx.join());
    if (!s) return p(k - 1, ctx.slice(1), w);
    const c = adj[k].get([...ctx, w].join()) ?? 0;
    const gamma = (D[k][1] * s.n[1] + D[k][2] * s.n[2] + D[k][3] * s.n[3]) / s.total;
    return Math.max(c - D[k][Math.min(c, 3)], 0) / s.total + gamma * p(k - 1, ctx.slice(1), w);
  };
  return (context, w) => {
    const h = order > 1 ? [BOS, ...context].slice(-(order - 1)) : [];
    return Math.log2(p(h.length + 1, h, w));
  };
}

// --- Internals ---

function checkId(id, vocabSize) {
  if (!(Number.isInteger(id) && id >= 0 && id < vocabSize))
    throw new Error(`token id ${id} not in 0..${vocabSize - 1}`);
}

// A context of up to L items is packed into one number, exactly: item j back (1 = the previous token)
// is digit j - 1 in base vocabSize + 1, as id + 1 (<bos> = 0). Then the context one order lower is the
// key modulo base^(L-1), and "the oldest item is <bos>" is key < base^(L-1). Numbers rather than
// strings keep the tables in typed arrays: millions of n-grams in tens of MB.
function contextBase(vocabSize, order) {
  const pow = [1];
  for (let i = 1; i < order; i++) pow.push(pow[i - 1] * (vocabSize + 1));
  if (pow[order - 1] > 2 ** 53)
    throw new Error(`Kneser-Ney: ${order - 1} tokens of a vocabulary of ${vocabSize} do not fit one exact number`);
  return pow;
}

// Raw counts of the k-grams (the k-th token predicted, k - 1 tokens of context), sorted by (context, token).
function rawCounts(sequences, k, pow) {
  const first = Math.max(0, k - 2); // the first position with k - 1 items (counting <bos>) before it
  let n = 0;
  for (const seq of sequences) n += Math.max(0, seq.length - first);
  const ctx = new Float64Array(n);
  const w = new Int32Array(n);
  let j = 0;
  for (const seq of sequences)
    for (let i = first; i < seq.length; i++) {
      let key = 0;
      for (let d = 1; d < k; d++) key += (i - d >= 0 ? seq[i - d] + 1 : 0) * pow[d - 1];
      ctx[j] = key;
      w[j++] = seq[i];
    }
  return tally(ctx, w, new Float64Array(n).fill(1));
}

// Order k's adjusted counts: each distinct (k+1)-gram v g adds one to g (g's number of distinct
// left neighbours), and a k-gram starting with <bos> keeps its raw count.
function continuationCounts(raw, above, k, pow) {
  const ctx = [];
  const w = [];
  const n = [];
  for (let e = 0; e < above.w.length; e++) {
    ctx.push(above.ctx[e] % pow[k - 1]);
    w.push(above.w[e]);
    n.push(1);
  }
  if (k >= 2)
    for (let e = 0; e < raw.w.length; e++)
      if (raw.ctx[e] < pow[k - 2]) {
        ctx.push(raw.ctx[e]);
        w.push(raw.w[e]);
        n.push(raw.n[e]);
      }
  return tally(Float64Array.from(ctx), Int32Array.from(w), Float64Array.from(n));
}

// (context, token, weight) triples -> the distinct (context, token) pairs, sorted, with summed weights.
function tally(ctx, w, weight) {
  const idx = new Uint32Array(w.length);
  for (let i = 0; i < idx.length; i++) idx[i] = i;
  idx.sort((a, b) => ctx[a] - ctx[b] || w[a] - w[b]);
  const oc = new Float64Array(idx.length);
  const ow = new Int32Array(idx.length);
  const on = new Float64Array(idx.length);
  let m = -1;
  for (const i of idx) {
    if (m < 0 || ctx[i] !== oc[m] || w[i] !== ow[m]) {
      m++;
      oc[m] = ctx[i];
      ow[m] = w[i];
    }
    on[m] += weight[i];
  }
  return { ctx: oc.slice(0, m + 1), w: ow.slice(0, m + 1), n: on.slice(0, m + 1) };
}

// One order's table: distinct contexts (sorted, for binary search), each with its successors
// start[c]..start[c+1] in succ (sorted by id), the discounted share disc = max(count - D, 0) / total
// of each, and the mass gamma left to the lower order.
function buildOrder({ ctx, w, n }, vocabSize) {
  const coc = [0, 0, 0, 0];
  for (const c of n) if (c <= 4) coc[c - 1]++;
  const D = estimateDiscounts(coc);
  const contexts = [];
  const start = [];
  for (let e = 0; e < ctx.length; e++)
    if (e === 0 || ctx[e] !== ctx[e - 1]) {
      contexts.push(ctx[e]);
      start.push(e);
    }
  start.push(ctx.length);
  const gamma = new Float64Array(contexts.length);
  const disc = new Float64Array(ctx.length);
  for (let c = 0; c < contexts.length; c++) {
    let total = 0;
    let left = 0;
    for (let e = start[c]; e < start[c + 1]; e++) {
      total += n[e];
      left += D[Math.min(n[e], 3)];
    }
    for (let e = start[c]; e < start[c + 1]; e++) disc[e] = Math.max(n[e] - D[Math.min(n[e], 3)], 0) / total;
    gamma[c] = left / total;
  }
  return { contexts: Float64Array.from(contexts), start: Uint32Array.from(start), succ: w, disc, gamma, D, vocabSize };
}

function findContext(t, key) {
  let lo = 0;
  let hi = t.contexts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = t.contexts[mid];
    if (v === key) return mid;
    if (v < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function findSuccessor(t, ci, token) {
  let lo = t.start[ci];
  let hi = t.start[ci + 1] - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = t.succ[mid];
    if (v === token) return mid;
    if (v < token) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

// Ids ordered by score, highest first, ties to the lower id.
function byScore(ids, score) {
  return ids.sort((a, b) => score(b) - score(a) || a - b);
}

// The k best ids by score (ties to the lower id) in one pass, without sorting all of them.
function selectTop(ids, score, k) {
  const top = [];
  const better = (a, b) => score(a) > score(b) || (score(a) === score(b) && a < b);
  for (const w of ids) {
    if (top.length === k && !better(w, top[k - 1])) continue;
    let i = top.length === k ? k - 1 : top.length;
    while (i > 0 && better(w, top[i - 1])) {
      top[i] = top[i - 1];
      i--;
    }
    top[i] = w;
  }
  return top;
}
