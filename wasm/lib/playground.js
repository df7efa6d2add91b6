// AttentionPlayground: the object load() resolves to. Its plumbing (heap copies, errors, handle
// ownership) is shared by every part of the API; the costs and the trainer live in their modules.
import {
  asFloat32,
  checkInt,
  checkInts,
  checkLength,
  float32Inputs,
  modelFileBytes,
  carriesTokenizerJson,
  coreError,
} from './checks.js';
import { toSnakeConfig } from './config.js';
import * as costs from './costs.js';
import { Kernels } from './kernels.js';
import { Model } from './model.js';
import { loadPretrainedInto } from './pretrained.js';
import { Presets } from './presets.js';
import { RnnAttentionModel } from './rnn-attention.js';
import { Trace } from './trace.js';
import * as training from './trainer.js';

export class AttentionPlayground {
  constructor(raw, { relaxed = true, loadTrainer, plan = null } = {}) {
    this._raw = raw;
    this._relaxed = relaxed;
    this._plan = plan; // load.js's threadPlan for this module (the reason kernels.info() gives)
    this._loadTrainer = loadTrainer; // load.js's, for createTrainer() and evaluateTask()
    this._registry =
      typeof FinalizationRegistry === 'function'
        ? new FinalizationRegistry((handle) => {
            try {
              handle.delete();
            } catch {
              /* already freed */
            }
          })
        : null;
    this.presets = new Presets(this);
    this.kernels = new Kernels(this);
    /** The special tokens' ids and pieces, from the core: { pad, unk, bos, eos, pieces, maskPiece }. */
    this.specialTokens = raw.specialTokens();
  }

  // ---- plumbing shared by every call ---------------------------------------------------

  _heapBuffer() {
    return this._raw.HEAPU8.buffer;
  }

  // The core's message, prefixed with the call that failed ("forward: ...", for a programmer
  // reading a stack); coreMessage keeps the core's own words, which a page shows its reader.
  _fail(what) {
    const message = this._raw.lastError() || 'unknown error';
    throw coreError(what, message);
  }

