// <ap-bert-gpt> (bert-gpt): encoder-only (BERT: bidirectional, trained to fill in masked words)
// vs decoder-only (GPT: causal, trained to predict the next word). The same sentence through both:
//  - BERT reads it with one word replaced by [MASK] (the student picks which), every token sees
//    every other (no mask), and the objective is read at the [MASK] position: the distribution
//    over the vocabulary for the hidden word, from both sides.
//  - GPT reads "<bos> sentence" with the causal mask; the objective is at every position: the
//    distribution for the next word, from the left only. The view shows the one for the same word.
// The two masks and weights side by side, the two distributions, and a test of who sees what:
// change the last word and see which outputs move (random encoder and decoder, same seed).
// Attributes: the page's state (text, preset, seed, dmodel...), mask (the position to hide),
// hide="mask" (hides that control).
//
// Models. On the English model (the page's default), BERT's side is the English masked LM
// (web/models/english-mlm.safetensors: an encoder trained on the Brown corpus with the English
// decoder's tokenizer) and GPT's side is the English decoder itself: any text, real guesses on both
// sides. With the grammar model picked, BERT's side is the trained masked language model web/models/mlm.safetensors (an
// encoder trained by the project's C++ trainer, task mlm: grammar's sentences with words hidden
// behind [MASK]) when every word of the sentence is in its vocabulary; otherwise, or if the file
// is missing, an encoder with random weights and a [MASK] token (its guess means nothing; the
// view says so and names the unknown words). GPT's side is the trained grammar model (a real
// next-word language model on the same sentences) when the sentence is in its vocabulary, else
// a random decoder (said).
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt, num, quote, tokenText } from '../lib/dom.js';
import { numsTable, textFor } from '../lib/view.js';
import { displayVocab, entryOf, hasModelFile, modelNow, randomKey, trainedFiles, whenLoaded } from '../lib/models.js';
import { modelKeyOf, readNumber } from '../lib/state.js';
import { getPlayground, playgroundNow } from '../lib/module.js';
import { runIds } from '../lib/runs.js';
import { stepView } from '../lib/steps/index.js';
import { maskLike } from '../lib/heatmap.js';
import { barList } from '../lib/plot.js';
import { COMMON_WORDS } from '../lib/vocab.js';

const nspNote = (file, from) =>
  `Objectives compared. BERT: masked LM + next sentence prediction (NSP). GPT: next-token prediction only. Only the masked LM is shown on the BERT side: this project's trained encoder (web/models/${file}) learned from ${from} and has no NSP head, so there is no NSP prediction to show.`;
const NSP_NOTE_HF =
  "Objectives compared. BERT: masked LM + next sentence prediction (NSP). GPT: next-token prediction only. Only the masked LM is shown on the BERT side: your folder's masked-LM head (cls.predictions). A BERT checkpoint's NSP head (cls.seq_relationship) is not read, so there is no NSP prediction to show.";

const MLM_MAX_LEN = 64; // the fallback masked-LM encoder's context
const TOP = 6;

// The fallback masked-LM encoders (random weights, vocabulary + [MASK]), one per (seed, d_model).
const mlmCache = new Map();
function mlmEntry(ap, seed, dModel) {
  const key = `bert-gpt:mlm:${seed}:${dModel}`;
  let entry = mlmCache.get(key);
  if (!entry) {
    const model = ap.createModel(
      {
        arch: 'encoder',
        tokenizer: 'word',
        vocab: [...COMMON_WORDS, ap.specialTokens.maskPiece], // the core's mask token
        dModel,
        nHeads: 2,
        nLayers: 1,
        dFf: 4 * dModel,
        maxLen: MLM_MAX_LEN,
        pos: 'sinusoidal',
      },
      { seed },
    );
    entry = { key, model, base: { ...model.config }, metadata: {}, applied: null, kind: 'random' };
    mlmCache.set(key, entry);
  }
  return entry;
}

