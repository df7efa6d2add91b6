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
// - Every failure is a JS Error whose message names the problem; the module stays usable. An
//   error the core raised reads "<call>: <the core's message>" (e.g. "forward: input is empty ...")
//   and carries the core's message alone as `coreMessage` (what a page shows its reader).

/**
 * Loads the module once per page / process; later calls return the same instance. It has no
 * trainer (kept small: it is what a page loads first); createTrainer() and evaluateTask() fetch
 * the trainer module on first use. options.relaxed = false keeps the SIMD128 kernels.
 * options.threads = n > 1, where threads are allowed (Node, or a cross-origin-isolated page; see
 * threadPlan), loads the threaded module instead (wasm/build/ap_mt: the whole API, the trainer
 * too, its products and attention on n threads, the same numbers bit for bit), once per page.
 */
export function load(options?: { relaxed?: boolean; threads?: number; [k: string]: unknown }): Promise<AttentionPlayground>;

/**
 * Loads the trainer module (wasm/build/ap_train.*) once: the same API with the trainer, in its
 * own memory. For a training Web Worker that needs nothing else; load()'s createTrainer() and
 * evaluateTask() use it behind the scenes (models cross between the two as safetensors bytes).
 * On a cross-origin-isolated page (and in Node with options.threads > 1) the threaded module
 * instead, on every core unless options.threads says fewer (threadPlan(options, { trainer: true })).
 */
export function loadTrainer(options?: { relaxed?: boolean; threads?: number; [k: string]: unknown }): Promise<AttentionPlayground>;

/**
 * How many threads a module loaded with these options would use (options.threads: a positive
 * integer, capped by the machine's cores) and why. Threads need shared memory: Node, or a page with
 * crossOriginIsolated === true (served with COOP/COEP headers); elsewhere one thread. Without
 * options.threads a cross-origin-isolated page uses every core for the trainer module
 * ({ trainer: true }) and one thread for everything else.
 */
export function threadPlan(
  options?: { threads?: number },
  which?: { trainer?: boolean },
): { threads: number; max: number; allowed: boolean; reason: string };

/**
 * Stage names (docs/design.md), with shapes (n queries, m keys, d = dModel, h heads, dK = d / h):
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
 *   with normKind 'rmsnorm': <any norm>_rms (n, 1) = sqrt(mean(x^2) + eps) instead of _stats,
 *   with ffnKind 'swiglu' / 'geglu': ffn_gate, ffn_gate_act, ffn_up, ffn_prod (n, dFf), ffn_out instead of
 *   ffn_hidden, ffn_act, ffn_out; kv_group (h): the K/V head each query head reads (k, v are
 *   (m, nKvHeads * dK) with grouped K/V heads),
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
  /**
   * True for a stage laid out [h, rows, cols], one (rows, cols) slice per head, which { head }
   * slices: scores, pos_bias, scaled, masked, weights, head_out and their cross_ forms (and a
   * lookup's or additive attention's one-head [1, n, m] scores and weights; additive attention's
   * add_tanh [n, m, dA] shares the layout with the query step first).
   */
  perHead: boolean;
  /** 'block_output' on the stage a block hands to the next one (Trace.blockOutput), '' otherwise. */
  role: string;
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
  /** The name of the stage layer `layer` hands to the next (norm2 after a post-norm block, resid2 after a pre-norm one), null when not kept. */
  blockOutput(opts: { layer: number; stack?: 'encoder' | 'decoder' }): string | null;
  /** Where a stack's output is: its final_norm (pre-norm) or its last block's output; null when not kept. */
  stackOutput(opts?: { stack?: 'encoder' | 'decoder' }): { name: string; layer: number | null } | null;
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
  /** 0 (default): masked scores become -Infinity. A negative number (the notes' listing: -1e9):
   * masked = scaled + mask * additiveMask, so 'masked' holds finite numbers instead. */
  additiveMask?: number;
  /** m * dModel: keys and values come from it (cross-attention). */
  memory?: Float32Array | number[];
  m?: number;
  /** m flags: true/1 masks that key for every query. */
  keyPadding?: ArrayLike<number | boolean>;
  /** Grouped-query attention: K/V heads, a divisor of nHeads (0, the default: nHeads). wk, wv are then
   * dModel * nKvHeads*dK and bk, bv nKvHeads*dK; query head i reads K/V head i / (nHeads / nKvHeads). */
  nKvHeads?: number;
  /** Sliding window (with causal): query i sees key j iff i - window < j <= i. 0 (default): none. */
  window?: number;
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
  act?: 'relu' | 'gelu' | 'gelu_tanh';
  norm?: 'post' | 'pre';
  eps?: number;
  scale?: boolean;
  causal?: boolean;
  tokenizer?: 'char' | 'word';
  /** 'rmsnorm': x / sqrt(mean(x^2) + eps) * g for every norm (no mean, no bias). Default 'layernorm'. */
  normKind?: 'layernorm' | 'rmsnorm';
  /** Gated FFN: (act(x W_gate) * (x W1 + b1)) W2 + b2, act SiLU ('swiglu') or GELU ('geglu'); adds ffn.w_gate. Default 'mlp'. */
  ffnKind?: 'mlp' | 'swiglu' | 'geglu';
  /** K/V heads, a divisor of nHeads (1: multi-query). model.config reports nHeads for multi-head models. */
  nKvHeads?: number;
  /** Sliding-window causal self-attention: query i sees keys i - window < j <= i. 0: none (the default). */
  window?: number;
  /** RoPE's base: pair i of a head turns by position * ropeTheta^(-2i / d_k). Default 10000; must be > 1. */
  ropeTheta?: number;
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

