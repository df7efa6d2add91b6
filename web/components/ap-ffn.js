// <ap-ffn> (ffn): FFN(x) = ReLU(x W1 + b1) W2 + b2 with d_ff = 4d, applied to every token on its
// own. The hidden layer, the ReLU mask (which units are off), the output, and where the
// parameters of a block live (counted from the model's tensors). Then the notes' "why" (003):
// one trained block of the masked LM applied again and again, attention only beside attention +
// FFN, with the mean cosine similarity of the token rows per layer (model.attentionStacks).
import { ApWidget, define } from '../lib/widget.js';
import { linePlot } from '../lib/plot.js';
import { withEntry } from '../lib/view.js';
import { el, errorText, fmt, quotedWords } from '../lib/dom.js';
import { StepPanel, layerFor, numsTable, textFor } from '../lib/view.js';

const WHY_MODEL = 'trained:mlm';
const WHY_TEXT = 'the cat near the dogs sleeps .';
const WHY_DEPTH = 6;
import { runFor } from '../lib/runs.js';
import { runSpec } from '../lib/state.js';
import { activationOf, stepView } from '../lib/steps/index.js';
import { matrix } from '../lib/heatmap.js';

export class ApFfn extends ApWidget {
  static concept = 'ffn';

  build() {
    this.hidden1 = new StepPanel();
    this.mask = el('div');
    this.maskNote = el('p', { className: 'changed' });
    this.out = new StepPanel();
    this.params = el('div');
    this.body.append(
      el('p', {
        className: 'lead',
        text: "After attention mixes information between tokens, a two-layer MLP processes each token separately: up to d_ff hidden units (4d in the notes and the paper), a nonlinearity (ReLU in the notes; GELU in GPT-style models), back down to d. Most of a transformer's parameters live here.",
      }),
      el('h4', { text: '1. Up to d_ff' }),
      this.hidden1.node,
      (this.actTitle = el('h4', { text: '2. The nonlinearity: which hidden units pass' })),
      this.mask,
      el('h4', { text: '3. Back down to d' }),
      this.out.node,
      (this.gateLine = el('p', { className: 'note gate-line' })),
      el('h4', { text: 'Where the parameters are' }),
      this.params,
    );
    this.buildWhy();
  }

  buildWhy() {
    this.why = { layer: 0, residual: true };
    const seg = (label, key, choices) =>
      el(
        'span',
        { className: 'seg', dataset: { control: `why-${key}` }, attrs: { role: 'group', 'aria-label': label } },
        ...choices.map(([text, value]) =>
          el('button', {
            type: 'button',
            text,
            dataset: { value: String(value) },
            on: {
              click: () => {
                this.why[key] = value;
                this.renderWhy();
              },
            },
          }),
        ),
      );
    this.whySegs = [
      seg('Which trained block', 'layer', [
        ['block 0', 0],
        ['block 1', 1],
      ]),
      seg('Residual paths', 'residual', [
        ['with residual paths', true],
        ['without', false],
      ]),
    ];
    this.whyText = el('p', { className: 'note' });
    this.whyPlot = el('div', { className: 'why-plot' });
    this.whyTable = el('div');
    this.whyMaps = el('div', { className: 'col2' });
    this.whyVerdict = el('p', { className: 'changed why-verdict' });
    this.body.append(
      el('h4', { text: 'Why an FFN at all? Attention alone only re-averages' }),
      el('p', {
        className: 'lead',
        text: "The notes (003): \"there are no elementwise nonlinearities in self-attention; stacking more self-attention layers just re-averages value vectors.\" Every attention output row is a weighted average of value rows (weights ≥ 0, summing to 1), so attention applied again and again pulls the tokens' vectors together. The core takes one trained block of the masked LM (web/models/mlm.safetensors, bidirectional) and applies it 6 times: once as attention only (with its Add & Norm), once with the block's FFN after each attention. The measure is the mean cosine similarity over all pairs of token rows: 1 means every token's vector points the same way and the tokens can no longer be told apart.",
      }),
      el('div', { className: 'controls' }, ...this.whySegs),
      this.whyText,
      this.whyVerdict,
      this.whyPlot,
      this.whyTable,
      this.whyMaps,
      el('p', {
        className: 'note why-honest',
        text: 'Honestly: no trained model repeats one block 6 times, so with enough repetitions both stacks converge; the FFN changes how fast, and by how much depends on the sentence and the block (on "the teachers who the girl likes are happy ." block 0 shows almost no difference). Without residual paths both collapse within 3 or 4 applications: in a real transformer the residual path, the FFN and the norm together keep the tokens apart. In the trained 2-layer grammar model (causal) the comparison shows little difference, which is why this view uses the masked LM.',
      }),
    );
  }

  renderWhy() {
    for (const sg of this.whySegs) {
      const key = sg.dataset.control.slice(4);
      for (const b of sg.children) b.setAttribute('aria-pressed', String(b.dataset.value === String(this.why[key])));
    }
    const out = withEntry(WHY_MODEL, (entry) => this.drawWhy(entry));
    if (out && typeof out.then === 'function')
      out.catch((err) => {
        this.whyText.textContent = `The masked LM could not be loaded: ${errorText(err)}`;
      });
  }

