// Hugging Face folders (config.json, model.safetensors, tokenizer.json) into a Model. The core
// reads and checks everything (cpp/io/hf_model); this file only moves bytes: the two JSON files as
// text, then the weights in order, in chunks, so a 500 MB checkpoint is never in memory twice.
import { Model } from './model.js';

const CHUNK = 8 << 20; // bytes per feed

/**
 * A streamed text read chunk by chunk: a server that sends no Content-Length (or a wrong one) is
 * stopped once the file passes its limit, instead of filling the tab's memory; each chunk must
 * come within the stall time; a stream that ends before its Content-Length (`expected`, 0: none)
 * is an Error, not a shorter file. Any failure cancels the stream.
 */
async function boundedText(reader, file, stallMs, expected) {
  const limit = TEXT_LIMITS[file] ?? Infinity;
  const chunks = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await withinStall(reader.read(), stallMs, file, 'its text');
      if (done) break;
      if (!ArrayBuffer.isView(value))
        throw new Error(`loadPretrained: ${file} is not a stream of bytes (a chunk was ${typeof value})`);
      total += value.byteLength;
      if (total > limit)
        throw new Error(
          `loadPretrained: ${file} is more than the ${limit / 2 ** 20} MB such a file can be (${(total / 2 ** 20).toFixed(1)} MB had come, and it went on)`,
        );
      chunks.push(asBytes(value));
    }
    // A body the browser decompressed is longer than its Content-Length, never shorter: shorter is
    // a connection that closed early (the JSON may still parse: a truncated file must not load).
    if (expected && total < expected)
      throw new Error(`loadPretrained: ${file} ended after ${total} of its ${expected} bytes (Content-Length)`);
  } catch (err) {
    reader.cancel().catch(() => {});
    throw err;
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** The text of a JSON part: a string, an object (serialised), bytes, or a Blob / File. */
// A streamed file that sends nothing for this long is given up (a stalled server would otherwise
// keep loadPretrained pending for ever). options.stallMs overrides it.
const STALL_MS = 30_000;

/** `promise`, or an Error naming `file` if it has not settled after `ms`. */
function withinStall(promise, ms, file, what) {
  let timer;
  const stalled = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`loadPretrained: ${file} stopped arriving (${what}; nothing for ${ms / 1000} s)`)),
      ms,
    );
  });
  return Promise.race([promise, stalled]).finally(() => clearTimeout(timer));
}

/** A failure while reading `file` as an Error that names it (a network error names nothing). */
function readError(err, file, where) {
  if (err instanceof Error && err.message.startsWith('loadPretrained: ')) return err;
  return new Error(
    `loadPretrained: ${file} could not be read${where ? ` ${where}` : ''} (${cut(err?.message || err)})`,
  );
}

// The largest text file read whole: a real config.json is a few KB, a real tokenizer.json up to
// about 20 MB (Llama 3: 9 MB); a 200 MB "config.json" from a URL ran the tab out of memory.
export const TEXT_LIMITS = {
  'config.json': 1 << 20,
  'tokenizer.json': 64 << 20,
  'model.safetensors.index.json': 8 << 20,
};

function checkTextSize(bytes, file) {
  const limit = TEXT_LIMITS[file];
  if (limit && bytes > limit)
    throw new Error(
      `loadPretrained: ${file} is ${(bytes / 2 ** 20).toFixed(1)} MB, more than the ${limit / 2 ** 20} MB such a file can be`,
    );
}

/** A chunk of a stream (any typed array or DataView) as its bytes. */
const asBytes = (v) => (v instanceof Uint8Array ? v : new Uint8Array(v.buffer, v.byteOffset, v.byteLength));

/** A message quoted into an Error: on one line, at most `n` characters of it. */
const cut = (text, n = 120) => {
  const s = String(text).replace(/\s+/g, ' ');
  return s.length > n ? `${s.slice(0, n - 3)}...` : s;
};

/**
 * The text of a JSON part, checked against its file's size limit before it is read where the size
 * is known: a string (its length: at least its UTF-8 bytes), bytes, a Blob / File, an object (written
 * as JSON here; one that cannot be, circular or with a BigInt, is an Error naming the file), or a
 * fetch Response (streamed: boundedText). Exported for the fuzz targets (tests/fuzz/js).
 */
