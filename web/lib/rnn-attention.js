// The trained RNN encoder-decoder with additive attention (web/models/translate-rnn.safetensors,
// cpp/core/rnn_attention.hpp), loaded once per page and shared by the birnn and bahdanau views;
// and the small helpers both use: a trace's stages copied out (the trace freed at once) and the
// one-line note about words the model's vocabulary does not have.
import { getPlayground } from './module.js';
import { quotedWords } from './dom.js';

// The notes' alignment example (004), and its French as the model translates it.
export const NOTES_SENTENCE = 'The agreement on the European Economic Area was signed in August 1992.';

// Vite lists the file if it exists (an absent file is simply not listed).
const FILES = import.meta.glob('../models/translate-rnn.safetensors', {
  query: '?url',
  import: 'default',
  eager: true,
});
const URL_OF = Object.values(FILES)[0];

let promise = null;

/** The shared trained model (a promise); a failed load may be retried by the next call. */
export function translationRnn() {
  if (!promise) {
    promise = (async () => {
      if (!URL_OF) throw new Error('the trained model web/models/translate-rnn.safetensors is missing');
      const ap = await getPlayground();
      const r = await fetch(URL_OF);
      if (!r.ok) throw new Error(`could not fetch translate-rnn.safetensors (HTTP ${r.status})`);
      return ap.loadRnnAttention(new Uint8Array(await r.arrayBuffer()));
    })().catch((err) => {
      promise = null;
      throw err;
    });
  }
  return promise;
}

/** Copies the named stages of a trace (and its tokens, unknown, output, text), then frees it. */
export function stagesOf(trace, names) {
  try {
    const out = { tokens: trace.tokens, unknown: trace.unknown, output: trace.output, text: trace.text, shape: {} };
    for (const n of names) {
      out[n] = trace.get(n);
      out.shape[n] = trace.shape(n);
    }
    return out;
  } finally {
    trace.dispose();
  }
}

/** "Not in the model's vocabulary (read as <unk>): ..." or '' when every word is known. */
export function unknownNote(tokens, unknown, vocabSize) {
  if (!unknown || unknown.length === 0) return '';
  return `Not in this toy model's vocabulary of ${vocabSize} words, so read as <unk>: ${quotedWords(tokens, unknown)}. The numbers are still the core's; the translation of those words will be wrong.`;
}