/** A model's tokenizer and its special ids, from the core (-1: none). */
export interface TokenizerInfo {
  kind: string;
  size: number;
  pad: number;
  unk: number;
  bos: number;
  eos: number;
  mask: number;
}

export interface Tokenizer {
  encode(text: string): Encoded;
  decode(ids: ArrayLike<number>): string;
  readonly vocab: string[];
}

/**
 * Teaching switches of one call: each one left out keeps the model's own value. A model never changes.
 * On a model trained without them: normKind 'rmsnorm' keeps the LayerNorm gains and drops the biases;
 * nKvHeads mean-pools each group's K/V projection heads (Ainslie et al. 2023); window needs no weights;
 * ffnKind changes only between 'swiglu' and 'geglu' on a model that has ffn.w_gate (else an Error).
 */
export type Switches = Partial<
  Pick<ModelConfig, 'causal' | 'scale' | 'norm' | 'pos' | 'nHeads' | 'act' | 'eps' | 'normKind' | 'ffnKind' | 'nKvHeads' | 'window'>
>;

/** What a traced call keeps: every stage outside the layers, all stages of `layers`, the `stages`
 * names in every layer, minus `drop` (logits always). Leave it out to keep everything. */
export interface TraceKeep {
  layers?: number[];
  stages?: string[];
  drop?: string[];
}

/** One safetensors file: bytes, a File / Blob (read in 8 MB slices) or a fetch Response (streamed; needs Content-Length). */
export type WeightsPart = Uint8Array | ArrayBuffer | Blob | Response;

/**
 * A Hugging Face folder: config.json, model.safetensors, tokenizer.json; or, sharded, config.json,
 * tokenizer.json, model.safetensors.index.json (`index`) and the shards it names (`shards`: by file name,
 * or a function of the file name, for shards fetched one at a time).
 */
export interface PretrainedParts {
  config: string | object | Uint8Array | ArrayBuffer | Blob;
  weights?: WeightsPart;
  tokenizer: string | object | Uint8Array | ArrayBuffer | Blob;
  index?: string | object | Uint8Array | ArrayBuffer | Blob;
  shards?: Record<string, WeightsPart> | ((file: string) => WeightsPart | Promise<WeightsPart>);
}