export async function textOf(part, file, stallMs = STALL_MS) {
  if (part == null) throw new Error(`loadPretrained: ${file} is missing`);
  if (typeof part === 'string') {
    checkTextSize(part.length, file);
    return part;
  }
  if (part instanceof ArrayBuffer || ArrayBuffer.isView(part)) {
    const bytes =
      part instanceof ArrayBuffer
        ? new Uint8Array(part)
        : new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
    checkTextSize(bytes.byteLength, file);
    return new TextDecoder().decode(bytes);
  }
  if (typeof Blob !== 'undefined' && part instanceof Blob) {
    checkTextSize(part.size, file);
    try {
      return await part.text();
    } catch (err) {
      throw readError(err, file, ''); // a picked file removed or changed since
    }
  }
  if (typeof part === 'object' && typeof part.text !== 'function') {
    let text;
    try {
      text = JSON.stringify(part);
    } catch (err) {
      // circular, a BigInt, a getter or toJSON that throws, or nested past the stack
      throw new Error(`loadPretrained: ${file} (an object) cannot be written as JSON (${cut(err?.message || err)})`);
    }
    if (typeof text !== 'string') throw new Error(`loadPretrained: ${file} (an object) is not JSON`);
    checkTextSize(text.length, file);
    return text;
  }
  if (typeof part.text === 'function') {
    // a fetch Response: its body may stall, break halfway or end early
    const length = part.headers?.get ? Number(part.headers.get('content-length')) || 0 : 0;
    try {
      checkTextSize(length, file);
    } catch (err) {
      part.body?.cancel?.().catch(() => {}); // never read: free the connection
      throw err;
    }
    try {
      if (part.body?.getReader) return await boundedText(part.body.getReader(), file, stallMs, length);
      return await withinStall(part.text(), stallMs, file, 'its text');
    } catch (err) {
      throw readError(err, file, 'to its end');
    }
  }
  throw new Error(`loadPretrained: ${file} must be text, an object, bytes or a File`);
}

/**
 * The weights as a reader of byte ranges in order: { size, read(n) -> Promise<Uint8Array> } from
 * bytes, a Blob / File (sliced, never read whole) or a fetch Response (streamed; needs its
 * Content-Length). read(n) gives n bytes, fewer only at the end. Exported for the fuzz targets.
 */
export function weightsReader(part, stallMs = STALL_MS, file = 'model.safetensors') {
  if (part == null) throw new Error(`loadPretrained: ${file} (weights) is missing`);
  if (part instanceof ArrayBuffer || ArrayBuffer.isView(part)) {
    const bytes =
      part instanceof ArrayBuffer
        ? new Uint8Array(part)
        : new Uint8Array(part.buffer, part.byteOffset, part.byteLength);
    let at = 0;
    return {
      size: bytes.length,
      read: async (n) => bytes.subarray(at, (at += n)),
    };
  }
  if (typeof Blob !== 'undefined' && part instanceof Blob) {
    let at = 0;
    return {
      size: part.size,
      async read(n) {
        const from = at;
        try {
          return new Uint8Array(await part.slice(from, (at += n)).arrayBuffer());
        } catch (err) {
          throw readError(err, file, `after ${from} of ${part.size} bytes`); // removed since picked
        }
      },
    };
  }
  if (part && typeof part.body === 'object' && part.headers) {
    const size = Number(part.headers.get('content-length'));
    if (!Number.isFinite(size) || size <= 0)
      throw new Error(`loadPretrained: ${file} came without a Content-Length: its size is needed`);
    const reader = part.body.getReader();
    let pending = new Uint8Array(0);
    let got = 0;
    return {
      size,
      async read(n) {
        while (pending.length < n) {
          let chunk;
          try {
            chunk = await withinStall(reader.read(), stallMs, file, `after ${got} of ${size} bytes`);
          } catch (err) {
            reader.cancel().catch(() => {});
            throw readError(err, file, `after ${got} of ${size} bytes`);
          }
          const { done, value } = chunk;
          if (!done && !ArrayBuffer.isView(value)) {
            reader.cancel().catch(() => {});
            throw new Error(`loadPretrained: ${file} is not a stream of bytes (a chunk was ${typeof value})`);
          }
          if (done) {
            if (got < size)
              throw new Error(`loadPretrained: ${file} ended after ${got} of its ${size} bytes (Content-Length)`);
            break;
          }
          const bytes = asBytes(value);
          got += bytes.length;
          const joined = new Uint8Array(pending.length + bytes.length);
          joined.set(pending);
          joined.set(bytes, pending.length);
          pending = joined;
        }
        const out = pending.subarray(0, n);
        pending = pending.subarray(out.length);
        return out;
      },
    };
  }
  throw new Error(`loadPretrained: ${file} must be bytes, a File / Blob or a fetch Response`);
}

/**
 * Loads a Hugging Face GPT-2, BERT or Llama-family folder into the module `ap` (one with the core's loader:
 * the second module, see load.js). parts: { config, weights, tokenizer } (see textOf / weightsReader), or
 * for a sharded checkpoint { config, tokenizer, index, shards }: index = model.safetensors.index.json,
 * shards = { [file]: weights } or a function file -> weights (or a Promise of them).
 * options.onProgress({ loaded, total }) after each chunk; options.stallMs (default 30 s): a streamed
 * file that sends nothing for that long is given up; options.signal (an AbortSignal): aborting it
 * stops the load at its next read, with an Error whose `cancelled` is true. Every problem is an Error
 * naming the file and the field; nothing stays allocated after one.
 */
