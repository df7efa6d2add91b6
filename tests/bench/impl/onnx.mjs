// onnxruntime-web, its wasm (SIMD) backend on options.threads threads (ort.env.wasm.numThreads; 1
// by default; more where shared memory is allowed: Node, a cross-origin-isolated page), running the attention graph of
// onnx-graph.mjs (built in JS, static shapes, graph optimisations on). Inputs are (h, n, d_k) head
// by head, the layout a batched MatMul wants; a timed call is session.run() including the input
// copy into ORT's heap and the output copy out, which its API cannot avoid.
import { attentionInputs, checksum, fromHeadMajor, toHeadMajor } from '../cases.mjs';
import { attentionModel } from './onnx-graph.mjs';

export async function create(env, { threads = 1 } = {}) {
  // ORT falls back to one thread on its own where shared memory is missing: say so instead.
  if (threads > 1 && !env.threadsAllowed)
    throw new Error('threads need a cross-origin-isolated page (SharedArrayBuffer): this one is not');
  const ort = await env.loadOrt();
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.proxy = false;
  ort.env.logLevel = 'error';
  let state = null;
  const call = async () => {
    const { session, feeds } = state;
    const results = await session.run(feeds);
    const out = results.out.data;
    for (const t of Object.values(results)) t.dispose?.();
    return out;
  };
  return {
    info: {
      variant:
        `onnxruntime-web ${ort.env.versions?.web ?? ''} wasm, ${threads} thread${threads > 1 ? 's' : ''}`.replace(
          '  ',
          ' ',
        ),
      threads,
    },
    supports(c) {
      return c.kind === 'attn' ? true : 'attention only';
    },
    async prepare(c) {
      await this.release();
      const { n, h, dK: d, causal } = c;
      const session = await ort.InferenceSession.create(attentionModel({ n, h, d, causal }), {
        executionProviders: ['wasm'],
        graphOptimizationLevel: 'all',
      });
      const dims = h === 1 ? [n, d] : [h, n, d];
      const { q, k, v } = attentionInputs(c);
      const feeds = {
        q: new ort.Tensor('float32', toHeadMajor(q, n, h, d), dims),
        k: new ort.Tensor('float32', toHeadMajor(k, n, h, d), dims),
        v: new ort.Tensor('float32', toHeadMajor(v, n, h, d), dims),
      };
      if (causal) {
        const mask = new Float32Array(n * n);
        for (let i = 0; i < n; i++) mask.fill(-Infinity, i * n + i + 1, (i + 1) * n);
        feeds.mask = new ort.Tensor('float32', mask, [n, n]);
      }
      state = { c, session, feeds };
      const out = await call();
      return { checksum: checksum(fromHeadMajor(out, n, h, d)) };
    },
    async run(reps) {
      const t0 = performance.now();
      for (let r = 0; r < reps; r++) await call();
      return { seconds: (performance.now() - t0) / 1e3 };
    },
    async release() {
      if (state) await state.session.release();
      state = null;
    },
  };
}
