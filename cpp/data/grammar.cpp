// The grammar task: a small probabilistic English of about 330 words. Subjects are singular
// or plural and the present-tense verb (and was/were) agrees with the subject's head noun,
// also across a prepositional phrase or a relative clause whose noun has the other number
// ("the cat near the dogs sleeps"). "bank" is ambiguous: river sentences carry river words,
// money sentences carry money words. "the cat sat on the mat ." is one of its sentences.
#include <algorithm>
#include <string>
#include <vector>

#include "base/tensor.hpp"
#include "data/tasks.hpp"

namespace ap::train {

namespace {

struct Noun {
  const char* sg;
  const char* pl;
};
struct Verb {
  const char* sg;
  const char* pl;
  const char* past;
};

const Noun kAnimate[] = {{"cat", "cats"},           {"dog", "dogs"},       {"bird", "birds"},
                         {"boy", "boys"},           {"girl", "girls"},     {"man", "men"},
                         {"woman", "women"},        {"child", "children"}, {"teacher", "teachers"},
                         {"student", "students"},   {"farmer", "farmers"}, {"doctor", "doctors"},
                         {"king", "kings"},         {"queen", "queens"},   {"fisherman", "fishermen"},
                         {"baker", "bakers"},       {"horse", "horses"},   {"mouse", "mice"},
                         {"fox", "foxes"},          {"duck", "ducks"},     {"friend", "friends"},
                         {"neighbor", "neighbors"}, {"sailor", "sailors"}, {"artist", "artists"},
                         {"lawyer", "lawyers"},     {"pilot", "pilots"},   {"nurse", "nurses"},
                         {"rabbit", "rabbits"},     {"cow", "cows"},       {"uncle", "uncles"}};
// Places (where things sit and happen) and portable objects.
const Noun kPlaces[] = {{"mat", "mats"},       {"table", "tables"},  {"chair", "chairs"},     {"house", "houses"},
                        {"garden", "gardens"}, {"tree", "trees"},    {"box", "boxes"},        {"car", "cars"},
                        {"bed", "beds"},       {"field", "fields"},  {"wall", "walls"},       {"bridge", "bridges"},
                        {"boat", "boats"},     {"river", "rivers"},  {"lake", "lakes"},       {"shop", "shops"},
                        {"school", "schools"}, {"city", "cities"},   {"village", "villages"}, {"road", "roads"},
                        {"hill", "hills"},     {"park", "parks"},    {"rug", "rugs"},         {"sofa", "sofas"},
                        {"door", "doors"},     {"window", "windows"}};
const Noun kObjects[] = {{"book", "books"}, {"letter", "letters"}, {"ball", "balls"}, {"hat", "hats"},
                         {"cake", "cakes"}, {"apple", "apples"},   {"song", "songs"}, {"picture", "pictures"}};
const Verb kIntransitive[] = {
    {"sleeps", "sleep", "slept"},   {"runs", "run", "ran"},        {"sits", "sit", "sat"},
    {"walks", "walk", "walked"},    {"sings", "sing", "sang"},     {"waits", "wait", "waited"},
    {"laughs", "laugh", "laughed"}, {"smiles", "smile", "smiled"}, {"jumps", "jump", "jumped"},
    {"swims", "swim", "swam"},      {"dances", "dance", "danced"}, {"plays", "play", "played"},
    {"works", "work", "worked"},    {"rests", "rest", "rested"},   {"stands", "stand", "stood"},
    {"hides", "hide", "hid"}};
// What a transitive verb takes as its object, so sentences stay sensible ("eats the cake").
enum ObjectClass { kAnyObject, kAnimateObject, kPortable, kBuildable, kFood, kPaintable };
struct TransitiveVerb {
  Verb v;
  ObjectClass obj;
};
const TransitiveVerb kTransitive[] = {{{"sees", "see", "saw"}, kAnyObject},
                                      {{"likes", "like", "liked"}, kAnyObject},
                                      {{"chases", "chase", "chased"}, kAnimateObject},
                                      {{"finds", "find", "found"}, kAnyObject},
                                      {{"watches", "watch", "watched"}, kAnyObject},
                                      {{"helps", "help", "helped"}, kAnimateObject},
                                      {{"follows", "follow", "followed"}, kAnimateObject},
                                      {{"visits", "visit", "visited"}, kAnimateObject},
                                      {{"carries", "carry", "carried"}, kPortable},
                                      {{"paints", "paint", "painted"}, kPaintable},
                                      {{"holds", "hold", "held"}, kPortable},
                                      {{"wants", "want", "wanted"}, kAnyObject},
                                      {{"loves", "love", "loved"}, kAnyObject},
                                      {{"knows", "know", "knew"}, kAnimateObject},
                                      {{"meets", "meet", "met"}, kAnimateObject},
                                      {{"takes", "take", "took"}, kPortable},
                                      {{"buys", "buy", "bought"}, kPortable},
                                      {{"builds", "build", "built"}, kBuildable},
                                      {{"eats", "eat", "ate"}, kFood},
                                      {{"calls", "call", "called"}, kAnimateObject}};
const Verb kBe = {"is", "are", "was"};  // past plural "were" handled by past_form()
// Adjectives for anything, and those only for people and animals.
const char* const kAdjectives[] = {"big",  "small",  "old",   "red",   "blue", "green",
                                   "tall", "little", "black", "white", "brown"};
const char* const kAnimateAdjectives[] = {"young",  "happy", "sad",  "quiet", "loud", "hungry", "tired",
                                          "clever", "brave", "kind", "lazy",  "busy", "angry"};
const char* const kDetSg[] = {"the",   "the", "the", "the", "a",   "a",     "this",
                              "every", "my",  "his", "her", "our", "their", "one"};
const char* const kDetPl[] = {"the", "the",   "the", "the", "these", "those", "some", "many",
                              "two", "three", "my",  "his", "her",   "our",   "their"};
const char* const kPlacePreps[] = {"on", "in", "near", "under", "behind", "beside", "by", "over", "across", "along"};
const char* const kModPreps[] = {"near", "with", "behind", "beside", "from", "among"};
const char* const kAdverbs[] = {"quickly", "slowly", "often", "again", "today", "quietly", "happily"};

template <typename T, size_t N>
const T& pick(Rng& rng, const T (&list)[N]) {
  return list[rng.below(static_cast<int>(N))];
}

using Words = std::vector<std::string>;

void append(Words& out, const Words& more) { out.insert(out.end(), more.begin(), more.end()); }

std::string join(const Words& w) {
  std::string s;
  for (size_t i = 0; i < w.size(); ++i) s += (i ? " " : "") + w[i];
  return s;
}

// "a" before a vowel sound is "an" (every word here starts with its sound's letter).
void fix_articles(Words& w) {
  for (size_t i = 0; i + 1 < w.size(); ++i)
    if (w[i] == "a" && std::string("aeiou").find(w[i + 1][0]) != std::string::npos) w[i] = "an";
}

enum Tense { kPresent, kPast };

const char* verb_form(const Verb& v, bool plural, Tense tense) {
  if (tense == kPast) return (&v == &kBe) ? (plural ? "were" : "was") : v.past;
  return plural ? v.pl : v.sg;
}

bool is_animate(const Noun& n) { return &n >= std::begin(kAnimate) && &n < std::end(kAnimate); }

Words noun_phrase(Rng& rng, const Noun& n, bool plural, double p_adj) {
  Words w = {plural ? pick(rng, kDetPl) : pick(rng, kDetSg)};
  if (rng.chance(p_adj))
    w.push_back(is_animate(n) && rng.chance(0.6) ? pick(rng, kAnimateAdjectives) : pick(rng, kAdjectives));
  w.push_back(plural ? n.pl : n.sg);
  return w;
}
const Noun& any_noun(Rng& rng) {
  const int a = static_cast<int>(std::size(kAnimate)), p = static_cast<int>(std::size(kPlaces));
  const int i = rng.below(a + p + static_cast<int>(std::size(kObjects)));
  return i < a ? kAnimate[i] : i < a + p ? kPlaces[i - a] : kObjects[i - a - p];
}
const Noun& object_noun(Rng& rng, ObjectClass c) {
  static const Noun* const portable[] = {&kPlaces[6],  &kObjects[0], &kObjects[1], &kObjects[2],
                                         &kObjects[3], &kObjects[4], &kObjects[5], &kObjects[7]};
  static const Noun* const buildable[] = {&kPlaces[3], &kPlaces[10], &kPlaces[11], &kPlaces[12],
                                          &kPlaces[1], &kPlaces[2],  &kPlaces[6]};
  static const Noun* const food[] = {&kObjects[4], &kObjects[5]};
  static const Noun* const paintable[] = {&kObjects[7], &kPlaces[3], &kPlaces[10], &kPlaces[24],
                                          &kPlaces[12], &kPlaces[2], &kPlaces[1],  &kPlaces[7]};
  switch (c) {
    case kAnimateObject:
      return pick(rng, kAnimate);
    case kPortable:
      return *pick(rng, portable);
    case kBuildable:
      return *pick(rng, buildable);
    case kFood:
      return *pick(rng, food);
    case kPaintable:
      return *pick(rng, paintable);
    case kAnyObject:
      break;
  }
  return any_noun(rng);
}
Words object_phrase(Rng& rng, const TransitiveVerb& v, bool plural, double p_adj) {
  return noun_phrase(rng, object_noun(rng, v.obj), plural, p_adj);
}
Words place_phrase(Rng& rng) {
  Words w = {pick(rng, kPlacePreps)};
  // One draw per statement: the order of a call's arguments is unspecified in C++ (GCC draws
  // the last argument first, clang the first), and the data must be the same natively and in wasm.
  const bool plural = rng.chance(0.3);
  append(w, noun_phrase(rng, pick(rng, kPlaces), plural, 0.2));
  return w;
}

// What follows the subject's head noun. `kind` names it for the agreement report.
enum Modifier { kNone, kPP, kSubjectRC, kObjectRC };

Words subject_phrase(Rng& rng, bool plural, Modifier mod, bool attractor_opposite, double p_adj) {
  Words w = noun_phrase(rng, pick(rng, kAnimate), plural, p_adj);
  const bool other = attractor_opposite ? !plural : rng.chance(0.5);  // the intervening noun's number
  const Tense tense = rng.chance(0.6) ? kPresent : kPast;
  switch (mod) {
    case kNone:
      break;
    case kPP:  // the cat near the dogs
      w.push_back(pick(rng, kModPreps));
      append(w, noun_phrase(rng, any_noun(rng), other, 0.2));
      break;
    case kSubjectRC: {  // the boy who likes the dogs: the inner verb agrees with the head noun
      const TransitiveVerb& v = pick(rng, kTransitive);
      w.push_back("who");
      w.push_back(verb_form(v.v, plural, tense));
      append(w, object_phrase(rng, v, other, 0.2));
      break;
    }
    case kObjectRC: {  // the cat that the dogs chase: the inner verb agrees with the inner subject
      const TransitiveVerb* v = &pick(rng, kTransitive);
      while (v->obj != kAnimateObject && v->obj != kAnyObject) v = &pick(rng, kTransitive);
      w.push_back("that");
      append(w, noun_phrase(rng, pick(rng, kAnimate), other, 0.2));
      w.push_back(verb_form(v->v, other, tense));
      break;
    }
  }
  return w;
}

Modifier random_modifier(Rng& rng) {
  const double u = rng.unit();
  return u < 0.5 ? kNone : u < 0.75 ? kPP : u < 0.9 ? kSubjectRC : kObjectRC;
}

Words verb_phrase(Rng& rng, bool plural, Tense tense) {
  Words w;
  const double u = rng.unit();
  if (u < 0.4) {  // sat on the mat
    w.push_back(verb_form(pick(rng, kIntransitive), plural, tense));
    if (rng.chance(0.6)) append(w, place_phrase(rng));
    if (rng.chance(0.2)) w.push_back(pick(rng, kAdverbs));
  } else if (u < 0.8) {  // chased the small dogs
    const TransitiveVerb& v = pick(rng, kTransitive);
    w.push_back(verb_form(v.v, plural, tense));
    append(w, object_phrase(rng, v, rng.chance(0.4), 0.3));
    if (rng.chance(0.15)) append(w, place_phrase(rng));
  } else if (u < 0.9) {  // is happy
    w.push_back(verb_form(kBe, plural, tense));
    w.push_back(rng.chance(0.6) ? pick(rng, kAnimateAdjectives) : pick(rng, kAdjectives));
  } else {  // are in the garden
    w.push_back(verb_form(kBe, plural, tense));
    append(w, place_phrase(rng));
  }
  return w;
}

// Sentences with "bank": its sense is carried by river or money words in the same sentence.
Words bank_sentence(Rng& rng, bool plural, Tense tense, Words subject, std::string& kind) {
  Words w;
  const bool river = rng.chance(0.5);
  kind = river ? "bank_river" : "bank_money";
  const Verb kFish = {"fishes", "fish", "fished"}, kKeep = {"keeps", "keep", "kept"},
             kOpen = {"opens", "open", "opened"}, kBorrow = {"borrows", "borrow", "borrowed"},
             kLend = {"lends", "lend", "lent"}, kFlood = {"floods", "flood", "flooded"};
  const int form = rng.below(4);
  auto subj = [&](const Verb& v) {
    append(w, subject);
    w.push_back(verb_form(v, plural, tense));
  };
  if (river) {
    if (form == 0) {
      subj(kIntransitive[rng.chance(0.5) ? 2 : 14]);  // sits / stands
      append(w, {"on", "the", "bank", "of", "the", "river"});
    } else if (form == 1) {
      subj(kFish);
      append(w, {"from", "the", "bank"});
    } else if (form == 2) {
      subj(kIntransitive[3]);  // walks
      append(w, {"along", "the", "bank", "by", "the", "water"});
    } else {
      w = {"the", plural ? "rivers" : "river"};
      w.push_back(verb_form(kFlood, plural, tense));
      append(w, {"the", "bank"});
    }
  } else {
    if (form == 0) {
      subj(kKeep);
      append(w, {rng.chance(0.5) ? "money" : "coins", "in", "the", "bank"});
    } else if (form == 1) {
      subj(kOpen);
      append(w, {"an", "account", "at", "the", "bank"});
    } else if (form == 2) {
      subj(kBorrow);
      append(w, {"money", "from", "the", "bank"});
    } else {
      w = {"the", plural ? "banks" : "bank"};
      w.push_back(verb_form(kLend, plural, tense));
      w.push_back("money");
      append(w, {"to", "the", rng.chance(0.5) ? "farmer" : "farmers"});
    }
  }
  return w;
}

class GrammarTask : public Task {
 public:
  GrammarTask() {
    Words pieces = {"."};
    auto add = [&](const std::string& word) { add_piece(pieces, word); };
    for (const char* w :
         {"the",   "a",    "an",   "this", "every", "my",  "his",  "her", "our", "their", "one", "these",
          "those", "some", "many", "two",  "three", "who", "that", "and", "is",  "are",   "was", "were"})
      add(w);
    for (const auto& n : kAnimate) {
      add(n.sg);
      add(n.pl);
    }
    for (const auto& n : kPlaces) {
      add(n.sg);
      add(n.pl);
    }
    for (const auto& n : kObjects) {
      add(n.sg);
      add(n.pl);
    }
    for (const auto& v : kIntransitive) {
      add(v.sg);
      add(v.pl);
      add(v.past);
    }
    for (const auto& v : kTransitive) {
      add(v.v.sg);
      add(v.v.pl);
      add(v.v.past);
    }
    for (const char* w : kAdjectives) add(w);
    for (const char* w : kAnimateAdjectives) add(w);
    for (const char* w : kPlacePreps) add(w);
    for (const char* w : kModPreps) add(w);
    for (const char* w : kAdverbs) add(w);
    for (const char* w : {"bank",    "banks",  "of",       "to",    "at",   "water", "money",  "coins", "account",
                          "fishes",  "fish",   "fished",   "keeps", "keep", "kept",  "opens",  "open",  "opened",
                          "borrows", "borrow", "borrowed", "lends", "lend", "lent",  "floods", "flood", "flooded"})
      add(w);
    tok_ = Tokenizer(Tokenizer::Kind::Word, Tokenizer::with_specials(pieces));
  }
  std::string name() const override { return "grammar"; }
  Arch arch() const override { return Arch::DecoderOnly; }
  int max_len() const override { return 32; }

