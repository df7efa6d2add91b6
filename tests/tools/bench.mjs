// `npm run bench`: this project's attention kernels against their peers. Not a test: it prints
// markdown tables and writes them to build/bench/results.md (raw samples: results.json).
//
// How it measures (see the issue on WASM SIMD kernels):
// - one process per implementation: a Node process (tests/bench/node-runner.mjs), a native
//   executable (tests/bench/native/bench_native.cpp), or a Chromium page in its own browser context
//   (tests/bench/page.html); all speak one JSON-lines protocol: prepare a case, run it k times;
// - every implementation first computes the case once and returns a checksum of its output, which
//   must match the others before any of its times is used;
// - rounds are interleaved: round r runs every implementation once on the case (in a rotated
//   order) before round r + 1, so a burst of load from the other users of this shared machine hits
//   all of them alike; each figure is the median over rounds of the time per call;
// - time is CPU time (the runner process's, or the page's main thread's from DevTools): under this
//   shared machine's load the wall clock ran 2-3x longer than the work; wall time is kept too;
// - a ratio A/B is the median over rounds of B's time over A's time in the same round;
// - the first run builds everything (build/bench, about 4-6 minutes cold); the whole run took
//   about 10 minutes here with the builds cached, under a load average of 6-7 on 2 cores.
// - the GPT-2 section (issue 16, tests/bench/gpt2-cases.mjs) runs after the kernels, with its own
//   runners (each holds one model at a time: the GPT-2-small-shaped one, then the SmolLM-135M-
//   shaped Llama of issue 26): this project's core through the JS API in Node,
//   onnxruntime-web in Node, the core natively (g++ -O3, and -march=native); its
//   checksums are the argmax ids of the logits / the greedy ids, which must be equal everywhere.
// Options: --quick (small grid, 3 rounds), --full (adds n = 4096 with 8 heads, about 5 more
//          minutes here), --rounds N, --no-browser, --no-native,
//          --only name,name (implementation names as in the tables), --out FILE,
//          --gpt2 (the GPT-2 section alone; its table replaces the GPT-2 section of an existing
//          results.md), --no-gpt2 (the kernels alone).
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, readFileSync, writeFileSync, mkdirSync, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT, StepError, ensureDebianPackages, ensureNodeModules, main, step } from './lib/setup.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from './lib/chromium.mjs';

const OUT_DIR = join(ROOT, 'build', 'bench');
const BENCH_PACKAGES = ['g++', 'emscripten', 'clang-16', 'lld-16', 'libeigen3-dev', 'nlohmann-json3-dev', 'chromium'];

// ---- options ----------------------------------------------------------------------------------

function parseArgs(argv) {
  const alone = [];
  const opts = {
    quick: false,
    full: false,
    rounds: null,
    browser: true,
    native: true,
    only: null,
    out: join(OUT_DIR, 'results.md'),
    kernels: true,
    gpt2: true,
    train: true,
    docs: false,
    threads: availableParallelism(),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') opts.quick = true;
    else if (a === '--full') opts.full = true;
    else if (a === '--no-browser') opts.browser = false;
    else if (a === '--no-native') opts.native = false;
    else if (a === '--rounds') opts.rounds = Number(argv[++i]);
    else if (a === '--only') opts.only = argv[++i].split(',');
    else if (a === '--out') opts.out = resolve(argv[++i]);
    else if (a === '--gpt2') alone.push('gpt2');
    else if (a === '--train') alone.push('train');
    else if (a === '--no-gpt2') opts.gpt2 = false;
    else if (a === '--no-train') opts.train = false;
    else if (a === '--docs') opts.docs = true;
    else if (a === '--threads') {
      opts.threads = Number(argv[++i]);
      if (!(Number.isInteger(opts.threads) && opts.threads >= 1))
        throw new StepError(`--threads needs a positive integer (got ${argv[i]})`);
    } else
      throw new StepError(
        `unknown option ${a} (known: --quick --full --rounds N --no-browser --no-native --only a,b --out FILE ` +
          '--gpt2 --no-gpt2 --train --no-train --docs --threads N)',
      );
  }
  // --gpt2 / --train: those sections alone.
  if (alone.length)
    for (const k of ['kernels', 'gpt2', 'train']) opts[k] = opts[k] && (k === 'kernels' ? false : alone.includes(k));
  if (!opts.kernels && !opts.gpt2 && !opts.train) throw new StepError('these options leave nothing to run');
  return opts;
}

// ---- the implementations ----------------------------------------------------------------------
// slow: skip a case when the time per call predicted from the previous cases exceeds SLOW_CAP_S.
// needs: a file the runner uses that the benchmark does not build (the shipped module).
// cases: the case kinds this runner is asked for (it may also decline through `supports`).
const SLOW_CAP_S = 1.0;
const TARGET_S = 0.05; // each sample repeats calls for at least this much CPU time
const RUNNERS = [
  { name: 'node relaxed', where: 'node', impl: 'ours-relaxed', nodeFlags: ['--experimental-wasm-relaxed-simd'] },
  { name: 'node simd128', where: 'node', impl: 'ours-simd128' },
  { name: 'node simd128 clang16', where: 'node', impl: 'ours-simd128-clang16', cases: ['attn'] },
  { name: 'node scalar', where: 'node', impl: 'ours-scalar', slow: true },
  { name: 'node ap.kernels API', where: 'node', impl: 'ours-api', needs: 'wasm/build/ap_core.mjs' },
  { name: 'node eigen-wasm', where: 'node', impl: 'eigen-wasm', slow: true },
  { name: 'node tfjs', where: 'node', impl: 'tfjs-wasm' },
  { name: 'node onnx', where: 'node', impl: 'onnx-wasm' },
  { name: 'node plain JS', where: 'node', impl: 'plain-js', slow: true },
  { name: 'native Eigen march=native', where: 'native', binary: 'native_eigen_march_native' },
  { name: 'native Eigen SSE4.2', where: 'native', binary: 'native_eigen_sse42' },
  { name: 'native kernels SSE', where: 'native', binary: 'native_kernels_sse' },
  { name: 'chromium relaxed', where: 'chromium', impl: 'ours-relaxed' },
  { name: 'chromium simd128', where: 'chromium', impl: 'ours-simd128' },
  { name: 'chromium simd128 clang16', where: 'chromium', impl: 'ours-simd128-clang16', cases: ['attn'] },
  { name: 'chromium ap.kernels API', where: 'chromium', impl: 'ours-api', needs: 'wasm/build/ap_core.mjs' },
  { name: 'chromium eigen-wasm', where: 'chromium', impl: 'eigen-wasm', cases: ['model'] },
  { name: 'chromium tfjs', where: 'chromium', impl: 'tfjs-wasm' },
  { name: 'chromium onnx', where: 'chromium', impl: 'onnx-wasm' },
];

// The same runner on N threads (issue 27): `threads` is passed to the implementation (node-runner's
// second argument, the page's ?threads=), which fails with the reason where it cannot run so; its
// times are wall-clock (CPU time would add the threads up). `one` names its 1-thread runner.
const threaded = (spec, N, name) => ({ ...spec, name, threads: N, one: spec.name });
const THREADED_NEEDS = 'wasm/build/ap_mt.mjs';

// Every race at 1 thread and at N threads, both sides: this core's API (ap_core at 1 thread, the
// threaded module ap_mt at N), tfjs-backend-wasm and onnxruntime-web, in Node and in Chromium.
function kernelRunners(N) {
  if (N <= 1) return RUNNERS;
  const byName = Object.fromEntries(RUNNERS.map((s) => [s.name, s]));
  const extra = [];
  for (const where of ['node', 'chromium']) {
    extra.push(
      { ...threaded(byName[`${where} ap.kernels API`], N, `${where} API ${N} threads`), needs: THREADED_NEEDS },
      threaded(byName[`${where} tfjs`], N, `${where} tfjs ${N} threads`),
      threaded(byName[`${where} onnx`], N, `${where} onnx ${N} threads`),
    );
  }
  return [...RUNNERS, ...extra];
}

// The GPT-2 section's runners (tests/bench/gpt2-cases.mjs), started only for it. --expose-gc: the
// resident memory of an opened model is read after a full collection (node-runner.mjs).
// The Chromium runners run the GPT-2 model's cases only, after the Node and native ones have closed
// (each runner holds a model: ORT's two sessions take about 3 GB).
function gpt2Runners(N) {
  const gc = ['--expose-gc'];
  const oursNode = {
    name: 'ours node',
    where: 'node',
    impl: 'gpt2-ours',
    needs: 'wasm/build/ap_train.mjs',
    nodeFlags: gc,
  };
  const ortNode = { name: 'ort node', where: 'node', impl: 'gpt2-onnx', nodeFlags: gc };
  const oursPage = { name: 'ours chromium', where: 'chromium', impl: 'gpt2-ours', needs: 'wasm/build/ap_train.mjs' };
  const ortPage = { name: 'ort chromium', where: 'chromium', impl: 'gpt2-onnx' };
  const more = (spec, name) => ({
    ...threaded(spec, N, name),
    ...(spec.impl === 'gpt2-ours' ? { needs: THREADED_NEEDS } : {}),
  });
  return [
    oursNode,
    ortNode,
    ...(N > 1 ? [more(oursNode, `ours node ${N} threads`), more(ortNode, `ort node ${N} threads`)] : []),
    { name: 'ours native', where: 'native', binary: 'native_gpt2' },
    { name: 'ours native march', where: 'native', binary: 'native_gpt2_march_native' },
    oursPage,
    ortPage,
    ...(N > 1 ? [more(oursPage, `ours chromium ${N} threads`), more(ortPage, `ort chromium ${N} threads`)] : []),
  ];
}

