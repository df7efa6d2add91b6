// Waiting on a widget in a Playwright page.

/** Waits until the widget `tag` has rendered with a data-rendered different from `before` (at most
 * 60 s: a cap for a loaded machine, where two Chromium pages and the wasm test files share two
 * cores, not a speed check; a redraw that never comes still fails). */
export async function rendered(page, tag, before = null) {
  await page.waitForFunction(
    ([t, b]) => {
      const w = document.querySelector(t);
      return w?.dataset.rendered && w.dataset.rendered !== b;
    },
    [tag, before],
    { timeout: 60000 },
  );
}
