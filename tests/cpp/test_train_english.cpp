// The corpus tasks english / english-mlm (cpp/data/english.cpp) on a data folder written here: a
// byte-level tokenizer.json with no merges (every byte its own token, ids 3..258 after <pad>,
// <|endoftext|>, [MASK]) and two tiny "samples" per split. Checked by hand: a passage starts at a
// sentence, runs on through the sample's sentences joined by single spaces (so its tokens are the
// joined text's tokens), stops at the context or at the sample's end (then <|endoftext|> is the
// last target), never draws a held-out sentence in training, and the masked LM hides tokens
// behind [MASK] with the hidden ids as targets.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "base/rng.hpp"
#include "core/model.hpp"
#include "data/tasks.hpp"
#include "io/model_io.hpp"
#include "train/trainer.hpp"

using namespace ap;
using namespace ap::train;

namespace {

// GPT-2's bytes_to_unicode: printable bytes stand for themselves, the others for U+0100 + k.
std::string byte_char(int b) {
  static int table[256] = {};
  static bool ready = false;
  if (!ready) {
    int extra = 0;
    for (int i = 0; i < 256; ++i) {
      const bool keep = (i >= 33 && i <= 126) || (i >= 161 && i <= 172) || (i >= 174 && i <= 255);
      table[i] = keep ? i : 256 + extra++;
    }
    ready = true;
  }
  const int cp = table[b];
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

// One folder per test: ctest runs the tests of this file in parallel, and a shared folder let one
// test read a file while the other was rewriting it ("heldout.txt has no sentences").
std::string write_data() {
  const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const std::string dir = (std::filesystem::temp_directory_path() / ("ap_english_task_test_" + name)).string();
  std::filesystem::create_directories(dir);
  nlohmann::json vocab = nlohmann::json::object();
  const char* specials[] = {"<pad>", "<|endoftext|>", "[MASK]"};
  nlohmann::json added = nlohmann::json::array();
  for (int i = 0; i < 3; ++i) {
    vocab[specials[i]] = i;
    added.push_back({{"id", i},
                     {"content", specials[i]},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  }
  for (int b = 0; b < 256; ++b) vocab[byte_char(b)] = 3 + b;
  const nlohmann::json level = {
      {"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
  const nlohmann::json tok = {{"version", "1.0"},
                              {"added_tokens", added},
                              {"normalizer", nullptr},
                              {"pre_tokenizer", level},
                              {"post_processor", level},
                              {"decoder", level},
                              {"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", nlohmann::json::array()}}}};
  std::ofstream(dir + "/tokenizer.json") << tok.dump();
  std::ofstream(dir + "/split.json") << R"({"heldOut":["z1"]})";
  // Training: "a..." sentences; held out: "z..." sentences. A blank line ends a sample.
  std::ofstream(dir + "/train.txt") << "aa b.\nab c.\n\naaa.\n";
  std::ofstream(dir + "/heldout.txt") << "zz y.\nzy.\n";
  return dir;
}

std::vector<int> bytes_of(const std::string& s) {
  std::vector<int> ids;
  for (unsigned char c : s) ids.push_back(3 + c);
  return ids;
}

}  // namespace

TEST(TrainEnglish, PassagesRunThroughWholeSentencesOfOneSample) {
  const auto task = make_task("english", write_data());
  EXPECT_EQ(task->arch(), Arch::DecoderOnly);
  EXPECT_EQ(task->max_len(), 256);
  EXPECT_TRUE(task->corpus_lm());
  EXPECT_EQ(task->file_metadata().at("split"), R"({"heldOut":["z1"]})");
  // Every passage that can be drawn, from each sentence start, with its <|endoftext|>.
  const std::set<std::string> train_passages = {"aa b. ab c.", "ab c.", "aaa."};
  Rng rng(3);
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    const Example e = task->sample(rng, Split::Train);
    std::string text;
    for (int id : e.ids) text += static_cast<char>(id - 3);
    ASSERT_TRUE(train_passages.count(text)) << text;
    EXPECT_TRUE(e.ended) << "each passage reaches its sample's end";
    EXPECT_EQ(e.ids, task->tokenizer().encode(text).ids) << "the joined text's own tokens";
    seen.insert(text);
    const EncodedExample x = encode_example(*task, e);
    EXPECT_EQ(x.inputs.front(), 1) << "<|endoftext|> as <bos>";
    EXPECT_EQ(x.targets.back(), 1) << "and as <eos>, the last target";
    EXPECT_EQ(x.inputs.size(), e.ids.size() + 1);
  }
  EXPECT_EQ(seen, train_passages);
  for (int i = 0; i < 50; ++i) {
    const Example e = task->sample(rng, Split::HeldOut);
    EXPECT_EQ(e.ids.front(), bytes_of("z").front()) << "held-out passages come from heldout.txt only";
  }
}

TEST(TrainEnglish, MaskedLmHidesTokensBehindMask) {
  const auto task = make_task("english-mlm", write_data());
  EXPECT_EQ(task->arch(), Arch::EncoderOnly);
  EXPECT_EQ(task->max_len(), 64);
  EXPECT_EQ(task->mask_id(), 2);
  Rng rng(5);
  for (int i = 0; i < 100; ++i) {
    const Example e = task->sample(rng, i % 2 ? Split::HeldOut : Split::Train);
    const EncodedExample x = encode_example(*task, e);
    ASSERT_FALSE(e.masked.empty());
    if (i % 2) EXPECT_EQ(e.masked.size(), 1u) << "a held-out passage hides exactly one token";
    for (size_t k = 0; k < x.inputs.size(); ++k) {
      const bool hidden = std::find(e.masked.begin(), e.masked.end(), static_cast<int>(k)) != e.masked.end();
      EXPECT_EQ(x.inputs[k], hidden ? 2 : e.ids[k]);
      EXPECT_EQ(x.targets[k], hidden ? e.ids[k] : 0);
    }
  }
}

TEST(TrainEnglish, MissingDataIsNamed) {
  try {
    make_task("english", "/nonexistent/dir");
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("npm run train -- english --data-only"), std::string::npos) << e.what();
  }
}

// The masked LM may start from the decoder (npm run train -- english-mlm does): the encoder gets the
// decoder's blocks and final norm unchanged and the first 64 of its 256 learned positions; the
// other direction, and a size that differs, are still refused by name.
namespace {
// A small English model's training config: 2 heads, d_ff 32, learned positions, pre-norm, tied head.
TrainConfig small_config(const std::string& data, const char* task, int d_model, int n_layers) {
  TrainConfig c;
  c.task = task;
  c.data = data;
  c.model.d_model = d_model;
  c.model.n_heads = 2;
  c.model.n_layers = n_layers;
  c.model.d_ff = 32;
  c.model.pos = PosKind::Learned;
  c.model.norm = NormPlace::Pre;
  c.model.tied_head = true;
  c.batch = 2;
  c.optim.total_steps = 10;
  return c;
}
}  // namespace

TEST(TrainEnglish, MaskedLmStartsFromTheDecodersWeights) {
  const std::string data = write_data();
  auto config = [&](const char* task, int d_model) { return small_config(data, task, d_model, 2); };
  Trainer dec(config("english", 16));
  dec.step();
  const Model lm = dec.snapshot();
  Trainer enc(config("english-mlm", 16));
  enc.start_from(lm);
  const Model mlm = enc.snapshot();
  const ModelWeights &a = lm.weights(), &b = mlm.weights();
  ASSERT_EQ(b.encoder.size(), 2u);
  EXPECT_TRUE(b.decoder.empty());
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(b.encoder[i].self_attn.wq, a.decoder[i].self_attn.wq);
    EXPECT_EQ(b.encoder[i].self_attn.bo, a.decoder[i].self_attn.bo);
    EXPECT_EQ(b.encoder[i].norm2.gamma, a.decoder[i].norm2.gamma);
  }
  EXPECT_EQ(b.enc_final_norm.beta, a.dec_final_norm.beta);
  EXPECT_EQ(b.tok_emb, a.tok_emb);
  ASSERT_EQ(b.pos_emb.rows(), 64);
  EXPECT_EQ(Mat(b.pos_emb), Mat(a.pos_emb.topRows(64)));
  EXPECT_EQ(b.lm_head_b, a.lm_head_b);

