// Frame-time benchmark of the playground page: for each scenario, change the text (or a switch)
// 60 times and time from the input event to the end of all the recompute + redraw work it
// triggers (microtasks), plus the next frame's rendering (rAF -> next task after paint).
// Run: node tests/bench/page-speed.mjs [--built]   (after npm run build for --built)
import { startPlayground } from '../web/harness.js';
const pg = await startPlayground({ built: process.argv.includes('--built') });
const words =
  'the cat sat on the mat and the dog ran across the park while a bird sang in the old tree near the river as the sun rose over the hill'.split(
    ' ',
  );
const scenarios = [
  { name: 'stepper at scores (top of page)', path: '/?step=decoder:0:scores' },
  { name: 'stepper at probabilities (n x V)', path: '/?step=-:-:probs' },
  { name: 'softmax view on screen', path: '/#concept=softmax' },
  { name: 'heads view on screen', path: '/#concept=heads' },
  { name: 'causal-mask view on screen', path: '/#concept=causal-mask' },
];
for (const sc of scenarios) {
  const { page, errors } = await pg.open(sc.path, { viewport: { width: 1280, height: 900 } });
  await page.waitForTimeout(2500);
  const times = await page.evaluate(async (words) => {
    const controls = document.querySelector('ap-controls');
    const input = controls.shadowRoot.querySelector('#text');
    const flush = () =>
      new Promise((r) => {
        const ch = new MessageChannel();
        ch.port1.onmessage = r;
        ch.port2.postMessage(0);
      });
    const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    const out = [];
    for (let k = 0; k < 60; k++) {
      const n = 32 - (k % 2); // 31 or 32 tokens: every change recomputes
      await frame();
      const t0 = performance.now();
      input.value = words.slice(0, n - 1).join(' ') + ' ' + words[k % words.length];
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await flush();
      const t1 = performance.now();
      await new Promise((r) => requestAnimationFrame(r)); // style, layout happen before this frame's paint
      const t2 = performance.now();
      out.push([t1 - t0, t2 - t0]);
    }
    return out;
  }, words);
  const p = (arr, q) => {
    const s = [...arr].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(q * s.length))];
  };
  const work = times.map((t) => t[0]);
  console.log(
    `${sc.name}: recompute+redraw median ${p(work, 0.5).toFixed(1)} ms, p95 ${p(work, 0.95).toFixed(1)} ms; errors ${errors.length}`,
  );
  await page.context().close();
}
// First meaningful render: time to the stepper's first drawn step.
for (let r = 0; r < 3; r++) {
  const { page } = await pg.open('/', { viewport: { width: 1280, height: 900 } });
  const t = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const check = () =>
          document.querySelector('ap-stepper')?.dataset.rendered
            ? resolve(performance.now())
            : requestAnimationFrame(check);
        check();
      }),
  );
  console.log(`first render (stepper drawn) ${t.toFixed(0)} ms after navigation start`);
  await page.context().close();
}
await pg.close();