// The training section's runners (tests/bench/train-cases.mjs), started only for it. The threaded
// ones run where the implementation takes a thread count (startRunners checks the count it reports).
function trainRunners(N) {
  const list = [
    { name: 'ours node', where: 'node', impl: 'train-ours', needs: 'wasm/build/ap_train.mjs' },
    { name: 'tfjs node tuned', where: 'node', impl: 'train-tfjs' },
    { name: 'tfjs node plain', where: 'node', impl: 'train-tfjs-plain' },
  ];
  if (N <= 1) return list;
  return [
    ...list,
    { ...threaded(list[0], N, `ours node ${N} threads`), needs: THREADED_NEEDS },
    threaded(list[1], N, `tfjs node tuned ${N} threads`),
  ];
}

// The ratios the issue's targets are about: [ours, peer].
const RATIOS = [
  ['node simd128', 'node tfjs'],
  ['node simd128', 'node onnx'],
  ['node simd128', 'node plain JS'],
  ['node simd128', 'native Eigen SSE4.2'],
  ['node simd128', 'node scalar'],
  ['node simd128', 'node eigen-wasm'],
  ['node relaxed', 'node tfjs'],
  ['chromium relaxed', 'chromium tfjs'],
  ['chromium relaxed', 'chromium onnx'],
  ['chromium simd128', 'chromium tfjs'],
  ['chromium relaxed', 'chromium simd128 clang16'],
  ['native kernels SSE', 'native Eigen SSE4.2'],
];

// A runner process speaking the protocol over stdin/stdout (Node runner or native executable).
class ProcessRunner {
  constructor(spec, cmd, args) {
    this.spec = spec;
    this.child = spawn(cmd, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.pending = [];
    this.stderr = '';
    this.exited = null;
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const p = this.pending.shift();
      if (!p) return;
      try {
        p.resolve(JSON.parse(line));
      } catch {
        p.reject(new Error(`bad reply: ${line.slice(0, 200)}`));
      }
    });
    this.child.stderr.on('data', (d) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
    this.child.on('exit', (code, signal) => {
      this.exited = signal ?? code;
      for (const p of this.pending.splice(0)) {
        p.reject(new Error(`runner exited (${this.exited}): ${this.stderr.trim().split('\n').slice(-3).join(' | ')}`));
      }
    });
    this.child.stdin.on('error', () => {});
  }
  get alive() {
    return this.exited === null;
  }
  request(msg, timeoutMs) {
    if (!this.alive) return Promise.reject(new Error(`runner exited (${this.exited})`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        reject(new Error(`timed out after ${timeoutMs / 1e3} s`));
      }, timeoutMs);
      this.pending.push({
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.child.stdin.write(`${JSON.stringify(msg)}\n`);
    });
  }
  async close() {
    if (!this.alive) return;
    this.child.stdin.end(`${JSON.stringify({ op: 'quit' })}\n`);
    await new Promise((r) => {
      const t = setTimeout(() => {
        this.child.kill('SIGKILL');
        r();
      }, 3000);
      this.child.on('exit', () => {
        clearTimeout(t);
        r();
      });
    });
  }
}

// A Chromium page in its own browser context, files served from the repository by page.route.
// A 'run' also reads the page's main-thread CPU time (DevTools Performance.getMetrics ThreadTime)
// before and after, as the Node and native runners report their process CPU time.
class PageRunner {
  constructor(spec, context, page, cdp) {
    this.spec = spec;
    this.context = context;
    this.page = page;
    this.cdp = cdp;
    this.crashed = false;
    page.on('crash', () => {
      this.crashed = true;
    });
  }
  get alive() {
    return !this.crashed;
  }
  async threadTime() {
    const { metrics } = await this.cdp.send('Performance.getMetrics');
    return metrics.find((m) => m.name === 'ThreadTime')?.value ?? NaN;
  }
  async request(msg, timeoutMs) {
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs / 1e3} s`)), timeoutMs);
    });
    try {
      const before = msg.op === 'run' ? await this.threadTime() : 0;
      const reply = await Promise.race([this.page.evaluate((m) => window.benchHandle(m), msg), timeout]);
      if (msg.op === 'run' && reply?.ok) reply.result.cpuSeconds = (await this.threadTime()) - before;
      return reply;
    } finally {
      clearTimeout(timer);
    }
  }
  async close() {
    await this.context.close().catch(() => {});
  }
}

const MIME = {
  '.html': 'text/html',
  '.mjs': 'text/javascript',
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
};
const SERVED = [
  'tests/bench/',
  'build/bench/',
  'build/hf/',
  'node_modules/',
  'wasm/index.js',
  'wasm/lib/',
  'wasm/build/',
];

// The bench page's files, from a local HTTP server (streamed from disk: the GPT-2 model's 250 MB
// and ORT's 500 MB graphs, which page.route's in-memory bodies crashed on) with the headers that
// make the page cross-origin isolated (COOP same-origin + COEP require-corp: SharedArrayBuffer,
// hence threads, for this core's threaded module, tfjs-backend-wasm and onnxruntime-web).
// 127.0.0.1 is a secure context, as isolation requires.
const ISOLATION_HEADERS = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'same-origin',
};

async function startServer() {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://localhost').pathname).slice(1);
    const file = join(ROOT, path);
    if (
      !SERVED.some((p) => path.startsWith(p)) ||
      path.includes('..') ||
      !existsSync(file) ||
      !statSync(file).isFile()
    ) {
      res.writeHead(404, ISOLATION_HEADERS).end('not found');
      return;
    }
    res.writeHead(200, {
      ...ISOLATION_HEADERS,
      'content-type': MIME[extname(file)] ?? 'application/octet-stream',
      'content-length': statSync(file).size,
      'cache-control': 'no-store',
    });
    createReadStream(file).pipe(res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

// Chromium and the server it reads the bench page from; close() ends both.
async function openBrowser() {
  const { chromium } = await import('playwright-core');
  const server = await startServer();
  try {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    browser.origin = server.origin;
    const close = browser.close.bind(browser);
    browser.close = async () => {
      await close();
      await server.close();
    };
    return browser;
  } catch (err) {
    await server.close();
    throw err;
  }
}

async function openPage(browser, spec) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${browser.origin}/tests/bench/page.html?impl=${spec.impl}&threads=${spec.threads ?? 1}`);
  await page
    .waitForFunction(() => window.benchReady === true, null, { timeout: 30000 })
    .catch(() => {
      throw new Error(`the bench page did not start: ${errors.join(' | ') || 'no error reported'}`);
    });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  return new PageRunner(spec, context, page, cdp);
}

async function startRunner(spec, browser) {
  if (spec.where === 'node') {
    return new ProcessRunner(spec, process.execPath, [
      ...(spec.nodeFlags ?? []),
      'tests/bench/node-runner.mjs',
      spec.impl,
      String(spec.threads ?? 1),
    ]);
  }
  if (spec.where === 'native') return new ProcessRunner(spec, join(OUT_DIR, spec.binary), []);
  return openPage(browser, spec);
}

async function ask(runner, msg, timeoutMs = 180000) {
  const reply = await runner.request(msg, timeoutMs);
  if (!reply || !reply.ok) throw new Error(reply ? reply.error.split('\n')[0] : 'no reply');
  return reply.result;
}

// ---- measuring ----------------------------------------------------------------------------------

// The time of a run: CPU time when the runner reported it, else wall time; wall time for a runner
// on more than one thread (its CPU time adds the threads up; a page's ThreadTime is the main
// thread's alone).
const runTime = (out, spec) =>
  (spec?.threads ?? 1) === 1 && Number.isFinite(out.cpuSeconds) && out.cpuSeconds > 0 ? out.cpuSeconds : out.seconds;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function agree(a, b, tol) {
  return Math.abs(a.sum - b.sum) <= tol * Math.max(a.abs, b.abs, 1e-30);
}

