#!/usr/bin/python3
"""The SmolLM-135M-shaped Llama model of the benchmark (issue 26) exported to float32 ONNX for
onnxruntime-web, as make_hf_fixtures.py --onnx does for the GPT-2-small-shaped one.

Run with Debian's python (torch 1.13, onnx 1.12); `npm run bench -- --gpt2` runs it when the graphs
are missing:
    /usr/bin/python3 tests/reference/make_smollm_onnx.py [FOLDER [OUT_DIR]]
FOLDER (default build/hf/smollm-135m-shape) is written by `node tests/tools/lib/hf-synthetic.mjs
FOLDER --smollm`; this script checks every element of it against the generator's formula
(make_hf_fixtures.synthetic_values), builds LlamaForCausalLM in float32 with plain torch ops and a
KV cache (rotate_half RoPE with rope_theta, grouped-query attention by broadcasting each K/V head
over its group of query heads, RMSNorm, the SwiGLU MLP, the tied head), checks it against the
float64 definitions of make_llama_fixtures.py (forward), exports smollm-prefill.onnx and
smollm-decode.onnx into OUT_DIR (default build/bench/onnx) and runs both with onnxruntime-web in
Node against float64. Nothing here is committed: the folder and the graphs are ~270 MB and ~540 MB.
"""
import json
import math
import sys
import time
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_hf_fixtures import (REPO, KvCheck, ort_module, read_safetensors, rel, run_ort_check,  # noqa: E402
                              sha256, synthetic_values)
import make_llama_fixtures as llama  # noqa: E402

# make_llama_fixtures sets the default dtype to float64 (its forward); this module is float32 explicitly.
torch.set_grad_enabled(False)


def kind(name):
    if name == "model.embed_tokens.weight":
        return "embedding"
    if name.endswith("layernorm.weight") or name == "model.norm.weight":
        return "ln_weight"
    return "matrix"


class LlamaOnnx(nn.Module):
    """forward(input_ids [1, n], past [L, 2, 1, kv, p, d_k] or None) -> logits [1, n, V],
    present [L, 2, 1, kv, p + n, d_k]. The token embedding is stored once, transposed (d, V): the
    tied head is a MatMul on it and the lookup a Gather on axis 1."""

    def __init__(self, tensors, cfg):
        super().__init__()
        self.L, self.d = cfg["num_hidden_layers"], cfg["hidden_size"]
        self.h, self.kv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.dk = self.d // self.h
        self.eps = cfg["rms_norm_eps"]
        inv = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, self.dk, 2, dtype=torch.float64) / self.dk))
        self.register_buffer("inv_freq", inv.float())
        self.wte_t = nn.Parameter(tensors["model.embed_tokens.weight"].float().t().contiguous(), requires_grad=False)
        # nn.Linear weights (out, in) stored as (in, out): x @ W.
        self.p = nn.ParameterDict()
        for k, v in tensors.items():
            if k == "model.embed_tokens.weight":
                continue
            t = v.float().t().contiguous() if v.dim() == 2 else v.float()
            self.p[k.replace(".", "_")] = nn.Parameter(t, requires_grad=False)

    def w(self, name):
        return self.p[name.replace(".", "_")]

    def rms(self, x, name):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.w(name)

    @staticmethod
    def rotate_half(x):
        half = x.shape[-1] // 2
        return torch.cat((-x[..., half:], x[..., :half]), dim=-1)

    def forward(self, input_ids, past=None):
        n = input_ids.shape[1]
        d, h, kv, dk = self.d, self.h, self.kv, self.dk
        rep = h // kv
        p = past.shape[4] if past is not None else 0
        x = torch.index_select(self.wte_t, 1, input_ids.reshape(-1)).t()  # (n, d)
        qpos = torch.arange(n) + p
        freqs = qpos.float()[:, None] * self.inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)  # (n, d_k)
        cos, sin = emb.cos(), emb.sin()
        total = n + p
        mask = torch.arange(total)[None, :] > qpos[:, None]  # (n, p + n): key after query
        present = []
        for l in range(self.L):
            pre = f"model.layers.{l}."
            a = self.rms(x, pre + "input_layernorm.weight")
            q = (a @ self.w(pre + "self_attn.q_proj.weight")).reshape(n, h, dk).transpose(0, 1)  # (h, n, d_k)
            k = (a @ self.w(pre + "self_attn.k_proj.weight")).reshape(n, kv, dk).transpose(0, 1)  # (kv, n, d_k)
            v = (a @ self.w(pre + "self_attn.v_proj.weight")).reshape(n, kv, dk).transpose(0, 1)
            q = q * cos + self.rotate_half(q) * sin
            k = (k * cos + self.rotate_half(k) * sin)[None]  # (1, kv, n, d_k)
            v = v[None]
            if past is not None:
                k = torch.cat([past[l, 0], k], dim=2)
                v = torch.cat([past[l, 1], v], dim=2)
            present.append(torch.stack([k, v]))
            qg = q.reshape(kv, rep, n, dk)[None]  # (1, kv, rep, n, d_k): query heads by their K/V head
            s = (qg @ k[:, :, None].transpose(3, 4)) / math.sqrt(dk)  # (1, kv, rep, n, total)
            s = s.masked_fill(mask, float("-inf"))
            o = torch.softmax(s, dim=-1) @ v[:, :, None]  # (1, kv, rep, n, d_k)
            o = o.reshape(h, n, dk).transpose(0, 1).reshape(n, d)
            x = x + o @ self.w(pre + "self_attn.o_proj.weight")
            m = self.rms(x, pre + "post_attention_layernorm.weight")
            g = m @ self.w(pre + "mlp.gate_proj.weight")
            u = m @ self.w(pre + "mlp.up_proj.weight")
            x = x + (g * torch.sigmoid(g) * u) @ self.w(pre + "mlp.down_proj.weight")
        x = self.rms(x, "model.norm.weight")
        return (x @ self.wte_t)[None], torch.stack(present)


