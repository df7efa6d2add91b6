// `npm run audit`: page quality as a visitor gets it. Not a test (Lighthouse's figures are timings,
// noisy on this shared machine); it prints one markdown table and writes it to build/audit/.
//
// - builds the page and the widget bundle (npm run build) into dist/;
// - serves dist/ (the playground) and the repository (examples/course.html, gallery.html, which load
//   ../dist/attention-playground.js) as a static host would: gzip, byte ranges, no-cache;
// - Lighthouse 13 (npm lighthouse) in Debian's headless Chromium, desktop and mobile presets
//   (mobile: simulated slow 4G and a 4x slower CPU), each page `--runs N` times (default 2):
//   performance, accessibility and best-practices scores, CLS, TBT, LCP, FCP, bytes on first load;
// - axe-core 4 (tests/web/lib/axe.js) on each chapter of the learning path, on every view at once
//   (#chapter=all, each view scrolled into life), on examples/gallery.html and course.html, in the
//   light and the dark theme: violations per rule.
// Options: --runs N, --no-lighthouse, --no-axe, --no-build, --only playground|course, --out DIR,
// --preset desktop|mobile (one preset only), --save-lhr (each run's full Lighthouse report as JSON in
// the --out folder, for reading its long tasks and LCP breakdown).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ROOT, StepError, ensureDebianPackages, ensureNodeModules, main, step, run } from './lib/setup.mjs';
import { serveStatic } from './lib/static-server.mjs';
import { CHROMIUM, CHROMIUM_ARGS } from './lib/chromium.mjs';

const CHAPTER_IDS = ['A', 'B', 'recap', 'C', 'D', 'E', 'F', 'G', 'H'];

function parseArgs(argv) {
  const opts = {
    runs: 2,
    lighthouse: true,
    axe: true,
    build: true,
    only: null,
    out: join(ROOT, 'build', 'audit'),
    presets: ['desktop', 'mobile'],
    saveLhr: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') opts.runs = Number(argv[++i]);
    else if (a === '--no-lighthouse') opts.lighthouse = false;
    else if (a === '--no-axe') opts.axe = false;
    else if (a === '--no-build') opts.build = false;
    else if (a === '--only') opts.only = argv[++i];
    else if (a === '--out') opts.out = resolve(argv[++i]);
    else if (a === '--preset') opts.presets = [argv[++i]];
    else if (a === '--save-lhr') opts.saveLhr = true;
    else
      throw new StepError(
        `unknown option ${a} (known: --runs N --no-lighthouse --no-axe --no-build --only playground|course --out DIR --preset desktop|mobile --save-lhr)`,
      );
  }
  if (!(opts.runs >= 1)) throw new StepError('--runs needs a number >= 1');
  if (!opts.presets.every((p) => p === 'desktop' || p === 'mobile'))
    throw new StepError('--preset takes desktop or mobile');
  return opts;
}

// ---- Lighthouse ---------------------------------------------------------------------------------

