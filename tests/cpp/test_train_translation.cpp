// The translate task (English -> French toy grammar): it produces the lecture's sentence pair
// (004) and both "bank" sentences, French puts adjectives after the noun in reverse order, every
// word of every sentence is in the vocabulary, the same seed gives the same data, and held-out
// sentences never appear in training. Also the sentence tokenizer's elision and sentence case.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "data/tasks.hpp"

using namespace ap;
using namespace ap::train;

namespace {

std::vector<std::string> pieces(const Task& t, const std::string& s) { return t.tokenizer().encode(s).pieces; }

// The key the task holds out by, recomputed here from the words: a document's sentence up to
// its date ("in"), the whole sentence for the others.
std::string key_of(const Task& t, const Example& e) {
  std::string key;
  for (const auto& w : pieces(t, e.src)) {
    if (w == "." || (e.kind == "document" && w == "in")) break;
    key += w + " ";
  }
  return key;
}

}  // namespace

TEST(TranslationTask, SentenceTokenizerKeepsElisionAndWritesTheSentenceBack) {
  auto task = make_task("translate");
  const Tokenizer& tok = task->tokenizer();
  EXPECT_EQ(tok.kind(), Tokenizer::Kind::Sentence);
  const std::string fr = "L'accord sur la zone économique européenne a été signé en août 1992.";
  const auto enc = tok.encode(fr);
  const std::vector<std::string> expected = {"l'", "accord", "sur",   "la", "zone", "économique", "européenne",
                                             "a",  "été",    "signé", "en", "août", "1992",       "."};
  EXPECT_EQ(enc.pieces, expected);
  EXPECT_TRUE(enc.unknown.empty());
  EXPECT_EQ(tok.decode(enc.ids), fr);
  // The typographic apostrophe reads as the ASCII one.
  EXPECT_EQ(tok.encode("L\u2019accord").pieces, (std::vector<std::string>{"l'", "accord"}));
  // A word-level tokenizer with the same vocabulary still splits the apostrophe off.
  Tokenizer word(Tokenizer::Kind::Word, tok.vocab());
  EXPECT_EQ(word.encode("L'accord").pieces, (std::vector<std::string>{"l", "'", "accord"}));
  EXPECT_EQ(Tokenizer::kind_from_name("sentence"), Tokenizer::Kind::Sentence);
  EXPECT_THROW(Tokenizer::kind_from_name("words"), Error);
}

TEST(TranslationTask, ProducesTheLectureSentencePairAndTheBankSentences) {
  auto task = make_task("translate");
  EXPECT_EQ(task->arch(), Arch::EncoderDecoder);
  const std::string notes_en = "The agreement on the European Economic Area was signed in August 1992.";
  const std::string notes_fr = "L'accord sur la zone économique européenne a été signé en août 1992.";
  const std::map<std::string, std::string> bank = {
      {"I went to the bank to deposit my check.", "Je suis allé à la banque pour déposer mon chèque."},
      {"I sat by the river bank.", "Je me suis assis près de la rive."}};
  const auto has = [&](const std::string& text, const std::string& part) {
    const std::string t = " " + [&] {
      std::string j;
      for (const auto& w : pieces(*task, text)) j += w + " ";
      return j;
    }();
    std::string p = " ";
    for (const auto& w : pieces(*task, part)) p += w + " ";
    return t.find(p) != std::string::npos;
  };
  // The lecture's sentence is one of about 10^9 the grammar writes, so rather than wait for it,
  // each of its parts must come out of the grammar (not the lecture draws) with its French.
  const std::vector<std::pair<std::string, std::string>> parts = {
      {"The agreement on", "L'accord sur"},
      {"the European Economic Area was", "la zone économique européenne a"},
      {"The agreement was signed", "L'accord a été signé"},
      {"in August 1992.", "en août 1992."}};
  std::map<std::string, int> seen;
  Rng rng(5);
  for (int i = 0; i < 200000; ++i) {
    const Example e = task->sample(rng, Split::Train);
    if (e.kind == "lecture") {
      if (pieces(*task, e.src) == pieces(*task, notes_en)) seen["lecture"] += e.tgt == notes_fr;
      continue;
    }
    for (const auto& [en, fr] : parts)
      if (has(e.src, en)) seen[en] += has(e.tgt, fr) ? 1 : -1000000;
    for (const auto& [en, fr] : bank)
      if (pieces(*task, e.src) == pieces(*task, en)) seen[en] += e.tgt == fr ? 1 : -1000000;
  }
  EXPECT_GT(seen["lecture"], 0);
  for (const auto& [en, fr] : parts) EXPECT_GT(seen[en], 0) << en << " -> " << fr;
  for (const auto& [en, fr] : bank) EXPECT_GT(seen[en], 0) << en << " -> " << fr;
  EXPECT_TRUE(task->tokenizer().encode(notes_en).unknown.empty());
  EXPECT_TRUE(task->tokenizer().encode(notes_fr).unknown.empty());
  // "bank" alone is la banque, "river bank" is la rive: the two senses have different words.
  EXPECT_NE(task->tokenizer().id_of("banque"), Tokenizer::kUnk);
  EXPECT_NE(task->tokenizer().id_of("rive"), Tokenizer::kUnk);
}

