// A small static file server (Node builtins only) for the examples and the embed tests: it
// serves a folder as any static host would, with the right MIME types (application/wasm matters:
// browsers compile wasm while it downloads only with it). Pages named *csp*.html are sent with
//   Content-Security-Policy: script-src 'self' 'wasm-unsafe-eval'
// the strict policy the widgets must work under (examples/csp.html also states it in a <meta>).
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { extname, join, normalize, sep } from 'node:path';

export const STRICT_CSP = "script-src 'self' 'wasm-unsafe-eval'";

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.ts': 'text/plain; charset=utf-8',
  '.safetensors': 'application/octet-stream',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
};

// Compressed on the way out when the client accepts gzip (gzip: true), as static hosts and CDNs do;
// fonts (woff/woff2) are compressed already, and a byte range is always served uncompressed.
const COMPRESSIBLE = new Set([
  '.html',
  '.js',
  '.mjs',
  '.css',
  '.json',
  '.wasm',
  '.svg',
  '.ttf',
  '.safetensors',
  '.txt',
  '.md',
  '.ts',
]);

// Cross-origin isolation, as README's "Threads" section shows for a static host: COOP and COEP on
// every response make a page crossOriginIsolated (shared memory, so the threaded wasm module);
// CORP cross-origin lets another isolated site still load the bundle, its wasm and models.
export const ISOLATION_HEADERS = {
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-embedder-policy': 'require-corp',
  'cross-origin-resource-policy': 'cross-origin',
};

/**
 * Serves `root` on 127.0.0.1:`port` (0 = a free port). Returns { url, close() }.
 * gzip: compress responses for clients that accept it (npm run audit serves dist/ so).
 * isolate: send ISOLATION_HEADERS (true; false serves as a host without them, e.g. GitHub Pages).
 */
export function serveStatic(root, { port = 0, log = false, gzip = false, isolate = true } = {}) {
  const base = normalize(root + sep);
  const gzipped = new Map(); // file -> { mtimeMs, body }
  const server = createServer((req, res) => {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    } catch {
      res.writeHead(400).end('bad URL');
      return;
    }
    let file = normalize(join(base, path));
    if (!file.startsWith(base) && file + sep !== base) {
      res.writeHead(403).end('forbidden');
      return;
    }
    let st;
    try {
      st = statSync(file);
      if (st.isDirectory()) {
        file = join(file, 'index.html');
        st = statSync(file);
      }
    } catch {
      if (log) console.log(`404 ${path}`);
      res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${path}`);
      return;
    }
    const headers = {
      'content-type': TYPES[extname(file)] || 'application/octet-stream',
      'content-length': st.size,
      'cache-control': 'no-cache',
      // As GitHub Pages and most CDNs: another site may load the bundle, its wasm and models (a
      // MyST book built from a directive copied from the playground loads them from there).
      'access-control-allow-origin': '*',
      'accept-ranges': 'bytes',
      ...(isolate ? ISOLATION_HEADERS : {}),
    };
    if (/csp[^/]*\.html$/.test(file)) headers['content-security-policy'] = STRICT_CSP;
    // One byte range (bytes=a-b), as static hosts serve them: the page reads model headers so.
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range || '');
    if (range && st.size > 0) {
      const start = Number(range[1]),
        end = Math.min(range[2] ? Number(range[2]) : st.size - 1, st.size - 1);
      if (start > end) {
        res.writeHead(416, { 'content-range': `bytes */${st.size}` }).end();
        return;
      }
      res.writeHead(206, {
        ...headers,
        'content-length': end - start + 1,
        'content-range': `bytes ${start}-${end}/${st.size}`,
      });
      if (req.method === 'HEAD') res.end();
      else createReadStream(file, { start, end }).pipe(res);
      return;
    }
    if (gzip && COMPRESSIBLE.has(extname(file)) && /\bgzip\b/.test(req.headers['accept-encoding'] || '')) {
      let cached = gzipped.get(file);
      if (!cached || cached.mtimeMs !== st.mtimeMs)
        gzipped.set(file, (cached = { mtimeMs: st.mtimeMs, body: gzipSync(readFileSync(file), { level: 9 }) }));
      res.writeHead(200, {
        ...headers,
        'content-encoding': 'gzip',
        'content-length': cached.body.length,
        vary: 'accept-encoding',
      });
      res.end(req.method === 'HEAD' ? undefined : cached.body);
      return;
    }
    res.writeHead(200, headers);
    if (req.method === 'HEAD') res.end();
    else createReadStream(file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      resolve({
        url: `http://127.0.0.1:${server.address().port}/`,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}
