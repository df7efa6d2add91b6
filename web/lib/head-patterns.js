// What an attention head does, named from its weights: for each candidate pattern (previous
// token, same token, first token, next token, one word) the weight a query row puts on it,
// averaged over the rows where the pattern can be seen, beside what evenly spread weights would
// put there. The heaviest candidate that clearly beats even spreading names the head; if none
// does, the head is "broad" (a row's largest weight, on average, not over half) or has "no fixed place".
// Pure functions over the core's weights (no DOM), so tests can use them too.

/** "Most" of a row's weight: more than half. At or below it a head leans to its pattern, or is broad. */
export const MOST = 0.5;
/** A pattern holds with at least this much of the weight and this many times its even share. */
export const HOLDS = { weight: 0.3, ratio: 1.5 };
/** Not "most": at most MOST at the two decimals the line shows (0.50 reads the same either side). */
const notMost = (x) => Math.round(x * 100) / 100 <= MOST;

/**
 * @param {ArrayLike<number>} w  weights, rows x cols (row-major), rows sum to 1
 * @param {number} rows
 * @param {number} cols
 * @param {{ labels?: string[], masked?: ArrayLike<number> | null }} opts  key labels; 1 where a
 *   score was masked (that key is not visible to that query)
 * @returns {{ key, name, score, even, rows, maxWeight, evenMax, entropy, candidates }}
 *   key: 'previous' | 'same' | 'first' | 'next' | 'word' | 'local' | 'broad'; score: mean weight on the
 *   pattern; even: the same mean if each row spread its weight evenly over its visible keys.
 */
export function headPattern(w, rows, cols, { labels = null, masked = null } = {}) {
  const vis = (i, j) => j >= 0 && j < cols && !(masked && masked[i * cols + j]);
  const visible = [];
  for (let i = 0; i < rows; i++) {
    let c = 0;
    for (let j = 0; j < cols; j++) if (vis(i, j)) c++;
    visible.push(c);
  }
  // Rows with a choice to make: a row that sees one key (the first row under the causal mask)
  // puts all its weight there whatever the head does.
  const free = [];
  for (let i = 0; i < rows; i++) if (visible[i] >= 2) free.push(i);

  const mean = (list) => (list.length ? list.reduce((a, b) => a + b, 0) / list.length : 0);
  const candidate = (key, name, cells) => {
    // cells(i) -> list of key columns of the pattern for query row i ([] if not applicable)
    const got = [],
      even = [];
    for (const i of free) {
      const js = cells(i).filter((j) => vis(i, j));
      if (!js.length) continue;
      let s = 0;
      for (const j of js) s += w[i * cols + j];
      got.push(s);
      even.push(js.length / visible[i]);
    }
    return { key, name, score: mean(got), even: mean(even), rows: got.length };
  };

  const first = labels?.[0];
  const isBos = first !== undefined && /^(<bos>|<s>|\[CLS\]|<start>)$/i.test(first);
  const cands = [
    candidate('previous', 'previous token', (i) => (i >= 1 ? [i - 1] : [])),
    candidate('same', 'same token (itself)', (i) => (i < cols ? [i] : [])),
    candidate(
      'first',
      isBos ? `first token (${first})` : `first token${first !== undefined ? ` ("${first}")` : ''}`,
      (i) => (i >= 1 ? [0] : []),
    ),
    candidate('next', 'next token', (i) => [i + 1]),
    // A band along the diagonal, split between the two: named only when neither holds alone.
    candidate('local', 'itself and the previous token', (i) => (i >= 1 ? [i - 1, i] : [])),
  ];
  // One word wherever it occurs (a word only at position 0 is the first-token pattern).
  if (labels && rows === cols) {
    const where = new Map();
    labels.slice(0, cols).forEach((t, j) => {
      if (!where.has(t)) where.set(t, []);
      where.get(t).push(j);
    });
    for (const [t, js] of where) {
      if (js.length === 1 && js[0] === 0) continue;
      const c = candidate('word', `the word "${t}"`, () => js);
      c.word = t;
      cands.push(c);
    }
  }
  // Enough rows to speak of a pattern: half of the free rows (at least 2).
  const need = Math.max(2, Math.ceil(free.length / 2));
  const usable = cands.filter((c) => c.rows >= need || (c.rows >= 1 && free.length < 2));

  let maxSum = 0,
    entSum = 0,
    evenMaxSum = 0,
    freeMax = 0;
  for (const i of free) {
    let mx = 0,
      h = 0;
    for (let j = 0; j < cols; j++) {
      if (!vis(i, j)) continue;
      const p = w[i * cols + j];
      if (p > mx) mx = p;
      if (p > 0) h -= p * Math.log(p);
    }
    maxSum += mx;
    if (mx > freeMax) freeMax = mx;
    entSum += h / Math.log(visible[i]);
    evenMaxSum += 1 / visible[i];
  }
  const n = free.length || 1;
  const stats = { maxWeight: maxSum / n, evenMax: evenMaxSum / n, entropy: entSum / n, freeMax };

  // A pattern holds if it gets at least HOLDS.weight of the weight and HOLDS.ratio times what even
  // spreading would give it; the head is named by the one that holds with the most weight (positional
  // patterns first on ties), and a second one that holds is named too (small models' heads often mix two).
  const clearOf = (c) => c && c.score >= HOLDS.weight && c.score >= HOLDS.ratio * c.even;
  let best = null,
    also = null;
  const single = usable.filter((c) => c.key !== 'local');
  for (const c of single) if (clearOf(c) && (!best || c.score > best.score + 1e-9)) best = c;
  if (!best) best = usable.find((c) => c.key === 'local' && clearOf(c)) || null;
  const clear = !!best;
  for (const c of single)
    if (c !== best && c.key !== best?.key && clearOf(c) && (!also || c.score > also.score + 1e-9)) also = c;
  if (!clear)
    return {
      key: 'broad',
      name: notMost(stats.maxWeight) ? 'broad' : 'no fixed place',
      score: stats.maxWeight,
      even: stats.evenMax,
      rows: free.length,
      ...stats,
      candidates: cands,
      best,
    };
  return { ...best, ...stats, candidates: cands, best, also };
}

/**
 * A head's pattern in words, as [what, figure]: ["previous token", "0.81 of the weight on average
 * (0.27 if spread evenly)"]. patternLine joins them with ": ".
 */
export function patternParts(p, fmt = (x) => x.toFixed(2)) {
  // Broad or not is read from the figure shown: a row's largest weight, on average, at most MOST.
  if (p.key === 'broad') {
    const largest = `a row's largest weight is ${fmt(p.maxWeight)} on average (${fmt(p.evenMax)} if spread evenly)`;
    return notMost(p.maxWeight)
      ? [p.name, `${largest}, not over half: no key gets most of the weight`]
      : [
          p.name,
          `${largest}, but no one place (the previous token, itself, the first token, the next token, one word) gets ${fmt(HOLDS.weight)} of it and ${HOLDS.ratio} times its even share`,
        ];
  }
  const whose = (c) => (c.key === 'word' ? `of the ${c.rows} rows that can see it ` : '');
  const alsoText = p.also ? `; also ${p.also.name}: ${fmt(p.also.score)}` : '';
  return [
    `${notMost(p.score) ? 'leans to ' : ''}${p.name}`,
    `${fmt(p.score)} of the weight ${whose(p)}on average (${fmt(p.even)} if spread evenly)${alsoText}`,
  ];
}

export function patternLine(p, fmt) {
  return patternParts(p, fmt).join(': ');
}
