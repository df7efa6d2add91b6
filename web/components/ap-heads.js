// <ap-heads> (heads): h heads, each with its own slice W_Q^i, W_K^i, W_V^i of size d_k = d / h,
// so each computes its own attention pattern. All of a layer's patterns side by side on one
// colour scale (0 … 1, so a faint head looks faint; a switch gives each head its own scale),
// and under each map one line naming what the head does, computed from its weights
// (lib/head-patterns.js): previous token, itself, first token, next token, one word, broad or no fixed place.
// The buttons change the number of heads of the whole model (same weights, cut differently).
//
// Attributes: the page's state (text, model, layer, heads, ...), colors="shared" | "per-head".
// Example: <ap-heads model="grammar" text="the cat sat on the mat"></ap-heads>
import { ApWidget, define } from '../lib/widget.js';
import { adoptOwnStyles } from '../lib/styles.js';
import { choiceButtons, el, fmt, segGroup, segRow } from '../lib/dom.js';
import { matrix } from '../lib/heatmap.js';
import { headFor, layerFor } from '../lib/view.js';
import { scaleFor } from '../lib/colors.js';
import { stepView } from '../lib/steps/index.js';
import { renderTex } from '../lib/katex.js';
import { headPattern, patternParts } from '../lib/head-patterns.js';
import { hasMeasuredHeads, measuredHeads, measuredHeadsNow } from '../lib/models.js';
import { runFor } from '../lib/runs.js';
import { runSpec } from '../lib/state.js';
import { reslicedHeads } from '../lib/heads-shown.js';
import CSS from '../styles/heads.css?inline';

export class ApHeads extends ApWidget {
  static concept = 'heads';
  static extraAttributes = ['colors'];

  // A trained model with measured head roles: fetch them (once, small) with the run, so each card
  // can say what its head does on held-out text, not only on the sentence on screen.
  compute(state) {
    const run = runFor(runSpec(state));
    const name = state.preset ? '' : state.model;
    if (!hasMeasuredHeads(name) || measuredHeadsNow(name) !== undefined) return run;
    return Promise.all([run, measuredHeads(name)]).then(([r]) => r);
  }

