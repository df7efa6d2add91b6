// Builds the example Jupyter Book 2 / MyST book (examples/myst/) into a static site that works
// offline: build/examples/myst/html. Nothing is downloaded while the book builds:
//   - the site theme is MyST's book theme built from source in examples/myst/theme/ (mystmd would
//     otherwise download a built theme from api.mystmd.org / GitHub): its npm dependencies are
//     installed once (`npm ci` there, from the npm registry) and it is built (Tailwind + Remix)
//     when its build is missing or older than its sources;
//   - the widgets are dist/anywidget.js (the anywidget front-end module), which MyST's {anywidget}
//     directive copies into the site as build/anywidget-<hash>.js, plus the bundle it imports
//     relative to itself, dist/attention-playground.js and dist/attention-playground/, copied
//     next to it here (MyST copies only the file a directive names).
// The book's sources are copied to build/examples/myst/book/ (myst.yml pointing at the theme
// folder), so building writes nothing into examples/.
//
//   import { buildMystBook } from './tests/tools/lib/myst.mjs';
//   const { html, seconds } = await buildMystBook();          // { out: <folder> } to build elsewhere
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT, runQuiet } from './setup.mjs';

export const BOOK_SRC = join(ROOT, 'examples', 'myst');
export const THEME = join(BOOK_SRC, 'theme');
const DIST = join(ROOT, 'dist');
const MYST = join(ROOT, 'node_modules', 'mystmd', 'dist', 'myst.cjs');
// The book's own files (everything else in examples/myst is the theme, the README or build output).
const BOOK_FILES = /\.(md|yml|svg)$/;

// The newest modification time of the files under `dir` (skipping `skip`, a set of names).
function newest(dir, skip = new Set()) {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip.has(entry.name)) continue;
    const p = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p, skip) : statSync(p).mtimeMs);
  }
  return t;
}

const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

// npm's own settings from the environment that would change what is installed or built: under
// `npm test` (and after a Vite build in the same process, which sets NODE_ENV=production) npm ci
// would leave out the theme's devDependencies (tailwindcss, @remix-run/dev), which its build needs.
const THEME_ENV = { NODE_ENV: undefined, npm_config_omit: undefined, npm_config_production: undefined };

/** Installs the theme's npm dependencies if any is missing or the lock file is newer. */
export async function installTheme({ show = false } = {}) {
  const marker = join(THEME, 'node_modules', '.package-lock.json');
  const pkg = JSON.parse(readFileSync(join(THEME, 'package.json'), 'utf8'));
  const names = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies });
  const complete = names.every((n) => existsSync(join(THEME, 'node_modules', n, 'package.json')));
  if (complete && mtime(marker) >= mtime(join(THEME, 'package-lock.json'))) return false;
  // .npmrc there sets legacy-peer-deps (the theme's packages declare peers it does not use).
  // --ignore-scripts as mystmd itself installs a theme; the one patch the build needs is applied
  // by the theme's build (patch-deps.cjs).
  await runQuiet('npm', ['ci', '--no-audit', '--no-fund', '--ignore-scripts', '--include=dev'], {
    cwd: THEME,
    env: THEME_ENV,
    show,
  });
  return true;
}

/** Builds the theme (Tailwind CSS, then `remix build`) if its build is missing or out of date. */
export async function buildTheme({ show = false } = {}) {
  const built = Math.min(mtime(join(THEME, 'build', 'index.js')), mtime(join(THEME, 'public', 'build')));
  const sources = Math.max(
    newest(join(THEME, 'app'), new Set(['styles'])), // app/styles/app.css is the CSS build's output
    newest(join(THEME, 'styles')),
    ...['package-lock.json', 'tailwind.config.js', 'remix.config.prod.js', 'patch-deps.cjs', 'copy-assets.cjs'].map(
      (f) => mtime(join(THEME, f)),
    ),
    mtime(join(THEME, 'node_modules', '.package-lock.json')),
  );
  if (built && built >= sources) return false;
  await runQuiet('npm', ['run', 'build'], { cwd: THEME, env: THEME_ENV, show });
  return true;
}

/**
 * Builds the book into `out`/html (default build/examples/myst/html), to be served at the root of
 * its host (`baseUrl: '/course'` for a site under /course). Needs dist/ (npm run build, or the
 * widget bundle's Vite config). `pages` adds pages ({ 'name.md': text }) after the book's own.
 * Returns { html, seconds, themeInstalled, themeBuilt, log }.
 */
