// What each attention head of the English models does, measured on held-out Brown text with the
// corpus's own part-of-speech tags (tests/tools/english-heads.mjs runs it on every held-out sample and
// writes tests/fixtures/english/heads.json; a test can rerun analyseModel on a few passages).
//
// Tokens and words: a passage is cut as the models read it (tests/tools/lib/english-data.mjs: whole
// sentences joined by single spaces; a later sentence encoded with its leading space). Each BPE token
// covers a byte span of its sentence; it belongs to the Brown word its first non-space character falls
// in (a token of spaces only belongs to none). A word's tokens are contiguous.
//
// A relation is a set of (query position, key positions) pairs. Its figures for one head: the mean
// attention mass the query puts on the keys (summed), against the chance level, the mass uniform
// attention over the keys the query may see would put there (decoder: positions <= query, <bos>
// included; encoder: every position), averaged over the same queries. Word relations (noun to its
// determiner, ...) are read at the query word's LAST token, where the decoder has read the whole word,
// and count the mass on all of the key word's tokens. Chance says "more than uniform"; it does not say
// "more than this head's habit of looking one or two tokens back", and most determiners and adjectives
// sit right before their noun. So every relation also gets `positional`: the mass this head puts, on
// average over all passages, on the same (query position, key position) pairs whatever the tokens
// there (the head's mean attention map), and vsPosition = mass / positional. A content relation (a
// word, a token's identity, punctuation) only names a head when vsPosition says the head finds those
// keys, not just their positions. (On a few passages the mean map is mostly
// those passages' own weights, and vsPosition tends to 1: compare it on full runs only.)
//
// The tags (Brown): a tag is parsed to its first part (compound tags like ppss+md are a pronoun and a
// modal in one word: the first part says what the word is at its start), without the -tl / -hl / -nc
// suffixes and the fw- prefix, with $ (possessive, except pp$ pp$$ wp$ which are tags of their own)
// and * (negated) as flags.

/**
 * Naming thresholds (printed with the tables): mass and ratio to chance, queries, and for content
 * relations the lift over the head's own mean attention map (positions only).
 */
export const THRESHOLDS = {
  minMass: 0.3,
  minRatio: 2,
  minVsPosition: 1.5,
  minQueries: 30,
  leanMass: 0.1,
  leanRatio: 3,
  leanVsPosition: 2,
};

const NOUNS = new Set(['nn', 'nns', 'np', 'nps']);
const DETERMINERS = new Set(['at', 'dt', 'dti', 'dts', 'dtx', 'abn', 'abx']);
const ADJECTIVES = new Set(['jj', 'jjr', 'jjs', 'jjt']);
const SUBJECT_PRONOUNS = new Set(['pps', 'ppss']);
// Finite verbs whose tag says so: past and 3rd-singular lexical verbs, forms of be / do / have that are
// finite, modals. Brown's bare 'vb' is both the present tense and the infinitive; it counts only right
// after a noun or subject pronoun (the present tense), see finiteVerb().
const FINITE = new Set(['vbd', 'vbz', 'bed', 'bedz', 'bem', 'ber', 'bez', 'dod', 'doz', 'hvd', 'hvz', 'md']);
const BARE = new Set(['vb', 'do', 'hv']);
const LEXICAL_VERBS = new Set(['vb', 'vbd', 'vbz', 'vbg', 'vbn']);
// Words that may stand between a noun and its determiner inside one noun phrase ("the two big red
// barns", "a very old house", "the bank president"). A possessive noun closes the phrase.
const NP_INSIDE = new Set([
  'jj',
  'jjr',
  'jjs',
  'jjt',
  'nn',
  'nns',
  'np',
  'nps',
  'cd',
  'od',
  'ap',
  'ql',
  'vbn',
  'vbg',
  '``',
  "''",
]);

/** A Brown tag as { base, possessive, negated, compound } (see the top of the file). */
export function parseTag(tag) {
  const parts = String(tag).toLowerCase().split('+');
  let t = parts[0].replace(/^fw-/, '');
  while (/-(tl|hl|nc|n)$/.test(t) && t.length > 3) t = t.replace(/-(tl|hl|nc|n)$/, '');
  let negated = false;
  if (t.length > 1 && t.endsWith('*')) {
    negated = true;
    t = t.slice(0, -1);
  }
  let possessive = false;
  if (t.length > 1 && t.endsWith('$') && t !== 'pp$' && t !== 'pp$$' && t !== 'wp$') {
    possessive = true;
    t = t.slice(0, -1);
  }
  return { base: t, possessive, negated, compound: parts.length > 1 };
}

