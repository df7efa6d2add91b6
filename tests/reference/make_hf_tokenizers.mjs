// Hugging Face tokenizer fixtures for tests/cpp/test_hf_tokenizer.cpp, made by Hugging Face's own
// Rust tokenizers (npm package `tokenizers`): `node tests/reference/make_hf_tokenizers.mjs`.
//
// Trains on tests/reference/hf_tokenizer_corpus.txt (split by HF's own normalizer and pre-tokenizers;
// merges chosen by a small deterministic BPE trainer here) a byte-level BPE tokenizer configured
// like GPT-2's and a BERT-style WordPiece tokenizer, 512 tokens each, builds them with HF's BPE and
// WordPiece models, and writes into tests/fixtures/hf/tokenizers/:
//   bpe.json, wordpiece.json  the tokenizer.json files as HF saves them;
//   bpe_legacy.json           bpe.json in the layout of the Hub's gpt2 file (merges as "a b" strings);
//   bpe_prefix.json, wordpiece_cased.json, wordpiece_strip.json: variants (add_prefix_space,
//                             added tokens with lstrip / rstrip / single_word / normalized, cased,
//                             accents stripped without lowercasing);
//   cases.json                for each tokenizer and test string, HF's ids with and without special
//                             tokens, its tokens, and decode(ids, skip_special_tokens = true).
// Deterministic: running it twice writes the same bytes.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import tk from 'tokenizers';
import { addedToken, byteSymbolsInIdOrder, trainMerges } from './lib/hf-json.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, '..', 'fixtures', 'hf', 'tokenizers');
const CORPUS = join(HERE, 'hf_tokenizer_corpus.txt');
const VOCAB_SIZE = 512;

