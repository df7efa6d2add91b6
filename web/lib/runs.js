// Runs of the core, shared by the widgets of a page: one forward pass per (model, switches,
// input), one preset run per (preset, switches). A Run keeps its wasm Trace in a small LRU;
// stage arrays are copied out once and memoised, so widgets never hold wasm memory, and a
// Run whose trace was evicted silently recomputes it when asked again.
import { getPlayground, playgroundNow } from './module.js';
import { displayVocab, getModel, modelNow, switchesFor } from './models.js';

const TRACE_LRU = 12;
const runs = new Map(); // key -> Run (also the LRU order of live traces)

function touch(key, run) {
  runs.delete(key);
  runs.set(key, run);
  while (runs.size > TRACE_LRU * 4) {
    const oldest = runs.keys().next().value;
    runs.get(oldest)._drop();
    runs.delete(oldest);
  }
  let live = 0;
  for (const r of [...runs.values()].reverse()) {
    if (r._trace) {
      live++;
      if (live > TRACE_LRU) r._drop();
    }
  }
}

/** Labels for token ids when there is no text (generated continuations, <bos>...). */
function piecesOf(model, ids) {
  const vocab = displayVocab({ model }); // a byte-level BPE piece as its text (" the", not "Ġthe")
  return Array.from(ids, (id) => vocab[id] ?? `#${id}`);
}

export class Run {
  constructor(
    key,
    {
      kind,
      compute,
      tokens,
      srcTokens = null,
      unknown = new Set(),
      srcUnknown = new Set(),
      config,
      tensor,
      model = null,
      entry = null,
      preset = null,
      start = null,
    },
  ) {
    this.key = key;
    this.kind = kind; // 'model' | 'preset' | 'attention'
    this._compute = compute; // () => Trace
    this.tokens = tokens; // labels of the main stack's positions
    this.srcTokens = srcTokens; // encoder positions (encoder-decoder)
    this.unknown = unknown; // positions (main stack) not in the vocabulary
    this.srcUnknown = srcUnknown;
    this.config = config; // { arch, dModel, nHeads, dK, nLayers, dFf, pos, causal, scale, norm, act }
    this._tensor = tensor; // name -> { data, shape } | null
    this.model = model;
    this.entry = entry;
    this.preset = preset;
    this.start = start; // { id, piece } of the start token the model reads before the text, or null
    this._trace = null;
    this._copies = new Map();
    this._stages = null;
    this.error = null;
  }

  _t() {
    if (!this._trace) {
      this._trace = this._compute();
      if (!this._stages) this._stages = this._trace.stages();
    }
    touch(this.key, this);
    return this._trace;
  }

  _drop() {
    if (this._trace) {
      this._trace.dispose();
      this._trace = null;
    }
  }

  /** [{ name, stack, layer, shape }] in computation order. */
  stages() {
    if (!this._stages) this._t();
    return this._stages;
  }

  /** The stage layer `layer` of `stack` hands to the next, as the core marked it (Trace.blockOutput). */
  blockOutput(layer, stack = this.mainStack) {
    return this.stages().find((s) => s.role === 'block_output' && s.layer === layer && s.stack === stack)?.name ?? null;
  }

  /** Where the stack's output is, as the core marks it (Trace.stackOutput): { name, layer }. */
  stackOutput(stack = this.mainStack) {
    const st = this.stages().filter((s) => s.stack === stack);
    const fin = st.find((s) => s.role === 'stack_output');
    if (fin) return { name: fin.name, layer: null };
    const last = st.filter((s) => s.role === 'block_output').at(-1);
    return last ? { name: last.name, layer: last.layer } : null;
  }

  /** Is there such a stage (for this layer / stack)? */
  has(name, { layer = null, stack } = {}) {
    const st = stack ?? this.mainStack;
    return this.stages().some(
      (s) =>
        s.name === name &&
        (layer == null || s.layer === layer || s.layer === null) &&
        (st == null || s.stack === st || s.stack === ''),
    );
  }

  get mainStack() {
    if (this.kind !== 'model') return '';
    return this.config.arch === 'encoder' ? 'encoder' : 'decoder';
  }

  /** A memoised copy of a stage (or one head of it). */
  get(name, opts = {}) {
    const key = `${name}|${opts.layer ?? ''}|${opts.head ?? ''}|${opts.stack ?? ''}`;
    let v = this._copies.get(key);
    if (!v) {
      v = this._t().get(name, opts);
      this._copies.set(key, v);
    }
    return v;
  }

