// <ap-pretrain-finetune> (pretrain-finetune): "pre-train once on much text, fine-tune cheaply on a
// task" (004). Two trainings of the same architecture on the same task (reverse a string), with
// the same budget (steps, batch, learning rate, data seed), live, side by side, each in its own Web
// Worker running the core's C++ trainer: one starts from the shipped model pre-trained on another
// task of the same vocabulary (sort: web/models/sort.safetensors), the other from random weights.
// Every number (loss, held-out exact match, the answer to "hello42") comes from the core.
// Limits: the "pre-training" here is another small task, not a corpus; nothing trains on load.
import { ApWidget, define } from '../lib/widget.js';
import { el, errorText, fmt } from '../lib/dom.js';
import { linePlot } from '../lib/plot.js';
import { getModel } from '../lib/models.js';

const EXAMPLE = { src: 'hello42', tgt: '24olleh' };
const BASE = {
  task: 'reverse',
  seed: 3,
  lr: 2e-3,
  warmupSteps: 15,
  batch: 32,
  every: 25,
  evalN: 100,
  evalSeed: 777,
  evalEvery: 1,
  answerTokens: 10,
  example: EXAMPLE,
};
// steps="n": the training steps of each of the two runs.
const STEPS = { min: 25, max: 5000, integer: true };
const SIZES = { dModel: 64, nHeads: 4, nLayers: 2, dFf: 256, pos: 'learned', act: 'gelu', norm: 'post' };

export class ApPretrainFinetune extends ApWidget {
  static ownInput =
    'This view does not read the text at the top: it trains two models on the reverse-a-string task, in your browser.';
  static concept = 'pretrain-finetune';
  static textInput = false;
  static extraAttributes = ['steps'];

