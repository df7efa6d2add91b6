// Reads the PyTorch golden values (tests/fixtures/torch, made by tests/reference/make_fixtures.py)
// and compares a Float32Array to them: max |ours - torch| / max(1, |torch|), reported on failure.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

// tests/fixtures/<folder>/: torch (make_fixtures.py), modern (make_modern_fixtures.py).
const dirOf = (folder) => fileURLToPath(new URL(`../fixtures/${folder}/`, import.meta.url));

export function fixtureNames(prefix, folder = 'torch') {
  return readdirSync(dirOf(folder))
    .filter((f) => f.startsWith(prefix) && f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();
}

export function loadFixture(name, folder = 'torch') {
  return JSON.parse(readFileSync(dirOf(folder) + name + '.json', 'utf8'));
}

/** The createModel() config of a fixture's model (its config in the file's snake_case), with its character vocabulary. */
export function fixtureConfig(fx) {
  const c = fx.config;
  const config = {
    arch: c.arch,
    dModel: c.d_model,
    nHeads: c.n_heads,
    nLayers: c.n_layers,
    dFf: c.d_ff,
    maxLen: c.max_len,
    pos: c.pos,
    act: c.act,
    norm: c.norm,
    eps: c.eps,
    normKind: c.norm_kind,
    ffnKind: c.ffn_kind,
    nKvHeads: c.n_kv_heads,
    window: c.window,
    tokenizer: 'char',
    vocab: fx.vocab.slice(4),
  };
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined));
}

/** A model of a fixture's config with the fixture's weights (the core's tensors are exactly the fixture's). */
export function fixtureModel(ap, fx) {
  const model = ap.createModel(fixtureConfig(fx));
  expect(
    model
      .tensors()
      .map((t) => t.name)
      .sort(),
  ).toEqual(Object.keys(fx.weights).sort());
  for (const [n, t] of Object.entries(fx.weights)) model.setTensor(n, arr(t));
  return model;
}

/** ap.attention's options for an attention fixture case: its input, sizes, switches and weights. */
export function attentionOptions(fx) {
  const p = fx.params,
    w = fx.weights;
  const pre = 'wq' in w ? '' : 'self_attn.';
  const opts = {
    x: arr(fx.inputs.x),
    n: p.n,
    dModel: p.d_model,
    nHeads: p.n_heads,
    causal: !!p.causal,
    scale: p.scale !== false,
    wq: arr(w[pre + 'wq']),
    wk: arr(w[pre + 'wk']),
    wv: arr(w[pre + 'wv']),
    wo: arr(w[pre + 'wo']),
  };
  if (w[pre + 'bq']) for (const b of ['bq', 'bk', 'bv', 'bo']) opts[b] = arr(w[pre + b]);
  if (fx.inputs.memory) {
    opts.memory = arr(fx.inputs.memory);
    opts.m = p.m;
  }
  if (p.key_padding) opts.keyPadding = p.key_padding;
  return opts;
}

/** Float32Array of a fixture tensor; null (-inf in "masked") becomes -Infinity. */
export function arr(t) {
  return Float32Array.from(t.data, (v) => (v === null ? -Infinity : v));
}

export const worst = { value: 0, where: '' };

export function expectClose(ours, want, what, tol = 1e-5) {
  const w = arr(want);
  expect(ours.length, `${what}: length`).toBe(w.length);
  let max = 0,
    at = 0;
  for (let i = 0; i < w.length; i++) {
    if (!Number.isFinite(w[i]) || !Number.isFinite(ours[i])) {
      expect(ours[i], `${what}[${i}]`).toBe(w[i]);
      continue;
    }
    const rel = Math.abs(ours[i] - w[i]) / Math.max(1, Math.abs(w[i]));
    if (rel > max) {
      max = rel;
      at = i;
    }
  }
  if (max > worst.value) {
    worst.value = max;
    worst.where = what;
  }
  expect(
    max,
    `${what}: max relative difference ${max} at ${at} (ours ${ours[at]}, torch ${w[at]})`,
  ).toBeLessThanOrEqual(tol);
  return max;
}