  shape(name, opts = {}) {
    return this._t().shape(name, opts);
  }

  /** A weight tensor: { data, shape } or null when the run has no such tensor. */
  tensor(name) {
    return this._tensor(name);
  }

  /** Labels of a stack's positions. */
  labels(stack) {
    return stack === 'encoder' && this.srcTokens ? this.srcTokens : this.tokens;
  }

  flags(stack) {
    return stack === 'encoder' && this.srcTokens ? this.srcUnknown : this.unknown;
  }
}

function configOf(c) {
  return { ...c, dK: c.dModel / c.nHeads };
}

/**
 * The run for a widget's state (lib/state.js): a preset, or a model on text.
 * Returns a Run synchronously when the module and model are loaded, else a promise of one.
 */
export function runFor(state) {
  const ap = playgroundNow();
  if (state.preset) {
    if (ap) return presetRun(ap, state);
    return getPlayground().then((a) => presetRun(a, state));
  }
  const entry = modelNow(state.modelKey);
  if (ap && entry) return modelRun(entry, state);
  return getModel(state.modelKey).then((e) => modelRun(e, state));
}

// ---- presets ---------------------------------------------------------------------------

function presetRun(ap, state) {
  const id = state.preset;
  const meta = ap.presets.list().find((p) => p.id === id);
  if (!meta) throw new Error(`unknown preset '${id}'`);
  const sw = state.switches || {};
  const causal = sw.causal ?? meta.causal;
  const scale = sw.scale ?? meta.scale;
  const nHeads = meta.headChoices.includes(sw.nHeads) ? sw.nHeads : meta.nHeads;
  const own = causal === meta.causal && scale === meta.scale && nHeads === meta.nHeads;
  const key = `preset:${id}:${causal}:${scale}:${nHeads}`;
  const cached = runs.get(key);
  if (cached) {
    touch(key, cached);
    return cached;
  }
  const inputs = ap.presets.get(id);
  let compute;
  if (own) compute = () => ap.presets.run(id);
  else {
    // Switches on a preset: the same inputs through ap.attention (x already holds positions:
    // taken from the preset's own run, so they come from the core too).
    compute = () => {
      const base = ap.presets.run(id);
      let x;
      try {
        x = base.get('x');
      } finally {
        base.dispose();
      }
      return ap.attention({
        x,
        wq: inputs.wq,
        wk: inputs.wk,
        wv: inputs.wv,
        wo: inputs.wo,
        n: inputs.n,
        dModel: meta.dModel,
        nHeads,
        causal,
        scale,
      });
    };
  }
  const tensors = { wq: inputs.wq, wk: inputs.wk, wv: inputs.wv, wo: inputs.wo };
  const d = meta.dModel;
  const run = new Run(key, {
    kind: 'preset',
    compute,
    tokens: meta.tokens,
    config: configOf({
      arch: 'attention',
      dModel: d,
      nHeads,
      nLayers: 1,
      dFf: 0,
      pos: meta.pos,
      causal,
      scale,
      norm: 'post',
      act: 'relu',
    }),
    tensor: (name) => (tensors[name] ? { data: tensors[name], shape: [d, d] } : null),
    preset: meta,
  });
  touch(key, run);
  return run;
}

// ---- models ------------------------------------------------------------------------------

