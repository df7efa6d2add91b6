// The shared part of the decoding views (decoding, sampling, kv-cache): which model generates
// (a trained decoder when one is present, else the page's random model), the prompt, the
// model.generate() call (memoised in runs.js) and a slider over the generated tokens.
import { ApWidget } from './widget.js';
import { clamp, el, fillSelect, fmt, quote, stepSlider, tokenText } from './dom.js';
import { displayVocab, getModel, modelNow, trainedFacts, trainedFiles } from './models.js';
import { DEFAULTS, modelKeyOf, switchesOf } from './state.js';
import { generationFor } from './runs.js';
import { textFor } from './view.js';

const GENERATIVE = ['english', 'grammar', 'sort', 'reverse', 'dates'];

export class GenerationWidget extends ApWidget {
  /** Which model a view starts with, first available wins ('random': the page's random model). */
  static prefer = ['english', 'grammar', 'sort', 'reverse', 'dates', 'random'];

  /** Sampling options of this view ({ temperature, topK, topP, seed }). */
  options() {
    return { temperature: 0, topK: 0, topP: 1, seed: 1 };
  }

  buildGeneration() {
    this.modelChoice = '';
    this.step = 0;
    this.promptEdited = null;
    this.modelSel = el('select', {
      on: {
        change: () => {
          this.modelChoice = this.modelSel.value;
          this.promptEdited = null;
          this.step = 0;
          this.update();
        },
      },
    });
    this.promptIn = el('input', {
      type: 'text',
      spellcheck: false,
      autocomplete: 'off',
      attrs: { 'aria-label': 'Prompt' },
      on: {
        change: () => {
          this.promptEdited = this.promptIn.value;
          this.step = 0;
          this.update();
        },
      },
    });
    this.stepIn = stepSlider('Generated token', (i) => {
      this.step = i;
      this._renderStep();
    });
    const stepButton = (text, label, by) =>
      el('button', {
        type: 'button',
        className: 'small',
        text,
        attrs: { 'aria-label': label },
        on: {
          click: () => {
            this.step = Math.max(0, this.step + by);
            this._renderStep();
          },
        },
      });
    this.prevB = stepButton('◀', 'previous token', -1);
    this.nextB = stepButton('▶', 'next token', 1);
    this.stepLabel = el('span', { className: 'mono' });
    this.modelNote = el('p', { className: 'note' });
    this.splitNote = el('p', { className: 'note split-note', hidden: true });
    this.loopNote = el('p', { className: 'note loop-note', hidden: true });
    this.strip = el('div', { className: 'tokens gen-strip', attrs: { 'aria-live': 'polite' } });
    return el(
      'div',
      {},
      el(
        'div',
        { className: 'controls' },
        el('label', { className: 'field' }, el('span', { text: 'Model' }), this.modelSel),
        el('label', { className: 'field grow' }, el('span', { text: 'Prompt' }), this.promptIn),
      ),
      this.modelNote,
      this.splitNote,
      this.loopNote,
      el('div', { className: 'stepnav' }, this.prevB, this.stepIn, this.nextB, this.stepLabel),
      this.strip,
    );
  }

  _choices(state) {
    const out = [];
    const pageKey = modelKeyOf(state);
    for (const name of trainedFiles().filter((n) => GENERATIVE.includes(n)))
      out.push({ key: `trained:${name}`, label: `trained: ${name}`, name });
    const pageArch = state.model === 'random' ? state.arch : null;
    const randomKey = pageArch && pageArch !== 'encoder' ? pageKey : modelKeyOf({ ...DEFAULTS, seed: state.seed });
    out.push({ key: randomKey, label: 'random weights (page settings)', name: 'random' });
    // The Hugging Face model the student opened, when it generates (GPT-2; a BERT does not).
    const hf = !state.preset && state.model.startsWith('hf:') ? modelNow(pageKey) : null;
    this._encoderOnly = hf && hf.base.arch === 'encoder' ? hf : null;
    if (hf && hf.base.arch !== 'encoder') out.unshift({ key: pageKey, label: hf.label, name: state.model });
    return out;
  }