  build() {
    adoptOwnStyles(this.shadowRoot, CSS);
    this.buttons = segGroup('Number of heads');
    this.layers = segGroup('Layer');
    // Grouped-query attention: how many K/V heads the query heads share (the core's choices).
    this.kvButtons = segGroup('Number of K/V heads');
    this.kvLine = el('p', { className: 'note kv-line' });
    // On a model whose heads were measured on held-out text: the rule a head is named by, and the
    // layers whose heads have names (a layer may have none).
    this.rolesLine = el('p', { className: 'note roles-line', hidden: true });
    this.layerBox = el('span', { className: 'field inline' }, el('span', { text: 'Layer:' }), this.layers);
    this.shared = el('input', {
      type: 'checkbox',
      checked: true,
      attrs: { 'data-input': 'shared-scale' },
      on: { change: () => this.setAttribute('colors', this.shared.checked ? 'shared' : 'per-head') },
    });
    this.scaleNote = el('span', { className: 'note' });
    this.formula = el('div', { className: 'formula' });
    this.grid = el('div', { className: 'heads-grid' });
    // A Hugging Face model: every layer x head at a glance (rows: layers, columns: heads).
    this.allNote = el('p', { className: 'note all-note' });
    this.all = el('div', {
      className: 'all-heads',
      attrs: { role: 'group', 'aria-label': 'Every head of every layer' },
    });
    this.big = el('figure', { className: 'big-head' });
    this.allBox = el('div', { className: 'all-box', hidden: true }, this.allNote, this.all, this.big);
    this.note = el('p', { className: 'note layer-note' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'One attention pattern can only express one kind of relation at a time. Multi-head attention runs h attentions in parallel, each on its own d_k = d/h columns of Q, K and V, and so learns h different patterns (typical models use h = 8 or 16). Under each map: what that head does, read from its weights.',
      }),
      segRow('heads', 'Heads:', this.buttons, this.layerBox),
      // The heads' maps right under the heads and layer buttons; the colour scale, the K/V heads
      // and the formula after them: the maps are on chapter C's first screen (issue 23).
      this.allBox,
      this.grid,
      this.rolesLine,
      el(
        'div',
        { className: 'controls', dataset: { control: 'colors' } },
        el(
          'label',
          { className: 'switch' },
          this.shared,
          el('span', { text: 'one colour scale for all heads (0 … 1); off: each head its own' }),
        ),
        this.scaleNote,
      ),
      el(
        'div',
        { className: 'controls', dataset: { control: 'kvheads' } },
        el('span', { className: 'field inline' }, el('span', { text: 'K/V heads:' }), this.kvButtons),
      ),
      this.kvLine,
      this.formula,
      this.note,
    );
    this.cards = new Map();
  }

  renderKey(state) {
    return `${super.renderKey(state)}|${this.getAttribute('colors') || 'shared'}`;
  }

  render(run, state) {
    const h = run.config.nHeads,
      d = run.config.dModel;
    const perHead = this.getAttribute('colors') === 'per-head';
    this.shared.checked = !perHead;
    this.dataset.colors = perHead ? 'per-head' : 'shared';
    this.scaleNote.textContent = perHead
      ? 'Each head has its own scale (0 … its largest weight): small differences look large, so a nearly uniform head can look structured. Compare with the shared scale.'
      : 'Dark purple is 0 and yellow is 1 in every map, so heads compare fairly.';
    const choices = run.kind === 'model' ? run.model.switchChoices.nHeads : run.preset.headChoices;
    choiceButtons(
      this.buttons,
      choices,
      h,
      (k) => `${k} head${k > 1 ? 's' : ''}`,
      (k) => this.requestState({ heads: k, head: 0 }),
    );
    this.renderKv(run);
    const layer = layerFor(run, state);
    const nLayers = run.kind === 'model' ? run.config.nLayers : 1;
    this.layerBox.hidden = nLayers < 2;
    choiceButtons(
      this.layers,
      Array.from({ length: nLayers }, (_, l) => l),
      layer ?? 0,
      (l) => `layer ${l}`,
      (l) => this.requestState({ layer: l }),
    );
    renderTex(
      this.formula,
      `\\text{head}_i = \\operatorname{Attention}(X W_Q^{(i)}, X W_K^{(i)}, X W_V^{(i)}),\\quad i = 0..${h - 1},\\quad d_k = ${d}/${h} = ${d / h}`,
      { display: true },
    );
    const { view } = stepView(run, 'heads', { layer });
    const maps = view.inputs;
    const overview = run.entry?.kind === 'pretrained';
    this.allBox.hidden = !overview;
    this.grid.hidden = overview;
    if (overview) {
      this._renderAll(run, state, layer, maps, perHead);
      this.note.textContent = `${run.config.nLayers} layers × ${h} heads of d_k = ${d / h}: each small map is one head's weights on your text (rows: queries, columns: keys; each row sums to 1). Click one to see it large.`;
      return;
    }
    const measured = measuredFor(run, state);
    this.renderRoles(measured, layer ?? 0);
    const cards = [];
    maps.forEach((m, i) => {
      const p = headPattern(m.values, m.rows, m.cols, { labels: m.colLabels, masked: m.masked });
      // Per head: 0 .. the largest weight of a row that had a choice (under the causal mask the first
      // row always puts 1 on itself, which would make every head's own scale 0 .. 1 again).
      const shown = matrix({ ...m, title: `head ${i}`, domain: perHead ? [0, p.freeMax || 1] : [0, 1] });
      let c = this.cards.get(i);
      if (!c) {
        c = { line: el('p', { className: 'head-pattern' }) };
        c.node = el('figure', { className: 'head-card', attrs: { 'aria-label': `head ${i}` } }, null, c.line);
        this.cards.set(i, c);
      }
      const hm = this.hm(`head${i}`, shown, { 'max-cell': '44' });
      const [what, figure] = patternParts(p, (x) => fmt(x, 2));
      c.line.replaceChildren(el('b', { className: 'pattern-name', text: what }), `: ${figure}`);
      const role = measured?.heads.find((x) => x.layer === (layer ?? 0) && x.head === i);
      if (role) c.line.append(el('br'), measuredLine(role, measured));
      if (this.kvGroup && run.config.nKvHeads < h) c.line.append(el('br'), `reads K/V head ${this.kvGroup[i]}`);
      // readable by tests and by a screen reader's table of contents
      Object.assign(c.node.dataset, {
        head: String(i),
        pattern: p.key,
        score: String(p.score),
        even: String(p.even),
        domain: perHead ? `0,${p.freeMax}` : '0,1',
      });
      if (p.word) c.node.dataset.word = p.word;
      else delete c.node.dataset.word;
      this.place(c.node, hm, c.line);
      cards.push(c.node);
    });
    this.place(this.grid, cards);
    const random = run.kind === 'model' && state.model === 'random';
    const resliced = reslicedHeads(run);
    this.note.textContent = `Layer ${layer ?? 0}: ${h} ${resliced ? 're-sliced ' : ''}head${h > 1 ? 's' : ''} of d_k = ${d / h}. Each map is one head's weights (rows: queries, columns: keys; each row sums to 1).${random ? ' These are random, untrained weights: their patterns mean nothing yet; pick a trained model to see heads that learned something.' : ''}${resliced ? ` The line under each map describes this slice on your text only: the model learned ${resliced.trained} heads, not these ${h}, and the roles measured for its heads on held-out text belong to those ${resliced.trained}. Pick ${resliced.trained} heads to see them.` : ''}`;
  }
}

