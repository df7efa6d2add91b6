// <ap-quadratic> (quadratic): every token attends to every token, so the score matrix is n x n:
// O(n^2 d) time, O(n^2) memory. The notes' numbers (100 / 1000 / 10000 tokens, GPT-2's 1024, the
// n >= 50,000 question) as the core sizes them, and the wasm kernels timed live in this browser
// as n grows, one call at a time (the page stays responsive), with the n^2 and n least-squares fits.
// Attributes: sizes="64,128,..." (the n to time), dk (default 64), autorun (start timing once the
// view is on screen; otherwise the "Measure" button starts it); hide="notes,question,measure" leaves
// those parts out.
import { ApWidget, define } from '../lib/widget.js';
import { readNumber } from '../lib/state.js';
import { el, errorText, fmt } from '../lib/dom.js';
import { numsTable } from '../lib/view.js';
import { tex } from '../lib/katex.js';
import { linePlot } from '../lib/plot.js';
import { getPlayground, playgroundNow } from '../lib/module.js';
import { normals } from '../lib/random.js';
import { fitFixedPower, fitPowerLaw, fmtBytes, fmtInt, timeCall, yieldToBrowser } from '../lib/timing.js';
import { adoptOwnStyles } from '../lib/styles.js';
import CSS from '../styles/quadratic.css?inline';

const DEFAULT_SIZES = [64, 128, 256, 512, 1024, 2048];
const MAX_N = 4096; // the full kernel holds at most 2^24 scores: n = 4096
const MAX_SIZES = 12; // points of the fit (each is timed)
// The notes' lengths: 004 (100 / 1000 / 10000 tokens, the 4096-token context), 002 (GPT-2's 1,024, and n >= 50,000).
const NOTES_ROWS = [
  { n: 100, note: '10,000 attention scores (notes 004)' },
  { n: 1000, note: '1,000,000 attention scores (004)' },
  { n: 1024, note: 'max sequence length = 1,024 in GPT-2 (002)' },
  {
    n: 4096,
    note: "why models like GPT have maximum context lengths (e.g. 4096 tokens) (004); also the largest n this page's full kernel builds",
  },
  { n: 10000, note: '100,000,000 attention scores! (004)' },
  { n: 50000, note: 'what if we want to scale n ≥ 50,000? (002)' },
];
const LONG_N = 50000;
const PLOT_N = [128, 256, 512, 1024, 2048, 4096]; // the sizes plotted: up to the full kernel's limit