/** Punctuation tags are the punctuation itself (. , : ( ) -- `` '' '); '*' (not, n't) is a word. */
export function isPunctTag(base) {
  return base !== '*' && base !== '' && /^[^a-z0-9$]+$/.test(base);
}

/**
 * Relations measured: kind 'position' (defined by offsets alone) or 'content'; `models` says which
 * model they apply to ('encoder' relations look right, which a decoder cannot).
 */
export const RELATIONS = {
  prev: {
    kind: 'position',
    models: ['decoder', 'encoder'],
    label: 'previous token',
    about: 'token i -> i-1 (a text token, never <bos>)',
  },
  prev2: {
    kind: 'position',
    models: ['decoder', 'encoder'],
    label: 'two tokens back',
    about: 'token i -> i-2 (text tokens)',
  },
  self: { kind: 'position', models: ['decoder', 'encoder'], label: 'itself', about: 'token i -> i' },
  next: { kind: 'position', models: ['encoder'], label: 'next token', about: 'token i -> i+1' },
  first: {
    kind: 'position',
    models: ['decoder', 'encoder'],
    label: 'first position (sink)',
    about: 'token i >= 2 -> position 0 (<bos> for the decoder, the first token for the encoder)',
  },
  sameword: {
    kind: 'content',
    models: ['decoder', 'encoder'],
    label: 'the rest of its word',
    about: "a token of a word of several tokens -> the word's other tokens (decoder: the earlier ones)",
  },
  prevword: {
    kind: 'content',
    models: ['decoder', 'encoder'],
    label: 'previous word',
    about: "a word's last token -> every token of the word before it",
  },
  nextword: {
    kind: 'content',
    models: ['encoder'],
    label: 'next word',
    about: "a word's last token -> every token of the word after it",
  },
  sentstart: {
    kind: 'content',
    models: ['decoder', 'encoder'],
    label: 'start of its sentence',
    about:
      "token -> its sentence's first token, from at least 2 tokens later (not the passage's first sentence in " +
      'the encoder)',
  },
  sentend: {
    kind: 'content',
    models: ['decoder', 'encoder'],
    label: 'end of the sentence before',
    about: "token -> the last token of the sentence before its own (mostly its '.'), from at least 2 tokens later",
  },
  punct: {
    kind: 'content',
    models: ['decoder', 'encoder'],
    label: 'punctuation',
    about: 'token -> every punctuation token it may see (other than itself)',
  },
  dup: {
    kind: 'content',
    models: ['decoder', 'encoder'],
    label: 'other copies of the same token',
    about: 'token -> every other position with the same token id (decoder: earlier ones)',
  },
  induct: {
    kind: 'content',
    models: ['decoder'],
    label: 'token after an earlier copy (induction)',
    about: 'token at i with the same id at j < i - 1 -> position j + 1',
  },
  det: {
    kind: 'content',
    models: ['decoder', 'encoder'],
    label: 'noun -> its determiner',
    about:
      'noun (nn nns np nps) -> the determiner (at dt dti dts dtx abn abx) that opens its noun phrase (only ' +
      'adjectives, numbers, nouns, qualifiers, participles between)',
  },
  adj: {
    kind: 'content',
    models: ['decoder', 'encoder'],
    label: 'noun -> its adjectives',
    about: 'noun -> the adjective(s) (jj*) directly before it (a run, commas and "and" between them allowed)',
  },
  subj: {
    kind: 'content',
    models: ['decoder', 'encoder'],
    label: 'verb -> its subject (heuristic)',
    about:
      'finite verb -> the nearest noun or subject pronoun (pps ppss) to its left in its sentence: a heuristic ' +
      '(relative clauses and inversions fool it)',
  },
  prep: {
    kind: 'content',
    models: ['decoder', 'encoder'],
    label: 'noun -> its preposition',
    about: 'noun -> the preposition (in) right before its noun phrase',
  },
  objverb: {
    kind: 'content',
    models: ['decoder', 'encoder'],
    label: 'object -> its verb',
    about: 'noun -> the lexical verb (vb*) right before its noun phrase',
  },
  'det>noun': {
    kind: 'content',
    models: ['encoder'],
    label: 'determiner -> its noun',
    about: 'det, read backwards: determiner -> the nouns of its phrase',
  },
  'adj>noun': { kind: 'content', models: ['encoder'], label: 'adjective -> its noun', about: 'adj, read backwards' },
  'subj>verb': {
    kind: 'content',
    models: ['encoder'],
    label: 'subject -> its verb (heuristic)',
    about: 'subj, read backwards',
  },
  'prep>noun': {
    kind: 'content',
    models: ['encoder'],
    label: 'preposition -> its noun',
    about: 'prep, read backwards',
  },
  'verb>obj': { kind: 'content', models: ['encoder'], label: 'verb -> its object', about: 'objverb, read backwards' },
};

