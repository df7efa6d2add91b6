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

// Every setting of a view, once: its default, what values it takes (a number's range or the
// choices it snaps to, a list of choices, free text) and its doc line. The widgets' attributes, the
// page's URL and embed.html's parameters (parseState), the controls' option lists (ap-controls) and
// the attribute reference (catalog.js, the README's and the gallery's tables) all read it.
// layer and head go up to the core's largest model (64 layers; 64 heads of d_k 64 at d_model 4096);
// within a model the widgets keep them to its own layers and heads (view.js layerFor / headFor;
// models.js switchesFor keeps heads and pos to the core's model.switchChoices) and say so (widget.js).
export const SETTINGS = {
  text: {
    default: DEFAULT_TEXT,
    values: `any text (≤ ${MAX_TEXT_CHARS} characters; each model reads at most its own context in tokens)`,
    doc: 'The sentence to run. The English model reads any text (byte-level pieces); a word-level model writes <unk> for a word it does not know.',
  },
  model: {
    default: DEFAULT_MODEL,
    values: [DEFAULT_MODEL, ...TRAINED_NAMES.filter((n) => n !== DEFAULT_MODEL), 'random']
      .map((n) => `'${n}'${n === DEFAULT_MODEL ? ' (default)' : ''}`)
      .join(' | '),
    doc: 'One of the trained models shipped with the bundle, or seeded random weights (the widget then says so in one line).',
  },
  preset: {
    default: '',
    values: "a preset id, e.g. 'softmax.the-cat-sat'",
    doc: "One of the notes' worked examples (ap.presets.list()); overrides text and model.",
  },
  seed: {
    default: RANDOM_DEFAULTS.seed,
    number: { min: 0, max: 1e9, integer: true },
    values: 'integer',
    doc: 'Seed of the random weights.',
  },
  // d_model of the random model: even (positions pair dimensions), one of the picker's sizes.
  dmodel: {
    default: RANDOM_DEFAULTS.dModel,
    number: { min: 4, max: 64, integer: true, choices: [4, 8, 16, 32, 64] },
    doc: 'd_model of the random model.',
  },
  layers: {
    default: RANDOM_DEFAULTS.nLayers,
    number: { min: 1, max: 6, integer: true },
    doc: 'Layers of the random model.',
  },
  arch: {
    default: RANDOM_DEFAULTS.arch,
    choices: ['decoder', 'encoder', 'encoder-decoder'],
    labels: ['decoder-only (GPT-like)', 'encoder-only (BERT-like)', 'encoder-decoder'],
    doc: 'Architecture of the random model.',
  },
  tokenizer: {
    default: RANDOM_DEFAULTS.tokenizer,
    choices: ['word', 'char'],
    labels: ['words', 'characters'],
    doc: 'Tokenizer of the random model.',
  },
  layer: {
    default: 0,
    number: { min: 0, max: 63, integer: true },
    values: 'integer',
    doc: 'Which layer the view shows.',
  },
  head: {
    default: 0,
    number: { min: 0, max: 63, integer: true },
    values: 'integer',
    doc: 'Which head the view shows.',
  },
  step: { default: '', values: "a stage id, e.g. 'weights'", doc: "The stepper's current step." },
  // '' = the model's own setting.
  causal: { default: '', choices: ['', 'on', 'off'], doc: 'Force the causal mask on or off.' },
  scale: { default: '', choices: ['', 'on', 'off'], doc: 'Divide scores by √d_k or not.' },
  heads: {
    default: '',
    number: { min: 1, max: 64, integer: true },
    values: 'integer dividing d_model',
    doc: 'Number of heads.',
  },
  // The core's positional kinds (config.hpp PosKind). A model switches among the weight-free ones
  // (none, sinusoidal, rope) when its own is weight-free; learned and relative are only a model's own.
  pos: {
    default: '',
    choices: ['', 'none', 'sinusoidal', 'rope', 'learned', 'relative'],
    doc: 'Positional encoding.',
  },
  norm: {
    default: '',
    choices: ['', 'post', 'pre'],
    labels: ["the model's own", 'post-norm (the notes)', 'pre-norm'],
    doc: 'Post-norm (as in the notes) or pre-norm.',
  },
  // Today's parts (docs/design.md): what a model can take is the core's model.switchChoices; a
  // value it cannot take leaves the model's own (models.js switchesFor).
  normkind: {
    default: '',
    choices: ['', 'layernorm', 'rmsnorm'],
    labels: ["the model's own", 'LayerNorm', 'RMSNorm'],
    doc: 'LayerNorm or RMSNorm (no mean, no bias).',
  },
  kvheads: {
    default: '',
    number: { min: 1, max: 64, integer: true },
    values: 'integer dividing the number of heads',
    doc: 'Number of K/V heads (grouped-query attention; 1 is multi-query).',
  },
  window: {
    default: 0,
    number: { min: 0, max: 4096, integer: true },
    values: 'integer (0: no window)',
    doc: 'Sliding-window attention: each query sees at most this many keys, itself included (decoders only).',
  },
};

/** Names of state fields (attributes and URL parameters). */
export const STATE_KEYS = Object.keys(SETTINGS);

export const DEFAULTS = Object.fromEntries(STATE_KEYS.map((k) => [k, SETTINGS[k].default]));

