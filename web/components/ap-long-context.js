// <ap-long-context> (long-context): attention without the n x n matrix. The core's online-softmax
// kernel goes through the keys a tile at a time, keeping per query a running max, a running sum and
// a running output; it gives the full kernel's output (max |difference| shown for the student's n)
// while holding a few KB of tiles instead of n*n scores. A worked example of one query over a few
// keys, tile by tile, also computed by the core.
// Attributes: n (tokens, default 1000), scores ("1, 3, 0, 2, 4": the worked example), tile (2);
// hide="compare" or "example" leaves that part out.
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt } from '../lib/dom.js';
import { numsTable } from '../lib/view.js';
import { renderTex, tex } from '../lib/katex.js';
import { getPlayground, playgroundNow } from '../lib/module.js';
import { normals } from '../lib/random.js';
import { fmtBytes, fmtInt } from '../lib/timing.js';
import { adoptOwnStyles } from '../lib/styles.js';
import CSS from '../styles/long-context.css?inline';

const MAX_N = 4096;
const TILES = [1, 2, 3, 4, 5, 8]; // keys per tile the select offers
const D_K = 64;
const LONG_N = 50000;
// The worked example: one query q = (1, 0), keys k_j = (s_j, 0), so q·k_j = s_j (no scaling);
// value rows in 2-d, one per key.
const VALUES = [
  [1, 0],
  [0, 1],
  [1, 1],
  [2, 0],
  [0, 2],
  [1, 2],
  [2, 1],
  [2, 2],
];
const MAX_KEYS = VALUES.length;

const vec = (a, digits = 3) => `(${Array.from(a, (x) => fmt(x, digits)).join(', ')})`;

export class ApLongContext extends ApWidget {
  static ownInput =
    "This view does not read the text at the top: it runs the core's attention kernels on random inputs of the length n you set here.";
  static concept = 'long-context';
  static extraAttributes = ['n', 'scores', 'tile'];
  static textInput = false; // nothing here depends on the text