async function lighthouseRun(url, preset, port, savePath) {
  const { default: lighthouse } = await import('lighthouse');
  const config = preset === 'desktop' ? (await import('lighthouse/core/config/desktop-config.js')).default : undefined; // Lighthouse's default: the mobile preset
  const flags = {
    port,
    output: 'json',
    logLevel: 'error',
    onlyCategories: ['performance', 'accessibility', 'best-practices'],
  };
  const { lhr, artifacts } = await lighthouse(url, flags, config);
  if (savePath) {
    mkdirSync(dirname(savePath), { recursive: true });
    writeFileSync(savePath, JSON.stringify(lhr));
    // The page's trace too: which function, layout or compile each long task was.
    const trace = artifacts?.Trace ?? artifacts?.traces?.defaultPass;
    if (trace) writeFileSync(savePath.replace(/\.json$/, '.trace.json'), JSON.stringify(trace));
  }
  if (lhr.runtimeError)
    throw new StepError(`Lighthouse on ${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
  const audit = (id) => lhr.audits[id];
  const failing = (cat) =>
    lhr.categories[cat].auditRefs
      .filter((r) => r.weight > 0 && audit(r.id).score !== null && audit(r.id).score < 1)
      .map((r) => r.id);
  const longTasks = (audit('long-tasks')?.details?.items || []).map((t) => Math.round(t.duration));
  return {
    performance: Math.round(lhr.categories.performance.score * 100),
    accessibility: Math.round(lhr.categories.accessibility.score * 100),
    bestPractices: Math.round(lhr.categories['best-practices'].score * 100),
    cls: audit('cumulative-layout-shift').numericValue,
    tbt: audit('total-blocking-time').numericValue,
    lcp: audit('largest-contentful-paint').numericValue,
    fcp: audit('first-contentful-paint').numericValue,
    si: audit('speed-index').numericValue,
    bytes: audit('total-byte-weight').numericValue,
    longTasks,
    failing: [...failing('accessibility'), ...failing('best-practices')],
    lcpElement: audit('largest-contentful-paint-element')?.details?.items?.[0]?.items?.[0]?.node?.snippet || '',
    biggest: (audit('network-requests')?.details?.items || [])
      .sort((a, b) => b.transferSize - a.transferSize)
      .slice(0, 6)
      .map(
        (r) =>
          `${r.url.replace(/^https?:\/\/[^/]+\//, '').replace(/-[\w-]{8}(\.\w+)$/, '$1')} ${Math.round(r.transferSize / 1024)}`,
      ),
    shifts: (audit('layout-shifts')?.details?.items || [])
      .slice(0, 3)
      .map((s) => `${s.node?.selector || '?'} ${s.score?.toFixed(3)}`),
  };
}

async function runLighthouse(pages, opts) {
  const chromeLauncher = await import('chrome-launcher');
  const rows = [];
  for (const { name, url } of pages) {
    for (const preset of opts.presets) {
      const results = [];
      for (let r = 0; r < opts.runs; r++) {
        // A fresh browser per run: no warm cache, no leftover service state between runs.
        const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: CHROMIUM_ARGS });
        try {
          const save = opts.saveLhr ? join(opts.out, `lhr-${name}-${preset}-${r + 1}.json`) : null;
          results.push(await lighthouseRun(url, preset, chrome.port, save));
        } finally {
          await chrome.kill();
        }
        const x = results.at(-1);
        console.log(
          `  ${name} ${preset} run ${r + 1}: performance ${x.performance}, a11y ${x.accessibility}, best practices ${x.bestPractices}, CLS ${x.cls.toFixed(3)}, TBT ${Math.round(x.tbt)} ms, LCP ${(x.lcp / 1000).toFixed(1)} s` +
            (x.failing.length ? `; failing: ${x.failing.join(', ')}` : '') +
            (x.longTasks.length ? `; long tasks ${x.longTasks.join(', ')} ms` : ''),
        );
        if (x.shifts.length) console.log(`    layout shifts: ${x.shifts.join('; ')}`);
        console.log(`    largest transfers (KiB): ${x.biggest.join('; ')}`);
        if (x.lcpElement) console.log(`    LCP element: ${x.lcpElement.slice(0, 120)}`);
      }
      rows.push({ name, preset, results });
    }
  }
  return rows;
}

function lighthouseTable(rows) {
  const span = (xs, f) => {
    const v = xs.map(f);
    return v.every((x) => x === v[0]) ? v[0] : v.join(', ');
  };
  const lines = [
    '| page | preset | performance | accessibility | best practices | CLS | TBT (ms) | LCP (s) | FCP (s) | first-load KiB (transferred) |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { name, preset, results: rs } of rows) {
    lines.push(
      `| ${name} | ${preset} | ${span(rs, (x) => x.performance)} | ${span(rs, (x) => x.accessibility)} | ${span(rs, (x) => x.bestPractices)} | ` +
        `${span(rs, (x) => x.cls.toFixed(3))} | ${span(rs, (x) => Math.round(x.tbt))} | ${span(rs, (x) => (x.lcp / 1000).toFixed(1))} | ` +
        `${span(rs, (x) => (x.fcp / 1000).toFixed(1))} | ${span(rs, (x) => Math.round(x.bytes / 1024))} |`,
    );
  }
  return lines.join('\n');
}

