// The one wasm module of the page: every widget awaits getPlayground() and so shares the
// instance (and its heap) that wasm/index.js load() creates once per page.
import { load } from '../../wasm/index.js';

let shared = null;

/** The shared AttentionPlayground instance (a promise, resolved once). */
export function getPlayground() {
  if (!shared) {
    shared = load().catch((err) => {
      shared = null; // a later call may retry
      throw err;
    });
  }
  return shared;
}

let ready = null;
getPlayground().then((ap) => { ready = ap; performance.mark?.('ap:module-ready'); }, () => {});

/** The instance if it has finished loading, else null (lets widgets render synchronously). */
export function playgroundNow() {
  return ready;
}
