// Bad input gets a JS Error naming the problem, and the module keeps working afterwards.
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { eye } from './lib/inputs.js';

let ap;
beforeAll(async () => {
  ap = await load();
});

const good = (n = 2, d = 4, extra = {}) => ({
  x: Float32Array.from({ length: n * d }, (_, i) => Math.sin(i)),
  wq: eye(d),
  wk: eye(d),
  wv: eye(d),
  wo: eye(d),
  n,
  dModel: d,
  nHeads: 2,
  ...extra,
});
const wordModel = () =>
  ap.createModel(
    {
      arch: 'decoder',
      dModel: 8,
      nHeads: 2,
      nLayers: 1,
      dFf: 16,
      maxLen: 8,
      tokenizer: 'word',
      vocab: ['the', 'cat', 'sat', 'on', 'mat'],
    },
    { seed: 3 },
  );

describe('ap.attention', () => {
  test.each([
    [
      'd_model not divisible by n_heads',
      { dModel: 6, nHeads: 4, x: new Float32Array(12), wq: eye(6), wk: eye(6), wv: eye(6), wo: eye(6) },
      /d_model \(6\) is not divisible by n_heads \(4\)/,
    ],
    ['x of the wrong length', { x: new Float32Array(7) }, /x has 7 values but n\*dModel = 8/],
    ['W of the wrong length', { wk: new Float32Array(15) }, /wk has 15 values but dModel\*dModel = 16/],
    ['n = 0', { n: 0, x: new Float32Array(0) }, /n must be at least 1 \(got 0\)/],
    ['NaN in the input', { x: Float32Array.of(0, 1, NaN, 3, 4, 5, 6, 7) }, /x contains NaN \(at index 2\)/],
    [
      'Infinity in a weight',
      { wv: Float32Array.from(eye(4), (v, i) => (i === 5 ? Infinity : v)) },
      /wv contains Infinity/,
    ],
    ['memory of the wrong length', { memory: new Float32Array(5), m: 3 }, /memory has 5 values but m\*dModel = 12/],
    ['key padding of the wrong length', { keyPadding: [0, 0, 1] }, /keyPadding has 3 values but m = 2/],
    ['a string instead of an array', { x: 'hello' }, /x must be a Float32Array/],
  ])('%s', (_, patch, message) => {
    expect(() => ap.attention({ ...good(), ...patch })).toThrow(message);
    // and the module still computes correctly afterwards
    const t = ap.attention(good());
    const w = t.get('weights', { head: 0 });
    expect(w[0] + w[1]).toBeCloseTo(1, 6);
    t.dispose();
  });
});

describe('models', () => {
  test('unknown words are mapped to <unk> and reported with their positions', () => {
    const m = wordModel();
    const e = m.tokenizer.encode('The cat sat on the sofa.');
    expect(e.pieces).toEqual(['the', 'cat', 'sat', 'on', 'the', 'sofa', '.']);
    expect(e.unknown).toEqual([5, 6]);
    expect(e.ids[5]).toBe(1);
    const t = m.forward('the cat sat on the sofa');
    expect(t.unknown).toEqual([5]);
    t.dispose();
    m.dispose();
  });

  test.each([
    ['empty text', (m) => m.forward(''), /empty \(n = 0\)/],
    [
      'too many tokens',
      (m) => m.forward('the cat sat on the mat on the mat'),
      /has 9 tokens but the model's max length is 8/,
    ],
    ['ids outside the vocabulary', (m) => m.forward([4, 99]), /token id 99 at position 1 is outside the vocabulary/],
    [
      'an encoder-decoder call on a decoder model',
      (m) => m.forward({ src: 'the', tgt: 'cat' }),
      /decoder-only model: call forward\(ids or text\)/,
    ],
    [
      'a tensor of the wrong size',
      (m) => m.setTensor('tok_emb', new Float32Array(3)),
      /tensor 'tok_emb' needs 72 values, got 3/,
    ],
    ['NaN weights', (m) => m.setTensor('lm_head.b', new Float32Array(9).fill(NaN)), /contains NaN/],
    ['an unknown tensor', (m) => m.setTensor('nope', new Float32Array(1)), /unknown tensor 'nope'/],
    [
      'a switch that needs missing weights',
      (m) => m.forward('ab', { pos: 'learned' }),
      /needs weights this model does not have/,
    ],
  ])('%s', (_, call, message) => {
    const m = wordModel();
    expect(() => call(m)).toThrow(message);
    const t = m.forward('the cat sat');
    expect(t.shape('weights')).toEqual([2, 3, 3]);
    t.dispose();
    m.dispose();
  });

  test.each([
    ['d_model not divisible by n_heads', { dModel: 10, nHeads: 3 }, /d_model \(10\) is not divisible by n_heads \(3\)/],
    ['an unknown config key', { dmodel: 8 }, /unknown config key 'dmodel'/],
    ['a bad positional encoding name', { pos: 'spiral' }, /spiral/],
    ['a word model without a vocabulary', { tokenizer: 'word' }, /needs config.vocab/],
  ])('createModel rejects %s', (_, config, message) => {
    expect(() => ap.createModel({ dModel: 8, nHeads: 2, ...config })).toThrow(message);
  });

  test("an error of the core names the call for a programmer, and keeps the core's words as coreMessage", () => {
    const m = wordModel();
    let err = null;
    try {
      m.forward('');
    } catch (e) {
      err = e;
    }
    // The core's check (cpp/core/model.cpp check_ids) for an empty input, said by the wrapper's forward().
    expect(err.coreMessage).toBe('input is empty (n = 0): type at least one token');
    expect(err.message).toBe(`forward: ${err.coreMessage}`);
    m.dispose();
  });

  test('disposed traces and models throw instead of reading freed memory', () => {
    const m = wordModel();
    const t = m.forward('the cat');
    t.dispose();
    expect(() => t.get('weights')).toThrow(/disposed/);
    t.dispose(); // twice is harmless
    m.dispose();
    expect(() => m.forward('the cat')).toThrow(/disposed/);
    expect(() => m.tokenizer.encode('the')).toThrow(/disposed/);
  });
});

