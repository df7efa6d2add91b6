// The blueprint of a model (llama2.c's Config): sizes and switches, nothing learned.
// One struct describes encoder-only, decoder-only and encoder-decoder models.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace ap {

enum class Arch { EncoderOnly, DecoderOnly, EncoderDecoder };
enum class PosKind { None, Sinusoidal, Learned, Relative, Rope };
enum class Act { Relu, Gelu, GeluTanh };  // GeluTanh: GPT-2's tanh approximation ("gelu_new")
enum class NormPlace { Post, Pre };       // post-norm as in the notes; pre-norm as an option

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
  std::string tokenizer = "char";  // "char" or "word"; "hf" for a model read from a Hugging Face folder

  // A pretrained model read from a Hugging Face folder (io/hf_model): its family and the parts of
  // GPT-2 and BERT the project's own models do not have. All off for the project's own models.
  std::string family;      // "" (the project's own), "gpt2", "bert"
  int type_vocab = 0;      // BERT: token-type (segment) embeddings, type_emb (type_vocab, d); every token has type 0
  bool emb_norm = false;   // BERT: LayerNorm over the embedding sum (emb_norm) before the first layer
  bool tied_head = false;  // logits = h tok_emb^T (GPT-2, BERT): no lm_head.w of its own
  bool head_bias = true;   // lm_head.b (BERT: cls.predictions.bias; GPT-2 has none)
  bool mlm_head = false;   // BERT: dense (d, d) + activation + LayerNorm before the tied decoder

  int d_k() const { return d_model / n_heads; }
  bool has_encoder() const { return arch != Arch::DecoderOnly; }
  bool has_decoder() const { return arch != Arch::EncoderOnly; }
  // Throws ap::Error naming the first problem (d_model % n_heads != 0, sizes <= 0, ...).
  void validate() const;
};

const char* to_string(Arch);
const char* to_string(PosKind);
const char* to_string(Act);
const char* to_string(NormPlace);
Arch arch_from_string(const std::string&);
PosKind pos_from_string(const std::string&);
Act act_from_string(const std::string&);
NormPlace norm_from_string(const std::string&);

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
};

// The model's config with the switches applied. Throws ap::Error naming the switch a model
// cannot take (heads that do not divide d_model, positions whose weights the model lacks).
ModelConfig apply_switches(const ModelConfig& base, const Switches& sw);

// What a model built with `base` can switch to, for a page to offer (apply_switches accepts each).
struct SwitchChoices {
  std::vector<int> n_heads;  // divisors of d_model up to kMaxHeadChoice, and the model's own
  std::vector<PosKind> pos;  // the model's own, and the weight-free kinds when its own is weight-free
};
constexpr int kMaxHeadChoice = 16;  // a head grid a page can still show
SwitchChoices switch_choices(const ModelConfig& base);

}  // namespace ap
