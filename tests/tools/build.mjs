// `npm run build`: build the wasm module, then bundle the page (web/) with Vite into dist/.
import { join } from 'node:path';
import {
  ROOT, BUILD_PACKAGES, buildWasm, ensureDebianPackages, ensureNodeModules, main, step,
} from './lib/setup.mjs';

main(async () => {
  await ensureDebianPackages(BUILD_PACKAGES);
  await ensureNodeModules();
  await buildWasm({ target: 'ap_core' });

  step('bundling the page into dist/ (vite build)');
  const { build } = await import('vite');
  await build({ configFile: join(ROOT, 'web', 'vite.config.js') });
  console.log('\ndist/ is ready: serve it with any static file server.');
});
