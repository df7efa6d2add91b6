// One set of constructable stylesheets shared by every shadow root on the page (cheap to
// adopt, no <style> copies), plus KaTeX's @font-face rules, which only work at document level
// (a shadow root ignores @font-face), so they are adopted by the document once.
import widgetCss from '../styles/widget.css?inline';
import katexCss from 'katex/dist/katex.min.css?inline';

let sheets = null;

function buildSheets() {
  // matchAll, not match: Rolldown (Vite 8) folds katexCss.match(re) on the inlined constant
  // into a string, and the bundle then fails with "fontFaces.join is not a function".
  const fontFaces = Array.from(katexCss.matchAll(/@font-face\{[^}]*\}/g), (m) => m[0]);
  const katexRules = katexCss.replace(/@font-face\{[^}]*\}/g, '');
  const katex = new CSSStyleSheet();
  katex.replaceSync(katexRules);
  const widget = new CSSStyleSheet();
  widget.replaceSync(widgetCss);
  const fonts = new CSSStyleSheet();
  fonts.replaceSync(fontFaces.join('\n'));
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, fonts];
  // After the page's text is on screen (idle), so the fonts never hold up its first paint.
  const idle = window.requestIdleCallback || ((fn) => setTimeout(fn, 200));
  idle(preloadFonts, { timeout: 2000 });
  return [katex, widget];
}

/** Gives a shadow root the shared widget and KaTeX styles. */
export function adoptStyles(root) {
  if (!sheets) sheets = buildSheets();
  root.adoptedStyleSheets = sheets;
}

// A widget's own styles (a web/styles/<name>.css imported with ?inline), one sheet per page.
const ownSheets = new Map();

/** Adds a widget's own CSS text after the shared styles of its shadow root. */
export function adoptOwnStyles(root, css) {
  let sheet = ownSheets.get(css);
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    ownSheets.set(css, sheet);
  }
  root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}

// The KaTeX faces the widgets' formulas use, fetched soon after the first paint rather than when a formula first needs
// one: a page keeps working offline once loaded (a face first needed later would fail to load).
// About 190 KB of woff2; the other KaTeX faces (Fraktur, Script...) are never used here.
const USED_FACES = /^"?KaTeX_(Main|Math|AMS|Size[1-4])"?$/;
function preloadFonts() {
  if (!document.fonts) return;
  for (const face of document.fonts) {
    if (face.status === 'unloaded' && USED_FACES.test(face.family)) face.load().catch(() => {});
  }
}
