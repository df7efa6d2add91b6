// ESLint (flat config): `npm run lint`, and `npm test` right after the formatting check.
// Correctness only: @eslint/js's recommended rules, with unused variables and imports as errors.
// No style rules: Prettier formats (tests/tools/format.mjs).
import js from '@eslint/js';
import globals from 'globals';

const both = { ...globals.browser, ...globals.node };
const unused = { args: 'after-used', caughtErrors: 'none', ignoreRestSiblings: true };

export default [
  {
    // Builds, dependencies, generated output and vendored code (see the .gitignore files).
    ignores: [
      '**/node_modules/',
      'dist/',
      'build/',
      'build-*/',
      'wasm/build/',
      '**/.vite/',
      '**/.cache/',
      '**/_build/',
      'tests/web/screenshots/',
      'examples/myst/theme/', // the MyST book theme: myst-theme's source, with its own build
      'examples/myst/widgets/', // the widget bundle, copied there by the book build
      'examples/observable/dist/',
      'examples/observable/src/.observablehq/',
      'web/lib/reserve.js', // written by tests/tools/reserve.mjs
    ],
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      ...js.configs.recommended.rules,
      'no-unused-vars': ['error', unused],
    },
  },
  // The page and the widgets, and the examples that embed them: the browser.
  {
    files: ['web/**/*.js', 'examples/**/*.js'],
    ignores: ['web/vite*.js', 'examples/observable/observablehq.config.js'],
    languageOptions: { globals: globals.browser },
  },
  // The web side's layering (docs/design.md): lib/ imports nothing from components/, and a widget
  // imports no other widget (the code two widgets share lives in lib/). components/index.js, which
  // registers every tag for the page, is not a widget; the quiz's predict cards reveal two live
  // widgets (<ap-softmax>, <ap-causal-mask>) after an answer, the one widget made of widgets.
  {
    files: ['web/lib/**/*.js'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/components/**'], message: 'web/lib/ imports nothing from web/components/.' }] },
      ],
    },
  },
  {
    files: ['web/components/**/*.js'],
    ignores: ['web/components/index.js', 'web/components/quiz/predict.js'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['./ap-*', '../ap-*', '**/components/ap-*'],
              message: 'A widget imports no other widget: move what they share into web/lib/.',
            },
          ],
        },
      ],
    },
  },
  // Build configuration, the Node examples and the tests: Node.
  {
    files: [
      'web/vite*.js',
      'examples/observable/observablehq.config.js',
      'examples/**/*.mjs',
      'tests/**/*.js',
      'tests/**/*.mjs',
    ],
    languageOptions: { globals: globals.node },
  },
  // Both: the library loads in Node and in browsers; the browser tests, the benchmark and the
  // tools that drive Chromium pass functions to Playwright (page.evaluate) that run in the page.
  {
    files: ['wasm/index.js', 'wasm/lib/**/*.js', 'tests/web/**/*.js', 'tests/bench/**/*.mjs', 'tests/tools/**/*.mjs'],
    languageOptions: { globals: both },
  },
  // Not a module: prepended to emscripten's glue (--pre-js, CMakeLists.txt), whose scope gives it
  // Module and _scriptDir and reads the vars it declares (importScripts, require, __dirname).
  {
    files: ['wasm/node-pre.js'],
    languageOptions: {
      sourceType: 'script',
      globals: { ...globals.nodeBuiltin, WorkerGlobalScope: 'readonly', Module: 'readonly', _scriptDir: 'readonly' },
    },
    rules: { 'no-unused-vars': ['error', { ...unused, vars: 'local' }] },
  },
];
