// <ap-rope> (rope): rotary position embedding rotates each pair of dimensions of q and k by an
// angle proportional to the position, so q_i . k_j depends only on the offset j - i. Shown
// numerically: the same token repeated, run by the core with RoPE, gives scores that are
// constant along every diagonal; with sinusoidal positions added to X they are not.
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt } from '../lib/dom.js';
import { StepPanel, headFor, numsTable, withEntry } from '../lib/view.js';
import { randomKey } from '../lib/models.js';
import { modelKeyOf } from '../lib/state.js';
import { runIds } from '../lib/runs.js';
import { stepView } from '../lib/steps/index.js';

const N = 8;

function diagonals(S) {
  const out = [];
  for (let off = -(S.rows - 1); off <= S.cols - 1; off++) {
    let lo = Infinity,
      hi = -Infinity;
    for (let i = 0; i < S.rows; i++) {
      const j = i + off;
      if (j < 0 || j >= S.cols) continue;
      const v = S.values[i * S.cols + j];
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    out.push({ off, lo, hi });
  }
  return out;
}

export class ApRope extends ApWidget {
  static concept = 'rope';

  build() {
    this.text = el('p', { className: 'panel mono' });
    this.weights = el('p', { className: 'note weights-line' });
    this.maps = el('div', { className: 'col2' });
    this.table = el('div');
    this.verdict = el('p', { className: 'changed' });
    this.rot = new StepPanel();
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'RoPE does not add anything to X. It rotates every pair of dimensions of each query and key by an angle m·θ_i that grows with the position m. A dot product of two rotated vectors only sees the difference of their angles: the score depends on the offset j − i, not on where the pair sits.',
      }),
      this.weights,
      this.text,
      this.verdict,
      this.maps,
      this.table,
      el('h4', { text: 'The rotation of Q' }),
      this.rot.node,
    );
  }

  compute(state) {
    const key = randomKey({
      arch: 'decoder',
      tokenizer: 'word',
      seed: state.seed,
      dModel: state.dmodel,
      nHeads: 2,
      nLayers: 1,
      pos: 'rope',
    });
    return withEntry(key, (entry) => {
      const id = entry.model.tokenizer.encode('the').ids[0];
      const ids = new Int32Array(N).fill(id);
      const labels = Array.from({ length: N }, (_, i) => `the@${i}`);
      return {
        entry,
        pageModel: state.preset ? '' : state.model,
        pageKey: state.preset ? '' : modelKeyOf(state),
        rope: runIds(entry, ids, { pos: 'rope', causal: false }, labels),
        sin: runIds(entry, ids, { pos: 'sinusoidal', causal: false }, labels),
      };
    });
  }

  render({ entry, pageModel, pageKey, rope, sin }, state) {
    const head = headFor(rope, state);
    // Which weights these are, from the model's own config (the core's) and how it was made.
    const c = entry.model.config;
    const made = entry.kind === 'random' ? `random (seed ${entry.spec.seed})` : `trained (${entry.name})`;
    const page =
      pageKey === entry.key
        ? "the page's model"
        : `a model made for this view, not the page's model${pageModel ? ` ("${pageModel}")` : ''}`;
    this.weights.textContent = `Weights: ${page}, ${made}: a ${c.arch} of ${c.nLayers} layer${c.nLayers > 1 ? 's' : ''} × ${c.nHeads} heads, d_model ${c.dModel} (d_k = ${c.dModel / c.nHeads}), built with ${c.pos === 'rope' ? 'RoPE' : c.pos} positions and run here without its causal mask. The maps show layer 0, head ${head} of ${rope.config.nHeads}; the sinusoidal map runs the same weights with sinusoidal positions added to X instead of the rotation.`;
    this.dataset.weights = `${entry.kind}:${c.nLayers}x${c.nHeads}:${c.dModel}:layer0:head${head}`;
    this.text.textContent = `input: "the" repeated ${N} times (token i sits at position i)`;
    const S = stepView(rope, 'scores', { layer: 0, head }).view.output;
    const T = stepView(sin, 'scores', { layer: 0, head }).view.output;
    S.title = `scores with RoPE (head ${head})`;
    T.title = `scores with sinusoidal positions added (head ${head})`;
    this.place(this.maps, this.hm('rope', S, { 'max-cell': '34' }), this.hm('sin', T, { 'max-cell': '34' }));
    const a = diagonals(S),
      b = diagonals(T);
    const spreadA = Math.max(...a.map((x) => x.hi - x.lo)),
      spreadB = Math.max(...b.map((x) => x.hi - x.lo));
    this.verdict.textContent = `Along each diagonal (fixed j − i) the RoPE scores vary by at most ${spreadA.toExponential(1)}; with added sinusoidal positions they vary by up to ${fmt(spreadB, 3)}.`;
    this.dataset.ropeSpread = String(spreadA);
    this.dataset.sinSpread = String(spreadB);
    this.table.replaceChildren(
      numsTable({
        caption: 'Each diagonal j − i: smallest and largest score on it (RoPE | sinusoidal)',
        header: ['j − i', 'RoPE min', 'RoPE max', 'sin. min', 'sin. max'],
        rows: a.map((x, k) => [String(x.off), fmt(x.lo, 4), fmt(x.hi, 4), fmt(b[k].lo, 4), fmt(b[k].hi, 4)]),
      }),
    );
    this.rot.show(stepView(rope, 'q_rot', { layer: 0 }).view, { slot: 'r' });
  }
}

define(ApRope);
