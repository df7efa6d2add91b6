// Issue 16: the core's Hugging Face tokenizers (cpp/io/hf_tokenizer: byte-level BPE as GPT-2's,
// WordPiece as BERT's), through the wasm module a page uses, against Hugging Face's own Rust
// tokenizers (npm `tokenizers`) running live in this process on the same tokenizer.json: the
// committed corpus (tests/fixtures/hf/tokenizers/cases.json: accents, emoji, CJK, mixed whitespace,
// long words, [MASK] / <|endoftext|> typed in the text) plus 300 seeded random strings per tokenizer.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import tk from 'tokenizers';
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { randomStrings } from './lib/random-text.js';

const HF = fileURLToPath(new URL('../fixtures/hf/', import.meta.url));
const cases = JSON.parse(readFileSync(join(HF, 'tokenizers/cases.json'), 'utf8'));

let ap;
beforeAll(async () => {
  ap = await load();
});

describe.each([
  ['bpe', 'gpt2-tiny', 'byte-level BPE'],
  ['wordpiece', 'bert-tiny', 'WordPiece'],
])('%s (the tokenizer.json of %s)', (name, dir, kind) => {
  let model, hf;
  beforeAll(async () => {
    const json = readFileSync(join(HF, dir, 'tokenizer.json'), 'utf8');
    model = await ap.loadPretrained({
      config: readFileSync(join(HF, dir, 'config.json'), 'utf8'),
      tokenizer: json,
      weights: new Uint8Array(readFileSync(join(HF, dir, 'model.safetensors'))),
    });
    hf = tk.Tokenizer.fromString(json);
  });

  test(`is read as ${kind}`, () => {
    expect(model.specialTokens.kind).toBe(kind);
    expect(model.specialTokens.size).toBe(hf.getVocabSize(true));
  });

  test("every corpus case and 300 random strings: the ids and the decoded text are Hugging Face's", async () => {
    const texts = [...cases[name].map((c) => c.text), ...randomStrings(300, name === 'bpe' ? 16 : 61)];
    let tokens = 0;
    for (const text of texts) {
      const want = await hf.encode(text, null, { addSpecialTokens: true });
      const ids = want.getIds();
      const ours = model.tokenizer.encode(text);
      expect(Array.from(ours.ids), JSON.stringify(text)).toEqual(ids);
      expect(model.tokenizer.decode(ours.ids), JSON.stringify(text)).toBe(await hf.decode(ids, true));
      tokens += ids.length;
    }
    expect(texts.length).toBeGreaterThan(400);
    expect(tokens).toBeGreaterThan(4000);
  });

  test('the committed corpus still agrees with the live library (the fixture is not stale)', async () => {
    for (const c of cases[name]) {
      const e = await hf.encode(c.text, null, { addSpecialTokens: true });
      expect(e.getIds(), JSON.stringify(c.text)).toEqual(c.ids);
    }
  });
});