export interface Model {
  readonly config: Required<ModelConfig> & {
    /** Pretrained models only: the Hugging Face model_type it was read as, and the parts the project's own models lack. */
    family?: 'gpt2' | 'bert' | 'llama' | 'mistral' | 'qwen2';
    typeVocab?: number;
    embNorm?: boolean;
    tiedHead?: boolean;
    headBias?: boolean;
    mlmHead?: boolean;
  };
  /** True for a model from loadPretrained (a Hugging Face folder). */
  readonly pretrained: boolean;
  /** This model's tokenizer and special ids (-1: none). GPT-2: bos = eos = <|endoftext|>, no pad; BERT: [CLS] [SEP] [MASK].
   * kind of a Hugging Face tokenizer.json: 'byte-level BPE', 'WordPiece', 'SentencePiece BPE' (Llama 2, Mistral),
   * 'byte-level BPE (Llama 3 split)' or 'byte-level BPE (Qwen2 split)'. */
  readonly specialTokens: TokenizerInfo;
  /** Full vocabulary, specials first. */
  readonly vocab: string[];
  /** Each id's token as `encode().pieces` shows it: a byte-level BPE token as text, part of a character as its bytes (<0xC3>). */
  readonly pieces: string[];
  readonly tokenizer: Tokenizer;
  /** What the switches can be set to on this model (the core's rule): head counts, position kinds, K/V head counts, norm and FFN kinds. */
  readonly switchChoices: {
    nHeads: number[];
    pos: string[];
    nKvHeads: number[];
    normKind: ('layernorm' | 'rmsnorm')[];
    ffnKind: ('mlp' | 'swiglu' | 'geglu')[];
  };
  /** Decoder-only / encoder-only: ids or text. Encoder-decoder: { src, tgt }. Switches apply to this call only. */
  forward(input: string | ArrayLike<number> | { src: string | ArrayLike<number>; tgt: string | ArrayLike<number> }, switches?: Switches, keep?: TraceKeep): Trace;
  /** The config a call with these switches runs with; throws for a switch the model cannot take. */
  configFor(switches?: Switches): Required<ModelConfig>;
  /** A text prompt as the model was trained to read it: <bos>, the tokens, its task's separator (decoder-only). */
  prompt(text: string): { src: Int32Array; ids: Int32Array; pieces: string[]; unknown: number[] };
  /** ffn's "why": block `layer` applied `depth` times to the input rows, attention only (stack
   * 'attention_only') and attention + FFN ('with_ffn'); stages stack_x, row_cosine, mean_cosine
   * (l = 0..depth) and stack_weights (l >= 1). No residual paths unless residual: true. */
  attentionStacks(input: string | ArrayLike<number>, opts?: { layer?: number; depth?: number; residual?: boolean; causal?: boolean }): Trace;
  /** Every weight tensor; dtype: how the model holds it ('F16' / 'BF16': a big matrix of a 16-bit file, kept so, 2 bytes a value). */
  tensors(): { name: string; shape: number[]; dtype: 'F32' | 'F16' | 'BF16' }[];
  /** A float32 copy of one weight tensor (a 16-bit one widened; the model unchanged). */
  getTensor(name: string): Float32Array;
  setTensor(name: string, data: Float32Array | number[]): void;
  /** safetensors bytes with the config and vocabulary in the header metadata. */
  save(): Uint8Array;
  /** Free-form metadata saved with the model ("task", "separator", "train_command", "corpus", ...). */
  readonly metadata: Record<string, string>;
  /**
   * Generates tokens one at a time (with the KV cache unless useCache is false). prompt: text
   * (model.prompt adds <bos> and a task's separator; for an encoder-decoder model, the source) or ids.
   */
  generate(prompt: string | ArrayLike<number>, options?: GenerateOptions): Generation;
  dispose(): void;
}

