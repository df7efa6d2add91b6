// Issue 26 item 3: the core's tokenizers of the Llama family (cpp/io/hf_tokenizer): SentencePiece-style
// BPE with byte fallback (Llama 2 / TinyLlama with the Prepend + Replace normalizer, Mistral with
// Metaspace) and byte-level BPE behind Llama 3's or Qwen2's split pattern, through the wasm module a
// page uses, against Hugging Face's own Rust tokenizers (npm `tokenizers`) running live in this
// process on the same tokenizer.json (tests/fixtures/hf/tokenizers/, made by
// tests/reference/make_llama_tokenizers.mjs): the strings of the existing tokenizer tests
// (llama_cases.json: cases.json's corpus plus the Llama-specific edges) and 300 seeded random strings
// per tokenizer. The tokenizer rides on a tiny GPT-2 folder made here (zero weights, vocab_size the
// tokenizer's), since loadPretrained is how a page opens a tokenizer.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import tk from 'tokenizers';
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { gpt2SmallTensors } from '../tools/lib/hf-synthetic.mjs';
import { POOL, randomStrings } from './lib/random-text.js';

const DIR = fileURLToPath(new URL('../fixtures/hf/tokenizers/', import.meta.url));
const read = (name) => readFileSync(join(DIR, name), 'utf8');
const texts = JSON.parse(read('llama_cases.json')).llama2.map((c) => c.text);

// The random strings draw also on what these tokenizers treat apart: their special tokens typed in
// the text, "▁" itself, digit runs, contractions in capitals, newlines after spaces.
const LLAMA_POOL = [
  ...POOL,
  '<s>',
  '</s>',
  '<unk>',
  '<|begin_of_text|>',
  '<|eot_id|>',
  '<|im_start|>',
  '\u2581',
  '12345',
  '٣٤',
  "'S",
  "'LL",
  '\u017f',
  '  \n',
  '\r\n\r\n',
  ' \t',
  '🦙',
  '<0x41>',
];

// A GPT-2 folder to carry a tokenizer.json: one layer of width 8, zero weights (F32).
function carrier(tokenizer, vocabSize) {
  const cfg = { model_type: 'gpt2', vocab_size: vocabSize, n_embd: 8, n_head: 2, n_layer: 1, n_positions: 32 };
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, shape] of gpt2SmallTensors(cfg)) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const h = Buffer.from(JSON.stringify(header), 'utf8');
  const file = new Uint8Array(8 + h.length + offset);
  new DataView(file.buffer).setBigUint64(0, BigInt(h.length), true);
  file.set(h, 8);
  return {
    config: JSON.stringify({ ...cfg, activation_function: 'gelu_new', layer_norm_epsilon: 1e-5 }),
    tokenizer,
    weights: file,
  };
}

let ap;
beforeAll(async () => {
  ap = await load();
});

// vocab_size: one past the largest id (an edited file below leaves holes).
async function open(json) {
  const hf = tk.Tokenizer.fromString(json);
  const j = JSON.parse(json);
  const size = 1 + Math.max(...Object.values(j.model.vocab), ...j.added_tokens.map((a) => a.id));
  const model = await ap.loadPretrained(carrier(json, size));
  return { model, hf };
}

// Every string: our ids are HF's (with the special tokens), and our decode of them is HF's decode.
async function compare(model, hf, list) {
  let tokens = 0;
  for (const text of list) {
    const want = (await hf.encode(text, null, { addSpecialTokens: true })).getIds();
    const ours = model.tokenizer.encode(text);
    expect(Array.from(ours.ids), JSON.stringify(text)).toEqual(want);
    expect(model.tokenizer.decode(ours.ids), JSON.stringify(text)).toBe(await hf.decode(want, true));
    tokens += want.length;
  }
  return tokens;
}

const KINDS = [
  ['llama2', 'SentencePiece BPE', 26],
  ['mistral', 'SentencePiece BPE', 27],
  ['llama3', 'byte-level BPE (Llama 3 split)', 28],
  ['qwen2', 'byte-level BPE (Qwen2 split)', 29],
];

