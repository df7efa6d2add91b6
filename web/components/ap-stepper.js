// <ap-stepper>: the whole forward pass, one operation at a time, like a debugger. Next /
// previous buttons, the arrow keys, a scrubber and play / pause walk through the steps of
// lib/steps/; each step is drawn by the StepPanel every view uses (lib/view.js): its formula
// with the shapes filled in, the matrices that go in, the one that comes out, what changed, and
// how any output cell was computed (click it; an input cell offers the step that computed it).
// Attributes: the state of lib/state.js (text, model, preset, layer, head, step, switches).
// Events: 'ap-step-change' { step, index, name, layer, head }, 'ap-cell-select' (from heatmaps).
import { ApWidget, define } from '../lib/widget.js';
import { clamp, el, emit, errorText, fillSelect, shapeText, stepSlider } from '../lib/dom.js';
import { buildSteps } from '../lib/steps/index.js';
import { explainBox } from '../lib/explain.js';
import { randomConfig } from '../lib/models.js';
import { StepPanel } from '../lib/view.js';

const PLAY_MS = 1400;

export class ApStepper extends ApWidget {
  static concept = '';
  static title = 'Step through the forward pass';

  build() {
    this.dataset.view = 'stepper';
    this._index = 0;
    this._steps = [];
    this._timer = null;
    this._head = null;
    this._prev = el('button', {
      type: 'button',
      text: '◀ Prev',
      attrs: { 'aria-keyshortcuts': 'ArrowLeft' },
      on: { click: () => this.go(this._index - 1) },
    });
    this._next = el('button', {
      type: 'button',
      text: 'Next ▶',
      attrs: { 'aria-keyshortcuts': 'ArrowRight' },
      on: { click: () => this.go(this._index + 1) },
    });
    this._play = el('button', {
      type: 'button',
      text: '▶ Play',
      attrs: { 'aria-pressed': 'false' },
      on: { click: () => this.togglePlay() },
    });
    this._scrub = stepSlider('Step', (i) => this.go(i));
    this._count = el('span', { className: 'mono', attrs: { 'aria-live': 'polite' } });
    this._layerSel = el('select', {
      id: 'step-layer',
      on: { change: () => this._jumpLayer(Number(this._layerSel.value)) },
    });
    this._headSel = el('select', {
      id: 'step-head',
      on: {
        change: () => {
          this._head = Number(this._headSel.value);
          this._renderStep();
          this._emitChange();
        },
      },
    });
    this._layerField = el('label', { className: 'field inline' }, el('span', { text: 'Layer' }), this._layerSel);
    this._headField = el('label', { className: 'field inline' }, el('span', { text: 'Head' }), this._headSel);
    this._list = el('div', { className: 'steplist' });
    this._keptNote = el('p', { className: 'note kept-note', hidden: true });
    this._title = el('div', { className: 'step-title', attrs: { 'aria-live': 'polite' } });
    // Weight matrices stay open here: the stepper is where every number of a step is shown.
    this._panel = new StepPanel({ foldWeights: false, onInputCell: (cell) => this._inputCell(cell) });
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Every operation of the model on your text, in order. Use the buttons, the arrow keys or the slider; click any cell of the output to see how it was computed.',
      }),
      // The buttons, the layer and the head on one row, then the step itself; the list of all
      // steps under it: the step's picture is on the recap's first screen (issue 23). The list is
      // open at every width, as tests/tools/reserve.mjs measures it (folded on a phone only, the
      // stepper was shorter than the height it reserved, and the page below it jumped).
      el(
        'div',
        { className: 'stepnav' },
        this._prev,
        this._play,
        this._next,
        this._scrub,
        this._count,
        el('div', { className: 'controls' }, this._layerField, this._headField),
      ),
      this._keptNote,
      this._title,
      this._panel.node,
      el('details', { className: 'steps-details', open: true }, el('summary', { text: 'All steps' }), this._list),
    );
    this.root.addEventListener('keydown', (e) => this._key(e));
  }

  renderKey(state) {
    return `${super.renderKey(state)}|${this._steps[this._index]?.id || ''}`;
  }

  render(run, state) {
    this._run = run;
    // The layer asked for, within the model (widget.js warns about one it does not have).
    const layer = run.kind === 'model' ? clamp(state.layer, 0, run.config.nLayers - 1) : state.layer;
    // The recipe of a random-weights model, so anyone (a test, a student) can rebuild it.
    if (run.entry?.kind === 'random')
      this.dataset.model = JSON.stringify({ config: randomConfig(run.entry.spec), seed: run.entry.spec.seed });
    else delete this.dataset.model;
    // A Hugging Face model keeps one layer in full (runs.js keepFor): say so next to the list.
    const big = run.entry?.kind === 'pretrained' && run.config.nLayers > 1;
    this._keptNote.hidden = !big;
    if (big)
      this._keptNote.textContent = `${run.entry.label}: every step of layer ${layer} is shown; the other ${run.config.nLayers - 1} layers show only their attention weights (softmax) and their output. Pick a layer (or click one of its steps) to see all of its steps.`;
    const prevId = this._steps[this._index]?.id;
    this._steps = run.empty ? [] : buildSteps(run);
    if (!this._steps.length) {
      this._title.textContent = 'Type some text to start.';
      this._panel.io.hidden = true;
      this._panel.formula.replaceChildren();
      this._panel.changed.textContent = '';
      return;
    }
    // Keep the step when only the text or a switch changed; else honour the step attribute.
    const wanted = state.step && state.step !== this._appliedStep ? state.step : prevId || state.step;
    this._appliedStep = state.step;
    let idx = this._steps.findIndex((s) => s.id === wanted);
    if (idx < 0 && wanted && wanted.includes(':')) {
      // The same operation in another layout (e.g. pre-norm reorders a block): match by name and layer.
      const [, inLayer, name] = wanted.split(':');
      idx = this._steps.findIndex((s) => s.name === name && String(s.layer ?? '-') === inLayer);
    } else if (idx < 0 && wanted) {
      // A bare stage name (step="weights", as an instructor writes it): that stage in the layer asked for.
      idx = this._steps.findIndex((s) => s.name === wanted && (s.layer ?? 0) === layer);
      if (idx < 0) idx = this._steps.findIndex((s) => s.name === wanted);
    }
    if (idx < 0 && !prevId && layer > 0) idx = this._steps.findIndex((s) => s.layer === layer);
    // The page's layer changed (another view picked one): go to that layer's first step.
    if (
      this._appliedLayer !== undefined &&
      layer !== this._appliedLayer &&
      this._steps[idx < 0 ? 0 : idx]?.layer !== layer
    ) {
      const first = this._steps.findIndex((s) => s.layer === layer);
      if (first >= 0) idx = first;
    }
    this._appliedLayer = layer;
    this._index = idx < 0 ? 0 : idx;
    const h = run.config.nHeads;
    if (this._head === null || state.head !== this._lastHeadAttr) this._head = state.head;
    this._lastHeadAttr = state.head;
    this._head = clamp(this._head, 0, h - 1);
    if (this._headSel.options.length !== h)
      fillSelect(
        this._headSel,
        Array.from({ length: h }, (_, i) => ({ value: i, label: String(i) })),
      );
    this._headSel.value = String(this._head);
    const layers = [...new Set(this._steps.map((s) => `${s.stack}|${s.layer}`).filter((k) => !k.endsWith('|null')))];
    if (layers.join() !== (this._layerKeys || []).join()) {
      fillSelect(
        this._layerSel,
        layers.map((k) => {
          const [stack, layer] = k.split('|');
          return {
            value: layers.indexOf(k),
            label: `${run.config.arch === 'encoder-decoder' ? `${stack} ` : ''}${layer}`,
          };
        }),
      );
    }
    this._layerKeys = layers;
    this._layerField.hidden = this.hides('layer') || layers.length === 0;
    this._headField.hidden = this.hides('head');
    this._buildList();
    this._scrub.max = String(this._steps.length - 1);
    this._renderStep();
  }

  _buildList() {
    const key = this._steps.map((st) => st.id).join(' ');
    if (key === this._listKey) return; // same steps: keep the buttons
    this._listKey = key;
    // One list of step buttons per layer (input, layer 0, ..., output), each named by its tag.
    const nodes = [];
    let group = null;
    let list = null;
    const encDec = this._run.config.arch === 'encoder-decoder';
    let seenLayer = false;
    this._listButtons = this._steps.map((s, i) => {
      // A step outside the layers is the input before them or the output after them (a decoder's
      // final norm too); an encoder-decoder's are its stacks'.
      seenLayer ||= s.layer !== null;
      const label =
        s.layer !== null
          ? `${encDec ? `${s.stack} ` : ''}layer ${s.layer}`
          : encDec && s.stack
            ? s.stack
            : seenLayer
              ? 'output'
              : 'input';
      if (label !== group) {
        group = label;
        list = el('ul', { attrs: { role: 'list', 'aria-label': `${label} steps` } });
        nodes.push(
          el(
            'div',
            { className: 'step-group' },
            el('span', { className: 'layer-tag', text: `${label}:`, attrs: { 'aria-hidden': 'true' } }),
            list,
          ),
        );
      }
      const b = el('button', {
        type: 'button',
        text: s.short,
        attrs: { 'data-step': s.id },
        on: {
          click: () => {
            // The list is under the step: the step chosen comes into view (its title at least),
            // as a link of a contents list would.
            this.go(i);
            this._title.scrollIntoView({ block: 'nearest' });
          },
        },
      });
      list.append(el('li', {}, b));
      return b;
    });
    this._list.replaceChildren(...nodes);
  }

  /** Goes to step `i` (clamped). */
  go(i) {
    if (!this._steps.length) return;
    const j = clamp(i, 0, this._steps.length - 1);
    if (j === this._index && this._rendered) return;
    this._index = j;
    this._renderStep();
    this._emitChange();
    if (j === this._steps.length - 1) this.stop();
  }

  _emitChange() {
    const s = this._steps[this._index];
    this.dataset.rendered = this.renderKey(this.state);
    emit(this, 'ap-step-change', { step: s.id, index: this._index, name: s.name, layer: s.layer, head: this._head });
  }

  _jumpLayer(k) {
    const [stack, layer] = this._layerKeys[k].split('|');
    const i = this._steps.findIndex((s) => s.stack === stack && String(s.layer) === layer);
    if (i >= 0) this.go(i);
  }

  togglePlay() {
    if (this._timer) this.stop();
    else {
      if (this._index >= this._steps.length - 1) this.go(0);
      this._timer = setInterval(() => this.go(this._index + 1), PLAY_MS);
      this._play.textContent = '❚❚ Pause';
      this._play.setAttribute('aria-pressed', 'true');
    }
  }

  stop() {
    if (this._timer) clearInterval(this._timer);
    this._timer = null;
    if (!this._built) return; // not built yet (lib/widget.js builds near the viewport)
    this._play.textContent = '▶ Play';
    this._play.setAttribute('aria-pressed', 'false');
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.stop();
  }

  _key(e) {
    const t = e.composedPath()[0];
    if ((t && t.tagName === 'INPUT' && t.type !== 'range') || t?.tagName === 'SELECT' || t?.tagName === 'TEXTAREA')
      return;
    if (t && t.tagName === 'INPUT' && t.type === 'range') return; // the slider handles its own arrows
    if (e.key === 'ArrowRight' || e.key === 'PageDown') {
      this.go(this._index + 1);
      e.preventDefault();
    } else if (e.key === 'ArrowLeft' || e.key === 'PageUp') {
      this.go(this._index - 1);
      e.preventDefault();
    }
  }

  _renderStep() {
    const step = this._steps[this._index];
    this._rendered = true;
    let view;
    try {
      view = step.build(this._head);
    } catch (err) {
      this._title.textContent = `${step.short}: ${errorText(err)}`;
      this._panel.explainHolder.replaceChildren();
      this._panel.io.hidden = true;
      return;
    }
    this._panel.io.hidden = false;
    this._prev.disabled = this._index === 0;
    this._next.disabled = this._index === this._steps.length - 1;
    this._scrub.value = String(this._index);
    this._count.textContent = `step ${this._index + 1} of ${this._steps.length}`;
    this._listButtons.forEach((b, i) => {
      if (i === this._index) b.setAttribute('aria-current', 'step');
      else b.removeAttribute('aria-current');
    });
    const layerKey = this._layerKeys.indexOf(`${step.stack}|${step.layer}`);
    if (layerKey >= 0) this._layerSel.value = String(layerKey);
    this._headSel.disabled = !(step.perHead || step.name.endsWith('heads'));
    this._title.textContent = view.title;
    this._panel.show(view);

    const out = view.output;
    this.dataset.step = step.id;
    this.dataset.stage = step.name;
    this.dataset.layer = step.layer ?? '';
    this.dataset.head = String(this._head);
    this.dataset.index = String(this._index);
    this.dataset.count = String(this._steps.length);
    this.dataset.outShape = out ? shapeText([out.rows, out.cols]) : '';
  }

  // A cell the step does not explain (an input's): its value, and the step that computed it.
  _inputCell({ name, row, col, value }) {
    const target = this._steps.findIndex((s) => s.name === name && s.layer === this._steps[this._index].layer);
    const box = explainBox({
      title: `${name}[${row}, ${col}] = ${value === -Infinity ? '−∞' : value.toFixed(4)}`,
      note: 'An input of this step.',
    });
    if (target >= 0 && target !== this._index)
      box.append(
        el('button', {
          type: 'button',
          text: `Go to the step that computed ${name}`,
          on: { click: () => this.go(target) },
        }),
      );
    this._panel.explainHolder.replaceChildren(box);
  }
}

define(ApStepper, 'ap-stepper');