// One case on every runner: prepare (checksum), calibrate, interleaved rounds. Returns
// { [runner name]: { samples: [s per call per round], reps, memBefore, memAfter, checksum } | { skipped } | { error } }.
async function measureCase(c, runners, { rounds, targetSeconds, rates, cases }) {
  const { flops } = cases;
  const results = {};
  const active = [];
  for (const r of runners) {
    const spec = r.spec;
    if (spec.cases && !spec.cases.includes(c.kind)) continue;
    if (!r.alive) {
      results[spec.name] = { error: 'runner is not running' };
      continue;
    }
    try {
      const ok = await ask(r, { op: 'supports', case: c });
      if (ok !== true) continue;
      const f = flops(c);
      if (spec.slow && f && rates[spec.name]) {
        const predicted = f / rates[spec.name];
        if (predicted > SLOW_CAP_S) {
          results[spec.name] = { skipped: `predicted ${predicted.toFixed(1)} s per call` };
          continue;
        }
      }
      const { checksum, memory } = await ask(r, { op: 'prepare', case: c });
      // Warm-up and calibration: repeat until one sample lasts targetSeconds (JIT tiers settle).
      // Calls of more than 2 GFLOP are long enough that the prepare call was the warm-up.
      let reps = 1,
        last = { seconds: Infinity };
      for (; !(flops(c) > 2e9);) {
        last = await ask(r, { op: 'run', reps });
        if (runTime(last, spec) >= targetSeconds || reps >= 4096) break;
        reps = Math.min(
          4096,
          reps * Math.max(2, Math.min(16, Math.ceil(targetSeconds / Math.max(runTime(last, spec), 1e-6)))),
        );
      }
      if (Number.isFinite(last.seconds))
        reps = Math.max(1, Math.round(reps * Math.min(1, targetSeconds / runTime(last, spec))));
      results[spec.name] = { samples: [], wall: [], reps, checksum: checksum ?? last.checksum ?? null };
      if (memory) results[spec.name].memory = memory;
      active.push(r);
    } catch (err) {
      results[spec.name] = { error: err.message };
      await ask(r, { op: 'release' }).catch(() => {});
    }
  }
  // Every checksum against the first one (the reference: plain JS when it ran, else the first).
  // GPT-2: against onnxruntime-web (the independent implementation), ids equal and sums to 1e-3.
  const withSum = active.filter((r) => results[r.spec.name].checksum);
  const ref = withSum.find((r) => r.spec.impl === 'plain-js' || r.spec.impl === 'gpt2-onnx') ?? withSum[0];
  const tol = c.kind === 'model' ? 1e-3 : 1e-4;
  for (const r of withSum) {
    const res = results[r.spec.name];
    const refSum = results[ref.spec.name].checksum;
    if (c.kind === 'gpt2') {
      const why = cases.gpt2Disagreement(res.checksum, refSum);
      if (why) res.error = `output differs from ${ref.spec.name}: ${why}`;
    } else if (!agree(res.checksum, refSum, tol)) {
      res.error = `output differs from ${ref.spec.name}: checksum ${res.checksum.sum} vs ${refSum.sum}`;
    }
  }
  const timed = active.filter((r) => !results[r.spec.name].error);
  for (let round = 0; round < rounds; round++) {
    const order = timed.map((_, i) => timed[(i + round) % timed.length]);
    for (const r of order) {
      const res = results[r.spec.name];
      if (res.error) continue;
      try {
        const out = await ask(r, { op: 'run', reps: res.reps });
        res.samples.push(runTime(out, r.spec) / res.reps);
        res.wall.push(out.seconds / res.reps);
        if (out.memBefore != null) {
          res.memBefore = Math.min(res.memBefore ?? Infinity, out.memBefore);
          res.memAfter = Math.max(res.memAfter ?? 0, out.memAfter);
        }
        if (c.kind === 'long' && out.checksum) res.checksum = out.checksum;
      } catch (err) {
        res.error = err.message;
      }
    }
  }
  for (const r of active) await ask(r, { op: 'release' }).catch(() => {});
  // Long cases: the checksums come from the timed calls; check them now.
  if (c.kind === 'long') {
    const withLong = timed.filter((r) => results[r.spec.name].checksum);
    for (const r of withLong) {
      if (!agree(results[r.spec.name].checksum, results[withLong[0].spec.name].checksum, 1e-4)) {
        results[r.spec.name].error = `output differs from ${withLong[0].spec.name}`;
      }
    }
  }
  for (const [name, res] of Object.entries(results)) {
    if (res.samples && res.samples.length) {
      res.seconds = median(res.samples);
      res.wallSeconds = median(res.wall);
      const f = flops(c);
      if (f) rates[name] = f / res.seconds;
    }
  }
  return results;
}

// Median over rounds of peer time / our time in the same round: the times of the tables (CPU time,
// wall for threaded runners), or with key 'wall' the wall-clock times (the threads tables).
function pairRatio(results, ours, peer, key = 'samples') {
  const a = results[ours],
    b = results[peer];
  if (!a?.[key]?.length || !b?.[key]?.length || a.error || b.error) return null;
  const n = Math.min(a[key].length, b[key].length);
  const ratios = [];
  for (let i = 0; i < n; i++) ratios.push(b[key][i] / a[key][i]);
  return median(ratios);
}

// ---- reporting ----------------------------------------------------------------------------------

const fmt = (x, digits = 1) => (x == null || !Number.isFinite(x) ? '' : x.toFixed(digits));
const mib = (bytes) => (bytes / 1048576).toFixed(1);

function cell(res, c, gflops) {
  if (!res) return '';
  if (res.error) return 'error';
  if (res.skipped) return 'skip';
  if (!res.samples?.length) return '';
  const g = gflops(c, res.seconds);
  return g == null ? `${fmt(res.seconds * 1e3, 2)} ms` : fmt(g);
}

function table(header, rows) {
  const lines = [`| ${header.join(' | ')} |`, `|${header.map((h, i) => (i === 0 ? ':---' : '---:')).join('|')}|`];
  for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
  return lines.join('\n');
}

function uptimeLine() {
  const r = spawnSync('uptime', [], { encoding: 'utf8' });
  return (
    r.stdout ||
    loadavg()
      .map((x) => x.toFixed(2))
      .join(', ')
  ).trim();
}

// The races at 1 thread and at N threads side by side, wall-clock (every side's, so that the four
// columns compare): groups = [{ side, one, many }] (runner names, this core first), xs the cases.
// Each group's times, each peer's ratio to this core at 1 thread and at N threads (peer time over
// ours: above 1, ours is faster), and each side's own speed-up from 1 to N threads. A runner that
// did not run (a peer that cannot take threads there) is 'not run' in its column, and the lines
// below the table say why (from its implementation's answer).
function threadsTable({ xs, groups, infos, caseId, N, digits = 2 }) {
  const ms = (x, n) => {
    const r = x.results[n];
    if (!r) return infos[n]?.error ? 'not run' : '';
    if (r.error) return 'error';
    return r.wall?.length ? fmt(median(r.wall) * 1e3, digits) : r.skipped ? 'skip' : '';
  };
  // --threads 1: the 1-thread columns alone.
  const counts =
    N > 1
      ? [
          ['one', '1 thread'],
          ['many', `${N} threads`],
        ]
      : [['one', '1 thread']];
  const ours = groups[0];
  const header = ['case'];
  for (const g of groups) for (const [, label] of counts) header.push(`${g.side}, ${label} ms`);
  for (const g of groups.slice(1)) for (const [, label] of counts) header.push(`${g.side} / ours, ${label}`);
  if (N > 1) for (const g of groups) header.push(`${g.side} speed-up ${N} / 1`);
  const rows = xs.map((x) => [
    caseId(x.c),
    ...groups.flatMap((g) => counts.map(([k]) => ms(x, g[k]))),
    ...groups.slice(1).flatMap((g) => counts.map(([k]) => fmt(pairRatio(x.results, ours[k], g[k], 'wall'), 2))),
    ...(N > 1 ? groups.map((g) => fmt(pairRatio(x.results, g.many, g.one, 'wall'), 2)) : []),
  ]);
  const notes = [];
  for (const g of groups)
    for (const [k] of counts) {
      const n = g[k];
      if (infos[n]?.error) notes.push(`- \`${n}\` not run: ${infos[n].error}`);
      else if (!infos[n]) notes.push(`- \`${n}\` not run (left out by the options)`);
    }
  return [table(header, rows), ...(notes.length ? ['', ...notes] : [])].join('\n');
}

// The ratio of a goal, worst over the cases (peer time / ours, wall-clock), as a line; infos says
// why a runner did not run.
function goalLine(label, xs, ours, peer, need, caseId, infos = {}) {
  const rs = xs.map((x) => ({ x, r: pairRatio(x.results, ours, peer, 'wall') })).filter((y) => y.r != null);
  const why = [ours, peer]
    .filter((n) => infos[n]?.error)
    .map((n) => `\`${n}\` did not run: ${infos[n].error}`)
    .join('; ');
  if (!rs.length) return `- ${label} (need >= ${need}x): not measured${why ? ` (${why})` : ''}`;
  const worst = rs.reduce((a, b) => (b.r < a.r ? b : a));
  const met = rs.filter((y) => y.r >= need).length;
  return (
    `- ${label} (need >= ${need}x): ${met}/${rs.length} cases met, median ${median(rs.map((y) => y.r)).toFixed(2)}x, ` +
    `worst ${worst.r.toFixed(2)}x at ${caseId(worst.x.c)}`
  );
}

