// `npm run bench`: the benchmark of the attention kernels against their peers.
// Not written yet (see the issue on WASM SIMD kernels); this placeholder says so.
console.error('npm run bench: the benchmark is not written yet.');
process.exitCode = 1;
