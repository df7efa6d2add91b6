// <ap-translation> (translation): attention learns an alignment between output and input words,
// word-order changes included (004). The student's English sentence (default the notes'
// "The agreement on the European Economic Area was signed in August 1992.") through the
// project's trained encoder-decoder transformer (web/models/translate.safetensors): its greedy
// French, the head-averaged cross-attention of a chosen decoder layer as an alignment matrix
// (rows: French words written, columns: English words read), and one line per French word naming
// the English word it attends to most. If an RNN encoder-decoder with additive attention trained
// on the same task is available (web/models/translate-rnn.safetensors, lib/rnn-attention.js), its alignment is drawn
// beside. Attributes: source (the English sentence), align-layer (decoder layer, 0-based; default the last).
import { ApWidget, define } from '../lib/widget.js';
import '../lib/heatmap-element.js'; // this.hm() draws with <ap-heatmap>: defined here when this widget is loaded alone
import { el, fmt, occurrence, wideField } from '../lib/dom.js';
import { matrix } from '../lib/heatmap.js';
import { translationRnn } from '../lib/rnn-attention.js';
import { NOTES_EN, argmaxRows, translateWithAlignment, translationEntry } from '../lib/translation.js';

export class ApTranslation extends ApWidget {
  static ownInput =
    "This view does not read the text at the top: it reads its own English sentence, in its box, with the project's small English-to-French translators, which know only the words of their training.";
  static concept = 'translation';
  static extraAttributes = ['source', 'align-layer'];
  static textInput = false; // its own English box: the page's text is for the other views

