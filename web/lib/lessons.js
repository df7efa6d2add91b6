// The learning path of the playground page: the course's learning goals (notes 000), and per
// chapter a short introduction in plain words, the goals it serves, "try this" prompts that
// change a view's state, and the notes' questions placed beside the concept they test.
// The concepts themselves (and their order) come from concepts.js; this file only adds the
// teaching around them, so a concept without an entry here still appears in its chapter.
import { storedItem, storeItem } from './storage.js';

/** The course's learning goals, as the notes state them (000), and the chapters that teach each. */
export const GOALS = [
  { id: 'rnn', text: 'Explain why RNNs struggle with long sequences.', chapters: ['A'] },
  { id: 'sdpa', text: 'Derive scaled dot-product attention from queries, keys, values.', chapters: ['B'] },
  { id: 'heads-pos', text: 'Explain multi-head attention and positional encodings.', chapters: ['C', 'D'] },
  { id: 'block', text: 'Assemble a transformer block (attention + FFN + residual + norm).', chapters: ['E'] },
  { id: 'enc-dec', text: 'Distinguish encoder from decoder (causal masking).', chapters: ['F'] },
];

/** The recap: the stepper through one whole forward pass, placed after chapter B. */
export const RECAP = {
  id: 'recap',
  after: 'B',
  title: 'Recap: one forward pass, step by step',
  intro: [
    'Everything chapter B built, in order, on the trained model and your sentence: tokens, embeddings, queries, keys, values, scores, scaling, the mask, softmax and the weighted sum. Press ▶ Play, the Next button or the arrow keys. Each step shows its formula with the shapes filled in, the matrices that go in and the one that comes out; click any cell of the output to see how it was computed.',
    'The pass continues past attention into heads, residuals, normalisation and the feed-forward network, which chapters C to E explain; come back here after chapter E to read it to the end.',
  ],
};

// The glossary of the notes (004, section 11), in its order and words; each term links to the view
// that shows it on numbers.
export const GLOSSARY = [
  {
    term: 'Attention Mechanism',
    concept: 'bahdanau',
    text: 'A technique that allows models to focus on relevant parts of the input when producing each part of the output',
  },
  {
    term: 'Query (Q)',
    concept: 'qkv',
    text: 'The representation of the current token that is “asking” for relevant information',
  },
  { term: 'Key (K)', concept: 'qkv', text: 'The representation used to determine relevance/matching with the query' },
  { term: 'Value (V)', concept: 'weighted-sum', text: 'The actual content retrieved based on attention weights' },
  {
    term: 'Multi-Head Attention',
    concept: 'heads',
    text: 'Running multiple attention operations in parallel with different projections',
  },
  {
    term: 'Positional Encoding',
    concept: 'sinusoidal',
    text: 'Added signal that provides position information to the model',
  },
  { term: 'Transformer', concept: 'block', text: 'Neural architecture using only attention (no recurrence)' },
  { term: 'Self-Attention', concept: 'scores', text: 'Attention where Q, K, V all come from the same sequence' },
  { term: 'Masked Attention', concept: 'causal-mask', text: 'Attention that prevents looking at future positions' },
  { term: 'BERT', concept: 'bert-gpt', text: 'Bidirectional Encoder Representations from Transformers' },
  { term: 'GPT', concept: 'bert-gpt', text: 'Generative Pre-trained Transformer' },
  { term: 'Residual Connection', concept: 'residual', text: 'Adding the input directly to the output of a layer' },
  {
    term: 'Layer Normalization',
    concept: 'layernorm',
    text: 'Normalizing activations across features for each sample',
  },
  { term: 'Context Vector', concept: 'bahdanau', text: 'Weighted combination of hidden states based on attention' },
  { term: 'Alignment Score', concept: 'scores', text: 'Raw similarity between query and key before softmax' },
];

