// <ap-scale> (scale): divide the scores by sqrt(d_k). First the notes' case (004), always shown:
// d_k = 512, N(0, 1) queries and keys drawn by the core (preset scale.d512), the softmax without
// and with the division side by side: unscaled one weight per row takes nearly everything, scaled
// the weights spread. Then the page's text with and without scaling, and a d_k slider over the
// core's experiment (ap.scaleStats): many
// draws of random unit-variance queries and keys, the spread of q.k with and without scaling, the
// softmax's entropy and its largest weight. Var(q.k) = d_k, so the unscaled spread grows like
// sqrt(d_k) and the softmax saturates; the notes' d_k = 512 gives sqrt(512) = 22.6.
//
// Attributes: the page's state (text, preset, ...; preset="scale.d512" is the notes' case),
// dk (the slider's d_k, a power of two 1..512, default 64), hide="presets,experiment".
// Example: <ap-scale dk="512"></ap-scale>
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt, tokenText } from '../lib/dom.js';
import { claimBox, headFor, layerFor, numsTable, presetButtons } from '../lib/view.js';
import { stepView } from '../lib/steps/index.js';
import { runsFor } from '../lib/runs.js';
import { runSpec } from '../lib/state.js';
import { playgroundNow } from '../lib/module.js';
import { linePlot } from '../lib/plot.js';

const DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512];
const N = 8; // keys per softmax row (and queries per draw)
const DRAWS = 200; // draws per d_k: 1,600 softmax rows, 12,800 scores
const SEED = 1;
const NOTES_PRESET = 'scale.d512';

/** Largest weight of each row of a rows x cols softmax. */
function rowMax(values, rows, cols) {
  return Array.from({ length: rows }, (_, i) => Math.max(...values.slice(i * cols, (i + 1) * cols)));
}
const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
function std(a) {
  const m = mean(a);
  return Math.sqrt(mean(a.map((v) => (v - m) ** 2)));
}

export class ApScale extends ApWidget {
  static concept = 'scale';
  static extraAttributes = ['dk'];