  /** Copies typed arrays into the wasm heap, calls fn(pointers), frees them whatever happens. */
  _withHeap(arrays, fn) {
    const raw = this._raw;
    const ptrs = [];
    try {
      for (const a of arrays) {
        if (a == null) {
          ptrs.push(0);
          continue;
        }
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
  heapUsed() {
    return this._raw.heapUsed();
  }

  /** Total wasm memory in bytes (grows, never shrinks). */
  memoryBytes() {
    return this._heapBuffer().byteLength;
  }

  // ---- the API -------------------------------------------------------------------------

  /**
   * Multi-head scaled dot-product attention with every stage recorded.
   * x: n*dModel; wq, wk, wv, wo: dModel*dModel applied as x @ W; memory (m*dModel) for cross-attention.
   */
  attention(opts) {
    if (!opts || typeof opts !== 'object') throw new Error('attention() needs an options object');
    const { n, dModel, nHeads = 1, causal = false, scale = true, additiveMask = 0, nKvHeads = 0, window = 0 } = opts;
    if (typeof additiveMask !== 'number') throw new Error(`additiveMask must be a number, got ${typeof additiveMask}`);
    checkInts({ n, dModel }, { min: 0 });
    checkInt(nHeads, 'nHeads');
    // nKvHeads (grouped K/V, 0: nHeads) and window (0: none) are checked by the core, which names them.
    checkInts({ nKvHeads, window });
    // wk, wv (and bk, bv) are nKvHeads * dK wide with grouped K/V heads.
    const kvWidth = nKvHeads > 0 && nHeads > 0 && dModel % nHeads === 0 ? nKvHeads * (dModel / nHeads) : dModel;
    const cross = opts.memory != null;
    const m = cross ? opts.m : n;
    if (cross) checkInt(m, 'm', { min: 0 });
    else if (opts.m !== undefined && opts.m !== n)
      throw new Error(`m (${opts.m}) differs from n (${n}) but no memory was given`);
    const x = asFloat32(opts.x, 'x');
    checkLength(x, n * dModel, 'x', 'n*dModel');
    const memory = cross ? asFloat32(opts.memory, 'memory') : null;
    if (cross) checkLength(memory, m * dModel, 'memory', 'm*dModel');
    const kv = (k) => kvWidth !== dModel && (k === 'wk' || k === 'wv' || k === 'bk' || k === 'bv');
    const mats = ['wq', 'wk', 'wv', 'wo'].map((k) => {
      const w = asFloat32(opts[k], k);
      if (kv(k)) checkLength(w, dModel * kvWidth, k, 'dModel*nKvHeads*dK');
      else checkLength(w, dModel * dModel, k, 'dModel*dModel');
      return w;
    });
    const biases = ['bq', 'bk', 'bv', 'bo'].map((k) => {
      if (opts[k] == null) return null;
      const b = asFloat32(opts[k], k);
      if (kv(k)) checkLength(b, kvWidth, k, 'nKvHeads*dK');
      else checkLength(b, dModel, k, 'dModel');
      return b;
    });
    let padding = null;
    if (opts.keyPadding != null) {
      padding = Uint8Array.from(opts.keyPadding, (v) => (v ? 1 : 0));
      checkLength(padding, m, 'keyPadding', 'm');
    }
    const handle = this._withHeap([x, memory, ...mats, ...biases, padding], (p) =>
      this._raw.attention(
        p[0],
        p[1],
        p[2],
        p[3],
        p[4],
        p[5],
        p[6],
        p[7],
        p[8],
        p[9],
        p[10],
        n,
        m,
        dModel,
        nHeads,
        !!causal,
        !!scale,
        additiveMask,
        nKvHeads,
        window,
      ),
    );
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
      if ((config.tokenizer || 'char') !== 'char')
        throw new Error('a word-level model needs config.vocab (a list of words)');
      vocab = [];
      for (let c = 32; c < 127; c++) vocab.push(String.fromCharCode(c)); // printable ASCII
    }
    const seed = weights.seed ?? 1;
    if (!Number.isInteger(seed) || seed < 0)
      throw new Error(`weights.seed must be a non-negative integer, got ${seed}`);
    const handle = this._raw.createModel(JSON.stringify(snake), vocab, seed);
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
    checkInts({ n, dIn, dHidden }, { min: 0 });
    const [xa] = float32Inputs([[x, 'x', n * dIn, 'n*dIn']]);
    if (typeof spectralRadius !== 'number') {
      throw new Error(`spectralRadius must be a number, got ${typeof spectralRadius}`);
    }
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
    checkInts({ n, m, dS, dH }, { min: 0 });
    checkInt(dA, 'dA');
    const [sa, ha] = float32Inputs([
      [s, 's', n * dS, 'n*dS'],
      [h, 'h', m * dH, 'm*dH'],
    ]);
    const handle = this._withHeap([sa, ha], (p) => this._raw.additive(p[0], n, dS, p[1], m, dH, dA, seed));
    if (!handle) this._fail('additiveAttention');
    return this._own(handle, new Trace(this, handle, { defaultStack: '' }));
  }

  /**
   * Attention as a lookup: e = g(q, k) with score 'dot' | 'scaled' | 'additive' (seeded weights of
   * width dA), weights softmax(e) or one-hot argmax when hard, out = weights v. Stages: scores,
   * weights (1, n, m), out (n, dV); causal (n == m, a decoder's self-attention) adds masked (1, n, m),
   * the scores with -inf after the diagonal, from which the weights are taken.
   */
  lookup({ q, k, v, n, m, d, dV = d, score = 'scaled', hard = false, dA = 16, seed = 1, causal = false }) {
    checkInts({ n, m, d, dV }, { min: 0 });
    const [qa, ka, va] = float32Inputs([
      [q, 'q', n * d, 'n*d'],
      [k, 'k', m * d, 'm*d'],
      [v, 'v', m * dV, 'm*dV'],
    ]);
    const handle = this._withHeap([qa, ka, va], (p) =>
      this._raw.lookup(p[0], p[1], p[2], n, m, d, dV, String(score), !!hard, dA, seed, !!causal),
    );
    if (!handle) this._fail('lookup');
    return this._own(handle, new Trace(this, handle, { defaultStack: '' }));
  }

  // ---- costs: model-sizes, rnn-cost, head-cost, scale (cpp/core/costs.hpp) -------------------

  /**
   * Published models for the parameter calculator: [{ id, title, source, published, note, config }]
   * with ids 'original', 'original-big', 'bert-base', 'gpt3'; config is ready for parameterCount().
   */
  sizePresets() {
    return costs.sizePresets(this);
  }

  /**
   * Exact parameter count of a transformer, by kind: { total, embeddings, attention, ffn, norms,
   * lmHead, pooler, tokenEmbeddings, positionEmbeddings, segmentEmbeddings, encoderLayers,
   * decoderLayers, encoderLayer, decoderLayer: { attention, ffn, norms, total }, config }.
   * config: { preset } and/or any of SIZE_DEFAULTS' keys (a preset's values are overridden by the others).
   */
  parameterCount(config = {}) {
    return costs.parameterCount(this, config);
  }

  /**
   * FLOPs of one self-attention layer (h heads of d/h) and of one head of d, and of an Elman RNN
   * (input = hidden = d) on n tokens; one multiply-add = 2 FLOPs, matrix products only.
   * { n, d, flopsPerMultiplyAdd: 2, attention, singleHead: { h, dK, projections, scores, weightedSum,
   * quadratic, total, scoreEntries, softmaxExps, sequentialSteps, pathLength },
   * rnn: { perStep, total, sequentialSteps, pathLength }, crossoverN }.
   */
  flops(opts) {
    return costs.flops(this, opts);
  }

  /**
   * The KV cache of a decoder of this size after `positions` tokens (float32): { positions, layers,
   * kvWidth (nKvHeads * dK), bytesPerToken, bytes, mhaBytes (the same model with every head's own K/V) }.
   */
  kvCacheSize(config, positions) {
    return costs.kvCacheSize(this, config, positions);
  }

  /**
   * The sqrt(d_k) experiment: `draws` times n random queries and n keys with N(0, 1) entries
   * (seeded, made by the core), scored q.k and q.k / sqrt(dK). { dK, n, draws, sqrtDk, maxEntropy,
   * unscaled, scaled: { mean, std, entropy (nats, mean per row), maxWeight (mean per row) } }.
   */
  scaleStats(opts) {
    return costs.scaleStats(this, opts);
  }

  /**
   * The RNN recurrence alone, h_t = tanh(x_t W_xh + h_{t-1} W_hh), h_0 = 0: the states (n x dHidden)
   * without a trace or Jacobians, so it can be timed against kernels.attention (rnn-cost).
   */
  rnnStates(opts) {
    return costs.rnnStates(this, opts);
  }

  // ---- end of costs ----

  // ---- training: the second module (loadTrainer), fetched the first time it is needed ----

  /**
   * Held-out accuracy of a trained model on its own task (the file's "task" metadata), computed
   * by the core: exact match of greedy decoding (sort, reverse, dates), agreement pairs won
   * (grammar) or top-1 at the [MASK] (mlm). Resolves to { task, total, correct, accuracy,
   * byKind: { kind: { correct, total } } }. Async: the first call loads the trainer module.
   */
  evaluateTask(model, opts = {}) {
    return training.evaluateTask(this, model, opts);
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
  createTrainer(opts = {}) {
    return training.createTrainer(this, opts);
  }

  /**
   * A Hugging Face GPT-2 or BERT folder as a Model: parts = { config, weights, tokenizer } for
   * config.json (text, object, bytes or File), model.safetensors (bytes, a File / Blob, or a fetch
   * Response, streamed in chunks: F32, F16 or BF16) and tokenizer.json. The reader lives in the
   * second module (loaded on first use, with memory that grows to 4 GB); the model and its traces
   * live there too and are used like any other. options.onProgress({ loaded, total }).
   */
  async loadPretrained(parts, options = {}) {
    if (typeof this._raw.hfBegin === 'function') return loadPretrainedInto(this, parts, options);
    if (!this._loadTrainer) throw new Error('loadPretrained: this module has no Hugging Face reader');
    const full = await this._loadTrainer();
    return full.loadPretrained(parts, options);
  }

  /**
   * Loads a safetensors model file (Uint8Array or ArrayBuffer) written by model.save(). A file that
   * carries a tokenizer.json (the English models) needs the second module: use openModel().
   */
  loadModel(bytes) {
    bytes = modelFileBytes(bytes, 'loadModel');
    const handle = this._withHeap([bytes], (p) => this._raw.loadModel(p[0], bytes.length));
    if (!handle) this._fail('loadModel');
    return this._own(handle, new Model(this, handle));
  }

  /**
   * Loads any model file of the project's, in the module that reads it: files whose tokenizer is a
   * tokenizer.json (the English models' byte-level BPE, config tokenizer "hf") are read by the second
   * module (loaded on first use), every other file by this one, as loadModel(). Async for that reason.
   */
  async openModel(bytes) {
    bytes = modelFileBytes(bytes, 'openModel');
    if (typeof this._raw.hfBegin === 'function' || !carriesTokenizerJson(bytes)) return this.loadModel(bytes);
    if (!this._loadTrainer) throw new Error('openModel: this module cannot read a tokenizer.json');
    // The single-thread second module, as on every page (a page's first screen opens the English
    // model so: the threaded module is fetched only for what it speeds up, pretrained models and training).
    const full = await this._loadTrainer({ threads: 1 });
    return full.loadModel(bytes);
  }

  /**
   * Loads an RNN encoder-decoder with additive attention from a .safetensors file (Uint8Array or
   * ArrayBuffer) whose config says "arch": "rnn-attention" (web/models/translate-rnn.safetensors).
   */
  loadRnnAttention(bytes) {
    bytes = modelFileBytes(bytes, 'loadRnnAttention');
    const handle = this._withHeap([bytes], (p) => this._raw.loadRnnAttention(p[0], bytes.length));
    if (!handle) this._fail('loadRnnAttention');
    return this._own(handle, new RnnAttentionModel(this, handle));
  }
}
