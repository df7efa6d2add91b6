// <ap-induction> (induction): watch an induction head form. A two-layer attention-only
// transformer (no FFN) trains live in the training view's Web Worker (lib/training-worker.js) on
// 6 to 12 random letters read twice; every `every` steps the worker reports the held-out loss on the
// first pass and on the repeat (the core's trainer.evaluate, per kind of target) and the attention
// of every head on one held-out string, from which this view computes each head's induction and
// previous-token scores (lib/induction.js). The repeat's loss falls suddenly when layer 0's
// previous-token head and layer 1's induction head form together; every sentence about the heads
// is written from the scores of the current step.
//
// Attributes: train-seed, autostart, every (steps per report), hide="seed".
import { ApTraining } from '../lib/training-widget.js';
import { define } from '../lib/widget.js';
import { el, fmt } from '../lib/dom.js';
import { linePlot } from '../lib/plot.js';
import { LETTERS, INDUCTION_RUN, headScores } from '../lib/induction.js';

/** A head counts as formed above this score (and as a previous-token head above it too). */
export const FORMED = 0.5;
const LN26 = Math.log(26);

export class ApInduction extends ApTraining {
  static concept = 'induction';
  static extraAttributes = ['train-seed', 'autostart', 'every'];

  build() {
    super.build();
    // The training view's task picker: this view has one task.
    this.taskField.remove();
    this.body.querySelector('.lead').textContent =
      'An induction head completes a pattern seen earlier in the same text: after "… A B … A" it predicts "B". It is how a transformer copies a name or a phrase it has already read, the simplest learning in context (Olsson et al., 2022). It takes two heads: one in layer 0 that attends to the previous token, so that each position carries "the letter before me was A", and one in layer 1 that, from the current letter A, finds that position and copies its letter, B. Train a two-layer model with attention only on 6 to 12 random letters read twice: the first pass cannot be predicted, the repeat can, by looking back. The strings’ lengths vary, so the earlier copy is not always the same number of places back: the head has to find it by what it reads.';
    this.headsTitle.textContent = 'Attention of every head on a held-out string read twice';
    this.lossNote = el('p', { className: 'note loss-note' });
    this.headsNote = el('p', { className: 'note heads-note' });
    this.plots.after(this.lossNote);
    this.headsTitle.after(this.headsNote);
  }

  ownInputText() {
    return 'This view does not read the text at the top: it trains a model on strings of random letters read twice, in your browser.';
  }

  _spec() {
    let seed = Number(this.seedIn.value);
    if (!Number.isInteger(seed) || seed < 0 || seed > 1_000_000) {
      throw new Error(`the seed must be a whole number from 0 to 1000000, got "${this.seedIn.value}"`);
    }
    return { ...INDUCTION_RUN, seed, every: this._every() };
  }

  render() {
    this.stepBtn.textContent = `Step +${this._every()}`;
    this.seedField.hidden = this.hides('seed');
    if (this.hasAttribute('autostart') && !this._autostarted) {
      this._autostarted = true;
      this.start();
    }
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (name === 'task') return; // one task
    super.attributeChangedCallback(name, oldValue, newValue);
  }

  renderKey() {
    return 'induction';
  }

  _aboutText() {
    const c = INDUCTION_RUN.config;
    return `Model: ${c.nLayers} layers of attention only, ${c.nHeads} heads each, d_model ${c.dModel}, learned positions, pre-norm; vocabulary: the 26 letters. Each training string is 6 to 12 random letters written twice after <bos>; the loss counts every next letter. The maps and scores below are on one held-out string of ${LETTERS} letters, "${INDUCTION_RUN.example.tgt.slice(0, LETTERS)}". AdamW, lr ${INDUCTION_RUN.lr}, batch ${INDUCTION_RUN.batch}, ${INDUCTION_RUN.totalSteps} steps.`;
  }

  _startText() {
    return 'Press Train: the model starts from random weights. A guess among the 26 letters, spread evenly, would lose ln 26 ≈ 3.26 nats on every letter (the grey dashed line of the loss plot).';
  }

  // Before Train: the loss plot's axes over this run's own steps, with the ln 26 line the start
  // text points to (the base class frames another task's accuracy over its own steps).
  _framePlots() {
    const steps = INDUCTION_RUN.totalSteps;
    return [
      linePlot({
        title: 'held-out loss per letter (nats): drawn here as it trains',
        xLabel: 'step',
        yLabel: 'cross-entropy',
        series: [
          { name: 'loss (no steps yet)', points: [0, steps].map((x) => [x, null]) },
          {
            name: 'ln 26: a guess among the 26 letters',
            points: [0, steps].map((x) => [x, LN26]),
            color: 'var(--_reference)',
            reference: true,
          },
        ],
        xTickFormat: (x) => (x % 100 === 0 ? String(x) : ''),
        width: 360,
        height: 220,
        yMin: 0,
      }),
    ];
  }

  _clear() {
    super._clear();
    delete this.dataset.induction;
    this.verdict?.remove();
    this.verdict = null;
    this.lossNote?.replaceChildren();
    this.headsNote?.replaceChildren();
  }

