// The Web Worker of the training view (<ap-training>): the core's C++ trainer runs here, off the
// page's main thread, so the page stays responsive while a tiny transformer learns. It lives in
// the second wasm module (wasm/index.js loadTrainer()), which only this worker fetches.
// The page creates it with
//   new Worker(new URL('../lib/training-worker.js', import.meta.url), { type: 'module' })
// and talks to it with messages:
//   page -> worker: { type: 'init', gen, spec }   a new trainer (spec below), step 0 reported
//                   { type: 'run' }               train until paused or spec.totalSteps
//                   { type: 'pause' }             stop after the current chunk
//                   { type: 'step' }              one chunk of spec.every steps (when paused)
//                   { type: 'dispose' }           free the trainer
//   worker -> page: { type: 'ready', gen, step, ... }     after init (the untrained model)
//                   { type: 'progress', gen, ... }        every spec.every steps
//                   { type: 'paused' | 'done', gen, step }
//                   { type: 'error', gen, message }
// Every number posted comes from the core: the chunk's mean loss (trainer.step), the held-out
// accuracy (trainer.evaluate), the attention weights of a fixed held-out example (a forward pass
// of trainer.snapshot()) and the model's greedy answer to it (model.generate).
//
// spec: { task, config, seed, lr, warmupSteps, totalSteps, batch, every, evalN, evalSeed,
//         evalEvery, example: { src, tgt, prompt?, expected? }, fromBytes (optional: a model file to
//         fine-tune) }. A language model's example has no src: its greedy answer continues `prompt`.
import { loadTrainer } from '../../wasm/index.js';
import { errorText } from './dom.js';

let ap = null;
let trainer = null;
let spec = null;
let gen = 0;
let running = false;
let looping = false;
let chunks = 0;
let lastEval = null;
let pendingStep = false; // a 'step' that arrived while 'init' was loading the module

const post = (msg, transfer = []) => self.postMessage({ gen, ...msg }, transfer);

function fail(err) {
  running = false;
  post({ type: 'error', message: errorText(err) });
}

function disposeTrainer() {
  if (trainer) {
    trainer.dispose();
    trainer = null;
  }
}

// Token ids of the fixed example, as the task's model reads it (tasks.hpp): decoder-only seq2seq
// "<bos> src = tgt", a language model "<bos> sentence", encoder-decoder src | "<bos> tgt".
function exampleInput(model) {
  const { src, tgt } = spec.example;
  const tok = model.tokenizer;
  const encode = (text) => {
    const e = tok.encode(text);
    if (e.unknown.length) throw new Error(`the example "${text}" has pieces the ${spec.task} vocabulary does not know`);
    return Array.from(e.ids);
  };
  // model.prompt: the core's format (<bos>, the text, the task's separator).
  const prompt = (text) => {
    const p = model.prompt(text);
    if (p.unknown.length) throw new Error(`the example "${text}" has pieces the ${spec.task} vocabulary does not know`);
    return Array.from(p.ids);
  };
  if (model.config.arch === 'encoder-decoder') {
    const s = encode(src),
      t = [...prompt(src), ...encode(tgt)]; // the decoder: <bos> tgt
    return {
      input: { src: Int32Array.from(s), tgt: Int32Array.from(t) },
      rows: t,
      cols: s,
      stage: 'cross_weights',
      maskStage: null,
    };
  }
  const ids = src ? [...prompt(src), ...encode(tgt)] : prompt(tgt);
  return { input: Int32Array.from(ids), rows: ids, cols: ids, stage: 'weights', maskStage: 'masked' };
}

