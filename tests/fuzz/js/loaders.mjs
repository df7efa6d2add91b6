// Fuzz targets for the JS side of loadPretrained (wasm/lib/pretrained.js): what a Hugging Face
// folder crosses before the core reads it. Each class makes a case from a seed (a deterministic
// generator: the same seed, the same case) and checks real outcomes against what the case must
// give: the bytes read equal the bytes sent, or an Error names the file and the problem in a few
// hundred characters; a load that should succeed gives the folder's own logits.
//
//   text-stream     textOf on a fake fetch Response: chunk boundaries anywhere (characters cut in
//                   two), stalls, early closes, errors mid-stream, Content-Length right, missing,
//                   short or past the file's limit
//   weights-stream  weightsReader on the same fakes, read back in random slices
//   json            config.json / tokenizer.json nested around the 64-level limit (and 100,000 deep),
//                   sizes around the 1 MB limit, objects that cannot be written as JSON; given as a
//                   string, bytes, a Blob, an object or a Response, through ap.loadPretrained
//   load            whole folders through ap.loadPretrained, each file in a random form, with one
//                   stream stalling, breaking or closing early, or the load aborted mid-stream
//   tokenizer       tokenizer.json pieces around the 1,024-byte limit (vocabulary, merges, added
//                   tokens) and megabyte-long type names and tokens, through ap.loadPretrained
//
// Run by tests/tools/fuzz-js.mjs (`npm run fuzz`, bounded by FUZZ_SECONDS) and replayed on fixed
// seeds by tests/wasm/fuzz-replay.test.js (`npm test`). Stalls use the small stall limit the
// caller sets (ctx.stallMs): the fake streams deliver every other chunk at once, so only a stall
// can outlast it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FOLDER = join(ROOT, 'tests/fixtures/hf/gpt2-tiny');
const MAX_DEPTH = 64; // the core's JSON depth limit (cpp/io/json_limited.hpp kMaxJsonDepth)
const PIECE_BYTES = 1024; // the core's piece limit (cpp/core/limits.hpp kTokenizerPieceBytes)
const MAX_MESSAGE = 400; // an Error quotes at most this much (the bindings cut longer messages)
// What the wasm heap may differ by after failed loads: the core's last error text (its buffer grows
// to the longest message seen, at most ~400 bytes, plus the allocator's overhead).
export const HEAP_SLACK = 512;

// ---- the deterministic generator -----------------------------------------------------------------

/** mulberry32: a small seeded generator, the same numbers for the same seed on every machine. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)), // lo..hi inclusive
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (p) => next() < p,
  };
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** About `n` bytes of text with characters of 1 to 4 bytes (so chunk cuts fall inside them). */
function textBytes(r, n) {
  const chars = ['a', 'b', ' ', '"', '\\', '{', '}', '[', ']', ':', ',', '\n', 'é', 'ß', '☃', '€', '😀', '𝄞'];
  let s = '';
  while (enc.encode(s).length < n) s += r.pick(chars);
  return enc.encode(s);
}

function randomBytes(r, n) {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = r.int(0, 255);
  return out;
}

/** Sorted distinct chunk boundaries in (0, end), `count` of them (fewer if there is no room). */
function cutsIn(r, end, count) {
  const set = new Set();
  for (let i = 0; i < count && end > 1; i++) set.add(r.int(1, end - 1));
  return [...set].sort((a, b) => a - b);
}

// ---- a fake fetch Response -------------------------------------------------------------------------

/**
 * A Response whose body sends `bytes[0..at)` in chunks cut at `cuts` (with an empty chunk after
 * some, if `empties`), then closes (`end` 'close'), stalls for ever ('stall') or errors ('error',
 * a TypeError "network error" as fetch gives). `length`: the Content-Length header (a number, or
 * null for none). `onChunk(i)` runs as chunk i is sent (a test aborts a load there). Returns
 * { response, stats: { sent, chunks, cancelled } }.
 */
