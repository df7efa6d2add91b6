// A GPT-2-small-shaped model (124M parameters: n_embd 768, n_head 12, n_layer 12, n_positions 1024,
// vocab_size 50257) as a Hugging Face folder, generated instead of committed (~250 MB); with --smollm,
// a SmolLM-135M-shaped Llama folder the same way (writeSmollmShape below).
//
//   node tests/tools/lib/hf-synthetic.mjs <dir> [--smollm] [--force]
//   import { writeGpt2SmallShape } from './hf-synthetic.mjs'; await writeGpt2SmallShape(dir);
//
// Writes <dir>/config.json (GPT-2 small's real config.json), <dir>/tokenizer.json (a copy of
// tests/fixtures/hf/tokenizers/bpe.json: ids < 512, fewer than vocab_size, as Hugging Face allows) and
// <dir>/model.safetensors: F16, the official gpt2 checkpoint's tensor names (no "transformer." prefix, no
// "h.{i}.attn.bias" mask buffers), header order = data order. No RNG state: element i of tensor number t
// (in header order) is
//   k = (lowbias32((i + imul(t + 1, 0x9E3779B9)) >>> 0) >>> 21) - 1024        (an integer in [-1024, 1023])
// scaled by kind: matrices k * 2^-15, embeddings k * 2^-13, biases k * 2^-16, LayerNorm weights
// 1 + (k >> 4) * 2^-10, LayerNorm biases k * 2^-14. All are exact in F16, so the file's bytes are exact.
// tests/reference/make_hf_fixtures.py recomputes the same values with numpy and checks the file.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const BPE_TOKENIZER = path.join(REPO, 'tests/fixtures/hf/tokenizers/bpe.json');

export const GPT2_SMALL_CONFIG = {
  activation_function: 'gelu_new',
  architectures: ['GPT2LMHeadModel'],
  attn_pdrop: 0.1,
  bos_token_id: 50256,
  embd_pdrop: 0.1,
  eos_token_id: 50256,
  initializer_range: 0.02,
  layer_norm_epsilon: 1e-5,
  model_type: 'gpt2',
  n_ctx: 1024,
  n_embd: 768,
  n_head: 12,
  n_layer: 12,
  n_positions: 1024,
  resid_pdrop: 0.1,
  summary_activation: null,
  summary_first_dropout: 0.1,
  summary_proj_to_labels: true,
  summary_type: 'cls_index',
  summary_use_proj: true,
  task_specific_params: { 'text-generation': { do_sample: true, max_length: 50 } },
  vocab_size: 50257,
};

/** [name, shape, kind] in header (= data) order; kind picks the scale of the hashed integers. */
export function gpt2SmallTensors(cfg = GPT2_SMALL_CONFIG) {
  const d = cfg.n_embd;
  const ff = 4 * d;
  const list = [
    ['wte.weight', [cfg.vocab_size, d], 'embedding'],
    ['wpe.weight', [cfg.n_positions, d], 'embedding'],
  ];
  for (let l = 0; l < cfg.n_layer; l++) {
    const p = `h.${l}.`;
    list.push(
      [p + 'ln_1.weight', [d], 'ln_weight'],
      [p + 'ln_1.bias', [d], 'ln_bias'],
      [p + 'attn.c_attn.weight', [d, 3 * d], 'matrix'],
      [p + 'attn.c_attn.bias', [3 * d], 'bias'],
      [p + 'attn.c_proj.weight', [d, d], 'matrix'],
      [p + 'attn.c_proj.bias', [d], 'bias'],
      [p + 'ln_2.weight', [d], 'ln_weight'],
      [p + 'ln_2.bias', [d], 'ln_bias'],
      [p + 'mlp.c_fc.weight', [d, ff], 'matrix'],
      [p + 'mlp.c_fc.bias', [ff], 'bias'],
      [p + 'mlp.c_proj.weight', [ff, d], 'matrix'],
      [p + 'mlp.c_proj.bias', [d], 'bias'],
    );
  }
  list.push(['ln_f.weight', [d], 'ln_weight'], ['ln_f.bias', [d], 'ln_bias']);
  return list;
}

