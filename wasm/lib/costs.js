// The cost calculators (model-sizes, rnn-cost, head-cost, scale; cpp/core/costs.hpp): the
// parameter calculator's configuration and the calls behind ap.parameterCount() and its siblings.
import { checkInts, float32Inputs } from './checks.js';

const SIZE_DEFAULTS = {
  arch: 'decoder',
  dModel: null,
  nHeads: null,
  nLayers: null,
  encoderLayers: null,
  decoderLayers: null,
  dFf: null,
  vocabSize: null,
  maxLen: 512,
  pos: 'sinusoidal',
  relClip: 8,
  norm: 'post',
  biases: true,
  shareEmbeddings: true,
  tieEmbeddings: true,
  lmHeadBias: false,
  segments: 0,
  embedNorm: false,
  pooler: false,
  nKvHeads: 0,
  normKind: 'layernorm',
  ffnKind: 'mlp',
};
const SIZE_INTS = [
  'dModel',
  'nHeads',
  'nLayers',
  'encoderLayers',
  'decoderLayers',
  'dFf',
  'vocabSize',
  'maxLen',
  'relClip',
  'segments',
  'nKvHeads',
];
const SIZE_BOOLS = ['biases', 'shareEmbeddings', 'tieEmbeddings', 'lmHeadBias', 'embedNorm', 'pooler'];

// Defaults, a preset, then the caller's keys; every value checked, so the core only reads them.
function sizeConfig(config, ap) {
  if (!config || typeof config !== 'object') throw new Error('parameterCount() needs a config object');
  const known = ['preset', ...Object.keys(SIZE_DEFAULTS)];
  for (const k of Object.keys(config)) {
    if (!known.includes(k)) throw new Error(`unknown parameterCount key '${k}' (known: ${known.join(', ')})`);
  }
  let base = { ...SIZE_DEFAULTS };
  if (config.preset != null) {
    const p = ap.sizePresets().find((q) => q.id === config.preset);
    if (!p)
      throw new Error(
        `unknown model-size preset '${config.preset}' (known: ${ap
          .sizePresets()
          .map((q) => q.id)
          .join(', ')})`,
      );
    base = { ...base, ...p.config, nLayers: null };
  }
  const c = { ...base };
  for (const [k, v] of Object.entries(config)) if (k !== 'preset' && v !== undefined) c[k] = v;
  for (const k of SIZE_INTS) {
    if (c[k] === null) continue;
    if (!Number.isInteger(c[k])) throw new Error(`${k} must be an integer, got ${JSON.stringify(c[k])}`);
  }
  for (const k of ['arch', 'pos', 'norm', 'normKind', 'ffnKind'])
    if (typeof c[k] !== 'string') throw new Error(`${k} must be a string, got ${JSON.stringify(c[k])}`);
  for (const k of SIZE_BOOLS)
    if (typeof c[k] !== 'boolean') throw new Error(`${k} must be true or false, got ${JSON.stringify(c[k])}`);
  for (const k of ['dModel', 'nHeads', 'vocabSize']) if (c[k] === null) throw new Error(`parameterCount() needs ${k}`);
  if (c.dFf === null) c.dFf = 4 * c.dModel; // d_ff = 4d, as in the notes
  // nLayers sets both stacks; encoderLayers / decoderLayers set one.
  const stackDefault = c.nLayers ?? null;
  c.encoderLayers = config.encoderLayers ?? stackDefault ?? c.encoderLayers;
  c.decoderLayers = config.decoderLayers ?? stackDefault ?? c.decoderLayers;
  const needEnc = c.arch !== 'decoder',
    needDec = c.arch !== 'encoder';
  if (needEnc && c.encoderLayers === null) throw new Error('parameterCount() needs nLayers (or encoderLayers)');
  if (needDec && c.decoderLayers === null) throw new Error('parameterCount() needs nLayers (or decoderLayers)');
  delete c.nLayers;
  c.encoderLayers ??= 1; // unused by this arch; any valid value
  c.decoderLayers ??= 1;
  return c;
}

export function sizePresets(ap) {
  if (!ap._sizePresets) ap._sizePresets = ap._raw.sizePresets();
  return ap._sizePresets.map((p) => ({ ...p, config: { ...p.config } }));
}

export function parameterCount(ap, config = {}) {
  const c = sizeConfig(config, ap);
  const out = ap._raw.parameterCount(c);
  if (!out) ap._fail('parameterCount');
  return out;
}

export function flops(ap, { n, d, h = 1, nKvHeads = 0, window = 0 } = {}) {
  checkInts({ n, d, h, nKvHeads, window });
  const out = ap._raw.flops(n, d, h, nKvHeads, window);
  if (!out) ap._fail('flops');
  return out;
}

export function kvCacheSize(ap, config, positions) {
  const c = sizeConfig(config, ap);
  checkInts({ positions });
  const out = ap._raw.kvCacheSize(c, positions);
  if (!out) ap._fail('kvCacheSize');
  return out;
}

export function scaleStats(ap, { dK, n = 8, draws = 200, seed = 1 } = {}) {
  checkInts({ dK, n, draws });
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`seed must be a non-negative integer, got ${seed}`);
  const out = ap._raw.scaleStats(dK, n, draws, seed);
  if (!out) ap._fail('scaleStats');
  return out;
}

export function rnnStates(ap, { x, wxh, whh, n, dIn, dHidden } = {}) {
  checkInts({ n, dIn, dHidden }, { min: 0 });
  const [xa, wa, ha] = float32Inputs([
    [x, 'x', n * dIn, 'n*dIn'],
    [wxh, 'wxh', dIn * dHidden, 'dIn*dHidden'],
    [whh, 'whh', dHidden * dHidden, 'dHidden*dHidden'],
  ]);
  const out = new Float32Array(n * dHidden);
  ap._withHeap([xa, wa, ha, out], (p) => {
    if (!ap._raw.rnnStates(p[3], p[0], p[1], p[2], n, dIn, dHidden)) ap._fail('rnnStates');
    out.set(new Float32Array(ap._heapBuffer(), p[3], out.length));
  });
  return out;
}
