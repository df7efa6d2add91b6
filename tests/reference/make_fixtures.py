#!/usr/bin/python3
"""Golden values from PyTorch for the C++ and JS tests: every stage of attention, blocks and models.

Run with Debian's python (it has torch 1.13):  /usr/bin/python3 tests/reference/make_fixtures.py
Writes tests/fixtures/torch/<case>.json (format and conventions: tests/reference/README.md).
Inputs and weights are float32 values; stages are computed in float64 from them, so a fixture is
the exact math. Layer and model cases run PyTorch's own modules (nn.MultiheadAttention,
nn.TransformerEncoderLayer, nn.TransformerDecoderLayer, nn.Transformer) for the final output and
assert that the hand-written float64 stages reproduce it, so the intermediates can be trusted.
"""
import json
import math
import sys
from pathlib import Path

import torch
import torch.nn as nn

REPO = Path(__file__).resolve().parents[2]
OUT_DIR = REPO / "tests" / "fixtures" / "torch"
EPS = 1e-5          # LayerNorm epsilon, torch's default and ModelConfig's
TOL_F32 = 1e-5      # manual float64 vs the module run in float32 (relative to the largest |value|)
TOL_F64 = 1e-12     # manual float64 vs the same module run in float64
MAX_BYTES = 200_000

torch.set_num_threads(1)  # same summation order every run


# ---------------------------------------------------------------- random values (float32, seeded)

class Rand:
    """float32 values from one seeded generator; every fixture value is drawn from one of these."""

    def __init__(self, seed):
        self.g = torch.Generator().manual_seed(seed)

    def normal(self, *shape, std=1.0):
        return torch.randn(*shape, generator=self.g, dtype=torch.float32) * std

    def weight(self, fan_in, fan_out):
        # (in, out), applied as x @ W; std 1/sqrt(in) keeps activations O(1) and softmax unsaturated
        return self.normal(fan_in, fan_out, std=1.0 / math.sqrt(fan_in))

    def bias(self, n):
        return self.normal(n, std=0.2)  # nonzero, so a dropped or misplaced bias shows

    def gamma(self, n):
        return 1.0 + self.normal(n, std=0.1)  # not 1, so a swapped gamma/beta shows


def fill_module(module, rand):
    """Overwrites every parameter of a torch module (in its stable named_parameters order):
    torch's own init leaves biases 0 and LayerNorm gamma 1, which would hide bugs."""
    with torch.no_grad():
        for name, p in module.named_parameters():
            is_norm = ".norm" in "." + name or name.startswith("norm")
            if p.dim() == 2:  # torch stores (out, in)
                p.copy_(rand.weight(p.shape[1], p.shape[0]).t())
            elif is_norm and name.endswith("weight"):
                p.copy_(rand.gamma(p.shape[0]))
            else:
                p.copy_(rand.bias(p.shape[0]))


# ---------------------------------------------------------------- the math, by hand, in float64

def dbl(t):
    return t.detach().to(torch.float64)


def causal_mask(n, m):
    """(n, m) True where key j > query i (the future)."""
    return torch.ones(n, m, dtype=torch.bool).triu(diagonal=1)