def check(what, got, want, tol):
    err = (got.double() - want).abs().max().item() / max(want.abs().max().item(), 1e-300)
    if not err <= tol:
        sys.exit(f"FAIL {what}: max relative error {err:.3g} > {tol:g}")
    print(f"  {what}: max relative error {err:.2g} (limit {tol:g})")


def main():
    import onnx

    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else REPO / "build/hf/smollm-135m-shape"
    out_dir = Path(sys.argv[2]) if len(sys.argv) > 2 else REPO / "build/bench/onnx"
    t0 = time.time()
    model = folder / "model.safetensors"
    cfg = json.loads((folder / "config.json").read_text())
    tensors, header = read_safetensors(model)
    for t, (name, v) in enumerate(tensors.items()):  # the Node generator against the formula, every element
        assert header[name]["dtype"] == "F16"
        if not torch.equal(v.reshape(-1).double(), torch.from_numpy(synthetic_values(t, v.numel(), kind(name)))):
            sys.exit(f"FAIL {name}: hf-synthetic.mjs values differ from the formula")
    print(f"{rel(model)}: {model.stat().st_size} bytes, sha256 {sha256(model)}, {len(tensors)} tensors match the "
          f"formula ({time.time() - t0:.1f} s)")
    L, kv = cfg["num_hidden_layers"], cfg["num_key_value_heads"]
    dk = cfg["hidden_size"] // cfg["num_attention_heads"]
    gen = torch.Generator().manual_seed(26)
    ids = torch.randint(0, cfg["vocab_size"] - 1, (12,), generator=gen).tolist()
    w64 = {k: v.double() for k, v in tensors.items()}
    core = LlamaOnnx(tensors, cfg).eval()
    # float64 references: the published definitions
    kv_check = KvCheck(core, lambda part: llama.forward(w64, cfg, part), ids, lambda p: [L, 2, 1, kv, p, dk], check)
    kv_check.check_module()
    out_dir.mkdir(parents=True, exist_ok=True)
    prefill_path, decode_path = out_dir / "smollm-prefill.onnx", out_dir / "smollm-decode.onnx"
    kv_check.export(prefill_path, decode_path)
    for path in (prefill_path, decode_path):
        onnx.checker.check_model(str(path))
        print(f"{rel(path)}: {path.stat().st_size} bytes, onnx.checker ok")
    ort = ort_module()
    if ort is None:
        sys.exit("onnxruntime-web is not installed (npm ci): the graphs cannot be run")
    res = run_ort_check(ort, prefill_path, decode_path, ids)
    if res.returncode != 0:
        sys.exit("onnxruntime-web run failed:\n" + res.stderr[-2000:])
    r = json.loads(res.stdout.strip().splitlines()[-1])
    m = len(ids) - 2
    kv_check.check_ort(r)
    print(f"onnxruntime-web: prefill {m} ids and 2 decode steps match float64; total {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
