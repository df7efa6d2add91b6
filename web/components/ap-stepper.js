// <ap-stepper>: the whole forward pass, one operation at a time, like a debugger. Next /
// previous buttons, the arrow keys, a scrubber and play / pause walk through the steps of
// lib/steps/; each step shows its formula with the shapes filled in, the matrices that go
// in, the one that comes out, what changed, and how any output cell was computed (click it).
// Attributes: the state of lib/state.js (text, model, preset, layer, head, step, switches).
// Events: 'ap-step-change' { step, index, name, layer, head }, 'ap-cell-select' (from heatmaps).
import './ap-heatmap.js';
import { ApWidget, define } from '../lib/widget.js';
import { clamp, el, emit, fillSelect, fmt, shapeText, tokenText } from '../lib/dom.js';
import { renderTex } from '../lib/katex.js';
import { buildSteps } from '../lib/steps/index.js';
import { explainBox } from '../lib/explain.js';
import { randomConfig } from '../lib/models.js';

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
    this._scrub = el('input', {
      type: 'range',
      min: 0,
      max: 0,
      value: 0,
      attrs: { 'aria-label': 'Step' },
      on: { input: () => this.go(Number(this._scrub.value)) },
    });
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
    this._formula = el('div', { className: 'formula' });
    this._changed = el('p', { className: 'changed' });
    this._ins = el('div', { className: 'io-ins' });
    this._io = el('div', { className: 'io' });
    this._explain = el('div');
    this._table = el('div', { className: 'scroll-x' });
    this._heatmaps = [];
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Every operation of the model on your text, in order. Use the buttons, the arrow keys or the slider; click any cell of the output to see how it was computed.',
      }),
      el('div', { className: 'stepnav' }, this._prev, this._play, this._next, this._scrub, this._count),
      el('div', { className: 'controls' }, this._layerField, this._headField),
      this._keptNote,
      el('details', { className: 'steps-details', open: true }, el('summary', { text: 'All steps' }), this._list),
      this._title,
      this._formula,
      this._changed,
      this._io,
      this._table,
      this._explain,
    );
    this.root.addEventListener('keydown', (e) => this._key(e));
    this.root.addEventListener('ap-cell-select', (e) => this._cell(e));
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
      this._io.hidden = true;
      this._formula.replaceChildren();
      this._changed.textContent = '';
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
        on: { click: () => this.go(i) },
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

  _heatmap(i) {
    if (!this._heatmaps[i]) this._heatmaps[i] = el('ap-heatmap');
    return this._heatmaps[i];
  }

  _renderStep() {
    const step = this._steps[this._index];
    this._rendered = true;
    this._explain.replaceChildren();
    const head = step.perHead || step.name.endsWith('heads') ? this._head : this._head;
    let view;
    try {
      view = step.build(head);
    } catch (err) {
      this._title.textContent = `${step.short}: ${err.message}`;
      this._io.hidden = true;
      return;
    }
    this._io.hidden = false;
    this._view = view;
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
    renderTex(this._formula, view.tex, { display: true });
    this._changed.textContent = view.changed;

    // Inputs, an arrow, the output (or, for the heads step, every head's output).
    // Inputs use slots 0.., outputs slots 100..: an element keeps its role, so it stays put.
    const ins = view.inputs.map((m, k) => {
      const h = this._heatmap(k);
      h.matrix = m;
      return h;
    });
    const outs = view.topk
      ? []
      : (view.outputs || [view.output]).filter(Boolean).map((m, k) => {
          const h = this._heatmap(100 + k);
          h.matrix = m;
          h.classList.add('out');
          return h;
        });
    // The boxes stay in the page; their children change only when the set of matrices does
    // (moving an element out and back in would lay it out again).
    if (!this._inBox) {
      this._inBox = el('div', { className: 'ins' });
      this._outBox = el('div', { className: 'out' });
      this._arrow = el('span', { className: 'arrow', text: '→', attrs: { 'aria-hidden': 'true' } });
      for (const b of [this._inBox, this._outBox]) {
        b.style.display = 'grid';
        b.style.gap = '12px';
      }
      this._io.replaceChildren(this._inBox, this._arrow, this._outBox);
    }
    const same = (box, list) => box.children.length === list.length && list.every((h, i) => box.children[i] === h);
    this._inBox.style.gridTemplateColumns =
      ins.length > 1 && view.inputs.every((m) => m.cols <= 24)
        ? 'repeat(auto-fit, minmax(min(100%, 200px), 1fr))'
        : '1fr';
    this._outBox.style.gridTemplateColumns =
      outs.length > 1 ? 'repeat(auto-fit, minmax(min(100%, 200px), 1fr))' : '1fr';
    if (!same(this._inBox, ins)) this._inBox.replaceChildren(...ins);
    if (!same(this._outBox, outs)) this._outBox.replaceChildren(...outs);
    this._inBox.hidden = this._arrow.hidden = ins.length === 0;

    this._table.replaceChildren();
    if (view.topk) this._table.append(this._topkTable(view));
    if (view.table) {
      const t = el('table', { className: 'nums' }, el('caption', { text: view.table.caption }));
      t.createTHead().append(
        el('tr', {}, ...view.table.header.map((h) => el('th', { attrs: { scope: 'col' }, text: h }))),
      );
      const body = t.createTBody();
      for (const r of view.table.rows)
        body.append(
          el(
            'tr',
            {},
            el('th', { attrs: { scope: 'row' }, text: r[0] }),
            ...r.slice(1).map((c) => el('td', { text: c })),
          ),
        );
      this._table.append(t);
    }

    const out = view.output;
    this.dataset.step = step.id;
    this.dataset.stage = step.name;
    this.dataset.layer = step.layer ?? '';
    this.dataset.head = String(this._head);
    this.dataset.index = String(this._index);
    this.dataset.count = String(this._steps.length);
    this.dataset.outShape = out ? shapeText([out.rows, out.cols]) : '';
  }

  // Top-k of a distribution over the vocabulary: one row per position, bars for probabilities.
  _topkTable(view) {
    const { caption, kind, rows } = view.topk;
    const t = el('table', { className: 'nums topk' }, el('caption', { text: caption }));
    t.createTHead().append(
      el(
        'tr',
        {},
        el('th', { attrs: { scope: 'col' }, text: 'after' }),
        ...['1st', '2nd', '3rd', '4th', '5th'].map((h) => el('th', { attrs: { scope: 'col' }, text: h })),
      ),
    );
    const body = t.createTBody();
    for (const r of rows) {
      body.append(
        el(
          'tr',
          { dataset: { row: r.row } },
          el('th', { attrs: { scope: 'row' }, text: tokenText(r.label) }),
          ...r.items.map((it) =>
            el(
              'td',
              { dataset: { id: it.id, value: it.value } },
              el(
                'button',
                {
                  type: 'button',
                  className: 'topk-item',
                  attrs: { 'aria-label': `${it.piece}: ${fmt(it.value, 3)}, explain` },
                  on: {
                    click: () => {
                      if (view.explain) this._explain.replaceChildren(explainBox(view.explain(r.row, it.id)));
                    },
                  },
                },
                el('span', { className: 'piece', text: tokenText(it.piece) }),
                el('span', { className: 'val', text: ` ${fmt(it.value, 3)}` }),
                kind === 'probs'
                  ? el('span', {
                      className: 'bar',
                      style: { width: `${Math.max(1, Math.round(it.value * 100))}%` },
                      attrs: { 'aria-hidden': 'true' },
                    })
                  : null,
              ),
            ),
          ),
        ),
      );
    }
    return t;
  }

  _cell(e) {
    const { name, row, col, value } = e.detail;
    const view = this._view;
    const isOut = view.output && e.composedPath().some((n) => n.classList?.contains('out')) && view.explain;
    if (isOut) {
      const x = view.explain(row, col);
      this._explain.replaceChildren(explainBox(x));
      return;
    }
    // An input cell: where it came from.
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
    this._explain.replaceChildren(box);
  }
}

define(ApStepper, 'ap-stepper');