export function lowbias32(x) {
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** The integer k in [-1024, 1023] of element i of tensor number t. */
export function hashInt(t, i) {
  return (lowbias32((i + Math.imul(t + 1, 0x9e3779b9)) >>> 0) >>> 21) - 1024;
}

export const KIND_VALUE = {
  matrix: (k) => k * 2 ** -15,
  embedding: (k) => k * 2 ** -13,
  bias: (k) => k * 2 ** -16,
  ln_weight: (k) => 1 + (k >> 4) * 2 ** -10,
  ln_bias: (k) => k * 2 ** -14,
};

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE half bits of v; throws unless v is exactly representable (finite, no rounding). */
export function exactF16Bits(v) {
  f32[0] = v;
  if (f32[0] !== v) throw new Error(`${v} is not a float32`);
  const bits = u32[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0 && mant === 0) return sign;
  if (exp === 0 || exp === 0xff) throw new Error(`${v}: float32 subnormal or non-finite`);
  const e = exp - 127 + 15;
  if (e >= 31) throw new Error(`${v} overflows float16`);
  if (e >= 1) {
    if (mant & 0x1fff) throw new Error(`${v} is not exact in float16`);
    return sign | (e << 10) | (mant >>> 13);
  }
  const full = mant | 0x800000; // float16 subnormal: value = m * 2^-24
  const shift = 14 - e;
  if (shift > 24 || full & ((1 << shift) - 1)) throw new Error(`${v} is not exact in float16`);
  return sign | (full >>> shift);
}

/** k + 1024 -> the F16 bits of the value, one table per kind. */
function kindTables() {
  const tables = {};
  for (const [kind, value] of Object.entries(KIND_VALUE)) {
    const table = new Uint16Array(2048);
    for (let k = -1024; k < 1024; k++) table[k + 1024] = exactF16Bits(value(k));
    tables[kind] = table;
  }
  return tables;
}

/** The safetensors header (JSON padded with spaces to a multiple of 8 bytes) and the total file size. */
export function gpt2SmallLayout(cfg = GPT2_SMALL_CONFIG) {
  return layoutOf(gpt2SmallTensors(cfg));
}

function layoutOf(tensors) {
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 2;
    header[name] = { dtype: 'F16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const headerBytes = Buffer.from(json, 'utf8');
  return { tensors, headerBytes, dataBytes: offset, fileBytes: 8 + headerBytes.length + offset };
}

function writeSafetensors(file, layout) {
  const tables = kindTables();
  const tmp = file + '.tmp';
  const fd = fs.openSync(tmp, 'w');
  try {
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(layout.headerBytes.length));
    fs.writeSync(fd, len);
    fs.writeSync(fd, layout.headerBytes);
    const CHUNK = 1 << 21; // elements per write (4 MiB)
    const out = new Uint16Array(CHUNK);
    const outBytes = new Uint8Array(out.buffer);
    layout.tensors.forEach(([, shape, kind], t) => {
      const table = tables[kind];
      const count = shape.reduce((a, b) => a * b, 1);
      const base = Math.imul(t + 1, 0x9e3779b9);
      for (let start = 0; start < count; start += CHUNK) {
        const n = Math.min(CHUNK, count - start);
        for (let j = 0; j < n; j++) {
          let x = (start + j + base) >>> 0;
          x ^= x >>> 16;
          x = Math.imul(x, 0x7feb352d);
          x ^= x >>> 15;
          x = Math.imul(x, 0x846ca68b);
          x ^= x >>> 16;
          out[j] = table[x >>> 21]; // (x >>> 0) >>> 21 = k + 1024
        }
        fs.writeSync(fd, outBytes, 0, n * 2); // float16 little-endian (all supported hosts are LE)
      }
    });
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

/** sha256 (hex) of a file, streamed. About 1 s for the 250 MB model. */
export async function sha256File(file) {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 22 })) hash.update(chunk);
  return hash.digest('hex');
}

/**
 * Writes the folder; model.safetensors is skipped when it already exists with the right size (unless force).
 * Returns { dir, model, bytes, wrote, tokenizer } (tokenizer false when bpe.json is not there yet).
 */
export async function writeGpt2SmallShape(dir, { force = false } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(GPT2_SMALL_CONFIG, null, 2) + '\n');
  const tokenizer = fs.existsSync(BPE_TOKENIZER);
  if (tokenizer) fs.copyFileSync(BPE_TOKENIZER, path.join(dir, 'tokenizer.json'));
  const layout = gpt2SmallLayout();
  const model = path.join(dir, 'model.safetensors');
  const have = fs.existsSync(model) ? fs.statSync(model).size : -1;
  const wrote = force || have !== layout.fileBytes;
  if (wrote) writeSafetensors(model, layout);
  return { dir, model, bytes: layout.fileBytes, wrote, tokenizer };
}

