// How the English models see the Brown corpus, in one place for training data, the baselines and
// the held-out figures: a document (sample) is cut into chunks of whole sentences joined by single
// spaces, each chunk at most `maxTokens` tokens (a sentence longer than that alone is cut by
// tokens). A chunk is scored after <bos> (the decoder's prompt), so every figure is "reading a
// passage from its start". Bits per byte = the chunks' summed -log2 p(token) / their UTF-8 bytes.
// A chunk's tokens are its sentences' tokens, each later sentence encoded with its leading space:
// GPT-2's split never joins a space to the piece before it, so that is the tokenizer's answer for
// the joined text (cpp/data/english.cpp cuts training passages the same way; the tests check it).

/**
 * samples: [{ id, sentences: [{ text }] }]; encode(text) -> ids (or a promise of them);
 * byteLength(ids) -> the UTF-8 bytes those tokens stand for (byte-level BPE: exact for any cut).
 * Returns [{ sample, text, ids, bytes }] (text null for a piece of a sentence cut by tokens).
 */
export async function englishChunks(samples, encode, maxTokens, byteLength) {
  const out = [];
  const enc = new TextEncoder();
  for (const s of samples) {
    let text = '';
    let ids = [];
    const flush = () => {
      if (ids.length) out.push({ sample: s.id, text, ids, bytes: enc.encode(text).length });
      text = '';
      ids = [];
    };
    for (const { text: sentence } of s.sentences) {
      if (text) {
        const later = await encode(' ' + sentence);
        if (ids.length + later.length <= maxTokens) {
          text += ' ' + sentence;
          ids = ids.concat(later);
          continue;
        }
        flush();
      }
      const alone = await encode(sentence);
      if (alone.length <= maxTokens) {
        text = sentence;
        ids = alone;
      } else {
        // A sentence longer than a chunk: whole tokens, the text they decode to is exactly its bytes.
        for (let i = 0; i < alone.length; i += maxTokens) {
          const part = alone.slice(i, i + maxTokens);
          out.push({ sample: s.id, text: null, ids: part, bytes: byteLength(part) });
        }
      }
    }
    flush();
  }
  return out;
}

/** The tokenizer.json a model file carries (safetensors metadata "tokenizer.json"), parsed. */
export function tokenizerJsonOf(bytes) {
  const len = Number(new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + len)));
  const json = header.__metadata__?.['tokenizer.json'];
  if (!json) throw new Error('this model file carries no tokenizer.json (not an English model?)');
  return JSON.parse(json);
}

/** Bytes each token id stands for: byte-level BPE writes one character per byte; added tokens are literal. */
export function tokenByteLengths(tokenizerJson) {
  const len = [];
  for (const [s, id] of Object.entries(tokenizerJson.model.vocab)) len[id] = [...s].length;
  for (const t of tokenizerJson.added_tokens ?? []) len[t.id] = new TextEncoder().encode(t.content).length;
  return len;
}
