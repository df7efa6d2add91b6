// Which run's heads a view shows while it draws (one head's results, or every head's): marked by
// view.js headFor and by the build of a per-head step (steps/index.js), read by the widget base
// (widget.js), which then says so when those heads are not the ones the model was trained with.
let shown = null;

/** The view drawing now shows heads of `run`. */
export function showHeads(run) {
  shown = run;
}

/** Calls draw() and returns the run whose heads it showed (null: none). */
export function headsShownBy(draw) {
  shown = null;
  try {
    draw();
    return shown;
  } finally {
    shown = null;
  }
}

/**
 * Heads the heads switch cut from weights trained with another number of heads: { trained, now,
 * dModel } from the model's own config (its file's metadata, read by the core) and the config the
 * core applied the run's switches to; null for a run whose heads are the model's own (or random
 * weights, where no head learned anything either way).
 */
export function reslicedHeads(run) {
  if (run?.kind !== 'model' || !run.model?.config || !run.entry || run.entry.kind === 'random') return null;
  const trained = run.model.config.nHeads,
    now = run.config.nHeads;
  return trained === now ? null : { trained, now, dModel: run.config.dModel };
}

/** The line a view showing re-sliced heads says first. */
export function reslicedLine({ trained, now, dModel }) {
  return `Re-sliced heads: this model was trained with ${trained} heads of d_k = ${dModel / trained}. The heads switch cuts its learned W_Q, W_K and W_V into ${now} slices of ${dModel / now} columns instead, heads it never had: each head here computes real numbers on its slice, but it is not one of the model's heads and its pattern was never learned.`;
}

// The switches besides heads that run a model's learned weights in a way it was never trained:
// each [config key, what the run does now, given the trained and the current values].
const UNTRAINED = [
  ['norm', (t, n) => `${n}-norm (trained ${t}-norm)`],
  ['normKind', (t, n) => `${NORM_NAMES[n] || n} (trained with ${NORM_NAMES[t] || t})`],
  ['ffnKind', (t, n) => `a ${n} feed-forward network (trained with ${t})`],
  ['nKvHeads', (t, n) => `${n} K/V head${n === 1 ? '' : 's'} shared by the query heads (trained with ${t})`],
  ['scale', (t, n) => (n ? 'scores divided by √d_k (trained without)' : 'no division by √d_k (trained dividing)')],
  ['causal', (t, n) => (n ? 'the causal mask on (trained without it)' : 'the causal mask off (trained with it)')],
  ['window', (t, n) => (n ? `a window of ${n} tokens (trained with ${t || 'every earlier token'})` : 'no window')],
  ['pos', (t, n) => `${n} positions (trained with ${t})`],
];
const NORM_NAMES = { layernorm: 'LayerNorm', rmsnorm: 'RMSNorm' };

/**
 * What the page's switches changed in how a trained model runs (other than its heads, which
 * reslicedHeads covers): phrases from the model's own config (its file, read by the core) against
 * the config the core applied the switches to; [] for a run as trained, a preset or random weights.
 */
export function untrainedSwitches(run) {
  if (run?.kind !== 'model' || !run.model?.config || !run.entry || run.entry.kind === 'random') return [];
  const trained = run.model.config,
    now = run.config;
  return UNTRAINED.filter(([k]) => k in trained && k in now && trained[k] !== now[k]).map(([k, say]) =>
    say(trained[k], now[k]),
  );
}

/** The line every view of a model run with such switches says first. */
export function untrainedLine(changes) {
  return `Not as trained: ${changes.join('; ')}. The core computes every number here for real, but this model never learned to work this way: its numbers are not what it learned.`;
}
