// The steps after the last block (cpp/core/model.cpp's output): a pre-norm stack's final norm, the
// logits over the vocabulary and their softmax, read as each position's top entries.
import { fmt, tokenText } from '../dom.js';
import { displayVocab } from '../models.js';
import { colAt, dotTerms, rowAt, softmaxTerms } from '../explain.js';
import { f } from './ctx.js';
import { normStep } from './block.js';

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

/** The makers by stage name, with the short label of the stepper's list. */
export const OUTPUT_STEPS = {
  final_norm: { short: 'final norm', make: normStep },
  logits: { short: 'logits', make: logitsStep },
  probs: { short: 'probabilities', make: logitsStep },
};