// The first token from position `from` on that is a whole word (it starts one, with its space or
// at the start, and the next token starts another word or is not a letter): the default to hide, so
// BERT guesses a word, not a piece of one ("akes" of "Shakespeare"). `from` when there is none.
function wholeWordAt(pieces, from) {
  const letter = /^\p{L}/u;
  const starts = (p, i) => (i === 0 || p.startsWith(' ')) && letter.test(p.trimStart());
  const continues = (p) => p !== undefined && letter.test(p);
  for (let i = Math.min(from, pieces.length - 1); i < pieces.length; i++)
    if (starts(pieces[i], i) && !continues(pieces[i + 1])) return i;
  return from;
}

// The word that piece `at` of `ids` is part of, with `id` in its place: the non-space characters
// around that piece in the decoded text ({ word, first, last }: the pieces of ids it spans). A
// piece that starts with no space glues onto the one before (" cat" + "led" is "catled").
function wordAround(model, ids, at, id) {
  const decode = (list) => model.tokenizer.decode(list);
  const seq = ids.map((x, i) => (i === at ? id : x));
  const text = decode(seq);
  const ends = Array.from({ length: seq.length + 1 }, (_, i) => decode(seq.slice(0, i)).length);
  let a = ends[at],
    b = ends[at + 1];
  while (a < b && /\s/.test(text[a])) a++;
  while (a > 0 && !/\s/.test(text[a - 1])) a--;
  while (b < text.length && !/\s/.test(text[b])) b++;
  const spans = ends.slice(0, -1).map((s, i) => [s, ends[i + 1]]);
  const inside = spans.map(([s, e], i) =>
    e > a && s < b && text.slice(Math.max(s, a), Math.min(e, b)).trim() ? i : -1,
  );
  const pieces = inside.filter((i) => i >= 0);
  return {
    word: text.slice(a, b),
    spaced: (a > 0 && /\s/.test(text[a - 1]) ? ' ' : '') + text.slice(a, b),
    first: pieces[0],
    last: pieces[pieces.length - 1],
  };
}

// One line under BERT's guesses on a subword tokenizer (BPE, WordPiece): the hidden position is one
// piece (of which word), every guess is a piece of the vocabulary, what each would make of the word
// in that place, and which of those are words the vocabulary holds whole. { text, whole }.
function guessPieces({ model, ids }, at, truth, order, maskPiece) {
  const piece = (id) => tokenText(model.pieces[id]);
  const whole = (w) => /^\p{L}+$/u.test(w.word) && model.tokenizer.encode(w.spaced).ids.length === 1;
  const size = model.pieces.length.toLocaleString('en');
  const glue =
    model.specialTokens.kind === 'WordPiece'
      ? 'a piece that starts with "##" continues the piece before it'
      : 'a piece with no leading space continues the piece before it';
  let hidden = '';
  if (truth >= 0) {
    const w = wordAround(model, ids, at, truth);
    const n = w.last - w.first + 1;
    hidden = `${maskPiece} hides one piece, ${quote(piece(truth))}: ${n > 1 ? `piece ${at - w.first + 1} of the ${n} that make ${quote(w.word)}` : `the whole word ${quote(w.word)}`}. `;
  }
  const made = order.map((id) => ({ id, ...wordAround(model, ids, at, id) }));
  const words = made.filter(whole);
  const list = made.map((m) => `${quote(piece(m.id))} → ${quote(m.word)}`).join(', ');
  const kept = words.length
    ? `${words.map((m) => quote(m.word)).join(', ')} ${words.length > 1 ? 'are words' : 'is a word'} the vocabulary holds whole`
    : `none of the top ${order.length} makes a word the vocabulary holds whole`;
  return {
    text: `${hidden}BERT guesses one piece of its ${size}-piece vocabulary, not a word: ${glue}. In this place: ${list}; ${kept}.`,
    whole: words.map((m) => m.word),
  };
}