  _message(msg) {
    // Keep each report's held-out loss per kind and the head scores before the base class draws.
    if (msg && msg.gen === this.gen && (msg.type === 'ready' || msg.type === 'progress')) {
      msg.scores = msg.attention.heads.map((h) => ({ layer: h.layer, head: h.head, ...headScores(h.values) }));
      const best = Math.max(...msg.scores.filter((s) => s.layer > 0).map((s) => s.induction));
      this.dataset.induction = String(best);
    }
    super._message(msg);
    const h = this.history[this.history.length - 1];
    if (h && msg && msg.gen === this.gen && msg.scores && h.step === msg.step) {
      h.first = msg.byKind?.['first pass']?.loss ?? null;
      h.repeat = msg.byKind?.repeat?.loss ?? null;
      h.repeatAccuracy = msg.byKind?.repeat ? msg.byKind.repeat.correct / msg.byKind.repeat.total : null;
      h.scores = msg.scores;
    }
  }

  _drawProgress() {
    const msg = this.last;
    if (!msg || !msg.scores) return;
    const hist = this.history.filter((h) => h.scores);
    const now = hist[hist.length - 1];
    const rep = msg.byKind?.repeat;
    this.readout.textContent = `step ${msg.step} / ${this.spec.totalSteps} · held-out loss: first pass ${fmt(now.first, 3)}, repeat ${fmt(now.repeat, 3)} nats a letter · letters of the repeat predicted right: ${rep ? `${fmt(100 * now.repeatAccuracy, 1)}% (${rep.correct}/${rep.total})` : '–'}`;

    // The model's own continuation of the held-out string and the start of its repeat.
    const a = msg.answer;
    if (a) {
      const got = a.text.trim();
      const ok = got === a.expected;
      this.answer.replaceChildren(
        el('span', { text: `Given "${a.prompt}", the model continues with ` }),
        el('b', { className: 'mono', text: got || '(nothing)' }),
        el('span', {
          className: ok ? 'ok' : 'no',
          text: ok ? ` ✓ (the rest of the repeat: ${a.expected})` : ` ✗ (the rest of the repeat: ${a.expected})`,
        }),
      );
      this.answer.dataset.correct = String(ok);
    }

    // Both plots: steps on x, labelled every 100; narrower than the training view's, so that on a
    // phone a plot is drawn near its own size and its labels stay readable.
    const small = { xTickFormat: (x) => (x % 100 === 0 ? String(x) : ''), width: 360, height: 220, yMin: 0 };
    const reference = (name, y) => ({
      name,
      points: hist.map((h) => [h.step, y]),
      color: 'var(--_reference)',
      reference: true,
    });
    const lossPlot = linePlot({
      title: 'held-out loss per letter (nats), first pass and repeat',
      xLabel: 'step',
      yLabel: 'cross-entropy',
      series: [
        { name: 'first pass (cannot be predicted)', points: hist.map((h) => [h.step, h.first]) },
        { name: 'repeat (predictable by looking back)', points: hist.map((h) => [h.step, h.repeat]) },
        reference('ln 26: a guess among the 26 letters', LN26),
      ],
      ...small,
    });
    const heads = now.scores;
    const scorePlot = linePlot({
      title: 'each head’s score on the held-out string (layer 0: previous-token score, layer 1: induction score)',
      xLabel: 'step',
      yLabel: 'mean attention weight',
      series: [
        ...heads.map((s, i) => ({
          name:
            s.layer === 0
              ? `layer 0, head ${s.head}: previous-token score`
              : `layer ${s.layer}, head ${s.head}: induction score`,
          points: hist.map((h) => [h.step, h.scores[i][s.layer === 0 ? 'previous' : 'induction']]),
        })),
        reference(`${FORMED}: half the weight, counted as formed`, FORMED),
      ],
      ...small,
      yMax: 1,
    });
    this.plots.replaceChildren(lossPlot, scorePlot);
    this.lossNote.textContent = this._lossNote(now.first, now.repeat);

    // What the heads do now, from the scores of this step.
    if (!this.verdict) {
      this.verdict = el('p', { className: 'verdict', attrs: { 'aria-live': 'polite' } });
      this.headsTitle.before(this.verdict);
    }
    this.verdict.replaceChildren(...this._verdict(heads, now.first, now.repeat));

    const at = msg.attention;
    this.headsTitle.hidden = false;
    const str = INDUCTION_RUN.example.tgt.slice(0, LETTERS);
    this.headsTitle.textContent = `Attention of every head on the held-out string "${str}" read twice, step ${msg.step}`;
    this.headsNote.textContent = `Rows: queries, columns: keys; hatched: the masked future. Previous-token score (layer 0): the mean weight each letter of the first pass puts on the letter just before it. Induction score (layer 1): the mean weight each letter of the repeat puts on the letter that followed its earlier copy. This string has ${LETTERS} letters, so that letter is ${LETTERS - 1} places back, and an induction head lights the diagonal ${LETTERS - 1} cells left of the main one; in a string of another length it is another number of places back.`;
    this._drawHeads(
      at,
      (h, i) =>
        `layer ${h.layer}, head ${h.head}: ${
          h.layer === 0
            ? `previous-token score ${fmt(heads[i].previous, 2)} (uniform ${fmt(heads[i].previousChance, 2)})`
            : `induction score ${fmt(heads[i].induction, 2)} (uniform ${fmt(heads[i].inductionChance, 2)})`
        }`,
      18,
    );
  }