// ---- axe-core -----------------------------------------------------------------------------------

async function runAxeAll(pageUrl, siteUrl) {
  const { chromium } = await import('playwright-core');
  const { runAxe, renderViews, countViolations, formatViolations } = await import('../web/lib/axe.js');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const targets = [
    ...CHAPTER_IDS.map((c) => ({ name: `chapter ${c}`, url: `${pageUrl}#chapter=${c}` })),
    { name: 'every view (#chapter=all)', url: `${pageUrl}#chapter=all` },
    { name: 'examples/gallery.html', url: `${siteUrl}examples/gallery.html` },
    { name: 'examples/course.html', url: `${siteUrl}examples/course.html` },
  ];
  const rows = [];
  const details = [];
  try {
    for (const t of targets) {
      const row = { name: t.name };
      for (const scheme of ['light', 'dark']) {
        const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, colorScheme: scheme });
        const page = await context.newPage();
        await page.goto(t.url);
        await page
          .waitForFunction(
            () =>
              !document.querySelector('#app p') || document.querySelector('ap-controls, ap-stepper, [data-concept]'),
            null,
            { timeout: 60_000 },
          )
          .catch(() => {});
        const views = await renderViews(page, { timeout: 60_000 });
        const violations = await runAxe(page);
        row[scheme] = {
          views: views.length,
          errors: views.filter((v) => v.error).length,
          counts: countViolations(violations),
        };
        if (violations.length) details.push(formatViolations(violations, { label: `${t.name}, ${scheme}` }));
        await context.close();
      }
      const fmt = (x) =>
        Object.keys(x.counts).length
          ? Object.entries(x.counts)
              .map(([k, n]) => `${k} x${n}`)
              .join(', ')
          : '0';
      console.log(`  ${t.name}: light ${fmt(row.light)}, dark ${fmt(row.dark)} (${row.light.views} views)`);
      rows.push({ ...row, fmt });
    }
  } finally {
    await browser.close();
  }
  const lines = ['| page | views drawn | violations, light | violations, dark |', '|---|---|---|---|'];
  for (const r of rows)
    lines.push(
      `| ${r.name} | ${r.light.views}${r.light.errors ? ` (${r.light.errors} with an error)` : ''} | ${r.fmt(r.light)} | ${r.fmt(r.dark)} |`,
    );
  return { table: lines.join('\n'), details: details.join('\n\n') };
}

// ---- main ---------------------------------------------------------------------------------------

main(async () => {
  const opts = parseArgs(process.argv.slice(2));
  await ensureDebianPackages(['chromium']);
  await ensureNodeModules();
  if (opts.build) {
    step('npm run build');
    const { code } = await run(process.execPath, [join(ROOT, 'tests', 'tools', 'build.mjs')]);
    if (code !== 0) throw new StepError('npm run build failed');
  }
  step('serving dist/ and the repository (gzip, byte ranges)');
  const dist = await serveStatic(join(ROOT, 'dist'), { gzip: true });
  const repo = await serveStatic(ROOT, { gzip: true });
  const out = [`# npm run audit (${new Date().toISOString().slice(0, 16)}Z)`, ''];
  try {
    if (opts.lighthouse) {
      step(`Lighthouse 13, ${opts.presets.join(' and ')} preset(s), ${opts.runs} run(s) each`);
      const pages = [
        { name: 'playground', url: dist.url },
        { name: 'course.html', url: `${repo.url}examples/course.html` },
      ].filter((p) => !opts.only || p.name.startsWith(opts.only));
      out.push('## Lighthouse', '', lighthouseTable(await runLighthouse(pages, opts)), '');
    }
    if (opts.axe) {
      step('axe-core, light and dark theme');
      const { table, details } = await runAxeAll(dist.url, repo.url);
      out.push('## axe-core', '', table, '');
      if (details) out.push('```', details, '```', '');
    }
  } finally {
    await dist.close();
    await repo.close();
  }
  const text = out.join('\n');
  mkdirSync(opts.out, { recursive: true });
  writeFileSync(join(opts.out, 'results.md'), text);
  console.log(`\n${text}\n(written to ${join(opts.out, 'results.md')})`);
});
