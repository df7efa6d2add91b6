// This project's core on the GPT-2-small-shaped model through its public JS API: load() of
// wasm/index.js, ap.loadPretrained() (the second module, wasm/build/ap_train, made by
// `npm run build`), then per call model.forward(ids, {}, keep) or model.generate(ids, { useCache }).
// keep holds no per-layer stage and no 50257-wide probs: the trace keeps the embeddings and the
// logits, which a timed call leaves in the wasm heap (disposed, not copied out; ORT's API copies
// its logits out, which is its price). A generation copies each step's distribution to JS, as the
// API always does.
import { HF_DIR, VOCAB, gpt2Tokens, prefillChecksum, promptIds, rowSum } from '../gpt2-cases.mjs';

const KEEP = { layers: [], stages: [], drop: ['probs'] };

export async function create(env) {
  const { load } = await env.importModule('wasm/index.js');
  const ap = await load();
  const text = async (f) => new TextDecoder().decode(await env.readBytes(`${HF_DIR}/${f}`));
  const model = await ap.loadPretrained({
    config: await text('config.json'),
    tokenizer: await text('tokenizer.json'),
    weights: await env.readBytes(`${HF_DIR}/model.safetensors`),
  });
  let state = null;
  const generate = () =>
    model.generate(state.ids, { maxTokens: state.c.newTokens, useCache: true, keep: { layers: [], drop: ['probs'] } });
  return {
    info: { variant: `${ap.kernels.info().variant} (wasm/build/ap_train via model.forward / model.generate)` },
    supports(c) {
      return c.kind === 'gpt2' ? true : 'GPT-2 cases only';
    },
    prepare(c) {
      state = { c, ids: promptIds(c) };
      if (c.mode === 'prefill') {
        const trace = model.forward(state.ids, {}, KEEP);
        const logits = trace.get('logits');
        trace.dispose();
        return { checksum: prefillChecksum(logits, c.n), tokens: gpt2Tokens(c) };
      }
      const g = generate();
      const last = g.steps[g.steps.length - 1].trace.get('logits');
      const rows = last.length / VOCAB;
      const checksum = { ids: Array.from(g.tokens), ...rowSum(last, rows - 1) };
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
