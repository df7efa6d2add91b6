// What the scripts that write tokenizer.json fixtures share (make_hf_tokenizers.mjs,
// make_llama_tokenizers.mjs, make_llama_fuzz_seeds.mjs): a deterministic BPE trainer and the
// added-token entry of a tokenizer.json.

/**
 * A plain BPE trainer: the most frequent adjacent pair first, ties by the pair's strings
 * (deterministic, unlike HF's trainers, whose ties follow hash order). `words` maps a word (an array
 * of symbols) to its count; `join` makes the merged symbol. Returns the merges, in order, until
 * `room` new symbols.
 */
export function trainMerges(words, room, join = (a, b) => a + b) {
  const seqs = [...words.entries()].map(([w, n]) => ({ syms: [...w], n }));
  const merges = [];
  const made = new Set();
  while (merges.length < room) {
    const counts = new Map();
    for (const { syms, n } of seqs)
      for (let i = 0; i + 1 < syms.length; i++) {
        const k = syms[i] + '\u0000' + syms[i + 1];
        counts.set(k, (counts.get(k) ?? 0) + n);
      }
    let best = null;
    for (const [k, n] of counts) {
      if (made.has(join(...k.split('\u0000')))) continue;
      if (best === null || n > best[1] || (n === best[1] && k < best[0])) best = [k, n];
    }
    if (best === null) break;
    const [a, b] = best[0].split('\u0000');
    merges.push([a, b]);
    made.add(join(a, b));
    for (const s of seqs) {
      if (s.syms.length < 2) continue;
      const out = [];
      for (let i = 0; i < s.syms.length; i++)
        if (i + 1 < s.syms.length && s.syms[i] === a && s.syms[i + 1] === b) {
          out.push(join(a, b));
          i++;
        } else out.push(s.syms[i]);
      s.syms = out;
    }
  }
  return merges;
}

/** One entry of a tokenizer.json's added_tokens: not special unless `o` says so. */
export const addedToken = (id, content, o = {}) => ({
  id,
  content,
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special: false,
  ...o,
});

// ---- pieces of the Llama-family tokenizer.json files ----------------------------------------------

/** SentencePiece's word-start mark, ▁. */
export const SP = '\u2581';

/** Llama 2's normalizer (and the legacy Llama's): ▁ before the text, every space a ▁. */
export const SPM_NORMALIZER = {
  type: 'Sequence',
  normalizers: [
    { type: 'Prepend', prepend: SP },
    { type: 'Replace', pattern: { String: ' ' }, content: SP },
  ],
};

/** Llama 2's decoder: ▁ back to a space, byte pieces back to bytes, the first space dropped. */
export const SPM_DECODER = {
  type: 'Sequence',
  decoders: [
    { type: 'Replace', pattern: { String: SP }, content: ' ' },
    { type: 'ByteFallback' },
    { type: 'Fuse' },
    { type: 'Strip', content: ' ', start: 1, stop: 0 },
  ],
};

/** A SentencePiece BPE vocabulary's first 259 entries: <unk> <s> </s> and the 256 byte pieces <0x00>..<0xFF>. */
export function byteFallbackVocab() {
  const vocab = { '<unk>': 0, '<s>': 1, '</s>': 2 };
  for (let b = 0; b < 256; b++) vocab[`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`] = 3 + b;
  return vocab;
}

// The split patterns of Llama 3 and Qwen2 (digits: up to three at a time, or one).
export const LLAMA3_PATTERN =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
export const QWEN2_PATTERN = LLAMA3_PATTERN.replace('\\p{N}{1,3}', '\\p{N}');

// GPT-2's bytes_to_unicode: a printable byte stands for itself, the others for 256, 257, ... in byte order.
const printable = (b) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);

/** GPT-2's byte symbols, indexed by the byte. */
export function byteSymbols() {
  let n = 0;
  return Array.from({ length: 256 }, (_, b) => String.fromCodePoint(printable(b) ? b : 256 + n++));
}

/** GPT-2's byte symbols in the order of its ids 0..255: the printable bytes first, then the others. */
export function byteSymbolsInIdOrder() {
  const sym = byteSymbols();
  const bytes = Array.from({ length: 256 }, (_, b) => b);
  return [...bytes.filter(printable), ...bytes.filter((b) => !printable(b))].map((b) => sym[b]);
}
