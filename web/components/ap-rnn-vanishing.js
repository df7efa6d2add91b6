// <ap-rnn-vanishing> (rnn-vanishing): gradients through many RNN steps vanish. The core runs the
// tanh RNN of rnn-chain on the page's tokens (read again and again up to a length T) and
// returns ||d h_T / d h_t|| for every t; the plot shows it against the distance T - t on a
// log scale, with a spectral-radius slider for W_hh. Beside it, attention's path length: 1 for
// every token. Attributes: radius (spectral radius, default 0.9), length (T, default 32).
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt } from '../lib/dom.js';
import { numsTable } from '../lib/view.js';
import { playgroundNow } from '../lib/module.js';
import { renderTex, tex } from '../lib/katex.js';
import { linePlot } from '../lib/plot.js';
import { RNN, powerNorms, repeatRows, rnnStates, tokenRows, vanishingWords } from '../lib/rnn-view.js';

const RADIUS = { min: 0.25, max: 2, step: 0.05 };
const LENGTH = { min: 4, max: 64, default: 32, integer: true };
const FLOOR = -30;
const m = (source) => tex(source, { className: 'math' }); // log10 of norms below 1e-30 are off the plot (float32 runs out near 1e-45)

/** A norm as read in the table: small ones in powers of ten (0.000 would hide them). */
const small = (v) => (v !== 0 && Math.abs(v) < 0.01 ? v.toExponential(2).replace('-', '−') : fmt(v, 3));

export class ApRnnVanishing extends ApWidget {
  static concept = 'rnn-vanishing';
  static extraAttributes = ['radius', 'length'];

  build() {
    const slider = (label, range, attr, value) => {
      const input = el('input', {
        type: 'range',
        min: range.min,
        max: range.max,
        step: range.step || 1,
        value,
        attrs: { 'aria-label': label, 'data-control': attr },
        on: { input: () => this.setAttribute(attr, input.value) },
      });
      const out = el('span', { className: 'mono' });
      return { input, out, node: el('label', { className: 'field inline' }, el('span', { text: label }), input, out) };
    };
    this.radius = slider('spectral radius ρ of W_hh', RADIUS, 'radius', RNN.radius);
    this.length = slider('length T', LENGTH, 'length', LENGTH.default);
    // The RNN's product and attention's one hop, two parts that sit side by side on a wide screen
    // and one under the other on a phone (one line of both was cut at 375 px).
    // (4 px on its right: KaTeX's last superscript reaches 2 px past the formula's own width.)
    this.formula = el('div', { className: 'formula', style: { paddingRight: '4px' } });
    this.formulas = el(
      'div',
      { className: 'formulas', style: { display: 'flex', flexWrap: 'wrap', alignItems: 'center', columnGap: '2em' } },
      this.formula,
      el('p', {}, 'vs. attention: ', m('z_T = \\sum_j \\alpha_{Tj}\\, v_j'), ', one hop from every t.'),
    );
    this.plots = el('div', { className: 'col2' });
    this.table = el('div');
    this.summary = el('p', { className: 'panel summary' });
    this.tanhNote = el('p', { className: 'note tanh-note' });
    this.body.append(
      el(
        'p',
        { className: 'lead' },
        'As sequences get longer, gradients that flow backward through time become increasingly small, which makes long-range dependencies very hard to learn: like a message passed through a long chain of people, each garbling it slightly. The signal from step t reaches the last state ',
        m('h_T'),
        ' only through every step in between; in attention, token T reads token t directly, one step away.',
      ),
      this.formulas,
      el('div', { className: 'controls' }, this.radius.node, this.length.node),
      el('p', {
        className: 'note',
        text: `The RNN of the chain view (tanh, ${RNN.dHidden} hidden units, same seed) reads your tokens again and again up to T; at T = the number of tokens it is exactly that view's RNN. ρ is the largest |eigenvalue| of W_hh: below 1, multiplying by W_hh again and again shrinks any vector towards 0 in the end, though a few steps can first stretch some directions (tanh' ≤ 1 damps it further).`,
      }),
      this.plots,
      this.summary,
      this.tanhNote,
      this.table,
    );
  }

  renderKey(state) {
    return `${super.renderKey(state)}|${this.getAttribute('radius') ?? ''}|${this.getAttribute('length') ?? ''}`;
  }

