// <ap-heatmap>: the element every view draws a matrix with. It lives in lib/heatmap-element.js,
// beside the drawing code (lib/heatmap.js), because lib/view.js draws with it and lib/ imports
// nothing from components/ (eslint.config.js); this file keeps the tag's usual path for the page
// and the widgets.
export * from '../lib/heatmap-element.js';
