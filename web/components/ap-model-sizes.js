// <ap-model-sizes> (model-sizes): a parameter calculator. The core counts every weight of a
// transformer (ap.parameterCount) from d_model, layers, heads, d_ff, vocabulary and positions,
// split into embeddings / attention / FFN / norms / LM head; the notes' three models (004) are
// presets, each shown beside its published total with the difference and where that total comes
// from (only GPT-3's 175B is in the notes; 65M / 213M are Vaswani et al. 2017's, 110M Devlin et al.'s).
//
// Attributes (all optional; a standalone element starts from the original transformer):
//   preset="original" | "original-big" | "bert-base" | "gpt3"   a published model
//   kind="encoder" | "decoder" | "encoder-decoder", d-model, n-layers, n-heads, d-ff, vocab,
//   max-len                                                       override the preset's values
//   hide="presets,inputs"                                         hide the preset buttons / the inputs
// Example: <ap-model-sizes preset="gpt3"></ap-model-sizes>
import { ApWidget, define } from '../lib/widget.js';
import { readNumber } from '../lib/state.js';
import { el, errorText } from '../lib/dom.js';
import { numsTable } from '../lib/view.js';
import { getPlayground, playgroundNow } from '../lib/module.js';
import { modelNow, paramText } from '../lib/models.js';
import { adoptOwnStyles } from '../lib/styles.js';
import { fmtBytes } from '../lib/timing.js';
import CSS from '../styles/model-sizes.css?inline';

const ATTRS = ['kind', 'd-model', 'n-layers', 'n-heads', 'd-ff', 'vocab', 'max-len'];
const SHORT = {
  original: 'Original (512/6/8)',
  'original-big': 'Original big (1024/6/16)',
  'bert-base': 'BERT-base (768/12/12)',
  gpt3: 'GPT-3 (12288/96/96)',
};
// Okabe-Ito colours: distinguishable with colour-blindness, readable on light and dark.
const PARTS = [
  { key: 'embeddings', label: 'embeddings', color: 'var(--_cat-1)' },
  { key: 'attention', label: 'attention', color: 'var(--_cat-2)' },
  { key: 'ffn', label: 'FFN', color: 'var(--_cat-3)' },
  { key: 'norms', label: 'LayerNorms', color: 'var(--_cat-4)' },
  { key: 'lmHead', label: 'LM head', color: 'var(--_cat-5)' },
  { key: 'pooler', label: 'pooler', color: 'var(--_cat-6)' },
];

