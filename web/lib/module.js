// The one wasm module of the page: every widget awaits getPlayground() and so shares the
// instance (and its heap) that wasm/index.js load() creates once per page.
import { load } from '../../wasm/index.js';

let shared = null;

/**
 * Resolves after the page's first paint (or 100 ms, whichever comes first; at once with no page).
 * The module (and then the models) start downloading only then: the page's text is on screen
 * first, and a slow network spends its first second on what the reader sees.
 */
const painted =
  typeof document === 'undefined' || typeof requestAnimationFrame !== 'function'
    ? Promise.resolve()
    : new Promise((resolve) => {
        requestAnimationFrame(() => setTimeout(resolve, 0));
        setTimeout(resolve, 100);
      });

/** The shared AttentionPlayground instance (a promise, resolved once). */
export function getPlayground() {
  if (!shared) {
    shared = painted
      .then(() => load())
      .catch((err) => {
        shared = null; // a later call may retry
        throw err;
      });
  }
  return shared;
}

let ready = null;
getPlayground().then(
  (ap) => {
    ready = ap;
    performance.mark?.('ap:module-ready');
  },
  () => {},
);

/** The instance if it has finished loading, else null (lets widgets render synchronously). */
export function playgroundNow() {
  return ready;
}
