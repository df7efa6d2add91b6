// "Predict, then reveal": the reader commits a guess about a view's numbers, and only then is the
// view itself revealed, showing the core's answer (answers.js predictFixed and liveRow):
//  - predict-cat-sat: which word "sat" attends to most in the notes' "the cat sat" (000);
//  - predict-causal: how many words "across" can see under the look-ahead mask (004);
//  - predict-live: on the page's own sentence and model, which token the third one attends to
//    most, and with what weight.
import { el, errorText, fmt } from '../../lib/dom.js';
import { Card, choices } from './card.js';
import '../ap-softmax.js';
import '../ap-causal-mask.js';

export const PREDICT_IDS = ['predict-cat-sat', 'predict-causal', 'predict-live'];

const row = (tokens, values, digits = 2) => values.map((x, j) => `${tokens[j]} ${fmt(x, digits)}`).join(', ');

/**
 * The intro and the three cards. answers() is the quiz's computed { p1, p2, p3 } (or null before
 * it is); liveAttrs() the state attributes the live question's revealed view gets (the page's
 * text, model...).
 */
export function predictCards(uid, answers, liveAttrs) {
  const intro = el(
    'div',
    {},
    el('h4', { text: 'Predict, then reveal' }),
    el('p', {
      className: 'note mode',
      text: "Commit a guess about a view's numbers; the view appears only after you commit, with the core's answer.",
    }),
  );
  const cards = {
    'predict-cat-sat': catSat(uid, () => answers()?.p1),
    'predict-causal': causal(() => answers()?.p2),
    'predict-live': live(uid, () => answers()?.p3, liveAttrs),
  };
  return { intro, cards };
}

function predictCard(id, title, source) {
  const c = new Card(id, { title, source, prompt: null, check: 'Commit my guess' });
  c.reveal = el('div', { className: 'reveal', hidden: true });
  c.extra.append(c.reveal);
  c.show = () => {};
  return c;
}

/** The revealed view: created once per card, with the attributes that make it show the same numbers. */
function reveal(card, tag, attrs) {
  card.reveal.hidden = false;
  const key = JSON.stringify([tag, attrs]);
  if (card.revealKey === key) return;
  card.revealKey = key;
  const w = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) w.setAttribute(k, String(v));
  // Its preset buttons would change the whole page's state: keep its requests to itself.
  w.addEventListener('ap-state-change', (e) => e.stopPropagation());
  card.reveal.replaceChildren(w);
}

// 1. "the cat sat" (notes 000): which word does "sat" attend to most?
function catSat(uid, answer) {
  const c = predictCard('predict-cat-sat', 'Which word does "sat" attend to most?', '000');
  c.prompt.append(
    el('p', { text: 'In the notes\' "the cat sat" example, the row of "sat" in the attention weights:' }),
  );
  const ch = choices(
    `p1-${uid}`,
    ['the', 'cat', 'sat'].map((t, i) => ({ key: String(i), text: t })),
    'Tokens',
  );
  c.inputs.append(ch.node);
  c.answerWith({
    read: ch.value,
    missing: 'Commit a guess first.',
    judge: (v) => {
      const r = answer();
      if (!r) return null;
      const ok = Number(v) === r.argmax;
      c.explain.replaceChildren(
        el('p', {
          text: `The core's weights for "sat": ${row(r.tokens, r.row)} (the notes: .2 .3 .5). "sat" attends most to itself; the view below shows the whole table.`,
        }),
      );
      reveal(c, 'ap-softmax', { preset: 'softmax.the-cat-sat', hide: 'text' });
      return [
        ok,
        ok
          ? `Right: "${r.tokens[r.argmax]}" (weight ${fmt(r.row[r.argmax], 2)}).`
          : `Not quite: you said "${r.tokens[v]}"; the core's row for "sat" is ${row(r.tokens, r.row)}.`,
      ];
    },
    lock: (b) => ch.enable(!b),
    clear: () => {
      ch.clear();
      c.reveal.hidden = true;
    },
  });
  return c;
}

