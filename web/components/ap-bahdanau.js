// <ap-bahdanau> (bahdanau): additive attention (Bahdanau, Cho and Bengio 2015, notes 004).
// By default on the project's trained RNN encoder-decoder (web/models/translate-rnn.safetensors):
// the English sentence of attribute `source` (default: the notes' "European Economic Area"
// sentence) is read by the bidirectional encoder, the decoder translates it greedily, and every
// stage below is from that run, so the alignment matrix shows what training taught it.
// weights="random": the page's tokens through seeded random RNNs instead (encoder h_j =
// [forward; backward], decoder states from an RNN reading the same tokens): how the numbers are
// made, without meaning. The core computes e_tj = v^T tanh(W_s s_{t-1} + W_h h_j), alpha = softmax, C_t = sum alpha h,
// and records every stage (W_s, W_h, v, W_s s, W_h h, the tanh layer for every (t, j), the
// scores, weights and context); the view shows them one by one for the chosen step t, as the
// step makers of lib/steps/additive.js (keyed by the core's add_* stage names) give them, each in
// the StepPanel every view uses: its formula, a line on what it is, and a clicked cell explained
// term by term. Beside it, on
// the same states, scaled dot-product attention. A decoder step t is chosen with a stepper or
// by clicking a row of either alignment matrix. Attributes t (1-based step), weights, source.
import { ApWidget, define } from '../lib/widget.js';
import '../lib/heatmap-element.js'; // this.hm() draws with <ap-heatmap>: defined here when this widget is loaded alone
import { el, tokenText } from '../lib/dom.js';
import { matrix, rowOf } from '../lib/heatmap.js';
import { playgroundNow } from '../lib/module.js';
import { renderTex, tex } from '../lib/katex.js';
import { StepPanel } from '../lib/view.js';
import { additiveViews } from '../lib/steps/additive.js';
import { bidirectionalStates, rnnStates, stepControls, stepOf, tokenRows } from '../lib/rnn-view.js';
import { lookupStages } from '../lib/lookup-view.js';
import { NOTES_SENTENCE, stagesOf, translationRnn, unknownNote } from '../lib/rnn-attention.js';

// Random weights (weights="random"):
const D_HALF = 4; // each direction of the encoder
const D = 2 * D_HALF; // encoder and decoder state width (equal, so s . h is defined)
const D_A = 8; // width of the additive score's hidden layer
const TRAINED_STAGES = [
  'dec_s',
  'enc_h',
  'add_ws',
  'add_wh',
  'add_v',
  'add_s',
  'add_h',
  'add_tanh',
  'add_scores',
  'add_weights',
  'add_context',
];
const SEEDS = { encoder: 11, decoder: 13, additive: 17 };
const m = (source) => tex(source, { className: 'math' });
const tokenLabel = (piece) => tokenText(piece);

export class ApBahdanau extends ApWidget {
  static ownInput =
    "This view does not read the text at the top: it reads its own English sentence, in its box, with the project's small English-to-French translator, which knows only the words of its training.";
  static concept = 'bahdanau';
  static extraAttributes = ['t', 'weights', 'source'];

  /** With random weights it reads the page's tokens (see the top of this file). */
  ownInputText() {
    return this.trained ? super.ownInputText() : '';
  }

  /** Trained unless weights="random"; the trained model reads its own English sentence. */
  get trained() {
    return this.getAttribute('weights') !== 'random';
  }

  compute(state) {
    if (!this.trained) return super.compute(state);
    return translationRnn().then((model) => ({ kind: 'rnn', model }));
  }

