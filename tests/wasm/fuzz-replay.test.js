// Issue 25: the JS fuzz targets (tests/fuzz/js/loaders.mjs; `npm run fuzz` runs them for
// FUZZ_SECONDS) replayed on fixed seeds, with every chunk boundary of a small file, and a negative
// control for each class (the same check on a broken reader or loader must fail). Stalls use a
// 5 ms stall limit; the fake streams send every other chunk at once, so only a stall can outlast it.
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import * as pretrained from '../../wasm/lib/pretrained.js';
import { CLASSES, HEAP_SLACK, folder, makeContext, rng, runSeed } from '../fuzz/js/loaders.mjs';

// Seeds 1..N of each class (the reader classes are cheap, the load classes load a folder each).
const SEEDS = {
  'text-stream': 150,
  'weights-stream': 150,
  json: 30,
  load: 40,
  tokenizer: 30,
  'llama-config': 40,
  'llama-tokenizer': 40,
};
// Seeds `npm run fuzz` failed on once, fixed since. json 266: a circular object's TypeError quoted
// with its line breaks into the message.
const REGRESSIONS = { json: [266] };

let ap, full, ctx;
beforeAll(async () => {
  ap = await load();
  full = await ap._loadTrainer();
  ctx = await makeContext(ap, pretrained, { stallMs: 5 });
});

async function replay(name, seeds) {
  const problems = [];
  for (const seed of seeds) {
    const r = await runSeed(name, seed, ctx);
    for (const p of r.problems) problems.push(`seed ${seed}: ${p}`);
  }
  return problems;
}

const upTo = (n) => Array.from({ length: n }, (_, i) => i + 1);

describe('the JS fuzz targets on fixed seeds', () => {
  test.each(Object.keys(SEEDS))('%s: every seed gives what it must', async (name) => {
    expect(Object.keys(CLASSES)).toContain(name);
    const problems = await replay(name, [...upTo(SEEDS[name]), ...(REGRESSIONS[name] ?? [])]);
    expect(problems).toEqual([]);
  });

  test('a failed or refused load keeps no memory: the heap after the load seeds is where it was', async () => {
    // the same cases before and after (the core keeps its last error text: HEAP_SLACK)
    const warm = async () => {
      for (const name of ['json', 'load', 'tokenizer']) await replay(name, [1, 2, 3, 4, 5]);
    };
    await warm();
    const start = full.heapUsed();
    for (const name of ['json', 'load', 'tokenizer'])
      await replay(
        name,
        upTo(12).map((s) => s + 1000),
      );
    await warm();
    expect(Math.abs(full.heapUsed() - start)).toBeLessThanOrEqual(HEAP_SLACK);
  });
});

// A small file of characters of 1 to 4 bytes, cut in two at every offset: the text read is the text
// sent; and stalled, broken or closed early at every offset, the Error says so.
describe('every chunk boundary of a small file', () => {
  const text = 'a"é☃€😀𝄞{}[]\n'.repeat(3);
  const bytes = new TextEncoder().encode(text);
  // How a stream that was cut at byte i ends: whole, stalled, broken or closed early at i.
  const endings = (i) => [
    ['close', bytes.length],
    ['stall', i],
    ['error', i],
    ['close', i],
  ];

  test(`text: ${bytes.length + 1} boundaries x (whole, stalled, broken, closed early) x (with, without Content-Length)`, async () => {
    const problems = [];
    let cases = 0;
    for (let i = 0; i <= bytes.length; i++) {
      for (const [end, at] of endings(i)) {
        for (const length of [bytes.length, null]) {
          const c = { file: 'tokenizer.json', bytes, at, end, length, cuts: [i], empties: false };
          problems.push(...(await CLASSES['text-stream'].run(c, ctx)));
          cases++;
        }
      }
    }
    expect(cases).toBe((bytes.length + 1) * 8);
    expect(problems).toEqual([]);
  });

  test(`weights: ${bytes.length + 1} boundaries x (whole, stalled, broken, closed early), read in random slices`, async () => {
    const problems = [];
    for (let i = 0; i <= bytes.length; i++) {
      for (const [end, at] of endings(i)) {
        if (at === bytes.length && end !== 'close') continue; // nothing left to stall on
        const c = { bytes, at, end, length: bytes.length, cuts: [i], empties: i % 3 === 0, readSeed: i };
        problems.push(...(await CLASSES['weights-stream'].run(c, ctx)));
      }
    }
    expect(problems).toEqual([]);
  });
});

