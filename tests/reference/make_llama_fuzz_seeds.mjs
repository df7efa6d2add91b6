// Seeds of the Llama-family kinds for tests/fuzz/fuzz_hf_tokenizer.cpp (tests/corpus/hf_tokenizer): a
// small tokenizer.json, a NUL byte, a text. valid_* parse and encode, bad_* are refused naming a field
// (tests/cpp/test_hf_tokenizer.cpp checks both). Each valid file is also loaded by Hugging Face's own
// tokenizers (npm) first, so it is one HF accepts. Run: node tests/reference/make_llama_fuzz_seeds.mjs
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import tk from 'tokenizers';
import {
  LLAMA3_PATTERN as LLAMA3,
  QWEN2_PATTERN as QWEN2,
  SP,
  SPM_DECODER,
  SPM_NORMALIZER as LLAMA2_NORMALIZER,
  addedToken,
  byteFallbackVocab,
  byteSymbols,
} from './lib/hf-json.mjs';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '..', 'corpus', 'hf_tokenizer');
const special = (id, content) => addedToken(id, content, { special: true });

function sentencePiece(pre, normalizer) {
  const vocab = byteFallbackVocab();
  for (const t of [SP, 't', 'h', 'e', 'a', SP + 't', 'he', SP + 'th', SP + 'the', SP + 'a'])
    vocab[t] = Object.keys(vocab).length;
  return {
    added_tokens: [special(0, '<unk>'), special(1, '<s>'), special(2, '</s>')],
    normalizer,
    pre_tokenizer: pre,
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<s>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
      pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
      special_tokens: { '<s>': { id: '<s>', ids: [1], tokens: ['<s>'] } },
    },
    decoder: SPM_DECODER,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '<unk>',
      fuse_unk: true,
      byte_fallback: true,
      vocab,
      merges: [
        [SP, 't'],
        ['h', 'e'],
        [SP + 't', 'h'],
        [SP + 'th', 'e'],
        [SP, 'a'],
      ],
    },
  };
}

function byteLevel(pattern, ignoreMerges) {
  const sym = byteSymbols();
  const vocab = {};
  sym.forEach((s, b) => (vocab[s] = b));
  const merges = [
    ['t', 'h'],
    ['th', 'e'],
    ['\u0120', 'the'],
    ['\u0120', 't'],
    ['1', '2'],
    ['\u010a', '\u010a'],
  ];
  for (const [a, b] of merges) vocab[a + b] = Object.keys(vocab).length;
  return {
    added_tokens: [special(Object.keys(vocab).length, '<|begin_of_text|>')],
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: pattern }, behavior: 'Isolated', invert: false },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
      ],
    },
    post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: { type: 'BPE', dropout: null, unk_token: null, ignore_merges: ignoreMerges, vocab, merges },
  };
}

function seed(name, json, text, valid) {
  const file = JSON.stringify(json);
  if (valid) tk.Tokenizer.fromString(file);
  writeFileSync(join(OUT, name), Buffer.concat([Buffer.from(file), Buffer.from([0]), Buffer.from(text)]));
}

const TEXT = "The theta 中文 😀 I'M 12345\r\n\n  x <s>the</s> \u2581a";
seed('valid_sp_llama2_byte_fallback', sentencePiece(null, LLAMA2_NORMALIZER), TEXT, true);
seed(
  'valid_sp_metaspace_first_split',
  sentencePiece({ type: 'Metaspace', replacement: SP, prepend_scheme: 'first', split: true }, null),
  TEXT,
  true,
);
seed('valid_bpe_llama3_split', byteLevel(LLAMA3, true), TEXT, true);
seed('valid_bpe_qwen2_split', byteLevel(QWEN2, false), TEXT, true);
seed('bad_split_pattern_unknown', byteLevel('\\p{L}+|\\s+', true), TEXT, false);
seed(
  'bad_metaspace_prepend_scheme',
  sentencePiece({ type: 'Metaspace', replacement: SP, prepend_scheme: 'sometimes', split: true }, null),
  TEXT,
  false,
);
const regexReplace = structuredClone(sentencePiece(null, LLAMA2_NORMALIZER)); // not the shared normalizer
regexReplace.normalizer.normalizers[1].pattern = { Regex: ' ' };
seed('bad_normalizer_replace_regex', regexReplace, TEXT, false);