export function fakeResponse(
  bytes,
  { cuts = [], at = bytes.length, end = 'close', length = bytes.length, empties = false, onChunk } = {},
) {
  const edges = [0, ...cuts.filter((c) => c > 0 && c < at), at];
  const chunks = [];
  for (let i = 0; i + 1 < edges.length; i++) {
    chunks.push(bytes.slice(edges[i], edges[i + 1]));
    if (empties && i % 2 === 0) chunks.push(new Uint8Array(0));
  }
  const stats = { sent: 0, chunks: 0, cancelled: false };
  let next = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (next < chunks.length) {
        const c = chunks[next];
        onChunk?.(next);
        next++;
        stats.sent += c.length;
        stats.chunks++;
        controller.enqueue(c);
        return undefined;
      }
      if (end === 'close') controller.close();
      else if (end === 'error') controller.error(new TypeError('network error'));
      else return new Promise(() => {}); // 'stall': nothing more, ever
      return undefined;
    },
    cancel() {
      stats.cancelled = true;
    },
  });
  const headers = length == null ? {} : { 'content-length': String(length) };
  return { response: new Response(body, { headers }), stats };
}

// ---- checking outcomes ------------------------------------------------------------------------------

/** Runs `f`, returning { value } or { error }. */
async function outcome(f) {
  try {
    return { value: await f() };
  } catch (error) {
    return { error };
  }
}

function firstDifference(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

/** Problems with an outcome that must be an Error whose message is `want` (a string: exactly; a RegExp). */
function expectError(o, want, label) {
  if (!o.error) return [`${label}: expected an Error (${want}), got a result`];
  const msg = String(o.error?.message ?? o.error);
  const problems = [];
  if (!(o.error instanceof Error)) problems.push(`${label}: threw a ${typeof o.error}, not an Error`);
  if (msg.length > MAX_MESSAGE) problems.push(`${label}: a message of ${msg.length} characters`);
  const ok = typeof want === 'string' ? msg === want : want.test(msg);
  if (!ok) problems.push(`${label}: message ${JSON.stringify(msg.slice(0, 300))}, wanted ${want}`);
  return problems;
}

const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);

// ---- the classes -------------------------------------------------------------------------------------

/** What a text file must give when `at` of its bytes came and then the stream did `end`. */
function textExpectation({ file, n, at, end, length, chunkEnds }, limits, stallMs) {
  const limit = limits[file];
  if (length != null && length > limit)
    return {
      error: `loadPretrained: ${file} is ${mb(length)} MB, more than the ${limit / 2 ** 20} MB such a file can be`,
    };
  // the limit is checked as each chunk arrives
  const over = chunkEnds.find((e) => e > limit);
  if (over !== undefined)
    return {
      error: `loadPretrained: ${file} is more than the ${limit / 2 ** 20} MB such a file can be (${mb(over)} MB had come, and it went on)`,
    };
  if (end === 'stall')
    return { error: `loadPretrained: ${file} stopped arriving (its text; nothing for ${stallMs / 1000} s)` };
  if (end === 'error') return { error: `loadPretrained: ${file} could not be read to its end (network error)` };
  if (length != null && at < length)
    return { error: `loadPretrained: ${file} ended after ${at} of its ${length} bytes (Content-Length)` };
  void n;
  return { bytes: at };
}

