// Attention Playground (examples/myst): after `remix build`, copies into public/ what the theme's
// pages load at run time, so that a built book needs no other host:
//   - thebe-core's scripts and CSS (public/thebe-core.min.js and its chunks), which the pages
//     import on load (upstream: myst-theme/bin/copy-thebe-assets.cjs; thebe-lite, the in-browser
//     Python kernel, is not copied: this book runs no code);
//   - KaTeX's CSS and fonts (public/build/katex/), linked by the routes instead of a CDN.
const fs = require('fs');
const path = require('path');

const pub = path.join(__dirname, 'public');
const thebeLib = path.join(__dirname, 'node_modules', 'thebe-core', 'dist', 'lib');
for (const f of fs.readdirSync(thebeLib)) {
  if (f.endsWith('.js') || f === 'thebe-core.css') fs.copyFileSync(path.join(thebeLib, f), path.join(pub, f));
}
const katex = path.join(__dirname, 'node_modules', 'katex', 'dist');
const out = path.join(pub, 'build', 'katex');
fs.mkdirSync(path.join(out, 'fonts'), { recursive: true });
fs.copyFileSync(path.join(katex, 'katex.min.css'), path.join(out, 'katex.min.css'));
for (const f of fs.readdirSync(path.join(katex, 'fonts')))
  if (f.endsWith('.woff2')) fs.copyFileSync(path.join(katex, 'fonts', f), path.join(out, 'fonts', f));
