// The widget library: every <ap-*> element of the playground (registered on import) and the JS
// API of the wasm module, as one ES module. `npm run build` bundles it into
// dist/attention-playground.js with the wasm, the trained models and the training worker in
// dist/attention-playground/ next to it: a course page needs only
//   <script type="module" src=".../attention-playground.js"></script>
// and the elements. See README "Embed in a course page".
import './components/index.js';

export { load } from '../wasm/index.js';
export { CHAPTERS, CONCEPTS, conceptById } from './lib/concepts.js';
export { COMMON_ATTRIBUTES, EVENTS, widgetList } from './lib/catalog.js';
export { mountEmbed } from './lib/embed.js';
import { embedCode as embedCodeAt } from './lib/embed.js';

// The folder of this module: attention-playground.js, embed.html and anywidget.js are in it.
const BASE = new URL('./', import.meta.url).href;

/** How to show `widget` as it is now in another page: script tag, iframe URL, MyST directive (lib/embed.js). */
export const embedCode = (widget, { base = BASE } = {}) => embedCodeAt(widget, { base });

// What the playground page (web/page.js) shares with the widgets, so that it can load this
// same bundle rather than a second copy of the widget code. Not a stable API for course pages.
export * as playgroundKit from './lib/page-kit.js';
