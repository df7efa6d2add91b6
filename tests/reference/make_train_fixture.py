#!/usr/bin/python3
"""Golden values for the C++ trainer and the shipped models.

1. tiny_grad*.json (tests/cpp/test_train_torch.cpp): tiny transformers built from torch
   built-ins (F.layer_norm, F.gelu, softmax, masked_fill with -inf, F.cross_entropy with
   ignore_index=0) run one batch with padding; the file holds the weights (the C++ names,
   every W as (in, out) applied as x @ W), the batch, the mean loss and every parameter's
   gradient from autograd.
2. shipped_logits.json (tests/cpp/test_train_shipped.cpp): each web/models/*.safetensors is
   read here (a plain safetensors parser), loaded into the same torch module, and run on a few
   inputs; the logits are the golden values the C++ core must reproduce from the same file.
   Rerun this script after retraining a shipped model.

Run with Debian's torch: /usr/bin/python3 tests/reference/make_train_fixture.py
"""
import json
import math
import os

import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)  # the fixture is the exact answer; C++ runs float32
OUT = os.path.join(os.path.dirname(__file__), "..", "fixtures", "train")


def make_params(cfg, gen):
    d, V, L, F_ = cfg["d_model"], cfg["vocab_size"], cfg["max_len"], cfg["d_ff"]
    p = {}

    def rand(name, *shape, scale=0.5):
        p[name] = (torch.randn(*shape, generator=gen) * scale).requires_grad_()

    rand("tok_emb", V, d, scale=1.0)
    if cfg["pos"] == "learned":
        rand("pos_emb", L, d)

    def attn(pre):
        for w in ("q", "k", "v", "o"):
            rand(f"{pre}.w{w}", d, d)
            rand(f"{pre}.b{w}", d, scale=0.1)

    def norm(pre):
        p[f"{pre}.gamma"] = (1 + 0.2 * torch.randn(d, generator=gen)).requires_grad_()
        rand(f"{pre}.beta", d, scale=0.1)

    stacks = ["encoder", "decoder"] if cfg["arch"] == "encoder-decoder" else ["decoder"]
    for stack in stacks:
        for i in range(cfg["n_layers"]):
            pre = f"{stack}.{i}"
            attn(pre + ".self_attn")
            norm(pre + ".norm1")
            if stack == "decoder" and cfg["arch"] == "encoder-decoder":
                attn(pre + ".cross_attn")
                norm(pre + ".norm_cross")
            rand(pre + ".ffn.w1", d, F_)
            rand(pre + ".ffn.b1", F_, scale=0.1)
            rand(pre + ".ffn.w2", F_, d)
            rand(pre + ".ffn.b2", d, scale=0.1)
            norm(pre + ".norm2")
        if cfg["norm"] == "pre":
            norm(stack + ".final_norm")
    rand("lm_head.w", d, V)
    rand("lm_head.b", V, scale=0.1)
    return p


