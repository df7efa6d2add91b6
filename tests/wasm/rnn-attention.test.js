// The shipped RNN encoder-decoder with additive attention (web/models/translate-rnn.safetensors),
// loaded through the real wasm module: the notes' sentence (004) translated exactly, the notes'
// three alignments ("zone" -> "Area", "1992" -> "1992", "signé" -> "signed"), one score row
// recomputed by hand from the recorded stages, the bidirectional encoder's property, and bad
// files as Errors that leave the module usable.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { load } from '../../wasm/index.js';
import { NOTES_EN, NOTES_FR } from '../web/lib/models.js';

const dir = fileURLToPath(new URL('../../web/models/', import.meta.url));

let ap, model, bytes;
beforeAll(async () => {
  ap = await load();
  bytes = readFileSync(`${dir}translate-rnn.safetensors`);
  model = ap.loadRnnAttention(bytes);
});

/** The source piece each output word attends to most, and that weight. */
function alignment(trace) {
  const [, T, S] = trace.shape('add_weights');
  const w = trace.get('add_weights');
  const out = {};
  for (let t = 0; t < T; t++) {
    let best = 0;
    for (let j = 1; j < S; j++) if (w[t * S + j] > w[t * S + best]) best = j;
    out[trace.output[t]] = { word: trace.tokens[best], weight: w[t * S + best], row: t };
  }
  return out;
}