export interface GenerateOptions {
  maxTokens?: number;
  /** 0: greedy (the default). */
  temperature?: number;
  /** 0: no top-k cut. */
  topK?: number;
  /** 1: no nucleus cut. */
  topP?: number;
  seed?: number;
  useCache?: boolean;
  switches?: Switches;
  keep?: TraceKeep;
}

export interface GenerateStep {
  token: number;
  /** The token as encode() pieces show it. */
  piece: string;
  /** Positions in the KV cache when this token was chosen. */
  cacheLen: number;
  /** The probabilities the token was drawn from (after temperature, top-k and top-p). */
  distribution: Float32Array;
  trace: Trace;
}

export interface Generation {
  prompt: Int32Array;
  tokens: Int32Array;
  /** The decoder's whole sequence: the prompt, then the generated tokens without a final <eos>. */
  sequence: Int32Array;
  text: string;
  stop: 'eos' | 'max_tokens' | 'max_len';
  /** With the KV cache: bytes of its self-attention K and V at the end (2 layers positions nKvHeads dK 4); 0 without it. */
  kvCacheBytes: number;
  /** Prompt positions read as <unk>. */
  unknown: number[];
  steps: GenerateStep[];
  /** The encoder's trace (encoder-decoder models), else null. */
  encoder: Trace | null;
  dispose(): void;
}

export interface PresetInfo {
  /** '<curriculum id>.<example>', e.g. 'softmax.the-cat-sat'. */
  id: string;
  /** docs/concepts.md concept ids this preset demonstrates. */
  concepts: string[];
  /** Lecture file number ('000'..'004'). */
  source: string;
  title: string;
  /** What the notes state, in words. */
  claim: string;
  /** The query row the claim is about (its views open on it); -1 when the claim is about no one row. */
  row: number;
  tokens: string[];
  dModel: number;
  nHeads: number;
  causal: boolean;
  scale: boolean;
  pos: 'none' | 'sinusoidal';
  /** The head counts the preset can be split into (its d_model's divisors the core allows). */
  headChoices: number[];
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
  /** Sliding window (with causal): query i sees keys j with p - window < j <= p, p = i + (m - n); the online
   * kernel never reads the key blocks outside it. 0 (default): none. */
  window?: number;
}

export interface Kernels {
  info(): { variant: 'scalar' | 'simd128' | 'relaxed'; threads: number; why: string };
  /** Attention output n x nHeads*dK, without a trace; memory O(n dK) unless full. */
  attention(opts: KernelAttentionOptions): Float32Array;
  /**
   * attention(), also measuring what the call held: heapBytes = the allocator's bytes in use at the
   * call's peak minus before it (the n x m matrix with full: true; 0 for the online kernel).
   */
  measure(opts: KernelAttentionOptions): { out: Float32Array; heapBytes: number };
  /** The working memory of each path, without running it (any n and m). */
  memory(opts: { n: number; m?: number; dK: number; nHeads?: number; full?: boolean; causal?: boolean; window?: number }): KernelMemory;
  /** The online softmax of one query, tile by tile, as the tiled kernel does it (a worked example). */
  onlineSoftmaxSteps(opts: { q: Float32Array | number[]; k: Float32Array | number[]; v: Float32Array | number[]; m: number; dK: number; tile?: number; scale?: boolean }): OnlineSoftmaxSteps;
}

export interface KernelMemory {
  /** Scores alive at once: n*m with full: true, one score tile for the online kernel. */
  scoresHeld: number;
  /** Bytes of that working memory (the online kernel: all its stack tiles, whatever n and m). */
  scratchBytes: number;
  /** Bytes of q, k, v and the output. */
  ioBytes: number;
  /** The largest n*m that full: true accepts. */
  limitScores: number;
  /** Query-key pairs the online kernel scores over all heads, in whole tiles, for the causal / window given: O(n window) with a window. */
  pairsComputed: number;
}

