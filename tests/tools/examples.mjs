// `npm run examples`: build the widget bundle (dist/attention-playground.js) if it is out of date,
// build the course-tool examples (a MyST book, an Observable Framework site, a Pandoc lesson, a
// reveal.js deck) into build/examples/, then serve the repository as a plain static host would
// and print the example pages' addresses. PORT=8080 npm run examples picks the port.
import { ROOT, buildWidgets, main, prepareWasmModule, step } from './lib/setup.mjs';
import { serveStatic } from './lib/static-server.mjs';
import { buildPandocLesson, buildRevealDeck } from './lib/hosts-static.mjs';
import { buildObservable } from './lib/observable.mjs';
import { buildMystBook } from './lib/myst.mjs';

main(async () => {
  await prepareWasmModule();
  await buildWidgets();
  step('course-tool examples (build/examples/)');
  const timed = async (name, build) => {
    const t0 = performance.now();
    await build();
    console.log(`${name}: built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  };
  await timed('Pandoc lesson', () => buildPandocLesson());
  await timed('reveal.js deck', () => buildRevealDeck());
  await timed('Observable Framework site', () => buildObservable());
  await timed('MyST book (the first time also installs and builds its theme)', () => buildMystBook());
  step('serving the examples (a plain static server, like any host)');
  const { url } = await serveStatic(ROOT, { port: process.env.PORT ? Number(process.env.PORT) : 8090 });
  // The MyST and Observable sites expect to be at the root of their host: each gets its own server.
  const myst = await serveStatic(`${ROOT}/build/examples/myst/html`);
  const observable = await serveStatic(`${ROOT}/build/examples/observable`);
  console.log(`
  Course page (widgets between paragraphs):  ${url}examples/course.html
  Widget gallery (every widget, attributes):  ${url}examples/gallery.html
  Iframe embeds (for LMS pages):              ${url}examples/iframe.html
  Strict Content-Security-Policy page:        ${url}examples/csp.html
  Pandoc lesson (Markdown, raw HTML blocks):  ${url}build/examples/pandoc/lesson.html
  reveal.js slides:                           ${url}build/examples/reveal/index.html
  MyST / Jupyter Book 2 book ({anywidget}):   ${myst.url}
  Observable Framework site:                  ${observable.url}
  The bundle itself:                          ${url}dist/attention-playground.js

  Press Ctrl+C to stop.
`);
});