function report({ all, names, infos, cases, meta }) {
  const { caseId, gflops, flops } = cases;
  const out = [];
  out.push('# Attention kernels benchmark');
  out.push('');
  out.push(
    `${meta.date}, ${meta.cpu} (${meta.cores} cores, shared with other users), median of ${meta.rounds}, ` +
      `each sample >= ${meta.targetMs} ms of CPU time (calls repeated).`,
  );
  out.push('');
  out.push(
    "Times are CPU time per call: the runner process's (Node, native) or the page's main thread's " +
      '(Chromium, DevTools ThreadTime). This machine is shared, and under its load the wall clock also counts the time ' +
      "other users' work held the core; cache and memory-bandwidth sharing still slow the figures down. " +
      'Wall-clock medians are in the long-context table and in results.json. The runners named "... N threads" ' +
      'are timed in wall-clock time (CPU time would add their threads up).',
  );
  out.push('');
  out.push(`Load: before \`${meta.loadBefore}\`; after \`${meta.loadAfter}\`. Grid: ${meta.grid}.`);
  out.push('');
  out.push(implementationsTable(names, infos));
  out.push('');

  const attn = all.filter((x) => x.c.kind === 'attn');
  if (attn.length) {
    out.push('## Attention, d_k = 64: GFLOP/s (4 n^2 d_k per head, half when causal; softmax not counted)');
    out.push('');
    const cols = names.filter((n) => attn.some((x) => x.results[n]));
    out.push(
      table(
        ['case', ...cols],
        attn.map((x) => [caseId(x.c), ...cols.map((n) => cell(x.results[n], x.c, gflops))]),
      ),
    );
    out.push('');
    out.push('## Ratios (median over rounds of peer time / our time, same round)');
    out.push('');
    const pairs = RATIOS.filter(([a, b]) => attn.some((x) => pairRatio(x.results, a, b) != null));
    out.push(
      table(
        ['case', ...pairs.map(([a, b]) => `${a} vs ${b}`)],
        attn.map((x) => [caseId(x.c), ...pairs.map(([a, b]) => fmt(pairRatio(x.results, a, b), 2))]),
      ),
    );
    out.push('');
  }

  if (attn.length && meta.threads > 1) {
    const N = meta.threads;
    out.push(
      `## Threads: 1 and ${N} threads, both sides (wall-clock ms per call, medians; ratios as medians of per-round ratios)`,
      '',
      `This core at 1 thread is the shipped single-thread module (ap_core: relaxed SIMD in Chromium, SIMD128 in ` +
        `Node) and at ${N} threads the threaded module (ap_mt: SIMD128, heads and query blocks over a pool of ` +
        'workers), both through `ap.kernels.attention` (input copies and checks included). The peers take a ' +
        'thread count: tfjs-backend-wasm `setThreadsCount`, onnxruntime-web `ort.env.wasm.numThreads`. The ' +
        'Chromium pages are cross-origin isolated (COOP / COEP). Wall-clock time on a shared machine: a thread ' +
        "that another user's work holds up shows in the figures.",
      '',
    );
    for (const where of ['node', 'chromium']) {
      const groups = [
        { side: 'ours', one: `${where} ap.kernels API`, many: `${where} API ${N} threads` },
        { side: 'tfjs', one: `${where} tfjs`, many: `${where} tfjs ${N} threads` },
        { side: 'onnx', one: `${where} onnx`, many: `${where} onnx ${N} threads` },
      ];
      if (!groups.some((g) => names.includes(g.one) || names.includes(g.many))) continue;
      out.push(`### ${where === 'node' ? 'Node' : 'Chromium'}`, '');
      out.push(threadsTable({ xs: attn, groups, infos, caseId, N }), '');
    }
  }

  const long = all.filter((x) => x.c.kind === 'long');
  if (long.length) {
    out.push('## Long context: causal, one head, d_k = 64, online softmax (one call per round)');
    out.push('');
    const rows = [];
    for (const x of long) {
      for (const [n, res] of Object.entries(x.results)) {
        if (!res.samples?.length) {
          rows.push([caseId(x.c), n, res.error ?? res.skipped ?? '', '', '', '', '', '']);
          continue;
        }
        const io = 4 * x.c.n * x.c.h * x.c.dK * 4;
        rows.push([
          caseId(x.c),
          n,
          fmt(res.seconds, 3),
          fmt(res.wallSeconds, 3),
          fmt(gflops(x.c, res.seconds)),
          res.memBefore != null ? `${mib(res.memBefore)} -> ${mib(res.memAfter)}` : 'native',
          mib(io),
          mib(4 * x.c.n * x.c.n),
        ]);
      }
    }
    out.push(
      table(
        [
          'case',
          'implementation',
          's (CPU)',
          's (wall)',
          'GFLOP/s',
          'wasm memory MiB before -> after',
          'Q,K,V,out MiB',
          'an n x n matrix MiB',
        ],
        rows,
      ),
    );
    out.push('');
  }

  const model = all.filter((x) => x.c.kind === 'model');
  if (model.length) {
    out.push(
      '## Forward pass of a small model (d_model 128, 4 heads, 2 layers, d_ff 512, with its trace): ms per pass',
    );
    out.push('');
    const pairsM = [
      ['node simd128', 'node eigen-wasm'],
      ['chromium simd128', 'chromium eigen-wasm'],
    ];
    const cols = names.filter((n) => model.some((x) => x.results[n]));
    out.push(
      table(
        ['case', ...cols, ...pairsM.map(([a, b]) => `${b} / ${a}`)],
        model.map((x) => [
          caseId(x.c),
          ...cols.map((n) =>
            x.results[n]?.samples?.length ? fmt(x.results[n].seconds * 1e3, 2) : cell(x.results[n], x.c, gflops),
          ),
          ...pairsM.map(([a, b]) => fmt(pairRatio(x.results, a, b), 2)),
        ]),
      ),
    );
    out.push('');
  }

  out.push('## Targets');
  out.push('');
  out.push(...targets({ attn, long, model, flops, N: meta.threads, infos }));
  out.push('');
  const errors = [];
  for (const x of all)
    for (const [n, r] of Object.entries(x.results)) if (r.error) errors.push(`- ${caseId(x.c)}, ${n}: ${r.error}`);
  const skipped = {};
  for (const x of all)
    for (const [n, r] of Object.entries(x.results)) if (r.skipped) (skipped[n] ??= []).push(caseKey(x.c));
  if (Object.keys(skipped).length) {
    out.push(
      `Skipped where the time per call predicted from the smaller cases exceeded ${SLOW_CAP_S} s: ` +
        `${Object.entries(skipped)
          .map(([n, cs]) => `${n} (${cs.join(', ')})`)
          .join('; ')}.`,
      '',
    );
  }
  if (errors.length) out.push('Errors:', '', ...errors, '');
  return out.join('\n');
}

