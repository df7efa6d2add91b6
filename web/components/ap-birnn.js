// <ap-birnn> (birnn): a bidirectional RNN reads the sentence both ways (notes 004 eq. 2-4; 001:
// the fix for "does not consider information from later timesteps"). The encoder of the
// project's trained English→French RNN model runs on the student's sentence: its forward states
// →h_j, its backward states ←h_j and their concatenation h_j, each a heatmap from the core.
// Then the core runs again on the same sentence with one later word changed, and the view draws,
// per position, how far each half moved: the forward half before the changed word does not move
// at all (it has not read that word yet), the backward half does.
// Attributes: source (the sentence; default the notes' 004 example), at (1-based position of the
// word to change), word (what it becomes).
import { ApWidget, define } from '../lib/widget.js';
import '../lib/heatmap-element.js'; // this.hm() draws with <ap-heatmap>: defined here when this widget is loaded alone
import { el, fmt, tokenText } from '../lib/dom.js';
import { matrix } from '../lib/heatmap.js';
import { renderTex, tex } from '../lib/katex.js';
import { NOTES_SENTENCE, stagesOf, translationRnn, unknownNote } from '../lib/rnn-attention.js';

const ENC = ['enc_fwd', 'enc_bwd', 'enc_h'];
const DEFAULT_CHANGE = { from: 'signed', to: 'ratified' };

/** Euclidean distance between row j of two (rows x cols) arrays. */
function rowDistance(a, b, cols, j) {
  let s = 0;
  for (let c = 0; c < cols; c++) s += (a[j * cols + c] - b[j * cols + c]) ** 2;
  return Math.sqrt(s);
}

export class ApBirnn extends ApWidget {
  static ownInput =
    "This view does not read the text at the top: it reads its own English sentence, in its box, with the project's small English-to-French translator, which knows only the words of its training.";
  static concept = 'birnn';
  static textInput = false; // it reads its own English sentence (the trained model's language)
  static extraAttributes = ['source', 'at', 'word'];

  get source() {
    return this.getAttribute('source') ?? NOTES_SENTENCE;
  }

  build() {
    let timer = null;
    const later = (fn) => {
      clearTimeout(timer);
      timer = setTimeout(fn, 250);
    };
    this.sourceInput = el('input', {
      type: 'text',
      spellcheck: false,
      maxLength: 300,
      attrs: { 'aria-label': 'English sentence' },
      on: {
        input: () =>
          later(() => {
            this.removeAttribute('at');
            this.setAttribute('source', this.sourceInput.value);
          }),
      },
    });
    this.atSelect = el('select', {
      attrs: { 'aria-label': 'word to change' },
      on: { change: () => this.setAttribute('at', this.atSelect.value) },
    });
    this.wordInput = el('input', {
      type: 'text',
      spellcheck: false,
      maxLength: 40,
      size: 12,
      attrs: { 'aria-label': 'replacement word' },
      on: { input: () => later(() => this.setAttribute('word', this.wordInput.value)) },
    });
    this.formula = el('div', { className: 'formula' });
    this.note = el('p', { className: 'note' });
    this.unknownLine = el('p', { className: 'note unknown-note' });
    this.maps = el('div', { className: 'col2' });
    this.concat = el('div');
    this.diffTitle = el('h4');
    this.diff = el('div', { className: 'birnn-diff', style: { overflowX: 'auto' } });
    this.lesson = el('p', { className: 'lesson' });
    this.body.append(
      el(
        'p',
        { className: 'lead' },
        'A plain RNN state ',
        tex('h_t', { className: 'math' }),
        ' has read words 1 to t only: it cannot know what comes later. A bidirectional RNN runs a second RNN from the last word back to the first and puts both states side by side, so every position carries the words before it and the words after it.',
      ),
      this.formula,
      el(
        'div',
        { className: 'controls' },
        el(
          'label',
          { className: 'field', dataset: { control: 'source' }, style: { flex: '1 1 320px' } },
          el('span', { text: 'English sentence' }),
          this.sourceInput,
        ),
      ),
      this.unknownLine,
      this.note,
      this.maps,
      this.concat,
      this.diffTitle,
      el(
        'div',
        { className: 'controls', dataset: { control: 'change' } },
        el('label', { className: 'field inline' }, el('span', { text: 'Change word' }), this.atSelect),
        el('label', { className: 'field inline' }, el('span', { text: 'to' }), this.wordInput),
      ),
      this.diff,
      this.lesson,
    );
  }

