#!/usr/bin/python3
"""Golden values from PyTorch for Hugging Face Llama, Mistral and Qwen2 folders (issue 26, parts 3 and 4).

Run with Debian's python (torch 1.13):
    /usr/bin/python3 tests/reference/make_llama_fixtures.py
(README: tests/reference/README.md, section "Hugging Face Llama-family folders".)

No `transformers` here: LlamaForCausalLM (and Mistral's sliding window, Qwen2's q/k/v biases) is written with
plain torch ops in float64 from the published definitions (modeling_llama.py: LlamaRMSNorm, rotate_half RoPE
with rope_theta, repeat_kv, the SwiGLU MLP; modeling_mistral.py: the sliding-window causal mask, key j visible
from query i iff i - window < j <= i). The folders are written with Hugging Face's config.json keys, tensor
names and nn.Linear (out, in) layouts, in F32, F16 or BF16 (values drawn in float32 and rounded to the
folder's dtype first, so the stages are the exact math of the stored weights).

The core rotates interleaved pairs (2i, 2i+1) where Hugging Face rotates (i, i + d_k/2); its loader permutes
the rows of q_proj and k_proj (cpp/io/hf_model.cpp, rope_column) so both compute the same scores. The stages
q, k, q_rot, k_rot are written here in the core's column order (the same permutation), the rest as they are.
The script checks that claim independently: Meta's original complex-number RoPE (llama/model.py,
apply_rotary_emb, interleaved pairs) on the permuted q and k gives the permuted rotate_half result.
"""
import json
import math
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_hf_fixtures import (HF, TOKENIZERS, Rand, encode, read_safetensors, rel,  # noqa: E402
                              sha256, vocab_size_of, write_safetensors)
from make_hf_fixtures import write_expected as hf_write_expected  # noqa: E402

TOL_F64 = 1e-12
N_IDS = 10       # tokens of the traced prompt
GREEDY = 8       # greedy steps (prompt + 8 = 18 positions: past Mistral's window of 4)
TEXT = "The cat sat on the mat. Attention is all you need."

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)

WORST = {}


def check(what, got, want, tol=TOL_F64):
    err = (got - want).abs().max().item() / max(want.abs().max().item(), 1e-300)
    if not err <= tol:
        sys.exit(f"FAIL {what}: max relative error {err:.3g} > {tol:g}")
    WORST[what] = max(WORST.get(what, 0.0), err)


# ---------------------------------------------------------------- the published definitions, float64

def rms_norm(x, weight, eps):
    """LlamaRMSNorm: x * rsqrt(mean(x^2) + eps) * weight; also the root mean square it divides by."""
    ms = x.pow(2).mean(-1, keepdim=True)
    return x * torch.rsqrt(ms + eps) * weight, torch.sqrt(ms + eps)


def rope_cos_sin(positions, d_k, theta):
    """LlamaRotaryEmbedding: inv_freq = 1 / theta^(arange(0, d_k, 2) / d_k); emb = cat(freqs, freqs)."""
    inv_freq = 1.0 / (theta ** (torch.arange(0, d_k, 2, dtype=torch.float64) / d_k))
    freqs = positions.to(torch.float64)[:, None] * inv_freq[None, :]  # (n, d_k / 2)
    emb = torch.cat((freqs, freqs), dim=-1)                            # (n, d_k)
    return emb.cos(), emb.sin()


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def repeat_kv(x, n_rep):
    """(kv, n, d_k) -> (kv * n_rep, n, d_k): query head h reads K/V head h // n_rep."""
    kv, n, dk = x.shape
    return x[:, None].expand(kv, n_rep, n, dk).reshape(kv * n_rep, n, dk)


def visible(n, window):
    """Causal, and with a sliding window (Mistral): key j visible from query i iff i - window < j <= i."""
    i = torch.arange(n)[:, None]
    j = torch.arange(n)[None, :]
    ok = j <= i
    if window:
        ok &= j > i - window
    return ok


