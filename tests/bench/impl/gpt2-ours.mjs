// This project's core on the GPT-2-small-shaped model (or the SmolLM-135M-shaped one: the case's
// folder, loaded by the first case that asks for it) through its public JS API: loadTrainer() of
// wasm/index.js with options.threads (1: the second module, wasm/build/ap_train; more: the threaded
// module wasm/build/ap_mt; both made by `npm run build`), ap.loadPretrained(), then per call
// model.forward(ids, {}, keep) or model.generate(ids, { useCache }). The memory of the opened model
// is reported with every case: the module's wasm memory after opening it, the bytes its allocator
// holds for it (after minus before), and in Node the process's resident memory after minus before.
// keep holds no per-layer stage and no 50257-wide probs: the trace keeps the embeddings and the
// logits, which a timed call leaves in the wasm heap (disposed, not copied out; ORT's API copies
// its logits out, which is its price). A generation copies each step's distribution to JS, as the
// API always does.
import { gpt2Tokens, prefillChecksum, promptIds, rowSum, vocabOf } from '../gpt2-cases.mjs';

const KEEP = { layers: [], stages: [], drop: ['probs'] };

export async function create(env, { threads = 1 } = {}) {
  if (threads > 1 && !env.threadsAllowed)
    throw new Error('threads need a cross-origin-isolated page (SharedArrayBuffer): this one is not');
  const { loadTrainer } = await env.importModule('wasm/index.js');
  // threads is explicit even at 1: on a cross-origin-isolated page loadTrainer() would take every core.
  const ap = await loadTrainer({ threads });
  const kinfo = ap.kernels.info();
  if (kinfo.threads !== threads)
    throw new Error(`asked for ${threads} threads, the module runs ${kinfo.threads} (${kinfo.why})`);
  // One model at a time (the case's folder), loaded by the first case that needs it.
  let model = null,
    modelDir = null,
    memory = null;
  const open = async (dir) => {
    if (dir === modelDir) return;
    model?.dispose();
    model = null;
    const text = async (f) => new TextDecoder().decode(await env.readBytes(`${dir}/${f}`));
    const rss0 = env.residentBytes(),
      heap0 = ap.heapUsed();
    const parts = {
      config: await text('config.json'),
      tokenizer: await text('tokenizer.json'),
      weights: await env.readBytes(`${dir}/model.safetensors`),
    };
    model = await ap.loadPretrained(parts);
    parts.weights = null; // the file's bytes are not the model's memory
    const rss1 = env.residentBytes();
    memory = {
      wasmBytes: ap.memoryBytes(),
      heapBytes: ap.heapUsed() - heap0,
      residentBytes: rss0 == null || rss1 == null ? null : rss1 - rss0,
    };
    modelDir = dir;
  };
  let state = null;
  const generate = () =>
    model.generate(state.ids, { maxTokens: state.c.newTokens, useCache: true, keep: { layers: [], drop: ['probs'] } });
  return {
    info: {
      variant: `${kinfo.variant} (wasm/build/${threads > 1 ? `ap_mt, ${threads} threads` : 'ap_train, 1 thread'} via model.forward / model.generate)`,
      threads,
    },
    supports(c) {
      return c.kind === 'gpt2' ? true : 'GPT-2 cases only';
    },
    async prepare(c) {
      await open(c.dir);
      const V = vocabOf(c);
      state = { c, ids: promptIds(c) };
      if (c.mode === 'prefill') {
        const trace = model.forward(state.ids, {}, KEEP);
        const logits = trace.get('logits');
        trace.dispose();
        return { checksum: prefillChecksum(logits, c.n, V), tokens: gpt2Tokens(c), memory };
      }
      const g = generate();
      const last = g.steps[g.steps.length - 1].trace.get('logits');
      const rows = last.length / V;
      const checksum = { ids: Array.from(g.tokens), ...rowSum(last, rows - 1, V) };
      g.dispose();
      return { checksum, tokens: gpt2Tokens(c), memory };
    },
    run(reps) {
      const t0 = performance.now();
      for (let r = 0; r < reps; r++) {
        if (state.c.mode === 'prefill') model.forward(state.ids, {}, KEEP).dispose();
        else generate().dispose();
      }
      return { seconds: (performance.now() - t0) / 1e3 };
    },
    release() {
      state = null;
    },
  };
}
