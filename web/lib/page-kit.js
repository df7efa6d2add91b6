// What the playground page (web/page.js) takes from the widget bundle (attention-playground.js
// exports it as playgroundKit): the page loads that same bundle rather than a second copy of this code.
export { el } from './dom.js';
export { resetTheme } from './heatmap.js';
export { parseState, readUrl, STATE_KEYS, valueWarning, writeUrl } from './state.js';
export { filesFromDataTransfer } from './hf-open.js';
export { measuredHeads } from './models.js';
export { threadPlan } from '../../wasm/index.js';
