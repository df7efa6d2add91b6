// How each shipped English model is trained (tests/tools/train.mjs runs it; the tests compare the
// model file's metadata with it).
// The exact trainer arguments of each shipped model, stage by stage (the file's train_command
// repeats the last; init_train_command the one before). A later stage starts from the file the
// stage before wrote (--init) and writes it again. The English decoder's second stage restarts
// the learning rate lower: the first had reached 5.1 nats per token with its schedule at its end
// and the Kneser-Ney 5-gram's held-out figure was 4.67.
export const RECIPES = {
  english: [
    '--task english --d-model 128 --heads 4 --layers 4 --d-ff 512 --pos learned --norm pre --act gelu --tied 1 ' +
      '--f16 1 --steps 2200 --batch 8 --lr 3e-3 --warmup 200 --min-lr 0.05 --weight-decay 0.1 --seed 1 --threads 1 ' +
      '--eval-every 0 --eval-n 200 --log-every 100',
    '--task english --tied 1 --f16 1 --steps 1600 --batch 8 --lr 1e-3 --warmup 100 --min-lr 0.05 ' +
      '--weight-decay 0.1 --seed 2 --threads 2 --eval-every 0 --eval-n 200 --log-every 100',
  ],
  'english-mlm': [
    '--task english-mlm --d-model 128 --heads 4 --layers 4 --d-ff 512 --pos learned --norm pre --act gelu --tied 1 ' +
      '--f16 1 --steps 2000 --batch 16 --lr 1.5e-3 --warmup 300 --min-lr 0.05 --weight-decay 0.1 --seed 1 ' +
      '--threads 1 --eval-every 0 --eval-n 2000 --log-every 100',
  ],
};
