// What a view shows, as plain data: the text, the model (or a lecture preset), the random
// model's recipe, the layer / head / step, and the teaching switches. The same names are the
// widgets' attributes and the page's URL parameters, so a link or an embed reproduces a view.
// `<control>_hide=1` in a URL (or hide="control,..." on a widget) hides that control.
import { isPretrainedKey, randomKey, RANDOM_DEFAULTS, TRAINED_NAMES } from './models.js';

export const DEFAULT_TEXT = 'the cat sat on the mat';

// The longest text a link or a text box carries. Not the model's limit: each model reads at most
// its own context in tokens (the English decoder 256, a 100-word paragraph is about 130) and says
// so when a text is longer; this only keeps a URL or an attribute from carrying a book.
export const MAX_TEXT_CHARS = 2000;

// The page opens on a trained model, the English decoder (docs/models.md): any sentence a student
// types is read by a model that learned real English; the grammar, task and random models stay
// one choice away (model=grammar, model=random, ...).
export const DEFAULT_MODEL = 'english';

export const DEFAULTS = {
  text: DEFAULT_TEXT,
  model: DEFAULT_MODEL,
  preset: '',
  seed: RANDOM_DEFAULTS.seed,
  dmodel: RANDOM_DEFAULTS.dModel,
  layers: RANDOM_DEFAULTS.nLayers,
  arch: RANDOM_DEFAULTS.arch,
  tokenizer: RANDOM_DEFAULTS.tokenizer,
  layer: 0,
  head: 0,
  step: '',
  causal: '', // '' = the model's own setting, 'on' / 'off'
  scale: '',
  heads: '', // '' = the model's own number of heads
  pos: '', // '' | none | sinusoidal | rope
  norm: '', // '' | post | pre
};

/** Names of state fields (attributes and URL parameters). */
export const STATE_KEYS = Object.keys(DEFAULTS);

const INT_KEYS = new Set(['seed', 'dmodel', 'layers', 'layer', 'head']);
const CHOICES = {
  arch: ['decoder', 'encoder', 'encoder-decoder'],
  tokenizer: ['word', 'char'],
  causal: ['', 'on', 'off'],
  scale: ['', 'on', 'off'],
  pos: ['', 'none', 'sinusoidal', 'rope'],
  norm: ['', 'post', 'pre'],
};
const LIMITS = { seed: [0, 1e9], dmodel: [2, 64], layers: [1, 6], layer: [0, 63], head: [0, 63] };

/** A clean state from raw strings (attributes or URL values); bad values fall back to defaults. */
export function parseState(raw = {}) {
  const s = { ...DEFAULTS };
  for (const key of STATE_KEYS) {
    const v = raw[key];
    if (v === undefined || v === null) continue;
    if (INT_KEYS.has(key)) {
      const n = Number(v);
      const [lo, hi] = LIMITS[key];
      if (Number.isInteger(n) && n >= lo && n <= hi) s[key] = n;
    } else if (key === 'heads') {
      const n = Number(v);
      s.heads = v === '' || !Number.isInteger(n) || n < 1 || n > 64 ? '' : n;
    } else if (CHOICES[key]) {
      if (CHOICES[key].includes(String(v))) s[key] = String(v);
    } else if (key === 'model') {
      // 'hf:<name>': a Hugging Face folder the student opened in this page (models.js).
      if (v === 'random' || TRAINED_NAMES.includes(v) || isPretrainedKey(v)) s.model = v;
    } else {
      s[key] = String(v).slice(0, MAX_TEXT_CHARS);
    }
  }
  if (s.dmodel % 2 !== 0) s.dmodel = DEFAULTS.dmodel; // sinusoidal / rope positions pair dimensions
  return s;
}

/** The switches a run applies (undefined = the model's own). */
export function switchesOf(s) {
  const onOff = (v) => (v === 'on' ? true : v === 'off' ? false : undefined);
  return {
    causal: onOff(s.causal),
    scale: onOff(s.scale),
    nHeads: s.heads === '' ? undefined : Number(s.heads),
    pos: s.pos || undefined,
    norm: s.norm || undefined,
  };
}

/** The model key of the state (models.js). */
export function modelKeyOf(s) {
  if (s.model.startsWith('hf:')) return s.model;
  if (s.model !== 'random') return `trained:${s.model}`;
  return randomKey({ arch: s.arch, tokenizer: s.tokenizer, seed: s.seed, dModel: s.dmodel, nLayers: s.layers });
}

/** What runs.js needs: { preset, modelKey, text, switches, layer }. */
export function runSpec(s) {
  return { preset: s.preset, modelKey: modelKeyOf(s), text: s.text, switches: switchesOf(s), layer: s.layer };
}

// ---- the URL ---------------------------------------------------------------------------

/** State fields and hide flags from a URL's query string; the concept or chapter from its hash. */
export function readUrl(href) {
  const url = new URL(href);
  const raw = {};
  const hide = [];
  for (const [k, v] of url.searchParams) {
    if (k.endsWith('_hide')) {
      if (v !== '0') hide.push(k.slice(0, -5));
    } else if (STATE_KEYS.includes(k)) raw[k] = v;
  }
  const hash = new URLSearchParams(url.hash.replace(/^#/, ''));
  return { raw, state: parseState(raw), hide, concept: hash.get('concept') || '', chapter: hash.get('chapter') || '' };
}

/** A URL for `state` (only what differs from the defaults), hide flags and concept (or chapter). */
export function writeUrl(href, state, { hide = [], concept = '', chapter = '' } = {}) {
  const url = new URL(href);
  const params = new URLSearchParams();
  for (const key of STATE_KEYS) {
    if (state[key] !== DEFAULTS[key] && state[key] !== undefined) params.set(key, String(state[key]));
  }
  for (const h of hide) params.set(`${h}_hide`, '1');
  // ?hf=<folder URL>: the Hugging Face folder the page opened; kept so a reload opens it again.
  const hf = url.searchParams.get('hf');
  if (hf) params.set('hf', hf);
  url.search = params.toString();
  url.hash = concept ? `concept=${concept}` : chapter ? `chapter=${chapter}` : '';
  return url.href;
}
