// The shipped English decoder (web/models/english.safetensors, trained on the Brown corpus by
// `npm run train -- english`), through the wasm module a page uses:
// - the byte-level BPE tokenizer they carry: ids equal to Hugging Face's Rust tokenizers (npm
//   `tokenizers`) on the same tokenizer.json, every string encodes with no unknown token and
//   decodes back to itself;
// - the files are the ones measured (sha256 in tests/fixtures/english/report.json, written by
//   `npm run train -- report`) and the recorded held-out figures come out again on a subset (the
//   first passage of each of the 25 held-out samples);
// - on that subset the decoder reads held-out English in fewer bits per byte than a Kneser-Ney
//   trigram trained here, now, on the same training split.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import tk from 'tokenizers';
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { splitBrown } from '../tools/lib/brown.mjs';
import { chunksFor, decoderFigures, firstPassages, mlmFigures, tokenizerJsonOf } from '../tools/lib/english-eval.mjs';
import { bitsPerByte, trainKneserNey, trainUnigram } from '../tools/lib/ngram.mjs';
import { POOL, randomStrings } from './lib/random-text.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const report = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/english/report.json'), 'utf8'));
const bytesOf = (name) => new Uint8Array(readFileSync(join(ROOT, 'web/models', `${name}.safetensors`)));

let ap, dec, tokJson, split;
beforeAll(async () => {
  ap = await load();
  const decBytes = bytesOf('english');
  dec = await ap.openModel(decBytes);
  tokJson = tokenizerJsonOf(decBytes);
  split = splitBrown();
}, 120_000);

describe('the English tokenizer (byte-level BPE trained on the Brown training split)', () => {
  test('the first module refuses the file by name and stays usable; openModel reads it', () => {
    expect(() => ap.loadModel(bytesOf('english'))).toThrow(/tokenizer\.json.*openModel/);
    expect(
      ap.createModel({ arch: 'decoder', dModel: 8, nHeads: 2, nLayers: 1, dFf: 16, vocab: ['a'] }).config.dModel,
    ).toBe(8);
    expect(dec.specialTokens).toMatchObject({ kind: 'byte-level BPE', size: 4096, pad: 0, bos: 1, eos: 1, mask: 2 });
  });

  test("ids equal Hugging Face's on 300 random strings and 200 held-out sentences; nothing is unknown", async () => {
    const hf = tk.Tokenizer.fromString(JSON.stringify(tokJson));
    const sentences = split.heldOut.flatMap((s) => s.sentences.slice(0, 8).map((x) => x.text));
    const texts = [...randomStrings(300, 2026), ...sentences.slice(0, 200)];
    let tokens = 0;
    for (const text of texts) {
      const want = (await hf.encode(text, null, { addSpecialTokens: true })).getIds();
      const ours = dec.tokenizer.encode(text);
      expect(Array.from(ours.ids), JSON.stringify(text)).toEqual(want);
      expect(ours.unknown).toEqual([]);
      tokens += want.length;
    }
    expect(tokens).toBeGreaterThan(5000);
  });

  test('every string decodes back to itself, byte for byte (emoji, accents, CJK, tabs)', () => {
    const noSpecials = POOL.filter((p) => !/MASK|endoftext/.test(p));
    let s = 7;
    for (let k = 0; k < 300; k++) {
      let text = '';
      for (let i = 0; i < 1 + (k % 30); i++) {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        text += noSpecials[s % noSpecials.length];
      }
      const enc = dec.tokenizer.encode(text);
      expect(enc.unknown).toEqual([]);
      expect(dec.tokenizer.decode(enc.ids), JSON.stringify(text)).toBe(text);
    }
  });

  test('a token holding part of a character shows its bytes, in encode() and in model.pieces alike', () => {
    // 🙂 is U+1F642, UTF-8 F0 9F 99 82; this vocabulary has no merge for it, so four byte tokens.
    const enc = dec.tokenizer.encode('café 🙂');
    expect(enc.pieces.slice(-4)).toEqual(['<0xF0>', '<0x9F>', '<0x99>', '<0x82>']);
    expect(enc.pieces.join('').startsWith('caf')).toBe(true);
    Array.from(enc.ids).forEach((id, i) => expect(dec.pieces[id]).toBe(enc.pieces[i]));
    // A whole token reads as its text, its leading space kept (the vocabulary writes it "Ġthe").
    const the = dec.vocab.indexOf('Ġthe');
    expect(dec.pieces[the]).toBe(' the');
    expect(dec.pieces[dec.specialTokens.bos]).toBe('<|endoftext|>');
  });

  test('a passage tokenized as a whole gives the tokens of its sentences (how training cut them)', async () => {
    const chunks = firstPassages(await chunksFor(dec, tokJson, split.heldOut, 255));
    for (const c of chunks) expect(Array.from(dec.tokenizer.encode(c.text).ids)).toEqual(c.ids);
  });
});

