// The RNN side of the "why attention" views (rnn-chain, rnn-vanishing, bahdanau): the page's
// token vectors as the RNN's input, the core's Elman RNN on them (stages copied out, the trace
// freed at once), and two pictures drawn in SVG: the chain of states an RNN passes along, and
// attention's direct arcs from one token to every other. Numbers come from the core; this file
// only moves rows around (repeat, reverse, concatenate) and draws.
import { el, fmt, tokenText } from './dom.js';
import { curveMoves, movesText, namedPoints } from './curve-words.js';

/** The RNN every view of section A runs: 8 hidden units, W_hh scaled to spectral radius 0.9. */
export const RNN = { dHidden: 8, radius: 0.9, seed: 1 };

/** The notes' chain (000): "the cat sat down" with states h_1 .. h_4. */
export const CAT_SAT_DOWN = 'the cat sat down';

/**
 * The token vectors of a run as the RNN's input: the embedding rows (the RNN needs no
 * positional encoding, it reads the tokens in order). { x (n*d), n, d, labels, stage }.
 */
export function tokenRows(run) {
  const opts = run.kind === 'model' ? { stack: run.mainStack } : {};
  const name = run.has('embed') ? 'embed' : 'x';
  const labels = Array.from(run.labels(opts.stack), tokenText);
  if (run.empty || labels.length === 0) throw new Error('There are no tokens: type some text for the RNN to read.');
  const shape = run.shape(name, opts);
  return { x: run.get(name, opts), n: shape[0], d: shape[1], labels, stage: name };
}

/**
 * The core's Elman RNN on x (n x dIn), h_t = tanh(x_t W_xh + h_{t-1} W_hh): every stage copied
 * out (the weights wxh (dIn x dHidden) and whh too), the trace disposed.
 */
export function rnnStates(ap, { x, n, dIn, dHidden = RNN.dHidden, radius = RNN.radius, seed = RNN.seed }) {
  const t = ap.rnn({ x, n, dIn, dHidden, spectralRadius: radius, seed });
  try {
    return {
      n,
      dHidden,
      h: t.get('rnn_h'),
      pre: t.get('rnn_pre'),
      grad: t.get('rnn_grad_norm'),
      wxh: t.get('rnn_wxh'),
      whh: t.get('rnn_whh'),
    };
  } finally {
    t.dispose();
  }
}

/** Rows of x (n x d) cycled to `length` rows: the text read again and again. */
export function repeatRows(x, n, d, length) {
  const out = new Float32Array(length * d);
  for (let i = 0; i < length; i++) out.set(x.subarray((i % n) * d, ((i % n) + 1) * d), i * d);
  return out;
}

/** Rows of x (n x d) in reverse order. */
export function reverseRows(x, n, d) {
  const out = new Float32Array(n * d);
  for (let i = 0; i < n; i++) out.set(x.subarray((n - 1 - i) * d, (n - i) * d), i * d);
  return out;
}

/** [a | b] row by row: a (n x da), b (n x db) -> (n x (da + db)). */
export function concatCols(a, b, n, da, db) {
  const out = new Float32Array(n * (da + db));
  for (let i = 0; i < n; i++) {
    out.set(a.subarray(i * da, (i + 1) * da), i * (da + db));
    out.set(b.subarray(i * db, (i + 1) * db), i * (da + db) + da);
  }
  return out;
}

/**
 * A bidirectional RNN encoder as in the notes (004, eq. 2-4): a forward RNN over x_1..x_n, a
 * backward one over x_n..x_1, and h_j = [forward h_j ; backward h_j]. Returns h (n x 2*dHalf).
 */
export function bidirectionalStates(ap, { x, n, dIn, dHalf, seed }) {
  const fwd = rnnStates(ap, { x, n, dIn, dHidden: dHalf, seed });
  const bwd = rnnStates(ap, { x: reverseRows(x, n, dIn), n, dIn, dHidden: dHalf, seed: seed + 1 });
  return concatCols(fwd.h, reverseRows(bwd.h, n, dHalf), n, dHalf, dHalf);
}

// ---- pictures ---------------------------------------------------------------------------

const NS = 'http://www.w3.org/2000/svg';
function s(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'style') for (const [p, val] of Object.entries(v)) node.style.setProperty(p, val);
    else node.setAttribute(k, String(v));
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

