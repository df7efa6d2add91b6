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
//   llama-config    the tiny Llama / Llama 3 / Mistral / Qwen2 folders with 1 to 3 config.json fields
//                   changed (num_key_value_heads, rope_theta, rope_scaling, sliding_window,
//                   use_sliding_window, tie_word_embeddings, attention_bias, model_type, ...): a load
//                   gives finite logits and greedy decoding with the KV cache equal to full
//                   recompute, or an Error naming the file and a field changed (a K/V head count
//                   that does not divide the heads and any rope_scaling must be refused); after a
//                   refusal the folder itself still loads and gives its own logits
//   llama-tokenizer  their tokenizer.json edited (NFC alone or in a Sequence with Prepend / Replace,
//                   other normalizers, Metaspace options, byte fallback and byte pieces, the split
//                   pattern, ignore_merges, decoders, added tokens, unk_token): a load encodes texts
//                   of every kind (NFC's, lone surrogates) to ids inside the vocabulary, decodes
//                   them, and gives Hugging Face's ids where HF reads the same file; or an Error
//                   naming tokenizer.json, and the module stays usable
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

// ---- the Llama family (issue 26): config fields and tokenizer kinds -------------------------------

const LLAMA_FOLDERS = ['llama-tiny', 'llama3-tiny', 'mistral-tiny', 'qwen2-tiny'];

/** A tiny Llama-family folder of tests/fixtures/hf: its three files. */
export function llamaFolder(name) {
  const dir = join(ROOT, 'tests/fixtures/hf', name);
  return {
    config: readFileSync(join(dir, 'config.json'), 'utf8'),
    tokenizer: readFileSync(join(dir, 'tokenizer.json'), 'utf8'),
    weights: new Uint8Array(readFileSync(join(dir, 'model.safetensors'))),
  };
}

const LLAMA_IDS = Int32Array.of(1, 5, 9, 14, 20, 3);

// The values each config field is given (DELETE: the key removed). Valid values, values the core
// refuses, and values of the wrong type.
const DELETE = Symbol('delete');
const CONFIG_VALUES = {
  num_key_value_heads: [1, 2, 4, 3, 0, -1, 8, 2.5, '2', null, 1e9, DELETE],
  num_attention_heads: [4, 2, 8, 3, 1],
  rope_theta: [10000, 500000, 1e6, 1, 0.5, 0, -5, 1e12, 1e13, 'x', null, 1e308, DELETE],
  rope_scaling: [
    null,
    null,
    { type: 'linear', factor: 2 },
    { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4 },
    { type: 'dynamic', factor: 2 },
    {},
    'yes',
    [1],
    DELETE,
  ],
  sliding_window: [null, 0, 1, 2, 4, 7, 100000, -3, 2.5, 'x', true, DELETE],
  use_sliding_window: [true, false, null, 'yes'],
  max_window_layers: [0, 1, 2, 28, -1],
  tie_word_embeddings: [true, false, null, 'yes', 0, 1, DELETE],
  attention_bias: [true, false, null, 'no', 1, DELETE],
  model_type: ['llama', 'mistral', 'qwen2'],
};
// Keys an error about a field may name instead of it (the fields it is checked against).
const RELATED = {
  num_key_value_heads: ['num_attention_heads'],
  num_attention_heads: ['num_key_value_heads', 'hidden_size', 'head_dim'],
  sliding_window: ['use_sliding_window', 'max_window_layers'],
  use_sliding_window: ['sliding_window', 'max_window_layers'],
  max_window_layers: ['sliding_window', 'use_sliding_window', 'num_hidden_layers'],
  model_type: ['attention_bias', 'sliding_window', 'use_sliding_window', 'tie_word_embeddings', 'architectures'],
};

