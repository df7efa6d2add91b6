// The tokens view's sentences about words (web/lib/token-words.js) against the English tokenizer's
// own answers: a text starting "Where" is cut W · here while " where" is one token, and the view
// says so with those pieces and ids (asked of the tokenizer here); a first word cut the same way
// after a space gets no such line; a word split twice is listed once. The vocabulary count is
// made here from the raw vocabulary through GPT-2's byte alphabet.
import { describe, expect, test } from 'vitest';
import { loadEnglish } from '../web/lib/models.js';
import { piecesOf, spaceCounts, splitOnce, startWord, startWordLine } from '../../web/lib/token-words.js';

const { english } = await loadEnglish();

const ids = (s) => Array.from(english.tokenizer.encode(s).ids);

describe('tokens: the first word of a text has no space before it', () => {
  test('"Where ..." is cut W · here; " where" is one token, and the line says so with their ids', () => {
    const text = 'Where is the cat?';
    // The state the student saw, from the tokenizer: two pieces at the start, one after a space.
    expect(english.tokenizer.encode('Where').pieces).toEqual(['W', 'here']);
    expect(ids(' where')).toHaveLength(1);
    expect(ids(' Where').length).toBeGreaterThan(1); // the capital matters too
    const s = startWord(english.tokenizer, text);
    expect(s.word).toBe('Where');
    expect(s.ids).toEqual(ids(text).slice(0, 2));
    const line = startWordLine(s);
    expect(line).toContain('"Where" starts the text with no space before it, so it is cut as W · here (2 tokens)');
    expect(line).toContain(`"␣where" is one token (id ${ids(' where')[0]})`);
    expect(line).toContain(
      `"␣Where", capitalised, is ${english.tokenizer.encode(' Where').pieces.join(' · ').replace(/^ /, '␣')}`,
    );
  });

  test('no line when the first word is one token, or cut no better after a space', () => {
    expect(ids('The')).toHaveLength(1);
    expect(startWord(english.tokenizer, 'The cat sat on the mat.')).toBeNull();
    expect(startWord(english.tokenizer, 'the cat sat')).toBeNull();
    expect(startWord(english.tokenizer, ' Where is it')).toBeNull(); // it has its space
    expect(startWord(english.tokenizer, '42 cats')).toBeNull();
  });

  test('the vocabulary count in the line: pieces of two or more letters, with and without a space', () => {
    // GPT-2's bytes_to_unicode: the printable bytes stand for themselves, the rest from U+0100 on;
    // byte 0x20 (space) is the 33rd of those, "Ġ".
    const printable = (b) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    const byteOf = new Map();
    let next = 0x100;
    for (let b = 0; b < 256; b++) byteOf.set(String.fromCodePoint(printable(b) ? b : next++), b);
    const dec = new TextDecoder('utf-8', { fatal: false });
    const shown = english.vocab.map((p) => dec.decode(Uint8Array.from([...p], (c) => byteOf.get(c) ?? 0)));
    let withSpace = 0,
      without = 0;
    for (const p of shown) {
      if (p.length > 2 && p[0] === ' ' && /^\p{L}+$/u.test(p.slice(1))) withSpace++;
      else if (p.length > 1 && /^\p{L}+$/u.test(p)) without++;
    }
    const counts = spaceCounts(english.pieces);
    expect(counts).toEqual({ withSpace, without });
    expect(withSpace).toBeGreaterThan(without); // "learned words ... after a space" is the majority
    const line = startWordLine(startWord(english.tokenizer, 'Where is the cat?'), counts);
    expect(line).toContain(
      `${withSpace.toLocaleString('en')} of its ${(withSpace + without).toLocaleString('en')} pieces of two or more letters begin with one`,
    );
  });
});

describe('tokens: each split word is listed once', () => {
  test("a character's byte pieces are named by the character in the words line; their hex is the bytes line's", () => {
    const e = { ch: 'é' };
    const tok = (shown, bytes, of = null) => ({ whole: of === null, shown, bytes: Uint8Array.from(bytes), of });
    // "café" as the English tokenizer cuts it: c · af · <0xC3> · <0xA9>
    const cafe = [tok('c', [0x63]), tok('af', [0x61, 0x66]), tok(null, [0xc3], [e]), tok(null, [0xa9], [e])];
    expect(piecesOf(cafe)).toEqual(['c', 'af', '[é: 2 bytes]']);
    expect(piecesOf(cafe).join('·')).not.toMatch(/C3|A9/);
  });

  test('a word split twice the same way is one entry, 2 times', () => {
    const split = [
      { word: 'unbelievable', pieces: ['un', 'b', 'el', 'ie', 'v', 'able'] },
      { word: 'café', pieces: ['ca', 'f', 'C3', 'A9'] },
      { word: 'unbelievable', pieces: ['un', 'b', 'el', 'ie', 'v', 'able'] },
    ];
    expect(splitOnce(split)).toEqual([
      { word: 'unbelievable', pieces: ['un', 'b', 'el', 'ie', 'v', 'able'], times: 2 },
      { word: 'café', pieces: ['ca', 'f', 'C3', 'A9'], times: 1 },
    ]);
  });
});