const SUP = { 0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹' };
/** "10⁴" when v is a power of ten, else "". */
function powerOfTen(v) {
  const e = Math.round(Math.log10(v));
  return e > 0 && 10 ** e === v
    ? `10${String(e)
        .split('')
        .map((d) => SUP[d])
        .join('')}`
    : '';
}

export class ApQuadratic extends ApWidget {
  static ownInput =
    'This view does not read the text at the top: it sizes and times attention for the lengths n listed here.';
  static concept = 'quadratic';
  static extraAttributes = ['sizes', 'dk', 'autorun'];
  static textInput = false; // nothing here depends on the text

  build() {
    adoptOwnStyles(this.shadowRoot, CSS);
    this.formula = tex(
      'S = QK^{\\top} \\in \\mathbb{R}^{n\\times n}:\\quad \\text{time } O(n^2 d_k),\\quad \\text{memory } O(n^2)',
      { display: true },
    );
    this.notesTable = el('div');
    // The view's picture, before anything is timed: the memory of the n × n scores against the
    // online kernel's tiles as n grows, sized by the core (on chapter G's first screen, issue 23).
    this.sizePlot = el('div', { className: 'q-size-plot' });
    this.question = el('div', { className: 'panel' });
    this.measureBtn = el('button', {
      type: 'button',
      className: 'measure',
      text: 'Measure in this browser',
      on: { click: () => this._toggle() },
    });
    this.rangeNote = el('span', { className: 'note' });
    this.progress = el('p', { className: 'note q-progress', attrs: { 'aria-live': 'polite' } });
    this.fit = el('div', { className: 'q-fit' });
    this.plots = el('div', { className: 'col2 q-plots' });
    this.results = el('div');
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Every token attends to every token → the score matrix QKᵀ is n × n. Cost is O(n²d) — quadratic in sequence length n. For sequence length n, self-attention requires O(n²) computation and memory (notes 000, 004).',
      }),
      this.formula,
      this.sizePlot,
      // hide="notes", "question" or "measure" leaves that part out.
      el(
        'div',
        { dataset: { control: 'notes' } },
        el('h4', { text: 'The notes’ numbers, as the core sizes them' }),
        this.notesTable,
      ),
      el('div', { dataset: { control: 'question' } }, this.question),
      el(
        'div',
        { dataset: { control: 'measure' } },
        el('h4', { text: 'Measured here: the wasm kernel as n grows' }),
        el('p', {
          className: 'note',
          text: 'Random queries, keys and values (d_k = 64 unless set), one head. The full kernel builds the n × n matrix; the online kernel (next view) never does. Each size is timed call by call, with the page free to respond between calls.',
        }),
        el('div', { className: 'controls' }, this.measureBtn, this.rangeNote),
        this.progress,
        this.fit,
        this.plots,
        this.results,
      ),
    );
  }

  compute() {
    return playgroundNow() || getPlayground();
  }

  /**
   * The n to time: the sizes attribute (at most MAX_SIZES of them, each a whole number from 1 to
   * MAX_N: clamped, and what is not a number left out), else 64..2048; a warning when it was not
   * taken as it was (widget.js).
   */
  _sizes() {
    const raw = this.getAttribute('sizes');
    if (!raw) return DEFAULT_SIZES;
    const items = raw.split(/[\s,]+/).filter(Boolean);
    const read = items.map((x) => readNumber(x, { min: 1, max: MAX_N, integer: true }, null));
    const kept = [...new Set(read.map((r) => r.value).filter((n) => n !== null))].sort((a, b) => a - b);
    const sizes = kept.length >= 2 ? kept.slice(0, MAX_SIZES) : DEFAULT_SIZES;
    const exact = read.every((r) => !r.why) && kept.length >= 2 && kept.length <= MAX_SIZES;
    if (!exact)
      this.warnAttribute(
        'sizes',
        raw,
        `is not 2 to ${MAX_SIZES} whole numbers from 1 to ${MAX_N} (sizes of n)`,
        sizes.join(', '),
      );
    return sizes;
  }

  _dk() {
    return this.numberAttribute('dk', { min: 1, max: 512, integer: true }, 64);
  }

  render(ap) {
    const dK = this._dk(),
      sizes = this._sizes();
    if (this.hasAttribute('autorun') && !this._started) this._toggle();
    // Nothing here depends on the page's text or model: draw once per d_k and range.
    const key = `${dK}/${sizes.join(',')}`;
    if (this._shown === key) return;
    this._shown = key;
    this.rangeNote.textContent = `n = ${sizes.join(', ')}; d_k = ${dK}`;
    // Every size and byte count below is the core's (kernels.memory); JS only formats them.
    const online = ap.kernels.memory({ n: 1000, dK });
    const mb = (bytes) => bytes / 1e6;
    this.sizePlot.replaceChildren(
      linePlot({
        title: `Memory of one head's scores as n grows (MB, float32, d_k = ${dK}), sized by the core`,
        xLabel: 'n (tokens)',
        yLabel: 'MB',
        logX: true,
        width: 520,
        height: 220,
        series: [
          {
            name: 'full kernel: the n × n scores, O(n²)',
            points: PLOT_N.map((n) => [n, mb(ap.kernels.memory({ n, dK, full: true }).scratchBytes)]),
          },
          {
            name: 'online kernel (next view): its tiles, the same at any n',
            points: PLOT_N.map((n) => [n, mb(ap.kernels.memory({ n, dK }).scratchBytes)]),
          },
        ],
      }),
    );
    this.notesTable.replaceChildren(
      numsTable({
        className: 'nums q-notes',
        caption: `Scores held at once by one head of one layer, 4 bytes per float32 score (every head of every layer has its own n × n matrix); the online kernel holds ${fmtBytes(online.scratchBytes)} of tiles at any n`,
        header: ['n (tokens)', 'scores n × n', 'memory per head and layer (float32)', 'from the notes'],
        rows: NOTES_ROWS.map(({ n, note }) => {
          const m = ap.kernels.memory({ n, dK, full: true });
          const p = powerOfTen(m.scoresHeld);
          return [
            fmtInt(n),
            {
              text: `${fmtInt(m.scoresHeld)}${p ? ` = ${p}` : ''}`,
              data: { scores: String(m.scoresHeld), n: String(n) },
            },
            { text: fmtBytes(m.scratchBytes), data: { bytes: String(m.scratchBytes) } },
            note,
          ];
        }),
      }),
    );
    this._question(ap, dK);
  }

  /** The n >= 50,000 question: the matrix's size against what this browser has. */
  _question(ap, dK) {
    const full = ap.kernels.memory({ n: LONG_N, dK, full: true });
    const online = ap.kernels.memory({ n: LONG_N, dK });
    // Ask the core for it (d_k = 1 keeps the inputs small): its own limit answers.
    let refusal = '';
    try {
      const z = new Float32Array(LONG_N);
      ap.kernels.attention({ q: z, k: z, v: z, n: LONG_N, dK: 1, full: true });
    } catch (err) {
      refusal = errorText(err);
    }
    const device = navigator.deviceMemory; // Chromium: RAM in GB, rounded (at most 8)
    const items = [
      el(
        'li',
        {},
        `A 32-bit WebAssembly module can address at most 4 GiB (4.29 GB): the matrix alone is ${fmt(full.scratchBytes / 2 ** 32, 2)}× that.`,
      ),
      el('li', {}, `This page’s WebAssembly memory right now: ${fmtBytes(ap.memoryBytes())}.`),
      device ? el('li', {}, `This device reports about ${device} GB of RAM (navigator.deviceMemory, rounded).`) : null,
      refusal
        ? el('li', {}, 'Asked to build it, the core refuses: ', el('code', { className: 'refusal', text: refusal }))
        : null,
    ];
    this.longTime = this.longTime || el('p', { className: 'note', attrs: { 'aria-live': 'polite' } });
    this.longBtn =
      this.longBtn ||
      el('button', {
        type: 'button',
        className: 'small',
        text: `Time the online kernel on ${fmtInt(LONG_N)} keys`,
        on: { click: () => this._timeLong() },
      });
    this.question.replaceChildren(
      el(
        'p',
        { className: 'q-big' },
        el('b', { text: 'What if we want to scale n ≥ 50,000? ' }),
        'For example, to work on long documents? (notes 002)',
      ),
      el(
        'p',
        {},
        `At n = ${fmtInt(LONG_N)} the n × n matrix holds ${fmtInt(full.scoresHeld)} scores: `,
        el('b', { className: 'long-bytes', text: fmtBytes(full.scratchBytes) }),
        ' at float32, for one head of one layer.',
      ),
      el('ul', { className: 'q-compare' }, ...items.filter(Boolean)),
      el(
        'p',
        {},
        `The online-softmax kernel (next view) gives the same output holding ${fmtBytes(online.scratchBytes)} of tiles, plus ${fmtBytes(online.ioBytes)} for q, k, v and the output: memory O(n). Its time is still O(n² d).`,
      ),
      el('div', { className: 'controls' }, this.longBtn),
      this.longTime,
    );
    this.dataset.longBytes = String(full.scratchBytes);
  }

  /** One block of 32 queries against 50,000 keys with the online kernel, scaled to 50,000 queries. */
  async _timeLong() {
    const ap = await getPlayground();
    const dK = this._dk(),
      n = 32;
    this.longBtn.disabled = true;
    this.longTime.textContent = 'Timing…';
    try {
      await yieldToBrowser();
      const q = normals(n * dK, 5),
        k = normals(LONG_N * dK, 6),
        v = normals(LONG_N * dK, 7);
      const ms = await timeCall(() => ap.kernels.attention({ q, k, v, n, m: LONG_N, dK }), {
        budgetMs: 200,
        minReps: 2,
        maxReps: 5,
      });
      this.longTime.textContent = `Online kernel, ${n} queries × ${fmtInt(LONG_N)} keys (d_k = ${dK}): ${fmt(ms, 1)} ms here. All ${fmtInt(LONG_N)} queries would take about ${fmt((ms * LONG_N) / n / 1000, 1)} s per head and layer: the memory problem is solved, the n² time is not.`;
    } catch (err) {
      this.longTime.textContent = `Could not time it: ${errorText(err)}`;
    } finally {
      this.longBtn.disabled = false;
    }
  }

  _toggle() {
    if (this._running) {
      this._stop = true;
      return;
    }
    this._started = true;
    this._run().catch((err) => this.fail(err));
  }

  async _run() {
    const ap = await getPlayground();
    const sizes = this._sizes(),
      dK = this._dk();
    this._running = true;
    this._stop = false;
    this.measureBtn.textContent = 'Stop';
    this.dataset.measured = 'running';
    const rows = [];
    const cancelled = () => this._stop || !this.isConnected;
    try {
      for (const n of sizes) {
        this.progress.textContent = `Timing n = ${n}… (${rows.length} of ${sizes.length} done)`;
        await yieldToBrowser();
        const opts = { q: normals(n * dK, 3 * n), k: normals(n * dK, 3 * n + 1), v: normals(n * dK, 3 * n + 2), n, dK };
        const fullMs = await timeCall(() => ap.kernels.attention({ ...opts, full: true }), { cancelled });
        const onlineMs = await timeCall(() => ap.kernels.attention(opts), { cancelled });
        await yieldToBrowser();
        // Memory: what the core's allocator held at the call's peak, and the tiles it reports.
        const fullHeap = ap.kernels.measure({ ...opts, full: true }).heapBytes;
        const onlineHeap = ap.kernels.measure(opts).heapBytes;
        const mem = ap.kernels.memory({ n, dK });
        rows.push({ n, fullMs, onlineMs, fullHeap, onlineHeap, tiles: mem.scratchBytes, io: mem.ioBytes });
        this._drawResults(rows, dK);
      }
      this.progress.textContent = `Done: ${sizes.length} sizes timed with the ${ap.kernels.info().variant} kernels. Times vary from run to run; the shape does not.`;
      this.dataset.measured = 'done';
    } catch (err) {
      if (!err.cancelled) throw err;
      this.progress.textContent = `Stopped after ${rows.length} of ${sizes.length} sizes.`;
      this.dataset.measured = 'stopped';
    } finally {
      this._running = false;
      this.measureBtn.textContent = 'Measure again';
    }
  }

  _drawResults(rows, dK) {
    const time = rows.map((r) => [r.n, r.fullMs]);
    const c2 = fitFixedPower(time, 2),
      c1 = fitFixedPower(time, 1);
    // The exponent from the larger sizes: at small n a call's fixed cost (copying the inputs in and
    // the output out, O(n d)) hides the n² term.
    const top = rows[rows.length - 1].n;
    const large = time.filter(([n]) => n >= top / 8);
    const fitT = fitPowerLaw(large.length >= 2 ? large : time);
    const fitO = fitPowerLaw(rows.map((r) => [r.n, r.onlineMs]).filter(([n]) => n >= top / 8));
    const fitM = fitPowerLaw(rows.map((r) => [r.n, r.fullHeap]));
    const mb = (b) => b / 1e6;
    const c2m = fitFixedPower(
      rows.map((r) => [r.n, mb(r.fullHeap)]),
      2,
    );
    if (rows.length >= 2) {
      this.fit.replaceChildren(
        el('b', { text: 'Fitted exponents:' }),
        el(
          'span',
          {},
          'full kernel time ',
          tex(`t \\propto n^{${fitT.p.toFixed(2)}}`),
          el('span', {
            className: 'note',
            text: ` (least squares on log t vs log n, n ≥ ${Math.min(...(large.length >= 2 ? large : time).map(([n]) => n))})`,
          }),
        ),
        fitO ? el('span', {}, 'online kernel ', tex(`t \\propto n^{${fitO.p.toFixed(2)}}`)) : null,
        fitM ? el('span', {}, 'full kernel memory ', tex(`\\propto n^{${fitM.p.toFixed(2)}}`)) : null,
      );
      this.dataset.exponent = String(fitT.p);
      if (fitM) this.dataset.memoryExponent = String(fitM.p);
    }
    this.plots.replaceChildren(
      linePlot({
        title: `Time per call (ms), d_k = ${dK}`,
        series: [
          { name: 'full kernel (n × n matrix), measured', points: time },
          { name: 'online kernel, measured', points: rows.map((r) => [r.n, r.onlineMs]) },
          { name: 'c·n² least-squares fit', points: rows.map((r) => [r.n, c2 * r.n ** 2]) },
          { name: 'c·n least-squares fit', points: rows.map((r) => [r.n, c1 * r.n]) },
        ],
        xLabel: 'n (tokens, log scale)',
        yLabel: 'ms',
        logX: true,
        yMin: 0,
      }),
      linePlot({
        title: 'Memory the call holds (MB)',
        series: [
          { name: 'full kernel: n × n matrix (measured heap)', points: rows.map((r) => [r.n, mb(r.fullHeap)]) },
          { name: 'online kernel: heap + tiles', points: rows.map((r) => [r.n, mb(r.onlineHeap + r.tiles)]) },
          { name: 'c·n² least-squares fit', points: rows.map((r) => [r.n, c2m * r.n ** 2]) },
          { name: 'q, k, v and output (both kernels), ∝ n', points: rows.map((r) => [r.n, mb(r.io)]) },
        ],
        xLabel: 'n (tokens, log scale)',
        yLabel: 'MB',
        logX: true,
        yMin: 0,
      }),
    );
    this.results.replaceChildren(
      numsTable({
        caption:
          'Measured in this browser (median of several calls; heap = the core allocator’s bytes in use at the call’s peak, minus before)',
        header: [
          'n',
          'full kernel (ms)',
          'online kernel (ms)',
          'full: heap held',
          'online: heap held',
          'online: stack tiles',
        ],
        rows: rows.map((r) => [
          String(r.n),
          fmt(r.fullMs, 3),
          fmt(r.onlineMs, 3),
          fmtBytes(r.fullHeap),
          fmtBytes(r.onlineHeap),
          fmtBytes(r.tiles),
        ]),
      }),
    );
  }
}

define(ApQuadratic);
