// "Thinking Machines" (notes 003): which weighted sum of v₁ and v₂ is the output of "Thinking"?
// The options are answers.js's TM_OPTIONS; the explanation is the core's numbers.
import { el, fmt, num } from '../../lib/dom.js';
import { TM_OPTIONS } from './answers.js';
import { Card, multipleChoice } from './card.js';

/** The card; answer() is the core's thinkingMachines() result, or null before it is computed. */
export function thinkingMachinesCard(uid, answer) {
  const c = new Card('thinking-machines', {
    title: '"Thinking Machines"',
    source: '003',
    prompt:
      'Self-attention on "Thinking Machines" with d_k = 64: q₁·k₁ = 112, q₁·k₂ = 96. What would be the output vector for the word "Thinking" approximately?',
  });
  const options = TM_OPTIONS.map(({ key, coef }) => ({ key, text: `(${key}) ${coef[0]} v₁ + ${coef[1]} v₂` }));
  multipleChoice(c, `tm-${uid}`, options, (v) => {
    const r = answer();
    if (!r) return null;
    const ok = v === r.answer;
    return [ok, ok ? `Correct: (${r.answer}).` : `Not quite: you chose (${v}); the core's weights give (${r.answer}).`];
  });
  c.show = (r) => explain(c, r);
  return c;
}

function explain(c, r) {
  const [s1, s2] = r.scores,
    [t1, t2] = r.scaled,
    [w1, w2] = r.weights;
  const vec = (v) => v.map((x) => fmt(x, 3)).join(', ');
  c.explain.dataset.weights = `${num(w1)},${num(w2)}`;
  c.explain.replaceChildren(
    el(
      'p',
      {
        text: `The core, on the notes' vectors: q₁·k₁ = ${fmt(s1, 3)}, q₁·k₂ = ${fmt(s2, 3)}; divided by √d_k = √${r.dK}: ${fmt(t1, 3)} and ${fmt(t2, 3)}; softmax: `,
      },
      el('b', { className: 'mono w', text: `${fmt(w1, 3)}, ${fmt(w2, 3)}` }),
      el('span', { text: '.' }),
    ),
    el('p', {
      text: `So z₁ = ${fmt(w1, 2)} v₁ + ${fmt(w2, 2)} v₂: option (${r.answer}). The core's z₁ starts [${vec(r.z1)}] with v₁ = [${vec(r.v1)}…] and v₂ = [${vec(r.v2)}…].`,
    }),
    el(
      'ul',
      {},
      el('li', {
        text: `(a) 0.5 / 0.5 would need equal scores: "Thinking" matches itself better (${fmt(s1, 0)} > ${fmt(s2, 0)}).`,
      }),
      el('li', {
        text: `(b) 0.54 / 0.46 is not what softmax gives for ${fmt(t1, 1)} and ${fmt(t2, 1)}: a difference of 2 in the exponent is a factor e² ≈ 7.4 between the weights.`,
      }),
      el('li', { text: '(d) swaps the two weights.' }),
      el('li', {
        text: `Without the scaling the core gives ${fmt(r.unscaled[0], 6)} and ${fmt(r.unscaled[1], 3)}: softmax saturates on 112 and 96. That is why the scores are divided by √d_k.`,
      }),
    ),
  );
}
