// <ap-bert-gpt> (bert-gpt): encoder-only (BERT: bidirectional, trained to fill in masked words)
// vs decoder-only (GPT: causal, trained to predict the next word). The same sentence through an
// encoder and a decoder with the same sizes and seed: the two masks and weights side by side,
// and a test of what each position can see: change the last word and see which outputs move.
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt, tokenText } from '../lib/dom.js';
import { numsTable, textFor, withEntry } from '../lib/view.js';
import { randomKey } from '../lib/models.js';
import { runIds } from '../lib/runs.js';
import { stepView } from '../lib/steps.js';
import { matrix } from '../lib/heatmap.js';

export class ApBertGpt extends ApWidget {
  static concept = 'bert-gpt';

  build() {
    this.cols = el('div', { className: 'col2' });
    this.test = el('div');
    this.body.append(
      el('p', { className: 'lead', text: 'BERT keeps only the encoder: every token sees the whole sentence, and it is trained to recover masked-out words from both sides. GPT keeps only the decoder: each token sees its past only, and it is trained to predict the next token, which is what lets it generate.' }),
      this.cols, el('h4', { text: 'Who sees what: change the last word' }), this.test);
  }

  compute(state) {
    const spec = { tokenizer: 'word', seed: state.seed, dModel: state.dmodel, nHeads: 2, nLayers: 1 };
    const encKey = randomKey({ ...spec, arch: 'encoder' }), decKey = randomKey({ ...spec, arch: 'decoder' });
    return withEntry(encKey, (enc) => withEntry(decKey, (dec) => {
      const e = enc.model.tokenizer.encode(textFor(state));
      const ids = Array.from(e.ids);
      const labels = e.pieces.map(tokenText);
      if (!ids.length) return { empty: true };
      // The same sentence with its last word replaced ("the" <-> "a").
      const alt = ids.slice();
      const the = enc.model.tokenizer.encode('the').ids[0], a = enc.model.tokenizer.encode('a').ids[0];
      alt[alt.length - 1] = alt[alt.length - 1] === the ? a : the;
      const altLabels = [...labels.slice(0, -1), tokenText(enc.model.vocab[alt[alt.length - 1]])];
      return {
        labels, altLabels,
        bert: runIds(enc, Int32Array.from(ids), { causal: false }, labels),
        gpt: runIds(dec, Int32Array.from(ids), { causal: true }, labels),
        bert2: runIds(enc, Int32Array.from(alt), { causal: false }, altLabels),
        gpt2: runIds(dec, Int32Array.from(alt), { causal: true }, altLabels),
      };
    }));
  }

  render(r) {
    if (r.empty) { this.cols.replaceChildren(el('p', { text: 'Type some text.' })); return; }
    const side = (run, key, name, objective) => {
      const M = stepView(run, 'masked', { layer: 0, head: 0 }).view.output;
      const A = stepView(run, 'weights', { layer: 0, head: 0 }).view.output;
      const mask = new Float32Array(M.values.length);
      for (let k = 0; k < mask.length; k++) mask[k] = M.values[k] === -Infinity ? 1 : 0;
      if (!this.panels) this.panels = {};
      if (!this.panels[key]) {
        this.panels[key] = el('div', { className: 'panel', dataset: { model: key } }, el('h4', { text: name }), el('p', { className: 'note', text: objective }));
      }
      this.place(this.panels[key], this.panels[key].children[0], this.panels[key].children[1],
        this.hm(`${key}-mask`, matrix({ name: `${key}-mask`, title: 'mask (1 = blocked)', values: mask, rows: M.rows, cols: M.cols, rowLabels: M.rowLabels, colLabels: M.colLabels, kind: 'ids', corner: 'q \\ k' }), { 'max-cell': '30' }),
        this.hm(`${key}-weights`, A, { 'max-cell': '30' }));
      return this.panels[key];
    };
    this.place(this.cols,
      side(r.bert, 'bert', 'BERT (encoder-only)', 'Bidirectional. Objective: predict masked words from both sides.'),
      side(r.gpt, 'gpt', 'GPT (decoder-only)', 'Causal. Objective: predict the next token.'));
    // Outputs of layer 0 for each position, before and after changing the last word.
    const moved = (a, b) => {
      const X = a.get('resid2', { layer: 0 }), Y = b.get('resid2', { layer: 0 });
      const d = a.config.dModel, n = X.length / d;
      return Array.from({ length: n }, (_, i) => {
        let m = 0;
        for (let c = 0; c < d; c++) m = Math.max(m, Math.abs(X[i * d + c] - Y[i * d + c]));
        return m;
      });
    };
    const mb = moved(r.bert, r.bert2), mg = moved(r.gpt, r.gpt2);
    const n = r.labels.length;
    this.test.replaceChildren(
      el('p', { className: 'note', text: `"${r.labels.join(' ')}" vs "${r.altLabels.join(' ')}": how much each position's output (layer 0) changes.` }),
      numsTable({
        header: ['position', 'BERT: max change', 'GPT: max change'],
        rows: r.labels.map((l, i) => [`${i}: ${l}${i === n - 1 ? ' (changed)' : ''}`, { text: fmt(mb[i], 4), data: { value: String(mb[i]) } }, { text: fmt(mg[i], 4), data: { value: String(mg[i]) } }]),
        className: 'nums who-sees',
      }),
      el('p', { className: 'changed', text: `Earlier positions: BERT's outputs change (up to ${fmt(Math.max(0, ...mb.slice(0, -1)), 3)}), because every token sees the last word; GPT's do not (${fmt(Math.max(0, ...mg.slice(0, -1)), 3)}), because no token sees the future.` }));
  }
}

define(ApBertGpt);
