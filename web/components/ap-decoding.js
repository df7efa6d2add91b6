// <ap-decoding> (decoding): autoregressive generation. Each new token is fed back in; the last
// position's vector goes through the output matrix (logits) and a softmax over the vocabulary,
// and (greedy) the most probable token is chosen. Step through the generation token by token.
import { el, fmt, tokenText } from '../lib/dom.js';
import { define } from '../lib/widget.js';
import { displayVocab } from '../lib/models.js';
import { GenerationWidget } from '../lib/generation.js';
import { barList } from '../lib/plot.js';
import { topK } from '../lib/steps/index.js';
import { renderTex } from '../lib/katex.js';

export class ApDecoding extends GenerationWidget {
  static concept = 'decoding';

  build() {
    this.formula = el('div', { className: 'formula' });
    renderTex(
      this.formula,
      'p(x_{t+1} \\mid x_{\\le t}) = \\operatorname{softmax}(z_t W_{\\text{vocab}} + b), \\qquad x_{t+1} = \\arg\\max p \\;\\text{(greedy)}',
      { display: true },
    );
    this.chosen = el('p', { className: 'changed' });
    this.bars = el('div', { className: 'col2' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: "A decoder generates one token at a time: run the model on everything so far, read the last position's logits, turn them into probabilities, pick a token, append it, repeat. Use the slider to replay each choice.",
      }),
      this.buildGeneration(),
      this.formula,
      this.chosen,
      this.bars,
    );
  }

  renderStep(step) {
    const vocab = displayVocab(this.entry).map(tokenText);
    const logits = step.get('logits', { stack: '' }),
      probs = step.get('probs', { stack: '' });
    const V = vocab.length,
      last = logits.length / V - 1;
    const topL = topK(logits, V, last, vocab, 10),
      topP = topK(probs, V, last, vocab, 10);
    const p = probs[last * V + step.token];
    this.chosen.replaceChildren(
      el('span', { text: 'Chosen: ' }),
      el('b', { className: 'chosen-token', text: tokenText(step.piece) }),
      el('span', { text: ` (id ${step.token}, p = ${fmt(p, 3)}; the cache now holds ${step.cacheLen} positions)` }),
    );
    this.dataset.chosen = step.piece;
    this.bars.replaceChildren(
      barList({
        title: 'logits: the 10 highest',
        items: topL.map((t) => ({ label: t.piece, value: t.value, chosen: t.id === step.token })),
        valueName: 'logit',
      }),
      barList({
        title: 'probabilities: the 10 highest',
        items: topP.map((t) => ({ label: t.piece, value: t.value, chosen: t.id === step.token })),
        max: 1,
        valueName: 'p',
      }),
    );
  }
}

define(ApDecoding);