  auto refused = [&](Trainer& t, const Model& from, const char* named) {
    try {
      t.start_from(from);
      ADD_FAILURE() << "no error";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << e.what();
    }
  };
  Trainer back(config("english", 16));
  refused(back, mlm, "architecture is encoder but");
  Trainer wider(config("english-mlm", 32));
  refused(wider, lm, "d_model is 16");
}

// A model kept at 16 bits (an F16 file, as the shipped English models are: core/weight.hpp) trains
// in float32: the trainer starts from its widened values, the model it was given unchanged.
TEST(TrainEnglish, FineTuningStartsFromAModelKeptAt16BitsWidened) {
  const TrainConfig c = small_config(write_data(), "english", 16, 1);
  Trainer first(c);
  first.step();
  Model trained = first.snapshot();
  const std::vector<uint8_t> file = save_model(trained, /*f16=*/true);
  const Model half = load_model(file.data(), file.size());
  ASSERT_EQ(half.weights().tok_emb.stored(), Stored::F16);
  Trainer tune(c);
  tune.start_from(half);
  const Model start = tune.snapshot();
  EXPECT_EQ(half.weights().tok_emb.stored(), Stored::F16);  // the given model is left as it was
  const BlockWeights &h = half.weights().decoder[0], &s = start.weights().decoder[0];
  EXPECT_FALSE(s.self_attn.wq.is_16bit());
  EXPECT_EQ(Mat(s.self_attn.wq), h.self_attn.wq.widened());
  EXPECT_EQ(Mat(s.ffn.w2), h.ffn.w2.widened());
  EXPECT_EQ(Mat(start.weights().tok_emb), half.weights().tok_emb.widened());
  EXPECT_EQ(s.norm1.gamma, h.norm1.gamma);
  EXPECT_NO_THROW(tune.step());  // and it trains
}