export function relationsFor(kind) {
  return Object.keys(RELATIONS).filter((r) => RELATIONS[r].models.includes(kind));
}

// ---------------------------------------------------------------------------------------------
// Passages: token ids with every token's word.

const utf8 = new TextEncoder();

// The tokenizer.json a model file carries, and the bytes each token stands for (english-data.mjs).
export { tokenizerJsonOf as tokenizerJsonOfFile, tokenByteLengths } from './english-data.mjs';

// UTF-16 index of every UTF-8 byte offset of s (a byte inside a character maps to that character).
function byteToUtf16(s) {
  const map = [];
  let i = 0;
  for (const ch of s) {
    const n = utf8.encode(ch).length;
    for (let b = 0; b < n; b++) map.push(i);
    i += ch.length;
  }
  map.push(i);
  return map;
}

// The word of each token of `ids`, the encoding of `text` (lead: text was encoded as ' ' + text).
function alignTokens(text, words, ids, tokenBytes, lead) {
  const enc = lead ? ' ' + text : text;
  const b2u = byteToUtf16(enc);
  const wordAt = new Int32Array(text.length).fill(-1);
  words.forEach((w, k) => wordAt.fill(k, w.start, w.end));
  const out = new Int32Array(ids.length).fill(-1);
  let byte = 0;
  for (let t = 0; t < ids.length; t++) {
    const nb = tokenBytes[ids[t]];
    if (!(nb > 0)) throw new Error(`token id ${ids[t]} has no byte length in the tokenizer`);
    const from = b2u[byte] - (lead ? 1 : 0);
    const to = b2u[Math.min(byte + nb, b2u.length - 1)] - (lead ? 1 : 0);
    for (let u = Math.max(from, 0); u < to; u++) {
      if (text[u] === ' ') continue;
      out[t] = wordAt[u];
      break;
    }
    byte += nb;
  }
  if (byte !== b2u.length - 1)
    throw new Error(`tokens of "${text.slice(0, 40)}..." cover ${byte} bytes, the text has ${b2u.length - 1}`);
  return out;
}

/**
 * The samples cut into passages exactly as tests/tools/lib/english-data.mjs's englishChunks does
 * (same ids), keeping each token's word. samples: brown.mjs samples; encode(text) -> ids (sync);
 * tokenBytes: tokenByteLengths(). Returns [{ sample, ids, words, tokWord, sentStart }]:
 * words[k] = { tag, base, possessive, sentence, first, last } (first/last: its token positions in the
 * passage, words cut by a passage boundary left out), tokWord[i] = word index or -1,
 * sentStart[s] = first token of the passage's s-th sentence (the first with a word).
 */
export function passagesOf(samples, encode, maxTokens, tokenBytes) {
  const out = [];
  for (const s of samples) {
    let cur = null;
    const flush = () => {
      if (cur && cur.parts.length) out.push(finish(s.id, cur.parts));
      cur = null;
    };
    for (const sentence of s.sentences) {
      if (cur) {
        const later = Array.from(encode(' ' + sentence.text));
        if (cur.n + later.length <= maxTokens) {
          cur.parts.push({ sentence, ids: later, lead: true, from: 0, to: later.length });
          cur.n += later.length;
          continue;
        }
        flush();
      }
      const alone = Array.from(encode(sentence.text));
      if (alone.length <= maxTokens) {
        cur = { parts: [{ sentence, ids: alone, lead: false, from: 0, to: alone.length }], n: alone.length };
      } else {
        // A sentence longer than a passage: whole tokens, as englishChunks cuts it.
        for (let i = 0; i < alone.length; i += maxTokens)
          out.push(
            finish(s.id, [{ sentence, ids: alone, lead: false, from: i, to: Math.min(i + maxTokens, alone.length) }]),
          );
      }
    }
    flush();
  }
  return out;

  function finish(sample, parts) {
    const ids = [];
    const words = [];
    const tokWord = [];
    const sentStart = [];
    parts.forEach((p, si) => {
      const align = alignTokens(p.sentence.text, p.sentence.words, p.ids, tokenBytes, p.lead);
      const base = ids.length - p.from;
      const span = new Map();
      for (let t = 0; t < p.ids.length; t++) {
        const k = align[t];
        if (k < 0) continue;
        if (!span.has(k)) span.set(k, [t, t]);
        span.get(k)[1] = t;
      }
      const index = new Map();
      p.sentence.words.forEach((w, k) => {
        const sp = span.get(k);
        // Left out: words without tokens of their own (a token starting at an earlier word covers
        // them) and words cut by the passage's edge.
        if (!sp || sp[0] < p.from || sp[1] >= p.to) return;
        index.set(k, words.length);
        words.push({
          ...parseTag(w.tag),
          tag: w.tag,
          word: w.word,
          sentence: si,
          first: base + sp[0],
          last: base + sp[1],
        });
      });
      let start = -1;
      for (let t = p.from; t < p.to; t++) {
        const w = align[t] >= 0 && index.has(align[t]) ? index.get(align[t]) : -1;
        if (start < 0 && w >= 0) start = base + t;
        tokWord.push(w);
        ids.push(p.ids[t]);
      }
      sentStart.push(start);
    });
    return { sample, ids, words, tokWord: Int32Array.from(tokWord), sentStart };
  }
}

