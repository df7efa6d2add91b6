// Pieces the concept widgets share: a heatmap from a matrix, a step view (formula, inputs,
// output, what changed, click-to-explain) drawn into a container, the notes' presets of a
// concept as buttons, and the layer / head a widget should show for a run.
import './heatmap-element.js'; // defines <ap-heatmap>
import { clamp, el, fmt, quotedWords, tokenText } from './dom.js';
import { HeatmapPool } from './heatmap.js';
import { renderTex } from './katex.js';
import { explainBox } from './explain.js';
import { playgroundNow } from './module.js';
import { getModel, modelNow, trainedArch, trainedFacts, trainedFiles } from './models.js';
import { DEFAULTS, modelKeyOf, switchesOf } from './state.js';
import { runFor } from './runs.js';
import { showHeads } from './heads-shown.js';

/** An <ap-heatmap> showing `m`. */
export function heatmap(m, attrs = {}) {
  const h = el('ap-heatmap', { attrs });
  h.matrix = m;
  return h;
}

// Past LONG_TOKENS columns of tokens, a step's maps stack and keep TOKEN_CELL px per token.
const LONG_TOKENS = 24;
const TOKEN_CELL = 12;
const cellAttrs = (m) => ({ 'min-cell': m.colLabels ? TOKEN_CELL : null });

/**
 * Draws a step view (lib/steps/) into `box`: formula, inputs → output (or, for a distribution
 * over the vocabulary, a table of each position's top entries), what changed, and an explanation
 * of a clicked output cell (or of `explainCell` { row, col } at once). The stepper is one of these
 * plus navigation; Bahdanau's walkthrough is one per stage.
 * foldWeights: a large learned weight matrix is folded behind one line (the stepper shows it open).
 * onInputCell(detail): a cell was clicked that the view does not explain (an input's).
 */
export class StepPanel {
  constructor({ foldWeights = true, onInputCell = null } = {}) {
    this.pool = new HeatmapPool();
    this.foldWeights = foldWeights;
    this.onInputCell = onInputCell;
    this.formula = el('div', { className: 'formula' });
    this.changed = el('p', { className: 'changed' });
    this.io = el('div', { className: 'io' });
    this.explainHolder = el('div');
    // The formula, then the matrices it makes, then the line on what changed: the step's picture
    // comes right under its formula (issue 23: the recap's and the residual view's first screens).
    this.node = el('div', { className: 'step-panel' }, this.formula, this.io, this.changed, this.explainHolder);
    this.node.addEventListener('ap-cell-select', (e) => {
      const fromOut = e.composedPath().some((n) => n.classList?.contains('out'));
      if (fromOut && this.view?.explain) this.explain(e.detail.row, e.detail.col);
      else if (this.onInputCell) this.onInputCell(e.detail);
    });
  }

