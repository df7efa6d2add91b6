// Opening a Hugging Face folder in the page: the three files from a file picker (the files, or
// the folder), from a drop (files or a folder), or from a URL (?hf=<folder URL>). Each ends in
// models.openPretrained; this file only finds the three parts and names the folder. A sharded
// checkpoint (model.safetensors.index.json and the shards it names) stands for model.safetensors: the
// core reads the index and names each shard it needs (loadPretrained's index / shards parts).
import { openPretrained } from './models.js';

const NEEDED = ['config.json', 'tokenizer.json', 'model.safetensors'];

const baseName = (f) => String(f.name || '').replace(/^.*[\\/]/, '');

/**
 * { config, tokenizer, weights, name } from File objects (a folder's files, or just the three); for a
 * sharded checkpoint { config, tokenizer, index, shards: { [file name]: File }, name }.
 */
export function partsFromFiles(files) {
  const list = Array.from(files || []);
  const find = (name) => list.find((f) => baseName(f) === name);
  const config = find('config.json');
  const tokenizer = find('tokenizer.json');
  // model.safetensors, or the only .safetensors file there is, or the index of the shards.
  const st = list.filter((f) => /\.safetensors$/i.test(baseName(f)));
  const index = find('model.safetensors.index.json');
  const weights = find('model.safetensors') || (st.length === 1 && !index ? st[0] : null);
  const missing = [];
  if (!config) missing.push('config.json');
  if (!weights && !index) missing.push('model.safetensors');
  if (!tokenizer) missing.push('tokenizer.json');
  if (missing.length) {
    const got = list.length ? list.map(baseName).slice(0, 8).join(', ') : 'nothing';
    throw new Error(
      `${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} missing: a Hugging Face folder needs ${NEEDED.join(', ')} (got ${got}).`,
    );
  }
  // The folder's name: from the folder picker's relative path, else the weights' folder, else "model".
  const first = weights || index;
  const rel = first.webkitRelativePath || config.webkitRelativePath || first._folder || '';
  const name = rel.includes('/') ? rel.split('/').slice(-2, -1)[0] : first._folder || '';
  if (weights) return { config, tokenizer, weights, name };
  return { config, tokenizer, index, shards: Object.fromEntries(st.map((f) => [baseName(f), f])), name };
}

/** The File objects of a drop: plain files, or every file of a dropped folder (read recursively). */
export async function filesFromDataTransfer(dt) {
  const items = Array.from(dt?.items || []);
  const entries = items.map((it) => (it.kind === 'file' && it.webkitGetAsEntry ? it.webkitGetAsEntry() : null));
  if (!entries.some((e) => e && e.isDirectory)) return Array.from(dt?.files || []);
  const out = [];
  const fileOf = (entry) => new Promise((resolve, reject) => entry.file(resolve, reject));
  const readAll = (dir) =>
    new Promise((resolve, reject) => {
      const reader = dir.createReader();
      const all = [];
      const more = () =>
        reader.readEntries((batch) => {
          if (!batch.length) resolve(all);
          else {
            all.push(...batch);
            more();
          }
        }, reject);
      more();
    });
  const visit = async (entry, folder) => {
    if (!entry) return;
    if (entry.isFile) {
      const f = await fileOf(entry);
      if (folder) f._folder = folder;
      out.push(f);
    } else if (entry.isDirectory) {
      for (const child of await readAll(entry)) await visit(child, entry.name);
    }
  };
  for (const e of entries) await visit(e, '');
  return out;
}

/** { config, tokenizer, weights (a streamed Response), name } from a folder URL. */
// A server that does not answer: each file's headers must come within this (its body is then
// watched by loadPretrained, which gives up on a body that stalls).
const ANSWER_MS = 30_000;

/** The Error of a load the reader cancelled (its `cancelled` is true). */
function cancelled(what) {
  const err = new Error(`Cancelled: ${what} was not opened.`);
  err.cancelled = true;
  return err;
}

/** A URL as messages quote it: at most 80 characters. */
function shortUrl(url) {
  const text = String(url);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

// `signal` (an AbortSignal): aborting it cancels every request, their bodies included.
export async function partsFromUrl(url, { signal } = {}) {
  const text = String(url);
  const shown = shortUrl(text);
  let base;
  try {
    base = new URL(text.replace(/\/+$/, '') + '/', location.href);
  } catch {
    throw new Error(`"${shown}" is not a folder URL (give the http(s) address of a folder with config.json)`);
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:')
    throw new Error(`"${shown}" is not an http(s) folder URL (${base.protocol} is not read)`);
  const get = async (name) => {
    const where = new URL(name, base).href;
    if (signal?.aborted) throw cancelled(shown);
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), ANSWER_MS);
    signal?.addEventListener('abort', () => abort.abort(), { once: true });
    let r;
    try {
      r = await fetch(where, { signal: abort.signal });
    } catch (err) {
      if (signal?.aborted) throw cancelled(shown);
      throw new Error(
        abort.signal.aborted
          ? `${name}: no answer from ${where} in ${ANSWER_MS / 1000} s`
          : `${name}: could not fetch ${where} (${err.message}; is the server CORS-enabled?)`,
      );
    } finally {
      clearTimeout(timer);
    }
    if (!r.ok) throw new Error(`${name}: could not fetch ${where} (HTTP ${r.status})`);
    return r;
  };
  const [config, tokenizer] = await Promise.all([get('config.json'), get('tokenizer.json')]);
  const name = decodeURIComponent(base.pathname.split('/').filter(Boolean).pop() || base.host);
  let weights;
  try {
    weights = await get('model.safetensors');
  } catch (err) {
    // No model.safetensors: a sharded checkpoint has its index instead (shards fetched one at a time).
    if (!/\(HTTP 404\)$/.test(err.message)) throw err;
    const index = await get('model.safetensors.index.json').catch(() => {
      throw err;
    });
    return { config, tokenizer, index, shards: (file) => get(file), name };
  }
  // The Responses themselves: loadPretrained reads each body and names the file if it stalls.
  return { config, tokenizer, weights, name };
}

/** Opens files (a FileList or array) as a page model; resolves to its entry. signal: as openUrl's. */
export async function openFiles(files, { onProgress, signal } = {}) {
  const { name, ...parts } = partsFromFiles(files);
  try {
    return await openPretrained(parts, { name, onProgress, signal });
  } catch (err) {
    if (signal?.aborted) throw cancelled(name ? `the folder ${name}` : 'the files');
    throw err;
  }
}

/**
 * Opens a folder URL as a page model; resolves to its entry. signal: an AbortSignal that cancels
 * the load (the Error's `cancelled` is then true), also while the weights stream in.
 */
export async function openUrl(url, { onProgress, signal } = {}) {
  const { name, ...parts } = await partsFromUrl(url, { signal });
  try {
    return await openPretrained(parts, { name, onProgress, signal });
  } catch (err) {
    // a body aborted by the reader fails as a stream error: say what happened instead
    if (signal?.aborted) throw cancelled(shortUrl(url));
    throw err;
  }
}
