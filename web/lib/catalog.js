// What a course page can put on a widget: the attributes every widget understands, and per
// widget its tag, concept, title and own extra attributes. The gallery (examples/gallery.html)
// and the README are written from this list.
import { CHAPTERS, CONCEPTS } from './concepts.js';
import { DEFAULTS, SETTINGS, STATE_KEYS, valuesOf } from './state.js';

/** Attributes every view widget observes (the stepper too): the state's settings (state.js), then hide, height and theme. */
export const COMMON_ATTRIBUTES = [
  ...STATE_KEYS.map((name) => ({ name, values: valuesOf(name), doc: SETTINGS[name].doc })),
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
