// Loading: one module per page (load) and the trainer module on first use (loadTrainer), each
// with its own memory, wrapped in an AttentionPlayground. Where threads are allowed (Node, or a
// page that is cross-origin isolated) and more than one is wanted, the threaded module
// (build/ap_mt.mjs: the trainer module's API with a pool of Web Workers on shared memory) takes
// the place of the trainer module, and of the first one when load() is asked for threads.
import createApCore from '../build/ap_core.mjs';
import { AttentionPlayground } from './playground.js';
import { useRelaxedKernels } from './relaxed.js';

let modulePromise = null;
let trainerPromise = null;
let threadedPromise = null;

const isNode = typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';

/**
 * How many threads a module loaded with these options would use, and why: { threads, max,
 * allowed, reason }. max: the machine's logical cores (navigator.hardwareConcurrency, in Node
 * os.availableParallelism()). allowed: shared memory may be used here (Node, or a page with
 * crossOriginIsolated === true). options.threads (a positive integer) asks for a count, capped by
 * max; without it a cross-origin-isolated page uses max for the trainer module (loadTrainer) and
 * everything else one thread. The C++ pool clamps the count again (kernels/parallel.hpp).
 */
export function threadPlan(options = {}, { trainer = false } = {}) {
  const asked = options.threads;
  if (asked !== undefined && !(Number.isInteger(asked) && asked >= 1)) {
    throw new Error(`load: threads must be a positive integer (got ${String(asked)})`);
  }
  let max = 1;
  if (isNode) max = process.getBuiltinModule('os').availableParallelism?.() ?? 1;
  else if (typeof navigator === 'object' && navigator.hardwareConcurrency > 0) max = navigator.hardwareConcurrency;
  const shared = typeof SharedArrayBuffer === 'function' && typeof WebAssembly.Memory === 'function';
  const isolated = !isNode && globalThis.crossOriginIsolated === true;
  const allowed = shared && (isNode || isolated);
  const wanted = asked ?? (isolated && trainer ? max : 1);
  const threads = allowed ? Math.min(wanted, max) : 1;
  let reason;
  if (!allowed) reason = 'the page is not cross-origin isolated (no SharedArrayBuffer): one thread';
  else if (threads === 1) reason = wanted > 1 ? 'this machine has one core' : 'one thread asked for';
  else reason = `${threads} threads of ${max} cores${isNode ? '' : ' (cross-origin isolated)'}`;
  return { threads, max, allowed, reason };
}

// One module: our own memory (so the relaxed-SIMD side module can import the same one; 16 MiB,
// grows to 2 GiB, or 4 GiB for the second module, which holds pretrained models), then the
// relaxed kernels where the runtime has them.
function instantiate(create, options, what, maxPages = 32768, plan = threadPlan({})) {
  const { relaxed = true, threads: _threads, ...moduleOptions } = options;
  const wasmMemory = new WebAssembly.Memory({ initial: 256, maximum: maxPages });
  return create({ ...moduleOptions, wasmMemory })
    .then(async (raw) => {
      if (relaxed) await useRelaxedKernels(raw, wasmMemory);
      return new AttentionPlayground(raw, { relaxed, loadTrainer, plan });
    })
    .catch((err) => {
      throw new Error(`attention-playground: could not load the ${what}: ${err && err.message ? err.message : err}`);
    });
}

// The threaded module, once per page or process (the first plan's count stays): shared memory,
// threads - 1 Web Workers started with it, then the core's pool set to the count. It keeps the
// SIMD128 kernels: the relaxed side module's functions would exist on the main thread only.
// Never bundled (vite.widgets.config.js keeps it an external file beside its .wasm and .worker.js):
// the glue's pthread workers import it again by its own URL (import.meta.url).
function loadThreaded(options, plan) {
  threadedPromise ??= import('../build/ap_mt.mjs')
    .then(({ default: createApMt }) => {
      const { relaxed: _relaxed, threads: _threads, ...moduleOptions } = options;
      const wasmMemory = new WebAssembly.Memory({ initial: 256, maximum: 65536, shared: true });
      return createApMt({ ...moduleOptions, wasmMemory, apWorkers: plan.threads - 1 });
    })
    .then((raw) => {
      raw.setThreads(plan.threads);
      return new AttentionPlayground(raw, { relaxed: false, loadTrainer, plan });
    })
    .catch((err) => {
      threadedPromise = null;
      throw new Error(
        `attention-playground: could not load the threaded module: ${err && err.message ? err.message : err}`,
      );
    });
  return threadedPromise;
}

/**
 * Loads the wasm module once; later calls return the same instance. Where the runtime supports
 * relaxed SIMD (Chromium; Node only behind --experimental-wasm-relaxed-simd) the kernels switch to
 * the fused-multiply-add build; anything missing or failing leaves the SIMD128 kernels in place.
 * options.relaxed = false keeps SIMD128 (for comparisons).
 * options.threads = n (> 1) loads the threaded module instead where threads are allowed (see
 * threadPlan): the same numbers, the products and attention spread over n threads.
 * This module has no trainer: createTrainer() and evaluateTask() fetch the second one (loadTrainer)
 * the first time they are called.
 */
export function load(options = {}) {
  const plan = threadPlan(options);
  if (plan.threads > 1) return loadThreaded(options, plan);
  if (!modulePromise) {
    modulePromise = instantiate(createApCore, options, 'wasm module', undefined, plan).catch((err) => {
      modulePromise = null; // let a later call retry
      throw err;
    });
  }
  return modulePromise;
}

/**
 * The second module, loaded once on first use (build/ap_train.mjs + .wasm, ~1.2 MB): the same API
 * as load() plus the C++ trainer, with its own memory. A training Web Worker uses it alone (its
 * models, traces and trainers all live in it); load()'s createTrainer() and evaluateTask() use it
 * behind the scenes and hand models across as safetensors bytes. Where threads are allowed and
 * wanted (threadPlan: by default every core on a cross-origin-isolated page), the threaded module.
 */
export function loadTrainer(options = {}) {
  const plan = threadPlan(options, { trainer: true });
  if (plan.threads > 1) return loadThreaded(options, plan);
  if (!trainerPromise) {
    trainerPromise = import('../build/ap_train.mjs')
      .then(({ default: createApTrain }) => instantiate(createApTrain, options, 'trainer module', 65536, plan))
      .catch((err) => {
        trainerPromise = null;
        throw err;
      });
  }
  return trainerPromise;
}
