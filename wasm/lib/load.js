// Loading: one module per page (load) and the trainer module on first use (loadTrainer), each
// with its own memory, wrapped in an AttentionPlayground.
import createApCore from '../build/ap_core.mjs';
import { AttentionPlayground } from './playground.js';
import { useRelaxedKernels } from './relaxed.js';

let modulePromise = null;
let trainerPromise = null;

// One module: our own memory (so the relaxed-SIMD side module can import the same one; 16 MiB,
// grows to 2 GiB, or 4 GiB for the second module, which holds pretrained models), then the
// relaxed kernels where the runtime has them.
function instantiate(create, options, what, maxPages = 32768) {
  const { relaxed = true, ...moduleOptions } = options;
  const wasmMemory = new WebAssembly.Memory({ initial: 256, maximum: maxPages });
  return create({ ...moduleOptions, wasmMemory })
    .then(async (raw) => {
      if (relaxed) await useRelaxedKernels(raw, wasmMemory);
      return new AttentionPlayground(raw, { relaxed, loadTrainer });
    })
    .catch((err) => {
      throw new Error(`attention-playground: could not load the ${what}: ${err && err.message ? err.message : err}`);
    });
}

/**
 * Loads the wasm module once; later calls return the same instance. Where the runtime supports
 * relaxed SIMD (Chromium; Node only behind --experimental-wasm-relaxed-simd) the kernels switch to
 * the fused-multiply-add build; anything missing or failing leaves the SIMD128 kernels in place.
 * options.relaxed = false keeps SIMD128 (for comparisons).
 * This module has no trainer: createTrainer() and evaluateTask() fetch the second one (loadTrainer)
 * the first time they are called.
 */
export function load(options = {}) {
  if (!modulePromise) {
    modulePromise = instantiate(createApCore, options, 'wasm module').catch((err) => {
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
 * behind the scenes and hand models across as safetensors bytes.
 */
export function loadTrainer(options = {}) {
  if (!trainerPromise) {
    trainerPromise = import('../build/ap_train.mjs')
      .then(({ default: createApTrain }) => instantiate(createApTrain, options, 'trainer module', 65536))
      .catch((err) => {
        trainerPromise = null;
        throw err;
      });
  }
  return trainerPromise;
}
