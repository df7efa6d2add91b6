// tfjs-core with tfjs-backend-wasm (XNNPACK, SIMD), on options.threads threads (1 by default;
// more in Chromium only, see startTfjsWasm), at its best formulation (measured
// here, see docs/toolchain.md): Q scaled rather than the n x n scores, an explicit transpose of K
// rather than matMul's transposeB (about 10x slower), softmax, matMul with V, and dataSync()
// outside tf.tidy (inside, about 3x slower). Heads run one at a time as 2-D products joined by
// tf.concat: its batched (3-D) matMul was 5-20x slower than 2-D ones here (n = 256 and 1024,
// 8 heads), so the batched formulation would not be the peer at its best. Inputs are per-head
// (n, d_k) tensors made once per case.
import { attentionInputs, checksum, timeReps, toHeadMajor } from '../cases.mjs';

/**
 * Starts tfjs's wasm backend on `threads` threads and returns the count it runs. The threaded
 * binary (tfjs-backend-wasm-threaded-simd.wasm) is picked where WASM_HAS_MULTITHREAD_SUPPORT holds:
 * a cross-origin-isolated page. setThreadsCount must run before the backend starts. Node: the
 * backend turns threads off (the flag is false under IS_NODE, tfjs issue #3830), and forcing the
 * flag on fails to start (its pthread workers are blob: URLs, which Node's Worker refuses), so a
 * threaded runner in Node fails here with that reason rather than run one thread under its name.
 */
export async function startTfjsWasm(tf, env, threads) {
  if (threads > 1 && env.where === 'node')
    throw new Error(
      'tfjs-backend-wasm runs one thread in Node: it turns threads off there (tfjs issue #3830), and ' +
        'forced on, its pthread workers (blob: URLs) do not start',
    );
  if (threads > 1 && !(await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT')))
    throw new Error('tfjs-backend-wasm: no multithread support here (the page is not cross-origin isolated?)');
  tf.wasm.setThreadsCount(threads);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not start');
  await tf.ready();
  const got = tf.wasm.getThreadsCount();
  // Seen in headless Chromium on a 2-core machine (hardwareConcurrency 2): the threaded binary starts,
  // and getThreadsCount() says 1 whatever setThreadsCount asked: its thread pool is capped at half the
  // logical cores (tfjs issues #4972 and #6081), so it needs 2N cores for N threads.
  if (got !== threads) {
    const cores =
      typeof navigator === 'object'
        ? `, navigator.hardwareConcurrency ${navigator.hardwareConcurrency} (tfjs caps its pool at half the logical cores, tfjs issues #4972, #6081)`
        : '';
    throw new Error(`tfjs-backend-wasm: asked for ${threads} threads, its getThreadsCount() says ${got}${cores}`);
  }
  return got;
}

export async function create(env, options = {}) {
  const tf = await env.loadTfjs();
  const threads = await startTfjsWasm(tf, env, options.threads ?? 1);
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  let state = null;
  const call = () => {
    const { Q, K, V, mask, alpha } = state;
    const out = tf.tidy(() => {
      const heads = Q.map((q, i) => {
        const scores = tf.matMul(tf.mul(q, alpha), tf.transpose(K[i])); // (n, n)
        return tf.matMul(tf.softmax(mask ? tf.add(scores, mask) : scores), V[i]); // (n, d_k)
      });
      return heads.length === 1 ? heads[0] : tf.concat(heads, 1); // (n, h*d_k)
    });
    const data = out.dataSync();
    out.dispose();
    return data;
  };
  return {
    info: {
      variant: `tfjs ${tf.version_core} wasm backend (simd ${simd}, ${threads} thread${threads === 1 ? '' : 's'})`,
      threads,
    },
    supports(c) {
      return c.kind === 'attn' ? true : 'attention only';
    },
    prepare(c) {
      this.release();
      const { n, h, dK: d, causal } = c;
      const { q, k, v } = attentionInputs(c);
      const perHead = (x) => {
        const all = toHeadMajor(x, n, h, d); // (h, n, d_k)
        return Array.from({ length: h }, (_, i) => tf.tensor2d(all.subarray(i * n * d, (i + 1) * n * d), [n, d]));
      };
      let mask = null;
      if (causal) {
        const m = new Float32Array(n * n);
        for (let i = 0; i < n; i++) m.fill(-Infinity, i * n + i + 1, (i + 1) * n);
        mask = tf.tensor2d(m, [n, n]);
      }
      state = {
        c,
        mask,
        Q: perHead(q),
        K: perHead(k),
        V: perHead(v),
        alpha: tf.scalar(1 / Math.sqrt(d)),
      };
      return { checksum: checksum(call()) };
    },
    run(reps) {
      return { seconds: timeReps(call, reps) };
    },
    release() {
      if (!state) return;
      for (const t of [...state.Q, ...state.K, ...state.V, state.mask, state.alpha]) if (t) t.dispose();
      state = null;
    },
  };
}