/** Token ids the model runs on for `text`: seq2seq models get <bos>, separator and their answer (model.prompt, the core's format). */
function inputFor(entry, text) {
  const model = entry.model;
  if (entry.kind === 'pretrained') {
    // A Hugging Face model reads the text as it was trained to (BERT: [CLS] ... [SEP]; GPT-2: the
    // tokens alone), with its own tokenizer and special ids.
    const p = model.prompt(text);
    if (p.ids.length > entry.base.maxLen)
      throw new Error(
        `This text is ${p.ids.length} tokens long; the model reads at most ${entry.base.maxLen}. Shorten it.`,
      );
    return { input: p.ids, tokens: p.pieces, unknown: new Set(p.unknown) };
  }
  const { bos } = playgroundNow().specialTokens;
  if (entry.base.arch === 'encoder-decoder') {
    const enc = model.tokenizer.encode(text);
    let tgt = Int32Array.of(bos);
    if (enc.ids.length > 0 && entry.kind === 'trained') {
      // The decoder side shows the model's own greedy answer, so cross-attention aligns
      // the source with what the model actually writes.
      const g = model.generate(enc.ids, { maxTokens: Math.min(16, entry.base.maxLen - 1) });
      try {
        tgt = g.sequence;
      } finally {
        g.dispose();
      }
    } else if (enc.ids.length > 0) {
      tgt = Int32Array.from([bos, ...Array.from(enc.ids).slice(0, Math.max(1, enc.ids.length - 1))]);
    }
    return {
      input: { src: enc.ids, tgt },
      tokens: piecesOf(model, tgt),
      srcTokens: enc.pieces,
      unknown: new Set(),
      srcUnknown: new Set(enc.unknown),
    };
  }
  if (entry.kind === 'trained' && entry.metadata.task) {
    if (model.tokenizer.encode(text).ids.length === 0)
      return { input: new Int32Array(0), tokens: [], unknown: new Set() };
    const p = model.prompt(text);
    let ids = p.ids;
    const start = startOf(model, text, p);
    if (entry.metadata.separator) {
      const g = model.generate(ids, { maxTokens: Math.max(1, Math.min(16, entry.base.maxLen - ids.length)) });
      try {
        ids = g.sequence;
      } finally {
        g.dispose();
      }
    }
    return {
      input: ids,
      tokens: [...p.pieces, ...piecesOf(model, ids.slice(p.pieces.length))],
      unknown: new Set(p.unknown),
      start,
    };
  }
  const enc = model.tokenizer.encode(text);
  return { input: enc.ids, tokens: enc.pieces, unknown: new Set(enc.unknown) };
}

/**
 * The start token `model` reads before `text` ({ id, piece }), or null: the prompt (the core's
 * model.prompt, or `prompt` already made) is the text's tokens with one token before them.
 */
export function startOf(model, text, prompt = null) {
  const enc = model.tokenizer.encode(text);
  if (enc.ids.length === 0) return null;
  let p = prompt;
  try {
    p ??= model.prompt(text);
  } catch {
    return null; // text the model cannot read
  }
  if (p.ids.length !== enc.ids.length + 1 || !enc.ids.every((id, i) => p.ids[i + 1] === id)) return null;
  return { id: p.ids[0], piece: p.pieces[0] };
}

/**
 * How many tokens the model reads for `text` (the tokens inputFor gives it, before any answer it
 * writes) and at most how many it can: its context length, from its config. The page's text box
 * warns with these as the reader types; the core refuses longer input with its own message.
 */
export function lengthOf(entry, text) {
  const model = entry.model;
  const prompted =
    entry.kind === 'pretrained' ||
    (entry.base.arch !== 'encoder-decoder' && entry.kind === 'trained' && entry.metadata.task);
  const ids = prompted && text ? model.prompt(text).ids : model.tokenizer.encode(text).ids;
  return { n: ids.length, max: entry.base.maxLen };
}

/**
 * What a trace keeps (model.forward's keep): everything for the project's small models; for a
 * Hugging Face model (GPT-2 small on 128 tokens would be ~350 MB of trace) the layer the student
 * looks at in full, plus every layer's attention weights (the heads grid) and output (the input
 * of the next layer, n x d: the stage the core marks as a block's output, blockOutputName).
 */
export function keepFor(entry, layer = 0, switches = {}) {
  if (entry.kind !== 'pretrained') return undefined;
  const l = Math.max(0, Math.min(entry.base.nLayers - 1, Number(layer) || 0));
  return { layers: [l], stages: ['weights', blockOutputName(entry, switches)] };
}

// Per model and switches: the name of the stage the core marks as a block's output.
const blockOutputs = new Map();

/**
 * The stage a block of `entry`'s model hands to the next under `switches` (the same in every
 * layer), as the core marks it (Trace.blockOutput): asked once of a one-token forward pass that
 * keeps layer 0, so that a keep list can name it before the real forward pass runs.
 */
export function blockOutputName(entry, switches = {}) {
  const key = `${entry.key}:${JSON.stringify(switches)}`;
  let name = blockOutputs.get(key);
  if (name === undefined) {
    const t = entry.model.forward([0], switches, { layers: [0], stages: [], drop: ['probs'] });
    try {
      name = t.blockOutput({ layer: 0 });
    } finally {
      t.dispose();
    }
    blockOutputs.set(key, name);
  }
  return name;
}

