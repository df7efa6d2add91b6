// <ap-sampling> (sampling): greedy, temperature, top-k, top-p. The core's sampling distribution
// (step.distribution: after temperature, top-k and top-p) beside the model's raw probabilities,
// and the token drawn from it. Change the knobs and watch the distribution and the choice.
import { el, fmt, tokenText } from '../lib/dom.js';
import { define } from '../lib/widget.js';
import { displayVocab } from '../lib/models.js';
import { GenerationWidget } from '../lib/generation.js';
import { barList } from '../lib/plot.js';
import { renderTex } from '../lib/katex.js';

export class ApSampling extends GenerationWidget {
  static concept = 'sampling';
  // A language model has real uncertainty to sample from; the copy tasks (sort, reverse) are
  // near-certain at every step, so random weights show the knobs better after the language models.
  static prefer = ['english', 'grammar', 'random'];

  options() {
    return { temperature: this.t, topK: this.k, topP: this.p, seed: this.seed };
  }

  build() {
    this.t = 1;
    this.k = 0;
    this.p = 1;
    this.seed = 1;
    const knob = (label, attrs, get, set) => {
      const input = el('input', {
        type: 'range',
        ...attrs,
        attrs: { 'aria-label': label },
        on: {
          input: () => {
            set(Number(input.value));
            out.textContent = get();
            this.step = 0;
            this.update();
          },
        },
      });
      const out = el('span', { className: 'mono', text: get() });
      return el('label', { className: 'field inline' }, el('span', { text: label }), input, out);
    };
    this.greedy = el('button', {
      type: 'button',
      text: 'greedy',
      on: {
        click: () => {
          this._set(0, 0, 1);
        },
      },
    });
    this.knobs = el(
      'div',
      { className: 'controls' },
      knob(
        'temperature',
        { min: 0, max: 2, step: 0.1, value: 1 },
        () => (this.t === 0 ? '0 (greedy)' : fmt(this.t, 1)),
        (v) => {
          this.t = v;
        },
      ),
      knob(
        'top-k',
        { min: 0, max: 20, step: 1, value: 0 },
        () => (this.k === 0 ? 'off' : String(this.k)),
        (v) => {
          this.k = v;
        },
      ),
      knob(
        'top-p',
        { min: 0.05, max: 1, step: 0.05, value: 1 },
        () => fmt(this.p, 2),
        (v) => {
          this.p = v;
        },
      ),
      el('button', {
        type: 'button',
        text: 'new seed',
        on: {
          click: () => {
            this.seed += 1;
            this.update();
          },
        },
      }),
    );
    this.formula = el('div', { className: 'formula' });
    renderTex(
      this.formula,
      'q_i \\propto \\exp(\\ell_i / T) \\text{ over the top-}k \\text{ tokens and the smallest set with } \\textstyle\\sum p \\ge p_{\\text{top}}',
      { display: true },
    );
    this.chosen = el('p', { className: 'changed' });
    this.bars = el('div');
    this.body.append(
      el('p', {
        className: 'lead',
        text: "Greedy decoding always takes the most probable token. Sampling draws from the distribution instead: a temperature T < 1 sharpens it, T > 1 flattens it; top-k keeps only the k most probable tokens, top-p the smallest set whose probability reaches p. The grey bars are the model's probabilities, the blue ones what is actually sampled from.",
      }),
      this.knobs,
      this.buildGeneration(),
      this.formula,
      this.chosen,
      this.bars,
    );
  }

  _set(t, k, p) {
    this.t = t;
    this.k = k;
    this.p = p;
    this.update();
  }

  renderStep(step) {
    const vocab = displayVocab(this.entry).map(tokenText);
    const probs = step.get('probs', { stack: '' });
    const V = vocab.length,
      last = probs.length / V - 1;
    const dist = step.distribution;
    const ids = Array.from({ length: V }, (_, j) => j)
      .sort((a, b) => probs[last * V + b] - probs[last * V + a])
      .slice(0, 15);
    if (!ids.includes(step.token)) ids.push(step.token);
    let kept = 0;
    const never = [];
    dist.forEach((q, j) => (q > 0 ? kept++ : never.push(j)));
    // How many tokens have q > 0; the few the core never draws (its <pad>) by name.
    const drawable =
      never.length && never.length <= 3
        ? `${kept} of the ${V} tokens can be drawn: every token but ${never.map((j) => vocab[j]).join(', ')}`
        : `${kept} of the ${V} tokens have q > 0 and can be drawn`;
    this.chosen.replaceChildren(
      el('span', { text: 'Drawn: ' }),
      el('b', { className: 'chosen-token', text: tokenText(step.piece) }),
      el('span', {
        text: ` (p = ${fmt(probs[last * V + step.token], 3)} under the model, q = ${fmt(dist[step.token], 3)} in the sampling distribution; ${drawable})`,
      }),
    );
    this.dataset.chosen = step.piece;
    this.dataset.kept = String(kept);
    this.bars.replaceChildren(
      barList({
        title: "sampling distribution q (blue) over the model's probabilities p (grey)",
        items: ids.map((j) => ({
          label: vocab[j],
          value: dist[j],
          raw: probs[last * V + j],
          chosen: j === step.token,
        })),
        rawName: 'p (model)',
        valueName: 'q (sampled from)',
      }),
    );
  }
}

define(ApSampling);
