// "Embed this view" on the playground page, as an instructor uses it: set up a view (text, switches,
// head, a preset), open its embed box, paste the script-tag snippet into a plain page and the
// iframe snippet into another, and check that both show exactly the numbers the playground shows.
// The MyST directive is pasted into a MyST book and built in integration-myst.test.js.
import { describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { SCREENSHOT_DIR, usePlayground } from './harness.js';
import { CAT_SAT, copyEmbed, heatmaps } from './lib/widgets.js';

const playground = usePlayground();

// A plain page on the same origin holding `snippet`, the way an instructor pastes it into a course page.
async function pasted(snippet) {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pasted</title><link rel="icon" href="data:,"></head><body>\n${snippet}\n</body></html>`;
  return playground.openHtml(html, { path: '/pasted.html' });
}

async function drawnIn(locator) {
  await locator.scrollIntoViewIfNeeded();
  await expect.poll(() => locator.getAttribute('data-rendered'), { timeout: 30_000 }).toBeTruthy();
  return heatmaps(locator);
}

describe('copy embed: every snippet reproduces the view it was copied from', () => {
  const CASES = [
    // The trained model on the student's own sentence, head 1, with the causal mask switched off.
    {
      name: 'softmax, own text, head 1, causal off',
      path: '/?text=the+dog+ran+home&head=1&causal=off#chapter=B',
      concept: 'softmax',
      attrs: { text: 'the dog ran home', head: '1', causal: 'off' },
      screenshot: 'copy-embed',
    },
    // A lecture preset: the notes' "the cat sat" weights.
    {
      name: 'softmax, the notes\' "the cat sat"',
      path: '/?preset=softmax.the-cat-sat#chapter=B',
      concept: 'softmax',
      attrs: { preset: 'softmax.the-cat-sat' },
      notes: CAT_SAT,
    },
    // Random weights with a recipe of their own, and the scores view.
    {
      name: 'scores, random weights seed 7',
      path: '/?model=random&seed=7&text=a+b+c+a#chapter=B',
      concept: 'scores',
      attrs: { text: 'a b c a', model: 'random', seed: '7' }, // in the order of the state's keys
    },
  ];

  for (const c of CASES)
    test(
      c.name,
      async () => {
        const { page, errors, code, shown } = await copyEmbed(playground, c.path, c.concept);
        if (c.screenshot) {
          const box = page.locator(`details.embed-code[data-for="${c.concept}"]`);
          await box.screenshot({ path: join(SCREENSHOT_DIR, `${c.screenshot}.png`) });
        }
        expect(shown.length).toBeGreaterThan(0);
        if (c.notes) {
          const w = shown.find((h) => h.rows === 3 && h.cols === 3 && /weight/i.test(h.title));
          c.notes.forEach((v, i) => expect(w.values[i]).toBeCloseTo(v, 5));
        }
        const tag = `ap-${c.concept}`;

        // The script tag: the element carries exactly the view's state.
        expect(code.html).toMatch(/<script type="module" src="http:\/\/[^"]+\/attention-playground\.js"><\/script>/);
        const attrText = Object.entries(c.attrs)
          .map(([k, v]) => ` ${k}="${v}"`)
          .join('');
        expect(code.html).toContain(`<${tag}${attrText}></${tag}>`);
        const one = await pasted(code.html);
        expect(await drawnIn(one.page.locator(tag))).toEqual(shown);
        expect(one.errors).toEqual([]);

        // The iframe: embed.html with the same state as URL parameters.
        const src = new URL(code.iframe.match(/src="([^"]+)"/)[1].replace(/&amp;/g, '&'));
        expect(src.pathname).toBe('/embed.html');
        expect(Object.fromEntries(src.searchParams)).toEqual({ widget: c.concept, ...c.attrs });
        const two = await pasted(code.iframe);
        const framed = two.page.frameLocator('iframe').locator(tag);
        await expect.poll(() => framed.getAttribute('data-rendered'), { timeout: 30_000 }).toBeTruthy();
        expect(await heatmaps(framed)).toEqual(shown);
        expect(two.errors).toEqual([]);

        // The MyST directive: anywidget.js with the same state as its JSON body.
        const [head, body, end] = code.myst.split('\n');
        expect(head).toMatch(/^:::\{anywidget\} http:\/\/[^ ]+\/anywidget\.js$/);
        const bundle = new URL('attention-playground.js', src).href; // beside embed.html
        expect(JSON.parse(body)).toEqual({ widget: c.concept, ...c.attrs, bundle });
        expect(end).toBe(':::');
        expect(errors).toEqual([]);
      },
      120_000,
    );

  test('the snippets follow the view: a new sentence typed on the page is in the open embed box', async () => {
    const { page, errors, code } = await copyEmbed(playground, '/#chapter=B', 'softmax');
    expect(code.html).toContain('<ap-softmax></ap-softmax>'); // the page's defaults are the widget's
    await page.locator('ap-controls').locator('input[type=text]').first().fill('birds fly south');
    const box = page.locator('details.embed-code[data-for="softmax"] [data-embed="html"] textarea');
    await expect.poll(() => box.inputValue(), { timeout: 30_000 }).toContain('<ap-softmax text="birds fly south">');
    // The Copy button puts the snippet on the clipboard and says so.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    const row = page.locator('details.embed-code[data-for="softmax"] [data-embed="html"]');
    await row.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => row.locator('.copied').textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await box.inputValue());
    expect(errors).toEqual([]);
  }, 60_000);
});
