// <ap-cross-attention> (cross-attention): Q from the decoder, K and V from the encoder output.
// The cross-attention weights as an alignment matrix (rows: what the decoder writes, columns:
// the source), like the translation alignment of the notes; any score explained.
import { ApWidget, define } from '../lib/widget.js';
import { el } from '../lib/dom.js';
import { StepPanel, encoderDecoderChoice, headFor, layerFor, withEntry } from '../lib/view.js';
import { runFor } from '../lib/runs.js';
import { switchesOf } from '../lib/state.js';
import { stepView } from '../lib/steps.js';
import { NOTES_EN, TRANSLATE_KEY } from '../lib/translation.js';
import { hasModelFile } from '../lib/models.js';

export class ApCrossAttention extends ApWidget {
  static concept = 'cross-attention';

  build() {
    this.note = el('p', { className: 'note' });
    this.align = new StepPanel();
    this.scores = new StepPanel();
    this.body.append(
      el('p', { className: 'lead', text: 'In cross-attention the queries come from the decoder and the keys and values from the encoder\'s output. Each row of weights says which source tokens the decoder reads while writing that output token: an alignment between output and input.' }),
      this.note, el('h4', { text: 'Alignment: cross-attention weights' }), this.align.node,
      el('h4', { text: 'Where they come from: decoder queries against encoder keys' }), this.scores.node);
  }

  compute(state) {
    let choice = encoderDecoderChoice(state);
    // Unless the student picked an encoder-decoder model, the trained translation model on the
    // notes' sentence (004): its alignment is the one the notes draw.
    if (!choice.trained || choice.key === 'trained:dates') {
      if (hasModelFile('translate') && !state.preset && !(state.model === 'random' && state.arch === 'encoder-decoder')) {
        choice = { key: TRANSLATE_KEY, text: NOTES_EN, trained: true, note: 'The trained translation model on the notes\' sentence (004): the decoder input is its own greedy French, so the row of each French word is the step that wrote the next one. Pick decoder layer 2 to see the notes\' alignment (zone reads area, signé reads signed); the translation view shows it averaged over the heads.' };
      }
    }
    this._choice = choice;
    return withEntry(choice.key, () => runFor({ preset: '', modelKey: choice.key, text: choice.text, switches: { ...switchesOf(state), causal: undefined, pos: undefined } }));
  }

  render(run, state) {
    this.note.textContent = this._choice.note;
    if (run.empty) return;
    const layer = layerFor(run, state), head = headFor(run, state);
    const w = stepView(run, 'cross_weights', { layer, head, stack: 'decoder' }).view;
    w.output.title = `alignment (cross-attention weights), layer ${layer}, head ${head}`;
    // The explanation opens on the largest weight: the clearest alignment in this head.
    const vals = w.output.values;
    let top = 0;
    for (let k = 1; k < vals.length; k++) if (vals[k] > vals[top]) top = k;
    const explainCell = { row: Math.floor(top / w.output.cols), col: top % w.output.cols };
    this.dataset.largest = JSON.stringify({ ...explainCell, value: vals[top] });
    this.align.show(w, { slot: 'a', showInputs: false, explainCell });
    this.scores.show(stepView(run, 'cross_scores', { layer, head, stack: 'decoder' }).view, { slot: 's' });
  }
}

define(ApCrossAttention);
