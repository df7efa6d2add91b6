// `npm run sanitize`: build the native C++ tests with AddressSanitizer (+ LeakSanitizer) and
// UndefinedBehaviorSanitizer (CMake option AP_SANITIZE, g++ by default; CXX=clang++ works too)
// in build/sanitize, run them with ctest and print a clean / unclean verdict. Any sanitizer
// report aborts its test (UBSan is built with -fno-sanitize-recover), so a report is a failure.
// Arguments after `npm run sanitize --` go to ctest (for example `-R test_safetensors`).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, StepError, ensureDebianPackages, main, run, step } from './lib/setup.mjs';

const SANITIZE_DIR = 'build/sanitize';
const JOBS = '2';
// g++ brings its ASan/UBSan runtimes (libasan, libubsan) through libgcc-*-dev.
const SANITIZE_PACKAGES = ['cmake', 'g++', 'libeigen3-dev', 'libgtest-dev', 'nlohmann-json3-dev'];

const SANITIZER_ENV = {
  ...process.env,
  ASAN_OPTIONS:
    'detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1',
  UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
};

// eslint-disable-next-line no-control-regex -- ESC (\x1b) opens the ANSI colour codes this strips
const stripAnsi = (s) => s.replace(/\x1b\[[0-9;]*m/g, '');
const seconds = (t0) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

// The sanitizer reports in a run's output, one line each: "ERROR: AddressSanitizer: heap-buffer-overflow ...",
// "runtime error: signed integer overflow ...", "ERROR: LeakSanitizer: detected memory leaks".
function sanitizerReports(output) {
  return stripAnsi(output)
    .split('\n')
    .filter((l) =>
      /ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: (Address|Leak|UndefinedBehavior)Sanitizer/.test(l),
    )
    .map((l) => l.trim());
}

// ctest's failures: "  12 - test_model.Model.Forward (Failed)" after "The following tests FAILED:".
function failedTests(output) {
  const text = stripAnsi(output);
  const at = text.indexOf('The following tests FAILED:');
  if (at < 0) return [];
  return text
    .slice(at)
    .split('\n')
    .slice(1)
    .map((l) => l.match(/^\s*\d+\s+-\s+(\S+)\s+\((.+)\)/))
    .filter(Boolean)
    .map((m) => ({ name: m[1], why: m[2] }));
}

main(async () => {
  const t0 = performance.now();
  await ensureDebianPackages(SANITIZE_PACKAGES);

  step(`sanitizer build (${SANITIZE_DIR}: -DAP_SANITIZE=ON, ASan + UBSan)`);
  if (!existsSync(join(ROOT, SANITIZE_DIR, 'CMakeCache.txt'))) {
    const { code } = await run('cmake', [
      '-S',
      '.',
      '-B',
      SANITIZE_DIR,
      '-DAP_SANITIZE=ON',
      '-DAP_TESTS=ON',
      '-DCMAKE_BUILD_TYPE=RelWithDebInfo',
    ]);
    if (code !== 0) throw new StepError('cmake could not configure the sanitizer build');
  }
  // Keep going past a target that fails to compile, so every test that does build still runs;
  // the missing ones then fail in ctest and the verdict says so.
  const ninja = /CMAKE_GENERATOR:INTERNAL=Ninja/.test(readFileSync(join(ROOT, SANITIZE_DIR, 'CMakeCache.txt'), 'utf8'));
  const build = await run('cmake', ['--build', SANITIZE_DIR, '-j', JOBS, '--', ...(ninja ? ['-k', '0'] : ['-k'])]);
  if (build.code !== 0) console.log('\n(some targets failed to build: their tests will fail below)');

  step('C++ tests under ASan + UBSan (ctest)');
  const ctest = await run(
    'ctest',
    ['--test-dir', SANITIZE_DIR, '--output-on-failure', '--no-tests=error', '-j', JOBS, ...process.argv.slice(2)],
    { env: SANITIZER_ENV, capture: true },
  );
  const text = stripAnsi(ctest.output);
  const counts = text.match(/(\d+)% tests passed, (\d+) tests? failed out of (\d+)/);
  const total = counts ? Number(counts[3]) : 0,
    failed = counts ? Number(counts[2]) : NaN;
  const failures = failedTests(ctest.output);
  const reports = [...new Set(sanitizerReports(ctest.output))];

  step('Verdict');
  console.log(`${total - (failed || 0)} passed, ${failed} failed of ${total} tests (${seconds(t0)})`);
  if (build.code !== 0) console.log('the build had errors (see above)');
  for (const f of failures) console.log(`  FAILED ${f.name} (${f.why})`);
  if (reports.length) {
    console.log('sanitizer reports:');
    for (const r of reports.slice(0, 40)) console.log(`  ${r}`);
  }
  const clean = build.code === 0 && ctest.code === 0 && failed === 0 && reports.length === 0;
  console.log(
    clean
      ? '\nCLEAN: every C++ test passed under AddressSanitizer, LeakSanitizer and UBSan, with no reports'
      : '\nUNCLEAN: see the failures and sanitizer reports above',
  );
  if (!clean) process.exitCode = 1;
});
