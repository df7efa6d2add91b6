// Models are immutable; teaching switches are an argument of each call (issue 14). Two views with
// different switches on one shared model must each see their own numbers, however their calls
// interleave: each result is checked against a model of its own (same seed, so the same weights)
// that only ever ran with that view's switches, and the switches' effects against a hand
// calculation from the trace's own q and k.
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { randomConfig, randomKey, getModel } from '../../web/lib/models.js';
import { generationFor, runFor } from '../../web/lib/runs.js';

let ap;
beforeAll(async () => {
  ap = await load();
});

const CONFIG = randomConfig({ arch: 'decoder', tokenizer: 'word', dModel: 16, nHeads: 2, nLayers: 2 });
const TEXT = 'the cat sat on the mat';
// Three views of one model: the model's own switches, causal off with 4 heads, no positions and no scaling.
const VIEWS = [{}, { causal: false, nHeads: 4 }, { pos: 'none', scale: false }];

function stages(trace) {
  const out = {};
  for (const layer of [0, 1]) {
    out[`scores${layer}`] = trace.get('scores', { layer });
    out[`weights${layer}`] = trace.get('weights', { layer });
    out[`q${layer}`] = trace.get('q', { layer });
    out[`k${layer}`] = trace.get('k', { layer });
  }
  out.probs = trace.get('probs');
  return out;
}

function expectSameArrays(a, b, what) {
  for (const key of Object.keys(b)) {
    expect(a[key].length, `${what} ${key}`).toBe(b[key].length);
    expect(
      a[key].every((v, i) => Object.is(v, b[key][i])),
      `${what} ${key}`,
    ).toBe(true);
  }
}

describe('switches are per call', () => {
  test('three views interleaving forward and generate on one model each get their own numbers', () => {
    const shared = ap.createModel(CONFIG, { seed: 7 });
    const own = VIEWS.map(() => ap.createModel(CONFIG, { seed: 7 }));
    const ids = shared.tokenizer.encode(TEXT).ids;
    try {
      // Each view's reference: its own model, only ever called with its switches.
      const ref = own.map((m, v) => {
        const t = m.forward(ids, VIEWS[v]);
        try {
          return stages(t);
        } finally {
          t.dispose();
        }
      });
      const refGen = own.map((m, v) => {
        const g = m.generate('the cat', { maxTokens: 4, switches: VIEWS[v] });
        try {
          return Array.from(g.tokens);
        } finally {
          g.dispose();
        }
      });
      // Interleaved on the shared model: 0 1 2 1 0 2 0 ..., forward and generate mixed.
      const order = [0, 1, 2, 1, 0, 2, 0, 2, 1, 1, 0];
      for (const [step, v] of order.entries()) {
        if (step % 3 === 2) {
          const g = shared.generate('the cat', { maxTokens: 4, switches: VIEWS[v] });
          try {
            expect(Array.from(g.tokens), `generate, view ${v}, step ${step}`).toEqual(refGen[v]);
          } finally {
            g.dispose();
          }
        } else {
          const t = shared.forward(ids, VIEWS[v]);
          try {
            expectSameArrays(stages(t), ref[v], `view ${v}, step ${step}`);
          } finally {
            t.dispose();
          }
        }
      }
      // The model itself never changed.
      expect(shared.config.nHeads).toBe(2);
      expect(shared.config.causal).toBe(true);
      expect(shared.config.pos).toBe('sinusoidal');
      expect(shared.configFor(VIEWS[1])).toMatchObject({ nHeads: 4, causal: false, pos: 'sinusoidal' });
    } finally {
      shared.dispose();
      for (const m of own) m.dispose();
    }
  });

  test("each switch does what it says (scores from the trace's own q and k, by hand)", () => {
    const m = ap.createModel(CONFIG, { seed: 7 });
    const ids = m.tokenizer.encode(TEXT).ids;
    const n = ids.length;
    try {
      for (const sw of VIEWS) {
        const t = m.forward(ids, sw);
        try {
          const h = sw.nHeads ?? 2;
          const dK = 16 / h;
          expect(t.shape('scores', { layer: 0 })).toEqual([h, n, n]);
          // scores[h][i][j] = q_h[i] . k_h[j], and scaled = scores / sqrt(dK) (or unchanged without
          // scaling); q and k are (n, d) with the heads side by side.
          const q = t.get('q', { layer: 0 });
          const k = t.get('k', { layer: 0 });
          const s = t.get('scores', { layer: 0 });
          const scaled = t.get('scaled', { layer: 0 });
          const div = sw.scale === false ? 1 : Math.sqrt(dK);
          for (let head = 0; head < h; head++)
            for (let i = 0; i < n; i++)
              for (let j = 0; j < n; j++) {
                let dot = 0;
                for (let c = 0; c < dK; c++) dot += q[i * 16 + head * dK + c] * k[j * 16 + head * dK + c];
                expect(s[(head * n + i) * n + j]).toBeCloseTo(dot, 4);
                expect(scaled[(head * n + i) * n + j]).toBeCloseTo(dot / div, 4);
              }
          // The causal mask: with it, row 0 puts all its weight on token 0; without it, not.
          const w = t.get('weights', { layer: 0, head: 0 });
          if (sw.causal === false) expect(w[1]).toBeGreaterThan(0);
          else expect(w.slice(1, n).every((x) => x === 0)).toBe(true);
          // No positions: no pos stage, and x is the embedding itself.
          if (sw.pos === 'none') expect(t.stages().some((st) => st.name === 'pos')).toBe(false);
          else expect(t.stages().some((st) => st.name === 'pos')).toBe(true);
        } finally {
          t.dispose();
        }
      }
    } finally {
      m.dispose();
    }
  });

  test('a switch the model cannot take is refused by name, and the model stays usable', () => {
    const m = ap.createModel(CONFIG, { seed: 7 });
    try {
      expect(() => m.forward('the cat', { nHeads: 3 })).toThrow(/not divisible by n_heads \(3\)/);
      expect(() => m.forward('the cat', { pos: 'learned' })).toThrow(/needs weights this model does not have/);
      expect(() => m.forward('the cat', { heads: 4 })).toThrow(/unknown switch 'heads'/);
      expect(() => m.forward('the cat', { causal: 'off' })).toThrow(/switch causal must be true or false/);
      // 2 heads: K/V groups of 1 or 2 heads; either norm; no gated FFN without its W_gate (issue 26).
      expect(m.switchChoices).toEqual({
        nHeads: [1, 2, 4, 8, 16],
        pos: ['none', 'sinusoidal', 'rope'],
        nKvHeads: [1, 2],
        normKind: ['layernorm', 'rmsnorm'],
        ffnKind: ['mlp'],
      });
      const t = m.forward('the cat');
      try {
        expect(t.shape('weights', { layer: 0 })).toEqual([2, 2, 2]);
      } finally {
        t.dispose();
      }
    } finally {
      m.dispose();
    }
  });
});

