// The training section of the benchmark (issue 27): one optimisation step of the shipped reverse
// model's shape (web/models/reverse.safetensors: a 2-layer post-norm decoder, d_model 64, 4 heads,
// d_ff 256, learned positions, erf GELU, 41 characters) at batch B, by this project's trainer (the
// wasm module's createTrainer) and by TF.js on its wasm backend
// (tests/bench/impl/train-tfjs.mjs, the same model written with tfjs ops and autodiff).
//   A step: draw B examples of the task ("<bos>" s "=" reverse(s) "<eos>", s 6..10 characters of
//   [0-9a-z], cpp/data/tasks.hpp), pad them to the longest, forward, cross-entropy over the output
//   positions, backward, clip the global gradient norm to 1, AdamW (beta 0.9 / 0.98, weight decay
//   0.01 on the matrices).
// Both start from the same weights: the core's seeded initialisation (createTrainer's seed 1, the
// trainer's snapshot saved as safetensors and read by TF.js), not the shipped converged weights,
// whose loss (4.5e-8 nats on the check batch) would check nothing.
// Each side draws its own examples (the same distribution, different draws): a batch's cost depends
// on its padded length only, 20..22 positions. Before any time counts, both compute the logits of
// the same fixed batch (CHECK_STRINGS) from the same weights: their loss and a weighted sum of the
// logits at the target positions must agree to 1e-4: the same model and the same loss. The backward passes are each side's own (ours is checked against PyTorch by
// the trainer tests; TF.js's is its autodiff).
import { rng } from './cases.mjs';

export const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

export function trainCases({ quick = false } = {}) {
  return (quick ? [32] : [16, 32, 64]).map((batch) => ({ kind: 'train', task: 'reverse', batch }));
}

export const trainCaseId = (c) => `${c.task} batch ${c.batch}`;

// Examples a step trains on: B per call.
export const trainExamples = (c) => c.batch;

// The character vocabulary of the reverse model (its file's "vocab" metadata): <pad> <unk> <bos>
// <eos> = 0-9 a-z. Returns id of a character.
export function charIds(vocab) {
  const index = new Map(vocab.map((p, i) => [p, i]));
  return (ch) => {
    const id = index.get(ch);
    if (id === undefined) throw new Error(`'${ch}' is not in the reverse model's vocabulary`);
    return id;
  };
}

// One example as (inputs, targets): the sequence "<bos>" s "=" rev(s) "<eos>", inputs all but its
// last token, targets the next token at output positions and 0 (no loss) at prompt positions.
export function encodeExample(s, vocab) {
  const id = charIds(vocab);
  const seq = [id('<bos>'), ...[...s].map(id), id('='), ...[...s].reverse().map(id), id('<eos>')];
  const inputs = seq.slice(0, -1);
  // position i predicts seq[i+1]; the first target is predicted from '=' (position s.length + 1)
  const targets = seq.slice(1).map((t, i) => (i >= s.length + 1 ? t : 0));
  return { inputs, targets };
}

// A seeded stream of random task strings (6..10 characters).
export function stringStream(seed) {
  const next = rng(seed);
  return () => {
    const n = 6 + (next() % 5);
    let s = '';
    for (let i = 0; i < n; i++) s += ALPHABET[next() % 36];
    return s;
  };
}

// The fixed batch both sides compute the loss of before timing.
export const CHECK_STRINGS = (() => {
  const draw = stringStream(27);
  return Array.from({ length: 8 }, draw);
})();

// The checksum of the fixed batch: the mean cross-entropy (nats) over the target positions (the
// loss the trainer minimises) and a weighted sum of the logits there, from each example's logits
// (logitsOf(e): rows = its inputs, V columns, row-major).
export function checkSum(examples, logitsOf, V) {
  let total = 0,
    count = 0,
    sum = 0,
    abs = 0;
  examples.forEach((ex, e) => {
    const logits = logitsOf(e);
    ex.targets.forEach((t, i) => {
      if (t === 0) return;
      let max = -Infinity;
      for (let j = 0; j < V; j++) max = Math.max(max, logits[i * V + j]);
      let z = 0;
      for (let j = 0; j < V; j++) {
        z += Math.exp(logits[i * V + j] - max);
        const w = ((j * 7919 + i) % 13) - 6;
        sum += w * logits[i * V + j];
        abs += Math.abs(w * logits[i * V + j]);
      }
      total += max + Math.log(z) - logits[i * V + t];
      count++;
    });
  });
  return { loss: total / count, sum, abs };
}

// The starting weights of both sides: the core's trainer at seed 1, before any step, as a
// safetensors file (the core's own format; F32).
export async function startingWeights(ap, c) {
  const trainer = await ap.createTrainer(trainerOptions(c));
  try {
    const model = trainer.snapshot();
    try {
      return model.save();
    } finally {
      model.dispose();
    }
  } finally {
    trainer.dispose();
  }
}

export const trainerOptions = (c) => ({
  task: c.task,
  // The shipped reverse model's sizes and kinds (its train_command: the CLI's defaults).
  config: { dModel: 64, nHeads: 4, nLayers: 2, dFf: 256, pos: 'learned', act: 'gelu', norm: 'post' },
  batch: c.batch,
  seed: 1,
  lr: 2e-3,
  warmupSteps: 100,
  totalSteps: 1e6,
});

// A safetensors file's header and its F32 tensors by name (the reverse model is all F32).
export function readSafetensors(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const tensors = {};
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    if (t.dtype !== 'F32') throw new Error(`${name}: ${t.dtype}, the benchmark reads F32 only`);
    const [a, b] = t.data_offsets;
    tensors[name] = { shape: t.shape, data: new Float32Array(bytes.slice(8 + n + a, 8 + n + b).buffer) };
  }
  const meta = header.__metadata__ ?? {};
  return { tensors, config: JSON.parse(meta.config), vocab: JSON.parse(meta.vocab), meta };
}
