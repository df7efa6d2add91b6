// <ap-block> (block): Add & Norm(attention) then Add & Norm(FFN), stacked N times. The block of
// the chosen layer drawn as the notes draw it (000): X -> multi-head attention -> Add & Norm ->
// FFN -> Add & Norm, each residual path an arrow that skips its sublayer. Pre-norm redraws it
// (LayerNorm before each sublayer, a plain Add after, a final LayerNorm after the last layer); a
// decoder layer of an encoder-decoder adds its cross-attention sublayer. Every box is a button that
// opens its stage here (formula, inputs -> output, click a cell to explain it, from the core's
// trace); "open in the walk-through" asks the page's stepper for the same step ('ap-goto-step').
//
// Attributes: the page's state (text, model, layer, norm, ...), stage="attn" | "add1" | "ffn" |
// "add2" | "norm1" | "norm2" | "cross" | "addc" | "normc" | "input" | "final" (the open box).
// Example: <ap-block model="grammar" norm="pre" stage="ffn"></ap-block>
import { ApWidget, define } from '../lib/widget.js';
import { adoptOwnStyles } from '../lib/styles.js';
import { choiceButtons, el, emit, segGroup, shapeText } from '../lib/dom.js';
import { headFor, layerFor, StepPanel, textFor } from '../lib/view.js';
import { runFor } from '../lib/runs.js';
import { runSpec } from '../lib/state.js';
import { buildSteps } from '../lib/steps/index.js';
import { renderTex } from '../lib/katex.js';
import CSS from '../styles/block.css?inline';

const ORDER_POST =
  "\\begin{aligned} H &= \\mathrm{LN}(X + \\operatorname{MHA}(X)) \\\\ X' &= \\mathrm{LN}(H + \\operatorname{FFN}(H)) \\end{aligned}";
const ORDER_PRE =
  "\\begin{aligned} H &= X + \\operatorname{MHA}(\\mathrm{LN}(X)) \\\\ X' &= H + \\operatorname{FFN}(\\mathrm{LN}(H)) \\end{aligned}";

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs = {}, ...children) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) n.setAttribute(k, String(v));
  for (const c of children) if (c) n.append(c);
  return n;
}

// Geometry of the drawing (SVG user units; the drawing scales to its box).
const W = 360,
  BOX_X = 22,
  BOX_W = 246,
  BOX_H = 40,
  GAP = 26,
  SKIP_X = 312,
  TOP = 12;