  build() {
    adoptOwnStyles(this.shadowRoot, CSS);
    this.nInput = el('input', {
      type: 'number',
      min: 1,
      max: MAX_N,
      step: 1,
      value: 1000,
      attrs: { 'aria-label': 'n (tokens)' },
      on: { change: () => this.update() },
    });
    this.causal = el('input', {
      type: 'checkbox',
      attrs: { 'aria-label': 'causal mask' },
      on: { change: () => this.update() },
    });
    // Sliding-window attention: the page's window setting (state.js), causal only (the core's rule).
    this.windowInput = el('input', {
      type: 'number',
      min: 0,
      max: MAX_N,
      step: 1,
      value: 0,
      attrs: { 'aria-label': 'window w (0: none)' },
      on: { change: () => this.requestState({ window: Math.max(0, Math.round(Number(this.windowInput.value)) || 0) }) },
    });
    this.windowLine = el('p', { className: 'note window-line' });
    this.diff = el('p', { className: 'lc-diff', attrs: { 'aria-live': 'polite' } });
    this.memTable = el('div');
    this.scoresInput = el('input', {
      type: 'text',
      value: this.getAttribute('scores') || '1, 3, 0, 2, 4',
      attrs: { 'aria-label': 'scores of the keys' },
      on: { change: () => this.update() },
    });
    this.tileSelect = el(
      'select',
      { attrs: { 'aria-label': 'keys per tile' }, on: { change: () => this.update() } },
      ...TILES.map((t) => el('option', { value: t, text: String(t) })),
    );
    this.tileSelect.value = '2';
    this.exampleSetup = el('p', { className: 'note' });
    this.exampleTable = el('div');
    this.exampleFinal = el('p', { className: 'lc-final' });
    this.exampleError = el('p', { className: 'error', hidden: true });
    this.finalTex = el('span');
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'The n × n score matrix is never needed all at once. Go through the keys a tile at a time and keep, for each query, the largest score so far (a running max m), the sum of exponentials so far (a running sum ℓ) and the weighted sum of values so far (o). When a tile brings a bigger score, everything summed so far is rescaled by e^(m_old − m_new). At the end o / ℓ is exactly softmax(QKᵀ/√d_k) V, and only one tile of scores ever existed: memory O(n) instead of O(n²). The time is still O(n² d).',
      }),
      tex(
        "m' = \\max\\big(m,\\ \\max_{j \\in \\text{tile}} s_j\\big),\\quad \\ell' = \\ell\\, e^{m - m'} + \\sum_{j \\in \\text{tile}} e^{s_j - m'},\\quad o' = o\\, e^{m - m'} + \\sum_{j \\in \\text{tile}} e^{s_j - m'}\\, v_j,\\qquad z = o / \\ell",
        { display: true },
      ),
      // hide="compare" or "example" leaves that part out.
      el(
        'div',
        { dataset: { control: 'compare' } },
        el('h4', { text: 'Your n: the same output, with and without the n × n matrix' }),
        el(
          'div',
          { className: 'controls' },
          el('label', { className: 'field inline' }, el('span', { text: 'n (tokens)' }), this.nInput),
          el('label', { className: 'field inline' }, this.causal, el('span', { text: 'causal mask' })),
          el(
            'label',
            { className: 'field inline', dataset: { control: 'window' } },
            el('span', { text: 'window w' }),
            this.windowInput,
          ),
          el('span', { className: 'note', text: `d_k = ${D_K}, random queries, keys and values` }),
        ),
        this.windowLine,
        this.diff,
        this.memTable,
      ),
      el(
        'div',
        { dataset: { control: 'example' } },
        el('h4', { text: 'Online softmax by hand: one query, a few keys, a tile at a time' }),
        el(
          'div',
          { className: 'controls lc-example' },
          el('label', { className: 'field inline' }, el('span', { text: 'scores s_j' }), this.scoresInput),
          el('label', { className: 'field inline' }, el('span', { text: 'keys per tile' }), this.tileSelect),
        ),
        this.exampleError,
        this.exampleSetup,
        this.exampleTable,
        this.exampleFinal,
      ),
    );
  }

  compute() {
    return playgroundNow() || getPlayground();
  }

  render(ap) {
    this._syncAttributes();
    this._compare(ap);
    this._example(ap);
  }

  /**
   * n, scores and tile attributes set after the view was built move its controls: n within its
   * input's range, tile one of the select's, each with a warning when it was not (widget.js).
   */
  _syncAttributes() {
    this._seen = this._seen || {};
    const read = {
      n: () => this.numberAttribute('n', { min: 1, max: MAX_N, integer: true }, Number(this.nInput.value)),
      scores: () => this.getAttribute('scores'),
      tile: () => this.numberAttribute('tile', { min: 1, max: Math.max(...TILES), choices: TILES }, 2),
    };
    for (const [name, input] of [
      ['n', this.nInput],
      ['scores', this.scoresInput],
      ['tile', this.tileSelect],
    ]) {
      const v = this.getAttribute(name);
      if (v !== null && v !== this._seen[name]) input.value = String(read[name]());
      this._seen[name] = v;
    }
  }

  _n() {
    const n = Number(this.nInput.value);
    if (!Number.isInteger(n) || n < 1 || n > MAX_N)
      throw new Error(`n must be an integer from 1 to ${MAX_N}, got ${this.nInput.value}`);
    return n;
  }

  /** Full and online kernels on the same random inputs: difference, memory, time. */
  _compare(ap) {
    const n = this._n();
    const window = this.state?.window || 0;
    this.windowInput.value = String(window);
    // A window is a causal mask with a band (the core applies it only where the causal mask does).
    if (window > 0) this.causal.checked = true;
    const causal = this.causal.checked;
    const key = `${n}/${causal}/${window}`;
    if (this._compared === key) return;
    this._window(ap, n, window);
    const opts = {
      q: normals(n * D_K, 101),
      k: normals(n * D_K, 202),
      v: normals(n * D_K, 303),
      n,
      dK: D_K,
      causal,
      window,
    };
    const full = ap.kernels.measure({ ...opts, full: true });
    const online = ap.kernels.measure(opts);
    let worst = 0;
    for (let i = 0; i < full.out.length; i++) worst = Math.max(worst, Math.abs(full.out[i] - online.out[i]));
    this._compared = key;
    this.dataset.n = String(n);
    this.dataset.maxDiff = String(worst);
    this.diff.replaceChildren(
      `n = ${fmtInt(n)}${causal ? ', causal' : ''}${window ? `, window ${fmtInt(window)}` : ''}: max |full − online| over all ${fmtInt(n * D_K)} outputs = `,
      el('b', { className: 'max-diff', text: worst === 0 ? '0' : worst.toExponential(1).replace('-', '−') }),
      worst <= 1e-5 ? ' (float32 rounding: the same numbers, summed in a different order)' : '',
    );
    const mFull = ap.kernels.memory({ n, dK: D_K, full: true }),
      mOnline = ap.kernels.memory({ n, dK: D_K });
    const lFull = ap.kernels.memory({ n: LONG_N, dK: D_K, full: true }),
      lOnline = ap.kernels.memory({ n: LONG_N, dK: D_K });
    this.memTable.replaceChildren(
      numsTable({
        caption: 'Memory of each path (sizes from the core; heap measured by the core’s allocator during the call)',
        header: ['memory', 'full kernel (n × n scores)', 'online kernel (tiles)'],
        rows: [
          ['scores held at once', fmtInt(mFull.scoresHeld), `${fmtInt(mOnline.scoresHeld)} (one 32 × 64 tile)`],
          [
            'working memory',
            { text: fmtBytes(mFull.scratchBytes), data: { bytes: String(mFull.scratchBytes) } },
            { text: fmtBytes(mOnline.scratchBytes), data: { bytes: String(mOnline.scratchBytes) } },
          ],
          [
            'heap held during the call (measured)',
            { text: fmtBytes(full.heapBytes), data: { bytes: String(full.heapBytes) } },
            { text: fmtBytes(online.heapBytes), data: { bytes: String(online.heapBytes) } },
          ],
          ['q, k, v and the output (both)', fmtBytes(mFull.ioBytes), fmtBytes(mOnline.ioBytes)],
          [`working memory at n = ${fmtInt(LONG_N)}`, fmtBytes(lFull.scratchBytes), fmtBytes(lOnline.scratchBytes)],
        ],
      }),
    );
  }

  /**
   * The sliding window's line: score pairs with and without it, from the core's flops (pairs =
   * sum over queries of min(i + 1, w)) and the online kernel's pairs computed (whole tiles).
   */
  _window(ap, n, window) {
    // A window of n is the causal mask alone: n(n + 1) / 2 (the core's count has no causal switch).
    const causalPairs = ap.flops({ n, d: D_K, window: n }).attention.pairs;
    if (!window) {
      this.windowLine.textContent = `Sliding-window attention (Mistral, Gemma 2) lets each query see only the last w keys, itself included: set a window w above and the score pairs fall from n(n+1)/2 = ${fmtInt(causalPairs)} (causal) to at most n·w, linear in n for a fixed w.`;
      delete this.dataset.windowPairs;
      return;
    }
    const pairs = ap.flops({ n, d: D_K, window }).attention.pairs;
    const tiles = ap.kernels.memory({ n, dK: D_K, causal: true, window }).pairsComputed;
    const tilesCausal = ap.kernels.memory({ n, dK: D_K, causal: true }).pairsComputed;
    this.dataset.windowPairs = String(pairs);
    this.dataset.causalPairs = String(causalPairs);
    this.windowLine.textContent = `Window w = ${fmtInt(window)}: each query sees at most ${fmtInt(window)} keys, ${fmtInt(pairs)} score pairs in all (causal: ${fmtInt(causalPairs)}, ${fmt(causalPairs / pairs, 2)} times more). The pairs grow as n·w, linear in n, instead of n². The online kernel skips the tiles outside the window: it scores ${fmtInt(tiles)} pairs in whole tiles, against ${fmtInt(tilesCausal)} with the causal mask alone.`;
  }

  /** The worked example: the core's online softmax of one query, tile by tile. */
  _example(ap) {
    const scores = this.scoresInput.value
      .split(/[\s,;]+/)
      .filter(Boolean)
      .map(Number);
    this.exampleError.textContent = '';
    this.exampleError.hidden = true;
    if (scores.length < 1 || scores.length > MAX_KEYS || scores.some((s) => !Number.isFinite(s) || Math.abs(s) > 50)) {
      this.exampleError.textContent = `Scores: give 1 to ${MAX_KEYS} numbers between −50 and 50, separated by commas.`;
      this.exampleError.hidden = false;
      return;
    }
    const m = scores.length,
      tile = Number(this.tileSelect.value);
    const k = scores.flatMap((s) => [s, 0]),
      v = VALUES.slice(0, m).flat();
    const r = ap.kernels.onlineSoftmaxSteps({ q: [1, 0], k, v, m, dK: 2, tile, scale: false });
    const full = ap.kernels.attention({ q: [1, 0], k, v, n: 1, m, dK: 2, scale: false, full: true });
    this.exampleSetup.textContent = `One query q = (1, 0) and keys k_j = (s_j, 0), so q·k_j = s_j (no scaling here): scores ${vec(r.scores, 2)}. Values v_j: ${VALUES.slice(
      0,
      m,
    )
      .map((x) => `(${x.join(', ')})`)
      .join(', ')}. Tiles of ${tile} key${tile > 1 ? 's' : ''}.`;
    const rows = r.tiles.map((t, b) => {
      const prev = b ? r.tiles[b - 1].max : -Infinity;
      return [
        t.end - t.start > 1 ? `${b + 1}: keys ${t.start + 1}–${t.end}` : `${b + 1}: key ${t.end}`,
        vec(r.scores.subarray(t.start, t.end), 2),
        fmt(t.tileMax, 2),
        { text: fmt(t.max, 2), className: t.max > prev && b > 0 ? 'up' : '' },
        b === 0 ? '— (first tile)' : fmt(t.correction, 4),
        fmt(t.sum, 4),
        vec(t.o, 4),
      ];
    });
    this.exampleTable.replaceChildren(
      numsTable({
        caption:
          'After each tile, as the core computed it (a rise of the running max in colour: what was summed before is rescaled)',
        header: ['tile', 'scores', 'tile max', 'max m', 'e^(m_old − m)', 'sum ℓ', 'o (not yet ÷ ℓ)'],
        rows,
      }),
    );
    let worst = 0;
    for (let c = 0; c < 2; c++) worst = Math.max(worst, Math.abs(r.out[c] - full[c]));
    const last = r.tiles[r.tiles.length - 1];
    renderTex(
      this.finalTex,
      `z = o / \\ell = ${vec(last.o, 4).replace(/−/g, '-')} / ${fmt(last.sum, 4).replace('−', '-')}`,
    );
    this.exampleFinal.replaceChildren(
      this.finalTex,
      ' = ',
      el('b', { className: 'online-out', text: vec(r.out, 4) }),
      el('br'),
      'The full kernel, softmax over all the scores at once: ',
      el('b', { className: 'full-out', text: vec(full, 4) }),
      ` (difference ${worst === 0 ? '0' : worst.toExponential(1)}).`,
    );
    this.dataset.exampleOut = Array.from(r.out).join(',');
  }
}

define(ApLongContext);
