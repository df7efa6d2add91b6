// <ap-relative> (relative): relative positions (Shaw et al.): a learned bias per head for each
// offset j - i (clipped to +-clip) is added to the scores. The bias table, and the pos_bias
// stage of a model with pos 'relative': constant along every diagonal.
import { ApWidget, define } from '../lib/widget.js';
import { el } from '../lib/dom.js';
import { StepPanel, headFor, textFor, tokensWithin, withEntry } from '../lib/view.js';
import { randomKey } from '../lib/models.js';
import { runIds } from '../lib/runs.js';
import { stepView } from '../lib/steps/index.js';
import { matrix } from '../lib/heatmap.js';
import { tokenText } from '../lib/dom.js';

export class ApRelative extends ApWidget {
  static concept = 'relative';

  build() {
    this.table = el('div');
    this.bias = new StepPanel();
    this.scaled = new StepPanel();
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Relative position methods ask "how far apart are i and j?" instead of "where is i?". Here each head learns one number per offset j − i, added to the score: the same bias for every pair at the same distance, wherever they are.',
      }),
      (this.cutNote = el('p', { className: 'note cut', hidden: true })),
      this.table,
      el('h4', { text: 'The bias added to the scores (this head)' }),
      this.bias.node,
      el('h4', { text: 'Scores, scaled, plus the bias' }),
      this.scaled.node,
    );
  }

  compute(state) {
    const tokenizer = state.model === 'random' ? state.tokenizer : 'word';
    const key = randomKey({
      arch: 'decoder',
      tokenizer,
      seed: state.seed,
      dModel: state.dmodel,
      nHeads: 2,
      nLayers: 1,
      pos: 'relative',
    });
    return withEntry(key, (entry) => {
      const t = tokensWithin(entry, textFor(state));
      this._cut = t.cut;
      return runIds(entry, t.ids, { causal: false }, t.pieces.map(tokenText));
    });
  }

  render(run, state) {
    this.cutNote.textContent = this._cut;
    this.cutNote.hidden = !this._cut;
    if (run.tokens.length === 0) return;
    const head = headFor(run, state);
    const rel = run.tensor('rel_bias');
    const clip = run.config.relClip;
    this.place(
      this.table,
      this.hm(
        'rel',
        matrix({
          name: 'rel_bias',
          // A trained model learned its table; the random one this view builds drew it (seeded).
          title: `${run.entry?.kind === 'random' ? 'bias (random, not learned)' : 'learned bias'} b[j − i] per head (offsets −${clip}…${clip})`,
          values: rel.data,
          rows: rel.shape[0],
          cols: rel.shape[1],
          rowLabels: Array.from({ length: rel.shape[0] }, (_, h) => `head ${h}`),
          colLabels: Array.from({ length: rel.shape[1] }, (_, k) => String(k - clip)),
          kind: 'div',
        }),
        { 'max-cell': '30' },
      ),
    );
    this.bias.show(stepView(run, 'pos_bias', { layer: 0, head }).view, { slot: 'b', showInputs: false });
    this.scaled.show(stepView(run, 'scaled', { layer: 0, head }).view, {
      slot: 's',
      explainCell: { row: Math.min(2, run.tokens.length - 1), col: 0 },
    });
  }
}

define(ApRelative);
