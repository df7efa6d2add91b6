// <ap-head-cost> (head-cost): h heads of size d/h cost about as much as one head of size d.
// The FLOPs of each part are counted by the core (ap.flops: matrix products, one multiply-add =
// 2 FLOPs) for both layouts, and the page can time the core's attention kernel on both.
//
// Attributes: n (tokens, a power of two 16..1024, default 128), d (32..1024, default 512),
// h (heads, a power of two up to d, default 8), hide="measure".
// Example: <ap-head-cost n="256" d="512" h="8"></ap-head-cost>
import { ApWidget, define } from '../lib/widget.js';
import { el, flopText, fmt, rangeField } from '../lib/dom.js';
import { numsTable } from '../lib/view.js';
import { getPlayground, playgroundNow } from '../lib/module.js';
import { normals } from '../lib/random.js';
import { tex } from '../lib/katex.js';

const RANGES = { n: [4, 10], d: [5, 10], h: [0, 5] }; // log2
const exact = (x) => x.toLocaleString('en-US');

export class ApHeadCost extends ApWidget {
  static ownInput =
    'This view does not read the text at the top: it counts the cost of attention for the sizes n, d and h you set here.';
  static concept = 'head-cost';
  static extraAttributes = ['n', 'd', 'h'];
  static textInput = false;

  build() {
    const slider = (label, range, value) => rangeField(label, range, value, () => this.update());
    this.n = slider('n (tokens)', RANGES.n, 7);
    this.d = slider('d', RANGES.d, 9);
    this.h = slider('h (heads)', RANGES.h, 3);
    this.applied = null;
    this.table = el('div');
    this.summary = el('p', { className: 'panel' });
    this.measure = el('button', { type: 'button', text: 'Time the wasm kernel', on: { click: () => this._measure() } });
    this.timing = el('p', { className: 'note', attrs: { 'aria-live': 'polite' } });
    this.measureBox = el('div', {}, el('div', { className: 'controls' }, this.measure), this.timing);
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Each head works in a smaller subspace d_k = d / h, so the total cost is similar to one full-size head (notes 000). Even though we compute h many attention heads, it’s not more costly: we compute XW_Q, reshape it and transpose it; now the head axis is like a batch axis (002).',
      }),
      tex(
        'XW_Q \\in \\mathbb{R}^{n\\times d} \\;\\to\\; \\mathbb{R}^{n\\times h\\times d/h} \\;\\to\\; \\mathbb{R}^{h\\times n\\times d/h}',
        { display: true },
      ),
      el('div', { className: 'controls' }, this.n.node, this.d.node, this.h.node),
      this.summary,
      this.table,
      this.measureBox,
    );
  }

  compute() {
    return playgroundNow() || getPlayground();
  }

  renderKey(state) {
    return `${super.renderKey(state)}|${this.n.input.value}|${this.d.input.value}|${this.h.input.value}`;
  }

  _sizes() {
    const n = 2 ** Number(this.n.input.value),
      d = 2 ** Number(this.d.input.value);
    const h = Math.min(2 ** Number(this.h.input.value), d);
    return { n, d, h, dK: d / h };
  }

  render(ap) {
    const key = ['n', 'd', 'h'].map((a) => this.getAttribute(a)).join('|');
    if (key !== this.applied) {
      this.applied = key;
      // Each a power of two within its slider's range (RANGES, log2).
      for (const a of ['n', 'd', 'h']) {
        const [lo, hi] = RANGES[a];
        const v = this.numberAttribute(a, { min: 2 ** lo, max: 2 ** hi, power2: true }, 2 ** this[a].input.value);
        this[a].input.value = Math.log2(v);
      }
    }
    this.measureBox.hidden = this.hides('measure');
    const { n, d, h, dK } = this._sizes();
    this.n.out.textContent = String(n);
    this.d.out.textContent = String(d);
    this.h.out.textContent = `${h} (d_k = ${dK})`;
    const f = ap.flops({ n, d, h });
    const a = f.attention,
      b = f.singleHead;
    const cell = (x) => ({ text: flopText(x), data: { value: String(x) } });
    this.table.replaceChildren(
      numsTable({
        caption: `Counted by the core: one attention layer, n = ${n}, d = ${d} (one multiply-add = ${f.flopsPerMultiplyAdd} FLOPs)`,
        header: ['FLOPs of', `${h} heads of d_k = ${dK}`, `1 head of d_k = ${d}`],
        rows: [
          ['scores QKᵀ: 2 · h · n · n · d_k', cell(a.scores), cell(b.scores)],
          ['weighted sum AV: 2 · h · n · n · d_k', cell(a.weightedSum), cell(b.weightedSum)],
          ['projections W_Q, W_K, W_V, W_O: 2 · 4 · n · d · d', cell(a.projections), cell(b.projections)],
          [{ text: 'total' }, { ...cell(a.total), className: 'hl' }, { ...cell(b.total), className: 'hl' }],
          ['score matrices held: h · n · n', exact(a.scoreEntries), exact(b.scoreEntries)],
        ],
      }),
    );
    this.summary.replaceChildren(
      `${h} heads × (n · n · ${dK}) = 1 head × (n · n · ${d}): `,
      el('b', {
        text:
          a.total === b.total
            ? `the same ${flopText(a.total)} in all, projections included, either way`
            : `${flopText(a.total)} against ${flopText(b.total)} in all, projections included`,
      }),
      `. What grows with h is the number of n × n weight matrices kept (${exact(a.scoreEntries)} scores instead of ${exact(b.scoreEntries)}), not the arithmetic.`,
    );
    this.dataset.flops = `${a.total}/${b.total}`;
  }

  async _measure() {
    const ap = await getPlayground();
    const { n, d, h, dK } = this._sizes();
    const q = normals(n * d, 1),
      k = normals(n * d, 2),
      v = normals(n * d, 3);
    const time = (heads, dk) => {
      ap.kernels.attention({ q, k, v, n, dK: dk, nHeads: heads }); // warm up
      const reps = Math.max(1, Math.round(2e7 / (n * n * d)));
      const t0 = performance.now();
      for (let r = 0; r < reps; r++) ap.kernels.attention({ q, k, v, n, dK: dk, nHeads: heads });
      return (performance.now() - t0) / reps;
    };
    const ta = time(h, dK),
      tb = time(1, d);
    this.timing.textContent = `Measured here (${ap.kernels.info().variant} kernel, n = ${n}, d = ${d}): ${h} heads ${fmt(ta, 3)} ms, 1 head ${fmt(tb, 3)} ms per call (scores, softmax and weighted sum only; times vary from run to run).`;
    this.dataset.measured = '1';
  }
}

define(ApHeadCost);