describe.each(KINDS)('%s.json', (name, kind, seed) => {
  let model, hf;
  beforeAll(async () => {
    ({ model, hf } = await open(read(`${name}.json`)));
  });

  test(`is read as ${kind}, with HF's size`, () => {
    expect(model.specialTokens.kind).toBe(kind);
    expect(model.specialTokens.size).toBe(hf.getVocabSize(true));
  });

  test("the corpus and 300 random strings: the ids and the decoded text are Hugging Face's", async () => {
    const all = [...texts, ...randomStrings(300, seed, LLAMA_POOL)];
    const tokens = await compare(model, hf, all);
    console.info(`${name}: ${all.length} strings (${texts.length} corpus + 300 random), ${tokens} ids equal to HF's`);
    expect(all.length).toBe(texts.length + 300);
    expect(tokens).toBeGreaterThan(4000);
  });
});

// The options the four files leave at one value, edited into them and checked the same way.
describe.each([
  ['mistral.json, prepend_scheme always, split', 'mistral.json', (j) => (j.pre_tokenizer.split = true)],
  [
    'mistral.json, prepend_scheme never, split',
    'mistral.json',
    (j) => Object.assign(j.pre_tokenizer, { prepend_scheme: 'never', split: true }),
  ],
  [
    'mistral.json, prepend_scheme always, the Metaspace decoder',
    'mistral.json',
    (j) => {
      j.pre_tokenizer.prepend_scheme = 'always';
      j.decoder = { ...j.pre_tokenizer };
    },
  ],
  [
    'llama2.json without fuse_unk, some byte pieces missing',
    'llama2.json',
    (j) => {
      j.model.fuse_unk = false;
      for (let b = 0x80; b < 0xc0; b += 3) delete j.model.vocab[`<0x${b.toString(16).toUpperCase()}>`];
      j.model.merges = j.model.merges.filter((m) => !m.includes('<0x'));
    },
  ],
  ['llama3.json without ignore_merges', 'llama3.json', (j) => (j.model.ignore_merges = false)],
])('%s', (_name, file, edit) => {
  test("the corpus and 100 random strings give Hugging Face's ids and decode", async () => {
    const j = JSON.parse(read(file));
    edit(j);
    const { model, hf } = await open(JSON.stringify(j));
    expect(await compare(model, hf, [...texts, ...randomStrings(100, 30, LLAMA_POOL)])).toBeGreaterThan(1500);
  });
});