def sinusoidal(L, d):
    pe = torch.zeros(L, d)
    for pos in range(L):
        for c in range(d):
            two_i = c - c % 2
            angle = pos / (10000.0 ** (two_i / d))
            pe[pos, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return pe


def attention(p, pre, x, mem, h, causal, key_pad):
    """x (B, T, d) queries, mem (B, S, d) keys/values, key_pad (B, S) True = masked."""
    B, T, d = x.shape
    S = mem.shape[1]
    dk = d // h
    q = x @ p[pre + ".wq"] + p[pre + ".bq"]
    k = mem @ p[pre + ".wk"] + p[pre + ".bk"]
    v = mem @ p[pre + ".wv"] + p[pre + ".bv"]
    split = lambda t, n: t.view(B, n, h, dk).transpose(1, 2)  # (B, h, n, d_k)
    scores = split(q, T) @ split(k, S).transpose(-1, -2) / math.sqrt(dk)  # (B, h, T, S)
    mask = torch.zeros(B, 1, T, S, dtype=torch.bool)
    if causal:
        mask = mask | torch.triu(torch.ones(T, S, dtype=torch.bool), diagonal=1)
    if key_pad is not None:
        mask = mask | key_pad[:, None, None, :]
    weights = torch.softmax(scores.masked_fill(mask, float("-inf")), dim=-1)
    weights = torch.nan_to_num(weights, nan=0.0)  # a row with every key masked: zero weights
    concat = (weights @ split(v, S)).transpose(1, 2).reshape(B, T, d)
    return concat @ p[pre + ".wo"] + p[pre + ".bo"]


def ln(p, pre, x, eps):
    return F.layer_norm(x, (x.shape[-1],), p[pre + ".gamma"], p[pre + ".beta"], eps)


def stack_forward(p, cfg, stack, ids, memory=None, src_pad=None):
    B, T = ids.shape
    d = cfg["d_model"]
    x = p["tok_emb"][ids]
    if cfg["pos"] == "learned":
        x = x + p["pos_emb"][:T]
    elif cfg["pos"] == "sinusoidal":
        x = x + sinusoidal(cfg["max_len"], d)[:T]
    act = F.gelu if cfg["act"] == "gelu" else F.relu
    post = cfg["norm"] == "post"
    eps = cfg["eps"]
    causal = stack == "decoder"
    self_pad = src_pad if stack == "encoder" else None
    for i in range(cfg["n_layers"]):
        pre = f"{stack}.{i}"
        a = lambda inp: attention(p, pre + ".self_attn", inp, inp, cfg["n_heads"], causal, self_pad)
        c = lambda inp: attention(p, pre + ".cross_attn", inp, memory, cfg["n_heads"], False, src_pad)
        f = lambda inp: act(inp @ p[pre + ".ffn.w1"] + p[pre + ".ffn.b1"]) @ p[pre + ".ffn.w2"] + p[pre + ".ffn.b2"]
        if post:
            x = ln(p, pre + ".norm1", x + a(x), eps)
            if memory is not None:
                x = ln(p, pre + ".norm_cross", x + c(x), eps)
            x = ln(p, pre + ".norm2", x + f(x), eps)
        else:
            x = x + a(ln(p, pre + ".norm1", x, eps))
            if memory is not None:
                x = x + c(ln(p, pre + ".norm_cross", x, eps))
            x = x + f(ln(p, pre + ".norm2", x, eps))
    if not post:
        x = ln(p, stack + ".final_norm", x, eps)
    return x


def make_fixture(name, cfg, inputs, targets, src=None, seed=0):
    gen = torch.Generator().manual_seed(seed)
    p = make_params(cfg, gen)
    inputs_t, targets_t = torch.tensor(inputs), torch.tensor(targets)
    memory = src_pad = None
    if src is not None:
        src_t = torch.tensor(src)
        src_pad = src_t == 0
        memory = stack_forward(p, cfg, "encoder", src_t, src_pad=src_pad)
    out = stack_forward(p, cfg, "decoder", inputs_t, memory, src_pad)
    logits = out @ p["lm_head.w"] + p["lm_head.b"]
    loss = F.cross_entropy(logits.reshape(-1, cfg["vocab_size"]), targets_t.reshape(-1), ignore_index=0)
    loss.backward()
    tensor = lambda t: {"shape": list(t.shape), "data": [float(x) for x in t.detach().reshape(-1)]}
    fixture = {
        "config": cfg,
        "inputs": inputs,
        "targets": targets,
        "src": src,
        "loss": float(loss),
        "logits": tensor(logits),
        "params": {k: tensor(v) for k, v in p.items()},
        "grads": {k: tensor(v.grad) for k, v in p.items()},
    }
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "w") as fh:
        json.dump(fixture, fh)
    print(f"{name}: loss {float(loss):.6f}, {sum(v.numel() for v in p.values())} parameters")


def read_safetensors(path):
    """A plain safetensors reader: 8-byte little-endian header length, JSON header, raw F32 data."""
    import struct

    with open(path, "rb") as fh:
        raw = fh.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    meta = header.pop("__metadata__")
    data = raw[8 + n :]
    tensors = {}
    for name, info in header.items():
        assert info["dtype"] == "F32"
        a, b = info["data_offsets"]
        t = torch.frombuffer(bytearray(data[a:b]), dtype=torch.float32).to(torch.float64)
        tensors[name] = t.reshape(info["shape"])
    return meta, tensors, raw