  build() {
    this.presets = presetButtons(this, 'scale');
    this.notesHead = el('h4', { text: 'The notes’ case: d_k = 512, random N(0, 1) queries and keys' });
    this.notesText = el('p', { className: 'note' });
    this.notesSide = el('div', { className: 'col2 scale-notes' });
    this.notesVerdict = el('p', { className: 'panel scale-verdict' });
    this.notes = el(
      'section',
      { className: 'scale-notes-case', attrs: { 'aria-label': 'The notes’ case, d_k = 512' } },
      this.notesHead,
      this.notesText,
      this.notesSide,
      this.notesVerdict,
    );
    this.yoursHead = el('h4');
    this.claim = el('div');
    this.ratio = el('div');
    this.side = el('div', { className: 'col2' });
    this.dk = el('input', {
      type: 'range',
      min: 0,
      max: DKS.length - 1,
      step: 1,
      value: 6,
      attrs: { 'aria-label': 'd_k' },
      on: { input: () => this._experiment() },
    });
    this.dkLabel = el('span', { className: 'mono' });
    this.appliedDk = null;
    this.expTable = el('div', { className: 'scale-exp' });
    this.notesCase = el('p', { className: 'panel' });
    this.plots = el('div', { className: 'col2' });
    this.experiment = el(
      'div',
      {},
      el('h4', { text: 'Try it: random queries and keys of dimension d_k' }),
      el('p', {
        className: 'note',
        text: `The core draws ${DRAWS} times ${N} queries and ${N} keys with independent N(0, 1) entries (seeded), scores every pair, and applies the softmax over the ${N} keys of each query, with and without dividing by √d_k.`,
      }),
      el(
        'div',
        { className: 'controls' },
        el('label', { className: 'field inline' }, el('span', { text: 'd_k' }), this.dk),
        this.dkLabel,
      ),
      this.expTable,
      this.notesCase,
      this.plots,
    );
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Why √d_k? Dot products grow with dimension; scaling keeps softmax out of its saturated, tiny-gradient regime (notes 000). For high-dimensional vectors, dot products can become very large. If d_k = 512, the expected magnitude of a dot product is ≈ √512 ≈ 22.6; softmax of large values → extremely peaked distribution → near-zero gradients → no learning! Dividing by √d_k normalizes the variance back to 1 (004).',
      }),
      this.notes,
      this.yoursHead,
      this.presets.node,
      this.claim,
      this.ratio,
      this.side,
      this.experiment,
    );
  }

  compute(state) {
    const on = runSpec({ ...state, scale: 'on' });
    const off = runSpec({ ...state, scale: 'off' });
    const notes = { ...state, preset: NOTES_PRESET, heads: '', causal: '' };
    return runsFor([on, off, runSpec({ ...notes, scale: 'on' }), runSpec({ ...notes, scale: 'off' })]);
  }

  render([scaled, unscaled, notesOn, notesOff], state) {
    this.presets.refresh();
    this._notesCase(notesOn, notesOff);
    const onNotes = state.preset === NOTES_PRESET;
    this.yoursHead.textContent = onNotes
      ? 'The same case step by step'
      : `Your text on the current model (d_k = ${scaled.config.dK})`;
    this.claim.replaceChildren(...[claimBox(scaled.preset)].filter(Boolean));
    const layer = layerFor(scaled, state),
      head = headFor(scaled, state);
    const S = stepView(scaled, 'scaled', { layer, head }).view;
    const a = stepView(scaled, 'weights', { layer, head }).view.output;
    const b = stepView(unscaled, 'weights', { layer, head }).view.output;
    // √d_k as the core applied it: a raw score divided by its scaled value.
    const M = S.inputs[0];
    const raw = M.values,
      sc = S.output.values;
    // A score of the text's own: the last token's row (a decoder's row of its start token is only
    // the start token on itself, the same for every text), its largest score in size.
    const row = M.rows - 1;
    let k = -1;
    for (let j = 0; j < M.cols; j++) {
      const i = row * M.cols + j;
      if (Number.isFinite(raw[i]) && Math.abs(raw[i]) > 1e-3 && (k < 0 || Math.abs(raw[i]) > Math.abs(raw[k]))) k = i;
    }
    const dK = scaled.config.dK;
    if (k >= 0) {
      const r = raw[k] / sc[k];
      const pair =
        M.rowLabels && M.colLabels
          ? ` of "${tokenText(M.rowLabels[row])}" on "${tokenText(M.colLabels[k - row * M.cols])}"`
          : '';
      this.ratio.replaceChildren(
        el(
          'p',
          { className: 'panel ratio', dataset: { sqrtDk: String(r), cell: `${row},${k - row * M.cols}` } },
          `d_k = ${dK}: the score${pair}, s = ${fmt(raw[k], 3)}, becomes s / √d_k = ${fmt(sc[k], 3)}, so the core divided by `,
          el('b', { className: 'sqrt-dk', text: fmt(r, 2) }),
          ` (= √${dK}).`,
        ),
      );
    }
    a.title = `weights, scaled by √${dK}`;
    b.title = 'weights, not scaled';
    this.place(this.side, this.hm('unscaled', b), this.hm('scaled', a));
    this._experiment();
  }

  // The notes' case: the preset's weights without and with the division, side by side, the largest
  // weight of every row under each, and the spread of the raw q.k against sqrt(512).
  _notesCase(on, off) {
    const w1 = stepView(on, 'weights', { head: 0 }).view.output;
    const w0 = stepView(off, 'weights', { head: 0 }).view.output;
    const raw = Array.from(on.get('scores', { head: 0 }));
    const dK = on.config.dK;
    const spread = std(raw);
    const max0 = rowMax(w0.values, w0.rows, w0.cols),
      max1 = rowMax(w1.values, w1.rows, w1.cols);
    Object.assign(this.dataset, {
      notesUnscaledMax: String(mean(max0)),
      notesScaledMax: String(mean(max1)),
      notesScoreStd: String(spread),
      notesDk: String(dK),
    });
    this.notesText.textContent = `The core draws ${w1.rows} query and ${w1.cols} key vectors of ${dK} numbers, each N(0, 1) (seeded): random vectors, named ${w1.rowLabels.join(', ')} after the notes’ words only to tell the rows apart. Their ${raw.length} dot products q·k spread by ${fmt(spread, 3)} (standard deviation): close to √${dK} = ${fmt(Math.sqrt(dK), 3)}, because Var(q·k) = d_k.`;
    const card = (slot, m, title, maxes, cls) => {
      if (!this._notesCards) this._notesCards = {};
      let c = this._notesCards[slot];
      if (!c) {
        c = { title: el('h5', { className: 'scale-card-title' }), line: el('p', { className: `note ${cls}` }) };
        c.node = el('div', { className: `scale-card ${cls}-card` });
        this._notesCards[slot] = c;
      }
      c.title.textContent = title;
      c.line.replaceChildren(
        'Largest weight in each row: ',
        el('span', { className: 'mono', text: maxes.map((v) => fmt(v, 2)).join(', ') }),
        '; mean ',
        el('b', { className: `${cls}-mean`, text: fmt(mean(maxes), 2) }),
        '.',
      );
      this.place(c.node, c.title, this.hm(`notes-${slot}`, { ...m, title: '', domain: [0, 1] }), c.line);
      return c.node;
    };
    this.place(
      this.notesSide,
      card('off', w0, 'softmax(q·k): not scaled', max0, 'notes-unscaled'),
      card('on', w1, `softmax(q·k / √${dK}): scaled`, max1, 'notes-scaled'),
    );
    this.notesVerdict.replaceChildren(
      el('b', { text: 'Not scaled: ' }),
      `scores of size ±${fmt(spread, 2)} make the softmax extremely peaked: on average ${fmt(100 * mean(max0), 0)}% of a row's weight goes to one key, so the gradient through the others is almost 0. `,
      el('b', { text: `Divided by √${dK}: ` }),
      `the scores spread by ${fmt(spread / Math.sqrt(dK), 2)}, and the largest weight is ${fmt(100 * mean(max1), 0)}% on average: every key still gets some weight, and learning can move them.`,
    );
  }

  _experiment() {
    const ap = playgroundNow();
    if (!ap) return;
    this.experiment.hidden = this.hides('experiment');
    const attr = this.getAttribute('dk');
    if (attr !== this.appliedDk) {
      // the dk attribute moves the slider (then the slider is free): one of its d_k, the nearest
      this.appliedDk = attr;
      const dK = this.numberAttribute('dk', { min: DKS[0], max: DKS.at(-1), choices: DKS }, DKS[Number(this.dk.value)]);
      this.dk.value = String(DKS.indexOf(dK));
    }
    // One experiment per d_k, made once: the curves and the table read from it.
    if (!this._curve) this._curve = DKS.map((dK) => ap.scaleStats({ dK, n: N, draws: DRAWS, seed: SEED }));
    const c = this._curve[Number(this.dk.value)];
    this.dkLabel.textContent = `d_k = ${c.dK}, √d_k = ${fmt(c.sqrtDk, 2)}`;
    this.dataset.dk = String(c.dK);
    this.dataset.unscaledStd = String(c.unscaled.std);
    this.dataset.scaledStd = String(c.scaled.std);
    this.expTable.replaceChildren(
      numsTable({
        caption: `d_k = ${c.dK}: ${c.draws} draws of ${c.n} queries × ${c.n} keys (computed by the core)`,
        header: ['measure', 'q·k', 'q·k / √d_k'],
        rows: [
          [
            'spread (std)',
            { text: fmt(c.unscaled.std, 2), className: 'unscaled-std' },
            { text: fmt(c.scaled.std, 2), className: 'scaled-std' },
          ],
          [
            `entropy (nats; max ln ${c.n} = ${fmt(c.maxEntropy, 2)})`,
            fmt(c.unscaled.entropy, 2),
            fmt(c.scaled.entropy, 2),
          ],
          [`largest weight (min 1/${c.n})`, fmt(c.unscaled.maxWeight, 2), fmt(c.scaled.maxWeight, 2)],
        ],
      }),
    );
    const n512 = this._curve[DKS.indexOf(512)];
    this.notesCase.replaceChildren(
      el('b', { text: 'Averaged over many draws at d_k = 512: ' }),
      `√512 = ${fmt(n512.sqrtDk, 2)}; the core’s random dot products spread by ${fmt(n512.unscaled.std, 2)} and put ${fmt(100 * n512.unscaled.maxWeight, 0)}% of a row’s weight on one key (entropy ${fmt(n512.unscaled.entropy, 2)} of ${fmt(n512.maxEntropy, 2)}). Divided by √512 they spread by ${fmt(n512.scaled.std, 2)}, and the largest weight is ${fmt(100 * n512.scaled.maxWeight, 0)}%.`,
    );
    if (!this._plotsDrawn) {
      this._plotsDrawn = true;
      const tick = (x) => String(x);
      this.plots.replaceChildren(
        linePlot({
          title: 'Spread of q·k (std) as d_k grows',
          series: [
            { name: 'unscaled q·k', points: this._curve.map((s) => [s.dK, s.unscaled.std]) },
            { name: 'scaled q·k / √d_k', points: this._curve.map((s) => [s.dK, s.scaled.std]) },
            { name: '√d_k', points: this._curve.map((s) => [s.dK, s.sqrtDk]), color: 'var(--_reference)' },
          ],
          xLabel: 'd_k',
          yLabel: 'std of scores',
          logX: true,
          yMin: 0,
          xTickFormat: tick,
        }),
        linePlot({
          title: 'Largest softmax weight per row (mean)',
          series: [
            { name: 'unscaled q·k', points: this._curve.map((s) => [s.dK, s.unscaled.maxWeight]) },
            { name: 'scaled q·k / √d_k', points: this._curve.map((s) => [s.dK, s.scaled.maxWeight]) },
          ],
          xLabel: 'd_k',
          yLabel: 'max weight',
          logX: true,
          yMin: 0,
          yMax: 1,
          xTickFormat: tick,
        }),
      );
    }
  }
}

define(ApScale);