  drawWhy(entry) {
    const model = entry.model;
    const wanted = (this.state && textFor(this.state)) || WHY_TEXT;
    const known = model.tokenizer.encode(wanted);
    // Why the page's text cannot be used, if it cannot: the model's own limits (its file's config)
    // and the words its word list lacks, as the tokenizer found them.
    const maxLen = model.config.maxLen;
    const count = known.ids.length;
    const why =
      count < 2
        ? 'it needs at least 2 tokens'
        : count > maxLen
          ? `it reads at most ${maxLen} tokens and your text is ${count}`
          : known.unknown.length
            ? `its word list of ${model.config.vocabSize} tokens has no ${quotedWords(known.pieces, known.unknown, 3)}`
            : '';
    const text = why ? WHY_TEXT : wanted;
    this.whyText.textContent = why
      ? `Sentence: "${text}" (the masked LM cannot read your text: ${why}; so its own example is used).`
      : `Sentence: "${text}".`;
    this.whyText.dataset.why = why;
    const t = model.attentionStacks(text, {
      layer: this.why.layer,
      depth: WHY_DEPTH,
      residual: this.why.residual,
      causal: false,
    });
    const series = {},
      finalCos = {};
    try {
      for (const stack of ['attention_only', 'with_ffn']) {
        series[stack] = [];
        for (let l = 0; l <= WHY_DEPTH; l++) series[stack].push([l, t.get('mean_cosine', { stack, layer: l })[0]]);
        finalCos[stack] = t.get('row_cosine', { stack, layer: WHY_DEPTH });
      }
    } finally {
      t.dispose();
    }
    const labels = known.unknown.length === 0 && text === wanted ? known.pieces : model.tokenizer.encode(text).pieces;
    const n = labels.length;
    const a = series.attention_only[WHY_DEPTH][1],
      f = series.with_ffn[WHY_DEPTH][1];
    this.dataset.whyText = text;
    this.dataset.whyAttentionOnly = JSON.stringify(series.attention_only.map((p) => p[1]));
    this.dataset.whyWithFfn = JSON.stringify(series.with_ffn.map((p) => p[1]));
    const a3 = series.attention_only[3][1],
      f3 = series.with_ffn[3][1];
    this.whyVerdict.textContent = `Mean cosine between token rows, starting at ${fmt(series.attention_only[0][1], 3)}: after 3 layers attention only ${fmt(a3, 3)}, with FFNs ${fmt(f3, 3)}; after ${WHY_DEPTH} layers attention only ${fmt(a, 3)}, with FFNs ${fmt(f, 3)}. ${a3 - f3 > 0.05 ? "The attention-only rows merge faster: re-averaging pulls the tokens together, the FFN's per-token nonlinearity slows that down." : 'On this sentence and block the difference is small.'}`;
    this.whyPlot.replaceChildren(
      linePlot({
        title: 'Mean cosine similarity of token rows per layer',
        xLabel: 'layers applied',
        yLabel: 'mean cosine',
        yMin: Math.min(0, ...series.attention_only.map((p) => p[1]), ...series.with_ffn.map((p) => p[1])),
        yMax: 1,
        series: [
          { name: 'attention only', points: series.attention_only },
          { name: 'attention + FFN', points: series.with_ffn },
        ],
      }),
      el('p', { className: 'note', text: 'solid: attention only · dashed: attention + FFN' }),
    );
    this.whyTable.replaceChildren(
      numsTable({
        caption: `Mean cosine similarity of the ${n} token rows after each layer (block ${this.why.layer}, ${this.why.residual ? 'with' : 'without'} residual paths)`,
        header: ['layers applied', 'attention only', 'attention + FFN'],
        rows: series.attention_only.map(([l, v], i) => [
          String(l),
          { text: fmt(v, 3), data: { value: String(v) } },
          { text: fmt(series.with_ffn[i][1], 3), data: { value: String(series.with_ffn[i][1]) } },
        ]),
        className: 'nums why-table',
      }),
    );
    this.place(
      this.whyMaps,
      ...[
        ['why-a', 'attention_only', 'attention only'],
        ['why-f', 'with_ffn', 'with FFN'],
      ].map(([id, key, what]) =>
        this.hm(
          id,
          matrix({
            name: `row_cosine_${key}`,
            title: `cos(row i, row j) after ${WHY_DEPTH}: ${what}`,
            values: finalCos[key],
            rows: n,
            cols: n,
            rowLabels: labels,
            colLabels: labels,
            kind: 'div',
            domain: [-1, 1],
          }),
        ),
      ),
    );
  }

  compute(state) {
    return runFor(runSpec(state.preset ? { ...state, preset: '', text: textFor(state) } : state));
  }

