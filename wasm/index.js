// The ES-module wrapper: turns the raw embind interface (wasm/bindings.cpp) into idiomatic JS.
// One module per page: load() returns the same promise to every caller. Every C++ failure
// becomes a JS Error with the core's message; arrays are copied in and out, so no caller
// ever holds a view that memory growth could silently kill (see withView for zero-copy).
import createApCore from './build/ap_core.mjs';

let modulePromise = null;
let trainerPromise = null;

// One module: our own memory (so the relaxed-SIMD side module can import the same one; 16 MiB,
// grows to 2 GiB), then the relaxed kernels where the runtime has them.
function instantiate(create, options, what) {
  const { relaxed = true, ...moduleOptions } = options;
  const wasmMemory = new WebAssembly.Memory({ initial: 256, maximum: 32768 });
  return create({ ...moduleOptions, wasmMemory })
    .then(async (raw) => {
      if (relaxed) await useRelaxedKernels(raw, wasmMemory);
      return new AttentionPlayground(raw, { relaxed });
    })
    .catch((err) => {
      throw new Error(`attention-playground: could not load the ${what}: ${err && err.message ? err.message : err}`);
    });
}

/**
 * Loads the wasm module once; later calls return the same instance. Where the runtime supports
 * relaxed SIMD (Chromium; Node only behind --experimental-wasm-relaxed-simd) the kernels switch to
 * the fused-multiply-add build; anything missing or failing leaves the SIMD128 kernels in place.
 * options.relaxed = false keeps SIMD128 (for comparisons).
 * This module has no trainer: createTrainer() and evaluateTask() fetch the second one (loadTrainer)
 * the first time they are called.
 */
export function load(options = {}) {
  if (!modulePromise) {
    modulePromise = instantiate(createApCore, options, 'wasm module').catch((err) => {
      modulePromise = null; // let a later call retry
      throw err;
    });
  }
  return modulePromise;
}

/**
 * The second module, loaded once on first use (build/ap_train.mjs + .wasm, ~1.2 MB): the same API
 * as load() plus the C++ trainer, with its own memory. A training Web Worker uses it alone (its
 * models, traces and trainers all live in it); load()'s createTrainer() and evaluateTask() use it
 * behind the scenes and hand models across as safetensors bytes.
 */
export function loadTrainer(options = {}) {
  if (!trainerPromise) {
    trainerPromise = import('./build/ap_train.mjs')
      .then(({ default: createApTrain }) => instantiate(createApTrain, options, 'trainer module'))
      .catch((err) => {
        trainerPromise = null;
        throw err;
      });
  }
  return trainerPromise;
}

const RELAXED_URL = new URL('./build/kernels_relaxed.wasm', import.meta.url);

async function relaxedBytes() {
  if (typeof process === 'object' && process.versions?.node && RELAXED_URL.protocol === 'file:') {
    const { readFile } = await import('node:fs/promises');
    return readFile(RELAXED_URL);
  }
  const response = await fetch(RELAXED_URL);
  if (!response.ok) throw new Error(`kernels_relaxed.wasm: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

// The side module's data size from its dylink.0 section (subsection 1: memory size, alignment).
function dylinkMemory(module) {
  const [section] = WebAssembly.Module.customSections(module, 'dylink.0');
  if (!section) return { size: 0, align: 0 };
  const bytes = new Uint8Array(section);
  let at = 0;
  const leb = () => { let v = 0, shift = 0, b; do { b = bytes[at++]; v |= (b & 0x7f) << shift; shift += 7; } while (b & 0x80); return v >>> 0; };
  while (at < bytes.length) {
    const type = bytes[at++], length = leb(), end = at + length;
    if (type === 1) { const size = leb(), align = leb(); return { size, align }; }
    at = end;
  }
  return { size: 0, align: 0 };
}

async function useRelaxedKernels(raw, memory) {
  try {
    const bytes = await relaxedBytes();
    if (!WebAssembly.validate(bytes)) return false; // no relaxed SIMD here: keep SIMD128
    const module = await WebAssembly.compile(bytes);
    const { size, align } = dylinkMemory(module);
    const stack = 256 * 1024; // the side module's own stack (its tiles live there)
    const block = raw._malloc(stack + size + (1 << align) + 16);
    if (!block) return false;
    const dataBase = (block + stack + (1 << align) - 1) & ~((1 << align) - 1);
    const global = (value, mutable = false) => new WebAssembly.Global({ value: 'i32', mutable }, value);
    const instance = await WebAssembly.instantiate(module, {
      env: {
        memory,
        __indirect_function_table: new WebAssembly.Table({ initial: 0, element: 'anyfunc' }),
        __stack_pointer: global((block + stack) & ~15, true),
        __memory_base: global(dataBase),
        __table_base: global(0),
      },
    });
    const e = instance.exports;
    if (e.__wasm_apply_data_relocs) e.__wasm_apply_data_relocs();
    const fns = [e.gemm_tiled, e.qk_scores, e.softmax_rows, e.exp_vec, e.attention_forward];
    if (fns.some((f) => typeof f !== 'function')) return false;
    raw._ap_kernels_use_relaxed(...fns.map((f) => raw.addFunction(f)));
    return true;
  } catch {
    return false; // loading must never fail because a feature is missing
  }
}

// Limits (README "Limits"): every stage of a traced call is kept, and wasm memory never shrinks.
const MAX_TOKENS = 4096;
const MAX_SCORES = 4194304; // nHeads * n * m per traced attention call
const MAX_MODEL_BYTES = 256 * 2 ** 20;

const CONFIG_KEYS = {
  arch: 'arch', dModel: 'd_model', nHeads: 'n_heads', nLayers: 'n_layers', dFf: 'd_ff',
  vocabSize: 'vocab_size', maxLen: 'max_len', pos: 'pos', relClip: 'rel_clip', act: 'act',
  norm: 'norm', eps: 'eps', scale: 'scale', causal: 'causal', tokenizer: 'tokenizer',
};
const CONFIG_KEYS_BACK = Object.fromEntries(Object.entries(CONFIG_KEYS).map(([a, b]) => [b, a]));

function toSnakeConfig(config, { allowVocab = false } = {}) {
  const out = {};
  for (const [key, value] of Object.entries(config || {})) {
    if (value === undefined) continue;
    if (key in CONFIG_KEYS) out[CONFIG_KEYS[key]] = value;
    else if (allowVocab && key === 'vocab') continue;
    else throw new Error(`unknown config key '${key}' (known: ${Object.keys(CONFIG_KEYS).join(', ')}, vocab)`);
  }
  return out;
}

function fromSnakeConfig(json) {
  const raw = JSON.parse(json);
  const out = {};
  for (const [key, value] of Object.entries(raw)) out[CONFIG_KEYS_BACK[key] || key] = value;
  return out;
}

function asFloat32(value, name) {
  if (value instanceof Float32Array) return value;
  if (Array.isArray(value) || ArrayBuffer.isView(value)) return Float32Array.from(value);
  throw new Error(`${name} must be a Float32Array (or an array of numbers), got ${value === null ? 'null' : typeof value}`);
}

function checkLength(array, expected, name, formula) {
  if (array.length !== expected) {
    throw new Error(`${name} has ${array.length} values but ${formula} = ${expected}`);
  }
}

function checkCount(value, name, { min = 1 } = {}) {
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got ${value}`);
  }
}