  compute(state) {
    const choices = this._choices(state);
    let pick = choices.find((c) => c.key === this.modelChoice);
    if (!pick) {
      const page = !state.preset && state.model !== 'random' ? choices.find((c) => c.name === state.model) : null;
      // A trained model generates something meaningful: usually preferred over random weights.
      pick =
        page ||
        this.constructor.prefer.map((n) => choices.find((c) => c.name === n)).find(Boolean) ||
        choices[choices.length - 1];
    }
    this._pick = pick;
    this._choiceList = choices;
    const go = (entry) => {
      if (entry.base.arch === 'encoder') throw new Error('an encoder-only model does not generate text');
      const fromPage = pick.name === 'random' || pick.name === state.model;
      const prompt =
        this.promptEdited ?? (fromPage ? textFor(state) : trainedFacts(pick.name).prompt || textFor(state));
      const encLen = entry.model.tokenizer.encode(prompt).ids.length + 2 + (entry.metadata.separator ? 1 : 0);
      const room = entry.base.arch === 'encoder-decoder' ? entry.base.maxLen - 1 : entry.base.maxLen - encLen;
      const maxTokens = clamp(room, 1, 14);
      const options = { maxTokens, ...this.options() };
      const switches = { ...switchesOf(state), causal: true, pos: undefined };
      const gen = generationFor(entry, prompt, options, switches);
      return { entry, prompt, gen, options };
    };
    const entry = modelNow(pick.key);
    return entry ? go(entry) : getModel(pick.key).then(go);
  }

  render(r) {
    fillSelect(
      this.modelSel,
      this._choiceList.map((c) => ({ value: c.key, label: c.label })),
      this._pick.key,
    );
    this.promptIn.value = r.prompt;
    this.gen = r.gen;
    this.entry = r.entry;
    if (r.gen.error) throw r.gen.error;
    const arch = r.entry.base.arch;
    const bert = this._encoderOnly
      ? `The open ${this._encoderOnly.label} is encoder-only: it fills in [MASK] words but does not generate text, so this view runs another model. `
      : '';
    this.modelNote.textContent = `${bert}${this._pick.label}${r.entry.metadata.task ? ` (task: ${r.entry.metadata.task})` : ''}, ${arch}. Generated ${r.gen.steps.length} token(s), stopped by ${r.gen.stop === 'eos' ? 'the end token <eos>' : 'the length limit'}: ${quote(r.gen.text)}.`;
    if (r.gen.unknown?.length)
      this.modelNote.textContent += " Some prompt words are not in this model's vocabulary (<unk>).";
    const split = splitLastWord(r.entry.model, r.gen);
    this.splitNote.hidden = !split;
    this.splitNote.textContent = split ? splitLine(split) : '';
    if (split) this.dataset.split = split.pieces.join('|');
    else delete this.dataset.split;
    // Greedy decoding only: sampling draws, so a repeat there is not the rule's doing.
    const loop = r.options.temperature === 0 ? repeatedBlock(r.entry.model, r.gen) : null;
    this.loopNote.hidden = !loop;
    this.loopNote.textContent = loop ? loopLine(loop) : '';
    if (loop) this.dataset.loop = `${loop.copies}x${loop.ids.length}`;
    else delete this.dataset.loop;
    this.stepIn.max = String(Math.max(0, r.gen.steps.length - 1));
    this._renderStep();
  }

  _renderStep() {
    const g = this.gen;
    if (!g || !g.steps.length) return;
    this.step = clamp(this.step, 0, g.steps.length - 1);
    this.stepIn.value = String(this.step);
    this.prevB.disabled = this.step === 0;
    this.nextB.disabled = this.step === g.steps.length - 1;
    this.stepLabel.textContent = `token ${this.step + 1} of ${g.steps.length}`;
    const vocab = displayVocab(this.entry);
    const chips = g.prompt.map((id) => el('span', { className: 'tok', text: tokenText(vocab[id]) }));
    for (let t = 0; t <= this.step; t++) {
      chips.push(
        el('span', {
          className: `tok${t === this.step ? ' chosen new' : ''}`,
          text: tokenText(vocab[g.steps[t].token]),
        }),
      );
    }
    this.strip.replaceChildren(...chips);
    this.dataset.step = String(this.step);
    this.renderStep(g.steps[this.step], this.step, g);
  }

  /** Subclasses: draw generated step `t`. */
  renderStep() {}
}

/**
 * When the prompt ends inside a word the tokenizer cut into several pieces ("mat" = " m" + "at"),
 * the model continues its last piece, not the word. { word, pieces (as shown), last, first (the
 * first generated piece), joined (the word with it), continues } from the model's own tokenizer;
 * null when the prompt ends in one whole piece, in no word (a space, a mark, a task's separator).
 */
