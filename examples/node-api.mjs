// A Node script using the wasm module: the "Thinking Machines" example of the notes, then a
// trained model generating with its KV cache. Run from the repository root after a build:
//   node examples/node-api.mjs
import { readFileSync } from 'node:fs';
import { load } from '../wasm/index.js';

const ap = await load();

// 1. A lecture preset: q1.k1 = 112, q1.k2 = 96, d_k = 64, so the scaled scores are 14 and 12.
const t = ap.presets.run('softmax.thinking-machines');
const [s1, s2] = t.get('scores', { head: 0 });
const [w1, w2] = t.get('weights', { head: 0 });
console.log(
  `scores ${s1}, ${s2}; scaled by sqrt(64) = 8: ${s1 / 8}, ${s2 / 8}; weights ${w1.toFixed(2)}, ${w2.toFixed(2)}`,
);
t.dispose();

// 2. Attention on your own numbers: 3 tokens, d_model 4, 2 heads, causal.
const eye = (d) => Float32Array.from({ length: d * d }, (_, i) => (i % (d + 1) === 0 ? 1 : 0));
const x = Float32Array.from([1, 0, 1, 0, 0, 2, 0, 1, 1, 1, 1, 1]);
const a = ap.attention({ x, wq: eye(4), wk: eye(4), wv: eye(4), wo: eye(4), n: 3, dModel: 4, nHeads: 2, causal: true });
console.log(
  'stages:',
  a
    .stages()
    .map((s) => `${s.name}[${s.shape}]`)
    .join(' '),
);
console.log(
  'head 0 weights (row 0 sees only itself):',
  Array.from(a.get('weights', { head: 0 }), (v) => v.toFixed(3)).join(' '),
);
a.dispose();

// 3. A trained model: sort characters, one token at a time, with the KV cache.
const sort = ap.loadModel(readFileSync(new URL('../web/models/sort.safetensors', import.meta.url)));
const g = sort.generate('zebra42', { maxTokens: 12 });
console.log(
  `sort("zebra42") = "${g.text}" (${g.stop}); the last step attended to ${g.steps.at(-1).cacheLen} cached keys`,
);
g.dispose();
sort.dispose();
