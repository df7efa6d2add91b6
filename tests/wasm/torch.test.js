// The JS API against PyTorch: every stage of every fixture case (tests/fixtures/torch), through
// ap.attention for the attention cases and ap.createModel + setTensor for the whole models.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { attentionOptions, expectClose, fixtureModel, fixtureNames, loadFixture, worst } from './fixtures.js';

let ap;
beforeAll(async () => {
  ap = await load();
});
afterAll(() => {
  console.log(`largest relative difference against PyTorch: ${worst.value.toExponential(2)} (${worst.where})`);
});

describe.each([...fixtureNames('attention_'), ...fixtureNames('torch_mha')])('%s', (name) => {
  test('every stage matches PyTorch within 1e-5', () => {
    const fx = loadFixture(name);
    const opts = attentionOptions(fx);
    const t = ap.attention(opts);
    let compared = 0;
    for (const [stage, want] of Object.entries(fx.stages)) {
      expect(t.shape(stage)).toEqual(want.shape);
      expectClose(t.get(stage), want, `${name}.${stage}`);
      compared++;
    }
    expect(compared).toBe(10);
    t.dispose();
  });
});

describe.each(fixtureNames('model_'))('%s', (name) => {
  test('every stage of the whole model matches PyTorch within 1e-5', () => {
    const fx = loadFixture(name);
    const c = fx.config;
    const model = fixtureModel(ap, fx);
    const encdec = c.arch === 'encoder-decoder';
    const trace = encdec
      ? model.forward({ src: fx.inputs.src_ids, tgt: fx.inputs.tgt_ids })
      : model.forward(fx.inputs.ids);
    const mainStack = c.arch === 'encoder' ? 'encoder' : 'decoder';
    let compared = 0;
    for (const [key, want] of Object.entries(fx.stages)) {
      const parts = key.split('.');
      let opts = {},
        stage = key;
      if (parts.length === 3) {
        opts = { stack: parts[0], layer: Number(parts[1]) };
        stage = parts[2];
      } else if (parts.length === 2) {
        opts = { stack: parts[0] };
        stage = parts[1];
      } else if (stage !== 'logits' && stage !== 'probs') opts = { stack: mainStack };
      expect(trace.shape(stage, opts), key).toEqual(want.shape);
      expectClose(trace.get(stage, opts), want, `${name}.${key}`);
      compared++;
    }
    expect(compared).toBeGreaterThan(20);
    trace.dispose();
    model.dispose();
  });
});

test('a saved model loads back with identical weights and logits', () => {
  const fx = loadFixture('model_decoder_only');
  const model = fixtureModel(ap, fx);
  const copy = ap.loadModel(model.save());
  expect(copy.config).toEqual(model.config);
  expect(copy.vocab).toEqual(fx.vocab);
  const a = model.forward(fx.inputs.ids),
    b = copy.forward(fx.inputs.ids);
  expect(b.get('logits')).toEqual(a.get('logits'));
  expectClose(b.get('logits'), fx.stages.logits, 'reloaded logits');
  for (const x of [a, b, model, copy]) x.dispose();
});
