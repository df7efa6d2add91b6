// The trainer (and the whole module) runs inside a Web Worker, so a page can train a model live
// while staying responsive: the worker trains sort for a fixed number of steps and reports back.
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { usePlayground } from './harness.js';

const wrapper = '/@fs' + fileURLToPath(new URL('../../wasm/index.js', import.meta.url));
const playground = usePlayground();

test('a module Web Worker loads the wasm module and trains sort, the page staying responsive', async () => {
  const { page, errors } = await playground.open('/');
  // A string, so Vitest does not rewrite the dynamic import meant for the browser.
  const result = await page.evaluate(`(async () => {
    const code = ${JSON.stringify(`
      import { load } from 'ORIGIN${wrapper}';
      const ap = await load();
      const trainer = await ap.createTrainer({ task: 'sort', config: { dModel: 32, nHeads: 2, nLayers: 1, dFf: 64 }, seed: 3, batch: 16, totalSteps: 60 });
      const losses = [];
      for (let i = 0; i < 6; i++) losses.push(trainer.step(10));
      const model = trainer.snapshot();
      const t = model.forward([2, 10, 12, 11]);
      postMessage({ variant: ap.kernels.info().variant, losses, steps: trainer.info().steps, shape: t.shape('weights', { layer: 0 }) });
    `)};
    // a blob: URL cannot resolve an absolute path: give the import the page's origin
    const url = URL.createObjectURL(new Blob([code.replace('ORIGIN', location.origin)], { type: 'text/javascript' }));
    const worker = new Worker(url, { type: 'module' });
    let ticks = 0;
    const timer = setInterval(() => { ticks++; }, 10); // the main thread keeps running meanwhile
    const msg = await new Promise((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => { e.preventDefault(); reject(new Error(e.message || 'worker error (module failed to load)')); };
    });
    clearInterval(timer);
    worker.terminate();
    return { ...msg, ticks };
  })()`);
  expect(result.steps).toBe(60);
  expect(result.losses).toHaveLength(6);
  expect(result.losses[5]).toBeLessThan(result.losses[0]);
  expect(result.shape).toEqual([2, 4, 4]);
  expect(result.ticks).toBeGreaterThan(0);
  expect(errors).toEqual([]);
});