const TEXT_STREAM = {
  what: 'textOf: a text file streamed in chunks (stalls, early closes, errors, Content-Length)',
  generate(r) {
    const big = r.chance(0.04); // 1 MB, at the config.json limit give or take a byte
    const file = big ? 'config.json' : r.pick(['config.json', 'tokenizer.json']);
    const bytes = big ? new Uint8Array((1 << 20) + r.int(-1, 1)).fill(0x20) : textBytes(r, r.int(0, 2500));
    const n = bytes.length;
    const end = r.pick(['close', 'close', 'close', 'stall', 'error', 'early']);
    const at = end === 'close' ? n : r.int(0, Math.max(0, n - 1));
    const header = r.pick(['exact', 'exact', 'none', 'none', 'more', 'over']);
    const length =
      header === 'exact'
        ? n
        : header === 'none'
          ? null
          : header === 'more'
            ? n + r.int(1, 100)
            : (file === 'config.json' ? 1 << 20 : 64 << 20) + r.int(1, 1e6);
    return {
      file,
      bytes,
      at,
      end: end === 'early' ? 'close' : end,
      length,
      cuts: cutsIn(r, at, r.int(0, Math.min(12, at))),
      empties: r.chance(0.2),
    };
  },
  async run(c, ctx) {
    const { response, stats } = fakeResponse(c.bytes, c);
    const o = await outcome(() => ctx.textOf(response, c.file, ctx.stallMs));
    const chunkEnds = [...c.cuts.filter((x) => x > 0 && x < c.at), c.at];
    const want = textExpectation({ ...c, n: c.bytes.length, chunkEnds }, ctx.TEXT_LIMITS, ctx.stallMs);
    const label = `${c.file} (${c.bytes.length} bytes, ${c.cuts.length + 1} chunks, ${c.end} at ${c.at}, Content-Length ${c.length})`;
    if (want.error) {
      const problems = expectError(o, want.error, label);
      // A stream given up while still open (a stall, a size announced past the limit) is
      // cancelled: its connection is freed.
      if ((c.end === 'stall' || c.length > ctx.TEXT_LIMITS[c.file]) && !stats.cancelled)
        problems.push(`${label}: the stream was not cancelled`);
      return problems;
    }
    if (o.error) return [`${label}: ${o.error.message?.slice(0, 300)}`];
    const sent = dec.decode(c.bytes.subarray(0, c.at));
    if (o.value !== sent)
      return [`${label}: read text differs from the text sent at character ${firstDifference(o.value, sent)}`];
    return [];
  },
};

const WEIGHTS_STREAM = {
  what: 'weightsReader: the weights streamed in chunks and read back in random slices',
  generate(r) {
    const n = r.chance(0.1) ? r.int(60_000, 140_000) : r.int(0, 4000);
    const bytes = randomBytes(r, n);
    const end = r.pick(['close', 'close', 'close', 'stall', 'error', 'early']);
    const at = end === 'close' ? n : r.int(0, Math.max(0, n - 1));
    const header = r.pick(['exact', 'exact', 'exact', 'none', 'zero', 'more']);
    const length = header === 'exact' ? n : header === 'none' ? null : header === 'zero' ? 0 : n + r.int(1, 100);
    return {
      bytes,
      at,
      end: end === 'early' ? 'close' : end,
      length,
      cuts: cutsIn(r, at, r.int(0, Math.min(40, at))),
      empties: r.chance(0.2),
      readSeed: r.int(0, 2 ** 31),
    };
  },
  async run(c, ctx) {
    const { response, stats } = fakeResponse(c.bytes, c);
    const size = c.length;
    const label = `weights (${c.bytes.length} bytes, ${c.cuts.length + 1} chunks, ${c.end} at ${c.at}, Content-Length ${size})`;
    const reads = rng(c.readSeed);
    const got = [];
    const o = await outcome(async () => {
      const reader = ctx.weightsReader(response, ctx.stallMs);
      let total = 0;
      while (total < reader.size) {
        const ask = reads.int(1, Math.max(1, 2 * Math.ceil(reader.size / 4)));
        const part = await reader.read(ask);
        const wanted = Math.min(ask, reader.size - total);
        if (part.length !== wanted)
          throw Object.assign(new Error(`read(${ask}) gave ${part.length} bytes, not ${wanted}`), { short: true });
        got.push(part.slice());
        total += part.length;
      }
      return total;
    });
    const F = 'loadPretrained: model.safetensors';
    let want = null;
    if (!(size > 0)) want = `${F} came without a Content-Length: its size is needed`;
    else if (c.end === 'stall')
      want = `${F} stopped arriving (after ${c.at} of ${size} bytes; nothing for ${ctx.stallMs / 1000} s)`;
    else if (c.end === 'error') want = `${F} could not be read after ${c.at} of ${size} bytes (network error)`;
    else if (c.at < size) want = `${F} ended after ${c.at} of its ${size} bytes (Content-Length)`;
    if (want) {
      const problems = expectError(o, want, label);
      if (c.end === 'stall' && size > 0 && !stats.cancelled)
        problems.push(`${label}: the stalled stream was not cancelled`);
      return problems;
    }
    if (o.error) return [`${label}: ${o.error.message?.slice(0, 300)}`];
    const joined = new Uint8Array(got.reduce((a, b) => a + b.length, 0));
    let p = 0;
    for (const g of got) {
      joined.set(g, p);
      p += g.length;
    }
    const at = firstDifference(joined, c.bytes);
    return at < 0 ? [] : [`${label}: the bytes read differ from the bytes sent at offset ${at}`];
  },
};