  Example sample(Rng& rng, Split split) const override {
    // The lecture's sentences (all of them sentences of the grammar) come up often enough for
    // the model to know them well; their bare subjects are never held out.
    static const char* const kLecture[] = {"the cat sat on the mat .",
                                           "the dog sat on the mat .",
                                           "the cats sat on the mats .",
                                           "the cat chased the mouse .",
                                           "the dog chased the cat .",
                                           "the fisherman sat on the bank of the river .",
                                           "the farmer keeps money in the bank .",
                                           "the girl kept coins in the bank ."};
    if (split == Split::Train && rng.chance(0.02)) return {"", pick(rng, kLecture), "lecture", {}, {}, false};
    for (;;) {
      const bool plural = rng.chance(0.5);
      const Tense tense = rng.chance(0.6) ? kPresent : kPast;
      Words subject;
      std::string kind = "plain";
      if (rng.chance(0.08)) {  // coordination: "the cat and the dog" takes a plural verb
        // Number before noun: the order GCC evaluated these arguments in when the shipped
        // models were trained (see place_phrase).
        const bool first_plural = rng.chance(0.5);
        subject = noun_phrase(rng, pick(rng, kAnimate), first_plural, 0.2);
        subject.push_back("and");
        const bool second_plural = rng.chance(0.5);
        append(subject, noun_phrase(rng, pick(rng, kAnimate), second_plural, 0.2));
        kind = "coordination";
      } else {
        const Modifier mod = random_modifier(rng);
        subject = subject_phrase(rng, plural, mod, false, 0.3);
        kind = mod == kNone ? "plain" : mod == kPP ? "pp" : mod == kSubjectRC ? "subject_rc" : "object_rc";
      }
      const bool subject_plural = plural || kind == "coordination";
      if (held_out(subject) != (split == Split::HeldOut)) continue;
      const bool bank = rng.chance(0.12);
      // A bank sentence's only sense cue is its own context words: no river in its subject.
      if (bank && std::find_if(subject.begin(), subject.end(),
                               [](const std::string& x) { return x == "river" || x == "rivers"; }) != subject.end())
        continue;
      Words w;
      if (bank) {
        w = bank_sentence(rng, subject_plural, tense, subject, kind);
      } else {
        w = subject;
        append(w, verb_phrase(rng, subject_plural, tense));
      }
      fix_articles(w);
      w.push_back(".");
      return {"", join(w), kind, {}, {}, false};
    }
  }