  build() {
    this.runs = {};
    this.gen = 0;
    this.startBtn = el('button', {
      type: 'button',
      className: 'primary start',
      text: 'Train both',
      on: { click: () => this.start() },
    });
    this.stopBtn = el('button', { type: 'button', text: 'Stop', disabled: true, on: { click: () => this.stop() } });
    this.cols = el('div', { className: 'col2' });
    this.plot = el('div', { className: 'col2' });
    this.verdict = el('p', { className: 'changed pf-verdict', attrs: { 'aria-live': 'polite' } });
    this.panels = {};
    for (const [key, title, what] of [
      [
        'finetuned',
        'Pre-trained, then fine-tuned',
        'Starts from the model trained on sorting strings (web/models/sort.safetensors: same vocabulary, same sizes). It already reads the input and writes characters after "="; it must learn a new order.',
      ],
      [
        'scratch',
        'From scratch',
        'The same architecture (d_model 64, 4 heads, 2 layers, d_ff 256) from random weights (seed 3): it must learn everything from the reverse examples alone.',
      ],
    ]) {
      const readout = el('p', { className: 'readout', text: 'not started' });
      const answer = el('p', { className: 'note answer' });
      this.panels[key] = {
        readout,
        answer,
        node: el(
          'div',
          { className: 'panel', dataset: { run: key } },
          el('h4', { text: title }),
          el('p', { className: 'note', text: what }),
          readout,
          answer,
        ),
      };
      this.cols.append(this.panels[key].node);
    }
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'The notes (004): pre-train once on a lot of data, then fine-tune on a specific task; the expensive pre-training is done once, fine-tuning is fast and cheap, because what the model learned transfers. Here the task is reversing a string ("hello42" → "24olleh"). Both models below get exactly the same budget: the same steps, batch of 32 examples, learning rate and training examples. Only the starting weights differ.',
      }),
      el('div', { className: 'controls' }, this.startBtn, this.stopBtn),
      this.verdict,
      this.cols,
      this.plot,
    );
  }

  compute() {
    return null;
  }
  render() {}

  disconnectedCallback() {
    super.disconnectedCallback();
    queueMicrotask(() => {
      if (!this.isConnected) this.stop();
    });
  }

  steps() {
    return this.numberAttribute('steps', STEPS, 300);
  }

  async start() {
    this.stop();
    const gen = ++this.gen;
    const totalSteps = this.steps();
    this.startBtn.disabled = true;
    this.stopBtn.disabled = false;
    this.verdict.textContent = 'Loading the pre-trained model…';
    this.dataset.state = 'running';
    delete this.dataset.finetunedAccuracy;
    delete this.dataset.scratchAccuracy;
    let bytes;
    try {
      const entry = await getModel('trained:sort');
      bytes = entry.model.save();
    } catch (err) {
      this.fail(err);
      this.startBtn.disabled = false;
      return;
    }
    if (gen !== this.gen) return;
    this.verdict.textContent = `Training both for ${totalSteps} steps…`;
    this.history = { finetuned: [], scratch: [] };
    const specs = {
      finetuned: { ...BASE, totalSteps, fromBytes: bytes },
      scratch: { ...BASE, totalSteps, config: SIZES },
    };
    for (const key of Object.keys(specs)) {
      const worker = new Worker(new URL('../lib/training-worker.js', import.meta.url), { type: 'module' });
      this.runs[key] = { worker, done: false };
      worker.onmessage = (e) => {
        if (gen === this.gen) this.message(key, e.data, totalSteps);
      };
      worker.onerror = (e) => {
        if (gen === this.gen) this.failRun(key, new Error(e.message || 'the training worker failed'));
      };
      worker.postMessage({ type: 'init', gen: 1, spec: specs[key], run: true });
    }
  }

  stop() {
    if (!this._built) return; // removed before it came near the viewport: nothing ran
    for (const r of Object.values(this.runs)) r.worker.terminate();
    this.runs = {};
    this.startBtn.disabled = false;
    this.stopBtn.disabled = true;
    if (this.dataset.state === 'running') this.dataset.state = 'stopped';
  }

  failRun(key, err) {
    this.panels[key].readout.textContent = `Error: ${errorText(err)}`;
    this.stop();
  }

  message(key, msg, totalSteps) {
    if (msg.type === 'error') {
      this.failRun(key, new Error(msg.message));
      return;
    }
    if (msg.type === 'done') {
      this.runs[key].done = true;
      this.runs[key].worker.terminate();
      if (Object.values(this.runs).every((r) => r.done)) this.finish(totalSteps);
      return;
    }
    if (msg.type !== 'ready' && msg.type !== 'progress') return;
    const h = this.history[key];
    h.push({ step: msg.step, loss: msg.loss, accuracy: msg.accuracy });
    const p = this.panels[key];
    p.readout.textContent = `step ${msg.step} / ${totalSteps} · loss ${msg.loss === null ? '–' : fmt(msg.loss, 3)} · held-out exact match ${fmt(100 * msg.accuracy, 1)}% (${msg.correct}/${msg.total})`;
    p.readout.dataset.step = String(msg.step);
    p.readout.dataset.accuracy = String(msg.accuracy);
    p.answer.textContent = `Asked to reverse "${msg.answer.prompt}" it writes "${msg.answer.text}"${msg.answer.text === msg.answer.expected ? ' ✓' : ` (right: "${msg.answer.expected}")`}.`;
    this.dataset[`${key}Step`] = String(msg.step);
    this.drawPlot(totalSteps);
  }

  drawPlot(totalSteps) {
    const pts = (key) => this.history[key].map((r) => [r.step, 100 * r.accuracy]);
    const losses = (key) => this.history[key].filter((r) => r.loss !== null).map((r) => [r.step, r.loss]);
    this.plot.replaceChildren(
      linePlot({
        title: 'Training loss (mean of each chunk of 25 steps): exact match stays near 0 until the loss is low',
        xLabel: 'training steps',
        yLabel: 'loss',
        yMin: 0,
        yMax: Math.max(1, ...losses('finetuned').map((p) => p[1]), ...losses('scratch').map((p) => p[1])),
        series: [
          { name: 'pre-trained on sort, fine-tuned', points: losses('finetuned') },
          { name: 'from scratch', points: losses('scratch') },
        ],
        xTickFormat: (x) => (x % 50 === 0 || x === totalSteps ? String(x) : ''),
      }),
      linePlot({
        title: 'Held-out exact match (%) on reverse, by training step',
        xLabel: 'training steps',
        yLabel: 'exact match %',
        yMin: 0,
        yMax: 100,
        series: [
          { name: 'pre-trained on sort, fine-tuned', points: pts('finetuned') },
          { name: 'from scratch', points: pts('scratch') },
        ],
        xTickFormat: (x) => (x % 50 === 0 || x === totalSteps ? String(x) : ''),
      }),
    );
  }

  finish(totalSteps) {
    const last = (key) => this.history[key][this.history[key].length - 1];
    const f = last('finetuned'),
      s = last('scratch');
    this.dataset.finetunedAccuracy = String(f.accuracy);
    this.dataset.scratchAccuracy = String(s.accuracy);
    this.dataset.state = 'done';
    this.startBtn.disabled = false;
    this.stopBtn.disabled = true;
    this.runs = {};
    this.verdict.textContent = `After the same ${totalSteps} steps: fine-tuned ${fmt(100 * f.accuracy, 1)}% exact match, from scratch ${fmt(100 * s.accuracy, 1)}%. ${
      f.accuracy > s.accuracy
        ? 'The pre-trained start got further with the same budget: what it learned while sorting (read the input, copy characters after "=") transferred.'
        : 'This time the pre-trained start did not help.'
    }`;
  }
}

define(ApPretrainFinetune);
