// The steps before the first block (cpp/core/model.cpp's embedding): tokens, their embeddings,
// the positions and the input X of layer 0.
import { fmt } from '../dom.js';
import { f, meanAbs, range } from './ctx.js';

// "8 tokens", or "7 tokens + the start token <|endoftext|>" when the run read one before the text.
function countOf(run, n, stack) {
  const start = stack !== 'encoder' && run.start;
  if (!start) return `${n} tokens`;
  return `${n - 1} token${n - 1 === 1 ? '' : 's'} + the start token ${start.piece}`;
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
    changed: `${countOf(ctx.run, n, stack)} became ${n} vectors of ${d} numbers (values from ${f(range(X.values)[0])} to ${f(range(X.values)[1])}).`,
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

/** The makers by stage name, with the short label of the stepper's list. */
export const EMBED_STEPS = {
  tokens: { short: 'tokens', make: tokensStep },
  embed: { short: 'embed', make: embedStep },
  pos: { short: 'positions', make: posStep },
  x: { short: 'X = E + P', make: xStep },
};
