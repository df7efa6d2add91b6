// This project's core on the GPT-2-small-shaped model (or the SmolLM-135M-shaped one: the case's
// folder, loaded by the first case that asks for it) through its public JS API: load() of
// wasm/index.js, ap.loadPretrained() (the second module, wasm/build/ap_train, made by
// `npm run build`), then per call model.forward(ids, {}, keep) or model.generate(ids, { useCache }).
// keep holds no per-layer stage and no 50257-wide probs: the trace keeps the embeddings and the
// logits, which a timed call leaves in the wasm heap (disposed, not copied out; ORT's API copies
// its logits out, which is its price). A generation copies each step's distribution to JS, as the
// API always does.
import { gpt2Tokens, prefillChecksum, promptIds, rowSum, vocabOf } from '../gpt2-cases.mjs';

const KEEP = { layers: [], stages: [], drop: ['probs'] };

export async function create(env) {
  const { load } = await env.importModule('wasm/index.js');
  const ap = await load();
  // One model at a time (the case's folder), loaded by the first case that needs it.
  let model = null,
    modelDir = null;
  const open = async (dir) => {
    if (dir === modelDir) return;
    model?.dispose();
    model = null;
    const text = async (f) => new TextDecoder().decode(await env.readBytes(`${dir}/${f}`));
    model = await ap.loadPretrained({
      config: await text('config.json'),
      tokenizer: await text('tokenizer.json'),
      weights: await env.readBytes(`${dir}/model.safetensors`),
    });
    modelDir = dir;
  };
  let state = null;
  const generate = () =>
    model.generate(state.ids, { maxTokens: state.c.newTokens, useCache: true, keep: { layers: [], drop: ['probs'] } });
  return {
    info: { variant: `${ap.kernels.info().variant} (wasm/build/ap_train via model.forward / model.generate)` },
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
        return { checksum: prefillChecksum(logits, c.n, V), tokens: gpt2Tokens(c) };
      }
      const g = generate();
      const last = g.steps[g.steps.length - 1].trace.get('logits');
      const rows = last.length / V;
      const checksum = { ids: Array.from(g.tokens), ...rowSum(last, rows - 1, V) };
      g.dispose();
      return { checksum, tokens: gpt2Tokens(c) };
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