// The rule a head is named by (the measurement's own thresholds) and, when this layer has no named
// head, the layers that have them, each a button.
ApHeads.prototype.renderRoles = function (measured, layer) {
  const t = measured?.thresholds;
  this.rolesLine.hidden = !t;
  if (!t) return;
  const named = measured.heads.filter((x) => x.role);
  const here = named.filter((x) => x.layer === layer);
  const rule = `A head is named when at least ${t.minMass} of its weight goes to one relation, ${t.minRatio} times its share if spread evenly and ${t.minVsPosition} times what its position alone would give, over ${t.minQueries} or more queries; it "leans to" one at ${t.leanMass}, ${t.leanRatio} times and ${t.leanVsPosition} times.`;
  const byLayer = [...new Set(named.map((x) => x.layer))].sort((a, b) => a - b);
  const parts = [];
  if (!here.length && byLayer.length) {
    parts.push(
      `No head of layer ${layer} has a role by this measure. Named heads: `,
      ...byLayer.flatMap((l, i) => [
        i ? '; ' : '',
        el('button', {
          type: 'button',
          className: 'small',
          text: `layer ${l}`,
          on: { click: () => this.requestState({ layer: l }) },
        }),
        ` ${named
          .filter((x) => x.layer === l)
          .map((x) => `head ${x.head}, ${x.label}`)
          .join('; ')}`,
      ]),
      '. ',
    );
  }
  parts.push(rule);
  this.rolesLine.replaceChildren(...parts);
  this.dataset.namedLayers = byLayer.join(',');
};

// The K/V heads buttons and their line: which query heads share a K and V (the core's kv_group) and
// what the cache saves, from the numbers of this run.
ApHeads.prototype.renderKv = function (run) {
  const box = this.kvButtons.parentNode.parentNode;
  box.hidden = this.kvLine.hidden = run.kind !== 'model';
  if (run.kind !== 'model') {
    this.kvGroup = null;
    return;
  }
  const h = run.config.nHeads,
    kv = run.config.nKvHeads;
  const choices = run.model.switchChoices.nKvHeads.filter((k) => h % k === 0);
  choiceButtons(
    this.kvButtons,
    choices,
    kv,
    (k) => `${k} K/V head${k > 1 ? 's' : ''}`,
    (k) => this.requestState({ kvheads: k === run.model.config.nKvHeads ? '' : k }),
  );
  const layer = run.stages().find((s) => s.name === 'kv_group')?.layer ?? null;
  this.kvGroup = layer === null ? null : Array.from(run.get('kv_group', { layer }));
  this.dataset.kvHeads = String(kv);
  if (kv === h) {
    this.kvLine.textContent = `Each of the ${h} heads has its own K and V. Grouped-query attention (Llama 2 70B, Mistral) lets several query heads share one K/V head, so the KV cache a decoder keeps shrinks by that factor, at little cost in quality (Ainslie et al. 2023); 1 K/V head is multi-query attention.`;
    return;
  }
  const groups = Array.from({ length: kv }, (_, g) =>
    this.kvGroup
      .map((x, i) => (x === g ? i : -1))
      .filter((i) => i >= 0)
      .join(', '),
  );
  const pooled = run.model.config.nKvHeads === h;
  this.kvLine.textContent =
    `${kv} K/V head${kv > 1 ? 's' : ''} for ${h} query heads: ${groups.map((g, i) => `heads ${g} read K/V head ${i}`).join('; ')}. The KV cache holds ${kv} instead of ${h} heads' keys and values, ${h / kv} times smaller. ` +
    (pooled
      ? `This model was trained with a K and V per head: each group's W_K and W_V are the mean of its heads' learned ones, a pooling it was never trained with (real models are trained further after it), so its patterns change.`
      : '');
};

// The roles measured on held-out text apply to the model as trained: no switch that changes what a
// head computes (heads re-sliced, mask, scaling, positions, norm).
function measuredFor(run, state) {
  const entry = run.entry;
  if (entry?.kind !== 'trained' || state.preset) return null;
  if (reslicedHeads(run)) return null;
  if (state.causal || state.scale || state.pos || state.norm || state.normkind || state.kvheads || state.window)
    return null;
  return measuredHeadsNow(entry.name) || null;
}

