// A program written against the published types (wasm/index.d.ts, web/attention-playground.d.ts),
// as a course page or a notebook would write it. tests/wasm/types.test.js compiles it with
// `tsc --noEmit`: a member the types lose, rename or mistype fails npm test.
import { load, type Model, type Trace, type Generation, type RnnAttentionModel } from '../../wasm/index.js';
import { CHAPTERS, CONCEPTS, EVENTS, widgetList, embedCode, conceptById } from '../../web/attention-playground.js';

export async function api(): Promise<number> {
  const ap = await load();
  const model: Model = ap.createModel(
    { arch: 'decoder', dModel: 16, nHeads: 2, nLayers: 1, dFf: 32, pos: 'learned', act: 'gelu', norm: 'pre', vocab: ['the', 'cat'] },
    { seed: 1 },
  );
  const enc = model.tokenizer.encode('the cat');
  const text: string = model.tokenizer.decode(enc.ids);
  const trace: Trace = model.forward(enc.ids, { causal: true, nHeads: 2 }, { layers: [0], stages: ['weights'] });
  const w: Float32Array = trace.get('weights', { layer: 0, head: 1 });
  const [n, m] = trace.shape('weights', { layer: 0, head: 0 });
  const stages = trace.stages().map((s) => `${s.name}${s.perHead ? ' (per head)' : ''}`);
  trace.dispose();
  const g: Generation = model.generate('the', { maxTokens: 4, temperature: 0.8, topK: 5, topP: 0.9, seed: 2 });
  const first = g.steps[0];
  const stop: 'eos' | 'max_tokens' | 'max_len' = g.stop;
  const chosen: string = first ? `${first.piece} ${first.cacheLen} ${first.distribution.length}` : stop;
  g.dispose();
  const meta: Record<string, string> = model.metadata;
  const pieces: string[] = model.pieces;
  const { bos, eos, mask, kind } = model.specialTokens;
  const maskPiece: string = ap.specialTokens.maskPiece;
  const choices: number[] = model.switchChoices.nHeads;
  // Issue 26's parts: a Llama-like model, switches on it, the KV cache and the costs.
  const llama: Model = ap.createModel(
    { arch: 'decoder', dModel: 16, nHeads: 4, nKvHeads: 2, nLayers: 1, dFf: 24, pos: 'rope', norm: 'pre', normKind: 'rmsnorm', ffnKind: 'swiglu', window: 4 },
    { seed: 1 },
  );
  const sw = { nKvHeads: 1, window: 2, normKind: 'layernorm', ffnKind: 'geglu' } as const;
  const lt = llama.forward('abc', sw);
  const groups: Float32Array = lt.get('kv_group', { layer: 0 });
  lt.dispose();
  const lg = llama.generate('ab', { maxTokens: 2, switches: { window: 3 } });
  const cacheBytes: number = lg.kvCacheBytes;
  lg.dispose();
  const kvChoices: number[] = llama.switchChoices.nKvHeads;
  const ffnKinds: ('mlp' | 'swiglu' | 'geglu')[] = llama.switchChoices.ffnKind;
  const normKind: 'layernorm' | 'rmsnorm' | undefined = llama.config.normKind;
  llama.dispose();
  const cache = ap.kvCacheSize({ dModel: 16, nHeads: 4, nKvHeads: 2, nLayers: 1, vocabSize: 10, normKind: 'rmsnorm', ffnKind: 'swiglu' }, 8);
  const pairs: number = ap.flops({ n: 8, d: 16, h: 4, nKvHeads: 1, window: 2 }).attention.pairs;
  const held: number = ap.kernels.memory({ n: 8, dK: 4, causal: true, window: 2 }).pairsComputed;
  const local: Float32Array = ap.kernels.attention({ q: new Float32Array(32), k: new Float32Array(32), v: new Float32Array(32), n: 8, dK: 4, causal: true, window: 3 });
  const grouped = ap.attention({ x: new Float32Array(32), n: 2, dModel: 16, nHeads: 4, nKvHeads: 1, window: 1, causal: true, wq: new Float32Array(256), wk: new Float32Array(64), wv: new Float32Array(64), wo: new Float32Array(256) });
  grouped.dispose();
  const modern = groups.length + cacheBytes + kvChoices.length + ffnKinds.length + (normKind ?? '').length + cache.bytes + cache.mhaBytes + pairs + held + local.length;
  const act: 'relu' | 'gelu' | 'gelu_tanh' = model.config.act;
  const p = model.prompt('the cat');
  const bytes: Uint8Array = model.save();
  const again = await ap.openModel(bytes);
  again.dispose();
  model.dispose();
  const presets = ap.presets.list().map((x) => x.id);
  const run = ap.presets.run(presets[0] ?? '');
  run.dispose();
  const variant: 'scalar' | 'simd128' | 'relaxed' = ap.kernels.info().variant;
  return (
    w.length + n + m + stages.length + text.length + chosen.length + Object.keys(meta).length + pieces.length +
    bos + eos + mask + kind.length + maskPiece.length + choices.length + act.length + p.ids.length + variant.length + ap.heapUsed() + modern
  );
}

export function widgets(): string[] {
  const softmax = document.querySelector('ap-softmax');
  softmax?.update();
  const stepper: HTMLElementTagNameMap['ap-stepper'] = document.createElement('ap-stepper');
  stepper.addEventListener('ap-step-change', (e) => console.log(e.detail.step, e.detail.layer));
  document.addEventListener('ap-cell-select', (e) => console.log(e.detail.row, e.detail.value));
  document.addEventListener('ap-quiz-answer', (e) => console.log(e.detail.question, e.detail.correct));
  document.addEventListener('ap-training-progress', (e) => console.log(e.detail.step, e.detail.loss, e.detail.accuracy));
  document.addEventListener('ap-goto-step', (e) => console.log(e.detail.step));
  document.addEventListener('ap-state-change', (e) => console.log(e.detail.patch));
  const code = embedCode(stepper, { base: '/' });
  return [
    ...CHAPTERS.map((c) => c.title),
    ...CONCEPTS.map((c) => c.chapter),
    ...EVENTS.map((e) => e.name),
    ...widgetList().map((w) => w.tag),
    conceptById('softmax')?.title ?? '',
    code.html,
    code.myst,
  ];
}

// The RNN encoder-decoder's tokenizer is a model's: its special ids from the core, its pieces.
export function rnnEnd(model: RnnAttentionModel): string {
  const { eos, kind } = model.specialTokens;
  return `${kind}: ${model.pieces[eos] ?? ''} ${model.tokenizer.decode([eos])}`;
}