/** The numeric state fields and their ranges (readNumber's spec). */
export const NUMBER_FIELDS = Object.fromEntries(
  STATE_KEYS.filter((k) => SETTINGS[k].number).map((k) => [k, SETTINGS[k].number]),
);

const CHOICES = Object.fromEntries(STATE_KEYS.filter((k) => SETTINGS[k].choices).map((k) => [k, SETTINGS[k].choices]));

/** A setting's values as the attribute reference writes them ("'' | 'on' | 'off'", "1..6"). */
export function valuesOf(key) {
  const s = SETTINGS[key];
  if (s.values) return s.values;
  if (s.choices) return s.choices.map((c) => `'${c}'`).join(' | ');
  const n = s.number;
  if (n.choices) return n.choices.join(' | ');
  return `${n.even ? 'even integer ' : ''}${n.min}..${n.max}`;
}

/** [{ value, label }] of a setting with a list of values (the controls' selects). */
export function optionsOf(key) {
  const s = SETTINGS[key];
  if (s.choices) return s.choices.map((value, i) => ({ value, label: s.labels?.[i] ?? value }));
  const n = s.number;
  if (!n.choices && n.max - n.min > 100) throw new Error(`${key} is a number from ${n.min} to ${n.max}, not a list`);
  const values = n.choices || Array.from({ length: n.max - n.min + 1 }, (_, i) => n.min + i);
  return values.map((value) => ({ value, label: String(value) }));
}

/**
 * A number from an attribute or a URL value, kept within `spec` ({ min, max, integer, even, power2,
 * choices }): { value, why }, `why` saying what was wrong with `raw` (null: nothing). Absent or empty:
 * `fallback`. Not a number: `fallback`. Out of range (Infinity too): the nearest end. integer: rounded;
 * even: the even number below; power2: the nearest power of two; choices: the nearest of them.
 */
export function readNumber(raw, { min, max, integer = false, even = false, power2 = false, choices }, fallback) {
  if (raw === undefined || raw === null) return { value: fallback, why: null };
  const text = String(raw).trim();
  if (text === '') return { value: fallback, why: null };
  const n = Number(text);
  if (Number.isNaN(n)) return { value: fallback, why: 'is not a number' };
  let value = n;
  let why = null;
  if (Number.isFinite(n)) {
    if (power2 && n > 0 && 2 ** Math.round(Math.log2(n)) !== n) {
      value = 2 ** Math.round(Math.log2(n));
      why = 'is not a power of two';
    } else if (integer && !Number.isInteger(n)) {
      value = Math.round(n);
      why = 'is not a whole number';
    }
    if (even && value % 2 !== 0) {
      value -= 1;
      why = 'is not an even number';
    }
  }
  if (!(value >= min)) value = min;
  else if (!(value <= max)) value = max;
  else if (choices && !choices.includes(value)) {
    const nearest = choices.reduce((a, c) => (Math.abs(c - value) < Math.abs(a - value) ? c : a));
    return { value: nearest, why: `is not one of ${choices.join(', ')}` };
  } else return { value, why };
  return { value, why: `is out of range (${min} to ${max})` };
}

/**
 * The console warning for a value that was clamped or ignored: names `where` (the element or the
 * URL), the attribute, the value (its first 40 characters, if longer) and what was used instead.
 */
export function valueWarning(where, name, raw, why, used) {
  const text = String(raw);
  const shown = text.length > 40 ? `"${text.slice(0, 40)}…" (${text.length} characters)` : `"${text}"`;
  return `Attention Playground: ${where} ${name}=${shown} ${why}; using ${used}.`;
}

/**
 * A clean state from raw strings (attributes or URL values). A number out of its range is clamped
 * to it, anything else that is not valid falls back to the default; `issues` (a Map), if given,
 * gets name -> { raw, why, used } for each number that was not taken as it was.
 */
export function parseState(raw = {}, issues = null) {
  const s = { ...DEFAULTS };
  for (const key of STATE_KEYS) {
    const v = raw[key];
    if (v === undefined || v === null) continue;
    if (NUMBER_FIELDS[key]) {
      const { value, why } = readNumber(v, NUMBER_FIELDS[key], DEFAULTS[key]);
      s[key] = value;
      if (why && issues) issues.set(key, { raw: v, why, used: value === '' ? "the model's own" : String(value) });
    } else if (CHOICES[key]) {
      if (CHOICES[key].includes(String(v))) s[key] = String(v);
    } else if (key === 'model') {
      // 'hf:<name>': a Hugging Face folder the student opened in this page (models.js).
      if (v === 'random' || TRAINED_NAMES.includes(v) || isPretrainedKey(v)) s.model = v;
    } else {
      s[key] = String(v).slice(0, MAX_TEXT_CHARS);
    }
  }
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
    normKind: s.normkind || undefined,
    nKvHeads: s.kvheads === '' ? undefined : Number(s.kvheads),
    window: s.window || undefined,
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

/**
 * State fields and hide flags from a URL's query string; the concept or chapter from its hash.
 * `issues`: name -> { raw, why, used } for each number parseState clamped or ignored.
 */
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
  const issues = new Map();
  const state = parseState(raw, issues);
  return { raw, state, issues, hide, concept: hash.get('concept') || '', chapter: hash.get('chapter') || '' };
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