// kernels.*: a NaN or Infinity in an input names the array and the index.
function checkFinite(arrays) {
  for (const [arr, name] of arrays) {
    for (let i = 0; i < arr.length; i++) {
      if (!Number.isFinite(arr[i])) throw new Error(`${name} contains ${Number.isNaN(arr[i]) ? 'NaN' : 'Infinity'} (at index ${i})`);
    }
  }
}

// ---- costs: the parameter calculator's configuration -----------------------------------------

const SIZE_DEFAULTS = {
  arch: 'decoder', dModel: null, nHeads: null, nLayers: null, encoderLayers: null, decoderLayers: null,
  dFf: null, vocabSize: null, maxLen: 512, pos: 'sinusoidal', relClip: 8, norm: 'post', biases: true,
  shareEmbeddings: true, tieEmbeddings: true, lmHeadBias: false, segments: 0, embedNorm: false, pooler: false,
};
const SIZE_INTS = ['dModel', 'nHeads', 'nLayers', 'encoderLayers', 'decoderLayers', 'dFf', 'vocabSize', 'maxLen', 'relClip', 'segments'];
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
    if (!p) throw new Error(`unknown model-size preset '${config.preset}' (known: ${ap.sizePresets().map((q) => q.id).join(', ')})`);
    base = { ...base, ...p.config, nLayers: null };
  }
  const c = { ...base };
  for (const [k, v] of Object.entries(config)) if (k !== 'preset' && v !== undefined) c[k] = v;
  for (const k of SIZE_INTS) {
    if (c[k] === null) continue;
    if (!Number.isInteger(c[k])) throw new Error(`${k} must be an integer, got ${JSON.stringify(c[k])}`);
    if (c[k] < (k === 'segments' ? 0 : 1)) throw new Error(`${k} must be >= ${k === 'segments' ? 0 : 1}, got ${c[k]}`);
  }
  for (const k of ['arch', 'pos', 'norm']) if (typeof c[k] !== 'string') throw new Error(`${k} must be a string, got ${JSON.stringify(c[k])}`);
  for (const k of SIZE_BOOLS) if (typeof c[k] !== 'boolean') throw new Error(`${k} must be true or false, got ${JSON.stringify(c[k])}`);
  for (const k of ['dModel', 'nHeads', 'vocabSize']) if (c[k] === null) throw new Error(`parameterCount() needs ${k}`);
  if (c.dModel % c.nHeads !== 0) throw new Error(`dModel (${c.dModel}) is not divisible by nHeads (${c.nHeads})`);
  if (c.dFf === null) c.dFf = 4 * c.dModel;  // d_ff = 4d, as in the notes
  // nLayers sets both stacks; encoderLayers / decoderLayers set one.
  const stackDefault = c.nLayers ?? null;
  c.encoderLayers = config.encoderLayers ?? stackDefault ?? c.encoderLayers;
  c.decoderLayers = config.decoderLayers ?? stackDefault ?? c.decoderLayers;
  const needEnc = c.arch !== 'decoder', needDec = c.arch !== 'encoder';
  if (needEnc && c.encoderLayers === null) throw new Error('parameterCount() needs nLayers (or encoderLayers)');
  if (needDec && c.decoderLayers === null) throw new Error('parameterCount() needs nLayers (or decoderLayers)');
  delete c.nLayers;
  c.encoderLayers ??= 1;  // unused by this arch; any valid value
  c.decoderLayers ??= 1;
  return c;
}

class AttentionPlayground {
  constructor(raw, { relaxed = true } = {}) {
    this._raw = raw;
    this._relaxed = relaxed;
    this._registry = typeof FinalizationRegistry === 'function'
      ? new FinalizationRegistry((handle) => { try { handle.delete(); } catch { /* already freed */ } })
      : null;
    this.presets = new Presets(this);
    this.kernels = new Kernels(this);
  }

  // ---- plumbing shared by every call ---------------------------------------------------

  _heapBuffer() { return this._raw.HEAPU8.buffer; }

  _fail(what) {
    const message = this._raw.lastError() || 'unknown error';
    throw new Error(what ? `${what}: ${message}` : message);
  }

  /** Copies typed arrays into the wasm heap, calls fn(pointers), frees them whatever happens. */
  _withHeap(arrays, fn) {
    const raw = this._raw;
    const ptrs = [];
    try {
      for (const a of arrays) {
        if (a == null) { ptrs.push(0); continue; }
        const bytes = Math.max(a.byteLength, 4);
        const p = raw._malloc(bytes);
        if (!p) throw new Error('out of wasm memory');
        ptrs.push(p);
        new Uint8Array(this._heapBuffer(), p, a.byteLength).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      }
      return fn(ptrs);
    } finally {
      for (const p of ptrs) if (p) raw._free(p);
    }
  }

  _own(handle, wrapper) {
    if (this._registry) this._registry.register(wrapper, handle, wrapper);
    return wrapper;
  }

  _release(wrapper, handle) {
    if (this._registry) this._registry.unregister(wrapper);
    handle.delete();
  }

  /** Bytes currently allocated by the core's malloc (for leak tests). */
  heapUsed() { return this._raw.heapUsed(); }

  /** Total wasm memory in bytes (grows, never shrinks). */
  memoryBytes() { return this._heapBuffer().byteLength; }

  // ---- the API -------------------------------------------------------------------------

