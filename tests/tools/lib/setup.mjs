// The steps `npm start`, `npm test` and `npm run build` share: Debian packages, npm
// dependencies, the native and wasm CMake builds. Node builtins only, because this runs
// before node_modules exists. Each step is skipped quickly when there is nothing to do.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const NATIVE_DIR = 'build/native';
export const WASM_DIR = 'build/wasm';
// The threaded module (wasm/build/ap_mt.*): the same sources compiled with -pthread, a tree of its own.
export const WASM_MT_DIR = 'build/wasm-mt';
const JOBS = '2'; // the machines this runs on have two shared cores

// Everything the C++ and wasm builds need; chromium only for the browser tests.
export const BUILD_PACKAGES = [
  'cmake',
  'g++',
  'emscripten',
  'libeigen3-dev',
  'libgtest-dev',
  'nlohmann-json3-dev',
  'clang-16',
  'lld-16',
];
// pandoc builds examples/pandoc (a Markdown lesson with a raw HTML block) in the integration tests.
export const TEST_PACKAGES = [...BUILD_PACKAGES, 'chromium', 'clang-format', 'pandoc'];

// Debian's emscripten 3.1.6 finds its JS optimizer's dependencies (acorn) only through NODE_PATH.
const EMSCRIPTEN_ENV = { ...process.env, NODE_PATH: '/usr/share/nodejs' };

export function step(title) {
  console.log(`\n==> ${title}`);
}

export class StepError extends Error {}

// Runs a command with its output shown live. With `capture`, also returns the output text
// (so test counts can be read from it). Resolves to { code, output }; never rejects on exit code.
export function run(cmd, args, { env, capture = false } = {}) {
  console.log(`$ ${[cmd, ...args].join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: ROOT,
      env: env ?? process.env,
      stdio: capture ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
    });
    let output = '';
    if (capture) {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        process.stdout.write(chunk);
      });
      child.stderr.on('data', (chunk) => {
        output += chunk;
        process.stderr.write(chunk);
      });
    }
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

// Runs a command without showing its output (unless `show`), in `cwd`, with `env` added to this
// process's environment (an undefined value removes a variable). Resolves to { stdout, output }
// (output: stdout and stderr as they came); rejects with the output when the command fails.
export function runQuiet(cmd, args, { cwd = ROOT, env = {}, show = false } = {}) {
  const merged = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete merged[k];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let output = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      output += chunk;
      if (show) process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
      if (show) process.stderr.write(chunk);
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve({ stdout, output })
        : reject(new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited with ${code}:\n${output}`)),
    );
  });
}

async function mustRun(cmd, args, opts) {
  const { code } = await run(cmd, args, opts);
  if (code !== 0) throw new StepError(`\`${cmd} ${args.join(' ')}\` failed (exit code ${code})`);
}

// ---- (a) Debian packages --------------------------------------------------------------

function missingPackages(pkgs) {
  // One dpkg-query for all of them: unknown packages go to stderr and are simply absent.
  const r = spawnSync('dpkg-query', ['-W', '-f=${Package} ${Status}\\n', ...pkgs], { encoding: 'utf8' });
  if (r.error) throw new StepError(`cannot run dpkg-query (${r.error.message}): this needs a Debian system`);
  const installed = new Set(
    r.stdout
      .split('\n')
      .filter((line) => line.endsWith(' install ok installed'))
      .map((line) => line.split(' ')[0]),
  );
  return pkgs.filter((p) => !installed.has(p));
}

function aptListsPresent() {
  try {
    return spawnSync('sh', ['-c', 'ls /var/lib/apt/lists/*_Packages* >/dev/null 2>&1']).status === 0;
  } catch {
    return false;
  }
}

export async function ensureDebianPackages(pkgs) {
  step('Debian packages');
  const missing = missingPackages(pkgs);
  if (missing.length === 0) {
    console.log(`all present: ${pkgs.join(' ')}`);
    return;
  }
  const install = `apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) {
    throw new StepError(
      `missing Debian packages: ${missing.join(' ')}\n` +
        `Install them with:\n\n    sudo apt-get update && sudo ${install}\n\nthen run this command again.`,
    );
  }
  console.log(`missing: ${missing.join(' ')}; installing them (running as root)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Update the package lists only when there are none, or when installing from the old ones fails.
  if (!aptListsPresent()) await mustRun('apt-get', ['update'], { env });
  if ((await run('apt-get', ['install', '-y', ...missing], { env })).code !== 0) {
    await mustRun('apt-get', ['update'], { env });
    await mustRun('apt-get', ['install', '-y', ...missing], { env });
  }
  const still = missingPackages(pkgs);
  if (still.length) throw new StepError(`still missing after apt-get install: ${still.join(' ')}`);
}

// ---- (b) npm dependencies ---------------------------------------------------------------

function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : -Infinity;
}

export async function ensureNodeModules() {
  step('npm dependencies');
  // npm writes node_modules/.package-lock.json at the end of every install: if it is newer
  // than package.json and package-lock.json, node_modules matches them.
  const installed = mtime(join(ROOT, 'node_modules', '.package-lock.json'));
  const wanted = Math.max(mtime(join(ROOT, 'package-lock.json')), mtime(join(ROOT, 'package.json')));
  if (installed >= wanted) {
    console.log('node_modules is up to date');
    return;
  }
  const { code } = await run('npm', ['ci', '--no-audit', '--no-fund']);
  if (code !== 0) {
    throw new StepError('`npm ci` failed. If you edited package.json, run `npm install` to update package-lock.json.');
  }
}

// ---- (c) builds --------------------------------------------------------------------------

