// The web side's layering, kept by ESLint (eslint.config.js, no-restricted-imports): web/lib/ imports
// nothing from web/components/, and a widget imports no other widget. These lint one-line probes
// at a widget's and a lib file's paths, so the rule cannot be dropped or narrowed unnoticed. (The
// C++ side's direction is checked by the ctest tests layering_*, CMakeLists.txt.)
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function restricted(code, filePath) {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

test('web/lib/ may not import from web/components/', async () => {
  expect(await restricted("import '../components/ap-softmax.js';\n", 'web/lib/probe.js')).toEqual([
    expect.stringMatching(/web\/lib\/ imports nothing from web\/components\//),
  ]);
  expect(await restricted("import { el } from './dom.js';\nel;\n", 'web/lib/probe.js')).toEqual([]);
});

test('a widget may not import another widget, and may import web/lib/', async () => {
  const probe = 'web/components/ap-probe.js';
  for (const code of [
    "import { ApTraining } from './ap-training.js';\nApTraining;\n",
    "import '../ap-softmax.js';\n",
    "import '/components/ap-heads.js';\n",
  ]) {
    const file = code.includes("'../") ? 'web/components/quiz/card.js' : probe;
    expect(await restricted(code, file), code).toEqual([expect.stringMatching(/A widget imports no other widget/)]);
  }
  expect(await restricted("import { ApTraining } from '../lib/training-widget.js';\nApTraining;\n", probe)).toEqual([]);
});
