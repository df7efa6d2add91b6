// Tokenizer: how text splits (UTF-8 code points, words and punctuation), the vocabulary
// layout, unknown tokens and round trips. Expected pieces and ids are written out by hand.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "base/tensor.hpp"
#include "core/tokenizer.hpp"
#include "helpers.hpp"

namespace {

using ap::Tokenizer;
using Pieces = std::vector<std::string>;
using Ids = std::vector<int>;

const auto& char_tok = aptest::char_tokenizer;
const auto& word_tok = aptest::word_tokenizer;
using aptest::error_of;

std::string join(const Pieces& pieces) {
  std::string s;
  for (const auto& p : pieces) s += p;
  return s;
}

// ---- char level -----------------------------------------------------------------------

TEST(TokenizerChar, SplitsAsciiIntoCharactersIncludingSpaces) {
  EXPECT_EQ(char_tok({}).split("hi there"), (Pieces{"h", "i", " ", "t", "h", "e", "r", "e"}));
}

TEST(TokenizerChar, CafeIsFourCodePoints) {
  // "é" is the two bytes C3 A9: one piece, not two.
  const Pieces pieces = char_tok({}).split("caf\xC3\xA9");
  EXPECT_EQ(pieces, (Pieces{"c", "a", "f", "\xC3\xA9"}));
}

TEST(TokenizerChar, ThreeAndFourByteCodePointsAreOnePieceEach) {
  // U+732B (猫, E7 8C AB) and U+1F600 (😀, F0 9F 98 80).
  EXPECT_EQ(char_tok({}).split("\xE7\x8C\xAB\xF0\x9F\x98\x80!"), (Pieces{"\xE7\x8C\xAB", "\xF0\x9F\x98\x80", "!"}));
}

TEST(TokenizerChar, InvalidUtf8BytesBecomeSinglePiecesAndNothingIsLost) {
  const Tokenizer tok = char_tok({});
  struct Case {
    std::string text;
    Pieces pieces;
  };
  const Case cases[] = {
      {"a\xFF"
       "b",
       {"a", "\xFF", "b"}},                                    // a byte that never occurs in UTF-8
      {"x\xC3", {"x", "\xC3"}},                                // a lead byte cut off at the end
      {"\xC3(", {"\xC3", "("}},                                // a lead byte without continuation
      {"\x80\xBF", {"\x80", "\xBF"}},                          // stray continuation bytes
      {"\xC0\xAF", {"\xC0", "\xAF"}},                          // overlong "/"
      {"\xE0\x80\xAF", {"\xE0", "\x80", "\xAF"}},              // overlong 3-byte form
      {"\xED\xA0\x80", {"\xED", "\xA0", "\x80"}},              // UTF-16 surrogate D800
      {"\xF4\x90\x80\x80", {"\xF4", "\x90", "\x80", "\x80"}},  // above U+10FFFF
      {"\xF0\x9F\x98", {"\xF0", "\x9F", "\x98"}},              // truncated 4-byte sequence
  };
  for (const Case& c : cases) {
    const Pieces pieces = tok.split(c.text);
    EXPECT_EQ(pieces, c.pieces) << "text bytes: " << c.text.size();
    EXPECT_EQ(join(pieces), c.text);
  }
}

TEST(TokenizerChar, BuildPutsSpecialsFirstThenPiecesInFirstSeenOrder) {
  const Tokenizer tok = char_tok({"abca", "b d"});
  EXPECT_EQ(tok.vocab(), (Pieces{"<pad>", "<unk>", "<bos>", "<eos>", "a", "b", "c", " ", "d"}));
  EXPECT_EQ(tok.size(), 9);
  EXPECT_EQ(tok.kind(), Tokenizer::Kind::Char);
}

TEST(TokenizerChar, EncodeGivesHandCountedIds) {
  const Tokenizer tok = char_tok({"abca", "b d"});  // a=4 b=5 c=6 ' '=7 d=8
  const Tokenizer::Encoded enc = tok.encode("dab c");
  EXPECT_EQ(enc.ids, (Ids{8, 4, 5, 7, 6}));
  EXPECT_EQ(enc.pieces, (Pieces{"d", "a", "b", " ", "c"}));
  EXPECT_TRUE(enc.unknown.empty());
}

TEST(TokenizerChar, UnknownPiecesAreReportedWithTheirPositions) {
  const Tokenizer tok = char_tok({"ab"});  // a=4 b=5
  const Tokenizer::Encoded enc = tok.encode("abxbz");
  EXPECT_EQ(enc.ids, (Ids{4, 5, Tokenizer::kUnk, 5, Tokenizer::kUnk}));
  EXPECT_EQ(enc.unknown, (Ids{2, 4}));
  EXPECT_EQ(enc.pieces[2], "x");
  EXPECT_EQ(enc.pieces[4], "z");
}

TEST(TokenizerChar, DecodeOfEncodeIsTheTextWhenEveryPieceIsKnown) {
  const std::string text = "Caf\xC3\xA9 <b>\xE7\x8C\xAB</b>\n\ttab";
  const Tokenizer tok = char_tok({text});
  const Tokenizer::Encoded enc = tok.encode(text);
  EXPECT_TRUE(enc.unknown.empty());
  EXPECT_EQ(tok.decode(enc.ids), text);
}

TEST(TokenizerChar, DecodeSkipsPadBosEosAndSpellsOutUnk) {
  const Tokenizer tok = char_tok({"ab"});  // a=4 b=5
  EXPECT_EQ(tok.decode({Tokenizer::kBos, 4, Tokenizer::kPad, 5, Tokenizer::kEos}), "ab");
  EXPECT_EQ(tok.decode({4, Tokenizer::kUnk, 5}), "a<unk>b");
  EXPECT_EQ(tok.decode({}), "");
}

TEST(TokenizerChar, DecodeRejectsIdsOutsideTheVocabulary) {
  const Tokenizer tok = char_tok({"ab"});  // 6 entries
  EXPECT_MENTIONS(error_of([&] { tok.decode({4, 6}); }), "token id 6 is out of range");
  EXPECT_MENTIONS(error_of([&] { tok.decode({-1}); }), "token id -1");
}

TEST(TokenizerChar, EmptyTextGivesNoIds) {
  const Tokenizer::Encoded enc = char_tok({"ab"}).encode("");
  EXPECT_TRUE(enc.ids.empty());
  EXPECT_TRUE(enc.pieces.empty());
  EXPECT_TRUE(enc.unknown.empty());
}

TEST(TokenizerChar, StrayBytesStayOutOfTheVocabularyAndEncodeAsUnknown) {
  const Tokenizer tok =
      char_tok({"a\xFF"
                "b"});
  EXPECT_EQ(tok.vocab(), (Pieces{"<pad>", "<unk>", "<bos>", "<eos>", "a", "b"}));
  const Tokenizer::Encoded enc = tok.encode(
      "a\xFF"
      "b");
  EXPECT_EQ(enc.ids, (Ids{4, Tokenizer::kUnk, 5}));
  EXPECT_EQ(enc.unknown, (Ids{1}));
}

TEST(TokenizerChar, SpecialTokenSpellingsInTextAreOrdinaryCharacters) {
  const Tokenizer tok = char_tok({"<pad>"});
  EXPECT_EQ(tok.split("<eos>").size(), 5u);
  for (const int id : tok.encode("<pad>").ids) EXPECT_GE(id, 4);
}

TEST(TokenizerChar, IdOfAnAbsentPieceIsUnk) {
  const Tokenizer tok = char_tok({"ab"});
  EXPECT_EQ(tok.id_of("b"), 5);
  EXPECT_EQ(tok.id_of("q"), Tokenizer::kUnk);
  EXPECT_EQ(tok.id_of("<eos>"), Tokenizer::kEos);
}

// ---- word level -----------------------------------------------------------------------

TEST(TokenizerWord, LowerCasesAndSplitsPunctuationOff) {
  const Tokenizer tok = word_tok({});
  EXPECT_EQ(tok.split("The cat sat, on the mat."), (Pieces{"the", "cat", "sat", ",", "on", "the", "mat", "."}));
}

TEST(TokenizerWord, DecodeOfEncodeIsTheNormalisedText) {
  const Tokenizer tok = word_tok({"The cat sat, on the mat."});
  // the=4 cat=5 sat=6 ,=7 on=8 mat=9 .=10
  const Tokenizer::Encoded enc = tok.encode("The cat sat, on the mat.");
  EXPECT_EQ(enc.ids, (Ids{4, 5, 6, 7, 8, 4, 9, 10}));
  EXPECT_EQ(tok.decode(enc.ids), "the cat sat, on the mat.");
  // Extra whitespace normalises away too.
  EXPECT_EQ(tok.decode(tok.encode("  THE   cat\tsat ,on\nthe mat .").ids), "the cat sat, on the mat.");
}

TEST(TokenizerWord, AnyAsciiWhitespaceSeparatesWords) {
  EXPECT_EQ(word_tok({}).split(" \ta\r\nb\v\fc  "), (Pieces{"a", "b", "c"}));
  EXPECT_TRUE(word_tok({}).split(" \t\n ").empty());
}

TEST(TokenizerWord, EveryPunctuationCharacterIsItsOwnToken) {
  EXPECT_EQ(word_tok({}).split("<img src=x onerror=alert(1)>"),
            (Pieces{"<", "img", "src", "=", "x", "onerror", "=", "alert", "(", "1", ")", ">"}));
  EXPECT_EQ(word_tok({}).split("don't...!"), (Pieces{"don", "'", "t", ".", ".", ".", "!"}));
}

TEST(TokenizerWord, DecodePutsNoSpaceBeforePunctuation) {
  const Tokenizer tok = word_tok({"hello , world ! ( x )"});
  // hello=4 ,=5 world=6 !=7 (=8 x=9 )=10
  EXPECT_EQ(tok.decode({4, 5, 6, 7}), "hello, world!");
  EXPECT_EQ(tok.decode({8, 9, 10}), "( x)");  // the documented rule: only *before* punctuation
  EXPECT_EQ(tok.decode({4, Tokenizer::kUnk, 6}), "hello <unk> world");
}

TEST(TokenizerWord, LowerCasesAsciiOnlyAndKeepsUtf8Words) {
  // "Café DÉJÀ vu": ASCII letters lower-case, É and À stay as they are (no locale tables).
  EXPECT_EQ(word_tok({}).split("Caf\xC3\xA9 D\xC3\x89J\xC3\x80 vu"),
            (Pieces{"caf\xC3\xA9", "d\xC3\x89j\xC3\x80", "vu"}));
}

TEST(TokenizerWord, AnInvalidByteSplitsTheWordAndStandsAlone) {
  EXPECT_EQ(word_tok({}).split("ab\xFF"
                               "cd \xC3"),
            (Pieces{"ab", "\xFF", "cd", "\xC3"}));
}

TEST(TokenizerWord, UnknownWordsAreReportedWithTheirPositions) {
  const Tokenizer tok = word_tok({"the cat sat"});
  const Tokenizer::Encoded enc = tok.encode("the dog sat quietly");
  EXPECT_EQ(enc.ids, (Ids{4, Tokenizer::kUnk, 6, Tokenizer::kUnk}));
  EXPECT_EQ(enc.unknown, (Ids{1, 3}));
  EXPECT_EQ(enc.pieces[1], "dog");
}

// ---- constructing from a vocabulary ---------------------------------------------------

TEST(TokenizerVocab, AcceptsAVocabularyThatStartsWithTheSpecials) {
  const Tokenizer tok(Tokenizer::Kind::Word, {"<pad>", "<unk>", "<bos>", "<eos>", "hi", "!"});
  EXPECT_EQ(tok.encode("Hi!").ids, (Ids{4, 5}));
}

TEST(TokenizerVocab, RejectsBadVocabularies) {
  const std::pair<Pieces, const char*> cases[] = {
      {{"<pad>", "<unk>"}, "special tokens"},
      {{"<pad>", "<bos>", "<unk>", "<eos>"}, "entry 1 is \"<bos>\"; expected \"<unk>\""},
      {{"<pad>", "<unk>", "<bos>", "<eos>", "a", "b", "a"}, "entry 6 \"a\" duplicates entry 4"},
      {{"<pad>", "<unk>", "<bos>", "<eos>", ""}, "entry 4 is empty"},
      {{"<pad>", "<unk>", "<bos>", "<eos>", "\xFF"}, "entry 4 is not valid UTF-8"},
  };
  for (const auto& c : cases) {  // no structured binding: a lambda may not capture one in C++17
    const auto& vocab = c.first;
    EXPECT_MENTIONS(error_of([&] { Tokenizer(Tokenizer::Kind::Char, vocab); }), c.second);
  }
}

// ---- seed corpus for fuzzing ----------------------------------------------------------

TEST(TokenizerCorpus, EverySeedTextSplitsLosslesslyAtBothLevels) {
  const std::filesystem::path dir = std::filesystem::path(AP_FIXTURES_DIR) / ".." / "corpus" / "tokenizer";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const Tokenizer chars = char_tok({text});
    EXPECT_EQ(join(chars.split(text)), text) << entry.path();
    const Tokenizer words = word_tok({text});
    // Word level drops whitespace and lower-cases, so count bytes of non-space content instead.
    size_t content = 0;
    for (const char c : text) content += !(c == ' ' || (c >= '\t' && c <= '\r'));
    EXPECT_EQ(join(words.split(text)).size(), content) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 4);
}

}  // namespace

TEST(TokenizerWord, TheMaskIdIsTheMaskPiecesIdWhenTheVocabularyHasIt) {
  EXPECT_STREQ(Tokenizer::kMaskPiece, "[MASK]");
  const Tokenizer with(Tokenizer::Kind::Word, Tokenizer::with_specials({"the", "cat", "[MASK]", "sat"}));
  EXPECT_EQ(with.mask_id(), 6);  // after <pad> <unk> <bos> <eos> the cat
  EXPECT_EQ(with.vocab()[6], "[MASK]");
  const Tokenizer without(Tokenizer::Kind::Word, Tokenizer::with_specials({"the", "cat"}));
  EXPECT_EQ(without.mask_id(), -1);
  EXPECT_EQ(without.eos_id(), 3);
}
