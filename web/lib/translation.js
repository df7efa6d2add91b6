// The shipped translation model (web/models/translate.safetensors: an encoder-decoder
// transformer the project trained on its toy English -> French grammar, task "translate"),
// shared by the translation, cross-attention and context-embeddings views. Every number comes
// from the core: greedy decoding, the cross-attention weights of each decoder layer and the
// encoder's vectors; the views only average the heads' weights and take cosines of core vectors.
import { entryOf, hasModelFile } from './models.js';

export const NOTES_EN = 'The agreement on the European Economic Area was signed in August 1992.';
export const NOTES_FR = "L'accord sur la zone économique européenne a été signé en août 1992.";
export const BANK_MONEY = 'I went to the bank to deposit my check.';
export const BANK_RIVER = 'I sat by the river bank.';
export const TRANSLATE_KEY = 'trained:translate';

/** The loaded model entry, a promise of it, or null when the file is absent. */
export function translationEntry() {
  if (!hasModelFile('translate')) return null;
  return entryOf(TRANSLATE_KEY);
}

/** Throws a clear Error for text the model cannot read; returns its encoding otherwise. */
export function encodeSource(model, text) {
  const enc = model.tokenizer.encode(text);
  if (enc.ids.length === 0) throw new Error('Type an English sentence for the model to translate.');
  if (enc.ids.length > model.config.maxLen)
    throw new Error(`The sentence has ${enc.ids.length} words; this model reads at most ${model.config.maxLen}.`);
  return enc;
}

/**
 * Greedy translation of `text` and the decoder's cross-attention weights of every layer, from a
 * teacher-forced pass over <bos> + the model's own output (the same numbers as during
 * generation: each row reads the words written before it).
 * Returns { src, out, text, unknown, layers: [{ heads: [Float32Array rows x cols], mean }] }
 * where row i is the step that wrote out[i] and column j is English word src[j].
 */
export function translateWithAlignment(model, text) {
  const enc = encodeSource(model, text);
  const g = model.generate(text, { maxTokens: model.config.maxLen - 1 });
  const tgt = g.sequence; // <bos> and the model's words, without its <eos>
  const outIds = Array.from(tgt.subarray(1));
  const result = g.text;
  g.dispose();
  const tr = model.forward({ src: enc.ids, tgt });
  const H = model.config.nHeads,
    n = tgt.length,
    m = enc.ids.length,
    rows = outIds.length;
  const layers = [];
  try {
    for (let layer = 0; layer < model.config.nLayers; layer++) {
      const w = tr.get('cross_weights', { layer, stack: 'decoder' });
      const heads = [],
        mean = new Float32Array(rows * m);
      for (let h = 0; h < H; h++) {
        const hw = w.slice(h * n * m, h * n * m + rows * m); // rows 0..rows-1 wrote the output words
        heads.push(hw);
        for (let k = 0; k < hw.length; k++) mean[k] += hw[k] / H;
      }
      layers.push({ heads, mean });
    }
  } finally {
    tr.dispose();
  }
  return {
    src: enc.pieces,
    unknown: enc.unknown.map((i) => enc.pieces[i]),
    out: outIds.map((id) => model.vocab[id]),
    text: result,
    layers,
  };
}

/** For each row of a rows x cols matrix, the column of the largest value and that value. */
export function argmaxRows(values, rows, cols) {
  const best = [];
  for (let i = 0; i < rows; i++) {
    let j0 = 0;
    for (let j = 1; j < cols; j++) if (values[i * cols + j] > values[i * cols + j0]) j0 = j;
    best.push({ col: j0, value: values[i * cols + j0] });
  }
  return best;
}

/** Cosine similarity of two vectors. */
export function cosine(a, b) {
  let s = 0,
    na = 0,
    nb = 0;
  for (let k = 0; k < a.length; k++) {
    s += a[k] * b[k];
    na += a[k] * a[k];
    nb += b[k] * b[k];
  }
  return s / Math.sqrt(na * nb);
}
