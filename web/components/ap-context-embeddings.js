// <ap-context-embeddings> (context-embeddings): a static embedding gives "bank" one vector in
// every sentence; attention makes it depend on context (004). The notes' two sentences ("I went
// to the bank to deposit my check." / "I sat by the river bank.") through the encoder of the
// project's trained translation model (web/models/translate.safetensors), which must tell the two
// senses apart to write "banque" or "rive": the cosine similarity of the two "bank" vectors at
// the embedding (identical, 1) and after each encoder layer (lower), and which words moved it
// (the head-averaged self-attention weights of "bank" on the words of its sentence, per layer).
// Attributes: a, b (the two sentences), word (the word to follow, default "bank").
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt, occurrence, wideField } from '../lib/dom.js';
import { barList } from '../lib/plot.js';
import { BANK_MONEY, BANK_RIVER, cosine, encodeSource, translationEntry } from '../lib/translation.js';
import { entryOf, hasModelFile, isPromise, modelNow } from '../lib/models.js';

const ENGLISH_MLM = 'english-mlm';

export class ApContextEmbeddings extends ApWidget {
  static ownInput = 'This view does not read the text at the top: it reads its two sentences, in its boxes.';
  static concept = 'context-embeddings';
  static extraAttributes = ['a', 'b', 'word'];
  static textInput = false; // its own two sentence boxes

