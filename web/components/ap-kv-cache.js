// <ap-kv-cache> (kv-cache): when decoding, the keys and values of past tokens do not change, so
// they are kept (the cache) and only the new token's row is computed. The K cache growing
// token by token, the new row of causal attention over it, the same tokens and distributions
// as recomputing everything (a second generation without the cache), and the work saved.
import { el, tokenText } from '../lib/dom.js';
import { define } from '../lib/widget.js';
import { displayVocab } from '../lib/models.js';
import { GenerationWidget } from '../lib/generation.js';
import { generationFor } from '../lib/runs.js';
import { numsTable } from '../lib/view.js';
import { matrix } from '../lib/heatmap.js';
import { switchesOf } from '../lib/state.js';

export class ApKvCache extends GenerationWidget {
  static concept = 'kv-cache';

  build() {
    this.cacheInfo = el('p', { className: 'changed' });
    this.maps = el('div', { className: 'col2' });
    this.same = el('p', { className: 'note' });
    this.cost = el('div');
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'Generating token t+1 needs the keys and values of all earlier tokens, and those never change. A KV cache stores them: each step computes Q, K, V for the new token only, appends its K and V rows, and attends from that one query to the whole cache.',
      }),
      this.buildGeneration(),
      this.cacheInfo,
      this.maps,
      this.same,
      this.cost,
    );
  }

  render(r) {
    super.render(r);
    // The same generation recomputed from scratch at every step (no cache): same tokens?
    const state = this.state;
    const plain = generationFor(
      r.entry,
      r.prompt,
      { ...r.options, useCache: false },
      { ...switchesOf(state), causal: true, pos: undefined },
    );
    if (plain.error) {
      this.same.textContent = plain.error.message;
      return;
    }
    let worst = 0;
    const n = Math.min(plain.steps.length, r.gen.steps.length);
    for (let t = 0; t < n; t++) {
      const a = r.gen.steps[t].distribution,
        b = plain.steps[t].distribution;
      for (let j = 0; j < a.length; j++) worst = Math.max(worst, Math.abs(a[j] - b[j]));
    }
    const sameTokens = plain.tokens.join(',') === r.gen.tokens.join(',');
    this.same.textContent = `Without the cache (recomputing every position at every step) the core generates ${sameTokens ? 'the same tokens' : 'different tokens'}; the largest difference between the two runs' next-token distributions is ${worst.toExponential(1)}.`;
    this.dataset.sameTokens = String(sameTokens);
    this.dataset.maxDiff = String(worst);
    // Work: K and V rows projected per layer, with and without the cache.
    const p = r.gen.prompt.length,
      T = r.gen.steps.length;
    const withCache = p + (T - 1);
    let without = 0;
    for (let t = 0; t < T; t++) without += p + t;
    this.cost.replaceChildren(
      numsTable({
        caption: `Key and value rows computed per layer for ${T} generated tokens (prompt of ${p})`,
        header: ['decoding', 'rows projected', 'query rows attending'],
        rows: [
          ['with the cache', String(withCache), String(withCache)],
          ['recomputing everything', String(without), String(without)],
        ],
      }),
    );
  }

  renderStep(step, t) {
    const layer = 0;
    const K = step.get('k', { layer });
    const [rows, d] = step.shape('k', { layer });
    const vocab = displayVocab(this.entry);
    const ids = [...this.gen.prompt, ...this.gen.steps.map((s) => s.token)];
    const labels = ids.slice(0, rows).map((id) => tokenText(vocab[id]));
    const h = step.shape('weights', { layer })[0];
    const W = step.get('weights', { layer, head: 0 });
    const wRows = W.length / rows;
    this.cacheInfo.textContent = `Step ${t + 1}: the cache holds ${step.cacheLen} positions (rows of K and V in layer ${layer}); this step computed ${wRows} new quer${wRows > 1 ? 'ies' : 'y'} against all ${rows} keys.`;
    this.dataset.cacheLen = String(step.cacheLen);
    this.place(
      this.maps,
      this.hm(
        'k',
        matrix({
          name: 'k_cache',
          title: `K cache, layer ${layer} (${rows} × ${d})`,
          values: K,
          rows,
          cols: d,
          rowLabels: labels,
          kind: 'div',
        }),
      ),
      this.hm(
        'row',
        matrix({
          name: 'new_row',
          title: `new attention row${wRows > 1 ? 's' : ''}, head 0 of ${h}`,
          values: W,
          rows: wRows,
          cols: rows,
          rowLabels: wRows > 1 ? labels.slice(rows - wRows) : [labels[rows - 1] ?? 'new'],
          colLabels: labels,
          kind: 'prob',
          corner: 'q \\ k',
        }),
      ),
    );
  }
}

define(ApKvCache);