  /**
   * Multi-head scaled dot-product attention with every stage recorded.
   * x: n*dModel; wq, wk, wv, wo: dModel*dModel applied as x @ W; memory (m*dModel) for cross-attention.
   */
  attention(opts) {
    if (!opts || typeof opts !== 'object') throw new Error('attention() needs an options object');
    const { n, dModel, nHeads = 1, causal = false, scale = true, additiveMask = 0 } = opts;
    if (typeof additiveMask !== 'number' || !Number.isFinite(additiveMask) || additiveMask > 0) {
      throw new Error(`additiveMask must be a finite negative number (the notes use -1e9) or 0 for -inf, got ${additiveMask}`);
    }
    checkCount(n, 'n');
    checkCount(dModel, 'dModel');
    checkCount(nHeads, 'nHeads');
    if (dModel % nHeads !== 0) throw new Error(`dModel (${dModel}) is not divisible by nHeads (${nHeads})`);
    const cross = opts.memory != null;
    const m = cross ? opts.m : n;
    if (cross) checkCount(m, 'm');
    else if (opts.m !== undefined && opts.m !== n) throw new Error(`m (${opts.m}) differs from n (${n}) but no memory was given`);
    for (const [v, k] of [[n, 'n'], [m, 'm']]) {
      if (v > MAX_TOKENS) throw new Error(`${k} (${v}) exceeds the limit of ${MAX_TOKENS} tokens per attention call`);
    }
    if (nHeads * n * m > MAX_SCORES) {
      throw new Error(`nHeads*n*m = ${nHeads * n * m} exceeds the limit of ${MAX_SCORES} attention scores per call`);
    }
    const x = asFloat32(opts.x, 'x');
    checkLength(x, n * dModel, 'x', 'n*dModel');
    const memory = cross ? asFloat32(opts.memory, 'memory') : null;
    if (cross) checkLength(memory, m * dModel, 'memory', 'm*dModel');
    const mats = ['wq', 'wk', 'wv', 'wo'].map((k) => {
      const w = asFloat32(opts[k], k);
      checkLength(w, dModel * dModel, k, 'dModel*dModel');
      return w;
    });
    const biases = ['bq', 'bk', 'bv', 'bo'].map((k) => {
      if (opts[k] == null) return null;
      const b = asFloat32(opts[k], k);
      checkLength(b, dModel, k, 'dModel');
      return b;
    });
    let padding = null;
    if (opts.keyPadding != null) {
      padding = Uint8Array.from(opts.keyPadding, (v) => (v ? 1 : 0));
      checkLength(padding, m, 'keyPadding', 'm');
    }
    const handle = this._withHeap([x, memory, ...mats, ...biases, padding], (p) =>
      this._raw.attention(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10],
        n, m, dModel, nHeads, !!causal, !!scale, additiveMask));
    if (!handle) this._fail('attention');
    return this._own(handle, new Trace(this, handle, { defaultStack: '' }));
  }

  /**
   * A model with random (seeded) weights, or with the given tensors.
   * config: { arch, dModel, nHeads, nLayers, dFf, maxLen, pos, act, norm, eps, scale, causal,
   *           tokenizer: 'char'|'word', vocab: [...] (without the 4 specials) }
   * weights: { seed } or { seed, tensors: { name: Float32Array } }.
   */
  createModel(config, weights = {}) {
    if (!config || typeof config !== 'object') throw new Error('createModel() needs a config object');
    const snake = toSnakeConfig(config, { allowVocab: true });
    let vocab = config.vocab;
    if (vocab == null) {
      if ((config.tokenizer || 'char') !== 'char') throw new Error('a word-level model needs config.vocab (a list of words)');
      vocab = [];
      for (let c = 32; c < 127; c++) vocab.push(String.fromCharCode(c)); // printable ASCII
    }
    if (!Array.isArray(vocab) || vocab.some((v) => typeof v !== 'string')) throw new Error('config.vocab must be an array of strings');
    const seed = weights.seed ?? 1;
    if (!Number.isInteger(seed) || seed < 0) throw new Error(`weights.seed must be a non-negative integer, got ${seed}`);
    const handle = this._raw.createModel(JSON.stringify(snake), JSON.stringify(vocab), seed);
    if (!handle) this._fail('createModel');
    const model = this._own(handle, new Model(this, handle));
    if (weights.tensors) {
      try {
        for (const [name, data] of Object.entries(weights.tensors)) model.setTensor(name, data);
      } catch (e) {
        model.dispose();
        throw e;
      }
    }
    return model;
  }

  /**
   * An Elman RNN (h_t = tanh(x_t W_xh + h_{t-1} W_hh + b)) on x (n x dIn), seeded weights with W_hh
   * scaled to spectral radius `spectralRadius`. Stages: rnn_wxh (dIn x dHidden), rnn_whh, rnn_pre, rnn_h (n x dHidden) and
   * rnn_grad_norm (n): ||d h_{n-1} / d h_t||.
   */
  rnn({ x, n, dIn, dHidden, spectralRadius = 0.9, seed = 1 }) {
    checkCount(n, 'n');
    checkCount(dIn, 'dIn');
    checkCount(dHidden, 'dHidden');
    const xa = asFloat32(x, 'x');
    checkLength(xa, n * dIn, 'x', 'n*dIn');
    if (!Number.isFinite(spectralRadius) || spectralRadius < 0) throw new Error(`spectralRadius must be a number >= 0, got ${spectralRadius}`);
    const handle = this._withHeap([xa], (p) => this._raw.rnn(p[0], n, dIn, dHidden, spectralRadius, seed));
    if (!handle) this._fail('rnn');
    return this._own(handle, new Trace(this, handle, { defaultStack: '' }));
  }

  /**
   * Bahdanau additive attention of s (n x dS, decoder states) over h (m x dH, encoder states):
   * e_tj = v . tanh(s_t W_s + h_j W_h). Seeded W_s, W_h (width dA), v. Stages: add_ws (dS x dA),
   * add_wh (dH x dA), add_v (1 x dA), add_s = s W_s (n x dA), add_h = h W_h (m x dA),
   * add_tanh (n, m, dA) = tanh(add_s[t] + add_h[j]),
   * add_scores (1, n, m), add_weights (1, n, m), add_context (n, dH).
   */
  additiveAttention({ s, n, dS, h, m, dH, dA = 16, seed = 1 }) {
    for (const [v, k] of [[n, 'n'], [m, 'm'], [dS, 'dS'], [dH, 'dH'], [dA, 'dA']]) checkCount(v, k);
    const sa = asFloat32(s, 's'), ha = asFloat32(h, 'h');
    checkLength(sa, n * dS, 's', 'n*dS');
    checkLength(ha, m * dH, 'h', 'm*dH');
    const handle = this._withHeap([sa, ha], (p) => this._raw.additive(p[0], n, dS, p[1], m, dH, dA, seed));
    if (!handle) this._fail('additiveAttention');
    return this._own(handle, new Trace(this, handle, { defaultStack: '' }));
  }

  /**
   * Attention as a lookup: e = g(q, k) with score 'dot' | 'scaled' | 'additive' (seeded weights of
   * width dA), weights softmax(e) or one-hot argmax when hard, out = weights v. Stages: scores,
   * weights (1, n, m), out (n, dV).
   */
  lookup({ q, k, v, n, m, d, dV = d, score = 'scaled', hard = false, dA = 16, seed = 1 }) {
    for (const [val, key] of [[n, 'n'], [m, 'm'], [d, 'd'], [dV, 'dV']]) checkCount(val, key);
    const qa = asFloat32(q, 'q'), ka = asFloat32(k, 'k'), va = asFloat32(v, 'v');
    checkLength(qa, n * d, 'q', 'n*d');
    checkLength(ka, m * d, 'k', 'm*d');
    checkLength(va, m * dV, 'v', 'm*dV');
    const handle = this._withHeap([qa, ka, va], (p) => this._raw.lookup(p[0], p[1], p[2], n, m, d, dV, String(score), !!hard, dA, seed));
    if (!handle) this._fail('lookup');
    return this._own(handle, new Trace(this, handle, { defaultStack: '' }));
  }

  // ---- costs: model-sizes, rnn-cost, head-cost, scale (cpp/core/costs.hpp) -------------------

  /**
   * Published models for the parameter calculator: [{ id, title, source, published, note, config }]
   * with ids 'original', 'original-big', 'bert-base', 'gpt3'; config is ready for parameterCount().
   */
  sizePresets() {
    if (!this._sizePresets) this._sizePresets = JSON.parse(this._raw.sizePresetsJson());
    return this._sizePresets.map((p) => ({ ...p, config: { ...p.config } }));
  }

  /**
   * Exact parameter count of a transformer, by kind: { total, embeddings, attention, ffn, norms,
   * lmHead, pooler, tokenEmbeddings, positionEmbeddings, segmentEmbeddings, encoderLayers,
   * decoderLayers, encoderLayer, decoderLayer: { attention, ffn, norms, total }, config }.
   * config: { preset } and/or any of SIZE_DEFAULTS' keys (a preset's values are overridden by the others).
   */
  parameterCount(config = {}) {
    const c = sizeConfig(config, this);
    const json = this._raw.parameterCount(JSON.stringify(c));
    if (!json) this._fail('parameterCount');
    return JSON.parse(json);
  }

  /**
   * FLOPs of one self-attention layer (h heads of d/h) and of one head of d, and of an Elman RNN
   * (input = hidden = d) on n tokens; one multiply-add = 2 FLOPs, matrix products only.
   * { n, d, flopsPerMultiplyAdd: 2, attention, singleHead: { h, dK, projections, scores, weightedSum,
   * quadratic, total, scoreEntries, softmaxExps, sequentialSteps, pathLength },
   * rnn: { perStep, total, sequentialSteps, pathLength }, crossoverN }.
   */
  flops({ n, d, h = 1 } = {}) {
    checkCount(n, 'n');
    checkCount(d, 'd');
    checkCount(h, 'h');
    if (d % h !== 0) throw new Error(`d (${d}) is not divisible by h (${h})`);
    const json = this._raw.flops(n, d, h);
    if (!json) this._fail('flops');
    return JSON.parse(json);
  }

  /**
   * The sqrt(d_k) experiment: `draws` times n random queries and n keys with N(0, 1) entries
   * (seeded, made by the core), scored q.k and q.k / sqrt(dK). { dK, n, draws, sqrtDk, maxEntropy,
   * unscaled, scaled: { mean, std, entropy (nats, mean per row), maxWeight (mean per row) } }.
   */
  scaleStats({ dK, n = 8, draws = 200, seed = 1 } = {}) {
    checkCount(dK, 'dK');
    checkCount(n, 'n');
    checkCount(draws, 'draws');
    if (!Number.isInteger(seed) || seed < 0) throw new Error(`seed must be a non-negative integer, got ${seed}`);
    const json = this._raw.scaleStats(dK, n, draws, seed);
    if (!json) this._fail('scaleStats');
    return JSON.parse(json);
  }

  /**
   * The RNN recurrence alone, h_t = tanh(x_t W_xh + h_{t-1} W_hh), h_0 = 0: the states (n x dHidden)
   * without a trace or Jacobians, so it can be timed against kernels.attention (rnn-cost).
   */
  rnnStates({ x, wxh, whh, n, dIn, dHidden } = {}) {
    checkCount(n, 'n');
    checkCount(dIn, 'dIn');
    checkCount(dHidden, 'dHidden');
    const xa = asFloat32(x, 'x'), wa = asFloat32(wxh, 'wxh'), ha = asFloat32(whh, 'whh');
    checkLength(xa, n * dIn, 'x', 'n*dIn');
    checkLength(wa, dIn * dHidden, 'wxh', 'dIn*dHidden');
    checkLength(ha, dHidden * dHidden, 'whh', 'dHidden*dHidden');
    const out = new Float32Array(n * dHidden);
    this._withHeap([xa, wa, ha, out], (p) => {
      if (!this._raw.rnnStates(p[3], p[0], p[1], p[2], n, dIn, dHidden)) this._fail('rnnStates');
      out.set(new Float32Array(this._heapBuffer(), p[3], out.length));
    });
    return out;
  }

  // ---- end of costs ----

  // ---- training: the second module (loadTrainer), fetched the first time it is needed ----

  /** The instance that has the trainer: this one (loadTrainer()'s), or the second module. */
  _trainerHost() {
    if (typeof this._raw.createTrainer === 'function') return Promise.resolve(this);
    return loadTrainer({ relaxed: this._relaxed });
  }

  /**
   * Held-out accuracy of a trained model on its own task (the file's "task" metadata), computed
   * by the core: exact match of greedy decoding (sort, reverse, dates), agreement pairs won
   * (grammar) or top-1 at the [MASK] (mlm). Resolves to { task, total, correct, accuracy,
   * byKind: { kind: { correct, total } } }. Async: the first call loads the trainer module.
   */
  async evaluateTask(model, opts = {}) {
    if (!(model instanceof Model)) throw new Error('evaluateTask() needs a model from loadModel() or createModel()');
    checkCount(opts.n ?? 200, 'n');
    const host = await this._trainerHost();
    if (host === this || model._ap === host) return host._evaluateTaskHere(model, opts);
    const copy = host.loadModel(model.save()); // the model's file, opened in the trainer module
    try {
      return host._evaluateTaskHere(copy, opts);
    } finally {
      copy.dispose();
    }
  }

  /**
   * Trains a tiny transformer on a task ('sort', 'reverse', 'dates', 'grammar', 'mlm') with the
   * core's C++ trainer (one thread: run it in a Web Worker to keep a page responsive).
   * config: sizes { dModel, nHeads, nLayers, dFf, pos, act, norm }; arch, vocabulary and max
   * length come from the task. from: a loaded model to fine-tune (its weights replace the seeded
   * initialisation; config then defaults to its sizes). Resolves to { step(n) -> mean loss, info(),
   * evaluate(n, seed), snapshot() -> Model with the current weights, dispose() }; the trainer's
   * methods are synchronous. Async: the first call loads the trainer module.
   */
  async createTrainer(opts = {}) {
    const { task, from = null } = opts;
    if (typeof task !== 'string') throw new Error("createTrainer() needs a task: 'sort', 'reverse', 'dates', 'grammar' or 'mlm'");
    if (from !== null && !(from instanceof Model)) throw new Error('createTrainer({ from }) needs a model from loadModel() or createModel()');
    const host = await this._trainerHost();
    if (host === this) return this._createTrainerHere(opts);
    // The trainer lives in the second module (its own memory): the starting model goes over as
    // its file, and every snapshot comes back as one, opened in this module.
    const start = from ? (from._ap === host ? from : host.loadModel(from.save())) : null;
    let inner;
    try {
      inner = host._createTrainerHere({ ...opts, from: start });
    } finally {
      if (start && start !== from) start.dispose();
    }
    const ap = this;
    return {
      step(n = 1) { return inner.step(n); },
      info() { return inner.info(); },
      evaluate(n = 100, evalSeed = 777) { return inner.evaluate(n, evalSeed); },
      snapshot() {
        const model = inner.snapshot();
        try {
          return ap.loadModel(model.save());
        } finally {
          model.dispose();
        }
      },
      dispose() { inner.dispose(); },
    };
  }

  _evaluateTaskHere(model, { n = 200, seed = 12345 } = {}) {
    const json = this._raw.evaluateTask(model._alive(), n, seed);
    if (!json) this._fail('evaluateTask');
    return JSON.parse(json);
  }

  _createTrainerHere({ task, config, from = null, seed = 1, lr = 2e-3, warmupSteps = 100, totalSteps = 2000, batch = 32 }) {
    // Fine-tuning (from: a loaded model): the sizes are the model's; the core checks the rest.
    if (config === undefined) {
      config = {};
      if (from) for (const k of ['dModel', 'nHeads', 'nLayers', 'dFf', 'pos', 'act', 'norm']) config[k] = from.config[k];
    }
    const sizes = toSnakeConfig(config);
    for (const [v, k] of [[warmupSteps, 'warmupSteps'], [totalSteps, 'totalSteps'], [batch, 'batch']]) checkCount(v, k, { min: k === 'warmupSteps' ? 0 : 1 });
    if (!(lr > 0)) throw new Error(`lr must be > 0, got ${lr}`);
    const handle = this._raw.createTrainer(task, JSON.stringify(sizes), lr, warmupSteps, totalSteps, batch, seed);
    if (!handle) this._fail('createTrainer');
    if (from && !handle.startFrom(from._alive())) {
      const message = this._raw.lastError() || 'unknown error';
      handle.delete();
      throw new Error(`createTrainer: ${message}`);
    }
    const ap = this;
    const trainer = {
      _h: handle,
      _alive() { if (!this._h) throw new Error('this trainer was disposed'); return this._h; },
      /** Runs n optimisation steps; returns their mean loss. */
      step(n = 1) {
        checkCount(n, 'n');
        const loss = this._alive().step(n);
        if (Number.isNaN(loss)) ap._fail('trainer.step');
        return loss;
      },
      /** { steps, lr, gradNorm, task } */
      info() { return JSON.parse(this._alive().infoJson()); },
      /** Held-out accuracy of the current weights: { total, correct, accuracy }. */
      evaluate(n = 100, evalSeed = 777) {
        checkCount(n, 'n');
        const json = this._alive().evaluate(n, evalSeed);
        if (!json) ap._fail('trainer.evaluate');
        return JSON.parse(json);
      },
      /** The current weights as a Model (forward it to read the attention patterns). */
      snapshot() {
        const mh = this._alive().snapshot();
        if (!mh) ap._fail('trainer.snapshot');
        return ap._own(mh, new Model(ap, mh));
      },
      dispose() { if (this._h) { ap._release(this, this._h); this._h = null; } },
    };
    return this._own(handle, trainer);
  }

  /** Loads a safetensors model file (Uint8Array or ArrayBuffer) written by model.save(). */
  loadModel(bytes) {
    if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
    if (!(bytes instanceof Uint8Array)) throw new Error('loadModel() needs a Uint8Array or ArrayBuffer of a .safetensors file');
    if (bytes.length === 0) throw new Error('loadModel: the file is empty');
    if (bytes.length > MAX_MODEL_BYTES) {
      throw new Error(`loadModel: the file has ${bytes.length} bytes; the limit is ${MAX_MODEL_BYTES} (256 MiB)`);
    }
    const handle = this._withHeap([bytes], (p) => this._raw.loadModel(p[0], bytes.length));
    if (!handle) this._fail('loadModel');
    return this._own(handle, new Model(this, handle));
  }
}

