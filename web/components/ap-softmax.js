// <ap-softmax> (softmax): each row of scaled scores becomes non-negative weights summing to 1.
// One row written out (score, exp(s - max), the sum, the core's weight), the whole weight matrix,
// and a temperature: softmax(s / T) computed by the core (a lookup with q = 1/T, k = the scores).
// Presets reproduce the notes: "the cat sat", "Thinking Machines" and "Clouds drift across blue sky".
// The row's table puts the weights first after the key, then how they came to be (score, scaled,
// exp): on a phone the column that matters is on screen without scrolling sideways.
import { ApWidget, define } from '../lib/widget.js';
import { clamp, el, fillSelect, fmt, num } from '../lib/dom.js';
import { claimBox, headFor, layerFor, numsTable, presetButtons, rowSelect } from '../lib/view.js';
import { stepView } from '../lib/steps/index.js';
import { playgroundNow } from '../lib/module.js';
import { adoptOwnStyles } from '../lib/styles.js';
import CSS from '../styles/softmax.css?inline';

/** softmax(row / T) by the core: ap.lookup with a 1-d query 1/T against keys = the scores. */
export function coreSoftmax(ap, row, T) {
  const keep = [];
  row.forEach((v, j) => {
    if (v !== -Infinity) keep.push(j);
  });
  const out = new Float32Array(row.length);
  if (!keep.length) return out;
  const t = ap.lookup({
    q: [1 / T],
    k: keep.map((j) => row[j]),
    v: keep.map(() => 0),
    n: 1,
    m: keep.length,
    d: 1,
    score: 'dot',
  });
  try {
    const w = t.get('weights');
    keep.forEach((j, i) => {
      out[j] = w[i];
    });
  } finally {
    t.dispose();
  }
  return out;
}

export class ApSoftmax extends ApWidget {
  static concept = 'softmax';
  /** row="2": the query row shown (default: the preset's row of interest, else 0). */
  static extraAttributes = ['row'];

