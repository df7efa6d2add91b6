// The models of the page, loaded once and shared by every widget: random-weights models built
// from a recipe (seed and sizes), the trained models in web/models/*.safetensors (listed by the
// bundler, loaded on first use), and variants of either with some tensors replaced.
// Widgets share one Model object per key. A model never changes: each widget passes its own
// switches to each call (see runs.js), so widgets with different switches cannot disturb each other.
import { getPlayground, playgroundNow } from './module.js';
import { COMMON_WORDS } from './vocab.js';
import MODEL_HEADERS from 'virtual:ap-model-headers';

// The trained models the page's model picker offers (and the URL state accepts), in name order:
// every shipped file that introduces itself to the student in its own metadata (a description,
// the trainer's --description; tests/tools/lib/model-facts.mjs), so a new picker model needs no
// edit here. A model only particular views load (below) carries none.
export const TRAINED_NAMES = Object.keys(MODEL_HEADERS)
  .filter((name) => MODEL_HEADERS[name].description)
  .sort();
// Trained models only particular views load, by key 'trained:<name>': the masked LMs (encoder-only
// models that predict a hidden word; they generate nothing, so they are not page models for the
// generation and decoder views: the grammar one and the English one) and the translator.
export const VIEW_MODEL_NAMES = ['mlm', 'english-mlm', 'translate'];

// Vite lists the files present when the page is served or built; absent files are simply
// not listed, so the page never requests a model that is not there.
const FILES = import.meta.glob('../models/*.safetensors', { query: '?url', import: 'default', eager: true });
const TRAINED_URLS = Object.fromEntries(
  Object.entries(FILES).map(([path, url]) => [path.replace(/^.*\/|\.safetensors$/g, ''), url]),
);

// What every head of a shipped model does, measured on held-out text (web/models/<name>.heads.json,
// written by tests/tools/english-heads.mjs): fetched with the model it describes, never with the page.
const HEAD_FILES = import.meta.glob('../models/*.heads.json', { query: '?url', import: 'default', eager: true });
const HEAD_URLS = Object.fromEntries(
  Object.entries(HEAD_FILES).map(([path, url]) => [path.replace(/^.*\/|\.heads\.json$/g, ''), url]),
);
const headRoles = new Map();

/** Does this trained model have measured head roles? */
export function hasMeasuredHeads(name) {
  return !!HEAD_URLS[name];
}

/** The measured head roles of a trained model: a promise of { tokens, samples, heads } (null if none). */
export function measuredHeads(name) {
  if (!HEAD_URLS[name]) return Promise.resolve(null);
  if (!headRoles.has(name)) {
    const p = fetch(HEAD_URLS[name])
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null);
    p.then((v) => headRoles.set(name, v));
    headRoles.set(name, p);
  }
  const v = headRoles.get(name);
  return v instanceof Promise ? v : Promise.resolve(v);
}

/** The roles if already fetched, undefined while not (null when the model has none). */
export function measuredHeadsNow(name) {
  if (!HEAD_URLS[name]) return null;
  const v = headRoles.get(name);
  return v instanceof Promise ? undefined : v;
}

/** Names of trained model files that exist (they may still fail to load). */
export function trainedFiles() {
  return TRAINED_NAMES.filter((n) => TRAINED_URLS[n]);
}

/** Does web/models/<name>.safetensors exist (a picker model or a view-only one)? */
export function hasModelFile(name) {
  return (TRAINED_NAMES.includes(name) || VIEW_MODEL_NAMES.includes(name)) && !!TRAINED_URLS[name];
}

/**
 * What a shipped model's file says of itself (its metadata, read when the page was built; the
 * trainer's --description, --example and --prompt wrote it): the text the page types into it, in
 * its own alphabet (example), what the decoding views start from (prompt, else the example), and
 * one line for the student (description) whose {key}s are that number of the file's config
 * ({n_layers}, {d_model}, ...). Empty strings where the file says nothing.
 */