/** The record of one forward pass. Stages are copied out on get(); dispose() frees the C++ side. */
class Trace {
  constructor(ap, handle, { defaultStack, tokens = null, unknown = [] }) {
    this._ap = ap;
    this._h = handle;
    this._defaultStack = defaultStack;
    this._stages = JSON.parse(handle.stagesJson()).map((s, index) => ({
      name: s.name, stack: s.stack, layer: s.layer < 0 ? null : s.layer, shape: s.shape, index,
    }));
    /** Pieces of the input text, when the trace came from text. */
    this.tokens = tokens;
    /** Positions whose piece was not in the vocabulary (mapped to <unk>). */
    this.unknown = unknown;
  }

  _alive() {
    if (!this._h) throw new Error('this trace was disposed; run the computation again to get a new one');
  }

  _find(name, opts = {}) {
    this._alive();
    if (typeof name !== 'string') throw new Error('stage name must be a string');
    let found = this._stages.filter((s) => s.name === name);
    if (found.length === 0) {
      const names = [...new Set(this._stages.map((s) => s.name))];
      throw new Error(`no stage '${name}' in this trace (stages: ${names.join(', ')})`);
    }
    const stack = opts.stack ?? (found.some((s) => s.stack === this._defaultStack) ? this._defaultStack : found[0].stack);
    found = found.filter((s) => s.stack === stack);
    if (opts.layer != null) {
      const layer = found.some((s) => s.layer !== null) ? opts.layer : null;
      const hit = found.find((s) => s.layer === layer);
      if (!hit) {
        const layers = found.map((s) => s.layer).filter((l) => l !== null);
        throw new Error(`stage '${name}' has no layer ${opts.layer}${stack ? ` in the ${stack}` : ''} (layers: ${layers.join(', ')})`);
      }
      found = [hit];
    }
    if (found.length === 0) throw new Error(`stage '${name}' is not in the '${stack}' stack`);
    return found[0];
  }