  build() {
    this.stepper = stepControls('decoder step t', (t) => this.setAttribute('t', String(t)));
    let timer = null;
    this.sourceInput = el('input', {
      type: 'text',
      spellcheck: false,
      maxLength: 300,
      attrs: { 'aria-label': 'English sentence to translate' },
      on: {
        input: () => {
          clearTimeout(timer);
          timer = setTimeout(() => {
            this.removeAttribute('t');
            this.setAttribute('source', this.sourceInput.value);
          }, 250);
        },
      },
    });
    this.weightsSelect = el(
      'select',
      {
        attrs: { 'aria-label': 'weights' },
        on: {
          change: () => {
            this.removeAttribute('t');
            this.setAttribute('weights', this.weightsSelect.value);
          },
        },
      },
      el('option', { value: 'trained', text: 'trained English→French model' }),
      el('option', { value: 'random', text: 'random weights, the page’s text (no meaning)' }),
    );
    this.sourceField = el(
      'label',
      { className: 'field', dataset: { control: 'source' }, style: { flex: '1 1 320px' } },
      el('span', { text: 'English sentence' }),
      this.sourceInput,
    );
    this.controlsRow = el(
      'div',
      { className: 'controls' },
      this.sourceField,
      el(
        'label',
        { className: 'field inline', dataset: { control: 'weights' } },
        el('span', { text: 'Weights' }),
        this.weightsSelect,
      ),
    );
    this.translation = el('p', { className: 'translation', style: { margin: '4px 0', fontSize: '1.05em' } });
    this.unknownLine = el('p', { className: 'note unknown-note' });
    this.formula = el('div', { className: 'formula' });
    this.setup = el('p', { className: 'note' });
    // The additive side: one StepPanel per stage (made at the first drawing, in the core's order),
    // under a numbered heading; one cell explained at a time, kept while it exists.
    this.steps = new Map();
    this.add = el('div', { style: { display: 'grid', gap: '14px' } });
    this.add.addEventListener('ap-cell-select', (e) => {
      if (!this.steps.has(e.detail.name)) return;
      this._picked = { name: e.detail.name, row: e.detail.row, col: e.detail.col };
      for (const [name, st] of this.steps) if (name !== e.detail.name) st.panel.explainHolder.replaceChildren();
    });
    this.dot = el('div', { style: { display: 'grid', gap: '6px' } });
    this.maps = el('div', { className: 'col2' });
    this.maps.addEventListener('ap-cell-select', (e) => this.setAttribute('t', String(e.detail.row + 1)));
    this.body.append(
      el(
        'p',
        { className: 'lead' },
        'Instead of compressing the whole input into one fixed-size vector, the decoder looks at all encoder states at every output step. For output position t, an alignment function (a small neural network) scores how well the previous decoder state ',
        m('s_{t-1}'),
        ' matches each encoder state ',
        m('h_j'),
        '; a softmax turns the scores into weights ',
        m('\\alpha_{tj}'),
        ', and the context vector ',
        m('C_t'),
        ' is the weighted sum of the encoder states. The α are not learnable parameters: they are computed from the input, for inputs of any length.',
      ),
      this.controlsRow,
      this.translation,
      this.unknownLine,
      this.formula,
      this.setup,
      // The alignment first: the picture the notes draw; the steps below explain one row of it.
      el('h4', {
        text: 'Alignment matrices (rows: output steps t, columns: source words j; bright = large α_tj; click a row to choose t)',
      }),
      this.maps,
      this.stepper.node,
      el(
        'div',
        { className: 'col2' },
        el(
          'div',
          { className: 'panel' },
          el('h4', { text: 'Additive (Bahdanau), step by step for the chosen t' }),
          el('p', { className: 'note', text: 'Click a cell of any step to see how the core’s number was made.' }),
          this.add,
        ),
        el('div', { className: 'panel' }, el('h4', { text: 'Scaled dot product, same states' }), this.dot),
      ),
    );
  }

  renderKey(state) {
    return `${super.renderKey(state)}|t=${this.getAttribute('t') ?? ''}|w=${this.trained ? 'trained' : 'random'}|s=${this.source}`;
  }

  get source() {
    return this.getAttribute('source') ?? NOTES_SENTENCE;
  }