const SUB = '₀₁₂₃₄₅₆₇₈₉';
const sub = (i) => String(i).replace(/\d/g, (c) => SUB[c]);
const short = (label, k = 9) => (label.length > k ? `${label.slice(0, k - 1)}…` : label);

/** An arrow from (x1, y1) to (x2, y2) in `color` (a CSS value). */
function arrow(x1, y1, x2, y2, color, { width = 1.6, dash = '' } = {}) {
  const g = s('g');
  const a = Math.atan2(y2 - y1, x2 - x1),
    L = 7;
  const bx = x2 - L * Math.cos(a),
    by = y2 - L * Math.sin(a);
  g.append(
    s('line', { x1, y1, x2: bx, y2: by, 'stroke-width': width, 'stroke-dasharray': dash, style: { stroke: color } }),
  );
  g.append(
    s('polygon', {
      points: `${x2},${y2} ${bx + 4 * Math.sin(a)},${by - 4 * Math.cos(a)} ${bx - 4 * Math.sin(a)},${by + 4 * Math.cos(a)}`,
      style: { fill: color },
    }),
  );
  return g;
}

function box(x, y, w, h, label, { stroke, fill = 'var(--_panel)', dash = '', bold = false, opacity = 1 } = {}) {
  const g = s('g', { opacity });
  g.append(
    s('rect', {
      x,
      y,
      width: w,
      height: h,
      rx: 6,
      'stroke-width': bold ? 2.5 : 1.2,
      'stroke-dasharray': dash,
      style: { stroke, fill },
    }),
  );
  g.append(
    s(
      'text',
      {
        x: x + w / 2,
        y: y + h / 2 + 4,
        'text-anchor': 'middle',
        'font-size': 12,
        'font-weight': bold ? 700 : 400,
        style: { fill: 'var(--_fg)', 'font-family': 'var(--_mono)' },
      },
      label,
    ),
  );
  return g;
}

// Both pictures share their columns, so a token's box in one sits above its box in the other.
// The columns are 92 px wide; where that is wider than the box the pictures sit in but columns of
// at least 60 px fit, they narrow to fit (a short text on a phone), its boxes and labels with them.
const WIDE = { col: 92, left: 70, tok: 80, hBox: 60, h0: 50, chars: 9 };
const NARROW_LEFT = 52,
  MIN_COL = 60;

/**
 * The columns of the two pictures of n tokens in a box `width` px wide (0: not known yet):
 * { col, left, tok (token box width), hBox (state box width), h0 (h_0 box width), chars (a token's
 * label is cut past these), width (the picture's), colX(i) (column i's centre) }.
 */
export function columnsFor(n, width = 0) {
  let g = WIDE;
  if (width > 0 && WIDE.left + n * WIDE.col + 8 > width) {
    const col = Math.floor((width - NARROW_LEFT - 8) / n);
    if (col >= MIN_COL)
      g = {
        col,
        left: NARROW_LEFT,
        tok: col - 10,
        hBox: Math.min(60, col - 16),
        h0: 38,
        chars: Math.floor((col - 18) / 7.2),
      };
  }
  // A picture wider than its box scrolls to whole columns (scrollToColumn): room after the last
  // column so that the last ones, too, can sit whole in view with none cut on the left.
  let pad = 8;
  if (width > 0 && g.left + n * g.col + pad > width) pad = Math.max(pad, width - Math.floor(width / g.col) * g.col);
  return { ...g, width: g.left + n * g.col + pad, colX: (i) => g.left + i * g.col + g.col / 2 };
}

function svgFor(g, height, label, cls) {
  const width = g.width;
  const svg = s('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    class: cls,
    'aria-label': label,
  });
  svg.style.maxWidth = 'none';
  svg.style.display = 'block';
  return svg;
}

/**
 * Scrolls a horizontally scrolling box holding a picture of columns `g` (columnsFor) at the next
 * frame, so that token `t` (1-based) is whole in view and, when they fit together, the first token
 * too (the summary names both): from the start, else with whole boxes only, token t at the right.
 * Widths are read when the browser lays the page out anyway, not forced right after the drawing
 * changed (on a phone each forced layout of a chapter took about 100 ms).
 */
export function scrollToColumn(box, g, t) {
  requestAnimationFrame(() => {
    const w = box.clientWidth;
    if (!w) return;
    if (g.left + t * g.col <= w) {
      box.scrollLeft = 0; // the first token and token t together, from the start
      return;
    }
    const hidden = Math.max(0, t - Math.max(1, Math.floor(w / g.col))); // whole columns left of the view
    box.scrollLeft = g.left + hidden * g.col - 3;
  });
}

