// tfjs-core with tfjs-backend-wasm (XNNPACK, SIMD), one thread, at its best formulation (measured
// here, see docs/toolchain.md): Q scaled rather than the n x n scores, an explicit transpose of K
// rather than matMul's transposeB (about 10x slower), softmax, matMul with V, and dataSync()
// outside tf.tidy (inside, about 3x slower). Heads run one at a time as 2-D products joined by
// tf.concat: its batched (3-D) matMul was 5-20x slower than 2-D ones here (n = 256 and 1024,
// 8 heads), so the batched formulation would not be the peer at its best. Inputs are per-head
// (n, d_k) tensors made once per case.
import { attentionInputs, checksum, timeReps, toHeadMajor } from '../cases.mjs';

export async function create(env) {
  const tf = await env.loadTfjs();
  // One thread: the threaded binary is only picked where SharedArrayBuffer and workers allow it;
  // setThreadsCount(1) pins it to one thread in any case (it must run before the backend starts).
  if (tf.wasm && typeof tf.wasm.setThreadsCount === 'function') tf.wasm.setThreadsCount(1);
  if (!(await tf.setBackend('wasm'))) throw new Error('tfjs: the wasm backend did not start');
  await tf.ready();
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  const threads = tf.wasm && tf.wasm.getThreadsCount ? tf.wasm.getThreadsCount() : '?';
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
