// `npm pack` gives a package that works when installed into an empty folder: in Node
// (import { load } from 'attention-playground') and in a page (the bundled widgets from
// node_modules/attention-playground/dist/, served by a plain static server, in Chromium).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, requireBundle, startStaticSite } from './harness.js';

let dir;
let site;
let tarball;

const npm = (args, cwd) =>
  execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' },
  });

// softmax([112, 96] / sqrt(64)) = softmax([14, 12]): exp(14) / (exp(14) + exp(12)) = 1 / (1 + e^-2).
const THINKING = 1 / (1 + Math.exp(-2));

beforeAll(async () => {
  requireBundle();
  dir = mkdtempSync(join(tmpdir(), 'ap-pack-'));
  // --ignore-scripts: `npm test` has just built the bundle the prepack script would build.
  const out = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], ROOT));
  tarball = out[0];
  const app = join(dir, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'course-site', private: true, type: 'module' }));
  // --offline: the package has no dependencies; everything it needs is inside it.
  npm(['install', '--offline', '--no-package-lock', join(dir, tarball.filename)], app);
}, 180_000);

afterAll(async () => {
  await site?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the tarball holds the API, the wasm, the widget bundle and its assets, and nothing of the sources or tests', () => {
  const files = tarball.files.map((f) => f.path);
  for (const f of [
    'package.json',
    'README.md',
    'LICENSE',
    'wasm/index.js',
    'wasm/index.d.ts',
    'wasm/build/ap_core.mjs',
    'wasm/build/ap_core.wasm',
    'wasm/build/ap_train.mjs',
    'wasm/build/ap_train.wasm',
    'wasm/build/ap_mt.mjs',
    'wasm/build/ap_mt.wasm',
    'wasm/build/ap_mt.worker.js',
    'wasm/build/package.json',
    'dist/attention-playground.css',
    'dist/attention-playground.js',
    'dist/attention-playground.d.ts',
    'dist/embed.html',
    'dist/embed.js',
  ]) {
    expect(files, f).toContain(f);
  }
  expect(files.some((f) => /^dist\/attention-playground\/ap_core-.*\.wasm$/.test(f))).toBe(true);
  expect(files.some((f) => /^dist\/attention-playground\/ap_train-.*\.wasm$/.test(f))).toBe(true);
  expect(files).toContain('dist/attention-playground/ap_mt.wasm');
  expect(files).toContain('dist/attention-playground/ap_mt.worker.js');
  expect(files.some((f) => /^dist\/attention-playground\/sort-.*\.safetensors$/.test(f))).toBe(true);
  expect(files.filter((f) => /^(cpp|tests|web\/components|web\/lib)\//.test(f))).toEqual([]);
  const pkg = JSON.parse(
    readFileSync(join(dir, 'app', 'node_modules', 'attention-playground', 'package.json'), 'utf8'),
  );
  expect(pkg.dependencies ?? {}).toEqual({});
});

test('installed into an empty folder, it works in Node: import { load } from "attention-playground"', () => {
  const app = join(dir, 'app');
  writeFileSync(
    join(app, 'run.mjs'),
    `
    import { load } from 'attention-playground';
    const ap = await load();
    const t = ap.presets.run('softmax.thinking-machines');
    const w = Array.from(t.get('weights'));
    t.dispose();
    const z = Array.from(ap.kernels.attention({ q: [1, 0], k: [1, 0, 0, 1], v: [1, 2, 3, 4], n: 1, m: 2, dK: 2 }));
    const types = (await import('node:fs')).existsSync(new URL(import.meta.resolve('attention-playground/widgets').replace(/\\.js$/, '.d.ts')));
    console.log(JSON.stringify({ w, z, variant: ap.kernels.info().variant, types, widgets: import.meta.resolve('attention-playground/widgets') }));
  `,
  );
  const r = JSON.parse(
    execFileSync('node', ['run.mjs'], { cwd: app, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  expect(r.w[0]).toBeCloseTo(THINKING, 5);
  expect(r.w[1]).toBeCloseTo(1 - THINKING, 5);
  // One query [1, 0] over keys [1, 0] and [0, 1], d_k = 2: scores 1, 0 -> scaled 1/sqrt(2), 0;
  // weights a = 1 / (1 + exp(-1/sqrt(2))), 1 - a; output a * [1, 2] + (1 - a) * [3, 4].
  const a = 1 / (1 + Math.exp(-1 / Math.SQRT2));
  expect(r.z[0]).toBeCloseTo(a * 1 + (1 - a) * 3, 5);
  expect(r.z[1]).toBeCloseTo(a * 2 + (1 - a) * 4, 5);
  expect(r.types).toBe(true);
  expect(r.widgets).toMatch(/node_modules\/attention-playground\/dist\/attention-playground\.js$/);
});

test('installed into an empty folder, it works in a page: one script tag from node_modules', async () => {
  const app = join(dir, 'app');
  writeFileSync(
    join(app, 'index.html'),
    `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">
    <script type="module" src="./node_modules/attention-playground/dist/attention-playground.js"></script></head>
    <body><ap-softmax preset="softmax.thinking-machines" hide="text"></ap-softmax></body></html>`,
  );
  site = await startStaticSite(app);
  const { page, errors } = await site.open('index.html');
  const w = page.locator('ap-softmax');
  await expect.poll(() => w.getAttribute('data-rendered'), { timeout: 30_000 }).toBeTruthy();
  const weights = await w.evaluate(
    (el) =>
      [...el.shadowRoot.querySelectorAll('ap-heatmap')]
        .map((h) => h.matrix)
        .find((m) => m && m.rows === 2 && m.cols === 2)?.values[0],
  );
  expect(weights).toBeCloseTo(THINKING, 5);
  await site.screenshot(page, 'package-installed-page');
  expect(errors).toEqual([]);
});
