// One benchmark implementation in its own Node process: `node node-runner.mjs <impl> [threads]`
// (threads: what the implementation is asked to use, 1 by default). Reads one
// JSON request per line on stdin ({ op: init | supports | prepare | run | release | quit }),
// answers one JSON line on stdout ({ ok, result } or { ok: false, error }). The driver
// (tests/tools/bench.mjs) speaks the same protocol to the native runners and the Chromium page.
import { existsSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createHandler, failure } from './protocol.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(join(ROOT, 'package.json'));

// How an implementation reaches files and peers in Node (page.mjs is the browser's version).
const env = {
  where: 'node',
  // Shared memory and workers: always in Node (whether a peer uses them is its own matter).
  threadsAllowed: true,
  // The process's resident memory in bytes, after a full garbage collection when the runner was
  // started with --expose-gc (the driver does so): what an opened model costs, measured the same
  // way for every implementation.
  residentBytes() {
    globalThis.gc?.();
    return process.memoryUsage().rss;
  },
  readBytes: async (rel) => new Uint8Array(await readFile(join(ROOT, rel))),
  importModule: (rel) => import(pathToFileURL(join(ROOT, rel)).href),
  async loadTfjs() {
    const tf = require('@tensorflow/tfjs-core');
    const wasm = require('@tensorflow/tfjs-backend-wasm'); // registers the 'wasm' backend
    return Object.assign(Object.create(tf), { wasm });
  },
  loadOrt: async () => import('onnxruntime-web'),
  // TF.js with its gradients, for the training race: the npm packages' Node entry (tf-core.node.js)
  // registers no gradient, and their ES modules use extensionless imports Node cannot resolve, so
  // tfjs-core's ES modules, its register_all_gradients and the wasm backend are bundled into one
  // module (build/bench/tfjs-train.mjs, esbuild, about 1 s) the first time.
  async loadTfjsTraining() {
    const out = join(ROOT, 'build', 'bench', 'tfjs-train.mjs');
    if (!existsSync(out)) {
      mkdirSync(dirname(out), { recursive: true });
      const { build } = require('esbuild');
      await build({
        stdin: {
          contents:
            "export * from '@tensorflow/tfjs-core';\n" +
            "import '@tensorflow/tfjs-core/dist/register_all_gradients';\n" +
            "export * as wasm from '@tensorflow/tfjs-backend-wasm';\n",
          resolveDir: ROOT,
          loader: 'js',
        },
        bundle: true,
        format: 'esm',
        platform: 'node',
        mainFields: ['module', 'main'], // one tfjs-core: the ES modules, for the backend too
        outfile: out,
        logLevel: 'warning',
        // The backend's Emscripten glue is CommonJS: give it require, __dirname and __filename.
        banner: {
          js:
            "import { createRequire as __cr } from 'node:module'; import { fileURLToPath as __fu } from 'node:url'; " +
            'const require = __cr(import.meta.url); const __filename = __fu(import.meta.url); ' +
            "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
        },
      });
    }
    const tf = await import(pathToFileURL(out).href);
    tf.wasm.setWasmPaths(join(ROOT, 'node_modules', '@tensorflow', 'tfjs-backend-wasm', 'dist') + '/');
    return tf;
  },
};

const [name, threadsArg = '1'] = process.argv.slice(2);
const threads = Number(threadsArg);
if (!(Number.isInteger(threads) && threads >= 1))
  throw new Error(`threads must be a positive integer (got ${threadsArg})`);
const reply = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
// Peers may log to stdout (tfjs prints a banner): only protocol lines go there.
console.log = console.info = console.warn = (...a) => process.stderr.write(`${a.join(' ')}\n`);

const handle = createHandler({
  name,
  env,
  engine: () => `Node ${process.versions.node} (V8 ${process.versions.v8})`,
  extra: { threads },
  async run(impl, reps) {
    // CPU time of this process (user + system) beside the wall time the implementation took:
    // on this shared machine the wall clock also counts the time other users' work held the core.
    const before = process.cpuUsage();
    const result = await impl.run(reps);
    const used = process.cpuUsage(before);
    result.cpuSeconds = (used.user + used.system) / 1e6;
    return result;
  },
});

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    reply(failure(err));
    continue;
  }
  if (msg.op === 'quit') process.exit(0);
  reply(await handle(msg));
}