  std::vector<AgreementPair> agreement_pairs(Rng& rng, int count) const override {
    const char* kinds[] = {"simple", "pp_attractor", "subject_rc_attractor", "object_rc_attractor"};
    const Modifier mods[] = {kNone, kPP, kSubjectRC, kObjectRC};
    std::vector<AgreementPair> pairs;
    while (static_cast<int>(pairs.size()) < count) {
      const int k = static_cast<int>(pairs.size()) % 4;
      const bool plural = rng.chance(0.5);
      // The intervening noun has the other number: a model that agrees with the nearest
      // noun gets these wrong. Simple subjects always carry an adjective (see held_out).
      Words subject = subject_phrase(rng, plural, mods[k], true, k == 0 ? 1.0 : 0.3);
      if (!held_out(subject)) continue;
      fix_articles(subject);
      const double u = rng.unit();
      const Verb& v = u < 0.4 ? pick(rng, kIntransitive) : u < 0.8 ? pick(rng, kTransitive).v : kBe;
      const Tense tense = (&v == &kBe && rng.chance(0.5)) ? kPast : kPresent;
      AgreementPair p;
      p.prefix = {Tokenizer::kBos};
      for (int id : tok_.encode(join(subject)).ids) p.prefix.push_back(id);
      p.good = tok_.id_of(verb_form(v, plural, tense));
      p.bad = tok_.id_of(verb_form(v, !plural, tense));
      p.kind = kinds[k];
      p.text = join(subject) + " [" + verb_form(v, plural, tense) + " | " + verb_form(v, !plural, tense) + "]";
      pairs.push_back(std::move(p));
    }
    return pairs;
  }

