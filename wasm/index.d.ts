// Types for the Attention Playground wasm module (hand-written: emscripten 3.1.6 makes none).
//
// Memory and lifetimes
// - Every array you pass in is copied into the wasm heap for the call and freed after it.
// - Every array you get back (Trace.get, Model.getTensor, Model.save, kernels.attention) is a
//   COPY that you own: it stays valid forever, whatever the module does next.
// - Trace.withView gives a zero-copy view over the wasm heap that is valid only inside its
//   callback: any later call may grow wasm memory, which detaches every earlier view (its
//   length becomes 0). Never keep a view past the callback.
// - Traces and models hold C++ memory until dispose(). Forgotten ones are freed when garbage
//   collected (FinalizationRegistry), but call dispose() in loops. Using a disposed object throws.
// - Every failure is a JS Error whose message names the problem; the module stays usable.

/** Loads the module once per page / process; later calls return the same instance. */
export function load(options?: Record<string, unknown>): Promise<AttentionPlayground>;

/**
 * Stage names (DESIGN.md), with shapes (n queries, m keys, d = dModel, h heads, dK = d / h):
 *   tokens (n, token ids; Int32Array from get), embed (n, d), pos (n, d; absent for none/rope),
 *   x (n, d) input to layer 0 = embed + pos,
 *   q, k, v (n|m, d), q_rot, k_rot (RoPE only),
 *   scores (h, n, m) = Q K^T per head, pos_bias (h, n, m; relative positions only),
 *   scaled (h, n, m) = scores / sqrt(dK) (+ pos_bias), masked (h, n, m) with -Infinity where masked,
 *   weights (h, n, m) softmax rows (a row whose keys are ALL masked is all zeros, by definition),
 *   head_out (h, n, dK), concat (n, d), attn_out (n, d),
 *   resid1, norm1 (n, d); cross_* the same for cross-attention (+ cross_resid, cross_norm),
 *   ffn_hidden, ffn_act (n, dFf), ffn_out (n, d), resid2, norm2 (n, d),
 *   <any norm>_stats (n, 2): per row [mean, sqrt(var + eps)] of that LayerNorm's input,
 *   final_norm (n, d; pre-norm only, layer null), logits, probs (n, V; stack '').
 * Pre-norm reorders a block: norm1 = LN(x), attention on norm1, resid1 = x + attn_out,
 * norm2 = LN(resid1), FFN on norm2, resid2 = resid1 + ffn_out (the block output).
 */
export type StageName = string;

export interface StageInfo {
  name: StageName;
  /** 'encoder' | 'decoder' for model traces; '' for ap.attention / presets and for logits, probs. */
  stack: string;
  /** Layer index, or null for stages outside the layers (tokens, embed, logits...). */
  layer: number | null;
  /** Always null: per-head stages are listed once with shape [h, n, m]; slice with { head }. */
  head: null;
  shape: number[];
}

export interface StageQuery {
  /** Default: the first layer that has the stage. */
  layer?: number;
  /** Slice one head of an (h, ...) stage; shape becomes the remaining two axes. */
  head?: number;
  /** Default: the model's main stack (decoder, or encoder for encoder-only models). */
  stack?: 'encoder' | 'decoder' | '';
}

export interface Trace {
  stages(): StageInfo[];
  shape(name: StageName, opts?: StageQuery): number[];
  /** A copy, row-major. 'tokens' is an Int32Array. */
  get(name: StageName, opts?: StageQuery): Float32Array;
  /** Zero-copy view valid only during fn. */
  withView<T>(name: StageName, opts: StageQuery, fn: (view: Float32Array) => T): T;
  /** Input pieces when the trace came from text ({src, tgt} for encoder-decoder). */
  readonly tokens: string[] | { src: string[] | null; tgt: string[] | null } | null;
  /** Positions of pieces not in the vocabulary (they were mapped to <unk>). */
  readonly unknown: number[] | { src: number[]; tgt: number[] };
  dispose(): void;
}

export interface AttentionOptions {
  /** n * dModel, row-major: row i is token i. */
  x: Float32Array | number[];
  /** dModel * dModel each, applied as x @ W. */
  wq: Float32Array | number[];
  wk: Float32Array | number[];
  wv: Float32Array | number[];
  wo: Float32Array | number[];
  /** Optional biases, dModel each. */
  bq?: Float32Array | number[];
  bk?: Float32Array | number[];
  bv?: Float32Array | number[];
  bo?: Float32Array | number[];
  n: number;
  dModel: number;
  nHeads?: number;
  causal?: boolean;
  /** Divide scores by sqrt(dK) (default true). */
  scale?: boolean;
  /** m * dModel: keys and values come from it (cross-attention). */
  memory?: Float32Array | number[];
  m?: number;
  /** m flags: true/1 masks that key for every query. */
  keyPadding?: ArrayLike<number | boolean>;
}