  render(run) {
    const ap = playgroundNow();
    const d = run && run.kind === 'rnn' ? this._trainedData(run.model) : this._randomData(ap, run);
    this.sourceField.hidden = !d.trained;
    if (this.shadowRoot.activeElement !== this.sourceInput) this.sourceInput.value = this.source;
    this.weightsSelect.value = d.trained ? 'trained' : 'random';
    const { T, m, dS, dH, src, outs, S, H, A } = d;
    this.stepper.node.hidden = this.hides('t');
    const raw = this.getAttribute('t');
    const t = raw === null || raw === '' ? d.defaultT : stepOf(this, T);
    this.stepper.set(t, T);
    this.stepper.out.textContent = `t = ${t} of ${T}: producing "${outs[t - 1]}" from s_${t - 1}`;
    renderTex(
      this.formula,
      'e_{tj} = v^\\top \\tanh\\big(W_s\\, s_{t-1} + W_h\\, h_j\\big), \\quad \\alpha_{tj} = \\frac{\\exp(e_{tj})}{\\sum_{k} \\exp(e_{tk})}, \\quad C_t = \\sum_j \\alpha_{tj}\\, h_j \\qquad \\text{vs.}\\quad e_{tj} = \\frac{s_{t-1} \\cdot h_j}{\\sqrt{d}}',
      { display: true },
    );
    this.setup.textContent = d.setup;
    this.translation.hidden = !d.trained;
    this.translation.textContent = d.trained ? `The trained model translates it as: “${d.text}”` : '';
    this.unknownLine.textContent = d.unknown;
    this.unknownLine.hidden = !d.unknown;

    // Both sides need s_{t-1} and h_j of the same width for the dot product.
    const B =
      dS === dH
        ? lookupStages(ap, {
            Q: { values: S, rows: T, cols: dS },
            K: { values: H, rows: m, cols: dH },
            V: { values: H, rows: m, cols: dH },
            score: 'scaled',
          })
        : null;

    const steps = outs.map((l, k) => `${k + 1} ${l}`);
    const i = t - 1;
    const p = t - 1; // the decoder state's index: s_{t-1}

    // The additive side: each stage for step t, from the core's trace.
    const one = (values, cols, at) => values.slice(at * cols, (at + 1) * cols);
    for (const [k, { name, view }] of additiveViews({ ...d, labels: src }, t).entries()) {
      let st = this.steps.get(name);
      if (!st) {
        st = { panel: new StepPanel(), heading: el('div', { style: { fontWeight: '600' } }) };
        this.steps.set(name, st);
        this.add.append(el('div', { className: 'add-step', dataset: { step: name } }, st.heading, st.panel.node));
      }
      st.heading.textContent = `${k + 1}. ${view.title}`;
      // A picked cell stays explained (with the new step's numbers) while it exists.
      const pk = this._picked?.name === name ? this._picked : null;
      if (pk && !(pk.row < view.output.rows && pk.col < view.output.cols)) this._picked = null;
      st.panel.show(view, { showInputs: false, explainCell: pk });
    }

    // The dot-product side, on the same states.
    if (B) {
      const mat = (name, title, values, rows, cols, extra = {}) =>
        matrix({ name, title, values, rows, cols, kind: 'div', ...extra });
      const Hm = mat('h', 'encoder states h_j', H, m, dH, { rowLabels: src, rowAxis: 'source j' });
      const Sm = mat('s', 'sₜ₋₁', S, T, dS, { rowLabels: steps.map((_, k) => `s${k}`) });
      const rowM = (name, title, values, cols, kind, colLabels = null) =>
        matrix({ name, title, values: one(values, cols, i), rows: 1, cols, rowLabels: [`t=${t}`], colLabels, kind });
      this.place(
        this.dot,
        d.trained
          ? el('p', {
              className: 'note',
              text: 'The model was trained with the additive score only: this is what a plain dot product of the same trained states would give, for comparison.',
            })
          : null,
        this.hm(
          'd-s',
          rowOf(Sm, i, { title: `1. decoder state s_${p}${t === 1 && !d.trained ? ' = 0 (start)' : ''}` }),
        ),
        this.hm('d-h', matrix({ ...Hm, title: '2. encoder states h_j (keys and values)' })),
        this.hm('d-e', rowM('e', `3. scores e_${t}j = s_${p}·h_j / √${dH}`, B.scores, m, 'div', src)),
        this.hm('d-alpha', rowM('alpha', `4. weights α_${t}j = softmax`, B.weights, m, 'prob', src)),
        this.hm('d-c', rowM('context', `5. context C_${t} = Σ_j α_${t}j h_j`, B.out, dH, 'div')),
      );
    } else {
      this.place(
        this.dot,
        el('p', {
          className: 'note',
          text: 'The decoder and encoder states have different widths here, so no dot product.',
        }),
      );
    }

    const align = (name, title, values) => {
      const h = this.hm(
        name,
        matrix({
          name,
          title,
          values,
          rows: T,
          cols: m,
          rowLabels: steps,
          colLabels: src,
          kind: 'prob',
          corner: 't \\ j',
          rowAxis: 'output step t',
          colAxis: 'source j',
        }),
      );
      h.highlightRow = i;
      return h;
    };
    this.place(
      this.maps,
      align('align-add', d.trained ? 'additive (trained): α_tj' : 'additive: α_tj', A.alpha),
      B ? align('align-dot', 'scaled dot product: α_tj', B.weights) : null,
    );

    this.dataset.t = String(t);
    this.dataset.n = String(m);
    this.dataset.weights = d.trained ? 'trained' : 'random';
    this.dataset.translation = d.trained ? d.text : '';
    this.dataset.source = JSON.stringify(src);
    this.dataset.output = JSON.stringify(outs);
    // For each output word, the source word of largest weight (what the alignment matrix shows).
    this.dataset.alignment = JSON.stringify(
      outs.map((o, k) => {
        let best = 0;
        for (let j = 1; j < m; j++) if (A.alpha[k * m + j] > A.alpha[k * m + best]) best = j;
        return [o, src[best], A.alpha[k * m + best]];
      }),
    );
    this.dataset.addScores = JSON.stringify(Array.from(one(A.e, m, i)));
    this.dataset.dotScores = B ? JSON.stringify(Array.from(B.scores.slice(i * m, (i + 1) * m))) : '[]';
  }

