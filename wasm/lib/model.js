// Model (a transformer from createModel or loadModel): forward, generate, its weights and file;
// Tokenizer: the model's own encode / decode.
import { asFloat32, checkInts } from './checks.js';
import { fromSnakeConfig } from './config.js';
import { Trace } from './trace.js';

export class Tokenizer {
  constructor(model) {
    this._model = model;
  }

  /** { ids: Int32Array, pieces: string[], unknown: number[] (positions mapped to <unk>) } */
  encode(text) {
    if (typeof text !== 'string') throw new Error(`encode() needs a string, got ${typeof text}`);
    const h = this._model._alive();
    const e = h.encode(text);
    if (!e) this._model._ap._fail('encode');
    return e;
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
    /** The vocabulary, specials included: <pad> <unk> <bos> <eos> at ids 0..3. */
    this.vocab = handle.vocab();
    /** The model's own config. A model never changes: switches are an argument of each call. */
    this.config = fromSnakeConfig(handle.configJson(undefined));
    /** What the teaching switches can be set to on this model (the core's rule): { nHeads, pos, nKvHeads, normKind, ffnKind }. */
    this.switchChoices = handle.switchChoices();
    /**
     * This model's tokenizer and special ids (-1: none): { kind, size, pad, unk, bos, eos, mask }.
     * The playground's own models: 'char' / 'word' / 'sentence' with <pad> <unk> <bos> <eos> at 0..3;
     * a Hugging Face model: 'byte-level BPE' (GPT-2: bos = eos = <|endoftext|>, no pad), 'WordPiece'
     * (BERT: [PAD] [UNK] [CLS] as bos, [SEP] as eos, [MASK]), 'SentencePiece BPE' (Llama 2, Mistral:
     * <unk> <s> </s>), 'byte-level BPE (Llama 3 split)' or 'byte-level BPE (Qwen2 split)'.
     */
    this.specialTokens = handle.tokenizerInfo();
    /** True for a model read from a Hugging Face folder (loadPretrained): config.family says which. */
    this.pretrained = !!this.config.family;
  }

  /**
   * Each id's token as encode() shows it in `pieces`: a byte-level BPE token as text (" the", not
   * "Ġthe"), part of a character as its bytes (<0xC3>); for the playground's own tokenizers, vocab.
   */
  get pieces() {
    this._pieces ??= this._alive().pieces();
    return this._pieces;
  }

  /** The config a call with these switches runs with (throws for a switch the model cannot take). */
  configFor(switches = {}) {
    const json = this._alive().configJson(switches);
    if (!json) this._ap._fail('configFor');
    return fromSnakeConfig(json);
  }

  /**
   * A text prompt as the model was trained to read it (the core's rule): decoder-only, <bos> + the
   * text's tokens + its task's separator; encoder-decoder, src = the text and ids = [<bos>];
   * encoder-only, the text's tokens. { src, ids, pieces, unknown (positions read as <unk>) }.
   */
  prompt(text) {
    if (typeof text !== 'string') throw new Error(`prompt() needs a string, got ${typeof text}`);
    const p = this._alive().prompt(text);
    if (!p) this._ap._fail('prompt');
    return p;
  }

  /** What a student should read for one id: a pretrained model's token decoded (" cat", not "Ġcat"). */
  _piece(id) {
    return this.pieces[id];
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
   * Encoder-decoder: forward({ src, tgt }) with ids or text each. switches ({ causal, scale, nHeads,
   * pos, norm, act, eps, normKind, ffnKind, nKvHeads, window }, each optional) apply to this call only. keep ({ layers, stages, drop },
   * optional; default everything) says which stages the trace holds: every stage outside the layers,
   * all stages of `layers`, the `stages` names in every layer, minus `drop` (e.g. 'probs').
   */
  forward(input, switches = {}, keep = undefined) {
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
    const handle = this._ap._withHeap([a.ids, b.ids], (p) =>
      h.forward(p[0], a.ids.length, p[1], b.ids.length, switches, keep),
    );
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
    return this._alive().metadata();
  }

  /**
   * Generates tokens one at a time. prompt: text (model.prompt(text): the core adds <bos> and the
   * task's separator; for an encoder-decoder model the text is the source) or ids used as they are
   * (for an encoder-decoder model, the source ids). switches: as in forward(), for the whole
   * generation (decoding is always causal). Returns { prompt, tokens, sequence, text, stop, unknown (prompt
   * positions read as <unk>), steps: [{ token, piece, cacheLen, distribution, trace }], encoder, dispose() }.
   */
  generate(
    prompt,
    { maxTokens = 32, temperature = 0, topK = 0, topP = 1, seed = 1, useCache = true, switches = {}, keep } = {},
  ) {
    const h = this._alive();
    if (!Number.isInteger(maxTokens)) throw new Error(`maxTokens must be an integer, got ${maxTokens}`);
    if (!Number.isInteger(topK)) throw new Error(`topK must be an integer, got ${topK}`);
    if (typeof temperature !== 'number' || typeof topP !== 'number')
      throw new Error('temperature and topP must be numbers');
    if (!Number.isInteger(seed) || seed < 0) throw new Error(`seed must be a non-negative integer, got ${seed}`);
    const encdec = this.config.arch === 'encoder-decoder';
    let promptIds,
      srcIds = new Int32Array(0),
      unknown = [];
    if (typeof prompt === 'string') {
      const p = this.prompt(prompt);
      ({ src: srcIds, ids: promptIds, unknown } = p);
    } else {
      if (prompt == null) throw new Error('generate() needs a prompt (text or ids)');
      const ids = Int32Array.from(prompt);
      if (encdec) {
        srcIds = ids;
        promptIds = Int32Array.of(this.specialTokens.bos); // the decoder starts from <bos>
      } else promptIds = ids;
    }
    const g = this._ap._withHeap([promptIds, srcIds], (p) =>
      h.generate(
        p[0],
        promptIds.length,
        p[1],
        srcIds.length,
        maxTokens,
        temperature,
        topK,
        topP,
        seed,
        !!useCache,
        switches,
        keep,
      ),
    );
    if (!g) this._ap._fail('generate');
    try {
      const info = g.info();
      const mainStack = 'decoder';
      const steps = info.steps.map((s, i) => {
        const th = g.takeStep(i);
        return {
          token: s.token,
          piece: this._piece(s.token),
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
      const tokens = info.tokens;
      const { eos } = this.specialTokens;
      const answer = tokens[tokens.length - 1] === eos ? tokens.subarray(0, tokens.length - 1) : tokens;
      return {
        prompt: info.prompt,
        tokens,
        /** The decoder's whole sequence: the prompt, then the generated tokens without a final <eos>. */
        sequence: Int32Array.from([...info.prompt, ...answer]),
        text: this.tokenizer.decode(tokens),
        stop: info.stop,
        /** With the KV cache: its self-attention K and V bytes at the end (nKvHeads / nHeads of multi-head's); else 0. */
        kvCacheBytes: info.kvCacheBytes,
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

  /**
   * [{ name, shape, dtype }] of every weight tensor. dtype is how the model holds it: 'F32', or 'F16' /
   * 'BF16' for a big matrix (a linear layer's W, the embeddings, an untied head) its file stored so,
   * kept at 16 bits and widened inside the kernels (cpp/core/weight.hpp).
   */
  tensors() {
    return this._alive().tensors();
  }

  /** A float32 copy of one weight tensor (a 16-bit one widened; the model is unchanged). */
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
