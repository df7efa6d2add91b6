// <ap-embed> (embed): tokens become rows of X. Each piece of the text gets its id in the
// vocabulary, the id picks a row of the embedding table E, and the rows stacked make X (n x d).
import { ApWidget, define } from '../lib/widget.js';
import { el, tokenText } from '../lib/dom.js';
import { StepPanel, claimBox } from '../lib/view.js';
import { stepView } from '../lib/steps/index.js';

export class ApEmbed extends ApWidget {
  static concept = 'embed';

  build() {
    this.lead = el('p', {
      className: 'lead',
      text: 'Each token is looked up in the vocabulary (its id) and replaced by one row of the embedding table E. Stacked, these rows are X: one row per token, d numbers per row. Click a cell to see which row of E it came from.',
    });
    this.tokens = el('div', { className: 'tokens' });
    this.panel = new StepPanel();
    this.claim = el('div');
    this.body.append(this.lead, this.claim, this.tokens, this.panel.node);
  }

  render(run) {
    this.claim.replaceChildren(...[claimBox(run.preset)].filter(Boolean));
    const ids = run.kind === 'model' ? run.get('tokens') : null;
    this.tokens.replaceChildren(
      ...run.tokens.map((p, i) =>
        el(
          'span',
          { className: `tok${run.unknown.has(i) ? ' unknown' : ''}` },
          tokenText(p) + (run.unknown.has(i) ? '?' : ''),
          ids ? el('small', { text: `→ ${ids[i]}` }) : null,
        ),
      ),
    );
    const { view } = stepView(run, 'embed');
    this.panel.show(view, { explainCell: { row: Math.min(1, view.output.rows - 1), col: 0 } });
    const [n, d] = [view.output.rows, view.output.cols];
    this.dataset.shape = `${n}x${d}`;
  }
}

define(ApEmbed);
