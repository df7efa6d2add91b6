// Observable Framework project: one page (src/index.md) with live attention widgets and a plot.
// Everything comes from node_modules; nothing is fetched from a CDN, at build time or in the page.
export default {
  root: 'src',
  title: 'Attention, live',
  // Framework's default adds Google Fonts (Source Serif 4): none here, the theme falls back to the
  // reader's own serif font, so the built site works offline.
  globalStylesheets: [],
  // Framework's default style and the air theme, plus the stylesheet of Observable Inputs from
  // node_modules (the page imports Inputs from there, not Framework's built-in copy, whose
  // dependencies Framework would fetch from jsDelivr).
  style: 'style.css',
  // No favicon request (a 404 in the console otherwise); put your course's icon here.
  head: '<link rel="icon" href="data:,">',
  sidebar: false,
  pager: false,
  toc: false,
  footer: 'Built with Observable Framework and the attention-playground package.',
};
