// Training (ap.createTrainer, ap.evaluateTask): the trainer lives in the second module
// (loadTrainer), fetched the first time it is needed; models cross between the two modules as
// their safetensors files.
import { checkInt, checkInts, coreError } from './checks.js';
import { toSnakeConfig } from './config.js';
import { Model } from './model.js';

// The instance that has the trainer: this one (loadTrainer()'s), or the second module.
function trainerHost(ap) {
  if (typeof ap._raw.createTrainer === 'function') return Promise.resolve(ap);
  return ap._loadTrainer({ relaxed: ap._relaxed });
}

export async function evaluateTask(ap, model, opts = {}) {
  if (!(model instanceof Model)) throw new Error('evaluateTask() needs a model from loadModel() or createModel()');
  checkInt(opts.n ?? 200, 'n');
  const host = await trainerHost(ap);
  if (host === ap || model._ap === host) return evaluateTaskHere(host, model, opts);
  const copy = host.loadModel(model.save()); // the model's file, opened in the trainer module
  try {
    return evaluateTaskHere(host, copy, opts);
  } finally {
    copy.dispose();
  }
}

export async function createTrainer(ap, opts = {}) {
  const { task, from = null } = opts;
  if (typeof task !== 'string')
    throw new Error("createTrainer() needs a task: 'sort', 'reverse', 'dates', 'grammar' or 'mlm'");
  if (from !== null && !(from instanceof Model))
    throw new Error('createTrainer({ from }) needs a model from loadModel() or createModel()');
  const host = await trainerHost(ap);
  if (host === ap) return createTrainerHere(ap, opts);
  // The trainer lives in the second module (its own memory): the starting model goes over as
  // its file, and every snapshot comes back as one, opened in this module.
  const start = from ? (from._ap === host ? from : host.loadModel(from.save())) : null;
  let inner;
  try {
    inner = createTrainerHere(host, { ...opts, from: start });
  } finally {
    if (start && start !== from) start.dispose();
  }
  return {
    step(n = 1) {
      return inner.step(n);
    },
    info() {
      return inner.info();
    },
    evaluate(n = 100, evalSeed = 777) {
      return inner.evaluate(n, evalSeed);
    },
    snapshot() {
      const model = inner.snapshot();
      try {
        return ap.loadModel(model.save());
      } finally {
        model.dispose();
      }
    },
    dispose() {
      inner.dispose();
    },
  };
}

function evaluateTaskHere(ap, model, { n = 200, seed = 12345 } = {}) {
  const out = ap._raw.evaluateTask(model._alive(), n, seed);
  if (!out) ap._fail('evaluateTask');
  return out;
}

function createTrainerHere(
  ap,
  { task, config, from = null, seed = 1, lr = 2e-3, warmupSteps = 100, totalSteps = 2000, batch = 32 },
) {
  // Fine-tuning (from: a loaded model): the sizes are the model's; the core checks the rest.
  if (config === undefined) {
    config = {};
    if (from) for (const k of ['dModel', 'nHeads', 'nLayers', 'dFf', 'pos', 'act', 'norm']) config[k] = from.config[k];
  }
  const sizes = toSnakeConfig(config);
  // Types only (embind would truncate a fraction); the core checks every range (batch, lr, the schedule).
  checkInts({ batch, warmupSteps, totalSteps });
  if (typeof lr !== 'number') throw new Error(`lr must be a number, got ${lr}`);
  const handle = ap._raw.createTrainer(task, JSON.stringify(sizes), lr, warmupSteps, totalSteps, batch, seed);
  if (!handle) ap._fail('createTrainer');
  if (from && !handle.startFrom(from._alive())) {
    const message = ap._raw.lastError() || 'unknown error';
    handle.delete();
    throw coreError('createTrainer', message);
  }
  const trainer = {
    _h: handle,
    _alive() {
      if (!this._h) throw new Error('this trainer was disposed');
      return this._h;
    },
    /** Runs n optimisation steps; returns their mean loss. */
    step(n = 1) {
      checkInt(n, 'n');
      const loss = this._alive().step(n);
      if (Number.isNaN(loss)) ap._fail('trainer.step');
      return loss;
    },
    /** { steps, lr, gradNorm, task, shards, threads } */
    info() {
      return this._alive().info();
    },
    /** Held-out accuracy of the current weights: { total, correct, accuracy }. */
    evaluate(n = 100, evalSeed = 777) {
      checkInt(n, 'n', { min: 1 }); // the core's evaluate takes n as given
      const out = this._alive().evaluate(n, evalSeed);
      if (!out) ap._fail('trainer.evaluate');
      return out;
    },
    /** The current weights as a Model (forward it to read the attention patterns). */
    snapshot() {
      const mh = this._alive().snapshot();
      if (!mh) ap._fail('trainer.snapshot');
      return ap._own(mh, new Model(ap, mh));
    },
    dispose() {
      if (this._h) {
        ap._release(this, this._h);
        this._h = null;
      }
    },
  };
  return ap._own(handle, trainer);
}
