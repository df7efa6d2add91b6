#!/usr/bin/python3
"""Seeds for tests/fuzz/fuzz_hf_model.cpp (tests/corpus/hf_model): a Hugging Face config.json, a line
"--", then a model.safetensors, for micro GPT-2, BERT and Llama-family models (d 4, 1 layer, vocab 8) in
F32, F16 and BF16, and broken variants whose names say what is wrong (valid_* load, bad_* are refused with an
error; tests/cpp/test_hf_model.cpp checks both). Run: /usr/bin/python3 tests/reference/make_hf_fuzz_seeds.py
"""
import json, os, struct
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), '..', 'corpus', 'hf_model')
rng = np.random.default_rng(16)
D, F, V, L = 4, 16, 8, 8


def gpt2(prefix=''):
    t = {prefix + 'wte.weight': (V, D), prefix + 'wpe.weight': (L, D)}
    p = prefix + 'h.0.'
    t.update({p + 'ln_1.weight': (D,), p + 'ln_1.bias': (D,), p + 'attn.c_attn.weight': (D, 3 * D),
              p + 'attn.c_attn.bias': (3 * D,), p + 'attn.c_proj.weight': (D, D), p + 'attn.c_proj.bias': (D,),
              p + 'ln_2.weight': (D,), p + 'ln_2.bias': (D,), p + 'mlp.c_fc.weight': (D, F), p + 'mlp.c_fc.bias': (F,),
              p + 'mlp.c_proj.weight': (F, D), p + 'mlp.c_proj.bias': (D,),
              prefix + 'ln_f.weight': (D,), prefix + 'ln_f.bias': (D,)})
    cfg = {'model_type': 'gpt2', 'vocab_size': V, 'n_positions': L, 'n_embd': D, 'n_layer': 1, 'n_head': 2}
    return cfg, t


def bert():
    t = {'bert.embeddings.word_embeddings.weight': (V, D), 'bert.embeddings.position_embeddings.weight': (L, D),
         'bert.embeddings.token_type_embeddings.weight': (2, D), 'bert.embeddings.LayerNorm.weight': (D,),
         'bert.embeddings.LayerNorm.bias': (D,)}
    p = 'bert.encoder.layer.0.'
    for n in ['attention.self.query', 'attention.self.key', 'attention.self.value', 'attention.output.dense']:
        t[p + n + '.weight'] = (D, D)
        t[p + n + '.bias'] = (D,)
    t.update({p + 'attention.output.LayerNorm.weight': (D,), p + 'attention.output.LayerNorm.bias': (D,),
              p + 'intermediate.dense.weight': (F, D), p + 'intermediate.dense.bias': (F,),
              p + 'output.dense.weight': (D, F), p + 'output.dense.bias': (D,),
              p + 'output.LayerNorm.weight': (D,), p + 'output.LayerNorm.bias': (D,),
              'cls.predictions.transform.dense.weight': (D, D), 'cls.predictions.transform.dense.bias': (D,),
              'cls.predictions.transform.LayerNorm.weight': (D,), 'cls.predictions.transform.LayerNorm.bias': (D,),
              'cls.predictions.bias': (V,)})
    cfg = {'model_type': 'bert', 'vocab_size': V, 'hidden_size': D, 'num_hidden_layers': 1, 'num_attention_heads': 2,
           'intermediate_size': F, 'max_position_embeddings': L, 'type_vocab_size': 2}
    return cfg, t


def llama(model_type='llama', kv=1, bias=False, tied=False):
    """LlamaForCausalLM's names (MistralForCausalLM, Qwen2ForCausalLM: the same), nn.Linear (out, in)."""
    dk = D // 2
    p = 'model.layers.0.'
    t = {'model.embed_tokens.weight': (V, D), p + 'input_layernorm.weight': (D,),
         p + 'self_attn.q_proj.weight': (D, D), p + 'self_attn.k_proj.weight': (kv * dk, D),
         p + 'self_attn.v_proj.weight': (kv * dk, D), p + 'self_attn.o_proj.weight': (D, D),
         p + 'post_attention_layernorm.weight': (D,), p + 'mlp.gate_proj.weight': (F, D),
         p + 'mlp.up_proj.weight': (F, D), p + 'mlp.down_proj.weight': (D, F), 'model.norm.weight': (D,)}
    if bias:
        t.update({p + 'self_attn.q_proj.bias': (D,), p + 'self_attn.k_proj.bias': (kv * dk,),
                  p + 'self_attn.v_proj.bias': (kv * dk,)})
    if not tied:
        t['lm_head.weight'] = (V, D)
    cfg = {'model_type': model_type, 'vocab_size': V, 'hidden_size': D, 'num_hidden_layers': 1,
           'num_attention_heads': 2, 'num_key_value_heads': kv, 'intermediate_size': F,
           'max_position_embeddings': L, 'hidden_act': 'silu', 'rms_norm_eps': 1e-5, 'rope_theta': 10000.0,
           'rope_scaling': None, 'tie_word_embeddings': tied}
    return cfg, t


