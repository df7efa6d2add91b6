// The trained models the page ships (web/models/<name>.safetensors), read as bytes for the core in Node.
import { readFileSync } from 'node:fs';
import { afterAll } from 'vitest';
import { load } from '../../../wasm/index.js';
import { COMMON_WORDS } from '../../../web/lib/vocab.js';

export const shippedModel = (name) =>
  new Uint8Array(readFileSync(new URL(`../../../web/models/${name}.safetensors`, import.meta.url)));

/**
 * The scores of `layer`, `head` of the trained grammar decoder for `text` (what a widget with
 * model="grammar" runs), through the JS API `ap` in Node, with the <bos> the model reads first.
 */
export function grammarScores(ap, text, { layer = 0, head = 0 } = {}) {
  const model = ap.loadModel(shippedModel('grammar'));
  const trace = model.forward(Int32Array.from([ap.specialTokens.bos, ...model.tokenizer.encode(text).ids]));
  try {
    return Array.from(trace.get('scores', { layer, head }));
  } finally {
    trace.dispose();
    model.dispose();
  }
}

const englishOf = new WeakMap();
/** The shipped English decoder (the page's default model), opened once per `ap` (openModel: it carries its tokenizer.json). */
export function englishModel(ap) {
  if (!englishOf.has(ap)) englishOf.set(ap, ap.openModel(shippedModel('english')));
  return englishOf.get(ap);
}

/**
 * The wasm module and the English decoder, for a test file whose checks run on them:
 * `const { ap, english } = await loadEnglish();` at its top loads both once when the file is
 * collected, and disposes of the model after its tests.
 */
export async function loadEnglish() {
  const ap = await load();
  const english = await englishModel(ap);
  afterAll(() => english.dispose());
  return { ap, english };
}

/**
 * The scores of `layer`, `head` of the page's default model, the English decoder (what a widget
 * with no model attribute runs), for `text` read as the page reads it: its <|endoftext|> first.
 */
export async function defaultScores(ap, text, { layer = 0, head = 0 } = {}) {
  const model = await englishModel(ap);
  const trace = model.forward(Int32Array.from([model.specialTokens.bos, ...model.tokenizer.encode(text).ids]));
  try {
    return Array.from(trace.get('scores', { layer, head }));
  } finally {
    trace.dispose();
  }
}

// The page's random-weights model (model=random; web/lib/models.js randomConfig) written out
// independently: a word-level decoder, d_model 16, 2 heads, 2 layers, d_ff 64, sinusoidal positions,
// post-norm, causal mask on as for any decoder. Create it with { seed: 1 } as the page does.
export const RANDOM_CONFIG = {
  arch: 'decoder',
  dModel: 16,
  nHeads: 2,
  nLayers: 2,
  dFf: 64,
  maxLen: 64,
  pos: 'sinusoidal',
  tokenizer: 'word',
  causal: true,
  vocab: COMMON_WORDS,
};

// The notes' sentence pair for translation (the lecture's English sentence and its French reference).
export const NOTES_EN = 'The agreement on the European Economic Area was signed in August 1992.';
export const NOTES_FR = "L'accord sur la zone économique européenne a été signé en août 1992.";

// Verbs of the masked LM's grammar (cpp/data/grammar.cpp) as [singular, plural] present forms: be
// and the first intransitive verbs, then more intransitive ones, then transitive ones.
export const MLM_VERBS = {
  common: [
    ['is', 'are'],
    ['was', 'were'],
    ['sits', 'sit'],
    ['sleeps', 'sleep'],
    ['stands', 'stand'],
    ['runs', 'run'],
    ['walks', 'walk'],
    ['jumps', 'jump'],
    ['laughs', 'laugh'],
    ['plays', 'play'],
  ],
  intransitive: [
    ['waits', 'wait'],
    ['rests', 'rest'],
    ['hides', 'hide'],
    ['works', 'work'],
    ['dances', 'dance'],
    ['swims', 'swim'],
    ['sings', 'sing'],
    ['smiles', 'smile'],
  ],
  transitive: [
    ['chases', 'chase'],
    ['sees', 'see'],
    ['likes', 'like'],
    ['helps', 'help'],
    ['follows', 'follow'],
    ['visits', 'visit'],
    ['knows', 'know'],
    ['meets', 'meet'],
    ['calls', 'call'],
    ['watches', 'watch'],
    ['finds', 'find'],
    ['wants', 'want'],
    ['loves', 'love'],
  ],
};
