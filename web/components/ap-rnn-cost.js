// <ap-rnn-cost> (rnn-cost): an RNN costs O(n d^2) in n sequential steps; self-attention
// O(n^2 d) in one parallel step (notes 002, 000). The core counts the FLOPs of both
// (ap.flops: matrix products, one multiply-add = 2 FLOPs) as n and d move, with the crossover at
// n = d, and the page times the two wasm computations themselves: the attention kernel
// (ap.kernels.attention, O(n^2 d)) against the RNN recurrence (ap.rnnStates, O(n d^2)).
//
// Attributes: n (tokens, a power of two 2..16384, default 256), d (16..2048, default 512),
// hide="measure" (no timing button).
// Example: <ap-rnn-cost n="1024" d="256"></ap-rnn-cost>
import { ApWidget, define } from '../lib/widget.js';
import { el, errorText, flopText, fmt, rangeField } from '../lib/dom.js';
import { numsTable } from '../lib/view.js';
import { linePlot } from '../lib/plot.js';
import { tex } from '../lib/katex.js';
import { getPlayground, playgroundNow } from '../lib/module.js';
import { normals } from '../lib/random.js';

const N_RANGE = [1, 14]; // log2 n
const D_RANGE = [4, 11]; // log2 d
const MAX_TIMED_WORK = 2 ** 29; // multiply-adds of one timed call (well under a second)

const exact = (x) => x.toLocaleString('en-US');
// The n or d attribute as its slider's log2, within the slider's range (a power of two).
const log2Attr = (w, name, [lo, hi], fallback) =>
  Math.log2(w.numberAttribute(name, { min: 2 ** lo, max: 2 ** hi, power2: true }, 2 ** fallback));

// Milliseconds per call of fn: the best of three batches of calls, each batch ~15 ms (after one
// warm-up call), so a garbage collection or a memory growth in one batch does not count.
function timeIt(fn) {
  fn();
  let best = Infinity;
  for (let batch = 0; batch < 3; batch++) {
    let reps = 0;
    const t0 = performance.now();
    let t = t0;
    while (reps < 100 && (reps === 0 || t - t0 < 15)) {
      fn();
      reps++;
      t = performance.now();
    }
    best = Math.min(best, (t - t0) / reps);
  }
  return best;
}

export class ApRnnCost extends ApWidget {
  static ownInput = 'This view does not read the text at the top: it counts the cost for a length n that you set here.';
  static concept = 'rnn-cost';
  static extraAttributes = ['n', 'd'];
  static textInput = false;

