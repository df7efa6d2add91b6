// The page's browser storage (the student's progress, the theme). localStorage may refuse: a
// sandboxed frame or strict privacy settings make every access throw (SecurityError), a full
// storage makes setItem throw (QuotaExceededError). Then what the page keeps lasts for this visit
// only, the page works on, and it says so in one line (onStorageRefused).
let refused = false;
const listeners = new Set();

function refuse() {
  if (refused) return;
  refused = true;
  for (const f of listeners) f();
}

/** localStorage.getItem(key), or null when storage is blocked. */
export function storedItem(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    refuse();
    return null;
  }
}

/** localStorage.setItem(key, value); false when storage is blocked or full. */
export function storeItem(key, value) {
  try {
    localStorage.setItem(key, value);
    return true;
  } catch {
    refuse();
    return false;
  }
}

/** Has storage refused a read or a write during this visit? */
export function storageRefused() {
  return refused;
}

/** Calls `f` once storage has refused (now, if it already has). Returns a function that stops it. */
export function onStorageRefused(f) {
  if (refused) f();
  else listeners.add(f);
  return () => listeners.delete(f);
}
