// `node tests/tools/english-trial.mjs`: twenty sentences a new student might type, read by the page's
// default model as the page reads them. Not a test (what it prints is for a person to read): for each
// sentence, the pieces and how many are bytes of a character, whether anything was unknown, the
// model's five most likely next pieces, its greedy continuation, and whether every view of chapters
// B, C and F drew it in headless Chromium with no error. Prints a markdown table
// (build/english/trial.md). Needs the built page's sources (it starts the Vite dev server);
// --no-browser: the model's figures only.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { createServer } from 'vite';
import { load } from '../../wasm/index.js';
import { CHROMIUM, CHROMIUM_ARGS } from './lib/chromium.mjs';
import { ROOT, main, step } from './lib/setup.mjs';
import { SENTENCES } from './lib/english-sentences.mjs';

const cell = (s) => String(s).replaceAll('|', '\\|').replaceAll('\n', ' ');

main(async () => {
  step('the English decoder in Node');
  const ap = await load();
  const model = await ap.openModel(readFileSync(join(ROOT, 'web/models/english.safetensors')));
  const piece = (id) => JSON.stringify(model.tokenizer.decode([id]));
  const rows = [];
  for (const text of SENTENCES) {
    const enc = model.tokenizer.encode(text);
    const ids = [model.specialTokens.bos, ...enc.ids];
    const t = model.forward(Int32Array.from(ids));
    const V = model.vocab.length;
    const p = Array.from(t.get('probs').slice((ids.length - 1) * V, ids.length * V));
    t.dispose();
    const top = p
      .map((v, id) => [v, id])
      .sort((a, b) => b[0] - a[0])
      .slice(0, 5)
      .map(([v, id]) => `${piece(id)} ${v.toFixed(2)}`);
    const gen = model.generate(text, { maxTokens: 12 });
    const bytePieces = Array.from(enc.ids).filter((id) => model.tokenizer.decode([id]).includes('\uFFFD')).length;
    rows.push({
      text,
      pieces: enc.ids.length,
      bytePieces,
      unknown: enc.unknown.length,
      roundTrip: model.tokenizer.decode(enc.ids) === text,
      top,
      continuation: gen.text,
    });
  }
  model.dispose();

  if (process.argv.includes('--no-browser')) return print(rows);
  step('every view of chapters B, C and F in headless Chromium');
  const server = await createServer({ configFile: join(ROOT, 'web/vite.config.js'), logLevel: 'error' });
  await server.listen();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    for (const row of rows) {
      const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      const failed = [];
      let views = 0;
      for (const chapter of ['B', 'C', 'F']) {
        await page.goto(
          `${server.resolvedUrls.local[0]}?${new URLSearchParams({ text: row.text })}#chapter=${chapter}`,
        );
        const n = await page.evaluate(() => document.querySelectorAll('section.chapter [data-concept]').length);
        for (let i = 0; i < n; i++) {
          const concept = await page.evaluate((k) => {
            const w = document.querySelectorAll('section.chapter [data-concept]')[k];
            w.scrollIntoView();
            return w.dataset.concept;
          }, i);
          try {
            await page.waitForFunction(
              (k) => {
                const w = document.querySelectorAll('section.chapter [data-concept]')[k];
                return w?.dataset.rendered !== undefined || w?.dataset.error !== undefined;
              },
              i,
              { timeout: 60_000 },
            );
          } catch {
            failed.push(`${chapter} ${concept}: not drawn after 60 s`);
            continue;
          }
          const err = await page.evaluate(
            (k) => document.querySelectorAll('section.chapter [data-concept]')[k].dataset.error ?? null,
            i,
          );
          views++;
          if (err !== null) failed.push(`${chapter} ${concept}: ${err}`);
        }
      }
      console.log(`  ${JSON.stringify(row.text.slice(0, 40))}: ${views} views drawn, ${failed.length} failed`);
      row.views = views;
      row.failed = failed;
      row.errors = errors;
      await page.close();
    }
  } finally {
    await browser.close();
    await server.close();
  }

  print(rows);
});

function print(rows) {
  const lines = [
    '| # | text | pieces (bytes of a character) | unknown | decodes back | top 5 next pieces | greedy continuation | views drawn / with an error |',
    '|---:|---|---:|---:|---|---|---|---|',
    ...rows.map(
      (r, i) =>
        `| ${i + 1} | ${cell(r.text.length > 60 ? `${r.text.slice(0, 57)}...` : r.text)} | ${r.pieces} (${r.bytePieces}) | ${r.unknown} | ${r.roundTrip ? 'yes' : 'NO'} | ${cell(r.top.join(', '))} | ${cell(JSON.stringify(r.continuation))} | ${r.views === undefined ? 'not run' : `${r.views} / ${r.failed.length + r.errors.length}`} |`,
    ),
  ];
  mkdirSync(join(ROOT, 'build', 'english'), { recursive: true });
  writeFileSync(join(ROOT, 'build', 'english', 'trial.md'), `${lines.join('\n')}\n`);
  console.log(lines.join('\n'));
  for (const r of rows) if (r.failed?.length || r.errors?.length) console.log(r.text, r.failed, r.errors);
}
