// The trace says which stage each block hands to the next (role "block_output", Trace.blockOutput),
// so no view restates the post-norm / pre-norm rule. Checked against the numbers, not the rule: the
// next layer's first residual is its input plus its attention output, so resid1(l + 1) − attn_out(l + 1)
// must equal the marked stage of layer l, whatever the block's form.
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { keepFor } from '../../web/lib/runs.js';

let ap;
beforeAll(async () => {
  ap = await load();
});

const VOCAB = ['the', 'cat', 'sat', 'on', 'mat'];

function check(config, want, stack = 'decoder', input = 'the cat sat on the mat') {
  const model = ap.createModel({ dModel: 16, nHeads: 2, nLayers: 3, dFf: 32, vocab: VOCAB, ...config }, { seed: 5 });
  const t = model.forward(input);
  try {
    for (let l = 0; l < 2; l++) {
      const name = t.blockOutput({ layer: l, stack });
      expect(name, `layer ${l}`).toBe(want);
      const out = t.get(name, { layer: l, stack });
      const r1 = t.get('resid1', { layer: l + 1, stack });
      const a = t.get('attn_out', { layer: l + 1, stack });
      let worst = 0;
      for (let i = 0; i < out.length; i++) worst = Math.max(worst, Math.abs(r1[i] - a[i] - out[i]));
      expect(worst, `layer ${l}`).toBeLessThan(1e-5);
    }
    expect(t.stages().filter((s) => s.role === 'block_output' && s.stack === stack)).toHaveLength(3);
    // The stack's output: a pre-norm stack's final norm, a post-norm stack's last block output. On a
    // decoder-only model the logits are read from it: row 0 times lm_head.w (d, V) plus the bias.
    const out = t.stackOutput({ stack });
    expect(out).toEqual(config.norm === 'pre' ? { name: 'final_norm', layer: null } : { name: want, layer: 2 });
    if (config.arch === 'decoder') {
      const h = t.get(out.name, out.layer === null ? { stack } : { layer: 2, stack });
      const W = model.getTensor('lm_head.w'),
        b = model.getTensor('lm_head.b');
      const logits = t.get('logits');
      const V = b.length,
        d = 16;
      let worst = 0;
      for (let v = 0; v < V; v++) {
        let s = b[v];
        for (let c = 0; c < d; c++) s += h[c] * W[c * V + v];
        worst = Math.max(worst, Math.abs(s - logits[v]));
      }
      expect(worst).toBeLessThan(1e-4);
    }
  } finally {
    t.dispose();
    model.dispose();
  }
}

describe("the trace marks each block's output", () => {
  test('post-norm (the notes): norm2, the normalised sum after the FFN', () =>
    check({ arch: 'decoder', norm: 'post' }, 'norm2'));
  test('pre-norm (GPT-2): resid2, the residual stream after the FFN', () =>
    check({ arch: 'decoder', norm: 'pre' }, 'resid2'));
  test('attention-only, post-norm: norm1; pre-norm: resid1', () => {
    check({ arch: 'decoder', norm: 'post', ffn: false }, 'norm1');
    check({ arch: 'decoder', norm: 'pre', ffn: false }, 'resid1');
  });
  test('an encoder the same way; a layer not kept has no mark (null)', () => {
    check({ arch: 'encoder', norm: 'post' }, 'norm2', 'encoder');
    const model = ap.createModel(
      { arch: 'decoder', dModel: 16, nHeads: 2, nLayers: 3, dFf: 32, vocab: VOCAB },
      { seed: 5 },
    );
    const t = model.forward('the cat', {}, { layers: [1] });
    expect(t.blockOutput({ layer: 1 })).toBe('norm2');
    expect(t.blockOutput({ layer: 0 })).toBe(null);
    t.dispose();
    model.dispose();
  });
});

// Stage.perHead says which stages hold one slice per head (what { head } slices), so no view keeps
// its own list: checked against the numbers, each head's slice being that head's columns of the
// concatenation, and with an encoder-decoder's cross-attention.
describe('the trace says which stages are per head', () => {
  test("every per-head stage has h slices; head_out's slices are concat's columns; the rest are not sliced", () => {
    const h = 2,
      d = 16;
    const model = ap.createModel(
      { arch: 'encoder-decoder', dModel: d, nHeads: h, nLayers: 1, dFf: 32, pos: 'relative', vocab: VOCAB },
      { seed: 5 },
    );
    const t = model.forward({ src: 'the cat sat', tgt: 'on the mat' });
    try {
      const per = t.stages().filter((s) => s.perHead);
      expect(new Set(per.map((s) => s.name))).toEqual(
        new Set([
          ...['scores', 'pos_bias', 'scaled', 'masked', 'weights', 'head_out'],
          ...['scores', 'scaled', 'masked', 'weights', 'head_out'].map((n) => `cross_${n}`),
        ]),
      );
      for (const s of per) expect(s.shape[0], s.name).toBe(h);
      for (const s of t.stages().filter((x) => !x.perHead))
        expect(() => t.get(s.name, { stack: s.stack, layer: s.layer ?? undefined, head: 0 }), s.name).toThrow(
          /has no heads/,
        );
      for (const prefix of ['', 'cross_']) {
        const concat = t.get(`${prefix}concat`, { layer: 0 });
        const dK = d / h;
        const n = concat.length / d;
        for (let hd = 0; hd < h; hd++) {
          const z = t.get(`${prefix}head_out`, { layer: 0, head: hd });
          for (let i = 0; i < n; i++)
            for (let c = 0; c < dK; c++) expect(z[i * dK + c]).toBe(concat[i * d + hd * dK + c]);
        }
      }
    } finally {
      t.dispose();
      model.dispose();
    }
  });
});

// A Hugging Face model's trace keeps, beside the layer looked at, each layer's output: the keep list
// names the stage the core marks (runs.js asks a one-token pass), so no rule is restated, and a
// switch that changes the block's form (norm) changes the stage kept.
describe("a large model's trace keeps every layer's output as the core marks it", () => {
  test.each([
    [{ norm: 'post' }, {}, 'norm2'],
    [{ norm: 'pre' }, {}, 'resid2'],
    [{ norm: 'post' }, { norm: 'pre' }, 'resid2'],
    [{ norm: 'post', ffn: false }, {}, 'norm1'],
    [{ norm: 'pre', ffn: false }, {}, 'resid1'],
  ])('model %j, switches %j: %s', (config, switches, want) => {
    const model = ap.createModel(
      { arch: 'decoder', dModel: 16, nHeads: 2, nLayers: 3, dFf: 32, vocab: VOCAB, ...config },
      { seed: 5 },
    );
    const entry = { kind: 'pretrained', key: `keep-${JSON.stringify(config)}`, model, base: { nLayers: 3 } };
    const keep = keepFor(entry, 2, switches);
    expect(keep).toEqual({ layers: [2], stages: ['weights', want] });
    const t = model.forward('the cat sat on the mat', switches, keep);
    try {
      for (const l of [0, 1, 2]) expect(t.blockOutput({ layer: l }), `layer ${l}`).toBe(want);
      expect(
        t
          .stages()
          .filter((s) => s.layer === 0)
          .map((s) => s.name),
      ).toEqual(['weights', want]);
    } finally {
      t.dispose();
      model.dispose();
    }
  });
});