function modelRun(entry, state) {
  const switches = switchesFor(entry, state.switches);
  const keep = keepFor(entry, state.layer, switches);
  const key = `model:${entry.key}:${JSON.stringify(switches)}:${keep ? `${keep.layers[0]}:` : ''}${state.text}`;
  const cached = runs.get(key);
  if (cached) {
    touch(key, cached);
    return cached;
  }
  const model = entry.model;
  const {
    input,
    tokens,
    srcTokens = null,
    unknown,
    srcUnknown = new Set(),
    start = null,
  } = inputFor(entry, state.text);
  const n = input.src ? input.src.length : input.length;
  const run = new Run(key, {
    kind: 'model',
    compute: () => model.forward(input, switches, keep),
    tokens,
    srcTokens,
    unknown,
    srcUnknown,
    config: configOf(model.configFor(switches)),
    tensor: tensorOf(model),
    model,
    entry,
    start,
  });
  run.empty = n === 0;
  return computed(key, run);
}

// A model's weights by name, with their shape (null for a name the model does not have).
function tensorOf(model) {
  return (name) => {
    const t = model.tensors().find((x) => x.name === name);
    return t ? { data: model.getTensor(name), shape: t.shape } : null;
  };
}

// A new forward run: computed now (a failure is kept on run.error, an empty input is not run),
// cached and returned.
function computed(key, run) {
  if (!run.empty) {
    try {
      run._t();
    } catch (err) {
      run.error = err;
    }
  }
  touch(key, run);
  return run;
}

/** Forward a model entry on explicit ids (for views that build their own inputs). */
export function runIds(entry, ids, switches = {}, labels = null, layer = 0) {
  const sw = switchesFor(entry, switches);
  const keep = keepFor(entry, layer, sw);
  const key = `ids:${entry.key}:${JSON.stringify(sw)}:${keep ? `${keep.layers[0]}:` : ''}${Array.from(ids).join(',')}`;
  const cached = runs.get(key);
  if (cached) {
    touch(key, cached);
    return cached;
  }
  const run = new Run(key, {
    kind: 'model',
    compute: () => entry.model.forward(ids, sw, keep),
    tokens: labels || piecesOf(entry.model, ids),
    config: configOf(entry.model.configFor(sw)),
    tensor: tensorOf(entry.model),
    model: entry.model,
    entry,
  });
  return computed(key, run);
}

// ---- generation ----------------------------------------------------------------------------

const generations = new Map();

/**
 * model.generate() for a decoding view, shared and memoised by (model, switches, prompt, options).
 * Steps keep their traces until the generation is evicted (the 4 most recent are kept).
 * Returns { prompt, tokens, text, stop, steps: [{ token, piece, cacheLen, distribution, get(name, opts) }], error }.
 */
export function generationFor(entry, prompt, options, switches = {}) {
  const sw = switchesFor(entry, { ...switches, causal: undefined }); // decoding is always causal (the core's rule)
  const key = `${entry.key}:${JSON.stringify(sw)}:${JSON.stringify(prompt)}:${JSON.stringify(options)}`;
  if (generations.has(key)) {
    const g = generations.get(key);
    generations.delete(key);
    generations.set(key, g);
    return g;
  }
  let out;
  try {
    // A Hugging Face model: each step keeps layer 0 in full (the KV cache view) and the outputs.
    const keep = entry.kind === 'pretrained' ? { layers: [0], stages: [] } : undefined;
    const g = entry.model.generate(prompt, { ...options, switches: sw, keep });
    out = {
      prompt: Array.from(g.prompt),
      tokens: Array.from(g.tokens),
      text: g.text,
      stop: g.stop,
      unknown: g.unknown,
      kvCacheBytes: g.kvCacheBytes,
      switches: sw,
      steps: g.steps.map((s) => {
        const copies = new Map();
        return {
          token: s.token,
          piece: s.piece,
          cacheLen: s.cacheLen,
          distribution: s.distribution,
          stages: s.trace.stages(),
          get(name, opts = {}) {
            const k = `${name}|${opts.layer ?? ''}|${opts.head ?? ''}|${opts.stack ?? ''}`;
            if (!copies.has(k)) copies.set(k, s.trace.get(name, opts));
            return copies.get(k);
          },
          shape: (name, opts = {}) => s.trace.shape(name, opts),
        };
      }),
      encoderTokens: null,
      dispose: () => g.dispose(),
      error: null,
    };
  } catch (err) {
    out = { error: err, steps: [], tokens: [], prompt: [], dispose() {} };
  }
  generations.set(key, out);
  while (generations.size > 4) {
    const oldest = generations.keys().next().value;
    generations.get(oldest).dispose();
    generations.delete(oldest);
  }
  return out;
}

/** Several runFor() results: an array at once when all are ready, else a promise of one. */
export function runsFor(specs) {
  const results = specs.map((s) => runFor(s));
  return results.some((r) => r && typeof r.then === 'function') ? Promise.all(results) : results;
}