// ---------------------------------------------------------------------------------------------
// Word relations inside one sentence (indices into passage.words; words of one sentence are contiguous).

function sentenceRanges(words) {
  const ranges = [];
  for (let k = 0; k < words.length; k++) {
    if (k === 0 || words[k].sentence !== words[k - 1].sentence) ranges.push([k, k]);
    ranges[ranges.length - 1][1] = k + 1;
  }
  return ranges;
}

// Noun k's determiner (stopAtDeterminer) or the word right before its whole noun phrase, or -1. The
// scan passes NP_INSIDE words (a proper noun's phrase holds only proper nouns: "every time Moritz"
// is two phrases); a possessive noun or a determiner or possessive pronoun opens the phrase, and
// for the word before the phrase the scan goes on through a possessive's own phrase ("of the
// team's plays" -> of).
function beforePhrase(words, lo, k, stopAtDeterminer) {
  const proper = words[k].base === 'np' || words[k].base === 'nps';
  let j = k - 1;
  while (j >= lo) {
    const w = words[j];
    if (w.compound) return -1;
    if (DETERMINERS.has(w.base) || w.base === 'pp$' || w.base === 'wp$')
      return stopAtDeterminer ? j : j - 1 >= lo ? j - 1 : -1;
    if (w.possessive) {
      if (stopAtDeterminer) return -1;
    } else if (!NP_INSIDE.has(w.base) || (proper && (w.base === 'nn' || w.base === 'nns'))) break;
    j--;
  }
  return stopAtDeterminer || j < lo ? -1 : j;
}

function finiteVerb(words, lo, k) {
  const w = words[k];
  if (FINITE.has(w.base)) return true;
  if (!BARE.has(w.base)) return false;
  // Bare vb / do / hv: present tense right after a noun or subject pronoun (adverbs between allowed).
  let j = k - 1;
  while (j >= lo && (words[j].base === 'rb' || words[j].base === '*')) j--;
  return j >= lo && !words[j].possessive && (NOUNS.has(words[j].base) || SUBJECT_PRONOUNS.has(words[j].base));
}

/** Word pairs [from, to] per word relation (indices into passage.words). */
export function wordPairs(words) {
  const pairs = { det: [], adj: [], subj: [], prep: [], objverb: [] };
  for (const [lo, hi] of sentenceRanges(words)) {
    for (let k = lo; k < hi; k++) {
      const w = words[k];
      if (NOUNS.has(w.base) && !w.compound) {
        const d = beforePhrase(words, lo, k, true);
        if (d >= 0 && DETERMINERS.has(words[d].base)) pairs.det.push([k, [d]]);
        const adjs = [];
        for (let j = k - 1; j >= lo; j--) {
          const b = words[j];
          if (ADJECTIVES.has(b.base) && !b.compound) adjs.push(j);
          else if (adjs.length && (b.base === ',' || b.base === 'cc') && j > lo && ADJECTIVES.has(words[j - 1].base))
            continue;
          else break;
        }
        if (adjs.length) pairs.adj.push([k, adjs]);
        // The word before the noun phrase: a preposition or a lexical verb governs it.
        const p = w.possessive ? -1 : beforePhrase(words, lo, k, false);
        if (p >= 0 && !words[p].compound) {
          if (words[p].base === 'in') pairs.prep.push([k, [p]]);
          else if (LEXICAL_VERBS.has(words[p].base)) pairs.objverb.push([k, [p]]);
        }
      }
      if (!w.compound && finiteVerb(words, lo, k)) {
        for (let j = k - 1; j >= lo; j--) {
          const b = words[j];
          if ((NOUNS.has(b.base) && !b.possessive) || SUBJECT_PRONOUNS.has(b.base)) {
            pairs.subj.push([k, [j]]);
            break;
          }
        }
      }
    }
  }
  return pairs;
}

