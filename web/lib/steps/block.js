// The rest of a block (cpp/core/block.cpp): the residual sums, the layer norms (post-norm after
// each sublayer, pre-norm before it) and the FFN with its activation.
import { fmt } from '../dom.js';
import { colAt, dotTerms, rowAt } from '../explain.js';
import { f, meanAbs, range } from './ctx.js';

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
  // The final norm reads the last block's output, as the core marks it.
  if (name === 'final_norm') return { name: ctx.run.blockOutput(ctx.c.nLayers - 1, stack), layer: ctx.c.nLayers - 1 };
  if (!ctx.pre) return { name: { norm1: 'resid1', norm2: 'resid2', cross_norm: 'cross_resid' }[name], layer };
  if (name === 'norm1') return { ...ctx.layerInput(stack, layer) };
  if (name === 'cross_norm') return { name: 'resid1', layer };
  return { name: ctx.has('cross_resid', stack, layer) ? 'cross_resid' : 'resid1', layer };
}

export function normStep(ctx, { stack, layer, name }) {
  if (ctx.has(`${name}_rms`, stack, layer)) return rmsNormStep(ctx, { stack, layer, name });
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

// RMSNorm (the core's normKind 'rmsnorm'): the row divided by its root mean square, times γ; no
// mean subtracted, no β. The *_rms stage is what the core divided by.
function rmsNormStep(ctx, { stack, layer, name }) {
  const src = normInput(ctx, stack, layer, name);
  const X = ctx.m(src.name, { stack, layer: src.layer, title: `${src.name} (input)` });
  const rms = ctx.m(`${name}_rms`, { stack, layer, title: 'row RMS = √(mean(x²) + ε)', colLabels: ['RMS'] });
  const tname =
    name === 'final_norm' ? `${stack}.final_norm` : `${stack}.${layer}.${name === 'cross_norm' ? 'norm_cross' : name}`;
  const gamma = ctx.w(`${tname}.gamma`, 'γ (gain)');
  const Y = ctx.m(name, { stack, layer, title: 'normalised' });
  const d = X.cols;
  const [lo, hi] = range(rms.values);
  return {
    title: `RMS norm${ctx.pre ? ' (pre-norm: before the sublayer)' : ''}: each row divided by its root mean square, then scaled by γ (no mean, no β)`,
    tex: `\\mathrm{RMS}(x)_c = \\frac{x_c}{\\sqrt{\\frac{1}{d}\\sum_r x_r^2 + \\epsilon}}\\, \\gamma_c \\quad ${X.rows}\\times ${d} \\to ${Y.rows}\\times ${d}`,
    inputs: [X, rms, gamma].filter(Boolean),
    output: Y,
    changed: `Row RMS values were between ${f(lo)} and ${f(hi)}; after dividing, every row has root mean square 1 (before γ), but its mean is not moved to 0.`,
    explain: (i, c) => {
      const r = rms.values[i];
      const x = X.values[i * d + c];
      const g = gamma ? gamma.values[c] : 1;
      return {
        title: `RMS[${i}, ${c}]`,
        formula: `\\frac{x_{${i},${c}}}{\\mathrm{rms}_{${i}}}\\,\\gamma_{${c}}`,
        lines: [`${fmt(x, 4)} / ${fmt(r, 4)} × ${fmt(g, 4)}`, `= ${fmt((x / r) * g, 4)}`],
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
  // A gated FFN (SwiGLU, GeGLU): W_2 reads the gate times the up projection.
  const gated = ctx.has('ffn_prod', stack, layer);
  const A = ctx.m(gated ? 'ffn_prod' : 'ffn_act', {
    stack,
    layer,
    title: gated ? 'gate ⊙ up' : 'activations',
    kind: gated || activationOf(ctx.c.act).smooth ? 'div' : 'seq',
  });
  const W = ctx.w(`${stack}.${layer}.ffn.w2`, 'W_2');
  const b = ctx.w(`${stack}.${layer}.ffn.b2`, 'b_2');
  const O = ctx.m('ffn_out', { stack, layer, title: 'FFN output' });
  return {
    title: 'FFN, second layer: back down to d_model',
    tex: `\\operatorname{FFN}(x) = ${gated ? 'P' : '\\operatorname{act}(H)'} W_2 + b_2 \\quad (${A.rows}\\times ${A.cols})(${A.cols}\\times ${O.cols}) \\to ${O.rows}\\times ${O.cols}`,
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

// ---- the gated FFN (the core's ffnKind 'swiglu' / 'geglu', Shazeer 2020; Llama, Mistral, Qwen2) ----------
// (act(x W_gate) ⊙ (x W_1 + b_1)) W_2 + b_2: two projections up to d_ff, the gate's activation, their product.

/** The gate's activation as the page names and writes it, from the core's config.ffnKind. */
function gateActivation(kind) {
  if (kind === 'geglu') return { name: 'GELU', tex: '\\operatorname{GELU}(g) = g\\,\\Phi(g)', cell: 'GELU(' };
  return { name: 'SiLU', tex: '\\operatorname{SiLU}(g) = g\\,\\sigma(g) = \\frac{g}{1 + e^{-g}}', cell: 'SiLU(' };
}

function gatedProjectionStep(ctx, { stack, layer, name }) {
  const gate = name === 'ffn_gate';
  const X = ctx.m(ffnInput(ctx, stack, layer), { stack, layer, title: 'FFN input' });
  const W = ctx.w(`${stack}.${layer}.ffn.${gate ? 'w_gate' : 'w1'}`, gate ? 'W_gate' : 'W_1');
  const b = gate ? null : ctx.w(`${stack}.${layer}.ffn.b1`, 'b_1');
  const H = ctx.m(name, { stack, layer, title: gate ? 'gate pre-activation' : 'up projection' });
  const wTex = gate ? 'W_{\\text{gate}}' : 'W_1';
  return {
    title: gate
      ? `Gated FFN, the gate: each token goes up to d_ff = ${H.cols} dimensions through W_gate (no bias)`
      : `Gated FFN, the up projection: the same token through a second matrix W_1, also to d_ff = ${H.cols}`,
    tex: `${gate ? 'G' : 'U'} = X ${wTex}${b ? ' + b_1' : ''} \\quad (${X.rows}\\times ${X.cols})(${X.cols}\\times ${H.cols}) \\to ${H.rows}\\times ${H.cols}`,
    inputs: [X, W, b].filter(Boolean),
    output: H,
    changed: gate
      ? `${H.rows} rows of ${H.cols} numbers: after its activation, each one decides how much of the matching up-projection value passes.`
      : `${H.rows} rows of ${H.cols} numbers, not activated: the gate multiplies them next.`,
    explain: (i, c) => {
      const { lines, sum } = dotTerms(rowAt(X.values, X.cols, i), colAt(W.values, W.rows, W.cols, c), {
        aName: 'x',
        bName: `${gate ? 'W_gate' : 'W_1'}[:,${c}]`,
        bias: b ? b.values[c] : null,
      });
      return {
        title: `${gate ? 'G' : 'U'}[${i}, ${c}]`,
        formula: `${gate ? 'g' : 'u'}_{${i},${c}} = \\sum_r x_{${i},r} ${wTex}[r,${c}]${b ? ` + b_{${c}}` : ''}`,
        lines,
        result: `Σ = ${fmt(sum, 4)}   core: ${fmt(H.values[i * H.cols + c], 4)}`,
      };
    },
  };
}

function gateActStep(ctx, { stack, layer }) {
  const act = gateActivation(ctx.c.ffnKind);
  const G = ctx.m('ffn_gate', { stack, layer, title: 'gate pre-activation' });
  const A = ctx.m('ffn_gate_act', { stack, layer, title: `after ${act.name}`, kind: 'div' });
  return {
    title: `The gate's activation: ${act.name}, a smooth ReLU`,
    tex: `${act.tex} \\quad ${A.rows}\\times ${A.cols}`,
    inputs: [G],
    output: A,
    changed: `${act.name} let positive gate values through almost unchanged and squeezed negative ones towards 0.`,
    explain: (i, c) => ({
      title: `${act.name}[${i}, ${c}]`,
      lines: [`${act.cell}${fmt(G.values[i * G.cols + c], 4)})`],
      result: `= ${fmt(A.values[i * A.cols + c], 4)} (core)`,
    }),
  };
}

function gateProductStep(ctx, { stack, layer }) {
  const act = gateActivation(ctx.c.ffnKind);
  const A = ctx.m('ffn_gate_act', { stack, layer, title: `${act.name}(gate)`, kind: 'div' });
  const U = ctx.m('ffn_up', { stack, layer, title: 'up projection' });
  const P = ctx.m('ffn_prod', { stack, layer, title: 'gate ⊙ up', kind: 'div' });
  return {
    title: 'Gate times up projection, value by value: the gate opens or closes each hidden unit for this token',
    tex: `P = ${act.name === 'SiLU' ? '\\operatorname{SiLU}' : '\\operatorname{GELU}'}(G) \\odot U \\quad ${P.rows}\\times ${P.cols}`,
    inputs: [A, U],
    output: P,
    changed: `${P.rows * P.cols} products; where the gate is near 0 the unit is off for that token, whatever its up value.`,
    explain: (i, c) => ({
      title: `P[${i}, ${c}]`,
      lines: [`${fmt(A.values[i * A.cols + c], 4)} × ${fmt(U.values[i * U.cols + c], 4)}`],
      result: `= ${fmt(P.values[i * P.cols + c], 4)} (core)`,
    }),
  };
}

/** The makers by stage name, with the short label of the stepper's list (resid and norm: cross_resid, cross_norm). */
export const BLOCK_STEPS = {
  resid1: { short: 'residual', make: residStep },
  resid: { short: 'residual', make: residStep },
  norm1: { short: 'norm', make: normStep },
  norm: { short: 'norm', make: normStep },
  ffn_hidden: { short: 'FFN hidden', make: ffnHiddenStep },
  ffn_act: { short: 'activation', make: ffnActStep },
  ffn_gate: { short: 'FFN gate', make: gatedProjectionStep },
  ffn_gate_act: { short: 'gate activation', make: gateActStep },
  ffn_up: { short: 'FFN up', make: gatedProjectionStep },
  ffn_prod: { short: 'gate ⊙ up', make: gateProductStep },
  ffn_out: { short: 'FFN out', make: ffnOutStep },
  resid2: { short: 'residual', make: residStep },
  norm2: { short: 'norm', make: normStep },
};
