// What every attention head of the English models does, measured on the held-out Brown samples with
// the corpus's own tags (tests/tools/lib/head-roles.mjs says how), and the decoder's induction heads
// on random token sequences read twice. Prints a Markdown table per model and writes JSON
// (tests/fixtures/english/heads.json) that the heads view names each head from.
//
// node tests/tools/english-heads.mjs [--decoder PATH] [--encoder PATH] [--samples N] [--max-passages N]
//   [--induction N] [--out FILE]
// --samples N: the first N held-out samples (default all 25); --max-passages N: at most N passages per
// model, evenly spread (default all: the output says when a run was subsampled); --induction N: random
// sequences (default 20). A model file that is missing is skipped with a note.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { load } from '../../wasm/index.js';
import { splitBrown } from './lib/brown.mjs';
import { englishChunks } from './lib/english-data.mjs';
import {
  RELATIONS,
  THRESHOLDS,
  analyseModel,
  inductionScores,
  passagesOf,
  tokenByteLengths,
  tokenizerJsonOfFile,
} from './lib/head-roles.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const { values: args } = parseArgs({
  options: {
    decoder: { type: 'string', default: resolve(root, 'web/models/english.safetensors') },
    encoder: { type: 'string', default: resolve(root, 'web/models/english-mlm.safetensors') },
    samples: { type: 'string' },
    'max-passages': { type: 'string' },
    induction: { type: 'string', default: '20' },
    out: { type: 'string', default: resolve(root, 'tests/fixtures/english/heads.json') },
  },
});
const positive = (name) => {
  const v = args[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!(Number.isInteger(n) && n > 0)) throw new Error(`--${name} ${v}: want a positive integer`);
  return n;
};
const maxPassages = positive('max-passages');
const inductionCount = positive('induction');

const t0 = performance.now();
const seconds = () => (performance.now() - t0) / 1000;
const log = (msg) => console.error(`[${seconds().toFixed(1)} s] ${msg}`);
const rel = (p) => relative(root, resolve(p));

// The subset a test recomputes (analyseModel on it, compared with `checks` in the JSON): the first
// passage of each of these held-out samples.
const CHECK_SAMPLES = 3;

const ap = await load();
const { heldOut: allHeld } = splitBrown();
const heldOut = allHeld.slice(0, positive('samples') ?? allHeld.length);

// Every k-th passage when there are more than `max` (the same ones on every run).
const spread = (list, max) =>
  max && list.length > max ? Array.from({ length: max }, (_, i) => list[Math.floor((i * list.length) / max)]) : list;

async function openEnglish(path) {
  const bytes = new Uint8Array(readFileSync(path));
  const model = await ap.openModel(bytes);
  const tokenBytes = tokenByteLengths(tokenizerJsonOfFile(bytes));
  const encode = (text) => model.tokenizer.encode(text).ids;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return { model, tokenBytes, encode, sha256, bytes: bytes.length };
}

async function runModel(name, path) {
  if (!existsSync(path)) {
    log(`${name}: ${rel(path)} does not exist, skipped`);
    return null;
  }
  const { model, tokenBytes, encode, sha256, bytes } = await openEnglish(path);
  try {
    const cfg = model.config;
    const offset = cfg.arch === 'decoder' ? 1 : 0;
    const maxTokens = cfg.maxLen - offset; // the decoder's passages leave room for <bos>
    const passages = passagesOf(heldOut, encode, maxTokens, tokenBytes);
    // Cut exactly as the other held-out figures are (english-data.mjs): same ids, passage by passage.
    const byteLength = (ids) => ids.reduce((a, id) => a + tokenBytes[id], 0);
    const chunks = await englishChunks(heldOut, (t) => Array.from(encode(t)), maxTokens, byteLength);
    if (chunks.length !== passages.length || chunks.some((c, i) => c.ids.join() !== passages[i].ids.join()))
      throw new Error(`${name}: passagesOf does not cut as englishChunks does`);
    const used = spread(passages, maxPassages);
    const shape = `${cfg.arch}, ${cfg.nLayers} x ${cfg.nHeads} heads, context ${cfg.maxLen}`;
    log(`${name}: ${rel(path)} (${shape}); ${used.length} of ${passages.length} passages`);
    let last = 0;
    const result = analyseModel(model, used, {
      onProgress: (i, n) => {
        if (seconds() - last > 30 || i === n) {
          last = seconds();
          log(`${name}: ${i} / ${n} passages`);
        }
      },
    });
    const words = used.reduce((a, p) => a + p.words.length, 0);
    const out = {
      file: rel(path),
      sha256,
      bytes,
      config: {
        arch: cfg.arch,
        nLayers: cfg.nLayers,
        nHeads: cfg.nHeads,
        dModel: cfg.dModel,
        maxLen: cfg.maxLen,
        vocabSize: cfg.vocabSize,
      },
      input: offset ? 'each passage read after <bos> (id 1)' : 'each passage read alone (raw ids)',
      samples: heldOut.map((s) => s.id),
      passagesTotal: passages.length,
      tokensTotal: passages.reduce((a, p) => a + p.ids.length, 0),
      subsampled: used.length < passages.length,
      passages: result.passages,
      tokens: result.tokens,
      words,
      heads: result.heads,
    };
    let induction = null;
    if (result.kind === 'decoder') {
      log(`${name}: induction (${inductionCount} sequences)`);
      induction = inductionScores(model, { count: inductionCount });
    }
    // The check subset: recomputed on the first passage of the first CHECK_SAMPLES samples.
    const firsts = passages.filter(
      (p, i) => (i === 0 || passages[i - 1].sample !== p.sample) && checkIds.includes(p.sample),
    );
    const subset = analyseModel(model, firsts);
    return { out, induction, subset };
  } finally {
    model.dispose();
  }
}

