// onnxruntime-web (wasm backend, SIMD, options.threads threads: ort.env.wasm.numThreads) on the
// GPT-2-small-shaped model exported to
// float32 ONNX (build/bench/onnx, see tests/reference/README.md), or the SmolLM-135M-shaped one (the
// case's prefix, smollm-*.onnx, tests/reference/make_smollm_onnx.py): gpt2-prefill.onnx for a prompt,
// then gpt2-decode.onnx once per new token with the previous call's `present` fed back as `past`
// (the KV cache). A timed call is session.run() including ORT's copies of the inputs in and of
// the outputs out (logits, and present when decoding), which its API cannot avoid. Graph
// optimisations on ('all'). Both sessions of a model are opened together, and the memory they hold
// is the process's resident memory after minus before (Node, after a full GC; its wasm heap is not
// reachable through ORT's API), reported with every case of that model.
import { ONNX_DIR, argmaxRow, gpt2Tokens, prefillChecksum, promptIds, rowSum, vocabOf } from '../gpt2-cases.mjs';

export async function create(env, { threads = 1 } = {}) {
  if (threads > 1 && !env.threadsAllowed)
    throw new Error('threads need a cross-origin-isolated page (SharedArrayBuffer): this one is not');
  const ort = await env.loadOrt();
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.simd = true;
  ort.env.wasm.proxy = false;
  ort.env.logLevel = 'error';
  const options = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
  // The sessions of one model at a time (the case's ONNX prefix; switching releases the other's).
  let sessions = {},
    sessionsOf = null,
    memory = null;
  const session = async (prefix, name) => {
    if (prefix !== sessionsOf) {
      for (const s of Object.values(sessions)) await s.release?.();
      sessions = {};
      const before = env.residentBytes();
      for (const which of ['prefill', 'decode'])
        sessions[which] = await ort.InferenceSession.create(
          await env.readBytes(`${ONNX_DIR}/${prefix}-${which}.onnx`),
          options,
        );
      const after = env.residentBytes();
      memory = { residentBytes: before == null || after == null ? null : after - before };
      sessionsOf = prefix;
    }
    return sessions[name];
  };
  const idsTensor = (ids) =>
    new ort.Tensor(
      'int64',
      BigInt64Array.from(ids, (x) => BigInt(x)),
      [1, ids.length],
    );
  let state = null;

  const prefill = async () => {
    const out = await state.prefill.run({ input_ids: state.feed }, ['logits']);
    const logits = out.logits.data;
    out.logits.dispose?.();
    return logits;
  };
  // Greedy: prefill, then one decode call per further token; returns the ids and the last logits.
  const generate = async () => {
    const { c } = state;
    const V = vocabOf(c);
    let out = await state.prefill.run({ input_ids: state.feed });
    const ids = [argmaxRow(out.logits.data, c.n - 1, V)];
    let logits = out.logits.data.subarray((c.n - 1) * V);
    for (let t = 1; t < c.newTokens; t++) {
      const feeds = { input_ids: idsTensor([ids[t - 1]]), past: out.present };
      const next = await state.decode.run(feeds);
      out.logits.dispose?.();
      out.present.dispose?.();
      out = next;
      logits = out.logits.data;
      ids.push(argmaxRow(logits, 0, V));
    }
    out.present.dispose?.();
    return { ids, logits };
  };

  return {
    info: {
      variant:
        `onnxruntime-web ${ort.env.versions?.web ?? ''} wasm, ${threads} thread${threads > 1 ? 's' : ''}, SIMD`.replace(
          '  ',
          ' ',
        ),
      threads,
    },
    supports(c) {
      return c.kind === 'gpt2' ? true : 'GPT-2 cases only';
    },
    async prepare(c) {
      const prefix = c.onnx ?? 'gpt2';
      const V = vocabOf(c);
      state = { c, feed: idsTensor(promptIds(c)), prefill: await session(prefix, 'prefill') };
      if (c.mode === 'prefill')
        return { checksum: prefillChecksum(await prefill(), c.n, V), tokens: gpt2Tokens(c), memory };
      state.decode = await session(prefix, 'decode');
      const { ids, logits } = await generate();
      return { checksum: { ids, ...rowSum(logits, 0, V) }, tokens: gpt2Tokens(c), memory };
    },
    async run(reps) {
      const t0 = performance.now();
      for (let r = 0; r < reps; r++) await (state.c.mode === 'prefill' ? prefill() : generate());
      return { seconds: (performance.now() - t0) / 1e3 };
    },
    release() {
      state = null;
    },
  };
}
