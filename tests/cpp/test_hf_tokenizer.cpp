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

#include "base/tensor.hpp"
#include "helpers.hpp"
#include "io/hf_tokenizer.hpp"
#include "io/unicode_tables.hpp"

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
                        j["pre_tokenizer"] = {{"type", "Whitespace"}};
                      }),
               "tokenizer.json: pre_tokenizer.type 'Whitespace' is not supported");
  expect_error(edited("bpe.json",
                      [](json& j) {
                        j["pre_tokenizer"] = {{"type", "Metaspace"}};
                      }),
               "tokenizer.json: pre_tokenizer.replacement is missing");
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

// ---- the Llama family (issue 26): SentencePiece-style BPE with byte fallback, Llama 3 / Qwen2 splits --
// Fixtures by tests/reference/make_llama_tokenizers.mjs; llama_cases.json holds HF's ids for each.

namespace {

const json& llama_cases() {
  static const json c = json::parse(read_fixture("llama_cases.json"));
  return c;
}

void check_llama_cases(const std::string& name) {
  const auto t = HfTokenizer::parse(read_fixture(name + ".json"));
  const json& list = llama_cases()[name];
  ASSERT_GE(list.size(), 150u);
  for (const json& c : list) {
    const std::string text = c["text"];
    SCOPED_TRACE(name + " text: " + c["text"].dump());
    const auto with = t->encode(text, true);
    EXPECT_EQ(with.ids, c["ids"].get<std::vector<int>>());
    EXPECT_EQ(t->encode(text, false).ids, c["ids_no_special"].get<std::vector<int>>());
    EXPECT_EQ(with.pieces.size(), with.ids.size());
    EXPECT_EQ(t->decode(with.ids), c["decoded"].get<std::string>());
  }
}

TEST(HfTokenizerLlama, Llama2MatchesHuggingFaceOnEveryCase) { check_llama_cases("llama2"); }
TEST(HfTokenizerLlama, MistralMetaspaceMatchesHuggingFaceOnEveryCase) { check_llama_cases("mistral"); }
TEST(HfTokenizerLlama, Llama3MatchesHuggingFaceOnEveryCase) { check_llama_cases("llama3"); }
TEST(HfTokenizerLlama, Qwen2MatchesHuggingFaceOnEveryCase) { check_llama_cases("qwen2"); }

TEST(HfTokenizerLlama, KindsAndSpecialIds) {
  const auto l2 = HfTokenizer::parse(read_fixture("llama2.json"));
  EXPECT_EQ(l2->kind(), HfTokenizer::Kind::SentencePieceBpe);
  EXPECT_EQ(l2->kind_name(), "SentencePiece BPE");
  EXPECT_EQ(l2->unk(), 0);
  EXPECT_EQ(l2->bos(), 1);
  EXPECT_EQ(l2->eos(), 2);
  EXPECT_EQ(l2->encode("", true).ids, std::vector<int>{1});
  // A piece shows "▁" as a space and a byte piece as its byte; part of a character as <0xHH>.
  EXPECT_EQ(l2->pieces()[l2->id_of("<0x41>")], "A");
  EXPECT_EQ(l2->pieces()[l2->id_of("<0xE4>")], "<0xE4>");
  EXPECT_EQ(l2->pieces()[l2->id_of("\xE2\x96\x81the")], " the");
  const auto l3 = HfTokenizer::parse(read_fixture("llama3.json"));
  EXPECT_EQ(l3->kind(), HfTokenizer::Kind::SplitByteLevelBpe);
  EXPECT_EQ(l3->split(), HfTokenizer::Split::Llama3);
  EXPECT_EQ(l3->kind_name(), "byte-level BPE (Llama 3 split)");
  EXPECT_EQ(l3->bos(), l3->id_of("<|begin_of_text|>"));
  EXPECT_EQ(l3->eos(), l3->id_of("<|end_of_text|>"));
  EXPECT_EQ(l3->encode("hi", true).ids.front(), l3->bos());
  const auto q2 = HfTokenizer::parse(read_fixture("qwen2.json"));
  EXPECT_EQ(q2->split(), HfTokenizer::Split::Qwen2);
  EXPECT_EQ(q2->kind_name(), "byte-level BPE (Qwen2 split)");
  EXPECT_EQ(q2->encode("hi", true).ids, q2->encode("hi", false).ids);  // no bos
}

// A small SentencePiece-style BPE written out here: the pieces ▁ h i ▁h ▁hi i▁ a b, only some byte
// pieces (<0x41> 'A', <0xE4> <0xB8> <0xAD>: 中), merges "i ▁" < "▁ h" < "▁h i".
json small_sp(const json& pre_tokenizer, bool fuse_unk = true) {
  json vocab = {{"<unk>", 0},
                {"<s>", 1},
                {"</s>", 2},
                {"<0x41>", 3},
                {"<0xE4>", 4},
                {"<0xB8>", 5},
                {"<0xAD>", 6},
                {"\xE2\x96\x81", 7},
                {"h", 8},
                {"i", 9},
                {"\xE2\x96\x81h", 10},
                {"\xE2\x96\x81hi", 11},
                {"i\xE2\x96\x81", 12},
                {"a", 13},
                {"b", 14}};
  json j = {{"added_tokens",
             {{{"id", 0}, {"content", "<unk>"}, {"special", true}},
              {{"id", 1}, {"content", "<s>"}, {"special", true}},
              {{"id", 2}, {"content", "</s>"}, {"special", true}}}},
            {"normalizer", nullptr},
            {"pre_tokenizer", pre_tokenizer},
            {"post_processor", nullptr},
            {"decoder",
             {{"type", "Sequence"},
              {"decoders",
               {{{"type", "Replace"}, {"pattern", {{"String", "\xE2\x96\x81"}}}, {"content", " "}},
                {{"type", "ByteFallback"}},
                {{"type", "Fuse"}},
                {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}}},
            {"model",
             {{"type", "BPE"},
              {"unk_token", "<unk>"},
              {"fuse_unk", fuse_unk},
              {"byte_fallback", true},
              {"vocab", vocab},
              {"merges", {"i \xE2\x96\x81", "\xE2\x96\x81 h", "\xE2\x96\x81h i"}}}}};
  return j;
}

json metaspace(const char* scheme, bool split) {
  return {{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"prepend_scheme", scheme}, {"split", split}};
}

// The vocabulary entries of the ids, "|"-joined.
std::string tokens_of(const HfTokenizer& t, const std::string& text) {
  std::string out;
  for (int id : t.encode(text, false).ids) out += (out.empty() ? "" : "|") + t.vocab()[id];
  return out;
}

const std::string kSp = "\xE2\x96\x81";

TEST(HfTokenizerLlama, ByteFallbackAndUnknownCharacters) {
  const auto t = HfTokenizer::parse(small_sp(metaspace("always", true)).dump());
  // 中 is not a piece, its three bytes are: their byte pieces; 'A' likewise.
  EXPECT_EQ(tokens_of(*t, "\xE4\xB8\xAD"), kSp + "|<0xE4>|<0xB8>|<0xAD>");
  EXPECT_EQ(tokens_of(*t, "A"), kSp + "|<0x41>");
  const auto e = t->encode("\xE4\xB8\xAD", false);
  EXPECT_EQ(e.pieces, (std::vector<std::string>{" ", "<0xE4>", "<0xB8>", "<0xAD>"}));
  EXPECT_TRUE(e.unknown.empty());
  // 'c' and 'd' have no piece and their bytes none either: one <unk> for the two (fuse_unk)...
  EXPECT_EQ(tokens_of(*t, "cda"), kSp + "|<unk>|a");
  EXPECT_EQ(t->encode("cda", false).unknown, std::vector<int>{1});
  // ...or one each without it.
  const auto nf = HfTokenizer::parse(small_sp(metaspace("always", true), false).dump());
  EXPECT_EQ(tokens_of(*nf, "cda"), kSp + "|<unk>|<unk>|a");
  // As HF: an <unk> not yet written goes after the byte pieces of the character that follows it.
  EXPECT_EQ(tokens_of(*t, "cA"), kSp + "|<0x41>|<unk>");
  // Decoding: the byte pieces become their character, a run that is not UTF-8 one U+FFFD a piece,
  // and Strip takes the one leading space.
  EXPECT_EQ(t->decode(t->encode("hi \xE4\xB8\xAD", false).ids), "hi \xE4\xB8\xAD");
  EXPECT_EQ(t->decode({4, 5, 8, 3}), kFffd + kFffd + "hA");
  EXPECT_EQ(t->decode({11, 11}), "hi hi");
  EXPECT_EQ(t->decode({1, 11, 2}), "hi");  // specials skipped
}

TEST(HfTokenizerLlama, MetaspacePrependSchemesAndSplit) {
  const auto always_whole = HfTokenizer::parse(small_sp(metaspace("always", false)).dump());
  const auto always_split = HfTokenizer::parse(small_sp(metaspace("always", true)).dump());
  const auto first_split = HfTokenizer::parse(small_sp(metaspace("first", true)).dump());
  const auto never_split = HfTokenizer::parse(small_sp(metaspace("never", true)).dump());
  // Not split, "▁hi▁hi" is one word: "i ▁" merges first, so the second "▁h" never meets its "i".
  EXPECT_EQ(tokens_of(*always_whole, "hi hi"), kSp + "h|i" + kSp + "|h|i");
  // Split before each "▁": "▁hi" "▁hi".
  EXPECT_EQ(tokens_of(*always_split, "hi hi"), kSp + "hi|" + kSp + "hi");
  EXPECT_EQ(tokens_of(*first_split, "hi hi"), kSp + "hi|" + kSp + "hi");
  EXPECT_EQ(tokens_of(*never_split, "hi hi"), "h|i|" + kSp + "hi");
  // A text that starts with a space gets no second "▁".
  EXPECT_EQ(tokens_of(*always_split, " hi"), kSp + "hi");
  // After an added token: always prepends again, first does not (the stretch does not begin the text).
  EXPECT_EQ(tokens_of(*always_split, "<s>hi"), "<s>|" + kSp + "hi");
  EXPECT_EQ(tokens_of(*first_split, "<s>hi"), "<s>|h|i");
  // Consecutive "▁": each begins a word.
  EXPECT_EQ(tokens_of(*never_split, "hi  hi"), "h|i|" + kSp + "|" + kSp + "hi");
  // The older form: add_prefix_space true is always; false needs prepend_scheme never.
  json old = small_sp({{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"add_prefix_space", true}});
  EXPECT_EQ(tokens_of(*HfTokenizer::parse(old.dump()), "hi hi"), kSp + "hi|" + kSp + "hi");
  old["pre_tokenizer"]["add_prefix_space"] = false;
  expect_error(old.dump(), "pre_tokenizer.add_prefix_space false does not match prepend_scheme");
  // The Metaspace decoder drops every "▁" of the first token (unless never), spaces elsewhere.
  json md = small_sp(metaspace("always", true));
  md["decoder"] = metaspace("always", true);
  EXPECT_EQ(HfTokenizer::parse(md.dump())->decode({7, 11, 12, 11}), " hii  hi");
  md["decoder"]["prepend_scheme"] = "never";
  EXPECT_EQ(HfTokenizer::parse(md.dump())->decode({7, 11, 12, 11}), "  hii  hi");
}

TEST(HfTokenizerLlama, Llama2NormalizerPrependsToEachStretch) {
  // Prepend "▁" + Replace " " -> "▁", no pre-tokenizer: each stretch between added tokens is one word
  // with its own "▁" in front.
  json j = small_sp(nullptr);
  j["normalizer"] = {{"type", "Sequence"},
                     {"normalizers",
                      {{{"type", "Prepend"}, {"prepend", "\xE2\x96\x81"}},
                       {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\xE2\x96\x81"}}}}};
  const auto t = HfTokenizer::parse(j.dump());
  EXPECT_EQ(tokens_of(*t, "hi hi"), kSp + "h|i" + kSp + "|h|i");
  EXPECT_EQ(tokens_of(*t, "hi<s> hi"), kSp + "hi|<s>|" + kSp + "|" + kSp + "hi");
  EXPECT_EQ(tokens_of(*t, ""), "");
  EXPECT_EQ(t->decode(t->encode("hi hi", true).ids), "hi hi");
}

TEST(HfTokenizerLlama, SplitPatternsByHand) {
  using S = HfTokenizer::Split;
  const auto split = [](S s, const std::string& text) {
    std::string out;
    for (const auto& w : HfTokenizer::split_words(s, text)) out += "[" + w + "]";
    return out;
  };
  for (S s : {S::Llama3, S::Qwen2}) {
    EXPECT_EQ(split(s, "Hello world"), "[Hello][ world]");
    EXPECT_EQ(split(s, "I'M don't"), "[I]['M][ don]['t]");
    EXPECT_EQ(split(s, "'sa"), "['s][a]");                // the contraction comes first
    EXPECT_EQ(split(s, "'\xC5\xBFt"), "['\xC5\xBF][t]");  // U+017F LONG S folds to s
    EXPECT_EQ(split(s, "  \n\n  x"), "[  \n\n][ ][ x]");  // white space up to its last newline
    EXPECT_EQ(split(s, "!!!\n\nx"), "[!!!\n\n][x]");      // other characters take the newlines
    EXPECT_EQ(split(s, "(((x (x"), "[(((][x][ (][x]");
    EXPECT_EQ(split(s, "a \tb"), "[a][ ][\tb]");  // one non-newline space before letters
    EXPECT_EQ(split(s, "x \n"), "[x][ \n]");
    EXPECT_EQ(split(s, "hello   "), "[hello][   ]");
    EXPECT_EQ(split(s, "\xC2\xA0hi"), "[\xC2\xA0hi]");
    EXPECT_EQ(split(s, "a\r\n\r\nb"), "[a][\r\n\r\n][b]");
    EXPECT_EQ(split(s, "  ?"), "[ ][ ?]");
    EXPECT_EQ(split(s, "e\xCC\x81t"), "[e][\xCC\x81t]");  // a combining mark is not a letter
  }
  EXPECT_EQ(split(S::Llama3, "12345 3.14"), "[123][45][ ][3][.][14]");
  EXPECT_EQ(split(S::Qwen2, "12345 3.14"), "[1][2][3][4][5][ ][3][.][1][4]");
}

TEST(HfTokenizerLlama, RefusedPartsNameTheirField) {
  const auto l3 = [](const std::function<void(json&)>& edit) { return edited("llama3.json", edit); };
  expect_error(l3([](json& j) { j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\p{L}+|\\s+"; }),
               "tokenizer.json: pre_tokenizer.pretokenizers[0].pattern.Regex '\\p{L}+|\\s+' is not supported (only "
               "Llama 3's or Qwen2's split pattern)");
  // GPT-2's pattern as a Split: refused, showing the start of a long pattern.
  expect_error(l3([](json& j) {
                 j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] =
                     "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
               }),
               "pattern.Regex ''s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p...' is not supported");
  expect_error(l3([](json& j) {
                 j["pre_tokenizer"]["pretokenizers"][0]["pattern"] = {{"String", " "}};
               }),
               "pre_tokenizer.pretokenizers[0].pattern is not {\"Regex\": ...}");
  expect_error(l3([](json& j) { j["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Removed"; }),
               "pre_tokenizer.pretokenizers[0].behavior 'Removed' is not supported (only Isolated)");
  expect_error(l3([](json& j) { j["pre_tokenizer"]["pretokenizers"][0]["invert"] = true; }),
               "pre_tokenizer.pretokenizers[0].invert true is not supported");
  expect_error(l3([](json& j) { j["pre_tokenizer"]["pretokenizers"][1]["use_regex"] = true; }),
               "pre_tokenizer.pretokenizers[1].use_regex true is not supported after a Split");
  expect_error(l3([](json& j) {
                 j["normalizer"] = {{"type", "NFKC"}};
               }),
               "tokenizer.json: normalizer.type 'NFKC' is not supported");
  const auto l2 = [](const std::function<void(json&)>& edit) { return edited("llama2.json", edit); };
  expect_error(l2([](json& j) {
                 j["normalizer"]["normalizers"][1]["pattern"] = {{"Regex", " +"}};
               }),
               "normalizer.normalizers[1].pattern: a Regex is not supported");
  expect_error(l2([](json& j) { j["normalizer"]["normalizers"][0]["prepend"] = std::string(17, 'x'); }),
               "normalizer.normalizers[0].prepend of 17 bytes ('xxxxxxxxxxxxxxxxx') is longer than the limit of 16 "
               "bytes for a rule");
  expect_error(l2([](json& j) {
                 j["normalizer"]["normalizers"][1]["content"] = std::string(16, ' ');
                 j["normalizer"]["normalizers"].push_back(
                     {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "  "}});
               }),
               "normalizer.normalizers[2]: the Replace rules make a text up to 32 times longer, more than the "
               "limit of 16");
  expect_error(l2([](json& j) {
                 for (int i = 0; i < 8; ++i)
                   j["normalizer"]["normalizers"].push_back({{"type", "Prepend"}, {"prepend", "x"}});
               }),
               "normalizer.normalizers has 10 entries, more than the limit of 8");
  expect_error(l2([](json& j) { j["decoder"]["decoders"][3]["type"] = "CTC"; }),
               "decoder.decoders[3].type 'CTC' is not supported");
  expect_error(l2([](json& j) { j["decoder"]["decoders"][3]["content"] = "ab"; }),
               "decoder.decoders[3].content 'ab' is not one character");
  expect_error(l2([](json& j) {
                 j["decoder"] = {{"type", "ByteLevel"}};
               }),
               "decoder.type 'ByteLevel' is not supported");
  expect_error(l2([](json& j) { j["model"]["byte_fallback"] = false; }),
               "pre_tokenizer is missing (ByteLevel or Metaspace for BPE; none only with model.byte_fallback true");
  const auto mi = [](const std::function<void(json&)>& edit) { return edited("mistral.json", edit); };
  expect_error(mi([](json& j) { j["pre_tokenizer"]["prepend_scheme"] = "sometimes"; }),
               "pre_tokenizer.prepend_scheme 'sometimes' is not first, always or never");
  expect_error(mi([](json& j) { j["pre_tokenizer"]["replacement"] = "__"; }),
               "pre_tokenizer.replacement '__' is not one character");
  expect_error(mi([](json& j) { j["pre_tokenizer"].erase("replacement"); }), "pre_tokenizer.replacement is missing");
}

}  // namespace

// ---- NFC (Qwen2's normalizer) against Python's unicodedata.normalize('NFC', ...) (Unicode 14, the
// tables' version): tests/fixtures/hf/nfc_cases.json, made by tests/reference/make_nfc_fixture.py.

namespace {

std::u32string utf32(const std::string& s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) {
    const unsigned char b = s[i];
    const int n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    uint32_t cp = n == 1 ? b : b & (0x7F >> n);
    for (int k = 1; k < n; ++k) cp = (cp << 6) | (s[i + k] & 0x3F);
    out.push_back(cp);
    i += n;
  }
  return out;
}

const json& nfc_cases() {
  static const json c = [] {
    std::ifstream f(std::string(AP_FIXTURES_DIR) + "/hf/nfc_cases.json", std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return json::parse(ss.str());
  }();
  return c;
}

}  // namespace

TEST(HfTokenizerNfc, EqualsPythonUnicodedata) {
  const json& cases = nfc_cases()["cases"];
  ASSERT_GE(cases.size(), 300u);
  int changed = 0;
  for (const json& c : cases) {
    std::u32string s = utf32(c[0].get<std::string>());
    const std::u32string want = utf32(c[1].get<std::string>());
    changed += s != want;
    ap::unicode::nfc(s);
    EXPECT_TRUE(s == want) << "text: " << c[0].dump() << " want " << c[1].dump();
  }
  EXPECT_GE(changed, 150);  // most cases are not already in NFC
}

TEST(HfTokenizerNfc, QwenNormalizerComposesBeforeTheSplit) {
  const auto plain = HfTokenizer::parse(read_fixture("qwen2.json"));
  const auto nfc = HfTokenizer::parse(edited("qwen2.json", [](json& j) { j["normalizer"] = {{"type", "NFC"}}; }));
  // The normalized text is what byte-level BPE decodes back: NFC of the text.
  for (const json& c : nfc_cases()["cases"]) {
    const std::string text = c[0], want = c[1];
    EXPECT_EQ(nfc->decode(nfc->encode(text, false).ids), want) << "text: " << c[0].dump();
    EXPECT_EQ(nfc->encode(text, false).ids, plain->encode(want, false).ids) << "text: " << c[0].dump();
  }
  // An invalid byte stays, and a mark after it does not reach back over it to the letter before.
  EXPECT_EQ(nfc->encode("e\xFF\xCC\x81", false).ids, plain->encode("e\xFF\xCC\x81", false).ids);
  EXPECT_EQ(nfc->encode("\xFF"
                        "e\xCC\x81",
                        false)
                .ids,
            plain->encode("\xFF\xC3\xA9", false).ids);
  // In a Sequence too, before the Llama 2 rules.
  const auto l2 = HfTokenizer::parse(edited("llama2.json", [](json& j) {
    json nfc_rule;
    nfc_rule["type"] = "NFC";
    j["normalizer"]["normalizers"].insert(j["normalizer"]["normalizers"].begin(), nfc_rule);
  }));
  const auto l2plain = HfTokenizer::parse(read_fixture("llama2.json"));
  EXPECT_EQ(l2->encode("Vie\xCC\xA3\xCC\x82t", true).ids, l2plain->encode("Vi\xE1\xBB\x87t", true).ids);
  EXPECT_NE(l2plain->encode("Vie\xCC\xA3\xCC\x82t", true).ids, l2plain->encode("Vi\xE1\xBB\x87t", true).ids);
}

// Found by the JS fuzz target llama-tokenizer: an added token whose content is already a piece of the
// model (here "é", which is byte 0xE9's symbol in byte-level BPE, id 233) takes that piece's id, as
// Hugging Face does (npm tokenizers 0.23.2 encodes the text "é" to 233 with such a token), not the id
// the file gives (2051). Without the token the text "é" is the bytes C3 A9, other ids.
TEST(HfTokenizerLlama, AddedTokenWithAModelPieceTakesItsId) {
  const auto plain = HfTokenizer::parse(read_fixture("qwen2.json"));
  ASSERT_NE(plain->encode("\xC3\xA9", false).ids, std::vector<int>({233}));
  const auto t = HfTokenizer::parse(edited("qwen2.json", [](json& j) {
    json tok;
    tok["id"] = 2051;
    tok["content"] = "\xC3\xA9";
    tok["special"] = true;
    j["added_tokens"].push_back(tok);
  }));
  EXPECT_EQ(t->encode("\xC3\xA9", false).ids, std::vector<int>({233}));
  EXPECT_EQ(t->encode("a\xC3\xA9", false).ids, std::vector<int>({97, 233}));  // split out first, then BPE
  EXPECT_NE(plain->encode("a\xC3\xA9", false).ids, std::vector<int>({97, 233}));
}