// Chapter texts. `extras[concept]` lists what follows that concept's view:
//   { try: 'text', patch: { state } }  a button that changes the page's state (text, preset, switches)
//   { try: 'text', attrs: { name: value } }  a button that sets attributes of that concept's view
//     (value null: removes the attribute, the view's default again)
//   headRole: 'punct' (with either)  also moves the page to the layer and head measured in that role
//     (web/models/<model>.heads.json, measuredPlace below), where the prompt's question can be seen
//   { question: 'id' }  one of the notes' questions (<ap-quiz questions="id">), predict first, then reveal
export const LESSONS = {
  A: {
    goals: ['rnn'],
    intro: [
      'Before transformers, a sequence model read a sentence one word at a time and carried everything it knew in one state vector: hₜ = f(hₜ₋₁, xₜ). The notes name three problems with that at scale: it is sequential (step t waits for step t−1), what came long ago fades (vanishing gradients), and everything must squeeze through one fixed-size state.',
      'The fix the notes build up to: let each output look back at every input directly, with weights it computes from the words themselves. That is attention, first added to an RNN translator (Bahdanau et al.), then used on its own in the transformer.',
      'The translation views run two small English-to-French translators trained by this project on the notes\' "European Economic Area" sentence and its kin: an RNN encoder-decoder with additive attention and a transformer. Their alignments were learned, not drawn.',
    ],
    extras: {
      'rnn-chain': [
        {
          try: 'Step back to the first word: only h_1 exists, and every later state waits for the one before it (dashed). Step forward one word at a time to watch the chain fill in.',
          attrs: { t: '1' },
        },
        {
          try: "Back to the last word: its state is the only thing a plain RNN passes on. Attention's arcs reach every earlier word in one hop.",
          attrs: { t: null }, // no t: the view's default, the last word (whatever the text's length)
        },
      ],
      'rnn-vanishing': [
        {
          try: "Set the spectral radius ρ to 1.5: W_hh now stretches vectors, but tanh flattens as its inputs grow (its slope falls towards 0). Does the gradient from the first token grow or fade here? The line under the plot says which, from the core's numbers.",
          attrs: { radius: '1.5' },
        },
        { try: 'Back to ρ = 0.9.', attrs: { radius: '0.9' } },
      ],
      'rnn-cost': [
        {
          try: "Set n to 1024 tokens: attention's n² d now costs more multiply-adds than the RNN's n d², yet it is one parallel step instead of 1024 sequential ones.",
          attrs: { n: '1024' },
        },
      ],
      translation: [
        {
          try: 'Change the date: "The agreement on the European Economic Area was signed in March 2005." The French month and year move, and their rows of the alignment still find "march" and "2005".',
          attrs: { source: 'The agreement on the European Economic Area was signed in March 2005.' },
        },
      ],
      'soft-lookup': [
        {
          try: "Switch the score to additive (Bahdanau's g): the same lookup, another way to compare a query with a key.",
          attrs: { score: 'additive' },
        },
      ],
    },
  },
  B: {
    goals: ['sdpa'],
    intro: [
      'Each token becomes a row of a matrix X. Three learned matrices turn each row into a query ("what am I looking for?"), a key ("what do I offer?") and a value ("what I pass on if attended to"). A score is a query times a key; scores are divided by √d_k, each row goes through softmax to become weights that sum to 1, and each output row is the weights\' mix of value rows: Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V.',
      "Unless you pick another model below (the line under the picker says which one runs), the views run a small decoder trained by this project on real English, the Brown corpus (about a million words of American prose in 15 genres): 4 layers of 4 heads, 128 dimensions, a vocabulary of 4,096 pieces. Its weights were learned, not random, and any sentence you type works. Change the sentence at the top and every number recomputes; the notes' own worked examples are one click away.",
    ],
    extras: {
      tokens: [
        {
          try: 'An emoji and an accented word: "The café was full 😀". The emoji has no piece of its own, so it becomes its four UTF-8 bytes, F0 9F 98 80, one token each; é becomes two, C3 A9. Nothing is unknown, while the word tokenizer below writes <unk>.',
          patch: { text: 'The café was full 😀', preset: '' },
        },
        {
          try: 'Another script: "Привет, мир" (Russian for "hello, world"). The tokenizer learned no piece for Cyrillic from its English corpus, so every letter becomes its two bytes, two tokens.',
          patch: { text: 'Привет, мир', preset: '' },
        },
        {
          try: 'A long rare word: "the cat saw antidisestablishmentarianism". "cat" and "saw" are whole-word tokens; the rare word is cut into common pieces: ant·id·is·est·…',
          patch: { text: 'the cat saw antidisestablishmentarianism', preset: '' },
        },
        {
          try: 'The same word twice: "the cat saw the dog". The first "the" and the second, " the" with its space, are different tokens with different ids: the space belongs to the piece.',
          patch: { text: 'the cat saw the dog', preset: '' },
        },
      ],
      'context-embeddings': [
        {
          try: 'Follow "the" instead of "bank": even a word with one meaning gets a different vector in each sentence once attention has mixed in its neighbours.',
          attrs: { word: 'the' },
        },
      ],
      scores: [
        {
          try: 'Try a sentence with a pronoun, "The dog chased the cat because it was hungry.", and read the row of "it": which earlier pieces does it score highest, in this head and in the others?',
          patch: { text: 'The dog chased the cat because it was hungry.', preset: '' },
        },
      ],
      scale: [
        {
          try: "Open the notes' case: d_k = 512 with random queries and keys. Unscaled, softmax picks one key; scaled, the weights spread.",
          patch: { preset: 'scale.d512' },
        },
      ],
      softmax: [
        {
          // The question first, the answer in the view once asked for: the example opens on the
          // row of "sat" (row 2), whose weights answer it.
          try: 'In the notes\' "the cat sat" (000), which word does "sat" attend to most? Guess (or commit your guess in "Predict, then reveal" below), then open the example: the view shows the row of "sat", and its largest weight is the answer.',
          patch: { preset: 'softmax.the-cat-sat' },
          attrs: { row: '2' },
        },
        {
          try: 'Open "Clouds drift across blue sky" (004): the weights of "sky".',
          patch: { preset: 'softmax.clouds' },
          attrs: { row: null }, // the example's own row of interest ("sky"), not one an earlier prompt set
        },
        { question: 'thinking-machines' },
        { question: 'predict-cat-sat' },
      ],
      'weighted-sum': [
        {
          try: "Open the notes' z_cat = 0.1 v_the + 0.6 v_cat + 0.3 v_sat (000).",
          patch: { preset: 'weighted-sum.the-cat-sat' },
        },
        { try: 'Back to your sentence on the trained model.', patch: { preset: '' } },
        { question: 'predict-live' },
      ],
    },
  },
  C: {
    goals: ['heads-pos'],
    intro: [
      "One attention pattern relates words in one way only. Multi-head attention runs h smaller attentions side by side, each with its own W_Q, W_K and W_V of width d_k = d / h, concatenates their outputs and mixes them with W_O. Trained heads often specialise (in GPT-2, one looks at the previous word, another at the first token); under each head of this page's model, the heads view says what that head was measured to do on held-out text, or that it has no clear role.",
      'The notes also show that heads are just a reshape: (n, d) → (n, h, d/h) → (h, n, d/h), so the head axis works like a batch axis and h heads cost about as much as one.',
      'Beyond the notes: heads in different layers can work as a team. The induction view trains, in your browser, a model with two layers of attention and nothing else, and you watch two heads form together to copy text they have seen before.',
    ],
    extras: {
      heads: [
        {
          try: 'Each card names what its head was measured to do on average over the held-out Brown text, with the figure. Try a sentence with commas, "When the rain stopped, the children ran outside, laughing.": on the English model the view moves to the layer of a head measured as a punctuation head (the other models have no measured roles, and the view stays where it is). Does it weigh the commas of this one sentence? One sentence is a small sample; a role is an average over thousands of tokens.',
          patch: { text: 'When the rain stopped, the children ran outside, laughing.', preset: '' },
          headRole: 'punct',
        },
      ],
      induction: [
        {
          try: 'This button puts 3 in the seed box: press Reset with seed, then Train to the end. Does a head of layer 1 pass 0.5 this time? If none does, the sentence above the maps counts, row by row, which letters of the repeat each head finds, and the loss plot shows whether the repeat is predicted anyway.',
          attrs: { 'train-seed': '3' },
        },
      ],
      reshape: [{ question: 'dimensions' }],
      'head-cost': [
        {
          try: 'Use 16 heads: the multiply-adds stay the same; what grows is the number of score matrices kept.',
          attrs: { h: '16' },
        },
      ],
    },
  },
  D: {
    goals: ['heads-pos'],
    intro: [
      'Attention compares every pair of tokens wherever they are. Without positions, "the cat sat on the mat" and its shuffle give the same output rows, only reordered. So positions must be put in: added to the embeddings (the sinusoidal formula, or a learned table), or put into the comparison itself (relative positions, RoPE).',
    ],
    extras: {
      sinusoidal: [
        {
          try: "Open the notes' d_model = 4 example (004): PE(1, 0) = sin 1 = 0.84, PE(1, 1) = cos 1 = 0.54.",
          patch: { preset: 'sinusoidal.d4' },
        },
        { try: 'Back to your sentence on the trained model.', patch: { preset: '' } },
      ],
    },
  },
  E: {
    goals: ['block'],
    intro: [
      'A transformer layer wraps two sublayers, multi-head attention and a small feed-forward network (FFN), each in a residual connection x + Sublayer(x) followed by layer normalisation ("Add & Norm"). Attention mixes information between tokens; the FFN transforms each token on its own, with the nonlinearity attention lacks. Layers are stacked N times.',
      'The notes draw post-norm (normalise after adding), as in the original paper; many later models (GPT-2) normalise before each sublayer instead. When you have finished this chapter, go back to the recap and step through a whole layer.',
    ],
    extras: {
      block: [
        {
          try: "Switch to post-norm, the notes' drawing, and watch the diagram redraw. (This model was trained pre-norm, as GPT-2, so its numbers change too: it was never trained this way.)",
          patch: { norm: 'post', preset: '' },
        },
        { try: 'Back to pre-norm, as trained.', patch: { norm: '', preset: '' } },
      ],
    },
  },
  F: {
    goals: ['enc-dec'],
    intro: [
      "An encoder lets every token see every other: it reads the whole sentence at once (BERT). A decoder that generates text left to right must not see the future, so before softmax its scores above the diagonal are set to −∞ and their weights become 0 (GPT). An encoder-decoder (the original transformer, for translation) adds cross-attention: the decoder's queries read the encoder's keys and values.",
      'Generation then feeds each chosen token back in, one at a time; the KV cache keeps the keys and values already computed.',
    ],
    extras: {
      'causal-mask': [
        {
          try: 'Switch the mask off on this decoder: each word now sees the words after it. A model trained to predict the next word could then simply copy it, which is why training keeps the mask on.',
          patch: { causal: 'off', preset: '' },
        },
        { try: 'Switch it back on.', patch: { causal: '', preset: '' } },
        { question: 'predict-causal' },
      ],
    },
  },
  I: {
    goals: [],
    intro: [
      'The notes describe the transformer of 2017. The decoders people run today (Llama, Mistral, Gemma) keep its shape but change four parts: a cheaper norm, a feed-forward network with a gate, fewer keys and values to keep while generating, and attention over a window of recent tokens. Each view switches one part on in the core and says when the model was not trained with it.',
    ],
    extras: {
      rmsnorm: [
        {
          try: 'Switch every view of the page to RMSNorm (the model note at the top and the layer norm view say what that does to this LayerNorm-trained model), then open the recap and step to a norm: it now divides by one statistic.',
          patch: { normkind: 'rmsnorm', preset: '' },
        },
        { try: 'Back to LayerNorm, as trained.', patch: { normkind: '' } },
      ],
      swiglu: [
        {
          try: "Switch the gate to GeGLU (Gemma's): GELU instead of SiLU. Do more or fewer gate values fall below 0.1?",
          attrs: { 'ffn-kind': 'geglu' },
        },
      ],
      gqa: [
        {
          try: "One K/V head for all heads (multi-query attention): read the cache table, then compare the heads' patterns: do they still differ?",
          patch: { kvheads: 1, preset: '' },
        },
        { try: 'Back to one K/V head per head, as trained.', patch: { kvheads: '' } },
      ],
      'sliding-window': [
        {
          try: 'A window of 2 on a longer sentence, "the dog that the cat chased ran into the garden": each word sees only itself and the word before; does the weights map still find the subject?',
          patch: { window: 2, text: 'the dog that the cat chased ran into the garden', preset: '' },
        },
        { try: 'No window: back to the full causal mask.', patch: { window: 0 } },
      ],
    },
  },
  G: {
    goals: [],
    intro: [
      "Attention's strength is also its cost: every head of every layer computes an n × n matrix of scores, so time grows as n² d and memory as n². Here you measure it on this machine, see how long contexts avoid storing the matrix, and count where a model's parameters are.",
    ],
    extras: {
      comparison: [{ question: 'transformers-vs-rnns' }],
    },
  },
  H: {
    goals: [],
    intro: [
      "The attention weights are not learned: they are computed from the input every time. What is learned are W_Q, W_K, W_V (and the rest) by backpropagation. Train a tiny transformer in your browser and watch its attention patterns form, then answer the notes' questions once more.",
    ],
    extras: {},
  },
};

