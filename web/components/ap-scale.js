// <ap-scale> (scale): divide the scores by sqrt(d_k). Scaled and unscaled weights side by side
// (both computed by the core), and a d_k slider: for random unit-variance queries and keys the
// spread of q.k grows like sqrt(d_k), and without scaling the softmax saturates (entropy falls,
// the largest weight goes to 1). The lecture's d_k = 512 example gives sqrt(512) = 22.6.
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt } from '../lib/dom.js';
import { claimBox, headFor, layerFor, numsTable, presetButtons } from '../lib/view.js';
import { stepView } from '../lib/steps.js';
import { runsFor } from '../lib/runs.js';
import { runSpec } from '../lib/state.js';
import { getPlayground, playgroundNow } from '../lib/playground.js';
import { normals } from '../lib/random.js';
import { linePlot } from '../lib/plot.js';

const DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
const N = 8;

function stats(scores, weights, n, m) {
  let s1 = 0, s2 = 0, ent = 0, mx = 0;
  for (const v of scores) { s1 += v; s2 += v * v; }
  const mean = s1 / scores.length;
  for (let i = 0; i < n; i++) {
    let rowMax = 0, h = 0;
    for (let j = 0; j < m; j++) { const w = weights[i * m + j]; if (w > 0) h -= w * Math.log(w); if (w > rowMax) rowMax = w; }
    ent += h; mx += rowMax;
  }
  return { std: Math.sqrt(s2 / scores.length - mean * mean), entropy: ent / n, maxWeight: mx / n };
}

export class ApScale extends ApWidget {
  static concept = 'scale';
  static extraAttributes = ['dk'];

  build() {
    this.presets = presetButtons(this, 'scale');
    this.claim = el('div');
    this.ratio = el('div');
    this.side = el('div', { className: 'col2' });
    this.dk = el('input', { type: 'range', min: 0, max: DKS.length - 1, step: 1, value: 6, attrs: { 'aria-label': 'd_k' }, on: { input: () => this._experiment() } });
    this.dkLabel = el('span', { className: 'mono' });
    this.expTable = el('div');
    this.plot = el('div');
    this.body.append(
      el('p', { className: 'lead', text: 'A dot product of two d_k-dimensional vectors with unit-variance entries has variance d_k: its typical size grows like √d_k. Big scores make the softmax put almost all weight on one key, where its gradient is tiny. Dividing by √d_k keeps the scores near unit size.' }),
      this.presets.node, this.claim, this.ratio, this.side,
      el('h4', { text: 'Try it: random queries and keys of dimension d_k' }),
      el('div', { className: 'controls' }, el('label', { className: 'field inline' }, el('span', { text: 'd_k' }), this.dk), this.dkLabel),
      el('div', { className: 'col2' }, this.expTable, this.plot));
  }

  compute(state) {
    const on = runSpec({ ...state, scale: 'on' });
    const off = runSpec({ ...state, scale: 'off' });
    return runsFor([on, off]);
  }

  render([scaled, unscaled], state) {
    this.presets.refresh();
    this.claim.replaceChildren(...[claimBox(scaled.preset)].filter(Boolean));
    const layer = layerFor(scaled, state), head = headFor(scaled, state);
    const S = stepView(scaled, 'scaled', { layer, head }).view;
    const a = stepView(scaled, 'weights', { layer, head }).view.output;
    const b = stepView(unscaled, 'weights', { layer, head }).view.output;
    // √d_k as the core applied it: a raw score divided by its scaled value.
    const raw = S.inputs[0].values, sc = S.output.values;
    let k = 0;
    while (k < raw.length && !(Math.abs(raw[k]) > 1e-3)) k++;
    const dK = scaled.config.dK;
    if (k < raw.length) {
      const r = raw[k] / sc[k];
      this.ratio.replaceChildren(el('p', { className: 'panel ratio', dataset: { sqrtDk: String(r) } },
        `d_k = ${dK}: a score s = ${fmt(raw[k], 3)} becomes s / √d_k = ${fmt(sc[k], 3)}, so the core divided by `,
        el('b', { className: 'sqrt-dk', text: fmt(r, 2) }), ` (= √${dK}).`));
    }
    a.title = `weights, scaled by √${dK}`;
    b.title = 'weights, not scaled';
    this.place(this.side, this.hm('scaled', a), this.hm('unscaled', b));
    this._experiment();
  }

  _experiment() {
    const ap = playgroundNow();
    if (!ap) return;
    const idx = Number(this.dk.value);
    const dk = DKS[idx];
    this.dkLabel.textContent = `d_k = ${dk}, √d_k = ${fmt(Math.sqrt(dk), 2)}`;
    if (!this._curve) {
      // One lookup per d_k and scaling, done once: q, k, v ~ N(0, 1), N queries and keys.
      this._curve = DKS.map((d) => {
        const q = normals(N * d, 11 + d), kk = normals(N * d, 23 + d), v = normals(N * d, 37 + d);
        const out = {};
        for (const score of ['dot', 'scaled']) {
          const t = ap.lookup({ q, k: kk, v, n: N, m: N, d, score });
          try { out[score] = stats(t.get('scores'), t.get('weights'), N, N); } finally { t.dispose(); }
        }
        return { d, ...out };
      });
      this.plot.replaceChildren(linePlot({
        title: 'Largest weight per row (mean) as d_k grows',
        series: [
          { name: 'unscaled q·k', points: this._curve.map((c) => [c.d, c.dot.maxWeight]) },
          { name: 'scaled q·k / √d_k', points: this._curve.map((c) => [c.d, c.scaled.maxWeight]) },
        ],
        xLabel: 'd_k', yLabel: 'max weight', logX: true, yMin: 0, yMax: 1,
      }));
    }
    const c = this._curve[idx];
    this.expTable.replaceChildren(numsTable({
      caption: `${N} random queries against ${N} random keys, d_k = ${dk} (scores and weights from the core)`,
      header: ['', 'unscaled', 'scaled'],
      rows: [
        ['spread of scores (std)', fmt(c.dot.std, 2), fmt(c.scaled.std, 2)],
        ['softmax entropy (nats, max ln 8 = 2.08)', fmt(c.dot.entropy, 2), fmt(c.scaled.entropy, 2)],
        ['largest weight per row', fmt(c.dot.maxWeight, 2), fmt(c.scaled.maxWeight, 2)],
      ],
    }));
  }
}

define(ApScale);