export function trainedFacts(name) {
  const h = hasModelFile(name) ? MODEL_HEADERS[name] : undefined;
  if (!h) return { description: '', example: '', prompt: '' };
  const description = h.description.replace(/\{(\w+)\}/g, (all, key) => String(h.config[key] ?? all));
  return { description, example: h.example, prompt: h.prompt || h.example };
}

export const RANDOM_DEFAULTS = {
  arch: 'decoder',
  tokenizer: 'word',
  seed: 1,
  dModel: 16,
  nHeads: 2,
  nLayers: 2,
  pos: 'sinusoidal',
};

/** The createModel() config of a random-weights model. */
export function randomConfig({
  arch = 'decoder',
  tokenizer = 'word',
  dModel = 16,
  nHeads = 2,
  nLayers = 2,
  pos = 'sinusoidal',
  maxLen = 64,
} = {}) {
  const config = {
    arch,
    dModel,
    nHeads,
    nLayers,
    dFf: 4 * dModel,
    maxLen,
    pos,
    tokenizer,
    // No causal flag: the core's default masks a decoder (decoder-only, or the decoder of an
    // encoder-decoder), as GPT is; an encoder has no mask. The student may switch it off.
  };
  if (tokenizer === 'word') config.vocab = COMMON_WORDS;
  return config;
}

/** The key of a random-weights model. */
export function randomKey(spec = {}) {
  const s = { ...RANDOM_DEFAULTS, ...spec };
  return `random:${s.arch}:${s.tokenizer}:${s.seed}:${s.dModel}:${s.nHeads}:${s.nLayers}:${s.pos}`;
}

function parseRandomKey(key) {
  const [, arch, tokenizer, seed, dModel, nHeads, nLayers, pos] = key.split('|')[0].split(':');
  return {
    arch,
    tokenizer,
    seed: Number(seed),
    dModel: Number(dModel),
    nHeads: Number(nHeads),
    nLayers: Number(nLayers),
    pos,
  };
}

// key -> { promise, entry }
const cache = new Map();
const bytesCache = new Map();

// Downloads of model files in flight, for the widgets' "Loading…" line: name -> { loaded, total }.
const downloads = new Map();
const downloadListeners = new Set();
const tellDownloads = () => downloadListeners.forEach((cb) => cb());

/** Calls `cb` whenever a model file's download progresses; returns the function that stops it. */
export function onDownloadProgress(cb) {
  downloadListeners.add(cb);
  return () => downloadListeners.delete(cb);
}

/** The model files downloading now: [{ name, loaded, total }] (total 0 when the server did not say). */
export function downloadsNow() {
  return [...downloads].map(([name, d]) => ({ name, ...d }));
}

// The body read chunk by chunk, so that a slow network shows how far the file has come.
async function readWithProgress(name, response) {
  // A compressed response's length is not the file's: then no total is shown.
  const total = response.headers.get('content-encoding') ? 0 : Number(response.headers.get('content-length')) || 0;
  if (!response.body?.getReader) return new Uint8Array(await response.arrayBuffer());
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  downloads.set(name, { loaded, total });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      loaded += value.length;
      downloads.set(name, { loaded, total });
      tellDownloads();
    }
  } finally {
    downloads.delete(name);
    tellDownloads();
  }
  const out = new Uint8Array(loaded);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function fetchBytes(name) {
  if (!bytesCache.has(name)) {
    const url = TRAINED_URLS[name];
    if (!url) return Promise.reject(new Error(`no model file web/models/${name}.safetensors`));
    bytesCache.set(
      name,
      fetch(url)
        .then((r) => {
          if (!r.ok) throw new Error(`could not fetch ${name}.safetensors (HTTP ${r.status})`);
          return readWithProgress(name, r);
        })
        .catch((err) => {
          bytesCache.delete(name);
          throw err;
        }),
    );
  }
  return bytesCache.get(name);
}

function makeEntry(key, model, extra = {}) {
  let metadata = {};
  try {
    metadata = model.metadata || {};
  } catch {
    metadata = {};
  }
  return { key, model, base: { ...model.config }, metadata, ...extra };
}