// The sublayers of a layer as boxes: { id, label, kind, steps: [stage names], main: default stage }.
function layout(run, layer, stack) {
  const pre = run.config.norm === 'pre';
  const has = (name, l = layer) => run.stages().some((s) => s.name === name && s.stack === stack && s.layer === l);
  const causal = run.config.causal && stack !== 'encoder';
  const attnSteps = [
    'q',
    'k',
    'v',
    'q_rot',
    'k_rot',
    'scores',
    'pos_bias',
    'scaled',
    'masked',
    'weights',
    'heads',
    'concat',
    'attn_out',
  ];
  const subs = [
    {
      id: 'attn',
      label: `${causal ? 'Masked ' : ''}Multi-Head Attention`,
      kind: 'attn',
      steps: attnSteps,
      main: 'weights',
      add: 'resid1',
      norm: 'norm1',
      addId: 'add1',
      normId: 'norm1',
    },
  ];
  if (has('cross_resid')) {
    subs.push({
      id: 'cross',
      label: 'Cross-Attention (encoder)',
      kind: 'attn',
      steps: attnSteps.map((s) => `cross_${s}`).filter((s) => !/rot|pos_bias/.test(s)),
      main: 'cross_weights',
      add: 'cross_resid',
      norm: 'cross_norm',
      addId: 'addc',
      normId: 'normc',
    });
  }
  subs.push({
    id: 'ffn',
    label: 'Feed-Forward (FFN)',
    kind: 'ffn',
    steps: ['ffn_hidden', 'ffn_act', 'ffn_out'],
    main: 'ffn_hidden',
    add: 'resid2',
    norm: 'norm2',
    addId: 'add2',
    normId: 'norm2',
  });

  const nodes = []; // top to bottom
  const first = layer === 0;
  nodes.push({
    id: 'input',
    kind: 'io',
    label: first ? 'X: embeddings + positions' : `X: output of layer ${layer - 1}`,
    steps: first ? ['x'] : [run.blockOutput(layer - 1, stack)],
    stepLayer: first ? null : layer - 1,
  });
  const skips = [];
  for (const s of subs) {
    const from = nodes.length - 1; // the residual branches off just below this node
    if (pre) nodes.push({ id: s.normId, kind: 'norm', label: 'LayerNorm', steps: [s.norm] });
    nodes.push({ id: s.id, kind: s.kind, label: s.label, steps: s.steps, main: s.main });
    if (pre) nodes.push({ id: s.addId, kind: 'add', label: 'Add', steps: [s.add] });
    else nodes.push({ id: s.addId, kind: 'add', label: 'Add & Norm', steps: [s.add, s.norm] });
    skips.push({ from, to: nodes.length - 1, sub: s.id });
  }
  const last = layer === run.config.nLayers - 1;
  if (pre && last && run.stages().some((s) => s.name === 'final_norm' && s.stack === stack))
    nodes.push({ id: 'final', kind: 'norm', label: 'Final LayerNorm', steps: ['final_norm'], stepLayer: null });
  nodes.push({
    id: 'output',
    kind: 'io',
    label: last ? 'output: to the LM head' : `output: to layer ${layer + 1}`,
    steps: [],
  });
  return { nodes, skips, pre };
}

export class ApBlock extends ApWidget {
  static concept = 'block';
  static extraAttributes = ['stage'];

