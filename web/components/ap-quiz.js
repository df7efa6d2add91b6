// <ap-quiz> (quiz): the notes' own questions, each interactive, each answered by the core. One
// module per kind of question in quiz/ (thinking-machines, transformers-vs-rnns, dimensions,
// predict), their answers in quiz/answers.js (no DOM: tests/wasm/quiz.test.js runs them in Node),
// the card and answer checking they share in quiz/card.js, their CSS in styles/quiz.css.
// Attributes: questions (comma list of ids: thinking-machines, transformers-vs-rnns, dimensions,
// predict, or one of predict-cat-sat, predict-causal, predict-live; default: all), plus the
// page's state (text, model, preset...) for the live predict question.
// Events: 'ap-quiz-answer' { question, correct } after every check. Property `earlier`: the
// page's stored { [question]: correct }, so that each card says how it was last answered.
import { ApWidget, define } from '../lib/widget.js';
import { el } from '../lib/dom.js';
import { adoptOwnStyles } from '../lib/styles.js';
import { getPlayground, playgroundNow } from '../lib/module.js';
import { runFor } from '../lib/runs.js';
import { runSpec, STATE_KEYS } from '../lib/state.js';
import { showHeads } from '../lib/heads-shown.js';
import quizCss from '../styles/quiz.css?inline';
import { liveRow, predictFixed, thinkingMachines, transformersVsRnns } from './quiz/answers.js';
import { thinkingMachinesCard } from './quiz/thinking-machines.js';
import { transformersVsRnnsCard } from './quiz/transformers-vs-rnns.js';
import { dimensionsCard } from './quiz/dimensions.js';
import { PREDICT_IDS, predictCards } from './quiz/predict.js';

// 'predict' names the three predict-then-reveal questions; the learning path places each one
// (predict-cat-sat...) beside its concept.
export const QUESTION_IDS = ['thinking-machines', 'transformers-vs-rnns', 'dimensions', 'predict'];

let instances = 0;

export class ApQuiz extends ApWidget {
  static concept = 'quiz';
  static textInput = false;
  static extraAttributes = ['questions'];

  // The whole quiz was measured (lib/reserve.js); one question beside its concept is a fraction of it.
  reserveKey() {
    return this.hasAttribute('questions') ? null : this.localName;
  }

  build() {
    adoptOwnStyles(this.shadowRoot, quizCss);
    const uid = ++instances;
    this.lead = el('p', {
      className: 'lead',
      text: "The notes' own questions. Answer, then check: the answer and its explanation are computed by the core, with the same numbers the other views show. Then predict before you reveal: commit a guess about a view's numbers, and only then see the view.",
    });
    this.sections = el('div');
    this.body.append(this.lead, this.sections);
    const predict = predictCards(
      uid,
      () => this.data,
      () => this._liveAttrs(),
    );
    this.predictIntro = predict.intro;
    // Each question by id, in the order they are shown; show(answer) draws its explanation.
    this.cards = {
      'thinking-machines': thinkingMachinesCard(uid, () => this.data?.tm),
      'transformers-vs-rnns': transformersVsRnnsCard(uid, () => this.data?.rnn),
      dimensions: dimensionsCard(),
      ...predict.cards,
    };
  }

  /** The state attributes of this element the live question's revealed view gets. */
  _liveAttrs() {
    const attrs = {};
    for (const k of STATE_KEYS) {
      if (this.hasAttribute(k) && k !== 'layer' && k !== 'head' && k !== 'step') attrs[k] = this.getAttribute(k);
    }
    return attrs;
  }

  _shown() {
    const q = (this.getAttribute('questions') || '').split(/[\s,]+/).filter(Boolean);
    const ids = q.length ? [...QUESTION_IDS, ...PREDICT_IDS].filter((id) => q.includes(id)) : QUESTION_IDS;
    if (ids.includes('predict')) ids.push(...PREDICT_IDS.filter((id) => !ids.includes(id)));
    return ids;
  }

  // One question alone (placed beside its concept on the learning path): a title that says so.
  _single(shown) {
    const one = shown.filter((id) => id !== 'predict');
    const single = one.length === 1;
    this.titleNode.textContent = single
      ? one[0].startsWith('predict')
        ? 'Predict, then reveal'
        : 'A question from the notes'
      : 'Questions from the notes';
    this.lead.hidden = single;
    return single;
  }

  // Only the live question reads the page's text (and model): the others are the notes' fixed
  // examples, so a text the model cannot read (too long, empty) is no concern of theirs.
  compute(state) {
    const ap = playgroundNow();
    const live = this._shown().includes('predict-live');
    const spec = runSpec({ ...state, layer: 0, head: 0 });
    const run = live && ap ? runFor(spec) : null;
    if (!ap || (run && typeof run.then === 'function')) {
      return Promise.all([getPlayground(), live ? run || runFor(spec) : null]).then(([a, r]) => this._answers(a, r));
    }
    return this._answers(ap, run);
  }

  _answers(ap, run) {
    if (!this._fixed) this._fixed = { tm: thinkingMachines(ap), rnn: transformersVsRnns(ap), ...predictFixed(ap) };
    return { ...this._fixed, run, p3: run ? (run.error ? { error: run.error } : liveRow(run)) : null };
  }

  render(r) {
    this.data = r;
    const shown = this._shown();
    const single = this._single(shown);
    // The live question alone: its text's error is the view's (in place of the card, as in every
    // view that reads the text); among other questions, it is said in the live card only.
    if (r.p3?.error && single && shown.includes('predict-live')) throw r.p3.error;
    if (r.p3 && !r.p3.error) showHeads(r.run); // layer 0, head 0 of the page's model
    // What each question's explanation shows (the dimensions quiz computes its own).
    const answers = { 'thinking-machines': r.tm, 'transformers-vs-rnns': r.rnn, 'predict-live': r.p3 };
    const nodes = [];
    for (const id of shown) {
      // Several questions: the predict ones (last in `shown`) under their heading.
      if (PREDICT_IDS.includes(id) && !single && !nodes.includes(this.predictIntro)) nodes.push(this.predictIntro);
      if (id === 'predict' || (id === 'predict-live' && (!r.p3 || r.p3.empty))) continue;
      this.cards[id].show(answers[id]);
      this.cards[id].remember(this.earlier?.[id]);
      nodes.push(this.cards[id].node);
    }
    this.place(this.sections, nodes);
    this.dataset.answers = JSON.stringify({
      tm: r.tm.answer,
      rnn: r.rnn.answer,
      p1: r.p1.argmax,
      p2: r.p2.visible.length,
    });
  }
}

define(ApQuiz);
