// Builds the two course-tool examples that are plain static pages: the Pandoc lesson
// (examples/pandoc/lesson.md -> build/examples/pandoc/lesson.html, by Debian's pandoc) and the
// reveal.js deck (examples/reveal/ -> build/examples/reveal/, reveal.js from node_modules). Each
// output folder is self-contained and works offline: it holds a copy of the widget bundle
// (dist/attention-playground.js, .css and the dist/attention-playground/ folder, which `npm test`
// builds before the browser tests) next to the page, as an instructor would upload it.
//
//   node tests/tools/lib/hosts-static.mjs [pandoc] [reveal]   builds both (or the ones named)
//
// buildPandocLesson() and buildRevealDeck() return { dir, page, ms }: the output folder, the page's
// path inside it and how long the build took.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ROOT } from './setup.mjs';

const DIST = join(ROOT, 'dist');
const REVEAL = join(ROOT, 'node_modules', 'reveal.js', 'dist');
export const PANDOC_OUT = join(ROOT, 'build', 'examples', 'pandoc');
export const REVEAL_OUT = join(ROOT, 'build', 'examples', 'reveal');

// The widget bundle, copied next to a page: the script, its placeholder stylesheet and its assets
// (wasm, models, fonts, workers).
async function copyBundle(dir) {
  if (!existsSync(join(DIST, 'attention-playground.js')))
    throw new Error('dist/attention-playground.js is missing: `npm test` builds it (or `npm run build -- --widgets`)');
  await cp(join(DIST, 'attention-playground.js'), join(dir, 'attention-playground.js'));
  await cp(join(DIST, 'attention-playground.css'), join(dir, 'attention-playground.css'));
  await cp(join(DIST, 'attention-playground'), join(dir, 'attention-playground'), { recursive: true });
}

async function fresh(dir) {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
}

/**
 * examples/pandoc/lesson.md -> <out>/lesson.html with Debian's pandoc: a standalone page, the
 * lesson's ```{=html} blocks passed through (the widgets and the script tag), header.html in the
 * <head>, math as MathML (pandoc's own output; no MathJax, nothing from a CDN).
 */
export async function buildPandocLesson({ out = PANDOC_OUT, pandoc = 'pandoc' } = {}) {
  const t0 = performance.now();
  const src = join(ROOT, 'examples', 'pandoc');
  await fresh(out);
  await copyBundle(out);
  try {
    await promisify(execFile)(pandoc, [
      join(src, 'lesson.md'),
      '--standalone',
      '--mathml',
      `--include-in-header=${join(src, 'header.html')}`,
      '--output',
      join(out, 'lesson.html'),
    ]);
  } catch (err) {
    if (err.code === 'ENOENT') throw new Error('pandoc is not installed: sudo apt-get install -y pandoc');
    throw new Error(`pandoc failed: ${err.stderr || err.message}`);
  }
  return { dir: out, page: 'lesson.html', ms: Math.round(performance.now() - t0) };
}

/**
 * examples/reveal/ -> <out>/: the deck (index.html, deck.css, deck.js), reveal.js's own files from
 * node_modules (reveal.js, reset.css, reveal.css, the white theme, whose fonts are inlined) under
 * reveal/, and the widget bundle.
 */
export async function buildRevealDeck({ out = REVEAL_OUT } = {}) {
  const t0 = performance.now();
  const src = join(ROOT, 'examples', 'reveal');
  if (!existsSync(join(REVEAL, 'reveal.js'))) throw new Error('node_modules/reveal.js is missing: run npm ci');
  await fresh(out);
  await copyBundle(out);
  await mkdir(join(out, 'reveal', 'theme'), { recursive: true });
  for (const f of ['reveal.js', 'reset.css', 'reveal.css', 'theme/white.css'])
    await cp(join(REVEAL, f), join(out, 'reveal', f));
  await cp(join(ROOT, 'node_modules', 'reveal.js', 'LICENSE'), join(out, 'reveal', 'LICENSE'));
  for (const f of ['index.html', 'deck.css', 'deck.js']) await cp(join(src, f), join(out, f));
  return { dir: out, page: 'index.html', ms: Math.round(performance.now() - t0) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  const want = (n) => !names.length || names.includes(n);
  if (want('pandoc')) {
    const r = await buildPandocLesson();
    console.log(`pandoc lesson: ${join(r.dir, r.page)} (${r.ms} ms)`);
  }
  if (want('reveal')) {
    const r = await buildRevealDeck();
    console.log(`reveal.js deck: ${join(r.dir, r.page)} (${r.ms} ms)`);
  }
}
