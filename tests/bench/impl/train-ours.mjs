// This project's trainer on the reverse task through its public JS API: loadTrainer({ threads }) of
// wasm/index.js (1 thread: the trainer module wasm/build/ap_train; more: the threaded module
// wasm/build/ap_mt, the batch's shards on its pool; both made by `npm run build`), then
// createTrainer() at seed 1 with the shipped reverse model's sizes. A call is trainer.step(1): the
// trainer draws its batch, runs forward and backward, clips and takes an AdamW step.
import { CHECK_STRINGS, checkSum, encodeExample, trainExamples, trainerOptions } from '../train-cases.mjs';

export async function create(env, { threads = 1 } = {}) {
  const { loadTrainer } = await env.importModule('wasm/index.js');
  const ap = await loadTrainer({ threads });
  const kinfo = ap.kernels.info();
  if (kinfo.threads !== threads) throw new Error(`asked for ${threads} threads, the module runs ${kinfo.threads}`);
  let trainer = null;
  return {
    info: {
      variant:
        `${kinfo.variant} (wasm/build/${threads > 1 ? `ap_mt, ${threads} threads` : 'ap_train, 1 thread'} ` +
        'via createTrainer().step())',
      threads,
    },
    supports(c) {
      return c.kind === 'train' ? true : 'training cases only';
    },
    async prepare(c) {
      this.release();
      trainer = await ap.createTrainer(trainerOptions(c));
      const running = trainer.info().threads;
      if (running !== threads) throw new Error(`the trainer runs ${running} threads, not ${threads}`);
      // The fixed batch's checksum from the starting weights: one forward pass per example.
      const model = trainer.snapshot();
      try {
        const examples = CHECK_STRINGS.map((s) => encodeExample(s, model.vocab));
        const sums = checkSum(
          examples,
          (e) => {
            const trace = model.forward(Int32Array.from(examples[e].inputs));
            try {
              return trace.get('logits');
            } finally {
              trace.dispose();
            }
          },
          model.vocab.length,
        );
        return { checksum: sums, examples: trainExamples(c) };
      } finally {
        model.dispose();
      }
    },
    run(reps) {
      const t0 = performance.now();
      const loss = trainer.step(reps);
      if (!Number.isFinite(loss)) throw new Error(`the trainer's loss is ${loss}`);
      return { seconds: (performance.now() - t0) / 1e3, loss };
    },
    release() {
      trainer?.dispose();
      trainer = null;
    },
  };
}
