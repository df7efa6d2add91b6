// A Vite plugin shared by the page build (vite.config.js) and the widget bundle
// (vite.widgets.config.js): `import HEADERS from 'virtual:ap-model-headers'` gives, for each
// web/models/<name>.safetensors present when the page is served or built, what its header says
// ({ task, separator, arch, config, tensors, and what the page says of the model: description,
// example, prompt, written by the trainer's options of those names}). The page lists its trained models from this,
// so a visitor never downloads a model file (or asks a host for byte ranges) just to learn what
// it is; the weights are fetched when a model is first used. A file whose header does not read
// as a model is left out with a warning, as the page used to do at run time.
import { openSync, readSync, closeSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MODELS_DIR = fileURLToPath(new URL('./models/', import.meta.url));
const ID = 'virtual:ap-model-headers';
const RESOLVED = `\0${ID}`;

function readExactly(fd, length, position) {
  const buf = Buffer.alloc(length);
  const got = readSync(fd, buf, 0, length, position);
  return buf.subarray(0, got);
}

/** The header of one model file: what the page needs to offer it without its weights. */
export function readModelHeader(path) {
  const fd = openSync(path, 'r');
  try {
    const lead = readExactly(fd, 8, 0);
    if (lead.length < 8) throw new Error('not a safetensors file');
    const n = Number(lead.readBigUInt64LE(0));
    if (n <= 0 || n > 1 << 24) throw new Error('not a safetensors file');
    const text = readExactly(fd, n, 8);
    if (text.length < n) throw new Error('the file ends inside its header');
    const header = JSON.parse(text.toString('utf8'));
    const meta = header.__metadata__ || {};
    const config = JSON.parse(meta.config);
    return {
      task: meta.task || '',
      separator: meta.separator || '',
      description: meta.description || '',
      example: meta.example || '',
      prompt: meta.prompt || '',
      arch: config.arch,
      config,
      tensors: Object.keys(header).filter((k) => k !== '__metadata__'),
    };
  } finally {
    closeSync(fd);
  }
}

export function modelHeaders() {
  return {
    name: 'ap-model-headers',
    resolveId(id) {
      return id === ID ? RESOLVED : null;
    },
    load(id) {
      if (id !== RESOLVED) return null;
      const out = {};
      for (const file of readdirSync(MODELS_DIR)
        .filter((f) => f.endsWith('.safetensors'))
        .sort()) {
        const path = MODELS_DIR + file;
        this.addWatchFile?.(path);
        try {
          out[file.replace(/\.safetensors$/, '')] = readModelHeader(path);
        } catch (err) {
          this.warn(`web/models/${file} is not usable: ${err.message}`);
        }
      }
      return `export default ${JSON.stringify(out)};`;
    },
  };
}