describe('the page: two widgets on one shared model', () => {
  test('runs with different switches, recomputed in interleaved order after eviction, keep their own numbers', async () => {
    const spec = { seed: 7 };
    const modelKey = randomKey(spec);
    const entry = await getModel(modelKey);
    const states = VIEWS.map((switches) => ({ preset: '', modelKey, text: TEXT, switches }));
    const own = VIEWS.map(() => ap.createModel(CONFIG, { seed: 7 }));
    try {
      const ids = own[0].tokenizer.encode(TEXT).ids;
      const ref = own.map((m, v) => {
        const t = m.forward(ids, VIEWS[v]);
        try {
          return t.get('weights', { layer: 1 });
        } finally {
          t.dispose();
        }
      });
      for (const round of [0, 1, 2]) {
        const order = round === 1 ? [2, 0, 1] : [0, 1, 2];
        const runs = order.map((v) => [v, runFor(states[v])]);
        // Drop every run's trace and copies, so each recomputes now, after the others ran.
        for (const [, run] of runs) run._drop();
        for (const [v, run] of runs) {
          const w = run.get('weights', { layer: 1 });
          expect(Array.from(w), `view ${v}, round ${round}`).toEqual(Array.from(ref[v]));
          expect(run.config.nHeads).toBe(VIEWS[v].nHeads ?? 2);
        }
      }
      // Generation views pass their switches with each call too (and decoding stays causal).
      const g4 = generationFor(entry, 'the cat', { maxTokens: 3 }, { nHeads: 4, causal: false });
      const g2 = generationFor(entry, 'the cat', { maxTokens: 3 }, {});
      const r4 = own[1].generate('the cat', { maxTokens: 3, switches: { nHeads: 4 } });
      try {
        expect(g4.tokens).toEqual(Array.from(r4.tokens));
        expect(g4.steps[0].get('weights', { layer: 0 }).length).toBe(4 * g4.prompt.length * g4.prompt.length);
        expect(g2.steps[0].get('weights', { layer: 0 }).length).toBe(2 * g2.prompt.length * g2.prompt.length);
      } finally {
        r4.dispose();
      }
    } finally {
      for (const m of own) m.dispose();
    }
  });
});
