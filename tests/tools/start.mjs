// `npm start`: install what is missing, build the wasm module, and serve the page (web/)
// with Vite on 127.0.0.1. PORT=8080 npm start picks another port; a busy port falls
// back to the next free one.
import { join } from 'node:path';
import { ROOT, main, prepareWasmModule, step } from './lib/setup.mjs';

main(async () => {
  await prepareWasmModule();

  step('serving the page');
  const { createServer } = await import('vite'); // only now is node_modules certain to exist
  const port = process.env.PORT ? Number(process.env.PORT) : undefined;
  const server = await createServer({
    configFile: join(ROOT, 'web', 'vite.config.js'),
    server: port ? { port } : {},
  });
  await server.listen();
  const url = server.resolvedUrls.local[0];
  console.log(`\n  Attention Playground is running at:  ${url}\n`);
  console.log('  Open it in a browser. Press Ctrl+C to stop.\n');
});
