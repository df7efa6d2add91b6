// axe-core in a Playwright page: renderViews() scrolls every widget into view so it draws (the
// views render when they come near the viewport), runAxe() runs axe-core 4 on the whole document,
// shadow roots included, and returns its violations; formatViolations() prints them for a person.
// Used by tests/web/axe.test.js (npm test) and by the audit tool (npm run audit).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let axeSource = null;

/**
 * Runs axe-core on `page` and returns its violations (an empty array when there are none).
 * axe is injected with page.evaluate (a DevTools evaluation, so a page's strict CSP does not
 * block it), then `axe.run(document)`, which looks inside open shadow roots.
 *
 * @param {import('playwright-core').Page} page
 * @param {object} [opts]
 * @param {string|object} [opts.context] axe context (default: the whole document)
 * @param {object} [opts.options] axe run options (default: every rule axe runs by default,
 *   the WCAG 2.x A/AA rules and best practices; `{ runOnly: [...] }` narrows it)
 * @returns {Promise<Array<{ id: string, impact: string|null, help: string, helpUrl: string,
 *   nodes: Array<{ target: string[], html: string, summary: string }> }>>}
 */
export async function runAxe(page, { context = null, options = {} } = {}) {
  axeSource ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  return page.evaluate(
    async ([ctx, opts]) => {
      const result = await window.axe.run(ctx || document, { resultTypes: ['violations'], ...opts });
      return result.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        helpUrl: v.helpUrl,
        nodes: v.nodes.map((n) => ({ target: n.target.map(String), html: n.html, summary: n.failureSummary || '' })),
      }));
    },
    [context, options],
  );
}

/**
 * The violations as readable text: one block per rule (id, impact, count, help), then each
 * element's target selector (shadow hosts joined by " >> "), its markup and axe's summary.
 * `label` (e.g. the page and theme) heads the text; at most `perRule` elements per rule.
 */
export function formatViolations(violations, { label = '', perRule = 8 } = {}) {
  if (!violations.length) return `${label ? `${label}: ` : ''}no axe violations`;
  const lines = [
    `${label ? `${label}: ` : ''}${violations.length} axe rule(s) violated on ${violations.reduce((s, v) => s + v.nodes.length, 0)} element(s)`,
  ];
  for (const v of violations) {
    lines.push(`- ${v.id} (${v.impact}) x${v.nodes.length}: ${v.help} [${v.helpUrl}]`);
    for (const n of v.nodes.slice(0, perRule)) {
      lines.push(`    ${n.target.join(' >> ')}`);
      lines.push(`      ${n.html.replace(/\s+/g, ' ').slice(0, 200)}`);
      for (const s of n.summary.split('\n').filter(Boolean).slice(0, 4)) lines.push(`      ${s.trim()}`);
    }
    if (v.nodes.length > perRule) lines.push(`    ... and ${v.nodes.length - perRule} more`);
  }
  return lines.join('\n');
}

/** { ruleId: element count } of a violations array, for a one-line summary or a table. */
export function countViolations(violations) {
  return Object.fromEntries(violations.map((v) => [v.id, v.nodes.length]));
}

/**
 * Scrolls each custom element (ap-*) matched by `selector` into view in turn and waits until it has
 * drawn (data-rendered or data-error set), so an audit sees every view as a reader would. Returns
 * the elements' tags and errors. Then scrolls back to the top.
 */
export async function renderViews(page, { selector = '*', timeout = 30_000 } = {}) {
  const count = await page.evaluate((sel) => {
    const all = [...document.querySelectorAll(sel)].filter(
      (e) => e.tagName.startsWith('AP-') && e.tagName !== 'AP-CONTROLS' && !e.closest('[hidden]'),
    );
    all.forEach((e, i) => {
      e.dataset.axeIndex = String(i);
    });
    return all.length;
  }, selector);
  for (let i = 0; i < count; i++) {
    const sel = `[data-axe-index="${i}"]`;
    await page.locator(sel).scrollIntoViewIfNeeded();
    await page.waitForFunction(
      (s) => {
        const e = document.querySelector(s);
        return !e || e.dataset.rendered !== undefined || e.dataset.error !== undefined;
      },
      sel,
      { timeout },
    );
  }
  const views = await page.evaluate(() =>
    [...document.querySelectorAll('[data-axe-index]')].map((e) => {
      const out = { tag: e.tagName.toLowerCase(), error: e.dataset.error || '' };
      delete e.dataset.axeIndex;
      return out;
    }),
  );
  await page.evaluate(() => window.scrollTo(0, 0));
  return views;
}