export async function buildNative() {
  step(`native build (${NATIVE_DIR})`);
  if (!existsSync(join(ROOT, NATIVE_DIR, 'CMakeCache.txt'))) {
    await mustRun('cmake', ['-S', '.', '-B', NATIVE_DIR, '-DCMAKE_BUILD_TYPE=Release']);
  }
  await mustRun('cmake', ['--build', NATIVE_DIR, '-j', JOBS]);
}

// target: 'ap_core' builds only the JS module (npm start, npm run build); undefined builds all.
export async function buildWasm({ target } = {}) {
  step(`wasm build (${WASM_DIR})${target ? `, target ${target}` : ''}`);
  if (!existsSync(join(ROOT, WASM_DIR, 'CMakeCache.txt'))) {
    await mustRun(
      'emcmake',
      [
        'cmake',
        '-S',
        '.',
        '-B',
        WASM_DIR,
        '-DCMAKE_BUILD_TYPE=Release',
        '-DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node',
      ],
      { env: EMSCRIPTEN_ENV },
    );
  }
  // The wasm tests are CommonJS .js glue that ctest runs with node; without this marker
  // Node would take them for ES modules because the repo's package.json says "type": "module".
  const marker = join(ROOT, WASM_DIR, 'package.json');
  if (!existsSync(marker)) {
    mkdirSync(dirname(marker), { recursive: true });
    writeFileSync(marker, '{ "type": "commonjs" }\n');
  }
  const targetArgs = target ? ['--target', target] : [];
  await mustRun('cmake', ['--build', WASM_DIR, '-j', JOBS, ...targetArgs], { env: EMSCRIPTEN_ENV });
  for (const file of [
    'wasm/build/ap_core.mjs',
    'wasm/build/ap_core.wasm',
    'wasm/build/ap_train.mjs',
    'wasm/build/ap_train.wasm',
  ]) {
    if (!existsSync(join(ROOT, file))) throw new StepError(`the wasm build did not produce ${file}`);
  }
  await buildWasmThreads();
}

// The threaded module (issue 27): build/wasm-mt configured with -DAP_PTHREADS=ON, target ap_mt.
// Like the other builds, make does nothing when nothing changed.
export async function buildWasmThreads() {
  step(`wasm build with threads (${WASM_MT_DIR}), target ap_mt`);
  if (!existsSync(join(ROOT, WASM_MT_DIR, 'CMakeCache.txt'))) {
    await mustRun(
      'emcmake',
      ['cmake', '-S', '.', '-B', WASM_MT_DIR, '-DCMAKE_BUILD_TYPE=Release', '-DAP_PTHREADS=ON'],
      { env: EMSCRIPTEN_ENV },
    );
  }
  await mustRun('cmake', ['--build', WASM_MT_DIR, '-j', JOBS, '--target', 'ap_mt'], { env: EMSCRIPTEN_ENV });
  for (const file of ['ap_mt.mjs', 'ap_mt.wasm', 'ap_mt.worker.js', 'package.json'].map((f) => `wasm/build/${f}`)) {
    if (!existsSync(join(ROOT, file))) throw new StepError(`the threaded wasm build did not produce ${file}`);
  }
}

// What `npm start`, `npm run build` and `npm run examples` do first: the Debian build packages,
// node_modules, then the wasm JS module (target ap_core, which depends on ap_train: both modules),
// then the threaded module.
export async function prepareWasmModule() {
  await ensureDebianPackages(BUILD_PACKAGES);
  await ensureNodeModules();
  await buildWasm({ target: 'ap_core' });
}

// The widget bundle (dist/attention-playground.js and dist/attention-playground/, plus embed.html,
// embed.js and the .d.ts): rebuilt only when a source under web/ or the wasm module is newer.
export async function buildWidgets({ force = false } = {}) {
  step('widget bundle (dist/attention-playground.js)');
  const out = join(ROOT, 'dist', 'attention-playground.js');
  const newest = (dir) => {
    let t = -Infinity;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, entry.name);
      if (entry.isDirectory()) t = Math.max(t, newest(p));
      else t = Math.max(t, statSync(p).mtimeMs);
    }
    return t;
  };
  const sources = Math.max(
    newest(join(ROOT, 'web')),
    mtime(join(ROOT, 'wasm', 'index.js')),
    ...['ap_core.wasm', 'ap_train.wasm', 'ap_mt.wasm', 'kernels_relaxed.wasm'].map((f) =>
      mtime(join(ROOT, 'wasm', 'build', f)),
    ),
    mtime(join(ROOT, 'package-lock.json')),
  );
  if (!force && mtime(out) >= sources) {
    console.log('dist/attention-playground.js is up to date');
    return;
  }
  // A fresh dist/attention-playground/ (no stale hashed files), the page's files left alone.
  rmSync(join(ROOT, 'dist', 'attention-playground'), { recursive: true, force: true });
  const { build } = await import('vite');
  await build({ configFile: join(ROOT, 'web', 'vite.widgets.config.js') });
  if (!existsSync(out)) throw new StepError('the widget build did not produce dist/attention-playground.js');
}

// Vite 8 needs Node 20.19 or newer (it loads ES modules with require()).
function checkNode() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 19)) {
    throw new StepError(`Node ${process.versions.node} is too old: this project needs Node 20.19 or newer.`);
  }
}

// Runs main() and turns a StepError into a clear message and exit code 1.
export async function main(fn) {
  try {
    checkNode();
    await fn();
  } catch (err) {
    if (err instanceof StepError) {
      console.error(`\nError: ${err.message}`);
    } else {
      console.error(err);
    }
    process.exitCode = 1;
  }
}
