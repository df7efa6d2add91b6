// Accessibility: axe-core 4 finds no violations (its default rules: WCAG 2.x A/AA and best
// practices, inside every shadow root) on chapter A of the learning path, on the one-page view
// with every view drawn (#chapter=all) and on the course page (examples/, the bundle in dist/), in
// the light and the dark theme (the reader's prefers-color-scheme), and on the widget gallery. Each
// view is scrolled into view first: views draw only when they come near the viewport.
// On failure the message lists each rule, the elements (shadow hosts joined by >>) and why.
import { beforeAll, describe, expect, test } from 'vitest';
import { ROOT, requireBundle, usePlayground, useStaticSite } from './harness.js';
import { formatViolations, renderViews, runAxe } from './lib/axe.js';

const THEMES = ['light', 'dark'];

/** Draws every view on the page, runs axe and returns the report of `label` ('' when clean). */
async function audit(page, label, selector) {
  const views = await renderViews(page, { selector });
  expect(views.length, `${label}: no views found`).toBeGreaterThan(0);
  const violations = await runAxe(page);
  return violations.length ? formatViolations(violations, { label }) : '';
}

describe('the playground page', () => {
  const playground = usePlayground();

  // One page per theme: chapter A (a chapter as the path shows it: its head, goals, intro, prompts,
  // questions and the previous / next footer), then the one-page view, which holds every chapter's
  // section with its head, intro, prompts, questions and views (auditing each chapter again
  // found nothing the one-page view does not hold, and took half of this file's time).
  test.each(THEMES)(
    'chapter A and the one-page view (every chapter), %s theme',
    { timeout: 300_000 },
    async (theme) => {
      const { page } = await playground.open('/#chapter=A', { colorScheme: theme });
      try {
        await page
          .locator('ap-controls #model option[value="english"]')
          .waitFor({ state: 'attached', timeout: 30_000 });
        const reports = [];
        for (const chapter of ['A', 'all']) {
          await page.evaluate((c) => {
            location.hash = `#chapter=${c}`;
          }, chapter);
          await page.waitForFunction((c) => document.body.dataset.chapter === c, chapter);
          reports.push(await audit(page, `#chapter=${chapter} (${theme})`, '#main *'));
        }
        expect(
          await page.evaluate(
            () =>
              document.documentElement.dataset.theme ||
              (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'),
          ),
        ).toBe(theme);
        const failed = reports.filter(Boolean);
        expect(failed.length, `axe violations:\n${failed.join('\n\n')}`).toBe(0);
      } finally {
        await page.context().close();
      }
    },
  );
});

describe('the gallery and the course page (examples/, the bundle in dist/)', () => {
  beforeAll(requireBundle);
  const site = useStaticSite(ROOT);

  // The gallery in the light theme: every widget's dark colours are the same components' as on the
  // one-page view above (audited in both themes), and course.html below shows widgets in a host
  // page in both themes; the gallery's dark run found nothing those two do not and took 37 s.
  test('every widget drawn, light theme', { timeout: 240_000 }, async () => {
    const theme = 'light';
    const { page } = await site.open('examples/gallery.html', { colorScheme: theme });
    try {
      await expect.poll(() => page.locator('section.entry').count(), { timeout: 30_000 }).toBeGreaterThan(40);
      const report = await audit(page, `examples/gallery.html (${theme})`, 'section.entry > *');
      expect(report === '', `axe violations:\n${report}`).toBe(true);
    } finally {
      await page.context().close();
    }
  });

  test.each(THEMES)('examples/course.html, %s theme', { timeout: 120_000 }, async (theme) => {
    const { page } = await site.open('examples/course.html', { colorScheme: theme });
    try {
      const report = await audit(page, `examples/course.html (${theme})`, 'main *');
      expect(report === '', `axe violations:\n${report}`).toBe(true);
    } finally {
      await page.context().close();
    }
  });
});
