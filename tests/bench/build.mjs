// Builds everything the benchmark runs into build/bench/, straight from the project's sources with
// different flags (no CMake: the variants are not shipped builds):
//   kernels_relaxed.wasm          clang-16 + wasm-ld-16, -mrelaxed-simd (cpp/kernels/relaxed_module.cpp)
//   kernels_simd128_clang16.wasm  the same recipe without relaxed SIMD
//   bench_simd128.{mjs,wasm}      em++ -msimd128: core + kernels (what the shipped core runs)
//   bench_scalar.{mjs,wasm}       em++ without SIMD, -DAP_KERNELS_SCALAR: the kernels' scalar lanes
//   bench_eigen.{mjs,wasm}        em++ -msimd128: core with plain Eigen in place of the kernels
//   native_eigen_march_native     g++ -O3 -march=native, Eigen (AVX-512 on this machine)
//   native_eigen_sse42            g++ -O3 -msse4.2 -mno-avx (no AVX: the vector width of wasm SIMD), Eigen
//   native_kernels_sse            g++ -O3 -msse4.2 -mno-avx, this project's kernels (their SSE2 lanes)
//   native_gpt2                   g++ -O3: the whole core and the GPT-2 runner (native/bench_gpt2.cpp)
//   native_gpt2_march_native      the same with -march=native (Eigen's AVX-512 GEMM on this machine)
// Objects are cached with their header dependencies (-MMD), so a second run only links what changed.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const OUT = join(ROOT, 'build', 'bench');
const JOBS = 2; // two shared cores

const EMSCRIPTEN_ENV = { ...process.env, NODE_PATH: '/usr/share/nodejs' };
const CLANG16_WASM = ['--target=wasm32-unknown-emscripten', '--sysroot=/usr/share/emscripten/cache/sysroot'];

const files = (dir) =>
  readdirSync(join(ROOT, dir))
    .filter((f) => f.endsWith('.cpp'))
    .sort()
    .map((f) => join(dir, f));

