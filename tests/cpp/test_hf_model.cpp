// io/hf_model: Hugging Face folders streamed into the core. The numbers against PyTorch are in
// tests/wasm/pretrained.test.js (every stage of tests/fixtures/hf/expected); here: the streaming
// itself (any chunking gives the same weights, bit for bit, including values cut by a chunk's end),
// the config mapping, and the fuzz seeds of tests/corpus/hf_model.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../fuzz/hf_micro_tokenizer.hpp"
#include "base/tensor.hpp"
#include "helpers.hpp"
#include "io/hf_model.hpp"
#include "io/safetensors.hpp"

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(std::string(AP_FIXTURES_DIR) + "/" + path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct Folder {
  std::string config, tokenizer, weights;
};
Folder folder(const std::string& dir) {
  return {read_text("hf/" + dir + "/config.json"), read_text("hf/" + dir + "/tokenizer.json"),
          read_text("hf/" + dir + "/model.safetensors")};
}

// The whole folder through HfLoader, the data section in chunks of `chunk` bytes (0: one chunk).
std::unique_ptr<ap::Model> load(const std::string& config, const std::string& tokenizer, const std::string& weights,
                                size_t chunk = 0) {
  ap::HfLoader loader(config, tokenizer);
  const auto* bytes = reinterpret_cast<const uint8_t*>(weights.data());
  const uint64_t header = loader.header_length(bytes, weights.size());
  const uint64_t data = loader.read_header(bytes + 8, static_cast<size_t>(header));
  const uint8_t* p = bytes + 8 + header;
  if (chunk == 0) chunk = static_cast<size_t>(data);
  for (uint64_t at = 0; at < data; at += chunk)
    loader.feed(p + at, static_cast<size_t>(std::min<uint64_t>(chunk, data - at)));
  return loader.finish();
}
std::unique_ptr<ap::Model> load(const Folder& f, size_t chunk = 0) {
  return load(f.config, f.tokenizer, f.weights, chunk);
}

}  // namespace

TEST(HfLoader, AnyChunkingGivesTheSameWeightsBitForBit) {
  for (const char* dir : {"gpt2-tiny", "gpt2-tiny-f16", "bert-tiny", "bert-tiny-bf16", "distilbert-tiny"}) {
    SCOPED_TRACE(dir);
    const Folder f = folder(dir);
    const auto whole = load(f);
    for (size_t chunk : {4u, 12u, 4096u, 65540u}) {
      const auto parts = load(f, chunk);
      aptest::expect_same_tensors(whole->named_tensors(), parts->named_tensors());
    }
  }
}

TEST(HfLoader, TheSameValuesFromF32F16AndBf16Files) {
  // The fixture script rounded the weights to F16 (GPT-2) and BF16 (BERT) before saving the F32
  // folder too, so both files of a family must give the same floats.
  aptest::expect_same_tensors(load(folder("gpt2-tiny"))->named_tensors(),
                              load(folder("gpt2-tiny-f16"))->named_tensors());
  aptest::expect_same_tensors(load(folder("bert-tiny"))->named_tensors(),
                              load(folder("bert-tiny-bf16"))->named_tensors());
  // ... and the 16-bit files' big matrices stay 16-bit (core/weight.hpp), half the bytes of F32.
  const auto f32 = load(folder("gpt2-tiny")), f16 = load(folder("gpt2-tiny-f16"));
  const auto bf16 = load(folder("bert-tiny-bf16"));
  for (const auto& t : f16->named_tensors())
    if (t.weight) EXPECT_EQ(t.weight->stored(), ap::Stored::F16) << t.name;
  for (const auto& t : bf16->named_tensors())
    if (t.weight) EXPECT_EQ(t.weight->stored(), ap::Stored::BF16) << t.name;
  for (const auto& t : f32->named_tensors())
    if (t.weight) EXPECT_EQ(t.weight->stored(), ap::Stored::F32) << t.name;
  size_t big = 0;  // the floats the Weights hold
  for (const auto& t : f32->named_tensors())
    if (t.weight) big += ap::element_count(t.shape);
  EXPECT_EQ(f32->weight_bytes() - f16->weight_bytes(), 2 * big);
}

