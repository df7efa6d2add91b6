// docs/ against the code, so the docs cannot drift silently: every concept id of
// web/lib/concepts.js is a row of docs/concepts.md's table (and the table has no other id), every
// stage name the real module produces is named in docs/design.md, and no file in the repo still
// points to the design notes that lived outside it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { CONCEPTS } from '../../web/lib/concepts.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (p) => readFileSync(root + p, 'utf8');
let ap;
beforeAll(async () => {
  ap = await load();
});

/** The ids in the first column of the table under "## Concept ids". */
function tableIds(md) {
  const section = md.split(/^## Concept ids$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .map((line) => /^\| `([^`]+)` \|/.exec(line)?.[1])
    .filter(Boolean);
}

test('docs/concepts.md has one table row per concept id of web/lib/concepts.js, and no other', () => {
  const ids = tableIds(read('docs/concepts.md'));
  const known = CONCEPTS.map((c) => c.id);
  expect(
    known.filter((id) => !ids.includes(id)),
    'ids missing from docs/concepts.md',
  ).toEqual([]);
  expect(
    ids.filter((id) => !known.includes(id)),
    'ids in docs/concepts.md unknown to concepts.js',
  ).toEqual([]);
  expect(ids.length, 'each id once').toBe(new Set(ids).size);
});

test('docs/concepts.md lists every lecture preset', () => {
  const md = read('docs/concepts.md');
  const missing = ap.presets
    .list()
    .map((p) => p.id)
    .filter((id) => !md.includes(`\`${id}\``));
  expect(missing, 'presets missing from docs/concepts.md').toEqual([]);
});

/** Every stage name the module records, over architectures, positions, norms and each kind of trace. */
function stageNames() {
  const names = new Set();
  const note = (tr) => {
    for (const s of tr.stages()) names.add(s.name);
    tr.dispose();
  };
  const rnd = (n) => Float32Array.from({ length: n }, (_, i) => Math.sin(i + 1));
  const small = { dModel: 8, nHeads: 2, nLayers: 1, dFf: 16, maxLen: 16 };
  for (const arch of ['encoder', 'decoder', 'encoder-decoder']) {
    for (const pos of ['none', 'sinusoidal', 'learned', 'relative', 'rope']) {
      for (const norm of ['post', 'pre']) {
        const m = ap.createModel({ ...small, arch, pos, norm });
        note(arch === 'encoder-decoder' ? m.forward({ src: 'ab', tgt: 'cd' }) : m.forward('abc'));
        if (arch !== 'encoder') {
          const g = m.generate(arch === 'encoder-decoder' ? 'ab' : 'a', { maxTokens: 2 });
          for (const s of g.steps) for (const st of s.trace.stages()) names.add(st.name);
          g.dispose();
        } else {
          note(m.attentionStacks('abc', { depth: 1 }));
        }
        m.dispose();
      }
    }
  }
  // Issue 26's parts: RMSNorm, a gated FFN, grouped K/V and a window, post- and pre-norm.
  for (const norm of ['post', 'pre']) {
    const m = ap.createModel({
      ...small,
      arch: 'decoder',
      norm,
      normKind: 'rmsnorm',
      ffnKind: 'swiglu',
      nKvHeads: 1,
      window: 2,
    });
    note(m.forward('abc'));
    m.dispose();
  }
  for (const p of ap.presets.list()) note(ap.presets.run(p.id));
  const w = () => rnd(4);
  note(ap.attention({ x: rnd(6), wq: w(), wk: w(), wv: w(), wo: w(), n: 3, dModel: 2, nHeads: 2, causal: true }));
  note(ap.attention({ x: rnd(6), memory: rnd(4), m: 2, wq: w(), wk: w(), wv: w(), wo: w(), n: 3, dModel: 2 }));
  note(ap.rnn({ x: rnd(6), n: 3, dIn: 2, dHidden: 2 }));
  note(ap.additiveAttention({ s: rnd(6), n: 3, dS: 2, h: rnd(6), m: 3, dH: 2 }));
  for (const score of ['dot', 'scaled', 'additive'])
    note(ap.lookup({ q: rnd(6), k: rnd(6), v: rnd(6), n: 3, m: 3, d: 2, score }));
  const r = ap.loadRnnAttention(readFileSync(root + 'web/models/translate-rnn.safetensors'));
  note(r.encode('the agreement'));
  note(r.translate('the agreement'));
  r.dispose();
  return [...names];
}

test('docs/design.md names every stage the trace can produce', async () => {
  const md = read('docs/design.md');
  const names = stageNames();
  for (const dir of ['gpt2-tiny', 'bert-tiny']) {
    const at = (f) => root + `tests/fixtures/hf/${dir}/${f}`;
    const m = await ap.loadPretrained({
      config: readFileSync(at('config.json'), 'utf8'),
      tokenizer: readFileSync(at('tokenizer.json'), 'utf8'),
      weights: new Uint8Array(readFileSync(at('model.safetensors'))),
    });
    const t = m.forward('the cat');
    for (const s of t.stages()) if (!names.includes(s.name)) names.push(s.name);
    t.dispose();
    m.dispose();
  }
  expect(names.length).toBeGreaterThan(40);
  expect(
    names.filter((n) => !md.includes(`\`${n}\``)),
    'stage names missing from docs/design.md',
  ).toEqual([]);
});

test('no file in the repository points to the design notes that lived outside it', () => {
  const old = ['DESIGN', 'CURRICULUM', 'TOOLCHAIN', 'STYLE'].map((n) => `${n}.md`);
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && !/^(node_modules|build|dist)\//.test(f) && !/\.(wasm|safetensors|png|jpg|gz|ico)$/.test(f));
  const hits = [];
  for (const f of files) {
    let text;
    try {
      text = read(f);
    } catch {
      continue;
    } // deleted in the work tree
    for (const name of old) if (text.includes(name)) hits.push(`${f}: ${name}`);
  }
  expect(hits).toEqual([]);
});
