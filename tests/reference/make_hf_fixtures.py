#!/usr/bin/python3
"""Golden values from PyTorch for Hugging Face GPT-2 and BERT folders (issue 16).

Run with Debian's python (torch 1.13, onnx 1.12):
    /usr/bin/python3 tests/reference/make_hf_fixtures.py                  # tiny folders + expected/*.json
    /usr/bin/python3 tests/reference/make_hf_fixtures.py --small-shape    # + expected/gpt2-small-shape.json
    /usr/bin/python3 tests/reference/make_hf_fixtures.py --onnx           # + build/bench/onnx/gpt2-*.onnx
(README: tests/reference/README.md, section "Hugging Face GPT-2 and BERT folders".)

No `transformers` here: the forward passes are written with plain torch ops from the published definitions
(modeling_gpt2.py: GPT2LMHeadModel, modeling_bert.py: BertForMaskedLM), every layer is cross-checked in
float64 against torch's own modules (nn.TransformerEncoderLayer, nn.MultiheadAttention, nn.LayerNorm,
F.gelu), and the folders are written with Hugging Face's config.json field names and safetensors tensor
names / layouts (safetensors written by hand). Weights are drawn in float32 from seeded generators and
rounded to F16 (GPT-2) or BF16 (BERT) before anything is computed, so the F32 folder and the F16 / BF16
folder of a family hold exactly the same values; stages are float64 from those values.
"""
import argparse
import hashlib
import json
import math
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_fixtures import json_text  # noqa: E402  (the fixtures' JSON layout)

REPO = Path(__file__).resolve().parents[2]
HF = REPO / "tests" / "fixtures" / "hf"
EXPECTED = HF / "expected"
TOKENIZERS = HF / "tokenizers"
SYNTH = REPO / "tests" / "tools" / "lib" / "hf-synthetic.mjs"
TOL_F64 = 1e-12     # hand-written float64 vs torch's modules in float64 (relative to the largest |value|)
MAX_BYTES = 1_500_000

torch.set_num_threads(1)  # same summation order every run


def rel(path):
    """A path relative to the repository when it is inside it (as written into the JSON files)."""
    path = Path(path).resolve()
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------- random values (float32, seeded, then rounded)

class Rand:
    """float32 draws from one seeded generator (as make_fixtures.py), each rounded to `store` (float16 or
    bfloat16) and back at once, so every weight is exact in the narrow dtype."""

    def __init__(self, seed, store):
        self.g = torch.Generator().manual_seed(seed)
        self.store = store

    def normal(self, *shape, std=1.0):
        t = torch.randn(*shape, generator=self.g, dtype=torch.float32) * std
        return t.to(self.store).to(torch.float32)

    def matrix(self, fan_in, *shape):
        return self.normal(*shape, std=1.0 / math.sqrt(fan_in))

    def embedding(self, rows, d, std=0.5):
        return self.normal(rows, d, std=std)

    def bias(self, n):
        return self.normal(n, std=0.2)

    def gamma(self, n):
        t = 1.0 + torch.randn(n, generator=self.g, dtype=torch.float32) * 0.1
        return t.to(self.store).to(torch.float32)

    def beta(self, n):
        return self.normal(n, std=0.1)


# ---------------------------------------------------------------- safetensors, by hand

ST_DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def tensor_bytes(t, dtype):
    narrow = t.detach().to(ST_DTYPES[dtype]).contiguous()
    assert torch.equal(narrow.to(torch.float64), t.detach().to(torch.float64)), "value not exact in " + dtype
    if dtype == "BF16":
        return narrow.view(torch.int16).numpy().astype("<i2").tobytes()
    return narrow.numpy().astype("<f4" if dtype == "F32" else "<f2").tobytes()


def write_safetensors(path, tensors, dtype):
    """tensors: {name: tensor}. Header and data in name order (as the safetensors library sorts them),
    JSON header padded with spaces to a multiple of 8 bytes, "__metadata__": {"format": "pt"}."""
    header = {"__metadata__": {"format": "pt"}}
    blobs = []
    offset = 0
    for name in sorted(tensors):
        blob = tensor_bytes(tensors[name], dtype)
        header[name] = {"dtype": dtype, "shape": list(tensors[name].shape),
                        "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header, separators=(",", ":"))
    text += " " * ((8 - len(text) % 8) % 8)
    raw = text.encode("utf-8")
    with open(path, "wb") as f:
        f.write(len(raw).to_bytes(8, "little"))
        f.write(raw)
        for blob in blobs:
            f.write(blob)


def read_safetensors(path):
    """{name: float32 tensor} in header order (our own reader; F32, F16, BF16)."""
    data = Path(path).read_bytes()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n].decode("utf-8"))
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        a, b = info["data_offsets"]
        buf = data[base + a: base + b]
        if info["dtype"] == "F32":
            t = torch.from_numpy(np.frombuffer(buf, dtype="<f4").copy())
        elif info["dtype"] == "F16":
            t = torch.from_numpy(np.frombuffer(buf, dtype="<f2").astype(np.float32))
        elif info["dtype"] == "BF16":
            t = torch.from_numpy(np.frombuffer(buf, dtype="<i2").copy()).view(torch.bfloat16).float()
        else:
            raise ValueError(info["dtype"])
        out[name] = t.reshape(info["shape"])
    return out, header


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


# ---------------------------------------------------------------- tokenizers (the npm package, through node)

def vocab_size_of(tokenizer_json):
    j = json.loads(Path(tokenizer_json).read_text())
    ids = list(j["model"]["vocab"].values()) + [a["id"] for a in j.get("added_tokens", [])]
    return max(ids) + 1


def token_id(tokenizer_json, token):
    j = json.loads(Path(tokenizer_json).read_text())
    for a in j.get("added_tokens", []):
        if a["content"] == token:
            return a["id"]
    return j["model"]["vocab"][token]


def encode(tokenizer_json, text):
    """ids from Hugging Face's tokenizers (npm package `tokenizers`), special tokens added as the file says."""
    script = ("const { Tokenizer } = require(process.argv[1]);"
              "Tokenizer.fromFile(process.argv[2]).encode(process.argv[3])"
              ".then((e) => console.log(JSON.stringify(e.getIds())));")
    out = subprocess.run(["node", "-e", script, str(REPO / "node_modules" / "tokenizers"), str(tokenizer_json), text],
                         check=True, capture_output=True, text=True, cwd=REPO)
    return json.loads(out.stdout)


# ---------------------------------------------------------------- the math, by hand, in float64

def layer_norm(x, gamma, beta, eps):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)  # biased variance
    return (x - mean) / torch.sqrt(var + eps) * gamma + beta