TEST(HfLoader, ValuesCutByAChunkEndAcrossMixedDtypes) {
  // A hand-built file where an F32 tensor starts 2 bytes into a 4-byte word (after 3 F16 values),
  // fed 4, 8 or 20 bytes at a time: every F32 value straddles two chunks.
  const Folder f = folder("gpt2-tiny");
  ap::SafeTensors src = ap::read_safetensors(reinterpret_cast<const uint8_t*>(f.weights.data()), f.weights.size());
  // The real file rewritten with a 3-value F16 tensor first, one the loader skips (a name GPT-2
  // checkpoints use for a mask buffer), so every later tensor starts at 6 + 4k bytes.
  std::string header = R"({"h.0.attn.masked_bias":{"dtype":"F16","shape":[3],"data_offsets":[0,6]})";
  std::string data(6, '\0');
  for (const auto& [name, t] : src.tensors) {
    const uint64_t begin = data.size(), end = begin + t.data.size() * 4;
    header += ",\"" + name + "\":{\"dtype\":\"F32\",\"shape\":[";
    for (size_t i = 0; i < t.shape.size(); ++i) header += (i ? "," : "") + std::to_string(t.shape[i]);
    header += "],\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(end) + "]}";
    data.append(reinterpret_cast<const char*>(t.data.data()), t.data.size() * 4);
  }
  header += "}";
  std::string file(8, '\0');
  const uint64_t len = header.size();
  for (int i = 0; i < 8; ++i) file[i] = static_cast<char>(len >> (8 * i));
  file += header + data;
  const auto whole = load(f);
  for (size_t chunk : {4u, 8u, 20u}) {
    SCOPED_TRACE(chunk);
    aptest::expect_same_tensors(whole->named_tensors(), load(f.config, f.tokenizer, file, chunk)->named_tensors());
  }
}

TEST(HfLoader, ConfigMapsOntoTheCoresBlocks) {
  const ap::ModelConfig g = ap::hf_config(folder("gpt2-tiny").config);
  EXPECT_EQ(g.family, "gpt2");
  EXPECT_EQ(g.arch, ap::Arch::DecoderOnly);
  EXPECT_EQ(g.norm, ap::NormPlace::Pre);
  EXPECT_EQ(g.pos, ap::PosKind::Learned);
  EXPECT_EQ(g.act, ap::Act::GeluTanh);
  EXPECT_TRUE(g.tied_head);
  EXPECT_FALSE(g.head_bias);
  EXPECT_EQ(g.d_ff, 4 * g.d_model);  // n_inner null
  const ap::ModelConfig b = ap::hf_config(folder("bert-tiny").config);
  EXPECT_EQ(b.family, "bert");
  EXPECT_EQ(b.arch, ap::Arch::EncoderOnly);
  EXPECT_EQ(b.norm, ap::NormPlace::Post);
  EXPECT_EQ(b.act, ap::Act::Gelu);
  EXPECT_EQ(b.type_vocab, 2);
  EXPECT_TRUE(b.emb_norm && b.mlm_head && b.tied_head && b.head_bias);
  EXPECT_FLOAT_EQ(b.eps, 1e-12f);
  const ap::ModelConfig db = ap::hf_config(folder("distilbert-tiny").config);  // BERT's parts, no token types
  EXPECT_EQ(db.family, "bert");
  EXPECT_EQ(db.type_vocab, 0);
  EXPECT_EQ(db.d_ff, 128);
  EXPECT_TRUE(db.emb_norm && db.mlm_head);
  // GPT-2 medium's shape (355 M parameters, 1.4 GB) is within the limit; a 2 B-parameter GPT-2 is
  // refused before any allocation.
  EXPECT_EQ(ap::hf_config(R"({"model_type":"gpt2","vocab_size":50257,"n_embd":1024,"n_layer":24,"n_head":16})").d_model,
            1024);
  EXPECT_MENTIONS(
      aptest::error_of([] {
        ap::hf_config(
            R"({"model_type":"gpt2","vocab_size":50257,"n_embd":2560,"n_layer":24,"n_head":20,"n_positions":1024})");
      }),
      "config.json: the model has 2019 M parameters (7703 MB as float32); the playground holds at most "
      "1536 MB of weights");
}