  /** Why neither loss reaches its floor, with this step's numbers (facts of the task, not of the model). */
  _lossNote(first, repeat) {
    if (first === null || repeat === null) return '';
    const parts = [];
    if (first > LN26)
      parts.push(
        `The first pass stays above ln 26 ≈ 3.26 (now ${fmt(first, 2)}): from the 6th letter on, the model cannot know whether the string has ended and the repeat begun, so it keeps some probability on the string's first letter coming back, and that probability is lost on every letter that is new.`,
      );
    if (repeat < first / 2)
      parts.push(
        `The repeat's loss (now ${fmt(repeat, 2)}) cannot reach 0 either: its first letter comes right after the first pass ends, which the model cannot see coming.`,
      );
    return parts.join(' ');
  }

  /** Sentences about the heads, from this step's scores and held-out losses only. */
  _verdict(heads, first, repeat) {
    const layer1 = heads.filter((s) => s.layer > 0).sort((x, y) => y.induction - x.induction);
    const layer0 = heads.filter((s) => s.layer === 0).sort((x, y) => y.previous - x.previous);
    const name = (s) => `layer ${s.layer}, head ${s.head}`;
    const list = (items) =>
      items.length < 3 ? items.join(' and ') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
    const formed = layer1.filter((s) => s.induction >= FORMED);
    const chance = layer1[0].inductionChance;
    if (formed.length) {
      const one = formed.length === 1;
      const partners = layer0.filter((s) => s.previous >= FORMED);
      const prev = layer0[0];
      return [
        el('b', {
          text: one
            ? `An induction head has formed: ${name(formed[0])}. `
            : `${formed.length === 2 ? 'Two' : formed.length} induction heads have formed: ${list(formed.map(name))}. `,
        }),
        el('span', {
          text: one
            ? `From each letter of the repeat it puts ${fmt(formed[0].induction, 2)} of its weight, on average, on the letter that followed that letter's earlier copy (uniform attention would put ${fmt(chance, 2)} there). `
            : `From each letter of the repeat, on average, head ${formed[0].head} puts ${fmt(formed[0].induction, 2)} of its weight${formed
                .slice(1)
                .map((s) => `, head ${s.head} ${fmt(s.induction, 2)},`)
                .join(
                  '',
                )} on the letter that followed that letter's earlier copy (uniform attention would put ${fmt(chance, 2)} there). `,
        }),
        el('span', {
          text: partners.length
            ? `${one ? 'Its' : 'Their'} ${partners.length === 1 ? `partner in layer 0 is head ${partners[0].head}, which puts ${fmt(partners[0].previous, 2)} of its weight` : `partners in layer 0 are ${list(partners.map((s) => `head ${s.head}`))}, which put ${list(partners.map((s) => fmt(s.previous, 2)))} of their weight`} on the previous letter in the first pass (uniform: ${fmt(prev.previousChance, 2)}).`
            : `No head of layer 0 is a clean previous-token head in this run (the most: ${name(prev)}, ${fmt(prev.previous, 2)} of its weight on the previous letter; uniform: ${fmt(prev.previousChance, 2)}), yet layer 1 finds the letter after the earlier copy: layer 0 tells it where each letter came from in another way. Look at layer 0's maps.`,
        }),
      ];
    }
    const scores = layer1.map((s) => `${name(s)} ${fmt(s.induction, 2)}`).join(', ');
    // The repeat predicted (its loss under half the first pass's) without one head doing the copying.
    if (repeat !== null && first !== null && repeat < first / 2) {
      const rows = layer1[0].found.length;
      const either = layer1[0].found.filter((_, i) => layer1.some((s) => s.found[i])).length;
      const byHead = list(layer1.map((s) => `${s.found.filter(Boolean).length} for head ${s.head}`));
      return [
        el('b', { text: 'The repeat is predicted, but no single head copies it. ' }),
        el('span', {
          text: `The repeat's loss is ${fmt(repeat, 2)} nats a letter against ${fmt(first, 2)} for the first pass, yet no head of layer 1 puts half its weight on the letter after the earlier copy (${scores}; uniform attention: ${fmt(chance, 2)}). Row by row, of the repeat's ${rows} rows, the heaviest key is that letter in ${byHead}; ${either === rows ? 'every row is found by one head or the other.' : `${either} of ${rows} are found by at least one of them. In the other rows they look at other letters: the copying here does not run through one clean diagonal.`}`,
        }),
      ];
    }
    return [
      el('span', {
        text: `No induction head yet: the weight each head of layer 1 puts on the letter after the earlier copy is ${scores} (uniform attention: ${fmt(chance, 2)}). The most previous-token head of layer 0 puts ${fmt(layer0[0].previous, 2)} on the previous letter (${name(layer0[0])}).`,
      }),
    ];
  }
}

define(ApInduction);
