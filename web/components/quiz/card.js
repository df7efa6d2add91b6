// One question of <ap-quiz> and how it is answered, shared by every kind of question: the card
// (title, prompt, inputs, Check, Try again, feedback, explanation), radio-button options, and the
// one way an answer is checked: read it (or say what is missing), judge it against the core's
// answer, lock the inputs, show the verdict and emit 'ap-quiz-answer' { question, correct }.
import { el, emit } from '../../lib/dom.js';

export class Card {
  constructor(id, { title, source, prompt, check = 'Check' }) {
    this.id = id;
    this.title = el('h4', { text: title }, source ? el('small', { text: `notes ${source}` }) : null);
    this.prompt = el('div', { className: 'prompt' });
    if (typeof prompt === 'string') this.prompt.append(el('p', { text: prompt }));
    else if (prompt) this.prompt.append(prompt);
    this.inputs = el('div', { className: 'inputs' });
    this.check = el('button', { type: 'button', className: 'check', text: check });
    this.again = el('button', { type: 'button', className: 'again small', text: 'Try again', hidden: true });
    this.feedback = el('p', { className: 'feedback', attrs: { role: 'status', 'aria-live': 'polite' } });
    this.before = el('p', { className: 'note earlier', hidden: true });
    this.explain = el('div', { className: 'explain-box', hidden: true });
    this.extra = el('div');
    this.node = el(
      'section',
      { className: 'panel q', dataset: { question: id, result: 'unanswered' } },
      this.title,
      this.prompt,
      this.inputs,
      el('div', { className: 'controls' }, this.check, this.again),
      this.before,
      this.feedback,
      this.explain,
      this.extra,
    );
    this.again.addEventListener('click', () => this.reset());
  }

  /**
   * Wires Check. read() gives the reader's answer, or null when something is missing (`missing`
   * says what); judge(answer) gives [correct, text] from the core's answer (and may fill the
   * explanation), or null while the core's answer is not computed yet. lock(b) disables the
   * inputs until "Try again" (a question whose inputs stay editable has none); clear() empties them.
   */
  answerWith({ read, missing, judge, lock = null, clear = () => {} }) {
    this.check.addEventListener('click', () => {
      const answer = read();
      if (answer === null || answer === undefined) {
        this.hint(missing);
        return;
      }
      const verdict = judge(answer);
      if (!verdict) return;
      if (lock) {
        lock(true);
        this.check.disabled = true;
      }
      this.result(...verdict);
    });
    this.onReset = () => {
      if (lock) {
        lock(false);
        this.check.disabled = false;
      }
      clear();
    };
  }

  /** A message that is not a verdict: nothing picked yet, sizes the core cannot build. */
  hint(text) {
    this.feedback.className = 'feedback no';
    this.feedback.textContent = text;
  }

  result(correct, text) {
    this.before.hidden = true;
    this.node.dataset.result = correct ? 'correct' : 'wrong';
    this.feedback.className = `feedback ${correct ? 'ok' : 'no'}`;
    this.feedback.textContent = text;
    this.explain.hidden = false;
    this.again.hidden = false;
    emit(this.node, 'ap-quiz-answer', { question: this.id, correct });
  }

  reset() {
    this.node.dataset.result = 'unanswered';
    this.feedback.className = 'feedback';
    this.feedback.textContent = '';
    this.explain.hidden = true;
    this.again.hidden = true;
    this.onReset?.();
  }

  /** How this question was last answered, here or on an earlier visit (true, false, or undefined: never). */
  remember(correct) {
    this.before.hidden = correct === undefined || this.answered;
    this.before.textContent =
      correct === undefined
        ? ''
        : correct
          ? 'You have answered this one right before. Answer again to check yourself.'
          : 'Your last answer to this one was not right yet. Try it again.';
    this.node.dataset.earlier = correct === undefined ? '' : String(correct);
  }

  get answered() {
    return this.node.dataset.result !== 'unanswered';
  }
}

/** Radio buttons: options [{ key, text }]; returns { node, value(), enable(b), clear() }. */
export function choices(name, options, label) {
  const inputs = options.map((o) => el('input', { type: 'radio', name, value: o.key }));
  const node = el(
    'fieldset',
    {},
    el('legend', { className: 'sr-only', text: label }),
    ...options.map((o, i) => el('label', { dataset: { option: o.key } }, inputs[i], el('span', { text: o.text }))),
  );
  return {
    node,
    value: () => inputs.find((x) => x.checked)?.value ?? null,
    enable: (b) => inputs.forEach((x) => (x.disabled = !b)),
    clear: () => inputs.forEach((x) => (x.checked = false)),
  };
}

/**
 * A multiple-choice card: `options` as radio buttons named `name`; judge(key) as in answerWith.
 * Returns the choices.
 */
export function multipleChoice(
  card,
  name,
  options,
  judge,
  { label = 'Options', missing = 'Pick an option first.' } = {},
) {
  const ch = choices(name, options, label);
  card.inputs.append(ch.node);
  card.answerWith({ read: ch.value, missing, judge, lock: (b) => ch.enable(!b), clear: ch.clear });
  return ch;
}
