// `npm run format`: the project's formatters, applied to every file they own. `--check` (run by
// `npm test`) changes nothing and fails listing each file that is not formatted.
// JS: Prettier (.prettierrc.json, .prettierignore). C++: clang-format (.clang-format; Debian's 14).
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const check = process.argv.includes('--check');

/** Files git tracks (and untracked ones it does not ignore) matching the pathspecs. */
function files(...specs) {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...specs], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return out.split('\n').filter(Boolean);
}

const cpp = files('*.cpp', '*.hpp');
const js = files('*.js', '*.mjs', '*.cjs');
let failed = false;

// clang-format: --dry-run --Werror prints each place that differs and exits non-zero.
const clang = spawnSync('clang-format', [check ? '--dry-run' : '-i', '--Werror', '-style=file', ...cpp], {
  cwd: ROOT,
  encoding: 'utf8',
});
if (clang.error) {
  console.error(`clang-format could not run (${clang.error.message}); install Debian's clang-format`);
  failed = true;
} else if (clang.status !== 0) {
  const bad = [...new Set([...clang.stderr.matchAll(/^([^:\s]+\.[ch]pp):\d+:\d+: /gm)].map((m) => m[1]))];
  console.error(`clang-format: ${bad.length} C++ file(s) not formatted (npm run format fixes them):`);
  for (const f of bad) console.error(`  ${f}`);
  failed = true;
}

// Prettier honours .prettierignore (builds, generated and data files).
const prettier = spawnSync(
  join(ROOT, 'node_modules', '.bin', 'prettier'),
  check ? ['--list-different', ...js] : ['--write', '--log-level', 'warn', ...js],
  { cwd: ROOT, encoding: 'utf8' },
);
if (prettier.error) {
  console.error(`prettier could not run (${prettier.error.message})`);
  failed = true;
} else if (check && prettier.status !== 0) {
  const bad = prettier.stdout.split('\n').filter(Boolean);
  console.error(`prettier: ${bad.length} JS file(s) not formatted (npm run format fixes them):`);
  for (const f of bad) console.error(`  ${f}`);
  if (prettier.stderr) console.error(prettier.stderr);
  failed = true;
} else if (prettier.status !== 0) {
  console.error(prettier.stderr);
  failed = true;
}

const summary = `${cpp.length} C++ and ${js.length} JS files`;
if (failed) {
  console.error(check ? `format check failed (${summary} checked)` : 'formatting failed');
  process.exit(1);
}
console.log(check ? `formatted: ${summary} checked` : `formatted ${summary}`);
