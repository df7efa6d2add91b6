// <ap-head-cost> (head-cost): h heads of size d/h cost about as much as one head of size d.
// Counted multiply-adds of each part (a formula over n, d, h: presentation of counts), and the
// measured time of the core's attention kernel for both layouts on the same random inputs.
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt } from '../lib/dom.js';
import { numsTable } from '../lib/view.js';
import { getPlayground, playgroundNow } from '../lib/playground.js';
import { normals } from '../lib/random.js';

const big = (x) => (x >= 1e9 ? `${fmt(x / 1e9, 2)} G` : x >= 1e6 ? `${fmt(x / 1e6, 2)} M` : x >= 1e3 ? `${fmt(x / 1e3, 2)} k` : String(x));

export class ApHeadCost extends ApWidget {
  static concept = 'head-cost';

  build() {
    const slider = (label, min, max, value, step = 1) => {
      const input = el('input', { type: 'range', min, max, value, step, attrs: { 'aria-label': label }, on: { input: () => this.update() } });
      const out = el('span', { className: 'mono' });
      return { input, out, node: el('label', { className: 'field inline' }, el('span', { text: label }), input, out) };
    };
    this.n = slider('n (tokens)', 4, 10, 7); // log2
    this.d = slider('d', 5, 10, 9);          // log2
    this.h = slider('h (heads)', 0, 5, 3);   // log2
    this.table = el('div');
    this.measure = el('button', { type: 'button', text: 'Measure the wasm kernel', on: { click: () => this._measure() } });
    this.timing = el('p', { className: 'note', attrs: { 'aria-live': 'polite' } });
    this.body.append(
      el('p', { className: 'lead', text: 'Splitting d into h heads of size d/h does not multiply the work: the projections are the same matrices, and the score and weighted-sum products shrink by h while their number grows by h.' }),
      el('div', { className: 'controls' }, this.n.node, this.d.node, this.h.node),
      this.table, el('div', { className: 'controls' }, this.measure), this.timing);
  }

  compute() { return playgroundNow() || getPlayground(); }

  _sizes() {
    const n = 2 ** Number(this.n.input.value), d = 2 ** Number(this.d.input.value);
    let h = 2 ** Number(this.h.input.value);
    while (d % h || h > d) h /= 2;
    return { n, d, h, dK: d / h };
  }

  render() {
    const { n, d, h, dK } = this._sizes();
    this.n.out.textContent = String(n);
    this.d.out.textContent = String(d);
    this.h.out.textContent = `${h} (d_k = ${dK})`;
    const proj = 4 * n * d * d; // Q, K, V and W_O: n x d times d x d, four times
    const row = (heads, dk) => {
      const scores = heads * n * n * dk, mix = heads * n * n * dk;
      return [scores, mix, proj, scores + mix + proj];
    };
    const a = row(h, dK), b = row(1, d);
    this.table.replaceChildren(numsTable({
      caption: 'Multiply-adds per attention layer (one per term of every dot product)',
      header: ['', `${h} heads of d_k = ${dK}`, `1 head of d_k = ${d}`],
      rows: [
        ['scores Q Kᵀ: h · n · n · d_k', big(a[0]), big(b[0])],
        ['weighted sum A V: h · n · n · d_k', big(a[1]), big(b[1])],
        ['projections W_Q, W_K, W_V, W_O: 4 · n · d · d', big(a[2]), big(b[2])],
        ['total', big(a[3]), big(b[3])],
      ],
    }));
    this.dataset.flops = `${a[3]}/${b[3]}`;
  }

  async _measure() {
    const ap = await getPlayground();
    const { n, d, h, dK } = this._sizes();
    const q = normals(n * d, 1), k = normals(n * d, 2), v = normals(n * d, 3);
    const time = (heads, dk) => {
      ap.kernels.attention({ q, k, v, n, dK: dk, nHeads: heads }); // warm up
      const reps = Math.max(1, Math.round(2e7 / (n * n * d)));
      const t0 = performance.now();
      for (let r = 0; r < reps; r++) ap.kernels.attention({ q, k, v, n, dK: dk, nHeads: heads });
      return (performance.now() - t0) / reps;
    };
    const ta = time(h, dK), tb = time(1, d);
    this.timing.textContent = `Measured here (${ap.kernels.info().variant} kernel, n = ${n}, d = ${d}): ${h} heads ${fmt(ta, 3)} ms, 1 head ${fmt(tb, 3)} ms per call (scores and weighted sum only; times vary from run to run).`;
  }
}

define(ApHeadCost);
