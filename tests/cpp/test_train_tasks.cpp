// The task generators: every example is correct by an independent check written here
// (a sorted copy, a reversed copy, a regex reading of each date format and Zeller's
// congruence for the weekday), held-out keys never appear in training, the sequence format
// masks the prompt, and the same seed gives the same data.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "data/tasks.hpp"

using namespace ap;
using namespace ap::train;

namespace {

// Zeller's congruence (Gregorian), converted to 0 = Monday .. 6 = Sunday.
int zeller(int y, int m, int d) {
  if (m < 3) {
    m += 12;
    y -= 1;
  }
  const int K = y % 100, J = y / 100;
  const int h = (d + 13 * (m + 1) / 5 + K + K / 4 + J / 4 + 5 * J) % 7;  // 0 = Saturday
  return (h + 5) % 7;
}

const char* const kMonthNames[] = {"January", "February", "March",     "April",   "May",      "June",
                                   "July",    "August",   "September", "October", "November", "December"};
const char* const kDayNames[] = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

int month_of(std::string name) {
  name[0] = static_cast<char>(std::toupper(name[0]));
  for (int m = 0; m < 12; ++m)
    if (std::string(kMonthNames[m]).rfind(name, 0) == 0 && name.size() >= 3) return m + 1;
  return 0;
}

// Reads a date string in any of the task's formats independently of the generator; returns
// "YYYY-MM-DD" or "" if no format matches. Checks the weekday when one is written.
std::string read_date(const std::string& s) {
  std::smatch m;
  auto iso = [](int y, int mo, int d) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", y, mo, d);
    return std::string(buf);
  };
  const std::string day = "(\\d{1,2})(?:st|nd|rd|th)?";
  if (std::regex_match(s, m, std::regex("(\\d{4})-(\\d{2})-(\\d{2})")))
    return iso(std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3]));
  if (std::regex_match(s, m, std::regex("(\\d{1,2})[/.](\\d{1,2})[/.](\\d{4})")))  // day first, always
    return iso(std::stoi(m[3]), std::stoi(m[2]), std::stoi(m[1]));
  if (std::regex_match(s, m, std::regex("(?:the )?" + day + "[ -](?:of )?([A-Za-z]+),?[ -](\\d{4})")))
    return iso(std::stoi(m[3]), month_of(m[2]), std::stoi(m[1]));
  if (std::regex_match(s, m, std::regex("([A-Za-z]+) (\\d{1,2}), (\\d{4})")))
    return iso(std::stoi(m[3]), month_of(m[1]), std::stoi(m[2]));
  if (std::regex_match(s, m, std::regex("([a-z]{3}) (\\d{1,2}) (\\d{2})"))) {
    const int yy = std::stoi(m[3]);
    return iso(yy >= 50 ? 1900 + yy : 2000 + yy, month_of(m[1]), std::stoi(m[2]));
  }
  if (std::regex_match(s, m, std::regex("([A-Za-z]+),? (\\d{1,2}) ([A-Za-z]+) (\\d{4})"))) {
    const int y = std::stoi(m[4]), mo = month_of(m[3]), d = std::stoi(m[2]);
    const std::string written = m[1], truth = kDayNames[zeller(y, mo, d)];
    if (truth.rfind(written, 0) != 0 || written.size() < 3) return "wrong weekday " + written;
    return iso(y, mo, d);
  }
  return "";
}

}  // namespace

TEST(TrainTasks, WeekdaysAreTheCalendarsOnes) {
  EXPECT_EQ(weekday(2026, 11, 22), 6);  // Sunday 22 November 2026 (the example)
  EXPECT_EQ(weekday(1970, 1, 1), 3);    // Thursday
  EXPECT_EQ(weekday(2000, 2, 29), 1);   // Tuesday
  EXPECT_EQ(weekday(1950, 1, 1), 6);    // Sunday
  EXPECT_EQ(days_in_month(2000, 2), 29);
  EXPECT_EQ(days_in_month(1900, 2), 28);
  EXPECT_EQ(days_in_month(2024, 2), 29);
  for (int y = 1950; y < 2050; y += 7)
    for (int m = 1; m <= 12; ++m)
      for (int d = 1; d <= days_in_month(y, m); d += 5) ASSERT_EQ(weekday(y, m, d), zeller(y, m, d));
}

