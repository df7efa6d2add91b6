// The base of every concept widget: a custom element with a shadow root, configured by the
// state attributes of lib/state.js (text, model, preset, layer, head, switches...), that
// recomputes when they change. Rendering is batched in a microtask (many attributes set at once
// recompute once) and deferred while the widget is off screen (a long page stays fast).
// Subclasses set `static concept` and implement build() once and render(run, state).
import { adoptStyles } from './styles.js';
import { el, emit, errorText, keyboardScrollable } from './dom.js';
import { conceptById } from './concepts.js';
import { MAX_TEXT_CHARS, parseState, readNumber, runSpec, STATE_KEYS, valueWarning } from './state.js';
import { runFor } from './runs.js';
import { downloadsNow, onDownloadProgress } from './models.js';
import { HeatmapPool, resetTheme } from './heatmap.js';
import { RESERVE, RESERVE_WIDTHS } from './reserve.js';
import { headsShownBy, reslicedHeads, reslicedLine, untrainedLine, untrainedSwitches } from './heads-shown.js';

const BASE_ATTRS = [...STATE_KEYS, 'hide', 'height', 'theme'];
// Every setting a view draws from (the stepper's step is the stepper's own).
const RENDER_KEYS = STATE_KEYS.filter((k) => k !== 'step');
// height="<px>": at most a million px (a taller box is no limit at all); 0 or less sets none.
const HEIGHT = { min: 0, max: 1e6 };
const megabytes = (bytes) => (bytes / 2 ** 20).toFixed(1);
const warned = new Set(); // the attribute warnings said on this page (warnAttribute)
let firstRender = false;

export class ApWidget extends HTMLElement {
  /** docs/concepts.md id, e.g. 'scores'. */
  static concept = '';
  /** State defaults of this widget that differ from the page's (e.g. a preset). */
  static defaults = {};
  /** Extra observed attributes of a subclass. */
  static extraAttributes = [];
  /** Does the widget show the state's text (and so offer its own text box, hide="text")? */
  static textInput = true;
  // A view that does not read the page's text says so in one line (ownInput: why, and what it
  // reads instead) on a page whose controls bar sets the text of the other views.
  static ownInput = '';

