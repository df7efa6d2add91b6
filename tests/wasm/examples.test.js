// The examples run as a user would run them, and print the notes' numbers.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

test('examples/node-api.mjs prints the Thinking Machines numbers and a sorted string', () => {
  const out = execFileSync(process.execPath, ['examples/node-api.mjs'], { cwd: root, encoding: 'utf8' });
  expect(out).toContain('scores 112, 96; scaled by sqrt(64) = 8: 14, 12; weights 0.88, 0.12');
  expect(out).toContain('head 0 weights (row 0 sees only itself): 1.000 0.000 0.000');
  expect(out).toMatch(/sort\("zebra42"\) = "24aberz" \(eos\)/);
});

test("examples/pretrained.mjs opens a Hugging Face folder: BERT's [MASK] guesses are PyTorch's, GPT-2 continues with the KV cache", () => {
  const run = (...args) =>
    execFileSync(process.execPath, ['examples/pretrained.mjs', ...args], { cwd: root, encoding: 'utf8' });
  const fx = JSON.parse(readFileSync(root + '/tests/fixtures/hf/expected/bert-tiny.json', 'utf8'));
  const vocab = JSON.parse(readFileSync(root + '/tests/fixtures/hf/tokenizers/wordpiece.json', 'utf8')).model.vocab;
  const word = (id) => Object.keys(vocab).find((k) => vocab[k] === id);
  const bert = run('tests/fixtures/hf/bert-tiny-bf16', fx.text);
  expect(bert).toContain('bert: 2 layers x 4 heads, d_model 64');
  expect(bert).toContain(`[MASK] at ${fx.mlm.position}: ${word(fx.mlm.ids[0])} ${fx.mlm.probs[0].toFixed(3)}`);
  const gpt = run();
  expect(gpt).toContain('gpt2: 2 layers x 4 heads, d_model 64, vocabulary 512');
  expect(gpt).toMatch(/continuation: ".+" \(8 steps, the last over 17 cached keys\)/);
});
