// The shipped English decoder (web/models/english.safetensors, trained on the Brown corpus by
// `npm run train -- english`), through the wasm module a page uses:
// - the byte-level BPE tokenizer they carry: ids equal to Hugging Face's Rust tokenizers (npm
//   `tokenizers`) on the same tokenizer.json, every string encodes with no unknown token and
//   decodes back to itself;
// - the files are the ones measured (sha256 in tests/fixtures/english/report.json, written by
//   `npm run train -- report`) and the recorded held-out figures come out again on a subset (the
//   first passage of each of the 25 held-out samples);
// - on that subset the decoder reads held-out English in fewer bits per byte than a Kneser-Ney
//   trigram trained here, now, on the same training split.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import tk from 'tokenizers';
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { splitBrown } from '../tools/lib/brown.mjs';
import { chunksFor, decoderFigures, firstPassages, mlmFigures, tokenizerJsonOf } from '../tools/lib/english-eval.mjs';
import { bitsPerByte, trainKneserNey } from '../tools/lib/ngram.mjs';
import { POOL, randomStrings } from './lib/random-text.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const report = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/english/report.json'), 'utf8'));
const bytesOf = (name) => new Uint8Array(readFileSync(join(ROOT, 'web/models', `${name}.safetensors`)));

let ap, dec, tokJson, split;
beforeAll(async () => {
  ap = await load();
  const decBytes = bytesOf('english');
  dec = await ap.openModel(decBytes);
  tokJson = tokenizerJsonOf(decBytes);
  split = splitBrown();
}, 120_000);

describe('the English tokenizer (byte-level BPE trained on the Brown training split)', () => {
  test('the first module refuses the file by name and stays usable; openModel reads it', () => {
    expect(() => ap.loadModel(bytesOf('english'))).toThrow(/tokenizer\.json.*openModel/);
    expect(
      ap.createModel({ arch: 'decoder', dModel: 8, nHeads: 2, nLayers: 1, dFf: 16, vocab: ['a'] }).config.dModel,
    ).toBe(8);
    expect(dec.specialTokens).toMatchObject({ kind: 'byte-level BPE', size: 4096, pad: 0, bos: 1, eos: 1, mask: 2 });
  });

  test("ids equal Hugging Face's on 300 random strings and 200 held-out sentences; nothing is unknown", async () => {
    const hf = tk.Tokenizer.fromString(JSON.stringify(tokJson));
    const sentences = split.heldOut.flatMap((s) => s.sentences.slice(0, 8).map((x) => x.text));
    const texts = [...randomStrings(300, 2026), ...sentences.slice(0, 200)];
    let tokens = 0;
    for (const text of texts) {
      const want = (await hf.encode(text, null, { addSpecialTokens: true })).getIds();
      const ours = dec.tokenizer.encode(text);
      expect(Array.from(ours.ids), JSON.stringify(text)).toEqual(want);
      expect(ours.unknown).toEqual([]);
      tokens += want.length;
    }
    expect(tokens).toBeGreaterThan(5000);
  });

  test('every string decodes back to itself, byte for byte (emoji, accents, CJK, tabs)', () => {
    const noSpecials = POOL.filter((p) => !/MASK|endoftext/.test(p));
    let s = 7;
    for (let k = 0; k < 300; k++) {
      let text = '';
      for (let i = 0; i < 1 + (k % 30); i++) {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        text += noSpecials[s % noSpecials.length];
      }
      const enc = dec.tokenizer.encode(text);
      expect(enc.unknown).toEqual([]);
      expect(dec.tokenizer.decode(enc.ids), JSON.stringify(text)).toBe(text);
    }
  });

  test('a passage tokenized as a whole gives the tokens of its sentences (how training cut them)', async () => {
    const chunks = firstPassages(await chunksFor(dec, tokJson, split.heldOut, 255));
    for (const c of chunks) expect(Array.from(dec.tokenizer.encode(c.text).ids)).toEqual(c.ids);
  });
});

describe('the shipped files and their recorded held-out figures', () => {
  test('english.safetensors is the file that was measured', () => {
    const bytes = bytesOf('english');
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(report.files.english.sha256);
    expect(bytes.length).toBeLessThanOrEqual(3 * 1024 * 1024); // the budget for a page model
  });

  test("the file records how it was made: both stages' commands, corpus, split, seeds", async () => {
    const { RECIPES } = await import('../tools/lib/english-recipes.mjs');
    const [first, second] = RECIPES.english;
    const m = dec.metadata;
    expect(m.init_train_command).toBe(`train ${first} --data build/english --out web/models/english.safetensors`);
    expect(m.train_command).toBe(
      `train ${second} --init web/models/english.safetensors --data build/english --out web/models/english.safetensors`,
    );
    expect(m.corpus).toMatch(/Brown/);
    expect(JSON.parse(m.split).heldOut).toEqual(split.heldOut.map((s) => s.id));
  });

  test('the decoder: recorded bits per byte and top-1 / top-5 on the subset come out again', async () => {
    const chunks = firstPassages(await chunksFor(dec, tokJson, split.heldOut, dec.config.maxLen - 1));
    expect(chunks.length).toBe(25);
    const got = decoderFigures(dec, chunks, dec.specialTokens.bos);
    const want = report.decoderSubset;
    expect(got.tokens).toBe(want.tokens);
    expect(got.bytes).toBe(want.bytes);
    expect(got.bitsPerByte).toBeCloseTo(want.bitsPerByte, 6);
    expect(got.top1).toBeCloseTo(want.top1, 6);
    expect(got.top5).toBeCloseTo(want.top5, 6);
  });
});

describe('against a Kneser-Ney trigram trained now on the same training split', () => {
  test('the decoder reads the held-out subset in fewer bits per byte', async () => {
    const train = await chunksFor(dec, tokJson, split.train, 255);
    const kn = trainKneserNey(
      train.map((c) => c.ids),
      3,
      dec.config.vocabSize,
    );
    const subset = firstPassages(await chunksFor(dec, tokJson, split.heldOut, 255));
    const ngram = bitsPerByte(kn, subset);
    const ours = decoderFigures(dec, subset, dec.specialTokens.bos);
    // The recorded trigram figure on the subset is this one (the baseline code has not drifted).
    expect(ngram.bitsPerByte).toBeCloseTo(report.baselines.find((b) => b.order === 3).subset.bitsPerByte, 9);
    expect(ours.bitsPerByte).toBeLessThan(ngram.bitsPerByte);
  }, 180_000);
});
