// <ap-rnn-chain> (rnn-chain): an RNN carries one state h_t = f(h_{t-1}, x_t), step by step.
// The core's Elman RNN reads the same tokens as the attention views (their embedding rows),
// and a stepper walks t = 1..n showing h_{t-1}, x_t -> h_t; beside it, self-attention on the
// same text reaches every token in one hop (the weights of the page's model, all rows at once).
// Attribute t (1-based step, default the last). The notes' chain: text="the cat sat down" (000).
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt } from '../lib/dom.js';
import { headFor, layerFor, withEntry } from '../lib/view.js';
import { runFor, runIds } from '../lib/runs.js';
import { runSpec } from '../lib/state.js';
import { stepView } from '../lib/steps/index.js';
import { matrix, rowOf } from '../lib/heatmap.js';
import { playgroundNow } from '../lib/module.js';
import { renderTex, tex } from '../lib/katex.js';
import {
  CAT_SAT_DOWN,
  RNN,
  chainSvg,
  columnsFor,
  hopsPlan,
  hopsSvg,
  rnnStates,
  scrollToColumn,
  stepControls,
  stepOf,
  tokenRows,
} from '../lib/rnn-view.js';

const m = (source) => tex(source, { className: 'math' });

export class ApRnnChain extends ApWidget {
  static concept = 'rnn-chain';
  static extraAttributes = ['t'];

  build() {
    this.example = el('button', {
      type: 'button',
      className: 'small',
      text: `"${CAT_SAT_DOWN}" (000)`,
      attrs: { 'data-example': 'cat-sat-down' },
      on: { click: () => this.requestState({ text: CAT_SAT_DOWN, preset: '' }) },
    });
    this.examples = el(
      'div',
      { className: 'controls presets' },
      el('span', { className: 'note', text: 'Example from the notes:' }),
      this.example,
    );
    this.stepper = stepControls('step t', (t) => this.setAttribute('t', String(t)));
    this.formula = el('div', { className: 'formula' });
    this.chain = el('div', { className: 'scroll-x' });
    this.hops = el('div', { className: 'scroll-x' });
    // The pictures' columns narrow to fit a short text into a narrow box (a phone): drawn for the
    // box's width, seen by a ResizeObserver (read on a layout the browser does anyway), and drawn
    // again when it changes.
    this._boxWidth = 0;
    this._fit = new ResizeObserver((entries) => {
      const w = Math.round(entries[entries.length - 1].contentRect.width);
      if (!w || w === this._boxWidth) return;
      this._boxWidth = w;
      if (this._pictures) this._drawPictures();
    });
    this._fit.observe(this.chain);
    this.chainNote = el('p', { className: 'note' });
    this.attnNote = el('p', { className: 'note' });
    this.detail = el('div', { style: { display: 'grid', gap: '6px', alignContent: 'start' } });
    this.tables = el('div', { style: { display: 'grid', gap: '6px', alignContent: 'start' } });
    this.summary = el('p', { className: 'panel summary' });
    this.body.append(
      el(
        'p',
        { className: 'lead' },
        'An RNN processes a sequence step by step: the state ',
        m('h_t = f(h_{t-1}, x_t)'),
        ' carries information forward, one step at a time. Step t waits for step t−1 (sequential); the signal of a far-back token fades as it passes every state in between (long-range); and everything must squeeze through one fixed-size state (bottleneck). Attention replaces the chain with direct connections: any token reaches any other in one hop, and all positions are computed in parallel.',
      ),
      // The chain first, its step slider under it, then the recurrence and the notes' example:
      // the picture is on the first screen of chapter A (issue 23).
      el(
        'div',
        { className: 'panel' },
        el('h4', { text: 'RNN: one state, passed along' }),
        this.chain,
        this.stepper.node,
        this.chainNote,
      ),
      this.formula,
      this.examples,
      el(
        'div',
        { className: 'panel', style: { marginTop: '10px' } },
        el('h4', { text: 'Self-attention on the same tokens: every token one hop away' }),
        this.hops,
        this.attnNote,
      ),
      el('div', { className: 'col2', style: { marginTop: '10px' } }, this.detail, this.tables),
      this.summary,
    );
  }

  // The notes' example is the notes' tokens only (000: h_1 = the ... h_4 = down): the page's model
  // reads them without the start token it puts before a text of its own.
  compute(state) {
    const spec = runSpec(state);
    if (state.preset || state.text.trim() !== CAT_SAT_DOWN) return runFor(spec);
    return withEntry(spec.modelKey, (entry) => {
      const enc = entry.model.tokenizer.encode(CAT_SAT_DOWN);
      return runIds(entry, enc.ids, spec.switches, enc.pieces, spec.layer);
    });
  }

  renderKey(state) {
    return `${super.renderKey(state)}|t=${this.getAttribute('t') ?? ''}`;
  }

  // The chain and attention's arcs from token t, in the columns that suit the box's width, scrolled
  // so that token t is whole in view (with the first token too, when they fit together).
  _drawPictures() {
    const { labels, t, row } = this._pictures;
    const width = this._boxWidth;
    this.place(this.chain, chainSvg({ labels, t, width }));
    this.place(this.hops, hopsSvg({ labels, weights: row, t, width }));
    const g = columnsFor(labels.length, width);
    scrollToColumn(this.chain, g, t);
    scrollToColumn(this.hops, g, t);
  }