function run(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${cmd} ${args.join(' ')}\nfailed (exit ${code}):\n${output}`));
    });
  });
}

const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : -Infinity);

// True when `target` is older than any of `inputs` (or missing).
function stale(target, inputs) {
  const t = mtime(target);
  return inputs.some((i) => mtime(i) > t);
}

// The sources and headers an object depends on, from its .d file (make syntax).
function depsOf(obj) {
  const d = obj.replace(/\.o$/, '.d');
  if (!existsSync(d)) return null;
  const text = readFileSync(d, 'utf8').replace(/\\\n/g, ' ');
  const colon = text.indexOf(': ');
  return text
    .slice(colon + 2)
    .split(/\s+/)
    .filter(Boolean)
    .map((p) => (p.startsWith('/') ? p : join(ROOT, p)));
}

// Compiles sources to objects, at most JOBS at a time. The object folder is named by the compiler
// and a hash of the flags, so builds that share flags (the core in bench_simd128 and bench_eigen)
// compile each file once.
async function compileAll(name, compiler, flags, sources, env) {
  const key = createHash('sha1')
    .update([compiler, ...flags].join(' '))
    .digest('hex')
    .slice(0, 10);
  const dir = join(OUT, 'obj', `${compiler}-${key}`);
  mkdirSync(dir, { recursive: true });
  const objects = sources.map((s) => join(dir, `${basename(dirname(s))}_${basename(s, '.cpp')}.o`));
  const todo = sources
    .map((s, i) => [s, objects[i]])
    .filter(([s, o]) => {
      const deps = depsOf(o);
      return !deps || stale(o, [join(ROOT, s), ...deps]);
    });
  if (todo.length) console.log(`  ${name}: compiling ${todo.length} file(s) with ${compiler}`);
  const queue = [...todo];
  const worker = async () => {
    while (queue.length) {
      const [src, obj] = queue.shift();
      await run(compiler, [...flags, '-MMD', '-c', src, '-o', relative(ROOT, obj)], env);
    }
  };
  await Promise.all(Array.from({ length: JOBS }, worker));
  return objects;
}

async function link(target, objects, cmd, args, env) {
  if (!stale(target, [...objects, fileURLToPath(import.meta.url)])) return;
  console.log(`  linking ${relative(ROOT, target)}`);
  await run(cmd, args, env);
}

// nlohmann/json is header-only at /usr/include/nlohmann; em++ must not see the rest of /usr/include.
function jsonInclude() {
  const dir = join(OUT, 'json-include');
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'nlohmann'))) symlinkSync('/usr/include/nlohmann', join(dir, 'nlohmann'));
  return dir;
}

async function buildStandalone(name, extraFlags) {
  const flags = [
    ...CLANG16_WASM,
    '-std=c++17',
    '-O3',
    '-DNDEBUG',
    '-msimd128',
    ...extraFlags,
    '-fPIC',
    '-fno-exceptions',
    '-fno-builtin',
    '-DAP_RELAXED_MODULE',
    '-Icpp',
  ];
  const sources = ['cpp/kernels/gemm_tiled.cpp', 'cpp/kernels/attention.cpp', 'cpp/kernels/relaxed_module.cpp'];
  const objects = await compileAll(name, 'clang++-16', flags, sources);
  const target = join(OUT, `${name}.wasm`);
  await link(target, objects, 'wasm-ld-16', [
    '--experimental-pic',
    '-shared',
    '--no-entry',
    '-O2',
    ...objects,
    '-o',
    target,
  ]);
}

async function buildEmscripten(name, { simd, defines = [], kernels }) {
  const common = ['-std=c++17', '-O3', '-DNDEBUG', '-fexceptions', '-DEIGEN_MPL2_ONLY', ...(simd ? ['-msimd128'] : [])];
  const flags = [...common, ...defines, '-Icpp', '-I/usr/include/eigen3', '-isystem', relative(ROOT, jsonInclude())];
  const model = !defines.includes('-DAP_BENCH_NO_MODEL');
  const sources = [
    // The Eigen build keeps the project's F16 conversion (convert.cpp: not a product, and what the
    // loaders need) beside the Eigen kernel API.
    ...(kernels === 'eigen' ? ['tests/bench/wasm/eigen_kernels.cpp', 'cpp/kernels/convert.cpp'] : files('cpp/kernels')),
    ...(model ? [...files('cpp/core'), ...files('cpp/trace'), ...files('cpp/io')] : []),
    'tests/bench/wasm/bench_entry.cpp',
  ];
  const objects = await compileAll(name, 'em++', flags, sources, EMSCRIPTEN_ENV);
  const target = join(OUT, `${name}.mjs`);
  // The same --pre-js as ap_core: in Node only, `require`, `__dirname` and the .wasm beside the glue.
  const pre = join(ROOT, 'wasm/node-pre.js');
  await link(
    target,
    [...objects, pre],
    'em++',
    [
      ...common,
      ...objects,
      '-sALLOW_MEMORY_GROWTH=1',
      '-sMAXIMUM_MEMORY=4GB',
      '-sINITIAL_MEMORY=16777216',
      '-sTOTAL_STACK=1048576',
      '-sMODULARIZE=1',
      '-sEXPORT_ES6=1',
      '-sEXPORT_NAME=createBench',
      '-sENVIRONMENT=web,node',
      '-sEXPORTED_FUNCTIONS=_malloc,_free',
      '-sEXPORTED_RUNTIME_METHODS=HEAPU8,UTF8ToString',
      '--pre-js',
      pre,
      '-o',
      target,
    ],
    EMSCRIPTEN_ENV,
  );
}

// The whole core natively (for the GPT-2 runner): kernels, core, trace, io and the runner, g++ -O3
// with the default x86-64 flags, as the project's Release build compiles them.
async function buildNativeCore(name, { flags = [], runner }) {
  const common = ['-std=c++17', '-O3', '-DNDEBUG', '-DEIGEN_MPL2_ONLY', ...flags, '-Icpp', '-I/usr/include/eigen3'];
  const sources = [...files('cpp/kernels'), ...files('cpp/core'), ...files('cpp/trace'), ...files('cpp/io'), runner];
  const objects = await compileAll(name, 'g++', common, sources);
  const target = join(OUT, name);
  await link(target, objects, 'g++', [...common, ...objects, '-o', target]);
}

async function buildNative(name, { flags, kernels }) {
  const common = ['-std=c++17', '-O3', '-DNDEBUG', '-DEIGEN_MPL2_ONLY', ...flags, '-Icpp', '-I/usr/include/eigen3'];
  const sources = [...(kernels ? files('cpp/kernels') : []), 'tests/bench/native/bench_native.cpp'];
  const objects = await compileAll(name, 'g++', [...common, ...(kernels ? ['-DAP_BENCH_KERNELS'] : [])], sources);
  const target = join(OUT, name);
  await link(target, objects, 'g++', [...common, ...objects, '-o', target]);
}

// Builds every target; returns { name: error message } for the ones that failed (the benchmark
// then runs without them and says so).
export async function buildAll({ log = console.log, only = null } = {}) {
  mkdirSync(OUT, { recursive: true });
  const failed = {};
  const steps = {
    kernels_relaxed: () => buildStandalone('kernels_relaxed', ['-mrelaxed-simd']),
    kernels_simd128_clang16: () => buildStandalone('kernels_simd128_clang16', []),
    bench_simd128: () => buildEmscripten('bench_simd128', { simd: true, kernels: 'project' }),
    bench_scalar: () =>
      buildEmscripten('bench_scalar', {
        simd: false,
        kernels: 'project',
        defines: ['-DAP_KERNELS_SCALAR', '-DAP_BENCH_NO_MODEL'],
      }),
    bench_eigen: () => buildEmscripten('bench_eigen', { simd: true, kernels: 'eigen' }),
    native_eigen_march_native: () =>
      buildNative('native_eigen_march_native', { flags: ['-march=native'], kernels: false }),
    native_eigen_sse42: () => buildNative('native_eigen_sse42', { flags: ['-msse4.2', '-mno-avx'], kernels: false }),
    native_kernels_sse: () => buildNative('native_kernels_sse', { flags: ['-msse4.2', '-mno-avx'], kernels: true }),
    native_gpt2: () => buildNativeCore('native_gpt2', { runner: 'tests/bench/native/bench_gpt2.cpp' }),
    native_gpt2_march_native: () =>
      buildNativeCore('native_gpt2_march_native', {
        flags: ['-march=native'],
        runner: 'tests/bench/native/bench_gpt2.cpp',
      }),
  };
  for (const [name, fn] of Object.entries(steps)) {
    if (only && !only.includes(name)) continue;
    const t0 = Date.now();
    try {
      await fn();
      log(`  ${name}: ok (${((Date.now() - t0) / 1e3).toFixed(1)} s)`);
    } catch (err) {
      failed[name] = err.message.split('\n').slice(0, 12).join('\n');
      log(`  ${name}: FAILED\n${failed[name]}`);
    }
  }
  return failed;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const failed = await buildAll();
  process.exitCode = Object.keys(failed).length ? 1 : 0;
}