export interface OnlineSoftmaxSteps {
  /** s_j = q.k_j (/ sqrt(dK) if scale), m values. */
  scores: Float32Array;
  /** The attention output, o / sum after the last tile (dK values). */
  out: Float32Array;
  /** After each tile: its keys [start, end), its max, the running max, the correction e^(max_old - max_new), the running sum, the running output o (dK, not divided by sum). */
  tiles: { start: number; end: number; tileMax: number; max: number; correction: number; sum: number; o: Float32Array }[];
}

export interface AttentionPlayground {
  attention(opts: AttentionOptions): Trace;
  createModel(config: CreateModelConfig, weights?: { seed?: number; tensors?: Record<string, Float32Array | number[]> }): Model;
  /** A model file in this module; a file that carries a tokenizer.json (the English models) throws: use openModel. */
  loadModel(bytes: Uint8Array | ArrayBuffer): Model;
  /** Any model file of the project's, in the module that reads it: the English models (byte-level BPE
   * from a tokenizer.json, config tokenizer "hf") in the second module, loaded on first use. */
  openModel(bytes: Uint8Array | ArrayBuffer): Promise<Model>;
  /** A Hugging Face GPT-2 or BERT folder (F32, F16 or BF16 weights), read by the second module (loaded
   * on first use). Errors name the file and the field. */
  loadPretrained(parts: PretrainedParts, options?: { onProgress?: (p: { loaded: number; total: number }) => void; stallMs?: number; signal?: AbortSignal }): Promise<Model>;
  readonly presets: Presets;
  readonly kernels: Kernels;
  /** The special tokens' ids and pieces, from the core: { pad: 0, unk: 1, bos: 2, eos: 3, pieces }. */
  /** The built-in tokenizers' special ids and pieces; maskPiece: a masked LM's mask token ('[MASK]'). */
  readonly specialTokens: { pad: number; unk: number; bos: number; eos: number; pieces: string[]; maskPiece: string };
  /** Bytes currently allocated by the core's malloc (leak checks). */
  heapUsed(): number;
  /** Total wasm memory in bytes. */
  memoryBytes(): number;
  // ---- section A and H lessons ----
  /**
   * An Elman RNN h_t = tanh(x_t W_xh + h_{t-1} W_hh + b) on x (n x dIn) with seeded weights, W_hh
   * scaled to spectral radius `spectralRadius` (default 0.9). Stages: rnn_wxh (dIn, dHidden),
   * rnn_whh (dHidden, dHidden), rnn_pre, rnn_h (n, dHidden), rnn_grad_norm (n): ||d h_{n-1} / d h_t||.
   */
  rnn(opts: { x: Float32Array | number[]; n: number; dIn: number; dHidden: number; spectralRadius?: number; seed?: number }): Trace;
  /**
   * Bahdanau additive attention of s (n x dS, decoder states) over h (m x dH, encoder states):
   * e_tj = v . tanh(s_t W_s + h_j W_h), seeded W_s, W_h (width dA, default 16) and v. Stages:
   * add_ws, add_wh, add_v (1, dA), add_s (n, dA), add_h (m, dA), add_tanh (n, m, dA),
   * add_scores (1, n, m), add_weights (1, n, m), add_context (n, dH).
   */
  additiveAttention(opts: { s: Float32Array | number[]; n: number; dS: number; h: Float32Array | number[]; m: number; dH: number; dA?: number; seed?: number }): Trace;
  /**
   * Attention as a lookup: queries q (n x d) against keys k (m x d) and values v (m x dV), scored
   * by 'dot', 'scaled' (default) or 'additive'; hard: one-hot argmax weights instead of a softmax;
   * causal (n == m): keys after each query masked to -inf first, as a decoder does.
   * Stages: scores (1, n, m), masked (1, n, m; causal only), weights (1, n, m), out (n, dV).
   */
  lookup(opts: { q: Float32Array | number[]; k: Float32Array | number[]; v: Float32Array | number[]; n: number; m: number; d: number; dV?: number; score?: 'dot' | 'scaled' | 'additive'; hard?: boolean; dA?: number; seed?: number; causal?: boolean }): Trace;
  /**
   * Held-out accuracy of a trained model on its own task (its file's "task" metadata): exact match
   * of greedy decoding (sort, reverse, dates), agreement pairs won (grammar), top-1 at [MASK] (mlm).
   */
  evaluateTask(model: Model, opts?: { n?: number; seed?: number }): Promise<{ task: string; total: number; correct: number; accuracy: number; byKind?: Record<string, { correct: number; total: number }> }>;
  /**
   * Trains a tiny transformer on a task with the core's trainer (one thread: use a Web Worker in a
   * page). Async because the first call loads the trainer module; the Trainer's methods are sync.
   */
  createTrainer(opts: { task: 'sort' | 'reverse' | 'dates' | 'grammar' | 'mlm' | 'translate' | 'induction'; config?: { dModel?: number; nHeads?: number; nLayers?: number; dFf?: number; pos?: string; act?: string; norm?: string; ffn?: boolean };
    /** Fine-tune: start from this model's weights (same architecture and vocabulary as the task; config defaults to its sizes). */
    from?: Model; seed?: number; lr?: number; warmupSteps?: number; totalSteps?: number; batch?: number }): Promise<Trainer>;
  // ---- costs (model-sizes, rnn-cost, head-cost, scale) ----
  /** Published models for the parameter calculator ('original', 'original-big', 'bert-base', 'gpt3'). */
  sizePresets(): SizePreset[];
  /** Exact parameter count by kind. Errors name the problem (negative sizes, dModel % nHeads, ...). */
  parameterCount(config: SizeConfig): ParamCount;
  /** FLOPs (one multiply-add = 2 FLOPs, matrix products only) of attention and an RNN on n tokens. */
  flops(opts: { n: number; d: number; h?: number; nKvHeads?: number; window?: number }): CostFlops;
  /** The KV cache of a decoder of this size after `positions` tokens, float32 (nKvHeads / nHeads of multi-head's). */
  kvCacheSize(config: SizeConfig, positions: number): KvCacheSize;
  /** The sqrt(d_k) experiment on random N(0, 1) queries and keys drawn by the core. */
  scaleStats(opts: { dK: number; n?: number; draws?: number; seed?: number }): ScaleStats;
  /** The RNN recurrence alone (states n x dHidden), for timing against kernels.attention. */
  rnnStates(opts: { x: Float32Array | number[]; wxh: Float32Array | number[]; whh: Float32Array | number[]; n: number; dIn: number; dHidden: number }): Float32Array;
  // ---- end of costs ----
}