function targets({ attn, long, model, N = 1, infos = {} }) {
  const lines = [];
  const big = attn.filter((x) => x.c.n >= 256);
  const minRatio = (xs, a, b) => {
    let worst = null;
    for (const x of xs) {
      const r = pairRatio(x.results, a, b);
      if (r != null && (worst == null || r < worst.r)) worst = { r, c: x.c };
    }
    return worst;
  };
  const check = (label, xs, a, b, need) => {
    const w = minRatio(xs, a, b);
    if (!w) {
      lines.push(`- ${label}: not measured`);
      return;
    }
    const count = xs.filter((x) => pairRatio(x.results, a, b) != null).length;
    const met = xs.filter((x) => {
      const r = pairRatio(x.results, a, b);
      return r != null && r >= need;
    }).length;
    const rs = xs.map((x) => pairRatio(x.results, a, b)).filter((r) => r != null);
    const nc = minRatio(
      xs.filter((x) => !x.c.causal),
      a,
      b,
    );
    lines.push(
      `- ${label} (need >= ${need}x): ${met}/${count} cases met, median ${median(rs).toFixed(2)}x; ` +
        `worst ${w.r.toFixed(2)}x at ${caseKey(w.c)} ${w.r >= need ? '(met)' : `(missed by ${(((need - w.r) / need) * 100).toFixed(0)}%)`}` +
        (nc && nc.c !== w.c ? `; worst without a mask ${nc.r.toFixed(2)}x at ${caseKey(nc.c)}` : ''),
    );
  };
  check('n >= 256, Node SIMD128 vs tfjs-wasm', big, 'node simd128', 'node tfjs', 1.5);
  check('n >= 256, Node SIMD128 vs onnxruntime-web', big, 'node simd128', 'node onnx', 1.5);
  check('n >= 256, Node SIMD128 vs native Eigen SSE4.2', big, 'node simd128', 'native Eigen SSE4.2', 1.0);
  check('n >= 256, Chromium relaxed vs Chromium tfjs-wasm', big, 'chromium relaxed', 'chromium tfjs', 2.0);
  check('all sizes measured, Node SIMD128 vs plain JS', attn, 'node simd128', 'node plain JS', 40);
  if (N > 1) {
    const unmasked = big.filter((x) => !x.c.causal);
    for (const where of ['node', 'chromium']) {
      const W = where === 'node' ? 'Node' : 'Chromium';
      const many = `${where} API ${N} threads`;
      for (const [peer, what] of [
        [`${where} tfjs ${N} threads`, `tfjs-wasm at ${N} threads`],
        [`${where} onnx ${N} threads`, `onnxruntime-web at ${N} threads`],
      ])
        lines.push(
          goalLine(
            `unmasked n >= 256, ${W}, ours at ${N} threads vs ${what}`,
            unmasked,
            many,
            peer,
            1.5,
            caseKey,
            infos,
          ),
        );
      lines.push(
        goalLine(
          `unmasked n >= 256, ${W}, ours at ${N} threads vs ours at 1 thread`,
          unmasked,
          many,
          `${where} ap.kernels API`,
          2.5,
          caseKey,
          infos,
        ),
      );
    }
  }
  const l16 = long.find((x) => x.c.n === 16384);
  const r16 = l16?.results['node simd128'];
  if (r16?.samples?.length) {
    lines.push(
      `- n = 16384 causal one head, Node SIMD128: ${r16.seconds.toFixed(3)} s CPU, ${r16.wallSeconds.toFixed(3)} s wall ` +
        `(need < 2 s: ${r16.seconds < 2 ? 'met' : 'missed'} in CPU time, ${r16.wallSeconds < 2 ? 'met' : 'missed'} in wall time under this load); ` +
        `wasm memory grew by ${mib(r16.memAfter - r16.memBefore)} MiB during the calls (an n x n float matrix would be ${mib(4 * 16384 * 16384)} MiB)`,
    );
  } else lines.push('- n = 16384: not measured');
  for (const x of model) {
    const r = pairRatio(x.results, 'node simd128', 'node eigen-wasm');
    lines.push(
      `- model forward ${caseKey(x.c)}, Node: kernels vs Eigen-only wasm ${r == null ? 'not measured' : `${r.toFixed(2)}x (need >= 1.5: ${r >= 1.5 ? 'met' : 'missed'})`}`,
    );
  }
  return lines;
}

const caseKey = (c) => `n=${c.n}${c.h ? ` h=${c.h}` : ''}${c.causal && c.kind !== 'long' ? ' causal' : ''}`;

// ---- main ---------------------------------------------------------------------------------------

// --docs: the report goes into docs/speed.md below its marker, part by part as into results.md (a
// section run alone replaces its own section there; the head says which run made what).
const DOCS = join(ROOT, 'docs', 'speed.md');
const DOCS_MARK = '<!-- report: `npm run bench -- --docs` writes everything below this line -->';
function writeDocs(parts, total) {
  const doc = readFileSync(DOCS, 'utf8');
  const at = doc.indexOf(DOCS_MARK);
  if (at < 0) throw new StepError(`docs/speed.md has no line ${DOCS_MARK}`);
  let old = doc.slice(at + DOCS_MARK.length);
  // Before the head existed a line above the first section said which run made it: the head says so now.
  if (!old.includes(SECTION_MARKS.header)) {
    const first = Math.min(
      ...Object.values(SECTION_MARKS)
        .map((m) => old.indexOf(m))
        .filter((i) => i >= 0),
      old.length,
    );
    old = old.slice(first);
  }
  const md = assemble(old.trim(), parts, total);
  writeFileSync(DOCS, `${doc.slice(0, at + DOCS_MARK.length)}\n\n${md.trimEnd()}\n`);
  console.log(`docs/speed.md: the report written below its marker.`);
}

// ---- the GPT-2 section ------------------------------------------------------------------------

// A section run alone (--gpt2, --train) replaces its own part of an existing results.md.
const SECTION_MARKS = {
  header: '<!-- head: every npm run bench rewrites it -->',
  kernels: '<!-- kernels section: npm run bench -- --no-gpt2 --no-train replaces it from here -->',
  gpt2: '<!-- gpt2 section: npm run bench -- --gpt2 replaces it from here -->',
  train: '<!-- train section: npm run bench -- --train replaces it from here -->',
};
const GPT2_PACKAGES = ['python3-torch', 'python3-onnx'];

