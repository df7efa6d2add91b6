// <ap-soft-lookup> (soft-lookup): attention as a soft, averaging lookup table (notes 003). The
// same queries, keys and values (one head of the page's model) go through the core twice: a
// hard lookup (argmax: one key wins, its value comes back exactly, like a dictionary) and the
// soft one (softmax weights, a weighted average of all values). The score function switches
// between dot product, scaled dot product and additive. Attributes: score, query (1-based).
import { ApWidget, define } from '../lib/widget.js';
import { el, fmt, num } from '../lib/dom.js';
import { headFor, layerFor, numsTable } from '../lib/view.js';
import { matrix } from '../lib/heatmap.js';
import { playgroundNow } from '../lib/module.js';
import { renderTex } from '../lib/katex.js';
import { SCORE_FNS, headQKV, lookupStages, scoreNote, scoreOf, scoreSwitch } from '../lib/lookup-view.js';
import { stepOf } from '../lib/rnn-view.js';

export class ApSoftLookup extends ApWidget {
  static concept = 'soft-lookup';
  static extraAttributes = ['score', 'query'];

  build() {
    this.switch = scoreSwitch((g) => this.setAttribute('score', g));
    this.queries = el('span', { className: 'tokens', attrs: { role: 'group', 'aria-label': 'Query token' } });
    this.formula = el('div', { className: 'formula' });
    this.scoreNote = el('p', { className: 'note score-note' });
    this.table = el('div');
    this.outs = el('div', { className: 'col2' });
    this.values = el('div');
    this.maps = el('div', { className: 'col2' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: "A lookup table maps keys to values: the query matches one of the keys, and that key's value comes back. Attention is a fuzzy lookup in a key-value store: the query matches all keys softly, each to a weight between 0 and 1, and the keys' values are multiplied by the weights and summed. Same keys, same values, same scores: only the last step differs.",
      }),
      el('div', { className: 'controls' }, this.switch.node),
      el('div', { className: 'controls' }, el('span', { className: 'note', text: 'query:' }), this.queries),
      this.formula,
      this.scoreNote,
      this.table,
      this.outs,
      this.values,
      el('h4', { text: 'Every query at once: hard (one-hot) and soft weights' }),
      this.maps,
    );
  }

  renderKey(state) {
    return `${super.renderKey(state)}|${this.getAttribute('score') ?? ''}|${this.getAttribute('query') ?? ''}`;
  }

  render(run, state) {
    const ap = playgroundNow();
    const score = scoreOf(this.getAttribute('score'));
    this.switch.set(score);
    this.switch.node.hidden = this.hides('score');
    const layer = layerFor(run, state),
      head = headFor(run, state);
    const { Q, K, V } = headQKV(run, { layer, head });
    const n = Q.rows,
      m = K.rows;
    const i = stepOf(this, n, 'query') - 1;
    this.queries.parentNode.hidden = this.hides('query');
    this.place(
      this.queries,
      ...Q.rowLabels.map((l, r) =>
        el('button', {
          type: 'button',
          className: `tok${r === i ? ' chosen' : ''}`,
          text: l,
          attrs: { 'aria-pressed': String(r === i), 'data-query': r + 1 },
          on: { click: () => this.setAttribute('query', String(r + 1)) },
        }),
      ),
    );

    // A decoder's head scores only the keys up to each query (its causal mask), as softmax shows.
    const causal = !!run.config?.causal;
    const hard = lookupStages(ap, { Q, K, V, score, hard: true, causal });
    const soft = lookupStages(ap, { Q, K, V, score, causal });
    const seen = causal ? i + 1 : m; // keys this query may see
    renderTex(
      this.formula,
      `${SCORE_FNS[score].tex} \\qquad \\text{hard: } a_i = v_{j^*},\\ j^* = \\arg\\max_j e_{ij} \\qquad \\text{soft: } a_i = \\sum_j \\alpha_{ij} v_j,\\ \\alpha_{ij} = \\frac{e^{e_{ij}}}{\\sum_k e^{e_{ik}}}`,
      { display: true },
    );
    this.scoreNote.textContent = scoreNote(score);
    this.scoreNote.hidden = !this.scoreNote.textContent;

    const keys = K.rowLabels;
    const row = (a) => a.slice(i * m, (i + 1) * m);
    const e = row(causal ? soft.masked : soft.scores),
      wh = row(hard.weights),
      ws = row(soft.weights);
    const best = wh.indexOf(1);
    this.table.replaceChildren(
      numsTable({
        caption: `Query "${Q.rowLabels[i]}" against every key (${SCORE_FNS[score].label}${causal ? ', causal mask: keys after the query are −∞' : ''}; scores and weights from the core)`,
        header: ['key', `score e (${score})`, 'hard weight', 'soft weight α'],
        rows: keys.map((k, j) => [
          { text: k, className: j === best ? 'chosen' : '' },
          e[j] === -Infinity ? { text: '−∞ (masked)' } : { text: fmt(e[j], 3), data: { value: num(e[j]) } },
          { text: wh[j] === 1 ? '1 (argmax)' : '0', className: j === best ? 'chosen' : '' },
          { text: fmt(ws[j], 3), data: { value: num(ws[j]) } },
        ]),
        className: 'nums lookup-row',
      }),
    );

    const dV = V.cols;
    const hardOut = hard.out.slice(i * dV, (i + 1) * dV),
      softOut = soft.out.slice(i * dV, (i + 1) * dV);
    const exact = hardOut.every((v, c) => v === V.values[best * dV + c]);
    let top = 0;
    for (let j = 1; j < m; j++) if (ws[j] > ws[top]) top = j;
    const out = (values, title, label) =>
      matrix({ name: 'out', title, values, rows: 1, cols: dV, rowLabels: [label], kind: 'div' });
    this.place(
      this.outs,
      el(
        'div',
        { className: 'panel' },
        el('h4', { text: 'Hard lookup: a dictionary' }),
        this.hm('hard', out(hardOut, `a = v of "${keys[best]}"`, 'hard a')),
        el('p', {
          className: 'note hard-note',
          dataset: { exact: String(exact), key: String(best) },
          text: `All the weight goes to the best key "${keys[best]}": the output is its value row, ${exact ? 'exactly (every number equal)' : 'NOT exactly (?)'}. Nothing of the other keys gets through, and the argmax has no gradient.`,
        }),
      ),
      el(
        'div',
        { className: 'panel' },
        el('h4', { text: 'Soft lookup: attention' }),
        this.hm('soft', out(softOut, 'a = Σ α_j v_j', 'soft a')),
        el('p', {
          className: 'note',
          text: `A blend of ${seen === m ? `all ${m} values` : `the ${seen} values up to "${Q.rowLabels[i]}" (the causal mask gives the other ${m - seen} weight 0)`}: "${keys[top]}" has the largest weight (${fmt(ws[top], 2)}), the rest share ${fmt(1 - ws[top], 2)}. Change the score function and the weights move smoothly.`,
        }),
      ),
    );
    const hV = this.hm('values', matrix({ ...V, title: `values v_j (the best key "${keys[best]}" outlined)` }));
    hV.highlightRow = best;
    this.place(this.values, hV);

    const W = (values, title) =>
      matrix({
        name: 'weights',
        title,
        values,
        masked: causal ? Uint8Array.from(soft.masked, (x) => (x === -Infinity ? 1 : 0)) : undefined,
        rows: n,
        cols: m,
        rowLabels: Q.rowLabels,
        colLabels: keys,
        kind: 'prob',
        corner: 'q \\ k',
        rowAxis: 'queries',
        colAxis: 'keys',
      });
    const hH = this.hm('hardW', W(hard.weights, 'hard: one-hot argmax'));
    const hS = this.hm('softW', W(soft.weights, 'soft: softmax'));
    hH.highlightRow = i;
    hS.highlightRow = i;
    this.place(this.maps, hH, hS);

    this.dataset.score = score;
    this.dataset.query = String(i + 1);
    this.dataset.scores = JSON.stringify(Array.from(e));
    this.dataset.best = String(best);
  }
}

define(ApSoftLookup);
