// <ap-sliding-window> (sliding-window): causal attention in a band. With the core's window switch
// w, query i sees key j iff i − w < j ≤ i: at most w keys, itself included (Mistral's definition).
// The masked scores and the weights of the page's model with the window, each row's visible keys
// counted from the core's masked stage, and the score pairs against n, from the core's flops:
// O(n w) with the window, n(n+1)/2 = O(n²) without.
import { ApWidget, define } from '../lib/widget.js';
import { el } from '../lib/dom.js';
import { matrix } from '../lib/heatmap.js';
import { linePlot } from '../lib/plot.js';
import { headFor, layerFor, textFor } from '../lib/view.js';
import { runFor } from '../lib/runs.js';
import { runSpec } from '../lib/state.js';
import { playgroundNow } from '../lib/module.js';
import { stepView } from '../lib/steps/index.js';
import { fmtInt } from '../lib/timing.js';

const DEFAULT_W = 3; // the view's window while the page has none
const CURVE_N = [1, 512, 1024, 1536, 2048, 2560, 3072, 3584, 4096];
const CURVE_D = 64;

export class ApSlidingWindow extends ApWidget {
  static concept = 'sliding-window';

  build() {
    this.wInput = el('input', {
      type: 'number',
      min: 1,
      max: 4096,
      step: 1,
      attrs: { 'aria-label': 'window w' },
      on: {
        change: () => this.requestState({ window: Math.max(1, Math.round(Number(this.wInput.value)) || DEFAULT_W) }),
      },
    });
    this.line = el('p', { className: 'changed window-line' });
    this.warn = el('p', { className: 'warn window-warn' });
    this.maps = el('div', { className: 'col2' });
    this.costLine = el('p', { className: 'note cost-line' });
    this.plot = el('div');
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'A causal mask lets query i see every earlier key: n(n+1)/2 scores, O(n²). A sliding window (Longformer, Mistral) lets it see only the last w keys, itself included. Stacked layers still carry information further back, w − 1 positions more per layer, while the scores grow as n w: linear in n.',
      }),
      el(
        'div',
        { className: 'controls', dataset: { control: 'window' } },
        el('label', { className: 'field inline' }, el('span', { text: 'window w' }), this.wInput),
      ),
      this.line,
      this.warn,
      this.maps,
      this.costLine,
      this.plot,
    );
  }

  windowOf(state) {
    return state.window || DEFAULT_W;
  }

  compute(state) {
    const base = state.preset ? { ...state, preset: '', text: textFor(state) } : state;
    return runFor(runSpec({ ...base, window: this.windowOf(state) }));
  }

  render(run, state) {
    if (run.error) throw run.error;
    const w = this.windowOf(state);
    this.wInput.value = String(w);
    const layer = layerFor(run, state),
      head = headFor(run, state);
    const masked = stepView(run, 'masked', { layer, head }).view.output;
    const weights = stepView(run, 'weights', { layer, head }).view.output;
    // Visible keys per row: the finite entries of the core's masked scores.
    const n = masked.rows,
      m = masked.cols;
    const visible = Array.from({ length: n }, (_, i) => {
      let k = 0;
      for (let j = 0; j < m; j++) if (Number.isFinite(masked.values[i * m + j])) k++;
      return k;
    });
    this.dataset.window = String(w);
    this.dataset.visible = visible.join(',');
    const causal = run.config.causal;
    this.line.textContent = causal
      ? `w = ${w}: row i sees keys i − ${w - 1} … i, so ${visible.map((v) => v).join(', ')} keys for rows 0 to ${n - 1} (at most ${w}); everything further back is −∞ before the softmax and gets weight 0.`
      : 'This model has no causal mask (an encoder), and a window only applies where the causal mask does: nothing changes here. Pick a decoder.';
    const own = run.model.config.window;
    this.warn.hidden = !causal || own === w;
    this.warn.textContent =
      own === w
        ? ''
        : `This model was trained seeing every earlier token${own ? ` within ${own}` : ''}; with a window of ${w} the rows beyond it lose keys they learned to use, so its numbers change.`;
    this.place(
      this.maps,
      this.hm('masked', matrix({ ...masked, title: `masked scores, layer ${layer} head ${head} (w = ${w})` })),
      this.hm('weights', matrix({ ...weights, title: `weights: each row sums to 1 over ${w} keys or fewer` })),
    );
    this.renderCost(w);
  }

  // Score pairs against n, from the core's flops: sum over queries of min(i + 1, w) with the
  // window, n(n + 1) / 2 with the causal mask alone (a window of n). Plotted per query (pairs / n):
  // a rising line is O(n²) in all, a flat one O(n w).
  renderCost(w) {
    const ap = playgroundNow();
    if (!ap) return;
    const pairs = (n, window) => ap.flops({ n, d: CURVE_D, window }).attention.pairs;
    const full = CURVE_N.map((n) => [n, pairs(n, n)]);
    const band = CURVE_N.map((n) => [n, pairs(n, Math.min(w, n))]);
    const [last, fullLast] = full[full.length - 1];
    const bandLast = band[band.length - 1][1];
    this.dataset.pairsFull = String(fullLast);
    this.dataset.pairsWindow = String(bandLast);
    this.costLine.textContent = `At n = ${fmtInt(last)} tokens: ${fmtInt(fullLast)} score pairs with the causal mask alone, ${fmtInt(bandLast)} with w = ${w}, ${(fullLast / bandLast).toFixed(1)} times fewer. Per query, the causal mask's (n + 1)/2 keys grow with n; the window's stay at w or fewer, so the total grows as n w.`;
    const perQuery = (points) => points.map(([n, p]) => [n, p / n]);
    this.place(
      this.plot,
      linePlot({
        title: 'Keys each query scores, on average (the core’s count ÷ n)',
        series: [
          { name: 'causal: (n+1)/2 per query, O(n²) in all', points: perQuery(full) },
          { name: `window w = ${w}: at most w per query, O(n w) in all`, points: perQuery(band) },
        ],
        xLabel: 'n (tokens)',
        yLabel: 'keys per query',
        yMin: 0,
        xTickFormat: (x) => fmtInt(x),
      }),
    );
  }
}

define(ApSlidingWindow);