// ---------------------------------------------------------------------------------------------
// Instances: (query position, key positions) per relation, in model positions (offset = 1 after <bos>).

/**
 * Every relation's instances in one passage: { rel: { q: number[], keys: number[][] } }.
 * causal: the decoder (keys <= query); offset: positions before the passage's first token (1 for <bos>).
 */
export function relationInstances(
  passage,
  { causal, offset },
  relations = relationsFor(causal ? 'decoder' : 'encoder'),
) {
  const n = passage.ids.length;
  const inst = Object.fromEntries(relations.map((r) => [r, { q: [], keys: [] }]));
  const add = (r, q, keys) => {
    if (!inst[r] || !keys.length) return;
    inst[r].q.push(q);
    inst[r].keys.push(keys);
  };
  const { ids, words, tokWord } = passage;
  const isPunct = Uint8Array.from(tokWord, (w) => (w >= 0 && isPunctTag(words[w].base) ? 1 : 0));
  const seen = new Map(); // token id -> positions so far
  const allOf = new Map(); // token id -> every position (encoder's dup)
  if (!causal) ids.forEach((id, t) => (allOf.get(id) ?? allOf.set(id, []).get(id)).push(t + offset));
  const sentOf = new Int32Array(n).fill(-1);
  passage.sentStart.forEach((s, si) => {
    if (s < 0) return;
    const end = passage.sentStart.slice(si + 1).find((x) => x >= 0) ?? n;
    sentOf.fill(s, s, end);
  });
  for (let t = 0; t < n; t++) {
    const q = t + offset;
    // Positional relations stay inside the text: never a <bos> key for prev / prev2, and 'first' from
    // position 2 on, so that no pair is counted under two of them.
    if (t >= 1) add('prev', q, [q - 1]);
    if (t >= 2) add('prev2', q, [q - 2]);
    add('self', q, [q]);
    if (t + 1 < n) add('next', q, [q + 1]);
    if (q >= 2) add('first', q, [0]);
    const s = sentOf[t];
    if (s >= 0 && t - s >= 2 && !(causal === false && s === 0)) add('sentstart', q, [s + offset]);
    if (s >= 1 && t - s >= 1) add('sentend', q, [s - 1 + offset]);
    const punct = [];
    const hi = causal ? t : n;
    for (let j = 0; j < hi; j++) if (j !== t && isPunct[j]) punct.push(j + offset);
    add('punct', q, punct);
    const id = ids[t];
    const earlier = seen.get(id) ?? [];
    if (causal) add('dup', q, earlier.slice());
    else
      add(
        'dup',
        q,
        allOf.get(id).filter((p) => p !== q),
      );
    if (causal)
      add(
        'induct',
        q,
        earlier.filter((p) => p + 1 < q).map((p) => p + 1),
      );
    if (!seen.has(id)) seen.set(id, []);
    seen.get(id).push(q);
  }
  const tokensOf = (ks) => ks.flatMap((k) => range(words[k].first + offset, words[k].last + offset));
  words.forEach((w, k) => {
    for (let t = w.first; t <= w.last; t++) {
      const others = range(w.first, causal ? t - 1 : w.last).filter((u) => u !== t);
      add(
        'sameword',
        t + offset,
        others.map((u) => u + offset),
      );
    }
    if (k > 0) add('prevword', w.last + offset, tokensOf([k - 1]));
    if (k + 1 < words.length) add('nextword', w.last + offset, tokensOf([k + 1]));
  });
  const pairs = wordPairs(words);
  for (const [rel, list] of Object.entries(pairs)) {
    const back = { det: 'det>noun', adj: 'adj>noun', subj: 'subj>verb', prep: 'prep>noun', objverb: 'verb>obj' }[rel];
    for (const [a, bs] of list) {
      add(rel, words[a].last + offset, tokensOf(bs));
      // Read backwards (encoder): from each key word to the query word.
      if (!causal) for (const b of bs) add(back, words[b].last + offset, tokensOf([a]));
    }
  }
  return inst;
}

