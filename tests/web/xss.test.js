// Untrusted text never becomes markup: typed tokens such as <img onerror> and </script> render
// as text in every view of the page (each a widget with its own shadow root).
import { expect, test } from 'vitest';
import { usePlayground } from './harness.js';

const playground = usePlayground();

const count = (page) =>
  page.evaluate(() => {
    const out = { img: 0, script: 0, svgScript: 0, onattr: 0 };
    const visit = (root) => {
      out.img += root.querySelectorAll('img').length;
      out.script += root.querySelectorAll('script').length;
      out.svgScript += root.querySelectorAll('svg script, iframe, object, embed').length;
      for (const n of root.querySelectorAll('*')) {
        for (const a of n.attributes) if (/^on/i.test(a.name)) out.onattr++;
        if (n.shadowRoot) visit(n.shadowRoot);
      }
    };
    visit(document);
    return out;
  });

test('markup typed into the text box renders as text in every view and runs nothing', async () => {
  const { page, errors } = await playground.open('/#chapter=all');
  let dialogs = 0;
  page.on('dialog', (d) => {
    dialogs++;
    d.dismiss();
  });
  await page.locator('ap-controls #model option[value="english"]').waitFor({ state: 'attached' });
  const before = await count(page);
  const evil = '<img src=x onerror=alert(1)> </script><script>window.__pwned=1</script> <svg onload=alert(2)>';
  await page.locator('#text').fill(evil);
  // Every view of the one-page view draws with the text (views draw as they come into view).
  const views = await page.evaluate(() =>
    [...document.querySelectorAll('section.chapter [data-concept], ap-stepper')].map((w, i) => {
      w.dataset.xss = String(i);
      return i;
    }),
  );
  expect(views.length).toBeGreaterThan(40);
  for (const i of views) {
    const sel = `[data-xss="${i}"]`;
    await page.locator(sel).scrollIntoViewIfNeeded();
    await page.waitForFunction(
      ([s, t]) => {
        const w = document.querySelector(s);
        return w?.dataset.rendered && (w.dataset.text === t || w.dataset.text === '' || w.dataset.error);
      },
      [sel, evil],
      { timeout: 30000 },
    );
  }
  await page.waitForTimeout(300); // let every view redraw
  const after = await count(page);
  expect(after.img).toBe(before.img);
  expect(after.script).toBe(before.script);
  expect(after.svgScript).toBe(before.svgScript);
  expect(after.onattr).toBe(before.onattr);
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  // and the text is really on screen, as text: the token chips under the box (each piece, then its
  // id in a <small>) spell it out, piece by piece
  const shown = await page
    .locator('ap-controls')
    .evaluate((c) =>
      [...c.shadowRoot.querySelectorAll('#tokens .tok:not(.special)')].map((t) => t.firstChild.textContent).join(''),
    );
  expect(shown.replaceAll('␣', ' ')).toBe(evil);
  expect(dialogs).toBe(0);
  expect(errors).toEqual([]);
});
