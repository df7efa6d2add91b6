// The ES-module wrapper: turns the raw embind interface (wasm/bindings.cpp) into idiomatic JS.
// One module per page: load() returns the same promise to every caller. Every C++ failure
// becomes a JS Error with the core's message; arrays are copied in and out, so no caller
// ever holds a view that memory growth could silently kill (see withView for zero-copy).
//
// The parts live in lib/: load.js (load, loadTrainer), relaxed.js (the relaxed-SIMD side module),
// playground.js (AttentionPlayground), checks.js and config.js (marshalling), trace.js, model.js
// (Model, Tokenizer), presets.js, kernels.js, costs.js, trainer.js, rnn-attention.js.
export { load, loadTrainer, threadPlan } from './lib/load.js';