def gelu_new(x):
    """GPT-2's gelu_new (tanh approximation)."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def gelu_erf(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def attention(q, k, v, n_heads, causal):
    """q, k, v (n, d) with heads side by side; returns stages scores, scaled, weights, head_out, concat."""
    n, d = q.shape
    d_k = d // n_heads
    qh = q.reshape(n, n_heads, d_k).transpose(0, 1)      # (h, n, d_k)
    kh = k.reshape(n, n_heads, d_k).transpose(0, 1)
    vh = v.reshape(n, n_heads, d_k).transpose(0, 1)
    scores = qh @ kh.transpose(1, 2)                     # (h, n, n), unscaled
    scaled = scores / math.sqrt(d_k)
    masked = scaled
    if causal:
        masked = scaled.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    weights = torch.softmax(masked, dim=-1)              # exp(-inf) = 0: masked entries are exactly 0
    head_out = weights @ vh                              # (h, n, d_k)
    concat = head_out.transpose(0, 1).reshape(n, d)
    return {"scores": scores, "scaled": scaled, "weights": weights, "head_out": head_out, "concat": concat}


class Trace:
    def __init__(self):
        self.stages = []

    def add(self, name, stack, layer, t):
        self.stages.append({"name": name, "stack": stack, "layer": layer, "t": t.detach().to(torch.float64)})

    def get(self, name, layer=-1):
        return next(s["t"] for s in self.stages if s["name"] == name and s["layer"] == layer)


def gpt2_forward(w, cfg, ids, trace=None, keep=None):
    """GPT2LMHeadModel in float64. w: {HF name without "transformer.": float64}. Returns logits (n, V)."""
    tr = trace or Trace()
    keep = keep or (lambda name, layer: True)

    def add(name, layer, t):
        if trace is not None and keep(name, layer):
            tr.add(name, "" if name == "logits" else "decoder", layer, t)

    n, d, h, eps = len(ids), cfg["n_embd"], cfg["n_head"], cfg["layer_norm_epsilon"]
    add("tokens", -1, torch.tensor(ids, dtype=torch.float64))
    embed = w["wte.weight"][ids]
    pos = w["wpe.weight"][:n]
    add("embed", -1, embed)
    add("pos", -1, pos)
    x = embed + pos
    add("x", -1, x)
    for l in range(cfg["n_layer"]):
        p = f"h.{l}."
        norm1 = layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        qkv = norm1 @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]  # Conv1D: (in, 3d)
        q, k, v = qkv.split(d, dim=1)
        st = attention(q, k, v, h, causal=True)
        attn_out = st["concat"] @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        resid1 = x + attn_out
        norm2 = layer_norm(resid1, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        hidden = norm2 @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]
        act = gelu_new(hidden)
        ffn_out = act @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
        resid2 = resid1 + ffn_out
        for name, t in [("norm1", norm1), ("q", q), ("k", k), ("v", v)] + list(st.items()) + [
                ("attn_out", attn_out), ("resid1", resid1), ("norm2", norm2), ("ffn_hidden", hidden),
                ("ffn_act", act), ("ffn_out", ffn_out), ("resid2", resid2)]:
            add(name, l, t)
        x = resid2
    final = layer_norm(x, w["ln_f.weight"], w["ln_f.bias"], eps)
    add("final_norm", -1, final)
    logits = final @ w["wte.weight"].t()  # tied head, no bias
    add("logits", -1, logits)
    return logits


def bert_forward(w, cfg, ids, trace=None):
    """BertForMaskedLM in float64 (one unpadded sequence, token type 0). w: HF names (weight/bias)."""
    tr = trace or Trace()

    def add(name, layer, t):
        if trace is not None:
            head = name in ("mlm_dense", "mlm_act", "mlm_norm", "logits")
            tr.add(name, "" if head else "encoder", layer, t)

    n, h, eps = len(ids), cfg["num_attention_heads"], cfg["layer_norm_eps"]
    e = "bert.embeddings."
    add("tokens", -1, torch.tensor(ids, dtype=torch.float64))
    embed = w[e + "word_embeddings.weight"][ids]
    pos = w[e + "position_embeddings.weight"][:n]
    type_emb = w[e + "token_type_embeddings.weight"][[0] * n]
    emb_sum = embed + pos + type_emb
    x = layer_norm(emb_sum, w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], eps)
    for name, t in [("embed", embed), ("pos", pos), ("type_emb", type_emb), ("emb_sum", emb_sum), ("x", x)]:
        add(name, -1, t)

    def lin(t, name):  # nn.Linear: weight (out, in)
        return t @ w[name + ".weight"].t() + w[name + ".bias"]

    for l in range(cfg["num_hidden_layers"]):
        p = f"bert.encoder.layer.{l}."
        q, k, v = (lin(x, p + "attention.self." + s) for s in ("query", "key", "value"))
        st = attention(q, k, v, h, causal=False)
        attn_out = lin(st["concat"], p + "attention.output.dense")
        resid1 = x + attn_out
        norm1 = layer_norm(resid1, w[p + "attention.output.LayerNorm.weight"],
                           w[p + "attention.output.LayerNorm.bias"], eps)
        hidden = lin(norm1, p + "intermediate.dense")
        act = gelu_erf(hidden)
        ffn_out = lin(act, p + "output.dense")
        resid2 = norm1 + ffn_out
        norm2 = layer_norm(resid2, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
        for name, t in [("q", q), ("k", k), ("v", v)] + list(st.items()) + [
                ("attn_out", attn_out), ("resid1", resid1), ("norm1", norm1), ("ffn_hidden", hidden),
                ("ffn_act", act), ("ffn_out", ffn_out), ("resid2", resid2), ("norm2", norm2)]:
            add(name, l, t)
        x = norm2
    c = "cls.predictions."
    dense = lin(x, c + "transform.dense")
    act = gelu_erf(dense)
    norm = layer_norm(act, w[c + "transform.LayerNorm.weight"], w[c + "transform.LayerNorm.bias"], eps)
    logits = norm @ w[e + "word_embeddings.weight"].t() + w[c + "bias"]  # decoder tied to word_embeddings
    for name, t in [("mlm_dense", dense), ("mlm_act", act), ("mlm_norm", norm), ("logits", logits)]:
        add(name, -1, t)
    return logits


# ---------------------------------------------------------------- checks against torch's modules

def rel_err(a, b):
    a, b = a.detach().to(torch.float64), b.detach().to(torch.float64)
    return (a - b).abs().max().item() / max(b.abs().max().item(), 1e-300)


WORST = {}


def check(what, got, want, tol=TOL_F64):
    err = rel_err(got, want)
    if not err <= tol:
        sys.exit(f"FAIL {what}: max relative error {err:.3g} > {tol:g}")
    WORST[what.split(":")[0]] = max(WORST.get(what.split(":")[0], 0.0), err)
    return err


def causal_float_mask(n):
    return torch.zeros(n, n, dtype=torch.float64).masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1),
                                                              float("-inf"))


def check_gpt2(family, w, cfg, ids, tr):
    """Each block against nn.TransformerEncoderLayer(norm_first=True, gelu_new) with a causal mask, its
    attention against nn.MultiheadAttention, and the whole model against those modules chained."""
    d, h, eps, n = cfg["n_embd"], cfg["n_head"], cfg["layer_norm_epsilon"], len(ids)
    xs = torch.linspace(-6, 6, 1201, dtype=torch.float64)
    check(f"{family} gelu_new vs F.gelu(approximate='tanh')", gelu_new(xs), F.gelu(xs, approximate="tanh"))
    mask = causal_float_mask(n)
    layers = []
    for l in range(cfg["n_layer"]):
        p = f"h.{l}."
        layer = nn.TransformerEncoderLayer(d, h, dim_feedforward=w[p + "mlp.c_fc.weight"].shape[1], dropout=0.0,
                                           activation=gelu_new, layer_norm_eps=eps, batch_first=True,
                                           norm_first=True).double()
        with torch.no_grad():
            sa = layer.self_attn
            sa.in_proj_weight.copy_(w[p + "attn.c_attn.weight"].t())   # Conv1D (in, 3d) -> (3d, in)
            sa.in_proj_bias.copy_(w[p + "attn.c_attn.bias"])
            sa.out_proj.weight.copy_(w[p + "attn.c_proj.weight"].t())
            sa.out_proj.bias.copy_(w[p + "attn.c_proj.bias"])
            layer.norm1.weight.copy_(w[p + "ln_1.weight"])
            layer.norm1.bias.copy_(w[p + "ln_1.bias"])
            layer.norm2.weight.copy_(w[p + "ln_2.weight"])
            layer.norm2.bias.copy_(w[p + "ln_2.bias"])
            layer.linear1.weight.copy_(w[p + "mlp.c_fc.weight"].t())
            layer.linear1.bias.copy_(w[p + "mlp.c_fc.bias"])
            layer.linear2.weight.copy_(w[p + "mlp.c_proj.weight"].t())
            layer.linear2.bias.copy_(w[p + "mlp.c_proj.bias"])
        layer.eval()
        layers.append(layer)
        x_in = tr.get("x") if l == 0 else tr.get("resid2", l - 1)
        norm1 = tr.get("norm1", l)
        check(f"{family} ln_1 vs F.layer_norm: layer {l}", norm1,
              F.layer_norm(x_in, (d,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps))
        out, wts = layer.self_attn(norm1[None], norm1[None], norm1[None], attn_mask=mask, need_weights=True,
                                   average_attn_weights=False)
        check(f"{family} attention vs nn.MultiheadAttention: layer {l}", tr.get("attn_out", l), out[0])
        check(f"{family} weights vs nn.MultiheadAttention: layer {l}", tr.get("weights", l), wts[0])
        check(f"{family} block vs nn.TransformerEncoderLayer(norm_first): layer {l}", tr.get("resid2", l),
              layer(x_in[None], src_mask=mask)[0])
    # the whole model from modules: nn.Embedding, the layers, nn.LayerNorm, the tied head as F.linear
    wte = nn.Embedding.from_pretrained(w["wte.weight"])
    wpe = nn.Embedding.from_pretrained(w["wpe.weight"])
    ln_f = nn.LayerNorm(d, eps=eps).double()
    with torch.no_grad():
        ln_f.weight.copy_(w["ln_f.weight"])
        ln_f.bias.copy_(w["ln_f.bias"])
    hid = wte(torch.tensor(ids)) + wpe(torch.arange(n))
    for layer in layers:
        hid = layer(hid[None], src_mask=mask)[0]
    check(f"{family} logits vs modules chained", tr.get("logits"), F.linear(ln_f(hid), w["wte.weight"]))
    # the causal mask: weights above the diagonal are exactly 0
    for l in range(cfg["n_layer"]):
        assert (tr.get("weights", l)[:, torch.ones(n, n, dtype=torch.bool).triu(1)] == 0).all()


def check_bert(family, w, cfg, ids, tr):
    """Each layer against nn.TransformerEncoderLayer(norm_first=False, 'gelu'), attention against
    nn.MultiheadAttention, embeddings / MLM head against nn.LayerNorm, nn.Linear and F.gelu."""
    d, h, eps, n = cfg["hidden_size"], cfg["num_attention_heads"], cfg["layer_norm_eps"], len(ids)
    xs = torch.linspace(-6, 6, 1201, dtype=torch.float64)
    check(f"{family} gelu vs F.gelu", gelu_erf(xs), F.gelu(xs))
    e = "bert.embeddings."
    check(f"{family} embeddings LayerNorm vs F.layer_norm", tr.get("x"),
          F.layer_norm(tr.get("emb_sum"), (d,), w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], eps))
    layers = []
    for l in range(cfg["num_hidden_layers"]):
        p = f"bert.encoder.layer.{l}."
        a = p + "attention."
        layer = nn.TransformerEncoderLayer(d, h, dim_feedforward=cfg["intermediate_size"], dropout=0.0,
                                           activation="gelu", layer_norm_eps=eps, batch_first=True,
                                           norm_first=False).double()
        with torch.no_grad():
            sa = layer.self_attn
            sa.in_proj_weight.copy_(torch.cat([w[a + f"self.{s}.weight"] for s in ("query", "key", "value")]))
            sa.in_proj_bias.copy_(torch.cat([w[a + f"self.{s}.bias"] for s in ("query", "key", "value")]))
            sa.out_proj.weight.copy_(w[a + "output.dense.weight"])
            sa.out_proj.bias.copy_(w[a + "output.dense.bias"])
            layer.norm1.weight.copy_(w[a + "output.LayerNorm.weight"])
            layer.norm1.bias.copy_(w[a + "output.LayerNorm.bias"])
            layer.linear1.weight.copy_(w[p + "intermediate.dense.weight"])
            layer.linear1.bias.copy_(w[p + "intermediate.dense.bias"])
            layer.linear2.weight.copy_(w[p + "output.dense.weight"])
            layer.linear2.bias.copy_(w[p + "output.dense.bias"])
            layer.norm2.weight.copy_(w[p + "output.LayerNorm.weight"])
            layer.norm2.bias.copy_(w[p + "output.LayerNorm.bias"])
        layer.eval()
        layers.append(layer)
        x_in = tr.get("x") if l == 0 else tr.get("norm2", l - 1)
        out, wts = layer.self_attn(x_in[None], x_in[None], x_in[None], need_weights=True,
                                   average_attn_weights=False)
        check(f"{family} attention vs nn.MultiheadAttention: layer {l}", tr.get("attn_out", l), out[0])
        check(f"{family} weights vs nn.MultiheadAttention: layer {l}", tr.get("weights", l), wts[0])
        check(f"{family} layer vs nn.TransformerEncoderLayer(post-norm): layer {l}", tr.get("norm2", l),
              layer(x_in[None])[0])
    c = "cls.predictions."
    dense = nn.Linear(d, d).double()
    ln = nn.LayerNorm(d, eps=eps).double()
    with torch.no_grad():
        dense.weight.copy_(w[c + "transform.dense.weight"])
        dense.bias.copy_(w[c + "transform.dense.bias"])
        ln.weight.copy_(w[c + "transform.LayerNorm.weight"])
        ln.bias.copy_(w[c + "transform.LayerNorm.bias"])
    emb = nn.LayerNorm(d, eps=eps).double()
    with torch.no_grad():
        emb.weight.copy_(w[e + "LayerNorm.weight"])
        emb.bias.copy_(w[e + "LayerNorm.bias"])
    t = torch.tensor(ids)
    hid = emb(F.embedding(t, w[e + "word_embeddings.weight"])
              + F.embedding(torch.arange(n), w[e + "position_embeddings.weight"])
              + F.embedding(torch.zeros_like(t), w[e + "token_type_embeddings.weight"]))
    for layer in layers:
        hid = layer(hid[None])[0]
    logits = F.linear(ln(F.gelu(dense(hid))), w[e + "word_embeddings.weight"], w[c + "bias"])
    check(f"{family} logits vs modules chained", tr.get("logits"), logits)


# ---------------------------------------------------------------- the tiny models

def gpt2_tiny():
    tok = TOKENIZERS / "bpe.json"
    V = vocab_size_of(tok)
    eot = token_id(tok, "<|endoftext|>")
    d, h, L, P = 64, 4, 2, 128
    cfg = {
        "activation_function": "gelu_new",
        "architectures": ["GPT2LMHeadModel"],
        "attn_pdrop": 0.1,
        "bos_token_id": eot,
        "embd_pdrop": 0.1,
        "eos_token_id": eot,
        "initializer_range": 0.02,
        "layer_norm_epsilon": 1e-05,
        "model_type": "gpt2",
        "n_ctx": P,
        "n_embd": d,
        "n_head": h,
        "n_inner": None,
        "n_layer": L,
        "n_positions": P,
        "reorder_and_upcast_attn": False,
        "resid_pdrop": 0.1,
        "scale_attn_by_inverse_layer_idx": False,
        "scale_attn_weights": True,
        "summary_activation": None,
        "summary_first_dropout": 0.1,
        "summary_proj_to_labels": True,
        "summary_type": "cls_index",
        "summary_use_proj": True,
        "tie_word_embeddings": True,
        "torch_dtype": "float32",
        "use_cache": True,
        "vocab_size": V,
    }
    # embeddings 0.1 randn (not 0.5): with the tied head, large embeddings make the model predict its last
    # input token again and greedy decoding repeats one id; seed 1610 gives 4 different ids with a top-1 /
    # top-2 logit margin of at least 0.1 (safe for float32)
    r = Rand(1610, torch.float16)
    w = {"wte.weight": r.embedding(V, d, std=0.1), "wpe.weight": r.embedding(P, d, std=0.1)}
    for l in range(L):
        p = f"h.{l}."
        w[p + "ln_1.weight"] = r.gamma(d)
        w[p + "ln_1.bias"] = r.beta(d)
        w[p + "attn.c_attn.weight"] = r.matrix(d, d, 3 * d)      # Conv1D: (in, out)
        w[p + "attn.c_attn.bias"] = r.bias(3 * d)
        w[p + "attn.c_proj.weight"] = r.matrix(d, d, d)
        w[p + "attn.c_proj.bias"] = r.bias(d)
        w[p + "ln_2.weight"] = r.gamma(d)
        w[p + "ln_2.bias"] = r.beta(d)
        w[p + "mlp.c_fc.weight"] = r.matrix(d, d, 4 * d)
        w[p + "mlp.c_fc.bias"] = r.bias(4 * d)
        w[p + "mlp.c_proj.weight"] = r.matrix(4 * d, 4 * d, d)
        w[p + "mlp.c_proj.bias"] = r.bias(d)
    w["ln_f.weight"] = r.gamma(d)
    w["ln_f.bias"] = r.beta(d)

    folders = [HF / "gpt2-tiny", HF / "gpt2-tiny-f16"]
    # GPT2LMHeadModel.save_pretrained: "transformer." prefix, lm_head.weight left out (tied)
    write_folder(folders[0], cfg, {"transformer." + k: v for k, v in w.items()}, "F32", tok)
    # the official gpt2 checkpoint: no prefix, plus the causal-mask buffers h.{i}.attn.bias (1, 1, P, P)
    f16 = dict(w)
    for l in range(L):
        f16[f"h.{l}.attn.bias"] = torch.ones(P, P).tril().reshape(1, 1, P, P)
    write_folder(folders[1], dict(cfg, torch_dtype="float16"), f16, "F16", tok)

    w64 = {k: v.double() for k, v in load_gpt2(folders[0]).items()}
    for k, v in load_gpt2(folders[1]).items():
        assert torch.equal(v.double(), w64[k]), k
    text = "The cat sat on the mat. Attention is all you need."
    ids = encode(tok, text)[:12]
    assert len(ids) == 12
    tr = Trace()
    gpt2_forward(w64, cfg, ids, tr)
    check_gpt2("gpt2-tiny", w64, cfg, ids, tr)
    greedy = greedy_gpt2(w64, cfg, ids, 8, keep_logits=True)
    doc = {"folders": [rel(f) for f in folders], "tokenizer": rel(tok), "text": text,
           "ids_note": "the first 12 ids of `text` encoded with the tokenizer (npm tokenizers)", "ids": ids,
           "stages": tr.stages, "greedy": greedy}
    return write_expected("gpt2-tiny", doc)


def load_gpt2(folder):
    """Names without "transformer.", mask buffers skipped: what a loader must do with either folder."""
    t, _ = read_safetensors(folder / "model.safetensors")
    out = {}
    for k, v in t.items():
        k = k[len("transformer."):] if k.startswith("transformer.") else k
        if k.endswith(".attn.bias") or k.endswith(".attn.masked_bias"):
            continue
        out[k] = v
    return out


def greedy_gpt2(w, cfg, prompt, steps, keep_logits=False):
    """Greedy argmax with a full recompute each step; margin = top-1 minus top-2 logit of each choice;
    keep_logits: also the whole last-position logits row of each step (what a KV-cache step must give)."""
    ids = list(prompt)
    nxt, margins, rows = [], [], []
    for _ in range(steps):
        last = gpt2_forward(w, cfg, ids)[-1]
        rows.append(last.tolist())
        top = torch.topk(last, 2)
        nxt.append(int(top.indices[0]))
        margins.append(float(top.values[0] - top.values[1]))
        ids.append(nxt[-1])
    if min(margins) < 1e-3:
        print(f"warning: greedy margin {min(margins):.3g} is small for a float32 implementation")
    out = {"prompt": list(prompt), "next": nxt, "margins": margins}
    if keep_logits:
        out["step_logits"] = rows
    return out


def bert_tiny():
    tok = TOKENIZERS / "wordpiece.json"
    V = vocab_size_of(tok)
    d, h, L, ff, P = 64, 4, 2, 128, 128
    cfg = {
        "architectures": ["BertForMaskedLM"],
        "attention_probs_dropout_prob": 0.1,
        "classifier_dropout": None,
        "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1,
        "hidden_size": d,
        "initializer_range": 0.02,
        "intermediate_size": ff,
        "layer_norm_eps": 1e-12,
        "max_position_embeddings": P,
        "model_type": "bert",
        "num_attention_heads": h,
        "num_hidden_layers": L,
        "pad_token_id": 0,
        "position_embedding_type": "absolute",
        "torch_dtype": "float32",
        "type_vocab_size": 2,
        "use_cache": True,
        "vocab_size": V,
    }
    r = Rand(1602, torch.bfloat16)
    e = "bert.embeddings."
    w = {e + "word_embeddings.weight": r.embedding(V, d), e + "position_embeddings.weight": r.embedding(P, d),
         e + "token_type_embeddings.weight": r.embedding(2, d), e + "LayerNorm.weight": r.gamma(d),
         e + "LayerNorm.bias": r.beta(d)}

    def linear(name, fan_in, fan_out):  # nn.Linear: (out, in)
        w[name + ".weight"] = r.matrix(fan_in, fan_out, fan_in)
        w[name + ".bias"] = r.bias(fan_out)

    def norm(name):
        w[name + ".weight"] = r.gamma(d)
        w[name + ".bias"] = r.beta(d)

    for l in range(L):
        p = f"bert.encoder.layer.{l}."
        for s in ("query", "key", "value"):
            linear(p + "attention.self." + s, d, d)
        linear(p + "attention.output.dense", d, d)
        norm(p + "attention.output.LayerNorm")
        linear(p + "intermediate.dense", d, ff)
        linear(p + "output.dense", ff, d)
        norm(p + "output.LayerNorm")
    c = "cls.predictions."
    w[c + "bias"] = r.bias(V)
    linear(c + "transform.dense", d, d)
    norm(c + "transform.LayerNorm")
    # drawn last, so they change nothing above: in the BF16 folder only, unused by BertForMaskedLM
    pooler_w, pooler_b = r.matrix(d, d, d), r.bias(d)
    nsp_w, nsp_b = r.matrix(d, 2, d), r.bias(2)

    folders = [HF / "bert-tiny", HF / "bert-tiny-bf16"]
    write_folder(folders[0], cfg, w, "F32", tok)
    # bert-base-uncased as converted from TensorFlow: LayerNorm.gamma / .beta, an explicit decoder weight,
    # the pooler and the next-sentence head
    old = {k.replace("LayerNorm.weight", "LayerNorm.gamma").replace("LayerNorm.bias", "LayerNorm.beta"): v
           for k, v in w.items()}
    old["cls.predictions.decoder.weight"] = w[e + "word_embeddings.weight"].clone()
    old["bert.pooler.dense.weight"], old["bert.pooler.dense.bias"] = pooler_w, pooler_b
    old["cls.seq_relationship.weight"], old["cls.seq_relationship.bias"] = nsp_w, nsp_b
    write_folder(folders[1], dict(cfg, torch_dtype="bfloat16"), old, "BF16", tok)

    w64 = {k: v.double() for k, v in load_bert(folders[0]).items()}
    for k, v in load_bert(folders[1]).items():
        assert torch.equal(v.double(), w64[k]), k
    assert set(load_bert(folders[1])) == set(w64)
    text = "the cat sat on the [MASK] ."
    ids = encode(tok, text)
    cls_id, sep_id, mask_id = (token_id(tok, s) for s in ("[CLS]", "[SEP]", "[MASK]"))
    assert ids[0] == cls_id and ids[-1] == sep_id and ids.count(mask_id) == 1, ids
    tr = Trace()
    logits = bert_forward(w64, cfg, ids, tr)
    check_bert("bert-tiny", w64, cfg, ids, tr)
    pos = ids.index(mask_id)
    probs = torch.softmax(logits[pos], dim=-1)
    top = torch.topk(probs, 5)
    mlm = {"position": pos, "ids": top.indices.tolist(), "probs": top.values.tolist()}
    doc = {"folders": [rel(f) for f in folders], "tokenizer": rel(tok), "text": text,
           "ids_note": "`text` encoded with the tokenizer (npm tokenizers; its post-processor adds [CLS] and [SEP])",
           "ids": ids, "stages": tr.stages, "mlm": mlm}
    return write_expected("bert-tiny", doc)


DISTIL_NAMES = [  # BERT name -> DistilBERT name (DistilBertForMaskedLM.save_pretrained), per layer with {l}
    ("bert.embeddings.word_embeddings.weight", "distilbert.embeddings.word_embeddings.weight"),
    ("bert.embeddings.position_embeddings.weight", "distilbert.embeddings.position_embeddings.weight"),
    ("bert.embeddings.LayerNorm.", "distilbert.embeddings.LayerNorm."),
    ("bert.encoder.layer.{l}.attention.self.query.", "distilbert.transformer.layer.{l}.attention.q_lin."),
    ("bert.encoder.layer.{l}.attention.self.key.", "distilbert.transformer.layer.{l}.attention.k_lin."),
    ("bert.encoder.layer.{l}.attention.self.value.", "distilbert.transformer.layer.{l}.attention.v_lin."),
    ("bert.encoder.layer.{l}.attention.output.dense.", "distilbert.transformer.layer.{l}.attention.out_lin."),
    ("bert.encoder.layer.{l}.attention.output.LayerNorm.", "distilbert.transformer.layer.{l}.sa_layer_norm."),
    ("bert.encoder.layer.{l}.intermediate.dense.", "distilbert.transformer.layer.{l}.ffn.lin1."),
    ("bert.encoder.layer.{l}.output.dense.", "distilbert.transformer.layer.{l}.ffn.lin2."),
    ("bert.encoder.layer.{l}.output.LayerNorm.", "distilbert.transformer.layer.{l}.output_layer_norm."),
    ("cls.predictions.transform.dense.", "vocab_transform."),
    ("cls.predictions.transform.LayerNorm.", "vocab_layer_norm."),
    ("cls.predictions.bias", "vocab_projector.bias"),
]


def distilbert_tiny():
    """DistilBERT (DistilBertForMaskedLM): BERT's layers under other names, no token types, the MLM
    head as vocab_transform -> GELU -> vocab_layer_norm -> vocab_projector (tied). Recorded with
    bert_forward on the same values renamed and token-type rows of zeros (so type_emb adds nothing and
    is not a stage of this model)."""
    tok = TOKENIZERS / "wordpiece.json"
    V = vocab_size_of(tok)
    d, h, L, ff, P = 64, 4, 2, 128, 128
    cfg = {"activation": "gelu", "architectures": ["DistilBertForMaskedLM"], "attention_dropout": 0.1, "dim": d,
           "dropout": 0.1, "hidden_dim": ff, "initializer_range": 0.02, "max_position_embeddings": P,
           "model_type": "distilbert", "n_heads": h, "n_layers": L, "pad_token_id": 0, "qa_dropout": 0.1,
           "seq_classif_dropout": 0.2, "sinusoidal_pos_embds": False, "tie_weights_": True, "vocab_size": V}
    bcfg = {"num_attention_heads": h, "layer_norm_eps": 1e-12, "num_hidden_layers": L}
    r = Rand(1603, torch.float16)
    e = "bert.embeddings."
    w = {e + "word_embeddings.weight": r.embedding(V, d), e + "position_embeddings.weight": r.embedding(P, d),
         e + "LayerNorm.weight": r.gamma(d), e + "LayerNorm.bias": r.beta(d)}
    for l in range(L):
        p = f"bert.encoder.layer.{l}."
        for s, fi, fo in [("attention.self.query", d, d), ("attention.self.key", d, d),
                          ("attention.self.value", d, d), ("attention.output.dense", d, d),
                          ("intermediate.dense", d, ff), ("output.dense", ff, d)]:
            w[p + s + ".weight"], w[p + s + ".bias"] = r.matrix(fi, fo, fi), r.bias(fo)
        for s in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + s + ".weight"], w[p + s + ".bias"] = r.gamma(d), r.beta(d)
    c = "cls.predictions."
    w[c + "bias"] = r.bias(V)
    w[c + "transform.dense.weight"], w[c + "transform.dense.bias"] = r.matrix(d, d, d), r.bias(d)
    w[c + "transform.LayerNorm.weight"], w[c + "transform.LayerNorm.bias"] = r.gamma(d), r.beta(d)

    def distil(name):
        for l in range(L):
            for a, b in DISTIL_NAMES:
                a, b = a.format(l=l), b.format(l=l)
                if name.startswith(a):
                    return b + name[len(a):]
        raise KeyError(name)

    folder = HF / "distilbert-tiny"
    write_folder(folder, cfg, {distil(k): v for k, v in w.items()}, "F16", tok)
    back, _ = read_safetensors(folder / "model.safetensors")
    w64 = {k: v.double() for k, v in w.items()}
    for k, v in w.items():
        assert torch.equal(back[distil(k)].double(), w64[k]), k
    w64[e + "token_type_embeddings.weight"] = torch.zeros(2, d, dtype=torch.float64)
    text = "the cat sat on the [MASK] ."
    ids = encode(tok, text)
    tr = Trace()
    logits = bert_forward(w64, bcfg, ids, tr)
    stages = [s for s in tr.stages if s["name"] != "type_emb"]
    pos = ids.index(token_id(tok, "[MASK]"))
    top = torch.topk(torch.softmax(logits[pos], dim=-1), 5)
    doc = {"folders": [rel(folder)], "tokenizer": rel(tok), "text": text,
           "ids_note": "`text` encoded with the tokenizer (npm tokenizers; its post-processor adds [CLS] and [SEP])",
           "ids": ids, "stages": stages,
           "mlm": {"position": pos, "ids": top.indices.tolist(), "probs": top.values.tolist()}}
    return write_expected("distilbert-tiny", doc)


def load_bert(folder):
    """What a loader must do with either folder: gamma/beta -> weight/bias, skip the tied decoder weight
    (after checking it equals the word embeddings), the pooler and the next-sentence head."""
    t, _ = read_safetensors(folder / "model.safetensors")
    out = {}
    for k, v in t.items():
        k = k.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias")
        if k == "cls.predictions.decoder.weight":
            assert torch.equal(v, t["bert.embeddings.word_embeddings.weight"])
            continue
        if k.startswith("bert.pooler.") or k.startswith("cls.seq_relationship."):
            continue
        out[k] = v
    return out


def write_folder(folder, cfg, tensors, dtype, tokenizer):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    write_safetensors(folder / "model.safetensors", tensors, dtype)
    shutil.copyfile(tokenizer, folder / "tokenizer.json")


# ---------------------------------------------------------------- JSON

def floats(t):
    flat = t.reshape(-1).tolist()
    assert all(math.isfinite(x) for x in flat), "NaN/Inf in a stage"
    return flat


def stage_json(s):
    """One stage of an expected file: name, stack, layer, shape and its values."""
    return json.dumps({"name": s["name"], "stack": s["stack"], "layer": s["layer"], "shape": list(s["t"].shape),
                       "data": floats(s["t"])}, separators=(",", ":"), allow_nan=False)


def write_expected(name, doc, stage_line=stage_json):
    """EXPECTED/<name>.json: doc's keys one a line, its "stages" one stage a line (stage_line)."""
    def block(key, val):
        return "[\n" + ",\n".join(" " + stage_line(s) for s in val) + "\n ]" if key == "stages" else None

    text = json_text(doc, block)
    json.loads(text)
    assert len(text) < MAX_BYTES, f"{name}: {len(text)} bytes"
    EXPECTED.mkdir(parents=True, exist_ok=True)
    path = EXPECTED / f"{name}.json"
    path.write_text(text)
    return path


