// A curve in words, read from its numbers: where it rises, where it falls, where it ends. For the
// sentences under a log-scale plot (rnn-vanishing), so that what a sentence says is what is drawn.
// Pure functions (no DOM), so Node tests hold the sentences to the plotted values.

/** Swings smaller than this factor (half a decade on a log axis) are read as wiggles, not turns. */
export const TURN_FACTOR = Math.sqrt(10);

/**
 * The turning points of positive values ys[0..n-1] (x = the index), read as a zigzag that ignores
 * swings smaller than `factor`: [0, each turn, n - 1]. The two ends are read as the eye reads them,
 * at `tail` (×1.5, a swing a table of the values shows at a glance): a first bump or dip, the other
 * way from where the curve then goes by a factor, counts as a turn when it is at least `tail` times
 * away from the start (1.7, 2.3, 2.8, then down to 0.01: "rises, then falls", not "falls"); a last
 * dip or bump before the end counts when the end is at least `tail` times away from it. A curve
 * that never moves `factor` away from its start turns at its highest (or lowest) point when that is
 * `tail` beyond both ends.
 */
export function turningPoints(ys, factor = TURN_FACTOR, tail = 1.5) {
  const n = ys.length;
  if (n < 2) return n ? [0] : [];
  const L = Array.from(ys, (v) => Math.log(Math.max(v, Number.MIN_VALUE)));
  const lf = Math.log(factor),
    lt = Math.log(tail);
  const turns = [0];
  let dir = 0, // +1 rising, -1 falling, 0 not yet moved by a factor
    ext = 0, // the highest (rising) or lowest (falling) point since the last turn
    hi = 0, // before the first move by a factor: the highest and the lowest points so far
    lo = 0;
  for (let i = 1; i < n; i++) {
    if (dir === 0) {
      if (Math.abs(L[i] - L[0]) >= lf) {
        dir = Math.sign(L[i] - L[0]);
        const first = dir < 0 ? hi : lo; // a bump before a fall, a dip before a rise
        if (first > 0 && Math.abs(L[first] - L[0]) >= lt) turns.push(first);
        ext = i;
      } else {
        if (L[i] > L[hi]) hi = i;
        if (L[i] < L[lo]) lo = i;
      }
      continue;
    }
    if (dir * (L[i] - L[ext]) >= 0) ext = i;
    else if (dir * (L[ext] - L[i]) >= lf) {
      turns.push(ext);
      dir = -dir;
      ext = i;
    }
  }
  if (dir !== 0 && ext !== n - 1 && Math.abs(L[n - 1] - L[ext]) >= lt) turns.push(ext);
  if (dir === 0) {
    const ends = [L[0], L[n - 1]];
    if (hi > 0 && hi < n - 1 && L[hi] - Math.max(...ends) >= lt) turns.push(hi);
    else if (lo > 0 && lo < n - 1 && Math.min(...ends) - L[lo] >= lt) turns.push(lo);
  }
  turns.push(n - 1);
  return turns;
}

/**
 * The moves between turning points: [{ from, to, dir: 'rises' | 'falls' | 'level' }], each from one
 * turning point to the next (`level`: the whole curve stays within `factor` of its start).
 */
export function curveMoves(ys, factor = TURN_FACTOR) {
  const t = turningPoints(ys, factor);
  const moves = [];
  for (let k = 1; k < t.length; k++) {
    const a = ys[t[k - 1]],
      b = ys[t[k]];
    moves.push({ from: t[k - 1], to: t[k], dir: b > a ? 'rises' : b < a ? 'falls' : 'level' });
  }
  if (moves.length === 1) {
    let lo = Infinity,
      hi = -Infinity;
    for (const v of ys) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    if (hi / lo < factor) moves[0].dir = 'level';
  }
  return moves;
}

/** More moves than this are summed up (highest, lowest, end) rather than listed. */
const MAX_MOVES = 3;

/**
 * "rises to 102 at 13 steps back, falls to 4.15 at 28 and rises again to 25.8 at 31": the moves in
 * words, `value(v)` formatting a value and `where(x)` a position.
 */
export function movesText(ys, moves, value, where) {
  if (moves.length > MAX_MOVES) {
    const [hi, lo, end] = namedPoints(ys, moves);
    return `goes up and down (${moves.length - 1} turns by more than ×${TURN_FACTOR.toFixed(1)}): its highest is ${value(ys[hi])} ${where(hi)}, its lowest ${value(ys[lo])} ${where(lo)}, and it is ${value(ys[end])} ${where(end)}`;
  }
  const parts = moves.map((m, k) => {
    const again = moves.slice(0, k).some((p) => p.dir === m.dir) ? ' again' : '';
    if (m.dir === 'level')
      return `stays within ×${TURN_FACTOR.toFixed(1)} of where it starts and is ${value(ys[m.to])} ${where(m.to)}`;
    return `${m.dir}${again} to ${value(ys[m.to])} ${where(m.to)}`;
  });
  if (parts.length < 2) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/**
 * The positions movesText names, in its order: each move's end, or (more moves than it lists) the
 * highest point, the lowest and the end. A view shows the values at these positions beside the
 * sentence, so that every number the sentence names can be read there too.
 */
export function namedPoints(ys, moves) {
  if (moves.length <= MAX_MOVES) return moves.map((m) => m.to);
  let hi = 0,
    lo = 0;
  ys.forEach((v, i) => {
    if (v > ys[hi]) hi = i;
    if (v < ys[lo]) lo = i;
  });
  return [hi, lo, ys.length - 1];
}
