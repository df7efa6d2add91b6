// `npm run build`: build the wasm module, bundle the page (web/) with Vite into dist/, then the
// widget library beside it (dist/attention-playground.js + dist/attention-playground/, embed.html).
// `--widgets` builds only the widget library (what `npm pack` needs: the prepack script).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, StepError, buildWidgets, main, prepareWasmModule, step } from './lib/setup.mjs';

const widgetsOnly = process.argv.includes('--widgets');

main(async () => {
  await prepareWasmModule(); // ap_core depends on ap_train: both modules
  for (const file of ['wasm/build/ap_train.mjs', 'wasm/build/ap_train.wasm']) {
    if (!existsSync(join(ROOT, file)))
      throw new StepError(`the wasm build did not produce ${file} (the trainer module)`);
  }

  if (!widgetsOnly) {
    step('bundling the page into dist/ (vite build)');
    const { build } = await import('vite');
    await build({ configFile: join(ROOT, 'web', 'vite.config.js') });
  }
  await buildWidgets({ force: !widgetsOnly });
  console.log(
    widgetsOnly
      ? '\ndist/attention-playground.js is ready.'
      : '\ndist/ is ready: serve it with any static file server (index.html is the playground, embed.html the iframe embed).',
  );
});