describe('the shipped files and their recorded held-out figures', () => {
  test('english.safetensors is the file that was measured', () => {
    const bytes = bytesOf('english');
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(report.files.english.sha256);
    expect(bytes.length).toBeLessThanOrEqual(3 * 1024 * 1024); // the issue's budget for a page model
  });

  test('the file records how it was made: the command of each stage, corpus, split, seed', async () => {
    const { RECIPES, stageOut } = await import('../tools/lib/english-recipes.mjs');
    const { MODEL_FACTS, factArgs, recordedArgs } = await import('../tools/lib/model-facts.mjs');
    const stages = RECIPES.english;
    // Stage k (1-based) as tests/tools/train.mjs runs it: from the file of stage k - 1, into its own,
    // with what the page says of the model last.
    const facts = recordedArgs(factArgs(MODEL_FACTS.english));
    const command = (k) =>
      `train ${stages[k - 1]}${k > 1 ? ` --init ${stageOut('english', k - 1)}` : ''} --data build/english --out ${stageOut('english', k)} ${facts}`;
    const m = dec.metadata;
    expect(m.train_command).toBe(command(stages.length));
    if (stages.length > 1) expect(m.init_train_command).toBe(command(stages.length - 1));
    else expect(m.init_train_command).toBeUndefined();
    expect(m.train_command).toMatch(/ --seed \d+ /);
    expect(m.corpus).toMatch(/Brown/);
    expect(JSON.parse(m.split).heldOut).toEqual(split.heldOut.map((s) => s.id));
  });

  test('the decoder: recorded bits per byte and top-1 / top-5 on the subset come out again', async () => {
    const chunks = firstPassages(await chunksFor(dec, tokJson, split.heldOut, dec.config.maxLen - 1));
    expect(chunks.length).toBe(25);
    const got = decoderFigures(dec, chunks, dec.specialTokens.bos);
    const want = report.decoderSubset;
    expect(got.tokens).toBe(want.tokens);
    expect(got.bytes).toBe(want.bytes);
    expect(got.bitsPerByte).toBeCloseTo(want.bitsPerByte, 6);
    expect(got.top1).toBeCloseTo(want.top1, 6);
    expect(got.top5).toBeCloseTo(want.top5, 6);
  });
});

// The masked LM (web/models/english-mlm.safetensors): an encoder of the decoder's sizes and tokenizer,
// trained from scratch on the same split to fill in hidden tokens. Its recorded figures (15 % of each held-out
// passage hidden, seeded) come out again on the first passage of each sample, above the unigram's.
describe('the English masked LM', () => {
  let mlm;
  beforeAll(async () => {
    mlm = await ap.openModel(bytesOf('english-mlm'));
  }, 120_000);

  test("it is the file that was measured, made by the recorded command, with the decoder's tokenizer", async () => {
    const bytes = bytesOf('english-mlm');
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(report.files['english-mlm'].sha256);
    expect(bytes.length).toBeLessThanOrEqual(3 * 1024 * 1024);
    expect(mlm.config).toMatchObject({
      arch: 'encoder',
      maxLen: 64,
      dModel: 128,
      nLayers: 4,
      nHeads: 4,
      pos: 'relative',
    });
    expect(Array.from(mlm.vocab)).toEqual(Array.from(dec.vocab)); // one tokenizer for both
    const { RECIPES } = await import('../tools/lib/english-recipes.mjs');
    expect(mlm.metadata.train_command).toBe(
      `train ${RECIPES['english-mlm'][0]} --data build/english --out web/models/english-mlm.safetensors`,
    );
    expect(JSON.parse(mlm.metadata.split).heldOut).toEqual(split.heldOut.map((s) => s.id));
  });

  test('top-1 / top-5 on hidden held-out tokens come out again on the subset, above the unigram', async () => {
    const unigram = new Map();
    for (const c of await chunksFor(dec, tokJson, split.train, 255))
      for (const id of c.ids) unigram.set(id, (unigram.get(id) ?? 0) + 1);
    const chunks = firstPassages(await chunksFor(mlm, tokJson, split.heldOut, mlm.config.maxLen));
    expect(chunks.length).toBe(25);
    const got = mlmFigures(mlm, chunks, mlm.specialTokens.mask, { unigram });
    const want = report.mlmSubset;
    expect(got.masked).toBe(want.masked);
    expect(got.top1).toBeCloseTo(want.top1, 6);
    expect(got.top5).toBeCloseTo(want.top5, 6);
    expect(got.unigramTop1).toBeCloseTo(want.unigramTop1, 9);
    expect(report.mlm.top1).toBeGreaterThan(report.mlm.unigramTop1);
    expect(report.mlm.top5).toBeGreaterThan(report.mlm.unigramTop5);
  }, 240_000);
});

