// The one dependency patch the theme needs for `remix build` (upstream applies it with bun's
// patchedDependencies: myst-theme/patches/@jupyter-widgets%2Fcontrols@5.0.12.patch): esbuild
// cannot follow widgets-base.css's @import of two CSS files, so they are commented out.
// Idempotent; run before the build.
const fs = require('fs');
const path = require('path');

const file = path.join(__dirname, 'node_modules', '@jupyter-widgets', 'controls', 'css', 'widgets-base.css');
const css = fs.readFileSync(file, 'utf8');
const patched = css
  .replace("\n@import './lumino.css';", "\n/* @import './lumino.css'; */")
  .replace("\n@import './nouislider.css';", "\n/* @import './nouislider.css'; */");
if (patched !== css) fs.writeFileSync(file, patched);
