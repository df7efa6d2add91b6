// The shipped module through its public JS API: ap.kernels.attention() of wasm/index.js on
// wasm/build/ap_core.{mjs,wasm} (made by `npm run build`, not by the benchmark), or with
// options.threads > 1 the threaded module wasm/build/ap_mt (load({ threads }): the SIMD128 kernels
// with heads and query blocks spread over a pool of workers on shared memory). Each call copies
// Q, K, V into the heap, checks them for NaN/Infinity and copies the output back, so the gap to
// 'ours-simd128' is the price of the API.
import { attentionInputs, checksum, timeReps } from '../cases.mjs';

export async function create(env, { threads = 1 } = {}) {
  if (threads > 1 && !env.threadsAllowed)
    throw new Error('threads need a cross-origin-isolated page (SharedArrayBuffer): this one is not');
  const { load } = await env.importModule('wasm/index.js');
  const ap = await load(threads > 1 ? { threads } : {});
  const info = ap.kernels.info();
  // No silent fallback: a threaded runner that got fewer threads than asked measures something else.
  if (info.threads !== threads)
    throw new Error(`asked for ${threads} threads, the module runs ${info.threads} (${info.why})`);
  let state = null;
  const call = () => {
    const { c, q, k, v } = state;
    return ap.kernels.attention({ q, k, v, n: c.n, dK: c.dK, nHeads: c.h, causal: c.causal });
  };
  const module = threads > 1 ? `wasm/build/ap_mt, ${threads} threads` : 'wasm/build/ap_core, 1 thread';
  return {
    info: { variant: `${info.variant} (${module}, via ap.kernels.attention)`, threads },
    supports(c) {
      return c.kind === 'attn' ? true : 'attention only';
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