/** The gpt2-tiny folder: config.json and tokenizer.json as text, the weights as bytes. */
export function folder() {
  return {
    config: readFileSync(join(FOLDER, 'config.json'), 'utf8'),
    tokenizer: readFileSync(join(FOLDER, 'tokenizer.json'), 'utf8'),
    weights: new Uint8Array(readFileSync(join(FOLDER, 'model.safetensors'))),
  };
}

/** The logits of ids 1, 2, 3 from a loaded model (disposed after). */
export function logitsOf(model) {
  const t = model.forward(Int32Array.of(1, 2, 3));
  try {
    return Array.from(t.get('logits'));
  } finally {
    t.dispose();
  }
}

/** A part in the form `form` ('string', 'bytes', 'blob', 'object', 'response'): { part, stats }. */
function asForm(text, form, r, stream = {}) {
  const bytes = typeof text === 'string' ? enc.encode(text) : text;
  if (form === 'string') return { part: text };
  if (form === 'bytes') return { part: bytes };
  if (form === 'blob') return { part: new Blob([bytes]) };
  if (form === 'object') return { part: JSON.parse(text) };
  const { response, stats } = fakeResponse(bytes, {
    cuts: cutsIn(r, stream.at ?? bytes.length, r.int(0, 8)),
    length: stream.length === undefined ? (r.chance(0.5) ? bytes.length : null) : stream.length,
    ...stream,
  });
  return { part: response, stats };
}

/** Loads `parts` and checks the result: the folder's logits, or an Error matching `want`. */
async function checkLoad(ctx, parts, options, want, label) {
  const o = await outcome(() => ctx.loadPretrained(parts, options));
  if (want) {
    if (o.value) o.value.dispose();
    return expectError(o, want, label);
  }
  if (o.error) return [`${label}: ${String(o.error.message).slice(0, 300)}`];
  const logits = logitsOf(o.value);
  o.value.dispose();
  const at = firstDifference(logits, ctx.logits);
  return at < 0 ? [] : [`${label}: logit ${at} is ${logits[at]}, the folder's own is ${ctx.logits[at]}`];
}

/** `text` (a JSON object's text) with a member "junk" nested `depth` levels deep. */
function withJunk(text, depth, r) {
  const kinds = [];
  for (let i = 0; i < depth; i++) kinds.push(r.chance(0.5) ? '[' : '{');
  const open = kinds.map((k) => (k === '[' ? '[' : '{"a":')).join('');
  const close = kinds
    .reverse()
    .map((k) => (k === '[' ? ']' : '}'))
    .join('');
  return `{"junk": ${open}0${close}, ${text.trim().slice(1)}`;
}

/** An object that JSON.stringify cannot write, of kind `kind`. */
function unwritable(base, kind) {
  const o = JSON.parse(base);
  if (kind === 'circular') o.self = o;
  else if (kind === 'bigint') o.n_embd_big = 10n ** 30n;
  else if (kind === 'getter')
    Object.defineProperty(o, 'boom', {
      enumerable: true,
      get() {
        throw new Error('a getter that throws');
      },
    });
  else if (kind === 'tojson')
    o.toJSON = () => {
      throw new Error('toJSON that throws '.repeat(1000));
    };
  else if (kind === 'undefined') return { toJSON: () => undefined };
  return o;
}