TEST(HfLoader, LlamaFamilyConfigsMapOntoRmsNormSwigluRopeAndGroupedHeads) {
  const ap::ModelConfig l = ap::hf_config(folder("llama-tiny").config);
  EXPECT_EQ(l.family, "llama");
  EXPECT_EQ(l.arch, ap::Arch::DecoderOnly);
  EXPECT_EQ(l.norm, ap::NormPlace::Pre);
  EXPECT_EQ(l.norm_kind, ap::NormKind::Rms);
  EXPECT_EQ(l.ffn_kind, ap::FfnKind::SwiGlu);
  EXPECT_EQ(l.pos, ap::PosKind::Rope);
  EXPECT_EQ(l.kv_heads(), 2);
  EXPECT_FALSE(l.tied_head || l.head_bias);
  EXPECT_EQ(l.rope_theta, 10000.0f);
  const ap::ModelConfig m = ap::hf_config(folder("mistral-tiny").config);
  EXPECT_EQ(m.family, "mistral");
  EXPECT_EQ(m.window, 4);
  EXPECT_EQ(m.kv_heads(), 1);
  EXPECT_EQ(m.max_len, 4096);  // max_position_embeddings 32768: RoPE has no table, the core's limit applies
  EXPECT_EQ(m.rope_theta, 1e6f);
  const ap::ModelConfig q = ap::hf_config(folder("qwen2-tiny").config);
  EXPECT_EQ(q.family, "qwen2");
  EXPECT_TRUE(q.tied_head);
  EXPECT_EQ(q.window, 0);  // use_sliding_window false
  EXPECT_EQ(q.vocab_size, 2064);
  EXPECT_EQ(ap::hf_config(folder("llama3-tiny").config).n_kv_heads, 0);  // as many K/V heads as query heads
}

TEST(HfLoader, ShardsInAnyOrderGiveTheSingleFilesWeightsBitForBit) {
  const Folder one = folder("mistral-tiny");
  const std::string dir = "hf/mistral-tiny-sharded/";
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse);
    ap::HfLoader loader(read_text(dir + "config.json"), read_text(dir + "tokenizer.json"));
    std::vector<std::string> shards = loader.read_index(read_text(dir + "model.safetensors.index.json"));
    ASSERT_EQ(shards,
              (std::vector<std::string>{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}));
    if (reverse) std::reverse(shards.begin(), shards.end());
    for (const std::string& file : shards) {
      const std::string w = read_text(dir + file);
      const auto* bytes = reinterpret_cast<const uint8_t*>(w.data());
      loader.next_shard(file);
      const uint64_t header = loader.header_length(bytes, w.size());
      const uint64_t data = loader.read_header(bytes + 8, static_cast<size_t>(header));
      for (uint64_t at = 0; at < data; at += 1000)
        loader.feed(bytes + 8 + header + at, static_cast<size_t>(std::min<uint64_t>(1000, data - at)));
    }
    aptest::expect_same_tensors(load(one)->named_tensors(), loader.finish()->named_tensors());
  }
  // A shard left out: finish() names it.
  ap::HfLoader loader(read_text(dir + "config.json"), read_text(dir + "tokenizer.json"));
  loader.read_index(read_text(dir + "model.safetensors.index.json"));
  const std::string w = read_text(dir + "model-00002-of-00002.safetensors");
  const auto* bytes = reinterpret_cast<const uint8_t*>(w.data());
  loader.next_shard("model-00002-of-00002.safetensors");
  const uint64_t header = loader.header_length(bytes, w.size());
  const uint64_t data = loader.read_header(bytes + 8, static_cast<size_t>(header));
  loader.feed(bytes + 8 + header, static_cast<size_t>(data));
  EXPECT_MENTIONS(aptest::error_of([&] { loader.finish(); }),
                  "model-00001-of-00002.safetensors was not read (model.safetensors.index.json names it)");
}

