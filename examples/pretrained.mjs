// Open a Hugging Face checkpoint you downloaded yourself (a folder with config.json,
// model.safetensors and tokenizer.json: gpt2, distilgpt2, bert-base-uncased, prajjwal1/bert-tiny...)
// and look inside it with the Node API. Run from the repository root after a build:
//   node examples/pretrained.mjs path/to/gpt2 "The cat sat on the"
//   node examples/pretrained.mjs path/to/bert-base-uncased "the cat sat on the [MASK] ."
// Without arguments it opens the tiny random GPT-2 the tests use (tests/fixtures/hf/gpt2-tiny).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from '../wasm/index.js';

const dir = process.argv[2] ?? new URL('../tests/fixtures/hf/gpt2-tiny', import.meta.url).pathname;
const text = process.argv[3] ?? 'The cat sat on the mat.';

const ap = await load();
const model = await ap.loadPretrained({
  config: readFileSync(join(dir, 'config.json'), 'utf8'),
  tokenizer: readFileSync(join(dir, 'tokenizer.json'), 'utf8'),
  // A Blob is read in 8 MB slices: the checkpoint is never in wasm memory twice.
  weights: new Blob([readFileSync(join(dir, 'model.safetensors'))]),
});
const c = model.config;
console.log(`${c.family}: ${c.nLayers} layers x ${c.nHeads} heads, d_model ${c.dModel}, vocabulary ${c.vocabSize}`);

const { ids, pieces } = model.prompt(text); // BERT: [CLS] ... [SEP]; GPT-2: the tokens alone
console.log('tokens:', pieces.map((p) => JSON.stringify(p)).join(' '));

// One forward pass, keeping every stage of layer 0 and the attention weights of every layer.
const last = c.nLayers - 1;
const t = model.forward(ids, {}, { layers: [0], stages: ['weights'] });
const n = ids.length;
const w = t.get('weights', { layer: last, head: 0 }); // (n, n), row i: what token i attends to
const row = Array.from(w.subarray((n - 1) * n, n * n));
const j = row.indexOf(Math.max(...row));
console.log(
  `layer ${last}, head 0: the last token attends most to ${JSON.stringify(pieces[j])} (${row[j].toFixed(2)})`,
);

if (c.family === 'bert') {
  // The masked-LM head's guesses for each [MASK].
  const probs = t.get('probs');
  const V = c.vocabSize;
  ids.forEach((id, i) => {
    if (id !== model.specialTokens.mask) return;
    const top = Array.from(probs.subarray(i * V, (i + 1) * V), (p, k) => [p, k])
      .sort((a, b) => b[0] - a[0])
      .slice(0, 5);
    console.log(`[MASK] at ${i}:`, top.map(([p, k]) => `${model.vocab[k]} ${p.toFixed(3)}`).join(', '));
  });
} else {
  // Greedy continuation with the KV cache.
  const g = model.generate(ids, { maxTokens: 8, keep: { layers: [], drop: ['probs'] } });
  console.log(
    `continuation: ${JSON.stringify(g.text)} (${g.steps.length} steps, the last over ${g.steps.at(-1).cacheLen} cached keys)`,
  );
  g.dispose();
}
t.dispose();
model.dispose();