def attention(x, memory, w, n_heads, causal=False, key_padding=None, prefix=""):
    """Multi-head scaled dot-product attention; returns (attn_out, stages) with stages named as the trace.
    w: dict with wq wk wv wo (d, d) and optionally bq bk bv bo (d), float64."""
    n, d = x.shape
    m = memory.shape[0]
    d_k = d // n_heads

    def proj(src, wname, bname):
        out = src @ w[wname]                            # (rows, d) = (rows, d)(d, d)
        return out + w[bname] if bname in w else out

    q = proj(x, "wq", "bq")                             # (n, d)
    k = proj(memory, "wk", "bk")                        # (m, d)
    v = proj(memory, "wv", "bv")                        # (m, d)
    # head i owns columns i*d_k .. (i+1)*d_k - 1
    qh = q.reshape(n, n_heads, d_k).transpose(0, 1)     # (h, n, d_k)
    kh = k.reshape(m, n_heads, d_k).transpose(0, 1)     # (h, m, d_k)
    vh = v.reshape(m, n_heads, d_k).transpose(0, 1)     # (h, m, d_k)
    scores = qh @ kh.transpose(1, 2)                    # (h, n, m)
    scaled = scores / math.sqrt(d_k)
    mask = torch.zeros(n, m, dtype=torch.bool)
    if causal:
        mask |= causal_mask(n, m)
    if key_padding is not None:
        mask |= torch.tensor(key_padding, dtype=torch.bool).unsqueeze(0)
    masked = scaled.masked_fill(mask, float("-inf"))
    # softmax per row; a row whose keys are all masked gets all-zero weights (our convention)
    row_max = masked.max(dim=-1, keepdim=True).values
    all_masked = torch.isinf(row_max)
    e = torch.exp(masked - torch.where(all_masked, torch.zeros_like(row_max), row_max))
    denom = e.sum(dim=-1, keepdim=True)
    weights = torch.where(all_masked, torch.zeros_like(e), e / torch.where(all_masked, torch.ones_like(denom), denom))
    head_out = weights @ vh                             # (h, n, d_k)
    concat = head_out.transpose(0, 1).reshape(n, d)     # (n, d)
    attn_out = proj(concat, "wo", "bo")                 # (n, d)
    stages = {"q": q, "k": k, "v": v, "scores": scores, "scaled": scaled, "masked": masked,
              "weights": weights, "head_out": head_out, "concat": concat, "attn_out": attn_out}
    return attn_out, {prefix + key: val for key, val in stages.items()}


def layer_norm(x, gamma, beta, eps=EPS):
    mean = x.mean(dim=-1, keepdim=True)
    var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)  # biased variance, as torch
    return (x - mean) / torch.sqrt(var + eps) * gamma + beta


def activation(h, act):
    if act == "relu":
        return torch.clamp(h, min=0.0)
    return 0.5 * h * (1.0 + torch.erf(h / math.sqrt(2.0)))  # exact GELU (torch's default)


def ffn(x, w, act):
    hidden = x @ w["ffn.w1"] + w["ffn.b1"]              # (n, d_ff)
    acted = activation(hidden, act)                     # (n, d_ff)
    out = acted @ w["ffn.w2"] + w["ffn.b2"]             # (n, d)
    return out, {"ffn_hidden": hidden, "ffn_act": acted, "ffn_out": out}


def sub(w, prefix):
    """The weights under `prefix` ("self_attn.", "cross_attn.") with the prefix stripped."""
    return {k[len(prefix):]: v for k, v in w.items() if k.startswith(prefix)}


def ln(w, name, x):
    return layer_norm(x, w[name + ".gamma"], w[name + ".beta"])


def block(x, w, n_heads, act, norm, causal, memory=None):
    """One encoder block (memory None) or decoder block with cross-attention; returns (out, stages)."""
    s = {}
    if norm == "post":
        attn_out, st = attention(x, x, sub(w, "self_attn."), n_heads, causal)
        s.update(st)
        s["resid1"] = x + attn_out
        s["norm1"] = h = ln(w, "norm1", s["resid1"])
        if memory is not None:
            cross_out, st = attention(h, memory, sub(w, "cross_attn."), n_heads, prefix="cross_")
            s.update(st)
            s["cross_resid"] = h + cross_out
            s["cross_norm"] = h = ln(w, "norm_cross", s["cross_resid"])
        f_out, st = ffn(h, w, act)
        s.update(st)
        s["resid2"] = h + f_out
        s["norm2"] = out = ln(w, "norm2", s["resid2"])
    else:  # pre-norm: LayerNorm before each sub-layer, the residual stream is never normalised
        s["norm1"] = ln(w, "norm1", x)
        attn_out, st = attention(s["norm1"], s["norm1"], sub(w, "self_attn."), n_heads, causal)
        s.update(st)
        s["resid1"] = r = x + attn_out
        if memory is not None:
            s["cross_norm"] = ln(w, "norm_cross", r)
            cross_out, st = attention(s["cross_norm"], memory, sub(w, "cross_attn."), n_heads,
                                      prefix="cross_")
            s.update(st)
            s["cross_resid"] = r = r + cross_out
        s["norm2"] = ln(w, "norm2", r)
        f_out, st = ffn(s["norm2"], w, act)
        s.update(st)
        s["resid2"] = out = r + f_out
    return out, order_block_stages(s, memory is not None, norm)