// The model folders (tests/tools/lib/hf-synthetic.mjs, ~1 s each) and the ONNX graphs
// (tests/reference/make_hf_fixtures.py --onnx for GPT-2, make_smollm_onnx.py for SmolLM, ~1 min
// each, need Debian's torch and onnx), each made only when missing.
async function prepareGpt2Files() {
  const { HF_DIR, SMOLLM_DIR, ONNX_DIR } = await import('../bench/gpt2-cases.mjs');
  const synth = await import('./lib/hf-synthetic.mjs');
  for (const [dir, write, what] of [
    [HF_DIR, synth.writeGpt2SmallShape, 'GPT-2-small-shaped'],
    [SMOLLM_DIR, synth.writeSmollmShape, 'SmolLM-135M-shaped'],
  ]) {
    if (!existsSync(join(ROOT, dir, 'model.safetensors')) || !existsSync(join(ROOT, dir, 'tokenizer.json'))) {
      step(`writing the ${what} model (${dir})`);
      await write(join(ROOT, dir));
    }
  }
  for (const [prefix, script] of [
    ['gpt2', ['tests/reference/make_hf_fixtures.py', '--no-tiny', '--onnx', join(ROOT, ONNX_DIR)]],
    ['smollm', ['tests/reference/make_smollm_onnx.py', join(ROOT, SMOLLM_DIR), join(ROOT, ONNX_DIR)]],
  ]) {
    const graphs = [`${prefix}-prefill.onnx`, `${prefix}-decode.onnx`].map((f) => join(ROOT, ONNX_DIR, f));
    if (graphs.every((f) => existsSync(f))) continue;
    await ensureDebianPackages(GPT2_PACKAGES);
    step(`exporting the ${prefix} model to ONNX (${ONNX_DIR}, about a minute)`);
    const r = spawnSync('/usr/bin/python3', script, { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0 || !graphs.every((f) => existsSync(f)))
      throw new StepError(`${script[0]} failed (exit ${r.status})`);
  }
}

// What each implementation ran as (its init answer), or why it did not run.
function implementationsTable(names, infos) {
  return table(
    ['implementation', 'what ran', 'engine'],
    names.map((n) => [
      n,
      infos[n]?.variant ?? (infos[n]?.error ? `not run: ${infos[n].error}` : ''),
      infos[n]?.engine ?? '',
    ]),
  );
}

// The build a runner needs (a failed one leaves the runner out).
const buildFor = (spec) =>
  ({
    'ours-relaxed': 'kernels_relaxed',
    'ours-simd128': 'bench_simd128',
    'ours-simd128-clang16': 'kernels_simd128_clang16',
    'ours-scalar': 'bench_scalar',
    'eigen-wasm': 'bench_eigen',
  })[spec.impl] ?? spec.binary;

/**
 * Starts one process per spec and asks each for its description (op 'init', up to initMs): the
 * runners that started, and infos[name] = that description, or { error } for a runner whose build
 * failed, whose file is missing or that did not start (a Chromium runner with no browser is left
 * out; infos may hold errors already, for runners not to start).
 */
async function startRunners(specs, { browser = null, failedBuilds, infos = {}, initMs }) {
  const runners = [];
  for (const spec of specs) {
    if (infos[spec.name]) continue;
    if (failedBuilds[buildFor(spec)]) {
      infos[spec.name] = { error: `build failed (${buildFor(spec)})` };
      continue;
    }
    if (spec.where === 'chromium' && !browser) continue;
    if (spec.needs && !existsSync(join(ROOT, spec.needs))) {
      infos[spec.name] = { error: `${spec.needs} is missing (npm run build makes it)` };
      continue;
    }
    let runner = null;
    try {
      runner = await startRunner(spec, browser);
      infos[spec.name] = await ask(runner, { op: 'init' }, initMs);
      // A runner that runs another thread count than its name says would be a fake figure.
      const got = infos[spec.name].threads ?? 1;
      if (got !== (spec.threads ?? 1))
        throw new Error(`${spec.impl} runs ${got} thread(s), not ${spec.threads ?? 1} (it takes no thread count)`);
      if (spec.where === 'native') infos[spec.name].engine = 'native';
      if (spec.where === 'chromium') infos[spec.name].engine = `Chromium ${browser.version()}`;
      runners.push(runner);
      console.log(`  ${spec.name}: ${infos[spec.name].variant}`);
    } catch (err) {
      infos[spec.name] = { error: err.message.split('\n')[0].replace(/^Error: /, '') };
      console.log(`  ${spec.name}: not available (${infos[spec.name].error})`);
      if (runner) await runner.close();
    }
  }
  return { infos, runners };
}

// A section of model-sized cases (GPT-2, training): one process per runner of `runners` (--only
// picks among them by name), every case of `grid` measured in interleaved rounds. The Node and
// native runners first; then, in a browser of their own, the Chromium runners on the cases
// pageCase(c) accepts (their ratios compare runners of the same pass). Returns
// { all, names, infos, meta } (the raw samples go to results.json).
async function runSection(
  opts,
  failedBuilds,
  { title, runners: specsAll, grid, caseId, cases, rounds, pageCase = () => true },
) {
  const loadBefore = uptimeLine();
  const specs = specsAll.filter(
    (s) =>
      (opts.native || s.where !== 'native') &&
      (opts.browser || s.where !== 'chromium') &&
      (!opts.only || !specsAll.some((g) => opts.only.includes(g.name)) || opts.only.includes(s.name)),
  );
  const all = grid.map((c) => ({ c, rounds, results: {} }));
  const infos = {};
  const passes = [
    { where: 'Node and native', specs: specs.filter((s) => s.where !== 'chromium'), cases: all },
    { where: 'Chromium', specs: specs.filter((s) => s.where === 'chromium'), cases: all.filter((x) => pageCase(x.c)) },
  ];
  for (const pass of passes) {
    if (!pass.specs.length || !pass.cases.length) continue;
    let browser = null;
    if (pass.specs.some((s) => s.where === 'chromium')) {
      try {
        browser = await openBrowser();
      } catch (err) {
        for (const s of pass.specs) infos[s.name] = { error: `Chromium did not start: ${err.message.split('\n')[0]}` };
        continue;
      }
    }
    step(`${title}, ${pass.where}: starting one process per implementation`);
    const started = await startRunners(pass.specs, { browser, failedBuilds, infos, initMs: 300000 });
    if (browser)
      for (const s of pass.specs) if (infos[s.name]?.variant) infos[s.name].engine = `Chromium ${browser.version()}`;
    const runners = started.runners;
    step(
      `${title}, ${pass.where}: measuring ${pass.cases.length} cases on ${runners.length} implementations, ${rounds} rounds`,
    );
    for (const x of pass.cases) {
      const tc = Date.now();
      const results = await measureCase(x.c, runners, { rounds, targetSeconds: TARGET_S, rates: {}, cases });
      Object.assign(x.results, results);
      const summary = Object.entries(results)
        .map(([n, r]) => `${n} ${r.error ? 'error' : r.samples?.length ? `${fmt(r.seconds * 1e3, 1)} ms` : ''}`)
        .join(', ');
      console.log(`  ${caseId(x.c)} (${((Date.now() - tc) / 1e3).toFixed(1)} s): ${summary}`);
      for (const [n, r] of Object.entries(results)) if (r.error) console.log(`    ${n}: ${r.error}`);
    }
    for (const r of runners) await r.close();
    if (browser) await browser.close();
  }
  const meta = {
    date: new Date().toISOString().replace('T', ' ').slice(0, 16) + ' UTC',
    cpu: cpus()[0]?.model ?? 'unknown CPU',
    cores: cpus().length,
    threads: opts.threads,
    rounds,
    loadBefore,
    loadAfter: uptimeLine(),
  };
  return { all, names: specs.map((s) => s.name), infos, meta };
}

async function runGpt2(opts, failedBuilds) {
  const gpt2 = await import('../bench/gpt2-cases.mjs');
  const cases = { ...(await import('../bench/cases.mjs')), ...gpt2 };
  const section = await runSection(opts, failedBuilds, {
    title: 'GPT-2 and SmolLM (each runner loads one model at a time)',
    runners: gpt2Runners(opts.threads),
    grid: gpt2.gpt2Cases({ quick: opts.quick }),
    caseId: gpt2.gpt2CaseId,
    cases,
    rounds: opts.rounds ?? (opts.quick ? 3 : 5),
    // In Chromium the GPT-2 model alone (each page fetches its model: 250 MB, ORT's graphs 1 GB).
    pageCase: (c) => (c.model ?? 'gpt2') === 'gpt2',
  });
  return { md: gpt2Report({ ...section, gpt2, N: opts.threads }), raw: section };
}

// ---- the training section ---------------------------------------------------------------------

async function runTrain(opts, failedBuilds) {
  const train = await import('../bench/train-cases.mjs');
  const cases = { ...(await import('../bench/cases.mjs')), ...train };
  const section = await runSection(opts, failedBuilds, {
    title: 'Training',
    runners: trainRunners(opts.threads),
    grid: train.trainCases({ quick: opts.quick }),
    caseId: train.trainCaseId,
    cases,
    rounds: opts.rounds ?? (opts.quick ? 3 : 5),
  });
  return { md: trainReport({ ...section, train, N: opts.threads }), raw: section };
}

function trainReport({ all, names, infos, meta, train, N = 1 }) {
  const out = [SECTION_MARKS.train, '', "# Training the reverse model's shape: this trainer vs TF.js", ''];
  out.push(
    `${meta.date}, ${meta.cpu} (${meta.cores} cores, shared with other users), median of ${meta.rounds} ` +
      'interleaved rounds, CPU time of the runner process per optimisation step. ' +
      `Load: before \`${meta.loadBefore}\`; after \`${meta.loadAfter}\`.`,
    '',
    "A step of the shipped reverse model's shape (2-layer post-norm decoder, d_model 64, 4 heads, d_ff 256, " +
      'learned positions, erf GELU, 41 characters, 99k parameters) at batch B: draw B examples, pad to the ' +
      'longest (20-22 positions), forward, cross-entropy on the output positions, backward, clip the gradient ' +
      "norm to 1, AdamW. Both sides start from the core trainer's seeded weights; before any time counts both " +
      'compute the loss and a weighted sum of the logits of the same fixed batch, which must agree to 1e-4. ' +
      'Each side draws its own examples from the same distribution.',
    '',
  );
  out.push(implementationsTable(names, infos), '');
  const cols = names.filter((n) => !/ threads$/.test(n) && all.some((x) => x.results[n]?.samples?.length));
  const ms = (r) => (r?.samples?.length && !r.error ? fmt(r.seconds * 1e3, 2) : r?.error ? 'error' : '');
  const eps = (r, c) => (r?.samples?.length && !r.error ? fmt(train.trainExamples(c) / r.seconds, 0) : '');
  const pairs = [
    ['ours node', 'tfjs node tuned', 'tuned TF.js / ours'],
    ['ours node', 'tfjs node plain', 'plain TF.js / ours'],
  ].filter(([a, b]) => all.some((x) => pairRatio(x.results, a, b) != null));
  out.push(
    table(
      ['case', ...cols.map((n) => `${n} ms/step`), ...cols.map((n) => `${n} examples/s`), ...pairs.map((p) => p[2])],
      all.map((x) => [
        train.trainCaseId(x.c),
        ...cols.map((n) => ms(x.results[n])),
        ...cols.map((n) => eps(x.results[n], x.c)),
        ...pairs.map(([a, b]) => fmt(pairRatio(x.results, a, b), 2)),
      ]),
    ),
    '',
  );
  if (N > 1) {
    out.push(`## Training at 1 and ${N} threads (wall-clock ms per step)`, '');
    const groups = [
      { side: 'ours', one: 'ours node', many: `ours node ${N} threads` },
      { side: 'tuned TF.js', one: 'tfjs node tuned', many: `tfjs node tuned ${N} threads` },
    ];
    out.push(threadsTable({ xs: all, groups, infos, caseId: train.trainCaseId, N }), '');
  }
  out.push('Target (issue 27): a step at batch 32 >= 2x the hand-tuned TF.js (wasm, one thread):', '');
  for (const x of all.filter((y) => y.c.batch === 32)) {
    const r = pairRatio(x.results, 'ours node', 'tfjs node tuned');
    out.push(
      `- ${train.trainCaseId(x.c)}: ${r == null ? 'not measured' : `${r.toFixed(2)}x (${r >= 2 ? 'met' : 'missed'})`}`,
    );
  }
  out.push('');
  const errors = [];
  for (const x of all)
    for (const [n, r] of Object.entries(x.results))
      if (r.error) errors.push(`- ${train.trainCaseId(x.c)}, ${n}: ${r.error}`);
  if (errors.length) out.push('Errors:', '', ...errors, '');
  return out.join('\n');
}

// Issue 27's reference for "resident memory of the opened model <= 60 % of today's": an opened
// GPT-2 small took about 754 MB before the F16 weights work (the issue's own measurement).
const GPT2_MEMORY_BEFORE_MB = 754;

function gpt2Report({ all, names, infos, meta, gpt2, N = 1 }) {
  const out = [SECTION_MARKS.gpt2, '', '# GPT-2 small and SmolLM-135M shapes: this core vs onnxruntime-web', ''];
  out.push(
    `${meta.date}, ${meta.cpu} (${meta.cores} cores, shared with other users), median of ${meta.rounds} ` +
      'interleaved rounds, one call per sample, CPU time of the runner process. ' +
      `Load: before \`${meta.loadBefore}\`; after \`${meta.loadAfter}\`.`,
    '',
    "GPT-2 small's shape (12 layers, d_model 768, 12 heads, d_ff 3072, vocab 50257, 124M parameters; " +
      `random F16 weights, ${gpt2.HF_DIR}) and, the rows marked SmolLM, SmolLM-135M's (a Llama: 30 layers, ` +
      'hidden 576, 9 query heads sharing 3 K/V heads, SwiGLU 1536, RMSNorm, RoPE theta 10000, tied ' +
      `embeddings, vocab 49152, 135M parameters; random F16 weights, ${gpt2.SMOLLM_DIR}), ` +
      'computed in float32 by every implementation. prefill n: one forward ' +
      'pass over n prompt tokens, logits for every position (tokens/s = n / time). generate n+k: the n-token ' +
      'prompt, then k new tokens greedy with the KV cache (tokens/s = k / time, the prefill included). Before ' +
      'any time counts, the argmax of every logits row (prefill) or the generated ids (generate) must equal ' +
      "onnxruntime-web's, and a weighted sum of the last logits row must agree to 1e-3.",
    '',
  );
  out.push(implementationsTable(names, infos), '');
  // The main table: the 1-thread runners of Node and native (CPU time); threads and Chromium below.
  const cols = names.filter(
    (n) => !/ threads$/.test(n) && !n.includes('chromium') && all.some((x) => x.results[n]?.samples?.length),
  );
  const ms = (r) => (r?.samples?.length && !r.error ? fmt(r.seconds * 1e3, 1) : r?.error ? 'error' : '');
  const tps = (r, c) => (r?.samples?.length && !r.error ? fmt(gpt2.gpt2Tokens(c) / r.seconds, 1) : '');
  const pairs = [['ours node', 'ort node', 'ORT / ours, Node (our speed-up)']].filter(([a, b]) =>
    all.some((x) => pairRatio(x.results, a, b) != null),
  );
  const slow = [
    ['ours node', 'ours native', 'ours wasm Node / native (slow-down)'],
    ['ours node', 'ours native march', 'ours wasm Node / native -march=native'],
  ].filter(([a, b]) => all.some((x) => pairRatio(x.results, a, b) != null));
  out.push(
    table(
      [
        'case',
        ...cols.map((n) => `${n} ms`),
        ...cols.map((n) => `${n} tokens/s`),
        ...pairs.map((p) => p[2]),
        ...slow.map((p) => p[2]),
      ],
      all.map((x) => [
        gpt2.gpt2CaseId(x.c),
        ...cols.map((n) => ms(x.results[n])),
        ...cols.map((n) => tps(x.results[n], x.c)),
        ...pairs.map(([a, b]) => fmt(pairRatio(x.results, a, b), 2)),
        // pairRatio(a, b) is b's time over a's: the slow-down of wasm over native is its inverse.
        ...slow.map(([a, b]) => {
          const r = pairRatio(x.results, a, b);
          return r == null ? '' : fmt(1 / r, 2);
        }),
      ]),
    ),
    '',
  );
  const pageCases = all.filter((x) => names.some((n) => n.includes('chromium') && x.results[n]));
  if (N > 1 || pageCases.length) {
    out.push(
      N > 1
        ? `## Threads: 1 and ${N} threads, both sides (wall-clock ms per call)`
        : '## Chromium, 1 thread (wall-clock ms per call)',
      '',
      `This core at 1 thread is the single-thread second module (ap_train) and at ${N} threads the threaded ` +
        `module (ap_mt); onnxruntime-web takes \`ort.env.wasm.numThreads\`. In Chromium (a cross-origin-isolated ` +
        'page, the GPT-2 model only) the runners ran after the Node ones, in a pass of their own.',
      '',
    );
    for (const where of ['node', 'chromium']) {
      const groups = [
        { side: 'ours', one: `ours ${where}`, many: `ours ${where} ${N} threads` },
        { side: 'ORT', one: `ort ${where}`, many: `ort ${where} ${N} threads` },
      ];
      if (!groups.some((g) => names.includes(g.one) || names.includes(g.many))) continue;
      const xs = where === 'node' ? all : pageCases;
      if (!xs.length && where === 'chromium') {
        out.push('### Chromium', '', 'Not measured: ' + (infos['ours chromium']?.error ?? 'no case ran'), '');
        continue;
      }
      out.push(`### ${where === 'node' ? 'Node' : 'Chromium'}`, '');
      out.push(threadsTable({ xs, groups, infos, caseId: gpt2.gpt2CaseId, N, digits: 1 }), '');
    }
  }

  // The memory each runner's opened model holds (reported by the implementation on opening it).
  const memRows = [];
  const MB = (b) => (b == null || !Number.isFinite(b) ? '' : (b / 1e6).toFixed(0));
  for (const model of [...new Set(all.map((x) => x.c.model ?? 'gpt2'))]) {
    for (const n of names) {
      const x = all.find((y) => (y.c.model ?? 'gpt2') === model && y.results[n]?.memory);
      if (!x) continue;
      const m = x.results[n].memory;
      if (![m.wasmBytes, m.heapBytes, m.residentBytes].some((b) => b != null)) continue; // a page: no figure
      memRows.push([
        gpt2.MODELS[model].label.trim() || 'GPT-2',
        n,
        MB(m.wasmBytes),
        MB(m.heapBytes),
        MB(m.residentBytes),
      ]);
    }
  }
  if (memRows.length) {
    out.push(
      '## Memory of the opened model (MB = 10^6 bytes)',
      '',
      "wasm memory: this core's module memory after opening the model (it grows, never shrinks); allocated: the " +
        "bytes its allocator holds for the model (after minus before); resident: the Node process's resident memory " +
        'after opening minus before, each after a full garbage collection, the file bytes dropped (for ' +
        'onnxruntime-web, whose wasm heap its API does not show, both sessions: prefill and decode; in Chromium ' +
        "it has no figure). A runner's " +
        'second model opens in memory the first one grew, so its resident figure is low; the allocated one holds.',
      '',
      table(['model', 'runner', 'wasm memory MB', 'allocated MB', 'resident MB'], memRows),
      '',
    );
  }

  out.push('Targets (issues 16 and 27): this core in wasm >= 1.5x onnxruntime-web at equal threads:', '');
  for (const x of all) {
    const line = [];
    for (const [a, b, label, key] of [
      ['ours node', 'ort node', 'Node, 1 thread', 'samples'],
      [`ours node ${N} threads`, `ort node ${N} threads`, `Node, ${N} threads`, 'wall'],
      ['ours chromium', 'ort chromium', 'Chromium, 1 thread', 'wall'],
      [`ours chromium ${N} threads`, `ort chromium ${N} threads`, `Chromium, ${N} threads`, 'wall'],
    ]) {
      if (N <= 1 && label.endsWith('threads')) continue;
      const r = pairRatio(x.results, a, b, key);
      if (r != null) line.push(`${label} ${r.toFixed(2)}x (${r >= 1.5 ? 'met' : 'missed'})`);
    }
    out.push(`- ${gpt2.gpt2CaseId(x.c)}: ${line.length ? line.join('; ') : 'not measured'}`);
  }
  const oursMem = all.find((x) => (x.c.model ?? 'gpt2') === 'gpt2' && x.results['ours node']?.memory)?.results[
    'ours node'
  ].memory;
  if (oursMem?.wasmBytes) {
    const share = oursMem.wasmBytes / 1e6 / GPT2_MEMORY_BEFORE_MB;
    out.push(
      `- memory of the opened GPT-2 small, Node, wasm memory: ${MB(oursMem.wasmBytes)} MB = ` +
        `${(share * 100).toFixed(0)} % of the ${GPT2_MEMORY_BEFORE_MB} MB issue 27 measured before ` +
        `(need <= 60 %: ${share <= 0.6 ? 'met' : 'missed'})`,
    );
  }
  out.push('');
  const errors = [];
  for (const x of all)
    for (const [n, r] of Object.entries(x.results))
      if (r.error) errors.push(`- ${gpt2.gpt2CaseId(x.c)}, ${n}: ${r.error}`);
  if (errors.length) out.push('Errors:', '', ...errors, '');
  return out.join('\n');
}

// The kernels section: every runner of RUNNERS on the attention / long / model grid.
async function runKernels(opts, failedBuilds, loadBefore) {
  const cases = await import('../bench/cases.mjs');

  let specs = kernelRunners(opts.threads).filter(
    (s) => (opts.browser || s.where !== 'chromium') && (opts.native || s.where !== 'native'),
  );
  if (opts.only) specs = specs.filter((s) => opts.only.includes(s.name));

  step('starting one process per implementation');
  const infos = {};
  let browser = null;
  if (specs.some((s) => s.where === 'chromium')) {
    try {
      browser = await openBrowser();
    } catch (err) {
      for (const s of specs.filter((x) => x.where === 'chromium'))
        infos[s.name] = { error: `Chromium did not start: ${err.message.split('\n')[0]}` };
    }
  }
  const { runners } = await startRunners(specs, { browser, failedBuilds, infos, initMs: 120000 });

  const grid = opts.quick
    ? [
        ...cases.attentionCases({ sizes: [64, 256, 1024], heads: [1, 8] }),
        ...cases.longCases({ sizes: [8192] }),
        ...cases.modelCases(),
      ]
    : [...cases.attentionCases(opts.full ? { maxFlops: Infinity } : {}), ...cases.longCases(), ...cases.modelCases()];
  const baseRounds = opts.rounds ?? (opts.quick ? 3 : 5);
  const rates = {};
  const all = [];
  step(`measuring ${grid.length} cases on ${runners.length} implementations`);
  for (const c of grid) {
    const f = cases.flops(c);
    // Long calls are stable and costly: fewer rounds for cases of more than 1 GFLOP, and long context.
    const rounds = c.kind === 'long' ? Math.min(baseRounds, 3) : f && f > 1e9 ? Math.min(baseRounds, 3) : baseRounds;
    const tc = Date.now();
    const results = await measureCase(c, runners, { rounds, targetSeconds: TARGET_S, rates, cases });
    all.push({ c, rounds, results });
    const summary = Object.entries(results)
      .map(([n, r]) => `${n} ${r.error ? 'error' : r.skipped ? 'skip' : cell(r, c, cases.gflops)}`)
      .join(', ');
    console.log(`  ${cases.caseId(c)} (${((Date.now() - tc) / 1e3).toFixed(1)} s): ${summary}`);
    for (const [n, r] of Object.entries(results)) if (r.error) console.log(`    ${n}: ${r.error}`);
  }

  for (const r of runners) await r.close();
  if (browser) await browser.close();

  const names = specs.map((s) => s.name);
  const meta = {
    date: new Date().toISOString().replace('T', ' ').slice(0, 16) + ' UTC',
    cpu: cpus()[0]?.model ?? 'unknown CPU',
    cores: cpus().length,
    rounds: `${baseRounds} interleaved rounds (3 for calls above 1 GFLOP and for long context)`,
    targetMs: TARGET_S * 1e3,
    loadBefore,
    loadAfter: uptimeLine(),
    threads: opts.threads,
    grid: opts.quick
      ? '--quick: n <= 1024, long context n = 8192 only'
      : opts.full
        ? 'full'
        : 'n = 4096 with 8 heads left out (34 GFLOP per call; --full adds it)',
  };
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(opts.out.replace(/\.md$/, '') + '.json', JSON.stringify({ meta, infos, all }, null, 1));
  return { md: report({ all, names, infos, cases, meta }), raw: { meta, infos, all }, engines: infos };
}

// ---- the report's head: machine, versions, threads, commit -----------------------------------

const firstLine = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0 ? `${r.stdout || r.stderr}`.trim().split('\n')[0] : null;
};
const packageVersion = (name) => {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
};