// Word counts of the corpus as HF's own normalizer and pre-tokenizer split it.
function countWords(normalizer, preTokenizer, symbols) {
  const counts = new Map();
  for (const line of readFileSync(CORPUS, 'utf8').split('\n')) {
    const text = normalizer ? normalizer.normalizeString(line) : line;
    for (const [w] of preTokenizer.preTokenizeString(text)) {
      const key = JSON.stringify(symbols(w));
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return new Map([...counts].map(([k, n]) => [JSON.parse(k), n]));
}

function save(tokenizer, name, patch = (j) => j) {
  const path = join(OUT, name);
  tokenizer.save(path, true);
  const loaded = tk.Tokenizer.fromString(JSON.stringify(patch(JSON.parse(readFileSync(path, 'utf8')))));
  loaded.save(path, true);
  return tk.Tokenizer.fromFile(path);
}

function makeBpe() {
  // GPT-2's layout: the 256 byte symbols, the merged tokens in merge order, <|endoftext|> last.
  const vocab = {};
  for (const s of byteSymbolsInIdOrder()) vocab[s] = Object.keys(vocab).length;
  const words = countWords(null, tk.byteLevelPreTokenizer(false, true), (w) => [...w]);
  const merges = trainMerges(words, VOCAB_SIZE - 1 - 256, (a, b) => a + b);
  for (const [a, b] of merges) vocab[a + b] = Object.keys(vocab).length;
  vocab['<|endoftext|>'] = VOCAB_SIZE - 1;
  const t = new tk.Tokenizer(tk.BPE.init(vocab, merges));
  t.setPreTokenizer(tk.byteLevelPreTokenizer(false, true));
  t.setPostProcessor(tk.byteLevelProcessing(true));
  t.addSpecialTokens(['<|endoftext|>']);
  return save(t, 'bpe.json', (j) => ({
    ...j,
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
  }));
}

const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];

function makeWordPiece() {
  // BERT's layout: the specials, the alphabet (word-initial characters, then "##" + character),
  // then the merged pieces in merge order.
  const normalizer = tk.bertNormalizer({ lowercase: true });
  const words = countWords(normalizer, tk.bertPreTokenizer(), (w) => [...w].map((c, i) => (i ? '##' + c : c)));
  const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  const alphabet = [...new Set([...words.keys()].flat())];
  const vocab = {};
  for (const s of [
    ...SPECIALS,
    ...alphabet.filter((s) => !s.startsWith('##')).sort(cmp),
    ...alphabet.filter((s) => s.startsWith('##')).sort(cmp),
  ])
    vocab[s] = Object.keys(vocab).length;
  const join = (a, b) => a + b.replace(/^##/, '');
  for (const [a, b] of trainMerges(words, VOCAB_SIZE - Object.keys(vocab).length, join))
    vocab[join(a, b)] = Object.keys(vocab).length;
  const t = new tk.Tokenizer(tk.WordPiece.init(vocab, { unkToken: '[UNK]' }));
  t.setNormalizer(tk.bertNormalizer({ lowercase: true }));
  t.setPreTokenizer(tk.bertPreTokenizer());
  t.setPostProcessor(
    tk.templateProcessing('[CLS] $A [SEP]', '[CLS] $A [SEP] $B:1 [SEP]:1', [
      ['[CLS]', 2],
      ['[SEP]', 3],
    ]),
  );
  t.setDecoder(tk.wordPieceDecoder('##', true));
  t.addSpecialTokens(SPECIALS);
  return save(t, 'wordpiece.json');
}

// The test strings, shared by both tokenizers.
const TEXTS = [
  '',
  'Attention is all you need.',
  'The cat sat on the mat.',
  ' leading space',
  'trailing space ',
  '  double  spaces  inside  ',
  'tabs\tand\ttabs',
  'line one\nline two\n\nline four',
  'windows\r\nline\r\nends',
  'non\u00a0breaking\u00a0space',
  'ideographic\u3000space',
  '   ',
  '\n',
  "Let's see: it's what they're doing, we've done, I'm sure, we'll go, he'd say.",
  "LET'S SHOUT 'QUOTED' TEXT",
  'café naïve Ångström',
  'Cafe\u0301 with a combining accent',
  'Straße Mädchen Brücke Übung Äpfel Öl',
  "L'attention permet à chaque position de regarder la séquence.",
  'Über die Köpfe hinweg entstehen verschiedene Muster.',
  '中文',
  '注意力机制让每个位置都能看到其他位置。',
  '日本語の文も少し。',
  '한국어 문장도 조금.',
  'mixed English 中文 and 日本語 text',
  'emoji 😀 and 👍🏽 thumbs',
  'family 👨‍👩‍👧‍👦 zwj',
  'flags 🇫🇷🇩🇪 and ❤️',
  'Pneumonoultramicroscopicsilicovolcanoconiosis is a long word',
  'supercalifragilisticexpialidociousantidisestablishmentarianism',
  'Numbers: 3.14, 1,000,000, 2026-11-24, 0x1F and 42nd.',
  '1234567890 12 345',
  'Punctuation!!! ??? ... --- ;;; (((nested))) [[x]] {y}',
  '"quoted" «guillemets» „Anführung“ ‘single’',
  'The mask [MASK] goes here.',
  '[MASK][MASK] twice',
  '[CLS] typed [SEP] by hand',
  'end of text<|endoftext|>next document',
  '<|endoftext|>',
  'a <|endoftext|> b',
  'unknown chars: ∀x∈ℝ ⊗ ☃ ♫ ✓',
  'control\u0007chars\u0000here',
  'zero\u200bwidth\u200djoiner',
  'Ελληνικά και русский текст',
  'مرحبا بالعالم',
  'attention attentive attending attended',
  'e-mail, d_k = 64, h=8, x^2 + y^2',
  '    indented code();\n        more();',
  'ÀÉÎÕÜ àéîõü ÇÑ çñ',
  'ﬁ ligature and ① circled and ｆｕｌｌｗｉｄｔｈ',
  'a <mask> b and  <mask>c',
  'naïve and naïveté, NAÏVE, Naïve, Naive',
  'x<sw>y <sw> z <sw>  w',
  'Attention! attention, ATTENTION',
  'İstanbul ΣΟΦΙΑ Ǆemal',
  '\u0301\u0301 marks alone \u20dd',
];

// Plus random strings from pieces chosen to meet the edges of the split pattern, the normalizer and
// the added tokens (a fixed-seed generator: the same strings every run).
const PARTS = [
  ...'aeiostnrlAEZ19²½٣.,!?-_\'"#$()[]<>|',
  ...[' ', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\u2009', '\u0085', '\u200b', '\u0000', '\u0007'],
  ...["'s", "'re", "'ll", "'ve", "'m", "'d", "'t", "'S", '##', 'the', ' the', 'attention', 'tion', 'Über', 'café'],
  ...['É', 'é', 'e\u0301', '\u0301', 'ñ', 'Σ', 'ς', 'İ', 'ǅ', 'ß', 'ﬁ', 'Ⅻ', 'ℝ', '∀', '中', '文', '한', '日', 'ｆ'],
  ...['😀', '👍🏽', '👨‍👩‍👧', '🇫🇷', '❤️', '\ud83d\ude00', '\uffff', '\ufffd', '\u{10ffff}', '\u{e0001}'],
  ...['[MASK]', '[CLS]', '[UNK]', '<|endoftext|>', '<mask>', '<sw>', 'naïve', 'Naïve', 'Attention', '[mask]'],
];
function randomTexts(n) {
  let state = 20261124;
  const next = (k) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % k;
  };
  const out = [];
  for (let i = 0; i < n; i++) {
    let t = '';
    const len = next(24);
    for (let k = 0; k < len; k++) t += PARTS[next(PARTS.length)];
    out.push(t);
  }
  return out;
}
TEXTS.push(...randomTexts(100));

function caseOf(tokenizer, text) {
  return Promise.all([
    tokenizer.encode(text, null, { addSpecialTokens: true }),
    tokenizer.encode(text, null, { addSpecialTokens: false }),
  ]).then(async ([withSp, without]) => ({
    text,
    ids: withSp.getIds(),
    tokens: withSp.getTokens(),
    ids_no_special: without.getIds(),
    decoded: await tokenizer.decode(withSp.getIds(), true),
  }));
}

async function cases(tokenizer, texts) {
  const out = [];
  for (const t of texts) out.push(await caseOf(tokenizer, t));
  return out;
}

// Variants of the two, for the options GPT-2 and BERT themselves leave at one value: a prefix space,
// added tokens that strip spaces or match normalized text, a cased BERT, accents kept or stripped.
function variant(base, name, patch) {
  const j = JSON.parse(readFileSync(join(OUT, base), 'utf8'));
  patch(j);
  return save(tk.Tokenizer.fromString(JSON.stringify(j)), name);
}

const added = addedToken;

const bpe = makeBpe();
const wordpiece = makeWordPiece();
const bpePrefix = variant('bpe.json', 'bpe_prefix.json', (j) => {
  j.pre_tokenizer.add_prefix_space = true;
  j.added_tokens.push(added(512, '<mask>', { lstrip: true, special: true }));
  j.added_tokens.push(added(513, 'naïve', { normalized: true }));
  j.added_tokens.push(added(514, '<sw>', { single_word: true, rstrip: true, special: true }));
});
const wordpieceCased = variant('wordpiece.json', 'wordpiece_cased.json', (j) => {
  j.normalizer.lowercase = false;
  j.normalizer.strip_accents = false;
  j.added_tokens[4].lstrip = true;
  j.added_tokens[4].rstrip = true;
  j.added_tokens.push(added(512, 'Attention', { normalized: true }));
});
// The layout of the Hub's gpt2 tokenizer.json (written by an older tokenizers): merges as "a b"
// strings, empty continuing_subword_prefix / end_of_word_suffix, <|endoftext|> normalized, the
// post-processor without prefix-space trimming. Written as is (HF would re-save merges as pairs).
function legacyGpt2() {
  const j = JSON.parse(readFileSync(join(OUT, 'bpe.json'), 'utf8'));
  j.added_tokens[0].normalized = true;
  j.post_processor.trim_offsets = false;
  j.decoder.trim_offsets = false;
  j.model.continuing_subword_prefix = '';
  j.model.end_of_word_suffix = '';
  delete j.model.ignore_merges;
  j.model.merges = j.model.merges.map(([a, b]) => `${a} ${b}`);
  const path = join(OUT, 'bpe_legacy.json');
  writeFileSync(path, JSON.stringify(j, null, 2) + '\n');
  return tk.Tokenizer.fromFile(path);
}
const bpeLegacy = legacyGpt2();
const wordpieceStrip = variant('wordpiece.json', 'wordpiece_strip.json', (j) => {
  j.normalizer.lowercase = false;
  j.normalizer.strip_accents = true;
  j.normalizer.handle_chinese_chars = false;
  j.added_tokens.push(added(512, 'Naïve', { normalized: true }));
});
const all = {
  generator: 'tests/reference/make_hf_tokenizers.mjs (npm tokenizers 0.23.2)',
  bpe: await cases(bpe, TEXTS),
  wordpiece: await cases(wordpiece, TEXTS),
  bpe_prefix: await cases(bpePrefix, TEXTS),
  bpe_legacy: await cases(bpeLegacy, TEXTS),
  wordpiece_cased: await cases(wordpieceCased, TEXTS),
  wordpiece_strip: await cases(wordpieceStrip, TEXTS),
};
// One case per line, so a diff shows which strings changed.
const lines = Object.entries(all).map(([k, v]) =>
  Array.isArray(v)
    ? `${JSON.stringify(k)}: [\n${v.map((c) => '  ' + JSON.stringify(c)).join(',\n')}\n]`
    : `${JSON.stringify(k)}: ${JSON.stringify(v)}`,
);
writeFileSync(join(OUT, 'cases.json'), `{\n${lines.join(',\n')}\n}\n`);
console.log(`wrote ${OUT}: ${Object.keys(all).length - 1} tokenizers, ${TEXTS.length} cases each`);