const JSON_CLASS = {
  what: 'JSON at the JS boundary: depth around 64 (and 100,000), size around 1 MB, unwritable objects',
  generate(r) {
    const file = r.pick(['config.json', 'tokenizer.json']);
    const kind = r.pick(['depth', 'depth', 'depth', 'size', 'unwritable']);
    if (kind === 'size')
      return {
        file: 'config.json',
        kind,
        size: (1 << 20) + r.int(-2, 2),
        form: r.pick(['string', 'bytes', 'blob', 'response']),
        seed: r.int(0, 2 ** 31),
      };
    if (kind === 'unwritable')
      return { file, kind, what: r.pick(['circular', 'bigint', 'getter', 'tojson', 'undefined']) };
    const depth = r.chance(0.1) ? r.pick([1000, 20_000, 100_000]) : r.int(0, 80);
    return {
      file,
      kind,
      depth,
      form: r.pick(['string', 'bytes', 'blob', 'object', 'response']),
      seed: r.int(0, 2 ** 31),
    };
  },
  async run(c, ctx) {
    const f = folder();
    const key = c.file === 'config.json' ? 'config' : 'tokenizer';
    const r = rng(c.seed ?? 1);
    if (c.kind === 'unwritable') {
      const part = unwritable(f[key], c.what);
      const want = new RegExp(
        `^loadPretrained: ${c.file.replace('.', '\\.')} \\(an object\\) (cannot be written as JSON \\(.+\\)|is not JSON)$`,
      );
      return checkLoad(ctx, { ...f, [key]: part }, { stallMs: ctx.stallMs }, want, `${c.file} as a ${c.what} object`);
    }
    if (c.kind === 'size') {
      const padded = f.config.trimEnd() + ' '.repeat(c.size - f.config.trimEnd().length);
      const { part } = asForm(
        padded,
        c.form,
        r,
        c.form === 'response' ? { length: r.chance(0.5) ? c.size : null } : {},
      );
      const announced = c.form === 'response' && part.headers.get('content-length');
      const want =
        c.size <= 1 << 20
          ? null
          : c.form === 'response' && !announced
            ? 'loadPretrained: config.json is more than the 1 MB such a file can be (1.0 MB had come, and it went on)'
            : 'loadPretrained: config.json is 1.0 MB, more than the 1 MB such a file can be';
      return checkLoad(
        ctx,
        { ...f, config: part },
        { stallMs: ctx.stallMs },
        want,
        `config.json of ${c.size} bytes as ${c.form}`,
      );
    }
    const text = withJunk(f[key], c.depth, r);
    const { part } = asForm(text, c.form, r);
    // the file's own object is one level; "junk" adds c.depth
    const want =
      1 + c.depth <= MAX_DEPTH
        ? null
        : c.form === 'object'
          ? new RegExp(
              `^(${c.file} nests more than 64 levels deep|loadPretrained: ${c.file} \\(an object\\) cannot be written as JSON \\(.+\\))$`,
            )
          : `${c.file} nests more than 64 levels deep`;
    return checkLoad(
      ctx,
      { ...f, [key]: part },
      { stallMs: ctx.stallMs },
      want,
      `${c.file} nested ${1 + c.depth} deep as ${c.form}`,
    );
  },
};

