// `npm run fuzz`: build the libFuzzer targets in tests/fuzz (clang, ASan + UBSan, build/fuzz),
// run each for a bounded time on a fresh copy of its seed corpus from tests/corpus, and print
// per target the executions, libFuzzer's coverage (cov: edges, ft: features) and any crash; then
// the JS targets (tests/fuzz/js: loadPretrained's readers, JSON at the JS boundary, tokenizer
// limits) against the built wasm module in Node (tests/tools/fuzz-js.mjs), for FUZZ_SECONDS too.
// FUZZ_SECONDS (default 60) sets the time per target; `npm run fuzz -- forward config` runs only
// those targets (`js`: the JS targets). Exits non-zero if any target crashed, leaked, timed out or
// ran out of memory, or a JS case failed. A crash becomes a regression input: see tests/fuzz/README.md.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT, StepError, ensureDebianPackages, main, prepareWasmModule, run, step } from './lib/setup.mjs';
import { runJsFuzz } from './fuzz-js.mjs';

const FUZZ_DIR = 'build/fuzz';
const JOBS = '2';
// clang and libFuzzer's runtime come from Debian's default-clang packages: libclang-rt-dev
// depends on the runtime of the default clang (libclang-rt-14-dev on Debian 12), which ships
// libclang_rt.fuzzer-x86_64.a and the ASan/UBSan runtimes.
const FUZZ_PACKAGES = ['cmake', 'clang', 'libclang-rt-dev', 'libeigen3-dev', 'nlohmann-json3-dev'];

// Each target reads the seed folders listed here (the first is its own, named after it).
const TARGETS = {
  safetensors: {
    corpora: ['safetensors', 'model'],
    dict: 'safetensors.dict',
    what: 'safetensors reader and model loader',
  },
  tokenizer: { corpora: ['tokenizer'], what: 'char and word tokenizers' },
  config: { corpora: ['config'], dict: 'config.dict', what: 'model-config JSON parser' },
  attention: { corpora: ['attention'], what: 'attention kernels and traced attention' },
  forward: { corpora: ['forward'], what: 'small fuzzed models: forward, generate, save/load' },
  hf_tokenizer: { corpora: ['hf_tokenizer'], what: 'tokenizer.json parser and HF tokenizers' },
  hf_model: {
    corpora: ['hf_model'],
    dict: 'safetensors.dict',
    what: 'Hugging Face config.json, streamed safetensors (F32/F16/BF16) and the forward pass',
  },
};

const seconds = Number(process.env.FUZZ_SECONDS ?? 60);

// UBSan only reports and carries on unless told to stop: a report must count as a crash.
const FUZZ_ENV = {
  ...process.env,
  UBSAN_OPTIONS: 'halt_on_error=1:abort_on_error=1:print_stacktrace=1',
  ASAN_OPTIONS: 'abort_on_error=1:detect_leaks=1',
};

function clangRuntimeCheck() {
  // libFuzzer's runtime is a separate Debian package from clang itself: check it is really there.
  const arch = spawnSync('uname', ['-m'], { encoding: 'utf8' }).stdout.trim();
  const lib = `libclang_rt.fuzzer-${arch}.a`;
  const found = spawnSync('clang++', [`-print-file-name=${lib}`], { encoding: 'utf8' }).stdout.trim();
  if (!found.startsWith('/') || !existsSync(found)) {
    const major = spawnSync('clang', ['-dumpversion'], { encoding: 'utf8' }).stdout.trim().split('.')[0];
    throw new StepError(
      `clang ${major} has no libFuzzer runtime (${lib}). Install it with:\n\n` +
        `    sudo apt-get install libclang-rt-${major}-dev\n`,
    );
  }
  console.log(`libFuzzer runtime: ${found}`);
}

async function mustRun(cmd, args, opts) {
  const { code } = await run(cmd, args, opts);
  if (code !== 0) throw new StepError(`\`${cmd} ${args.join(' ')}\` failed (exit code ${code})`);
}

