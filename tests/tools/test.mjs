// `npm test`: install what is missing, build everything, then run every check and test suite:
// the formatting check, ESLint, the C++ tests natively and compiled to wasm (ctest), and Vitest
// (tests/wasm in Node against the real module, tests/web in headless Chromium). Exits non-zero if
// anything fails.
// Arguments after `npm test --` go to Vitest (for example a test file to run alone), except
// --force, which reruns everything even when nothing changed since the last green run.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  ROOT,
  NATIVE_DIR,
  WASM_DIR,
  TEST_PACKAGES,
  StepError,
  buildNative,
  buildWasm,
  buildWidgets,
  ensureDebianPackages,
  ensureNodeModules,
  main,
  run,
  step,
} from './lib/setup.mjs';
import { buildTheme, installTheme } from './lib/myst.mjs';

const force = process.argv.includes('--force');
const vitestArgs = process.argv.slice(2).filter((a) => a !== '--force');
const fullRun = vitestArgs.length === 0; // only a run of everything may vouch for everything

// eslint-disable-next-line no-control-regex -- ESC (\x1b) opens the ANSI colour codes this strips
const stripAnsi = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');

// "95% tests passed, 1 tests failed out of 20"
function ctestCounts(output) {
  const m = stripAnsi(output).match(/tests passed, (\d+) tests? failed out of (\d+)/);
  if (!m) return null;
  const failed = Number(m[1]);
  return { passed: Number(m[2]) - failed, failed, skipped: 0 };
}

// The wasm ctest runs one test per executable (CMakeLists.txt), each writing gtest's JSON report
// to gtest-results/<executable>.json: the counts are GoogleTest cases, as natively. An executable
// that failed without a report (a crash, an abort) counts as one failed case.
const GTEST_RESULTS = join(ROOT, WASM_DIR, 'gtest-results');
function gtestCounts(output) {
  const ctest = ctestCounts(output);
  if (!ctest) return null;
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const reported = new Set();
  for (const file of existsSync(GTEST_RESULTS) ? readdirSync(GTEST_RESULTS) : []) {
    if (!file.endsWith('.json')) continue;
    try {
      const report = JSON.parse(readFileSync(join(GTEST_RESULTS, file), 'utf8'));
      for (const suite of report.testsuites ?? []) {
        for (const t of suite.testsuite ?? []) {
          if (t.failures?.length) counts.failed++;
          else if (t.result === 'SKIPPED' || t.status === 'NOTRUN') counts.skipped++;
          else counts.passed++;
        }
      }
      reported.add(file.replace(/\.json$/, ''));
    } catch {
      /* a half-written report: its executable failed, counted below */
    }
  }
  // "  3 - test_costs (Failed)" in ctest's list of failed tests
  const failedExes = [...stripAnsi(output).matchAll(/^\s*\d+ - (\S+) \(/gm)].map((m) => m[1]);
  counts.failed += failedExes.filter((name) => !reported.has(name)).length;
  return counts;
}

// "      Tests  1 failed | 12 passed | 2 skipped (15)"
function vitestCounts(output) {
  const line = stripAnsi(output)
    .split('\n')
    .reverse()
    .find((l) => /^\s*Tests\s+\d/.test(l));
  if (!line) return null;
  const count = (word) => Number(line.match(new RegExp(`(\\d+) ${word}`))?.[1] ?? 0);
  return { passed: count('passed'), failed: count('failed'), skipped: count('skipped') + count('todo') };
}

const suites = [
  {
    // One check: every C++ file clang-format-clean and every JS file Prettier-clean (npm run format fixes them).
    name: 'Formatting (clang-format, Prettier)',
    cmd: process.execPath,
    args: [join(ROOT, 'tests', 'tools', 'format.mjs'), '--check'],
    counts: (output) => (/^formatted: /m.test(output) ? { passed: 1, failed: 0, skipped: 0 } : null),
  },
  {
    // One check: ESLint (eslint.config.js) finds no error in the project's JS; its report says where.
    name: 'Lint (ESLint)',
    cmd: join(ROOT, 'node_modules', '.bin', 'eslint'),
    args: ['.'],
    counts: (output, code) => (code === 0 ? { passed: 1, failed: 0, skipped: 0 } : null),
  },
  {
    name: 'C++ tests, native (ctest)',
    cmd: 'ctest',
    args: ['--test-dir', NATIVE_DIR, '--output-on-failure', '--no-tests=error', '-j', '2'],
    counts: ctestCounts,
  },
  {
    name: 'C++ tests, wasm under Node (ctest)',
    cmd: 'ctest',
    args: ['--test-dir', WASM_DIR, '--output-on-failure', '--no-tests=error', '-j', '2'],
    before: () => {
      rmSync(GTEST_RESULTS, { recursive: true, force: true });
      mkdirSync(GTEST_RESULTS, { recursive: true });
    },
    counts: gtestCounts,
  },
  {
    name: 'Vitest (tests/wasm in Node, tests/web in Chromium)',
    cmd: join(ROOT, 'node_modules', '.bin', 'vitest'),
    args: ['run', '--config', join(ROOT, 'tests', 'vitest.config.js'), ...vitestArgs],
    counts: vitestCounts,
  },
];

// ---- the green-run record ------------------------------------------------------------------
// After a fully green run of everything, build/npm-test-green.json records a hash of every input:
// the content of every file git tracks or would track (not ignored), the built artifacts the
// tests run (size and mtime), the installed npm dependencies, Node's version and the Debian
// packages' versions (Chromium, emscripten, g++, ...). When the next `npm test` finds the same
// hash, nothing the tests could see has changed, and it says so instead of rerunning everything.
const GREEN = join(ROOT, 'build', 'npm-test-green.json');

function sourcesHash() {
  const hash = createHash('sha256');
  const r = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) return null; // not a git checkout: no record, every run runs
  for (const file of [...new Set(r.stdout.split('\0').filter(Boolean))].sort()) {
    let content;
    try {
      content = readFileSync(join(ROOT, file));
    } catch {
      content = '(missing)';
    }
    hash.update(`${file}\0${createHash('sha256').update(content).digest('hex')}\0`);
  }
  return hash.digest('hex');
}

