// `node tests/tools/model-facts.mjs <name> ...`: writes the facts of tests/tools/lib/model-facts.mjs
// (description, example, prompt) into the metadata of web/models/<name>.safetensors, as the trainer
// writes them when it is given --description, --example and --prompt: the fields themselves, and
// those options at the end of the recorded train_command (and init_train_command), where
// tests/tools/train.mjs passes them. Only the header changes: the tool writes the header back the way
// the trainer's writer does (refusing a file whose header it would not write back to the same bytes),
// keeps every tensor byte, and checks that they are the same in the file it wrote.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib/setup.mjs';
import { FACT_KEYS, MODEL_FACTS, factArgs, recordedArgs } from './lib/model-facts.mjs';

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

// The header as cpp/io/safetensors.cpp writes it: compact JSON, __metadata__ first with its keys in
// byte order (a std::map), then the tensors in the order they are (name order), spaces up to 8 bytes.
function headerText(header) {
  const { __metadata__: meta, ...tensors } = header;
  const sorted = Object.fromEntries(
    Object.keys(meta)
      .sort()
      .map((k) => [k, meta[k]]),
  );
  const text = JSON.stringify({ __metadata__: sorted, ...tensors });
  return text + ' '.repeat((8 - (Buffer.byteLength(text) % 8)) % 8);
}

function split(bytes) {
  const n = Number(bytes.readBigUInt64LE(0));
  return { headerBytes: bytes.subarray(8, 8 + n), data: bytes.subarray(8 + n) };
}

export function withFacts(bytes, facts) {
  const { headerBytes, data } = split(bytes);
  const header = JSON.parse(headerBytes.toString('utf8'));
  if (headerText(header) !== headerBytes.toString('utf8'))
    throw new Error('the header is not written the way the trainer writes it; not touching it');
  const meta = header.__metadata__;
  if (FACT_KEYS.some((k) => meta[k] !== undefined)) throw new Error('the file already has its facts');
  const args = factArgs(facts);
  const added = ` ${recordedArgs(args)}`;
  for (const key of ['train_command', 'init_train_command']) if (meta[key] !== undefined) meta[key] += added;
  for (let i = 0; i < args.length; i += 2) meta[args[i].slice(2)] = args[i + 1];
  const text = Buffer.from(headerText(header), 'utf8');
  const lead = Buffer.alloc(8);
  lead.writeBigUInt64LE(BigInt(text.length));
  const out = Buffer.concat([lead, text, data]);
  if (!split(out).data.equals(data)) throw new Error('the tensor bytes changed');
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const names = process.argv.slice(2);
  if (!names.length || names.some((n) => !MODEL_FACTS[n]))
    throw new Error(`usage: node tests/tools/model-facts.mjs ${Object.keys(MODEL_FACTS).join('|')} ...`);
  for (const name of names) {
    const path = join(ROOT, 'web', 'models', `${name}.safetensors`);
    const before = readFileSync(path);
    const after = withFacts(before, MODEL_FACTS[name]);
    writeFileSync(path, after);
    const data = (b) => sha256(split(b).data);
    console.log(`${name}: ${sha256(before)} -> ${sha256(after)} (${before.length} -> ${after.length} bytes)`);
    console.log(`  tensor data sha256 ${data(before)} before, ${data(readFileSync(path))} after`);
  }
}
