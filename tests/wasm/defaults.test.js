// What a student meets first (issue 12): the page's default state names a trained model, and a
// decoder-only model has its causal mask on unless switched off (the core's default; the page's
// random-weights recipe adds no rule of its own).
import { beforeAll, describe, expect, test } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { load } from '../../wasm/index.js';
import { DEFAULTS, parseState } from '../../web/lib/state.js';
import { randomConfig } from '../../web/lib/models.js';

const ROOT = join(import.meta.dirname, '..', '..');
let ap;
beforeAll(async () => {
  ap = await load();
});

/** Weights of layer 0, head 0 for `ids`, as rows. */
function weights(model, ids, switches = {}) {
  const t = model.forward(Int32Array.from(ids), switches);
  try {
    const [, n, m] = t.shape('weights', { layer: 0 });
    const w = t.get('weights', { layer: 0, head: 0 });
    return Array.from({ length: n }, (_, i) => Array.from(w.slice(i * m, (i + 1) * m)));
  } finally {
    t.dispose();
  }
}

describe('the default state', () => {
  test('names the trained English model, whose file says what it was trained on', async () => {
    expect(DEFAULTS.model).toBe('english');
    expect(parseState({}).model).toBe('english');
    const model = await ap.openModel(
      new Uint8Array(await readFile(join(ROOT, 'web', 'models', 'english.safetensors'))),
    );
    try {
      expect(model.metadata.task).toBe('english');
      // Trained on real English, not random: after "<|endoftext|> The President of the United" the
      // piece " States" (Brown is American prose of 1961) is the first guess and far above the
      // uniform 1/4096; a random model of the same shape is near uniform.
      const enc = model.tokenizer.encode('The President of the United');
      const ids = [model.specialTokens.bos, ...enc.ids];
      const t = model.forward(Int32Array.from(ids));
      try {
        const V = model.vocab.length,
          probs = t.get('probs');
        const last = Array.from(probs.slice((ids.length - 1) * V, ids.length * V));
        const best = last.indexOf(Math.max(...last));
        expect(model.tokenizer.decode([best])).toBe(' States');
        expect(last[best]).toBeGreaterThan(0.3);
      } finally {
        t.dispose();
      }
    } finally {
      model.dispose();
    }
  });
});

describe('decoder-only implies the causal mask', () => {
  test("a random decoder from the page's recipe masks the future; switched off it does not; an encoder never does", () => {
    const ids = [5, 6, 7, 8];
    const dec = ap.createModel(randomConfig({ arch: 'decoder', seed: 3 }), { seed: 3 });
    const enc = ap.createModel(randomConfig({ arch: 'encoder', seed: 3 }), { seed: 3 });
    try {
      expect(dec.config.causal).toBe(true);
      const on = weights(dec, ids);
      // Row i has weight only on positions 0..i, and sums to 1.
      on.forEach((row, i) => {
        row.forEach((w, j) => {
          if (j > i) expect(w).toBe(0);
          else expect(w).toBeGreaterThan(0);
        });
        expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
      });
      const off = weights(dec, ids, { causal: false });
      expect(off[0].slice(1).some((w) => w > 0)).toBe(true);
      const bi = weights(enc, ids);
      expect(bi[0].slice(1).every((w) => w > 0)).toBe(true);
    } finally {
      dec.dispose();
      enc.dispose();
    }
  });
});
