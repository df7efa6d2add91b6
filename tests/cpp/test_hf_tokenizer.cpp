// Hugging Face tokenizer.json tokenizers (cpp/io/hf_tokenizer.cpp) against Hugging Face's own Rust
// tokenizers: tests/fixtures/hf/tokenizers/ (made by tests/reference/make_hf_tokenizers.mjs) holds a
// GPT-2-style byte-level BPE and a BERT-style WordPiece tokenizer.json and, for 50 strings each, HF's
// ids with and without special tokens, its tokens and its decode(ids, skip_special_tokens = true).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/tensor.hpp"
#include "helpers.hpp"
#include "io/hf_tokenizer.hpp"

namespace {

using ap::HfTokenizer;
using json = nlohmann::json;
using aptest::error_of;

std::string read_fixture(const std::string& name) {
  std::ifstream f(std::string(AP_FIXTURES_DIR) + "/hf/tokenizers/" + name, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open fixture " + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const json& cases() {
  static const json c = json::parse(read_fixture("cases.json"));
  return c;
}

std::shared_ptr<const HfTokenizer> bpe() {
  static const auto t = HfTokenizer::parse(read_fixture("bpe.json"));
  return t;
}

std::shared_ptr<const HfTokenizer> wordpiece() {
  static const auto t = HfTokenizer::parse(read_fixture("wordpiece.json"));
  return t;
}

const std::string kFffd = "\xEF\xBF\xBD";

// Every case of one tokenizer: ids with and without specials, tokens, unknown positions, decode.
// byte_level: the pieces re-joined are the text (where no piece holds part of a character), unless
// prefix_space (the pre-tokenizer's add_prefix_space puts a space before each stretch of text).
void check_cases(const HfTokenizer& tok, const json& list, bool byte_level, bool prefix_space = false) {
  ASSERT_GE(list.size(), 40u);
  for (const json& c : list) {
    const std::string text = c["text"];
    SCOPED_TRACE("text: " + c["text"].dump());
    const auto with = tok.encode(text, true);
    const auto without = tok.encode(text, false);
    EXPECT_EQ(with.ids, c["ids"].get<std::vector<int>>());
    EXPECT_EQ(without.ids, c["ids_no_special"].get<std::vector<int>>());
    ASSERT_EQ(with.pieces.size(), with.ids.size());
    const auto tokens = c["tokens"].get<std::vector<std::string>>();
    ASSERT_EQ(tokens.size(), with.ids.size());
    std::vector<int> unknown;
    std::string joined;
    bool partial = false;
    for (size_t i = 0; i < with.ids.size(); ++i) {
      // HF's token string is the vocabulary entry of the id, or for an added token the text it
      // matched (with the spaces lstrip / rstrip took), which is also our piece.
      EXPECT_TRUE(tok.vocab()[with.ids[i]] == tokens[i] || with.pieces[i] == tokens[i])
          << "token " << i << ": " << tokens[i] << ", ours " << tok.vocab()[with.ids[i]] << " / " << with.pieces[i];
      if (with.ids[i] == tok.unk()) unknown.push_back(static_cast<int>(i));
      if (!byte_level) EXPECT_EQ(with.pieces[i], tokens[i]) << "piece " << i;
      if (with.pieces[i].rfind("<0x", 0) == 0) partial = true;
      joined += with.pieces[i];
    }
    EXPECT_EQ(with.unknown, unknown);
    if (byte_level && !partial && !prefix_space) EXPECT_EQ(joined, text);
    EXPECT_EQ(tok.decode(with.ids), c["decoded"].get<std::string>());
    EXPECT_EQ(tok.decode(without.ids), c["decoded"].get<std::string>());
  }
}

TEST(HfTokenizerBpe, MatchesHuggingFaceOnEveryCase) { check_cases(*bpe(), cases()["bpe"], true); }
TEST(HfTokenizerWordPiece, MatchesHuggingFaceOnEveryCase) { check_cases(*wordpiece(), cases()["wordpiece"], false); }
// The layout of the Hub's gpt2 tokenizer.json: merges as "a b" strings, empty prefix / suffix.
TEST(HfTokenizerBpe, Gpt2HubLayoutMatchesHuggingFace) {
  check_cases(*HfTokenizer::parse(read_fixture("bpe_legacy.json")), cases()["bpe_legacy"], true);
}
// add_prefix_space; added tokens with lstrip (<mask>), single_word + rstrip (<sw>), normalized (naïve).
TEST(HfTokenizerBpe, PrefixSpaceAndAddedTokenOptionsMatchHuggingFace) {
  const auto t = HfTokenizer::parse(read_fixture("bpe_prefix.json"));
  check_cases(*t, cases()["bpe_prefix"], true, true);
  EXPECT_EQ(t->mask(), 512);
}
// Cased (no lowercasing, accents kept), [MASK] with lstrip and rstrip, a normalized added token.
TEST(HfTokenizerWordPiece, CasedMatchesHuggingFace) {
  check_cases(*HfTokenizer::parse(read_fixture("wordpiece_cased.json")), cases()["wordpiece_cased"], false);
}
// Accents stripped without lowercasing, CJK characters not split out, a normalized added token.
TEST(HfTokenizerWordPiece, StripAccentsWithoutLowercaseMatchesHuggingFace) {
  check_cases(*HfTokenizer::parse(read_fixture("wordpiece_strip.json")), cases()["wordpiece_strip"], false);
}

TEST(HfTokenizerBpe, LayoutAndSpecialIdsAsGpt2) {
  const auto& t = *bpe();
  EXPECT_EQ(t.kind(), HfTokenizer::Kind::ByteLevelBpe);
  EXPECT_EQ(t.size(), 512);
  EXPECT_EQ(t.vocab()[0], "!");  // GPT-2's first byte symbol
  EXPECT_EQ(t.id_of("<|endoftext|>"), 511);
  EXPECT_EQ(t.bos(), 511);
  EXPECT_EQ(t.eos(), 511);
  EXPECT_EQ(t.unk(), -1);
  EXPECT_EQ(t.pad(), -1);
  EXPECT_EQ(t.mask(), -1);
  EXPECT_EQ(t.id_of("no such token"), -1);
  // " the" is a token of the trained vocabulary: its piece keeps the leading space.
  const int the = t.id_of("\xC4\xA0the");  // "Ġthe"
  ASSERT_GE(the, 0);
  const auto e = t.encode("on the mat", false);
  EXPECT_NE(std::find(e.pieces.begin(), e.pieces.end(), " the"), e.pieces.end());
}

TEST(HfTokenizerBpe, PartialCharactersShowTheirBytes) {
  // 中 is three bytes (E4 B8 AD) that this small vocabulary keeps as separate byte tokens: each
  // piece is its byte written out, not three identical U+FFFD.
  const auto e = bpe()->encode("\xE4\xB8\xAD", false);
  EXPECT_EQ(e.pieces, (std::vector<std::string>{"<0xE4>", "<0xB8>", "<0xAD>"}));
  EXPECT_EQ(bpe()->decode(e.ids), "\xE4\xB8\xAD");
  EXPECT_EQ(bpe()->decode({e.ids[0], e.ids[1]}), kFffd);  // an incomplete character: one U+FFFD
}

TEST(HfTokenizerBpe, IdsOutsideTheVocabularyDecodeAsPlaceholders) {
  const int a = bpe()->id_of("a");
  EXPECT_EQ(bpe()->decode({a, 600, a}), "a<id 600>a");
  EXPECT_EQ(bpe()->decode({-3}), "<id -3>");
  EXPECT_EQ(bpe()->decode({a, 511, a}), "aa");  // <|endoftext|> is special: skipped
}

TEST(HfTokenizerWordPiece, LayoutAndSpecialIdsAsBert) {
  const auto& t = *wordpiece();
  EXPECT_EQ(t.kind(), HfTokenizer::Kind::WordPiece);
  EXPECT_EQ(t.size(), 512);
  EXPECT_EQ(t.pad(), 0);
  EXPECT_EQ(t.unk(), 1);
  EXPECT_EQ(t.bos(), 2);
  EXPECT_EQ(t.eos(), 3);
  EXPECT_EQ(t.mask(), 4);
  EXPECT_EQ(t.vocab()[4], "[MASK]");
  const auto e = t.encode("the [MASK] sat", true);
  EXPECT_EQ(e.ids.front(), 2);
  EXPECT_EQ(e.ids.back(), 3);
  EXPECT_NE(std::find(e.ids.begin(), e.ids.end(), 4), e.ids.end());
  EXPECT_EQ(t.decode({t.id_of("at"), t.id_of("##ten"), 9999}), "atten <id 9999>");
}

TEST(HfTokenizerWordPiece, UnknownCharactersAreReported) {
  const auto e = wordpiece()->encode("a \xE2\x98\x83 b", false);  // ☃ is not in the vocabulary
  ASSERT_EQ(e.ids.size(), 3u);
  EXPECT_EQ(e.ids[1], 1);
  EXPECT_EQ(e.unknown, std::vector<int>{1});
  EXPECT_EQ(e.pieces[1], "[UNK]");
}

// ---- bad files -------------------------------------------------------------------------------

std::string edited(const std::string& fixture, const std::function<void(json&)>& edit) {
  json j = json::parse(read_fixture(fixture));
  edit(j);
  return j.dump();
}

void expect_error(const std::string& text, const std::string& want) {
  const std::string msg = error_of([&] { HfTokenizer::parse(text); });
  EXPECT_EQ(msg.rfind("tokenizer.json: ", 0), 0u) << msg;
  EXPECT_NE(msg.find(want), std::string::npos) << "message: " << msg << "\nwanted: " << want;
}

TEST(HfTokenizerErrors, NotJson) {
  expect_error("{\"model\": ", "tokenizer.json: not JSON (");
  expect_error("", "not JSON");
  expect_error("[1, 2]", "not a tokenizer");
}

TEST(HfTokenizerErrors, TruncatedFile) {
  const std::string full = read_fixture("bpe.json");
  for (size_t n : {size_t(1), full.size() / 3, full.size() / 2, full.size() - 2})
    expect_error(full.substr(0, n), "tokenizer.json: not JSON (");
}

TEST(HfTokenizerErrors, UnsupportedModelType) {
  expect_error(edited("bpe.json", [](json& j) { j["model"]["type"] = "Unigram"; }),
               "tokenizer.json: model.type 'Unigram' is not supported (byte-level BPE as in GPT-2, or WordPiece as "
               "in BERT)");
  expect_error(edited("wordpiece.json", [](json& j) { j["model"]["type"] = "WordLevel"; }),
               "model.type 'WordLevel' is not supported");
  expect_error(edited("bpe.json", [](json& j) { j["model"].erase("type"); }), "tokenizer.json: model.type is missing");
  expect_error(edited("bpe.json", [](json& j) { j.erase("model"); }), "tokenizer.json: model is missing");
}

TEST(HfTokenizerErrors, MissingOrBadVocab) {
  expect_error(edited("bpe.json", [](json& j) { j["model"].erase("vocab"); }),
               "tokenizer.json: model.vocab is missing");
  expect_error(edited("wordpiece.json", [](json& j) { j["model"].erase("vocab"); }), "model.vocab is missing");
  expect_error(edited("bpe.json", [](json& j) { j["model"]["vocab"] = json::array(); }),
               "model.vocab is not an object");
  expect_error(edited("bpe.json", [](json& j) { j["model"]["vocab"]["x"] = "seven"; }),
               "model.vocab['x'] is not an integer id");
  expect_error(edited("bpe.json", [](json& j) { j["model"]["vocab"]["x"] = -1; }),
               "model.vocab['x'] = -1 is out of range");
  expect_error(edited("wordpiece.json", [](json& j) { j["model"]["unk_token"] = "[NOPE]"; }),
               "model.unk_token '[NOPE]' is not in model.vocab");
}

TEST(HfTokenizerErrors, MalformedMerges) {
  expect_error(edited("bpe.json", [](json& j) { j["model"]["merges"][3] = "abc"; }),
               "tokenizer.json: model.merges[3] is not a pair");
  expect_error(edited("bpe.json", [](json& j) { j["model"]["merges"][3] = json::array({"a"}); }),
               "tokenizer.json: model.merges[3] is not a pair");
  expect_error(edited("bpe.json",
                      [](json& j) {
                        j["model"]["merges"][0] = json::array({"a", 5});
                      }),
               "model.merges[0] is not a pair");
  // The reader keeps model.merges out of the DOM (io/hf_tokenizer.cpp, TokenizerJsonReader): every
  // shape of a wrong entry is still named, and what follows it is still read.
  expect_error(edited("bpe.json",
                      [](json& j) {
                        j["model"]["merges"][1] = json::array({"a", "b", "c"});
                      }),
               "tokenizer.json: model.merges[1] is not a pair");
  expect_error(edited("bpe.json",
                      [](json& j) {
                        j["model"]["merges"][1] = json::array({json::array({"a"}), "b"});
                      }),
               "tokenizer.json: model.merges[1] is not a pair");
  expect_error(edited("bpe.json", [](json& j) { j["model"]["merges"][4] = 7; }),
               "tokenizer.json: model.merges[4] is not a pair");
  expect_error(edited("bpe.json",
                      [](json& j) {
                        j["model"]["merges"][4] = json::object({{"a", "b"}});
                      }),
               "tokenizer.json: model.merges[4] is not a pair");
  expect_error(edited("bpe.json", [](json& j) { j["model"]["merges"] = json::object(); }),
               "tokenizer.json: model.merges is not an array");
  expect_error(edited("bpe.json",
                      [](json& j) {
                        j["model"]["vocab"]["x"] = json::object({{"id", 3}});
                      }),
               "model.vocab['x'] is not an integer id");
  expect_error(edited("bpe.json", [](json& j) { j["model"]["merges"][2] = "zzz qqq"; }),
               "model.merges[2] 'zzz' is not in model.vocab");
  expect_error(edited("bpe.json", [](json& j) { j["model"].erase("merges"); }), "model.merges is missing");
  // A legacy "a b" string is accepted and gives the same ids.
  const std::string legacy = edited("bpe.json", [](json& j) {
    for (auto& m : j["model"]["merges"]) m = m[0].get<std::string>() + " " + m[1].get<std::string>();
  });
  const auto t = HfTokenizer::parse(legacy);
  const json& c = cases()["bpe"][1];
  EXPECT_EQ(t->encode(c["text"], true).ids, c["ids"].get<std::vector<int>>());
}

TEST(HfTokenizerErrors, UnsupportedPipelineParts) {
  expect_error(edited("wordpiece.json",
                      [](json& j) {
                        j["normalizer"] = {{"type", "NFKC"}};
                      }),
               "tokenizer.json: normalizer.type 'NFKC' is not supported");
  expect_error(edited("bpe.json",
                      [](json& j) {
                        j["pre_tokenizer"] = {{"type", "Metaspace"}};
                      }),
               "tokenizer.json: pre_tokenizer.type 'Metaspace' is not supported");
  expect_error(edited("wordpiece.json",
                      [](json& j) {
                        j["pre_tokenizer"] = {{"type", "Whitespace"}};
                      }),
               "pre_tokenizer.type 'Whitespace' is not supported");
  expect_error(edited("bpe.json",
                      [](json& j) {
                        j["decoder"] = {{"type", "Metaspace"}};
                      }),
               "tokenizer.json: decoder.type 'Metaspace' is not supported");
  expect_error(edited("bpe.json", [](json& j) { j["model"]["dropout"] = 0.1; }), "model.dropout 0.1 is not supported");
  expect_error(edited("bpe.json", [](json& j) { j["model"]["byte_fallback"] = true; }), "model.byte_fallback");
  expect_error(edited("wordpiece.json",
                      [](json& j) {
                        j["post_processor"] = {{"type", "Weird"}};
                      }),
               "post_processor.type 'Weird' is not supported");
  expect_error(edited("wordpiece.json", [](json& j) { j["normalizer"]["lowercase"] = "yes"; }),
               "normalizer.lowercase is not true or false");
  expect_error(edited("bpe.json", [](json& j) { j["added_tokens"][0].erase("content"); }),
               "added_tokens[0].content is missing");
}

TEST(HfTokenizerErrors, OnlyApErrorEscapes) {
  // Every kind of nonsense is an ap::Error (never a nlohmann or std exception).
  for (const std::string& text :
       {std::string("null"), std::string("{\"model\": 3}"), std::string("{\"model\": {\"type\": 3}}"),
        std::string("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [[1, 2]]}}"),
        std::string("{\"model\": {\"type\": \"WordPiece\", \"vocab\": {\"a\": 0}}}"), std::string("\xFF\xFE")}) {
    try {
      HfTokenizer::parse(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const ap::Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("tokenizer.json: ", 0), 0u) << e.what();
    } catch (...) {
      ADD_FAILURE() << "not an ap::Error for " << text;
    }
  }
}

}  // namespace

// ---- the fuzz seeds (tests/corpus/hf_tokenizer: a tokenizer.json, a NUL byte, a text) --------------

TEST(HfTokenizerFuzzSeeds, ValidParseAndEncodeBadAreRefused) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(AP_FIXTURES_DIR) / ".." / "corpus" / "hf_tokenizer";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  int valid = 0, bad = 0;
  for (const fs::path& path : files) {
    const std::string name = path.filename().string();
    SCOPED_TRACE(name);
    std::ifstream f(path, std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const size_t nul = data.find('\0');
    ASSERT_NE(nul, std::string::npos);
    if (name.rfind("valid_", 0) == 0) {
      ++valid;
      const auto t = HfTokenizer::parse(data.substr(0, nul));
      const auto e = t->encode(data.substr(nul + 1), true);
      EXPECT_FALSE(e.ids.empty());
      EXPECT_EQ(e.pieces.size(), e.ids.size());
      for (int id : e.ids) EXPECT_TRUE(id >= 0 && id < t->size());
      for (int pos : e.unknown) EXPECT_EQ(e.ids[pos], t->unk());
    } else if (name.rfind("bad_", 0) == 0) {
      ++bad;
      const std::string msg = error_of([&] { HfTokenizer::parse(data.substr(0, nul)); });
      // a field's message, or the depth check's (bad_regress_braces_after_broken_quote: a quote the
      // fuzzer broke leaves the braces of a key outside any string, 100 levels deep)
      EXPECT_TRUE(msg.rfind("tokenizer.json: ", 0) == 0 || msg == "tokenizer.json nests more than 64 levels deep")
          << msg;
      EXPECT_LE(msg.size(), 400u) << msg;
    }
  }
  EXPECT_GE(valid, 6);
  EXPECT_GE(bad, 7);
}

// Issue 25 item 5: a tokenizer.json with a great many added tokens. The text is split at the
// leftmost-longest added token (HF's AddedVocabulary), the stretches between are encoded as if
// there were no added tokens; "<tok19999>" is the longer match, not "<tok1999>" followed by "9>".
// (Each position is compared with the added tokens starting with its byte only.)
TEST(HfTokenizerBpe, TwentyThousandAddedTokensSplitLeftmostLongest) {
  json j = json::parse(read_fixture("bpe.json"));
  const int base = static_cast<int>(bpe()->size());
  for (int k = 0; k < 20000; ++k)
    j["added_tokens"].push_back({{"id", base + k},
                                 {"content", "<tok" + std::to_string(k) + ">"},
                                 {"single_word", false},
                                 {"lstrip", false},
                                 {"rstrip", false},
                                 {"normalized", false},
                                 {"special", false}});
  const auto many = HfTokenizer::parse(j.dump());
  ASSERT_EQ(many->size(), base + 20000);
  const auto plain = [&](const std::string& s) { return bpe()->encode(s, false).ids; };
  std::vector<int> want = plain("a ");
  want.push_back(base + 7);
  for (int id : plain(" b ")) want.push_back(id);
  want.push_back(base + 19999);
  for (int id : plain(" c")) want.push_back(id);
  want.push_back(base + 1);
  EXPECT_EQ(many->encode("a <tok7> b <tok19999> c<tok1>", false).ids, want);
  // text with no added token at all: the same ids as without them
  EXPECT_EQ(many->encode("the cat sat on the mat", false).ids, plain("the cat sat on the mat"));
}

// ---- Issue 25: tokenizer sizes (cpp/core/limits.hpp) ------------------------------------------------
// Each limit just under (read) and just over (refused with an Error naming the file, the field and
// the limit, in a short message). The piece length at the real limit; the two counts at the real
// limit too where a file just over it is cheap (merges: the count is checked before any merge is
// read), and otherwise at a small limit passed to parse() (the same check; a file just over the
// real vocabulary limit has a million pieces and takes seconds to build and read).

using ap::limits::TokenizerLimits;

// Real tokenizers pass: GPT-2 (50,257 pieces, 50,000 merges, longest piece 256 bytes as written),
// BERT (30,522 pieces), Llama 3 (128,256 pieces, about 280,000 merges).
static_assert(ap::limits::kTokenizerVocab >= 128256 && ap::limits::kTokenizerMerges >= 280147);
static_assert(ap::limits::kTokenizerPieceBytes >= 256);

std::string refusal(const std::string& text, const TokenizerLimits& limits = {}) {
  const std::string msg = error_of([&] { HfTokenizer::parse(text, limits); });
  EXPECT_EQ(msg.rfind("tokenizer.json: ", 0), 0u) << msg;
  EXPECT_LE(msg.size(), 200u) << msg;  // never the payload
  return msg;
}

TEST(HfTokenizerLimits, OnePieceOfAtMost1024Bytes) {
  const size_t L = ap::limits::kTokenizerPieceBytes;
  ASSERT_EQ(L, 1024u);
  const int next = static_cast<int>(bpe()->size());
  const auto with_piece = [&](size_t bytes) {
    return edited("bpe.json", [&](json& j) { j["model"]["vocab"][std::string(bytes, 'q')] = next; });
  };
  EXPECT_EQ(HfTokenizer::parse(with_piece(L))->id_of(std::string(L, 'q')), next);
  EXPECT_EQ(refusal(with_piece(L + 1)),
            "tokenizer.json: model.vocab: a piece of 1025 bytes ('qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq...') is "
            "longer than the limit of 1024 bytes for one piece");
  // WordPiece's vocabulary is read the same way.
  const auto wp = [&](size_t bytes) {
    return edited("wordpiece.json", [&](json& j) { j["model"]["vocab"][std::string(bytes, 'q')] = 512; });
  };
  EXPECT_EQ(HfTokenizer::parse(wp(L))->id_of(std::string(L, 'q')), 512);
  EXPECT_MENTIONS(refusal(wp(L + 1)), "model.vocab: a piece of 1025 bytes");
  // A multi-byte character is not cut in the quote.
  const std::string snowmen = [&] {
    std::string s;
    while (s.size() <= L) s += "\xE2\x98\x83";
    return s;
  }();
  const std::string msg = refusal(edited("bpe.json", [&](json& j) { j["model"]["vocab"][snowmen] = next; }));
  EXPECT_MENTIONS(msg, "('" + std::string(snowmen, 0, 36) + "...')");
}

TEST(HfTokenizerLimits, EachSideOfAMergeIsOnePiece) {
  const size_t L = ap::limits::kTokenizerPieceBytes;
  const int next = static_cast<int>(bpe()->size());
  // sides of L - 1 and 1 bytes make a piece of L: read
  const std::string a(L - 1, 'q');
  const auto t = HfTokenizer::parse(edited("bpe.json", [&](json& j) {
    j["model"]["vocab"][a] = next;
    j["model"]["vocab"][a + "e"] = next + 1;
    j["model"]["merges"].push_back(json::array({a, "e"}));
  }));
  EXPECT_EQ(t->id_of(a + "e"), next + 1);
  // a side past the limit is refused as such (before it is looked up), in either form of a merge
  const std::string b(L + 1, 'q');
  EXPECT_EQ(refusal(edited("bpe.json",
                           [&](json& j) {
                             j["model"]["merges"][7] = json::array({"e", b});
                           })),
            "tokenizer.json: model.merges[7]: a piece of 1025 bytes ('qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq...') is "
            "longer than the limit of 1024 bytes for one piece");
  EXPECT_MENTIONS(refusal(edited("bpe.json", [&](json& j) { j["model"]["merges"][7] = b + " e"; })),
                  "model.merges[7]: a piece of 1025 bytes");
  // and a long token that is not in the vocabulary is quoted by its prefix
  EXPECT_EQ(refusal(edited("bpe.json",
                           [&](json& j) {
                             j["model"]["merges"][7] = json::array({"e", a});
                           })),
            "tokenizer.json: model.merges[7] 'qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq...' is not in model.vocab");
}

TEST(HfTokenizerLimits, AnAddedTokenIsOnePiece) {
  const size_t L = ap::limits::kTokenizerPieceBytes;
  const int next = static_cast<int>(bpe()->size());
  const auto with_added = [&](size_t bytes) {
    return edited("bpe.json", [&](json& j) {
      j["added_tokens"].push_back({{"id", next}, {"content", std::string(bytes, 'q')}, {"special", true}});
    });
  };
  EXPECT_EQ(HfTokenizer::parse(with_added(L))->encode("a " + std::string(L, 'q'), false).ids.back(), next);
  EXPECT_MENTIONS(refusal(with_added(L + 1)), "added_tokens[1].content: a piece of 1025 bytes ('qqqq");
}

TEST(HfTokenizerLimits, VocabularySize) {
  ASSERT_EQ(ap::limits::kTokenizerVocab, 1 << 20);
  const std::string text = read_fixture("bpe.json");
  const int64_t n = static_cast<int64_t>(json::parse(text)["model"]["vocab"].size());  // 512
  TokenizerLimits at;
  at.vocab = n;
  EXPECT_EQ(HfTokenizer::parse(text, at)->size(), bpe()->size());
  TokenizerLimits under = at;
  under.vocab = n - 1;
  EXPECT_EQ(refusal(text, under), "tokenizer.json: model.vocab has 512 pieces, more than the limit of 511");
  TokenizerLimits wp;
  wp.vocab = 511;
  EXPECT_MENTIONS(refusal(read_fixture("wordpiece.json"), wp),
                  "model.vocab has 512 pieces, more than the limit of 511");
}

TEST(HfTokenizerLimits, NumberOfAddedTokens) {
  ASSERT_EQ(ap::limits::kTokenizerAddedTokens, 65536);
  const std::string text = read_fixture("bpe.json");
  const int64_t n = static_cast<int64_t>(json::parse(text)["added_tokens"].size());
  ASSERT_GE(n, 1);
  TokenizerLimits at;
  at.added = n;
  EXPECT_EQ(HfTokenizer::parse(text, at)->size(), bpe()->size());
  TokenizerLimits under = at;
  under.added = n - 1;
  EXPECT_EQ(refusal(text, under), "tokenizer.json: added_tokens has " + std::to_string(n) +
                                      " entries, more than the limit of " + std::to_string(n - 1));
}

TEST(HfTokenizerLimits, NumberOfMerges) {
  ASSERT_EQ(ap::limits::kTokenizerMerges, 1 << 21);
  const std::string text = read_fixture("bpe.json");
  const int64_t n = static_cast<int64_t>(json::parse(text)["model"]["merges"].size());  // 255
  TokenizerLimits at;
  at.merges = n;
  EXPECT_EQ(HfTokenizer::parse(text, at)->encode("the cat", false).ids, bpe()->encode("the cat", false).ids);
  TokenizerLimits under;
  under.merges = n - 1;
  EXPECT_EQ(refusal(text, under), "tokenizer.json: model.merges has 255 merges, more than the limit of 254");
  // Past the real limit: counted before any merge is read (these zeros are no merges at all).
  std::string zeros(2 * static_cast<size_t>(ap::limits::kTokenizerMerges), '0');  // ",0" per merge
  for (size_t i = 0; i < zeros.size(); i += 2) zeros[i] = ',';
  const std::string many = R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [0)" + zeros + "]}}";
  EXPECT_EQ(refusal(many), "tokenizer.json: model.merges has 2097153 merges, more than the limit of 2097152");
}