// "On 81,649 held-out tokens: previous token, 0.62 of its weight (0.05 if spread evenly)".
function measuredLine(role, measured) {
  const [best] = role.evidence;
  const n = (x) => x.toLocaleString('en');
  const span = el('span', { className: 'measured' });
  const figure = best
    ? `${best.mass.toFixed(2)} of its weight on it, ${best.chance.toFixed(2)} if spread evenly, over ${n(best.n)} queries`
    : '';
  span.append(
    `Measured on ${n(measured.tokens)} held-out Brown tokens: `,
    el('b', { text: role.label }),
    role.role ? ` (${figure})` : best ? ` (${role.leaning ? 'leans to' : 'strongest'}: ${best.label}, ${figure})` : '',
  );
  return span;
}

// Every layer x head of a (pretrained) model as small maps, one pixel per weight, and the one
// picked (the page's layer and head) enlarged with its labels and its pattern line.
ApHeads.prototype._renderAll = function (run, state, layer, maps, perHead) {
  const L = run.config.nLayers,
    H = run.config.nHeads;
  const head = headFor(run, state);
  const n = run.tokens.length;
  this.all.style.gridTemplateColumns = `auto repeat(${H}, minmax(0, 1fr))`;
  const nodes = [
    el('span'),
    ...Array.from({ length: H }, (_, i) => el('span', { className: 'ah-col', text: `h${i}` })),
  ];
  let count = 0;
  for (let l = 0; l < L; l++) {
    nodes.push(el('span', { className: 'ah-label', text: `layer ${l}` }));
    const W = run.get('weights', { layer: l });
    for (let i = 0; i < H; i++) {
      const canvas = el('canvas', { width: n, height: n });
      const values = W.subarray(i * n * n, (i + 1) * n * n);
      let max = 1;
      if (perHead) {
        max = 0;
        for (const v of values) if (v > max) max = v;
      }
      const scale = scaleFor('prob', values, { domain: [0, max || 1] });
      const ctx = canvas.getContext('2d');
      const img = ctx.createImageData(n, n);
      for (let k = 0; k < n * n; k++) {
        const c = scale.fill(values[k]);
        const rgb = parseColour(c);
        img.data.set([rgb[0], rgb[1], rgb[2], 255], 4 * k);
      }
      ctx.putImageData(img, 0, 0);
      const on = l === layer && i === head;
      nodes.push(
        el(
          'button',
          {
            type: 'button',
            className: 'mini-map',
            title: `layer ${l}, head ${i}`,
            dataset: { layer: String(l), head: String(i) },
            attrs: { 'aria-label': `layer ${l}, head ${i}`, 'aria-pressed': String(on) },
            on: { click: () => this.requestState({ layer: l, head: i }) },
          },
          canvas,
        ),
      );
      count++;
    }
  }
  this.all.replaceChildren(...nodes);
  this.dataset.maps = String(count);
  this.allNote.textContent = `Every head of ${run.entry.label}: ${L} layers (rows) × ${H} heads (columns), ${count} attention patterns of the same text, on one colour scale (0 … 1). Look for heads that attend to the previous token (a line just below the diagonal), to the first token (a bright first column) or to themselves (the diagonal).`;
  const m = maps[head];
  const p = headPattern(m.values, m.rows, m.cols, { labels: m.colLabels, masked: m.masked });
  const shown = matrix({
    ...m,
    title: `layer ${layer}, head ${head} (enlarged)`,
    domain: perHead ? [0, p.freeMax || 1] : [0, 1],
  });
  const hm = this.hm('big', shown, { 'max-cell': '44' });
  const [what, figure] = patternParts(p, (x) => fmt(x, 2));
  const line = el(
    'p',
    { className: 'head-pattern' },
    el('b', { className: 'pattern-name', text: what }),
    `: ${figure}`,
  );
  this.big.dataset.layer = String(layer);
  this.big.dataset.head = String(head);
  this.big.dataset.pattern = p.key;
  this.place(this.big, hm, line);
};

const colourCache = new Map();
function parseColour(c) {
  let rgb = colourCache.get(c);
  if (!rgb) {
    const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(c);
    if (m) rgb = [parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)];
    else {
      const n = (c.match(/[\d.]+/g) || [0, 0, 0]).map(Number);
      rgb = [n[0], n[1], n[2]];
    }
    colourCache.set(c, rgb);
  }
  return rgb;
}

define(ApHeads);
