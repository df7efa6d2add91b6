// Waiting on a widget in a Playwright page.

/** Waits until the widget `tag` has rendered with a data-rendered different from `before`. */
export async function rendered(page, tag, before = null) {
  await page.waitForFunction(
    ([t, b]) => {
      const w = document.querySelector(t);
      return w?.dataset.rendered && w.dataset.rendered !== b;
    },
    [tag, before],
    { timeout: 30000 },
  );
}