describe('malformed safetensors files', () => {
  let bytes;
  beforeAll(() => {
    const m = wordModel();
    bytes = m.save();
    m.dispose();
  });
  const headerLength = (b) => Number(new DataView(b.buffer, b.byteOffset).getBigUint64(0, true));
  const withHeader = (b, edit) => {
    const n = headerLength(b);
    const header = JSON.parse(new TextDecoder().decode(b.subarray(8, 8 + n)));
    edit(header);
    const text = new TextEncoder().encode(JSON.stringify(header));
    const out = new Uint8Array(8 + text.length + (b.length - 8 - n));
    new DataView(out.buffer).setBigUint64(0, BigInt(text.length), true);
    out.set(text, 8);
    out.set(b.subarray(8 + n), 8 + text.length);
    return out;
  };

  test.each([
    ['an empty file', () => new Uint8Array(0), /too short \(0 bytes/],
    ['a truncated file', (b) => b.slice(0, b.length - 100), /truncated|larger than|out of range|bytes/i],
    [
      'a bad JSON header',
      (b) => {
        const c = b.slice();
        c[9] = 0x7b;
        c[10] = 0x7b;
        return c;
      },
      /JSON|header/i,
    ],
    [
      'a wrong dtype',
      (b) =>
        withHeader(b, (h) => {
          h.tok_emb.dtype = 'F16';
        }),
      /F16/,
    ],
    [
      'a missing tensor',
      (b) =>
        withHeader(b, (h) => {
          delete h['lm_head.b'];
        }),
      /lm_head\.b/,
    ],
    [
      'offsets out of range',
      (b) =>
        withHeader(b, (h) => {
          h.tok_emb.data_offsets = [0, 1e9];
        }),
      /offset|range|bytes/i,
    ],
  ])('%s is rejected with a clear message', (_, make, message) => {
    expect(() => ap.loadModel(make(bytes))).toThrow(message);
    const ok = ap.loadModel(bytes); // still works
    ok.dispose();
  });
});

test('inputs too large to trace are refused before any memory is taken', () => {
  const before = ap.heapUsed(),
    mem = ap.memoryBytes();
  // 4 * 32768^2 scores would wrap a 32-bit size to 0 without the limit
  expect(() => ap.attention({ ...good(2, 4), n: 32768, x: new Float32Array(32768 * 4) })).toThrow(
    /n \(32768\) exceeds the limit of 4096 tokens/,
  );
  expect(() => ap.attention({ ...good(2, 4), n: 2048, x: new Float32Array(2048 * 4), nHeads: 2 })).toThrow(
    /nHeads\*n\*m = 8388608 exceeds the limit of 4194304/,
  );
  expect(() => ap.loadModel(new Uint8Array(256 * 2 ** 20 + 1))).toThrow(/limit is 268435456/);
  expect(ap.heapUsed()).toBe(before);
  expect(ap.memoryBytes()).toBe(mem);
});

test('10,000 calls with errors interleaved leave the wasm heap where it was', () => {
  const m = wordModel();
  const run = (i) => {
    switch (i % 5) {
      case 0: {
        const t = ap.attention(good(3));
        t.get('attn_out');
        t.dispose();
        break;
      }
      case 1:
        expect(() => ap.attention({ ...good(), x: new Float32Array(3) })).toThrow();
        break;
      case 2: {
        const t = m.forward('the cat sat on the mat');
        t.get('probs');
        t.dispose();
        break;
      }
      case 3:
        expect(() => m.forward('')).toThrow();
        break;
      default:
        expect(() => ap.attention({ ...good(), wq: new Float32Array(16).fill(NaN) })).toThrow();
        break;
    }
  };
  for (let i = 0; i < 500; i++) run(i); // warm up: let allocator pools settle
  const before = ap.heapUsed(),
    memBefore = ap.memoryBytes();
  for (let i = 0; i < 10000; i++) run(i);
  const after = ap.heapUsed();
  expect(after - before).toBeLessThanOrEqual(0);
  expect(ap.memoryBytes()).toBe(memBefore);
  m.dispose();
});