  static get observedAttributes() {
    return [...BASE_ATTRS, ...this.extraAttributes];
  }

  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
    adoptStyles(this.shadowRoot);
    this._built = false;
    this._pending = false;
    this._visible = false;
    this._dirty = true;
    this._renderedKey = null;
    this._ioSeen = false;
    this._vis = new IntersectionObserver(
      (entries) => {
        this._ioSeen = true;
        this._visible = entries[entries.length - 1].isIntersecting;
        // Drawn and out of sight: the view takes its own height now (nothing the reader sees moves).
        if (!this._visible && this._draws > 0 && this.body) this.body.style.minHeight = '';
        if (this._visible && this._dirty) this.schedule();
      },
      { rootMargin: '100px 0px' },
    );
    // A view builds its own DOM (build()) when it comes within a screen and a half of the
    // viewport, or in idle time after the page has loaded, whichever is first: a chapter holds
    // 10 to 30 views, and building them all at once was the longest task of a phone's first load.
    this._near = new IntersectionObserver(
      (entries) => {
        if (entries[entries.length - 1].isIntersecting) this._buildNow();
      },
      { rootMargin: '150% 0px' },
    );
    // A box that overflows can be scrolled with the keyboard: checked when the widget's size
    // changes (new content, a narrower window) and after each draw.
    // Until it draws, the view keeps the space it will take (lib/reserve.js), so that nothing
    // below it jumps when the module and the model arrive. Read on the first layout, before paint.
    this._draws = 0;
    this._size = new ResizeObserver((entries) => {
      if (this._draws === 0 && this.body) this._reserve(entries[entries.length - 1].contentRect.width);
      if (this._built) keyboardScrollable(this.shadowRoot);
    });
  }

  connectedCallback() {
    const concept = this.constructor.concept;
    if (concept && !this.dataset.concept) this.dataset.concept = concept;
    if (!this.root) {
      const info = conceptById(concept);
      this.titleNode = el('h3', { text: this.constructor.title || info?.title || concept });
      this.body = el('div', { className: 'body' });
      // Its own text box, for a widget on its own in a course page (the playground page hides it:
      // its controls bar sets the text of every widget). Typing leaves a preset for the text.
      this.textField = null;
      if (this.constructor.textInput) {
        let timer = null;
        this.textInputNode = el('input', {
          type: 'text',
          spellcheck: false,
          maxLength: MAX_TEXT_CHARS,
          attrs: { 'aria-label': 'Text to run the model on' },
          on: {
            input: () => {
              clearTimeout(timer);
              timer = setTimeout(() => this.requestState({ text: this.textInputNode.value, preset: '' }), 250);
            },
          },
        });
        this.textField = el(
          'label',
          { className: 'field own-text' },
          el('span', { text: 'Your text' }),
          this.textInputNode,
        );
      }
      this.status = el('p', { className: 'note', attrs: { role: 'status' } });
      // One line when the view runs on random weights: its patterns were not learned.
      this.randomNote = el('p', { className: 'random-note', hidden: true });
      // One line when the view shows heads the heads switch cut from a model trained with others.
      this.reslicedNote = el('p', { className: 'resliced-note', hidden: true });
      // One line when the page's switches run a trained model in a way it was never trained.
      this.untrainedNote = el('p', { className: 'resliced-note untrained-note', hidden: true });
      this.ownNote = el('p', { className: 'own-input', hidden: true });
      this.root = el(
        'section',
        { className: 'widget', part: 'widget' },
        el('header', {}, this.titleNode, concept ? el('span', { className: 'concept-id', text: `#${concept}` }) : null),
        this.ownNote,
        this.textField,
        this.randomNote,
        this.reslicedNote,
        this.untrainedNote,
        this.body,
        this.status,
      );
      if (concept) this.root.dataset.concept = concept;
      // Until its first drawing (or failure) only the view's lead shows in its body: the rest is
      // laid out but hidden, so parts filled at the first drawing do not move the ones below them
      // in front of the reader (a layout shift) while the body keeps its reserved height.
      this.root.classList.add('undrawn');
      this.shadowRoot.append(this.root);
      this.applyHides(); // a hidden text box takes no space from the start
      reserveSoon(this);
    }
    if (!this._built) {
      this._near.observe(this);
      buildSoon(this);
    }
    this._vis.observe(this);
    this._size.observe(this);
    this.schedule();
  }

  /** Builds the view's own DOM now if it has not been (near the viewport, in idle time, or asked). */
  _buildNow() {
    if (this._built || !this.root) return;
    this._built = true;
    this._near.disconnect();
    this.build();
    foldLeads(this.root);
    this.applyHides();
    this._showOwnInput(); // before the view draws: the line does not push its drawing down later
    if (this._dirty) this.schedule();
  }

  // The line saying this view does not read the page's text, on a page with a controls bar.
  _showOwnInput() {
    const own = this.ownInputText();
    this.ownNote.textContent = own;
    this.ownNote.hidden = !own || !document.querySelector('ap-controls');
  }

  /** Which measured view of lib/reserve.js this element's height follows (null: none). */
  reserveKey() {
    // Opened on a worked example of the notes: that example's own measurement, if there is one.
    const preset = this.getAttribute('preset');
    const key = preset && `${this.localName}[preset="${preset}"]`;
    return key && RESERVE[key] ? key : this.localName;
  }

  // Reserves the height this view will have at content width `width` until it first draws.
  _reserve(width) {
    const key = this.reserveKey();
    const h = key ? reservedHeight(key, width) : 0;
    this.body.style.minHeight = h ? `${h}px` : '';
  }

  disconnectedCallback() {
    this._vis.disconnect();
    this._near.disconnect();
    this._size.disconnect();
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue) return;
    if (name === 'theme') resetTheme(); // canvases read their colours again on the next draw
    if (name === 'height') {
      // A number of px (parseInt read "1e9" as 1 px), kept within HEIGHT; not a number: no limit.
      const { value: limit, why } = readNumber(newValue, HEIGHT, 0);
      if (why) this.warnAttribute('height', newValue, why, limit ? `${limit} px` : 'no height limit');
      this.style.maxHeight = limit ? `${limit}px` : '';
      this.style.overflow = limit ? 'auto' : '';
    }
    this._dirty = true;
    this.schedule();
  }

  /** The state of this widget: class defaults, then attributes. */
  get state() {
    return this.#readState(null);
  }

  // `issues` (a Map): the numbers parseState clamped or ignored, reported once drawn (#report).
  #readState(issues) {
    const raw = { ...this.constructor.defaults };
    for (const k of STATE_KEYS) if (this.hasAttribute(k)) raw[k] = this.getAttribute(k);
    return parseState(raw, issues);
  }

  /**
   * The number attribute `name` kept within `spec` ({ min, max, integer, even, power2 }; see
   * state.js readNumber), or `fallback` when it is absent or empty. A value out of range is
   * clamped, one that is not a number ignored (the fallback), each with one console warning.
   */
  numberAttribute(name, spec, fallback) {
    const raw = this.getAttribute(name);
    const { value, why } = readNumber(raw, spec, fallback);
    if (why) this.warnAttribute(name, raw, why, value);
    return value;
  }

  /**
   * One console warning for attribute `name` whose value `raw` was not used as it was (`why`), naming
   * the element, the attribute, the value (a prefix of a long one) and what was `used`. Said once per
   * page for each attribute, value and outcome: a widget redraws often, and the playground page gives
   * every view the same layer and head.
   */
  warnAttribute(name, raw, why, used) {
    const key = JSON.stringify([name, raw, why, used]);
    if (warned.has(key)) return;
    warned.add(key);
    console.warn(valueWarning(`<${this.localName}>`, name, raw, why, used));
  }

  // Once a run is drawn: the state's numbers that were clamped or ignored (parseState), and the
  // layer, head and heads the run could not take as asked (kept to the model's own layers and heads
  // by view.js layerFor / headFor, and to the core's switchChoices by models.js switchesFor).
  #report(run) {
    const issues = this._issues;
    if (!issues) return;
    this._issues = null;
    const state = this.state;
    const config = run?.config;
    if (config && (run.kind === 'model' || run.kind === 'preset')) {
      const within = (name, count, what) => {
        if (!this.hasAttribute(name) || !(count > 0) || state[name] <= count - 1) return;
        issues.set(name, {
          raw: this.getAttribute(name),
          why: `is out of range for this ${run.kind === 'model' ? 'model' : 'example'} (${count} ${what}: 0 to ${count - 1})`,
          used: String(count - 1),
        });
      };
      if (run.kind === 'model') within('layer', config.nLayers, 'layers');
      within('head', config.nHeads, 'heads');
      if (state.heads !== '' && state.heads !== config.nHeads) {
        const choices = run.kind === 'model' ? run.model?.switchChoices?.nHeads : run.preset?.headChoices;
        issues.set('heads', {
          raw: this.getAttribute('heads'),
          why: `is not a number of heads this ${run.kind === 'model' ? 'model' : 'example'} can be split into${choices ? ` (${choices.join(', ')})` : ''}`,
          used: `its own ${config.nHeads}`,
        });
      }
    }
    for (const [name, i] of issues) this.warnAttribute(name, i.raw, i.why, i.used);
  }

  /**
   * hide="..." for any widget: "controls" hides its own controls rows (sliders, selects,
   * buttons), "presets" the notes' example buttons, "text" its text box, and any name a widget
   * gives an element with data-control="<name>" hides that element.
   */
  applyHides() {
    if (this.textField) this.textField.hidden = this.hides('text');
    const all = this.hides('controls');
    for (const node of this.shadowRoot.querySelectorAll('.controls:not(.presets)'))
      node.classList.toggle('ap-hide', all);
    for (const node of this.shadowRoot.querySelectorAll('[data-control]'))
      node.classList.toggle('ap-hide', this.hides(node.dataset.control));
  }

  /** Is control `name` hidden (hide="text,model" attribute)? */
  hides(name) {
    return (this.getAttribute('hide') || '').split(/[\s,]+/).includes(name);
  }

  /**
   * Asks for a state change (a preset, a switch...). On the playground page the page applies it
   * to every widget; a widget on its own (no page handling the event) applies it to itself.
   */
  requestState(patch) {
    const ev = new CustomEvent('ap-state-change', {
      detail: { patch },
      bubbles: true,
      composed: true,
      cancelable: true,
    });
    if (this.dispatchEvent(ev)) {
      for (const [k, v] of Object.entries(patch)) this.setAttribute(k, String(v));
    }
  }

  /**
   * The heatmap of this widget in `slot`, showing `m`. The element is created once and reused:
   * a new element per render would be laid out (and observed for resizing) from scratch.
   */
  hm(slot, m, attrs = {}) {
    if (!this._heatmaps) this._heatmaps = new HeatmapPool();
    return this._heatmaps.get(slot, m, attrs);
  }

  /** Makes `nodes` the children of `container`, touching the DOM only if they differ. */
  place(container, ...nodes) {
    const list = nodes.flat().filter(Boolean);
    const kids = container.children;
    if (kids.length === list.length && list.every((n, i) => kids[i] === n)) return;
    container.replaceChildren(...list);
  }

  /** Re-render soon (once per microtask, only when visible). */
  schedule() {
    this._dirty = true;
    if (this._pending || !this._built) return;
    this._pending = true;
    queueMicrotask(() => {
      this._pending = false;
      // Off screen (or not yet measured): the IntersectionObserver calls schedule() again
      // when the widget comes near the viewport.
      if (!this._ioSeen || !this._visible) return;
      this.update();
    });
  }

  /** Re-render now with the current attributes (also called by local controls). */
  update() {
    this._buildNow(); // called by a page before the view came near the viewport
    this._dirty = false;
    const issues = new Map();
    const state = this.#readState(issues);
    this._issues = issues;
    // Before computing: a widget whose computation fails (empty text...) still hides what it was
    // told to; after drawing again for the controls render() made.
    this.applyHides();
    this._showOwnInput();
    if (this.textField) {
      const shown = state.preset ? '' : state.text;
      if (this.textInputNode.value !== shown && this.shadowRoot.activeElement !== this.textInputNode)
        this.textInputNode.value = shown;
      this.textInputNode.placeholder = state.preset ? `preset: ${state.preset}` : '';
    }
    let result;
    try {
      result = this.compute(state);
    } catch (err) {
      this.fail(err);
      return;
    }
    if (result && typeof result.then === 'function') {
      const token = (this._token = {});
      // While a model file downloads, the line says which and how far it has come (a slow network).
      const showLoading = () => {
        if (this._token !== token) return;
        const d = downloadsNow();
        this.status.textContent = d.length
          ? `Loading ${d.map(({ name, loaded, total }) => `the ${name} model: ${megabytes(loaded)}${total ? ` of ${megabytes(total)}` : ''} MB`).join('; ')}…`
          : 'Loading…';
      };
      showLoading();
      const stop = onDownloadProgress(showLoading);
      result.then(
        (r) => {
          stop();
          if (this._token === token) this.#draw(r, state);
        },
        (err) => {
          stop();
          if (this._token === token) this.fail(err);
        },
      );
    } else {
      this._token = null;
      this.#draw(result, state);
    }
  }

  // Private (#): a subclass method of the same name cannot break rendering.
  #draw(run, state) {
    try {
      if (run && run.error) throw run.error;
      this.clearError();
      this.root.classList.remove('undrawn');
      this.#report(run);
      const heads = headsShownBy(() => this.render(run, state));
      this._showOwnInput(); // again: what the view runs on is known once it has computed
      // The first drawing keeps the reserved height while the view is in sight (no shrinking
      // under the reader's eyes); once out of sight, or from the second drawing on (a change the
      // reader made), the view takes its own height.
      if (++this._draws === 2 || !this._visible) this.body.style.minHeight = '';
      const random = run?.entry?.kind === 'random' ? run.entry : null;
      this.randomNote.hidden = !random;
      if (random)
        this.randomNote.textContent = `Random weights (seed ${random.spec.seed}): nothing here was learned, so these patterns mean nothing yet.`;
      const resliced = reslicedHeads(heads);
      this.reslicedNote.hidden = !resliced;
      this.reslicedNote.textContent = resliced ? reslicedLine(resliced) : '';
      if (resliced) this.dataset.resliced = `${resliced.trained}:${resliced.now}`;
      else delete this.dataset.resliced;
      const untrained = untrainedSwitches(run);
      this.untrainedNote.hidden = !untrained.length;
      this.untrainedNote.textContent = untrained.length ? untrainedLine(untrained) : '';
      if (untrained.length) this.dataset.untrained = untrained.join('; ');
      else delete this.dataset.untrained;
      this.applyHides();
      this.dataset.text = state.preset ? '' : state.text;
      this.dataset.preset = state.preset;
      this.dataset.rendered = this.renderKey(state);
      if (!firstRender) {
        firstRender = true;
        performance.mark?.('ap:first-render');
      } // for the page benchmark
      emit(this, 'ap-rendered', { concept: this.constructor.concept });
      requestAnimationFrame(() => keyboardScrollable(this.shadowRoot));
    } catch (err) {
      this.fail(err);
    }
  }

  /**
   * Shows an error the user caused (too long a text, a model that cannot do this...) in place of
   * the drawing, which is of other input: the drawing keeps its space (the page does not jump
   * while the reader types) but is hidden, its own controls stay usable (widget.css), and the
   * next drawing brings it back.
   */
  fail(err) {
    this.root.classList.remove('undrawn');
    this.#report(null);
    const message = errorText(err);
    this.status.textContent = '';
    this.root.classList.add('failed');
    if (this.status.parentNode === this.root) this.body.before(this.status);
    this.status.append(el('span', { className: 'error', text: message }));
    this.dataset.error = message;
    this.dataset.rendered = this.renderKey(this.state);
  }

  /** Takes away what fail() showed: the drawing is back, the status line below it. */
  clearError() {
    this.status.textContent = '';
    this.root.classList.remove('failed');
    if (this.status.parentNode === this.root) this.body.after(this.status);
    delete this.dataset.error;
  }

  /** A string that changes whenever what is shown changes (tests wait for it). */
  renderKey(state) {
    return JSON.stringify(RENDER_KEYS.map((k) => state[k]));
  }

  /** The default computation: the run of the widget's state (lib/runs.js). */
  compute(state) {
    return runFor(runSpec(state));
  }

  /** The one line saying what this view reads instead of the page's text ('' when it reads it). */
  ownInputText() {
    return this.constructor.ownInput;
  }

  /** Builds the widget's fixed DOM once (subclasses). */
  build() {}

  /** Draws `run` for `state` (subclasses). */
  render() {}
}

