// <ap-comparison> (comparison): the notes' table "Comparison of Sequence Modeling Architectures"
// (004, Table 1), row for row, each cell a link to the view that shows it with the core's numbers.
// On the playground page the links are #concept=<id> (the page scrolls to the view); elsewhere they
// lead to the playground page, whose address is the href-base attribute (default: the page next to
// this module) — href-base="https://example.org/playground/" gives ".../playground/#concept=<id>".
import { ApWidget, define } from '../lib/widget.js';
import { el } from '../lib/dom.js';
import { conceptById } from '../lib/concepts.js';
import { adoptOwnStyles } from '../lib/styles.js';
import CSS from '../styles/comparison.css?inline';

const COLUMNS = ['RNN/LSTM', 'RNN + Attention', 'Transformer'];

// [feature, [value, concept id, why that view shows it] per column], in the notes' order and words.
export const COMPARISON_ROWS = [
  [
    'Parallel computation',
    [
      ['No', 'rnn-chain', 'hₜ needs hₜ₋₁: the states come one after another'],
      ['Partial', 'bahdanau', 'each context is one softmax over all encoder states, but the states are still an RNN’s'],
      ['Yes', 'rnn-cost', 'one parallel step against n sequential ones'],
    ],
  ],
  [
    'Long-range dependencies',
    [
      ['Difficult', 'rnn-vanishing', '‖∂h_T/∂h_t‖ shrinks with the distance T − t'],
      ['Better', 'bahdanau', 'the decoder looks at every encoder state directly: the alignment matrix'],
      ['Excellent', 'scores', 'every query meets every key in one hop'],
    ],
  ],
  [
    'Variable-length inputs',
    [
      ['Yes', 'rnn-chain', 'the same cell, once per token, for any n'],
      ['Yes', 'bahdanau', 'a softmax over however many encoder states there are'],
      ['Yes', 'quadratic', 'any n, at the price of n × n scores'],
    ],
  ],
  [
    'Vanishing gradients',
    [
      ['Problem', 'rnn-vanishing', 'the gradient passes through every step between t and T'],
      ['Problem', 'rnn-vanishing', 'the RNN under the attention still passes gradients step by step'],
      ['Solved', 'rnn-vanishing', 'with attention every token is one step away'],
    ],
  ],
  [
    'Position awareness',
    [
      ['Implicit', 'rnn-chain', 'order is the order of the steps'],
      ['Implicit', 'bahdanau', 'positions come only from the RNN states'],
      ['Explicit (PE)', 'sinusoidal', 'PE(pos, 2i) = sin(pos / 10000^(2i/d)) added to each row'],
    ],
  ],
  [
    'Training speed',
    [
      ['Slow', 'rnn-cost', 'n sequential steps per sequence'],
      ['Slow', 'rnn-cost', 'the RNN steps are still sequential'],
      ['Fast', 'rnn-cost', 'one parallel step: matrix products a GPU does at once'],
    ],
  ],
  [
    'Interpretability',
    [
      ['Low', 'rnn-chain', 'one state vector carries everything'],
      ['Medium', 'bahdanau', 'one alignment row per output step'],
      ['High', 'heads', 'an attention pattern per head and layer'],
    ],
  ],
];

// The playground page near this module: web/index.html above web/components/ when served from
// the sources; dist/index.html beside dist/attention-playground.js, or above a chunk in
// dist/attention-playground/ or dist/assets/, when bundled. (A variable, not a literal, so the
// bundler does not take the URL for an asset to copy.)
const HERE = import.meta.url;
const DEFAULT_BASE = new URL(
  /\/(components|assets|attention-playground)\/[^/]*$/.test(new URL(HERE).pathname) ? '../' : './',
  HERE,
).href;

export class ApComparison extends ApWidget {
  static ownInput =
    "This view does not read the text at the top: it is the notes' comparison table, each cell linking to its view.";
  static concept = 'comparison';
  static extraAttributes = ['href-base'];
  static textInput = false; // the notes' table does not depend on the text

  build() {
    adoptOwnStyles(this.shadowRoot, CSS);
    this.tableBox = el('div', { className: 'scroll-x' });
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'RNNs read a sequence one step at a time; attention on top of an RNN lets each output look at every input state; the Transformer removes the recurrence and keeps only attention. The notes sum it up in one table. Every cell links to the view that shows it with numbers the core computes.',
      }),
      this.tableBox,
    );
  }

  compute() {
    return null;
  }

  /** Where the link for concept `id` goes (see the file header). */
  linkFor(id) {
    const base = this.getAttribute('href-base');
    if (base !== null) return `${base}#concept=${id}`;
    if (document.getElementById(`concept-${id}`)) return `#concept=${id}`;
    return `${DEFAULT_BASE}#concept=${id}`;
  }

  render() {
    const table = el(
      'table',
      { className: 'cmp' },
      el('caption', { text: 'Table 1: Comparison of Sequence Modeling Architectures (notes 004)' }),
    );
    table
      .createTHead()
      .append(
        el(
          'tr',
          {},
          el('th', { text: 'Feature', attrs: { scope: 'col' } }),
          ...COLUMNS.map((c) => el('th', { text: c, attrs: { scope: 'col' } })),
        ),
      );
    const body = table.createTBody();
    for (const [feature, cells] of COMPARISON_ROWS) {
      body.append(
        el(
          'tr',
          {},
          el('th', { text: feature, attrs: { scope: 'row' } }),
          ...cells.map(([value, id, why], i) => {
            const info = conceptById(id);
            const td = el('td', { className: i === 2 ? 'transformer' : '' });
            if (info) {
              td.append(
                el('a', {
                  href: this.linkFor(id),
                  text: value,
                  dataset: { conceptLink: id },
                  attrs: { title: `${info.title} (#${id})` },
                }),
                el('span', { className: 'why', text: why }),
                el('span', { className: 'view', text: `→ view: ${info.title}` }),
              );
            } else {
              td.append(el('b', { text: value }), el('span', { className: 'why', text: why }));
            }
            return td;
          }),
        ),
      );
    }
    this.tableBox.replaceChildren(table);
  }
}

define(ApComparison);
