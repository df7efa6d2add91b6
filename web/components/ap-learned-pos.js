// <ap-learned-pos> (learned-pos): learned absolute positions, one trained row per position up
// to the model's maximum length L. The trained models' pos_emb table (model.getTensor), and
// what happens past L: the core refuses, since there is no row to add.
import { ApWidget, define } from '../lib/widget.js';
import { el, errorText, fillSelect } from '../lib/dom.js';
import '../lib/heatmap-element.js'; // this.hm() draws with <ap-heatmap>: defined here when this widget is loaded alone
import { playgroundNow } from '../lib/module.js';
import { availableTrainedModels, getModel, randomKey } from '../lib/models.js';
import { matrix } from '../lib/heatmap.js';

export class ApLearnedPos extends ApWidget {
  static concept = 'learned-pos';

  build() {
    this.choice = null;
    this.sel = el('select', {
      on: {
        change: () => {
          this.choice = this.sel.value;
          this.update();
        },
      },
    });
    this.note = el('p', { className: 'note' });
    this.map = el('div');
    this.extra = el('p', { className: 'changed' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Instead of a formula, a model can learn one vector per position, like a second embedding table indexed by position. Each position fits the data, but a table of L rows has nothing to add at position L: the model cannot go past its maximum length.',
      }),
      el(
        'div',
        { className: 'controls' },
        el('label', { className: 'field inline' }, el('span', { text: 'Model' }), this.sel),
      ),
      this.note,
      this.map,
      this.extra,
    );
  }

  async _candidates() {
    // From the files' headers: only the chosen model's weights are downloaded.
    const heads = await availableTrainedModels();
    return heads
      .filter((h) => h.tensors.includes('pos_emb'))
      .map((h) => ({ key: `trained:${h.name}`, label: `trained: ${h.name}` }));
  }

  compute(state) {
    return this._candidates().then((cands) => {
      const fallback = {
        key: randomKey({
          arch: 'decoder',
          tokenizer: 'word',
          seed: state.seed,
          dModel: 16,
          nHeads: 2,
          nLayers: 1,
          pos: 'learned',
        }),
        label: 'random weights, learned positions (untrained)',
      };
      const all = [...cands, fallback];
      // The reader's choice, else the page's model (the sinusoidal view points here for its table).
      const pick =
        all.find((c) => c.key === this.choice) || all.find((c) => c.key === `trained:${state.model}`) || all[0];
      return getModel(pick.key).then((entry) => ({ entry, all, pick, trained: cands.length > 0 }));
    });
  }

  render({ entry, all, pick, trained }) {
    fillSelect(
      this.sel,
      all.map((c) => ({ value: c.key, label: c.label })),
      pick.key,
    );
    const t = entry.model.tensors().find((x) => x.name === 'pos_emb');
    const [L, d] = t.shape;
    const P = matrix({
      name: 'pos_emb',
      title: `learned position table P (${pick.label})`,
      values: entry.model.getTensor('pos_emb'),
      rows: L,
      cols: d,
      rowLabels: Array.from({ length: L }, (_, i) => String(i)),
      kind: 'div',
    });
    // A long table (the English model's 256 rows) in 4-px cells with thinned labels, still with its
    // title, legend, PNG / CSV and table of numbers: about 1,100 px instead of 3,400; a short one
    // (dates: 32) keeps its labelled cells.
    const long = L > 64;
    this.place(this.map, this.hm('p', P, long ? { 'max-cell': '4', dense: '' } : { 'max-cell': '22' }));
    this.note.textContent = trained
      ? `Each row was learned with the rest of the model (L = ${L} positions, d = ${d})${long ? `: position 0 is the top row, position ${L - 1} the bottom one, and each column one of the ${d} dimensions` : ''}.`
      : `No trained model file with learned positions is loaded, so this table is random (untrained): L = ${L} positions, d = ${d}.`;
    // Past L: ask the core for L + 1 tokens.
    try {
      const ids = new Int32Array(L + 1).fill(entry.model.vocab.length > 4 ? 4 : 1);
      const tr =
        entry.model.arch === 'encoder-decoder' || entry.base.arch === 'encoder-decoder'
          ? entry.model.forward({ src: ids, tgt: Int32Array.of(playgroundNow().specialTokens.bos) })
          : entry.model.forward(ids);
      tr.dispose();
      this.extra.textContent = `The core accepted ${L + 1} tokens.`;
    } catch (err) {
      this.extra.textContent = `Asked for ${L + 1} positions, the core answers: "${errorText(err)}". Sinusoidal positions have no such limit.`;
    }
    this.dataset.rows = String(L);
  }
}

define(ApLearnedPos);
