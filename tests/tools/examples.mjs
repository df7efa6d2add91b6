// `npm run examples`: build the widget bundle (dist/attention-playground.js) if it is out of date,
// then serve the repository as a plain static host would and print the example pages' addresses.
// PORT=8080 npm run examples picks the port.
import { ROOT, buildWidgets, main, prepareWasmModule, step } from './lib/setup.mjs';
import { serveStatic } from './lib/static-server.mjs';

main(async () => {
  await prepareWasmModule();
  await buildWidgets();
  step('serving the examples (a plain static server, like any host)');
  const { url } = await serveStatic(ROOT, { port: process.env.PORT ? Number(process.env.PORT) : 8090 });
  console.log(`
  Course page (widgets between paragraphs):  ${url}examples/course.html
  Widget gallery (every widget, attributes):  ${url}examples/gallery.html
  Iframe embeds (for LMS pages):              ${url}examples/iframe.html
  Strict Content-Security-Policy page:        ${url}examples/csp.html
  The bundle itself:                          ${url}dist/attention-playground.js

  Press Ctrl+C to stop.
`);
});