async function create(key) {
  const ap = await getPlayground();
  const [baseKey, variant] = key.split('|');
  let entry;
  if (baseKey.startsWith('random:')) {
    const spec = parseRandomKey(baseKey);
    const model = ap.createModel(randomConfig(spec), { seed: spec.seed });
    entry = makeEntry(key, model, { kind: 'random', spec, label: `random weights (seed ${spec.seed})` });
  } else if (baseKey.startsWith('trained:')) {
    const name = baseKey.slice('trained:'.length);
    // Its measured head roles (4 KB) come with it: a page read offline later still has them.
    measuredHeads(name);
    const bytes = await fetchBytes(name);
    // openModel: the English models' tokenizer.json is read by the second module, fetched only then.
    const model = await ap.openModel(bytes);
    entry = makeEntry(key, model, { kind: 'trained', name, label: `trained: ${name}` });
  } else {
    throw new Error(`unknown model '${key}'`);
  }
  if (variant) applyVariant(entry, variant);
  return entry;
}

// "zero:<stack>.<layer>.<sublayer>": that sublayer's output weights and bias set to 0,
// so its output is 0 and the residual stream passes X unchanged.
function applyVariant(entry, variant) {
  const [kind, what] = variant.split(':');
  if (kind !== 'zero') throw new Error(`unknown model variant '${variant}'`);
  const names = what.endsWith('ffn') ? [`${what}.w2`, `${what}.b2`] : [`${what}.wo`, `${what}.bo`];
  for (const name of names) {
    const t = entry.model.tensors().find((x) => x.name === name);
    if (!t) throw new Error(`the model has no tensor ${name}`);
    entry.model.setTensor(name, new Float32Array(t.shape.reduce((a, b) => a * b, 1)));
  }
}

/** The shared model entry for `key` (a promise). */
export function getModel(key) {
  let slot = cache.get(key);
  if (!slot) {
    slot = { entry: null, promise: null, error: null };
    slot.promise = create(key).then(
      (entry) => {
        slot.entry = entry;
        return entry;
      },
      (err) => {
        slot.error = err;
        cache.delete(key);
        throw err;
      },
    );
    cache.set(key, slot);
  }
  return slot.promise;
}

/** The entry if already loaded, else null (so a widget can render in the same frame). */
export function modelNow(key) {
  return cache.get(key)?.entry || null;
}

/**
 * The entry if already loaded (a widget renders in the same frame), else the promise of it; with
 * `optional`, a model that fails to load gives null instead of an error.
 */
export function entryOf(key, optional = false) {
  const e = modelNow(key);
  if (e) return e;
  const p = getModel(key);
  return optional ? p.catch(() => null) : p;
}

/** Is `x` a promise (a model still loading)? */
export const isPromise = (x) => !!x && typeof x.then === 'function';

/** go(parts): at once when no part is still loading, else a promise of it once all have loaded. */
export function whenLoaded(parts, go) {
  return parts.some(isPromise) ? Promise.all(parts).then(go) : go(parts);
}

/**
 * The page's switches as this model can take them: each value the model offers (the core's
 * model.switchChoices) is kept, any other leaves the model's own. The result goes with each call.
 */
export function switchesFor(entry, switches = {}) {
  const choices = entry.model.switchChoices;
  const out = {};
  for (const k of ['causal', 'scale', 'norm']) if (switches[k] !== undefined) out[k] = switches[k];
  if (choices.nHeads.includes(switches.nHeads)) out.nHeads = switches.nHeads;
  if (choices.pos.includes(switches.pos)) out.pos = switches.pos;
  if (choices.normKind.includes(switches.normKind)) out.normKind = switches.normKind;
  // nKvHeads divides the heads of this call, whose choices the core gives for the model's own heads.
  const heads = out.nHeads ?? entry.model.config.nHeads;
  if (choices.nKvHeads.includes(switches.nKvHeads) && heads % switches.nKvHeads === 0) out.nKvHeads = switches.nKvHeads;
  if (switches.window > 0) out.window = switches.window; // any size on any model (the core's rule)
  return out;
}