const LOAD = {
  what: 'whole folders through loadPretrained: every form of each file, a stream that fails, an abort',
  generate(r) {
    const forms = {
      config: r.pick(['string', 'bytes', 'blob', 'object', 'response', 'response']),
      tokenizer: r.pick(['string', 'bytes', 'blob', 'object', 'response', 'response']),
      weights: r.pick(['bytes', 'blob', 'response', 'response', 'response']),
    };
    const streams = Object.keys(forms).filter((k) => forms[k] === 'response');
    const fault =
      streams.length && r.chance(0.6)
        ? { part: r.pick(streams), how: r.pick(['stall', 'error', 'early', 'abort']), where: r.next() }
        : null;
    return { forms, fault, seed: r.int(0, 2 ** 31) };
  },
  async run(c, ctx) {
    const f = folder();
    const r = rng(c.seed);
    const abort = new AbortController();
    const file = { config: 'config.json', tokenizer: 'tokenizer.json', weights: 'model.safetensors' };
    const parts = {};
    let cutAt = null;
    for (const key of ['config', 'tokenizer', 'weights']) {
      const form = c.forms[key];
      const source = key === 'weights' ? f.weights : f[key];
      if (form !== 'response') {
        parts[key] = asForm(source, form, r).part;
        continue;
      }
      const bytes = typeof source === 'string' ? enc.encode(source) : source;
      const stream = key === 'weights' ? { length: bytes.length } : {};
      if (c.fault?.part === key) {
        const at = Math.floor(c.fault.where * bytes.length);
        cutAt = at;
        if (c.fault.how === 'abort') stream.onChunk = (i) => i === 1 && abort.abort();
        else
          Object.assign(stream, {
            at,
            end: c.fault.how === 'early' ? 'close' : c.fault.how,
            length: key === 'weights' || r.chance(0.5) ? bytes.length : null,
          });
        if (c.fault.how === 'abort') stream.cuts = [Math.max(1, at)];
      }
      parts[key] = asForm(bytes, 'response', r, stream).part;
    }
    const label = `folder ${JSON.stringify(c.forms)}${c.fault ? `, ${c.fault.part} ${c.fault.how} at ${cutAt}` : ''}`;
    const options = { stallMs: ctx.stallMs, signal: abort.signal };
    if (!c.fault) return checkLoad(ctx, parts, options, null, label);
    const name = file[c.fault.part].replace('.', '\\.');
    if (c.fault.how === 'abort') {
      const o = await outcome(() => ctx.loadPretrained(parts, options));
      if (o.value) o.value.dispose();
      if (!(o.error?.cancelled === true && o.error.message === 'loadPretrained: cancelled'))
        return [
          `${label}: expected a cancelled Error, got ${o.error ? JSON.stringify(String(o.error.message).slice(0, 200)) : 'a model'}`,
        ];
      return [];
    }
    const phrase = { stall: 'stopped arriving', error: 'could not be read', early: 'ended after' }[c.fault.how];
    // A text file that closes early with no Content-Length is shorter text: the core says it is not
    // JSON, unless all it lost was the whitespace after the JSON (then it loads, as it should).
    const source = c.fault.part === 'weights' ? null : f[c.fault.part];
    const noLength = parts[c.fault.part].headers.get('content-length') === null;
    if (c.fault.how === 'early' && source && noLength && /^\s*$/.test(dec.decode(enc.encode(source).subarray(cutAt))))
      return checkLoad(ctx, parts, options, null, label);
    const want = new RegExp(`^(loadPretrained: ${name} ${phrase} |${name}:? (is )?not JSON)`);
    return checkLoad(ctx, parts, options, want, label);
  },
};