TEST(TranslationTask, FrenchPutsAdjectivesAfterTheNounInReverseOrder) {
  auto task = make_task("translate");
  // English adjective -> its French forms, written here independently of the generator.
  const std::map<std::string, std::set<std::string>> adj = {{"european", {"européen", "européenne"}},
                                                            {"economic", {"économique"}},
                                                            {"central", {"central", "centrale"}},
                                                            {"common", {"commun", "commune"}},
                                                            {"social", {"social", "sociale"}},
                                                            {"monetary", {"monétaire"}},
                                                            {"national", {"national", "nationale"}},
                                                            {"agricultural", {"agricole"}},
                                                            {"financial", {"financier", "financière"}},
                                                            {"free", {"libre"}},
                                                            {"single", {"unique"}}};
  Rng rng(11);
  int two_adjectives = 0;
  for (int i = 0; i < 3000; ++i) {
    const Example e = task->sample(rng, Split::Train);
    const auto en = pieces(*task, e.src), fr = pieces(*task, e.tgt);
    ASSERT_TRUE(task->tokenizer().encode(e.tgt).unknown.empty()) << e.tgt;
    ASSERT_TRUE(task->tokenizer().encode(e.src).unknown.empty()) << e.src;
    ASSERT_LE(static_cast<int>(en.size()), task->max_len());
    ASSERT_LE(static_cast<int>(fr.size()) + 2, task->max_len());
    std::vector<std::string> en_adj, fr_adj;
    for (const auto& w : en)
      if (adj.count(w)) en_adj.push_back(w);
    for (size_t k = 0; k < fr.size(); ++k)
      for (const auto& [a, forms] : adj)
        if (forms.count(fr[k])) fr_adj.push_back(a);
    ASSERT_EQ(en_adj.size(), fr_adj.size()) << e.src << " | " << e.tgt;
    if (en_adj.size() == 2) {
      ++two_adjectives;
      EXPECT_EQ(en_adj[0], fr_adj[1]) << e.src << " | " << e.tgt;
      EXPECT_EQ(en_adj[1], fr_adj[0]) << e.src << " | " << e.tgt;
    }
    // In English the adjectives come before their noun, in French after it: the word before the
    // first French adjective is not an article.
    if (!fr_adj.empty()) {
      for (size_t k = 1; k < fr.size(); ++k)
        if (adj.at(fr_adj[0]).count(fr[k])) {
          EXPECT_TRUE(fr[k - 1] != "la" && fr[k - 1] != "le" && fr[k - 1] != "l'") << e.tgt;
          break;
        }
    }
  }
  EXPECT_GT(two_adjectives, 300);
}

TEST(TranslationTask, SameSeedSameDataAndHeldOutDisjoint) {
  auto task = make_task("translate");
  Rng a(3), b(3);
  for (int i = 0; i < 500; ++i) {
    const Example x = task->sample(a, Split::Train), y = task->sample(b, Split::Train);
    ASSERT_EQ(x.src, y.src);
    ASSERT_EQ(x.tgt, y.tgt);
  }
  std::set<std::string> train_keys, held_keys;
  std::set<std::string> kinds;
  Rng r(4);
  for (int i = 0; i < 20000; ++i) {
    const Example e = task->sample(r, Split::Train);
    if (e.kind != "lecture") train_keys.insert(key_of(*task, e));
  }
  for (int i = 0; i < 2000; ++i) {
    const Example e = task->sample(r, Split::HeldOut);
    kinds.insert(e.kind);
    held_keys.insert(key_of(*task, e));
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"document", "went", "by"}));
  EXPECT_GT(held_keys.size(), 500u);  // the grammar is large enough that most held-out sentences are new
  for (const auto& k : held_keys) EXPECT_EQ(train_keys.count(k), 0u) << k;
}
