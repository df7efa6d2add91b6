// The trained models the playground ships (web/models/), loaded through the JS API and measured
// on 2,000 held-out examples of their own task by the core: the thresholds of the training issue.
// mlm (the masked LM) is measured by top-1 at the hidden word (22.80 % measured: many hidden words
// have several right answers), and by number agreement on hand-written sentences below.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { MLM_VERBS } from '../web/lib/models.js';

const dir = fileURLToPath(new URL('../../web/models/', import.meta.url));
let ap;
beforeAll(async () => {
  ap = await load();
});

const HELD_OUT = 2000;
const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const SEED = 20261122; // the held-out seed the trainer reports with (README, Models)

describe.each([
  ['sort', 0.995, 'decoder'],
  ['reverse', 0.995, 'decoder'],
  ['dates', 0.99, 'encoder-decoder'],
  ['grammar', 0.95, 'decoder'],
  ['mlm', 0.18, 'encoder'],
])('%s model', (task, threshold, arch) => {
  test(`is at most 500 KB, a ${arch} model, and scores >= ${threshold * 100}% on ${HELD_OUT} held-out examples`, async () => {
    const bytes = readFileSync(`${dir}${task}.safetensors`);
    expect(bytes.length).toBeLessThanOrEqual(500 * 1024);
    const model = ap.loadModel(bytes);
    expect(model.metadata.task).toBe(task);
    expect(model.config.arch).toBe(arch);
    const r = await ap.evaluateTask(model, { n: HELD_OUT, seed: SEED });
    console.log(`${task}: ${r.correct}/${r.total} = ${(100 * r.accuracy).toFixed(2)}%`, JSON.stringify(r.byKind));
    expect(r.total).toBe(HELD_OUT);
    expect(r.accuracy).toBeGreaterThanOrEqual(threshold);
    // The README's table of shipped models quotes this figure (100 % as a whole number).
    const row = README.split('\n').find((l) => l.startsWith(`| ${task} |`));
    expect(row, `README row for ${task}`).toContain(r.accuracy === 1 ? '100 %' : `${(100 * r.accuracy).toFixed(2)} %`);
    model.dispose();
  }, 300_000);
});

test('sort generates with the KV cache exactly what it generates without it', () => {
  const model = ap.loadModel(readFileSync(`${dir}sort.safetensors`));
  const a = model.generate('q7c3zb9a', { maxTokens: 12, useCache: true });
  const b = model.generate('q7c3zb9a', { maxTokens: 12, useCache: false });
  expect(a.text).toBe('379abcqz');
  expect(Array.from(a.tokens)).toEqual(Array.from(b.tokens));
  for (let i = 0; i < a.steps.length; i++) {
    const la = a.steps[i].trace.get('logits'),
      lb = b.steps[i].trace.get('logits');
    const V = model.vocab.length;
    const lastA = la.subarray(la.length - V),
      lastB = lb.subarray(lb.length - V);
    for (let v = 0; v < V; v++)
      expect(Math.abs(lastA[v] - lastB[v])).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(lastB[v])));
  }
  a.dispose();
  b.dispose();
  model.dispose();
});

// The masked LM fills a hidden verb with the form that agrees with its subject, also when a noun
// of the other number stands between them, and reads context on both sides ("bank" from what
// follows). Each sentence is written by hand; '_' is the hidden word.
describe('mlm model: the hidden word from both sides', () => {
  const VERBS = [...MLM_VERBS.common, ...MLM_VERBS.transitive];
  const SG = VERBS.map(([singular]) => singular);
  const PL = VERBS.map(([, plural]) => plural);
  let model, MASK, V;
  beforeAll(() => {
    model = ap.loadModel(readFileSync(`${dir}mlm.safetensors`));
    MASK = model.vocab.indexOf('[MASK]');
    V = model.vocab.length;
  });
  /** The probabilities at '_' for a sentence with '_' hidden. */
  function hidden(text) {
    const words = text.split(' ');
    const at = words.indexOf('_');
    const enc = model.tokenizer.encode(words.map((w) => (w === '_' ? 'the' : w)).join(' '));
    expect(enc.unknown).toEqual([]);
    const ids = Int32Array.from(enc.ids);
    ids[at] = MASK;
    const tr = model.forward(ids);
    const p = tr.get('probs').slice(at * V, (at + 1) * V);
    tr.dispose();
    const top = model.vocab[p.indexOf(Math.max(...p))];
    const sum = (list) => list.reduce((a, w) => a + p[model.vocab.indexOf(w)], 0);
    return { p, top, sg: sum(SG), pl: sum(PL) };
  }
  test.each([
    ['the cat near the dogs _ on the mat .', 'sg'],
    ['the dogs near the cat _ on the mat .', 'pl'],
    ['the boy who likes the girls _ in the garden .', 'sg'],
    ['the girls that the boy likes _ happy .', 'pl'],
    ['the cat and the dog _ on the mat .', 'pl'],
    ['my old uncle with the horses _ .', 'sg'],
    ['those tired sailors beside the queen _ quietly .', 'pl'],
  ])('"%s": the %s verb forms are more probable', (text, number) => {
    const r = hidden(text);
    console.log(`${text} -> ${r.top}; P(singular forms) ${r.sg.toFixed(3)}, P(plural forms) ${r.pl.toFixed(3)}`);
    for (const w of [...SG, ...PL]) expect(model.vocab).toContain(w);
    if (number === 'sg') expect(r.sg).toBeGreaterThan(r.pl);
    else expect(r.pl).toBeGreaterThan(r.sg);
    // The top word is a verb of the right number (a past form like "sat" has none: allowed).
    expect(number === 'sg' ? PL : SG).not.toContain(r.top);
  });
  test("the core names the mask token and finds it in the model's word vocabulary", () => {
    expect(ap.specialTokens.maskPiece).toBe('[MASK]');
    // data/mlm.cpp appends it after grammar's words: the last id of the file's vocabulary.
    expect(MASK).toBe(V - 1);
    expect(model.specialTokens).toMatchObject({ kind: 'word', mask: MASK, eos: model.vocab.indexOf('<eos>') });
    // A word-level model made in the page with the piece in its words has it too; without, none.
    const words = ['the', 'cat', ap.specialTokens.maskPiece, 'sat'];
    const sizes = { arch: 'encoder', tokenizer: 'word', dModel: 8, nHeads: 2, nLayers: 1, dFf: 16, maxLen: 8 };
    const made = ap.createModel({ ...sizes, vocab: words }, { seed: 1 });
    const plain = ap.createModel({ ...sizes, vocab: ['the', 'cat'] }, { seed: 1 });
    try {
      expect(made.specialTokens.mask).toBe(6); // <pad> <unk> <bos> <eos> the cat [MASK]
      expect(made.pieces[6]).toBe('[MASK]');
      expect(plain.specialTokens.mask).toBe(-1);
    } finally {
      made.dispose();
      plain.dispose();
    }
  });
  test('"bank" is read from the words after the mask', () => {
    expect(hidden('the farmer keeps money in the _ .').top).toBe('bank');
    expect(hidden('the fisherman sat on the _ of the river .').top).toBe('bank');
  });
});