// Each class's check, on a reader or loader broken the way the code was before (or could be):
// it must report the case, so a green replay means something.
describe('negative controls: each check fails on a broken implementation', () => {
  test('text-stream: a reader that ignores the Content-Length takes a file cut short for the file', async () => {
    const bytes = new TextEncoder().encode('{"model_type": "gpt2"}  ');
    const c = { file: 'config.json', bytes, at: 22, end: 'close', length: bytes.length, cuts: [5], empties: false };
    expect(await CLASSES['text-stream'].run(c, ctx)).toEqual([]);
    const broken = { ...ctx, textOf: (part) => part.text() };
    const problems = await CLASSES['text-stream'].run(c, broken);
    expect(problems.join('\n')).toContain(
      'expected an Error (loadPretrained: config.json ended after 22 of its 24 bytes (Content-Length)), got a result',
    );
  });

  test('weights-stream: a reader that changes one byte is caught at that byte', async () => {
    const c = CLASSES['weights-stream'].generate(rng(7));
    Object.assign(c, { at: c.bytes.length, end: 'close', length: c.bytes.length });
    expect(await CLASSES['weights-stream'].run(c, ctx)).toEqual([]);
    const broken = {
      ...ctx,
      weightsReader: (part, stallMs) => {
        const r = pretrained.weightsReader(part, stallMs);
        let first = true;
        return {
          size: r.size,
          read: async (n) => {
            const out = (await r.read(n)).slice();
            if (first && out.length) out[0] ^= 1;
            first = false;
            return out;
          },
        };
      },
    };
    expect(await CLASSES['weights-stream'].run(c, broken)).toEqual([
      expect.stringMatching(/the bytes read differ from the bytes sent at offset 0$/),
    ]);
  });

  test('json: writing an object with a bare JSON.stringify gives an Error that names no file', async () => {
    const c = { file: 'config.json', kind: 'unwritable', what: 'circular' };
    expect(await CLASSES.json.run(c, ctx)).toEqual([]);
    const broken = {
      ...ctx,
      loadPretrained: (parts, o) => ap.loadPretrained({ ...parts, config: JSON.stringify(parts.config) }, o),
    };
    const problems = await CLASSES.json.run(c, broken);
    expect(problems.join('\n')).toContain('message "Converting circular structure to JSON');
  });

  test('load: a loader that ignores the AbortSignal is caught loading what was cancelled', async () => {
    const c = {
      forms: { config: 'string', tokenizer: 'string', weights: 'response' },
      fault: { part: 'weights', how: 'abort', where: 0.5 },
      seed: 1,
    };
    expect(await CLASSES.load.run(c, ctx)).toEqual([]);
    const broken = { ...ctx, loadPretrained: (parts, o) => ap.loadPretrained(parts, { ...o, signal: undefined }) };
    expect(await CLASSES.load.run(c, broken)).toEqual([
      expect.stringContaining('expected a cancelled Error, got a model'),
    ]);
  });

  test('tokenizer: a reader without the piece limit is caught loading a 1,025-byte piece', async () => {
    const c = { where: 'vocab', bytes: 1025, wide: false };
    expect(await CLASSES.tokenizer.run(c, ctx)).toEqual([]);
    // as the core was before the limit: the file is read (here: the folder without the long piece)
    const broken = {
      ...ctx,
      loadPretrained: (parts, o) => ap.loadPretrained({ ...parts, tokenizer: folder().tokenizer }, o),
    };
    expect(await CLASSES.tokenizer.run(c, broken)).toEqual([
      expect.stringContaining('tokenizer.json with a vocab of 1025 bytes: expected an Error'),
    ]);
  });
});