function range(a, b) {
  const r = [];
  for (let i = a; i <= b; i++) r.push(i);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Accumulating a model's heads over passages.

/** An empty accumulator for a model of nLayers x nHeads heads and context maxLen. */
export function newAccumulator({ nLayers, nHeads, maxLen, causal, relations }) {
  const M = maxLen * maxLen;
  const head = () => ({
    // mass, chance, n; and the same with position 0 taken out of the row and the rest renormalised
    // (xMass, xChance, xN; instances whose keys include position 0 left out): where the attention goes
    // when it does not go to the sink, which a head can fill most of its rows with.
    rel: Object.fromEntries(relations.map((r) => [r, { mass: 0, chance: 0, n: 0, xMass: 0, xChance: 0, xN: 0 }])),
    // Summed weight at each (query, key) pair of positions: divided by acc.pairs, the head's mean
    // attention map, whatever the tokens. (Raw weights: a pointer-like head's map is exact whatever
    // the passage lengths; the decoder's rows have the same number of keys in every passage anyway.)
    at: new Float64Array(M),
    entropy: 0,
    entropyN: 0,
    distance: 0, // summed per row: mean |query - key| of the weight off position 0 (the sink)
    distanceN: 0,
  });
  return {
    nLayers,
    nHeads,
    maxLen,
    causal,
    relations,
    passages: 0,
    tokens: 0,
    pairs: new Float64Array(M), // passages that had each (query, key) pair (the same for every head)
    // Per relation, how often each (query, key) pair is one of its pairs: with the heads' `at`, the
    // mass a head's purely positional habit would put on the relation's keys.
    relAt: Object.fromEntries(relations.map((r) => [r, new Float64Array(M)])),
    heads: Array.from({ length: nLayers }, () => Array.from({ length: nHeads }, head)),
  };
}

/**
 * Adds one passage. weightsOf(layer) -> Float32Array (nHeads, N, N), the layer's attention weights
 * for the passage's N = ids + offset positions. inst: relationInstances() of the passage.
 */
export function accumulate(acc, inst, N, offset, weightsOf) {
  const { maxLen, causal, nHeads } = acc;
  const first = causal ? offset : 0; // first query row (the decoder's <bos> row is not a text token)
  const allowed = (q) => (causal ? q + 1 : N);
  acc.passages++;
  acc.tokens += N - offset;
  for (let q = first; q < N; q++) for (let k = 0, hi = causal ? q : N - 1; k <= hi; k++) acc.pairs[q * maxLen + k]++;
  for (const r of acc.relations) {
    const { q: qs, keys } = inst[r];
    const ra = acc.relAt[r];
    for (let i = 0; i < qs.length; i++) for (const k of keys[i]) ra[qs[i] * maxLen + k]++;
  }
  for (let layer = 0; layer < acc.nLayers; layer++) {
    const W = weightsOf(layer);
    for (let h = 0; h < nHeads; h++) {
      const H = acc.heads[layer][h];
      const base = h * N * N;
      for (let q = first; q < N; q++) {
        const row = base + q * N;
        const hi = causal ? q : N - 1;
        let ent = 0;
        let dist = 0;
        let off0 = 0;
        for (let k = 0; k <= hi; k++) {
          const w = W[row + k];
          H.at[q * maxLen + k] += w;
          if (w > 0) ent -= w * Math.log(w);
          if (k > 0) {
            dist += w * Math.abs(q - k);
            off0 += w;
          }
        }
        if (off0 > 1e-6) {
          H.distance += dist / off0;
          H.distanceN++;
        }
        if (hi >= 1) {
          H.entropy += ent / Math.log(hi + 1);
          H.entropyN++;
        }
      }
      for (const r of acc.relations) {
        const { q: qs, keys } = inst[r];
        const R = H.rel[r];
        for (let i = 0; i < qs.length; i++) {
          const q = qs[i];
          const row = base + q * N;
          let m = 0;
          let has0 = false;
          for (const k of keys[i]) {
            m += W[row + k];
            if (k === 0) has0 = true;
          }
          R.mass += m;
          R.chance += keys[i].length / allowed(q);
          R.n++;
          const rest = 1 - W[row];
          if (!has0 && allowed(q) > 1 && rest > 1e-3) {
            R.xMass += m / rest;
            R.xChance += keys[i].length / (allowed(q) - 1);
            R.xN++;
          }
        }
      }
    }
  }
}

/**
 * Per head: { layer, head, entropy (mean row entropy / log(keys it may see): 0 one key, 1 uniform),
 * distance (mean |query - key| of the weight not on position 0),
 * relations: { r: { mass, chance, ratio, positional, vsPosition, n, withoutSink: { mass, chance, n } } } }.
 */
export function summarise(acc) {
  const out = [];
  for (let layer = 0; layer < acc.nLayers; layer++)
    for (let head = 0; head < acc.nHeads; head++) {
      const H = acc.heads[layer][head];
      const relations = {};
      for (const r of acc.relations) {
        const R = H.rel[r];
        if (!R.n) continue;
        const ra = acc.relAt[r];
        let pos = 0;
        for (let i = 0; i < ra.length; i++) if (ra[i]) pos += (ra[i] * H.at[i]) / acc.pairs[i];
        const mass = R.mass / R.n;
        const chance = R.chance / R.n;
        const positional = pos / R.n;
        relations[r] = {
          mass: round(mass),
          chance: round(chance),
          ratio: round(mass / chance, 3),
          positional: round(positional),
          vsPosition: round(mass / positional, 3),
          n: R.n,
          withoutSink: R.xN
            ? { mass: round(R.xMass / R.xN), chance: round(R.xChance / R.xN), n: R.xN }
            : { mass: null, chance: null, n: 0 },
        };
      }
      const entropy = round(H.entropy / H.entropyN);
      out.push({ layer, head, entropy, distance: round(H.distance / H.distanceN, 2), relations });
    }
  return out;
}

const round = (x, d = 4) => (Number.isFinite(x) ? Number(x.toFixed(d)) : null);

/**
 * A head's role from its relations (see THRESHOLDS). Named: among the relations with mass >= minMass,
 * ratio >= minRatio, n >= minQueries and (content relations) vsPosition >= minVsPosition, the one
 * with the highest ratio; 'first' (the sink) only when nothing else qualifies, since a head parks
 * there what it does not spend elsewhere. A head without one may still lean somewhere: the same test
 * with leanMass, leanRatio and leanVsPosition (a smaller share, more clearly above chance and its
 * positions); that is reported as `leaning`, never as the head's role. Returns { role: relation |
 * null, label, leaning: relation | null, evidence: the top 2 (named or leaning first, then by tier
 * and ratio) }.
 */
export function chooseRole(relations, t = THRESHOLDS) {
  const passes = (r, f, mass, ratio, vs) =>
    f.n >= t.minQueries &&
    f.mass >= mass &&
    f.ratio >= ratio &&
    (RELATIONS[r].kind === 'position' || f.vsPosition >= vs);
  const rows = Object.entries(relations)
    .filter(([, f]) => f.n >= t.minQueries)
    .map(([r, f]) => ({
      relation: r,
      ...f,
      tier: passes(r, f, t.minMass, t.minRatio, t.minVsPosition)
        ? 2
        : passes(r, f, t.leanMass, t.leanRatio, t.leanVsPosition)
          ? 1
          : 0,
    }))
    .sort((a, b) => b.tier - a.tier || b.ratio - a.ratio);
  // The sink last within its tier.
  const best = (tier) => {
    const list = rows.filter((x) => x.tier === tier);
    return list.find((x) => x.relation !== 'first') ?? list[0] ?? null;
  };
  const named = best(2);
  const leaning = named ? null : best(1);
  const top = named ?? leaning;
  const evidence = [top, ...rows.filter((x) => x !== top)]
    .filter(Boolean)
    .slice(0, 2)
    .map(({ relation, mass, chance, ratio, vsPosition, n }) => ({ relation, mass, chance, ratio, vsPosition, n }));
  return {
    role: named ? named.relation : null,
    label: named ? RELATIONS[named.relation].label : 'no clear role',
    leaning: leaning ? leaning.relation : null,
    evidence,
  };
}

// ---------------------------------------------------------------------------------------------
// Running a model.

const KEEP_WEIGHTS = { layers: [], stages: ['weights'], drop: ['probs'] };

/**
 * Every head of `model` on `passages` (passagesOf with maxTokens = context - 1 for the decoder, the
 * context for the encoder). The decoder reads each passage after <bos>; the encoder the ids alone.
 * switches: forward()'s switches (tests may read a decoder bidirectionally). Returns
 * { kind, passages, tokens, heads: [{ layer, head, role, label, leaning, evidence, entropy, distance, relations }] }.
 */
export function analyseModel(model, passages, { switches = {}, thresholds = THRESHOLDS, onProgress } = {}) {
  const cfg = model.configFor(switches);
  const causal = cfg.arch === 'decoder' && cfg.causal;
  const kind = causal ? 'decoder' : 'encoder';
  const offset = cfg.arch === 'decoder' ? 1 : 0;
  const bos = model.specialTokens.bos;
  if (offset && bos < 0) throw new Error('the decoder has no <bos> token');
  const relations = relationsFor(kind);
  const acc = newAccumulator({ nLayers: cfg.nLayers, nHeads: cfg.nHeads, maxLen: cfg.maxLen, causal, relations });
  passages.forEach((p, i) => {
    const input = offset ? [bos, ...p.ids] : p.ids;
    if (input.length > cfg.maxLen)
      throw new Error(`passage ${i} has ${input.length} tokens, the context is ${cfg.maxLen}`);
    const inst = relationInstances(p, { causal, offset }, relations);
    const tr = model.forward(input, switches, KEEP_WEIGHTS);
    try {
      accumulate(acc, inst, input.length, offset, (layer) => tr.get('weights', { layer }));
    } finally {
      tr.dispose();
    }
    onProgress?.(i + 1, passages.length);
  });
  const heads = summarise(acc).map((h) => ({ ...h, ...chooseRole(h.relations, thresholds) }));
  return {
    kind,
    passages: acc.passages,
    tokens: acc.tokens,
    heads: heads.map(({ layer, head, role, label, leaning, evidence, entropy, distance, relations: rel }) => ({
      layer,
      head,
      role,
      label,
      leaning,
      evidence,
      entropy,
      distance,
      relations: rel,
    })),
  };
}

// A seeded generator in [0, 1) (mulberry32, the page's own: the induction sequences are the same everywhere).
import { rng as mulberry32 } from '../../../web/lib/random.js';
export { mulberry32 };

// log p(target) from one row of logits, in float64.
function logProb(z, target) {
  let max = -Infinity;
  for (let v = 0; v < z.length; v++) if (z[v] > max) max = z[v];
  let sum = 0;
  for (let v = 0; v < z.length; v++) sum += Math.exp(z[v] - max);
  return z[target] - max - Math.log(sum);
}

const KEEP_INDUCTION = { layers: [], stages: ['weights'], drop: ['probs'] };

/**
 * Induction on a decoder: `count` sequences of L token ids drawn uniformly from [minId, vocab),
 * read as <bos> A A (length 2L + 1). Per head, the mean weight from each position p of the second
 * copy to p - L + 1 (the token after the same token's first occurrence: "score"), to p - L (that first
 * occurrence: "dup") and to p - 1 ("prev"), with the chance level 1 / (p + 1). Loss: mean -log p
 * (nats) of copy-1 tokens 2..L (the first token of a copy has nothing to copy from) and of the
 * matching copy-2 tokens, which an induction mechanism can predict.
 */
export function inductionScores(model, { L = 50, count = 20, seed = 1, minId = 3 } = {}) {
  const cfg = model.config;
  const V = cfg.vocabSize;
  const bos = model.specialTokens.bos;
  const N = 2 * L + 1;
  if (N > cfg.maxLen) throw new Error(`2L + 1 = ${N} is longer than the context ${cfg.maxLen}`);
  const rand = mulberry32(seed);
  const heads = Array.from({ length: cfg.nLayers * cfg.nHeads }, (_, i) => ({
    layer: Math.floor(i / cfg.nHeads),
    head: i % cfg.nHeads,
    score: 0,
    dup: 0,
    prev: 0,
    chance: 0,
    n: 0,
  }));
  let loss1 = 0;
  let loss2 = 0;
  let nLoss = 0;
  for (let s = 0; s < count; s++) {
    const A = Array.from({ length: L }, () => minId + Math.floor(rand() * (V - minId)));
    const ids = [bos, ...A, ...A];
    const tr = model.forward(ids, {}, KEEP_INDUCTION);
    try {
      for (let layer = 0; layer < cfg.nLayers; layer++) {
        const W = tr.get('weights', { layer });
        for (let h = 0; h < cfg.nHeads; h++) {
          const H = heads[layer * cfg.nHeads + h];
          const base = h * N * N;
          for (let p = L + 1; p < N; p++) {
            H.score += W[base + p * N + p - L + 1];
            H.dup += W[base + p * N + p - L];
            H.prev += W[base + p * N + p - 1];
            H.chance += 1 / (p + 1);
            H.n++;
          }
        }
      }
      const logits = tr.get('logits');
      // Logits row i predicts position i + 1. Copy 1 is positions 1..L, copy 2 L+1..2L.
      for (let j = 2; j <= L; j++) {
        loss1 -= logProb(logits.subarray((j - 1) * V, j * V), ids[j]);
        loss2 -= logProb(logits.subarray((j + L - 1) * V, (j + L) * V), ids[j + L]);
        nLoss++;
      }
    } finally {
      tr.dispose();
    }
  }
  return {
    L,
    count,
    seed,
    minId,
    vocabSize: V,
    heads: heads.map((H) => ({
      layer: H.layer,
      head: H.head,
      score: round(H.score / H.n),
      chance: round(H.chance / H.n),
      dup: round(H.dup / H.n),
      prev: round(H.prev / H.n),
      n: H.n,
    })),
    loss: { copy1: round(loss1 / nLoss), copy2: round(loss2 / nLoss), tokens: nLoss },
  };
}
