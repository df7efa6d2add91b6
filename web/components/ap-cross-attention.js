// <ap-cross-attention> (cross-attention): Q from the decoder, K and V from the encoder output.
// The cross-attention weights as an alignment matrix (rows: what the decoder writes, columns:
// the source), like the translation alignment of the notes; any score explained.
import { ApWidget, define } from '../lib/widget.js';
import { el, fillSelect } from '../lib/dom.js';
import {
  StepPanel,
  encoderDecoderChoice,
  encoderDecoderOwnInput,
  encoderDecoderRun,
  headFor,
  layerFor,
} from '../lib/view.js';
import { stepView } from '../lib/steps/index.js';
import { NOTES_EN, TRANSLATE_KEY } from '../lib/translation.js';
import { hasModelFile } from '../lib/models.js';

export class ApCrossAttention extends ApWidget {
  // Unless the page's model is an encoder-decoder, it runs a model of its own on that model's text.
  ownInputText() {
    return encoderDecoderOwnInput(
      this.state,
      this._choice,
      "the project's English-to-French translator on the notes' sentence",
    );
  }

  static concept = 'cross-attention';

  build() {
    this.note = el('p', { className: 'note' });
    // Its own layer and head (the page's are for its model; this view may run the translator).
    this.layerSel = el('select', {
      attrs: { 'aria-label': 'Decoder layer' },
      on: {
        change: () => {
          this._layer = Number(this.layerSel.value);
          this.update();
        },
      },
    });
    this.headSel = el('select', {
      attrs: { 'aria-label': 'Head' },
      on: {
        change: () => {
          this._head = Number(this.headSel.value);
          this.update();
        },
      },
    });
    this.pickers = el(
      'div',
      { className: 'controls' },
      el(
        'label',
        { className: 'field inline', dataset: { control: 'layer' } },
        el('span', { text: 'Decoder layer' }),
        this.layerSel,
      ),
      el(
        'label',
        { className: 'field inline', dataset: { control: 'head' } },
        el('span', { text: 'Head' }),
        this.headSel,
      ),
    );
    this.align = new StepPanel();
    this.scores = new StepPanel();
    this.body.append(
      el('p', {
        className: 'lead',
        text: "In cross-attention the queries come from the decoder and the keys and values from the encoder's output. Each row of weights says which source tokens the decoder reads while writing that output token: an alignment between output and input.",
      }),
      this.note,
      this.pickers,
      el('h4', { text: 'Alignment: cross-attention weights' }),
      this.align.node,
      el('h4', { text: 'Where they come from: decoder queries against encoder keys' }),
      this.scores.node,
    );
  }

  compute(state) {
    let choice = encoderDecoderChoice(state);
    // Unless the student picked an encoder-decoder model, the trained translation model on the
    // notes' sentence (004): its alignment is the one the notes draw.
    if (!choice.trained || choice.key === 'trained:dates') {
      if (
        hasModelFile('translate') &&
        !state.preset &&
        !(state.model === 'random' && state.arch === 'encoder-decoder')
      ) {
        choice = {
          key: TRANSLATE_KEY,
          text: NOTES_EN,
          trained: true,
          note: "The trained translation model on the notes' sentence (004): the decoder input is its own greedy French, so the row of each French word is the step that writes the next one (the translation view in chapter A labels its rows by the word written instead). It opens on the last decoder layer, where the notes' alignment forms, and on the head that agrees most with the average over heads, which the translation view draws; layer 0 has not aligned yet. Layers and heads are counted from 0, as elsewhere on the page.",
        };
      }
    }
    this._choice = choice;
    return encoderDecoderRun(choice, state);
  }

  // The head whose strongest source word per row agrees most with the mean over heads (the
  // translation view's alignment): heads split the work, and one alone can be off by a word.
  alignedHead(run, layer) {
    const H = run.config.nHeads;
    const maps = Array.from({ length: H }, (_, h) => run.get('cross_weights', { layer, head: h, stack: 'decoder' }));
    const [n, m] = run.shape('cross_weights', { layer, head: 0, stack: 'decoder' }).slice(-2);
    const argmax = (row) => row.indexOf(Math.max(...row));
    const mean = (i) => Array.from({ length: m }, (_, j) => maps.reduce((a, w) => a + w[i * m + j], 0) / H);
    let best = 0,
      bestAgree = -1;
    for (let h = 0; h < H; h++) {
      let agree = 0;
      for (let i = 0; i < n; i++)
        if (argmax(Array.from(maps[h].slice(i * m, (i + 1) * m))) === argmax(mean(i))) agree++;
      if (agree > bestAgree) {
        best = h;
        bestAgree = agree;
      }
    }
    return best;
  }

  render(run, state) {
    this.note.textContent = this._choice.note;
    // The translator opens on its last decoder layer (its first has not aligned yet); another
    // model follows the page's layer and head until the student picks here.
    const L = run.config.nLayers,
      H = run.config.nHeads;
    const own = this._choice.key === TRANSLATE_KEY;
    const layer = Math.min(this._layer ?? (own ? L - 1 : layerFor(run, state)), L - 1);
    const head = Math.min(this._head ?? (own ? this.alignedHead(run, layer) : headFor(run, state)), H - 1);
    fillSelect(
      this.layerSel,
      Array.from({ length: L }, (_, l) => ({ value: l, label: `${l} (of 0 to ${L - 1})` })),
      layer,
    );
    fillSelect(
      this.headSel,
      Array.from({ length: H }, (_, h) => ({ value: h, label: `${h} (of 0 to ${H - 1})` })),
      head,
    );
    this.dataset.layer = String(layer);
    this.dataset.head = String(head);
    const w = stepView(run, 'cross_weights', { layer, head, stack: 'decoder' }).view;
    w.output.title = `alignment (cross-attention weights), decoder layer ${layer}, head ${head}`;
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