async function buildFuzzers(names) {
  step(`building the fuzz targets (${FUZZ_DIR}, clang, ASan + UBSan + libFuzzer)`);
  const env = { ...process.env, CC: 'clang', CXX: 'clang++' };
  if (!existsSync(join(ROOT, FUZZ_DIR, 'CMakeCache.txt'))) {
    await mustRun(
      'cmake',
      ['-S', '.', '-B', FUZZ_DIR, '-DAP_FUZZ=ON', '-DAP_TESTS=OFF', '-DCMAKE_BUILD_TYPE=RelWithDebInfo'],
      { env },
    );
  }
  // Only the fuzz targets (and the core they link): the tools and tests are not needed here.
  await mustRun('cmake', ['--build', FUZZ_DIR, '-j', JOBS, '--target', ...names.map((n) => `fuzz_${n}`)], { env });
}

// libFuzzer's status lines: "#90807	DONE   cov: 1903 ft: 5527 corp: 910/55Kb ... exec/s: 15134 rss: 461Mb"
function lastStatus(text) {
  const lines = text.split('\n').filter((l) => /^#\d+\s+(INITED|pulse|NEW|REDUCE|DONE)\s/.test(l));
  const line = lines.at(-1) ?? '';
  const num = (re) => Number(line.match(re)?.[1] ?? NaN);
  return { cov: num(/cov: (\d+)/), ft: num(/ft: (\d+)/), corp: line.match(/corp: (\S+)/)?.[1] ?? '?' };
}

function initialStatus(text) {
  const line = text.split('\n').find((l) => /^#\d+\s+INITED\s/.test(l)) ?? '';
  return { cov: Number(line.match(/cov: (\d+)/)?.[1] ?? NaN), ft: Number(line.match(/ft: (\d+)/)?.[1] ?? NaN) };
}

// Runs one target with its output going to a log file (libFuzzer prints a line per new input);
// pulse and DONE lines are echoed so the run shows progress.
function fuzzOne(name, spec) {
  const work = join(ROOT, FUZZ_DIR, 'work', name);
  rmSync(work, { recursive: true, force: true });
  const corpus = join(work, 'corpus'),
    artifacts = join(work, 'artifacts');
  mkdirSync(corpus, { recursive: true });
  mkdirSync(artifacts, { recursive: true });
  let seeds = 0;
  for (const dir of spec.corpora) {
    const src = join(ROOT, 'tests', 'corpus', dir);
    for (const file of readdirSync(src)) {
      cpSync(join(src, file), join(corpus, `${dir}__${file}`));
      seeds++;
    }
  }
  const args = [
    `-max_total_time=${seconds}`,
    '-print_final_stats=1',
    '-timeout=10',
    '-rss_limit_mb=2048',
    `-artifact_prefix=${artifacts}/`,
    ...(spec.dict ? [`-dict=${join(ROOT, 'tests', 'fuzz', spec.dict)}`] : []),
    corpus,
  ];
  const exe = join(ROOT, FUZZ_DIR, `fuzz_${name}`);
  const logPath = join(work, 'fuzz.log');
  console.log(`$ ${relative(ROOT, exe)} ${args.map((a) => a.replace(`${ROOT}/`, '')).join(' ')}`);
  console.log(`  ${seeds} seeds from tests/corpus/{${spec.corpora.join(',')}}; full log: ${relative(ROOT, logPath)}`);
  return new Promise((resolve, reject) => {
    const child = spawn(exe, args, { cwd: work, env: FUZZ_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = createWriteStream(logPath);
    let text = '',
      partial = '';
    const onData = (chunk) => {
      log.write(chunk);
      text += chunk;
      // libFuzzer writes a status line in several pieces: echo whole lines only.
      const lines = (partial + chunk).split('\n');
      partial = lines.pop();
      for (const line of lines) {
        if (/^#\d+\s+(INITED|pulse|DONE)\s/.test(line) || /^==\d+==ERROR|^SUMMARY|runtime error/.test(line)) {
          console.log(`  ${line}`);
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      log.end();
      const crashes = readdirSync(artifacts).map((f) => join(artifacts, f));
      resolve({
        name,
        code: code ?? (signal ? 1 : 0),
        execs: Number(
          text.match(/stat::number_of_executed_units: (\d+)/)?.[1] ??
            text
              .match(/^#(\d+)\s/gm)
              ?.at(-1)
              ?.slice(1) ??
            NaN,
        ),
        execPerSec: Number(text.match(/stat::average_exec_per_sec:\s+(\d+)/)?.[1] ?? NaN),
        peakRss: Number(text.match(/stat::peak_rss_mb:\s+(\d+)/)?.[1] ?? NaN),
        newUnits: Number(text.match(/stat::new_units_added:\s+(\d+)/)?.[1] ?? NaN),
        start: initialStatus(text),
        end: lastStatus(text),
        crashes,
        seeds,
      });
    });
  });
}

main(async () => {
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new StepError(`FUZZ_SECONDS must be a positive number, got ${process.env.FUZZ_SECONDS}`);
  const wanted = process.argv.slice(2);
  for (const n of wanted) {
    if (!(n in TARGETS) && n !== 'js')
      throw new StepError(`unknown fuzz target '${n}' (known: ${Object.keys(TARGETS).join(', ')}, js)`);
  }
  const names = wanted.length ? wanted.filter((n) => n !== 'js') : Object.keys(TARGETS);
  const js = !wanted.length || wanted.includes('js');
  const results = [];
  if (names.length) {
    await ensureDebianPackages(FUZZ_PACKAGES);
    clangRuntimeCheck();
    await buildFuzzers(names);
    for (const name of names) {
      step(`fuzz_${name}: ${TARGETS[name].what}, ${seconds} s`);
      results.push(await fuzzOne(name, TARGETS[name]));
    }
  }
  let jsResult = null;
  if (js) {
    await prepareWasmModule();
    step(`JS targets (tests/fuzz/js): loadPretrained's readers, JSON, tokenizer limits, ${seconds} s`);
    jsResult = await runJsFuzz({ seconds, from: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31) });
    console.log(`seeds from ${jsResult.from}: run one again with node tests/tools/fuzz-js.mjs --class <c> --seed <s>`);
  }

  step('Summary');
  const pad = (s, w) => String(s).padEnd(w);
  console.log(
    `${pad('target', 18)}${pad('executions', 12)}${pad('exec/s', 8)}${pad('cov (start->end)', 18)}${pad('ft (start->end)', 18)}${pad('corpus (seeds -> end)', 24)}crashes`,
  );
  for (const r of results) {
    console.log(
      `${pad(`fuzz_${r.name}`, 18)}${pad(r.execs, 12)}${pad(r.execPerSec, 8)}` +
        `${pad(`${r.start.cov} -> ${r.end.cov}`, 18)}${pad(`${r.start.ft} -> ${r.end.ft}`, 18)}` +
        `${pad(`${r.seeds} -> ${r.end.corp}`, 24)}${r.crashes.length}`,
    );
  }
  if (jsResult) {
    for (const [n, c] of Object.entries(jsResult.perClass))
      console.log(
        `${pad(`js ${n}`, 18)}${pad(c.cases, 12)}${pad('', 8)}${pad('', 18)}${pad('', 18)}${pad('', 24)}${c.failed}`,
      );
    const h = jsResult.heap;
    console.log(`js: wasm heap ${h.start} bytes before the cases, ${h.end} after (at most ${h.slack} apart)`);
  }
  const jsBad =
    jsResult &&
    (jsResult.failures.length > 0 || Math.abs(jsResult.heap.end - jsResult.heap.start) > jsResult.heap.slack);
  if (jsResult?.failures.length) {
    mkdirSync(join(ROOT, FUZZ_DIR, 'js'), { recursive: true });
    writeFileSync(join(ROOT, FUZZ_DIR, 'js', 'failures.json'), `${JSON.stringify(jsResult.failures, null, 2)}\n`);
    console.log(`\njs: ${jsResult.failures.length} failing cases in ${FUZZ_DIR}/js/failures.json`);
  }
  const bad = results.filter((r) => r.crashes.length || r.code !== 0);
  if (bad.length === 0 && !jsBad) {
    console.log(`\nno crashes in ${results.length} targets x ${seconds} s${jsResult ? ', no failing JS case' : ''}`);
    return;
  }
  for (const r of bad) {
    console.log(`\nfuzz_${r.name} exited with code ${r.code}; artifacts:`);
    for (const c of r.crashes) console.log(`  ${relative(ROOT, c)}`);
    console.log(
      `  reproduce: ${FUZZ_DIR}/fuzz_${r.name} <artifact>; then commit it as ` +
        `tests/corpus/${TARGETS[r.name].corpora[0]}/regress_<what>.<ext> and add a test to tests/cpp/test_regressions.cpp`,
    );
  }
  throw new StepError(`${bad.length + (jsBad ? 1 : 0)} fuzz target(s) found a problem`);
});