export function splitLastWord(model, gen) {
  const t = model.specialTokens;
  const specials = new Set([t.pad, t.unk, t.bos, t.eos, t.mask].filter((id) => id >= 0));
  let start = gen.prompt.length;
  while (start > 0 && !specials.has(gen.prompt[start - 1])) start--;
  const ids = gen.prompt.slice(start);
  const decode = (list) => model.tokenizer.decode(list);
  const word = /[\p{L}\p{N}']+$/u.exec(decode(ids))?.[0];
  if (!word) return null;
  // The fewest last pieces whose text holds the whole word.
  let k = 1;
  while (k < ids.length && decode(ids.slice(-k)).trimStart().length < word.length) k++;
  if (k < 2) return null;
  const vocab = model.pieces;
  const wordIds = ids.slice(-k);
  const step = gen.steps[0];
  const first = step ? decode([step.token]) : null;
  const continues = first !== null && /^[\p{L}\p{N}']/u.test(first);
  return {
    word,
    pieces: wordIds.map((id) => tokenText(vocab[id])),
    first: step ? tokenText(vocab[step.token]) : null,
    continues,
    joined: continues ? /[\p{L}\p{N}']+$/u.exec(decode([...wordIds, step.token]))[0] : null,
  };
}

function splitLine({ word, pieces, first, continues, joined }) {
  const last = pieces[pieces.length - 1];
  const then =
    first === null
      ? ''
      : continues
        ? ` Its first choice, ${quote(first)}, goes on from there: ${quote(joined)}.`
        : ` Its first choice, ${quote(first)}, starts after the word.`;
  return `The prompt's last word, ${quote(word)}, is ${pieces.length} pieces of the tokenizer's vocabulary: ${pieces.map(quote).join(' + ')}. The model reads pieces, not words: it continues the last piece, ${quote(last)}, not the word ${quote(word)}, and nothing tells it the word is finished.${then}`;
}

/**
 * Where a generation starts to repeat itself: the first block of at least 2 tokens that comes again
 * right after itself, the second copy generated ({ ids, text, copies, start }: start is the
 * block's first position in prompt + generated tokens), with the probability each generated token
 * of the block had when it was chosen: the first copy's (when generated) and the repeats'. Null when
 * nothing repeats.
 */
export function repeatedBlock(model, gen) {
  const ids = [...gen.prompt, ...gen.steps.map((s) => s.token)];
  const n0 = gen.prompt.length;
  for (let e = n0; e < ids.length; e++)
    for (let p = 2; 2 * p <= e + 1; p++) {
      let same = true;
      for (let i = 0; i < p && same; i++) same = ids[e - i] === ids[e - p - i];
      if (!same) continue;
      const start = e - 2 * p + 1;
      let copies = 2;
      while (start + (copies + 1) * p <= ids.length) {
        let again = true;
        for (let i = 0; i < p && again; i++) again = ids[start + copies * p + i] === ids[start + i];
        if (!again) break;
        copies++;
      }
      const chosenP = (pos) => {
        const step = gen.steps[pos - n0];
        const probs = step.get('probs', { stack: '' });
        const V = probs.length / step.shape('probs', { stack: '' })[0];
        return probs[probs.length - V + step.token];
      };
      const mean = (from, to) => {
        const ps = [];
        for (let k = Math.max(from, n0); k < to; k++) ps.push(chosenP(k));
        return ps.length ? ps.reduce((a, b) => a + b, 0) / ps.length : null;
      };
      const block = ids.slice(start, start + p);
      return {
        ids: block,
        text: model.tokenizer.decode(block),
        copies,
        start,
        // The first copy's tokens, only if every one was generated (a prompt's words had no p).
        firstP: start >= n0 ? mean(start, start + p) : null,
        repeatP: mean(start + p, start + copies * p),
      };
    }
  return null;
}

function loopLine({ text, copies, firstP, repeatP }) {
  const shown = text.trim();
  const compare =
    firstP === null
      ? ''
      : repeatP > firstP
        ? `: the repeats were more likely than the first time it was said (${fmt(firstP, 2)})`
        : `, about as likely as, or less likely than, the first time it was said (${fmt(firstP, 2)})`;
  return `Greedy decoding has fallen into a loop: ${quote(shown)} comes ${copies} times in a row. It always takes the most probable token, and the model gave each repeated token p = ${fmt(repeatP, 2)} on average${compare}. Sampling (the next view) draws from the distribution instead of always taking its top.`;
}