describe('translate-rnn.safetensors', () => {
  test('is at most 500 KB, an rnn-attention model trained on the translate task', () => {
    expect(bytes.length).toBeLessThanOrEqual(500 * 1024);
    expect(model.config.arch).toBe('rnn-attention');
    expect(model.config.dAtt).toBe(32);
    expect(model.config.dEnc).toBe(32);
    expect(model.metadata.task).toBe('translate');
    expect(model.vocab.slice(0, 4)).toEqual(['<pad>', '<unk>', '<bos>', '<eos>']);
  });

  test("its tokenizer is a model's: the core's special ids and pieces, encode and decode", () => {
    // The vocabulary the file carries names the specials; the ids come from the core.
    expect(model.specialTokens).toEqual({
      kind: 'sentence',
      size: model.vocab.length,
      pad: model.vocab.indexOf('<pad>'),
      unk: model.vocab.indexOf('<unk>'),
      bos: model.vocab.indexOf('<bos>'),
      eos: model.vocab.indexOf('<eos>'),
      mask: -1,
    });
    expect(model.pieces).toEqual(model.vocab); // a sentence-level tokenizer shows its words as they are
    const e = model.tokenizer.encode('the agreement');
    expect(e.pieces).toEqual(['the', 'agreement']);
    expect(model.tokenizer.decode([model.specialTokens.bos, ...e.ids, model.specialTokens.eos])).toBe('The agreement');
  });

  test("greedy decoding translates the notes' sentence exactly", () => {
    const tr = model.translate(NOTES_EN);
    try {
      expect(tr.text).toBe(NOTES_FR);
      expect(tr.output[tr.output.length - 1]).toBe('<eos>');
    } finally {
      tr.dispose();
    }
  });

  test('"zone" attends most to "Area", "1992" to "1992", "signé" to "signed" (notes 004)', () => {
    const tr = model.translate(NOTES_EN);
    try {
      const a = alignment(tr);
      console.log(
        'alignment:',
        JSON.stringify(Object.fromEntries(Object.entries(a).map(([k, v]) => [k, `${v.word} ${v.weight.toFixed(3)}`]))),
      );
      expect(a.zone.word).toBe('area'); // the word tokenizer lower-cases the source
      expect(a['1992'].word).toBe('1992');
      expect(a['signé'].word).toBe('signed');
      // And the weight is a clear majority, not a narrow win.
      for (const w of ['zone', '1992', 'signé']) expect(a[w].weight).toBeGreaterThan(0.5);
    } finally {
      tr.dispose();
    }
  });

  test('the "zone" row of e_tj, alpha_tj and C_t recomputed by hand from the recorded stages', () => {
    const tr = model.translate(NOTES_EN);
    try {
      const t = tr.output.indexOf('zone');
      const [S, A] = tr.shape('add_h');
      const D = tr.shape('enc_h')[1],
        Ds = tr.shape('add_ws')[0];
      const s = tr.get('dec_s'),
        Ws = tr.get('add_ws'),
        wh = tr.get('add_h'),
        v = tr.get('add_v');
      const ws = tr.get('add_s'),
        e = tr.get('add_scores'),
        alpha = tr.get('add_weights'),
        C = tr.get('add_context'),
        h = tr.get('enc_h');
      for (let c = 0; c < A; c++) {
        // (W_s s_{t-1})_c from s_{t-1} = dec_s row t
        let sum = 0;
        for (let k = 0; k < Ds; k++) sum += s[t * Ds + k] * Ws[k * A + c];
        expect(ws[t * A + c]).toBeCloseTo(sum, 4);
      }
      const mine = [];
      for (let j = 0; j < S; j++) {
        let ej = 0;
        for (let c = 0; c < A; c++) ej += v[c] * Math.tanh(ws[t * A + c] + wh[j * A + c]);
        mine.push(ej);
        expect(e[t * S + j]).toBeCloseTo(ej, 4);
      }
      const mx = Math.max(...mine);
      const z = mine.reduce((acc, x) => acc + Math.exp(x - mx), 0);
      for (let j = 0; j < S; j++) expect(alpha[t * S + j]).toBeCloseTo(Math.exp(mine[j] - mx) / z, 5);
      for (let c = 0; c < D; c++) {
        let sum = 0;
        for (let j = 0; j < S; j++) sum += alpha[t * S + j] * h[j * D + c];
        expect(C[t * D + c]).toBeCloseTo(sum, 4);
      }
    } finally {
      tr.dispose();
    }
  });

  test('teacher forcing on the right translation reads <bos> + the French words and predicts each next one', () => {
    const tr = model.translate(NOTES_EN, { target: NOTES_FR });
    try {
      const words = model.tokenizer.encode(NOTES_FR).pieces;
      expect(tr.output).toEqual([...words, '<eos>']);
      expect(Array.from(tr.get('dec_tokens'), (x) => model.vocab[x])).toEqual(['<bos>', ...words]);
    } finally {
      tr.dispose();
    }
  });

  test('the encoder: a later word changes the earlier states only in their backward half', () => {
    const a = model.encode('The treaty on the European Economic Area was signed in August 1992.');
    const b = model.encode('The treaty on the European Economic Area was ratified in August 1992.');
    try {
      const H = a.shape('enc_fwd')[1];
      const changed = a.tokens.indexOf('signed');
      expect(b.tokens[changed]).toBe('ratified');
      const fa = a.get('enc_fwd'),
        fb = b.get('enc_fwd'),
        ba = a.get('enc_bwd'),
        bb = b.get('enc_bwd');
      for (let j = 0; j < changed; j++) {
        let df = 0,
          db = 0;
        for (let c = 0; c < H; c++) {
          df += Math.abs(fa[j * H + c] - fb[j * H + c]);
          db += Math.abs(ba[j * H + c] - bb[j * H + c]);
        }
        expect(df).toBe(0);
        expect(db).toBeGreaterThan(0);
      }
      // h_j is [forward ; backward]
      const h = a.get('enc_h');
      expect(h.slice(0, H)).toEqual(fa.slice(0, H));
      expect(h.slice(H, 2 * H)).toEqual(ba.slice(0, H));
    } finally {
      a.dispose();
      b.dispose();
    }
  });

  test('words outside the vocabulary are read as <unk> and reported', () => {
    const tr = model.translate('The agreement on the European zorblax Area was signed in August 1992.');
    try {
      expect(tr.unknown).toEqual([5]);
      expect(typeof tr.text).toBe('string');
    } finally {
      tr.dispose();
    }
  });
});

describe('bad input', () => {
  test('a bad file is an Error naming the problem, and the module stays usable', () => {
    expect(() => ap.loadRnnAttention(new Uint8Array([1, 2, 3, 4]))).toThrow(/loadRnnAttention: .+/);
    expect(() => ap.loadRnnAttention(bytes.subarray(0, bytes.length - 1000))).toThrow(/loadRnnAttention: .+/);
    expect(() => ap.loadRnnAttention(readFileSync(`${dir}dates.safetensors`))).toThrow(/rnn-attention/);
    expect(() => ap.loadRnnAttention(new Uint8Array(0))).toThrow(/too short \(0 bytes/);
    expect(() => model.translate('')).toThrow(/nothing to translate/);
    const tr = model.translate(NOTES_EN);
    expect(tr.text).toBe(NOTES_FR);
    tr.dispose();
  });

  test('many translations leave the heap where it was', () => {
    const warm = model.translate(NOTES_EN);
    warm.dispose();
    const before = ap.heapUsed();
    for (let i = 0; i < 30; i++) model.translate(NOTES_EN).dispose();
    expect(ap.heapUsed()).toBe(before);
  });
});