const TOKENIZER = {
  what: 'tokenizer.json pieces around 1,024 bytes, and megabyte-long type names and tokens',
  generate(r) {
    const where = r.pick(['vocab', 'vocab', 'added', 'added', 'merge', 'type', 'unk']);
    const huge = r.chance(0.1);
    const bytes = huge ? r.int(100_000, 5_000_000) : r.chance(0.6) ? PIECE_BYTES + r.int(-4, 4) : r.int(3, 3000);
    return { where, bytes, wide: r.chance(0.5) };
  },
  async run(c, ctx) {
    const f = folder();
    const t = JSON.parse(f.tokenizer);
    // A piece of c.bytes bytes that is no token of the file: snowmen (3 bytes) and a filler.
    const piece = c.wide
      ? '☃'.repeat(Math.floor(c.bytes / 3)) + 'Q'.repeat(c.bytes % 3)
      : `☃${'Q'.repeat(Math.max(0, c.bytes - 3))}`;
    const B = enc.encode(piece).length;
    const limit = `is longer than the limit of ${PIECE_BYTES} bytes for one piece`;
    let want = null;
    if (c.where === 'vocab') {
      // <|endoftext|> (id 511) renamed: no merge uses it; the added token keeps its content.
      delete t.model.vocab['<|endoftext|>'];
      t.model.vocab[piece] = 511;
      if (B > PIECE_BYTES) want = `tokenizer.json: model.vocab: a piece of ${B} bytes ('`;
    } else if (c.where === 'added') {
      t.added_tokens[0].content = piece;
      if (B > PIECE_BYTES) want = `tokenizer.json: added_tokens[0].content: a piece of ${B} bytes ('`;
    } else if (c.where === 'merge') {
      t.model.merges.push([piece, 'e']);
      want =
        B > PIECE_BYTES
          ? `tokenizer.json: model.merges[255]: a piece of ${B} bytes ('`
          : `tokenizer.json: model.merges[255] '`;
    } else if (c.where === 'type') {
      t.model.type = piece;
      want = `tokenizer.json: model.type '`;
    } else {
      t.model.unk_token = piece;
      want = `tokenizer.json: model.unk_token '`;
    }
    const label = `tokenizer.json with a ${c.where} of ${B} bytes`;
    const o = await outcome(() => ctx.loadPretrained({ ...f, tokenizer: JSON.stringify(t) }, { stallMs: ctx.stallMs }));
    if (!want) {
      if (o.error) return [`${label}: ${String(o.error.message).slice(0, 300)}`];
      const logits = logitsOf(o.value);
      o.value.dispose();
      return firstDifference(logits, ctx.logits) < 0 ? [] : [`${label}: logits differ from the folder's own`];
    }
    if (o.value) o.value.dispose();
    const problems = expectError(o, new RegExp(`^${want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), label);
    if (!o.error) return problems;
    const msg = String(o.error?.message ?? '');
    // the quote is a prefix: at most 40 bytes of the piece
    const quoted = msg.match(/'([^']*)'/)?.[1] ?? '';
    if (enc.encode(quoted).length > 40)
      problems.push(`${label}: quotes ${enc.encode(quoted).length} bytes of the piece`);
    if (B > PIECE_BYTES && ['vocab', 'added', 'merge'].includes(c.where) && !msg.endsWith(limit))
      problems.push(`${label}: the message does not state the limit: ${msg.slice(0, 300)}`);
    return problems;
  },
};

/** The classes, by name: { what, generate(r) -> case, run(case, ctx) -> problems[] }. */
export const CLASSES = {
  'text-stream': TEXT_STREAM,
  'weights-stream': WEIGHTS_STREAM,
  json: JSON_CLASS,
  load: LOAD,
  tokenizer: TOKENIZER,
};

/**
 * What the classes run against: the module `ap` (its loadPretrained), pretrained.js's readers, the
 * folder's own logits, and the stall limit of this run. Parts can be replaced (a negative control).
 */
export async function makeContext(ap, pretrained, { stallMs = 5 } = {}) {
  const model = await ap.loadPretrained(folder());
  const logits = logitsOf(model);
  model.dispose();
  return {
    loadPretrained: (parts, options) => ap.loadPretrained(parts, options),
    textOf: pretrained.textOf,
    weightsReader: pretrained.weightsReader,
    TEXT_LIMITS: pretrained.TEXT_LIMITS,
    logits,
    stallMs,
  };
}

/** Runs the case of `seed` in class `name`: { name, seed, problems }. */
export async function runSeed(name, seed, ctx) {
  const cls = CLASSES[name];
  const c = cls.generate(rng(seed));
  let problems;
  try {
    problems = await cls.run(c, ctx);
  } catch (err) {
    problems = [`the check itself threw: ${err?.stack || err}`];
  }
  return { name, seed, problems };
}