/** The height to reserve for widget `tag` at content width `width` (lib/reserve.js, interpolated), or 0. */
export function reservedHeight(tag, width) {
  const hs = RESERVE[tag];
  if (!hs || !(width > 0)) return 0;
  const ws = RESERVE_WIDTHS;
  if (width <= ws[0]) return hs[0];
  for (let i = 1; i < ws.length; i++) {
    if (width <= ws[i])
      return Math.round(hs[i - 1] + ((hs[i] - hs[i - 1]) * (width - ws[i - 1])) / (ws[i] - ws[i - 1]));
  }
  return hs[hs.length - 1];
}

// The widgets connected in one task reserve their height together, in a microtask (before the
// frame is laid out and painted): all widths are read in one layout, then all heights written.
// Reading each width as it connects would lay the page out once per widget (300 ms of a phone's
// main thread for one chapter).
const toReserve = new Set();
function reserveSoon(widget) {
  if (!toReserve.size) {
    queueMicrotask(() => {
      const list = [...toReserve].filter((w) => w._draws === 0 && w.isConnected);
      toReserve.clear();
      const widths = list.map((w) => w.clientWidth);
      list.forEach((w, i) => w._reserve(widths[i]));
    });
  }
  toReserve.add(widget);
}

// On a phone a view's lead paragraph keeps three lines until its "More" button opens it (the
// view's picture comes up sooner); the button shows only when the lead has more than three lines.
const leadSize =
  typeof ResizeObserver === 'function'
    ? new ResizeObserver((entries) => {
        for (const { target } of entries) {
          const more = target.nextElementSibling;
          if (!more?.classList.contains('lead-more')) continue;
          const clamped = target.classList.contains('clamp');
          more.classList.toggle('needed', !clamped || target.scrollHeight > target.clientHeight + 1);
        }
      })
    : null;
