// Seeded random strings for tokenizer tests: every script and kind of character a student may type.
// Characters the random strings draw from: ASCII letters, digits, punctuation and spaces, accented
// Latin (precomposed and combining), Greek, Cyrillic, CJK, Hangul, emoji with skin tones and ZWJ,
// tabs, newlines, U+00A0, U+3000, and the special tokens as whole words.
export const POOL = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ...'.,;:!?\'"()[]{}-_/\\@#$%^&*+=<>|~`',
  ' ',
  ' ',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\u00a0',
  '\u3000',
  ...'éèêëàâäîïôöùûüçñßøåÉÅÆœ',
  'e\u0301',
  'a\u0308',
  ...'αβγδΩπσ',
  ...'жизньМосква',
  ...'中文日本語한국어注意力',
  '😀',
  '👍🏽',
  '👨‍👩‍👧',
  '🇫🇷',
  '❤️',
  ' [MASK] ',
  '<|endoftext|>',
  "'s",
  "'re",
  ' attention',
  ' transformer',
];

/** `count` strings of 1 to 24 entries of `pool` each, the same for the same seed. */
export function randomStrings(count, seed, pool = POOL) {
  let s = seed >>> 0;
  const next = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return Array.from({ length: count }, () => {
    const len = 1 + Math.floor(next() * 24);
    let text = '';
    for (let i = 0; i < len; i++) text += pool[Math.floor(next() * pool.length)];
    return text;
  });
}