def order_block_stages(s, has_cross, norm):
    """Stages in the order a student steps through them."""
    attn = ["q", "k", "v", "scores", "scaled", "masked", "weights", "head_out", "concat", "attn_out"]
    cross = ["cross_" + a for a in attn]
    f = ["ffn_hidden", "ffn_act", "ffn_out"]
    if norm == "post":
        order = attn + ["resid1", "norm1"] + (cross + ["cross_resid", "cross_norm"] if has_cross else [])
        order += f + ["resid2", "norm2"]
    else:
        order = ["norm1"] + attn + ["resid1"] + (["cross_norm"] + cross + ["cross_resid"] if has_cross else [])
        order += ["norm2"] + f + ["resid2"]
    assert sorted(order) == sorted(s), (sorted(order), sorted(s))
    return {k: s[k] for k in order}


def softmax_rows(x):
    return torch.softmax(x, dim=-1)


def sinusoidal(n, d):
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)); odd d ends on a sin."""
    pos = torch.arange(n, dtype=torch.float64).unsqueeze(1)               # (n, 1)
    two_i = torch.arange(0, d, 2, dtype=torch.float64)                    # (ceil(d/2))
    angle = pos / torch.pow(torch.tensor(10000.0, dtype=torch.float64), two_i / d)  # (n, ceil(d/2))
    pe = torch.zeros(n, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angle)
    pe[:, 1::2] = torch.cos(angle[:, : d // 2])
    return pe


# ---------------------------------------------------------------- torch modules -> our weight names

def export_mha(mha, prefix):
    """nn.MultiheadAttention -> {prefix}w{q,k,v,o} (d, d) as x @ W (the transpose of torch's) and biases."""
    d = mha.embed_dim
    w_in = mha.in_proj_weight.detach()                  # (3d, d) = [W_q; W_k; W_v] as (out, in)
    out = {prefix + "wq": w_in[:d].t(), prefix + "wk": w_in[d:2 * d].t(), prefix + "wv": w_in[2 * d:].t(),
           prefix + "wo": mha.out_proj.weight.detach().t()}
    if mha.in_proj_bias is not None:
        b_in = mha.in_proj_bias.detach()
        out.update({prefix + "bq": b_in[:d], prefix + "bk": b_in[d:2 * d], prefix + "bv": b_in[2 * d:],
                    prefix + "bo": mha.out_proj.bias.detach()})
    return out


def export_ln(norm, name):
    return {name + ".gamma": norm.weight.detach(), name + ".beta": norm.bias.detach()}


def export_ffn(layer, prefix):
    return {prefix + "ffn.w1": layer.linear1.weight.detach().t(), prefix + "ffn.b1": layer.linear1.bias.detach(),
            prefix + "ffn.w2": layer.linear2.weight.detach().t(), prefix + "ffn.b2": layer.linear2.bias.detach()}


def export_encoder_layer(layer, prefix=""):
    w = export_mha(layer.self_attn, prefix + "self_attn.")
    w.update(export_ln(layer.norm1, prefix + "norm1"))
    w.update(export_ffn(layer, prefix))
    w.update(export_ln(layer.norm2, prefix + "norm2"))
    return w


def export_decoder_layer(layer, prefix=""):
    # torch's norm1 / norm2 / norm3 sit around self-attention / cross-attention / FFN
    w = export_mha(layer.self_attn, prefix + "self_attn.")
    w.update(export_ln(layer.norm1, prefix + "norm1"))
    w.update(export_mha(layer.multihead_attn, prefix + "cross_attn."))
    w.update(export_ln(layer.norm2, prefix + "norm_cross"))
    w.update(export_ffn(layer, prefix))
    w.update(export_ln(layer.norm3, prefix + "norm2"))
    return w


def float_mask(n):
    """Causal attn_mask for torch modules: -inf above the diagonal."""
    return torch.zeros(n, n).masked_fill(causal_mask(n, n), float("-inf"))


# ---------------------------------------------------------------- checks

def rel_err(a, b):
    a, b = dbl(a), dbl(b)
    scale = b.abs().max().item()
    return (a - b).abs().max().item() / max(scale, 1e-300)


WORST = {}  # tolerance -> the largest error seen against it, for the summary line


def check(what, got, want, tol):
    err = rel_err(got, want)
    if not err <= tol:
        sys.exit(f"FAIL {what}: max relative error {err:.3g} > {tol:g}")
    WORST[tol] = max(WORST.get(tol, 0.0), err)
    return err


def check_weights_rows(case, stages):
    """Every weights row sums to 1, or is all zeros when all its keys are masked."""
    for name, t in stages.items():
        if not name.endswith("weights") or not torch.is_tensor(t):
            continue
        sums = t.sum(dim=-1)
        masked_name = name[: -len("weights")] + "masked"
        all_masked = torch.isinf(stages[masked_name]).all(dim=-1)
        want = torch.where(all_masked, torch.zeros_like(sums), torch.ones_like(sums))
        assert (sums - want).abs().max().item() < 1e-12, (case, name)
        assert (t >= 0).all(), (case, name)


# ---------------------------------------------------------------- JSON

def tensor_json(t, allow_inf=False):
    flat = dbl(t).reshape(-1).tolist()
    for x in flat:
        assert math.isfinite(x) or (allow_inf and x == float("-inf")), "NaN/Inf outside a masked stage"
    return {"shape": list(t.shape), "data": [None if x == float("-inf") else x for x in flat]}


def json_text(doc, block_of):
    """doc as the fixtures' JSON text: one line a key, except where block_of(key, value) gives a body of
    its own lines (None: the value on the key's line). Shared by every make_*fixtures.py."""
    def dump(v):
        return json.dumps(v, separators=(",", ":"), allow_nan=False)

    lines = ["{"]
    keys = list(doc)
    for i, key in enumerate(keys):
        comma = "," if i + 1 < len(keys) else ""
        body = block_of(key, doc[key])
        lines.append(f" {dump(key)}: {dump(doc[key]) if body is None else body}{comma}")
    return "\n".join(lines) + "\n}\n"


def case_text(case, kind, params, inputs, weights, stages, extra=None):
    """A case's JSON text: inputs, weights and stages one tensor a line (-inf, in masked stages, as null)."""
    doc = {"case": case, "kind": kind, "params": params}
    if extra:
        doc.update(extra)
    doc["inputs"] = {k: (v if isinstance(v, list) else tensor_json(v)) for k, v in inputs.items()}
    doc["weights"] = {k: tensor_json(v) for k, v in weights.items()}
    doc["stages"] = {k: tensor_json(v, allow_inf=k.endswith("masked")) for k, v in stages.items()}

    def block(key, val):
        if key not in ("inputs", "weights", "stages"):
            return None
        inner = [f"  {json.dumps(k)}: {json.dumps(t, separators=(',', ':'), allow_nan=False)}" for k, t in val.items()]
        return "{\n" + ",\n".join(inner) + "\n }" if inner else "{}"

    return json_text(doc, block)


def write_case(case, kind, params, inputs, weights, stages, extra=None):
    text = case_text(case, kind, params, inputs, weights, stages, extra)
    assert json.loads(text)["case"] == case
    path = OUT_DIR / f"{case}.json"
    path.write_text(text)
    assert len(text) < MAX_BYTES, f"{case}: {len(text)} bytes"
    return path


# ---------------------------------------------------------------- cases

def attention_case(case, seed, n, d, h, m=None, causal=False, key_padding=None, bias=True):
    """Bare multi-head attention from explicit weights; cross-checked against nn.MultiheadAttention."""
    rand = Rand(seed)
    cross = m is not None
    m = m if cross else n
    x = rand.normal(n, d)
    memory = rand.normal(m, d) if cross else None
    w = {name: rand.weight(d, d) for name in ("wq", "wk", "wv", "wo")}
    if bias:
        w.update({name: rand.bias(d) for name in ("bq", "bk", "bv", "bo")})
    w64 = {k: dbl(v) for k, v in w.items()}
    mem64 = dbl(memory) if cross else dbl(x)
    out, stages = attention(dbl(x), mem64, w64, h, causal, key_padding)
    check_weights_rows(case, stages)

    all_masked = key_padding is not None and all(key_padding)
    if all_masked:
        # torch gives NaN here; our convention is zero weights, so the output is the bias alone
        assert (stages["weights"] == 0).all() and (stages["concat"] == 0).all()
        check(case + " attn_out = bo", out, w64["bo"].expand(n, d), 0.0)
    else:
        mha = nn.MultiheadAttention(d, h, bias=bias, batch_first=True).double()
        with torch.no_grad():
            mha.in_proj_weight.copy_(torch.cat([w64["wq"].t(), w64["wk"].t(), w64["wv"].t()]))
            mha.out_proj.weight.copy_(w64["wo"].t())
            if bias:
                mha.in_proj_bias.copy_(torch.cat([w64["bq"], w64["bk"], w64["bv"]]))
                mha.out_proj.bias.copy_(w64["bo"])
        mha.eval()
        kpm = torch.tensor([key_padding], dtype=torch.bool) if key_padding is not None else None
        ref, ref_w = mha(dbl(x)[None], mem64[None], mem64[None], key_padding_mask=kpm,
                         attn_mask=float_mask(n).double() if causal else None,
                         need_weights=True, average_attn_weights=False)
        check(case + " attn_out vs nn.MultiheadAttention", out, ref[0], TOL_F64)
        check(case + " weights vs nn.MultiheadAttention", stages["weights"], ref_w[0], TOL_F64)

    params = {"n": n, "m": m, "d_model": d, "n_heads": h, "causal": causal, "key_padding": key_padding,
              "scale": True, "bias": bias}
    inputs = {"x": x}
    if cross:
        inputs["memory"] = memory
    return write_case(case, "attention", params, inputs, w, stages)


def torch_mha_case(case, seed, n, d, h):
    """nn.MultiheadAttention itself (causal self-attention with biases): its weights, its output."""
    rand = Rand(seed)
    torch.manual_seed(seed)
    mha = nn.MultiheadAttention(d, h, bias=True, batch_first=True)
    fill_module(mha, rand)
    mha.eval()
    x = rand.normal(n, d)
    w = export_mha(mha, "self_attn.")
    w64 = {k: dbl(v) for k, v in sub(w, "self_attn.").items()}
    out, stages = attention(dbl(x), dbl(x), w64, h, causal=True)
    check_weights_rows(case, stages)

    mask = float_mask(n)
    out32, w32 = mha(x[None], x[None], x[None], attn_mask=mask, need_weights=True, average_attn_weights=False)
    check(case + " attn_out vs module (float32)", out, out32[0], TOL_F32)
    check(case + " weights vs module (float32)", stages["weights"], w32[0], TOL_F32)
    mha64 = mha.double()
    out64, w64_mod = mha64(dbl(x)[None], dbl(x)[None], dbl(x)[None], attn_mask=mask.double(),
                           need_weights=True, average_attn_weights=False)
    check(case + " attn_out vs module (float64)", out, out64[0], TOL_F64)
    check(case + " weights vs module (float64)", stages["weights"], w64_mod[0], TOL_F64)
    # the module's own final results are the golden ones for these two stages
    stages["weights"] = dbl(w64_mod[0])
    stages["attn_out"] = dbl(out64[0])

    params = {"n": n, "m": n, "d_model": d, "n_heads": h, "causal": True, "key_padding": None,
              "scale": True, "bias": True}
    return write_case(case, "torch_mha", params, {"x": x}, w, stages)


def layer_case(case, seed, kind, n, d, h, d_ff, act, norm, m=None):
    """nn.TransformerEncoderLayer / nn.TransformerDecoderLayer, with every stage by hand."""
    rand = Rand(seed)
    torch.manual_seed(seed)
    decoder = kind == "decoder_layer"
    cls = nn.TransformerDecoderLayer if decoder else nn.TransformerEncoderLayer
    layer = cls(d, h, dim_feedforward=d_ff, dropout=0.0, activation=act, layer_norm_eps=EPS,
                batch_first=True, norm_first=(norm == "pre"))
    fill_module(layer, rand)
    layer.eval()
    x = rand.normal(n, d)
    memory = rand.normal(m, d) if decoder else None
    w = export_decoder_layer(layer) if decoder else export_encoder_layer(layer)
    w64 = {k: dbl(v) for k, v in w.items()}
    causal = decoder  # decoder self-attention is causal; the encoder's never is
    out, stages = block(dbl(x), w64, h, act, norm, causal, dbl(memory) if decoder else None)
    check_weights_rows(case, stages)

    def run(module, cast):
        if decoder:
            return module(cast(x)[None], cast(memory)[None], tgt_mask=cast(float_mask(n)))[0]
        return module(cast(x)[None])[0]

    check(case + " output vs module (float32)", out, run(layer, lambda t: t), TOL_F32)
    ref64 = run(layer.double(), dbl)
    check(case + " output vs module (float64)", out, ref64, TOL_F64)
    stages["norm2" if norm == "post" else "resid2"] = dbl(ref64)  # the module's own block output

    params = {"n": n}
    if decoder:
        params["m"] = m
    params.update({"d_model": d, "n_heads": h, "d_ff": d_ff, "act": act, "norm": norm, "eps": EPS,
                   "causal": causal, "key_padding": None, "scale": True})
    inputs = {"x": x}
    if decoder:
        inputs["memory"] = memory
    return write_case(case, kind, params, inputs, w, stages)


def sinusoidal_case(case, n, d):
    pe = sinusoidal(n, d)
    # independent check: the formula cell by cell with Python's math
    for pos in range(n):
        for col in range(d):
            angle = pos / 10000 ** ((col - col % 2) / d)
            want = math.sin(angle) if col % 2 == 0 else math.cos(angle)
            assert abs(pe[pos, col].item() - want) < 1e-12, (case, pos, col)
    params = {"n": n, "d_model": d, "base": 10000}
    return write_case(case, "sinusoidal", params, {}, {}, {"pos": pe})


def model_config(arch, d, h, layers, d_ff, vocab, max_len, pos, act, norm):
    return {"arch": arch, "d_model": d, "n_heads": h, "n_layers": layers, "d_ff": d_ff, "vocab_size": vocab,
            "max_len": max_len, "pos": pos, "act": act, "norm": norm, "eps": EPS, "scale": True,
            "causal": True, "tokenizer": "char"}


def char_vocab(size):
    return ["<pad>", "<unk>", "<bos>", "<eos>"] + [chr(ord("a") + i) for i in range(size - 4)]


def decoder_only_model_case(case, seed):
    """Decoder-only LM: post-norm, sinusoidal positions, ReLU; torch: a causal nn.TransformerEncoder."""
    V, d, h, L, d_ff, max_len = 12, 8, 2, 2, 16, 16
    cfg = model_config("decoder", d, h, L, d_ff, V, max_len, "sinusoidal", "relu", "post")
    ids = [2, 5, 9, 4, 11, 7]
    n = len(ids)
    rand = Rand(seed)
    torch.manual_seed(seed)
    layer = nn.TransformerEncoderLayer(d, h, dim_feedforward=d_ff, dropout=0.0, activation="relu",
                                       layer_norm_eps=EPS, batch_first=True, norm_first=False)
    net = nn.ModuleDict({"tok_emb": nn.Embedding(V, d),
                         "stack": nn.TransformerEncoder(layer, L, enable_nested_tensor=False),
                         "lm_head": nn.Linear(d, V)})
    fill_module(net, rand)
    net.eval()

    w = {"tok_emb": net["tok_emb"].weight.detach()}
    for i, lay in enumerate(net["stack"].layers):
        w.update(export_encoder_layer(lay, f"decoder.{i}."))
    w["lm_head.w"] = net["lm_head"].weight.detach().t()
    w["lm_head.b"] = net["lm_head"].bias.detach()
    w64 = {k: dbl(v) for k, v in w.items()}

    stages = {}
    stages["embed"] = w64["tok_emb"][ids]               # (n, d), no sqrt(d) scaling
    stages["pos"] = sinusoidal(n, d)                    # (n, d)
    stages["x"] = h_ = stages["embed"] + stages["pos"]
    for i in range(L):
        h_, st = block(h_, sub(w64, f"decoder.{i}."), h, "relu", "post", causal=True)
        stages.update({f"decoder.{i}.{k}": v for k, v in st.items()})
    stages["logits"] = h_ @ w64["lm_head.w"] + w64["lm_head.b"]   # (n, V)
    stages["probs"] = softmax_rows(stages["logits"])
    check_weights_rows(case, stages)

    def run(cast):
        x = net["tok_emb"](torch.tensor(ids)) + cast(sinusoidal(n, d))
        hidden = net["stack"](x[None], mask=cast(float_mask(n)))[0]
        return net["lm_head"](hidden)

    check(case + " logits vs modules (float32)", stages["logits"], run(lambda t: t.float()), TOL_F32)
    net.double()
    ref64 = run(dbl)
    check(case + " logits vs modules (float64)", stages["logits"], ref64, TOL_F64)
    stages["logits"] = dbl(ref64)
    stages["probs"] = softmax_rows(stages["logits"])

    return write_case(case, "model", cfg, {"ids": ids}, w, stages, extra={"config": cfg, "vocab": char_vocab(V)})


def encoder_decoder_model_case(case, seed):
    """Encoder-decoder: pre-norm with a final norm per stack, learned positions, GELU; torch: nn.Transformer."""
    V, d, h, L, d_ff, max_len = 10, 8, 2, 1, 16, 8
    cfg = model_config("encoder-decoder", d, h, L, d_ff, V, max_len, "learned", "gelu", "pre")
    src_ids, tgt_ids = [2, 4, 7, 9, 5, 3], [2, 6, 8, 5]
    n_tgt = len(tgt_ids)
    rand = Rand(seed)
    torch.manual_seed(seed)
    net = nn.ModuleDict({
        "tok_emb": nn.Embedding(V, d),
        "pos_emb": nn.Embedding(max_len, d),
        "transformer": nn.Transformer(d, h, num_encoder_layers=L, num_decoder_layers=L, dim_feedforward=d_ff,
                                      dropout=0.0, activation="gelu", layer_norm_eps=EPS, batch_first=True,
                                      norm_first=True),
        "lm_head": nn.Linear(d, V)})
    fill_module(net, rand)
    net.eval()
    tr = net["transformer"]

    # model.hpp's order: embeddings, encoder blocks, encoder final norm, decoder ..., LM head
    w = {"tok_emb": net["tok_emb"].weight.detach(), "pos_emb": net["pos_emb"].weight.detach()}
    for i, lay in enumerate(tr.encoder.layers):
        w.update(export_encoder_layer(lay, f"encoder.{i}."))
    w.update(export_ln(tr.encoder.norm, "encoder.final_norm"))
    for i, lay in enumerate(tr.decoder.layers):
        w.update(export_decoder_layer(lay, f"decoder.{i}."))
    w.update(export_ln(tr.decoder.norm, "decoder.final_norm"))
    w["lm_head.w"] = net["lm_head"].weight.detach().t()
    w["lm_head.b"] = net["lm_head"].bias.detach()
    w64 = {k: dbl(v) for k, v in w.items()}

    stages = {}

    def embed(stack, ids):
        n = len(ids)
        stages[f"{stack}.embed"] = w64["tok_emb"][ids]  # (n, d)
        stages[f"{stack}.pos"] = w64["pos_emb"][:n]     # (n, d) rows 0..n-1 of the learned table
        stages[f"{stack}.x"] = stages[f"{stack}.embed"] + stages[f"{stack}.pos"]
        return stages[f"{stack}.x"]

    h_ = embed("encoder", src_ids)
    for i in range(L):
        h_, st = block(h_, sub(w64, f"encoder.{i}."), h, "gelu", "pre", causal=False)
        stages.update({f"encoder.{i}.{k}": v for k, v in st.items()})
    stages["encoder.final_norm"] = memory = ln(w64, "encoder.final_norm", h_)
    h_ = embed("decoder", tgt_ids)
    for i in range(L):
        h_, st = block(h_, sub(w64, f"decoder.{i}."), h, "gelu", "pre", causal=True, memory=memory)
        stages.update({f"decoder.{i}.{k}": v for k, v in st.items()})
    stages["decoder.final_norm"] = h_ = ln(w64, "decoder.final_norm", h_)
    stages["logits"] = h_ @ w64["lm_head.w"] + w64["lm_head.b"]   # (n_tgt, V)
    stages["probs"] = softmax_rows(stages["logits"])
    check_weights_rows(case, stages)

    def run(cast):
        def emb(ids):
            return net["tok_emb"](torch.tensor(ids)) + net["pos_emb"](torch.arange(len(ids)))
        hidden = tr(emb(src_ids)[None], emb(tgt_ids)[None], tgt_mask=cast(float_mask(n_tgt)))[0]
        return net["lm_head"](hidden)

    check(case + " logits vs modules (float32)", stages["logits"], run(lambda t: t.float()), TOL_F32)
    net.double()
    ref64 = run(dbl)
    check(case + " logits vs modules (float64)", stages["logits"], ref64, TOL_F64)
    # the encoder output the decoder attends to, straight from torch's encoder
    enc64 = tr.encoder(dbl(stages["encoder.x"])[None])[0]
    check(case + " encoder output vs nn.TransformerEncoder", stages["encoder.final_norm"], enc64, TOL_F64)
    stages["logits"] = dbl(ref64)
    stages["probs"] = softmax_rows(stages["logits"])

    inputs = {"src_ids": src_ids, "tgt_ids": tgt_ids}
    return write_case(case, "model", cfg, inputs, w, stages, extra={"config": cfg, "vocab": char_vocab(V)})


def main():
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for old in OUT_DIR.glob("*.json"):  # no stale cases from an older version of this script
        old.unlink()
    torch.set_grad_enabled(True)  # keeps torch's encoder layers on their plain (non-fused) path
    paths = [
        attention_case("attention_single_head", 101, n=3, d=4, h=1, bias=False),
        attention_case("attention_multi_head", 102, n=5, d=8, h=2),
        attention_case("attention_causal", 103, n=5, d=8, h=2, causal=True),
        attention_case("attention_key_padding", 104, n=4, d=6, h=3, key_padding=[0, 0, 0, 1]),
        attention_case("attention_cross", 105, n=3, m=5, d=8, h=2),
        attention_case("attention_one_token", 106, n=1, d=4, h=1, bias=False),
        attention_case("attention_odd_sizes", 107, n=7, d=12, h=4),
        attention_case("attention_dk1", 108, n=4, d=4, h=4),
        attention_case("attention_all_masked", 109, n=3, d=4, h=2, key_padding=[1, 1, 1]),
        torch_mha_case("torch_mha_causal", 201, n=6, d=16, h=4),
        layer_case("encoder_layer_post_relu", 301, "encoder_layer", n=5, d=8, h=2, d_ff=32, act="relu", norm="post"),
        layer_case("encoder_layer_post_gelu", 302, "encoder_layer", n=5, d=8, h=2, d_ff=32, act="gelu", norm="post"),
        layer_case("encoder_layer_pre_relu", 303, "encoder_layer", n=5, d=8, h=2, d_ff=32, act="relu", norm="pre"),
        layer_case("decoder_layer_post_relu", 401, "decoder_layer", n=4, m=6, d=8, h=2, d_ff=16, act="relu",
                   norm="post"),
        layer_case("decoder_layer_pre_gelu", 402, "decoder_layer", n=4, m=6, d=8, h=2, d_ff=16, act="gelu",
                   norm="pre"),
        sinusoidal_case("sinusoidal_8x4", 8, 4),
        sinusoidal_case("sinusoidal_16x16", 16, 16),
        sinusoidal_case("sinusoidal_5x6", 5, 6),
        sinusoidal_case("sinusoidal_3x5", 3, 5),
        decoder_only_model_case("model_decoder_only", 501),
        encoder_decoder_model_case("model_encoder_decoder", 502),
    ]
    total = 0
    for p in paths:
        size = p.stat().st_size
        total += size
        print(f"{p.relative_to(REPO)}  {size} bytes")
    print(f"{len(paths)} cases, {total} bytes")
    print("worst manual-vs-torch error: float32 modules %.2g (limit %g), float64 modules %.2g (limit %g)"
          % (WORST[TOL_F32], TOL_F32, WORST[TOL_F64], TOL_F64))


if __name__ == "__main__":
    main()