const checkIds = heldOut.slice(0, CHECK_SAMPLES).map((s) => s.id);
const decoder = await runModel('decoder', args.decoder);
const encoder = await runModel('encoder', args.encoder);

// ---- tables ----
const f2 = (x) => (x == null ? '-' : x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toFixed(2));
const f3 = (x) => (x == null ? '-' : x < 0.01 ? x.toFixed(4) : x.toFixed(3));
const fig = (e) => `${f3(e.mass)} vs ${f3(e.chance)} (×${f2(e.ratio)}; ×${f2(e.vsPosition)} its map)`;
const int = (n) => n.toLocaleString('en-US');
const lines = [];
const say = (s = '') => lines.push(s);

function headTable(name, m) {
  say(`### ${name}: ${m.file}`);
  say();
  say(
    `${int(m.tokens)} held-out tokens in ${m.passages} passages of ${m.samples.length} samples (${m.input})` +
      (m.subsampled ? `; SUBSAMPLED from ${m.passagesTotal} passages (${int(m.tokensTotal)} tokens)` : '') +
      '.',
  );
  say();
  say('| layer | head | role | mass vs chance (× chance; × its mean map there) | n | next best | entropy | dist. |');
  say('| ---: | ---: | --- | --- | ---: | --- | ---: | ---: |');
  for (const h of m.heads) {
    const [a, b] = h.evidence;
    const main = h.role ? fig(a) : a ? `(${RELATIONS[a.relation].label}: ${fig(a)})` : '-';
    const n = a ? int(a.n) : '-';
    const next = b ? `${RELATIONS[b.relation].label}: ${fig(b)}` : '-';
    const role = h.role ? h.label : `**no clear role**${h.leaning ? ` (leans: ${RELATIONS[h.leaning].label})` : ''}`;
    say(`| ${h.layer} | ${h.head} | ${role} | ${main} | ${n} | ${next} | ${f2(h.entropy)} | ${f2(h.distance)} |`);
  }
  say();
  // Every relation's mass (× chance) per head, for reading what the names leave out.
  const rels = Object.keys(m.heads[0].relations);
  say(`Mass per relation (× chance; a * marks vsPosition >= ${THRESHOLDS.minVsPosition} for content relations):`);
  say();
  say(`| L.H | ${rels.join(' | ')} |`);
  say(`| --- | ${rels.map(() => '---:').join(' | ')} |`);
  for (const h of m.heads)
    say(
      `| ${h.layer}.${h.head} | ${rels
        .map((r) => {
          const f = h.relations[r];
          const star = RELATIONS[r].kind === 'content' && f.vsPosition >= THRESHOLDS.minVsPosition ? '*' : '';
          return `${f.mass.toFixed(2)} (${f2(f.ratio)})${star}`;
        })
        .join(' | ')} |`,
    );
  say(`| n | ${rels.map((r) => int(m.heads[0].relations[r].n)).join(' | ')} |`);
  say();
}

function inductionTable(ind) {
  const what = `${ind.count} random sequences of ${ind.L} tokens (ids >= ${ind.minId}, seed ${ind.seed})`;
  say(`### Induction (decoder): ${what} read twice after <bos>`);
  say();
  say('| layer | head | induction (p -> p - L + 1) | chance | × chance | to 1st copy (p -> p - L) | prev. token |');
  say('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const h of ind.heads) {
    const x = f2(h.score / h.chance);
    say(`| ${h.layer} | ${h.head} | ${f3(h.score)} | ${f3(h.chance)} | ${x} | ${f3(h.dup)} | ${f3(h.prev)} |`);
  }
  say();
  const { copy1, copy2, tokens } = ind.loss;
  const uniform = `ln ${ind.vocabSize} = ${Math.log(ind.vocabSize).toFixed(3)}`;
  say(
    `Loss on the repeat: ${copy1.toFixed(3)} nats/token on the first copy, ${copy2.toFixed(3)} on the second ` +
      `(${int(tokens)} tokens each: tokens 2..${ind.L} of each copy; uniform over the vocabulary: ${uniform}).`,
  );
  say();
}

