// <ap-gqa> (gqa): grouped-query attention. Several query heads share one K/V head (the core's
// nKvHeads switch; its kv_group stage says which), so a decoder's KV cache holds fewer keys and
// values. Which heads share, each head's weights with the shared K/V, and the cache's bytes for
// every number of K/V heads the model can take (the core's kvCacheSize, beside multi-head's).
import { ApWidget, define } from '../lib/widget.js';
import { choiceButtons, el, fmt, segGroup, segRow } from '../lib/dom.js';
import { matrix } from '../lib/heatmap.js';
import { layerFor, numsTable, textFor } from '../lib/view.js';
import { runFor } from '../lib/runs.js';
import { runSpec } from '../lib/state.js';
import { playgroundNow } from '../lib/module.js';
import { stepView } from '../lib/steps/index.js';
import { fmtBytes } from '../lib/timing.js';

export class ApGqa extends ApWidget {
  static concept = 'gqa';

  build() {
    this.buttons = segGroup('Number of K/V heads');
    this.groups = el('div');
    this.line = el('p', { className: 'changed gqa-line' });
    this.warn = el('p', { className: 'warn gqa-warn' });
    this.maps = el('div', {
      className: 'gqa-maps',
      style: { display: 'grid', gridTemplateColumns: 'repeat(auto-fit, minmax(min(100%, 220px), 1fr))', gap: '12px' },
    });
    this.bytes = el('div');
    this.body.append(
      el('p', {
        className: 'lead',
        text: 'In multi-head attention every head has its own keys and values, and a decoder keeps all of them in its KV cache. Grouped-query attention (Ainslie et al. 2023; Llama 2 70B, Mistral) lets a group of query heads share one K/V head: the queries still differ, the cache holds fewer heads. One K/V head for all is multi-query attention (Shazeer 2019).',
      }),
      segRow('kvheads', 'K/V heads:', this.buttons),
      this.line,
      this.warn,
      this.groups,
      this.maps,
      this.bytes,
    );
  }

  // The page's K/V heads, or (multi-head on the page) the fewest that still form groups of two: a
  // grouped run to look at. The model's own run answers which choices it has.
  compute(state) {
    const base = state.preset ? { ...state, preset: '', text: textFor(state) } : state;
    const grouped = (own) => {
      if (own.error || own.empty || own.kind !== 'model') return own;
      const h = own.config.nHeads;
      const choices = own.model.switchChoices.nKvHeads.filter((k) => h % k === 0);
      const kv = choices.includes(Number(state.kvheads)) ? Number(state.kvheads) : choices.filter((k) => k < h).pop();
      return kv === undefined || kv === own.config.nKvHeads ? own : runFor(runSpec({ ...base, kvheads: kv }));
    };
    const own = runFor(runSpec({ ...base, kvheads: '' }));
    return typeof own.then === 'function' ? own.then(grouped) : grouped(own);
  }

  render(run, state) {
    if (run.error) throw run.error;
    const c = run.config;
    const h = c.nHeads,
      kv = c.nKvHeads;
    const model = run.model;
    const choices = model.switchChoices.nKvHeads.filter((k) => h % k === 0);
    choiceButtons(
      this.buttons,
      choices,
      kv,
      (k) => `${k} K/V head${k > 1 ? 's' : ''}`,
      (k) => this.requestState({ kvheads: k }),
    );
    const layer = layerFor(run, state);
    const group = Array.from(run.get('kv_group', { layer }));
    this.dataset.kvHeads = String(kv);
    this.dataset.kvGroup = group.join(',');
    // Which query heads read which K/V head, as the core's kv_group says.
    const members = Array.from({ length: kv }, (_, g) => group.map((x, i) => (x === g ? i : -1)).filter((i) => i >= 0));
    this.groups.replaceChildren(
      numsTable({
        caption: `Layer ${layer}: which query heads read which K/V head (the core's kv_group)`,
        header: ['K/V head', 'query heads that read it'],
        rows: members.map((m, g) => [String(g), m.map((i) => `head ${i}`).join(', ')]),
      }),
    );
    this.line.textContent =
      kv === h
        ? `${h} K/V heads for ${h} heads: multi-head attention, nothing shared.`
        : `${h} query heads share ${kv} K/V head${kv > 1 ? 's' : ''}, ${h / kv} per group: their patterns below differ only through their queries. The KV cache keeps ${kv} instead of ${h} heads' keys and values, a smaller cache at little cost in quality (Ainslie et al. 2023), which is why Llama 2 70B and Mistral adopted it.`;
    const pooled = kv < h && model.config.nKvHeads === h;
    this.warn.hidden = !pooled;
    this.warn.textContent = pooled
      ? `This model was trained with a K and V per head (multi-head): for this view each group's W_K and W_V (and biases) are the mean of its ${h / kv} heads' learned ones, a pooling it was never trained with (real models are trained further after it), so these patterns are not what it learned.`
      : '';
    const maps = stepView(run, 'heads', { layer }).view.inputs;
    this.place(
      this.maps,
      maps.map((m, i) =>
        this.hm(`head${i}`, matrix({ ...m, title: `head ${i}: K/V head ${group[i]}`, domain: [0, 1] }), {
          'max-cell': '28',
        }),
      ),
    );
    this.renderBytes(run, choices);
  }

  // The cache's bytes for every choice, at this text's length and at the model's context: the core's
  // kvCacheSize (2 · layers · positions · K/V heads · d_k · 4 bytes), and multi-head's for comparison.
  renderBytes(run, choices) {
    const ap = playgroundNow();
    const c = run.config;
    if (!ap || c.arch === 'encoder') {
      this.bytes.replaceChildren(el('p', { className: 'note', text: 'An encoder keeps no KV cache.' }));
      return;
    }
    const n = run.tokens.length;
    const size = (k, positions) =>
      ap.kvCacheSize(
        { arch: c.arch, dModel: c.dModel, nHeads: c.nHeads, nLayers: c.nLayers, vocabSize: c.vocabSize, nKvHeads: k },
        positions,
      );
    const rows = choices.map((k) => {
      const here = size(k, n),
        full = size(k, c.maxLen);
      return [
        k === c.nHeads ? `${k} (multi-head)` : k === 1 ? '1 (multi-query)' : `${k} (grouped)`,
        {
          text: here.bytes.toLocaleString('en'),
          className: 'gqa-bytes',
          data: { kv: String(k), bytes: String(here.bytes) },
        },
        fmtBytes(full.bytes),
        { text: ratio(full.mhaBytes / full.bytes), className: 'gqa-ratio' },
      ];
    });
    this.dataset.positions = String(n);
    this.bytes.replaceChildren(
      numsTable({
        caption: `The KV cache: 2 (K and V) × ${c.nLayers} layers × positions × K/V heads × d_k = ${c.dModel / c.nHeads} × 4 bytes`,
        header: [
          'K/V heads',
          `bytes for this text (${n} positions)`,
          `at the context, ${c.maxLen} positions`,
          'times smaller than multi-head',
        ],
        rows,
      }),
    );
  }
}

const ratio = (x) => (Number.isInteger(x) ? String(x) : fmt(x, 2));

define(ApGqa);