// Qwen2's own tokenizer.json has normalizer NFC (qwen2.json above has none; set here as in the real
// file). Two independent answers: Python's unicodedata.normalize('NFC', ...) (Unicode 14, the version
// of the core's tables) on the strings of tests/fixtures/hf/nfc_cases.json, seen through the
// byte-level decode, which gives back the normalized text; and Hugging Face's ids. HF normalizes with
// the Rust crate unicode-normalization-alignments, whose data is Unicode 9.0's: characters with
// normalization data assigned after 9.0 (the fixture's after_unicode_9, e.g. U+07FD, a mark of class
// 220 since Unicode 11, a starter for HF) give HF other ids, so the strings holding one are left out
// of the HF comparison only (make_nfc_fixture.py says how that list was found).
describe("Qwen2's NFC normalizer", () => {
  const nfc = JSON.parse(readFileSync(fileURLToPath(new URL('../fixtures/hf/nfc_cases.json', import.meta.url))));
  const late = new Set(nfc.after_unicode_9);
  const sharedWithHf = nfc.cases.filter(([t]) => ![...t].some((c) => late.has(c.codePointAt(0))));
  // Decomposed and precomposed forms, stacked marks in either order, Hangul jamo, singletons and
  // composition exclusions, for the random strings.
  const NFC_POOL = [
    ...LLAMA_POOL,
    'e\u0323\u0302',
    'e\u0302\u0323',
    'ệ',
    'o\u031b\u0301',
    'ớ',
    'A\u030a',
    '\u212b',
    '\u2126',
    '\u0958',
    '\u0344',
    '\u0301',
    '\u0323',
    '\u0345',
    '\u1100',
    '\u1161',
    '\u11a8',
    '\uac00',
    '\u09c7\u09be',
    'か\u3099',
  ];
  const withNfc = (file, f) => {
    const j = JSON.parse(read(file));
    f(j);
    return JSON.stringify(j);
  };

  test("decoding the ids gives Python's NFC of every fixture string", async () => {
    const { model } = await open(withNfc('qwen2.json', (j) => (j.normalizer = { type: 'NFC' })));
    let changed = 0;
    for (const [text, want] of nfc.cases) {
      const ids = model.tokenizer.encode(text).ids;
      expect(model.tokenizer.decode(ids), JSON.stringify(text)).toBe(want);
      changed += text !== want;
    }
    console.info(`NFC: ${nfc.cases.length} strings equal to Python's unicodedata, ${changed} of them changed by NFC`);
    expect(changed).toBeGreaterThan(150);
  });

  test.each([
    ['qwen2.json with normalizer NFC', 'qwen2.json', (j) => (j.normalizer = { type: 'NFC' }), 31],
    [
      'llama2.json with NFC first in its normalizer Sequence',
      'llama2.json',
      (j) => j.normalizer.normalizers.unshift({ type: 'NFC' }),
      32,
    ],
  ])(
    "%s: Hugging Face's ids and decode on the corpus, 300 random strings and the NFC strings",
    async (_n, file, f, seed) => {
      const { model, hf } = await open(withNfc(file, f));
      const all = [...texts, ...randomStrings(300, seed, NFC_POOL), ...sharedWithHf.map(([t]) => t)];
      const tokens = await compare(model, hf, all);
      console.info(
        `${file} + NFC: ${all.length} strings equal to HF (${sharedWithHf.length} of the ${nfc.cases.length} NFC strings; ${nfc.cases.length - sharedWithHf.length} hold a character newer than HF's Unicode 9.0 data), ${tokens} ids`,
      );
      expect(sharedWithHf.length).toBeGreaterThan(250);
    },
  );

  test('HF differs on a string with a mark newer than Unicode 9.0, as the restriction above says', async () => {
    const { model, hf } = await open(withNfc('qwen2.json', (j) => (j.normalizer = { type: 'NFC' })));
    // a + U+07FD (class 220 since Unicode 11) + U+0301: Unicode 14 composes a + U+0301 over the mark.
    const text = 'a\u07fd\u0301';
    expect(model.tokenizer.decode(model.tokenizer.encode(text).ids)).toBe('\u00e1\u07fd');
    expect(await hf.decode((await hf.encode(text)).getIds(), true)).toBe(text);
  });
});

describe('bad files are refused naming the field, and the module stays usable', () => {
  const edit = (file, f) => {
    const j = JSON.parse(read(file));
    f(j);
    return JSON.stringify(j);
  };
  test.each([
    [
      'an unknown split pattern',
      edit('llama3.json', (j) => (j.pre_tokenizer.pretokenizers[0].pattern.Regex = '\\p{L}+|\\p{N}+|\\s+')),
      /tokenizer\.json: pre_tokenizer\.pretokenizers\[0\]\.pattern\.Regex '\\p\{L\}\+\|\\p\{N\}\+\|\\s\+' is not supported/,
    ],
    [
      'an NFKC normalizer',
      edit('qwen2.json', (j) => (j.normalizer = { type: 'NFKC' })),
      /tokenizer\.json: normalizer\.type 'NFKC' is not supported/,
    ],
    [
      'a Metaspace prepend_scheme',
      edit('mistral.json', (j) => (j.pre_tokenizer.prepend_scheme = 'twice')),
      /tokenizer\.json: pre_tokenizer\.prepend_scheme 'twice' is not first, always or never/,
    ],
    [
      'a Regex Replace',
      edit('llama2.json', (j) => (j.normalizer.normalizers[1].pattern = { Regex: ' ' })),
      /tokenizer\.json: normalizer\.normalizers\[1\]\.pattern: a Regex is not supported/,
    ],
    [
      'byte fallback with a ByteLevel pre-tokenizer',
      edit('llama3.json', (j) => (j.model.byte_fallback = true)),
      /tokenizer\.json: model\.byte_fallback true is not supported with a ByteLevel pre-tokenizer/,
    ],
  ])('%s', async (_name, bad, message) => {
    await expect(ap.loadPretrained(carrier(bad, 2100))).rejects.toThrow(message);
    const { model, hf } = await open(read('llama2.json'));
    expect(Array.from(model.tokenizer.encode('Attention is all you need.').ids)).toEqual(
      (await hf.encode('Attention is all you need.', null, { addSpecialTokens: true })).getIds(),
    );
  });
});