  _headRange(stage, head) {
    if (head == null) return [0, stage.shape.reduce((a, b) => a * b, 1), stage.shape];
    if (stage.shape.length !== 3) throw new Error(`stage '${stage.name}' has no heads (shape [${stage.shape}])`);
    const [h, rows, cols] = stage.shape;
    if (!Number.isInteger(head) || head < 0 || head >= h) throw new Error(`head ${head} is out of range: stage '${stage.name}' has ${h} heads`);
    return [head * rows * cols, rows * cols, [rows, cols]];
  }

  /** [{ name, stack, layer, head: null, shape }] in the order they were computed. */
  stages() {
    this._alive();
    return this._stages.map(({ name, stack, layer, shape }) => ({ name, stack, layer, head: null, shape: [...shape] }));
  }

  /** Shape of a stage, or of one head's slice when opts.head is given. */
  shape(name, opts = {}) {
    const s = this._find(name, opts);
    return [...this._headRange(s, opts.head)[2]];
  }

  /** A copy of the stage's data (row-major). 'tokens' comes back as an Int32Array. */
  get(name, opts = {}) {
    const s = this._find(name, opts);
    const [start, length] = this._headRange(s, opts.head);
    const view = this._h.view(s.index);
    const copy = view.slice(start, start + length);
    return name === 'tokens' ? Int32Array.from(copy) : copy;
  }

  /**
   * Zero-copy access: fn receives a Float32Array view over the wasm heap, valid only during
   * the call (any allocating call could grow memory and detach it). Returns fn's result.
   */
  withView(name, opts, fn) {
    const s = this._find(name, opts);
    const [start, length] = this._headRange(s, opts.head);
    const view = this._h.view(s.index);
    return fn(view.subarray(start, start + length));
  }

  /** Frees the C++ side. Further use throws. Safe to call twice. */
  dispose() {
    if (!this._h) return;
    this._ap._release(this, this._h);
    this._h = null;
  }
}

class Tokenizer {
  constructor(model) { this._model = model; }