  render(run) {
    const ap = playgroundNow();
    const radius = this.numberAttribute('radius', RADIUS, RNN.radius);
    const T = this.numberAttribute('length', LENGTH, LENGTH.default);
    this.radius.input.value = String(radius);
    this.length.input.value = String(T);
    this.radius.node.hidden = this.hides('radius');
    this.length.node.hidden = this.hides('length');
    this.radius.out.textContent = fmt(radius, 2);
    this.length.out.textContent = String(T);
    const { x, n, d, labels } = tokenRows(run);
    const xs = repeatRows(x, n, d, T);
    const states = rnnStates(ap, { x: xs, n: T, dIn: d, radius });
    const { grad } = states;
    const refRun = radius === 1 ? null : rnnStates(ap, { x: xs, n: T, dIn: d, radius: 1 });
    const ref = refRun ? refRun.grad : grad;
    // tanh's slope 1 - h^2 at every state of the ρ = 1 run: the factor each step multiplies by
    // besides W_hh (below 1 wherever h != 0).
    const hRef = refRun ? refRun.h : states.h;
    let slope = 0;
    for (const v of hRef) slope += 1 - v * v;
    slope /= hRef.length;
    renderTex(
      this.formula,
      '\\frac{\\partial h_T}{\\partial h_t} = \\prod_{k=t+1}^{T} \\operatorname{diag}\\!\\big(1 - h_k^2\\big)\\, W_{hh}^{\\top}',
      { display: true },
    );

    // Distance T - t for t = T, T-1, ..., 1 (0-based index i: distance T - 1 - i).
    const points = (g) =>
      Array.from(g, (v, i) => [T - 1 - i, Math.log10(v)])
        .filter((p) => Number.isFinite(p[1]) && p[1] >= FLOOR)
        .reverse();
    const cur = points(grad),
      one = points(ref);
    const ys = [...cur, ...one].map((p) => p[1]);
    const yMin = Math.max(FLOOR, Math.floor(Math.min(...ys))),
      yMax = Math.max(1, Math.ceil(Math.max(...ys)));
    const every = T > 40 ? 10 : T > 16 ? 5 : T > 8 ? 2 : 1;
    const tick = (v) => (v % every === 0 ? String(v) : '');
    const series = [{ name: `RNN, ρ = ${fmt(radius, 2)}`, points: cur }];
    if (radius !== 1) series.push({ name: 'RNN, ρ = 1 (reference)', points: one, color: 'var(--_reference)' });
    const normPlot = linePlot({
      title: 'log₁₀ ‖∂h_T / ∂h_t‖ against the distance T − t (computed by the core)',
      series,
      xLabel: 'distance T − t (steps back)',
      yLabel: 'log₁₀ ‖∂h_T/∂h_t‖',
      yMin,
      yMax,
      xTickFormat: tick,
    });
    const dist = Array.from({ length: T }, (_, k) => k);
    const hopPlot = linePlot({
      title: 'Path length from token t to the last position',
      series: [
        { name: 'RNN: T − t steps', points: dist.map((k) => [k, k]) },
        { name: 'attention: 1 hop', points: dist.map((k) => [k, k === 0 ? 0 : 1]) },
      ],
      xLabel: 'distance T − t',
      yLabel: 'steps on the path',
      yMin: 0,
      yMax: T,
      xTickFormat: tick,
    });
    this.place(this.plots, normPlot, hopPlot);

    // Every sentence below is read from the plotted norms (lib/rnn-view.js vanishingWords): the
    // trend from the two ends, the curve's rises and falls from its turning points, and the ρ = 1
    // curve against W_hh alone (no tanh), so the part tanh's slopes play is a number, not a claim.
    const whhRef = refRun ? refRun.whh : states.whh;
    const words = vanishingWords({
      grad,
      ref,
      alone: powerNorms(whhRef, RNN.dHidden, T - 1),
      radius,
      T,
      slope,
      value: small,
    });
    // The table: a few distances, and every one the sentences name (a turn, the first token), so
    // that each number of the sentence can be read in it (marked).
    const at = (k) => grad[T - 1 - k];
    const named = new Set(words.named);
    const shown = [...new Set([1, 2, 3, 5, 10, 20, 30, 50, ...named])]
      .filter((k) => k > 0 && k < T)
      .sort((a, b) => a - b);
    this.table.replaceChildren(
      numsTable({
        caption: `‖∂h_T/∂h_t‖ at ρ = ${fmt(radius, 2)}, T = ${T} (tokens: ${labels.join(' ')} …); marked: the distances the summary above names`,
        header: ['steps back T − t', '‖∂h_T/∂h_t‖', 'RNN path', 'attention path'],
        rows: shown.map((k) => [
          String(k),
          { text: small(at(k)), data: { value: String(at(k)), steps: String(k) }, className: named.has(k) ? 'hl' : '' },
          String(k),
          '1',
        ]),
        className: 'nums grad-norms',
      }),
    );
    const trend = words.trend;
    this.summary.replaceChildren(
      words.lead,
      el('b', { text: words.verdict }),
      words.shape ? ` ${words.shape}` : '',
      ` The RNN's path from the ${T}-token input's first token to its last is ${T - 1} steps; attention's is 1.`,
    );
    this.summary.dataset.trend = trend;
    this.tanhNote.textContent = words.tanh;
    this.tanhNote.dataset.slope = String(slope);
    this.tanhNote.dataset.perStep = String(words.refPerStep);
    this.dataset.radius = String(radius);
    this.dataset.length = String(T);
    this.dataset.gradNorms = JSON.stringify(Array.from(grad));
  }
}

define(ApRnnVanishing);