# ---------------------------------------------------------------- GPT-2-small-shaped model (generated by Node)

def lowbias32(x):
    x = x ^ (x >> np.uint32(16))
    x = x * np.uint32(0x7FEB352D)
    x = x ^ (x >> np.uint32(15))
    x = x * np.uint32(0x846CA68B)
    return x ^ (x >> np.uint32(16))


def synthetic_kind(name):
    if name in ("wte.weight", "wpe.weight"):
        return "embedding"
    if ".ln_" in name or name.startswith("ln_f."):
        return "ln_weight" if name.endswith(".weight") else "ln_bias"
    return "matrix" if name.endswith(".weight") else "bias"


def synthetic_values(t, count, kind):
    """hf-synthetic.mjs's values, recomputed with numpy: tensor number t, elements 0..count-1."""
    i = np.arange(count, dtype=np.uint64)
    x = ((i + np.uint64(((t + 1) * 0x9E3779B9) & 0xFFFFFFFF)) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    k = (lowbias32(x) >> np.uint32(21)).astype(np.int32) - 1024
    if kind == "matrix":
        return k * 2.0 ** -15
    if kind == "embedding":
        return k * 2.0 ** -13
    if kind == "bias":
        return k * 2.0 ** -16
    if kind == "ln_weight":
        return 1.0 + (k >> 4) * 2.0 ** -10
    return k * 2.0 ** -14


def small_shape(folder):
    t0 = time.time()
    subprocess.run(["node", str(SYNTH), str(folder)], check=True, cwd=REPO)
    model = folder / "model.safetensors"
    cfg = json.loads((folder / "config.json").read_text())
    digest = sha256(model)
    tensors, header = read_safetensors(model)
    for t, (name, v) in enumerate(tensors.items()):  # the Node generator against the formula, every element
        want = synthetic_values(t, v.numel(), synthetic_kind(name))
        assert header[name]["dtype"] == "F16"
        if not np.array_equal(v.reshape(-1).numpy().astype(np.float64), want):
            sys.exit(f"FAIL {name}: hf-synthetic.mjs values differ from the formula")
    print(f"{rel(model)}: {model.stat().st_size} bytes, sha256 {digest}, {len(tensors)} tensors match the formula"
          f" ({time.time() - t0:.1f} s)")
    w64 = {k: v.double() for k, v in tensors.items()}
    text = "The cat sat on the mat. Attention is all you need. The dog"
    ids = encode(TOKENIZERS / "bpe.json", text)[:16]
    assert len(ids) == 16 and max(ids) < 512
    keep_layers = {0, 5, 11}

    def keep(name, layer):
        return ((name == "weights" and layer in keep_layers) or (name == "resid2" and layer == 0)
                or name in ("final_norm", "logits"))

    tr = Trace()
    logits = gpt2_forward(w64, cfg, ids, tr, keep)
    # spot check against torch's modules: layer 0 as nn.TransformerEncoderLayer(norm_first=True)
    t1 = time.time()
    mini = dict(cfg, n_layer=1)
    tr1 = Trace()
    gpt2_forward(w64, mini, ids, tr1)
    check_gpt2("gpt2-small-shape (layer 0 only)", w64, mini, ids, tr1)
    check("gpt2-small-shape weights layer 0 vs the 1-layer run", tr.get("weights", 0), tr1.get("weights", 0), 0.0)
    last = logits[-1]
    every = list(range(0, cfg["vocab_size"], 25))
    top = torch.topk(last, 5)
    greedy = greedy_gpt2(w64, cfg, ids, 8)
    stages = [s for s in tr.stages if s["name"] != "logits"]
    doc = {"folder": rel(folder), "generator": rel(SYNTH), "sha256": digest,
           "bytes": model.stat().st_size, "text": text,
           "ids_note": "the first 16 ids of `text` encoded with tests/fixtures/hf/tokenizers/bpe.json", "ids": ids,
           "stages": stages,
           "last_logits": {"indices": every, "values": last[every].tolist()},
           "argmax": int(top.indices[0]), "top5": {"ids": top.indices.tolist(), "logits": top.values.tolist()},
           "greedy": greedy}
    path = write_expected("gpt2-small-shape", doc)
    print(f"gpt2-small-shape forward, checks and greedy: {time.time() - t1:.1f} s")
    return path, tensors, cfg, ids


# ---------------------------------------------------------------- ONNX (float32) for onnxruntime-web

class Gpt2Onnx(nn.Module):
    """GPT-2 in float32 with a KV cache: forward(input_ids [1, n], past [L, 2, 1, h, p, d_k] or None) ->
    logits [1, n, V], present [L, 2, 1, h, p + n, d_k]. The token embedding is stored once, transposed
    (d, V): the tied head is a MatMul on it and the lookup a Gather on axis 1."""

    def __init__(self, tensors, cfg):
        super().__init__()
        self.L, self.h, self.d = cfg["n_layer"], cfg["n_head"], cfg["n_embd"]
        self.eps = cfg["layer_norm_epsilon"]
        self.wte_t = nn.Parameter(tensors["wte.weight"].float().t().contiguous(), requires_grad=False)
        self.wpe = nn.Parameter(tensors["wpe.weight"].float(), requires_grad=False)
        self.p = nn.ParameterDict({k.replace(".", "_"): nn.Parameter(v.float(), requires_grad=False)
                                   for k, v in tensors.items() if k.startswith("h.") or k.startswith("ln_f.")})

    def w(self, name):
        return self.p[name.replace(".", "_")]

    def ln(self, x, name):
        return F.layer_norm(x, (self.d,), self.w(name + ".weight"), self.w(name + ".bias"), self.eps)

    def forward(self, input_ids, past=None):
        n = input_ids.shape[1]
        d, h = self.d, self.h
        d_k = d // h
        p = past.shape[4] if past is not None else 0
        x = torch.index_select(self.wte_t, 1, input_ids.reshape(-1)).t()       # (n, d)
        qpos = torch.arange(n) + p
        x = x + torch.index_select(self.wpe, 0, qpos)
        total = n + p
        mask = torch.arange(total)[None, :] > qpos[:, None]                      # (n, p + n): key after query
        present = []
        for l in range(self.L):
            pre = f"h.{l}."
            a = self.ln(x, pre + "ln_1")
            qkv = a @ self.w(pre + "attn.c_attn.weight") + self.w(pre + "attn.c_attn.bias")
            q, k, v = qkv.split(d, dim=1)
            q = q.reshape(n, h, d_k).transpose(0, 1)[None]                       # (1, h, n, d_k)
            k = k.reshape(n, h, d_k).transpose(0, 1)[None]
            v = v.reshape(n, h, d_k).transpose(0, 1)[None]
            if past is not None:
                k = torch.cat([past[l, 0], k], dim=2)
                v = torch.cat([past[l, 1], v], dim=2)
            present.append(torch.stack([k, v]))
            s = (q @ k.transpose(2, 3)) / math.sqrt(d_k)
            s = s.masked_fill(mask, float("-inf"))
            o = torch.softmax(s, dim=-1) @ v                                     # (1, h, n, d_k)
            o = o[0].transpose(0, 1).reshape(n, d)
            x = x + o @ self.w(pre + "attn.c_proj.weight") + self.w(pre + "attn.c_proj.bias")
            m = self.ln(x, pre + "ln_2")
            m = m @ self.w(pre + "mlp.c_fc.weight") + self.w(pre + "mlp.c_fc.bias")
            m = 0.5 * m * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (m + 0.044715 * m * m * m)))
            x = x + m @ self.w(pre + "mlp.c_proj.weight") + self.w(pre + "mlp.c_proj.bias")
        x = self.ln(x, "ln_f")
        logits = (x @ self.wte_t)[None]                                          # (1, n, V)
        return logits, torch.stack(present)