  /** { ids: Int32Array, pieces: string[], unknown: number[] (positions mapped to <unk>) } */
  encode(text) {
    if (typeof text !== 'string') throw new Error(`encode() needs a string, got ${typeof text}`);
    const h = this._model._alive();
    const json = h.encode(text);
    if (!json) this._model._ap._fail('encode');
    const e = JSON.parse(json);
    return { ids: Int32Array.from(e.ids), pieces: e.pieces, unknown: e.unknown };
  }

  /** Text of the ids; <pad>, <bos>, <eos> are skipped. */
  decode(ids) {
    const h = this._model._alive();
    const arr = Int32Array.from(ids);
    const text = this._model._ap._withHeap([arr], (p) => h.decode(p[0], arr.length));
    if (text === '\x01') this._model._ap._fail('decode');
    return text;
  }

  get vocab() { return this._model.vocab; }
}

class Model {
  constructor(ap, handle) {
    this._ap = ap;
    this._h = handle;
    this.tokenizer = new Tokenizer(this);
    this._refresh();
    /** The vocabulary, specials included: <pad> <unk> <bos> <eos> at ids 0..3. */
    this.vocab = JSON.parse(handle.vocabJson());
  }

  _refresh() { this.config = fromSnakeConfig(this._h.configJson()); }

  _alive() {
    if (!this._h) throw new Error('this model was disposed; create or load it again');
    return this._h;
  }

  _ids(input, what) {
    if (typeof input === 'string') {
      const e = this.tokenizer.encode(input);
      return { ids: e.ids, pieces: e.pieces, unknown: e.unknown };
    }
    if (input == null) throw new Error(`${what} is missing`);
    const ids = Int32Array.from(input);
    return { ids, pieces: null, unknown: [] };
  }

  /**
   * Runs the model and records every stage. Decoder-only / encoder-only: forward(ids | text).
   * Encoder-decoder: forward({ src, tgt }) with ids or text each.
   */
  forward(input) {
    const h = this._alive();
    const encdec = this.config.arch === 'encoder-decoder';
    let a, b;
    if (encdec) {
      if (!input || typeof input !== 'object' || Array.isArray(input) || ArrayBuffer.isView(input) || !('src' in input)) {
        throw new Error('an encoder-decoder model needs forward({ src, tgt })');
      }
      a = this._ids(input.src, 'src');
      b = this._ids(input.tgt, 'tgt');
    } else {
      if (input && typeof input === 'object' && !Array.isArray(input) && !ArrayBuffer.isView(input)) {
        throw new Error(`this is a ${this.config.arch}-only model: call forward(ids or text), not forward({ src, tgt })`);
      }
      a = this._ids(input, 'input');
      b = { ids: new Int32Array(0) };
    }
    const handle = this._ap._withHeap([a.ids, b.ids], (p) => h.forward(p[0], a.ids.length, p[1], b.ids.length));
    if (!handle) this._ap._fail('forward');
    const mainStack = this.config.arch === 'encoder' ? 'encoder' : 'decoder';
    const tokens = encdec ? { src: a.pieces, tgt: b.pieces } : a.pieces;
    const unknown = encdec ? { src: a.unknown, tgt: b.unknown } : a.unknown;
    return this._ap._own(handle, new Trace(this._ap, handle, { defaultStack: mainStack, tokens, unknown }));
  }

  /**
   * ffn's "why": the input rows (stage x) through block `layer` applied `depth` times, as
   * attention only (stack 'attention_only') and as attention + FFN (stack 'with_ffn'), without
   * residual paths unless residual: true. Stages per stack and l = 0..depth: stack_x (n x d),
   * row_cosine (n x n), mean_cosine (1 x 1); stack_weights (h x n x n) for l >= 1.
   */
  attentionStacks(input, { layer = 0, depth = 6, residual = false, causal = this.config.arch === 'decoder' && this.config.causal } = {}) {
    const h = this._alive();
    if (this.config.arch === 'encoder-decoder') throw new Error('attentionStacks() needs a decoder-only or encoder-only model');
    checkCount(layer, 'layer', { min: 0 });
    checkCount(depth, 'depth');
    const a = this._ids(input, 'input');
    const handle = this._ap._withHeap([a.ids], (p) => this._ap._raw.attentionStacks(h, p[0], a.ids.length, layer, depth, !!residual, !!causal));
    if (!handle) this._ap._fail('attentionStacks');
    return this._ap._own(handle, new Trace(this._ap, handle, { defaultStack: 'attention_only', tokens: a.pieces, unknown: a.unknown }));
  }

  /** Free-form metadata saved with the model ("task", "separator", "description", ...). */
  get metadata() { return JSON.parse(this._alive().metadataJson()); }

  /**
   * Generates tokens one at a time. Decoder-only: prompt is text (encoded and preceded by <bos>,
   * then the model's separator, e.g. "=" for sort, is appended) or ids used as they are.
   * Encoder-decoder: prompt is the source (text or ids); the decoder starts from <bos>.
   * Returns { prompt, tokens, text, stop, steps: [{ token, piece, cacheLen, distribution, trace }],
   * encoder, dispose() }.
   */
  generate(prompt, { maxTokens = 32, temperature = 0, topK = 0, topP = 1, seed = 1, useCache = true } = {}) {
    const h = this._alive();
    if (!Number.isInteger(maxTokens)) throw new Error(`maxTokens must be an integer, got ${maxTokens}`);
    if (!Number.isInteger(topK)) throw new Error(`topK must be an integer, got ${topK}`);
    if (typeof temperature !== 'number' || typeof topP !== 'number') throw new Error('temperature and topP must be numbers');
    if (!Number.isInteger(seed) || seed < 0) throw new Error(`seed must be a non-negative integer, got ${seed}`);
    const encdec = this.config.arch === 'encoder-decoder';
    const sep = this.metadata.separator || '';
    let promptIds, srcIds = new Int32Array(0), unknown = [];
    if (typeof prompt === 'string') {
      const e = this.tokenizer.encode(encdec ? prompt : prompt + sep);
      if (e.ids.length === 0 || (!encdec && prompt.length === 0)) throw new Error('the prompt is empty: type at least one token');
      unknown = e.unknown;
      if (encdec) { srcIds = e.ids; promptIds = Int32Array.of(2); } else promptIds = Int32Array.from([2, ...e.ids]);
    } else {
      if (prompt == null) throw new Error('generate() needs a prompt (text or ids)');
      const ids = Int32Array.from(prompt);
      if (encdec) { srcIds = ids; promptIds = Int32Array.of(2); } else promptIds = ids;
    }
    const g = this._ap._withHeap([promptIds, srcIds], (p) =>
      h.generate(p[0], promptIds.length, p[1], srcIds.length, maxTokens, temperature, topK, topP, seed, !!useCache));
    if (!g) this._ap._fail('generate');
    try {
      const info = JSON.parse(g.infoJson());
      const mainStack = 'decoder';
      const steps = info.steps.map((s, i) => {
        const th = g.takeStep(i);
        return {
          token: s.token,
          piece: this.vocab[s.token],
          cacheLen: s.cacheLen,
          distribution: g.distribution(i).slice(),
          trace: this._ap._own(th, new Trace(this._ap, th, { defaultStack: mainStack })),
        };
      });
      let encoder = null;
      if (encdec) {
        const eh = g.takeEncoder();
        encoder = this._ap._own(eh, new Trace(this._ap, eh, { defaultStack: 'encoder' }));
      }
      const tokens = Int32Array.from(info.tokens);
      return {
        prompt: Int32Array.from(info.prompt),
        tokens,
        text: this.tokenizer.decode(tokens),
        stop: info.stop,
        unknown,
        steps,
        encoder,
        dispose() {
          for (const s of steps) s.trace.dispose();
          if (encoder) encoder.dispose();
        },
      };
    } finally {
      g.delete();
    }
  }