/** The logits of LLAMA_IDS, and greedy 4 tokens with and without the KV cache. */
function llamaRun(model) {
  const t = model.forward(LLAMA_IDS);
  let logits;
  try {
    logits = Array.from(t.get('logits'));
  } finally {
    t.dispose();
  }
  const gen = (useCache) => {
    const g = model.generate(LLAMA_IDS, { maxTokens: 4, useCache });
    try {
      return Array.from(g.tokens);
    } finally {
      g.dispose();
    }
  };
  return { logits, cached: gen(true), full: gen(false) };
}

/** Problems if the module no longer loads `name` and gives its own logits (after a refused load). */
async function stillUsable(ctx, name, label) {
  const o = await outcome(() => ctx.loadPretrained(llamaFolder(name), { stallMs: ctx.stallMs }));
  if (o.error) return [`${label}: afterwards ${name} itself fails to load: ${String(o.error.message).slice(0, 200)}`];
  const { logits } = llamaRun(o.value);
  o.value.dispose();
  const own = await ctx.llamaLogits(name);
  return firstDifference(logits, own) < 0 ? [] : [`${label}: afterwards ${name} gives other logits than its own`];
}

/** Checks a load that succeeded: finite logits of the right size, cached decoding = full recompute. */
function checkLoaded(model, label) {
  const problems = [];
  const { logits, cached, full } = llamaRun(model);
  if (logits.length === 0 || logits.length % LLAMA_IDS.length)
    problems.push(`${label}: ${logits.length} logits for ${LLAMA_IDS.length} ids`);
  const bad = logits.findIndex((x) => !Number.isFinite(x));
  if (bad >= 0) problems.push(`${label}: logit ${bad} is ${logits[bad]}`);
  if (cached.join() !== full.join())
    problems.push(`${label}: greedy with the KV cache ${cached} differs from full recompute ${full}`);
  return problems;
}

const LLAMA_CONFIG = {
  what: 'Llama-family config.json fields: num_key_value_heads, rope_theta, rope_scaling, sliding_window, tie_word_embeddings, attention_bias',
  generate(r) {
    const name = r.pick(LLAMA_FOLDERS);
    const keys = Object.keys(CONFIG_VALUES);
    const edits = {};
    for (let i = r.int(1, 3); i > 0; i--) {
      const k = r.pick(keys);
      edits[k] = r.pick(CONFIG_VALUES[k]);
    }
    return { name, edits };
  },
  async run(c, ctx) {
    const f = llamaFolder(c.name);
    const cfg = JSON.parse(f.config);
    for (const [k, v] of Object.entries(c.edits)) {
      if (v === DELETE) delete cfg[k];
      else cfg[k] = v;
    }
    const shown = Object.entries(c.edits)
      .map(([k, v]) => `${k}=${v === DELETE ? '(removed)' : JSON.stringify(v)}`)
      .join(', ');
    const label = `${c.name} with ${shown}`;
    const o = await outcome(() => ctx.loadPretrained({ ...f, config: JSON.stringify(cfg) }, { stallMs: ctx.stallMs }));
    // What must be refused whatever else the edits did.
    const heads = cfg.num_attention_heads;
    const kv = cfg.num_key_value_heads ?? heads;
    const mustFail = [];
    if (Number.isInteger(heads) && Number.isInteger(kv) && kv > 0 && heads % kv !== 0)
      mustFail.push('num_key_value_heads');
    if (cfg.rope_scaling != null) mustFail.push('rope_scaling');
    if (o.value) {
      const problems = mustFail.length ? [`${label}: loaded, but ${mustFail.join(' and ')} must be refused`] : [];
      try {
        problems.push(...checkLoaded(o.value, label));
      } finally {
        o.value.dispose();
      }
      return problems;
    }
    const msg = String(o.error?.message ?? o.error);
    const problems = [];
    if (!(o.error instanceof Error)) problems.push(`${label}: threw a ${typeof o.error}, not an Error`);
    if (msg.length > MAX_MESSAGE) problems.push(`${label}: a message of ${msg.length} characters`);
    if (!/^(loadPretrained: )?(config\.json|model\.safetensors|tokenizer\.json)/.test(msg))
      problems.push(`${label}: the message names no file: ${JSON.stringify(msg.slice(0, 200))}`);
    else if (/^(loadPretrained: )?config\.json/.test(msg)) {
      const named = Object.keys(c.edits).flatMap((k) => [k, ...(RELATED[k] ?? [])]);
      if (!named.some((k) => msg.includes(k)))
        problems.push(`${label}: the message names none of the fields changed: ${JSON.stringify(msg.slice(0, 200))}`);
    }
    problems.push(...(await stillUsable(ctx, c.name, label)));
    return problems;
  },
};

