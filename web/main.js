// Entry point of the playground page (web/index.html): every view is a custom element from
// web/components/, wired together by web/page.js.
import { startPlayground } from './page.js';

startPlayground();