/** 174604259328 -> "174.60 B" */
export function bigCount(x) {
  if (x >= 1e9) return `${(x / 1e9).toFixed(2)} B`;
  if (x >= 1e6) return `${(x / 1e6).toFixed(2)} M`;
  if (x >= 1e3) return `${(x / 1e3).toFixed(1)} k`;
  return String(x);
}
const exact = (x) => x.toLocaleString('en-US');
// Where a published total comes from, in short: the core's source text up to its first
// " (" or ":" ("Vaswani et al. 2017", "Devlin et al. 2018", "Notes 004").
export function citation(source) {
  return source.split(/ \(|:/)[0].trim();
}
const pct = (x) => `${(100 * x).toFixed(1)}%`;

export class ApModelSizes extends ApWidget {
  static ownInput =
    'This view does not read the text at the top: it counts the parameters of the model sizes you set here.';
  static concept = 'model-sizes';
  static extraAttributes = ATTRS;
  static textInput = false;

  build() {
    adoptOwnStyles(this.shadowRoot, CSS);
    this.current = 'original'; // the preset the inputs came from ('' once edited away from it)
    this.appliedKey = null;
    this.presetBox = el('div', {
      className: 'controls presets',
      attrs: { role: 'group', 'aria-label': 'Published models' },
    });
    const num = (label, name, min = 1) => {
      const input = el('input', {
        type: 'number',
        min,
        step: 1,
        attrs: { 'aria-label': label, 'data-input': name },
        on: { input: () => this._edited() },
      });
      return { input, node: el('label', { className: 'field' }, el('span', { text: label }), input) };
    };
    const sel = (label, name, options) => {
      const input = el(
        'select',
        { attrs: { 'aria-label': label, 'data-input': name }, on: { change: () => this._edited() } },
        ...options.map(([v, t]) => el('option', { value: v, text: t })),
      );
      return { input, node: el('label', { className: 'field' }, el('span', { text: label }), input) };
    };
    const check = (label, name) => {
      const input = el('input', {
        type: 'checkbox',
        attrs: { 'data-input': name },
        on: { change: () => this._edited() },
      });
      return { input, node: el('label', { className: 'switch' }, input, el('span', { text: label })) };
    };
    this.in = {
      arch: sel('architecture', 'arch', [
        ['encoder-decoder', 'encoder-decoder'],
        ['encoder', 'encoder-only'],
        ['decoder', 'decoder-only'],
      ]),
      dModel: num('d_model', 'dModel'),
      nLayers: num('layers (per stack)', 'nLayers'),
      nHeads: num('heads', 'nHeads'),
      nKvHeads: num('K/V heads', 'nKvHeads'),
      dFf: num('d_ff', 'dFf'),
      vocabSize: num('vocabulary', 'vocabSize'),
      pos: sel('positions', 'pos', [
        ['sinusoidal', 'sinusoidal'],
        ['learned', 'learned'],
        ['rope', 'RoPE'],
        ['relative', 'relative bias'],
        ['none', 'none'],
      ]),
      maxLen: num('max positions', 'maxLen'),
      tie: check('output layer shares the token table', 'tieEmbeddings'),
      share: check('encoder and decoder share it', 'shareEmbeddings'),
      biases: check('biases', 'biases'),
      pre: check('pre-norm (+ final LayerNorm)', 'pre'),
      bert: check('BERT extras: segments, embedding LayerNorm, pooler', 'bert'),
    };
    this.inputs = el(
      'div',
      {},
      el(
        'div',
        { className: 'ms-inputs' },
        ...['arch', 'dModel', 'nLayers', 'nHeads', 'nKvHeads', 'dFf', 'vocabSize', 'pos', 'maxLen'].map(
          (k) => this.in[k].node,
        ),
      ),
      el('div', { className: 'ms-switches' }, ...['tie', 'share', 'biases', 'pre', 'bert'].map((k) => this.in[k].node)),
    );
    this.error = el('p', { className: 'error ms-error', attrs: { role: 'alert' } });
    this.total = el('p', { className: 'ms-total' });
    this.published = el('div', { className: 'ms-published' });
    this.stack = el('div', { className: 'ms-stack', attrs: { role: 'img' } });
    this.legend = el('div', { className: 'ms-legend' });
    this.ratio = el('p', { className: 'ms-ratio panel' });
    this.kvLine = el('p', { className: 'note ms-kv' });
    this.table = el('div');
    this.results = el(
      'div',
      {},
      this.total,
      this.published,
      this.stack,
      this.legend,
      this.ratio,
      this.kvLine,
      this.table,
    );
    this.body.append(
      el(
        'p',
        { className: 'lead ms-lead' },
        'Typical Transformer sizes (notes 004): the original Transformer, d_model = 512, 6 layers, 8 heads; BERT-base, d_model = 768, 12 layers, 12 heads; GPT-3, d_model = 12288, 96 layers, 96 heads, ',
        el('b', { text: '175B parameters' }),
        ' (the only total the notes give). The other totals come from the papers: ',
        el('b', { text: '65M' }),
        ' (base) and ',
        el('b', { text: '213M' }),
        ' (big) from Vaswani et al. 2017, ',
        el('b', { text: '110M' }),
        ' (BERT-base) from Devlin et al. 2018. Each layer has four d × d attention matrices and an FFN with d_ff = 4d (003): 8d² weights against attention’s 4d², so two thirds of an encoder layer’s weights are in its FFN (half of a decoder layer’s, which has cross-attention too). The embeddings come on top: the breakdown below counts every part.',
      ),
      this.presetBox,
      this.inputs,
      this.error,
      this.results,
    );
  }

  compute() {
    return playgroundNow() || getPlayground();
  }

  renderKey(state) {
    return `${super.renderKey(state)}|${this._attrKey()}|${this.current}`;
  }

  _attrKey() {
    // Only this view's preset ids count: on the playground page `preset` also carries the
    // lecture presets of the other views, which must not reset the calculator.
    const p = this.getAttribute('preset') || '';
    return JSON.stringify([p in SHORT ? p : '', ...ATTRS.map((a) => this.getAttribute(a))]);
  }

  _presets(ap) {
    if (!this._presetList) this._presetList = ap.sizePresets();
    return this._presetList;
  }

  // Fill the inputs from a counted configuration (every key present).
  _fill(c) {
    const i = this.in;
    i.arch.input.value = c.arch;
    i.dModel.input.value = c.dModel;
    i.nLayers.input.value = c.arch === 'decoder' ? c.decoderLayers : c.encoderLayers;
    i.nHeads.input.value = c.nHeads;
    i.nKvHeads.input.value = c.nKvHeads || c.nHeads; // 0 in the core: one K/V head per head
    i.dFf.input.value = c.dFf;
    i.vocabSize.input.value = c.vocabSize;
    i.pos.input.value = c.pos;
    i.maxLen.input.value = c.maxLen;
    i.tie.input.checked = c.tieEmbeddings;
    i.share.input.checked = c.shareEmbeddings;
    i.biases.input.checked = c.biases;
    i.pre.input.checked = c.norm === 'pre';
    i.bert.input.checked = c.segments > 0 || c.embedNorm || c.pooler;
  }

  // The configuration the inputs describe (the core checks it).
  _read() {
    const i = this.in;
    const int = (x) => (x.input.value.trim() === '' ? NaN : Number(x.input.value));
    const bert = i.bert.input.checked;
    return {
      arch: i.arch.input.value,
      dModel: int(i.dModel),
      nLayers: int(i.nLayers),
      nHeads: int(i.nHeads),
      nKvHeads: int(i.nKvHeads),
      dFf: int(i.dFf),
      vocabSize: int(i.vocabSize),
      pos: i.pos.input.value,
      maxLen: int(i.maxLen),
      tieEmbeddings: i.tie.input.checked,
      shareEmbeddings: i.share.input.checked,
      biases: i.biases.input.checked,
      norm: i.pre.input.checked ? 'pre' : 'post',
      segments: bert ? 2 : 0,
      embedNorm: bert,
      pooler: bert,
    };
  }

  _load(ap, id, overrides = {}) {
    const p = this._presets(ap).find((q) => q.id === id) || this._presets(ap)[0];
    this.current = p.id;
    this._fill(ap.parameterCount({ preset: p.id, ...overrides }).config);
  }

  _edited() {
    this.current = '';
    this.update();
  }

  _choose(id) {
    this.current = id;
    this.appliedKey = this._attrKey(); // a click wins over the attributes until they change
    const ap = playgroundNow();
    if (ap) this._load(ap, id);
    this.update();
  }

  // The Hugging Face model the page has open, as the calculator's inputs (its real config.json).
  _hfConfig(entry) {
    const b = entry.base;
    return {
      arch: b.arch,
      dModel: b.dModel,
      nLayers: b.nLayers,
      nHeads: b.nHeads,
      dFf: b.dFf,
      vocabSize: b.vocabSize,
      maxLen: b.maxLen,
      pos: 'learned',
      norm: b.norm,
      biases: true,
      tieEmbeddings: !!b.tiedHead,
      segments: b.typeVocab || 0,
      embedNorm: !!b.embNorm,
      pooler: false,
    };
  }

  render(ap, state) {
    const presets = this._presets(ap);
    const hf = state && !state.preset && state.model.startsWith('hf:') ? modelNow(state.model) : null;
    this._hf = hf;
    if (hf && this._hfShown !== hf.key) {
      // A model was just opened: the calculator starts from its config.json.
      this._hfShown = hf.key;
      this.appliedKey = this._attrKey();
      this.current = 'hf';
      this._fill(ap.parameterCount(this._hfConfig(hf)).config);
    } else if (!hf && this.current === 'hf') this.current = '';
    const key = this._attrKey();
    if (key !== this.appliedKey) {
      // Attributes changed (or first render): preset, then the size attributes over it.
      this.appliedKey = key;
      const want = this.getAttribute('preset');
      const id = presets.some((p) => p.id === want) ? want : this.current || 'original';
      const o = {};
      if (['encoder', 'decoder', 'encoder-decoder'].includes(this.getAttribute('kind')))
        o.arch = this.getAttribute('kind');
      // Each size a whole number the core's calculator takes (its limits, cpp/core/costs.cpp): one it
      // refuses, or that is not a number, is left out (the preset's value stays), with a warning.
      const preset = `the ${id} preset's`;
      const intAttr = (a, key) => {
        if (!this.hasAttribute(a)) return undefined;
        const raw = this.getAttribute(a);
        const whole = { min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER, integer: true };
        const { value, why } = readNumber(raw, whole, undefined);
        if (value === undefined) {
          if (why) this.warnAttribute(a, raw, why, preset);
          return undefined;
        }
        try {
          ap.parameterCount({ preset: id, [key]: value });
        } catch (err) {
          this.warnAttribute(a, raw, `is refused by the calculator (${err.message})`, preset);
          return undefined;
        }
        if (why) this.warnAttribute(a, raw, why, String(value));
        return value;
      };
      o.dModel = intAttr('d-model', 'dModel');
      o.nLayers = intAttr('n-layers', 'nLayers');
      o.nHeads = intAttr('n-heads', 'nHeads');
      o.dFf = intAttr('d-ff', 'dFf');
      o.vocabSize = intAttr('vocab', 'vocabSize');
      o.maxLen = intAttr('max-len', 'maxLen');
      const overridden = Object.values(o).some((v) => v !== undefined);
      try {
        this._load(ap, id, o);
      } catch (err) {
        // Each one taken alone, but not together (d-model not divisible by n-heads...): the preset.
        const set = ATTRS.filter((a) => a !== 'kind' && this.hasAttribute(a));
        this.warnAttribute(
          set[0] ?? 'kind',
          this.getAttribute(set[0] ?? 'kind'),
          `with ${set.join(', ')} is refused by the calculator (${err.message})`,
          preset,
        );
        this._load(ap, id); // the preset as published (the inputs show the error on edit)
      }
      if (overridden) this.current = '';
    }
    this.presetBox.hidden = this.hides('presets');
    this.inputs.hidden = this.hides('inputs');
    const yours = hf
      ? [
          el('span', { className: 'note', text: 'Your model:' }),
          el('button', {
            type: 'button',
            className: 'small',
            text: `${hf.label.replace(/ \(.*$/, '')} (${paramText(hf.params)})`,
            attrs: { 'aria-pressed': String(this.current === 'hf'), 'data-preset': 'hf' },
            on: {
              click: () => {
                this.current = 'hf';
                this._fill(ap.parameterCount(this._hfConfig(hf)).config);
                this.update();
              },
            },
          }),
        ]
      : [];
    this.presetBox.replaceChildren(
      ...yours,
      el('span', { className: 'note', text: 'Published models:' }),
      ...presets.map((p) =>
        el('button', {
          type: 'button',
          className: 'small',
          text: SHORT[p.id] || p.title,
          attrs: { 'aria-pressed': String(this.current === p.id), 'data-preset': p.id },
          on: { click: () => this._choose(p.id) },
        }),
      ),
    );
    const c = this._read();
    this.in.share.input.disabled = c.arch !== 'encoder-decoder';
    this.in.maxLen.input.disabled = c.pos !== 'learned';
    let count;
    try {
      count = ap.parameterCount(c);
    } catch (err) {
      this.error.textContent = errorText(err);
      this.results.hidden = true;
      this.dataset.total = '';
      return;
    }
    this.error.textContent = '';
    this.results.hidden = false;
    this._kv(ap, c, count);
    this._show(
      count,
      presets.find((p) => p.id === this.current),
    );
  }

  // Grouped-query attention: W_K and W_V shrink to d × (K/V heads · d_k), and so does the KV cache a
  // decoder keeps (the core's parameterCount and kvCacheSize, beside multi-head attention's).
  _kv(ap, c, count) {
    const kv = c.nKvHeads,
      h = c.nHeads;
    if (c.arch === 'encoder') {
      this.kvLine.textContent = `K/V heads: an encoder keeps no KV cache; with ${kv} K/V heads for ${h} heads its W_K and W_V are ${h / kv} times narrower.`;
      return;
    }
    const mha = ap.parameterCount({ ...c, nKvHeads: h });
    const size = ap.kvCacheSize(c, c.maxLen);
    this.dataset.kvBytes = String(size.bytes);
    this.dataset.mhaBytes = String(size.mhaBytes);
    this.kvLine.textContent =
      kv === h
        ? `K/V heads = heads: multi-head attention. Its KV cache at ${exact(c.maxLen)} positions is ${fmtBytes(size.bytes)}; grouped-query attention (Llama 2 70B, Mistral) shares each K/V head among several query heads, so the cache shrinks by that factor at little cost in quality (Ainslie et al. 2023). Try fewer K/V heads.`
        : `${kv} K/V heads for ${h} heads: the KV cache at ${exact(c.maxLen)} positions is ${fmtBytes(size.bytes)} instead of multi-head attention's ${fmtBytes(size.mhaBytes)}, ${fmtRatio(size.mhaBytes / size.bytes)} times smaller, and W_K, W_V shrink: ${exact(mha.total - count.total)} fewer parameters in all.`;
  }

  _show(p, preset) {
    const c = p.config;
    this.dataset.total = String(p.total);
    this.total.replaceChildren(
      'Total: ',
      el('b', { className: 'total', text: `${bigCount(p.total)} parameters` }),
      el('span', { className: 'note', text: ` (${exact(p.total)})` }),
    );

    // Published beside computed, for an unedited preset.
    if (preset) {
      const diff = (p.total - preset.published) / preset.published;
      this.dataset.published = String(preset.published);
      this.dataset.diff = String(diff);
      this.dataset.source = citation(preset.source);
      this.published.replaceChildren(
        el(
          'p',
          { className: 'note ms-source' },
          el('b', { text: `${preset.title}. ` }),
          `Published total: ${preset.source}`,
        ),
        numsTable({
          header: ['total', 'parameters'],
          rows: [
            ['computed here (the core)', exact(p.total)],
            [{ text: `published (${citation(preset.source)})`, className: 'ms-cite' }, exact(preset.published)],
            [
              'difference',
              { text: `${diff >= 0 ? '+' : '−'}${(100 * Math.abs(diff)).toFixed(2)}%`, className: 'ms-diff' },
            ],
          ],
        }),
        // Why the totals differ (or agree): an explanation, not an error, so in the note style.
        el('p', { className: 'note ms-note', text: preset.note }),
      );
    } else if (this.current === 'hf' && this._hf) {
      // The open model: the count from its config beside the count of the tensors it loaded.
      const hf = this._hf;
      const diff = (p.total - hf.params) / hf.params;
      delete this.dataset.published;
      delete this.dataset.source;
      this.dataset.diff = String(diff);
      this.dataset.hfParams = String(hf.params);
      this.published.replaceChildren(
        el(
          'p',
          { className: 'note ms-source' },
          el('b', { text: `${hf.label}. ` }),
          'Its config.json in the calculator:',
        ),
        numsTable({
          header: ['total', 'parameters'],
          rows: [
            ['computed here from config.json (the core)', exact(p.total)],
            ['tensors in your model.safetensors, as loaded', exact(hf.params)],
            [
              'difference',
              { text: `${diff >= 0 ? '+' : '−'}${(100 * Math.abs(diff)).toFixed(2)}%`, className: 'ms-diff' },
            ],
          ],
        }),
        el('p', {
          className: 'note',
          text: 'Compare with the published models above: the same formula, your model’s sizes. A difference comes from parts the calculator counts differently (a BERT checkpoint’s masked-LM head, a pooler it may not have).',
        }),
      );
    } else {
      delete this.dataset.published;
      delete this.dataset.diff;
      delete this.dataset.source;
      delete this.dataset.hfParams;
      this.published.replaceChildren(
        el('p', {
          className: 'note',
          text: 'Your own configuration: no published total to compare with. Pick a published model above to compare.',
        }),
      );
    }

    // The shares as one stacked bar.
    const parts = PARTS.filter((q) => p[q.key] > 0);
    this.stack.setAttribute('aria-label', parts.map((q) => `${q.label} ${pct(p[q.key] / p.total)}`).join(', '));
    this.stack.replaceChildren(
      ...parts.map((q) =>
        el('i', {
          style: { width: `${(100 * p[q.key]) / p.total}%`, background: q.color },
          title: `${q.label}: ${pct(p[q.key] / p.total)}`,
        }),
      ),
    );
    this.legend.replaceChildren(
      ...parts.map((q) =>
        el('span', {}, el('i', { style: { background: q.color } }), `${q.label} ${pct(p[q.key] / p.total)}`),
      ),
    );
    this.dataset.ffnShare = String(p.ffn / p.total);
    this.dataset.attentionShare = String(p.attention / p.total);
    // W_Q and W_O are d × d; W_K and W_V are d × (K/V heads · d_k), d × d in multi-head attention.
    const kvWidth = ((c.nKvHeads || c.nHeads) * c.dModel) / c.nHeads;
    const attnText =
      kvWidth === c.dModel
        ? `4 · d² = ${exact(4 * c.dModel * c.dModel)}`
        : `2 · d² + 2 · d · ${kvWidth} (K/V heads · d_k) = ${exact(2 * c.dModel * c.dModel + 2 * c.dModel * kvWidth)}`;
    this.ratio.replaceChildren(
      'FFN ',
      el('b', { text: pct(p.ffn / p.total) }),
      ' of all parameters, attention ',
      el('b', { text: pct(p.attention / p.total) }),
      `. In a layer the FFN has 2 · d · d_ff = ${exact(2 * c.dModel * c.dFf)} weights, an attention block ${attnText}`,
      c.arch === 'encoder-decoder' ? ' (a decoder layer has two: self- and cross-attention).' : '.',
    );
    // The breakdown, with the formula of each line.
    const d = c.dModel,
      V = c.vocabSize;
    const enc = p.encoderLayers,
      dec = p.decoderLayers;
    const stacks = [enc ? `${enc} encoder` : '', dec ? `${dec} decoder` : ''].filter(Boolean).join(' + ');
    const b = c.biases ? ' + biases' : '';
    const embedParts = [`${exact(p.tokenEmbeddings / d)} × ${d} tokens`];
    if (p.positionEmbeddings)
      embedParts.push(
        c.pos === 'learned' ? `${c.maxLen} × ${d} positions` : `${exact(p.positionEmbeddings)} relative biases`,
      );
    if (p.segmentEmbeddings) embedParts.push(`${c.segments} × ${d} segments`);
    const f = (text) => ({ text, className: 'ms-formula' });
    const rows = [
      ['embeddings', exact(p.embeddings), pct(p.embeddings / p.total), f(embedParts.join(' + '))],
      [
        'attention',
        exact(p.attention),
        pct(p.attention / p.total),
        f(
          `${stacks} layers; ${kvWidth === d ? `4 · ${d}²` : `2 · ${d}² + 2 · ${d} · ${kvWidth}`}${b} per attention block${enc && dec ? ' (decoder: self + cross)' : ''}`,
        ),
      ],
      ['FFN', exact(p.ffn), pct(p.ffn / p.total), f(`${stacks} layers × (2 · ${d} · ${c.dFf}${b})`)],
      [
        'LayerNorms',
        exact(p.norms),
        pct(p.norms / p.total),
        f(
          `γ and β (2 · ${d}) per Add & Norm${c.norm === 'pre' ? ', + a final one per stack' : ''}${c.embedNorm ? ', + one on the embeddings' : ''}`,
        ),
      ],
      [
        'LM head',
        exact(p.lmHead),
        pct(p.lmHead / p.total),
        f(
          c.tieEmbeddings
            ? `tied to the token table${c.lmHeadBias ? `; bias ${V}` : ': no new weights'}`
            : `${d} × ${exact(V)}${c.lmHeadBias ? ' + bias' : ''}`,
        ),
      ],
    ];
    if (p.pooler) rows.push(['pooler', exact(p.pooler), pct(p.pooler / p.total), f(`${d} × ${d} + bias`)]);
    rows.push([{ text: 'total' }, { text: exact(p.total) }, '100%', '']);
    const perLayer = [
      enc ? `encoder layer ${exact(p.encoderLayer.total)}` : '',
      dec ? `decoder layer ${exact(p.decoderLayer.total)}` : '',
    ]
      .filter(Boolean)
      .join(', ');
    this.table.replaceChildren(
      numsTable({
        caption: 'Where the parameters are (counted by the core)',
        header: ['part', 'parameters', 'share', 'made of'],
        rows,
      }),
      el('p', { className: 'note', text: `One layer: ${perLayer} parameters.` }),
    );
  }
}

const fmtRatio = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

define(ApModelSizes);