// ---- SmolLM-135M's shape (issue 26): a Llama folder for the benchmark ----------------------------
// HuggingFaceTB/SmolLM-135M's real config.json (hidden 576, 30 layers, 9 heads, 3 KV heads,
// intermediate 1536, vocab 49152, tied embeddings, RMSNorm, SwiGLU, RoPE theta 10000), Hugging
// Face's Llama tensor names and nn.Linear (out, in) layouts, and the same hashed F16 values as the
// GPT-2 shape above (kinds: embed_tokens 'embedding', projections 'matrix', RMSNorm weights
// 'ln_weight'). tokenizer.json: bpe.json again (a GPT-2-style byte-level BPE, as SmolLM's own).
export const SMOLLM_135M_CONFIG = {
  architectures: ['LlamaForCausalLM'],
  attention_bias: false,
  attention_dropout: 0.0,
  bos_token_id: 0,
  eos_token_id: 0,
  hidden_act: 'silu',
  hidden_size: 576,
  initializer_range: 0.02,
  intermediate_size: 1536,
  max_position_embeddings: 2048,
  mlp_bias: false,
  model_type: 'llama',
  num_attention_heads: 9,
  num_hidden_layers: 30,
  num_key_value_heads: 3,
  pretraining_tp: 1,
  rms_norm_eps: 1e-5,
  rope_scaling: null,
  rope_theta: 10000.0,
  tie_word_embeddings: true,
  torch_dtype: 'float32',
  transformers_version: '4.40.1',
  use_cache: true,
  vocab_size: 49152,
};

/** [name, shape, kind] of a Llama folder (tied: no lm_head.weight), header (= data) order. */
export function smollmTensors(cfg = SMOLLM_135M_CONFIG) {
  const d = cfg.hidden_size;
  const ff = cfg.intermediate_size;
  const kvd = cfg.num_key_value_heads * (d / cfg.num_attention_heads);
  const list = [['model.embed_tokens.weight', [cfg.vocab_size, d], 'embedding']];
  for (let l = 0; l < cfg.num_hidden_layers; l++) {
    const p = `model.layers.${l}.`;
    list.push(
      [p + 'input_layernorm.weight', [d], 'ln_weight'],
      [p + 'self_attn.q_proj.weight', [d, d], 'matrix'],
      [p + 'self_attn.k_proj.weight', [kvd, d], 'matrix'],
      [p + 'self_attn.v_proj.weight', [kvd, d], 'matrix'],
      [p + 'self_attn.o_proj.weight', [d, d], 'matrix'],
      [p + 'post_attention_layernorm.weight', [d], 'ln_weight'],
      [p + 'mlp.gate_proj.weight', [ff, d], 'matrix'],
      [p + 'mlp.up_proj.weight', [ff, d], 'matrix'],
      [p + 'mlp.down_proj.weight', [d, ff], 'matrix'],
    );
  }
  list.push(['model.norm.weight', [d], 'ln_weight']);
  if (!cfg.tie_word_embeddings) list.push(['lm_head.weight', [cfg.vocab_size, d], 'matrix']);
  return list;
}

/** The SmolLM-135M-shaped folder (~270 MB), as writeGpt2SmallShape. */
export async function writeSmollmShape(dir, { force = false } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(SMOLLM_135M_CONFIG, null, 2) + '\n');
  const tokenizer = fs.existsSync(BPE_TOKENIZER);
  if (tokenizer) fs.copyFileSync(BPE_TOKENIZER, path.join(dir, 'tokenizer.json'));
  const layout = layoutOf(smollmTensors());
  const model = path.join(dir, 'model.safetensors');
  const have = fs.existsSync(model) ? fs.statSync(model).size : -1;
  const wrote = force || have !== layout.fileBytes;
  if (wrote) writeSafetensors(model, layout);
  return { dir, model, bytes: layout.fileBytes, wrote, tokenizer };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const dir = args.find((a) => !a.startsWith('--'));
  if (!dir) {
    console.error('usage: node tests/tools/lib/hf-synthetic.mjs <dir> [--smollm] [--force] [--sha256]');
    process.exit(2);
  }
  const t0 = performance.now();
  const write = args.includes('--smollm') ? writeSmollmShape : writeGpt2SmallShape;
  const r = await write(dir, { force: args.includes('--force') });
  const secs = ((performance.now() - t0) / 1000).toFixed(1);
  console.log(`${r.model}: ${r.bytes} bytes, ${r.wrote ? 'written' : 'already there (same size)'} in ${secs} s`);
  if (!r.tokenizer) console.warn(`warning: ${BPE_TOKENIZER} is missing; no tokenizer.json written`);
  if (args.includes('--sha256')) console.log(`sha256 ${await sha256File(r.model)}`);
}