// docs/models.md compares the decoder with n-gram models trained on the same split and read the same
// way. Those baselines are retrained here, now, and the comparison checked as the page states it, on
// every held-out passage (the recorded figures): the decoder beats the unigram and the best n-gram,
// the Kneser-Ney 5-gram (issue 22's bar), by 0.004 bits per byte. On the 25 first passages alone
// (each sample read from its start) the 5-gram is still ahead, as docs/models.md says too.
describe('against n-gram baselines trained now on the same training split', () => {
  test('decoder < Kneser-Ney 5-gram < unigram in bits per byte on all 358 held-out passages, as recorded', async () => {
    const train = (await chunksFor(dec, tokJson, split.train, 255)).map((c) => c.ids);
    const held = await chunksFor(dec, tokJson, split.heldOut, 255);
    expect(held).toHaveLength(report.decoder.passages);
    const V = dec.config.vocabSize;
    const uni = trainUnigram(train, V);
    const kn5 = trainKneserNey(train, 5, V);
    const decoder = decoderFigures(dec, held, dec.specialTokens.bos);
    const all = {
      uni: bitsPerByte(uni, held).bitsPerByte,
      kn5: bitsPerByte(kn5, held).bitsPerByte,
      ours: decoder.bitsPerByte,
    };
    const recorded = (order) => report.baselines.find((b) => b.order === order);
    expect(all.uni).toBeCloseTo(recorded(1).bitsPerByte, 9);
    expect(all.kn5).toBeCloseTo(recorded(5).bitsPerByte, 9);
    expect(all.ours).toBeCloseTo(report.decoder.bitsPerByte, 5);
    expect(all.ours).toBeLessThan(all.kn5);
    expect(all.kn5).toBeLessThan(all.uni);
    for (const b of report.baselines)
      expect(report.decoder.bitsPerByte, `order ${b.order}`).toBeLessThan(b.bitsPerByte);
    // The first passage of each sample (the subset): the 5-gram is ahead there, as docs/models.md says.
    // (the decoder's bits of each passage were summed above: the subset's are those of its passages)
    const subset = firstPassages(held);
    const bitsOf = new Map(held.map((c, i) => [c, decoder.perChunk[i]]));
    const sub = {
      kn5: bitsPerByte(kn5, subset).bitsPerByte,
      ours: subset.reduce((a, c) => a + bitsOf.get(c), 0) / subset.reduce((a, c) => a + c.bytes, 0),
    };
    expect(sub.kn5).toBeCloseTo(recorded(5).subset.bitsPerByte, 9);
    expect(sub.ours).toBeCloseTo(report.decoderSubset.bitsPerByte, 5);
    expect(sub.ours).toBeGreaterThan(sub.kn5);
  }, 240_000);

  test('docs/models.md quotes the recorded figures', () => {
    const md = readFileSync(join(ROOT, 'docs/models.md'), 'utf8');
    const quoted = [report.decoder.bitsPerByte, ...report.baselines.map((b) => b.bitsPerByte)].map((x) => x.toFixed(3));
    for (const q of quoted) expect(md, q).toContain(q);
    expect(md).toContain(report.files.english.sha256);
    // ... and the masked LM's: its file, and top-1 / top-5 beside the unigram's, as percentages.
    expect(md).toContain(report.files['english-mlm'].sha256);
    const pct = (x) => `${(100 * x).toFixed(1)} %`;
    for (const k of ['top1', 'top5', 'unigramTop1', 'unigramTop5']) expect(md).toContain(pct(report.mlm[k]));
  });

  test("the README's paragraph on the English models quotes the recorded figures", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const para = readme.slice(readme.indexOf('Two read real English.'), readme.indexOf('The other seven:'));
    const best = report.baselines.reduce((a, b) => (b.bitsPerByte < a.bitsPerByte ? b : a));
    expect(para).toContain(`Held-out: ${report.decoder.bitsPerByte.toFixed(3)} bits per byte`);
    expect(para).toContain(`next-token top-1 ${(100 * report.decoder.top1).toFixed(1)} %`);
    expect(para).toContain(`Kneser-Ney ${best.order}-gram trained on the same split (${best.bitsPerByte.toFixed(3)})`);
    // "just ahead" is true only while the decoder's figure is below the best n-gram's.
    expect(para).toContain('just ahead of');
    expect(report.decoder.bitsPerByte).toBeLessThan(best.bitsPerByte);
    const pct = (x) => `${(100 * x).toFixed(1)} %`;
    expect(para).toContain(`top-1 ${pct(report.mlm.top1)} and top-5 ${pct(report.mlm.top5)}`);
    expect(para).toContain(`against ${pct(report.mlm.unigramTop1)} and ${pct(report.mlm.unigramTop5)} for the unigram`);
  });
});

