// The training widget's class, ApTraining: <ap-training> (components/ap-training.js) and
// <ap-induction>, which extends it, define their tags with it (a widget imports no other widget).
//
// <ap-training> (training): train a tiny transformer live, in the page. The core's C++ trainer
// runs in a module Web Worker (lib/training-worker.js), so the page stays responsive; every
// `every` steps it reports the chunk's mean loss, the held-out accuracy and the attention weights
// of every layer and head on one fixed held-out example, which this view plots and redraws as
// the patterns form. Nothing trains until the student presses Train (or the element has the
// `autostart` attribute). Pause, one chunk of steps, and reset with a seed (the same seed gives
// the same run). The worker is terminated when the element leaves the page.
//
// Attributes: task (reverse | sort | dates | grammar), train-seed, autostart, every (steps per
// report), hide="task,seed" (controls to hide). Events: 'ap-training-progress' { step, loss, accuracy } after each report.
import { ApWidget } from './widget.js';
import './heatmap-element.js'; // defines <ap-heatmap>
import { el, emit, fmt } from './dom.js';
import { matrix } from './heatmap.js';
import { linePlot } from './plot.js';
import { adoptOwnStyles } from './styles.js';
import CSS from '../styles/training.css?inline';

// Sizes and schedules per task, and a fixed example from each task's held-out split (the
// trainer never trains on it: its key hashes into the held-out bucket of cpp/data/tasks.hpp;
// tests/web/views-learning.test.js checks that). The expected answers are written by hand.
const SMALL = { dModel: 32, nHeads: 2, nLayers: 2, dFf: 64, pos: 'learned' };
export const TRAINING_TASKS = {
  reverse: {
    label: 'reverse a string',
    config: SMALL,
    lr: 3e-3,
    warmupSteps: 50,
    totalSteps: 2000,
    batch: 16,
    evalN: 100,
    evalEvery: 1,
    example: { src: '81r9c7hd', tgt: 'dh7c9r18' },
    metric: 'exact match',
    about:
      'Input "<bos> 81r9c7hd =", output the characters in reverse order. Output position t must look at input position n − 1 − t: an anti-diagonal pattern.',
  },
  sort: {
    label: 'sort the characters',
    config: SMALL,
    lr: 3e-3,
    warmupSteps: 50,
    totalSteps: 3000,
    batch: 16,
    evalN: 100,
    evalEvery: 1,
    example: { src: '81r9c7hd', tgt: '1789cdhr' },
    metric: 'exact match',
    about:
      'Input "<bos> 81r9c7hd =", output its characters in sorted order (digits before letters). Each output must find the next-smallest input character: a content-based pattern, not a fixed position.',
  },
  dates: {
    label: 'normalise a date (encoder-decoder)',
    config: SMALL,
    lr: 3e-3,
    warmupSteps: 50,
    totalSteps: 2000,
    batch: 16,
    evalN: 50,
    evalEvery: 4,
    example: { src: '9 November 1985', tgt: '1985-11-09' },
    metric: 'exact match',
    answerTokens: 12,
    about:
      'The encoder reads a date as written, the decoder writes it as YYYY-MM-DD. The heatmaps are cross-attention: which source character each output character reads.',
  },
  grammar: {
    label: 'language model (agreement)',
    config: SMALL,
    lr: 3e-3,
    warmupSteps: 50,
    totalSteps: 3000,
    batch: 16,
    evalN: 200,
    evalEvery: 1,
    example: {
      src: '',
      tgt: 'the bird near the boxes sings .',
      prompt: 'the bird near the boxes',
      good: 'sings',
      bad: 'sing',
    },
    metric: 'agreement pairs won',
    answerTokens: 6,
    about:
      'Next-word prediction on a small English. Accuracy: on held-out subjects, how often the verb that agrees with the subject ("sings" after "the bird near the boxes") is more probable than the one that does not (chance is 50%).',
  },
};
const TASK_IDS = Object.keys(TRAINING_TASKS);

