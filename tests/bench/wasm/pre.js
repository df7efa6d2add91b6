// --pre-js of the benchmark's em++ modules (tests/bench/build.mjs), as wasm/node-pre.js does for
// ap_core: emscripten 3.1.6's ES6 glue needs `require` and `__dirname` in Node, and Node's fetch
// cannot read a file, so in Node only the glue is handed the .wasm beside it (same base name).
if (
  typeof process === 'object' &&
  process.versions &&
  process.versions.node &&
  typeof window === 'undefined' &&
  typeof importScripts !== 'function'
) {
  var require = process.getBuiltinModule('module').createRequire(_scriptDir);
  var __dirname = require('path').dirname(require('url').fileURLToPath(_scriptDir));
  if (!Module['wasmBinary']) {
    Module['wasmBinary'] = require('fs').readFileSync(
      require('url')
        .fileURLToPath(_scriptDir)
        .replace(/\.mjs$/, '.wasm'),
    );
  }
}