export interface ModelConfig {
  arch?: 'encoder' | 'decoder' | 'encoder-decoder';
  dModel?: number;
  nHeads?: number;
  nLayers?: number;
  dFf?: number;
  vocabSize?: number;
  maxLen?: number;
  pos?: 'none' | 'sinusoidal' | 'learned' | 'relative' | 'rope';
  relClip?: number;
  act?: 'relu' | 'gelu';
  norm?: 'post' | 'pre';
  eps?: number;
  scale?: boolean;
  causal?: boolean;
  tokenizer?: 'char' | 'word';
}

export interface CreateModelConfig extends ModelConfig {
  /** Vocabulary without the 4 specials (<pad> <unk> <bos> <eos> take ids 0..3). Char models default to printable ASCII. */
  vocab?: string[];
}

export interface Encoded {
  ids: Int32Array;
  pieces: string[];
  /** Positions whose piece is unknown (id 1, <unk>). */
  unknown: number[];
}

export interface Tokenizer {
  encode(text: string): Encoded;
  decode(ids: ArrayLike<number>): string;
  readonly vocab: string[];
}

export interface Model {
  readonly config: Required<ModelConfig>;
  /** Full vocabulary, specials first. */
  readonly vocab: string[];
  readonly tokenizer: Tokenizer;
  /** Decoder-only / encoder-only: ids or text. Encoder-decoder: { src, tgt }. */
  forward(input: string | ArrayLike<number> | { src: string | ArrayLike<number>; tgt: string | ArrayLike<number> }): Trace;
  /** Teaching switches that keep the weights. */
  configure(patch: Pick<ModelConfig, 'causal' | 'scale' | 'norm' | 'pos' | 'nHeads' | 'act' | 'eps'>): Model;
  tensors(): { name: string; shape: number[] }[];
  getTensor(name: string): Float32Array;
  setTensor(name: string, data: Float32Array | number[]): void;
  /** safetensors bytes with the config and vocabulary in the header metadata. */
  save(): Uint8Array;
  dispose(): void;
}

export interface PresetInfo {
  /** '<curriculum id>.<example>', e.g. 'softmax.the-cat-sat'. */
  id: string;
  /** CURRICULUM.md concept ids this preset demonstrates. */
  concepts: string[];
  /** Lecture file number ('000'..'004'). */
  source: string;
  title: string;
  /** What the notes state, in words. */
  claim: string;
  tokens: string[];
  dModel: number;
  nHeads: number;
  causal: boolean;
  scale: boolean;
  pos: 'none' | 'sinusoidal';
}

export interface Presets {
  list(): PresetInfo[];
  forConcept(concept: string): PresetInfo[];
  /** Inputs ready for ap.attention (x already excludes positions; add them for pos 'sinusoidal'). */
  get(id: string): PresetInfo & { n: number; x: Float32Array; wq: Float32Array; wk: Float32Array; wv: Float32Array; wo: Float32Array };
  /** embed, pos (if any), x, then every attention stage. */
  run(id: string): Trace;
}

export interface KernelAttentionOptions {
  /** n x nHeads*dK */
  q: Float32Array | number[];
  /** m x nHeads*dK */
  k: Float32Array | number[];
  v: Float32Array | number[];
  n: number;
  m?: number;
  dK: number;
  nHeads?: number;
  /** Causal with m != n: query i sees keys j <= i + (m - n) (the queries are the last n positions). */
  causal?: boolean;
  scale?: boolean;
  /** Go through the full n x m matrix instead of the online-softmax kernel (for comparisons). */
  full?: boolean;
}

export interface Kernels {
  info(): { variant: 'scalar' | 'simd128' | 'relaxed' };
  /** Attention output n x nHeads*dK, without a trace; memory O(n dK) unless full. */
  attention(opts: KernelAttentionOptions): Float32Array;
}

export interface AttentionPlayground {
  attention(opts: AttentionOptions): Trace;
  createModel(config: CreateModelConfig, weights?: { seed?: number; tensors?: Record<string, Float32Array | number[]> }): Model;
  loadModel(bytes: Uint8Array | ArrayBuffer): Model;
  readonly presets: Presets;
  readonly kernels: Kernels;
  /** Bytes currently allocated by the core's malloc (leak checks). */
  heapUsed(): number;
  /** Total wasm memory in bytes. */
  memoryBytes(): number;
}
