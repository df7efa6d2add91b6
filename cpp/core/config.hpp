// The blueprint of a model (llama2.c's Config): sizes and switches, nothing learned.
// One struct describes encoder-only, decoder-only and encoder-decoder models.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ap {

constexpr int kMaxLen = 4096;  // the longest sequence a model takes (max_len, window)

enum class Arch { EncoderOnly, DecoderOnly, EncoderDecoder };
enum class PosKind { None, Sinusoidal, Learned, Relative, Rope };
enum class Act { Relu, Gelu, GeluTanh };  // GeluTanh: GPT-2's tanh approximation ("gelu_new")
enum class NormPlace { Post, Pre };       // post-norm as in the notes; pre-norm as an option
// LayerNorm as in the notes, or RMSNorm (Zhang & Sennrich 2019; Llama, Mistral): x / sqrt(mean(x^2) + eps) * g,
// no mean subtracted and no bias.
enum class NormKind { Layer, Rms };
// The FFN: the notes' two matrices act(x W1 + b1) W2 + b2, or a gated linear unit (Shazeer 2020):
// (act(x W_gate) * (x W1 + b1)) W2 + b2 with act = SiLU (SwiGLU: Llama, Mistral) or exact GELU (GeGLU: Gemma).
enum class FfnKind { Mlp, SwiGlu, GeGlu };

struct ModelConfig {
  Arch arch = Arch::DecoderOnly;
  int d_model = 16;    // d
  int n_heads = 2;     // h; d_k = d_model / n_heads
  int n_layers = 1;    // N, for each stack (encoder and decoder have the same depth)
  int d_ff = 64;       // FFN hidden width (4 d in the notes)
  int vocab_size = 0;  // V; set from the tokenizer when 0
  int max_len = 64;    // L: longest sequence the model accepts
  PosKind pos = PosKind::Sinusoidal;
  int rel_clip = 8;  // relative positions: offsets clipped to [-rel_clip, rel_clip]
  Act act = Act::Relu;
  NormPlace norm = NormPlace::Post;
  float eps = 1e-5f;   // LayerNorm epsilon
  bool scale = true;   // divide scores by sqrt(d_k) (a switch for teaching)
  bool causal = true;  // causal mask in decoder self-attention (a switch for teaching)
  // false: attention-only blocks, no FFN sublayer and no norm2 (the toy models of the induction-head
  // studies, Elhage et al. 2021, Olsson et al. 2022); each block's output is its attention sublayer's.
  bool ffn = true;
  // The parts of today's decoders (issue 26), each off by default (the notes' transformer):
  NormKind norm_kind = NormKind::Layer;  // every norm of the model: LayerNorm or RMSNorm (then no .beta tensors)
  FfnKind ffn_kind = FfnKind::Mlp;       // a GLU kind adds ffn.w_gate (d, d_ff) to each block
  // Grouped-query attention (Ainslie et al. 2023): n_kv_heads K/V heads, each shared by n_heads / n_kv_heads
  // query heads (1: multi-query attention, Shazeer 2019). 0 means n_heads (ordinary multi-head attention).
  // wk and wv are (d, n_kv_heads * d_k); the KV cache holds n_kv_heads heads.
  int n_kv_heads = 0;
  // Sliding-window causal self-attention (Mistral): query i sees key j iff i - window < j <= i, i.e. itself
  // and the window - 1 keys before it (Hugging Face's Mistral definition). 0: no window. Applies where the
  // causal mask does (decoder self-attention); without the causal mask there is no window.
  int window = 0;
  // RoPE's base (Su et al. 2021): pair i of a head turns by position * rope_theta^(-2i / d_k). 10000 as in
  // the paper and Llama 2; Hugging Face's config.json says rope_theta (Llama 3: 500000, Qwen2: 1000000).
  float rope_theta = 10000.0f;
  std::string tokenizer = "char";  // "char" or "word"; "hf" for a model read from a Hugging Face folder