function commitLine() {
  const rev = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], {
    cwd: ROOT,
    encoding: 'utf8',
  }).stdout.trim();
  return `${rev || 'unknown'}${dirty ? ' (with uncommitted changes)' : ''}`;
}

const commandLine = () =>
  ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ');

function runMeta(opts, { loadBefore, sections, minutes }) {
  return {
    date: new Date().toISOString().replace('T', ' ').slice(0, 16) + ' UTC',
    command: commandLine(),
    commit: commitLine(),
    cpu: cpus()[0]?.model ?? 'unknown CPU',
    cores: availableParallelism(),
    memoryGB: Math.round(totalmem() / 1e9),
    loadBefore,
    loadAfter: uptimeLine(),
    threads: opts.threads,
    sections,
    minutes,
    versions: {
      node: process.versions.node,
      v8: process.versions.v8,
      chromium: firstLine(CHROMIUM, ['--version']),
      tfjsCore: packageVersion('@tensorflow/tfjs-core'),
      tfjsWasm: packageVersion('@tensorflow/tfjs-backend-wasm'),
      onnxruntimeWeb: packageVersion('onnxruntime-web'),
      emscripten: firstLine('em++', ['--version']),
      clang16: firstLine('clang++-16', ['--version']),
      gcc: firstLine('g++', ['--version']),
    },
  };
}

