// Model configs: the API's camelCase keys and the core's snake_case JSON.

const CONFIG_KEYS = {
  arch: 'arch',
  dModel: 'd_model',
  nHeads: 'n_heads',
  nLayers: 'n_layers',
  dFf: 'd_ff',
  vocabSize: 'vocab_size',
  maxLen: 'max_len',
  pos: 'pos',
  relClip: 'rel_clip',
  act: 'act',
  norm: 'norm',
  eps: 'eps',
  scale: 'scale',
  causal: 'causal',
  tokenizer: 'tokenizer',
  ffn: 'ffn',
  normKind: 'norm_kind',
  ffnKind: 'ffn_kind',
  nKvHeads: 'n_kv_heads',
  window: 'window',
  ropeTheta: 'rope_theta',
};
// Read-only: a pretrained (Hugging Face) model's config also says what it is and has.
const PRETRAINED_KEYS = {
  family: 'family',
  typeVocab: 'type_vocab',
  embNorm: 'emb_norm',
  tiedHead: 'tied_head',
  headBias: 'head_bias',
  mlmHead: 'mlm_head',
};
const CONFIG_KEYS_BACK = Object.fromEntries(
  Object.entries({ ...CONFIG_KEYS, ...PRETRAINED_KEYS }).map(([a, b]) => [b, a]),
);

export function toSnakeConfig(config, { allowVocab = false } = {}) {
  const out = {};
  for (const [key, value] of Object.entries(config || {})) {
    if (value === undefined) continue;
    if (key in CONFIG_KEYS) out[CONFIG_KEYS[key]] = value;
    else if (allowVocab && key === 'vocab') continue;
    else throw new Error(`unknown config key '${key}' (known: ${Object.keys(CONFIG_KEYS).join(', ')}, vocab)`);
  }
  return out;
}

// The parts of issue 26 are in the core's JSON only when on; here every config has them.
export function fromSnakeConfig(json) {
  const raw = JSON.parse(json);
  const out = {};
  for (const [key, value] of Object.entries(raw)) out[CONFIG_KEYS_BACK[key] || key] = value;
  out.normKind ??= 'layernorm';
  out.ffnKind ??= 'mlp';
  out.nKvHeads ||= out.nHeads; // 0 in the core: as many K/V heads as query heads
  out.window ??= 0;
  out.ropeTheta ??= 10000; // RoPE's base, written by the core only when it is not the paper's
  return out;
}