  /** The trained model on this.source: every stage copied from one translate() trace. */
  _trainedData(model) {
    const text = this.source.trim();
    if (!text) throw new Error('Type an English sentence for the model to translate.');
    const r = stagesOf(model.translate(text), TRAINED_STAGES);
    const [, T, m] = r.shape.add_scores;
    const dS = r.shape.dec_s[1],
      dH = r.shape.enc_h[1],
      dA = r.shape.add_v[1];
    const src = r.tokens.map(tokenLabel);
    const outs = r.output.map(tokenLabel);
    const zone = outs.indexOf('zone');
    return {
      trained: true,
      T,
      m,
      dS,
      dH,
      dA,
      src,
      outs,
      text: r.text,
      S: r.dec_s.slice(0, T * dS), // rows s_0 .. s_{T-1}: the state each step t starts from
      H: r.enc_h,
      A: {
        Ws: r.add_ws,
        Wh: r.add_wh,
        v: r.add_v,
        ws: r.add_s,
        wh: r.add_h,
        tanh: r.add_tanh,
        e: r.add_scores,
        alpha: r.add_weights,
        c: r.add_context,
      },
      defaultT: zone >= 0 ? zone + 1 : T,
      unknown: unknownNote(r.tokens, r.unknown, model.vocab.length),
      setup: `A trained RNN encoder-decoder (web/models/translate-rnn.safetensors, the project's toy English→French task). Encoder: a bidirectional RNN over your ${m} words, h_j = [→h_j; ←h_j] (${dH / 2} + ${dH / 2} numbers). Decoder: sₜ = tanh(W_y yₜ₋₁ + W_c Cₜ + W_ss sₜ₋₁ + b), reading the word it wrote before and the context; ${T} steps until <eos>. W_s, W_h and v were learned with the rest by backpropagation; the α are computed from them for this sentence.`,
    };
  }

  /** Random seeded RNNs and attention on the page's tokens (the view's first version). */
  _randomData(ap, run) {
    const { x, n, d, labels } = tokenRows(run);
    const H = bidirectionalStates(ap, { x, n, dIn: d, dHalf: D_HALF, seed: SEEDS.encoder });
    const dec = rnnStates(ap, { x, n, dIn: d, dHidden: D, seed: SEEDS.decoder });
    const S = new Float32Array(n * D); // row t-1 = s_{t-1}: s_0 = 0, then s_1 .. s_{n-1}
    S.set(dec.h.subarray(0, (n - 1) * D), D);
    const tr = ap.additiveAttention({ s: S, n, dS: D, h: H, m: n, dH: D, dA: D_A, seed: SEEDS.additive });
    let A;
    try {
      A = {
        Ws: tr.get('add_ws'),
        Wh: tr.get('add_wh'),
        v: tr.get('add_v'),
        ws: tr.get('add_s'),
        wh: tr.get('add_h'),
        tanh: tr.get('add_tanh'),
        e: tr.get('add_scores'),
        alpha: tr.get('add_weights'),
        c: tr.get('add_context'),
      };
    } finally {
      tr.dispose();
    }
    return {
      trained: false,
      T: n,
      m: n,
      dS: D,
      dH: D,
      dA: D_A,
      src: labels,
      outs: labels,
      S,
      H,
      A,
      defaultT: n,
      unknown: '',
      setup: `Random weights (untrained): encoder a bidirectional RNN over your ${n} tokens, h_j = [→h_j; ←h_j] (${D} numbers); decoder an RNN reading the same tokens (a copy task), s_0 = 0. W_s, W_h, v and the RNNs have random seeded weights: this shows how the alignment is computed, not what a trained model learns (choose the trained model for that).`,
    };
  }
}

define(ApBahdanau);
