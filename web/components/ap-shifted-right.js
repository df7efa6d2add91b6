// <ap-shifted-right> (shifted-right): "Output Embeddings (shifted right)" (004). The decoder's
// input is the target moved one place to the right behind <bos>, so position t predicts target[t]
// having seen target[0..t-1]. On the trained dates model ("22 Nov 2026" -> "2026-11-22"):
// teacher forcing (training: the true previous tokens, every position in one forward pass) beside
// free generation (inference: its own previous outputs, one step at a time), each position's
// prediction and probability from the core (model.forward probs, model.generate distributions).
// Limits: greedy generation only; the target is typed by the student (the dates task's answer
// by default), so a wrong target shows what teacher forcing feeds regardless of the model.
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt } from '../lib/dom.js';
import { numsTable, withEntry } from '../lib/view.js';
import { playgroundNow } from '../lib/module.js';

const MODEL = 'trained:dates';
const SOURCE = '22 Nov 2026';
const TARGET = '2026-11-22';

export class ApShiftedRight extends ApWidget {
  static ownInput =
    "This view does not read the text at the top: it reads a date and its answer, in its boxes, with the project's trained dates model.";
  static concept = 'shifted-right';
  static textInput = false;
  static extraAttributes = ['source', 'target'];

  build() {
    const field = (label, name, value) => {
      const input = el('input', {
        type: 'text',
        spellcheck: false,
        maxLength: 24,
        value,
        attrs: { 'aria-label': label },
      });
      let timer = null;
      input.addEventListener('input', () => {
        clearTimeout(timer);
        timer = setTimeout(() => this.setAttribute(name, input.value), 250);
      });
      return {
        input,
        node: el('label', { className: 'field', dataset: { control: name } }, el('span', { text: label }), input),
      };
    };
    this.src = field('Source (the encoder reads it)', 'source', SOURCE);
    this.tgt = field('Target (the true answer, used in training)', 'target', TARGET);
    this.wrongBtn = el('button', {
      type: 'button',
      className: 'small',
      text: 'Try a wrong target: 2062-11-22',
      on: { click: () => this.setAttribute('target', '2062-11-22') },
    });
    this.resetBtn = el('button', {
      type: 'button',
      className: 'small',
      text: 'The true target',
      on: {
        click: () => {
          this.setAttribute('source', SOURCE);
          this.setAttribute('target', TARGET);
        },
      },
    });
    this.shift = el('div');
    this.verdict = el('p', { className: 'changed shift-verdict' });
    this.table = el('div');
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'The decoder predicts the output one token at a time, so its input is the output shifted right: <bos> first, then the output without its last token. The input at position t is target token t−1 (position 0 holds <bos>); with the causal mask, position t reads input positions 0..t only, so it sees the targets before t and must predict target t, which it never sees. In training the true previous tokens are fed (teacher forcing): every position is computed at once, in one forward pass. In generation there is no true output: the decoder feeds back its own previous predictions, one step at a time.',
      }),
      el('div', { className: 'controls' }, this.src.node, this.tgt.node, this.wrongBtn, this.resetBtn),
      el('h4', { text: 'Decoder input and target: one position apart' }),
      this.shift,
      el('h4', { text: 'Teacher forcing (training) beside free generation (inference)' }),
      this.verdict,
      this.table,
    );
  }

  compute() {
    return withEntry(MODEL, (entry) => ({ entry }));
  }

  renderKey(state) {
    return JSON.stringify([super.renderKey(state), this.getAttribute('source'), this.getAttribute('target')]);
  }

  render({ entry }) {
    const model = entry.model;
    const source = this.getAttribute('source') ?? SOURCE;
    const target = this.getAttribute('target') ?? TARGET;
    if (this.src.input.value !== source && this.shadowRoot.activeElement !== this.src.input)
      this.src.input.value = source;
    if (this.tgt.input.value !== target && this.shadowRoot.activeElement !== this.tgt.input)
      this.tgt.input.value = target;
    const enc = model.tokenizer.encode(source),
      tEnc = model.tokenizer.encode(target);
    if (enc.ids.length === 0) throw new Error('type a date as the source, e.g. 22 Nov 2026');
    if (tEnc.ids.length === 0) throw new Error('type a target, e.g. 2026-11-22');
    for (const [e, what] of [
      [enc, 'source'],
      [tEnc, 'target'],
    ]) {
      if (e.unknown.length)
        throw new Error(
          `the ${what} has characters the dates model does not know: ${e.unknown.map((i) => `"${e.pieces[i]}"`).join(', ')}`,
        );
    }
    const maxLen = model.config.maxLen;
    if (tEnc.ids.length + 1 > maxLen)
      throw new Error(`the target is too long for this model (at most ${maxLen - 1} characters)`);
    const piece = (id) => model.vocab[id] ?? `#${id}`;
    // Target = the answer then <eos>; decoder input = <bos> then the answer (shifted right).
    const { bos: BOS, eos: EOS } = playgroundNow().specialTokens;
    const targetIds = [...tEnc.ids, EOS];
    const inputIds = [BOS, ...tEnc.ids];
    const n = targetIds.length,
      V = model.vocab.length;

    // Teacher forcing: one forward pass over the whole shifted target.
    const trace = model.forward({ src: enc.ids, tgt: Int32Array.from(inputIds) });
    let probs;
    try {
      probs = trace.get('probs');
    } finally {
      trace.dispose();
    }
    const argmax = (row) => {
      let best = 0;
      for (let v = 1; v < V; v++) if (row[v] > row[best]) best = v;
      return best;
    };
    const forced = Array.from({ length: n }, (_, t) => {
      const row = probs.subarray(t * V, (t + 1) * V);
      const id = argmax(row);
      return { id, p: row[id], pTarget: row[targetIds[t]] };
    });
    // Free generation: the decoder's own previous outputs, one step at a time.
    const g = model.generate(enc.ids, { maxTokens: n + 2 });
    let free;
    try {
      free = g.steps.map((s) => ({ id: s.token, p: s.distribution[s.token] }));
    } finally {
      g.dispose();
    }
    const freeInput = [BOS, ...free.map((s) => s.id)];

    // The shift drawn as two aligned rows.
    const cells = (ids, cls) =>
      ids.map((id, t) => el('td', { className: cls, text: piece(id), dataset: { id: String(id), t: String(t) } }));
    const shiftTable = el(
      'table',
      { className: 'nums shift' },
      el('caption', {
        text: 'Column t: the decoder reads input[t] (and everything left of it) and must predict target[t]. Each target token reappears as the next input: target[t] = input[t+1].',
      }),
      el(
        'tbody',
        {},
        el(
          'tr',
          { className: 'dec-input' },
          el('th', { attrs: { scope: 'row' }, text: 'decoder input' }),
          ...cells(inputIds, 'in'),
        ),
        el(
          'tr',
          { className: 'target' },
          el('th', { attrs: { scope: 'row' }, text: 'target' }),
          ...cells(targetIds, 'tg'),
        ),
        el(
          'tr',
          {},
          el('th', { attrs: { scope: 'row' }, text: 't' }),
          ...inputIds.map((_, t) => el('td', { text: String(t) })),
        ),
      ),
    );
    this.shift.replaceChildren(el('div', { className: 'scroll-x' }, shiftTable));

    const rows = [];
    for (let t = 0; t < Math.max(n, free.length); t++) {
      const f = forced[t],
        s = free[t];
      const fOk = f && f.id === targetIds[t];
      rows.push([
        String(t),
        t < n ? piece(inputIds[t]) : '',
        t < n ? piece(targetIds[t]) : '',
        f
          ? {
              text: `${piece(f.id)} · ${fmt(f.p, 2)}${fOk ? '' : ' ✗'}`,
              className: fOk ? 'ok' : 'miss',
              data: { pred: String(f.id), p: String(f.p) },
            }
          : '',
        t < freeInput.length ? { text: piece(freeInput[t]), data: { fed: String(freeInput[t]) } } : '',
        s ? { text: `${piece(s.id)} · ${fmt(s.p, 2)}`, data: { pred: String(s.id), p: String(s.p) } } : '',
      ]);
    }
    this.table.replaceChildren(
      numsTable({
        caption: `"${source}" → trained dates model. Teacher forcing (TF): one forward pass with the target fed in. Free generation (gen.): ${free.length} steps, each feeding the previous output back. "2 · 1.00" = predicts 2 with probability 1.00.`,
        header: ['t', 'TF: fed', 'target', 'TF: predicts', 'gen.: fed', 'gen.: predicts'],
        rows,
        className: 'nums forced-free',
      }),
    );
    const generated = model.tokenizer.decode(free.map((s) => s.id));
    const forcedRight = forced.filter((f, t) => f.id === targetIds[t]).length;
    const same = generated === target;
    this.verdict.textContent = `Free generation writes "${generated}". Teacher forcing gets ${forcedRight} of ${n} positions right (the target with its <eos>). ${
      same
        ? 'The model is right here, so what it feeds itself equals the true tokens and both columns agree.'
        : "The target differs from what the model writes: teacher forcing still feeds the target's tokens, so from the first difference on the two columns see different inputs."
    }`;
    this.dataset.input = JSON.stringify(inputIds);
    this.dataset.target = JSON.stringify(targetIds);
    this.dataset.forced = JSON.stringify(forced.map((f) => f.id));
    this.dataset.free = JSON.stringify(free.map((s) => s.id));
    this.dataset.generated = generated;
  }
}

define(ApShiftedRight);
