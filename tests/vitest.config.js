// Vitest runs from the repo root (web/vite.config.js is for the page, whose root is web/), as two
// projects: wasm (tests/wasm/ in Node against the real built module) and web (tests/web/ driving
// headless Chromium). The web project's globalSetup starts one Chromium, one Vite dev server and
// one static server for all its files, and only when a file of tests/web/ is in the run.
import { fileURLToPath } from 'node:url';
import { BaseSequencer } from 'vitest/node';
import { defineConfig } from 'vitest/config';
import { modelHeaders } from '../web/vite-model-headers.js';

// Files that take far longer than the others (a fixed-budget training run, pages that train or
// draw every view): with no timings from an earlier run (a fresh clone), Vitest would start them
// by file size, and a long one started last keeps one worker busy while the other has finished.
const SLOW_FIRST = [
  'tests/web/integration-myst.test.js', // from a fresh clone: installs and builds the book theme (~80 s)
  'tests/wasm/trainer.test.js',
  'tests/web/axe.test.js',
  'tests/web/playground.test.js',
  'tests/web/views-content.test.js',
  'tests/web/embed.test.js',
  'tests/web/path.test.js',
  'tests/web/build.test.js',
  'tests/web/views-learning.test.js',
];

class Sequencer extends BaseSequencer {
  async sort(files) {
    const sorted = await super.sort(files);
    const known = (spec) =>
      this.ctx.cache.getFileTestResults(`${spec.project.name}:${spec.moduleId.slice(this.ctx.config.root.length + 1)}`);
    const rank = (spec) => {
      if (known(spec)) return SLOW_FIRST.length; // timed before: Vitest's order (longest first)
      const i = SLOW_FIRST.findIndex((f) => spec.moduleId.endsWith(f));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    return sorted
      .map((spec, i) => ({ spec, i, r: rank(spec) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .map((x) => x.spec);
  }
}

export default defineConfig({
  // Node tests import the page's modules (web/lib/state.js -> models.js), which read the model
  // headers the build lists (virtual:ap-model-headers).
  plugins: [modelHeaders()],
  test: {
    root: fileURLToPath(new URL('..', import.meta.url)),
    environment: 'node',
    // Browser tests drive pages that compute and train; the 2-core machines are shared.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    sequence: { sequencer: Sequencer },
    projects: [
      { extends: true, test: { name: 'wasm', include: ['tests/wasm/**/*.test.js'] } },
      {
        extends: true,
        test: { name: 'web', include: ['tests/web/**/*.test.js'], globalSetup: ['tests/web/global-setup.js'] },
      },
    ],
  },
});