export async function loadPretrainedInto(ap, parts, { onProgress, stallMs = STALL_MS, signal } = {}) {
  if (!parts || typeof parts !== 'object')
    throw new Error(
      'loadPretrained() needs { config, weights, tokenizer } (config.json, model.safetensors, tokenizer.json)',
    );
  // Every wait of the load races the signal: a cancelled load frees what it holds (the finally below).
  const cancelledError = () => Object.assign(new Error('loadPretrained: cancelled'), { cancelled: true });
  const aborted = signal
    ? new Promise((_, reject) => {
        if (signal.aborted) reject(cancelledError());
        signal.addEventListener('abort', () => reject(cancelledError()), { once: true });
      })
    : null;
  aborted?.catch(() => {}); // observed only through the races below
  const unlessCancelled = (p) => (aborted ? Promise.race([p, aborted]) : p);
  const [config, tokenizer] = await unlessCancelled(
    Promise.all([textOf(parts.config, 'config.json', stallMs), textOf(parts.tokenizer, 'tokenizer.json', stallMs)]),
  );
  const raw = ap._raw;
  const loader = raw.hfBegin(config, tokenizer);
  if (!loader) ap._fail();
  const buffer = raw._malloc(CHUNK);
  let loaded = 0;
  try {
    if (!buffer) throw new Error('out of wasm memory');
    const put = (bytes) => new Uint8Array(ap._heapBuffer(), buffer, bytes.length).set(bytes);
    // One safetensors file into the loader: its first 8 bytes, its header, its data in chunks.
    const readFile = async (part, file, total) => {
      const read = weightsReader(part, stallMs, file);
      const weights = {
        get size() {
          return read.size;
        },
        read: (n) => unlessCancelled(read.read(n)),
      };
      const first = await weights.read(8);
      if (first.length < 8)
        throw new Error(`${file} is too short (${weights.size} bytes; the header length alone takes 8)`);
      put(first);
      const headerLen = loader.headerLength(buffer, weights.size);
      if (headerLen < 0) ap._fail();
      let dataSize;
      if (headerLen <= CHUNK) {
        put(await weights.read(headerLen));
        dataSize = loader.readHeader(buffer, headerLen);
      } else {
        const header = await weights.read(headerLen);
        dataSize = ap._withHeap([header], (p) => loader.readHeader(p[0], header.length));
      }
      if (dataSize < 0) ap._fail();
      loaded += 8 + headerLen;
      for (let left = dataSize; left > 0;) {
        const bytes = await weights.read(Math.min(CHUNK, left));
        if (bytes.length === 0) break; // a short stream: finish() names the tensor it cut
        put(bytes);
        if (!loader.feed(buffer, bytes.length)) ap._fail();
        left -= bytes.length;
        loaded += bytes.length;
        if (onProgress) onProgress({ loaded, total: total ?? weights.size });
      }
    };
    if (parts.index != null) {
      // A sharded checkpoint: the core reads the index and names the shards; each is read in turn.
      const index = await unlessCancelled(textOf(parts.index, 'model.safetensors.index.json', stallMs));
      const files = loader.readIndex(index);
      if (!files) ap._fail();
      // shards: { [file]: bytes | File | Response }, or file => one of them (or a Promise: a URL's fetch).
      const lazy = typeof parts.shards === 'function';
      const missing = lazy ? [] : files.filter((f) => parts.shards?.[f] == null);
      if (missing.length)
        throw new Error(
          `loadPretrained: ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing (model.safetensors.index.json names ${files.length} shards: ${files.join(', ')})`,
        );
      // The total for onProgress: known up front when every shard has a size (bytes or Files).
      const sizes = lazy ? [] : files.map((f) => parts.shards[f].byteLength ?? parts.shards[f].size);
      const total = !lazy && sizes.every(Number.isFinite) ? sizes.reduce((a, b) => a + b, 0) : undefined;
      for (const file of files) {
        const part = lazy ? await unlessCancelled(Promise.resolve(parts.shards(file))) : parts.shards[file];
        if (part == null) throw new Error(`loadPretrained: ${file} is missing (model.safetensors.index.json names it)`);
        if (!loader.nextShard(file)) ap._fail();
        await readFile(part, file, total);
      }
    } else {
      await readFile(parts.weights, 'model.safetensors');
    }
    const handle = loader.finish();
    if (!handle) ap._fail();
    return ap._own(handle, new Model(ap, handle));
  } finally {
    if (buffer) raw._free(buffer);
    loader.delete();
  }
}