TEST(TrainTasks, EveryDateExampleReadsBackToItsTarget) {
  auto task = make_task("dates");
  EXPECT_EQ(task->arch(), Arch::EncoderDecoder);
  Rng rng(3);
  std::map<std::string, int> kinds;
  for (int i = 0; i < 1500; ++i) {
    const Example e = task->sample(rng, i % 2 ? Split::Train : Split::HeldOut);
    ASSERT_EQ(read_date(e.src), e.tgt) << e.kind << ": \"" << e.src << "\"";
    ASSERT_LE(static_cast<int>(e.src.size()), task->max_len());
    ASSERT_TRUE(task->tokenizer().encode(e.src).unknown.empty()) << e.src;
    ++kinds[e.kind];
  }
  EXPECT_EQ(kinds.size(), 14u) << "every format is drawn";
  // The examples are among the formats.
  EXPECT_EQ(read_date("22 Nov 2026"), "2026-11-22");
  EXPECT_EQ(read_date("November 22, 2026"), "2026-11-22");
  EXPECT_EQ(read_date("22/11/2026"), "2026-11-22");
  EXPECT_EQ(read_date("Sunday 22 November 2026"), "2026-11-22");
  EXPECT_EQ(read_date("nov 22 26"), "2026-11-22");
}

TEST(TrainTasks, HeldOutKeysNeverAppearInTraining) {
  for (const char* name : {"sort", "reverse", "dates"}) {
    SCOPED_TRACE(name);
    auto task = make_task(name);
    Rng rng(4);
    std::set<std::string> held;
    for (int i = 0; i < 2000; ++i) {
      const Example e = task->sample(rng, Split::HeldOut);
      held.insert(std::string(name) == "dates" ? e.tgt : e.src);
    }
    for (int i = 0; i < 20000; ++i) {
      const Example e = task->sample(rng, Split::Train);
      ASSERT_EQ(held.count(std::string(name) == "dates" ? e.tgt : e.src), 0u);
    }
  }
}

TEST(TrainTasks, SortAndReverseAreCorrect) {
  for (const char* name : {"sort", "reverse"}) {
    auto task = make_task(name);
    Rng rng(5);
    for (int i = 0; i < 2000; ++i) {
      const Example e = task->sample(rng, Split::Train);
      ASSERT_GE(e.src.size(), 6u);
      ASSERT_LE(e.src.size(), 10u);
      for (char c : e.src) ASSERT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'));
      std::string want = e.src;
      if (std::string(name) == "sort")
        std::sort(want.begin(), want.end());
      else
        std::reverse(want.begin(), want.end());
      ASSERT_EQ(e.tgt, want);
    }
  }
}

TEST(TrainTasks, DecoderOnlyFormatMasksThePrompt) {
  auto task = make_task("sort");
  const Tokenizer& tok = task->tokenizer();
  const EncodedExample e = encode_example(*task, {"ba1", "1ab", ""});
  const int b = tok.id_of("b"), a = tok.id_of("a"), one = tok.id_of("1"), eq = tok.id_of("=");
  // <bos> b a 1 = 1 a b <eos>: inputs drop the last token, targets the first.
  EXPECT_EQ(e.inputs, (std::vector<int>{Tokenizer::kBos, b, a, one, eq, one, a, b}));
  EXPECT_EQ(e.targets, (std::vector<int>{0, 0, 0, 0, one, a, b, Tokenizer::kEos}));
  EXPECT_TRUE(e.src.empty());
  EXPECT_EQ(prompt_ids(*task, "ba1"), (std::vector<int>{Tokenizer::kBos, b, a, one, eq}));
}

