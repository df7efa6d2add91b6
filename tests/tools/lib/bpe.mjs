// Trains a byte-level BPE tokenizer (the GPT-2 scheme: the text is split by GPT-2's pattern,
// each piece's UTF-8 bytes are written as printable characters, and the most frequent adjacent
// pair is merged, again and again) and writes it as a Hugging Face tokenizer.json in the layout
// the core reads (cpp/io/hf_tokenizer) and Hugging Face's `tokenizers` reads. All 256 bytes are
// in the vocabulary, so every string has tokens and none is unknown. Ties between pairs of equal
// count go to the pair whose merged string sorts first, so the result depends on the text only.
// Ids: 0 <pad> (never produced from text by the models; the trainer's padding), 1 <|endoftext|>
// (the decoder's <bos> and <eos>, as in GPT-2), 2 [MASK] (the masked LM's), then the 256 bytes,
// then the merges in the order they were learned.

// GPT-2's split (the pattern in its encoder.py).
const SPLIT = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

// GPT-2's bytes_to_unicode: printable bytes stand for themselves, the rest map to 256 + i.
export function byteChars() {
  const keep = [];
  for (let b = 33; b <= 126; b++) keep.push(b);
  for (let b = 161; b <= 172; b++) keep.push(b);
  for (let b = 174; b <= 255; b++) keep.push(b);
  const map = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; b++)
    map[b] = keep.includes(b) ? String.fromCodePoint(b) : String.fromCodePoint(256 + extra++);
  return map;
}

export const SPECIALS = ['<pad>', '<|endoftext|>', '[MASK]'];

/**
 * texts: strings to learn from. vocabSize: total tokens (3 specials + 256 bytes + merges).
 * Returns { json, merges } (json: the tokenizer.json object).
 */
export function trainBpe(texts, vocabSize) {
  const chars = byteChars();
  const enc = new TextEncoder();
  const counts = new Map();
  for (const t of texts) for (const m of t.matchAll(SPLIT)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  // Each distinct piece as an array of symbols, with its count.
  const words = [];
  for (const [piece, n] of counts) words.push({ syms: Array.from(enc.encode(piece), (b) => chars[b]), n });
  const pairCount = new Map(); // "a\u0000b" -> count
  const pairWords = new Map(); // "a\u0000b" -> Set of word indices
  const key = (a, b) => a + '\u0000' + b;
  const addWord = (wi, sign) => {
    const { syms, n } = words[wi];
    for (let i = 0; i + 1 < syms.length; i++) {
      const k = key(syms[i], syms[i + 1]);
      pairCount.set(k, (pairCount.get(k) ?? 0) + sign * n);
      if (sign > 0) {
        if (!pairWords.has(k)) pairWords.set(k, new Set());
        pairWords.get(k).add(wi);
      }
    }
  };
  words.forEach((_, wi) => addWord(wi, 1));
  const merges = [];
  const nMerges = vocabSize - 256 - SPECIALS.length;
  while (merges.length < nMerges) {
    let best = null;
    let bestN = 0;
    let bestStr = '';
    for (const [k, n] of pairCount) {
      if (n < bestN || n <= 0) continue;
      const s = k.replace('\u0000', '');
      if (n > bestN || s < bestStr) [best, bestN, bestStr] = [k, n, s];
    }
    if (!best || bestN < 2) break;
    const [a, b] = best.split('\u0000');
    merges.push([a, b]);
    for (const wi of pairWords.get(best)) {
      const w = words[wi];
      addWord(wi, -1);
      const out = [];
      for (let i = 0; i < w.syms.length; i++) {
        if (i + 1 < w.syms.length && w.syms[i] === a && w.syms[i + 1] === b) {
          out.push(a + b);
          i++;
        } else out.push(w.syms[i]);
      }
      w.syms = out;
      addWord(wi, 1);
    }
    pairCount.delete(best);
    pairWords.delete(best);
  }
  const vocab = {};
  let id = 0;
  for (const s of SPECIALS) vocab[s] = id++;
  for (const c of [...chars].sort()) vocab[c] = id++;
  for (const [a, b] of merges) {
    if (a + b in vocab) throw new Error(`BPE: the merge ${a} + ${b} gives a token that is already in the vocabulary`);
    vocab[a + b] = id++;
  }
  const byteLevel = { add_prefix_space: false, trim_offsets: true, use_regex: true };
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map((content, i) => ({
      id: i,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: null,
    pre_tokenizer: { type: 'ByteLevel', ...byteLevel },
    post_processor: { type: 'ByteLevel', ...byteLevel },
    decoder: { type: 'ByteLevel', ...byteLevel },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges,
    },
  };
  return { json, merges };
}