  build() {
    adoptOwnStyles(this.shadowRoot, CSS);
    this.presets = presetButtons(this, 'softmax');
    this.claim = el('div');
    this.rowSel = rowSelect(this);
    this.temp = el('input', {
      type: 'range',
      min: -2,
      max: 2,
      step: 0.25,
      value: 0,
      attrs: { 'aria-label': 'temperature (log2)' },
      on: { input: () => this.update() },
    });
    this.tempLabel = el('span', { className: 'mono' });
    this.rowTable = el('div');
    this.matrix = el('div', { className: 'sm-map' });
    this.weightsTable = el('div', { className: 'sm-table' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: "Softmax turns a row of scores into weights: exponentiate (after subtracting the row's maximum, only for numerical stability), then divide by the row's sum. Every weight is non-negative (a key the mask hides gets exactly 0, any other a positive weight) and each row sums to 1. A temperature T divides the scores first: small T sharpens, large T flattens.",
      }),
      this.presets.node,
      this.claim,
      el(
        'div',
        { className: 'controls' },
        el(
          'label',
          { className: 'field inline', dataset: { control: 'row' } },
          el('span', { text: 'Query row' }),
          this.rowSel,
        ),
        el(
          'label',
          { className: 'field inline', dataset: { control: 'temperature' } },
          el('span', { text: 'Temperature' }),
          this.temp,
          this.tempLabel,
        ),
      ),
      this.rowTable,
      el('div', { className: 'sm-pair' }, this.weightsTable, this.matrix),
    );
  }

  render(run, state) {
    this.presets.refresh();
    this.claim.replaceChildren(...[claimBox(run.preset)].filter(Boolean));
    const layer = layerFor(run, state),
      head = headFor(run, state);
    const A = stepView(run, 'weights', { layer, head }).view.output;
    const S = stepView(run, 'scaled', { layer, head }).view;
    const M = stepView(run, 'masked', { layer, head }).view.output;
    const raw = S.inputs[0];
    const n = A.rows;
    const presetKey = run.preset?.id || '';
    const rowAttr = this.getAttribute('row');
    // The row attribute, when it changed (or the example or the text did), moves the row: one of
    // this text's rows (clamped to them, with a warning); one that is not a number leaves the row
    // as it was. A model's default is its last row: its first (<bos>) is trivially 1 on itself.
    // A new text opens on its default row: row 7 of one sentence is no row of interest in another.
    const rowsKey = A.rowLabels.join('\n');
    const sameText = presetKey === this._lastPreset && rowsKey === this._lastRows;
    if (rowAttr !== this._lastRowAttr || !sameText || this.row === undefined || this.row >= n) {
      const kept =
        sameText && this.row !== undefined && this.row < n
          ? this.row
          : clamp(run.preset ? Math.max(run.preset.row, 0) : n - 1, 0, n - 1);
      this.row = this.numberAttribute('row', { min: 0, max: n - 1, integer: true }, kept);
      this._lastPreset = presetKey;
      this._lastRows = rowsKey;
    }
    this._lastRowAttr = rowAttr;
    fillSelect(
      this.rowSel,
      A.rowLabels.map((l, i) => ({ value: i, label: `${i}: ${l}` })),
      this.row,
    );
    const T = 2 ** Number(this.temp.value);
    this.tempLabel.textContent = `T = ${fmt(T, 2)}`;
    const i = this.row;
    const srow = M.values.slice(i * M.cols, (i + 1) * M.cols);
    let max = -Infinity;
    for (const v of srow) if (v > max) max = v;
    const exps = Array.from(srow, (v) => (v === -Infinity ? 0 : Math.exp(v - max)));
    const sum = exps.reduce((x, y) => x + y, 0);
    const ap = playgroundNow();
    const tempered = T !== 1 && ap ? coreSoftmax(ap, Array.from(srow), T) : null;
    const header = ['key', 'weight (core)'];
    if (tempered) header.push(`weight at T = ${fmt(T, 2)} (core)`);
    header.push('score q·k', 'scaled s̃', 'exp(s̃ − max)');
    // At T ≠ 1 the tempered weights' own exponentials: each tempered weight is one of these over their sum.
    const expsT = tempered ? Array.from(srow, (v) => (v === -Infinity ? 0 : Math.exp((v - max) / T))) : null;
    if (tempered) header.push(`exp((s̃ − max) / ${fmt(T, 2)})`);
    const rows = A.colLabels.map((label, j) => {
      const w = A.values[i * A.cols + j];
      return [
        label,
        { text: fmt(w, 3), data: { col: String(j), value: num(w) }, className: 'weight' },
        ...(tempered
          ? [{ text: fmt(tempered[j], 3), data: { col: String(j), value: num(tempered[j]) }, className: 'tempered' }]
          : []),
        { text: fmt(raw.values[i * raw.cols + j]), className: 'score' },
        { text: fmt(srow[j]), className: 'scaled' },
        { text: fmt(exps[j], 4), className: 'exp' },
        ...(tempered ? [{ text: fmt(expsT[j], 4), className: 'exp-t' }] : []),
      ];
    });
    const total = (xs) =>
      fmt(
        Array.from(xs).reduce((x, y) => x + y, 0),
        3,
      );
    rows.push([
      'sum',
      total(A.values.slice(i * A.cols, (i + 1) * A.cols)),
      ...(tempered ? [total(tempered)] : []),
      '',
      '',
      fmt(sum, 4),
      ...(tempered
        ? [
            fmt(
              expsT.reduce((x, y) => x + y, 0),
              4,
            ),
          ]
        : []),
    ]);
    this.rowTable.replaceChildren(
      numsTable({
        caption: `Row "${A.rowLabels[i]}": each weight = exp(s̃ − max) / sum${tempered ? `; at T = ${fmt(T, 2)}, exp((s̃ − max) / T) / its sum` : ''}`,
        header,
        rows,
        className: 'nums row-table',
      }),
    );
    this.rowTable.querySelector('table').dataset.row = String(i);
    // The whole matrix, as in the notes' table (small inputs) and as a heatmap.
    if (n <= 12) {
      this.weightsTable.replaceChildren(
        numsTable({
          caption: 'All weights (rows: queries, columns: keys; each row sums to 1)',
          header: ['query \\ key', ...A.colLabels],
          rows: A.rowLabels.map((l, r) => [
            l,
            ...A.colLabels.map((_, c) => ({
              text: fmt(A.values[r * A.cols + c], 2),
              data: { row: String(r), col: String(c), value: num(A.values[r * A.cols + c]) },
              className: r === i ? 'hl' : '',
            })),
          ]),
          className: 'nums weights-table',
        }),
      );
    } else this.weightsTable.replaceChildren();
    A.title = `weights A, head ${head}`;
    const h = this.hm('weights', A);
    h.highlightRow = i;
    this.place(this.matrix, h);
  }
}

define(ApSoftmax);