export class ApBertGpt extends ApWidget {
  static concept = 'bert-gpt';
  static extraAttributes = ['mask'];

  build() {
    this.maskSel = el('select', {
      attrs: { 'aria-label': 'Word to mask' },
      on: { change: () => this.requestMask(this.maskSel.value) },
    });
    this.cols = el('div', { className: 'col2' });
    this.test = el('div');
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'BERT uses only the encoder: it is bidirectional, it can see both past and future context, and (notes 004) it is pre-trained on two objectives: a masked language model (hide a word, predict it from both sides) plus next sentence prediction (given two sentences, does the second follow the first?). GPT uses only the decoder: it is unidirectional, it can only see past context (it uses the mask), and it is pre-trained on next-token prediction, which is what lets it generate. The same sentence through both:',
      }),
      (this.maskField = el(
        'div',
        { className: 'controls' },
        el('label', { className: 'field' }, el('span', { text: 'Word to hide from BERT / to predict' }), this.maskSel),
      )),
      (this.cutNote = el('p', { className: 'note cut', hidden: true })),
      this.cols,
      (this.nspNote = el('p', { className: 'note nsp' })),
      el('h4', { text: 'Who sees what: change the last word' }),
      this.test,
    );
  }

  requestMask(v) {
    this.setAttribute('mask', String(v));
  }

  /** The position to mask: the `mask` attribute, else `fallback` (the third word, or the last). */
  maskIndex(n, { quiet = false, fallback: preferred = 2 } = {}) {
    // Out of the sentence: the nearest position (with a console warning); not a number: the default.
    // quiet: the word-level sides on the English model, whose mask the English tokens then choose
    // (and warn about, with their own range).
    const spec = { min: 0, max: n - 1, integer: true };
    const fallback = Math.min(preferred, n - 1);
    return quiet
      ? readNumber(this.getAttribute('mask'), spec, fallback).value
      : this.numberAttribute('mask', spec, fallback);
  }

  compute(state) {
    const text = textFor(state);
    const spec = { tokenizer: 'word', seed: state.seed, dModel: state.dmodel, nHeads: 2, nLayers: 1 };
    const encKey = randomKey({ ...spec, arch: 'encoder' }),
      decKey = randomKey({ ...spec, arch: 'decoder' });
    // On the English model (the page's default), both sides are English: the masked LM trained on
    // the same corpus with the same tokenizer, and the English decoder itself.
    const english = !state.preset && state.model === 'english' && hasModelFile('english-mlm');
    const parts = [
      playgroundNow() || getPlayground(),
      entryOf(encKey),
      entryOf(decKey),
      !english && trainedFiles().includes('grammar') ? entryOf('trained:grammar', true) : null,
      !english && hasModelFile('mlm') ? entryOf('trained:mlm', true) : null,
      english ? entryOf('trained:english-mlm') : null,
      english ? entryOf(modelKeyOf(state)) : null,
    ];
    // A Hugging Face model the student opened takes its side: a BERT reads the masked sentence,
    // a GPT-2 predicts the next word.
    const hf = !state.preset && state.model.startsWith('hf:') ? modelNow(modelKeyOf(state)) : null;
    const done = (r, mlm, lm) =>
      r.empty ? r : hf ? this._withPretrained(r, hf, text) : english ? this._withEnglish(r, mlm, lm, text) : r;
    const go = ([ap, enc, dec, grammar, mlm, englishMlm, englishLm]) =>
      done(this._compute(state, text, ap, enc, dec, grammar, mlm, { quiet: english }), englishMlm, englishLm);
    return whenLoaded(parts, go);
  }

  // Both sides on English: the masked LM reads the text's tokens with one hidden behind [MASK]
  // (or the [MASK] the student typed); the decoder reads <|endoftext|> and the same tokens, so
  // its row `at` predicts token `at` from the left. One tokenizer, so one list of tokens.
  _withEnglish(r, mlm, lm, text) {
    const enc = mlm.model.tokenizer.encode(text);
    const max = mlm.base.maxLen;
    const ids = Array.from(enc.ids).slice(0, max);
    const pieces = enc.pieces.slice(0, max).map(tokenText);
    // One list of tokens for both sides, so both read as many as the masked LM can (the decoder could read more).
    r.cut =
      enc.ids.length > max
        ? {
            max,
            n: enc.ids.length,
            unit: 'tokens',
            who: `The masked LM reads at most ${max} tokens (the decoder ${lm.base.maxLen})`,
          }
        : null;
    const maskId = mlm.model.specialTokens.mask;
    const maskPiece = mlm.model.pieces[maskId];
    let at = ids.indexOf(maskId),
      truth = -1;
    if (at < 0) {
      at = this.maskIndex(ids.length, { fallback: wholeWordAt(enc.pieces.slice(0, max), 2) });
      truth = ids[at];
    }
    const masked = ids.map((id, i) => (i === at ? maskId : id));
    r.bert = runIds(
      mlm,
      Int32Array.from(masked),
      {},
      pieces.map((l, i) => (i === at ? maskPiece : l)),
    );
    r.maskPiece = maskPiece;
    r.bertAt = at;
    r.bertTruth = truth;
    r.bertTruthPiece = truth >= 0 ? pieces[at] : maskPiece;
    r.bertPieces = { model: mlm.model, ids }; // a subword tokenizer: what a guess makes of the word
    r.bertTrained = true;
    r.bertName = `the English masked language model (encoder-only: ${mlm.base.nLayers} layers, ${mlm.base.nHeads} heads, d_model ${mlm.base.dModel}), trained on the Brown corpus with the English decoder's tokenizer`;
    r.bertFile = 'english-mlm.safetensors';
    const bos = lm.model.specialTokens.bos;
    r.gpt = runIds(lm, Int32Array.from([bos, ...ids]), {}, [tokenText(lm.model.pieces[bos]), ...pieces]);
    r.gptAt = at;
    r.gptTruth = truth;
    r.gptTruthPiece = truth >= 0 ? pieces[at] : maskPiece;
    r.trained = true;
    r.gptName = `the English decoder, the page's model (${lm.base.nLayers} layers, ${lm.base.nHeads} heads, d_model ${lm.base.dModel})`;
    r.gptFile = 'english.safetensors';
    r.gptStart = tokenText(lm.model.pieces[bos]);
    r.selectLabels = pieces;
    r.selectAt = at;
    return r;
  }

  _withPretrained(r, hf, text) {
    const model = hf.model;
    const p = model.prompt(text);
    const ids = Array.from(p.ids);
    const pieces = p.pieces.map(tokenText);
    if (hf.base.arch === 'encoder') {
      // [CLS] ... [SEP]: the [MASK] the student typed, else the chosen token hidden.
      const maskId = model.specialTokens.mask;
      const maskPiece = model.pieces[maskId];
      let at = ids.indexOf(maskId),
        truth = -1;
      const inner = Math.max(1, ids.length - 2);
      if (at < 0) {
        at = 1 + this.maskIndex(inner);
        truth = ids[at];
        ids[at] = maskId;
      }
      const labels = pieces.map((l, i) => (i === at ? maskPiece : l));
      r.bertPieces = { model, ids: ids.map((id, i) => (i === at && truth >= 0 ? truth : id)) };
      r.bert = runIds(hf, Int32Array.from(ids), {}, labels);
      r.maskPiece = maskPiece;
      r.bertAt = at;
      r.bertTruth = truth;
      r.bertTruthPiece = truth >= 0 ? pieces[at] : maskPiece;
      r.bertTrained = true;
      r.bertHf = hf;
      r.selectLabels = pieces.slice(1, 1 + inner);
      r.selectAt = at - 1;
    } else {
      // GPT-2 has no <bos> of its own: <|endoftext|> (its document separator) goes first, so row i
      // predicts token i of the text.
      const start = model.specialTokens.bos;
      const seq = [start, ...ids];
      const at = Math.min(this.maskIndex(ids.length), ids.length - 1);
      r.gpt = runIds(hf, Int32Array.from(seq), {}, [tokenText(model.vocab[start]), ...pieces]);
      r.gptAt = at;
      r.gptTruth = seq[at + 1];
      r.gptTruthPiece = pieces[at];
      r.trained = true;
      r.gptHf = hf;
      r.selectLabels = pieces;
      r.selectAt = at;
    }
    return r;
  }

  _compute(state, fullText, ap, enc, dec, grammar, trainedMlm, { quiet = false } = {}) {
    // Every model here reads at most `max` words (the decoder's <bos> takes a place): a longer
    // text, such as a paragraph, is cut to its first `max` words, and the view says so.
    const max = Math.min(enc.base.maxLen, dec.base.maxLen - 1, MLM_MAX_LEN);
    const whole = enc.model.tokenizer.encode(fullText);
    const cut = whole.ids.length > max ? { max, n: whole.ids.length, unit: 'words' } : null;
    const text = cut ? whole.pieces.slice(0, max).join(' ') : fullText;
    const e = cut ? enc.model.tokenizer.encode(text) : whole;
    const ids = Array.from(e.ids);
    const labels = e.pieces.map(tokenText);
    if (!ids.length) return { empty: true };
    const n = ids.length;
    const at = this.maskIndex(n, { quiet });

    // BERT: the masked-LM encoder on the sentence with word `at` replaced by [MASK]: the trained
    // one if it knows every word (and the sentence fits), else random weights.
    let mlm = null,
      bertTrained = false,
      bertUnknown = [];
    if (trainedMlm) {
      const m = trainedMlm.model.tokenizer.encode(text);
      bertUnknown = m.unknown.map((i) => m.pieces[i]);
      if (m.unknown.length === 0 && m.ids.length <= trainedMlm.base.maxLen) {
        mlm = trainedMlm;
        bertTrained = true;
      }
    }
    if (!mlm) mlm = mlmEntry(ap, state.seed, state.dmodel);
    const mtok = mlm.model.tokenizer.encode(text);
    const maskId = mlm.model.specialTokens.mask; // the core finds its mask token in the vocabulary
    const maskPiece = mlm.model.pieces[maskId];
    const masked = Array.from(mtok.ids);
    const truth = masked[at];
    masked[at] = maskId;
    const bertLabels = labels.map((l, i) => (i === at ? maskPiece : l));
    const bert = runIds(mlm, Int32Array.from(masked), { causal: false }, bertLabels);

    // GPT: the trained grammar language model if it knows every word (and the sentence fits),
    // else the random decoder. "<bos> w0 ... w(n-1)": row i of its probabilities predicts w(i).
    let gptEntry = dec,
      trained = false;
    if (grammar) {
      const g = grammar.model.tokenizer.encode(text);
      if (g.unknown.length === 0 && g.ids.length + 1 <= grammar.base.maxLen) {
        gptEntry = grammar;
        trained = true;
      }
    }
    const gtok = gptEntry.model.prompt(text); // <bos> and the words, as the core formats a prompt
    const gpt = runIds(gptEntry, gtok.ids, { causal: true }, gtok.pieces.map(tokenText));

    // The same sentence with its last word replaced ("the" <-> "a"): who sees the change?
    const alt = ids.slice();
    const the = enc.model.tokenizer.encode('the').ids[0],
      a = enc.model.tokenizer.encode('a').ids[0];
    alt[alt.length - 1] = alt[alt.length - 1] === the ? a : the;
    const altLabels = [...labels.slice(0, -1), tokenText(enc.model.vocab[alt[alt.length - 1]])];
    return {
      labels,
      altLabels,
      at,
      truth,
      truthPiece: labels[at],
      maskPiece,
      gptTruth: gtok.ids[at + 1],
      trained,
      bertTrained,
      bertUnknown,
      mlmMissing: !trainedMlm,
      cut,
      bertFile: 'mlm.safetensors',
      gptFile: 'grammar.safetensors',
      bertName: bertTrained
        ? `a masked language model (encoder-only: ${mlm.base.nLayers} layers, ${mlm.base.nHeads} heads, d_model ${mlm.base.dModel}) trained on the same kind of sentences as the grammar model`
        : null,
      gptName: trained
        ? `the trained grammar model (a next-word language model: ${grammar.base.nLayers} layers, ${grammar.base.nHeads} heads, d_model ${grammar.base.dModel})`
        : null,
      unknownForGrammar: grammar && !trained,
      bert,
      gpt,
      bertEnc: runIds(enc, Int32Array.from(ids), { causal: false }, labels),
      gptDec: runIds(dec, Int32Array.from(ids), { causal: true }, labels),
      bert2: runIds(enc, Int32Array.from(alt), { causal: false }, altLabels),
      gpt2: runIds(dec, Int32Array.from(alt), { causal: true }, altLabels),
    };
  }

  render(r) {
    if (r.empty) {
      // Nothing of an earlier text stays: its tokens in the picker, its length in the note.
      this.cols.replaceChildren(el('p', { text: 'Type some text.' }));
      this.test.replaceChildren();
      this.maskSel.replaceChildren();
      this.maskField.hidden = true;
      this.cutNote.hidden = true;
      this.cutNote.textContent = '';
      delete this.dataset.mask;
      return;
    }
    for (const run of [r.bert, r.gpt, r.bertEnc, r.gptDec, r.bert2, r.gpt2]) if (run.error) throw run.error;
    // The mask choice.
    const opts = (r.selectLabels || r.labels).map((l, i) => el('option', { value: String(i), text: `${i}: ${l}` }));
    this.maskSel.replaceChildren(...opts);
    this.maskSel.value = String(r.selectAt ?? r.at);
    this.maskField.hidden = this.hides('mask');
    this.cutNote.hidden = !r.cut;
    this.cutNote.textContent = r.cut
      ? `${r.cut.who ?? `These models read at most ${r.cut.max} ${r.cut.unit}`}; your text has ${r.cut.n}, so the view reads its first ${r.cut.max}.`
      : '';
    this.dataset.mask = String(r.selectAt ?? r.at);

    const side = (run, key, name, objective, { row, truth, dist }) => {
      const layer = 0,
        head = 0;
      const M = stepView(run, 'masked', { layer, head }).view.output;
      const A = stepView(run, 'weights', { layer, head }).view.output;
      const blocked = new Float32Array(M.values.length);
      for (let k = 0; k < blocked.length; k++) blocked[k] = M.values[k] === -Infinity ? 1 : 0;
      if (!this.panels) this.panels = {};
      if (!this.panels[key]) {
        this.panels[key] = {
          node: el('div', { className: 'panel', dataset: { model: key } }),
          head: el('h4', { text: name }),
          note: el('p', { className: 'note' }),
          model: el('div', { className: 'note model' }),
          dist: el('div', { className: 'dist' }),
          pieces: el('p', { className: 'note pieces-line' }),
        };
      }
      const p = this.panels[key];
      p.note.textContent = objective;
      const maskM = maskLike(M, `${key}-mask`, 'mask (1 = blocked)', blocked);
      A.title = `weights, layer ${layer}, head ${head}`;
      const hmMask = this.hm(`${key}-mask`, maskM, { 'max-cell': '30' });
      hmMask.dataset.role = 'mask';
      const hmW = this.hm(`${key}-weights`, A, { 'max-cell': '30' });
      hmW.dataset.role = 'weights';
      hmW.highlightRow = row;
      // The distribution at the row where the objective is read.
      const probs = run.get('probs');
      const V = probs.length / run.shape('probs')[0];
      const rowP = probs.subarray(row * V, (row + 1) * V);
      const order = Array.from(rowP.keys())
        .sort((x, y) => rowP[y] - rowP[x])
        .slice(0, TOP);
      const vocab = displayVocab(run.entry);
      const items = order.map((id) => ({ label: tokenText(vocab[id]), value: rowP[id], chosen: id === truth }));
      this.dataset[`${key}Top`] = JSON.stringify(order.map((id) => [id, rowP[id]]));
      if (truth < 0) {
        // The student typed [MASK]: there is no hidden word, only the model's guesses.
        const bars = barList({ title: dist, items, valueName: 'probability', digits: 4 });
        p.dist.dataset.top = vocab[order[0]];
        p.dist.dataset.topP = num(rowP[order[0]]);
        p.dist.replaceChildren(
          bars,
          el('p', { className: 'truth', text: `You typed ${r.maskPiece}: these are the model's guesses for it.` }),
        );
        this.place(p.node, p.head, p.model, p.note, hmMask, hmW, p.dist);
        return p;
      }
      // A subword vocabulary: the hidden position is one piece, and so is every guess.
      const pieceLine =
        key === 'bert' && r.bertPieces ? guessPieces(r.bertPieces, row, truth, order, r.maskPiece) : null;
      p.pieces.textContent = pieceLine?.text ?? '';
      if (pieceLine) p.pieces.dataset.whole = pieceLine.whole.join('|');
      if (!order.includes(truth))
        items.push({ label: `${tokenText(vocab[truth])} (hidden)`, value: rowP[truth], chosen: true });
      const bars = barList({ title: dist, items, valueName: 'probability', digits: 4 });
      bars.dataset.truthP = num(rowP[truth]);
      p.dist.dataset.top = vocab[order[0]];
      p.dist.dataset.topP = num(rowP[order[0]]);
      p.dist.replaceChildren(
        bars,
        el('p', {
          className: 'truth',
          dataset: { value: num(rowP[truth]) },
          text: `p(${quote(tokenText(vocab[truth]))}) = ${fmt(rowP[truth], 4)}: training pushes this up (the loss here is −log p).`,
        }),
      );
      this.place(p.node, p.head, p.model, p.note, hmMask, hmW, p.dist, pieceLine ? p.pieces : null);
      return p;
    };

    const word = r.truthPiece;
    const bword = r.bertTruthPiece ?? word;
    const b = side(
      r.bert,
      'bert',
      r.bertHf ? `BERT (encoder-only): ${r.bertHf.label}` : 'BERT (encoder-only): masked LM (+ NSP, not trained here)',
      `Bidirectional: no mask, every token sees every other. Input: the sentence with ${bword === r.maskPiece ? 'your' : `${quote(bword)} replaced by`} ${r.maskPiece}. Objective: predict the hidden word at the ${r.maskPiece} position, from both sides.`,
      {
        row: r.bertAt ?? r.at,
        truth: r.bertTruth ?? r.truth,
        dist: `BERT: P(word at ${r.maskPiece} | all other words), top ${TOP}`,
      },
    );
    const why = r.mlmMissing
      ? 'the trained masked-language model (web/models/mlm.safetensors) is not available'
      : `the trained masked-language model does not know every word of this sentence (${r.bertUnknown.length ? r.bertUnknown.map(quote).join(', ') : 'it is too long'})`;
    b.model.replaceChildren(
      r.bertHf
        ? el('span', {
            className: 'trained',
            text: `Your Hugging Face model, read from your folder. Its guess for ${r.maskPiece} uses the tokens on both sides (layer 0, head 0 shown; the heads view shows every layer).`,
          })
        : r.bertTrained
          ? el('span', {
              className: 'trained',
              text: `Trained: ${r.bertName}, loaded from web/models/${r.bertFile}. Its guess for ${r.maskPiece} uses the words on both sides.`,
            })
          : el('p', {
              className: 'warn untrained',
              text: `Untrained: ${why}, so this encoder has random weights (seed ${this.state.seed}) and its guess means nothing. What is real is where the objective is read: the ${r.maskPiece} row, which sees both sides.`,
            }),
    );
    this.nspNote.textContent = r.bertHf
      ? NSP_NOTE_HF
      : nspNote(r.bertFile, r.bertFile === 'mlm.safetensors' ? 'single sentences' : 'passages of running text');
    this.dataset.bertTrained = String(r.bertTrained);
    const gword = r.gptTruthPiece ?? word;
    const g = side(
      r.gpt,
      'gpt',
      r.gptHf ? `GPT (decoder-only): ${r.gptHf.label}` : 'GPT (decoder-only): next-token prediction',
      `Causal: each token sees itself and the past only (hatched cells are masked). Input: "${r.gptStart ?? (r.gptHf ? '<|endoftext|>' : '<bos>')}" + the sentence. Objective: at every position, predict the next word; the highlighted row (the word before ${quote(gword)}) predicts ${quote(gword)} from the left only.`,
      { row: r.gptAt ?? r.at, truth: r.gptTruth, dist: `GPT: P(next word | words before ${quote(gword)}), top ${TOP}` },
    );
    g.model.replaceChildren(
      r.gptHf
        ? el('span', { className: 'trained', text: 'Your Hugging Face GPT-2, read from your folder.' })
        : r.trained
          ? el('span', {
              className: 'trained',
              text: `Trained: ${r.gptName}, loaded from web/models/${r.gptFile}.`,
            })
          : el('p', {
              className: 'warn untrained',
              text: `Untrained: a decoder with random weights (seed ${this.state.seed})${r.unknownForGrammar ? ': the trained grammar model does not know every word of this sentence' : ''}.`,
            }),
    );
    this.dataset.gptTrained = String(r.trained);
    this.place(this.cols, b.node, g.node);

    // Outputs of layer 0 for each position, before and after changing the last word.
    const moved = (x, y) => {
      const X = x.get('resid2', { layer: 0 }),
        Y = y.get('resid2', { layer: 0 });
      const d = x.config.dModel,
        n = X.length / d;
      return Array.from({ length: n }, (_, i) => {
        let m = 0;
        for (let c = 0; c < d; c++) m = Math.max(m, Math.abs(X[i * d + c] - Y[i * d + c]));
        return m;
      });
    };
    const mb = moved(r.bertEnc, r.bert2),
      mg = moved(r.gptDec, r.gpt2);
    const n = r.labels.length;
    this.test.replaceChildren(
      el('p', {
        className: 'note',
        text: `${quote(r.labels.join(' '))} vs ${quote(r.altLabels.join(' '))}: how much each position's output (layer 0) changes, for an encoder and a decoder with the same sizes and seed (random weights; without [MASK]).`,
      }),
      numsTable({
        header: ['position', 'BERT: max change', 'GPT: max change'],
        rows: r.labels.map((l, i) => [
          `${i}: ${l}${i === n - 1 ? ' (changed)' : ''}`,
          { text: fmt(mb[i], 4), data: { value: String(mb[i]) } },
          { text: fmt(mg[i], 4), data: { value: String(mg[i]) } },
        ]),
        className: 'nums who-sees',
      }),
      el('p', {
        className: 'changed',
        text: `Earlier positions: BERT's outputs change (up to ${fmt(Math.max(0, ...mb.slice(0, -1)), 3)}), because every token sees the last word; GPT's do not (${fmt(Math.max(0, ...mg.slice(0, -1)), 3)}), because no token sees the future. That is why GPT can be trained at every position at once, and why BERT has to hide the words it predicts.`,
      }),
    );
  }

  renderKey(state) {
    return JSON.stringify([super.renderKey(state), this.getAttribute('mask')]);
  }
}

define(ApBertGpt);