function artifactsHash() {
  const hash = createHash('sha256');
  const visit = (path) => {
    let st;
    try {
      st = statSync(path);
    } catch {
      hash.update(`${path}\0(missing)\0`);
      return;
    }
    if (st.isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name));
    } else {
      hash.update(`${path}\0${st.size}\0${st.mtimeMs}\0`);
    }
  };
  visit(join(ROOT, 'wasm', 'build'));
  visit(join(ROOT, 'dist'));
  visit(join(ROOT, 'node_modules', '.package-lock.json'));
  for (const dir of [NATIVE_DIR, WASM_DIR]) {
    const abs = join(ROOT, dir);
    for (const name of existsSync(abs) ? readdirSync(abs).sort() : []) {
      if (/^test_\w+(\.cjs|\.wasm)?$/.test(name)) visit(join(abs, name));
    }
  }
  const pkgs = spawnSync('dpkg-query', ['-W', '-f=${Package} ${Version}\\n', ...TEST_PACKAGES], { encoding: 'utf8' });
  hash.update(`node ${process.version}\0${pkgs.stdout ?? ''}`);
  return hash.digest('hex');
}

const inputsHash = () => {
  const sources = sourcesHash();
  return sources && createHash('sha256').update(`${sources}\0${artifactsHash()}`).digest('hex');
};

function readGreen() {
  try {
    return JSON.parse(readFileSync(GREEN, 'utf8'));
  } catch {
    return null;
  }
}

const seconds = (t0) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

