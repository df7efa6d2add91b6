// Types for dist/attention-playground.js (the widget bundle; `attention-playground/widgets` in the
// npm package). Importing it registers every custom element; it also re-exports the JS API of the
// wasm module (the same one instance the widgets use).
export { load } from '../wasm/index.js';
export type * from '../wasm/index.js';

export interface Chapter { id: string; title: string }
export interface Concept { id: string; chapter: string; title: string }
/** docs/concepts.md chapters A-H and their concepts; each concept id has an element ap-<id>. */
export const CHAPTERS: Chapter[];
export const CONCEPTS: Concept[];
export function conceptById(id: string): Concept | null;

export interface AttributeDoc { name: string; values: string; doc: string }
export interface EventDoc { name: string; detail: string; doc: string }
/** Attributes every widget observes (text, preset, model, layer, head, step, switches, hide, height, theme). */
export const COMMON_ATTRIBUTES: AttributeDoc[];
/** Events widgets dispatch (bubbling and composed). */
export const EVENTS: EventDoc[];
export interface WidgetInfo {
  tag: string; id: string; chapter: string; chapterTitle: string; title: string;
  /** Attributes of this widget beyond COMMON_ATTRIBUTES. */
  extra: string[];
  /** Whether it shows the text (and has its own text box, hide="text"). */
  textInput: boolean;
}
/** Every element of the bundle: <ap-stepper> and ap-<concept id>. */
export function widgetList(): WidgetInfo[];

/** Mounts the widget named by embed.html's URL (?widget=<id>&text=...&<control>_hide=1). */
export function mountEmbed(options?: { root?: Element; search?: string }): HTMLElement | null;

/** The ways to show a widget, as it is now, in another page ("copy embed" on the playground page). */
export interface EmbedCode {
  /** The widget id (ap-<id>), as embed.html's `widget=` and the anywidget module's `widget` trait. */
  widget: string;
  /** The attributes that reproduce the widget's numbers (its state that differs from its defaults). */
  attrs: Record<string, string>;
  /** The bundle's script tag, its stylesheet and the element, for any web page. */
  html: string;
  /** embed.html?widget=<id>&..., and an <iframe> of it, for platforms that allow only iframes. */
  iframeUrl: string;
  iframe: string;
  /** A MyST / Jupyter Book {anywidget} directive: anywidget.js with the state as its JSON body. */
  myst: string;
}
/** `base`: the folder URL of attention-playground.js, embed.html and anywidget.js (default: this bundle's). */
export function embedCode(widget: HTMLElement, options?: { base?: string }): EmbedCode;

export interface CellSelectDetail { name: string; row: number; col: number; value: number }
export interface StepChangeDetail { step: string; index: number; name: string; layer: number | null; head: number }
export interface StateChangeDetail { patch: Record<string, string | number> }

/** The base class of every widget. */
export interface ApWidgetElement extends HTMLElement {
  /** Recompute and redraw now (attribute changes do this by themselves). */
  update(): void;
}

export interface GotoStepDetail { step: string }
export interface TrainingProgressDetail { step: number; loss: number; accuracy?: number }
export interface QuizAnswerDetail { question: string; correct: boolean }

/** The events widgets dispatch (EVENTS): bubbling and composed, so heard on document and window too. */
export interface ApEventMap {
  'ap-cell-select': CustomEvent<CellSelectDetail>;
  'ap-step-change': CustomEvent<StepChangeDetail>;
  'ap-state-change': CustomEvent<StateChangeDetail>;
  'ap-rendered': CustomEvent<{ concept: string }>;
  'ap-goto-step': CustomEvent<GotoStepDetail>;
  'ap-training-progress': CustomEvent<TrainingProgressDetail>;
  'ap-quiz-answer': CustomEvent<QuizAnswerDetail>;
}

declare global {
  interface HTMLElementEventMap extends ApEventMap {}
  interface DocumentEventMap extends ApEventMap {}
  interface WindowEventMap extends ApEventMap {}
  /** Every element the bundle registers (tests/wasm/types.test.js holds this list to the bundle's). */
  interface HTMLElementTagNameMap {
    'ap-stepper': ApWidgetElement;
    'ap-rnn-chain': ApWidgetElement;
    'ap-rnn-vanishing': ApWidgetElement;
    'ap-rnn-cost': ApWidgetElement;
    'ap-birnn': ApWidgetElement;
    'ap-bahdanau': ApWidgetElement;
    'ap-translation': ApWidgetElement;
    'ap-soft-lookup': ApWidgetElement;
    'ap-tokens': ApWidgetElement;
    'ap-embed': ApWidgetElement;
    'ap-context-embeddings': ApWidgetElement;
    'ap-qkv': ApWidgetElement;
    'ap-scores': ApWidgetElement;
    'ap-scale': ApWidgetElement;
    'ap-softmax': ApWidgetElement;
    'ap-weighted-sum': ApWidgetElement;
    'ap-general-form': ApWidgetElement;
    'ap-heads': ApWidgetElement;
    'ap-induction': ApWidgetElement;
    'ap-reshape': ApWidgetElement;
    'ap-concat-wo': ApWidgetElement;
    'ap-head-cost': ApWidgetElement;
    'ap-permutation': ApWidgetElement;
    'ap-sinusoidal': ApWidgetElement;
    'ap-learned-pos': ApWidgetElement;
    'ap-relative': ApWidgetElement;
    'ap-rope': ApWidgetElement;
    'ap-residual': ApWidgetElement;
    'ap-layernorm': ApWidgetElement;
    'ap-ffn': ApWidgetElement;
    'ap-block': ApWidgetElement;
    'ap-causal-mask': ApWidgetElement;
    'ap-encoder-decoder': ApWidgetElement;
    'ap-shifted-right': ApWidgetElement;
    'ap-cross-attention': ApWidgetElement;
    'ap-decoding': ApWidgetElement;
    'ap-sampling': ApWidgetElement;
    'ap-kv-cache': ApWidgetElement;
    'ap-bert-gpt': ApWidgetElement;
    'ap-pretrain-finetune': ApWidgetElement;
    'ap-rmsnorm': ApWidgetElement;
    'ap-swiglu': ApWidgetElement;
    'ap-gqa': ApWidgetElement;
    'ap-sliding-window': ApWidgetElement;
    'ap-quadratic': ApWidgetElement;
    'ap-long-context': ApWidgetElement;
    'ap-model-sizes': ApWidgetElement;
    'ap-comparison': ApWidgetElement;
    'ap-training': ApWidgetElement;
    'ap-quiz': ApWidgetElement;
    /** The playground page's text box, model picker and switches. */
    'ap-controls': HTMLElement;
    /** A matrix drawn as a heatmap (inside the widgets). */
    'ap-heatmap': HTMLElement;
  }
}
