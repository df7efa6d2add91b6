// Attention as a lookup, for the views that switch the score function g(q, k) (soft-lookup,
// general-form): the three score functions with their formulas and a switch between them, the
// queries, keys and values of one head of a run, and the core's lookup with its stages copied out.
import { el } from './dom.js';
import { stepView } from './steps/index.js';

/** The score functions the core knows (ap.lookup score), in the order of the switch. */
export const SCORE_FNS = {
  dot: { label: 'dot product', tex: 'e_{ij} = q_i \\cdot k_j' },
  scaled: { label: 'scaled dot product', tex: 'e_{ij} = \\frac{q_i \\cdot k_j}{\\sqrt{d_k}}' },
  additive: {
    label: 'additive (Bahdanau)',
    tex: 'e_{ij} = v^\\top \\tanh(W_q q_i + W_k k_j)',
    // The core draws W_q, W_k and v (seeded, cpp/core/additive.cpp): no model here learned them.
    note: "W_q, W_k and v are random weights here (seeded), not learned: the page's models use dot-product attention and have no additive weights. These scores show how the additive form compares a query with each key; only Bahdanau's translator (chapter A) has learned ones.",
  },
};

/** The line under the formula for score function `score` ('' when there is nothing to say). */
export function scoreNote(score) {
  return SCORE_FNS[score]?.note || '';
}

/** A score function name from an attribute value (default 'scaled'). */
export function scoreOf(value, fallback = 'scaled') {
  return Object.hasOwn(SCORE_FNS, value ?? '') ? value : fallback;
}

/** A segmented switch of the score functions; onPick(name). set(name) marks the current one. */
export function scoreSwitch(onPick) {
  const buttons = Object.entries(SCORE_FNS).map(([g, f]) =>
    el('button', {
      type: 'button',
      text: f.label,
      dataset: { score: g },
      on: { click: () => onPick(g) },
    }),
  );
  const node = el('span', { className: 'seg', attrs: { role: 'group', 'aria-label': 'Score function g' } }, ...buttons);
  return {
    node,
    set(score) {
      for (const b of buttons) b.setAttribute('aria-pressed', String(b.dataset.score === score));
    },
  };
}

/** Queries, keys and values (matrices of lib/heatmap.js) of one head of a run. */
export function headQKV(run, { layer, head }) {
  const [Q, K] = stepView(run, 'scores', { layer, head }).view.inputs;
  const V = stepView(run, 'head_out', { layer, head }).view.inputs[1];
  return { Q, K, V };
}

/**
 * The core's lookup of Q against K, V: { scores, masked, weights, out } (copies; the trace is
 * freed). causal: keys after each query masked (a decoder's head); masked is null otherwise.
 */
export function lookupStages(ap, { Q, K, V, score, hard = false, causal = false }) {
  const t = ap.lookup({
    q: Q.values,
    k: K.values,
    v: V.values,
    n: Q.rows,
    m: K.rows,
    d: Q.cols,
    dV: V.cols,
    score,
    hard,
    causal,
  });
  try {
    return {
      scores: t.get('scores'),
      masked: causal ? t.get('masked') : null,
      weights: t.get('weights'),
      out: t.get('out'),
    };
  } finally {
    t.dispose();
  }
}