// ---- costs (cpp/core/costs.hpp) ----

/** What decides a transformer's size. Omitted keys take the defaults shown (or the preset's values). */
export interface SizeConfig {
  /** Start from a published model (sizePresets()); the other keys override its values. */
  preset?: 'original' | 'original-big' | 'bert-base' | 'gpt3';
  /** Default 'decoder'. */
  arch?: 'encoder' | 'decoder' | 'encoder-decoder';
  dModel?: number;
  nHeads?: number;
  /** Layers of each stack; encoderLayers / decoderLayers set one stack. */
  nLayers?: number;
  encoderLayers?: number;
  decoderLayers?: number;
  /** Default 4 * dModel. */
  dFf?: number;
  vocabSize?: number;
  /** Rows of the learned position table (pos 'learned'); default 512. */
  maxLen?: number;
  /** Default 'sinusoidal' (no parameters); 'learned' adds maxLen * dModel, 'relative' nHeads * (2 relClip + 1). */
  pos?: 'none' | 'sinusoidal' | 'learned' | 'relative' | 'rope';
  relClip?: number;
  /** 'pre' adds a final LayerNorm after each stack. Default 'post'. */
  norm?: 'post' | 'pre';
  /** Biases on every linear map (default true). */
  biases?: boolean;
  /** Encoder-decoder: one token table for both stacks (default true). */
  shareEmbeddings?: boolean;
  /** The LM head reuses the token table (default true). */
  tieEmbeddings?: boolean;
  lmHeadBias?: boolean;
  /** BERT: segment (token-type) embeddings, 2 rows. Default 0. */
  segments?: number;
  /** BERT: LayerNorm on the embeddings. */
  embedNorm?: boolean;
  /** BERT: the [CLS] pooler (d x d + d). */
  pooler?: boolean;
  /** K/V heads (0, the default: nHeads): W_K and W_V are d x nKvHeads*dK. */
  nKvHeads?: number;
  /** 'rmsnorm': a gain and no bias per norm (d instead of 2d). */
  normKind?: 'layernorm' | 'rmsnorm';
  /** A gated FFN adds W_gate (d x dFf, no bias). */
  ffnKind?: 'mlp' | 'swiglu' | 'geglu';
}