class Prefill(nn.Module):
    def __init__(self, core):
        super().__init__()
        self.core = core

    def forward(self, input_ids):
        return self.core(input_ids)


class Decode(nn.Module):
    def __init__(self, core):
        super().__init__()
        self.core = core

    def forward(self, input_ids, past):
        return self.core(input_ids, past)


ORT_CHECK = r"""
const ort = await import(process.argv[1]);
ort.env.wasm.numThreads = 1;
const [prefillPath, decodePath, idsJson] = process.argv.slice(2);
const ids = JSON.parse(idsJson);
// prefill ids[0 .. n-2), then two decode steps (p = n - 2, n - 1): other sizes than the exported trace's
const n = ids.length - 2;
const t0 = Date.now();
const pre = await ort.InferenceSession.create(prefillPath);
const a = await pre.run({ input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.slice(0, n), BigInt), [1, n]) });
const dec = await ort.InferenceSession.create(decodePath);
const step = (id, past) =>
  dec.run({ input_ids: new ort.Tensor('int64', BigInt64Array.from([BigInt(id)]), [1, 1]), past });
const b = await step(ids[n], a.present);
const c = await step(ids[n + 1], b.present);
const V = a.logits.dims[2];
console.log(JSON.stringify({
  inputs: [pre.inputNames, dec.inputNames], outputs: [pre.outputNames, dec.outputNames],
  prefill: {
    logits: a.logits.dims, present: a.present.dims, last: Array.from(a.logits.data.slice((n - 1) * V, n * V)),
  },
  decode: [b, c].map((r) => ({ logits: r.logits.dims, present: r.present.dims, last: Array.from(r.logits.data) })),
  seconds: (Date.now() - t0) / 1000,
}));
"""