 private:
  // Held-out subjects: one in ten subject phrases that have an adjective or a modifier (a bare
  // "the cat" is never held out, so "the cat sat on the mat ." stays in the training data).
  static bool held_out(const Words& subject) {
    if (subject.size() <= 2) return false;
    const std::string s = join(subject);
    return hash_string(s.data(), s.size()) % 10 == 0;
  }
};

}  // namespace

std::string grammar_word_class(const std::string& word) {
  auto in = [&](const auto& list, auto&& words_of) {
    for (const auto& x : list)
      for (const char* w : words_of(x))
        if (word == w) return true;
    return false;
  };
  using L = std::vector<const char*>;  // a vector: an initializer_list must not be returned
  auto one = [](const char* w) { return L{w}; };
  auto noun = [](const Noun& n) { return L{n.sg, n.pl}; };
  auto verb = [](const Verb& v) { return L{v.sg, v.pl, v.past}; };
  if (in(kDetSg, one) || in(kDetPl, one) || word == "an") return "determiner";
  if (in(kAnimate, noun) || in(kPlaces, noun) || in(kObjects, noun) ||
      in(L{"bank", "banks", "water", "money", "coins", "account"}, one))
    return "noun";
  if (in(kIntransitive, verb) ||
      in(kTransitive,
         [](const TransitiveVerb& v) {
           return L{v.v.sg, v.v.pl, v.v.past};
         }) ||
      in(L{"is",   "are",    "was",     "were",   "fishes",   "fish",  "fished", "keeps", "keep",   "kept",  "opens",
           "open", "opened", "borrows", "borrow", "borrowed", "lends", "lend",   "lent",  "floods", "flood", "flooded"},
         one))
    return "verb";
  if (in(kAdjectives, one) || in(kAnimateAdjectives, one)) return "adjective";
  if (in(kPlacePreps, one) || in(kModPreps, one) || in(L{"of", "to", "at"}, one)) return "preposition";
  if (in(kAdverbs, one)) return "adverb";
  if (word == "who" || word == "that") return "pronoun";
  return "other";
}

std::unique_ptr<Task> make_grammar_task() { return std::make_unique<GrammarTask>(); }

}  // namespace ap::train
