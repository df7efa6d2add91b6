// `npm test`: install what is missing, build everything, then run every test suite:
// the C++ tests natively and compiled to wasm (ctest), and Vitest (tests/wasm in Node
// against the real module, tests/web in headless Chromium). Exits non-zero if anything fails.
// Arguments after `npm test --` go to Vitest (for example a test file to run alone).
import { join } from 'node:path';
import {
  ROOT, NATIVE_DIR, WASM_DIR, TEST_PACKAGES, StepError, buildNative, buildWasm, buildWidgets,
  ensureDebianPackages, ensureNodeModules, main, run, step,
} from './lib/setup.mjs';

const stripAnsi = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');

// "95% tests passed, 1 tests failed out of 20"
function ctestCounts(output) {
  const m = stripAnsi(output).match(/tests passed, (\d+) tests? failed out of (\d+)/);
  if (!m) return null;
  const failed = Number(m[1]);
  return { passed: Number(m[2]) - failed, failed, skipped: 0 };
}

// "      Tests  1 failed | 12 passed | 2 skipped (15)"
function vitestCounts(output) {
  const line = stripAnsi(output).split('\n').reverse().find((l) => /^\s*Tests\s+\d/.test(l));
  if (!line) return null;
  const count = (word) => Number(line.match(new RegExp(`(\\d+) ${word}`))?.[1] ?? 0);
  return { passed: count('passed'), failed: count('failed'), skipped: count('skipped') + count('todo') };
}

const suites = [
  {
    name: 'C++ tests, native (ctest)',
    cmd: 'ctest', args: ['--test-dir', NATIVE_DIR, '--output-on-failure', '--no-tests=error', '-j', '2'],
    counts: ctestCounts,
  },
  {
    name: 'C++ tests, wasm under Node (ctest)',
    cmd: 'ctest', args: ['--test-dir', WASM_DIR, '--output-on-failure', '--no-tests=error', '-j', '2'],
    counts: ctestCounts,
  },
  {
    name: 'Vitest (tests/wasm in Node, tests/web in Chromium)',
    cmd: join(ROOT, 'node_modules', '.bin', 'vitest'), args: ['run', '--config', join(ROOT, 'tests', 'vitest.config.js'), ...process.argv.slice(2)],
    counts: vitestCounts,
  },
];

const seconds = (t0) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

main(async () => {
  const t0 = performance.now();
  await ensureDebianPackages(TEST_PACKAGES);
  await ensureNodeModules();
  try {
    await buildNative();
    await buildWasm();
    await buildWidgets(); // dist/attention-playground.js: the embed, CSP and npm-pack tests use it
  } catch (err) {
    if (err instanceof StepError) err.message = `build failed, no tests were run: ${err.message}`;
    throw err;
  }
  console.log(`\nset-up and builds took ${seconds(t0)}`);

  // Run every suite even if an earlier one fails, so one run shows every failure.
  const results = [];
  for (const suite of suites) {
    step(suite.name);
    const t = performance.now();
    const { code, output } = await run(suite.cmd, suite.args, { capture: true });
    const counts = suite.counts(output) ?? { passed: 0, failed: 0, skipped: 0 };
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
  if (!allOk) process.exitCode = 1;
});
