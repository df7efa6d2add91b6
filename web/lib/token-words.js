// Sentences of the tokens view that read the tokenizer: why the text's first word is cut as it is
// (a byte-level BPE learned words with the space before them, and the first word has none), and
// the list of split words, each word and its pieces once. Pure (the tokenizer is asked, no DOM),
// so Node tests hold the sentences to the tokenizer's own answers.

const BYTE_PIECE = /^<0x([0-9A-F]{2})>$/;

/** A piece as the view writes it: a byte as its hex, a leading space as ␣. */
export const pieceText = (p) => p.replace(BYTE_PIECE, '$1').replace(/^ /, '␣');

/** "W · here" */
const cutText = (pieces) => pieces.map(pieceText).join(' · ');

/**
 * The text's first word when the tokenizer cuts it into more pieces than the same word after a
 * space (as inside a sentence): { word, ids, pieces, variants: [{ text, ids, pieces }] }, variants
 * being " word" and, for a capitalised word, " word" in lower case; null when that is not so.
 * Words are runs of letters, as GPT-2's pre-tokenizer splits them (digits go apart).
 */
export function startWord(tokenizer, text) {
  const m = /^\p{L}+/u.exec(text);
  if (!m) return null;
  const word = m[0];
  const cut = (s) => {
    const e = tokenizer.encode(s);
    return { text: s, ids: Array.from(e.ids), pieces: Array.from(e.pieces) };
  };
  const first = cut(word);
  // The word is cut the same inside the text (the pre-tokenizer ends it where the letters end).
  const all = cut(text).ids;
  if (first.ids.length < 2 || first.ids.some((id, i) => all[i] !== id)) return null;
  const lower = word.toLowerCase();
  const variants = [cut(` ${word}`)];
  if (lower !== word) variants.push(cut(` ${lower}`));
  if (!variants.some((v) => v.ids.length < first.ids.length)) return null;
  return { word, ids: first.ids, pieces: first.pieces, variants };
}

const tokens = (n) => `${n} ${n === 1 ? 'token' : 'tokens'}`;

/**
 * '"Where" starts the text with no space before it, so it is cut as W · here. …: "␣where" is one
 * token (id 788), while "␣Where", capitalised, is ␣W · here.' counts: spaceCounts of the vocabulary.
 */
export function startWordLine(s, counts = null) {
  const n = s.pieces.length;
  const one = (v) =>
    v.ids.length === 1
      ? `"${pieceText(v.text)}" is one token (id ${v.ids[0]})`
      : `"${pieceText(v.text)}" is ${cutText(v.pieces)} (${tokens(v.ids.length)})`;
  const [same, lower] = s.variants;
  let after;
  if (lower && lower.ids.length < n && same.ids.length >= n)
    after = `${one(lower)}, while "${pieceText(same.text)}", capitalised, is ${cutText(same.pieces)}`;
  else if (lower && lower.ids.length < same.ids.length) after = `${one(same)}, and ${one(lower)}`;
  else after = one(same);
  const n2 = (x) => x.toLocaleString('en');
  const learned = counts
    ? `The tokenizer learned words as they come inside a sentence, after a space: ${n2(counts.withSpace)} of its ${n2(counts.withSpace + counts.without)} pieces of two or more letters begin with one. Here`
    : 'Inside a sentence,';
  return `"${s.word}" starts the text with no space before it, so it is cut as ${cutText(s.pieces)} (${tokens(n)}). ${learned} ${after}.`;
}

/**
 * Pieces of two or more letters in a vocabulary (as text, a leading space as a space): how many
 * begin with a space, how many do not. { withSpace, without }
 */
export function spaceCounts(pieces) {
  let withSpace = 0,
    without = 0;
  for (const p of pieces) {
    if (/^ \p{L}{2,}$/u.test(p)) withSpace++;
    else if (/^\p{L}{2,}$/u.test(p)) without++;
  }
  return { withSpace, without };
}

/**
 * The split words, each word with its pieces once: [{ word, pieces, times }] in the order of their
 * first occurrence, from [{ word, tokens }] (tokens: the pieces as the view writes them).
 */
export function splitOnce(split) {
  const out = new Map();
  for (const w of split) {
    const key = `${w.word}\u0000${w.pieces.join('\u0000')}`;
    if (out.has(key)) out.get(key).times++;
    else out.set(key, { word: w.word, pieces: w.pieces, times: 1 });
  }
  return [...out.values()];
}

const hexOf = (bytes) => Array.from(bytes, (b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');

/**
 * A split word's pieces as the words line lists them: whole pieces as text; byte pieces of one
 * character together, "[é: 2 bytes]" (the bytes line gives their hex, so it is listed once).
 * tokens: the tokens view's { whole, shown, bytes, of: [{ ch }] } (ap-tokens tokenRow).
 */
export function piecesOf(tokens) {
  const out = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k];
    if (t.whole || t.of?.length !== 1) {
      out.push(t.whole ? t.shown.trim() : hexOf(t.bytes));
      continue;
    }
    const ch = t.of[0];
    let n = 1,
      bytes = t.bytes.length;
    const same = (u) => u && !u.whole && u.of?.length === 1 && u.of[0] === ch;
    while (same(tokens[k + n])) bytes += tokens[k + n++].bytes.length;
    out.push(`[${ch.ch}: ${bytes} ${bytes === 1 ? 'byte' : 'bytes'}]`);
    k += n - 1;
  }
  return out;
}
