// Issue 27 item 1: this project's core on one thread against the threaded module on N threads, in
// one Node process, rounds interleaved (round r times every variant once, in a rotated order),
// wall-clock time per call (CPU time would add the threads up), medians over rounds, the speed-up
// as the median of the per-round ratios. Each variant's output is checked equal (bit for bit) to
// the one-thread output before any time counts.
//   node tests/bench/threads.mjs [--threads N] [--rounds R] [--no-gpt2]
// Cases: unmasked attention at d_k = 64, n = 256 and 1024 (kernels.attention), causal n = 1024,
// and the GPT-2-small-shaped prefill of 64 tokens (build/hf/gpt2-small-shape, written by
// tests/tools/lib/hf-synthetic.mjs if missing).
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { load, loadTrainer } from '../../wasm/index.js';
import { writeGpt2SmallShape } from '../tools/lib/hf-synthetic.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? dflt : Number(process.argv[i + 1]);
};
const THREADS = arg('--threads', availableParallelism());
const ROUNDS = arg('--rounds', 7);
const GPT2 = !process.argv.includes('--no-gpt2');
const TARGET_MS = 150; // each sample repeats calls for at least this long

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const same = (a, b) =>
  a.length === b.length &&
  Buffer.compare(
    Buffer.from(a.buffer, a.byteOffset, a.byteLength),
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  ) === 0;

function sample(fn, reps) {
  const t0 = performance.now();
  for (let r = 0; r < reps; r++) fn();
  return (performance.now() - t0) / reps;
}

// variants: [{ name, run, out }]: run() does one call, out() the output to compare.
function race(title, variants) {
  const ref = variants[0].out();
  for (const v of variants.slice(1))
    if (!same(v.out(), ref)) throw new Error(`${title}: ${v.name} differs from ${variants[0].name}`);
  const reps = variants.map((v) => {
    v.run();
    const once = sample(v.run, 1);
    return Math.max(1, Math.ceil(TARGET_MS / Math.max(once, 0.01)));
  });
  const times = variants.map(() => []);
  const ratios = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = new Array(variants.length);
    for (let j = 0; j < variants.length; j++) {
      const i = (j + r) % variants.length;
      t[i] = sample(variants[i].run, reps[i]);
    }
    t.forEach((x, i) => times[i].push(x));
    ratios.push(t[0] / t[1]);
  }
  const row = `| ${title} | ${variants.map((v, i) => `${median(times[i]).toFixed(2)} ms`).join(' | ')} | ${median(ratios).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}) |`;
  console.log(row);
  return row;
}

// A control for the machine itself: the same plain-JS arithmetic on one thread, then split over
// THREADS worker threads at once. On a machine whose other users leave no second core free the two
// take the same time, and no threaded figure below can beat 1x.
async function control() {
  const code = `const { parentPort, workerData } = require('node:worker_threads');
    let x = 0; for (let i = 0; i < workerData; i++) x += i * 1e-9; parentPort.postMessage(x);`;
  const N = 1e8;
  const run = (parts) =>
    Promise.all(
      Array.from(
        { length: parts },
        () =>
          new Promise((resolve, reject) => {
            const w = new Worker(code, { eval: true, workerData: N / parts });
            w.once('message', resolve);
            w.once('error', reject);
          }),
      ),
    );
  await run(1); // warm-up
  const t0 = performance.now();
  await run(1);
  const t1 = performance.now();
  await run(THREADS);
  const t2 = performance.now();
  return `control (plain JS arithmetic): 1 thread ${(t1 - t0).toFixed(0)} ms, split over ${THREADS} threads ${(t2 - t1).toFixed(0)} ms`;
}

const one = await load();
const mt = await load({ threads: THREADS });
console.log(
  `${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} logical cores, Node ${process.version}; ` +
    `${ROUNDS} rounds interleaved, wall-clock medians; threaded module: ${mt.kernels.info().threads} threads; ` +
    `load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} (other users of the machine take cores from the second thread)\n`,
);
console.log(`${await control()}\n`);
console.log(`| case | ours, 1 thread | ours, ${THREADS} threads | speed-up (range over rounds) |`);
console.log('|---|---|---|---|');

let s = 7;
const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32) * 2 - 1;
for (const [n, causal] of [
  [256, false],
  [1024, false],
  [1024, true],
]) {
  const dK = 64;
  const [q, k, v] = [0, 1, 2].map(() => Float32Array.from({ length: n * dK }, rand));
  const opts = { q, k, v, n, dK, causal };
  race(`attention n = ${n}, d_k = 64${causal ? ', causal' : ''}`, [
    { name: '1 thread', run: () => one.kernels.attention(opts), out: () => one.kernels.attention(opts) },
    { name: `${THREADS} threads`, run: () => mt.kernels.attention(opts), out: () => mt.kernels.attention(opts) },
  ]);
}

if (GPT2) {
  const dir = join(ROOT, 'build/hf/gpt2-small-shape');
  await writeGpt2SmallShape(dir);
  const parts = () => ({
    config: readFileSync(join(dir, 'config.json'), 'utf8'),
    tokenizer: readFileSync(join(dir, 'tokenizer.json'), 'utf8'),
    weights: new Uint8Array(readFileSync(join(dir, 'model.safetensors'))),
  });
  const full = await loadTrainer({ threads: 1 });
  const m1 = await full.loadPretrained(parts());
  const m2 = await mt.loadPretrained(parts());
  const KEEP = { layers: [], stages: [], drop: ['probs'] };
  const ids = Int32Array.from({ length: 64 }, (_, i) => (i * 7919) % 50256);
  const logits = (m) => {
    const t = m.forward(ids, {}, KEEP);
    const out = t.get('logits');
    t.dispose();
    return out;
  };
  race('GPT-2-small-shaped prefill, 64 tokens', [
    { name: '1 thread', run: () => m1.forward(ids, {}, KEEP).dispose(), out: () => logits(m1) },
    { name: `${THREADS} threads`, run: () => m2.forward(ids, {}, KEEP).dispose(), out: () => logits(m2) },
  ]);
  const gen = (m) =>
    m.generate(ids.subarray(0, 16), { maxTokens: 8, useCache: true, keep: { layers: [], drop: ['probs'] } });
  const genIds = (m) => {
    const g = gen(m);
    const out = Int32Array.from(g.tokens);
    g.dispose();
    return out;
  };
  race('GPT-2-small-shaped generation, 16 + 8 tokens (KV cache)', [
    { name: '1 thread', run: () => gen(m1).dispose(), out: () => genIds(m1) },
    { name: `${THREADS} threads`, run: () => gen(m2).dispose(), out: () => genIds(m2) },
  ]);
}
process.exit(0); // the threaded module's workers would keep Node alive
