// The JS-hosted implementations the benchmark runs (in Node and in Chromium), by name. Native
// runners are separate executables (build.mjs); the driver (tests/tools/bench.mjs) knows both.
export const IMPLS = {
  'ours-relaxed': { module: './standalone.mjs', options: { file: 'kernels_relaxed.wasm' } },
  'ours-simd128': { module: './emscripten.mjs', options: { file: 'bench_simd128' } },
  'ours-simd128-clang16': { module: './standalone.mjs', options: { file: 'kernels_simd128_clang16.wasm' } },
  'ours-scalar': { module: './emscripten.mjs', options: { file: 'bench_scalar', cases: ['attn'] } },
  'eigen-wasm': { module: './emscripten.mjs', options: { file: 'bench_eigen', cases: ['attn', 'model'] } },
  'tfjs-wasm': { module: './tfjs.mjs', options: {} },
  'onnx-wasm': { module: './onnx.mjs', options: {} },
  'plain-js': { module: './plain-js.mjs', options: {} },
  'ours-api': { module: './api.mjs', options: {} },
  'gpt2-ours': { module: './gpt2-ours.mjs', options: {} },
  'gpt2-onnx': { module: './gpt2-onnx.mjs', options: {} },
  'train-ours': { module: './train-ours.mjs', options: {} },
  'train-tfjs': { module: './train-tfjs.mjs', options: { linear: 'tuned' } },
  'train-tfjs-plain': { module: './train-tfjs.mjs', options: { linear: 'plain' } },
};

// extra: what the driver asks of this runner beyond its name: { threads } (1 unless asked; the
// implementations that can run threaded read it, and fail with the reason where they cannot).
export async function createImpl(name, env, extra = {}) {
  const spec = IMPLS[name];
  if (!spec) throw new Error(`unknown implementation '${name}'`);
  const mod = await import(spec.module);
  return mod.create(env, { ...spec.options, threads: 1, ...extra });
}
