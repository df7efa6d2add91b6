// Model (a transformer from createModel or loadModel): forward, generate, its weights and file;
// Tokenizer: the model's own encode / decode.
import { asFloat32, checkInts } from './checks.js';
import { fromSnakeConfig, toSnakeConfig } from './config.js';
import { Trace } from './trace.js';

export class Tokenizer {
  constructor(model) {
    this._model = model;
  }

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

  get vocab() {
    return this._model.vocab;
  }
}

export class Model {
  constructor(ap, handle) {
    this._ap = ap;
    this._h = handle;
    this.tokenizer = new Tokenizer(this);
    this._refresh();
    /** The vocabulary, specials included: <pad> <unk> <bos> <eos> at ids 0..3. */
    this.vocab = JSON.parse(handle.vocabJson());
  }

  _refresh() {
    this.config = fromSnakeConfig(this._h.configJson());
  }

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
      if (
        !input ||
        typeof input !== 'object' ||
        Array.isArray(input) ||
        ArrayBuffer.isView(input) ||
        !('src' in input)
      ) {
        throw new Error('an encoder-decoder model needs forward({ src, tgt })');
      }
      a = this._ids(input.src, 'src');
      b = this._ids(input.tgt, 'tgt');
    } else {
      if (input && typeof input === 'object' && !Array.isArray(input) && !ArrayBuffer.isView(input)) {
        throw new Error(
          `this is a ${this.config.arch}-only model: call forward(ids or text), not forward({ src, tgt })`,
        );
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
  attentionStacks(
    input,
    { layer = 0, depth = 6, residual = false, causal = this.config.arch === 'decoder' && this.config.causal } = {},
  ) {
    const h = this._alive();
    checkInts({ layer, depth });
    const a = this._ids(input, 'input');
    const handle = this._ap._withHeap([a.ids], (p) =>
      this._ap._raw.attentionStacks(h, p[0], a.ids.length, layer, depth, !!residual, !!causal),
    );
    if (!handle) this._ap._fail('attentionStacks');
    return this._ap._own(
      handle,
      new Trace(this._ap, handle, { defaultStack: 'attention_only', tokens: a.pieces, unknown: a.unknown }),
    );
  }

  /** Free-form metadata saved with the model ("task", "separator", "description", ...). */
  get metadata() {
    return JSON.parse(this._alive().metadataJson());
  }

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
    if (typeof temperature !== 'number' || typeof topP !== 'number')
      throw new Error('temperature and topP must be numbers');
    if (!Number.isInteger(seed) || seed < 0) throw new Error(`seed must be a non-negative integer, got ${seed}`);
    const encdec = this.config.arch === 'encoder-decoder';
    const sep = this.metadata.separator || '';
    let promptIds,
      srcIds = new Int32Array(0),
      unknown = [];
    if (typeof prompt === 'string') {
      const e = this.tokenizer.encode(encdec ? prompt : prompt + sep);
      if (e.ids.length === 0 || (!encdec && prompt.length === 0))
        throw new Error('the prompt is empty: type at least one token');
      unknown = e.unknown;
      if (encdec) {
        srcIds = e.ids;
        promptIds = Int32Array.of(2);
      } else promptIds = Int32Array.from([2, ...e.ids]);
    } else {
      if (prompt == null) throw new Error('generate() needs a prompt (text or ids)');
      const ids = Int32Array.from(prompt);
      if (encdec) {
        srcIds = ids;
        promptIds = Int32Array.of(2);
      } else promptIds = ids;
    }
    const g = this._ap._withHeap([promptIds, srcIds], (p) =>
      h.generate(p[0], promptIds.length, p[1], srcIds.length, maxTokens, temperature, topK, topP, seed, !!useCache),
    );
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
  tensors() {
    return JSON.parse(this._alive().tensorsJson());
  }

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
