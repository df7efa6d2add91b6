// The lecture concepts of docs/concepts.md (sections A-H), each with a view, in the notes' order.
// Tag names are "ap-" + the concept id (ap-scores, ap-causal-mask...); the stepper is <ap-stepper>.

export const CHAPTERS = [
  { id: 'A', title: 'Why attention' },
  { id: 'B', title: 'Scaled dot-product attention' },
  { id: 'C', title: 'Multi-head attention' },
  { id: 'D', title: 'Order and positions' },
  { id: 'E', title: 'The transformer block' },
  { id: 'F', title: 'Encoders, decoders, masks' },
  { id: 'G', title: 'Cost and scale' },
  { id: 'H', title: 'Learning' },
];

export const CONCEPTS = [
  { id: 'rnn-chain', chapter: 'A', title: 'An RNN passes one state along' },
  { id: 'rnn-vanishing', chapter: 'A', title: 'Gradients fade over many steps' },
  { id: 'rnn-cost', chapter: 'A', title: 'RNN cost vs attention cost' },
  { id: 'birnn', chapter: 'A', title: 'A bidirectional RNN reads both ways' },
  { id: 'bahdanau', chapter: 'A', title: 'Additive (Bahdanau) attention' },
  { id: 'translation', chapter: 'A', title: 'Translation: attention learns an alignment' },
  { id: 'soft-lookup', chapter: 'A', title: 'Attention is a soft lookup' },
  { id: 'embed', chapter: 'B', title: 'Tokens become rows of X' },
  { id: 'context-embeddings', chapter: 'B', title: 'One word, two contexts: "bank"' },
  { id: 'qkv', chapter: 'B', title: 'Queries, keys and values' },
  { id: 'scores', chapter: 'B', title: 'Scores: every query against every key' },
  { id: 'scale', chapter: 'B', title: 'Why divide by √d_k' },
  { id: 'softmax', chapter: 'B', title: 'Softmax: rows become weights' },
  { id: 'weighted-sum', chapter: 'B', title: 'The weighted sum of values' },
  { id: 'general-form', chapter: 'B', title: 'The general form: e = g(q, k)' },
  { id: 'heads', chapter: 'C', title: 'Several heads, several patterns' },
  { id: 'reshape', chapter: 'C', title: 'Heads are a reshape' },
  { id: 'concat-wo', chapter: 'C', title: 'Concatenate heads, multiply by W_O' },
  { id: 'head-cost', chapter: 'C', title: 'h small heads cost about one big head' },
  { id: 'permutation', chapter: 'D', title: 'Without positions, order is invisible' },
  { id: 'sinusoidal', chapter: 'D', title: 'Sinusoidal positions' },
  { id: 'learned-pos', chapter: 'D', title: 'Learned positions' },
  { id: 'relative', chapter: 'D', title: 'Relative positions' },
  { id: 'rope', chapter: 'D', title: 'Rotary position embedding (RoPE)' },
  { id: 'residual', chapter: 'E', title: 'Residual connections' },
  { id: 'layernorm', chapter: 'E', title: 'Layer normalisation' },
  { id: 'ffn', chapter: 'E', title: 'The feed-forward network' },
  { id: 'block', chapter: 'E', title: 'The whole block, layer by layer' },
  { id: 'causal-mask', chapter: 'F', title: 'The causal mask' },
  { id: 'encoder-decoder', chapter: 'F', title: 'Encoder and decoder' },
  { id: 'shifted-right', chapter: 'F', title: 'Output shifted right: teacher forcing vs generation' },
  { id: 'cross-attention', chapter: 'F', title: 'Cross-attention' },
  { id: 'decoding', chapter: 'F', title: 'Generating one token at a time' },
  { id: 'sampling', chapter: 'F', title: 'Greedy, temperature, top-k, top-p' },
  { id: 'kv-cache', chapter: 'F', title: 'The KV cache' },
  { id: 'bert-gpt', chapter: 'F', title: 'BERT and GPT: encoder-only vs decoder-only' },
  { id: 'pretrain-finetune', chapter: 'F', title: 'Pre-train once, fine-tune cheaply' },
  { id: 'quadratic', chapter: 'G', title: 'n × n scores: quadratic time and memory' },
  { id: 'long-context', chapter: 'G', title: 'Attention without the n × n matrix' },
  { id: 'model-sizes', chapter: 'G', title: 'Where the parameters are' },
  { id: 'comparison', chapter: 'G', title: 'RNN, RNN + attention, Transformer' },
  { id: 'training', chapter: 'H', title: 'Watch a transformer learn' },
  { id: 'quiz', chapter: 'H', title: 'Questions from the notes' },
];

export function conceptById(id) {
  return CONCEPTS.find((c) => c.id === id) || null;
}
