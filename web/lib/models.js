// The models of the page, loaded once and shared by every widget: random-weights models built
// from a recipe (seed and sizes), the trained models in web/models/*.safetensors (listed by the
// bundler, loaded on first use), and variants of either with some tensors replaced.
// Widgets share one Model object per key. A model never changes: each widget passes its own
// switches to each call (see runs.js), so widgets with different switches cannot disturb each other.
import { getPlayground, playgroundNow } from './playground.js';
import { COMMON_WORDS } from './vocab.js';
import MODEL_HEADERS from 'virtual:ap-model-headers';

// The trained models the page's model picker offers (and the URL state accepts).
export const TRAINED_NAMES = ['sort', 'reverse', 'dates', 'grammar'];
// Trained models only particular views load, by key 'trained:<name>': the masked LM (an
// encoder-only model that predicts a hidden word; it generates nothing, so it is not a page
// model for the generation and decoder views).
export const VIEW_MODEL_NAMES = ['mlm', 'translate'];

// Vite lists the files present when the page is served or built; absent files are simply
// not listed, so the page never requests a model that is not there.
const FILES = import.meta.glob('../models/*.safetensors', { query: '?url', import: 'default', eager: true });
const TRAINED_URLS = Object.fromEntries(
  Object.entries(FILES).map(([path, url]) => [path.replace(/^.*\/|\.safetensors$/g, ''), url]),
);

/** Names of trained model files that exist (they may still fail to load). */
export function trainedFiles() {
  return TRAINED_NAMES.filter((n) => TRAINED_URLS[n]);
}

/** Does web/models/<name>.safetensors exist (a picker model or a view-only one)? */
export function hasModelFile(name) {
  return (TRAINED_NAMES.includes(name) || VIEW_MODEL_NAMES.includes(name)) && !!TRAINED_URLS[name];
}

/** What the page types by default into each trained model, in its own alphabet. */
export const TRAINED_EXAMPLES = {
  sort: 'd3a91c7',
  reverse: 'hello42',
  dates: '3 March 1999',
  grammar: 'the cat near the dogs sleeps .',
};

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

function fetchBytes(name) {
  if (!bytesCache.has(name)) {
    const url = TRAINED_URLS[name];
    if (!url) return Promise.reject(new Error(`no model file web/models/${name}.safetensors`));
    bytesCache.set(
      name,
      fetch(url)
        .then((r) => {
          if (!r.ok) throw new Error(`could not fetch ${name}.safetensors (HTTP ${r.status})`);
          return r.arrayBuffer();
        })
        .then((b) => new Uint8Array(b))
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
    const bytes = await fetchBytes(name);
    const model = ap.loadModel(bytes);
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
 * The page's switches as this model can take them: each value the model offers (the core's
 * model.switchChoices) is kept, any other leaves the model's own. The result goes with each call.
 */
export function switchesFor(entry, switches = {}) {
  const choices = entry.model.switchChoices;
  const out = {};
  for (const k of ['causal', 'scale', 'norm']) if (switches[k] !== undefined) out[k] = switches[k];
  if (choices.nHeads.includes(switches.nHeads)) out.nHeads = switches.nHeads;
  if (choices.pos.includes(switches.pos)) out.pos = switches.pos;
  return out;
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