  show(view, { explainCell = null, showInputs = true, slot = '' } = {}) {
    this.view = view;
    renderTex(this.formula, view.tex, { display: true });
    this.changed.textContent = view.changed;
    const ins = showInputs ? view.inputs.map((m, i) => this.folded(`${slot}in${i}`, m)) : [];
    // A long text: maps with a column per token keep cells of TOKEN_CELL px and a label per column
    // (they scroll sideways, and say so), and the maps stack so that each has the panel's width.
    const shown = [...(showInputs ? view.inputs : []), ...(view.topk ? [] : view.outputs || [view.output])];
    this.io.classList.toggle(
      'long',
      shown.some((m) => m?.colLabels && m.cols > LONG_TOKENS),
    );
    // A distribution over the vocabulary is read as its top entries (the table below), never
    // drawn as an n × vocabulary barcode.
    const outs = view.topk
      ? []
      : (view.outputs || [view.output]).filter(Boolean).map((m, i) => {
          const h = this.pool.get(`${slot}out${i}`, m, cellAttrs(m));
          h.classList.add('out');
          return h;
        });
    // Stable boxes; children replaced only when the set of heatmaps changes.
    if (!this.inBox) {
      this.inBox = el('div', { className: 'ins' });
      this.outBox = el('div', { className: 'out' });
      this.arrow = el('span', { className: 'arrow', text: '→', attrs: { 'aria-hidden': 'true' } });
      this.io.replaceChildren(this.inBox, this.arrow, this.outBox);
    }
    this.inBox.style.cssText = `display:grid;gap:12px;grid-template-columns:${ins.length > 1 && view.inputs.every((m) => m.cols <= 24) ? 'repeat(auto-fit, minmax(min(100%, 200px), 1fr))' : '1fr'}`;
    this.outBox.style.cssText = `display:grid;gap:12px;grid-template-columns:${outs.length > 1 ? 'repeat(auto-fit, minmax(min(100%, 200px), 1fr))' : '1fr'}`;
    const same = (box, list) => box.children.length === list.length && list.every((h, i) => box.children[i] === h);
    if (!same(this.inBox, ins)) this.inBox.replaceChildren(...ins);
    if (!same(this.outBox, outs)) this.outBox.replaceChildren(...outs);
    this.inBox.hidden = this.arrow.hidden = ins.length === 0;
    if (view.topk || this.table) {
      if (!this.table) {
        this.table = el('div', { className: 'scroll-x' });
        this.node.insertBefore(this.table, this.explainHolder);
      }
      this.table.replaceChildren(...(view.topk ? [this.topkTable(view.topk)] : []));
    }
    this.explainHolder.replaceChildren();
    if (explainCell && view.output && explainCell.row < view.output.rows && explainCell.col < view.output.cols) {
      this.explain(explainCell.row, explainCell.col);
    }
  }

  // A large learned weight matrix (64 × 64 of numbers that look like noise) is folded away behind
  // one line; the student opens it when the product is the point.
  folded(key, m) {
    const h = this.pool.get(key, m, cellAttrs(m));
    if (!this.foldWeights || !m.weight || m.rows * m.cols <= 1024) return h;
    if (!this.folds) this.folds = new Map();
    let d = this.folds.get(key);
    if (!d) {
      d = el('details', { className: 'weight-fold' }, el('summary'));
      this.folds.set(key, d);
    }
    d.querySelector('summary').textContent = `${m.title} (${m.rows} × ${m.cols} learned weights): show`;
    if (h.parentNode !== d) d.append(h);
    return d;
  }

