// The shipped module through its public JS API: ap.kernels.attention() of wasm/index.js on
// wasm/build/ap_core.{mjs,wasm} (made by `npm run build`, not by the benchmark). Each call copies
// Q, K, V into the heap, checks them for NaN/Infinity and copies the output back, so the gap to
// 'ours-simd128' is the price of the API. Run for n <= 1024, where that price can show.
import { attentionInputs, checksum, timeReps } from '../cases.mjs';

export async function create(env) {
  const { load } = await env.importModule('wasm/index.js');
  const ap = await load();
  let state = null;
  const call = () => {
    const { c, q, k, v } = state;
    return ap.kernels.attention({ q, k, v, n: c.n, dK: c.dK, nHeads: c.h, causal: c.causal });
  };
  return {
    info: { variant: `${ap.kernels.info().variant} (wasm/build/ap_core via ap.kernels.attention)` },
    supports(c) {
      if (c.kind !== 'attn') return 'attention only';
      return c.n <= 1024 ? true : 'n <= 1024 only';
    },
    prepare(c) {
      state = { c, ...attentionInputs(c) };
      return { checksum: checksum(call()) };
    },
    run(reps) {
      return { seconds: timeReps(call, reps) };
    },
    release() {
      state = null;
    },
  };
}
