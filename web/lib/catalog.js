// What a course page can put on a widget: the attributes every widget understands, and per
// widget its tag, concept, title and own extra attributes. The gallery (examples/gallery.html)
// and the README are written from this list.
import { CHAPTERS, CONCEPTS } from './concepts.js';
import { DEFAULTS, MAX_TEXT_CHARS } from './state.js';

/** Attributes every view widget observes (the stepper too). */
export const COMMON_ATTRIBUTES = [
  {
    name: 'text',
    values: `any text (≤ ${MAX_TEXT_CHARS} characters; each model reads at most its own context in tokens)`,
    doc: 'The sentence to run. The English model reads any text (byte-level pieces); a word-level model writes <unk> for a word it does not know.',
  },
  {
    name: 'preset',
    values: "a preset id, e.g. 'softmax.the-cat-sat'",
    doc: "One of the notes' worked examples (ap.presets.list()); overrides text and model.",
  },
  {
    name: 'model',
    values: "'english' (default) | 'grammar' | 'sort' | 'reverse' | 'dates' | 'random'",
    doc: 'One of the trained models shipped with the bundle, or seeded random weights (the widget then says so in one line).',
  },
  { name: 'arch', values: "'decoder' | 'encoder' | 'encoder-decoder'", doc: 'Architecture of the random model.' },
  { name: 'tokenizer', values: "'word' | 'char'", doc: 'Tokenizer of the random model.' },
  { name: 'seed', values: 'integer', doc: 'Seed of the random weights.' },
  { name: 'dmodel', values: 'even integer 2..64', doc: 'd_model of the random model.' },
  { name: 'layers', values: '1..6', doc: 'Layers of the random model.' },
  { name: 'layer', values: 'integer', doc: 'Which layer the view shows.' },
  { name: 'head', values: 'integer', doc: 'Which head the view shows.' },
  { name: 'step', values: "a stage id, e.g. 'weights'", doc: "The stepper's current step." },
  { name: 'causal', values: "'' | 'on' | 'off'", doc: 'Force the causal mask on or off.' },
  { name: 'scale', values: "'' | 'on' | 'off'", doc: 'Divide scores by √d_k or not.' },
  { name: 'heads', values: 'integer dividing d_model', doc: 'Number of heads.' },
  { name: 'pos', values: "'' | 'none' | 'sinusoidal' | 'rope'", doc: 'Positional encoding.' },
  { name: 'norm', values: "'' | 'post' | 'pre'", doc: 'Post-norm (as in the notes) or pre-norm.' },
  {
    name: 'hide',
    values: "comma list, e.g. 'text,presets'",
    doc: "Controls to hide: text (the widget's own text box), presets (the notes' example buttons), controls (all of its sliders, selects and buttons), and any name listed under the widget (stepper: layer, head).",
  },
  { name: 'height', values: 'pixels', doc: 'Maximum height; the widget scrolls inside it.' },
  {
    name: 'theme',
    values: "'light' | 'dark'",
    doc: "Fix the palette (default: the reader's colour scheme). Colours, font and size also follow --ap-* CSS custom properties.",
  },
];

/** Events a widget dispatches (bubbling, composed: a page can listen on document). */
export const EVENTS = [
  { name: 'ap-rendered', detail: '{ concept }', doc: 'The widget drew new numbers.' },
  {
    name: 'ap-cell-select',
    detail: '{ name, row, col, value }',
    doc: 'The reader selected a cell of a matrix (click or arrow keys).',
  },
  { name: 'ap-step-change', detail: '{ step, index, name, layer, head }', doc: '<ap-stepper> moved to another step.' },
  {
    name: 'ap-state-change',
    detail: '{ patch }',
    doc: 'The widget asks for a state change (a preset button, its text box). Call preventDefault() to handle it yourself; otherwise the widget applies it to its own attributes.',
  },
  {
    name: 'ap-goto-step',
    detail: '{ step }',
    doc: '<ap-block>: the reader asked to open one of its stages in the stepper (the playground page shows the recap there).',
  },
  {
    name: 'ap-training-progress',
    detail: '{ step, loss, accuracy }',
    doc: '<ap-training>: a progress report from the training worker (accuracy is undefined where the task has none).',
  },
  { name: 'ap-quiz-answer', detail: '{ question, correct }', doc: '<ap-quiz>: the reader checked an answer.' },
];

/** Every widget: [{ tag, id, chapter, chapterTitle, title, extra: [attribute names] }]. */
export function widgetList() {
  const base = new Set([...Object.keys(DEFAULTS), 'hide', 'height', 'theme']);
  const entry = (tag, id, chapter, title) => {
    const cls = customElements.get(tag);
    const extra = cls ? cls.observedAttributes.filter((a) => !base.has(a)) : [];
    return {
      tag,
      id,
      chapter,
      chapterTitle: CHAPTERS.find((c) => c.id === chapter)?.title || '',
      title,
      extra,
      textInput: cls ? cls.textInput !== false : true,
    };
  };
  return [
    entry('ap-stepper', 'stepper', '', 'Step through the forward pass'),
    ...CONCEPTS.map((c) => entry(`ap-${c.id}`, c.id, c.chapter, c.title)),
  ];
}