TEST(TrainTasks, EncoderDecoderFormatAndPadding) {
  auto task = make_task("dates");
  const Tokenizer& tok = task->tokenizer();
  const EncodedExample e = encode_example(*task, {"nov 2 26", "2026-11-02", ""});
  EXPECT_EQ(e.src, tok.encode("nov 2 26").ids);
  EXPECT_EQ(e.inputs.front(), Tokenizer::kBos);
  EXPECT_EQ(e.inputs.size(), 11u);
  EXPECT_EQ(e.targets.back(), Tokenizer::kEos);
  EXPECT_EQ(e.targets.front(), tok.id_of("2"));  // every decoder position is trained
  const EncodedExample f = encode_example(*task, {"12/3/2001", "2001-03-12", ""});
  const Batch batch = make_batch({e, f});
  EXPECT_EQ(batch.B, 2);
  EXPECT_EQ(batch.S, 9);
  EXPECT_EQ(batch.T, 11);
  EXPECT_EQ(batch.src[8], 0) << "the shorter source is right-padded with <pad>";
  EXPECT_EQ(batch.src[9 + 8], tok.id_of("1"));
  EXPECT_EQ(batch.count_targets(), 22);
}

TEST(TrainTasks, GrammarHasTheCatSatOnTheMatAndAgreement) {
  auto task = make_task("grammar");
  EXPECT_EQ(task->arch(), Arch::DecoderOnly);
  const Tokenizer& tok = task->tokenizer();
  EXPECT_GE(tok.size(), 250);
  EXPECT_LE(tok.size(), 400);
  Rng rng(6);
  bool cat_on_mat = false, river_bank = false, money_bank = false;
  std::map<std::string, int> kinds;
  for (int i = 0; i < 20000; ++i) {
    const Example e = task->sample(rng, Split::Train);
    ASSERT_TRUE(tok.encode(e.tgt).unknown.empty()) << e.tgt;
    ASSERT_LE(static_cast<int>(tok.encode(e.tgt).ids.size()) + 2, task->max_len()) << e.tgt;
    cat_on_mat |= e.tgt == "the cat sat on the mat .";
    const std::vector<std::string> words = tok.split(e.tgt);
    auto has = [&](std::initializer_list<const char*> any) {
      for (const char* w : any)
        if (std::find(words.begin(), words.end(), w) != words.end()) return true;
      return false;
    };
    if (has({"bank", "banks"})) {
      // The sense of "bank" is always signalled by a context word in the same sentence.
      const bool river = has({"river", "rivers", "water", "fish", "fishes", "fished"});
      const bool money = has({"money", "coins", "account"});
      ASSERT_TRUE(river != money) << e.tgt;
      river_bank |= river;
      money_bank |= money;
    }
    ++kinds[e.kind];
  }
  EXPECT_TRUE(cat_on_mat);
  EXPECT_TRUE(river_bank);
  EXPECT_TRUE(money_bank);
  for (const char* k : {"plain", "pp", "subject_rc", "object_rc", "coordination", "bank_river", "bank_money"})
    EXPECT_GT(kinds[k], 100) << k;

  // Agreement probes: singular vs plural forms of the same verb, e.g. "sleeps" / "sleep".
  Rng prng(7);
  const auto pairs = task->agreement_pairs(prng, 400);
  ASSERT_EQ(pairs.size(), 400u);
  std::map<std::string, int> pair_kinds;
  for (const auto& p : pairs) {
    ++pair_kinds[p.kind];
    EXPECT_EQ(p.prefix.front(), Tokenizer::kBos);
    const std::string good = tok.vocab()[static_cast<size_t>(p.good)], bad = tok.vocab()[static_cast<size_t>(p.bad)];
    EXPECT_NE(good, bad);
    const bool be = (good == "is" && bad == "are") || (good == "are" && bad == "is") ||
                    (good == "was" && bad == "were") || (good == "were" && bad == "was");
    const std::string sg = good.size() > bad.size() ? good : bad, pl = good.size() > bad.size() ? bad : good;
    EXPECT_TRUE(be || sg == pl + "s" || sg == pl + "es" ||
                (pl.back() == 'y' && sg == pl.substr(0, pl.size() - 1) + "ies"))
        << p.text;
  }
  EXPECT_EQ(pair_kinds.size(), 4u);
}