def core_order(t, d_k):
    """Columns of (n, heads * d_k) from rotate_half's order into the core's (rope_column in hf_model.cpp)."""
    n, width = t.shape
    perm = []
    for j in range(width):
        i, half = j % d_k, d_k // 2
        perm.append(j - i + (2 * i if i < half else 2 * (i - half) + 1))
    out = torch.empty_like(t)
    out[:, perm] = t
    return out


def meta_rope(x, heads, positions, theta):
    """Meta's llama/model.py apply_rotary_emb: interleaved pairs as complex numbers times e^(i pos freq)."""
    n, width = x.shape
    d_k = width // heads
    freqs = 1.0 / (theta ** (torch.arange(0, d_k, 2, dtype=torch.float64)[: d_k // 2] / d_k))
    cis = torch.polar(torch.ones(n, d_k // 2), positions.to(torch.float64)[:, None] * freqs[None, :])
    xc = torch.view_as_complex(x.reshape(n, heads, d_k // 2, 2).contiguous())
    return torch.view_as_real(xc * cis[:, None, :]).reshape(n, width)


class Trace:
    def __init__(self):
        self.stages = []

    def add(self, name, layer, t):
        stack = "" if name in ("logits", "probs") else "decoder"
        self.stages.append({"name": name, "stack": stack, "layer": layer, "t": t.detach().clone()})


def forward(w, cfg, ids, trace=None):
    """LlamaForCausalLM (MistralForCausalLM, Qwen2ForCausalLM) on one unpadded sequence. Returns logits."""
    tr = trace

    def add(name, layer, t):
        if tr is not None:
            tr.add(name, layer, t)

    n, d = len(ids), cfg["hidden_size"]
    h = cfg["num_attention_heads"]
    kv = cfg.get("num_key_value_heads", h)
    dk, eps, theta = d // h, cfg["rms_norm_eps"], cfg.get("rope_theta", 10000.0)
    window = cfg.get("sliding_window") if cfg["model_type"] == "mistral" else None
    if window and window >= n:
        window = None
    positions = torch.arange(n)
    cos, sin = rope_cos_sin(positions, dk, theta)

    def lin(x, name):  # nn.Linear: weight (out, in), bias if the checkpoint has one
        y = x @ w[name + ".weight"].t()
        return y + w[name + ".bias"] if name + ".bias" in w else y

    add("tokens", -1, torch.tensor(ids, dtype=torch.float64))
    x = w["model.embed_tokens.weight"][ids]
    add("embed", -1, x)
    add("x", -1, x)
    ok = visible(n, window)
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        norm1, rms1 = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = lin(norm1, p + "self_attn.q_proj")  # (n, h d_k)
        k = lin(norm1, p + "self_attn.k_proj")  # (n, kv d_k)
        v = lin(norm1, p + "self_attn.v_proj")
        qh = q.reshape(n, h, dk).transpose(0, 1)   # (h, n, d_k)
        kh = k.reshape(n, kv, dk).transpose(0, 1)  # (kv, n, d_k)
        vh = v.reshape(n, kv, dk).transpose(0, 1)
        q_rot = qh * cos + rotate_half(qh) * sin   # apply_rotary_pos_emb
        k_rot = kh * cos + rotate_half(kh) * sin
        q_rot2, k_rot2 = q_rot.transpose(0, 1).reshape(n, h * dk), k_rot.transpose(0, 1).reshape(n, kv * dk)
        # Independent check of the permutation: Meta's interleaved complex RoPE on the core's order.
        check("rope: Meta's complex form on the core's order", meta_rope(core_order(q, dk), h, positions, theta),
              core_order(q_rot2, dk))
        check("rope: Meta's complex form on the core's order", meta_rope(core_order(k, dk), kv, positions, theta),
              core_order(k_rot2, dk))
        kr, vr = repeat_kv(k_rot, h // kv), repeat_kv(vh, h // kv)
        scores = q_rot @ kr.transpose(1, 2)        # (h, n, n)
        scaled = scores / math.sqrt(dk)
        masked = scaled.masked_fill(~ok, float("-inf"))
        weights = torch.softmax(masked, dim=-1)
        head_out = weights @ vr                    # (h, n, d_k)
        concat = head_out.transpose(0, 1).reshape(n, d)
        attn_out = lin(concat, p + "self_attn.o_proj")
        resid1 = x + attn_out
        norm2, rms2 = rms_norm(resid1, w[p + "post_attention_layernorm.weight"], eps)
        gate = lin(norm2, p + "mlp.gate_proj")
        gate_act = gate * torch.sigmoid(gate)      # SiLU
        up = lin(norm2, p + "mlp.up_proj")
        prod = gate_act * up
        ffn_out = lin(prod, p + "mlp.down_proj")
        resid2 = resid1 + ffn_out
        for name, t in [("norm1", norm1), ("norm1_rms", rms1), ("q", core_order(q, dk)), ("k", core_order(k, dk)),
                        ("q_rot", core_order(q_rot2, dk)), ("k_rot", core_order(k_rot2, dk)), ("v", v),
                        ("kv_group", torch.arange(h) // (h // kv)), ("scores", scores), ("scaled", scaled),
                        ("masked", masked), ("weights", weights), ("head_out", head_out), ("concat", concat),
                        ("attn_out", attn_out), ("resid1", resid1), ("norm2", norm2), ("norm2_rms", rms2),
                        ("ffn_gate", gate), ("ffn_gate_act", gate_act), ("ffn_up", up), ("ffn_prod", prod),
                        ("ffn_out", ffn_out), ("resid2", resid2)]:
            add(name, l, t.to(torch.float64))
        x = resid2
    final, rms = rms_norm(x, w["model.norm.weight"], eps)
    add("final_norm", -1, final)
    add("final_norm_rms", -1, rms)
    head = w["model.embed_tokens.weight"] if cfg["tie_word_embeddings"] else w["lm_head.weight"]
    logits = final @ head.t()
    add("logits", -1, logits)  # probs (softmax of logits) is left to the test: 20,000 more values a file
    return logits


def greedy(w, cfg, prompt, steps):
    """Greedy argmax, full recompute each step; margin = top-1 minus top-2 logit of each choice."""
    ids = list(prompt)
    nxt, margins = [], []
    for _ in range(steps):
        top = torch.topk(forward(w, cfg, ids)[-1], 2)
        nxt.append(int(top.indices[0]))
        margins.append(float(top.values[0] - top.values[1]))
        ids.append(nxt[-1])
    if min(margins) < 1e-3:
        sys.exit(f"FAIL {cfg['model_type']}: greedy margin {min(margins):.3g} too small for a float32 check")
    return {"prompt": list(prompt), "next": nxt, "margins": margins}


# ---------------------------------------------------------------- the tiny folders

def weights(cfg, seed, store, attention_bias=False, qkv_bias=False):
    """HF names and nn.Linear (out, in) layouts; values float32 rounded to `store`."""
    r = Rand(seed, store)
    d, F, V = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    h = cfg["num_attention_heads"]
    kvd = cfg["num_key_value_heads"] * (d // h)
    w = {"model.embed_tokens.weight": r.embedding(V, d, std=0.5)}
    for l in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{l}."
        w[p + "input_layernorm.weight"] = r.gamma(d)
        for name, out in (("q_proj", d), ("k_proj", kvd), ("v_proj", kvd), ("o_proj", d)):
            w[p + f"self_attn.{name}.weight"] = r.matrix(d, out, d)
            if (attention_bias or qkv_bias) and (name != "o_proj" or attention_bias):
                w[p + f"self_attn.{name}.bias"] = r.bias(out)
        w[p + "post_attention_layernorm.weight"] = r.gamma(d)
        w[p + "mlp.gate_proj.weight"] = r.matrix(d, F, d)
        w[p + "mlp.up_proj.weight"] = r.matrix(d, F, d)
        w[p + "mlp.down_proj.weight"] = r.matrix(F, d, F)
    w["model.norm.weight"] = r.gamma(d)
    if not cfg["tie_word_embeddings"]:
        w["lm_head.weight"] = r.matrix(d, V, d)
    return w


def base_config(model_type, arch, tok, **over):
    cfg = {
        "architectures": [arch],
        "attention_dropout": 0.0,
        "hidden_act": "silu",
        "hidden_size": 32,
        "initializer_range": 0.02,
        "intermediate_size": 88,
        "max_position_embeddings": 256,
        "model_type": model_type,
        "num_attention_heads": 4,
        "num_hidden_layers": 2,
        "num_key_value_heads": 2,
        "rms_norm_eps": 1e-05,
        "rope_theta": 10000.0,
        "tie_word_embeddings": False,
        "torch_dtype": "float32",
        "transformers_version": "4.40.0",
        "use_cache": True,
        "vocab_size": vocab_size_of(tok),
    }
    cfg.update(over)
    return dict(sorted(cfg.items()))


DTYPES = {"F32": (torch.float32, "float32"), "F16": (torch.float16, "float16"), "BF16": (torch.bfloat16, "bfloat16")}

# name, tokenizer, dtype, seed, config, extras written into the file the loader must skip, note
CASES = [
    ("llama-tiny", "llama2.json", "F32", 2601,
     base_config("llama", "LlamaForCausalLM", TOKENIZERS / "llama2.json", attention_bias=False, mlp_bias=False,
                 pretraining_tp=1, rope_scaling=None, bos_token_id=1, eos_token_id=2),
     "Llama 2 tokenizer, untied head, GQA (4 query heads, 2 K/V heads), rope_theta 10000"),
    ("llama3-tiny", "llama3.json", "BF16", 2602,
     base_config("llama", "LlamaForCausalLM", TOKENIZERS / "llama3.json", attention_bias=True, mlp_bias=False,
                 num_key_value_heads=4, rope_theta=500000.0, rope_scaling=None, tie_word_embeddings=True,
                 torch_dtype="bfloat16"),
     "Llama 3 tokenizer, tied head (and a saved lm_head.weight copy and rotary_emb.inv_freq buffers to skip), "
     "multi-head, attention_bias (q/k/v/o biases), rope_theta 500000"),
    ("mistral-tiny", "mistral.json", "F16", 2603,
     base_config("mistral", "MistralForCausalLM", TOKENIZERS / "mistral.json", num_key_value_heads=1,
                 sliding_window=4, max_position_embeddings=32768, rope_theta=1000000.0, torch_dtype="float16",
                 bos_token_id=1, eos_token_id=2),
     "Mistral tokenizer, sliding window 4 (shorter than the 10-token prompt), multi-query (1 K/V head), "
     "max_position_embeddings 32768 (cut to the core's 4096)"),
    ("qwen2-tiny", "qwen2.json", "F32", 2604,
     base_config("qwen2", "Qwen2ForCausalLM", TOKENIZERS / "qwen2.json", hidden_size=48, intermediate_size=96,
                 num_attention_heads=6, num_key_value_heads=2, rms_norm_eps=1e-06, rope_theta=1000000.0,
                 tie_word_embeddings=True, use_sliding_window=False, sliding_window=1024, max_window_layers=2,
                 vocab_size=2064),
     "Qwen2 tokenizer, q/k/v biases, GQA (6 query heads, 2 K/V heads), tied head, vocab_size 2064 > the "
     "tokenizer's 2051"),
]


def write_expected(name, doc):
    """make_hf_fixtures.write_expected, stage values to 10 significant digits (1e-10, far below the tests'
    1e-5) and -inf (masked) as null."""
    def num(x):
        if x == float("-inf"):
            return "null"
        assert math.isfinite(x)
        return "%.10g" % x

    def stage_line(s):
        head = json.dumps({"name": s["name"], "stack": s["stack"], "layer": s["layer"],
                           "shape": list(s["t"].shape)}, separators=(",", ":"))[:-1]
        data = ",".join(num(x) for x in s["t"].reshape(-1).tolist())
        return f"{head},\"data\":[{data}]}}"

    return hf_write_expected(name, doc, stage_line)


def write_folder(folder, cfg, tensors, dtype, tokenizer):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    write_safetensors(folder / "model.safetensors", tensors, dtype)
    (folder / "tokenizer.json").write_bytes(tokenizer.read_bytes())


def write_sharded(folder, cfg, tensors, dtype, tokenizer, shards=2):
    """save_pretrained(max_shard_size=...): model-0000k-of-0000n.safetensors and model.safetensors.index.json
    (weight_map: tensor name -> shard file; metadata.total_size: the bytes of every tensor)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    (folder / "tokenizer.json").write_bytes(tokenizer.read_bytes())
    names = sorted(tensors)
    per = math.ceil(len(names) / shards)
    weight_map, total = {}, 0
    for k in range(shards):
        file = f"model-{k + 1:05d}-of-{shards:05d}.safetensors"
        part = {n: tensors[n] for n in names[k * per:(k + 1) * per]}
        write_safetensors(folder / file, part, dtype)
        for n, t in part.items():
            weight_map[n] = file
            total += t.numel() * {"F32": 4, "F16": 2, "BF16": 2}[dtype]
    index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=2) + "\n")


def make(name, tok_file, dtype, seed, cfg, note):
    tok = TOKENIZERS / tok_file
    store, _ = DTYPES[dtype]
    is_llama3 = name == "llama3-tiny"
    w = weights(cfg, seed, store, attention_bias=cfg.get("attention_bias", False),
                qkv_bias=cfg["model_type"] == "qwen2")
    folder = HF / name
    saved = dict(w)
    if is_llama3:  # what older checkpoints hold besides the weights: the loader must skip both
        saved["lm_head.weight"] = w["model.embed_tokens.weight"]
        d_k = cfg["hidden_size"] // cfg["num_attention_heads"]
        inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, d_k, 2, dtype=torch.float32) / d_k))
        for l in range(cfg["num_hidden_layers"]):
            saved[f"model.layers.{l}.self_attn.rotary_emb.inv_freq"] = inv.to(store).to(torch.float32)
    write_folder(folder, cfg, saved, dtype, tok)
    if name == "mistral-tiny":
        write_sharded(HF / "mistral-tiny-sharded", cfg, saved, dtype, tok)
    # What the loader sees: the stored values (exact in the folder's dtype), as float64.
    stored, _ = read_safetensors(folder / "model.safetensors")
    w64 = {k: v.double() for k, v in stored.items()}
    for k, v in w.items():
        assert torch.equal(w64[k], v.double()), k
    ids = encode(tok, TEXT)[:N_IDS]
    assert len(ids) == N_IDS
    tr = Trace()
    forward(w64, cfg, ids, tr)
    # The sliding window really hides keys in this prompt (else the Mistral case would test nothing).
    if cfg["model_type"] == "mistral":
        masked = next(s["t"] for s in tr.stages if s["name"] == "masked")
        assert torch.isinf(masked[:, -1, : N_IDS - cfg["sliding_window"]]).all()
    doc = {"folder": rel(folder), "tokenizer": rel(tok), "note": note, "dtype": dtype, "text": TEXT,
           "ids_note": f"the first {N_IDS} ids of `text` encoded with the tokenizer (npm tokenizers)", "ids": ids,
           "stages": tr.stages, "greedy": greedy(w64, cfg, ids, GREEDY)}
    return write_expected(name, doc)


def main():
    paths = [make(*c) for c in CASES]
    for f in sorted(p for c in CASES for p in (HF / c[0]).glob("*")) + sorted((HF / "mistral-tiny-sharded").glob("*")):
        print(f"{rel(f)}  {f.stat().st_size} bytes  sha256 {sha256(f)[:16]}")
    for p in paths:
        print(f"{rel(p)}  {p.stat().st_size} bytes  sha256 {sha256(p)[:16]}")
    print("worst independent-check error (float64, limit %g):" % TOL_F64)
    for what, err in WORST.items():
        print(f"  {err:.2g}  {what}")


if __name__ == "__main__":
    main()