// Texts the tokenizer cases encode: what the Llama tokenizers treat apart (▁, digits, contractions,
// special tokens typed in, white space runs), NFC's cases (decomposed and precomposed marks,
// Hangul jamo, singletons, exclusions), characters outside the vocabularies, lone surrogates.
const TEXT_POOL = [
  ...'abcXYZ019 .,!?\'"',
  ' ',
  '  ',
  '\n',
  '\r\n',
  '\t',
  '\u2581',
  '12345',
  "'S",
  "'ll",
  '<s>',
  '</s>',
  '<unk>',
  '<|im_start|>',
  '<|eot_id|>',
  'e\u0301',
  'é',
  'e\u0323\u0302',
  'ệ',
  '\u0301',
  '\u1100\u1161\u11a8',
  '각',
  '\u212b',
  '\u0958',
  '\u0344',
  'か\u3099',
  '中文',
  '😀',
  '🦙',
  '\u00a0',
  '\u3000',
  '\ud800',
  '\udfff',
];
const RULE_STRINGS = ['\u2581', ' ', '', 'a', '__', '☃', 'e\u0301', 'x'.repeat(17), '\u0301'];

/** A random edit of a tokenizer.json object `t` (which of the four kinds it is: `kind`). */
export function editTokenizer(t, r, kind) {
  const what = r.pick([
    'nfc',
    'nfc',
    'nfc-seq',
    'normalizer',
    'metaspace',
    'byte-fallback',
    'split',
    'ignore-merges',
    'decoder',
    'added',
    'unk',
  ]);
  if (what === 'nfc') t.normalizer = { type: 'NFC' };
  else if (what === 'nfc-seq') {
    const rules = [];
    for (let i = r.int(1, 4); i > 0; i--) {
      const w = r.pick(['NFC', 'Prepend', 'Replace']);
      if (w === 'NFC') rules.push({ type: 'NFC' });
      else if (w === 'Prepend') rules.push({ type: 'Prepend', prepend: r.pick(RULE_STRINGS) });
      else rules.push({ type: 'Replace', pattern: { String: r.pick(RULE_STRINGS) }, content: r.pick(RULE_STRINGS) });
    }
    t.normalizer = { type: 'Sequence', normalizers: rules };
  } else if (what === 'normalizer')
    t.normalizer = { type: r.pick(['NFKC', 'NFD', 'NFKD', 'Lowercase', 'Strip', 'NFC']) };
  else if (what === 'metaspace') {
    t.pre_tokenizer = {
      type: 'Metaspace',
      replacement: r.pick(['\u2581', '\u2581', '_', ' ', '', 'ab', '☃']),
      prepend_scheme: r.pick(['first', 'always', 'never', 'twice', null]),
      split: r.pick([true, false, 'x']),
    };
  } else if (what === 'byte-fallback') {
    t.model.byte_fallback = !t.model.byte_fallback;
    if (r.chance(0.5))
      for (let b = r.int(0, 255); b < 256; b += r.int(1, 64)) {
        const piece = `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
        delete t.model.vocab[piece];
      }
    if (r.chance(0.5)) t.model.fuse_unk = !t.model.fuse_unk;
  } else if (what === 'split') {
    const split = t.pre_tokenizer?.pretokenizers?.[0];
    if (split?.type === 'Split') {
      const op = r.pick(['swap', 'char', 'behavior', 'invert']);
      if (op === 'swap') {
        // Llama 3's pattern <-> Qwen2's (they differ in \p{N}{1,3} / \p{N})
        split.pattern.Regex = split.pattern.Regex.includes('\\p{N}{1,3}')
          ? split.pattern.Regex.replace('\\p{N}{1,3}', '\\p{N}')
          : split.pattern.Regex.replace('|\\p{N}|', '|\\p{N}{1,3}|');
      } else if (op === 'char') {
        const p = split.pattern.Regex;
        const i = r.int(0, p.length - 1);
        split.pattern.Regex = p.slice(0, i) + r.pick(['', 'x', '+', '|', '\\']) + p.slice(i + 1);
      } else if (op === 'behavior')
        split.behavior = r.pick(['Isolated', 'Removed', 'MergedWithPrevious', 'Contiguous']);
      else split.invert = true;
    } else t.pre_tokenizer = null;
  } else if (what === 'ignore-merges') t.model.ignore_merges = !t.model.ignore_merges;
  else if (what === 'decoder')
    t.decoder = r.pick([
      null,
      { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
      { type: 'Metaspace', replacement: '\u2581', prepend_scheme: 'always', split: true },
      { type: 'Sequence', decoders: [{ type: 'ByteFallback' }, { type: 'Fuse' }] },
      { type: 'Fuse' },
    ]);
  else if (what === 'added') {
    const id = 1 + Math.max(...Object.values(t.model.vocab), ...t.added_tokens.map((a) => a.id));
    t.added_tokens.push({
      id,
      content: r.pick(['e\u0301', 'é', '\u2581x', ' hi', '<x>', 'ab', '각', '\u1100\u1161']),
      single_word: r.chance(0.3),
      lstrip: r.chance(0.3),
      rstrip: r.chance(0.3),
      normalized: r.chance(0.5),
      special: r.chance(0.5),
    });
  } else t.model.unk_token = r.pick([null, '<unk>', 'nope', '']);
  void kind;
  return what;
}

const LLAMA_TOKENIZER = {
  what: 'Llama-family tokenizer.json kinds: Metaspace / byte-fallback SentencePiece BPE, Llama 3 / Qwen2 split byte-level BPE, NFC',
  generate(r) {
    const name = r.pick(LLAMA_FOLDERS);
    return { name, seed: r.int(0, 2 ** 31), edits: r.int(1, 2) };
  },
  async run(c, ctx) {
    const f = llamaFolder(c.name);
    const t = JSON.parse(f.tokenizer);
    const r = rng(c.seed);
    const whats = [];
    for (let i = 0; i < c.edits; i++) whats.push(editTokenizer(t, r, c.name));
    const json = JSON.stringify(t);
    const label = `${c.name} tokenizer.json with ${whats.join(', ')} (seed ${c.seed})`;
    // The config's vocab_size covers an added token put past it.
    const cfg = JSON.parse(f.config);
    const maxId = Math.max(...Object.values(t.model.vocab), ...t.added_tokens.map((a) => a.id));
    if (maxId >= cfg.vocab_size) cfg.vocab_size = maxId + 1;
    const o = await outcome(() =>
      ctx.loadPretrained({ ...f, config: JSON.stringify(cfg), tokenizer: json }, { stallMs: ctx.stallMs }),
    );
    if (o.error) {
      const msg = String(o.error?.message ?? o.error);
      const problems = [];
      if (!(o.error instanceof Error)) problems.push(`${label}: threw a ${typeof o.error}, not an Error`);
      if (msg.length > MAX_MESSAGE) problems.push(`${label}: a message of ${msg.length} characters`);
      if (!/^(loadPretrained: )?(tokenizer\.json|model\.safetensors)/.test(msg))
        problems.push(`${label}: the message names no file: ${JSON.stringify(msg.slice(0, 200))}`);
      problems.push(...(await stillUsable(ctx, c.name, label)));
      return problems;
    }
    const model = o.value;
    const problems = [];
    try {
      let hf = null;
      // HF's tokenizers 0.23.2 panics, aborting the whole process, when it normalizes with an empty
      // Prepend or an empty Replace pattern (normalizer.rs:373, index out of bounds): no comparison.
      const rules = t.normalizer?.type === 'Sequence' ? t.normalizer.normalizers : [t.normalizer ?? {}];
      const hfPanics = rules.some((q) => q.prepend === '' || q.pattern?.String === '');
      // Known difference, left alone: with Metaspace prepend_scheme "first", HF prepends "▁" only
      // when the normalized text still starts at offset 0 of the original (its alignments), so a
      // Replace to "" that deletes the first characters suppresses the "▁"; the core prepends it.
      const firstQuirk =
        rules.some((q) => q.type === 'Replace' && q.content === '') && t.pre_tokenizer?.prepend_scheme === 'first';
      if (ctx.hfTokenizer && !hfPanics && !firstQuirk) {
        try {
          hf = ctx.hfTokenizer(json);
        } catch {
          hf = null; // HF refuses it too: only our own outcome is checked
        }
      }
      const size = model.specialTokens.size;
      for (let k = 0; k < 12; k++) {
        let text = '';
        for (let i = r.int(0, 10); i > 0; i--) text += r.pick(TEXT_POOL);
        const e = await outcome(() => model.tokenizer.encode(text));
        if (e.error) {
          problems.push(`${label}: encode(${JSON.stringify(text)}) threw: ${String(e.error.message).slice(0, 200)}`);
          continue;
        }
        const ids = Array.from(e.value.ids);
        const outside = ids.find((id) => !(id >= 0 && id < size));
        if (outside !== undefined) problems.push(`${label}: encode(${JSON.stringify(text)}) gave id ${outside}`);
        const d = await outcome(() => model.tokenizer.decode(e.value.ids));
        if (d.error) problems.push(`${label}: decode of ${JSON.stringify(text)} threw: ${String(d.error.message)}`);
        // Hugging Face's ids, where HF reads the file too and the text is one HF can receive (no
        // lone surrogate). TEXT_POOL holds no character newer than HF's Unicode 9.0 normalization
        // data (tests/fixtures/hf/nfc_cases.json after_unicode_9), where the two NFCs differ.
        if (hf && !/[\ud800-\udfff]/u.test(text.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) {
          const want = await hf(text);
          if (want && ids.join() !== want.join())
            problems.push(`${label}: ids of ${JSON.stringify(text)} are ${ids}, Hugging Face's ${want}`);
        }
      }
    } finally {
      model.dispose();
    }
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
  'llama-config': LLAMA_CONFIG,
  'llama-tokenizer': LLAMA_TOKENIZER,
};

/**
 * What the classes run against: the module `ap` (its loadPretrained), pretrained.js's readers, the
 * folder's own logits, and the stall limit of this run. Parts can be replaced (a negative control).
 */
export async function makeContext(ap, pretrained, { stallMs = 5 } = {}) {
  const model = await ap.loadPretrained(folder());
  const logits = logitsOf(model);
  model.dispose();
  const llama = {};
  // Hugging Face's tokenizers (npm), when installed: the Llama tokenizer cases compare ids with it.
  let tk = null;
  try {
    tk = (await import('tokenizers')).default;
  } catch {
    tk = null;
  }
  return {
    llamaLogits: async (name) => {
      if (!llama[name]) {
        const m = await ap.loadPretrained(llamaFolder(name));
        llama[name] = llamaRun(m).logits;
        m.dispose();
      }
      return llama[name];
    },
    hfTokenizer: tk
      ? (json) => {
          const t = tk.Tokenizer.fromString(json);
          return async (text) => {
            try {
              return (await t.encode(text, null, { addSpecialTokens: true })).getIds();
            } catch {
              return null;
            }
          };
        }
      : null,
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
