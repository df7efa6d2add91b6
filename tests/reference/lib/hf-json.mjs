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