  // A pretrained model read from a Hugging Face folder (io/hf_model): its family and the parts of
  // GPT-2 and BERT the project's own models do not have. All off for the project's own models.
  std::string family;      // "" (the project's own), "gpt2", "bert", "llama", "mistral", "qwen2"
  int type_vocab = 0;      // BERT: token-type (segment) embeddings, type_emb (type_vocab, d); every token has type 0
  bool emb_norm = false;   // BERT: LayerNorm over the embedding sum (emb_norm) before the first layer
  bool tied_head = false;  // logits = h tok_emb^T (GPT-2, BERT): no lm_head.w of its own
  bool head_bias = true;   // lm_head.b (BERT: cls.predictions.bias; GPT-2 has none)
  bool mlm_head = false;   // BERT: dense (d, d) + activation + LayerNorm before the tied decoder

  int d_k() const { return d_model / n_heads; }
  int kv_heads() const { return n_kv_heads > 0 ? n_kv_heads : n_heads; }
  int d_kv() const { return kv_heads() * d_k(); }  // width of K and V
  bool has_encoder() const { return arch != Arch::DecoderOnly; }
  bool has_decoder() const { return arch != Arch::EncoderOnly; }
  // Throws ap::Error naming the first problem (d_model % n_heads != 0, sizes <= 0, ...).
  void validate() const;
};

const char* to_string(Arch);
const char* to_string(PosKind);
const char* to_string(Act);
const char* to_string(NormPlace);
const char* to_string(NormKind);
const char* to_string(FfnKind);
Arch arch_from_string(const std::string&);
PosKind pos_from_string(const std::string&);
Act act_from_string(const std::string&);
NormPlace norm_from_string(const std::string&);
NormKind norm_kind_from_string(const std::string&);
FfnKind ffn_kind_from_string(const std::string&);

// The teaching switches of one call (Model::forward, generate): each field left unset keeps the
// model's own value. A model is never changed by them, so two views with different switches on
// one model cannot see each other's state.
struct Switches {
  std::optional<bool> causal;  // decoder self-attention mask (generation is always causal)
  std::optional<bool> scale;   // divide scores by sqrt(d_k)
  std::optional<int> n_heads;  // any divisor of d_model (fixed with relative positions: rel_bias is per head)
  std::optional<PosKind> pos;  // none / sinusoidal / rope interchange; learned and relative need their weights
  std::optional<NormPlace> norm;
  std::optional<Act> act;
  std::optional<float> eps;
  // Issue 26. On a model trained without the part (the project's own models):
  //  norm_kind rms on a LayerNorm model: RMSNorm with the LayerNorm's gain, its bias dropped;
  //    layer on an RMSNorm model: LayerNorm with that gain and a zero bias.
  //  ffn_kind: swiglu <-> geglu only on a model whose file has ffn.w_gate; to or from mlp is refused.
  //  n_kv_heads on a multi-head model: the K and V projections of each group of heads are mean-pooled
  //    into one (Ainslie et al. 2023, sec. 2.1, how an MHA checkpoint becomes a GQA one for uptraining).
  //    A model built with grouped K/V keeps its own n_kv_heads and n_heads.
  //  window: any size on any model (no weights involved); 0 turns it off.
  std::optional<NormKind> norm_kind;
  std::optional<FfnKind> ffn_kind;
  std::optional<int> n_kv_heads;
  std::optional<int> window;
};

// The model's config with the switches applied. Throws ap::Error naming the switch a model
// cannot take (heads that do not divide d_model, positions whose weights the model lacks).
ModelConfig apply_switches(const ModelConfig& base, const Switches& sw);

// What a model built with `base` can switch to, for a page to offer (apply_switches accepts each).
struct SwitchChoices {
  std::vector<int> n_heads;         // divisors of d_model up to kMaxHeadChoice, and the model's own
  std::vector<PosKind> pos;         // the model's own, and the weight-free kinds when its own is weight-free
  std::vector<int> n_kv_heads;      // divisors of n_heads (a multi-head model), or the model's own
  std::vector<NormKind> norm_kind;  // both
  std::vector<FfnKind> ffn_kind;    // mlp, or the two GLU kinds on a model with ffn.w_gate
};
constexpr int kMaxHeadChoice = 16;  // a head grid a page can still show
SwitchChoices switch_choices(const ModelConfig& base);

}  // namespace ap
