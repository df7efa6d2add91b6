// Small inputs the wasm tests share.

/** The d x d identity matrix, row-major. */
export const eye = (d) => {
  const a = new Float32Array(d * d);
  for (let i = 0; i < d; i++) a[i * d + i] = 1;
  return a;
};

/** A tiny word-level decoder (d_model 4, 2 heads, 1 layer, d_ff 8, up to 8 tokens) over `vocab`. */
export const tinyDecoder = (vocab) => ({
  arch: 'decoder',
  dModel: 4,
  nHeads: 2,
  nLayers: 1,
  dFf: 8,
  maxLen: 8,
  tokenizer: 'word',
  vocab,
});