  render(run, state) {
    this.renderWhy();
    const layer = layerFor(run, state);
    const stack = run.mainStack;
    // A gated FFN (an opened Llama, Mistral or Qwen2) records x W_gate and its activation where the
    // two-matrix FFN records x W_1 and its activation: the same two panels, on the gate.
    const gated = (run.config.ffnKind ?? 'mlp') !== 'mlp';
    this.hidden1.show(stepView(run, gated ? 'ffn_gate' : 'ffn_hidden', { layer }).view, {
      slot: 'h',
      explainCell: { row: 0, col: 0 },
    });
    const act = stepView(run, gated ? 'ffn_gate_act' : 'ffn_act', { layer }).view;
    const A = act.output;
    // The ReLU mask is a reading of the core's activations: 1 where the unit passed, 0 where it was cut.
    const on = new Float32Array(A.values.length);
    let count = 0;
    for (let k = 0; k < on.length; k++) {
      on[k] = A.values[k] > 0 ? 1 : 0;
      count += on[k];
    }
    // The model's own activation and width, named as they are (this small model may differ from the notes).
    const actName = activationOf(run.config.act).name;
    this.actTitle.textContent = `2. ${actName}: which hidden units pass (d_ff = ${run.config.dFf} = ${run.config.dFf / run.config.dModel}·d in this model; the notes use 4d)`;
    this.maskNote.textContent = act.changed;
    this.place(
      this.mask,
      this.maskNote,
      this.hm(
        'mask',
        matrix({
          name: 'relu_mask',
          title: `${actName}: units with a positive output (1): ${count} of ${on.length}`,
          values: on,
          rows: A.rows,
          cols: A.cols,
          rowLabels: A.rowLabels,
          kind: 'seq',
          domain: [0, 1],
        }),
      ),
    );
    this.out.show(stepView(run, 'ffn_out', { layer }).view, { slot: 'o' });
    // The gated FFN of today's decoders: which kinds this model can run is the core's (switchChoices).
    const kinds = run.model.switchChoices.ffnKind;
    const cfg = run.config;
    this.gateLine.textContent =
      `Llama, Mistral and Qwen use a gated FFN instead (SwiGLU; Gemma GeGLU): SiLU(x W_gate) ⊙ (x W_1 + b_1), then W_2. A learned gate decides, per token and unit, how much of each hidden unit passes, at the price of a third d × d_ff matrix (${(cfg.dModel * cfg.dFf).toLocaleString('en')} more parameters per block here). ` +
      (kinds.length > 1
        ? `This model has a gate: it can run ${kinds.join(' or ')}.`
        : `This model has no W_gate, and the core will not invent one (it offers only '${kinds[0]}' here); the SwiGLU view after chapter F runs a model that has one.`);
    // Parameter counts from the tensors' shapes.
    const size = (name) =>
      run.model
        .tensors()
        .find((t) => t.name === name)
        ?.shape.reduce((a, b) => a * b, 1) || 0;
    const p = `${stack}.${layer}.`;
    const attn = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'].reduce((s, w) => s + size(`${p}self_attn.${w}`), 0);
    const cross = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'].reduce((s, w) => s + size(`${p}cross_attn.${w}`), 0);
    const ffn = ['w1', 'b1', 'w2', 'b2'].reduce((s, w) => s + size(`${p}ffn.${w}`), 0);
    const norms = ['norm1', 'norm2', 'norm_cross'].reduce(
      (s, nn) => s + size(`${p}${nn}.gamma`) + size(`${p}${nn}.beta`),
      0,
    );
    const total = attn + cross + ffn + norms;
    const pct = (x) => `${fmt((100 * x) / total, 1)}%`;
    const c = run.config;
    this.params.replaceChildren(
      numsTable({
        caption: `Layer ${layer}: d = ${c.dModel}, d_ff = ${c.dFf} (${c.dFf / c.dModel}·d)`,
        header: ['part', 'parameters', 'share'],
        rows: [
          ['self-attention (W_Q, W_K, W_V, W_O + biases): 4d² + 4d', String(attn), pct(attn)],
          ...(cross ? [['cross-attention', String(cross), pct(cross)]] : []),
          [
            'FFN (W_1, W_2 + biases): 2·d·d_ff + d_ff + d',
            { text: String(ffn), className: 'ffn-params' },
            { text: pct(ffn), className: 'ffn-share' },
          ],
          ['layer norms (γ, β)', String(norms), pct(norms)],
          ['block total', String(total), '100%'],
        ],
      }),
    );
    // The notes' "most parameters are in the FFN" is about d_ff = 4d: the same block at 4d, from
    // the formulas of the table, when this model's d_ff is another width.
    if (c.dFf !== 4 * c.dModel) {
      const d = c.dModel,
        ffn4 = 2 * d * 4 * d + 4 * d + d;
      const share = (100 * ffn4) / (total - ffn + ffn4);
      this.params.append(
        el('p', {
          className: 'note ffn-4d',
          text: `This model's d_ff is ${c.dFf / d}·d. At the notes' d_ff = 4d = ${4 * d}, the FFN of this block would have 2·d·4d + 4d + d = ${ffn4} parameters, ${share.toFixed(1)}% of the block: most of it, as the notes say.`,
          attrs: { 'data-share': String(share) },
        }),
      );
    }
  }
}

define(ApFfn);
