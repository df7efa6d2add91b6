// The examples run as a user would run them, and print the notes' numbers.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('examples/node-api.mjs prints the Thinking Machines numbers and a sorted string', () => {
  const out = execFileSync(process.execPath, ['examples/node-api.mjs'], { cwd: root, encoding: 'utf8' });
  expect(out).toContain('scores 112, 96; scaled by sqrt(64) = 8: 14, 12; weights 0.88, 0.12');
  expect(out).toContain('head 0 weights (row 0 sees only itself): 1.000 0.000 0.000');
  expect(out).toMatch(/sort\("zebra42"\) = "24aberz" \(eos\)/);
});
