// What the page says of each model it offers comes from the model's file (metadata description,
// example, prompt; tests/tools/lib/model-facts.mjs, which the trainer's options write), not from the
// page's code: each picker model's file carries them, recorded as trainer options in its
// train_command; the example and the prompt read with no unknown piece in the model's own tokenizer;
// the numbers of a description are the model's own (its config as the core reads it); and the
// tool that added them to files trained before changes only the header.
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { shippedModel } from '../web/lib/models.js';
import { TRAINED_NAMES, trainedFacts } from '../../web/lib/models.js';
import { MODEL_FACTS, factArgs, recordedArgs } from '../tools/lib/model-facts.mjs';
import { withFacts } from '../tools/model-facts.mjs';
import { tinyDecoder } from './lib/inputs.js';

let ap;
beforeAll(async () => {
  ap = await load();
});

test('the picker offers exactly the models whose files carry facts, found from their headers (no list by hand)', () => {
  expect(TRAINED_NAMES).toEqual(Object.keys(MODEL_FACTS).sort());
});

describe.each(TRAINED_NAMES)('the %s file', (name) => {
  test('carries its description and example, recorded as the last options of its train_command', async () => {
    const model = await ap.openModel(shippedModel(name));
    const m = model.metadata;
    const facts = MODEL_FACTS[name];
    expect(m.description).toBe(facts.description);
    expect(m.example).toBe(facts.example);
    expect(m.prompt).toBe(facts.prompt);
    expect(m.train_command.endsWith(` ${recordedArgs(factArgs(facts))}`)).toBe(true);
    // The example and the prompt are in the model's own alphabet: the page types them into it.
    for (const text of [m.example, trainedFacts(name).prompt]) {
      const enc = model.tokenizer.encode(text);
      expect(enc.ids.length).toBeGreaterThan(0);
      expect(enc.unknown).toEqual([]);
    }
    // Every {key} of the description is a number of the model's config, filled in by the page.
    const shown = trainedFacts(name).description;
    expect(shown).not.toMatch(/[{}]/);
    expect(shown.startsWith('Trained by this project')).toBe(true);
    model.dispose();
  });
});

test("the English decoder's description states its sizes as the core reads them", async () => {
  const model = await ap.openModel(shippedModel('english'));
  const c = model.config;
  expect(c).toMatchObject({ nLayers: 4, nHeads: 4, dModel: 128, vocabSize: 4096, maxLen: 256 });
  expect(trainedFacts('english').description).toContain(
    `a ${c.nLayers}-layer decoder with ${c.nHeads} heads per layer and d_model ${c.dModel}, like a very small GPT-2. ` +
      `It reads any text as byte-level BPE pieces (${c.vocabSize} of them, none unknown), at most ${c.maxLen} tokens`,
  );
  expect(trainedFacts('grammar').description).toContain('a 2-layer decoder that predicts the next word');
  expect(trainedFacts('grammar').prompt).toBe('the'); // the grammar model writes a sentence from "the"
  expect(trainedFacts('sort').prompt).toBe(trainedFacts('sort').example); // no prompt: the example
  model.dispose();
});

test('adding the facts to a file changes its header only: the core reads the same tensors, and the facts', () => {
  const model = ap.createModel(tinyDecoder(['a', 'b', 'c']), { seed: 3 });
  const bytes = Buffer.from(model.save());
  const facts = { description: "it's {n_layers} layer", example: 'a b c', prompt: 'a' };
  const out = withFacts(bytes, facts);
  const dataStart = (b) => 8 + Number(b.readBigUInt64LE(0));
  expect(out.subarray(dataStart(out)).equals(bytes.subarray(dataStart(bytes)))).toBe(true);
  const back = ap.loadModel(new Uint8Array(out));
  expect(back.metadata).toMatchObject(facts);
  for (const t of model.tensors())
    expect(Array.from(back.getTensor(t.name))).toEqual(Array.from(model.getTensor(t.name)));
  expect(() => withFacts(out, facts)).toThrow(/already/);
  model.dispose();
  back.dispose();
});