say('## Attention heads of the English models');
say();
say(
  `Named role: the relation with the highest ratio to chance among those with mass >= ${THRESHOLDS.minMass}, ` +
    `ratio >= ${THRESHOLDS.minRatio}, n >= ${THRESHOLDS.minQueries}, and (content relations) mass >= ` +
    `${THRESHOLDS.minVsPosition} x what the head's mean attention map (over all passages, positions only) puts on ` +
    `the same (query, key) positions; the sink (first position) only when nothing else qualifies. A head without ` +
    `one "leans" to a relation that passes mass >= ${THRESHOLDS.leanMass}, ratio >= ${THRESHOLDS.leanRatio} and ` +
    `(content) x${THRESHOLDS.leanVsPosition} its map. Figures: mean attention mass vs chance (uniform over the keys ` +
    `the query may see), n = query positions. Entropy: mean row entropy / log(keys), 1 = uniform. dist.: mean ` +
    `distance to the keys, position 0 left out.`,
);
say();
if (decoder) headTable('Decoder', decoder.out);
if (decoder?.induction) inductionTable(decoder.induction);
if (encoder) headTable('Encoder (masked LM)', encoder.out);
console.log(lines.join('\n'));

// ---- checks: four named heads on the subset ----
// Named heads first, then heads that lean somewhere (a model may have fewer than k named heads),
// each by its figure's ratio; one head per relation while there is a choice.
function pickChecks(name, run, k) {
  if (!run) return [];
  const relationOf = (h) => h.role ?? h.leaning ?? h.evidence[0].relation;
  const tier = (h) => (h.role ? 2 : h.leaning ? 1 : 0);
  const ranked = [...run.out.heads].sort((a, b) => tier(b) - tier(a) || b.evidence[0].ratio - a.evidence[0].ratio);
  const pick = [];
  for (const h of ranked)
    if (pick.length < k && tier(h) && !pick.some((p) => relationOf(p) === relationOf(h))) pick.push(h);
  for (const h of ranked) if (pick.length < k && !pick.includes(h)) pick.push(h);
  return pick.map((h) => {
    const s = run.subset.heads.find((x) => x.layer === h.layer && x.head === h.head);
    const relation = relationOf(h);
    return {
      model: name,
      layer: h.layer,
      head: h.head,
      role: h.role,
      leaning: h.leaning,
      relation,
      full: h.relations[relation],
      subset: s.relations[relation],
    };
  });
}
const nDec = encoder ? 2 : 4;
const fromDecoder = pickChecks('decoder', decoder, nDec);
const checks = {
  about:
    'analyseModel(model, passages) on the first passage of each of these held-out samples (passagesOf as above) ' +
    "gives these figures (subset) for these heads; role, leaning, relation and full are the full run's (named " +
    'heads first, then heads that lean, one per relation while there is a choice). Compare mass, chance, ratio ' +
    'and n: vsPosition needs many passages (on a few the mean map is mostly their own weights).',
  samples: checkIds,
  passages: { decoder: decoder?.subset.passages ?? 0, encoder: encoder?.subset.passages ?? 0 },
  tokens: { decoder: decoder?.subset.tokens ?? 0, encoder: encoder?.subset.tokens ?? 0 },
  heads: [...fromDecoder, ...pickChecks('encoder', encoder, 4 - fromDecoder.length)],
};

const json = {
  about:
    'Attention heads of the English models on the held-out Brown samples (tests/tools/english-heads.mjs, ' +
    "tests/tools/lib/head-roles.mjs). Per head and relation: mean attention mass on the relation's keys, the " +
    'chance level (uniform attention over the keys the query may see), their ratio, positional (what the ' +
    "head's mean attention map over all passages puts on the same (query, key) positions, whatever the " +
    'tokens), vsPosition = mass / positional, and n (queries).',
  command: `node tests/tools/english-heads.mjs ${process.argv.slice(2).join(' ')}`.trim(),
  seconds: Math.round(seconds()),
  thresholds: THRESHOLDS,
  relations: RELATIONS,
  models: { decoder: decoder?.out ?? null, encoder: encoder?.out ?? null },
  induction: decoder?.induction ?? null,
  checks,
};
mkdirSync(dirname(resolve(args.out)), { recursive: true });
writeFileSync(args.out, JSON.stringify(json, null, 1) + '\n');
log(`wrote ${rel(args.out)}`);

// What the page's heads view reads (web/models/<name>.heads.json, fetched when the view opens on
// that model): each head's named role and its two strongest relations, with the figures they rest on.
for (const [model, out] of [['english', decoder?.out]]) {
  if (!out) continue;
  const page = {
    about: `Measured by tests/tools/english-heads.mjs (${rel(args.out)} has every figure).`,
    sha256: out.sha256,
    tokens: out.tokens,
    passages: out.passages,
    samples: out.samples.length,
    // The rule a head is named by (head-roles.mjs chooseRole): the view states it beside the names.
    thresholds: THRESHOLDS,
    heads: out.heads.map((h) => ({
      layer: h.layer,
      head: h.head,
      role: h.role,
      label: h.label,
      leaning: h.leaning ? RELATIONS[h.leaning].label : null,
      evidence: h.evidence.map((e) => ({ label: RELATIONS[e.relation].label, mass: e.mass, chance: e.chance, n: e.n })),
    })),
  };
  const path = resolve(root, `web/models/${model}.heads.json`);
  writeFileSync(path, JSON.stringify(page) + '\n');
  log(`wrote ${rel(path)}`);
}