class KvCheck:
    """A KV-cache module core(input_ids[, past]) -> (logits, present) against float64 references:
    reference(ids) gives the logits (one row a position), cache_shape(p) the cache's shape after p
    positions, check(what, got, want, tol) compares. ids[:-1] is the prefill, ids[-1] one decode step."""

    def __init__(self, core, reference, ids, cache_shape, check):
        self.core, self.reference, self.ids, self.cache_shape, self.check = core, reference, ids, cache_shape, check
        n = len(ids) - 1
        self.ref_n, self.ref_n1 = reference(ids[:n]), reference(ids)  # float64
        self.inp, self.step = torch.tensor([ids[:n]]), torch.tensor([[ids[n]]])
        self.present = None

    def check_module(self):
        n = self.inp.shape[1]
        logits, self.present = self.core(self.inp)
        self.check("onnx module prefill (float32) vs float64", logits[0], self.ref_n, 1e-4)
        assert list(self.present.shape) == self.cache_shape(n)
        logits1, present1 = self.core(self.step, self.present)
        self.check("onnx module decode (float32) vs float64", logits1[0, 0], self.ref_n1[-1], 1e-4)
        assert list(present1.shape) == self.cache_shape(n + 1)

    def export(self, prefill_path, decode_path):
        """The module as two ONNX graphs (opset 14): the prefill of n ids, and one decode step that
        reads a cache of any length p. After check_module (its cache is the decode step's input)."""
        torch.onnx.export(Prefill(self.core), (self.inp,), str(prefill_path), opset_version=14,
                          input_names=["input_ids"], output_names=["logits", "present"],
                          dynamic_axes={"input_ids": {1: "n"}, "logits": {1: "n"}, "present": {4: "n"}})
        torch.onnx.export(Decode(self.core), (self.step, self.present), str(decode_path), opset_version=14,
                          input_names=["input_ids", "past"], output_names=["logits", "present"],
                          dynamic_axes={"past": {4: "p"}, "present": {4: "p_plus_1"}})

    def check_ort(self, r):
        """ORT_CHECK's result r (a prefill of ids[:-2], then two decode steps) against the references."""
        m = len(self.ids) - 2
        assert r["prefill"]["present"] == self.cache_shape(m), r["prefill"]["present"]
        assert [s["present"] for s in r["decode"]] == [self.cache_shape(m + 1), self.cache_shape(m + 2)]
        self.check("onnxruntime-web prefill last row vs float64", torch.tensor(r["prefill"]["last"]),
                   self.reference(self.ids[:m])[-1], 1e-4)
        self.check("onnxruntime-web decode vs float64", torch.tensor(r["decode"][0]["last"]), self.ref_n[-1], 1e-4)
        self.check("onnxruntime-web decode vs float64", torch.tensor(r["decode"][1]["last"]), self.ref_n1[-1], 1e-4)