  build() {
    let timer = null;
    this.input = el('input', {
      type: 'text',
      spellcheck: false,
      maxLength: 200,
      style: { width: '100%', boxSizing: 'border-box', font: 'inherit', padding: '4px 6px' },
      value: NOTES_EN,
      attrs: { 'aria-label': 'English sentence to translate' },
      on: {
        input: () => {
          clearTimeout(timer);
          timer = setTimeout(() => this.setAttribute('source', this.input.value), 250);
        },
      },
    });
    this.layerSel = el('select', {
      attrs: { 'aria-label': 'Decoder layer' },
      on: { change: () => this.setAttribute('align-layer', this.layerSel.value) },
    });
    this.output = el('p', { className: 'translation-output' });
    this.unknownNote = el('p', { className: 'warn unknown-note', hidden: true });
    this.lines = el('ol', { className: 'align-lines' });
    this.alignSlot = el('div', { className: 'slot' });
    this.rnnBox = el('div', { hidden: true });
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'A translation model writes French one word at a time. At each step its decoder asks the encoder\'s English words which of them matter now (cross-attention). Lined up, those weights are an alignment: the notes\' example shows "zone" reading "Area", "1992" reading "1992" and "signé" reading "signed", even though French puts the adjectives after the noun and in the opposite order.',
      }),
      el(
        'div',
        { className: 'controls' },
        wideField('English', this.input),
        el(
          'label',
          { className: 'field', dataset: { control: 'layer' } },
          el('span', { text: 'Decoder layer' }),
          this.layerSel,
        ),
      ),
      this.unknownNote,
      el('h4', { text: "The model's French (greedy decoding)" }),
      this.output,
      el('h4', { text: 'Alignment: cross-attention weights, mean of the heads' }),
      el('p', {
        className: 'note',
        text: 'Each row is one step of the decoder: the French word it wrote. Each column is an English word. Brighter = more weight; every row sums to 1.',
      }),
      this.alignSlot,
      el('h4', { text: 'Each French word and the English word it reads most' }),
      this.lines,
      this.rnnBox,
      el('p', {
        className: 'note',
        text: "The model: an encoder-decoder transformer (2 encoder and 2 decoder layers, 2 heads, d_model = 48) trained by this project's C++ trainer on a small English-to-French grammar (documents signed in a month and year, going to the bank, sitting by the river bank). Words outside that grammar are unknown to it.",
      }),
    );
  }

  renderKey(state) {
    return JSON.stringify([super.renderKey(state), this.getAttribute('source'), this.getAttribute('align-layer')]);
  }

  source() {
    return this.hasAttribute('source') ? this.getAttribute('source') : NOTES_EN;
  }

  compute() {
    const entry = translationEntry();
    if (!entry) throw new Error('The trained translation model (web/models/translate.safetensors) is not present.');
    // The RNN's alignment beside the transformer's; without its file the view shows the transformer alone.
    const rnnGet = translationRnn().catch(() => null);
    const text = this.source();
    const go = (e, rnn) => ({
      t: translateWithAlignment(e.model, text),
      nLayers: e.model.config.nLayers,
      nHeads: e.model.config.nHeads,
      rnn: rnn ? this.rnnAlignment(rnn, text) : null,
    });
    return Promise.all([entry, rnnGet]).then(([e, r]) => go(e, r));
  }

  /** The RNN's additive-attention alignment, when its model is available. */
  rnnAlignment(rnnEntry, text) {
    const model = rnnEntry.model || rnnEntry;
    const tr = model.translate(text);
    try {
      const w = tr.get('add_weights');
      const out = tr.output,
        src = tr.tokens;
      const rows = out.length,
        cols = src.length;
      return { src, out, values: w.slice(0, rows * cols), text: tr.text };
    } finally {
      tr.dispose?.();
    }
  }

  render(d) {
    if (this.shadowRoot.activeElement !== this.input && this.input.value !== this.source())
      this.input.value = this.source();
    const { t } = d;
    const layers = Array.from({ length: d.nLayers }, (_, l) => ({
      value: String(l),
      label: `${l + 1} of ${d.nLayers}`,
    }));
    // Its own layer attribute (the page's "layer" is for the other views); default the last layer.
    const want = this.numberAttribute('align-layer', { min: 0, max: d.nLayers - 1, integer: true }, d.nLayers - 1);
    if (this.layerSel.options.length !== layers.length)
      for (const o of layers) this.layerSel.append(el('option', { value: o.value, text: o.label }));
    this.layerSel.value = String(want);
    this.unknownNote.hidden = t.unknown.length === 0;
    this.unknownNote.textContent = t.unknown.length
      ? `Not in the model's vocabulary (read as <unk>): ${t.unknown.join(', ')}. Its translation of those words means nothing.`
      : '';
    this.output.textContent = t.text || '(nothing: the model wrote <eos> at once)';
    this.dataset.translation = t.text;
    const L = t.layers[want];
    const rows = t.out.length,
      cols = t.src.length;
    if (!rows) {
      this.place(this.alignSlot);
      this.lines.replaceChildren();
      return;
    }
    const m = matrix({
      name: 'alignment',
      title: `cross-attention, decoder layer ${want + 1}, mean of ${d.nHeads} heads`,
      values: L.mean,
      rows,
      cols,
      rowLabels: t.out,
      colLabels: t.src,
      kind: 'prob',
      rowAxis: 'French (written)',
      colAxis: 'English (read)',
    });
    this.place(this.alignSlot, this.hm('alignment', m));
    const best = argmaxRows(L.mean, rows, cols);
    this.dataset.alignment = JSON.stringify(best.map((b, i) => [t.out[i], t.src[b.col], Number(b.value.toFixed(4))]));
    this.lines.replaceChildren(
      ...best.map((b, i) =>
        el(
          'li',
          {},
          el('b', { text: t.out[i] }),
          ` reads ${occurrence(t.src, b.col)}`,
          el('b', { text: `“${t.src[b.col]}”` }),
          ` most (weight ${fmt(b.value, 2)})`,
        ),
      ),
    );
    this.renderRnn(d.rnn);
  }

  renderRnn(r) {
    this.rnnBox.hidden = !r;
    if (!r) return;
    const m = matrix({
      name: 'rnn-alignment',
      title: 'RNN encoder-decoder, additive attention α_tj',
      values: r.values,
      rows: r.out.length,
      cols: r.src.length,
      rowLabels: r.out,
      colLabels: r.src,
      kind: 'prob',
      rowAxis: 'French (written)',
      colAxis: 'English (read)',
    });
    const slot = el('div', { className: 'slot' });
    this.rnnBox.replaceChildren(
      el('h4', { text: 'The same task, an RNN with additive (Bahdanau) attention' }),
      el('p', { text: `Its French: ${r.text}` }),
      slot,
    );
    this.place(slot, this.hm('rnn-alignment', m));
  }
}

define(ApTranslation);