  // Top-k of a distribution over the vocabulary: one row per position, bars for probabilities;
  // an entry explains itself when clicked.
  topkTable({ caption, kind, rows }) {
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
                      if (this.view.explain) this.explain(r.row, it.id);
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

  /** Explains output cell (row, col): the box carries data-cell="<output name>:<row>,<col>". */
  explain(row, col) {
    const box = explainBox(this.view.explain(row, col));
    if (this.view.output) box.dataset.cell = `${this.view.output.name}:${row},${col}`;
    this.explainHolder.replaceChildren(box);
    const out = this.io.querySelector('.out ap-heatmap');
    if (out) out.selected = { row, col };
  }
}

/** The layer a widget shows (the state's layer, within the model). */
export function layerFor(run, state) {
  if (run.kind !== 'model') return null;
  return clamp(state.layer, 0, run.config.nLayers - 1);
}

export function headFor(run, state) {
  showHeads(run); // the view shows a head's results (widget.js says when the heads are re-sliced)
  return clamp(state.head, 0, run.config.nHeads - 1);
}

/**
 * Buttons for the lecture presets of `concept` (and "your text"): choosing one asks the page
 * (or the widget itself, standalone) to show that preset.
 */
export function presetButtons(widget, concept) {
  const box = el('div', {
    className: 'controls presets',
    attrs: { role: 'group', 'aria-label': 'Examples from the notes' },
  });
  const refresh = () => {
    const ap = playgroundNow();
    if (!ap) return;
    // Presets shared by two concepts appear once per concept: prefer this concept's own ids.
    const all = ap.presets.forConcept(concept);
    const own = all.filter((p) => p.id.startsWith(`${concept}.`));
    const presets = [...own, ...all.filter((p) => !own.some((o) => o.title === p.title))];
    const current = widget.state.preset;
    box.hidden = presets.length === 0 || widget.hides('presets');
    box.replaceChildren(
      el('span', { className: 'note', text: 'Example from the notes:' }),
      ...presets.map((p) =>
        el('button', {
          type: 'button',
          className: 'small',
          text: `${p.title.replace(/:.*$/, '')} (${p.source})`,
          attrs: { 'aria-pressed': String(current === p.id), 'data-preset': p.id },
          on: { click: () => widget.requestState({ preset: current === p.id ? '' : p.id, step: '' }) },
        }),
      ),
      ...(current
        ? [
            el('button', {
              type: 'button',
              className: 'small',
              text: 'back to your text',
              on: { click: () => widget.requestState({ preset: '' }) },
            }),
          ]
        : []),
    );
  };
  return { node: box, refresh };
}

/** The notes' claim of a preset, shown above its numbers. */
// What of a preset's full table is not the notes': their numbers for one row only (the others were
// chosen to make a full example), or random vectors the notes' words only name.
const NOT_THE_NOTES = {
  'softmax.clouds':
    'Only the "sky" row of weights is from the notes; the other four rows were chosen to make a full example.',
  'causal-mask.clouds':
    'Only the "sky" row of weights (unmasked, it is the last row) is from the notes; the other rows were chosen to make a full example.',
  'scale.d512':
    'The queries and keys are random N(0, 1) vectors drawn by the core; the notes’ words only name the rows and columns.',
};

export function claimBox(preset) {
  if (!preset) return null;
  const notOurs = NOT_THE_NOTES[preset.id];
  return el(
    'div',
    { className: 'claim' },
    el('b', { text: `Notes ${preset.source}: ` }),
    preset.claim,
    ...(notOurs ? [el('br'), el('span', { className: 'not-notes', text: notOurs })] : []),
  );
}

/** A small HTML table of numbers: header and rows of strings. */
export function numsTable({ caption, header, rows, className = 'nums' }) {
  const t = el('table', { className });
  if (caption) t.append(el('caption', { text: caption }));
  if (header)
    t.createTHead().append(
      el('tr', {}, ...header.map((h) => (h === '' ? el('td') : el('th', { attrs: { scope: 'col' }, text: h })))),
    );
  const body = t.createTBody();
  for (const r of rows) {
    const tr = el('tr');
    r.forEach((c, i) => {
      const cell = typeof c === 'object' && c !== null ? c : { text: String(c) };
      const node = el(i === 0 ? 'th' : 'td', {
        text: cell.text,
        className: cell.className || '',
        attrs: i === 0 ? { scope: 'row' } : {},
      });
      if (cell.data) Object.assign(node.dataset, cell.data);
      tr.append(node);
    });
    body.append(tr);
  }
  return el('div', { className: 'scroll-x' }, t);
}

/** A <select> of rows: picking one sets widget.row and redraws (the widget fills the options). */
export function rowSelect(widget) {
  const sel = el('select', {
    on: {
      change: () => {
        widget.row = Number(sel.value);
        widget.update();
      },
    },
  });
  return sel;
}

/** fn(entry) once the model `key` is loaded: at once if it already is, else a promise. */
export function withEntry(key, fn) {
  const entry = modelNow(key);
  if (entry && playgroundNow()) return fn(entry);
  return getModel(key).then(fn);
}

/**
 * The forward run of an encoderDecoderChoice() on its own text, with the page's switches but
 * the model's own causal mask and positions (or a promise of it while the model loads).
 */
export function encoderDecoderRun(choice, state) {
  return withEntry(choice.key, () =>
    runFor({
      preset: '',
      modelKey: choice.key,
      text: choice.text,
      switches: { ...switchesOf(state), causal: undefined, pos: undefined },
    }),
  );
}

/**
 * Runs fn(entry) on the page's model if `ok(entry.base, entry)` allows (a preset has no model),
 * else on random weights of the default recipe (sinusoidal positions, any switch allowed), whose
 * one-line note then tells the student. Returns fn's result, or a promise of it.
 */
export function withModelFor(state, ok, fn) {
  const fallback = modelKeyOf({ ...DEFAULTS, model: 'random', seed: state.seed });
  if (state.preset) return withEntry(fallback, fn);
  return withEntry(modelKeyOf(state), (entry) => (ok(entry.base, entry) ? fn(entry) : withEntry(fallback, fn)));
}

/**
 * The tokens of `text` a view's own model reads: at most its context (a paragraph typed for the
 * English model can be longer than a small random model's 64). { ids, pieces, cut }: cut is '' or
 * the line the view shows when the text was cut.
 */
export function tokensWithin(entry, text) {
  const enc = entry.model.tokenizer.encode(text);
  const max = entry.base.maxLen;
  const n = Math.min(enc.ids.length, max);
  const unknown = enc.unknown.filter((i) => i < n);
  const cut = [
    enc.ids.length > max
      ? `This view's model reads at most ${max} tokens; your text has ${enc.ids.length}, so the view reads its first ${max}.`
      : '',
    unknownWordsLine(enc.pieces, unknown, entry.model.vocab.length, n),
  ]
    .filter(Boolean)
    .join(' ');
  return { ids: enc.ids.slice(0, n), pieces: enc.pieces.slice(0, n), unknown: new Set(unknown), cut };
}

/**
 * The line for tokens a word tokenizer read as <unk> (positions `unknown` of `pieces`), or '': they
 * all get the one vector of <unk>, so their rows cannot differ by word.
 */
export function unknownWordsLine(pieces, unknown, vocabSize, n) {
  if (!unknown.length) return '';
  return `${unknown.length} of these ${n} tokens are not in this model's word list of ${vocabSize} and are read as <unk>, all with one shared vector (their labels end in "?"): ${quotedWords(pieces, unknown, 6)}.`;
}

/** Text to run a model-only view on: the page's text, or a preset's tokens. */
export function textFor(state) {
  if (!state.preset) return state.text;
  const p = playgroundNow()
    ?.presets.list()
    .find((x) => x.id === state.preset);
  return p ? p.tokens.join(' ') : state.text;
}

/**
 * The one line of a view built on encoderDecoderChoice saying it does not read the page's text
 * (it runs `what` instead), or '' when it does. `choice`: the view's last choice, if it has one.
 */
export function encoderDecoderOwnInput(state, choice, what) {
  const text = choice?.text ?? encoderDecoderChoice(state).text;
  if (state.preset || text === state.text) return '';
  const encDec = pageModelArch(state) === 'encoder-decoder';
  return `This view does not read the text at the top: ${encDec ? 'it' : "the page's model has no encoder and decoder, so it"} runs ${what}.`;
}

// The architecture of the page's model; for a shipped file, read from its header while the weights
// are still coming (so that a view waits for the model rather than drawing something else first).
function pageModelArch(state) {
  return modelNow(modelKeyOf(state))?.base.arch ?? trainedArch(state.model);
}

/**
 * The encoder-decoder a view shows: the page's model if it is one, else the trained dates model
 * (when its file exists), else random weights. Returns { key, text, trained, note }.
 */
export function encoderDecoderChoice(state) {
  if (!state.preset && state.model !== 'random' && pageModelArch(state) === 'encoder-decoder') {
    return { key: modelKeyOf(state), text: state.text, trained: true, note: '' };
  }
  if (!state.preset && state.model === 'random' && state.arch === 'encoder-decoder') {
    return {
      key: modelKeyOf(state),
      text: state.text,
      trained: false,
      note: 'Random weights: the decoder input is the source shifted by one (there is no trained answer).',
    };
  }
  if (trainedFiles().includes('dates'))
    return {
      key: 'trained:dates',
      text: trainedFacts('dates').example,
      trained: true,
      note: 'The trained dates model: it reads a date as written and writes it as YYYY-MM-DD; the decoder side is its own greedy answer.',
    };
  return {
    key: modelKeyOf({ ...DEFAULTS, arch: 'encoder-decoder', tokenizer: 'word', seed: state.seed }),
    text: textFor(state),
    trained: false,
    note: 'No trained encoder-decoder model file is present, so this is random weights; the decoder input is the source shifted by one.',
  };
}