function header(meta) {
  const v = meta.versions;
  return [
    SECTION_MARKS.header,
    '',
    '# Speed report: this core against its peers',
    '',
    `Made by \`${meta.command}\` on ${meta.date} at commit ${meta.commit}, in ${meta.minutes} min. Sections of this run: ` +
      `${meta.sections.join(', ')}${meta.sections.length < 3 ? ' (the others are from earlier runs, with their own dates)' : ''}.`,
    '',
    table(
      ['', ''],
      [
        ['machine', `${meta.cpu}, ${meta.cores} logical cores, ${meta.memoryGB} GB memory (shared with other users)`],
        ['load', `before \`${meta.loadBefore}\`; after \`${meta.loadAfter}\``],
        [
          'threads',
          `1 and ${meta.threads} (\`--threads N\`; by default the machine's cores, \`os.availableParallelism()\`)`,
        ],
        ['Node', `${v.node} (V8 ${v.v8})`],
        ['Chromium', v.chromium ?? 'not found'],
        ['tfjs', `tfjs-core ${v.tfjsCore}, tfjs-backend-wasm ${v.tfjsWasm}`],
        ['onnxruntime-web', v.onnxruntimeWeb ?? 'not installed'],
        ['compilers', [v.emscripten, v.clang16, v.gcc].filter(Boolean).join('; ')],
      ],
    ),
    '',
  ].join('\n');
}

// A run's parts ({ key: markdown }, keys of SECTION_MARKS) into results.md: a run of every section
// writes them in order; a run of some replaces its parts in the existing report (each part ends
// where the next mark or the total line starts), the head at the top, a new section at the end.
function assemble(old, parts, total) {
  const keys = Object.keys(SECTION_MARKS);
  if (!old || ['kernels', 'gpt2', 'train'].every((k) => parts[k]))
    return `${keys
      .filter((k) => parts[k])
      .map((k) => parts[k].trimEnd())
      .join('\n\n')}\n\n${total}`;
  let md = old.replace(/\n*Total time of this run:.*\n?$/, '');
  for (const key of keys) {
    const text = parts[key];
    if (!text) continue;
    const at = md.indexOf(SECTION_MARKS[key]);
    if (at < 0) {
      md = key === 'header' ? `${text.trimEnd()}\n\n${md.trimStart()}` : `${md.trimEnd()}\n\n${text.trimEnd()}`;
      continue;
    }
    const ends = Object.values(SECTION_MARKS)
      .map((m) => md.indexOf(m, at + 1))
      .filter((i) => i > at);
    const end = Math.min(...ends, md.length);
    md = `${md.slice(0, at)}${text.trimEnd()}\n\n${md.slice(end).trimStart()}`;
  }
  return `${md.trimEnd()}\n\n${total}`;
}

main(async () => {
  const opts = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  const loadBefore = uptimeLine();
  await ensureDebianPackages(BENCH_PACKAGES);
  await ensureNodeModules();
  if (opts.gpt2) await prepareGpt2Files();

  step('building the benchmark (build/bench)');
  const { buildAll } = await import('../bench/build.mjs');
  const failedBuilds = await buildAll({
    only: opts.kernels ? null : opts.gpt2 ? ['native_gpt2', 'native_gpt2_march_native'] : [],
  });

  mkdirSync(OUT_DIR, { recursive: true });
  mkdirSync(dirname(opts.out), { recursive: true });
  const parts = {};
  const raw = {};
  for (const [key, run] of [
    ['kernels', () => runKernels(opts, failedBuilds, loadBefore)],
    ['gpt2', () => runGpt2(opts, failedBuilds)],
    ['train', () => runTrain(opts, failedBuilds)],
  ]) {
    if (!opts[key]) continue;
    const r = await run();
    parts[key] = key === 'kernels' ? `${SECTION_MARKS.kernels}\n\n${r.md}` : r.md;
    raw[key] = r.raw;
  }
  const minutes = ((Date.now() - t0) / 60000).toFixed(1);
  const meta = runMeta(opts, { loadBefore, sections: Object.keys(raw), minutes });
  parts.header = header(meta);
  const total = `Total time of this run: ${minutes} min.\n`;
  const md = assemble(existsSync(opts.out) ? readFileSync(opts.out, 'utf8') : '', parts, total);
  writeFileSync(opts.out, md);
  // results.json: the run's head and every section's raw samples (a section run alone replaces its own).
  const jsonFile = `${opts.out.replace(/\.md$/, '')}.json`;
  let json = { sections: {} };
  if (Object.keys(raw).length < 3 && existsSync(jsonFile)) {
    try {
      const old = JSON.parse(readFileSync(jsonFile, 'utf8'));
      if (old.sections) json = old;
    } catch {
      // an unreadable old file is replaced
    }
  }
  json.meta = meta;
  Object.assign(json.sections, raw);
  writeFileSync(jsonFile, JSON.stringify(json, null, 1));
  if (opts.docs) writeDocs(parts, total);
  console.log(`\n${md}`);
  console.log(
    `Written to ${relative(process.cwd(), opts.out) || opts.out} and ${relative(process.cwd(), jsonFile) || jsonFile}.`,
  );
});
