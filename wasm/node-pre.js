// Prepended to the emscripten ES6 glue (--pre-js). emscripten 3.1.6's ES6 output expects
// CommonJS `require` and `__dirname` under Node, and Node 20's fetch cannot read a file path:
// in Node only, provide both and hand the glue the .wasm bytes (the file beside the glue). Browsers skip this block.
// (`_scriptDir` is the glue's own import.meta.url, set by emscripten's ES6 wrapper; this
// version's minifier cannot parse import.meta inside a --pre-js.)
// Module workers have no importScripts, which this glue uses to recognise a worker: give it a
// stub there so the module loads in `new Worker(url, { type: 'module' })` too (it never calls it).
var importScripts =
  typeof globalThis.importScripts === 'function'
    ? globalThis.importScripts
    : typeof WorkerGlobalScope !== 'undefined' && globalThis instanceof WorkerGlobalScope
      ? function () {
          throw new Error('importScripts is not available in a module worker');
        }
      : undefined;
if (
  typeof process === 'object' &&
  process.versions &&
  process.versions.node &&
  typeof window === 'undefined' &&
  typeof WorkerGlobalScope === 'undefined'
) {
  var require = process.getBuiltinModule('module').createRequire(_scriptDir);
  var __dirname = require('path').dirname(require('url').fileURLToPath(_scriptDir));
  if (!Module['wasmBinary'] && !Module['wasmModule']) {
    // (a pthread of the threaded module is handed the compiled module instead)
    // ap_core.mjs reads ap_core.wasm, ap_train.mjs reads ap_train.wasm: the glue's own name.
    Module['wasmBinary'] = require('fs').readFileSync(
      require('url')
        .fileURLToPath(_scriptDir)
        .replace(/\.mjs$/, '.wasm'),
    );
  }
}