def encode(vocab, kind, text):
    index = {p: i for i, p in enumerate(vocab)}
    pieces = list(text) if kind == "char" else text.replace(".", " .").split()
    return [index[p] for p in pieces]


def shipped_fixture():
    """Logits of each shipped model on a few inputs, computed by the torch module above."""
    import hashlib

    models_dir = os.path.join(os.path.dirname(__file__), "..", "..", "web", "models")
    cases = {
        # decoder-only: the whole sequence "<bos> input = output" (teacher forcing)
        "sort.safetensors": [("", "b7a3k9=379abk"), ("", "zz0y9xa1b2=0129abxyzz")],
        "reverse.safetensors": [("", "b7a3k9=9k3a7b"), ("", "hello2you=uoy2olleh")],
        # encoder-decoder: (source, "<bos> + target")
        "dates.safetensors": [("22 Nov 2026", "2026-11-22"), ("Sunday 22 November 2026", "2026-11-22"),
                              ("nov 22 26", "2026-11-22"), ("3/7/1999", "1999-07-03")],
        "grammar.safetensors": [("", "the cat sat on the mat ."), ("", "the cats near the dog are happy ."),
                                ("", "the fisherman sat on the bank of the river .")],
    }
    out = []
    for name, inputs in cases.items():
        path = os.path.join(models_dir, name)
        if not os.path.exists(path):
            print(f"shipped_logits: {name} not found, skipped")
            continue
        meta, p, raw = read_safetensors(path)
        cfg = json.loads(meta["config"])
        vocab = json.loads(meta["vocab"])
        for src_text, tgt_text in inputs:
            tgt = [2] + encode(vocab, cfg["tokenizer"], tgt_text)  # <bos> first
            memory = src_pad = src = None
            if cfg["arch"] == "encoder-decoder":
                src = encode(vocab, cfg["tokenizer"], src_text)
                src_t = torch.tensor([src])
                src_pad = src_t == 0
                memory = stack_forward(p, cfg, "encoder", src_t, src_pad=src_pad)
            with torch.no_grad():
                h = stack_forward(p, cfg, "decoder", torch.tensor([tgt]), memory, src_pad)
                logits = (h @ p["lm_head.w"] + p["lm_head.b"])[0]
            argmax = "".join(vocab[i] if len(vocab[i]) == 1 else f" {vocab[i]}" for i in logits.argmax(-1).tolist())
            print(f"{name}: {src_text!r} {tgt_text!r} -> next-token argmax {argmax!r}")
            out.append({
                "model": name,
                "sha256": hashlib.sha256(raw).hexdigest(),
                "src": src,
                "tgt": tgt,
                "logits": {"shape": list(logits.shape), "data": [float(x) for x in logits.reshape(-1)]},
            })
    with open(os.path.join(OUT, "shipped_logits.json"), "w") as fh:
        json.dump(out, fh)


def main():
    base = {"d_model": 8, "n_heads": 2, "n_layers": 1, "d_ff": 16, "vocab_size": 10, "max_len": 8, "eps": 1e-5}
    # Decoder-only, post-norm, GELU, learned positions; the second sequence is right-padded and
    # the first two targets of the first are masked (a prompt).
    make_fixture(
        "tiny_grad.json",
        dict(base, arch="decoder", pos="learned", act="gelu", norm="post"),
        inputs=[[2, 5, 7, 4, 9, 6], [2, 8, 8, 5, 0, 0]],
        targets=[[0, 0, 4, 9, 6, 3], [8, 8, 5, 3, 0, 0]],
        seed=1,
    )
    # Encoder-decoder, pre-norm, ReLU, sinusoidal, two layers, padded source and target.
    make_fixture(
        "tiny_grad_encdec.json",
        dict(base, arch="encoder-decoder", pos="sinusoidal", act="relu", norm="pre", n_layers=2),
        inputs=[[2, 6, 4, 7], [2, 9, 0, 0]],
        targets=[[6, 4, 7, 3], [9, 3, 0, 0]],
        src=[[5, 6, 7, 8, 4], [9, 4, 5, 0, 0]],
        seed=2,
    )
    shipped_fixture()


if __name__ == "__main__":
    main()