// The attention of every layer and head on the example, and the model's own answer to it.
function look(model) {
  const ex = exampleInput(model);
  const trace = model.forward(ex.input);
  const { nLayers, nHeads } = model.config;
  const heads = [];
  const transfer = [];
  try {
    for (let layer = 0; layer < nLayers; layer++) {
      for (let head = 0; head < nHeads; head++) {
        const values = trace.get(ex.stage, { layer, head });
        let masked = null;
        if (ex.maskStage) {
          const m = trace.get(ex.maskStage, { layer, head });
          masked = new Uint8Array(m.length);
          for (let k = 0; k < m.length; k++) masked[k] = m[k] === -Infinity ? 1 : 0;
          transfer.push(masked.buffer);
        }
        heads.push({ layer, head, values, masked });
        transfer.push(values.buffer);
      }
    }
  } finally {
    trace.dispose();
  }
  const piece = (id) => model.vocab[id] ?? `#${id}`;
  // The model's greedy answer: to the source (seq2seq tasks), or the continuation of the
  // sentence's subject (the language model: does the verb agree?).
  const { src, tgt, prompt } = spec.example;
  let answer = null;
  const g = model.generate(src || prompt, { maxTokens: spec.answerTokens || 12 });
  try {
    answer = {
      prompt: src || prompt,
      text: g.text,
      expected: src ? tgt : spec.example.good || spec.example.expected || '',
    };
  } finally {
    g.dispose();
  }
  // The language model's agreement probe on the example: after the subject, the probability of
  // the verb form that agrees (good) and of the one that does not (bad), from the core's probs.
  if (spec.example.good) {
    const ids = Array.from(model.prompt(prompt).ids);
    const t = model.forward(Int32Array.from(ids));
    try {
      const probs = t.get('probs');
      const V = model.vocab.length,
        row = (ids.length - 1) * V;
      const id = (w) => model.vocab.indexOf(w);
      answer.pGood = probs[row + id(spec.example.good)];
      answer.pBad = probs[row + id(spec.example.bad)];
    } finally {
      t.dispose();
    }
  }
  return {
    attention: {
      stage: ex.stage,
      rowLabels: ex.rows.map(piece),
      colLabels: ex.cols.map(piece),
      heads,
      nLayers,
      nHeads,
    },
    answer,
    transfer,
  };
}

function report(type, loss) {
  const info = trainer.info();
  if (type !== 'progress' || chunks % (spec.evalEvery || 1) === 0 || info.steps >= spec.totalSteps) {
    lastEval = trainer.evaluate(spec.evalN, spec.evalSeed);
  }
  const model = trainer.snapshot();
  let seen;
  try {
    seen = look(model);
  } finally {
    model.dispose();
  }
  post(
    {
      type,
      step: info.steps,
      loss,
      lr: info.lr,
      gradNorm: info.gradNorm,
      accuracy: lastEval.accuracy,
      correct: lastEval.correct,
      total: lastEval.total,
      byKind: lastEval.byKind,
      attention: seen.attention,
      answer: seen.answer,
    },
    seen.transfer,
  );
}

function chunk() {
  const left = spec.totalSteps - trainer.info().steps;
  if (left <= 0) return false;
  const loss = trainer.step(Math.min(spec.every, left));
  chunks++;
  report('progress', loss);
  return true;
}

function stepOnce() {
  if (!chunk()) post({ type: 'done', step: trainer.info().steps });
  else post({ type: 'paused', step: trainer.info().steps });
}

async function loop() {
  if (looping) return;
  looping = true;
  try {
    // One loop at a time: an 'init' in between chunks swaps the trainer and the loop goes on
    // with the new one (or stops, when the new one should not run).
    while (running && trainer) {
      if (!chunk()) {
        running = false;
        post({ type: 'done', step: trainer.info().steps });
        break;
      }
      // Let 'pause' / 'init' messages in between chunks.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
  } catch (err) {
    fail(err);
  } finally {
    looping = false;
  }
}

self.onmessage = async (e) => {
  const msg = e.data || {};
  try {
    if (msg.type === 'init') {
      running = !!msg.run;
      pendingStep = false;
      gen = msg.gen;
      spec = msg.spec;
      chunks = 0;
      disposeTrainer();
      // The trainer module alone: models, traces and the trainer share its memory (the page's
      // own module, without the trainer, is not loaded here).
      if (!ap) ap = await loadTrainer();
      if (gen !== msg.gen) return; // a newer init arrived while loading
      // Fine-tuning (pretrain-finetune): spec.fromBytes is a pre-trained model file whose
      // weights the trainer starts from instead of its seeded initialisation.
      const from = spec.fromBytes ? ap.loadModel(spec.fromBytes) : null;
      let created;
      try {
        created = await ap.createTrainer({
          task: spec.task,
          config: spec.config,
          from,
          seed: spec.seed,
          lr: spec.lr,
          warmupSteps: spec.warmupSteps,
          totalSteps: spec.totalSteps,
          batch: spec.batch,
        });
      } finally {
        from?.dispose();
      }
      if (gen !== msg.gen) {
        created.dispose();
        return;
      } // superseded meanwhile
      trainer = created;
      report('ready', null);
      if (running) loop();
      else if (pendingStep) {
        pendingStep = false;
        stepOnce();
      }
    } else if (msg.type === 'run') {
      running = true; // (a run that arrives while 'init' is loading starts once it is ready)
      if (trainer) loop();
    } else if (msg.type === 'pause') {
      running = false;
      if (trainer) post({ type: 'paused', step: trainer.info().steps });
    } else if (msg.type === 'step') {
      if (running) return;
      if (!trainer) {
        pendingStep = true;
        return;
      }
      stepOnce();
    } else if (msg.type === 'dispose') {
      running = false;
      disposeTrainer();
    }
  } catch (err) {
    fail(err);
  }
};
