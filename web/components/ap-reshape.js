// <ap-reshape> (reshape): multi-head attention is a reshape. Q (n, d) is cut into h column
// blocks, (n, h, d/h), then transposed to (h, n, d/h): the head axis becomes a batch axis and
// every head is an ordinary attention on its block. The same numbers of the core's Q move
// between the three layouts; the dimensions quiz of the notes (002) is answered from the trace.
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt } from '../lib/dom.js';
import { layerFor } from '../lib/view.js';
import { stepView } from '../lib/steps/index.js';
import { showHeads } from '../lib/heads-shown.js';
import { scaleFor } from '../lib/colors.js';
import { renderTex } from '../lib/katex.js';
import { labelStep } from '../lib/heatmap.js';

const LAYOUTS = ['(n, d)', '(n, h, d/h)', '(h, n, d/h)'];
// A token label's line (11 px text): labels closer than this are thinned.
const LABEL_LINE = 12;

export class ApReshape extends ApWidget {
  static concept = 'reshape';

  build() {
    this.layout = 0;
    this.buttons = LAYOUTS.map((label, k) =>
      el('button', { type: 'button', text: label, on: { click: () => this.setLayout(k) } }),
    );
    this.animate = el('button', { type: 'button', text: '▶ Animate', on: { click: () => this.play() } });
    this.formula = el('div', { className: 'formula' });
    this.stage = el('div', { className: 'reshape-stage', attrs: { role: 'img' } });
    this.stage.style.cssText = 'position:relative;margin:8px 0;overflow:hidden;';
    this.quiz = el('div');
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Computing h heads costs no more than one: project once to Q (n × d), reshape to (n, h, d/h), and transpose to (h, n, d/h). Now the head axis works like a batch axis, and attention runs on every head at once. Watch the same numbers move.',
      }),
      el(
        'div',
        { className: 'controls' },
        el('span', { className: 'seg', attrs: { role: 'group', 'aria-label': 'Layout' } }, ...this.buttons),
        this.animate,
      ),
      this.formula,
      // A wide model (d = 128 at 4 px a column) is wider than a phone: the stage scrolls in its box.
      el('div', { className: 'reshape-scroll', style: { overflowX: 'auto', maxWidth: '100%' } }, this.stage),
      this.quiz,
    );
  }

  setLayout(k) {
    this.layout = k;
    for (const [i, b] of this.buttons.entries()) b.setAttribute('aria-pressed', String(i === k));
    this._place();
  }

  play() {
    clearTimeout(this._timer);
    this.setLayout(0);
    this._timer = setTimeout(() => {
      this.setLayout(1);
      this._timer = setTimeout(() => this.setLayout(2), 1100);
    }, 700);
  }

  render(run, state) {
    const layer = layerFor(run, state);
    showHeads(run); // Q cut into the run's heads
    const { view } = stepView(run, 'q', { layer });
    const Q = view.output;
    const n = Q.rows,
      d = Q.cols,
      h = run.config.nHeads,
      dK = d / h;
    this._dims = { n, d, h, dK };
    const avail = Math.max(200, (this.body.clientWidth || 600) - 90);
    const cs = Math.max(4, Math.min(26, Math.floor(avail / (d + (h - 1) * 1.2)), Math.floor(300 / n)));
    this._cs = cs;
    const scale = scaleFor('div', Q.values);
    const reduce = matchMedia('(prefers-reduced-motion: reduce)').matches;
    const cells = [];
    if (n * d <= 4096) {
      for (let i = 0; i < n; i++) {
        for (let c = 0; c < d; c++) {
          const v = Q.values[i * d + c];
          const div = el('div', {
            title: `Q[${i}, ${c}] = ${fmt(v, 4)} (head ${Math.floor(c / dK)}, column ${c % dK})`,
          });
          div.style.cssText = `position:absolute;left:0;top:0;width:${cs - 1}px;height:${cs - 1}px;background:${scale.fill(v)};${reduce ? '' : 'transition:transform 0.9s ease-in-out;'}`;
          div._ic = [i, c];
          cells.push(div);
        }
      }
    }
    this._cells = cells;
    // Token labels (one set per head, shown when the heads are stacked) and head labels. Rows
    // thinner than a label's line get every k-th label, by the rule every map's labels follow.
    const labels = [];
    const step = labelStep(cs, LABEL_LINE);
    for (let g = 0; g < h; g++) {
      for (let i = 0; i < n; i += step) {
        const lab = el('div', { className: 'rs-label', text: Q.rowLabels[i], dataset: { index: String(i) } });
        lab.style.cssText = `position:absolute;left:0;top:0;width:60px;text-align:right;font:11px var(--_mono);line-height:${LABEL_LINE}px;white-space:pre;overflow:hidden;text-overflow:ellipsis;${reduce ? '' : 'transition:transform 0.9s ease-in-out, opacity 0.9s;'}`;
        lab._gi = [g, i];
        labels.push(lab);
      }
      const head = el('div', { className: 'rs-head', text: `head ${g}` });
      head.style.cssText = `position:absolute;left:0;top:0;font:600 11px var(--_mono);color:var(--_accent);white-space:nowrap;${reduce ? '' : 'transition:transform 0.9s ease-in-out;'}`;
      head._g = g;
      labels.push(head);
    }
    this._labelNodes = labels;
    this.stage.replaceChildren(...cells, ...labels);
    this.stage.setAttribute(
      'aria-label',
      `Q of layer ${layer ?? 0}: ${n} tokens by ${d} dimensions, cut into ${h} heads of ${dK}`,
    );
    this.setLayout(this.layout);
    this._quiz(run, layer);
  }

  _place() {
    if (!this._dims) return;
    const { n, d, h, dK } = this._dims;
    const cs = this._cs,
      gap = Math.max(10, cs),
      left = 66,
      top = 16;
    const k = this.layout;
    let W = 0,
      H = 0;
    for (const div of this._cells) {
      const [i, c] = div._ic;
      const g = Math.floor(c / dK),
        cc = c % dK;
      let x, y;
      if (k === 0) {
        x = c * cs;
        y = i * cs;
      } else if (k === 1) {
        x = g * (dK * cs + gap) + cc * cs;
        y = i * cs;
      } else {
        x = cc * cs;
        y = g * (n * cs + gap + top) + i * cs;
      }
      x += left;
      y += top;
      div.style.transform = `translate(${x}px, ${y}px)`;
      W = Math.max(W, x + cs);
      H = Math.max(H, y + cs);
    }
    for (const lab of this._labelNodes) {
      if (lab._gi) {
        const [g, i] = lab._gi;
        const y = top + (k === 2 ? g * (n * cs + gap + top) : 0) + i * cs + (cs - LABEL_LINE) / 2; // centred on its row
        lab.style.transform = `translate(0px, ${y}px)`;
        lab.style.opacity = k === 2 || g === 0 ? '1' : '0';
      } else {
        const g = lab._g;
        const x = left + (k === 0 ? g * dK * cs : k === 1 ? g * (dK * cs + gap) : 0);
        const y = k === 2 ? g * (n * cs + gap + top) : 0;
        lab.style.transform = `translate(${x}px, ${y}px)`;
      }
    }
    this.stage.style.height = `${H + 4}px`;
    this.stage.style.width = `${W + 4}px`;
    const tex = [
      `Q = X W_Q \\in \\mathbb{R}^{n \\times d} = \\mathbb{R}^{${n} \\times ${d}}`,
      `\\operatorname{reshape}: \\mathbb{R}^{${n} \\times ${d}} \\to \\mathbb{R}^{n \\times h \\times d/h} = \\mathbb{R}^{${n} \\times ${h} \\times ${dK}}`,
      `\\operatorname{transpose}: \\to \\mathbb{R}^{h \\times n \\times d/h} = \\mathbb{R}^{${h} \\times ${n} \\times ${dK}} \\text{ (head axis first: a batch of ${h} attentions)}`,
    ][k];
    renderTex(this.formula, tex, { display: true });
    this.dataset.layout = String(k);
  }

  _quiz(run, layer) {
    const c = run.config;
    const opts = { layer: layer ?? undefined };
    const sh = (name, extra = {}) => run.shape(name, { ...opts, ...extra }).join(' × ');
    const wo = run.tensor(run.kind === 'model' ? `${run.mainStack}.${layer}.self_attn.wo` : 'wo');
    const items = [
      ['X (input)', run.shape(layer ? run.blockOutput(layer - 1) : 'x', layer ? { layer: layer - 1 } : {}).join(' × ')],
      ['Q = X W_Q', sh('q')],
      [`Q of one head (h = ${c.nHeads})`, `${run.shape('q', opts)[0]} × ${c.dK}`],
      ['scores, all heads', sh('scores')],
      ['[O¹; …; Oʰ] (concat)', sh('concat')],
      ['W_O', wo ? wo.shape.join(' × ') : '?'],
      ['O (attention output)', sh('attn_out')],
    ];
    const table = el(
      'table',
      { className: 'nums quiz' },
      el('caption', { text: "Dimensions? The quiz of notes 002, answered by the shapes of this model's trace" }),
    );
    const body = table.createTBody();
    for (const [q, a] of items) {
      body.append(
        el(
          'tr',
          {},
          el('th', { attrs: { scope: 'row' }, text: q }),
          el(
            'td',
            {},
            el(
              'details',
              { className: 'answer' },
              el('summary', { text: 'show' }),
              el('span', { className: 'mono', text: a }),
            ),
          ),
        ),
      );
    }
    this.quiz.replaceChildren(table);
  }
}

define(ApReshape);