/**
 * The RNN as a chain: x_t below, h_t above, h_{t-1} -> h_t to the right, from h_0 = 0.
 * Steps before t are done, t is the current one, later steps are still waiting (dashed).
 */
export function chainSvg({ labels, t, width = 0 }) {
  const n = labels.length;
  const g0 = columnsFor(n, width);
  const { col, tok, hBox, colX } = g0;
  const svg = svgFor(g0, 150, `RNN chain over ${n} tokens, step ${t} of ${n}`, 'rnn-chain');
  const muted = 'var(--_muted)',
    accent = 'var(--_accent)',
    fg = 'var(--_fg)';
  svg.append(box(8, 32, g0.h0, 30, g0.h0 < 50 ? 'h₀' : 'h₀=0', { stroke: muted }));
  for (let i = 0; i < n; i++) {
    const cx = colX(i);
    const state = i + 1 < t ? 'done' : i + 1 === t ? 'current' : 'waiting';
    const stroke = state === 'current' ? accent : state === 'done' ? fg : muted;
    const dash = state === 'waiting' ? '4 3' : '';
    const opacity = state === 'waiting' ? 0.55 : 1;
    const g = s('g', { 'data-step': i + 1, 'data-state': state });
    g.append(
      box(cx - hBox / 2, 32, hBox, 30, `h${sub(i + 1)}`, {
        stroke,
        dash,
        bold: state === 'current',
        opacity,
        fill: state === 'current' ? 'var(--_accent-bg)' : 'var(--_panel)',
      }),
    );
    g.append(box(cx - tok / 2, 110, tok, 26, short(labels[i], g0.chars), { stroke, dash, opacity }));
    g.append(
      s('text', { x: cx, y: 148, 'text-anchor': 'middle', 'font-size': 10, style: { fill: muted } }, `x${sub(i + 1)}`),
    );
    g.append(arrow(cx, 110, cx, 63, stroke, { dash }));
    const from = i === 0 ? 8 + g0.h0 : cx - col + hBox / 2;
    g.append(arrow(from, 47, cx - hBox / 2 - 1, 47, stroke, { dash, width: state === 'current' ? 2.4 : 1.6 }));
    if (state === 'current')
      g.append(
        s('text', { x: cx, y: 22, 'text-anchor': 'middle', 'font-size': 11, style: { fill: accent } }, `step ${t}`),
      );
    svg.append(g);
  }
  return svg;
}

/** At most this many arcs: past it they merge into one band (a long text reads 80 tokens and more). */
export const MAX_ARCS = 16;

/**
 * Which keys of a weights row get an arc: every key with a weight when there are at most `maxArcs`,
 * else the first token (the farthest hop) and the `maxArcs` - 1 keys nearest token t, the ones in
 * view where the picture scrolls to t. { drawn: [j, ...] in key order, keys: keys with a weight,
 * rest: keys without an arc, restWeight: their weights' sum }.
 */
export function hopsPlan(weights, t, maxArcs = MAX_ARCS) {
  const keys = [];
  for (let j = 0; j < weights.length; j++) if (weights[j] > 0) keys.push(j);
  const near = [...keys].sort((a, b) => Math.abs(a - (t - 1)) - Math.abs(b - (t - 1)) || a - b);
  const first = keys.length > maxArcs && keys[0] === 0 ? [0] : [];
  const drawn = [...first, ...near.filter((j) => !first.includes(j)).slice(0, maxArcs - first.length)].sort(
    (a, b) => a - b,
  );
  const on = new Set(drawn);
  let restWeight = 0;
  for (const j of keys) if (!on.has(j)) restWeight += weights[j];
  return { drawn, keys: keys.length, rest: keys.length - drawn.length, restWeight };
}

/**
 * Self-attention from token `t` (1-based): arcs to the keys hopsPlan picks, each as thick as its
 * weight weights[j] (the core's softmax row), and every weight written under its token. Masked
 * (future) keys have weight 0 and get neither.
 */
