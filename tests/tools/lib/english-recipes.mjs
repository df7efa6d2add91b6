// How each shipped English model is trained (tests/tools/train.mjs runs it; the tests compare the
// model file's metadata with it).
// The exact trainer arguments of each shipped model, stage by stage (the file's train_command
// repeats the last; init_train_command the one before it, if any). Stage 1 writes
// web/models/<name>.safetensors; stage k > 1 starts from the file the stage before wrote (--init)
// and writes build/english/runs/stage<k>.safetensors (so that the page keeps a working model while
// it runs), which tests/tools/train.mjs then copies to web/models/. The English decoder: 2,200 steps
// from scratch, 3,600 more from that file re-warmed to 2e-3, then 2,400 at 6e-4 (docs/models.md).
export const RECIPES = {
  english: [
    '--task english --d-model 128 --heads 4 --layers 4 --d-ff 512 --pos learned --norm pre --act gelu --tied 1 ' +
      '--f16 1 --steps 2200 --batch 8 --lr 3e-3 --warmup 200 --min-lr 0.05 --weight-decay 0.1 --seed 1 --threads 1 ' +
      '--eval-every 0 --eval-n 200 --log-every 100',
    '--task english --d-model 128 --heads 4 --layers 4 --d-ff 512 --pos learned --norm pre --act gelu --tied 1 ' +
      '--f16 1 --steps 3600 --batch 8 --lr 2e-3 --warmup 100 --min-lr 0.05 --weight-decay 0.1 --seed 2 --threads 2 ' +
      '--eval-every 0 --eval-n 200 --log-every 100',
    '--task english --d-model 128 --heads 4 --layers 4 --d-ff 512 --pos learned --norm pre --act gelu --tied 1 ' +
      '--f16 1 --steps 2400 --batch 8 --lr 6e-4 --warmup 50 --min-lr 0.05 --weight-decay 0.1 --seed 3 --threads 2 ' +
      '--eval-every 0 --eval-n 200 --log-every 100',
  ],
  // The masked LM: the decoder's sizes and tokenizer, trained from scratch with relative positions
  // (a bias per head and clipped offset, starting as ALiBi's distance penalty and learning 30 times
  // faster than the other weights: docs/models.md says why), 40 % of each 64-token passage hidden.
  'english-mlm': [
    '--task english-mlm --d-model 128 --heads 4 --layers 4 --d-ff 512 --pos relative --norm pre --act gelu --tied 1 ' +
      '--f16 1 --steps 1500 --batch 32 --lr 2e-3 --warmup 100 --min-lr 0.05 --weight-decay 0.1 --seed 1 --threads 2 ' +
      '--eval-every 0 --eval-n 2000 --log-every 100',
  ],
};

/** Where stage k (1-based) of `name` writes its file. */
export function stageOut(name, k) {
  return k === 1 ? `web/models/${name}.safetensors` : `build/english/runs/stage${k}.safetensors`;
}
