// The shipped translation model (web/models/translate.safetensors, an encoder-decoder transformer
// trained by the C++ trainer on the translate task) through the real wasm module: it turns the
// notes' sentence (004) into the notes' French exactly, its cross-attention aligns the words the
// notes name, its encoder tells the two "bank" sentences apart, and it scores on held-out
// sentences of the grammar as the training run reported (100% of 1,000; the margin allows 2%).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { NOTES_EN as EN, NOTES_FR as FR } from '../web/lib/models.js';

const file = fileURLToPath(new URL('../../web/models/translate.safetensors', import.meta.url));
let ap, model;
beforeAll(async () => {
  ap = await load();
  model = ap.loadModel(readFileSync(file));
});
afterAll(() => model.dispose());

/** Head-averaged cross-attention of decoder layer `layer`: rows = French words written, cols = English words. */
function alignment(layer) {
  const src = model.tokenizer.encode(EN),
    fr = model.tokenizer.encode(FR);
  const tgt = Int32Array.from([2, ...fr.ids]); // <bos> + French: row i reads tgt[i] and writes fr[i]
  const tr = model.forward({ src: src.ids, tgt });
  const w = tr.get('cross_weights', { layer, stack: 'decoder' });
  tr.dispose();
  const H = model.config.nHeads,
    n = tgt.length,
    m = src.ids.length;
  expect(w.length).toBe(H * n * m);
  const avg = (i, j) => {
    let s = 0;
    for (let h = 0; h < H; h++) s += w[(h * n + i) * m + j];
    return s / H;
  };
  /** The English word French word `frWord` attends to most, and the weight. */
  return (frWord) => {
    const i = fr.pieces.indexOf(frWord);
    expect(i).toBeGreaterThanOrEqual(0);
    let best = 0;
    for (let j = 1; j < m; j++) if (avg(i, j) > avg(i, best)) best = j;
    let rowSum = 0;
    for (let j = 0; j < m; j++) rowSum += avg(i, j);
    expect(rowSum).toBeCloseTo(1, 5); // a softmax row, averaged over heads, still sums to 1
    return { word: src.pieces[best], weight: avg(i, best) };
  };
}

describe('translation model', () => {
  test('is an encoder-decoder of at most 500 KB trained on the translate task', () => {
    expect(readFileSync(file).length).toBeLessThanOrEqual(500 * 1024);
    expect(model.config.arch).toBe('encoder-decoder');
    expect(model.config.tokenizer).toBe('sentence');
    expect(model.metadata.task).toBe('translate');
  });

  test("greedy decoding turns the notes' sentence into the notes' French exactly", () => {
    const g = model.generate(EN, { maxTokens: 19 });
    expect(g.text).toBe(FR);
    g.dispose();
  });

  test("in a decoder layer's head-averaged cross-attention zone -> Area, 1992 -> 1992, signé -> signed (004)", () => {
    const found = [];
    for (let layer = 0; layer < model.config.nLayers; layer++) {
      const most = alignment(layer);
      const zone = most('zone'),
        year = most('1992'),
        signe = most('signé');
      if (zone.word === 'area' && year.word === '1992' && signe.word === 'signed')
        found.push({ layer, zone, year, signe });
    }
    console.log('layers aligned as in the notes:', JSON.stringify(found));
    expect(found.length).toBeGreaterThan(0);
  });

  test('the encoder gives "bank" one vector at the embedding and different ones after its layers', () => {
    const a = model.tokenizer.encode('I went to the bank to deposit my check.');
    const b = model.tokenizer.encode('I sat by the river bank.');
    const ta = model.forward({ src: a.ids, tgt: [2] }),
      tb = model.forward({ src: b.ids, tgt: [2] });
    const d = model.config.dModel,
      ia = a.pieces.indexOf('bank'),
      ib = b.pieces.indexOf('bank');
    const vec = (t, i, name, layer) =>
      t.get(name, layer === undefined ? { stack: 'encoder' } : { layer, stack: 'encoder' }).slice(i * d, (i + 1) * d);
    const cos = (x, y) => {
      let s = 0,
        nx = 0,
        ny = 0;
      for (let k = 0; k < d; k++) {
        s += x[k] * y[k];
        nx += x[k] * x[k];
        ny += y[k] * y[k];
      }
      return s / Math.sqrt(nx * ny);
    };
    expect(Array.from(vec(ta, ia, 'embed'))).toEqual(Array.from(vec(tb, ib, 'embed')));
    const last = cos(vec(ta, ia, 'norm2', model.config.nLayers - 1), vec(tb, ib, 'norm2', model.config.nLayers - 1));
    expect(last).toBeLessThan(0.9);
    ta.dispose();
    tb.dispose();
    // and the decoder writes the two senses with different French words
    expect(model.generate('I went to the bank to deposit my check.', { maxTokens: 19 }).text).toBe(
      'Je suis allé à la banque pour déposer mon chèque.',
    );
    expect(model.generate('I sat by the river bank.', { maxTokens: 19 }).text).toBe(
      'Je me suis assis près de la rive.',
    );
  });

  test('translates held-out sentences of the grammar (exact match, measured by the core)', async () => {
    const r = await ap.evaluateTask(model, { n: 1000, seed: 20261122 });
    console.log(`translate held-out: ${r.correct}/${r.total}`, JSON.stringify(r.byKind));
    expect(r.total).toBe(1000);
    expect(r.accuracy).toBeGreaterThanOrEqual(0.98);
    expect(Object.keys(r.byKind).sort()).toEqual(['by', 'document', 'went']);
  }, 300_000);

  test('an unknown word is reported, and the model stays usable', () => {
    const e = model.tokenizer.encode('The zorblax was signed in 1992.');
    expect(e.unknown).toEqual([1]);
    expect(() => model.generate('')).toThrow(/empty/);
    expect(model.generate(EN, { maxTokens: 19 }).text).toBe(FR);
  });
});