  /** Teaching switches that keep the weights: { causal, scale, norm, pos, nHeads, act, eps }. */
  configure(patch) {
    const h = this._alive();
    if (!h.configure(JSON.stringify(toSnakeConfig(patch)))) this._ap._fail('configure');
    this._refresh();
    return this;
  }

  /** [{ name, shape }] of every weight tensor. */
  tensors() { return JSON.parse(this._alive().tensorsJson()); }

  /** A copy of one weight tensor. */
  getTensor(name) {
    const view = this._alive().tensorView(String(name));
    if (view === null) this._ap._fail('getTensor');
    return view.slice();
  }

  /** Replaces one weight tensor (length must match; NaN/Infinity rejected). */
  setTensor(name, data) {
    const h = this._alive();
    const arr = asFloat32(data, `tensor '${name}'`);
    const ok = this._ap._withHeap([arr], (p) => h.setTensor(String(name), p[0], arr.length));
    if (!ok) this._ap._fail('setTensor');
  }

  /** The model as safetensors bytes (config and vocabulary in the header metadata). */
  save() {
    const view = this._alive().save();
    if (view === null) this._ap._fail('save');
    return view.slice();
  }

  dispose() {
    if (!this._h) return;
    this._ap._release(this, this._h);
    this._h = null;
  }
}

class Presets {
  constructor(ap) {
    this._ap = ap;
    this._list = JSON.parse(ap._raw.presetsJson());
  }

  /** [{ id, concepts, source, title, claim, tokens, dModel, nHeads, causal, scale, pos }] */
  list() { return this._list.map((p) => ({ ...p, concepts: [...p.concepts], tokens: [...p.tokens] })); }

  /** Presets that illustrate a docs/concepts.md concept id. */
  forConcept(concept) { return this.list().filter((p) => p.concepts.includes(concept)); }

  _meta(id) {
    const p = this._list.find((q) => q.id === id);
    if (!p) throw new Error(`unknown preset '${id}' (known: ${this._list.map((q) => q.id).join(', ')})`);
    return p;
  }

  /** The preset's inputs, ready for ap.attention(): { ...meta, n, x, wq, wk, wv, wo }. */
  get(id) {
    const meta = this._meta(id);
    const out = { ...meta, n: meta.tokens.length };
    for (const k of ['x', 'wq', 'wk', 'wv', 'wo']) {
      const view = this._ap._raw.presetMatrix(id, k);
      if (view === null) this._ap._fail(`preset ${id}`);
      out[k] = view.slice();
    }
    return out;
  }

  /** Runs the preset: embed, pos (if any), x, then every attention stage. */
  run(id) {
    const meta = this._meta(id);
    const handle = this._ap._raw.runPreset(id);
    if (!handle) this._ap._fail(`preset ${id}`);
    return this._ap._own(handle, new Trace(this._ap, handle, { defaultStack: '', tokens: meta.tokens }));
  }
}

class Kernels {
  constructor(ap) { this._ap = ap; }

  /** Which kernel build is running: { variant: 'scalar' | 'simd128' | 'relaxed' }. */
  info() { return { variant: this._ap._raw.kernelVariant() }; }

  /**
   * Attention without a trace. q: n x nHeads*dK, k and v: m x nHeads*dK (row-major).
   * Never builds the n x m matrix unless full: true. Returns n x nHeads*dK.
   */
  attention(opts) {
    return this._call(opts, false).out;
  }

  /**
   * kernels.attention, also measuring what the call held: heapBytes is the allocator's bytes in
   * use at the call's peak minus before it (the n x m matrix for full: true; 0 for the online kernel,
   * which allocates nothing). Returns { out, heapBytes }.
   */
  measure(opts) {
    return this._call(opts, true);
  }

  /**
   * The working memory of each path, without running it (any n, m): scoresHeld (n*m for full, one
   * score tile for the online kernel), scratchBytes (those scores' bytes, or all the online kernel's
   * stack tiles), ioBytes (q, k, v and the output), limitScores (the most n*m that full: true allows).
   */
  memory({ n, m = n, dK, nHeads = 1, full = false } = {}) {
    checkCount(n, 'n');
    checkCount(m, 'm');
    checkCount(dK, 'dK');
    checkCount(nHeads, 'nHeads');
    const text = this._ap._raw.kernelAttentionMemory(n, m, dK, nHeads, !!full);
    if (!text) this._ap._fail('kernels.memory');
    return JSON.parse(text);
  }

  /**
   * The online softmax of one query q (dK) over m keys k and values v (m x dK), `tile` keys at a
   * time, as the tiled kernel computes it. Returns { scores (m), out (dK), tiles: [{ start, end,
   * tileMax, max, correction, sum, o (dK, not yet divided by sum) }] }.
   */
  onlineSoftmaxSteps({ q, k, v, m, dK, tile = 2, scale = true }) {
    checkCount(m, 'm');
    checkCount(dK, 'dK');
    checkCount(tile, 'tile');
    const qa = asFloat32(q, 'q'), ka = asFloat32(k, 'k'), va = asFloat32(v, 'v');
    checkLength(qa, dK, 'q', 'dK');
    checkLength(ka, m * dK, 'k', 'm*dK');
    checkLength(va, m * dK, 'v', 'm*dK');
    checkFinite([[qa, 'q'], [ka, 'k'], [va, 'v']]);
    const count = Math.ceil(m / tile), width = 6 + dK;
    const steps = new Float32Array(count * width), out = new Float32Array(dK), scores = new Float32Array(m);
    this._ap._withHeap([steps, out, scores, qa, ka, va], (p) => {
      if (this._ap._raw.kernelOnlineSoftmaxSteps(p[0], p[1], p[2], p[3], p[4], p[5], m, dK, tile, !!scale) !== count) {
        this._ap._fail('kernels.onlineSoftmaxSteps');
      }
      const heap = this._ap._heapBuffer();
      steps.set(new Float32Array(heap, p[0], steps.length));
      out.set(new Float32Array(heap, p[1], dK));
      scores.set(new Float32Array(heap, p[2], m));
    });
    const tiles = [];
    for (let b = 0; b < count; b++) {
      const r = steps.subarray(b * width, (b + 1) * width);
      tiles.push({ start: r[0], end: r[1], tileMax: r[2], max: r[3], correction: r[4], sum: r[5], o: r.slice(6) });
    }
    return { scores, out, tiles };
  }

