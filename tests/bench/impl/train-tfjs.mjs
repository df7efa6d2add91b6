// The reverse model's training step written with TF.js (tfjs-core + tfjs-backend-wasm: XNNPACK,
// SIMD, one thread; see create for more), tuned by hand: the starting weights are the core trainer's (its seeded
// initialisation, read from the safetensors file it saves), the step is the same as the core's
// trainer (train-cases.mjs). What "by hand" means here, each measured on this machine:
// - every linear layer is a 2-D product with a custom gradient whose products are 2-D and
//   untransposed (explicit tf.transpose first): the wasm backend hands a product to XNNPACK only
//   then, and matMul's own gradient asks for transposed operands (the slow loop). The second runner
//   (options.linear 'plain') is the step as people write it: tf.matMul and its own gradient;
// - the token embedding is a one-hot product (tf.gather's gradient needs UnsortedSegmentSum, which
//   the wasm backend lacks);
// - attention over all (example, head) pairs at once: one batched product for the scores and one
//   for the weighted sum (per pair 2-D products were 2.7x slower a step here);
// - everything in one tf.tidy, the loss read back once per step (dataSync), as a training loop must.
import {
  CHECK_STRINGS,
  checkSum,
  encodeExample,
  readSafetensors,
  startingWeights,
  stringStream,
  trainExamples,
} from '../train-cases.mjs';
import { startTfjsWasm } from './tfjs.mjs';

