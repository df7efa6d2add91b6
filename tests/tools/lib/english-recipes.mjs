// How each shipped English model is trained (tests/tools/train.mjs runs it; the tests compare the
// model file's metadata with it).
// The exact trainer arguments of each shipped model, stage by stage (the file's train_command
// repeats the last; init_train_command the one before it, if any). A later stage would start from
// the file the stage before wrote (--init) and write it again. The English decoder has one stage
// (a second, from its file at a lower learning rate, was stopped for time: docs/models.md).
export const RECIPES = {
  english: [
    '--task english --d-model 128 --heads 4 --layers 4 --d-ff 512 --pos learned --norm pre --act gelu --tied 1 ' +
      '--f16 1 --steps 2200 --batch 8 --lr 3e-3 --warmup 200 --min-lr 0.05 --weight-decay 0.1 --seed 1 --threads 1 ' +
      '--eval-every 0 --eval-n 200 --log-every 100',
  ],
  'english-mlm': [
    '--task english-mlm --d-model 128 --heads 4 --layers 4 --d-ff 512 --pos learned --norm pre --act gelu --tied 1 ' +
      '--f16 1 --steps 2000 --batch 16 --lr 1.5e-3 --warmup 300 --min-lr 0.05 --weight-decay 0.1 --seed 1 ' +
      '--threads 1 --eval-every 0 --eval-n 2000 --log-every 100',
  ],
};
