// What every step maker reads: the run (a trace and its model) as matrices ready to draw, and the
// small numeric helpers of the steps' "what changed" lines. The makers live beside the core file
// that computes their stages (embed.js, attention.js, block.js, output.js; additive.js for
// Bahdanau's additive attention); index.js lists them as steps.
import { matrix } from '../heatmap.js';
import { fmt, tokenText } from '../dom.js';

export const f = (v) => fmt(v, 3);

export function range(values) {
  let lo = Infinity,
    hi = -Infinity;
  for (const v of values) {
    if (Number.isFinite(v)) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return lo === Infinity ? [0, 0] : [lo, hi];
}

export function meanAbs(values) {
  let s = 0;
  for (const v of values) s += Math.abs(v);
  return values.length ? s / values.length : 0;
}

/** Everything a step needs to know about the run it comes from. */
export class Ctx {
  constructor(run) {
    this.run = run;
    this.c = run.config;
    this.pre = run.config.norm === 'pre';
    this.encdec = run.config.arch === 'encoder-decoder';
  }
  labels(stack) {
    return Array.from(this.run.labels(stack), tokenText);
  }
  flags(stack) {
    return this.run.flags(stack);
  }
  /** Whether stage `name` has one slice per head, as the trace says (Stage.perHead). */
  perHead(name) {
    if (!this._perHead)
      this._perHead = new Set(
        this.run
          .stages()
          .filter((s) => s.perHead)
          .map((s) => s.name),
      );
    return this._perHead.has(name);
  }
  /**
   * A stage as a matrix; per-head stages sliced to `head`. keyStack: the stack whose positions
   * are its columns, given for a stage of attention scores or weights (queries × keys).
   */
  m(name, { stack, layer = null, head = null, title, kind, colLabels, rowLabels, keyStack } = {}) {
    const opts = { stack, layer: layer ?? undefined };
    if (head !== null && this.perHead(name)) opts.head = head;
    const shape = this.run.shape(name, opts);
    const values = this.run.get(name, opts);
    const rows = shape.length === 1 ? 1 : shape[0];
    const cols = shape.length === 1 ? shape[0] : shape[shape.length - 1];
    const isAttn = keyStack !== undefined;
    const keyLabels = this.labels(keyStack ?? stack);
    // Weights whose score was masked (-inf) are marked, so a masked 0 never looks like a learned 0.
    let masked = null;
    if (/weights$/.test(name)) {
      const mv = this.run.get(name.replace('weights', 'masked'), opts);
      masked = new Uint8Array(mv.length);
      let any = false;
      for (let k = 0; k < mv.length; k++)
        if (mv[k] === -Infinity) {
          masked[k] = 1;
          any = true;
        }
      if (!any) masked = null;
    }
    return matrix({
      name,
      title: title || name,
      values,
      rows,
      cols,
      rowLabels: rowLabels !== undefined ? rowLabels : name === 'tokens' ? ['id'] : this.labels(stack).slice(0, rows),
      colLabels:
        colLabels !== undefined
          ? colLabels
          : name === 'tokens'
            ? this.labels(stack)
            : isAttn
              ? keyLabels.slice(0, cols)
              : null,
      rowFlags: name === 'tokens' ? null : this.flags(stack),
      colFlags: name === 'tokens' || isAttn ? this.flags(keyStack ?? stack) : null,
      kind: kind || (name === 'tokens' ? 'ids' : /weights|probs/.test(name) ? 'prob' : 'div'),
      rowAxis: isAttn ? 'queries' : 'tokens',
      colAxis: isAttn ? 'keys' : 'dimensions',
      corner: isAttn ? 'q \\ k' : '',
      masked,
    });
  }
  /** A weight tensor as a matrix (2-D), or a bias as a 1-row matrix; null if absent. */
  w(name, title, { rowLabels = null } = {}) {
    const t = this.run.tensor(name);
    if (!t) return null;
    const rows = t.shape.length === 1 ? 1 : t.shape[0];
    const cols = t.shape[t.shape.length - 1];
    return {
      ...matrix({
        name,
        title,
        values: t.data,
        rows,
        cols,
        rowLabels: rowLabels || (rows === 1 ? [''] : null),
        colLabels: null,
        kind: 'div',
      }),
      weight: true,
    };
  }
  /** Name prefix of a layer's tensors: "decoder.0." ('' for presets). */
  p(stack, layer) {
    return this.run.kind === 'model' ? `${stack}.${layer}.` : '';
  }
  wName(stack, layer, sub, w) {
    if (this.run.kind !== 'model') return w; // preset tensors: wq, wk, wv, wo
    return `${stack}.${layer}.${sub}.${w}`;
  }
  has(name, stack, layer) {
    return this.run.stages().some((s) => s.name === name && s.stack === stack && s.layer === layer);
  }
  /** The input of layer `layer` of `stack`: x, or the stage the core marks as the previous block's output. */
  layerInput(stack, layer) {
    if (layer === 0 || layer === null) return { name: 'x', layer: null, tex: 'X' };
    return { name: this.run.blockOutput(layer - 1, stack), layer: layer - 1, tex: `X^{(${layer})}` };
  }
  /** A stack's final output (what logits or cross-attention read), as the trace marks it. */
  stackOutput(stack) {
    return this.run.stackOutput(stack);
  }
}
