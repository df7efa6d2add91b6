// The steps of one attention sublayer (cpp/core/attention.cpp's numbered steps): Q, K, V (and
// RoPE's rotations), scores, the relative bias, scale, mask, softmax, the weighted sum, all heads,
// concat and W_O. Cross-attention's cross_* stages share these makers.
import { matrix } from '../heatmap.js';
import { fmt } from '../dom.js';
import { colAt, dotTerms, rowAt, softmaxTerms } from '../explain.js';
import { f, range } from './ctx.js';

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

// The K/V head a query head reads: itself, or with grouped K/V heads its group's, as the core's
// kv_group stage records it.
function kvHeadOf(ctx, stack, layer, cross, head) {
  const name = cross ? 'cross_kv_group' : 'kv_group';
  if (!ctx.has(name, stack, layer)) return head;
  return ctx.run.get(name, { stack, layer })[head];
}

function headSlice(values, rows, cols, head, dK) {
  const out = new Float32Array(rows * dK);
  for (let i = 0; i < rows; i++) for (let c = 0; c < dK; c++) out[i * dK + c] = values[i * cols + head * dK + c];
  return out;
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
    tex: `\\begin{pmatrix}${base}'_{2i}\\\\ ${base}'_{2i+1}\\end{pmatrix} = \\begin{pmatrix}\\cos m\\theta_i & -\\sin m\\theta_i\\\\ \\sin m\\theta_i & \\cos m\\theta_i\\end{pmatrix}\\begin{pmatrix}${base}_{2i}\\\\ ${base}_{2i+1}\\end{pmatrix},\\; \\theta_i = ${ctx.c.ropeTheta ?? 10000}^{-2i/d_k} \\quad ${B.rows}\\times ${B.cols}`,
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
  const kvHead = kvHeadOf(ctx, stack, layer, cross, head);
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
    title: `K${rope ? ' (rotated)' : ''}, head ${head}${kvHead !== head ? ` (K/V head ${kvHead})` : ''}`,
    values: headSlice(k.values, k.rows, k.cols, kvHead, dK),
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
  // A row whose mask leaves it one key (the first row under the causal mask: the start token on
  // itself) has weight 1 whatever the scores: the largest weight is sought among the other rows.
  const sees = (i) => rowAt(M.values, M.cols, i).filter((v) => v !== -Infinity).length;
  const trivial = [];
  for (let i = 0; i < A.rows; i++) if (sees(i) === 1) trivial.push(i);
  const counted = trivial.length < A.rows ? (i) => !trivial.includes(i) : () => true;
  let best = { v: -1, i: 0, j: 0 };
  for (let i = 0; i < A.rows; i++)
    for (let j = 0; j < A.cols; j++) {
      const v = A.values[i * A.cols + j];
      if (counted(i) && v > best.v) best = { v, i, j };
    }
  const skipped = trivial.length < A.rows ? trivial : [];
  const aside = skipped.length
    ? ` (${skipped.length === 1 ? `row "${A.rowLabels[skipped[0]]}" sees only ${rowAt(M.values, M.cols, skipped[0])[skipped[0]] === -Infinity ? 'one key' : 'itself'} under the mask, so its weight is trivially 1 and not counted` : `${skipped.length} rows see only one key under the mask, so their weights are trivially 1 and not counted`})`
    : '';
  return {
    title: 'Softmax: each row becomes non-negative weights that sum to 1',
    tex: `A_{ij} = \\frac{\\exp(\\tilde s_{ij} - \\max_k \\tilde s_{ik})}{\\sum_{k} \\exp(\\tilde s_{ik} - \\max_k \\tilde s_{ik})} \\quad ${A.rows}\\times ${A.cols}`,
    inputs: [M],
    output: A,
    changed: `Every row now sums to 1; the largest weight${skipped.length ? ' among the other rows' : ''} is ${f(best.v)} ("${A.rowLabels[best.i]}" → "${A.colLabels[best.j]}")${aside}.`,
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
  const kvHead = kvHeadOf(ctx, stack, layer, cross, head);
  const V = matrix({
    ...vAll,
    name: 'v_h',
    title: `V, head ${head}${kvHead !== head ? ` (K/V head ${kvHead})` : ''}`,
    values: headSlice(vAll.values, vAll.rows, vAll.cols, kvHead, dK),
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

/**
 * The makers by stage name, with the short label of the stepper's list (a cross_ stage's label is
 * its self-attention one's plus " (cross)"). heads is no stage: the step after head_out that shows
 * every head side by side.
 */
export const ATTENTION_STEPS = {
  q: { short: 'Q', make: projStep },
  k: { short: 'K', make: projStep },
  v: { short: 'V', make: projStep },
  q_rot: { short: 'rotate Q', make: rotStep },
  k_rot: { short: 'rotate K', make: rotStep },
  scores: { short: 'scores', make: scoresStep },
  pos_bias: { short: 'rel. bias', make: posBiasStep },
  scaled: { short: 'scale', make: scaledStep },
  masked: { short: 'mask', make: maskedStep },
  weights: { short: 'softmax', make: weightsStep },
  head_out: { short: 'A·V', make: headOutStep },
  heads: { short: 'heads', make: headsStep },
  concat: { short: 'concat', make: concatStep },
  attn_out: { short: 'W_O', make: attnOutStep },
};
