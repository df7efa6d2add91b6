// <ap-kv-cache> (kv-cache): when decoding, the keys and values of past tokens do not change, so
// they are kept (the cache) and only the new token's row is computed. The K cache growing
// token by token, the new row of causal attention over it, the same tokens and distributions
// as recomputing everything (a second generation without the cache), and the work saved.
import { showHeads } from '../lib/heads-shown.js';
import { el, errorText, fmt, tokenText } from '../lib/dom.js';
import { define } from '../lib/widget.js';
import { displayVocab } from '../lib/models.js';
import { GenerationWidget } from '../lib/generation.js';
import { generationFor } from '../lib/runs.js';
import { numsTable } from '../lib/view.js';
import { matrix } from '../lib/heatmap.js';
import { switchesOf } from '../lib/state.js';
import { playgroundNow } from '../lib/module.js';

export class ApKvCache extends GenerationWidget {
  static concept = 'kv-cache';

  build() {
    this.cacheInfo = el('p', { className: 'changed' });
    this.maps = el('div', { className: 'col2' });
    this.same = el('p', { className: 'note' });
    this.cost = el('div');
    // Grouped-query attention: fewer K/V heads, a smaller cache (the core's choices for the model).
    this.kvSel = el('select', {
      on: { change: () => this.requestState({ kvheads: Number(this.kvSel.value) }) },
    });
    this.kvBox = el(
      'div',
      { className: 'controls', dataset: { control: 'kvheads' } },
      el('label', { className: 'field inline' }, el('span', { text: 'K/V heads' }), this.kvSel),
    );
    this.bytes = el('div');
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
      this.kvBox,
      this.bytes,
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
      this.same.textContent = errorText(plain.error);
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
    this.renderBytes(r);
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

  // The cache's size at the end of this generation: the core's kvCacheBytes, beside the same cache
  // with one K/V head per query head (multi-head attention), from the core's kvCacheSize.
  renderBytes(r) {
    const model = r.entry.model;
    const c = model.configFor(r.gen.switches || {});
    const h = c.nHeads,
      kv = c.nKvHeads;
    fillKv(
      this.kvSel,
      model.switchChoices.nKvHeads.filter((k) => h % k === 0),
      kv,
      h,
    );
    const ap = playgroundNow();
    const last = r.gen.steps[r.gen.steps.length - 1];
    if (!ap || !last || r.entry.base.arch === 'encoder-decoder') {
      this.bytes.replaceChildren();
      return;
    }
    const positions = last.cacheLen;
    const size = ap.kvCacheSize(
      { arch: c.arch, dModel: c.dModel, nHeads: h, nLayers: c.nLayers, vocabSize: c.vocabSize, nKvHeads: kv },
      positions,
    );
    const bytes = r.gen.kvCacheBytes;
    this.dataset.kvBytes = String(bytes);
    this.dataset.mhaBytes = String(size.mhaBytes);
    const pooled = kv < h && model.config.nKvHeads === h;
    this.bytes.replaceChildren(
      numsTable({
        caption: `The cache at the end: ${positions} positions × ${c.nLayers} layers × (K and V) × ${kv} K/V head${kv > 1 ? 's' : ''} × d_k = ${c.dModel / h} × 4 bytes`,
        header: ['attention', 'K/V heads', 'cache bytes'],
        rows: [
          ['multi-head (one K/V per head)', String(h), size.mhaBytes.toLocaleString('en')],
          [
            kv === h ? 'this run (the same)' : kv === 1 ? 'this run: multi-query' : 'this run: grouped-query',
            String(kv),
            { text: bytes.toLocaleString('en'), className: 'kv-bytes' },
          ],
        ],
      }),
      el('p', {
        className: 'note kv-line',
        text:
          kv === h
            ? `Grouped-query attention (Llama 2 70B, Mistral) lets query heads share K/V heads: with fewer K/V heads the cache shrinks in proportion, at little cost in quality (Ainslie et al. 2023). Pick fewer K/V heads above.`
            : `${h} query heads share ${kv} K/V head${kv > 1 ? 's' : ''}: the cache is ${ratio(size.mhaBytes / bytes)} times smaller than multi-head attention's. ` +
              (pooled
                ? "This model was trained with a K and V per head: each group's W_K and W_V are the mean of its heads' learned ones, a pooling it was never trained with, so what it generates changes."
                : ''),
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
    // Head 0 of the generating model as the page's switches cut it (widget.js says when re-sliced).
    showHeads({
      kind: 'model',
      model: this.entry.model,
      entry: this.entry,
      config: this.entry.model.configFor(this.gen.switches || {}),
    });
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

const ratio = (x) => (Number.isInteger(x) ? String(x) : fmt(x, 2));

function fillKv(sel, choices, value, h) {
  sel.replaceChildren(
    ...choices.map((k) =>
      el('option', {
        value: String(k),
        text: k === h ? `${k} (multi-head)` : k === 1 ? '1 (multi-query)' : `${k} (grouped)`,
      }),
    ),
  );
  sel.value = String(value);
  sel.disabled = choices.length < 2;
}

define(ApKvCache);
