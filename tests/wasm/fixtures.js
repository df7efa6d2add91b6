// Reads the PyTorch golden values (tests/fixtures/torch, made by tests/reference/make_fixtures.py)
// and compares a Float32Array to them: max |ours - torch| / max(1, |torch|), reported on failure.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const dir = fileURLToPath(new URL('../fixtures/torch/', import.meta.url));

export function fixtureNames(prefix) {
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
    .sort();
}

export function loadFixture(name) {
  return JSON.parse(readFileSync(dir + name + '.json', 'utf8'));
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