/** The architecture of a shipped model file, from the header read at build time (no download). */
export function trainedArch(name) {
  return hasModelFile(name) ? MODEL_HEADERS[name]?.arch : undefined;
}

let trainedList = null;

/**
 * Trained model files whose header reads as a model: { name, task, arch, separator, config, tensors }.
 * The headers were read when the page was built (web/vite-model-headers.js): nothing is downloaded
 * here; the weights load when a model is used.
 */
export function availableTrainedModels() {
  trainedList ??= Promise.resolve(
    trainedFiles()
      .filter((name) => MODEL_HEADERS[name])
      .map((name) => ({ name, ...MODEL_HEADERS[name] })),
  );
  return trainedList;
}

/** Is the shared module already loaded? (lets callers skip an await) */
export function moduleReady() {
  return !!playgroundNow();
}

// ---- Hugging Face checkpoints the student opened ------------------------------------------------
// A GPT-2, BERT or Llama-family folder (config.json, model.safetensors, tokenizer.json) read by the core's loader
// (ap.loadPretrained, in the second wasm module, fetched only now). Each becomes a page model with
// key 'hf:<name>'; nothing is downloaded by the page itself.

const FAMILY_NAMES = { gpt2: 'GPT-2', bert: 'BERT', llama: 'Llama', mistral: 'Mistral', qwen2: 'Qwen2' };

/** Key prefix of an opened Hugging Face model. */
export const HF_PREFIX = 'hf:';

/** Is `key` (or a state's model value) an opened Hugging Face model? */
export function isPretrainedKey(key) {
  return typeof key === 'string' && key.startsWith(HF_PREFIX) && !!modelNow(key.split('|')[0]);
}

/** The opened Hugging Face models, oldest first: [{ key, label, ... }]. */
export function pretrainedEntries() {
  return [...cache.values()].map((s) => s.entry).filter((e) => e && e.kind === 'pretrained');
}

/** "124 M", "4.4 M", "93 k". */
export function paramText(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)} B`;
  if (n >= 1e6) return `${n >= 1e7 ? Math.round(n / 1e6) : (n / 1e6).toFixed(1)} M`;
  if (n >= 1e3) return `${Math.round(n / 1e3)} k`;
  return String(n);
}

function slug(name) {
  return (
    String(name || 'model')
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 60) || 'model'
  );
}

/**
 * Opens a Hugging Face folder: parts = { config, weights, tokenizer } as ap.loadPretrained takes
 * them; name: the folder's name (for the key and the label). Resolves to the new page model entry.
 */
export async function openPretrained(parts, { name = '', onProgress, signal } = {}) {
  const ap = await getPlayground();
  const model = await ap.loadPretrained(parts, { onProgress, signal });
  const base = slug(name || model.config.family);
  let key = `${HF_PREFIX}${base}`;
  for (let k = 2; cache.has(key); k++) key = `${HF_PREFIX}${base}-${k}`;
  const params = model.tensors().reduce((sum, t) => sum + t.shape.reduce((a, b) => a * b, 1), 0);
  const family = FAMILY_NAMES[model.config.family] || model.config.family;
  const entry = makeEntry(key, model, {
    kind: 'pretrained',
    name: key.slice(HF_PREFIX.length),
    folder: name,
    family: model.config.family,
    params,
    label: `${family} (${name ? `your folder: ${name}` : 'your files'}, ${paramText(params)} parameters)`,
    example: model.config.family === 'bert' ? 'the cat sat on the [MASK] .' : DEFAULT_HF_TEXT,
  });
  entry.metadata = {}; // no task: the student's text is run as it is
  cache.set(key, { entry, promise: Promise.resolve(entry), error: null });
  return entry;
}

const DEFAULT_HF_TEXT = 'The cat sat on the mat because it was tired';

/**
 * The model's vocabulary as a student should read it: the core's pieces (a byte-level BPE token as
 * text, " the" and not "Ġthe"; part of a character as its bytes, <0xC3>), the same as encode() gives.
 */
export function displayVocab(entry) {
  return entry.model.pieces;
}