  _call(opts, measure) {
    if (!opts || typeof opts !== 'object') throw new Error('kernels.attention() needs an options object');
    const { q, k, v, n, m = n, dK, nHeads = 1, causal = false, scale = true, full = false } = opts;
    checkCount(n, 'n');
    checkCount(m, 'm');
    checkCount(dK, 'dK');
    checkCount(nHeads, 'nHeads');
    const width = nHeads * dK;
    const qa = asFloat32(q, 'q'), ka = asFloat32(k, 'k'), va = asFloat32(v, 'v');
    checkLength(qa, n * width, 'q', 'n*nHeads*dK');
    checkLength(ka, m * width, 'k', 'm*nHeads*dK');
    checkLength(va, m * width, 'v', 'm*nHeads*dK');
    checkFinite([[qa, 'q'], [ka, 'k'], [va, 'v']]);
    const out = new Float32Array(n * width);
    let heapBytes = null;
    this._ap._withHeap([qa, ka, va, out], (p) => {
      const raw = this._ap._raw;
      if (measure) {
        heapBytes = raw.kernelAttentionMeasured(p[3], p[0], p[1], p[2], n, m, dK, nHeads, !!causal, !!scale, !!full);
        if (heapBytes < 0) this._ap._fail('kernels.measure');
      } else if (!raw.kernelAttention(p[3], p[0], p[1], p[2], n, m, dK, nHeads, !!causal, !!scale, !!full)) {
        this._ap._fail('kernels.attention');
      }
      out.set(new Float32Array(this._ap._heapBuffer(), p[3], out.length));
    });
    return { out, heapBytes };
  }
}

// ---- RNN encoder-decoder with additive attention (birnn, bahdanau, translation) ----------------
// Kept in one block: loadRnnAttention() is added to the API object here, and its model class
// lives beside it (cpp/core/rnn_attention.hpp is the C++ side).

/**
 * Loads an RNN encoder-decoder with additive attention from a .safetensors file (Uint8Array or
 * ArrayBuffer) whose config says "arch": "rnn-attention" (web/models/translate-rnn.safetensors).
 */
AttentionPlayground.prototype.loadRnnAttention = function loadRnnAttention(bytes) {
  if (bytes instanceof ArrayBuffer) bytes = new Uint8Array(bytes);
  if (!(bytes instanceof Uint8Array)) throw new Error('loadRnnAttention() needs a Uint8Array or ArrayBuffer of a .safetensors file');
  if (bytes.length === 0) throw new Error('loadRnnAttention: the file is empty');
  if (bytes.length > MAX_MODEL_BYTES) throw new Error(`loadRnnAttention: the file has ${bytes.length} bytes; the limit is ${MAX_MODEL_BYTES} (256 MiB)`);
  const handle = this._withHeap([bytes], (p) => this._raw.loadRnnAttention(p[0], bytes.length));
  if (!handle) this._fail('loadRnnAttention');
  return this._own(handle, new RnnAttentionModel(this, handle));
};

class RnnAttentionModel {
  constructor(ap, handle) {
    this._ap = ap;
    this._h = handle;
    /** { arch: 'rnn-attention', vocabSize, dEmb, dEnc (one direction), dDec, dAtt, maxLen, tokenizer } */
    this.config = Object.fromEntries(Object.entries(JSON.parse(handle.configJson()))
      .map(([k, v]) => [k.replace(/_([a-z])/g, (_, c) => c.toUpperCase()), v]));
    /** The vocabulary, specials included: <pad> <unk> <bos> <eos> at ids 0..3. */
    this.vocab = JSON.parse(handle.vocabJson());
    const model = this;
    this.tokenizer = {
      encode(text) { return model._encode(text); },
      decode(ids) { return model._decode(ids); },
      get vocab() { return model.vocab; },
    };
  }

  _alive() {
    if (!this._h) throw new Error('this model was disposed; load it again');
    return this._h;
  }

  /** Free-form metadata saved with the model ("task", "train_command", ...). */
  get metadata() { return JSON.parse(this._alive().metadataJson()); }

  _encode(text) {
    if (typeof text !== 'string') throw new Error(`encode() needs a string, got ${typeof text}`);
    const json = this._alive().encode(text);
    if (!json) this._ap._fail('encode');
    const e = JSON.parse(json);
    return { ids: Int32Array.from(e.ids), pieces: e.pieces, unknown: e.unknown };
  }

  _decode(ids) {
    const text = this._alive().decode(JSON.stringify(Array.from(ids, Number)));
    if (text === '\x01') this._ap._fail('decode');
    return text;
  }

  /**
   * The bidirectional encoder alone on `text`. Stages (stack 'encoder'): tokens (S), enc_embed (S, E),
   * enc_fwd (S, H) forward states, enc_bwd (S, H) backward states, enc_h (S, 2H) = [enc_fwd | enc_bwd].
   * trace.tokens: the source pieces; trace.unknown: positions read as <unk>.
   */
  encode(text) {
    const src = this._encode(text);
    const handle = this._alive().encoder(text);
    if (!handle) this._ap._fail('encode');
    return this._ap._own(handle, new Trace(this._ap, handle, { defaultStack: 'encoder', tokens: src.pieces, unknown: src.unknown }));
  }

  /**
   * Translates `text`: greedy decoding until <eos> (or maxLen steps), or, with opts.target, the
   * decoder reading <bos> + target (teacher forcing). Every stage of the encoder (see encode) and
   * of the decoder (stack 'decoder'): dec_tokens (T), dec_embed (T, E), dec_s (T+1, Ds) s_0..s_T,
   * add_ws (Ds, A), add_wh (2H, A), add_v (1, A), add_s (T, A) = W_s s_{t-1}, add_h (S, A) = W_h h_j,
   * add_tanh (T, S, A), add_scores (1, T, S) = e_tj, add_weights (1, T, S) = alpha_tj,
   * add_context (T, 2H) = C_t, logits (T, V), probs (T, V), out_tokens (T) each step's argmax.
   * The trace also carries tokens (source pieces), unknown, output (the argmax words, '<eos>'
   * included) and text (the translation, without <eos>).
   */
  translate(text, { target = null } = {}) {
    if (typeof text !== 'string') throw new Error(`translate() needs a string, got ${typeof text}`);
    if (target != null && typeof target !== 'string') throw new Error('translate(): target must be a string');
    const src = this._encode(text);
    const handle = this._alive().translate(text, target ?? '', target != null);
    if (!handle) this._ap._fail('translate');
    const trace = this._ap._own(handle, new Trace(this._ap, handle, { defaultStack: 'decoder', tokens: src.pieces, unknown: src.unknown }));
    const ids = Array.from(trace.get('out_tokens'), (x) => Math.round(x));
    trace.outputIds = ids;
    trace.output = ids.map((id) => this.vocab[id]);
    const end = ids.indexOf(3);
    trace.text = this._decode(end < 0 ? ids : ids.slice(0, end));
    return trace;
  }

  /** Frees the C++ side. Further use throws. Safe to call twice. */
  dispose() {
    if (!this._h) return;
    this._ap._release(this, this._h);
    this._h = null;
  }
}
