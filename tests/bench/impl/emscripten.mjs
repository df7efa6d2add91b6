// This project compiled by em++ (emscripten 3.1.6, as the shipped core is): one of
// build/bench/bench_{simd128,scalar,eigen}.mjs from wasm/bench_entry.cpp. Inputs live in the wasm
// heap for the whole case; a timed call is the kernel call alone (attention) or one traced forward
// pass (model), as ap.kernels.attention and model.forward run them minus the copies in and out.
import { attentionInputs, checksum, timeReps, rng } from '../cases.mjs';

export async function create(env, { file, cases = ['attn', 'long', 'model'] }) {
  const factory = (await env.importModule(`build/bench/${file}.mjs`)).default;
  const M = await factory();
  const variant = M.UTF8ToString(M._bench_variant());
  const heap = () => M.HEAPU8.buffer; // re-read: memory growth replaces the buffer
  const put = (array) => {
    const p = M._malloc(array.byteLength);
    if (!p) throw new Error('out of wasm memory');
    new Uint8Array(heap(), p, array.byteLength).set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    return p;
  };

  const models = new Map(); // one model per config, created once
  let state = null;
  const call = () => {
    const s = state;
    if (s.c.kind === 'model') return M._bench_model_forward(s.model, s.pids, s.c.n);
    M._bench_attention(s.po, s.pq, s.pk, s.pv, s.c.n, s.c.n, s.c.dK, s.c.h, s.c.causal ? 1 : 0);
    return 0;
  };
  const freeCase = () => {
    if (!state) return;
    for (const p of [state.pq, state.pk, state.pv, state.po, state.pids]) if (p) M._free(p);
    state = null;
  };
  return {
    info: { variant: `${variant} (em++ ${file.replace('bench_', '')} build)` },
    supports(c) {
      return cases.includes(c.kind) ? true : `not run for ${c.kind} cases`;
    },
    prepare(c) {
      freeCase();
      if (c.kind === 'model') {
        const key = JSON.stringify(c, ['dModel', 'nHeads', 'nLayers', 'dFf', 'maxLen', 'seed']);
        if (!models.has(key)) {
          const m = M._bench_model_create(c.dModel, c.nHeads, c.nLayers, c.dFf, c.maxLen, c.seed);
          if (!m) throw new Error('bench_model_create failed');
          models.set(key, m);
        }
        const model = models.get(key);
        const vocab = M._bench_model_vocab(model);
        const next = rng(7);
        const ids = Int32Array.from({ length: c.n }, () => 4 + (next() % (vocab - 4)));
        state = { c, model, pids: put(ids) };
        const sum = call();
        if (Number.isNaN(sum)) throw new Error('model forward failed');
        return { checksum: { sum, abs: M._bench_model_last_abs() } };
      }
      const { q, k, v } = attentionInputs(c);
      state = { c, pq: put(q), pk: put(k), pv: put(v), po: put(new Float32Array(q.length)), size: q.length };
      if (c.kind === 'long') return { checksum: null }; // one call is the measurement
      call();
      return { checksum: checksum(new Float32Array(heap(), state.po, state.size)) };
    },
    run(reps) {
      const before = heap().byteLength;
      const seconds = timeReps(call, reps);
      const result = { seconds, memBefore: before, memAfter: heap().byteLength };
      if (state.c.kind === 'long') result.checksum = checksum(new Float32Array(heap(), state.po, state.size));
      return result;
    },
    release: freeCase,
  };
}
