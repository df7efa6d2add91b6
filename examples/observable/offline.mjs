// Keeps an Observable Framework build of this project offline, and puts the widgets' files where
// the built page looks for them. Two steps, run by the package.json scripts:
//
//   node offline.mjs cache   before `observable build` / `observable preview`
//   node offline.mjs dist    after `observable build`
//
// cache: (1) Framework's client has lazy imports for its "recommended libraries" (d3, htl, lodash,
//   react, ... as npm:name) and asks registry.npmjs.org for each one's latest version while it
//   bundles, even when a page uses none of them. It skips the question when its version cache
//   (src/.observablehq/cache/_npm/<name>@<version>/) holds the name, so this writes those folders:
//   the version installed in node_modules, else 0.0.0-not-installed. Nothing is downloaded either
//   way; a page that did use such a library (without importing it from node_modules) would fail to
//   build offline, as it should. (2) The preview server serves _node/ from that cache, so the
//   widgets' files are copied there too.
// dist: Framework re-bundles the package's JavaScript into _node/attention-playground@<version>/
//   and copies only that file; the widget bundle fetches its wasm, models, fonts and training worker
//   from ./attention-playground/ beside itself (new URL(..., import.meta.url)), so this copies the
//   package's dist/attention-playground/ folder there.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(join(process.cwd(), 'package.json'));
// The installed version of a package, found as Node would (some packages do not export package.json).
const installedVersion = (name) => {
  for (const dir of require.resolve.paths(name) ?? []) {
    const file = join(dir, name, 'package.json');
    if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')).version;
  }
  return null;
};
const pkg = dirname(require.resolve('attention-playground/package.json'));
const version = installedVersion('attention-playground');
const cache = join('src', '.observablehq', 'cache');
const where = process.argv[2];

function copyAssets(out) {
  const to = join(out, '_node', `attention-playground@${version}`, 'attention-playground');
  cpSync(join(pkg, 'dist', 'attention-playground'), to, { recursive: true });
  console.log(`attention-playground files -> ${to}`);
}

if (where === 'cache') {
  const client = join(dirname(require.resolve('@observablehq/framework/package.json')), 'dist', 'client');
  const names = new Set();
  const scan = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) scan(join(dir, e.name));
      else if (e.name.endsWith('.js'))
        for (const [, name] of readFileSync(join(dir, e.name), 'utf8').matchAll(/["']npm:((?:@[\w.-]+\/)?[\w.-]+)/g))
          names.add(name);
    }
  };
  scan(client);
  for (const name of names) {
    mkdirSync(join(cache, '_npm', `${name}@${installedVersion(name) ?? '0.0.0-not-installed'}`), { recursive: true });
  }
  console.log(`Framework's npm version cache: ${names.size} names pinned, no registry lookup`);
  copyAssets(cache);
} else if (where) {
  copyAssets(where);
} else {
  console.error('usage: node offline.mjs cache | node offline.mjs <built site folder>');
  process.exitCode = 1;
}
