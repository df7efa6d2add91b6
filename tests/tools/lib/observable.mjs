// Builds examples/observable (an Observable Framework project) the way an instructor would with
// the published package, offline:
//   1. the project: examples/observable copied into build/examples/observable-project/;
//   2. `npm install attention-playground`: this repository packed with `npm pack` (the files the
//      registry would hold; --ignore-scripts because the widget bundle is built already) and the
//      tarball unpacked into the project's node_modules/attention-playground (the package has no
//      dependencies, so that is all `npm install` would do). @observablehq/framework and
//      @observablehq/plot, the project's other dependencies, are this repository's dev
//      dependencies: Node finds them by walking up from the project to /work/.../node_modules;
//   3. the project's `npm run build`: `node offline.mjs cache` (pins the versions Framework would
//      otherwise ask registry.npmjs.org for), `observable build` (Framework re-bundles the
//      package's JavaScript from node_modules with Rollup, no CDN; telemetry off), then
//      `node offline.mjs dist` (copies the widget bundle's wasm, models, fonts and worker beside
//      the re-bundled file);
//   4. the built site moved to build/examples/observable (out).
// Needs dist/attention-playground.js (`npm test` builds it; buildWidgets in setup.mjs).
import { cp, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, runQuiet } from './setup.mjs';

export const EXAMPLE = join(ROOT, 'examples', 'observable');
export const PROJECT = join(ROOT, 'build', 'examples', 'observable-project');
export const OUT = join(ROOT, 'build', 'examples', 'observable');
const FRAMEWORK_BIN = join(ROOT, 'node_modules', '@observablehq', 'framework', 'dist', 'bin', 'observable.js');

// npm quiet and Framework's telemetry (it would post to observablehq.com) off, for every command.
const ENV = {
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  OBSERVABLE_TELEMETRY_DISABLE: 'true',
  NO_COLOR: '1',
};
const exec = (cmd, args, { cwd = ROOT, quiet = true } = {}) => runQuiet(cmd, args, { cwd, env: ENV, show: !quiet });

/**
 * Builds the example site into `out` (default build/examples/observable). Returns
 * { out, project, seconds, log, version }: seconds is the whole build (pack, install, observable build,
 * asset copy), log what Framework printed.
 */
export async function buildObservable({ out = OUT, quiet = true } = {}) {
  if (!existsSync(join(ROOT, 'dist', 'attention-playground.js'))) {
    throw new Error('dist/attention-playground.js is missing: `npm test` builds it (or `npm run build -- --widgets`)');
  }
  const start = performance.now();
  await rm(PROJECT, { recursive: true, force: true });
  await mkdir(PROJECT, { recursive: true });
  for (const f of ['package.json', 'observablehq.config.js', 'offline.mjs', 'src'])
    await cp(join(EXAMPLE, f), join(PROJECT, f), { recursive: true });

  // `npm install attention-playground`, from this repository's own tarball.
  const packDir = await mkdtemp(join(tmpdir(), 'ap-observable-pack-'));
  try {
    const [{ filename }] = JSON.parse(
      (await exec('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], { cwd: ROOT })).stdout,
    );
    const pkg = join(PROJECT, 'node_modules', 'attention-playground');
    await mkdir(pkg, { recursive: true });
    await exec('tar', ['-xzf', join(packDir, filename), '-C', pkg, '--strip-components=1']);
  } finally {
    await rm(packDir, { recursive: true, force: true });
  }

  // The project's `npm run build` (its package.json): offline.mjs pins Framework's npm version
  // cache (no registry lookup) before the build and copies the widgets' files after it.
  await exec(process.execPath, ['offline.mjs', 'cache'], { cwd: PROJECT, quiet });
  const { output: log } = await exec(process.execPath, [FRAMEWORK_BIN, 'build'], { cwd: PROJECT, quiet });
  await exec(process.execPath, ['offline.mjs', 'dist'], { cwd: PROJECT, quiet });

  await rm(out, { recursive: true, force: true });
  await rename(join(PROJECT, 'dist'), out);
  const seconds = (performance.now() - start) / 1000;
  // The version the re-bundled package lives under in the site (_node/attention-playground@<version>/).
  const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  return { out, project: PROJECT, seconds, log, version };
}

// node tests/tools/lib/observable.mjs: build and print where and how long.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { out, seconds } = await buildObservable({ quiet: false });
  console.log(`\nObservable example built into ${out} in ${seconds.toFixed(1)} s`);
}
