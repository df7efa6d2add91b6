#!/usr/bin/python3
"""Golden values for issue 26's parts: RMSNorm, SwiGLU / GeGLU, grouped-query attention, sliding windows.

Run with Debian's python (it has torch 1.13):  /usr/bin/python3 tests/reference/make_modern_fixtures.py
Writes tests/fixtures/modern/<case>.json in the format of make_fixtures.py (tests/reference/README.md).

Every stage is written here from the published definitions, in float64, from float32 inputs and weights:
  - RMSNorm (Zhang & Sennrich 2019, eq. 4; Llama's LlamaRMSNorm): x / sqrt(mean(x^2) + eps) * g.
  - SwiGLU / GeGLU (Shazeer 2020, "GLU Variants Improve Transformer", eq. 5-6): FFN(x) =
    (act(x W_gate) * (x W_1 + b_1)) W_2 + b_2, act = Swish_1 = SiLU (SwiGLU) or GELU (GeGLU).
  - Grouped-query attention (Ainslie et al. 2023, "GQA", sec. 2): n_kv_heads K/V heads, query head i
    reads K/V head i // (n_heads / n_kv_heads) (Hugging Face's repeat_kv); a multi-head checkpoint is
    turned into a grouped one by mean-pooling the K and V projection heads of each group (sec. 2.1).
  - Sliding-window causal attention (Mistral 7B, Jiang et al. 2023, sec. 2; Hugging Face's mask):
    query i sees key j iff i - window < j <= i.
  - RoPE as the core has it (RoFormer, Su et al. 2021, eq. 13-15): pairs (2j, 2j+1) of each head
    rotated by pos * 10000^(-2j / d_k).
It does not import the other fixture script's math (only its seeded draws, Rand, and its JSON format). Cross-checks against torch's own modules: each
attention (grouped, windowed, rotated) is rerun through nn.MultiheadAttention in float64 with identity
input projections, the grouped K/V repeated per head and the window as its attn_mask (output and
per-head weights must agree to 1e-12); SiLU and GELU against torch.nn.functional.silu / gelu; RMSNorm
against x * rsqrt(mean(x^2) + eps) * g as LlamaRMSNorm writes it.
"""
import math
import sys
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_fixtures import Rand, case_text  # noqa: E402  (the seeded draws and the JSON format, not the math)

REPO = Path(__file__).resolve().parents[2]
OUT_DIR = REPO / "tests" / "fixtures" / "modern"
EPS = 1e-5
TOL_F64 = 1e-12
MAX_BYTES = 120_000
torch.set_num_threads(1)
WORST = [0.0]


def f64(t):
    return t.detach().to(torch.float64)


def check(what, got, want, tol=TOL_F64):
    got, want = f64(got), f64(want)
    err = (got - want).abs().max().item() / max(want.abs().max().item(), 1e-300)
    if not err <= tol:
        sys.exit(f"FAIL {what}: max relative error {err:.3g} > {tol:g}")
    WORST[0] = max(WORST[0], err)


# ---------------------------------------------------------------- the definitions, float64

def rms_norm(x, g):
    rms = torch.sqrt((x * x).mean(dim=-1, keepdim=True) + EPS)      # (n, 1)
    out = x / rms * g
    check("RMSNorm vs LlamaRMSNorm's form", out, x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * g)
    return out, rms


def layer_norm(x, g, b):
    mu = x.mean(dim=-1, keepdim=True)
    var = ((x - mu) ** 2).mean(dim=-1, keepdim=True)
    sigma = torch.sqrt(var + EPS)
    return (x - mu) / sigma * g + b, torch.cat([mu, sigma], dim=-1)


def silu(x):
    out = x / (1.0 + torch.exp(-x))
    check("SiLU vs F.silu", out, F.silu(x))
    return out


def gelu(x):
    out = 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))
    check("GELU vs F.gelu", out, F.gelu(x))
    return out


def rope(x, heads, offset=0):
    """Rotate pairs (2j, 2j+1) of each head's d_k columns of row r by (offset + r) * 10000^(-2j/d_k)."""
    n, width = x.shape
    d_k = width // heads
    out = x.clone()
    for r in range(n):
        pos = float(offset + r)
        for h in range(heads):
            for j in range(0, d_k - 1, 2):
                theta = pos * 10000.0 ** (-j / d_k)
                c, s = math.cos(theta), math.sin(theta)
                a, b = x[r, h * d_k + j].item(), x[r, h * d_k + j + 1].item()
                out[r, h * d_k + j] = a * c - b * s
                out[r, h * d_k + j + 1] = a * s + b * c
    return out


