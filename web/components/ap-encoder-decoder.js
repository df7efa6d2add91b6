// <ap-encoder-decoder> (encoder-decoder): the encoder reads the whole source with bidirectional
// self-attention; the decoder has three sublayers: masked self-attention over what it has
// written, cross-attention to the encoder's output, and the FFN. The trained dates model (or
// random weights when its file is absent), run by the core, one attention of each kind.
import { ApWidget, define } from '../lib/widget.js';
import { el, tokenText } from '../lib/dom.js';
import { encoderDecoderChoice, encoderDecoderOwnInput, encoderDecoderRun, headFor, layerFor } from '../lib/view.js';
import { stepView } from '../lib/steps/index.js';

export class ApEncoderDecoder extends ApWidget {
  // Unless the page's model is an encoder-decoder, it runs a model of its own on that model's text.
  ownInputText() {
    return encoderDecoderOwnInput(this.state, this._choice, "the project's trained dates model on its own example");
  }

  static concept = 'encoder-decoder';

  build() {
    this.note = el('p', { className: 'note' });
    this.src = el('div', { className: 'tokens' });
    this.tgt = el('div', { className: 'tokens' });
    this.maps = el('div', { className: 'col3' });
    this.blocks = el('div', { className: 'col2' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: "The encoder turns the source into one vector per token, every token seeing every other. The decoder writes the output one token at a time: it attends to its own past (masked), then to the encoder's vectors (cross-attention: queries from the decoder, keys and values from the encoder), then applies its FFN.",
      }),
      this.note,
      el(
        'div',
        { className: 'row' },
        el('div', { className: 'grow' }, el('b', { text: 'Source (encoder input)' }), this.src),
        el('div', { className: 'grow' }, el('b', { text: 'Target (decoder input)' }), this.tgt),
      ),
      this.maps,
      this.blocks,
    );
  }

  compute(state) {
    const choice = encoderDecoderChoice(state);
    this._choice = choice;
    return encoderDecoderRun(choice, state);
  }

  render(run, state) {
    this.note.textContent = this._choice.note;
    const chips = (labels, flags) =>
      labels.map((p, i) => el('span', { className: `tok${flags?.has(i) ? ' unknown' : ''}`, text: tokenText(p) }));
    this.src.replaceChildren(...chips(run.srcTokens, run.srcUnknown));
    this.tgt.replaceChildren(...chips(run.tokens));
    const layer = layerFor(run, state),
      head = headFor(run, state);
    const enc = stepView(run, 'weights', { layer, head, stack: 'encoder' }).view.output;
    const dec = stepView(run, 'weights', { layer, head, stack: 'decoder' }).view.output;
    const cross = stepView(run, 'cross_weights', { layer, head, stack: 'decoder' }).view.output;
    enc.title = `encoder self-attention (bidirectional), layer ${layer}, head ${head}`;
    dec.title = `decoder self-attention (masked), layer ${layer}, head ${head}`;
    cross.title = `cross-attention: decoder → encoder, layer ${layer}, head ${head}`;
    this.place(this.maps, this.hm('enc', enc), this.hm('dec', dec), this.hm('cross', cross));
    const list = (stack) =>
      [
        ...new Set(
          run
            .stages()
            .filter((s) => s.stack === stack && s.layer === layer && !s.name.endsWith('_stats'))
            .map((s) => s.name),
        ),
      ].join(' → ');
    this.blocks.replaceChildren(
      el(
        'div',
        { className: 'panel' },
        el('b', { text: `Encoder layer ${layer}: ` }),
        el('span', { className: 'mono', text: list('encoder') }),
      ),
      el(
        'div',
        { className: 'panel' },
        el('b', { text: `Decoder layer ${layer}: ` }),
        el('span', { className: 'mono', text: list('decoder') }),
      ),
    );
  }
}

define(ApEncoderDecoder);
