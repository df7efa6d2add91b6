// The lecture concepts of docs/concepts.md (sections A-I), each with a view, in the notes' order:
// each chapter once, with its concepts (id: title). Chapter I, the parts of today's decoders that
// the 2017-era notes do not have, sits after F: it changes the block (E) and the KV cache (F). Tag names are "ap-" + the concept id
// (ap-scores, ap-causal-mask...); the stepper is <ap-stepper>. A few concepts go beyond the notes
// (tokens, induction) and sit in the chapter where a student needs them.
const PATH = [
  {
    id: 'A',
    title: 'Why attention',
    concepts: {
      'rnn-chain': 'An RNN passes one state along',
      'rnn-vanishing': 'Gradients fade over many steps',
      'rnn-cost': 'RNN cost vs attention cost',
      birnn: 'A bidirectional RNN reads both ways',
      bahdanau: 'Additive (Bahdanau) attention',
      translation: 'Translation: attention learns an alignment',
      'soft-lookup': 'Attention is a soft lookup',
    },
  },
  {
    id: 'B',
    title: 'Scaled dot-product attention',
    concepts: {
      tokens: 'Text becomes tokens: subword pieces',
      embed: 'Tokens become rows of X',
      'context-embeddings': 'One word, two contexts: "bank"',
      qkv: 'Queries, keys and values',
      scores: 'Scores: every query against every key',
      scale: 'Why divide by √d_k',
      softmax: 'Softmax: rows become weights',
      'weighted-sum': 'The weighted sum of values',
      'general-form': 'The general form: e = g(q, k)',
    },
  },
  {
    id: 'C',
    title: 'Multi-head attention',
    concepts: {
      heads: 'Several heads, several patterns',
      induction: 'Induction heads: two heads that copy',
      reshape: 'Heads are a reshape',
      'concat-wo': 'Concatenate heads, multiply by W_O',
      'head-cost': 'h small heads cost about one big head',
    },
  },
  {
    id: 'D',
    title: 'Order and positions',
    concepts: {
      permutation: 'Without positions, order is invisible',
      sinusoidal: 'Sinusoidal positions',
      'learned-pos': 'Learned positions',
      relative: 'Relative positions',
      rope: 'Rotary position embedding (RoPE)',
    },
  },
  {
    id: 'E',
    title: 'The transformer block',
    concepts: {
      residual: 'Residual connections',
      layernorm: 'Layer normalisation',
      ffn: 'The feed-forward network',
      block: 'The whole block, layer by layer',
    },
  },
  {
    id: 'F',
    title: 'Encoders, decoders, masks',
    concepts: {
      'causal-mask': 'The causal mask',
      'encoder-decoder': 'Encoder and decoder',
      'shifted-right': 'Output shifted right: teacher forcing vs generation',
      'cross-attention': 'Cross-attention',
      decoding: 'Generating one token at a time',
      sampling: 'Greedy, temperature, top-k, top-p',
      'kv-cache': 'The KV cache',
      'bert-gpt': 'BERT and GPT: encoder-only vs decoder-only',
      'pretrain-finetune': 'Pre-train once, fine-tune cheaply',
    },
  },
  {
    id: 'I',
    title: 'After the notes: what changed since 2017',
    concepts: {
      rmsnorm: 'RMSNorm: normalise without the mean',
      swiglu: 'SwiGLU: a feed-forward network with a gate',
      gqa: 'Grouped-query attention: heads share keys and values',
      'sliding-window': 'Sliding-window attention: each token sees the last w',
    },
  },
  {
    id: 'G',
    title: 'Cost and scale',
    concepts: {
      quadratic: 'n × n scores: quadratic time and memory',
      'long-context': 'Attention without the n × n matrix',
      'model-sizes': 'Where the parameters are',
      comparison: 'RNN, RNN + attention, Transformer',
    },
  },
  {
    id: 'H',
    title: 'Learning',
    concepts: {
      training: 'Watch a transformer learn',
      quiz: 'Questions from the notes',
    },
  },
];

/** The chapters: [{ id, title }]. */
export const CHAPTERS = PATH.map(({ id, title }) => ({ id, title }));

/** Every concept, in order: [{ id, chapter, title }]. */
export const CONCEPTS = PATH.flatMap((c) =>
  Object.entries(c.concepts).map(([id, title]) => ({ id, chapter: c.id, title })),
);

export function conceptById(id) {
  return CONCEPTS.find((c) => c.id === id) || null;
}
