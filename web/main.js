// Entry point of the playground page (web/index.html): every view is a custom element from
// web/components/, wired together by web/playground.js.
import { startPlayground } from './playground.js';

startPlayground();
