// The JS fuzz targets of tests/fuzz/js/loaders.mjs (loadPretrained's readers, JSON at the JS
// boundary, tokenizer limits, the Llama family's config fields and tokenizer kinds) against the
// built wasm module, in Node. `npm run fuzz` runs them after
// the libFuzzer targets for FUZZ_SECONDS; alone:
//   node tests/tools/fuzz-js.mjs                      every class, FUZZ_SECONDS (60) in all
//   node tests/tools/fuzz-js.mjs --class load         one class
//   node tests/tools/fuzz-js.mjs --class load --seed 123456   one case again (prints its problems)
// Seeds start at FUZZ_SEED (default: the time), so each run tries new cases and any case can be
// run again from its class and seed. A failing case is printed and written to
// build/fuzz/js/failures.json; add its seed to REGRESSIONS in tests/wasm/fuzz-replay.test.js once
// fixed. Exits non-zero if any case failed or the wasm heap did not return to where it started.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WARM_UP = 20; // cases of each class before the heap is measured

function arg(name) {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
}

/**
 * Runs the classes round-robin for `seconds` (or one case: `seed`), from seed `from`. Returns
 * { perClass: { name: { cases, failed } }, failures: [{ name, seed, problems }], heap: { start, end } }.
 */
export async function runJsFuzz({ seconds = 60, classes, from = Date.now() % 2 ** 31, seed, log = console.log } = {}) {
  const { load } = await import(join(ROOT, 'wasm/index.js'));
  const pretrained = await import(join(ROOT, 'wasm/lib/pretrained.js'));
  const { CLASSES, HEAP_SLACK, makeContext, runSeed } = await import(join(ROOT, 'tests/fuzz/js/loaders.mjs'));
  const names = classes?.length ? classes : Object.keys(CLASSES);
  for (const n of names)
    if (!CLASSES[n]) throw new Error(`unknown JS fuzz class '${n}' (known: ${Object.keys(CLASSES).join(', ')})`);
  const ap = await load();
  const full = await ap._loadTrainer(); // the module loadPretrained runs in: its heap is the one to watch
  const ctx = await makeContext(ap, pretrained, { stallMs: 5 });
  const perClass = Object.fromEntries(names.map((n) => [n, { cases: 0, failed: 0 }]));
  const failures = [];
  if (seed !== undefined) {
    for (const n of names) {
      const r = await runSeed(n, seed, ctx);
      perClass[n].cases++;
      if (r.problems.length) {
        perClass[n].failed++;
        failures.push(r);
      }
      log(`${n} seed ${seed}: ${r.problems.length ? r.problems.join('\n  ') : 'ok'}`);
    }
    return { perClass, failures, heap: null, from: seed };
  }
  // Warm-up cases first: the core keeps its last error text (a buffer as long as the longest
  // message so far, at most ~400 bytes) and the allocator settles; the same cases again at the end.
  const warmUp = async () => {
    for (let k = 0; k < WARM_UP; k++) for (const n of names) await runSeed(n, from - 1 - k, ctx);
  };
  await warmUp();
  const start = full.heapUsed();
  const deadline = Date.now() + seconds * 1000;
  let s = from;
  while (Date.now() < deadline) {
    for (const n of names) {
      const r = await runSeed(n, s, ctx);
      perClass[n].cases++;
      if (r.problems.length) {
        perClass[n].failed++;
        failures.push(r);
        log(`FAIL ${n} seed ${s}:\n  ${r.problems.join('\n  ')}`);
      }
    }
    s++;
  }
  // a failed load that kept memory shows here: after the same warm-up, the heap must be back
  await warmUp();
  const end = full.heapUsed();
  return { perClass, failures, heap: { start, end, slack: HEAP_SLACK }, from };
}

async function cli() {
  const seconds = Number(process.env.FUZZ_SECONDS ?? 60);
  const cls = arg('class');
  const seed = arg('seed') === undefined ? undefined : Number(arg('seed'));
  const from = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
  console.log(seed === undefined ? `JS fuzz targets, ${seconds} s, seeds from ${from}` : `JS fuzz: seed ${seed}`);
  const res = await runJsFuzz({ seconds, classes: cls ? [cls] : undefined, from, seed });
  for (const [n, c] of Object.entries(res.perClass))
    console.log(`${n.padEnd(16)}${String(c.cases).padStart(8)} cases  ${c.failed} failed`);
  const heapGrew = res.heap && Math.abs(res.heap.end - res.heap.start) > res.heap.slack;
  if (res.heap)
    console.log(
      `wasm heap: ${res.heap.start} bytes before the cases, ${res.heap.end} after (${res.heap.end - res.heap.start}; at most ${res.heap.slack} allowed)`,
    );
  if (res.failures.length) {
    mkdirSync(join(ROOT, 'build/fuzz/js'), { recursive: true });
    writeFileSync(join(ROOT, 'build/fuzz/js/failures.json'), `${JSON.stringify(res.failures, null, 2)}\n`);
    console.log(
      'failures: build/fuzz/js/failures.json (run one again: node tests/tools/fuzz-js.mjs --class <c> --seed <s>)',
    );
  }
  process.exitCode = res.failures.length || heapGrew ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await cli();
