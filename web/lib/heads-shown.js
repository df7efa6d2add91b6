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
