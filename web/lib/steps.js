// The forward pass as a list of steps, built from a trace's stages(): one step per operation
// (embed, positions, Q, K, V, scores, scale, mask, softmax, weighted sum, heads, concat, W_O,
// residual, norm, FFN..., logits, probabilities), each with its formula (shapes filled in),
// the matrices that go in, the one that comes out, a line on what changed, and an explanation
// of any output cell. Post-norm and pre-norm blocks, encoder-decoder stacks and presets
// (a single attention layer) all come out of the same stage names.
import { matrix } from './heatmap.js';
import { fmt, tokenText } from './dom.js';
import { displayVocab } from './models.js';
import { colAt, dotTerms, rowAt, softmaxTerms } from './explain.js';

const SHORT = {
  tokens: 'tokens',
  embed: 'embed',
  pos: 'positions',
  x: 'X = E + P',
  q: 'Q',
  k: 'K',
  v: 'V',
  q_rot: 'rotate Q',
  k_rot: 'rotate K',
  scores: 'scores',
  pos_bias: 'rel. bias',
  scaled: 'scale',
  masked: 'mask',
  weights: 'softmax',
  head_out: 'A·V',
  heads: 'heads',
  concat: 'concat',
  attn_out: 'W_O',
  resid1: 'residual',
  norm1: 'norm',
  ffn_hidden: 'FFN hidden',
  ffn_act: 'activation',
  ffn_out: 'FFN out',
  resid2: 'residual',
  norm2: 'norm',
  final_norm: 'final norm',
  logits: 'logits',
  probs: 'probabilities',
  cross_q: 'Q (cross)',
  cross_k: 'K (cross)',
  cross_v: 'V (cross)',
  cross_scores: 'scores (cross)',
  cross_scaled: 'scale (cross)',
  cross_masked: 'mask (cross)',
  cross_weights: 'softmax (cross)',
  cross_head_out: 'A·V (cross)',
  cross_heads: 'heads (cross)',
  cross_concat: 'concat (cross)',
  cross_attn_out: 'W_O (cross)',
  cross_resid: 'residual (cross)',
  cross_norm: 'norm (cross)',
};

const f = (v) => fmt(v, 3);