def visible(n, m, causal, window):
    """(n, m) True where query i sees key j (queries are the last n of m positions)."""
    i = torch.arange(n).unsqueeze(1) + (m - n)
    j = torch.arange(m).unsqueeze(0)
    ok = torch.ones(n, m, dtype=torch.bool)
    if causal:
        ok &= j <= i
        if window > 0:
            ok &= j > i - window  # Mistral: i - window < j <= i
    return ok


def attention(x, w, n_heads, n_kv, causal, window, use_rope=False):
    """Grouped-query attention from the definitions. w: wq wo (d, d), wk wv (d, n_kv d_k), biases optional."""
    n, d = x.shape
    d_k = d // n_heads
    group = n_heads // n_kv

    def proj(src, wn, bn):
        out = src @ w[wn]
        return out + w[bn] if bn in w else out

    s = {"q": proj(x, "wq", "bq"), "k": proj(x, "wk", "bk"), "v": proj(x, "wv", "bv")}
    q, k, v = s["q"], s["k"], s["v"]
    if use_rope:
        q = s["q_rot"] = rope(q, n_heads)
        k = s["k_rot"] = rope(k, n_kv)
    s["kv_group"] = torch.tensor([float(hd // group) for hd in range(n_heads)], dtype=torch.float64)
    qh = q.reshape(n, n_heads, d_k).transpose(0, 1)                  # (h, n, d_k)
    kh = k.reshape(n, n_kv, d_k).transpose(0, 1)                     # (n_kv, n, d_k)
    vh = v.reshape(n, n_kv, d_k).transpose(0, 1)
    kh_rep = kh.repeat_interleave(group, dim=0)                      # (h, n, d_k): HF's repeat_kv
    vh_rep = vh.repeat_interleave(group, dim=0)
    s["scores"] = qh @ kh_rep.transpose(1, 2)
    s["scaled"] = s["scores"] / math.sqrt(d_k)
    ok = visible(n, n, causal, window)
    s["masked"] = s["scaled"].masked_fill(~ok, float("-inf"))
    s["weights"] = torch.softmax(s["masked"], dim=-1)                 # every row sees its own key here
    s["head_out"] = s["weights"] @ vh_rep
    s["concat"] = s["head_out"].transpose(0, 1).reshape(n, d)
    s["attn_out"] = proj(s["concat"], "wo", "bo")

    # Cross-check: torch's nn.MultiheadAttention on the (rotated) q, the repeated k and v, identity
    # input projections, our W_O, the causal window as attn_mask.
    mha = nn.MultiheadAttention(d, n_heads, bias=True, batch_first=True).double()
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([torch.eye(d)] * 3).double())
        mha.in_proj_bias.zero_()
        mha.out_proj.weight.copy_(w["wo"].t())
        mha.out_proj.bias.copy_(w["bo"] if "bo" in w else torch.zeros(d, dtype=torch.float64))
    k_rep = kh_rep.transpose(0, 1).reshape(n, d)
    v_rep = vh_rep.transpose(0, 1).reshape(n, d)
    mask = torch.zeros(n, n, dtype=torch.float64).masked_fill(~ok, float("-inf"))
    out, wts = mha(q[None], k_rep[None], v_rep[None], attn_mask=mask, need_weights=True, average_attn_weights=False)
    check("attention vs nn.MultiheadAttention", s["attn_out"], out[0])
    check("weights vs nn.MultiheadAttention", s["weights"], wts[0])
    return s["attn_out"], s


def pool_kv(w, n_heads, n_kv):
    """Ainslie et al. 2023, sec. 2.1: each group's K/V projection is the mean of its heads' (weights and biases)."""
    out = dict(w)
    d = w["wq"].shape[0]
    d_k, group = d // n_heads, n_heads // n_kv
    for name in ("wk", "wv", "bk", "bv"):
        if name not in w:
            continue
        t = w[name]
        cols = t.reshape(*t.shape[:-1], n_heads, d_k)                  # (..., h, d_k)
        pooled = cols.reshape(*t.shape[:-1], n_kv, group, d_k).mean(dim=-2)
        out[name] = pooled.reshape(*t.shape[:-1], n_kv * d_k)
    return out


def ffn(x, w, kind, act="relu"):
    s = {}
    if kind == "mlp":
        s["ffn_hidden"] = x @ w["ffn.w1"] + w["ffn.b1"]
        s["ffn_act"] = torch.clamp(s["ffn_hidden"], min=0.0) if act == "relu" else gelu(s["ffn_hidden"])
        s["ffn_out"] = s["ffn_act"] @ w["ffn.w2"] + w["ffn.b2"]
    else:
        s["ffn_gate"] = x @ w["ffn.w_gate"]
        s["ffn_gate_act"] = silu(s["ffn_gate"]) if kind == "swiglu" else gelu(s["ffn_gate"])
        s["ffn_up"] = x @ w["ffn.w1"] + w["ffn.b1"]
        s["ffn_prod"] = s["ffn_gate_act"] * s["ffn_up"]
        s["ffn_out"] = s["ffn_prod"] @ w["ffn.w2"] + w["ffn.b2"]
    return s["ffn_out"], s


def norm(x, w, name, kind, s):
    if kind == "rmsnorm":
        out, rms = rms_norm(x, w[name + ".gamma"])
        s[name + "_rms"] = rms
    else:
        out, stats = layer_norm(x, w[name + ".gamma"], w[name + ".beta"])
        s[name + "_stats"] = stats
    s[name] = out
    return out


def block(x, w, c):
    s = {}
    attn_w = {k[len("self_attn."):]: v for k, v in w.items() if k.startswith("self_attn.")}
    args = (c["n_heads"], c["n_kv"], True, c["window"], c["pos"] == "rope")
    if c["norm"] == "post":
        a, st = attention(x, attn_w, *args)
        s.update(st)
        s["resid1"] = x + a
        h = norm(s["resid1"], w, "norm1", c["norm_kind"], s)
        f, st = ffn(h, w, c["ffn_kind"], c["act"])
        s.update(st)
        s["resid2"] = h + f
        out = norm(s["resid2"], w, "norm2", c["norm_kind"], s)
    else:
        h = norm(x, w, "norm1", c["norm_kind"], s)
        a, st = attention(h, attn_w, *args)
        s.update(st)
        s["resid1"] = r = x + a
        h2 = norm(r, w, "norm2", c["norm_kind"], s)
        f, st = ffn(h2, w, c["ffn_kind"], c["act"])
        s.update(st)
        s["resid2"] = out = r + f
    return out, s


def sinusoidal(n, d):
    pe = torch.zeros(n, d, dtype=torch.float64)
    for p in range(n):
        for col in range(d):
            angle = p / 10000.0 ** ((col - col % 2) / d)
            pe[p, col] = math.sin(angle) if col % 2 == 0 else math.cos(angle)
    return pe


# ---------------------------------------------------------------- JSON (the format of make_fixtures.py)

def write_case(case, kind, params, inputs, weights, stages, extra=None):
    text = case_text(case, kind, params, inputs, weights, stages, extra)
    assert len(text) < MAX_BYTES, f"{case}: {len(text)} bytes"
    (OUT_DIR / f"{case}.json").write_text(text)
    print(f"{case}.json: {len(text)} bytes")


# ---------------------------------------------------------------- cases

def attention_case(case, seed, n, d, h, n_kv, causal, window):
    rand = Rand(seed)
    d_kv = n_kv * (d // h)
    x = rand.normal(n, d)
    w = {"wq": rand.weight(d, d), "wk": rand.weight(d, d_kv), "wv": rand.weight(d, d_kv), "wo": rand.weight(d, d),
         "bq": rand.bias(d), "bk": rand.bias(d_kv), "bv": rand.bias(d_kv), "bo": rand.bias(d)}
    _, stages = attention(f64(x), {k: f64(v) for k, v in w.items()}, h, n_kv, causal, window)
    params = {"n": n, "d_model": d, "n_heads": h, "n_kv_heads": n_kv, "causal": causal, "window": window}
    write_case(case, "attention", params, {"x": x}, w, stages)


def char_vocab(size):
    return ["<pad>", "<unk>", "<bos>", "<eos>"] + [chr(ord("a") + i) for i in range(size - 4)]


def model_case(case, seed, c, ids, switches=None):
    """A decoder-only model with config c (the core's JSON keys) run with `switches` (the JS names)."""
    rand = Rand(seed)
    d, h, L, F_, V = c["d_model"], c["n_heads"], c["n_layers"], c["d_ff"], c["vocab_size"]
    own_kv = c.get("n_kv_heads", h)
    d_kv = own_kv * (d // h)
    rms_file = c.get("norm_kind") == "rmsnorm"
    glu = c.get("ffn_kind", "mlp") != "mlp"
    w = {"tok_emb": rand.normal(V, d)}

    def add_norm(name):
        w[name + ".gamma"] = rand.gamma(d)
        if not rms_file:
            w[name + ".beta"] = rand.bias(d)

    for i in range(L):  # in the core's layout order (core/layout.hpp)
        p = f"decoder.{i}."
        for nm, shape in (("wq", (d, d)), ("wk", (d, d_kv)), ("wv", (d, d_kv)), ("wo", (d, d))):
            w[p + "self_attn." + nm] = rand.weight(*shape)
        for nm, size in (("bq", d), ("bk", d_kv), ("bv", d_kv), ("bo", d)):
            w[p + "self_attn." + nm] = rand.bias(size)
        add_norm(p + "norm1")
        w[p + "ffn.w1"], w[p + "ffn.b1"] = rand.weight(d, F_), rand.bias(F_)
        w[p + "ffn.w2"], w[p + "ffn.b2"] = rand.weight(F_, d), rand.bias(d)
        if glu:
            w[p + "ffn.w_gate"] = rand.weight(d, F_)
        add_norm(p + "norm2")
    if c["norm"] == "pre":
        add_norm("decoder.final_norm")
    w["lm_head.w"], w["lm_head.b"] = rand.weight(d, V), rand.bias(V)
    w64 = {k: f64(v) for k, v in w.items()}

    sw = switches or {}
    run = {"n_heads": h, "n_kv": sw.get("nKvHeads", own_kv), "window": sw.get("window", c.get("window", 0)),
           "pos": c["pos"], "norm": c["norm"], "norm_kind": sw.get("normKind", c.get("norm_kind", "layernorm")),
           "ffn_kind": c.get("ffn_kind", "mlp"), "act": c["act"]}
    n = len(ids)
    stages = {"decoder.embed": w64["tok_emb"][ids]}
    x = stages["decoder.embed"]
    if c["pos"] == "sinusoidal":
        stages["decoder.pos"] = sinusoidal(n, d)
        x = x + stages["decoder.pos"]
    stages["decoder.x"] = x
    for i in range(L):
        p = f"decoder.{i}."
        bw = {k[len(p):]: v for k, v in w64.items() if k.startswith(p)}
        if run["n_kv"] != own_kv:  # a multi-head model switched to grouped K/V: mean-pool each group
            pooled = pool_kv({k[len("self_attn."):]: v for k, v in bw.items() if k.startswith("self_attn.")},
                             h, run["n_kv"])
            bw.update({"self_attn." + k: v for k, v in pooled.items()})
        x, st = block(x, bw, run)
        stages.update({p + k: v for k, v in st.items()})
    if c["norm"] == "pre":
        s = {}
        x = norm(x, w64, "decoder.final_norm", run["norm_kind"], s)
        stages.update(s)  # decoder.final_norm and the statistic it divided by (_rms or _stats)
    stages["logits"] = x @ w64["lm_head.w"] + w64["lm_head.b"]
    stages["probs"] = torch.softmax(stages["logits"], dim=-1)
    cfg = dict(c, eps=EPS, scale=True, causal=True, tokenizer="char", max_len=16)
    write_case(case, "model", cfg, {"ids": ids}, w, stages,
               extra={"config": cfg, "switches": sw, "vocab": char_vocab(V)})


def main():
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    for old in OUT_DIR.glob("*.json"):
        old.unlink()
    attention_case("attention_gqa_window", 261, n=9, d=12, h=4, n_kv=2, causal=True, window=3)
    attention_case("attention_mqa", 262, n=6, d=8, h=4, n_kv=1, causal=False, window=0)
    attention_case("attention_window1", 263, n=5, d=8, h=2, n_kv=2, causal=True, window=1)
    attention_case("attention_window_over_n", 264, n=6, d=8, h=2, n_kv=1, causal=True, window=8)
    base = {"arch": "decoder", "n_layers": 2, "vocab_size": 12}
    model_case("model_llama_like", 265,
               dict(base, d_model=8, n_heads=4, n_kv_heads=2, d_ff=12, pos="rope", act="relu", norm="pre",
                    norm_kind="rmsnorm", ffn_kind="swiglu", window=4),
               ids=[2, 5, 9, 4, 11, 7, 6, 8])
    model_case("model_geglu_mqa_post", 266,
               dict(base, d_model=8, n_heads=2, n_kv_heads=1, d_ff=12, pos="sinusoidal", act="relu", norm="post",
                    norm_kind="rmsnorm", ffn_kind="geglu"),
               ids=[2, 7, 4, 10, 5])
    # The project's own kind of model (multi-head, LayerNorm, ReLU FFN, post-norm) with the weight-free
    # switches flipped: K/V mean-pooled to one head, RMSNorm with the LayerNorm gains (biases dropped), a window.
    model_case("model_switched", 267,
               dict(base, d_model=8, n_heads=4, d_ff=16, pos="sinusoidal", act="relu", norm="post"),
               ids=[2, 6, 9, 5, 11, 4], switches={"nKvHeads": 1, "normKind": "rmsnorm", "window": 2})
    print(f"worst error of the definitions against torch's modules: {WORST[0]:.2e}")


if __name__ == "__main__":
    main()