export interface KvCacheSize {
  positions: number;
  /** Decoder layers. */
  layers: number;
  /** nKvHeads * dK */
  kvWidth: number;
  /** 2 layers kvWidth 4 */
  bytesPerToken: number;
  bytes: number;
  /** The same model with every head's own K and V (kvWidth = dModel). */
  mhaBytes: number;
}

export interface LayerParams { attention: number; ffn: number; norms: number; total: number }

export interface ParamCount {
  total: number;
  /** tokenEmbeddings + positionEmbeddings + segmentEmbeddings */
  embeddings: number;
  attention: number;
  ffn: number;
  norms: number;
  lmHead: number;
  pooler: number;
  tokenEmbeddings: number;
  positionEmbeddings: number;
  segmentEmbeddings: number;
  encoderLayers: number;
  decoderLayers: number;
  /** One layer of each stack (zeros when the stack is absent). */
  encoderLayer: LayerParams;
  decoderLayer: LayerParams;
  /** The full configuration counted (every key filled in). */
  config: Required<Omit<SizeConfig, 'preset' | 'nLayers'>>;
}

export interface SizePreset {
  id: string;
  title: string;
  source: string;
  /** The published total (65M is 65000000). */
  published: number;
  /** How the computed total relates to the published one. */
  note: string;
  config: Required<Omit<SizeConfig, 'preset' | 'nLayers'>>;
}

export interface AttentionLayerFlops {
  h: number;
  dK: number;
  /** K/V heads counted (h when not grouped). */
  nKvHeads: number;
  /** 0: no window. */
  window: number;
  /** Query-key pairs per head: n^2, or sum over queries of min(i + 1, window) with a window (O(n window)). */
  pairs: number;
  /** X W_Q, X W_K, X W_V, concat W_O: 8 n d^2 */
  projections: number;
  /** Q K^T: 2 n^2 d */
  scores: number;
  /** A V: 2 n^2 d */
  weightedSum: number;
  /** scores + weightedSum: the O(n^2 d) part */
  quadratic: number;
  total: number;
  /** h n^2 scores held at once */
  scoreEntries: number;
  /** h n^2 exponentials (not in the FLOPs) */
  softmaxExps: number;
  /** 1: every token at once */
  sequentialSteps: number;
  /** 1: any token reaches any other in one hop */
  pathLength: number;
}

export interface CostFlops {
  n: number;
  d: number;
  flopsPerMultiplyAdd: 2;
  /** h heads of d / h */
  attention: AttentionLayerFlops;
  /** one head of d */
  singleHead: AttentionLayerFlops;
  /** Elman RNN, input = hidden = d: 4 d^2 per step, n steps one after another. */
  rnn: { perStep: number; total: number; sequentialSteps: number; pathLength: number };
  /** n where attention's 4 n^2 d equals the RNN's 4 n d^2 (= d). */
  crossoverN: number;
}