def safetensors(tensors, dtype='F32', edit=None):
    header, data = {}, b''
    for name, shape in tensors.items():
        a = (rng.standard_normal(shape) * 0.3).astype(np.float32)
        if dtype == 'F16':
            raw = a.astype(np.float16).tobytes()
        elif dtype == 'BF16':
            raw = (a.view(np.uint32) >> 16).astype(np.uint16).tobytes()
        else:
            raw = a.tobytes()
        header[name] = {'dtype': dtype, 'shape': list(shape), 'data_offsets': [len(data), len(data) + len(raw)]}
        data += raw
    if edit:
        data = edit(header, data)
    text = json.dumps(header).encode()
    text += b' ' * ((8 - len(text) % 8) % 8)
    return struct.pack('<Q', len(text)) + text + data


def write(name, cfg, st):
    with open(os.path.join(OUT, name), 'wb') as f:
        f.write(json.dumps(cfg).encode() + b'\n--\n' + st)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    cfg, t = gpt2('transformer.')
    write('valid_gpt2_f32', cfg, safetensors(t))
    cfg, t = gpt2()
    write('valid_gpt2_f16', cfg, safetensors(t, 'F16'))
    cfg, t = bert()
    write('valid_bert_bf16', cfg, safetensors(t, 'BF16'))
    write('valid_bert_f32', cfg, safetensors(t))
    # Broken ones.
    cfg, t = gpt2()
    write('bad_gpt2_heads_not_dividing', {**cfg, 'n_head': 3}, safetensors(t))
    write('bad_gpt2_missing_n_embd', {k: v for k, v in cfg.items() if k != 'n_embd'}, safetensors(t))
    write('bad_gpt2_missing_tensor', cfg, safetensors({k: v for k, v in t.items() if k != 'h.0.ln_2.bias'}))
    write('bad_gpt2_wrong_shape', cfg, safetensors({**t, 'wpe.weight': (L + 1, D)}))
    write('bad_gpt2_truncated', cfg, safetensors(t)[:-10])
    write('bad_gpt2_int_dtype', cfg, safetensors(t, edit=lambda h, d: (h['wte.weight'].update(dtype='I32'), d)[1]))
    cfg, t = bert()
    write('bad_bert_relative_positions', {**cfg, 'position_embedding_type': 'relative_key'}, safetensors(t))
    write('bad_bert_no_mlm_head', cfg, safetensors({k: v for k, v in t.items() if not k.startswith('cls.')}))
    write('bad_model_type_t5', {**cfg, 'model_type': 't5'}, safetensors(t))
    # The Llama family (issue 26): grouped K/V, Mistral's window, Qwen2's biases and tied head.
    cfg, t = llama()
    write('valid_llama_f32', cfg, safetensors(t))
    write('bad_llama_rope_scaling', {**cfg, 'rope_scaling': {'rope_type': 'linear', 'factor': 2.0}}, safetensors(t))
    write('bad_llama_kv_heads_not_dividing', {**cfg, 'num_attention_heads': 4, 'num_key_value_heads': 3},
          safetensors(t))
    write('bad_llama_hidden_act', {**cfg, 'hidden_act': 'gelu'}, safetensors(t))
    write('bad_llama_missing_tensor', cfg,
          safetensors({k: v for k, v in t.items() if k != 'model.layers.0.mlp.up_proj.weight'}))
    cfg, t = llama('mistral', kv=1)
    write('valid_mistral_f16', {**cfg, 'sliding_window': 2}, safetensors(t, 'F16'))
    cfg, t = llama('qwen2', kv=2, bias=True, tied=True)
    write('valid_qwen2_bf16', {**cfg, 'rope_theta': 1000000.0}, safetensors(t, 'BF16'))
    write('bad_qwen2_missing_bias', cfg,
          safetensors({k: v for k, v in t.items() if k != 'model.layers.0.self_attn.v_proj.bias'}))
    write('bad_config_not_json', {}, b'')
    with open(os.path.join(OUT, 'bad_config_not_json'), 'wb') as f:
        f.write(b'{"model_type": "gpt2", \n--\n')
    for f in sorted(os.listdir(OUT)):
        print(f, os.path.getsize(os.path.join(OUT, f)))


main()
