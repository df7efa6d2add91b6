// "Transformers vs RNNs" (notes 003): which statement holds? Each is tested by the core
// (answers.js transformersVsRnns); the explanation says why each holds or not.
import { el, fmt } from '../../lib/dom.js';
import { Card, multipleChoice } from './card.js';

const OPTIONS = [
  { key: 'a', text: '(a) Transformers have fewer operations compared to RNNs' },
  { key: 'b', text: '(b) Transformers are easier to parallelize compared to RNNs' },
  { key: 'c', text: '(c) Transformers have less parameters compared to RNNs' },
  { key: 'd', text: '(d) Transformers are better at capturing positional information than RNNs' },
];

const big = (x) =>
  x >= 1e9 ? `${fmt(x / 1e9, 3)} G` : x >= 1e6 ? `${fmt(x / 1e6, 3)} M` : x >= 1e3 ? `${fmt(x / 1e3, 3)} k` : String(x);

/** The card; answer() is the core's transformersVsRnns() result, or null before it is computed. */
export function transformersVsRnnsCard(uid, answer) {
  const c = new Card('transformers-vs-rnns', {
    title: 'Transformers vs RNNs',
    source: '003',
    prompt: 'Which of the following statements is correct?',
  });
  multipleChoice(c, `rnn-${uid}`, OPTIONS, (v) => {
    const r = answer();
    if (!r) return null;
    const ok = r.answer.includes(v);
    return [
      ok,
      ok ? `Correct: (${v}).` : `Not quite: you chose (${v}); the statement that holds is (${r.answer.join(', ')}).`,
    ];
  });
  c.show = (r) => explain(c, r);
  return c;
}

function explain(c, r) {
  const { n, d, h } = r.sizes;
  // One statement: its option letter, what it claims, whether it holds, and the core's numbers.
  const statement = (k, claim, text) =>
    el(
      'li',
      { dataset: { option: k } },
      el('b', { text: `(${k}) ${claim}: ` }),
      el('span', { className: r.holds[k] ? 'holds' : 'fails', text: r.holds[k] ? 'holds' : 'does not hold' }),
      el('span', { text: `. ${text}` }),
    );
  c.explain.dataset.answer = r.answer.join(',');
  c.explain.replaceChildren(
    el('p', {
      text: `Each statement tested (the RNN and attention below are the core's, on the same vectors for "${r.tokens.join(' ')}", notes 004):`,
    }),
    el(
      'ul',
      {},
      statement(
        'a',
        'fewer operations',
        `Counted multiply-adds of one layer for n = ${n} tokens, d = ${d}: RNN n·2d² = ${big(r.rnnOps)}; self-attention 4nd² + 2n²d = ${big(r.attnOps)}. Attention is O(n²d), the RNN O(nd²): for n > d attention does more work.`,
      ),
      statement(
        'b',
        'easier to parallelize',
        `The RNN's last state depends on every earlier one through a chain: ‖∂h_T/∂h_t‖ = ${r.chain.map((g) => fmt(g, 3)).join(', ')} for t = 0…${r.N - 1} (T = ${r.N - 1}), all non-zero, so ${r.rnnDepth} states must be computed one after another. Attention's last row mixes all ${r.N} inputs in one weighted sum (weights ${r.lastRow.map((x) => fmt(x, 2)).join(', ')}), and every row at once: ${r.attnDepth} parallel step.`,
      ),
      statement(
        'c',
        'fewer parameters',
        `One transformer encoder layer with d = ${d}, h = ${h}, d_ff = ${4 * d} (counted from the core's tensors): ${big(r.layerParams)} parameters; an RNN layer of the same width (W_xh, W_hh, b): ${big(r.rnnParams)}.`,
      ),
      statement(
        'd',
        'better at positional information',
        `Reverse the tokens: attention's outputs are the same rows in reverse order (largest difference ${fmt(r.attnDiff, 3)}): without positional encodings it cannot see the order at all. The RNN's final state changes by up to ${fmt(r.rnnDiff, 3)}: it reads the order by construction.`,
      ),
    ),
  );
}