// options.threads > 1: tfjs-backend-wasm's threaded binary where it starts (startTfjsWasm: not in
// Node, where a threaded runner fails with the reason rather than run one thread under its name).
export async function create(env, options = {}) {
  const plain = options.linear === 'plain';
  const tf = await env.loadTfjsTraining();
  const threads = await startTfjsWasm(tf, env, options.threads ?? 1);
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  // The core's module, for the starting weights only (never timed).
  const { load } = await env.importModule('wasm/index.js');
  const ap = await load();
  let file = null,
    config = null,
    vocab = null,
    d = 0,
    NH = 0,
    dk = 0,
    V = 0,
    L = 0;
  const open = (bytes) => {
    file = readSafetensors(bytes);
    ({ config, vocab } = file);
    if (config.arch !== 'decoder' || config.norm !== 'post' || config.act !== 'gelu' || config.pos !== 'learned')
      throw new Error(`train-tfjs writes the reverse model's architecture only (got ${JSON.stringify(config)})`);
    d = config.d_model;
    NH = config.n_heads;
    dk = d / NH;
    V = vocab.length;
    L = config.n_layers;
  };

  // x (N, in) @ W (in, out) + b, every product of the forward and backward 2-D and untransposed.
  const tuned = tf.customGrad((x, W, b, save) => {
    save([x, W]);
    return {
      value: tf.add(tf.matMul(x, W), b),
      gradFunc: (dy, [xs, Ws]) => [tf.matMul(dy, tf.transpose(Ws)), tf.matMul(tf.transpose(xs), dy), tf.sum(dy, 0)],
    };
  });
  const linear = plain ? (x, W, b) => tf.add(tf.matMul(x, W), b) : tuned;

  let vars = null,
    opt = null,
    draw = null,
    t = 0;
  const init = () => {
    vars = {};
    for (const [name, { shape, data }] of Object.entries(file.tensors))
      vars[name] = tf.variable(tf.tensor(data, shape), true, name);
    // AdamW state; weight decay on the matrices (rank 2), as the core's trainer.
    opt = Object.fromEntries(
      Object.entries(vars).map(([n, v]) => [n, { m: tf.variable(tf.zerosLike(v)), v: tf.variable(tf.zerosLike(v)) }]),
    );
    t = 0;
  };

  const layerNorm = (x, gamma, beta) => {
    const mean = tf.mean(x, -1, true);
    const xc = tf.sub(x, mean);
    const variance = tf.mean(tf.square(xc), -1, true);
    return tf.add(tf.mul(tf.mul(xc, tf.rsqrt(tf.add(variance, config.eps))), gamma), beta);
  };
  const gelu = (x) => tf.mul(tf.mul(x, 0.5), tf.add(1, tf.erf(tf.mul(x, Math.SQRT1_2))));

  // (B*T, d) -> (B*NH, T, dk)
  const splitHeads = (x, B, T) =>
    tf.reshape(tf.transpose(tf.reshape(x, [B, T, NH, dk]), [0, 2, 1, 3]), [B * NH, T, dk]);
  const mergeHeads = (x, B, T) => tf.reshape(tf.transpose(tf.reshape(x, [B, NH, T, dk]), [0, 2, 1, 3]), [B * T, d]);

  const attend = (q, k, v, mask) => {
    const scores = tf.add(tf.mul(tf.matMul(q, tf.transpose(k, [0, 2, 1])), 1 / Math.sqrt(dk)), mask);
    return tf.matMul(tf.softmax(scores), v);
  };

  // Logits (B*T, V) of a padded batch of inputs (B, T).
  const forward = (inputs, B, T) => {
    const p = vars;
    const oneHot = tf.cast(tf.oneHot(tf.tensor1d(inputs, 'int32'), V), 'float32');
    const tok = tf.reshape(tf.matMul(oneHot, p.tok_emb), [B, T, d]);
    let x = tf.reshape(tf.add(tok, tf.slice(p.pos_emb, [0, 0], [T, d])), [B * T, d]);
    const causal = new Float32Array(T * T);
    for (let i = 0; i < T; i++) causal.fill(-1e9, i * T + i + 1, (i + 1) * T);
    const mask = tf.tensor2d(causal, [T, T]);
    for (let l = 0; l < L; l++) {
      const w = (n) => p[`decoder.${l}.${n}`];
      const q = splitHeads(linear(x, w('self_attn.wq'), w('self_attn.bq')), B, T);
      const k = splitHeads(linear(x, w('self_attn.wk'), w('self_attn.bk')), B, T);
      const v = splitHeads(linear(x, w('self_attn.wv'), w('self_attn.bv')), B, T);
      const a = linear(mergeHeads(attend(q, k, v, mask), B, T), w('self_attn.wo'), w('self_attn.bo'));
      x = layerNorm(tf.add(x, a), w('norm1.gamma'), w('norm1.beta'));
      const f = linear(gelu(linear(x, w('ffn.w1'), w('ffn.b1'))), w('ffn.w2'), w('ffn.b2'));
      x = layerNorm(tf.add(x, f), w('norm2.gamma'), w('norm2.beta'));
    }
    return linear(x, p['lm_head.w'], p['lm_head.b']);
  };

  // Pads examples to the longest: inputs (B*T) and targets (B*T), 0 = pad / no loss.
  const pad = (examples) => {
    const T = Math.max(...examples.map((e) => e.inputs.length));
    const inputs = new Int32Array(examples.length * T),
      targets = new Int32Array(examples.length * T);
    examples.forEach((e, b) => {
      inputs.set(e.inputs, b * T);
      targets.set(e.targets, b * T);
    });
    return { inputs, targets, T, B: examples.length };
  };

  const lossOf = ({ inputs, targets, T, B }) => {
    const logits = forward(inputs, B, T);
    const weight = tf.tensor1d(Float32Array.from(targets, (x) => (x !== 0 ? 1 : 0)));
    const count = targets.reduce((n, x) => n + (x !== 0 ? 1 : 0), 0);
    const picked = tf.sum(
      tf.mul(tf.logSoftmax(logits), tf.cast(tf.oneHot(tf.tensor1d(targets, 'int32'), V), 'float32')),
      1,
    );
    return tf.div(tf.neg(tf.sum(tf.mul(picked, weight))), count);
  };

  const STEP = { lr: 2e-3, beta1: 0.9, beta2: 0.98, eps: 1e-8, decay: 0.01, clip: 1 };
  const step = (batch) => {
    t++;
    const loss = tf.tidy(() => {
      const list = Object.values(vars);
      const { value, grads } = tf.variableGrads(() => lossOf(batch), list);
      const norm = tf.sqrt(tf.addN(Object.values(grads).map((g) => tf.sum(tf.square(g)))));
      const clip = tf.minimum(1, tf.div(STEP.clip, tf.add(norm, 1e-6)));
      const c1 = 1 - STEP.beta1 ** t,
        c2 = 1 - STEP.beta2 ** t;
      for (const [name, v] of Object.entries(vars)) {
        const g = tf.mul(grads[name], clip);
        const s = opt[name];
        s.m.assign(tf.add(tf.mul(s.m, STEP.beta1), tf.mul(g, 1 - STEP.beta1)));
        s.v.assign(tf.add(tf.mul(s.v, STEP.beta2), tf.mul(tf.square(g), 1 - STEP.beta2)));
        let update = tf.div(tf.div(s.m, c1), tf.add(tf.sqrt(tf.div(s.v, c2)), STEP.eps));
        if (v.shape.length === 2) update = tf.add(update, tf.mul(v, STEP.decay));
        v.assign(tf.sub(v, tf.mul(update, STEP.lr)));
      }
      return value;
    });
    const out = loss.dataSync()[0];
    loss.dispose();
    return out;
  };

  return {
    info: {
      variant:
        `tfjs ${tf.version_core} wasm backend (simd ${simd}, ${threads} thread${threads === 1 ? '' : 's'}), ` +
        (plain
          ? 'tf.matMul and its own gradient (as people write it)'
          : 'linear layers as 2-D XNNPACK products with explicit transposes (tuned by hand)') +
        ', attention as batched products',
      threads,
    },
    supports(c) {
      return c.kind === 'train' ? true : 'training cases only';
    },
    async prepare(c) {
      this.release();
      open(await startingWeights(ap, c));
      init();
      const examples = CHECK_STRINGS.map((s) => encodeExample(s, vocab));
      const check = pad(examples);
      const logits = tf.tidy(() => forward(check.inputs, check.B, check.T).dataSync());
      const sums = checkSum(examples, (e) => logits.subarray(e * check.T * V, (e + 1) * check.T * V), V);
      const next = stringStream(c.batch);
      draw = () => pad(Array.from({ length: c.batch }, () => encodeExample(next(), vocab)));
      return { checksum: sums, examples: trainExamples(c) };
    },
    run(reps) {
      const t0 = performance.now();
      let loss = 0;
      for (let r = 0; r < reps; r++) loss = step(draw());
      if (!Number.isFinite(loss)) throw new Error(`tfjs loss is ${loss}`);
      return { seconds: (performance.now() - t0) / 1e3, loss };
    },
    release() {
      if (!vars) return;
      for (const v of Object.values(vars)) v.dispose();
      for (const s of Object.values(opt)) {
        s.m.dispose();
        s.v.dispose();
      }
      vars = opt = null;
    },
  };
}