TEST(HfLoader, FinishNamesTheTensorATruncatedStreamCut) {
  const Folder f = folder("gpt2-tiny");
  ap::HfLoader loader(f.config, f.tokenizer);
  const auto* bytes = reinterpret_cast<const uint8_t*>(f.weights.data());
  const uint64_t header = loader.header_length(bytes, f.weights.size());
  const uint64_t data = loader.read_header(bytes + 8, static_cast<size_t>(header));
  loader.feed(bytes + 8 + header, static_cast<size_t>(data / 2));
  EXPECT_MENTIONS(aptest::error_of([&] { loader.finish(); }), "model.safetensors is truncated: tensor '");
}

TEST(HfLoader, FuzzSeedsLoadOrFailAsNamed) {
  // tests/corpus/hf_model: config.json, a line "--", then the safetensors bytes (tests/fuzz/fuzz_hf_model.cpp).
  const auto [valid, bad] = aptest::check_corpus("hf_model", [&](const std::string& bytes) {
    const size_t cut = bytes.find("\n--\n");
    if (cut == std::string::npos) ap::fail("seed without a separator");
    const std::string config = bytes.substr(0, cut);
    const auto model = load(config, aptest::kMicroTokenizer, bytes.substr(cut + 4), 12);
    ap::Trace trace;
    model->forward(trace, model->prompt("the cats").ids);
  });
  EXPECT_GE(valid, 3);
  EXPECT_GE(bad, 3);
}

// A value nested 100,000 arrays deep overflowed the stack (issue 25 item 2); a limit of 64 levels
// names the file instead, in config.json, tokenizer.json and a safetensors header alike, and 64
// levels still parse.
TEST(HfLoader, DeepNestingIsRefusedByNameNotByTheStack) {
  const auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
  const Folder f = folder("gpt2-tiny");
  const std::string deep_config = "{\"junk\": " + nested(100000) + "," + f.config.substr(1);
  EXPECT_MENTIONS(aptest::error_of([&] { ap::hf_config(deep_config); }), "config.json nests more than 64 levels deep");
  const std::string deep_tokenizer = "{\"junk\": " + nested(100000) + "," + f.tokenizer.substr(1);
  EXPECT_MENTIONS(aptest::error_of([&] { ap::HfLoader(f.config, deep_tokenizer); }),
                  "tokenizer.json nests more than 64 levels deep");
  const std::string header = "{\"junk\": " + nested(100000) + "}";
  EXPECT_MENTIONS(aptest::error_of([&] {
                    ap::read_safetensors_header(reinterpret_cast<const uint8_t*>(header.data()), header.size(), 0);
                  }),
                  "safetensors header nests more than 64 levels deep");
  // 63 levels inside the top-level object: 64 in all, allowed; 65 are not.
  const std::string ok_config = "{\"junk\": " + nested(63) + "," + f.config.substr(1);
  EXPECT_EQ(ap::hf_config(ok_config).n_layers, ap::hf_config(f.config).n_layers);
  EXPECT_MENTIONS(aptest::error_of([&] { ap::hf_config("{\"junk\": " + nested(64) + "," + f.config.substr(1)); }),
                  "config.json nests more than 64 levels deep");
  // Brackets inside strings (an escaped quote before them included) are text, not depth.
  const std::string in_string = "{\"junk\": \"\\\"" + std::string(1000, '[') + "\"," + f.config.substr(1);
  EXPECT_EQ(ap::hf_config(in_string).n_layers, ap::hf_config(f.config).n_layers);
}