TEST(TrainTasks, SameSeedSameData) {
  for (const std::string& name : task_names()) {
    auto task = make_task(name);
    Rng a(9), b(9);
    for (int i = 0; i < 200; ++i) {
      const Example x = task->sample(a, Split::Train), y = task->sample(b, Split::Train);
      ASSERT_EQ(x.src, y.src);
      ASSERT_EQ(x.tgt, y.tgt);
    }
  }
  EXPECT_THROW(make_task("no-such-task"), Error);
}

// mlm: grammar's sentences (the same generator: a fresh stream's first sentence is grammar's,
// in both splits), some words hidden behind [MASK], loss only there.
TEST(TrainTasks, MlmHidesWordsOfGrammarSentences) {
  auto task = make_task("mlm"), grammar = make_task("grammar");
  EXPECT_EQ(task->arch(), Arch::EncoderOnly);
  const Tokenizer& tok = task->tokenizer();
  std::vector<std::string> want = grammar->tokenizer().vocab();
  want.push_back("[MASK]");
  EXPECT_EQ(tok.vocab(), want);
  EXPECT_EQ(task->mask_id(), tok.size() - 1);
  EXPECT_EQ(grammar->mask_id(), -1);

  for (uint64_t seed = 0; seed < 300; ++seed)
    for (Split split : {Split::Train, Split::HeldOut}) {
      Rng a(seed), b(seed);
      const std::string g = grammar->sample(a, split).tgt, m = task->sample(b, split).tgt;
      ASSERT_TRUE(m == g || m + " ." == g) << m << " / " << g;
    }

  Rng rng(12);
  int words = 0, masked = 0, no_period = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const Example e = task->sample(rng, Split::Train);
    const std::vector<std::string> w = tok.split(e.tgt);
    ASSERT_TRUE(tok.encode(e.tgt).unknown.empty()) << e.tgt;
    ASSERT_LE(static_cast<int>(w.size()), task->max_len());
    ASSERT_FALSE(e.masked.empty()) << "at least one hidden word";
    ASSERT_TRUE(std::is_sorted(e.masked.begin(), e.masked.end()));
    for (int at : e.masked) {
      ASSERT_GE(at, 0);
      ASSERT_LT(at, static_cast<int>(w.size()));
      ASSERT_NE(w[static_cast<size_t>(at)], ".") << "the final period is never hidden";
    }
    no_period += w.back() != ".";
    words += static_cast<int>(w.size()) - (w.back() == ".");
    masked += static_cast<int>(e.masked.size());
  }
  const double rate = static_cast<double>(masked) / words, drop = static_cast<double>(no_period) / n;
  std::printf("  mlm training: %.1f%% of words hidden, %.1f%% of sentences without the period\n", 100 * rate,
              100 * drop);
  // 15% per word, plus one forced when none was drawn (0.85^n of sentences of n words).
  EXPECT_GT(rate, 0.15);
  EXPECT_LT(rate, 0.22);
  EXPECT_NEAR(drop, 0.25, 0.02);

  // The format: the sentence's ids, [MASK] at the hidden positions; targets only there.
  Example e{"", "the cat sat on the mat .", "", {1, 4}};
  const EncodedExample x = encode_example(*task, e);
  const int M = task->mask_id();
  EXPECT_EQ(x.inputs, (std::vector<int>{tok.id_of("the"), M, tok.id_of("sat"), tok.id_of("on"), M, tok.id_of("mat"),
                                        tok.id_of(".")}));
  EXPECT_EQ(x.targets, (std::vector<int>{0, tok.id_of("cat"), 0, 0, tok.id_of("the"), 0, 0}));
  EXPECT_TRUE(x.src.empty());

  // Held-out: exactly one hidden word, its class is the example's kind.
  std::map<std::string, int> kinds;
  for (int i = 0; i < 2000; ++i) {
    const Example h = task->sample(rng, Split::HeldOut);
    ASSERT_EQ(h.masked.size(), 1u);
    const std::string word = tok.split(h.tgt)[static_cast<size_t>(h.masked[0])];
    ASSERT_EQ(h.kind, grammar_word_class(word));
    ++kinds[h.kind];
  }
  for (const char* k : {"determiner", "noun", "verb", "adjective", "preposition"}) EXPECT_GT(kinds[k], 50) << k;
}