export function hopsSvg({ labels, weights, t, maxArcs = MAX_ARCS, width = 0 }) {
  const n = labels.length,
    base = 136,
    top = 8;
  const g = columnsFor(n, width);
  const { colX, tok } = g;
  const svg = svgFor(g, base + 46, `Self-attention from token ${t}: one hop to each of ${n} tokens`, 'attn-hops');
  const q = colX(t - 1);
  const plan = hopsPlan(weights, t, maxArcs);
  let max = 0;
  for (const w of weights) if (w > max) max = w;
  let far = 1; // the farthest drawn key sets the tallest arc
  for (const j of plan.drawn) far = Math.max(far, Math.abs(j - (t - 1)));
  for (const j of plan.drawn) {
    const w = weights[j];
    const x = colX(j),
      dist = Math.abs(j - (t - 1));
    const rel = max > 0 ? w / max : 0;
    const style = { stroke: 'var(--_accent)', fill: 'none', opacity: String(0.3 + 0.7 * rel) };
    let path;
    if (dist === 0) {
      // a small loop: the token attends to itself
      path = `M ${x - 12} ${base} C ${x - 30} ${base - 40}, ${x + 30} ${base - 40}, ${x + 12} ${base}`;
    } else {
      // higher arcs for farther tokens; the apex of a quadratic curve is at half the control height
      const h = 48 + (base - top - 58) * (far > 1 ? (dist - 1) / (far - 1) : 0);
      path = `M ${q + (j < t - 1 ? -14 : 14)} ${base} Q ${(q + x) / 2} ${base - 2 * h} ${x} ${base}`;
    }
    svg.append(s('path', { d: path, 'stroke-width': 1 + 6 * rel, style, 'data-key': j, 'data-weight': String(w) }));
  }
  for (let j = 0; j < n; j++) {
    const x = colX(j);
    const cur = j === t - 1;
    svg.append(
      box(x - tok / 2, base, tok, 26, short(labels[j], g.chars), {
        stroke: cur ? 'var(--_accent)' : 'var(--_fg)',
        bold: cur,
        fill: cur ? 'var(--_accent-bg)' : 'var(--_panel)',
      }),
    );
    // The weight under its own token: a label never drifts away from the key it belongs to.
    if (weights[j] > 0)
      svg.append(
        s(
          'text',
          {
            x,
            y: base + 40,
            'text-anchor': 'middle',
            'font-size': 11,
            style: { fill: 'var(--_fg)' },
            'data-weight-of': j,
          },
          fmt(weights[j], 2),
        ),
      );
  }
  svg.dataset.arcs = String(plan.drawn.length);
  svg.dataset.rest = String(plan.rest);
  return svg;
}

/** A stepper over t = 1..n: ◀, a slider, ▶ and a label; onChange(t). */
export function stepControls(label, onChange) {
  const range = el('input', {
    type: 'range',
    min: 1,
    max: 1,
    step: 1,
    value: 1,
    attrs: { 'aria-label': label },
    on: { input: () => onChange(Number(range.value)) },
  });
  const prev = el('button', {
    type: 'button',
    className: 'small',
    text: '◀',
    attrs: { 'aria-label': 'previous step' },
    on: { click: () => onChange(Number(range.value) - 1) },
  });
  const next = el('button', {
    type: 'button',
    className: 'small',
    text: '▶',
    attrs: { 'aria-label': 'next step' },
    on: { click: () => onChange(Number(range.value) + 1) },
  });
  const out = el('span', { className: 'mono' });
  const node = el(
    'div',
    { className: 'controls' },
    el('label', { className: 'field inline' }, el('span', { text: label }), prev, range, next),
    out,
  );
  return {
    node,
    out,
    set(t, n) {
      range.max = String(n);
      range.value = String(t);
      prev.disabled = t <= 1;
      next.disabled = t >= n;
    },
  };
}

/** The step `t` (1-based) a view shows: its attribute, clamped to 1..n, default n. */
export function stepOf(widget, n, name = 't') {
  return widget.numberAttribute(name, { min: 1, max: n, integer: true }, n);
}

/**
 * ‖(W_hhᵀ)^k‖₂ for k = 0..K: what the gradient norm k steps back would be with W_hh alone (no
 * tanh slope), for whh (dHidden x dHidden, row-major). The largest singular value, by power
 * iteration on AᵀA, as the core reports ‖∂h_T/∂h_t‖.
 */
export function powerNorms(whh, dHidden, K) {
  const d = dHidden;
  let a = new Float64Array(d * d);
  for (let i = 0; i < d; i++) a[i * d + i] = 1;
  const out = [1];
  for (let k = 1; k <= K; k++) {
    const next = new Float64Array(d * d); // next = a · W_hhᵀ
    for (let i = 0; i < d; i++)
      for (let j = 0; j < d; j++) {
        let s = 0;
        for (let m = 0; m < d; m++) s += a[i * d + m] * whh[j * d + m];
        next[i * d + j] = s;
      }
    a = next;
    out.push(largestSingular(a, d));
  }
  return out;
}