function range(values) {
  let lo = Infinity,
    hi = -Infinity;
  for (const v of values) {
    if (Number.isFinite(v)) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return lo === Infinity ? [0, 0] : [lo, hi];
}
function meanAbs(values) {
  let s = 0;
  for (const v of values) s += Math.abs(v);
  return values.length ? s / values.length : 0;
}

/** Step id used in URLs: "<stack>:<layer>:<name>". */
export function stepId(stack, layer, name) {
  return `${stack || '-'}:${layer ?? '-'}:${name}`;
}

/** Everything a step needs to know about the run it comes from. */
export class Ctx {
  constructor(run) {
    this.run = run;
    this.c = run.config;
    this.pre = run.config.norm === 'pre';
    this.encdec = run.config.arch === 'encoder-decoder';
  }
  labels(stack) {
    return Array.from(this.run.labels(stack), tokenText);
  }
  flags(stack) {
    return this.run.flags(stack);
  }
  /** Whether stage `name` has one slice per head, as the trace says (Stage.perHead). */
  perHead(name) {
    if (!this._perHead)
      this._perHead = new Set(
        this.run
          .stages()
          .filter((s) => s.perHead)
          .map((s) => s.name),
      );
    return this._perHead.has(name);
  }
  /**
   * A stage as a matrix; per-head stages sliced to `head`. keyStack: the stack whose positions
   * are its columns, given for a stage of attention scores or weights (queries × keys).
   */
  m(name, { stack, layer = null, head = null, title, kind, colLabels, rowLabels, keyStack } = {}) {
    const opts = { stack, layer: layer ?? undefined };
    if (head !== null && this.perHead(name)) opts.head = head;
    const shape = this.run.shape(name, opts);
    const values = this.run.get(name, opts);
    const rows = shape.length === 1 ? 1 : shape[0];
    const cols = shape.length === 1 ? shape[0] : shape[shape.length - 1];
    const isAttn = keyStack !== undefined;
    const keyLabels = this.labels(keyStack ?? stack);
    // Weights whose score was masked (-inf) are marked, so a masked 0 never looks like a learned 0.
    let masked = null;
    if (/weights$/.test(name)) {
      const mv = this.run.get(name.replace('weights', 'masked'), opts);
      masked = new Uint8Array(mv.length);
      let any = false;
      for (let k = 0; k < mv.length; k++)
        if (mv[k] === -Infinity) {
          masked[k] = 1;
          any = true;
        }
      if (!any) masked = null;
    }
    return matrix({
      name,
      title: title || name,
      values,
      rows,
      cols,
      rowLabels: rowLabels !== undefined ? rowLabels : name === 'tokens' ? ['id'] : this.labels(stack).slice(0, rows),
      colLabels:
        colLabels !== undefined
          ? colLabels
          : name === 'tokens'
            ? this.labels(stack)
            : isAttn
              ? keyLabels.slice(0, cols)
              : null,
      rowFlags: name === 'tokens' ? null : this.flags(stack),
      colFlags: name === 'tokens' || isAttn ? this.flags(keyStack ?? stack) : null,
      kind: kind || (name === 'tokens' ? 'ids' : /weights|probs/.test(name) ? 'prob' : 'div'),
      rowAxis: isAttn ? 'queries' : 'tokens',
      colAxis: isAttn ? 'keys' : 'dimensions',
      corner: isAttn ? 'q \\ k' : '',
      masked,
    });
  }
  /** A weight tensor as a matrix (2-D), or a bias as a 1-row matrix; null if absent. */
  w(name, title, { rowLabels = null } = {}) {
    const t = this.run.tensor(name);
    if (!t) return null;
    const rows = t.shape.length === 1 ? 1 : t.shape[0];
    const cols = t.shape[t.shape.length - 1];
    return {
      ...matrix({
        name,
        title,
        values: t.data,
        rows,
        cols,
        rowLabels: rowLabels || (rows === 1 ? [''] : null),
        colLabels: null,
        kind: 'div',
      }),
      weight: true,
    };
  }
  /** Name prefix of a layer's tensors: "decoder.0." ('' for presets). */
  p(stack, layer) {
    return this.run.kind === 'model' ? `${stack}.${layer}.` : '';
  }
  wName(stack, layer, sub, w) {
    if (this.run.kind !== 'model') return w; // preset tensors: wq, wk, wv, wo
    return `${stack}.${layer}.${sub}.${w}`;
  }
  has(name, stack, layer) {
    return this.run.stages().some((s) => s.name === name && s.stack === stack && s.layer === layer);
  }
  /** The input of layer `layer` of `stack`: x, or the stage the core marks as the previous block's output. */
  layerInput(stack, layer) {
    if (layer === 0 || layer === null) return { name: 'x', layer: null, tex: 'X' };
    return { name: this.run.blockOutput(layer - 1, stack), layer: layer - 1, tex: `X^{(${layer})}` };
  }
  /** A stack's final output (what logits or cross-attention read), as the trace marks it. */
  stackOutput(stack) {
    return this.run.stackOutput(stack);
  }
}

/**
 * Steps of a run: [{ id, name, stack, layer, short, perHead (the stage's, from the trace), build(head) -> view }].
 * view = { title, tex, inputs: [matrix], output: matrix | null, outputs: [matrix] (heads),
 *          changed: string, explain(row, col) -> { title, formula, lines, result } }
 */
export function buildSteps(run) {
  if (run._steps) return run._steps;
  const ctx = new Ctx(run);
  const steps = [];
  const seen = new Set();
  for (const s of run.stages()) {
    if (s.name.endsWith('_stats')) continue;
    const id = stepId(s.stack, s.layer, s.name);
    if (seen.has(id)) continue;
    seen.add(id);
    const maker = MAKERS[s.name.replace(/^cross_/, '')];
    if (!maker) continue;
    const cross = s.name.startsWith('cross_');
    steps.push({
      id,
      name: s.name,
      stack: s.stack,
      layer: s.layer,
      short: SHORT[s.name] || s.name,
      perHead: s.perHead,
      build: (head) => maker(ctx, { stack: s.stack, layer: s.layer, head, cross, name: s.name, shape: s.shape }),
    });
    if (s.name === 'head_out' || s.name === 'cross_head_out') {
      const hid = stepId(s.stack, s.layer, cross ? 'cross_heads' : 'heads');
      steps.push({
        id: hid,
        name: cross ? 'cross_heads' : 'heads',
        stack: s.stack,
        layer: s.layer,
        short: SHORT[cross ? 'cross_heads' : 'heads'],
        perHead: false,
        build: () => headsStep(ctx, { stack: s.stack, layer: s.layer, cross }),
      });
    }
  }
  run._steps = steps;
  return steps;
}

/** The view of one step: stage `name` of `layer` (main stack unless given), head `head`. */
export function stepView(run, name, { layer = null, stack, head = 0 } = {}) {
  const steps = buildSteps(run);
  const st = stack ?? (run.kind === 'model' ? run.mainStack : '');
  const step = steps.find(
    (s) =>
      s.name === name &&
      (s.layer === layer || s.layer === null || layer === null) &&
      (s.stack === st || s.stack === ''),
  );
  if (!step) throw new Error(`this model has no step '${name}'${layer !== null ? ` in layer ${layer}` : ''}`);
  return { step, view: step.build(head) };
}

// ---- the step makers, one per stage name (cross_* share the self-attention ones) -------------

function attnNames(cross) {
  const p = cross ? 'cross_' : '';
  return {
    q: `${p}q`,
    k: `${p}k`,
    v: `${p}v`,
    scores: `${p}scores`,
    scaled: `${p}scaled`,
    masked: `${p}masked`,
    weights: `${p}weights`,
    head_out: `${p}head_out`,
    concat: `${p}concat`,
    attn_out: `${p}attn_out`,
  };
}

/** Where an attention sublayer reads its queries and its keys/values. */
function attnInputs(ctx, stack, layer, cross) {
  if (ctx.run.kind !== 'model')
    return { q: { name: 'x', layer: null, stack, tex: 'X' }, kv: { name: 'x', layer: null, stack, tex: 'X' } };
  if (!cross) {
    const src = ctx.pre
      ? { name: 'norm1', layer, stack, tex: '\\mathrm{LN}(X)' }
      : { ...ctx.layerInput(stack, layer), stack };
    return { q: src, kv: src };
  }
  const q = ctx.pre
    ? { name: 'cross_norm', layer, stack, tex: '\\mathrm{LN}(H)' }
    : { name: 'norm1', layer, stack, tex: 'H' };
  const out = ctx.stackOutput('encoder');
  return { q, kv: { ...out, stack: 'encoder', tex: 'Z_{\\text{enc}}' } };
}

function headSlice(values, rows, cols, head, dK) {
  const out = new Float32Array(rows * dK);
  for (let i = 0; i < rows; i++) for (let c = 0; c < dK; c++) out[i * dK + c] = values[i * cols + head * dK + c];
  return out;
}

function embedStep(ctx, { stack }) {
  const X = ctx.m('embed', { stack, title: 'token embeddings E[ids]' });
  const ids = ctx.run.kind === 'model' ? ctx.m('tokens', { stack, title: 'token ids' }) : null;
  const { n, d } = { n: X.rows, d: X.cols };
  const E = ctx.run.tensor('tok_emb');
  return {
    title: 'Embed: each token id picks one row of the embedding table E',
    tex: `X_{\\text{tok}} = E[\\text{ids}] \\quad (${E ? `${E.shape[0]}\\times ${E.shape[1]}` : `V\\times ${d}`})[${n}] \\to ${n}\\times ${d}`,
    inputs: ids ? [ids] : [],
    output: X,
    changed: `${n} tokens became ${n} vectors of ${d} numbers (values from ${f(range(X.values)[0])} to ${f(range(X.values)[1])}).`,
    explain: (i, c) => ({
      title: `X_tok[${i}, ${c}]`,
      formula: `X_{\\text{tok}}[${i},${c}] = E[\\text{id}_{${i}}, ${c}]`,
      lines: ids ? [`token "${X.rowLabels[i]}" has id ${ids.values[i]}: row ${ids.values[i]} of E, column ${c}`] : [],
      result: `= ${fmt(X.values[i * d + c], 4)}`,
    }),
  };
}

function tokensStep(ctx, { stack }) {
  const ids = ctx.m('tokens', { stack, title: 'token ids' });
  const unk = [...ctx.flags(stack)];
  return {
    title: 'Tokens: the text is split into pieces and each piece gets its id in the vocabulary',
    tex: `\\text{text} \\to ${ids.cols} \\text{ tokens} \\to \\text{ids} \\in \\mathbb{N}^{${ids.cols}}`,
    inputs: [],
    output: ids,
    changed: unk.length
      ? `${unk.length} piece(s) are not in the vocabulary and became <unk> (id 1): ${unk.map((i) => `"${ids.colLabels[i]}"`).join(', ')}.`
      : `${ids.cols} pieces, all in the vocabulary.`,
    explain: (i, j) => ({
      title: `id of "${ids.colLabels[j]}"`,
      lines: [`vocabulary["${ids.colLabels[j]}"] = ${ids.values[j]}`],
      result: `= ${ids.values[j]}`,
    }),
  };
}

function posStep(ctx, { stack }) {
  const P = ctx.m('pos', { stack, title: 'positions P' });
  const learned = ctx.c.pos === 'learned';
  return {
    title: learned
      ? 'Positions: row i of the learned table P is added for position i'
      : 'Positions: sinusoidal encodings, one row per position',
    tex: learned
      ? `P = P_{\\text{learned}}[0..${P.rows - 1}] \\quad ${P.rows}\\times ${P.cols}`
      : `P_{(pos,2i)} = \\sin\\!\\big(pos / 10000^{2i/${P.cols}}\\big),\\; P_{(pos,2i+1)} = \\cos(\\cdot) \\quad ${P.rows}\\times ${P.cols}`,
    inputs: [],
    output: P,
    changed: learned
      ? 'A learned row per position (trained like the embeddings).'
      : 'Row 0 is 0, 1, 0, 1, …; later rows rotate at wavelengths that grow along the columns.',
    explain: (pos, c) => {
      const i = Math.floor(c / 2);
      return {
        title: `P[${pos}, ${c}]`,
        formula: learned
          ? `P[${pos},${c}]`
          : `P_{(${pos},${c})} = \\${c % 2 ? 'cos' : 'sin'}\\!\\left(${pos} / 10000^{${2 * i}/${P.cols}}\\right)`,
        lines: learned
          ? ['a trained parameter']
          : [
              `${c % 2 ? 'cos' : 'sin'}(${pos} / ${fmt(10000 ** ((2 * i) / P.cols), 4)}) = ${c % 2 ? 'cos' : 'sin'}(${fmt(pos / 10000 ** ((2 * i) / P.cols), 4)})`,
            ],
        result: `= ${fmt(P.values[pos * P.cols + c], 4)} (core)`,
      };
    },
  };
}

function xStep(ctx, { stack }) {
  const X = ctx.m('x', { stack, title: 'X (input of layer 0)' });
  const E = ctx.m('embed', { stack, title: 'embeddings' });
  const hasPos = ctx.has('pos', stack, null);
  const P = hasPos ? ctx.m('pos', { stack, title: 'positions P' }) : null;
  return {
    title: hasPos
      ? 'Add positions: X = X_tok + P'
      : `Input X = X_tok (no positions added${ctx.c.pos === 'rope' ? ': RoPE rotates Q and K instead' : ctx.c.pos === 'relative' ? ': relative positions bias the scores instead' : ''})`,
    tex: hasPos
      ? `X = X_{\\text{tok}} + P \\quad ${X.rows}\\times ${X.cols} + ${X.rows}\\times ${X.cols} \\to ${X.rows}\\times ${X.cols}`
      : `X = X_{\\text{tok}} \\quad ${X.rows}\\times ${X.cols}`,
    inputs: hasPos ? [E, P] : [E],
    output: X,
    changed: hasPos
      ? `Every row moved by its position's vector (mean |P| = ${f(meanAbs(P.values))}): the same word at two places is now two different rows.`
      : 'Nothing added: the rows carry no position.',
    explain: (i, c) => ({
      title: `X[${i}, ${c}]`,
      lines: hasPos ? [`${fmt(E.values[i * X.cols + c], 4)} + ${fmt(P.values[i * X.cols + c], 4)}`] : [],
      result: `= ${fmt(X.values[i * X.cols + c], 4)}`,
    }),
  };
}

function projStep(ctx, { stack, layer, cross, name }) {
  const which = name.replace('cross_', ''); // q | k | v
  const src = attnInputs(ctx, stack, layer, cross)[which === 'q' ? 'q' : 'kv'];
  const X = ctx.m(src.name, { stack: src.stack, layer: src.layer, title: `${src.name} (input)` });
  const sub = cross ? 'cross_attn' : 'self_attn';
  const W = ctx.w(ctx.wName(stack, layer, sub, `w${which}`), `W_${which.toUpperCase()}`);
  const b =
    ctx.run.kind === 'model' ? ctx.w(ctx.wName(stack, layer, sub, `b${which}`), `b_${which.toUpperCase()}`) : null;
  const out = ctx.m(name, {
    stack,
    layer,
    title: `${which.toUpperCase()}${cross ? ' (cross)' : ''}`,
    rowLabels: X.rowLabels,
  });
  out.rowFlags = X.rowFlags;
  const U = which.toUpperCase();
  const d = X.cols;
  const roles = {
    q: 'what each token is looking for',
    k: 'what each token offers to be found by',
    v: 'what each token passes on when attended to',
  };
  return {
    title: `${U} = ${src.tex.replace(/\\[a-z]+|[{}]/g, '')} W_${U}${b ? ` + b_${U}` : ''}: ${roles[which]}${cross ? (which === 'q' ? ' (from the decoder)' : ' (from the encoder output)') : ''}`,
    tex: `${U} = ${src.tex}\\, W_{${U}}${b ? ` + b_{${U}}` : ''} \\quad (${X.rows}\\times ${d})(${d}\\times ${out.cols}) \\to ${out.rows}\\times ${out.cols}`,
    inputs: [X, W, b].filter(Boolean),
    output: out,
    changed: `Each of the ${out.rows} rows is its token's vector times W_${U}: ${out.rows}×${out.cols} numbers, from ${f(range(out.values)[0])} to ${f(range(out.values)[1])}.`,
    explain: (i, c) => {
      const x = rowAt(X.values, d, i);
      const w = colAt(W.values, W.rows, W.cols, c);
      const { lines, sum } = dotTerms(x, w, { aName: 'x', bName: `W_${U}[:,${c}]`, bias: b ? b.values[c] : null });
      return {
        title: `${U}[${i}, ${c}]: row "${X.rowLabels[i]}" of the input times column ${c} of W_${U}`,
        formula: `${which}_{${i},${c}} = \\sum_{r} x_{${i},r}\\, W_{${U}}[r,${c}]${b ? ` + b_{${c}}` : ''}`,
        lines,
        result: `Σ = ${fmt(sum, 4)}   core: ${fmt(out.values[i * out.cols + c], 4)}`,
      };
    },
  };
}

function rotStep(ctx, { stack, layer, name }) {
  const base = name.replace('_rot', '');
  const A = ctx.m(base, { stack, layer, title: base.toUpperCase() });
  const B = ctx.m(name, { stack, layer, title: `${base.toUpperCase()} rotated` });
  return {
    title: `RoPE: rotate each pair of dimensions of ${base.toUpperCase()} by an angle proportional to the position`,
    tex: `\\begin{pmatrix}${base}'_{2i}\\\\ ${base}'_{2i+1}\\end{pmatrix} = \\begin{pmatrix}\\cos m\\theta_i & -\\sin m\\theta_i\\\\ \\sin m\\theta_i & \\cos m\\theta_i\\end{pmatrix}\\begin{pmatrix}${base}_{2i}\\\\ ${base}_{2i+1}\\end{pmatrix},\\; \\theta_i = 10000^{-2i/d_k} \\quad ${B.rows}\\times ${B.cols}`,
    inputs: [A],
    output: B,
    changed: 'Row lengths (per pair) are unchanged; only directions turn, by more for later positions.',
    explain: (i, c) => ({
      title: `${base}_rot[${i}, ${c}]`,
      lines: [`pair (${c - (c % 2)}, ${c - (c % 2) + 1}) of row ${i} rotated by position ${i}`],
      result: `= ${fmt(B.values[i * B.cols + c], 4)}`,
    }),
  };
}

function qkFor(ctx, stack, layer, cross, head) {
  const rope = !cross && ctx.has('q_rot', stack, layer);
  const n = attnNames(cross);
  const qName = rope ? 'q_rot' : n.q,
    kName = rope ? 'k_rot' : n.k;
  const kStack = cross ? 'encoder' : stack;
  const q = ctx.m(qName, { stack, layer });
  const k = cross
    ? ctx.m(kName, {
        stack,
        layer,
        rowLabels: ctx.labels('encoder').slice(0, ctx.run.shape(kName, { stack, layer })[0]),
      })
    : ctx.m(kName, { stack, layer });
  const dK = ctx.c.dModel / ctx.c.nHeads;
  const Q = matrix({
    ...q,
    name: `${qName}_h`,
    title: `Q${rope ? ' (rotated)' : ''}, head ${head}`,
    values: headSlice(q.values, q.rows, q.cols, head, dK),
    cols: dK,
    colLabels: null,
  });
  const K = matrix({
    ...k,
    name: `${kName}_h`,
    title: `K${rope ? ' (rotated)' : ''}, head ${head}`,
    values: headSlice(k.values, k.rows, k.cols, head, dK),
    cols: dK,
    colLabels: null,
    rowFlags: ctx.flags(kStack),
  });
  return { Q, K, dK, rope };
}

function scoresStep(ctx, { stack, layer, head, cross, name }) {
  const { Q, K, dK, rope } = qkFor(ctx, stack, layer, cross, head);
  const kStack = cross ? 'encoder' : stack;
  const S = ctx.m(name, { stack, layer, head, keyStack: kStack, title: `scores S, head ${head}` });
  const [lo, hi] = range(S.values);
  return {
    title: `Scores: every query against every key, S = Q Kᵀ (head ${head} of ${ctx.c.nHeads}${rope ? ', with rotated Q and K' : ''})`,
    tex: `S^{(${head})} = Q^{(${head})} K^{(${head})\\top} \\quad (${Q.rows}\\times ${dK})(${dK}\\times ${K.rows}) \\to ${S.rows}\\times ${S.cols}`,
    inputs: [Q, K],
    output: S,
    changed: `${S.rows}×${S.cols} dot products, from ${f(lo)} to ${f(hi)}. Bigger means query i matches key j better.`,
    explain: (i, j) => {
      const { lines, sum } = dotTerms(rowAt(Q.values, dK, i), rowAt(K.values, dK, j), { aName: 'q', bName: 'k' });
      return {
        title: `score of "${S.rowLabels[i]}" → "${S.colLabels[j]}"`,
        formula: `s_{${i}${j}} = q_{${i}} \\cdot k_{${j}} = \\sum_{c=0}^{${dK - 1}} q_{${i}c}\\, k_{${j}c}`,
        lines,
        result: `Σ = ${fmt(sum, 4)}   core: ${fmt(S.values[i * S.cols + j], 4)}`,
      };
    },
  };
}

function posBiasStep(ctx, { stack, layer, head }) {
  const S = ctx.m('scores', { stack, layer, head, keyStack: stack, title: 'scores' });
  const B = ctx.m('pos_bias', { stack, layer, head, keyStack: stack, title: `relative bias B, head ${head}` });
  const rel = ctx.run.tensor('rel_bias');
  const clip = ctx.c.relClip;
  const biasRow = rel
    ? matrix({
        name: 'rel_bias',
        title: `learned bias by offset j−i (head ${head})`,
        values: rel.data.slice(head * rel.shape[1], (head + 1) * rel.shape[1]),
        rows: 1,
        cols: rel.shape[1],
        rowLabels: [`h${head}`],
        colLabels: Array.from({ length: rel.shape[1] }, (_, k) => String(k - clip)),
        kind: 'div',
      })
    : null;
  return {
    title: 'Relative positions: a learned bias for each offset j − i is added to the scores',
    tex: `B_{ij} = b\\big[\\mathrm{clip}(j-i, -${clip}, ${clip})\\big] \\quad ${B.rows}\\times ${B.cols}`,
    inputs: [biasRow || S].filter(Boolean),
    output: B,
    changed:
      'Every diagonal (same offset j − i) holds one number: the bias depends only on the distance, not on the absolute position.',
    explain: (i, j) => ({
      title: `B[${i}, ${j}]`,
      lines: [`offset j − i = ${j - i}, clipped to ${Math.max(-clip, Math.min(clip, j - i))}`],
      result: `= ${fmt(B.values[i * B.cols + j], 4)}`,
    }),
  };
}

function scaledStep(ctx, { stack, layer, head, cross, name }) {
  const n = attnNames(cross);
  const kStack = cross ? 'encoder' : stack;
  const S = ctx.m(n.scores, { stack, layer, head, keyStack: kStack, title: 'scores S' });
  const hasBias = !cross && ctx.has('pos_bias', stack, layer);
  const B = hasBias ? ctx.m('pos_bias', { stack, layer, head, keyStack: stack, title: 'relative bias B' }) : null;
  const out = ctx.m(name, { stack, layer, head, keyStack: kStack, title: `scaled scores, head ${head}` });
  const dK = ctx.c.dModel / ctx.c.nHeads;
  const on = ctx.c.scale;
  const clipped = (off) => Math.max(-ctx.c.relClip, Math.min(ctx.c.relClip, off)); // the core's offset clip
  // √d_k as the core applied it: the ratio of a score to its scaled value.
  let ratio = null;
  for (let i = 0; i < S.values.length; i++) {
    const s = S.values[i],
      t = out.values[i] - (B ? B.values[i] : 0);
    if (Math.abs(s) > 1e-3 && Math.abs(t) > 1e-6) {
      ratio = s / t;
      break;
    }
  }
  const [lo, hi] = range(S.values),
    [lo2, hi2] = range(out.values);
  return {
    title: on
      ? `Scale: divide every score by √d_k = √${dK}${B ? ', then add the relative bias' : ''}`
      : `Scale switched off: the scores pass unchanged${B ? ' (plus the relative bias)' : ''}`,
    tex: on
      ? `\\tilde S = \\frac{S}{\\sqrt{d_k}}${B ? ' + B' : ''} = \\frac{S}{\\sqrt{${dK}}}${B ? ' + B' : ''} \\quad ${out.rows}\\times ${out.cols}`
      : `\\tilde S = S${B ? ' + B' : ''} \\quad ${out.rows}\\times ${out.cols}`,
    inputs: [S, B].filter(Boolean),
    output: out,
    // With a relative bias the new range is the bias's doing too: no claim about the peak then.
    changed: B
      ? `${on ? `Divided by √${dK} = ${ratio ? fmt(ratio, 2) : fmt(Math.sqrt(dK), 2)}, then` : 'Unscaled;'} each pair's bias b[j − i] added: the range [${f(lo)}, ${f(hi)}] became [${f(lo2)}, ${f(hi2)}].`
      : on
        ? `Divided by √${dK} = ${ratio ? fmt(ratio, 2) : fmt(Math.sqrt(dK), 2)}: the range [${f(lo)}, ${f(hi)}] became [${f(lo2)}, ${f(hi2)}], so the softmax is less peaked.`
        : `Unscaled: the range stays [${f(lo2)}, ${f(hi2)}]; with large d_k the softmax saturates.`,
    explain: (i, j) => ({
      title: `scaled score "${out.rowLabels[i]}" → "${out.colLabels[j]}"`,
      formula: on
        ? `\\tilde s_{${i}${j}} = s_{${i}${j}} / \\sqrt{${dK}}${B ? ` + b_{${clipped(j - i)}}` : ''}`
        : `\\tilde s_{${i}${j}} = s_{${i}${j}}${B ? ` + b_{${clipped(j - i)}}` : ''}`,
      lines: [
        `${fmt(S.values[i * S.cols + j], 4)}${on ? ` / ${fmt(Math.sqrt(dK), 4)}` : ''}${B ? ` + ${fmt(B.values[i * B.cols + j], 4)}` : ''}`,
      ],
      result: `= ${fmt(out.values[i * out.cols + j], 4)} (core)`,
    }),
  };
}

function maskedStep(ctx, { stack, layer, head, cross, name }) {
  const n = attnNames(cross);
  const kStack = cross ? 'encoder' : stack;
  const S = ctx.m(n.scaled, { stack, layer, head, keyStack: kStack, title: 'scaled scores' });
  const out = ctx.m(name, { stack, layer, head, keyStack: kStack, title: `masked scores, head ${head}` });
  let count = 0;
  for (const v of out.values) if (v === -Infinity) count++;
  const causal = !cross && ctx.c.causal && ctx.c.arch !== 'encoder';
  return {
    title: count
      ? `Mask: ${count} future scores set to −∞ (a token may not look ahead)`
      : cross
        ? 'Mask: cross-attention sees every source token (nothing masked)'
        : 'Mask: none (bidirectional attention: every token sees every token)',
    tex:
      count || causal
        ? `\\tilde S_{ij} \\leftarrow -\\infty \\text{ for } j > i \\quad ${out.rows}\\times ${out.cols}`
        : `\\tilde S \\text{ unchanged (no mask)} \\quad ${out.rows}\\times ${out.cols}`,
    inputs: [S],
    output: out,
    changed: count
      ? `${count} of ${out.values.length} cells are now −∞ (hatched): after the softmax their weights are exactly 0.`
      : 'No cell changed: switch on the causal mask to hide the future.',
    explain: (i, j) => {
      const v = out.values[i * out.cols + j];
      return {
        title: `masked score [${i}, ${j}]`,
        lines: [
          v === -Infinity ? `key ${j} comes after query ${i}: masked` : `key ${j} ≤ query ${i} (or no mask): kept`,
        ],
        result: `= ${fmt(v, 4)}`,
      };
    },
  };
}

function weightsStep(ctx, { stack, layer, head, cross, name }) {
  const n = attnNames(cross);
  const kStack = cross ? 'encoder' : stack;
  const M = ctx.m(n.masked, { stack, layer, head, keyStack: kStack, title: 'masked scores' });
  const A = ctx.m(name, { stack, layer, head, keyStack: kStack, title: `attention weights A, head ${head}` });
  let best = { v: -1, i: 0, j: 0 };
  for (let i = 0; i < A.rows; i++)
    for (let j = 0; j < A.cols; j++) {
      const v = A.values[i * A.cols + j];
      if (v > best.v) best = { v, i, j };
    }
  return {
    title: 'Softmax: each row becomes non-negative weights that sum to 1',
    tex: `A_{ij} = \\frac{\\exp(\\tilde s_{ij} - \\max_k \\tilde s_{ik})}{\\sum_{k} \\exp(\\tilde s_{ik} - \\max_k \\tilde s_{ik})} \\quad ${A.rows}\\times ${A.cols}`,
    inputs: [M],
    output: A,
    changed: `Every row now sums to 1; the largest weight is ${f(best.v)} ("${A.rowLabels[best.i]}" → "${A.colLabels[best.j]}").`,
    explain: (i, j) => {
      const row = rowAt(M.values, M.cols, i);
      const t = softmaxTerms(row, j, M.colLabels);
      return {
        title: `weight of "${A.rowLabels[i]}" → "${A.colLabels[j]}"`,
        formula: `A_{${i}${j}} = \\frac{\\exp(\\tilde s_{${i}${j}} - \\max)}{\\sum_k \\exp(\\tilde s_{${i}k} - \\max)}`,
        lines: t.lines,
        result: `${fmt(t.exps[j], 4)} / ${fmt(t.total, 4)} = ${fmt(t.value, 4)}   core: ${fmt(A.values[i * A.cols + j], 4)}`,
      };
    },
  };
}

function headOutStep(ctx, { stack, layer, head, cross, name }) {
  const n = attnNames(cross);
  const kStack = cross ? 'encoder' : stack;
  const A = ctx.m(n.weights, { stack, layer, head, keyStack: kStack, title: 'weights A' });
  const vAll = ctx.m(n.v, {
    stack,
    layer,
    rowLabels: ctx.labels(kStack).slice(0, ctx.run.shape(n.v, { stack, layer })[0]),
  });
  const dK = ctx.c.dModel / ctx.c.nHeads;
  const V = matrix({
    ...vAll,
    name: 'v_h',
    title: `V, head ${head}`,
    values: headSlice(vAll.values, vAll.rows, vAll.cols, head, dK),
    cols: dK,
    colLabels: null,
    rowFlags: ctx.flags(kStack),
  });
  const Z = ctx.m(name, { stack, layer, head, title: `head output Z = A V, head ${head}` });
  return {
    title: "Weighted sum: each output row mixes the value rows with that row's weights",
    tex: `Z^{(${head})} = A^{(${head})} V^{(${head})} \\quad (${A.rows}\\times ${A.cols})(${V.rows}\\times ${dK}) \\to ${Z.rows}\\times ${Z.cols}`,
    inputs: [A, V],
    output: Z,
    changed: `Row i of Z is Σ_j A_ij v_j: e.g. z_${A.rowLabels[0]} = ${Array.from(rowAt(A.values, A.cols, 0))
      .slice(0, 4)
      .map((w, j) => `${f(w)} v_${A.colLabels[j]}`)
      .join(' + ')}${A.cols > 4 ? ' + …' : ''}.`,
    explain: (i, c) => {
      const w = rowAt(A.values, A.cols, i);
      const col = colAt(V.values, V.rows, dK, c);
      const { lines, sum } = dotTerms(w, col, { aName: 'A', bName: 'v' });
      return {
        title: `Z["${Z.rowLabels[i]}", ${c}]: weights of row ${i} times column ${c} of V`,
        formula: `z_{${i},${c}} = \\sum_j A_{${i}j}\\, v_{j,${c}}`,
        lines,
        result: `Σ = ${fmt(sum, 4)}   core: ${fmt(Z.values[i * Z.cols + c], 4)}`,
      };
    },
  };
}

function headsStep(ctx, { stack, layer, cross }) {
  const n = attnNames(cross);
  const kStack = cross ? 'encoder' : stack;
  const h = ctx.c.nHeads;
  const weights = [],
    outs = [];
  for (let i = 0; i < h; i++) {
    weights.push(ctx.m(n.weights, { stack, layer, head: i, keyStack: kStack, title: `A, head ${i}` }));
    outs.push(ctx.m(n.head_out, { stack, layer, head: i, title: `Z, head ${i}` }));
  }
  const dK = ctx.c.dModel / h;
  return {
    title: `All ${h} heads at once: each has its own W_Q, W_K, W_V slice of size d_k = ${ctx.c.dModel}/${h} = ${dK}, so its own pattern`,
    tex: `\\text{head}_i = \\operatorname{softmax}\\!\\Big(\\frac{Q^{(i)}K^{(i)\\top}}{\\sqrt{${dK}}}\\Big)V^{(i)},\\; i = 0..${h - 1} \\quad ${h}\\times ${outs[0].rows}\\times ${dK}`,
    inputs: weights,
    output: null,
    outputs: outs,
    changed: `${h} patterns side by side (left: weights; below: each head's ${outs[0].rows}×${dK} output).`,
    explain: null,
  };
}

function concatStep(ctx, { stack, layer, cross, name }) {
  const n = attnNames(cross);
  const h = ctx.c.nHeads;
  const heads = [];
  for (let i = 0; i < h; i++) heads.push(ctx.m(n.head_out, { stack, layer, head: i, title: `Z, head ${i}` }));
  const C = ctx.m(name, { stack, layer, title: 'concatenated heads' });
  const dK = ctx.c.dModel / h;
  return {
    title: `Concatenate: the ${h} head outputs side by side make one ${C.rows}×${C.cols} matrix`,
    tex: `\\operatorname{Concat}(Z^{(0)},\\dots,Z^{(${h - 1})}) \\quad ${h}\\times(${C.rows}\\times ${dK}) \\to ${C.rows}\\times ${C.cols}`,
    inputs: heads,
    output: C,
    changed: `Columns ${dK}·i … ${dK}·i + ${dK - 1} hold head i: nothing is computed, only arranged (the (h, n, d_k) → (n, h·d_k) reshape).`,
    explain: (i, c) => ({
      title: `concat[${i}, ${c}]`,
      lines: [`column ${c} = head ${Math.floor(c / dK)}, its column ${c % dK}`],
      result: `= ${fmt(C.values[i * C.cols + c], 4)}`,
    }),
  };
}

function attnOutStep(ctx, { stack, layer, cross, name }) {
  const n = attnNames(cross);
  const C = ctx.m(n.concat, { stack, layer, title: 'concat' });
  const sub = cross ? 'cross_attn' : 'self_attn';
  const W = ctx.w(ctx.wName(stack, layer, sub, 'wo'), 'W_O');
  const b = ctx.run.kind === 'model' ? ctx.w(ctx.wName(stack, layer, sub, 'bo'), 'b_O') : null;
  const O = ctx.m(name, { stack, layer, title: `attention output${cross ? ' (cross)' : ''}` });
  const d = C.cols;
  return {
    title: 'Output projection: W_O mixes the heads back into one d-dimensional vector per token',
    tex: `\\operatorname{MHA} = \\operatorname{Concat}\\, W_O${b ? ' + b_O' : ''} \\quad (${C.rows}\\times ${d})(${d}\\times ${O.cols}) \\to ${O.rows}\\times ${O.cols}`,
    inputs: [C, W, b].filter(Boolean),
    output: O,
    changed: `The multi-head attention output: ${O.rows}×${O.cols}, from ${f(range(O.values)[0])} to ${f(range(O.values)[1])}.`,
    explain: (i, c) => {
      const { lines, sum } = dotTerms(rowAt(C.values, d, i), colAt(W.values, W.rows, W.cols, c), {
        aName: 'concat',
        bName: `W_O[:,${c}]`,
        bias: b ? b.values[c] : null,
      });
      return {
        title: `attention output[${i}, ${c}]`,
        formula: `o_{${i},${c}} = \\sum_r \\text{concat}_{${i},r} W_O[r,${c}]${b ? ` + b_{${c}}` : ''}`,
        lines,
        result: `Σ = ${fmt(sum, 4)}   core: ${fmt(O.values[i * O.cols + c], 4)}`,
      };
    },
  };
}

/** The two summands of a residual stage. */
function residualParts(ctx, stack, layer, name) {
  const X = ctx.layerInput(stack, layer);
  const hasCross = ctx.has('cross_resid', stack, layer);
  if (name === 'resid1')
    return [
      { ...X, stack, tex: X.tex },
      { name: 'attn_out', layer, stack, tex: '\\operatorname{MHA}' },
    ];
  if (name === 'cross_resid')
    return [
      ctx.pre ? { name: 'resid1', layer, stack, tex: 'H' } : { name: 'norm1', layer, stack, tex: 'H' },
      { name: 'cross_attn_out', layer, stack, tex: '\\operatorname{CrossAttn}' },
    ];
  const base = ctx.pre ? (hasCross ? 'cross_resid' : 'resid1') : hasCross ? 'cross_norm' : 'norm1';
  return [
    { name: base, layer, stack, tex: 'H' },
    { name: 'ffn_out', layer, stack, tex: '\\operatorname{FFN}' },
  ];
}

function residStep(ctx, { stack, layer, name }) {
  const [a, b] = residualParts(ctx, stack, layer, name);
  const A = ctx.m(a.name, { stack, layer: a.layer, title: `${a.name} (skip path)` });
  const B = ctx.m(b.name, { stack, layer: b.layer, title: `${b.name} (sublayer)` });
  const R = ctx.m(name, { stack, layer, title: 'residual sum' });
  return {
    title: "Residual: add the sublayer's output to its input (the skip connection)",
    tex: `${name === 'resid2' ? "H'" : 'H'} = ${a.tex} + ${b.tex}(\\cdot) \\quad ${R.rows}\\times ${R.cols} + ${R.rows}\\times ${R.cols} \\to ${R.rows}\\times ${R.cols}`,
    inputs: [A, B],
    output: R,
    changed: `Each row moved by the sublayer's output (mean |change| ${f(meanAbs(B.values))}, mean |input| ${f(meanAbs(A.values))}): the input is kept, the sublayer only adds to it.`,
    explain: (i, c) => ({
      title: `residual[${i}, ${c}]`,
      lines: [`${fmt(A.values[i * R.cols + c], 4)} + ${fmt(B.values[i * R.cols + c], 4)}`],
      result: `= ${fmt(R.values[i * R.cols + c], 4)} (core)`,
    }),
  };
}

function normInput(ctx, stack, layer, name) {
  if (name === 'final_norm') return { name: 'resid2', layer: ctx.c.nLayers - 1 };
  if (!ctx.pre) return { name: { norm1: 'resid1', norm2: 'resid2', cross_norm: 'cross_resid' }[name], layer };
  if (name === 'norm1') return { ...ctx.layerInput(stack, layer) };
  if (name === 'cross_norm') return { name: 'resid1', layer };
  return { name: ctx.has('cross_resid', stack, layer) ? 'cross_resid' : 'resid1', layer };
}

function normStep(ctx, { stack, layer, name }) {
  const src = normInput(ctx, stack, layer, name);
  const X = ctx.m(src.name, { stack, layer: src.layer, title: `${src.name} (input)` });
  const stats = ctx.m(`${name}_stats`, { stack, layer, title: 'row mean μ and σ = √(var + ε)', colLabels: ['μ', 'σ'] });
  const tname =
    name === 'final_norm' ? `${stack}.final_norm` : `${stack}.${layer}.${name === 'cross_norm' ? 'norm_cross' : name}`;
  const gamma = ctx.w(`${tname}.gamma`, 'γ (gain)');
  const beta = ctx.w(`${tname}.beta`, 'β (bias)');
  const Y = ctx.m(name, { stack, layer, title: 'normalised' });
  const d = X.cols;
  const [muLo, muHi] = range(colAt(stats.values, stats.rows, 2, 0));
  return {
    title: `Layer norm${ctx.pre ? ' (pre-norm: before the sublayer)' : ''}: each row to mean 0 and variance 1, then scaled by γ and shifted by β`,
    tex: `\\mathrm{LN}(x)_c = \\frac{x_c - \\mu}{\\sqrt{\\sigma^2 + \\epsilon}}\\, \\gamma_c + \\beta_c \\quad ${X.rows}\\times ${d} \\to ${Y.rows}\\times ${d}`,
    inputs: [X, stats, gamma, beta].filter(Boolean),
    output: Y,
    changed: `Row means were between ${f(muLo)} and ${f(muHi)}; after normalising every row has mean 0 and variance 1 (before γ, β).`,
    explain: (i, c) => {
      const mu = stats.values[i * 2],
        sigma = stats.values[i * 2 + 1];
      const x = X.values[i * d + c];
      const g = gamma ? gamma.values[c] : 1,
        b = beta ? beta.values[c] : 0;
      return {
        title: `LN[${i}, ${c}]`,
        formula: `\\frac{x_{${i},${c}} - \\mu_{${i}}}{\\sigma_{${i}}}\\,\\gamma_{${c}} + \\beta_{${c}}`,
        lines: [
          `(${fmt(x, 4)} − ${fmt(mu, 4)}) / ${fmt(sigma, 4)} × ${fmt(g, 4)} + ${fmt(b, 4)}`,
          `= ${fmt(((x - mu) / sigma) * g + b, 4)}`,
        ],
        result: `core: ${fmt(Y.values[i * d + c], 4)}`,
      };
    },
  };
}

function ffnInput(ctx, stack, layer) {
  const hasCross = ctx.has('cross_norm', stack, layer);
  if (ctx.pre) return 'norm2';
  return hasCross ? 'cross_norm' : 'norm1';
}

function ffnHiddenStep(ctx, { stack, layer }) {
  const X = ctx.m(ffnInput(ctx, stack, layer), { stack, layer, title: 'FFN input' });
  const W = ctx.w(`${stack}.${layer}.ffn.w1`, 'W_1');
  const b = ctx.w(`${stack}.${layer}.ffn.b1`, 'b_1');
  const H = ctx.m('ffn_hidden', { stack, layer, title: 'hidden pre-activation' });
  return {
    title: `FFN, first layer: each token separately goes up to d_ff = ${H.cols} dimensions`,
    tex: `H = X W_1 + b_1 \\quad (${X.rows}\\times ${X.cols})(${X.cols}\\times ${H.cols}) \\to ${H.rows}\\times ${H.cols}`,
    inputs: [X, W, b].filter(Boolean),
    output: H,
    changed: `${H.rows} rows of ${H.cols} numbers (d_ff = ${H.cols / X.cols}·d): the same W_1 for every token, no token sees another here.`,
    explain: (i, c) => {
      const { lines, sum } = dotTerms(rowAt(X.values, X.cols, i), colAt(W.values, W.rows, W.cols, c), {
        aName: 'x',
        bName: `W_1[:,${c}]`,
        bias: b ? b.values[c] : null,
      });
      return {
        title: `H[${i}, ${c}]`,
        formula: `h_{${i},${c}} = \\sum_r x_{${i},r} W_1[r,${c}] + b_{${c}}`,
        lines,
        result: `Σ = ${fmt(sum, 4)}   core: ${fmt(H.values[i * H.cols + c], 4)}`,
      };
    },
  };
}

/**
 * The FFN's activation as the page names and writes it, from the core's config.act ('relu',
 * 'gelu', or GPT-2's 'gelu_tanh'): the one place a view reads it from.
 */
export function activationOf(act) {
  if (act === 'relu')
    return { name: 'ReLU', smooth: false, tex: '\\operatorname{ReLU}(h) = \\max(0, h)', cell: 'max(0, ' };
  if (act === 'gelu')
    return { name: 'GELU', smooth: true, tex: '\\operatorname{GELU}(h) = h\\,\\Phi(h)', cell: 'GELU(' };
  if (act === 'gelu_tanh')
    return {
      name: 'GELU (tanh approximation)',
      smooth: true,
      tex: '\\operatorname{GELU}(h) \\approx \\tfrac{h}{2}\\bigl(1 + \\tanh\\bigl(\\sqrt{2/\\pi}\\,(h + 0.044715\\,h^3)\\bigr)\\bigr)',
      cell: 'GELU_tanh(',
    };
  throw new Error(`unknown activation '${act}'`);
}

function ffnActStep(ctx, { stack, layer }) {
  const act = activationOf(ctx.c.act);
  const H = ctx.m('ffn_hidden', { stack, layer, title: 'hidden pre-activation' });
  const A = ctx.m('ffn_act', { stack, layer, title: `after ${act.name}`, kind: act.smooth ? 'div' : 'seq' });
  let zeros = 0;
  for (const v of A.values) if (v === 0) zeros++;
  return {
    title: act.smooth
      ? `Activation: ${act.name}, a smooth ReLU`
      : 'Activation: ReLU keeps positive values and zeroes the rest',
    tex: `${act.tex} \\quad ${A.rows}\\times ${A.cols}`,
    inputs: [H],
    output: A,
    changed: act.smooth
      ? `${act.name} let positive values through almost unchanged and squeezed negative ones towards 0 (never below −0.17); ${zeros} of ${A.values.length} are exactly 0.`
      : `ReLU zeroed ${zeros} of ${A.values.length} hidden values (${Math.round((100 * zeros) / A.values.length)}%): those units are off for that token.`,
    explain: (i, c) => ({
      title: `act[${i}, ${c}]`,
      lines: [`${act.cell}${fmt(H.values[i * H.cols + c], 4)})`],
      result: `= ${fmt(A.values[i * A.cols + c], 4)} (core)`,
    }),
  };
}

function ffnOutStep(ctx, { stack, layer }) {
  const A = ctx.m('ffn_act', {
    stack,
    layer,
    title: 'activations',
    kind: activationOf(ctx.c.act).smooth ? 'div' : 'seq',
  });
  const W = ctx.w(`${stack}.${layer}.ffn.w2`, 'W_2');
  const b = ctx.w(`${stack}.${layer}.ffn.b2`, 'b_2');
  const O = ctx.m('ffn_out', { stack, layer, title: 'FFN output' });
  return {
    title: 'FFN, second layer: back down to d_model',
    tex: `\\operatorname{FFN}(x) = \\operatorname{act}(H) W_2 + b_2 \\quad (${A.rows}\\times ${A.cols})(${A.cols}\\times ${O.cols}) \\to ${O.rows}\\times ${O.cols}`,
    inputs: [A, W, b].filter(Boolean),
    output: O,
    changed: `Back to ${O.cols} dimensions per token, from ${f(range(O.values)[0])} to ${f(range(O.values)[1])}.`,
    explain: (i, c) => {
      const { lines, sum } = dotTerms(rowAt(A.values, A.cols, i), colAt(W.values, W.rows, W.cols, c), {
        aName: 'a',
        bName: `W_2[:,${c}]`,
        bias: b ? b.values[c] : null,
      });
      return {
        title: `FFN out[${i}, ${c}]`,
        formula: `o_{${i},${c}} = \\sum_r a_{${i},r} W_2[r,${c}] + b_{${c}}`,
        lines,
        result: `Σ = ${fmt(sum, 4)}   core: ${fmt(O.values[i * O.cols + c], 4)}`,
      };
    },
  };
}

/** Top-k of a row as "piece (p)" strings. */
export function topK(values, cols, i, vocab, k = 5) {
  const row = Array.from(rowAt(values, cols, i), (v, j) => [v, j])
    .sort((a, b) => b[0] - a[0])
    .slice(0, k);
  return row.map(([v, j]) => ({ piece: vocab[j] ?? String(j), value: v, id: j }));
}

function logitsStep(ctx, { name }) {
  const stack = ctx.run.mainStack || 'decoder';
  const src = ctx.stackOutput(stack);
  const X = ctx.m(src.name, { stack, layer: src.layer, title: 'final hidden states' });
  // A byte-level BPE piece as its text (" the", not GPT-2's "Ġthe").
  const vocab = ctx.run.model ? displayVocab({ model: ctx.run.model }).map(tokenText) : null;
  const L = ctx.m(name, {
    stack: '',
    title: name === 'logits' ? 'logits' : 'probabilities',
    colLabels: vocab,
    rowLabels: ctx.labels(stack),
    kind: name === 'probs' ? 'prob' : 'div',
  });
  L.rowFlags = ctx.flags(stack);
  const last = L.rows - 1;
  const top = vocab ? topK(L.values, L.cols, last, vocab, 3) : [];
  // A distribution over the whole vocabulary is read as its top entries, never as an
  // n × vocabulary barcode: per position, the 5 highest, drawn as bars (probabilities) or numbers.
  const topk = vocab
    ? {
        caption: `The 5 highest ${name === 'logits' ? 'logits' : 'probabilities'} after each position (the model's guesses for the next token), of ${L.cols} in the vocabulary`,
        kind: name,
        rows: L.rowLabels.map((label, i) => ({ label, row: i, items: topK(L.values, L.cols, i, vocab, 5) })),
      }
    : null;
  if (name === 'logits') {
    const W = ctx.run.tensor('lm_head.w');
    const b = ctx.run.tensor('lm_head.b');
    return {
      title: 'Logits: the final vectors times the output matrix, one score per vocabulary entry',
      tex: `\\text{logits} = Z W_{\\text{vocab}} + b \\quad (${X.rows}\\times ${X.cols})(${X.cols}\\times ${L.cols}) \\to ${L.rows}\\times ${L.cols}`,
      inputs: [X],
      output: L,
      topk,
      changed: `${L.cols} scores per position. After "${L.rowLabels[last]}" the highest are ${top.map((t) => `"${t.piece}" ${f(t.value)}`).join(', ')}.`,
      explain: (i, c) => {
        if (!W) return { title: `logit[${i}, ${c}]`, result: fmt(L.values[i * L.cols + c], 4) };
        const { lines, sum } = dotTerms(rowAt(X.values, X.cols, i), colAt(W.data, W.shape[0], W.shape[1], c), {
          aName: 'z',
          bName: `W[:,${c}]`,
          bias: b ? b.data[c] : null,
        });
        return {
          title: `logit of "${vocab[c]}" after "${L.rowLabels[i]}"`,
          formula: `\\ell_{${i},${c}} = z_{${i}} \\cdot W[:,${c}] + b_{${c}}`,
          lines,
          result: `Σ = ${fmt(sum, 4)}   core: ${fmt(L.values[i * L.cols + c], 4)}`,
        };
      },
    };
  }
  const Lg = ctx.m('logits', { stack: '', title: 'logits', colLabels: vocab, rowLabels: ctx.labels(stack) });
  return {
    title: 'Probabilities: softmax over the vocabulary, for every position',
    tex: `p = \\operatorname{softmax}(\\text{logits}) \\quad ${L.rows}\\times ${L.cols}`,
    inputs: [],
    output: L,
    topk,
    changed: `After "${L.rowLabels[last]}" the model predicts ${top.map((t) => `"${t.piece}" (${f(t.value)})`).join(', ')}.`,
    explain: (i, c) => {
      const t = softmaxTerms(rowAt(Lg.values, Lg.cols, i), c, vocab);
      return {
        title: `p("${vocab[c]}" | …"${L.rowLabels[i]}")`,
        formula: 'p_c = \\frac{\\exp(\\ell_c - \\max)}{\\sum_k \\exp(\\ell_k - \\max)}',
        lines: [t.lines[c], t.lines[t.lines.length - 1]],
        result: `${fmt(t.exps[c], 4)} / ${fmt(t.total, 4)} = ${fmt(t.value, 4)}   core: ${fmt(L.values[i * L.cols + c], 4)}`,
      };
    },
  };
}

const MAKERS = {
  tokens: tokensStep,
  embed: embedStep,
  pos: posStep,
  x: xStep,
  q: projStep,
  k: projStep,
  v: projStep,
  q_rot: rotStep,
  k_rot: rotStep,
  scores: scoresStep,
  pos_bias: posBiasStep,
  scaled: scaledStep,
  masked: maskedStep,
  weights: weightsStep,
  head_out: headOutStep,
  concat: concatStep,
  attn_out: attnOutStep,
  resid1: residStep,
  resid: residStep,
  norm1: normStep,
  norm: normStep,
  ffn_hidden: ffnHiddenStep,
  ffn_act: ffnActStep,
  ffn_out: ffnOutStep,
  resid2: residStep,
  norm2: normStep,
  final_norm: normStep,
  logits: logitsStep,
  probs: logitsStep,
};