TEST(TrainTasks, GrammarWordClasses) {
  const char* const word_and_class[][2] = {
      {"the", "determiner"},    {"an", "determiner"},  {"mice", "noun"},     {"bank", "noun"},
      {"sleeps", "verb"},       {"were", "verb"},      {"borrowed", "verb"}, {"hungry", "adjective"},
      {"among", "preposition"}, {"quietly", "adverb"}, {"who", "pronoun"},   {".", "other"},
      {"zebra", "other"},
  };
  for (const auto& [word, cls] : word_and_class) EXPECT_EQ(grammar_word_class(word), cls) << word;
  // Every word of the vocabulary has a class, except the specials, "." and "and".
  auto task = make_task("grammar");
  const auto& vocab = task->tokenizer().vocab();
  for (size_t i = 4; i < vocab.size(); ++i)
    if (vocab[i] != "." && vocab[i] != "and") EXPECT_NE(grammar_word_class(vocab[i]), "other") << vocab[i];
}

// induction: "<bos>" s s with s 6..12 letters: 2n inputs (<bos> and the letters but the last),
// each target the next letter. Targets 0..n-1 (the first copy) cannot be known; targets n..2n-1
// are the repeat's: the first is the string's first letter (inputs[1]), each later one the letter
// that followed the earlier copy of the current one (inputs[at - n + 1]).
TEST(TrainTasks, InductionRepeatsARandomString) {
  auto task = make_task("induction");
  EXPECT_EQ(task->arch(), Arch::DecoderOnly);
  EXPECT_EQ(task->max_len(), 25);
  Rng rng(4);
  std::set<size_t> lengths;
  for (Split split : {Split::Train, Split::HeldOut})
    for (int i = 0; i < 100; ++i) {
      const Example e = task->sample(rng, split);
      const size_t n = e.tgt.size() / 2;
      lengths.insert(n);
      ASSERT_GE(n, 6u);
      ASSERT_LE(n, 12u);
      EXPECT_EQ(e.tgt.substr(0, n), e.tgt.substr(n));
      const EncodedExample x = encode_example(*task, e);
      ASSERT_EQ(x.inputs.size(), 2 * n) << "<bos> and the letters but the last: no <eos> follows";
      ASSERT_EQ(x.targets.size(), 2 * n);
      EXPECT_EQ(x.inputs[0], task->tokenizer().bos_id());
      for (size_t at = 0; at < 2 * n; ++at) {
        EXPECT_EQ(x.targets[at], task->tokenizer().encode(e.tgt.substr(at, 1)).ids[0]);
        EXPECT_EQ(task->token_kind(e, static_cast<int>(at)), at < n ? "first pass" : "repeat");
        if (at >= n) EXPECT_EQ(x.targets[at], x.inputs[at - n + 1]) << "the letter after the earlier copy";
      }
    }
  EXPECT_EQ(lengths.size(), 7u) << "every length from 6 to 12";
}
