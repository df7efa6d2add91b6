// A program written against the published types (wasm/index.d.ts, web/attention-playground.d.ts),
// as a course page or a notebook would write it. tests/wasm/types.test.js compiles it with
// `tsc --noEmit`: a member the types lose, rename or mistype fails npm test.
import { load, type Model, type Trace, type Generation } from '../../wasm/index.js';
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
  const choices: number[] = model.switchChoices.nHeads;
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
    bos + eos + mask + kind.length + choices.length + act.length + p.ids.length + variant.length + ap.heapUsed()
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