def ort_module():
    """onnxruntime-web's Node build in node_modules, or None when it is not installed."""
    for name in ("ort.node.min.mjs", "ort.min.mjs"):
        path = REPO / "node_modules" / "onnxruntime-web" / "dist" / name
        if path.exists():
            return path
    return None


def run_ort_check(ort, prefill_path, decode_path, ids):
    """ORT_CHECK in Node: the two graphs run on ids (a prefill, then two decode steps)."""
    return subprocess.run(["node", "--input-type=module", "-e", ORT_CHECK, ort.as_uri(), str(prefill_path),
                           str(decode_path), json.dumps(ids)], capture_output=True, text=True, cwd=REPO)


def export_onnx(out_dir, tensors, cfg, ids):
    import onnx

    t0 = time.time()
    out_dir.mkdir(parents=True, exist_ok=True)
    core = Gpt2Onnx(tensors, cfg).eval()
    L, h, d_k = cfg["n_layer"], cfg["n_head"], cfg["n_embd"] // cfg["n_head"]
    w64 = {k: v.double() for k, v in tensors.items()}
    kv = KvCheck(core, lambda part: gpt2_forward(w64, cfg, part), ids, lambda p: [L, 2, 1, h, p, d_k], check)
    with torch.no_grad():
        kv.check_module()
        prefill_path, decode_path = out_dir / "gpt2-prefill.onnx", out_dir / "gpt2-decode.onnx"
        kv.export(prefill_path, decode_path)
    names = {}
    for path in (prefill_path, decode_path):
        onnx.checker.check_model(str(path))
        m = onnx.load(str(path))
        inits = {i.name for i in m.graph.initializer}

        def dims(v):
            return [x.dim_param or x.dim_value for x in v.type.tensor_type.shape.dim]

        names[path.name] = {"inputs": {i.name: dims(i) for i in m.graph.input if i.name not in inits},
                            "outputs": {o.name: dims(o) for o in m.graph.output},
                            "opset": m.opset_import[0].version, "bytes": path.stat().st_size}
        print(f"{rel(path)}: {path.stat().st_size} bytes, onnx.checker ok, {json.dumps(names[path.name])}")
    print(f"ONNX export: {time.time() - t0:.1f} s")
    # run both graphs with onnxruntime-web (wasm, in Node) when it is installed, against float64
    ort = ort_module()
    if ort is None:
        print("onnxruntime-web not installed: graphs checked with onnx.checker and the float32 torch module only")
        return names
    t1 = time.time()
    res = run_ort_check(ort, prefill_path, decode_path, ids)
    if res.returncode != 0:
        print("onnxruntime-web run failed (graphs not run):\n" + res.stderr[-2000:])
        return names
    r = json.loads(res.stdout.strip().splitlines()[-1])
    m = len(ids) - 2
    assert [s["logits"] for s in r["decode"]] == [[1, 1, cfg["vocab_size"]]] * 2
    kv.check_ort(r)
    print(f"onnxruntime-web {r['inputs']} -> {r['outputs']}: prefill {m} ids and 2 decode steps (p = {m}, {m + 1})"
          f" match float64"
          f" (ort {r['seconds']:.1f} s, with node {time.time() - t1:.1f} s)")
    return names


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small-shape", nargs="?", const=str(REPO / "build/hf/gpt2-small-shape"), default=None,
                    metavar="DIR",
                    help="also record expected/gpt2-small-shape.json (default DIR build/hf/gpt2-small-shape)")
    ap.add_argument("--onnx", nargs="?", const=str(REPO / "build/bench/onnx"), default=None, metavar="DIR",
                    help="also export the small-shape model to ONNX (default DIR build/bench/onnx)")
    ap.add_argument("--no-tiny", action="store_true", help="skip the tiny folders")
    args = ap.parse_args()
    torch.set_grad_enabled(True)  # keeps torch's encoder layers on their plain (non-fused) path
    t0 = time.time()
    paths = []
    if not args.no_tiny:
        paths += [gpt2_tiny(), bert_tiny(), distilbert_tiny()]
        print(f"tiny folders and fixtures: {time.time() - t0:.1f} s")
        for f in sorted(HF.glob("gpt2-tiny*/*")) + sorted(HF.glob("bert-tiny*/*")) + sorted(HF.glob("distilbert-tiny/*")):
            print(f"{rel(f)}  {f.stat().st_size} bytes  sha256 {sha256(f)[:16]}")
    if args.small_shape or args.onnx:
        folder = Path(args.small_shape or REPO / "build/hf/gpt2-small-shape")
        path, tensors, cfg, ids = small_shape(folder)
        if args.small_shape:
            paths.append(path)
        if args.onnx:
            export_onnx(Path(args.onnx), tensors, cfg, ids)
    for p in paths:
        print(f"{rel(p)}  {p.stat().st_size} bytes  sha256 {sha256(p)}")
    print("worst hand-written vs torch-module error (float64, limit %g):" % TOL_F64)
    for what, err in WORST.items():
        print(f"  {err:.2g}  {what}")
    print(f"total {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
