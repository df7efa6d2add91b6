// The relaxed-SIMD kernels (fused multiply-add, a side module built with clang-16) are chosen at
// load time where the runtime validates them. Node 20 needs a flag, so this test runs a child
// Node with it: the variant must be 'relaxed' and every PyTorch attention fixture must still
// match within 1e-5; without the flag the same load falls back to SIMD128.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = `
import { load } from './wasm/index.js';
import { readFileSync, readdirSync } from 'node:fs';
const ap = await load();
const dir = './tests/fixtures/torch/';
const arr = (t) => Float32Array.from(t.data, (v) => (v === null ? -Infinity : v));
let worst = 0, compared = 0;
for (const f of readdirSync(dir).filter((f) => f.startsWith('attention_'))) {
  const fx = JSON.parse(readFileSync(dir + f, 'utf8')), p = fx.params, w = fx.weights;
  const opts = { x: arr(fx.inputs.x), n: p.n, dModel: p.d_model, nHeads: p.n_heads, causal: !!p.causal,
    wq: arr(w.wq), wk: arr(w.wk), wv: arr(w.wv), wo: arr(w.wo) };
  if (w.bq) for (const b of ['bq', 'bk', 'bv', 'bo']) opts[b] = arr(w[b]);
  if (fx.inputs.memory) { opts.memory = arr(fx.inputs.memory); opts.m = p.m; }
  if (p.key_padding) opts.keyPadding = p.key_padding;
  const t = ap.attention(opts);
  for (const [name, want] of Object.entries(fx.stages)) {
    const ours = t.get(name), ref = arr(want);
    for (let i = 0; i < ref.length; i++) {
      if (!Number.isFinite(ref[i])) { if (ours[i] !== ref[i]) worst = Infinity; continue; }
      worst = Math.max(worst, Math.abs(ours[i] - ref[i]) / Math.max(1, Math.abs(ref[i])));
    }
    compared++;
  }
  t.dispose();
}
console.log(JSON.stringify({ variant: ap.kernels.info().variant, worst, compared }));
`;

function run(flags) {
  const out = execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop());
}

test('with relaxed SIMD available the kernels switch to it and still match PyTorch within 1e-5', () => {
  const r = run(['--experimental-wasm-relaxed-simd']);
  expect(r.variant).toBe('relaxed');
  expect(r.compared).toBeGreaterThanOrEqual(80);
  expect(r.worst).toBeLessThanOrEqual(1e-5);
});

test('without it the same load falls back to SIMD128', () => {
  const r = run([]);
  expect(r.variant).toBe('simd128');
  expect(r.worst).toBeLessThanOrEqual(1e-5);
});