function foldLeads(root) {
  if (!leadSize) return;
  for (const lead of root.querySelectorAll('p.lead')) {
    lead.classList.add('clamp');
    const more = el('button', {
      type: 'button',
      className: 'lead-more',
      text: 'More',
      attrs: { 'aria-expanded': 'false' },
      on: {
        click: () => {
          const open = lead.classList.toggle('clamp');
          more.textContent = open ? 'More' : 'Less';
          more.setAttribute('aria-expanded', String(!open));
        },
      },
    });
    lead.after(more);
    leadSize.observe(lead);
  }
}

// Views not built yet are built one after another in idle time, each in its own task (lib/widget.js
// connectedCallback), so that a page's views are all there soon after load without one long task.
const toBuild = new Set();
let building = false;
const whenIdle =
  typeof requestIdleCallback === 'function'
    ? (fn) => requestIdleCallback(fn, { timeout: 2000 })
    : (fn) => setTimeout(() => fn({ timeRemaining: () => 0 }), 30);
function buildSoon(widget) {
  toBuild.add(widget);
  if (building) return;
  building = true;
  whenIdle(function next(deadline) {
    // At least one view per idle period, more while the period lasts.
    do {
      const w = toBuild.values().next().value;
      if (!w) break;
      toBuild.delete(w);
      if (w.isConnected) w._buildNow();
    } while (deadline.timeRemaining() > 8);
    if (toBuild.size) whenIdle(next);
    else building = false;
  });
}

/** Registers a widget class under "ap-<concept>" unless already defined. */
export function define(cls, tag = `ap-${cls.concept}`) {
  if (!customElements.get(tag)) customElements.define(tag, cls);
  return cls;
}