// 2. "clouds drift across blue sky" (notes 004): with the look-ahead mask, how many words can "across" see?
function causal(answer) {
  const c = predictCard('predict-causal', 'With the look-ahead mask, how many words can "across" attend to?', '004');
  c.prompt.append(
    el('p', { text: '"clouds drift across blue sky", generated left to right: the row of "across" after the mask.' }),
  );
  const number = el('input', { type: 'number', min: 0, max: 5, step: 1, attrs: { 'aria-label': 'Number of words' } });
  c.inputs.append(el('label', { className: 'field inline' }, el('span', { text: 'words:' }), number));
  c.answerWith({
    read: () => (number.value !== '' && Number.isInteger(Number(number.value)) ? Number(number.value) : null),
    missing: 'Type a whole number first.',
    judge: (v) => {
      const r = answer();
      if (!r) return null;
      const ok = v === r.visible.length;
      c.explain.replaceChildren(
        el('p', {
          text: `The core's masked row for "across": ${row(r.tokens, r.masked)}; after the softmax: ${row(r.tokens, r.weights)}. −∞ becomes a weight of exactly 0 (notes 004: "across" attends to clouds, drift, across only).`,
        }),
      );
      reveal(c, 'ap-causal-mask', { preset: 'causal-mask.clouds', hide: 'text' });
      return [
        ok,
        ok
          ? `Right: ${r.visible.length} (${r.visible.join(', ')}).`
          : `Not quite: you said ${v}; the core leaves ${r.visible.length} scores finite: ${r.visible.join(', ')}.`,
      ];
    },
    lock: (b) => (number.disabled = b),
    clear: () => {
      number.value = '';
      c.reveal.hidden = true;
    },
  });
  return c;
}

// 3. The page's own sentence and model: which token, and how much?
function live(uid, answer, liveAttrs) {
  const c = predictCard('predict-live', 'Your sentence: where does this token look, and how much?', '');
  const question = el('p');
  c.prompt.append(question);
  const choiceBox = el('div');
  const weight = el('input', { type: 'number', min: 0, max: 1, step: 0.05, attrs: { 'aria-label': 'Largest weight' } });
  c.inputs.append(
    choiceBox,
    el(
      'label',
      { className: 'field inline' },
      el('span', { text: 'its weight (0 to 1, within ±0.05 counts):' }),
      weight,
    ),
  );
  let ch = null; // the tokens of the current sentence
  let liveKey = null;
  c.answerWith({
    read: () => {
      const token = ch?.value();
      const w = Number(weight.value);
      if (token === null || token === undefined || weight.value === '' || !(w >= 0 && w <= 1)) return null;
      return { token: Number(token), w };
    },
    missing: 'Pick a token and type a weight from 0 to 1 first.',
    judge: ({ token, w }) => {
      const r = answer();
      if (!r || r.empty) return null;
      const tokOk = r.best.includes(token);
      const wOk = Math.abs(w - r.max) <= 0.05;
      c.explain.replaceChildren(
        el('p', {
          text: `Row "${r.labels[r.row]}" (position ${r.row}), layer 0, head 0: ${row(r.labels, r.weights)}. The view below shows that row written out.`,
        }),
      );
      reveal(c, 'ap-softmax', { ...liveAttrs(), layer: 0, head: 0, hide: 'text', row: r.row });
      return [
        tokOk && wOk,
        `${tokOk ? '✓' : '✗'} token: the core says "${r.labels[r.best[0]]}" (position ${r.best[0]}); ${wOk ? '✓' : '✗'} weight: ${fmt(r.max, 3)} (you said ${fmt(w, 2)}).`,
      ];
    },
    lock: (b) => {
      ch?.enable(!b);
      weight.disabled = b;
    },
    clear: () => {
      ch?.clear();
      weight.value = '';
      c.reveal.hidden = true;
    },
  });
  // A new sentence or model: a new question. A text the model cannot read: its message instead.
  const controls = c.check.parentNode;
  c.show = (r) => {
    const failed = !!r.error;
    c.inputs.hidden = controls.hidden = failed;
    if (failed) c.node.dataset.error = errorText(r.error);
    else delete c.node.dataset.error;
    if (failed) {
      liveKey = null;
      c.reset();
      question.textContent = `Your text: ${errorText(r.error)}`;
      choiceBox.replaceChildren();
      c.revealKey = null;
      c.reveal.replaceChildren();
      return;
    }
    if (liveKey === r.key) return;
    liveKey = r.key;
    c.reset();
    question.textContent = `In your sentence, as the page's model reads it (tokens: ${r.labels.join(' · ')}; layer 0, head 0), which token will "${r.labels[r.row]}" (position ${r.row}) attend to most, and with what weight?`;
    ch = choices(
      `p3-${uid}`,
      r.labels.map((l, j) => ({ key: String(j), text: `${j}: ${l}` })),
      'Tokens',
    );
    choiceBox.replaceChildren(ch.node);
    c.revealKey = null;
    c.reveal.replaceChildren();
  };
  return c;
}