  render(run, state) {
    const ap = playgroundNow();
    this.examples.hidden = this.hides('presets');
    this.stepper.node.hidden = this.hides('t');
    this.example.setAttribute('aria-pressed', String(!state.preset && state.text.trim() === CAT_SAT_DOWN));
    const { x, n, d, labels, stage } = tokenRows(run);
    const dH = RNN.dHidden;
    const rnn = rnnStates(ap, { x, n, dIn: d });
    const t = stepOf(this, n);
    this.stepper.set(t, n);
    this.stepper.out.textContent = `t = ${t} of ${n}: "${labels[t - 1]}"`;
    renderTex(
      this.formula,
      `h_t = \\tanh\\big(x_t W_{xh} + h_{t-1} W_{hh} + b\\big), \\quad h_0 = 0 \\qquad (x_t \\in \\mathbb{R}^{${d}},\\ h_t \\in \\mathbb{R}^{${dH}})`,
      { display: true },
    );

    // The two pictures, columns aligned: the chain up to step t, and attention's arcs from token t.
    this._pictures = { labels, t, row: null };
    this.chainNote.textContent = `${n} steps, one after the other: h_${t} exists only once h_${t - 1} does. States after step ${t} are still waiting (dashed).`;
    const layer = layerFor(run, state),
      head = headFor(run, state);
    const A = stepView(run, 'weights', { layer, head }).view.output;
    const row = A.values.slice((t - 1) * A.cols, t * A.cols);
    this._pictures.row = row;
    this._drawPictures();
    const masked = row.some((w) => w === 0) && run.config.causal;
    // A long text: arcs only to the largest weights (more merge into one band), the rest said in numbers.
    const plan = hopsPlan(row, t);
    const few = plan.rest
      ? ` Arcs go to the first token and the ${plan.drawn.length - (plan.drawn[0] === 0 ? 1 : 0)} tokens nearest "${labels[t - 1]}"; the other ${plan.rest} are one hop away too (scroll sideways to see their weights), with ${fmt(plan.restWeight, 2)} of the weight together.`
      : '';
    this.attnNote.textContent = `Row "${labels[t - 1]}" of the attention weights (${run.kind === 'model' ? `layer ${layer}, head ${head} of the page's model, counted from 0 as in the heatmaps` : 'the preset'}); arc width is the weight, written under each token.${few} ${masked ? 'The causal mask hides later tokens; every earlier one is still one hop away.' : 'No chain: the token reads every token directly, and every row of weights is computed at the same time.'}`;
    this.hops.dataset.rest = String(plan.rest);

    // Step t in numbers: h_{t-1} and x_t go in, pre_t and h_t come out (all from the core).
    const H = matrix({
      name: 'rnn_h',
      title: `states h_1 … h_${n} (computed in order, one row per step)`,
      values: rnn.h,
      rows: n,
      cols: dH,
      rowLabels: labels.map((l, i) => `h${i + 1} ${l}`),
      kind: 'div',
      rowAxis: 'steps',
      colAxis: 'hidden units',
    });
    const pre = matrix({
      name: 'rnn_pre',
      title: 'pre',
      values: rnn.pre,
      rows: n,
      cols: dH,
      rowLabels: labels,
      kind: 'div',
    });
    const X = matrix({ name: stage, title: 'x', values: x, rows: n, cols: d, rowLabels: labels, kind: 'div' });
    const prev =
      t === 1
        ? matrix({
            name: 'h0',
            title: 'h_0 = 0 (nothing read yet)',
            values: new Float32Array(dH),
            rows: 1,
            cols: dH,
            rowLabels: ['h0'],
            kind: 'div',
            domain: [-1, 1],
          })
        : rowOf(H, t - 2, {
            title: `h_${t - 1}: the state after "${labels[t - 2]}"`,
            rowLabels: [`h${t - 1}`],
            domain: [-1, 1],
          });
    this.place(
      this.detail,
      el('h4', { text: `Step ${t}: h_${t - 1} and x_${t} in, h_${t} out` }),
      this.hm('prev', prev),
      this.hm(
        'x',
        rowOf(X, t - 1, {
          title: `x_${t}: the ${stage === 'embed' ? 'embedding' : 'input row'} of "${labels[t - 1]}"`,
          rowLabels: [`x${t}`],
        }),
      ),
      this.hm('pre', rowOf(pre, t - 1, { title: `x_${t} W_xh + h_${t - 1} W_hh + b`, rowLabels: [`pre${t}`] })),
      this.hm(
        'h',
        rowOf(H, t - 1, {
          title: `h_${t} = tanh(…): all the RNN knows after "${labels[t - 1]}"`,
          rowLabels: [`h${t}`],
          domain: [-1, 1],
        }),
      ),
    );
    const hH = this.hm('states', H);
    hH.highlightRow = t - 1;
    const hA = this.hm('weights', A);
    hA.highlightRow = t - 1;
    this.place(this.tables, hH, hA);

    const first = labels[0],
      cur = labels[t - 1];
    const path = t === 2 ? 'h₁ → h₂' : `h₁ → … → h${t}`;
    this.summary.replaceChildren(
      t === 1
        ? `Step 1 starts the chain from h₀ = 0. Move t to see how far "${first}" has to travel.`
        : `"${first}" reaches step ${t} ("${cur}") in the RNN only through ${t - 1} step${t > 2 ? 's' : ''} (${path}), squeezed each time into the same ${dH} numbers. In attention "${cur}" reads "${first}" directly, with weight ${fmt(row[0], 3)}: one hop, whatever the distance.`,
    );
    this.dataset.t = String(t);
    this.dataset.n = String(n);
    this.dataset.state = JSON.stringify(Array.from(rnn.h.slice((t - 1) * dH, t * dH)));
  }
}

define(ApRnnChain);