  build() {
    const box = (attr, label, value) => {
      let timer = null;
      const input = el('input', {
        type: 'text',
        spellcheck: false,
        maxLength: 200,
        style: { width: '100%', boxSizing: 'border-box', font: 'inherit', padding: '4px 6px' },
        value,
        attrs: { 'aria-label': label },
        on: {
          input: () => {
            clearTimeout(timer);
            timer = setTimeout(() => this.setAttribute(attr, input.value), 250);
          },
        },
      });
      return input;
    };
    this.inA = box('a', 'Sentence A', BANK_MONEY);
    this.inB = box('b', 'Sentence B', BANK_RIVER);
    this.inWord = box('word', 'Word to follow', 'bank');
    this.table = el('table', { className: 'nums sims' });
    this.moved = el('div', { className: 'moved', style: { display: 'flex', flexWrap: 'wrap', gap: '8px 24px' } });
    this.french = el('p', { className: 'note' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'A static embedding (Word2Vec, GloVe, or a transformer\'s own embedding table) gives "bank" the same vector in every sentence. Each attention layer then mixes in the other words of the sentence, so after the layers the vector of "bank" depends on its context: money or river.',
      }),
      el(
        'div',
        { className: 'controls' },
        wideField('Sentence A', this.inA),
        wideField('Sentence B', this.inB),
        el('label', { className: 'field' }, el('span', { text: 'Word' }), this.inWord),
      ),
      el('h4', { text: 'How alike are the two vectors of the word? (cosine similarity, 1 = same direction)' }),
      el('div', { style: { overflowX: 'auto', maxWidth: '100%' } }, this.table),
      el('h4', {
        text: 'Which words moved it: the weights of the word on its sentence in each encoder layer (mean of the heads)',
      }),
      this.moved,
      this.french,
      (this.aboutModel = el('p', { className: 'note' })),
    );
  }

  renderKey(state) {
    return JSON.stringify([
      super.renderKey(state),
      this.getAttribute('a'),
      this.getAttribute('b'),
      this.getAttribute('word'),
    ]);
  }

  get texts() {
    const a = this.getAttribute('a'),
      b = this.getAttribute('b'),
      w = this.getAttribute('word');
    return { a: a ?? BANK_MONEY, b: b ?? BANK_RIVER, word: (w ?? 'bank').trim().toLowerCase() };
  }

  compute(state) {
    // A Hugging Face model the student opened: its own layers (GPT-2 or BERT) instead.
    const hf = !state.preset && state.model.startsWith('hf:') ? modelNow(state.model) : null;
    if (hf) return this._computeHf(hf);
    // On the English model (the page's default): its encoder twin, the English masked LM, which
    // learned English from the Brown corpus, not a task that needs the two senses apart.
    if (state.model === 'english' && hasModelFile(ENGLISH_MLM)) {
      const e = entryOf(`trained:${ENGLISH_MLM}`);
      const go = (entry) => ({ ...this._computeHf(entry), english: true });
      return isPromise(e) ? e.then(go) : go(e);
    }
    const entry = translationEntry();
    if (!entry) throw new Error('The trained translation model (web/models/translate.safetensors) is not present.');
    if (isPromise(entry)) return entry.then((e) => this._compute(e.model));
    return this._compute(entry.model);
  }

  _compute(model) {
    const { a, b, word } = this.texts;
    const d = model.config.dModel,
      L = model.config.nLayers,
      H = model.config.nHeads;
    const side = (text, name) => {
      const enc = encodeSource(model, text);
      const at = enc.pieces.indexOf(word);
      if (!word) throw new Error('Type the word to follow (for example bank).');
      if (at < 0) throw new Error(`Sentence ${name} has no word "${word}" (its words: ${enc.pieces.join(' ')}).`);
      if (enc.unknown.includes(at))
        throw new Error(`"${word}" is not in the model's vocabulary, so it has no embedding of its own.`);
      const tr = model.forward({ src: enc.ids, tgt: model.prompt(text).ids }); // the decoder side: <bos> alone
      try {
        const n = enc.ids.length;
        const vec = (stage, layer) =>
          tr.get(stage, layer == null ? { stack: 'encoder' } : { layer, stack: 'encoder' }).slice(at * d, (at + 1) * d);
        const vectors = [
          vec('embed'),
          ...Array.from({ length: L }, (_, l) => vec(tr.blockOutput({ layer: l, stack: 'encoder' }), l)),
        ];
        const moved = Array.from({ length: L }, (_, l) => {
          const w = tr.get('weights', { layer: l, stack: 'encoder' });
          return enc.pieces.map((p, j) => {
            let s = 0;
            for (let h = 0; h < H; h++) s += w[(h * n + at) * n + j] / H;
            return s;
          });
        });
        const g = model.generate(text, { maxTokens: model.config.maxLen - 1 });
        const french = g.text;
        g.dispose();
        return { pieces: enc.pieces, at, vectors, moved, french, unknown: enc.unknown.map((i) => enc.pieces[i]) };
      } finally {
        tr.dispose();
      }
    };
    const A = side(a, 'A'),
      B = side(b, 'B');
    const sims = A.vectors.map((v, k) => cosine(v, B.vectors[k]));
    return { A, B, sims, word, L };
  }

  _computeHf(entry) {
    const model = entry.model;
    const { a, b, word } = this.texts;
    if (!word) throw new Error('Type the word to follow (for example bank).');
    const d = model.config.dModel,
      L = model.config.nLayers,
      H = model.config.nHeads;
    // The layer's output: after its second LayerNorm (post-norm, BERT) or its residual sum (pre-norm, GPT-2).
    // Each layer's output, as the trace marks it (norm2 after a post-norm block, as BERT's; resid2
    // after a pre-norm one, as GPT-2's): both are kept, the mark says which.
    const side = (text, name) => {
      const p = model.prompt(text);
      const pieces = p.pieces.map((x) => x.trim());
      const at = pieces.findIndex((x) => x.toLowerCase() === word);
      if (at < 0)
        throw new Error(
          `Sentence ${name} has no token "${word}" for this model's tokenizer (its tokens: ${pieces.join(' ')}); a word split into several pieces has no single vector to follow.`,
        );
      const tr = model.forward(p.ids, {}, { layers: [], stages: ['resid2', 'norm2', 'weights'] });
      try {
        const n = p.ids.length;
        const vec = (stage, layer) => tr.get(stage, layer == null ? {} : { layer }).slice(at * d, (at + 1) * d);
        const vectors = [vec('embed'), ...Array.from({ length: L }, (_, l) => vec(tr.blockOutput({ layer: l }), l))];
        const moved = Array.from({ length: L }, (_, l) => {
          const w = tr.get('weights', { layer: l });
          return pieces.map((_, j) => {
            let s = 0;
            for (let h = 0; h < H; h++) s += w[(h * n + at) * n + j] / H;
            return s;
          });
        });
        return { pieces, at, vectors, moved, french: null, unknown: [] };
      } finally {
        tr.dispose();
      }
    };
    const A = side(a, 'A'),
      B = side(b, 'B');
    const sims = A.vectors.map((v, k) => cosine(v, B.vectors[k]));
    return { A, B, sims, word, L, hf: entry };
  }

  ownInputText() {
    const own = this.constructor.ownInput; // until a model has read the sentences
    return this._model ? `${own.slice(0, -1)}, ${this._model}.` : own;
  }

  render(r) {
    this._model = r.english
      ? 'with the English masked language model'
      : r.hf
        ? `with ${r.hf.label}`
        : "with the encoder of the project's English-to-French translator";
    this._showOwnInput();
    const sync = (input, v) => {
      if (this.shadowRoot.activeElement !== input && input.value !== v) input.value = v;
    };
    const { a, b, word } = this.texts;
    sync(this.inA, a);
    sync(this.inB, b);
    sync(this.inWord, this.getAttribute('word') ?? 'bank');
    const names = [
      'embedding (before any attention)',
      ...Array.from(
        { length: r.L },
        (_, l) => `after ${r.hf && r.hf.base.arch !== 'encoder' ? '' : 'encoder '}layer ${l + 1}`,
      ),
    ];
    const rows = r.sims.map((s, k) =>
      el(
        'tr',
        { dataset: { sim: String(s) } },
        el('th', { text: names[k] }),
        el('td', { className: 'num', text: fmt(s, 3) }),
        el(
          'td',
          {},
          el('span', {
            className: 'simbar',
            style: {
              display: 'inline-block',
              height: '0.8em',
              width: `${Math.max(0, s) * 10}em`,
              background: 'currentColor',
              opacity: 0.5,
            },
          }),
        ),
      ),
    );
    this.table.replaceChildren(
      el('thead', {}, el('tr', {}, el('th', { text: `"${word}" in A vs B` }), el('th', { text: 'cosine' }), el('td'))),
      el('tbody', {}, ...rows),
    );
    this.dataset.sims = JSON.stringify(r.sims.map((s) => Number(s.toFixed(6))));
    const lists = (S, name) =>
      el(
        'div',
        { style: { flex: '1 1 17em', minWidth: '0' } },
        el('p', { className: 'note', text: `Sentence ${name}: ${S.pieces.join(' ')}` }),
        // A deep model: the first and the last layer (every layer is in the table above).
        ...S.moved.map((w, l) =>
          r.L > 4 && l !== 0 && l !== r.L - 1
            ? null
            : barList({
                title: `layer ${l + 1}: where "${word}" looks`,
                digits: 2,
                items: S.pieces.map((p, j) => ({
                  label: j === S.at ? `${p} (itself)` : p,
                  value: w[j],
                  chosen: j === S.at,
                })),
              }),
        ),
      );
    this.moved.replaceChildren(lists(r.A, 'A'), lists(r.B, 'B'));
    const top = (S, l) => {
      const w = S.moved[l];
      let j0 = -1;
      for (let j = 0; j < w.length; j++) if (j !== S.at && (j0 < 0 || w[j] > w[j0])) j0 = j;
      return `${occurrence(S.pieces, j0)}"${S.pieces[j0]}" (${fmt(w[j0], 2)})`;
    };
    const per = r.A.moved.map((_, l) => `layer ${l + 1}: A ${top(r.A, l)}, B ${top(r.B, l)}`).join('; ');
    if (r.english) {
      const b = r.hf.base;
      this.french.textContent = `Besides itself, "${word}" reads most: ${per}.`;
      this.aboutModel.textContent = `The model: the English masked language model (web/models/${ENGLISH_MLM}.safetensors; encoder-only, ${r.L} layers, ${b.nHeads} heads, d_model = ${b.dModel}), the English decoder's encoder twin: it learned to fill in hidden words of the Brown corpus, reading both sides. Nothing in its training asked it to tell the two senses of "${word}" apart.`;
      return;
    }
    if (r.hf) {
      this.french.textContent = `Besides itself, "${word}" reads most: ${per}.`;
      this.aboutModel.textContent = `The model: ${r.hf.label}, the page's model (${r.L} layers, d_model = ${r.hf.base.dModel}${r.hf.base.arch === 'encoder' ? '' : '; a decoder: each word sees only the words before it, so what comes after "bank" cannot move it'}).`;
      return;
    }
    this.aboutModel.textContent =
      'The model: the encoder of this project\'s trained English-to-French translation transformer (2 layers, d_model = 48). To translate "bank" it must choose "banque" or "rive", so its encoder learned to separate the two.';
    this.french.textContent = `Besides itself, "${word}" reads most: ${per}. These are this small model's cues, learned from its grammar, not necessarily the ones a person would use. What it does with them: A → "${r.A.french}", B → "${r.B.french}".`;
  }
}

define(ApContextEmbeddings);