// Right / wrong marks (the shared sheet has no green): light and dark.

export class ApTraining extends ApWidget {
  static concept = 'training';
  static textInput = false;
  static extraAttributes = ['task', 'train-seed', 'autostart', 'every'];

  build() {
    adoptOwnStyles(this.shadowRoot, CSS);
    this.taskSel = el(
      'select',
      { attrs: { 'aria-label': 'Task' }, on: { change: () => this.reset() } },
      ...TASK_IDS.map((id) => el('option', { value: id, text: `${id}: ${TRAINING_TASKS[id].label}` })),
    );
    this.taskSel.value = this._taskAttr();
    this.seedIn = el('input', {
      type: 'number',
      min: 0,
      max: 1_000_000,
      step: 1,
      value: this._seedAttr(),
      attrs: { 'aria-label': 'Seed' },
    });
    this.runBtn = el('button', {
      type: 'button',
      className: 'train',
      text: '▶ Train',
      on: { click: () => this.toggle() },
    });
    this.stepBtn = el('button', {
      type: 'button',
      className: 'step',
      text: 'Step',
      on: { click: () => this.stepOnce() },
    });
    this.resetBtn = el('button', {
      type: 'button',
      className: 'reset',
      text: 'Reset with seed',
      on: { click: () => this.reset() },
    });
    this.about = el('p', { className: 'note about' });
    this.readout = el('p', { className: 'readout mono', attrs: { 'aria-live': 'polite' } });
    this.answer = el('p', { className: 'answer' });
    this.plots = el('div', { className: 'col2 plots' });
    this.heads = el('div', { className: 'col2 heads' });
    this.headsTitle = el('h4', { text: 'Attention of every layer and head on the held-out example' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Attention weights α are computed, not learned parameters: they come from the input every time. What is learned, by backpropagation, are the three linear projections that produce a query, key and value for every token, Q = XW_Q, K = XW_K, V = XW_V (and the rest of the model); each head learns a different relation. Train a tiny transformer here, in your browser, and watch the loss fall, the held-out accuracy rise, and the attention patterns form.',
      }),
      // The plots first (before training, the accuracy's axes: chapter H's first picture, issue
      // 23), the buttons under them, then the readout, the held-out answer and the task.
      this.plots,
      el(
        'div',
        { className: 'controls' },
        (this.taskField = el('label', { className: 'field' }, el('span', { text: 'Task' }), this.taskSel)),
        (this.seedField = el('label', { className: 'field' }, el('span', { text: 'Seed' }), this.seedIn)),
        this.runBtn,
        this.stepBtn,
        this.resetBtn,
      ),
      this.readout,
      this.answer,
      this.about,
      this.headsTitle,
      this.heads,
    );
    this._clear();
  }

  _taskAttr() {
    const t = this.getAttribute('task');
    return TASK_IDS.includes(t) ? t : 'reverse';
  }

  _seedAttr() {
    return this.numberAttribute('train-seed', { min: 0, max: 1_000_000, integer: true }, 1);
  }

  _every() {
    return this.numberAttribute('every', { min: 1, max: 1000, integer: true }, 25);
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue) return;
    if (!this._built) return super.attributeChangedCallback(name, oldValue, newValue);
    if (name === 'task') {
      this.taskSel.value = this._taskAttr();
      this.reset();
      return;
    }
    if (name === 'train-seed') {
      this.seedIn.value = String(this._seedAttr());
      return;
    }
    if (name === 'autostart' || name === 'every') return;
    // The page's shared state (text, model...) does not change what trains here.
    if (['theme', 'height', 'hide'].includes(name)) super.attributeChangedCallback(name, oldValue, newValue);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    // Removed (not just moved): stop the worker and free the trainer.
    queueMicrotask(() => {
      if (!this.isConnected) this._terminate();
    });
  }

  compute() {
    return null;
  }

  render() {
    this.stepBtn.textContent = `Step +${this._every()}`;
    this.taskField.hidden = this.hides('task');
    this.seedField.hidden = this.hides('seed');
    if (this.hasAttribute('autostart') && !this._autostarted) {
      this._autostarted = true;
      this.start();
    }
  }

  renderKey() {
    return 'training';
  }

  // ---- the worker -------------------------------------------------------------------------

  _spec() {
    const task = this.taskSel.value;
    const t = TRAINING_TASKS[task];
    let seed = Number(this.seedIn.value);
    if (!Number.isInteger(seed) || seed < 0 || seed > 1_000_000) {
      throw new Error(`the seed must be a whole number from 0 to 1000000, got "${this.seedIn.value}"`);
    }
    return {
      task,
      config: t.config,
      seed,
      lr: t.lr,
      warmupSteps: t.warmupSteps,
      totalSteps: t.totalSteps,
      batch: t.batch,
      every: this._every(),
      evalN: t.evalN,
      evalSeed: 777,
      evalEvery: t.evalEvery,
      example: t.example,
      answerTokens: t.answerTokens,
    };
  }

  _worker() {
    if (!this.worker) {
      this.worker = new Worker(new URL('./training-worker.js', import.meta.url), { type: 'module' });
      this.worker.onmessage = (e) => this._message(e.data);
      this.worker.onerror = (e) => {
        e.preventDefault();
        this._showError(new Error(`the training worker failed: ${e.message || 'the module could not be loaded'}`));
      };
      this.worker.onmessageerror = () =>
        this._showError(new Error('the training worker sent a message that could not be read'));
    }
    return this.worker;
  }

  _terminate() {
    if (this.worker) {
      this.worker.terminate();
      this.worker = null;
    }
    this._running = false;
    this._initialised = false;
  }

  /** A fresh trainer with the task and seed of the controls (also when paused: step 0 shown). */
  _init(run) {
    let spec;
    try {
      spec = this._spec();
    } catch (err) {
      this._showError(err);
      return false;
    }
    this.gen = (this.gen || 0) + 1;
    this._clear();
    this._running = run;
    this._initialised = true;
    this.spec = spec;
    this._worker().postMessage({ type: 'init', gen: this.gen, spec, run });
    this._setButtons();
    return true;
  }

  /** Train until paused (starts a trainer on first use). */
  start() {
    this._buildNow();
    if (this._running) return;
    if (!this._initialised) {
      this._init(true);
      return;
    }
    this._running = true;
    this.worker.postMessage({ type: 'run' });
    this._setButtons();
  }

  pause() {
    if (!this._running) return;
    this._running = false;
    this.worker?.postMessage({ type: 'pause' });
    this._setButtons();
  }

  toggle() {
    if (this._running) this.pause();
    else this.start();
  }

  /** One report's worth of steps, when paused. */
  stepOnce() {
    this._buildNow();
    if (this._running) return;
    if (!this._initialised) {
      if (!this._init(false)) return;
    }
    this.worker.postMessage({ type: 'step' });
  }

  /** Back to step 0 with the seed of the seed box (and the chosen task). Does not start. */
  reset() {
    if (!this._built) return;
    if (!this.worker) {
      this._clear();
      this._setButtons();
      return;
    }
    this._init(false);
  }

  _setButtons() {
    this.runBtn.textContent = this._running ? '❚❚ Pause' : this.history.length > 1 ? '▶ Continue' : '▶ Train';
    this.runBtn.setAttribute('aria-pressed', String(!!this._running));
    this.stepBtn.disabled = !!this._running;
    this.dataset.running = String(!!this._running);
  }

  _showError(err) {
    this._running = false;
    this._setButtons();
    this.fail(err);
  }

  _message(msg) {
    if (!msg || msg.gen !== this.gen) return; // from before a reset
    if (msg.type === 'error') {
      this._showError(new Error(msg.message));
      return;
    }
    if (msg.type === 'done') {
      this._running = false;
      this._done = true;
      // A report may still be waiting for its frame: it redraws the readout, then the mark.
      if (!this._frame) this._markDone();
      this._setButtons();
      return;
    }
    if (msg.type === 'paused') {
      this.dataset.pausedAt = String(msg.step);
      return;
    }
    if (msg.type !== 'ready' && msg.type !== 'progress') return;
    this.history.push({ step: msg.step, loss: msg.loss, accuracy: msg.accuracy, lr: msg.lr });
    this.last = msg;
    this.dataset.step = String(msg.step);
    if (msg.loss !== null) this.dataset.loss = String(msg.loss);
    this.dataset.accuracy = String(msg.accuracy);
    if (this.history.length === 2) this._setButtons(); // "Train" becomes "Continue"
    if (this.status.querySelector('.error')) this.clearError();
    // Draw at most once per frame, the newest report.
    if (!this._frame) {
      this._frame = requestAnimationFrame(() => {
        this._frame = 0;
        this._drawProgress();
        this._markDone();
      });
    }
    emit(this, 'ap-training-progress', { step: msg.step, loss: msg.loss, accuracy: msg.accuracy });
  }

  // ---- drawing ----------------------------------------------------------------------------

  /** "Finished" once at the end of the readout, after the run's last report is drawn. */
  _markDone() {
    if (!this._done || this.readout.querySelector('.finished')) return;
    this.readout.append(el('span', { className: 'note finished', text: `  Finished: ${this.spec.totalSteps} steps.` }));
  }

  _clear() {
    this._done = false;
    this.history = [];
    this.last = null;
    delete this.dataset.step;
    delete this.dataset.loss;
    delete this.dataset.accuracy;
    delete this.dataset.pausedAt;
    this.about.textContent = this._aboutText();
    this.readout.textContent = this._startText();
    this.answer.replaceChildren();
    this.plots.replaceChildren(...this._framePlots());
    this.heads.replaceChildren();
    this.headsTitle.hidden = true;
  }

  // Before the first report: the held-out accuracy's axes over the whole run, with no curve yet
  // (the plot Train fills in), so that chapter H opens on where its learning will show (issue 23).
  _framePlots() {
    const t = TRAINING_TASKS[this.taskSel.value];
    const ticks = (x) => (x % 500 === 0 ? String(x) : '');
    const frame = (title, yLabel, name, range) =>
      linePlot({
        title,
        xLabel: 'step',
        yLabel,
        series: [{ name, points: [0, t.totalSteps].map((x) => [x, null]) }],
        xTickFormat: ticks,
        width: 440,
        height: 220,
        ...range,
      });
    return [
      frame(`held-out ${t.metric}: drawn here as it trains`, 'accuracy', `${t.metric} (no steps yet)`, {
        yMin: 0,
        yMax: 1,
      }),
      el('p', { className: 'note', text: 'The training loss is drawn beside it from the first steps on.' }),
    ];
  }

  /** It trains on its task's own examples, whatever the page's text. */
  ownInputText() {
    return `This view does not read the text at the top: it trains a model on the ${this._ownTaskName()} task's own examples, in your browser.`;
  }

  _ownTaskName() {
    return this._built ? this.taskSel.value : this._taskAttr();
  }

  /** The task and the model, under the controls. */
  _aboutText() {
    const t = TRAINING_TASKS[this.taskSel.value];
    return `${t.about} Model: d_model ${t.config.dModel}, ${t.config.nHeads} heads, ${t.config.nLayers} layers, d_ff ${t.config.dFf}, learned positions; AdamW, lr ${t.lr}, batch ${t.batch}, ${t.totalSteps} steps.`;
  }

  /** The readout before the first report. */
  _startText() {
    return 'Press Train: the model starts from random weights (loss near ln(vocabulary size), accuracy near zero).';
  }

  _drawProgress() {
    const msg = this.last;
    if (!msg) return;
    const t = TRAINING_TASKS[this.spec.task];
    const losses = this.history.filter((h) => h.loss !== null);
    const first = losses[0];
    this.readout.textContent = `step ${msg.step} / ${this.spec.totalSteps} · loss ${msg.loss === null ? '–' : fmt(msg.loss, 3)}${first && first !== losses[losses.length - 1] ? ` (first ${fmt(first.loss, 3)})` : ''} · held-out ${t.metric} ${fmt(100 * msg.accuracy, 1)}% (${msg.correct}/${msg.total}) · learning rate ${fmt(msg.lr, 4)}`;
    const a = msg.answer;
    if (a) {
      const got = a.text.trim();
      if (t.example.good) {
        // The language model: does the verb that agrees beat the one that does not?
        const ok = a.pGood > a.pBad;
        this.answer.replaceChildren(
          el('span', {
            text: `Held-out subject: "${a.prompt} …" → p(${t.example.good}) = ${fmt(a.pGood, 4)}, p(${t.example.bad}) = ${fmt(a.pBad, 4)} `,
          }),
          el('span', { className: ok ? 'ok' : 'no', text: ok ? '✓ agrees' : '✗ does not agree yet' }),
          el('span', { className: 'note', text: ` · greedy continuation: "${got}"` }),
        );
        this.answer.dataset.correct = String(ok);
      } else {
        const ok = got === a.expected;
        this.answer.replaceChildren(
          el('span', { text: `Held-out example: ${a.prompt} → the model now writes ` }),
          el('b', { className: 'mono', text: got || '(nothing)' }),
          el('span', {
            className: ok ? 'ok' : 'no',
            text: ok ? ` ✓ (correct: ${a.expected})` : ` ✗ (correct: ${a.expected})`,
          }),
        );
        this.answer.dataset.correct = String(ok);
      }
    }
    // Loss and accuracy against steps.
    const ticks = (x) => (x % 500 === 0 ? String(x) : '');
    const lossPlot = losses.length
      ? linePlot({
          title: 'training loss (mean over each chunk of steps)',
          xLabel: 'step',
          yLabel: 'cross-entropy',
          series: [{ name: 'loss', points: losses.map((h) => [h.step, h.loss]) }],
          xTickFormat: ticks,
          width: 440,
          height: 220,
        })
      : el('p', { className: 'note', text: 'The loss appears after the first steps.' });
    const accPlot = linePlot({
      title: `held-out ${t.metric} (${msg.total} examples the trainer never sees)`,
      xLabel: 'step',
      yLabel: 'accuracy',
      series: [{ name: t.metric, points: this.history.map((h) => [h.step, h.accuracy]), color: 'var(--_ok)' }],
      xTickFormat: ticks,
      width: 440,
      height: 220,
      yMin: 0,
      yMax: 1,
    });
    this.plots.replaceChildren(lossPlot, accPlot);
    // Attention patterns.
    const at = msg.attention;
    this.headsTitle.hidden = false;
    this.headsTitle.textContent =
      at.stage === 'cross_weights'
        ? `Cross-attention of every layer and head on the held-out example (rows: output characters, columns: the source), step ${msg.step}`
        : `Attention of every layer and head on the held-out example (rows: queries, columns: keys; hatched: masked future), step ${msg.step}`;
    this._drawHeads(at, (h) => `layer ${h.layer}, head ${h.head}`, 22);
  }

  /** The attention map of every head of a report, titled title(head, i), cells up to maxCell px. */
  _drawHeads(at, title, maxCell) {
    const maps = at.heads.map((h, i) => {
      const m = matrix({
        name: `l${h.layer}h${h.head}`,
        title: title(h, i),
        values: h.values,
        rows: at.rowLabels.length,
        cols: at.colLabels.length,
        rowLabels: at.rowLabels,
        colLabels: at.colLabels,
        kind: 'prob',
        domain: [0, 1],
        masked: h.masked,
        corner: 'q \\ k',
      });
      return this.hm(`l${h.layer}h${h.head}`, m, { 'max-cell': String(maxCell), 'no-numbers': '' });
    });
    this.place(this.heads, maps);
  }
}