/**
 * The layer and head a "try this" with `headRole` moves to: the head of the measured roles (a
 * model's heads.json) with that role, the one with the most weight on it if several; null if none.
 */
export function measuredPlace(roles, role) {
  let best = null;
  for (const h of roles?.heads || []) {
    if (h.role !== role) continue;
    const mass = h.evidence?.[0]?.mass ?? 0;
    if (!best || mass > best.mass) best = { layer: h.layer, head: h.head, mass };
  }
  return best && { layer: best.layer, head: best.head };
}

/** The chapters of the path in order: the lesson chapters with the recap after chapter B. */
export function pathOrder(chapters) {
  const out = [];
  for (const ch of chapters) {
    out.push(ch.id);
    if (ch.id === RECAP.after) out.push(RECAP.id);
  }
  return out;
}

// ---- progress, kept in the browser ---------------------------------------------------------

const KEY = 'ap-progress';

/** { done: { [chapter]: true }, last: chapter, answers: { [question]: correct } } */
export function loadProgress() {
  try {
    const p = JSON.parse(storedItem(KEY) || '{}');
    return {
      done: p.done && typeof p.done === 'object' ? p.done : {},
      last: typeof p.last === 'string' ? p.last : '',
      answers: p.answers && typeof p.answers === 'object' ? p.answers : {},
    };
  } catch {
    return { done: {}, last: '', answers: {} }; // not JSON: a fresh start
  }
}

// Storage blocked or full (lib/storage.js): progress lives for this visit, and the page says so.
export function saveProgress(p) {
  storeItem(KEY, JSON.stringify(p));
}

/** Is a goal met: every chapter that teaches it marked done? */
/** The ids of the notes' questions a chapter asks (in its extras). */
export function questionsOf(chapter) {
  return Object.values(LESSONS[chapter]?.extras || {})
    .flat()
    .filter((x) => x.question)
    .map((x) => x.question);
}

/**
 * A course goal is met when each of its chapters is: a chapter that asks questions when every one
 * was answered correctly, a chapter without one when the student ticked "I have worked through
 * this chapter". Moving on with "next" ticks nothing.
 */
export function chapterMet(chapter, progress) {
  const qs = questionsOf(chapter);
  return qs.length ? qs.every((q) => progress.answers?.[q] === true) : !!progress.done[chapter];
}

export function goalMet(goal, progress) {
  return goal.chapters.every((c) => chapterMet(c, progress));
}