// The example MyST book's theme (examples/myst/theme, built from source): installed and built here,
// with the other builds, rather than inside the browser tests, where its npm ci, Tailwind and Remix
// on a fresh clone would compete with them for the CPU. It needs nothing the C++ builds make, so it
// runs beside them (its output kept, shown if it fails): on a fresh clone its ~130 s (npm ci's
// downloads and unpacking, then the build) are mostly absorbed by the builds instead of added to them.
async function prepareMystTheme() {
  const t = performance.now();
  const installed = await installTheme();
  const built = await buildTheme();
  const did = [installed && 'installed', built && 'built'].filter(Boolean).join(' and ');
  return did ? `${did} in ${seconds(t)} (beside the C++ builds)` : 'up to date';
}

main(async () => {
  const t0 = performance.now();
  await ensureDebianPackages(TEST_PACKAGES);
  await ensureNodeModules();

  if (fullRun && !force) {
    const green = readGreen();
    if (green && green.hash === inputsHash()) {
      console.log(
        `\n==> Nothing changed since the green run of ${green.date} (${green.tests} tests passed): not rerun.`,
      );
      console.log('    `npm test -- --force` reruns everything.');
      return;
    }
  }
  rmSync(GREEN, { force: true }); // whatever happens below, the old record no longer holds

  const theme = prepareMystTheme().then(
    (message) => ({ message }),
    (error) => ({ error }),
  );
  try {
    let buildError = null;
    try {
      await buildNative();
      await buildWasm();
      await buildWidgets(); // dist/attention-playground.js: the embed, CSP and npm-pack tests use it
    } catch (err) {
      buildError = err;
    }
    const { message, error } = await theme; // no build step left running behind an error
    step('MyST book theme (examples/myst/theme)');
    console.log(error ? `failed: ${error.message}` : message);
    if (buildError) throw buildError;
    if (error) throw new StepError(`the MyST book theme: ${error.message}`);
  } catch (err) {
    if (err instanceof StepError) err.message = `build failed, no tests were run: ${err.message}`;
    throw err;
  }
  console.log(`\nset-up and builds took ${seconds(t0)}`);
  const tested = fullRun ? inputsHash() : null; // the inputs as the tests are about to see them

  // Run every suite even if an earlier one fails, so one run shows every failure.
  const results = [];
  for (const suite of suites) {
    step(suite.name);
    const t = performance.now();
    suite.before?.();
    const { code, output } = await run(suite.cmd, suite.args, { capture: true });
    const counts = suite.counts(output, code) ?? { passed: 0, failed: 0, skipped: 0 };
    // A runner that failed without reporting a failed test (crash, no tests found, an
    // unhandled error) still counts as one failure, so the totals never look clean.
    const failed = counts.failed || (code !== 0 ? 1 : 0);
    results.push({ ...counts, failed, ok: code === 0 && failed === 0, name: suite.name, time: seconds(t) });
  }

  console.log('\n==> Summary');
  for (const r of results) {
    const skipped = r.skipped ? `, ${r.skipped} skipped` : '';
    console.log(`${r.ok ? 'ok  ' : 'FAIL'}  ${r.name}: ${r.passed} passed, ${r.failed} failed${skipped} (${r.time})`);
  }
  const total = (key) => results.reduce((sum, r) => sum + r[key], 0);
  const allOk = results.every((r) => r.ok);
  console.log(`npm test ${allOk ? 'passed' : 'FAILED'} in ${seconds(t0)}`);
  const skipped = total('skipped') ? `, ${total('skipped')} skipped` : '';
  console.log(`Total: ${total('passed')} passed, ${total('failed')} failed${skipped}`);
  if (!allOk) {
    process.exitCode = 1;
    return;
  }
  // Recorded only for a green run of everything whose inputs did not change while it ran.
  if (tested && inputsHash() === tested) {
    mkdirSync(dirname(GREEN), { recursive: true });
    writeFileSync(
      GREEN,
      `${JSON.stringify({ hash: tested, date: new Date().toISOString(), tests: total('passed') }, null, 1)}\n`,
    );
  }
});