  build() {
    adoptOwnStyles(this.shadowRoot, CSS);
    this.layers = segGroup('Layers of the stack');
    this.layerBox = el('span', { className: 'field inline' }, el('span', { className: 'stack-size' }), this.layers);
    this.normBtn = el(
      'span',
      { className: 'seg', attrs: { role: 'group', 'aria-label': 'Norm placement' } },
      el('button', {
        type: 'button',
        text: 'post-norm (the notes)',
        dataset: { norm: 'post' },
        on: { click: () => this.requestState({ norm: 'post' }) },
      }),
      el('button', {
        type: 'button',
        text: 'pre-norm',
        dataset: { norm: 'pre' },
        on: { click: () => this.requestState({ norm: 'pre' }) },
      }),
    );
    this.formula = el('div', { className: 'formula' });
    this.svg = svg('svg', { role: 'group', 'aria-label': 'The transformer block' });
    this.diagram = el('div', { className: 'block-diagram' }, this.svg);
    this.stageTitle = el('h4');
    this.substeps = el('div', {
      className: 'block-substeps',
      attrs: { role: 'group', 'aria-label': 'Steps of this box' },
    });
    this.panel = new StepPanel();
    this.stepperBtn = el('button', {
      type: 'button',
      className: 'small goto-step',
      text: 'Open this step in the walk-through',
      on: {
        click: () => {
          if (this._stepId) emit(this, 'ap-goto-step', { step: this._stepId });
        },
      },
    });
    this.stage = el(
      'div',
      { className: 'block-stage', attrs: { 'aria-live': 'polite' } },
      this.stageTitle,
      this.substeps,
      this.panel.node,
      this.stepperBtn,
    );
    this.note = el('p', { className: 'note' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: "A transformer block is two sublayers, each wrapped in a residual connection and a layer norm: attention lets tokens exchange information, the FFN processes each token on its own. The dashed arrows are the residual paths: each carries a sublayer's input around it, to be added to its output. The original transformer (and the notes) normalise after adding (post-norm); most modern models normalise the sublayer's input (pre-norm). Stack N blocks. Click a box to see its numbers.",
      }),
      el('div', { className: 'controls' }, this.normBtn, this.layerBox),
      this.formula,
      el('div', { className: 'block-layout' }, this.diagram, this.stage),
      this.note,
    );
    this.open = null; // box id chosen by a click (the stage attribute until then)
    this.sub = null; // stage name chosen inside the box
  }

  renderKey(state) {
    return `${super.renderKey(state)}|${this.open ?? this.getAttribute('stage') ?? ''}|${this.sub ?? ''}`;
  }

  compute(state) {
    return runFor(runSpec(state.preset ? { ...state, preset: '', text: textFor(state) } : state));
  }

  render(run, state) {
    const layer = layerFor(run, state) ?? 0;
    const stack = run.mainStack;
    const pre = run.config.norm === 'pre';
    for (const b of this.normBtn.children) b.setAttribute('aria-pressed', String(b.dataset.norm === run.config.norm));
    renderTex(this.formula, pre ? ORDER_PRE : ORDER_POST, { display: true });
    const nLayers = run.config.nLayers;
    this.layerBox.firstChild.textContent = `Stack of ${nLayers} block${nLayers > 1 ? 's' : ''}, layer:`;
    choiceButtons(
      this.layers,
      Array.from({ length: nLayers }, (_, l) => l),
      layer,
      (l) => `layer ${l}`,
      (l) => this.requestState({ layer: l }),
    );
    const plan = layout(run, layer, stack);
    const steps = buildSteps(run);
    const stepOf = (name, l) => steps.find((s) => s.name === name && s.stack === stack && s.layer === l);
    for (const n of plan.nodes) {
      n.available = n.steps
        .map((name) => stepOf(name, n.stepLayer === undefined ? layer : n.stepLayer))
        .filter(Boolean);
    }
    const wanted = this.open ?? this.getAttribute('stage') ?? 'attn';
    const open =
      plan.nodes.find((n) => n.id === wanted && n.available.length) || plan.nodes.find((n) => n.id === 'attn');
    this._draw(plan, open, run);
    this._showStage(open, run, state);
    this.dataset.norm = run.config.norm;
    this.dataset.layer = String(layer);
    this.dataset.stage = open.id;
    this.dataset.boxes = plan.nodes.map((n) => n.id).join(' ');
    this.note.textContent = `${pre ? 'Pre-norm' : 'Post-norm'}, layer ${layer} of ${nLayers}: ${plan.skips.length} residual paths, one around each sublayer.${pre ? ' The residual stream is never normalised inside the stack; the final LayerNorm after the last block does it once.' : ' Each Add & Norm normalises the sum: each row to mean 0 and variance 1, then scaled by γ and shifted by β.'}`;
  }

  _draw(plan, open, run) {
    const s = this.svg;
    const y = (i) => TOP + i * (BOX_H + GAP);
    const height = y(plan.nodes.length - 1) + BOX_H + TOP;
    s.setAttribute('viewBox', `0 0 ${W} ${height}`);
    const defs = svg(
      'defs',
      {},
      ...[
        ['ah', 'arrow-flow'],
        ['ahs', 'arrow-skip'],
      ].map(([id, cls]) =>
        svg(
          'marker',
          {
            id,
            class: cls,
            viewBox: '0 0 10 10',
            refX: 9,
            refY: 5,
            markerWidth: 7,
            markerHeight: 7,
            orient: 'auto-start-reverse',
          },
          svg('path', { d: 'M0,0 L10,5 L0,10 z' }),
        ),
      ),
    );
    const flows = svg('g', { class: 'flows' });
    const cx = BOX_X + BOX_W / 2;
    for (let i = 0; i + 1 < plan.nodes.length; i++) {
      flows.append(
        svg('line', { class: 'flow', x1: cx, y1: y(i) + BOX_H, x2: cx, y2: y(i + 1) - 1, 'marker-end': 'url(#ah)' }),
      );
    }
    // Residual paths: from the flow just above the sublayer (a dot where it branches), out to
    // the right, down past the sublayer, into the right side of its Add box.
    const skips = svg('g', { class: 'residuals' });
    plan.skips.forEach((k, r) => {
      const by = y(k.from) + BOX_H + GAP / 2,
        ty = y(k.to) + BOX_H / 2;
      const sx = SKIP_X;
      skips.append(
        svg('circle', { class: 'branch', cx, cy: by, r: 4 }),
        svg(
          'path',
          {
            class: 'residual',
            'data-residual': String(r + 1),
            'data-from': plan.nodes[k.from].id,
            'data-to': plan.nodes[k.to].id,
            'data-skips': k.sub,
            d: `M${cx},${by} H${sx} V${ty} H${BOX_X + BOX_W + 2}`,
            'marker-end': 'url(#ahs)',
          },
          svg(
            'title',
            {},
            document.createTextNode(`residual path ${r + 1}: around ${plan.nodes.find((n) => n.id === k.sub).label}`),
          ),
        ),
        svg(
          'text',
          {
            class: 'residual-label',
            x: sx + 4,
            y: (by + ty) / 2,
            transform: `rotate(90 ${sx + 4} ${(by + ty) / 2})`,
            'text-anchor': 'middle',
          },
          document.createTextNode('residual'),
        ),
      );
    });
    const boxes = svg('g', { class: 'boxes' });
    plan.nodes.forEach((n, i) => {
      const clickable = n.available.length > 0;
      const main = n.available.find((st) => st.name === n.main) || n.available[n.available.length - 1];
      let shape = '';
      try {
        const sh = main ? run.shape(main.name, { stack: main.stack, layer: main.layer ?? undefined }) : null;
        if (sh) shape = shapeText(sh);
      } catch {
        /* a stage without a plain shape */
      }
      const g = svg(
        'g',
        {
          class: `box ${n.kind}`,
          'data-box': n.id,
          transform: `translate(${BOX_X},${y(i)})`,
          ...(clickable
            ? {
                role: 'button',
                tabindex: 0,
                'aria-label': `${n.label}: ${shape ? `${shape}, ` : ''}show its numbers`,
                'aria-pressed': String(n === open),
              }
            : { role: 'img', 'aria-label': `${n.label}${shape ? `: ${shape}` : ''}` }),
        },
        svg('rect', { width: BOX_W, height: BOX_H, rx: 7 }),
        svg('text', { x: BOX_W / 2, y: shape ? 15 : BOX_H / 2 }, document.createTextNode(n.label)),
        document.createTextNode(' '), // the label and the shape read as two words, not "positions7×64"
        shape ? svg('text', { class: 'shape', x: BOX_W / 2, y: 31 }, document.createTextNode(shape)) : null,
      );
      if (clickable) {
        const go = () => {
          this.open = n.id;
          this.sub = null;
          this.update();
        };
        g.addEventListener('click', go);
        g.addEventListener('keydown', (e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            go();
          }
        });
      }
      boxes.append(g);
    });
    const focused = this.shadowRoot.activeElement?.dataset?.box;
    s.replaceChildren(defs, flows, skips, boxes);
    if (focused) s.querySelector(`[data-box="${focused}"]`)?.focus();
  }

  _showStage(node, run, state) {
    const names = node.available;
    const cur = names.find((st) => st.name === this.sub) || names.find((st) => st.name === node.main) || names[0];
    this.stageTitle.textContent = `${node.label}${names.length > 1 ? `: ${cur.short}` : ''}`;
    this.substeps.hidden = names.length < 2;
    this.substeps.replaceChildren(
      ...names.map((st) =>
        el('button', {
          type: 'button',
          className: 'small',
          text: st.short,
          attrs: { 'aria-pressed': String(st === cur), 'data-step': st.id },
          on: {
            click: () => {
              this.sub = st.name;
              this.open = node.id;
              this.update();
            },
          },
        }),
      ),
    );
    this._stepId = cur.id;
    this.stage.dataset.step = cur.id;
    this.panel.show(cur.build(headFor(run, state)), { slot: cur.id });
  }
}

define(ApBlock);