function largestSingular(a, d) {
  let v = Array.from({ length: d }, (_, i) => 1 + i / d);
  let sigma = 0;
  for (let it = 0; it < 200; it++) {
    const av = Array.from({ length: d }, (_, r) => v.reduce((s, x, c) => s + a[r * d + c] * x, 0));
    const atav = Array.from({ length: d }, (_, c) => av.reduce((s, x, r) => s + a[r * d + c] * x, 0));
    const norm = Math.hypot(...atav);
    if (norm === 0) return 0;
    sigma = Math.sqrt(norm / Math.hypot(...v));
    v = atav.map((x) => x / norm);
  }
  return sigma;
}

/** 31 -> ³¹ */
const sup = (k) => String(k).replace(/\d/g, (c) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[c]);

/**
 * The sentences under rnn-vanishing's plot, from the plotted norms: grad[i] = ‖∂h_T/∂h_(i+1)‖
 * (the core's order: the first token first), ref the same at ρ = 1, alone[k] = ‖(W_hhᵀ)^k‖₂ of
 * the ρ = 1 W_hh (powerNorms), slope the ρ = 1 states' mean tanh slope 1 − h². `value` formats a
 * norm. Returns { trend, perStep, lead, verdict, shape, tanh, refPerStep, named } (named: the steps
 * back whose norms lead and shape name).
 */
export function vanishingWords({ grad, ref, alone, radius, T, slope, value = (v) => fmt(v, 3) }) {
  const K = T - 1;
  const back = (g) => Array.from({ length: T }, (_, k) => g[T - 1 - k]); // index = steps back
  const cur = back(grad),
    one = back(ref);
  const where = (k) =>
    k === K ? `at ${k} ${k === 1 ? 'step' : 'steps'} back (the first token)` : `at ${k} steps back`;
  const trendOf = (p, end) =>
    p < 0.97 ? (end < 1e-2 ? 'all but vanished' : 'fading') : p > 1.03 ? 'growing' : 'about level';
  const perStep = Math.pow(cur[K] / cur[0], 1 / K);
  const trend = trendOf(perStep, cur[K]);
  const moves = K >= 2 ? curveMoves(cur) : [];
  const shape = K >= 2 ? `Along the curve, from 1 at distance 0 it ${movesText(cur, moves, value, where)}.` : '';
  const refPerStep = Math.pow(one[K] / one[0], 1 / K);
  const grey = radius === 1 ? 'This curve is' : 'The grey curve is';
  const refShape = radius === 1 || K < 2 ? '' : ` From 1 it ${movesText(one, curveMoves(one), value, where)}.`;
  const ratio = one[K] / alone[K];
  const tanhPart =
    ratio < 1
      ? `With tanh's slope diag(1 − h²) at every step, below 1 wherever a state is not 0, it is ${value(one[K])}, ×${value(ratio)} of that: the slopes are the whole difference.`
      : `With tanh's slope diag(1 − h²) at every step it is ${value(one[K])}: on this input the slopes do not take it below W_hh alone.`;
  const tanh = `${grey} the same RNN with ρ = 1, where W_hh alone no longer shrinks every direction.${refShape} W_hh alone, ${K} times over, would give ‖(W_hhᵀ)${sup(K)}‖ = ${value(alone[K])} at ${K} steps back. ${tanhPart} On this input the states' mean slope 1 − h² is ${fmt(slope, 2)}; the closer a state is to ±1 (tanh saturating), the smaller its slope.`;
  return {
    trend,
    perStep,
    refPerStep,
    lead: `With ρ = ${fmt(radius, 2)}, the gradient from ${K} steps back (the first token) has norm ${value(cur[K])}, on average ×${fmt(perStep, 2)} per step: `,
    verdict: {
      'all but vanished': 'it has all but vanished.',
      fading: 'it is fading.',
      growing: 'it has grown: the RNN is not contractive here.',
      'about level': 'it has neither faded nor grown much.',
    }[trend],
    shape,
    tanh,
    // The distances (steps back) whose values the lead and the shape name: the view's table shows them.
    named: [...new Set([K, ...namedPoints(cur, moves)])],
  };
}