  renderKey(state) {
    return `${super.renderKey(state)}|${this.source}|${this.getAttribute('at') ?? ''}|${this.getAttribute('word') ?? ''}`;
  }

  compute() {
    return translationRnn().then((model) => ({ kind: 'rnn', model }));
  }

  render(run) {
    const model = run.model;
    const text = this.source.trim();
    if (!text) throw new Error('Type an English sentence for the encoder to read.');
    if (this.shadowRoot.activeElement !== this.sourceInput) this.sourceInput.value = this.source;
    renderTex(
      this.formula,
      '\\overrightarrow{h}_j = \\text{forward RNN}(x_1, \\dots, x_j), \\quad \\overleftarrow{h}_j = \\text{backward RNN}(x_n, \\dots, x_j), \\quad h_j = [\\overrightarrow{h}_j ; \\overleftarrow{h}_j]',
      { display: true },
    );

    const a = stagesOf(model.encode(text), ENC);
    const n = a.shape.enc_fwd[0],
      H = a.shape.enc_fwd[1];
    const words = a.tokens.map(tokenText);
    this.unknownLine.textContent = unknownNote(a.tokens, a.unknown, model.vocab.length);
    this.unknownLine.hidden = !this.unknownLine.textContent;
    this.note.textContent = `The encoder of the trained English→French model (web/models/translate-rnn.safetensors) on the ${n} words of its sentence above: each direction has ${H} numbers per word, h_j has ${2 * H}. Rows are words; colour is the value of each state unit.`;

    const hmap = (name, title, values, cols, extra = {}) =>
      this.hm(
        name,
        matrix({
          name,
          title,
          values,
          rows: n,
          cols,
          rowLabels: words,
          rowAxis: 'word j',
          colAxis: 'unit',
          kind: 'div',
          domain: [-1, 1],
          ...extra,
        }),
      );
    this.place(
      this.maps,
      el('div', { className: 'panel' }, hmap('fwd', `forward states →h_j (reads left to right)`, a.enc_fwd, H)),
      el('div', { className: 'panel' }, hmap('bwd', `backward states ←h_j (reads right to left)`, a.enc_bwd, H)),
    );
    this.place(
      this.concat,
      hmap('h', `h_j = [→h_j ; ←h_j]: ${H} + ${H} numbers, what the decoder's attention reads`, a.enc_h, 2 * H),
    );

    // The second sentence: one word changed.
    // The word to change: the at attribute (one of the sentence's words: clamped to them, with a
    // warning), else the notes' word, else one two thirds of the way in.
    let at = this.numberAttribute('at', { min: 1, max: n, integer: true }, words.indexOf(DEFAULT_CHANGE.from) + 1);
    if (!(at >= 1 && at <= n)) at = Math.max(1, Math.min(n, Math.ceil((2 * n) / 3)));
    const replacement =
      (this.getAttribute('word') ?? (words[at - 1] === DEFAULT_CHANGE.from ? DEFAULT_CHANGE.to : '')).trim() ||
      (words[at - 1] === 'the' ? 'a' : 'the');
    this.atSelect.replaceChildren(
      ...words.map((w, j) => el('option', { value: String(j + 1), text: `${j + 1}. ${w}` })),
    );
    this.atSelect.value = String(at);
    if (this.shadowRoot.activeElement !== this.wordInput) this.wordInput.value = replacement;
    const pieces = [...a.tokens];
    pieces[at - 1] = replacement;
    const b = stagesOf(model.encode(pieces.join(' ')), ENC);
    if (b.shape.enc_fwd[0] !== n)
      throw new Error(`"${replacement}" is not one word for this model's tokenizer: type a single word.`);
    const other = b.tokens.map(tokenText);

    const fwdDiff = [],
      bwdDiff = [];
    for (let j = 0; j < n; j++) {
      fwdDiff.push(rowDistance(a.enc_fwd, b.enc_fwd, H, j));
      bwdDiff.push(rowDistance(a.enc_bwd, b.enc_bwd, H, j));
    }
    this.diffTitle.textContent = `How far each half of h_j moves when word ${at} “${words[at - 1]}” becomes “${other[at - 1]}” (the core ran both sentences)`;
    const max = Math.max(...fwdDiff, ...bwdDiff, 1e-9);
    const bar = (v, cls) =>
      el(
        'div',
        { className: 'bar-cell' },
        el('span', {
          className: `bar ${cls}`,
          style: {
            display: 'inline-block',
            height: '10px',
            width: `${v === 0 ? 0 : Math.max(2, Math.round(120 * Math.sqrt(v / max)))}px`,
            background: cls === 'fwd' ? 'var(--_accent)' : 'var(--_warn)',
            verticalAlign: 'middle',
            marginRight: '6px',
          },
        }),
        el('span', { className: 'mono', text: v === 0 ? '0 (unchanged)' : fmt(v, 3) }),
      );
    const rows = words.map((w, j) =>
      el(
        'tr',
        { dataset: { pos: String(j + 1) }, className: j + 1 === at ? 'changed' : '' },
        el('td', { className: 'mono', text: `${j + 1}` }),
        el('td', {
          text: j + 1 === at ? `${w} → ${other[j]}` : w,
          style: { fontWeight: j + 1 === at ? '700' : '400' },
        }),
        el('td', {}, bar(fwdDiff[j], 'fwd')),
        el('td', {}, bar(bwdDiff[j], 'bwd')),
      ),
    );
    this.place(
      this.diff,
      el(
        'table',
        { className: 'birnn-table', attrs: { 'aria-label': 'distance moved by each half of every state' } },
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { text: 'j' }),
            el('th', { text: 'word' }),
            el('th', { text: '|Δ →h_j| forward half' }),
            el('th', { text: '|Δ ←h_j| backward half' }),
          ),
        ),
        el('tbody', {}, ...rows),
      ),
      el('p', {
        className: 'note',
        text: 'Bar length grows with the square root of the distance, so small moves stay visible; 0 means the same numbers to the last bit.',
      }),
    );
    const unchanged = fwdDiff.slice(0, at - 1).every((v) => v === 0);
    const moved = bwdDiff.slice(0, at - 1).filter((v) => v > 0).length;
    this.lesson.textContent =
      at === 1
        ? 'You changed the first word: every forward state after it moves, and only the backward state of word 1 has read it. Change a later word to see the backward half carry it to the words before.'
        : `Words 1 to ${at - 1} come before the change. Their forward halves ${unchanged ? 'are exactly the same numbers (distance 0): a forward RNN has not read word ' + at + ' yet when it reaches them' : 'moved (unexpected)'}; their backward halves moved (${moved} of ${at - 1}), because the backward RNN reads word ${at} before them. So h_j = [→h_j ; ←h_j] at every position depends on the words after it too.`;

    this.dataset.at = String(at);
    this.dataset.words = JSON.stringify(words);
    this.dataset.other = JSON.stringify(other);
    this.dataset.fwdDiff = JSON.stringify(fwdDiff);
    this.dataset.bwdDiff = JSON.stringify(bwdDiff);
    this.dataset.hidden = String(H);
  }
}

define(ApBirnn);