// The heads view names each head of the English decoder from tests/fixtures/english/heads.json (and
// its page copy web/models/english.heads.json), measured on all 25 held-out samples with the
// corpus's tags. Recomputed here: the recorded heads' figures on the check subset, every recorded
// role from its own figures by the same thresholds, and the page copy from the record.
describe('head roles measured on held-out text', () => {
  const heads = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/english/heads.json'), 'utf8'));
  const page = JSON.parse(readFileSync(join(ROOT, 'web/models/english.heads.json'), 'utf8'));

  test('they were measured on this file', () => {
    expect(heads.models.decoder.sha256).toBe(report.files.english.sha256);
    expect(page.sha256).toBe(report.files.english.sha256);
  });

  test("at least four named heads' figures come out again on the check subset", async () => {
    const { analyseModel, passagesOf, tokenByteLengths } = await import('../tools/lib/head-roles.mjs');
    const { checks } = heads;
    const samples = split.heldOut.filter((s) => checks.samples.includes(s.id));
    // Two heads of each model: the decoder's passages leave room for <bos>, the masked LM's do not.
    const models = { decoder: dec, encoder: await ap.openModel(bytesOf('english-mlm')) };
    expect(checks.heads.length).toBeGreaterThanOrEqual(4);
    for (const [name, model] of Object.entries(models)) {
      const all = passagesOf(
        samples,
        (t) => model.tokenizer.encode(t).ids,
        model.config.maxLen - (name === 'decoder' ? 1 : 0),
        tokenByteLengths(tokJson),
      );
      const firsts = all.filter((p, i) => i === 0 || all[i - 1].sample !== p.sample);
      const got = analyseModel(model, firsts);
      expect(got.tokens, name).toBe(checks.tokens[name]);
      const mine = checks.heads.filter((h) => h.model === name);
      expect(mine.length, name).toBeGreaterThanOrEqual(2);
      for (const c of mine) {
        const r = got.heads.find((h) => h.layer === c.layer && h.head === c.head).relations[c.relation];
        const where = `${name} layer ${c.layer} head ${c.head} ${c.relation}`;
        expect(r.n, where).toBe(c.subset.n);
        expect(r.mass, where).toBeCloseTo(c.subset.mass, 3);
        expect(r.chance, where).toBeCloseTo(c.subset.chance, 3);
      }
    }
  }, 120_000);

  test('each recorded role follows from its figures, and the page copy says the same', async () => {
    const { chooseRole } = await import('../tools/lib/head-roles.mjs');
    for (const h of heads.models.decoder.heads) {
      const again = chooseRole(h.relations, heads.thresholds);
      expect(again.role, `layer ${h.layer} head ${h.head}`).toBe(h.role);
      const shown = page.heads.find((p) => p.layer === h.layer && p.head === h.head);
      expect(shown.label).toBe(h.label);
      expect(shown.evidence.map((e) => e.mass)).toEqual(h.evidence.map((e) => e.mass));
    }
    expect(page.tokens).toBe(heads.models.decoder.tokens);
  });
});

describe("the page's sentences about its default model", () => {
  test('chapter B says what the file is: 4 layers of 4 heads, 128 dimensions, 4,096 pieces, the Brown corpus', async () => {
    const { LESSONS } = await import('../../web/lib/lessons.js');
    const intro = LESSONS.B.intro.join(' ');
    const c = dec.config;
    expect(intro).toContain(
      `${c.nLayers} layers of ${c.nHeads} heads, ${c.dModel} dimensions, a vocabulary of ${c.vocabSize.toLocaleString('en-US')} pieces`,
    );
    expect(intro).toContain('Brown corpus');
    expect(dec.metadata.task).toBe('english');
    // Chapter E's "try this" says the model was trained pre-norm, as the file says.
    const tries = LESSONS.E.extras.block.map((x) => x.try).join(' ');
    expect(tries).toContain('trained pre-norm');
    expect(c.norm).toBe('pre');
    // Chapter C's "try this" asks about "a head measured as a punctuation head": there is one.
    const heads = JSON.parse(readFileSync(join(ROOT, 'web/models/english.heads.json'), 'utf8')).heads;
    expect(LESSONS.C.extras.heads[0].try).toContain('a head measured as a punctuation head');
    expect(heads.filter((h) => h.label === 'punctuation').length).toBeGreaterThan(0);
  });
});