export interface ScoreStats {
  mean: number;
  /** Spread of every score over all draws. */
  std: number;
  /** Softmax row entropy in nats, mean over rows (at most maxEntropy = ln n). */
  entropy: number;
  /** Largest weight of a softmax row, mean over rows. */
  maxWeight: number;
}

export interface ScaleStats {
  dK: number;
  n: number;
  draws: number;
  sqrtDk: number;
  maxEntropy: number;
  unscaled: ScoreStats;
  scaled: ScoreStats;
}

/** A training run (createTrainer). */
export interface Trainer {
  /** Runs n optimisation steps (default 1); returns their mean loss. */
  step(n?: number): number;
  /** shards: the parts each batch is split into (the batch size's alone); threads: the threads they run on. */
  info(): { steps: number; lr: number; gradNorm: number; task: string; shards: number; threads: number };
  /** Held-out accuracy of the current weights. */
  /** Held-out accuracy; byKind per kind of example (a language model: of target, with its mean loss in nats). */
  evaluate(n?: number, seed?: number): { total: number; correct: number; accuracy: number; byKind: Record<string, { correct: number; total: number; loss?: number }> };
  /** A Model with the current weights, in the instance createTrainer() was called on (dispose it). */
  snapshot(): Model;
  dispose(): void;
}

// ---- RNN encoder-decoder with additive attention (birnn, bahdanau, translation) ----------------
// Stage names of its traces (cpp/core/rnn_attention.hpp). S source length, T decoder steps,
// E embedding width, H one encoder direction (h_j has 2H numbers), Ds decoder state, A attention width.
//   encoder: tokens (S), enc_embed (S, E), enc_fwd (S, H), enc_bwd (S, H), enc_h (S, 2H)
//   decoder: dec_tokens (T), dec_embed (T, E), dec_s (T+1, Ds) s_0..s_T, add_ws (Ds, A), add_wh (2H, A),
//            add_v (1, A), add_s (T, A) = W_s s_{t-1}, add_h (S, A) = W_h h_j, add_tanh (T, S, A),
//            add_scores (1, T, S) = e_tj, add_weights (1, T, S) = alpha_tj, add_context (T, 2H) = C_t,
//            logits (T, V), probs (T, V), out_tokens (T)

export interface AttentionPlayground {
  /** Loads a model file whose config has "arch": "rnn-attention"; a bad file throws an Error naming the problem. */
  loadRnnAttention(bytes: Uint8Array | ArrayBuffer): RnnAttentionModel;
}

export interface RnnAttentionTrace extends Trace {
  /** Source pieces. */
  readonly tokens: string[];
  /** Source positions read as <unk>. */
  readonly unknown: number[];
  /** translate() only: each step's argmax word ('<eos>' included), its ids, and the translation without <eos>. */
  readonly output?: string[];
  readonly outputIds?: number[];
  readonly text?: string;
}

export interface RnnAttentionModel {
  readonly config: { arch: 'rnn-attention'; vocabSize: number; dEmb: number; dEnc: number; dDec: number; dAtt: number; maxLen: number; tokenizer: string };
  /** The vocabulary, specials included (their ids: specialTokens). */
  readonly vocab: string[];
  /** Each id's token as encode() shows it (for this word-level tokenizer, vocab). */
  readonly pieces: string[];
  /** The tokenizer's kind and special ids, from the core (-1: none). */
  readonly specialTokens: TokenizerInfo;
  readonly metadata: Record<string, string>;
  readonly tokenizer: Tokenizer;
  /** The bidirectional encoder alone (encoder stages). */
  encode(text: string): RnnAttentionTrace;
  /** Greedy translation, or teacher forcing on opts.target; every encoder and decoder stage. */
  translate(text: string, opts?: { target?: string | null }): RnnAttentionTrace;
  dispose(): void;
}