  build() {
    const slider = (label, range, value) => rangeField(label, range, value, () => this.update());
    this.n = slider('n (tokens)', N_RANGE, 8);
    this.d = slider('d (width)', D_RANGE, 9);
    this.applied = null;
    this.table = el('div');
    this.verdict = el('p', { className: 'panel verdict' });
    this.plot = el('div');
    this.measureBtn = el('button', {
      type: 'button',
      className: 'measure',
      text: 'Time both in this browser',
      on: { click: () => this._measure() },
    });
    this.progress = el('p', { className: 'note', attrs: { 'aria-live': 'polite' } });
    this.timings = el('div', { className: 'timings' });
    this.measureBox = el(
      'div',
      {},
      el('h4', { text: 'Measured here: the wasm kernels' }),
      el('p', {
        className: 'note',
        text: 'The attention kernel (scores, softmax, weighted sum: the O(n²d) part, one head of d) against the RNN recurrence (tanh(x W_xh + h W_hh), the O(nd²) part), on seeded random inputs, at n around the current d. Times vary from run to run and machine to machine; the ratio is what to watch.',
      }),
      el('div', { className: 'controls' }, this.measureBtn),
      this.progress,
      this.timings,
    );
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Self-attention needs to compute n² pairs of scores (= dot products): O(n²d). RNNs only require O(nd²) running time, hₜ = g(W hₜ₋₁ + U xₜ + b), assuming input dimension = hidden dimension = d (notes 002) — but step t waits for step t−1, so an RNN takes n sequential steps where attention is fully parallel (000). A 1000-word document requires 1000 sequential computations, regardless of how many GPUs you have (004).',
      }),
      tex('\\text{RNN: } n \\cdot 2d^2 \\text{ multiply-adds, in } n \\text{ steps}', { display: true }),
      tex(
        '\\text{attention: } \\underbrace{2 n^2 d}_{QK^\\top,\\ AV} + \\underbrace{4 n d^2}_{W_Q, W_K, W_V, W_O} \\text{ multiply-adds, in 1 step}',
        { display: true },
      ),
      el('div', { className: 'controls' }, this.n.node, this.d.node),
      this.verdict,
      this.table,
      this.plot,
      this.measureBox,
    );
  }

  compute() {
    return playgroundNow() || getPlayground();
  }

  renderKey(state) {
    return `${super.renderKey(state)}|${this.n.input.value}|${this.d.input.value}`;
  }

  _sizes() {
    return { n: 2 ** Number(this.n.input.value), d: 2 ** Number(this.d.input.value) };
  }

  render(ap) {
    const key = `${this.getAttribute('n')}|${this.getAttribute('d')}`;
    if (key !== this.applied) {
      this.applied = key;
      this.n.input.value = log2Attr(this, 'n', N_RANGE, Number(this.n.input.value));
      this.d.input.value = log2Attr(this, 'd', D_RANGE, Number(this.d.input.value));
    }
    this.measureBox.hidden = this.hides('measure');
    const { n, d } = this._sizes();
    this.n.out.textContent = `n = ${exact(n)}`;
    this.d.out.textContent = `d = ${d}`;
    const f = ap.flops({ n, d, h: 1 });
    const a = f.attention,
      r = f.rnn;
    this.dataset.n = String(n);
    this.dataset.d = String(d);
    this.dataset.attentionFlops = String(a.quadratic);
    this.dataset.rnnFlops = String(r.total);
    this.table.replaceChildren(
      numsTable({
        caption: `Counted by the core for n = ${exact(n)} tokens, d = ${d} (matrix products; one multiply-add = ${f.flopsPerMultiplyAdd} FLOPs)`,
        header: ['FLOPs of', 'RNN', 'self-attention'],
        rows: [
          [
            'W h + U x  |  QKᵀ + AV',
            { text: `4nd² = ${flopText(r.total)}`, data: { value: String(r.total) } },
            { text: `4n²d = ${flopText(a.quadratic)}`, data: { value: String(a.quadratic) } },
          ],
          ['W_Q, W_K, W_V, W_O: 8nd²', '—', flopText(a.projections)],
          ['total', flopText(r.total), flopText(a.total)],
          [
            'sequential steps',
            { text: exact(r.sequentialSteps), className: 'hl' },
            { text: exact(a.sequentialSteps), className: 'hl' },
          ],
          ['steps from first to last token', exact(r.pathLength), exact(a.pathLength)],
          ['scores held at once', '—', exact(a.scoreEntries)],
        ],
      }),
    );
    const ratio = a.quadratic / r.total; // = n / d
    this.verdict.replaceChildren(
      n === f.crossoverN
        ? el(
            'span',
            {},
            'At n = d = ',
            el('b', { text: String(d) }),
            ': the n² part of attention costs exactly what the RNN costs (4n²d = 4nd²).',
          )
        : el(
            'span',
            {},
            `n = ${exact(n)} is ${n < d ? 'shorter' : 'longer'} than d = ${d}: attention’s n² part costs `,
            el('b', { text: `${fmt(ratio, ratio < 1 ? 2 : 1)}×` }),
            ' the RNN’s. They cross at ',
            el('b', { text: `n = d = ${f.crossoverN}` }),
            `. Either way the RNN needs ${exact(r.sequentialSteps)} steps one after another; attention needs 1.`,
          ),
    );

    // FLOPs against n at this d (log scale), the crossover marked.
    const ns = [];
    for (let k = Math.max(N_RANGE[0], Math.log2(d) - 4); k <= Math.min(N_RANGE[1], Math.log2(d) + 4); k++)
      ns.push(2 ** k);
    const counts = ns.map((m) => ap.flops({ n: m, d, h: 1 }));
    const ys = counts.flatMap((c) => [
      Math.log10(c.rnn.total),
      Math.log10(c.attention.quadratic),
      Math.log10(c.attention.total),
    ]);
    this.plot.replaceChildren(
      linePlot({
        title: `FLOPs against n, d = ${d} (log₁₀ scale)`,
        series: [
          { name: 'RNN: 4 n d²', points: counts.map((c, i) => [ns[i], Math.log10(c.rnn.total)]) },
          {
            name: 'attention: 4 n² d (scores + AV)',
            points: counts.map((c, i) => [ns[i], Math.log10(c.attention.quadratic)]),
          },
          { name: 'attention with projections', points: counts.map((c, i) => [ns[i], Math.log10(c.attention.total)]) },
          {
            name: `n = d = ${d}`,
            points: [
              [d, Math.floor(Math.min(...ys) - 0.5)],
              [d, Math.ceil(Math.max(...ys))],
            ],
            color: 'var(--_reference)',
          },
        ],
        xLabel: 'n (tokens)',
        yLabel: 'log₁₀ FLOPs',
        logX: true,
        width: 520,
        height: 260,
        yMin: Math.floor(Math.min(...ys) - 0.5),
        yMax: Math.ceil(Math.max(...ys)),
        xTickFormat: (x) => (x >= 1024 ? `${x / 1024}k` : String(x)),
      }),
    );
  }

  async _measure() {
    const ap = await getPlayground();
    const { d } = this._sizes();
    const sizes = [d / 4, d / 2, d, 2 * d, 4 * d].filter(
      (m) => m >= 2 && m * m * d <= MAX_TIMED_WORK && m * d * d <= MAX_TIMED_WORK,
    );
    this.measureBtn.disabled = true;
    const rows = [];
    try {
      const wxh = normals(d * d, 5).map((v) => v / Math.sqrt(d)),
        whh = normals(d * d, 6).map((v) => (0.9 * v) / Math.sqrt(d));
      for (const n of sizes) {
        this.progress.textContent = `Timing n = ${n}, d = ${d}…`;
        await new Promise((r) => setTimeout(r, 0)); // let the page paint between sizes
        const q = normals(n * d, 1),
          k = normals(n * d, 2),
          v = normals(n * d, 3),
          x = normals(n * d, 4);
        const tAttn = timeIt(() => ap.kernels.attention({ q, k, v, n, dK: d, nHeads: 1 }));
        const tRnn = timeIt(() => ap.rnnStates({ x, wxh, whh, n, dIn: d, dHidden: d }));
        const f = ap.flops({ n, d, h: 1 });
        rows.push([
          `n = ${n}${n === d ? ' (= d)' : ''}`,
          `${fmt(tAttn, 3)} ms`,
          `${fmt(tRnn, 3)} ms`,
          { text: fmt(tAttn / tRnn, 2), className: n === d ? 'hl' : '' },
          fmt(f.attention.quadratic / f.rnn.total, 2),
        ]);
      }
      const skipped = [d / 4, d / 2, d, 2 * d, 4 * d].length - sizes.length;
      this.progress.textContent = `Done (${ap.kernels.info().variant} kernels).${skipped ? ` ${skipped} size(s) skipped: too slow to time here.` : ''}`;
      this.timings.replaceChildren(
        numsTable({
          caption: `Measured in this browser, d = ${d}, ms per call`,
          header: ['length', 'attention kernel', 'RNN recurrence', 'measured ratio', 'counted ratio 4n²d / 4nd²'],
          rows,
        }),
      );
      this.dataset.measured = String(rows.length);
    } catch (err) {
      this.progress.textContent = `Could not time: ${errorText(err)}`;
    } finally {
      this.measureBtn.disabled = false;
    }
  }
}

define(ApRnnCost);