export async function buildMystBook({
  out = join(ROOT, 'build', 'examples', 'myst'),
  baseUrl = '',
  pages = {},
  show = false,
} = {}) {
  const start = performance.now();
  for (const f of ['anywidget.js', 'attention-playground.js', 'attention-playground']) {
    if (!existsSync(join(DIST, f)))
      throw new Error(`dist/${f} is missing: build the widget bundle first (npm run build)`);
  }
  const themeInstalled = await installTheme({ show });
  const themeBuilt = await buildTheme({ show });

  // The book's sources, with the theme given as an absolute path (the copy is elsewhere).
  const book = join(out, 'book');
  rmSync(book, { recursive: true, force: true });
  mkdirSync(join(book, 'widgets'), { recursive: true });
  for (const f of readdirSync(BOOK_SRC)) if (BOOK_FILES.test(f)) cpSync(join(BOOK_SRC, f), join(book, f));
  const yml = readFileSync(join(book, 'myst.yml'), 'utf8');
  if (!/^ {2}template: \.\/theme$/m.test(yml))
    throw new Error('examples/myst/myst.yml: expected "  template: ./theme"');
  writeFileSync(
    join(book, 'myst.yml'),
    yml.replace(/^ {2}template: \.\/theme$/m, `  template: ${JSON.stringify(THEME)}`),
  );
  cpSync(join(DIST, 'anywidget.js'), join(book, 'widgets', 'anywidget.js'));
  // Extra pages ({ 'pasted.md': text }), added at the end of the table of contents: what an
  // instructor pastes into a book (the playground's "Embed this view" directive, in the tests).
  const extra = Object.entries(pages);
  for (const [name, text] of extra) {
    if (!/^[\w-]+\.md$/.test(name)) throw new Error(`buildMystBook: a page name like "lesson.md", not "${name}"`);
    writeFileSync(join(book, name), text);
  }
  if (extra.length) {
    const toc = readFileSync(join(book, 'myst.yml'), 'utf8').replace(
      /^( {2}toc:\n(?: {4}- file: .*\n)+)/m,
      (list) => list + extra.map(([name]) => `    - file: ${name}\n`).join(''),
    );
    if (!extra.every(([name]) => toc.includes(`- file: ${name}`)))
      throw new Error('examples/myst/myst.yml: expected a "  toc:" list of "    - file:" entries');
    writeFileSync(join(book, 'myst.yml'), toc);
  }

  // mystmd starts the theme's server (npm run start in the theme) and saves every page as HTML.
  // BASE_URL: the path the site is served under ('' = the root of its host). mystmd reads it from
  // the environment, where Vite / Vitest put BASE_URL='/' (which would make the assets' URLs
  // protocol-relative, //build/...).
  const env = { BASE_URL: baseUrl || undefined, READTHEDOCS_CANONICAL_URL: undefined };
  const { output } = await runQuiet(process.execPath, [MYST, 'build', '--html'], { cwd: book, env, show });
  // ⛔️ marks an error in a page (an invalid directive, a missing module...): the build "succeeds".
  const problems = output.split('\n').filter((l) => l.includes('⛔'));
  if (problems.length) throw new Error(`myst build reported errors:\n${problems.join('\n')}`);

  const html = join(out, 'html');
  rmSync(html, { recursive: true, force: true });
  cpSync(join(book, '_build', 'html'), html, { recursive: true });
  // The bundle beside MyST's copy of anywidget.js (build/anywidget-<hash>.js imports it relatively).
  cpSync(join(DIST, 'attention-playground.js'), join(html, 'build', 'attention-playground.js'));
  cpSync(join(DIST, 'attention-playground'), join(html, 'build', 'attention-playground'), { recursive: true });
  const seconds = (performance.now() - start) / 1000;
  return { html, seconds, themeInstalled, themeBuilt, log: output };
}

// node tests/tools/lib/myst.mjs: build the book and say where it is and how long it took.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { html, seconds, themeInstalled, themeBuilt } = await buildMystBook();
  const steps = [themeInstalled && 'installed the theme', themeBuilt && 'built the theme'].filter(Boolean);
  console.log(`MyST book: ${html} (${seconds.toFixed(1)} s${steps.length ? `; ${steps.join(', ')}` : ''})`);
}
