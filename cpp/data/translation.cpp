// The translate task: a toy English -> French grammar that covers the lecture's alignment
// sentence (004) and its two "bank" sentences. French puts adjectives after the noun, in the
// reverse order ("the European Economic Area" -> "la zone économique européenne"), agrees
// articles, adjectives, possessives and participles in gender and number, elides (l', j', s')
// and contracts (au, du), and has its own months. Limits: one tense per pattern, "I" is
// masculine, and the meaning of a sentence is not checked (any document may be "ratified").
//
// Three sentence patterns (the example's kind):
//   document: "The agreement on the European Economic Area was signed in August 1992."
//             -> "L'accord sur la zone économique européenne a été signé en août 1992."
//   went:     "I went to the bank to deposit my check." -> "Je suis allé à la banque pour déposer mon chèque."
//   by:       "I sat by the river bank." -> "Je me suis assis près de la rive."
// "bank" alone is always la banque; "river bank" is always la rive, so the encoder must read
// the word before "bank" to translate it.
// Held-out key: the sentence without its date (document) or the whole sentence (went, by);
// one bucket in 10 is held out, never the lecture's three sentences.
#include <string>
#include <vector>

#include "base/tensor.hpp"
#include "data/tasks.hpp"

namespace ap::train {

namespace {

template <typename T, size_t N>
const T& pick(Rng& rng, const T (&list)[N]) {
  return list[rng.below(static_cast<int>(N))];
}

using Words = std::vector<std::string>;

const char* const kNotesEnglish = "The agreement on the European Economic Area was signed in August 1992.";
const char* const kNotesFrench = "L'accord sur la zone économique européenne a été signé en août 1992.";
const char* const kBankMoneyEnglish = "I went to the bank to deposit my check.";
const char* const kBankMoneyFrench = "Je suis allé à la banque pour déposer mon chèque.";
const char* const kBankRiverEnglish = "I sat by the river bank.";
const char* const kBankRiverFrench = "Je me suis assis près de la rive.";

// ---- document: "The <doc> [<prep> the <adj>* <body>] was <verb> in [<month>] <year>." ----

struct Noun {
  const char* en_sg;
  const char* en_pl;
  const char* fr_sg;
  const char* fr_pl;
  bool fem;
};
const Noun kDocs[] = {
    {"agreement", "agreements", "accord", "accords", false},
    {"treaty", "treaties", "traité", "traités", false},
    {"contract", "contracts", "contrat", "contrats", false},
    {"report", "reports", "rapport", "rapports", false},
    {"law", "laws", "loi", "lois", true},
    {"convention", "conventions", "convention", "conventions", true},
    {"decision", "decisions", "décision", "décisions", true},
    {"declaration", "declarations", "déclaration", "déclarations", true},
    {"budget", "budgets", "budget", "budgets", false},
    {"plan", "plans", "plan", "plans", false},
};
const Noun kBodies[] = {
    // singular only
    {"area", "", "zone", "", true},
    {"market", "", "marché", "", false},
    {"union", "", "union", "", true},
    {"bank", "", "banque", "", true},
    {"community", "", "communauté", "", true},
    {"council", "", "conseil", "", false},
    {"parliament", "", "parlement", "", false},
    {"commission", "", "commission", "", true},
    {"policy", "", "politique", "", true},
    {"fund", "", "fonds", "", false},
    {"space", "", "espace", "", false},
};
struct Adj {
  const char* en;
  const char* fr_m;
  const char* fr_f;
};
const Adj kAdjs[] = {
    {"european", "européen", "européenne"},   {"economic", "économique", "économique"},
    {"central", "central", "centrale"},       {"common", "commun", "commune"},
    {"social", "social", "sociale"},          {"monetary", "monétaire", "monétaire"},
    {"national", "national", "nationale"},    {"agricultural", "agricole", "agricole"},
    {"financial", "financier", "financière"}, {"free", "libre", "libre"},
    {"single", "unique", "unique"},
};
const char* const kPreps[][2] = {{"on", "sur"}, {"with", "avec"}, {"for", "pour"}, {"against", "contre"}};
const char* const kParticiples[][2] = {
    {"signed", "signé"},      {"adopted", "adopté"},     {"approved", "approuvé"}, {"published", "publié"},
    {"rejected", "rejeté"},   {"presented", "présenté"}, {"discussed", "discuté"}, {"prepared", "préparé"},
    {"announced", "annoncé"}, {"ratified", "ratifié"},   {"changed", "modifié"},   {"accepted", "accepté"},
};
const char* const kMonths[12][2] = {
    {"january", "janvier"}, {"february", "février"},  {"march", "mars"},
    {"april", "avril"},     {"may", "mai"},           {"june", "juin"},
    {"july", "juillet"},    {"august", "août"},       {"september", "septembre"},
    {"october", "octobre"}, {"november", "novembre"}, {"december", "décembre"},
};
constexpr int kFirstYear = 1950, kLastYear = 2029;

// ---- went / by: subjects and their French verb forms ----

// Subjects: I, he, she, we, they (English, French, possessive en, fr m / f / plural).
struct Subject {
  const char* en;
  const char* fr;
  const char* poss_en;
  const char* poss_m;
  const char* poss_f;
  const char* poss_pl;
  bool fem;
  bool plural;
};
const Subject kSubjects[] = {
    {"i", "je", "my", "mon", "ma", "mes", false, false},
    {"he", "il", "his", "son", "sa", "ses", false, false},
    {"she", "elle", "her", "son", "sa", "ses", true, false},
    {"we", "nous", "our", "notre", "notre", "nos", false, true},
    {"they", "ils", "their", "leur", "leur", "leurs", false, true},
};
// Passé composé: avoir + participle, être + agreeing participle, or reflexive être.
enum class Aux { Avoir, Etre, Reflexive };
struct Verb {
  const char* en;
  Aux aux;
  const char* participle;
};
const Verb kWent = {"went", Aux::Etre, "allé"};
const Verb kByVerbs[] = {
    {"sat", Aux::Reflexive, "assis"}, {"stopped", Aux::Reflexive, "arrêté"}, {"slept", Aux::Avoir, "dormi"},
    {"walked", Aux::Avoir, "marché"}, {"waited", Aux::Avoir, "attendu"},     {"stayed", Aux::Etre, "resté"},
};
// Places "by the ...": English words, French noun, gender (the French side reads "près de la rive").
struct Place {
  const char* en;
  const char* fr;
  bool fem;
};
const Place kByPlaces[] = {
    {"river bank", "rive", true}, {"river", "rivière", true}, {"lake", "lac", false}, {"road", "route", true},
    {"bridge", "pont", false},    {"tree", "arbre", false},   {"sea", "mer", true},
};
const Place kWentPlaces[] = {
    {"bank", "banque", true},  {"market", "marché", false},  {"office", "bureau", false},
    {"station", "gare", true}, {"river bank", "rive", true},
};
// Purposes "to <verb> <poss> <object>" (any place but the river bank).
const char* const kPurposeVerbs[][2] = {
    {"deposit", "déposer"}, {"cash", "encaisser"}, {"collect", "récupérer"}, {"count", "compter"}};
struct Obj {
  const char* en;
  const char* fr;
  bool fem;
  bool plural;
};
const Obj kObjects[] = {
    {"check", "chèque", false, false}, {"money", "argent", false, false},    {"salary", "salaire", false, false},
    {"coins", "pièces", true, true},   {"savings", "économies", true, true}, {"card", "carte", true, false},
};
// The river bank's purposes, without an object.
const char* const kRiverPurposes[][2] = {{"fish", "pêcher"}, {"swim", "nager"}, {"read", "lire"}};

bool starts_with_vowel(const std::string& w) {
  static const char* const kVowels[] = {"a", "e", "i", "o", "u", "é", "è", "ê", "â", "î", "ô"};
  for (const char* v : kVowels)
    if (w.rfind(v, 0) == 0) return true;
  return false;
}

std::string agree(std::string participle, bool fem, bool plural) {
  if (fem) participle += "e";
  if (plural && participle.back() != 's') participle += "s";
  return participle;
}

// French spelling rules on a word list: de le -> du, à le -> au, de les -> des, and elision of
// je, me, se, le, la, de before a vowel (je ai -> j' ai, le accord -> l' accord).
Words french_spelling(const Words& in) {
  Words out;
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string& w = in[i];
    const std::string next = i + 1 < in.size() ? in[i + 1] : "";
    if ((w == "de" || w == "à") && next == "le") {
      out.push_back(w == "de" ? "du" : "au");
      ++i;
      if (i + 1 < in.size() && starts_with_vowel(in[i + 1])) {  // de l'arbre, à l'arbre
        out.back() = w;
        out.push_back("l'");
      }
      continue;
    }
    if ((w == "je" || w == "me" || w == "se" || w == "le" || w == "la" || w == "de") && starts_with_vowel(next)) {
      out.push_back(w.substr(0, 1) + "'");
      continue;
    }
    out.push_back(w);
  }
  return out;
}

// Joins words as the sentence tokenizer decodes them: no space after an elided word or before
// the final ".", first letter capitalised.
std::string sentence(const Words& words) {
  std::string s;
  for (const std::string& w : words) {
    if (!s.empty() && w != "." && s.back() != '\'') s += ' ';
    s += w;
  }
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

Words french_verb(const Subject& s, const Verb& v) {
  switch (v.aux) {
    case Aux::Avoir: {
      static const char* const kAvoir[] = {"ai", "a", "a", "avons", "ont"};
      return {kAvoir[&s - kSubjects], v.participle};
    }
    case Aux::Etre: {
      static const char* const kEtre[] = {"suis", "est", "est", "sommes", "sont"};
      return {kEtre[&s - kSubjects], agree(v.participle, s.fem, s.plural)};
    }
    case Aux::Reflexive: {
      static const char* const kPronoun[] = {"me", "se", "se", "nous", "se"};
      static const char* const kEtre[] = {"suis", "est", "est", "sommes", "sont"};
      return {kPronoun[&s - kSubjects], kEtre[&s - kSubjects], agree(v.participle, s.fem, s.plural)};
    }
  }
  return {};
}

struct Pair {
  Words en, fr;
  std::string key, kind;
};

Pair document(Rng& rng) {
  Pair p;
  p.kind = "document";
  const Noun& doc = pick(rng, kDocs);
  const bool plural = rng.chance(0.3);
  p.en = {"the", plural ? doc.en_pl : doc.en_sg};
  p.fr = {plural ? "les" : doc.fem ? "la" : "le", plural ? doc.fr_pl : doc.fr_sg};
  if (rng.chance(0.85)) {
    const auto& prep = pick(rng, kPreps);
    const Noun& body = pick(rng, kBodies);
    const int n_adj = rng.chance(0.2) ? 0 : rng.chance(0.5) ? 1 : 2;
    std::vector<const Adj*> adjs;
    while (static_cast<int>(adjs.size()) < n_adj) {
      const Adj* a = &pick(rng, kAdjs);
      if (adjs.empty() || adjs[0] != a) adjs.push_back(a);
    }
    p.en.push_back(prep[0]);
    p.en.push_back("the");
    for (const Adj* a : adjs) p.en.push_back(a->en);
    p.en.push_back(body.en_sg);
    p.fr.push_back(prep[1]);
    p.fr.push_back(body.fem ? "la" : "le");
    p.fr.push_back(body.fr_sg);
    for (auto it = adjs.rbegin(); it != adjs.rend(); ++it) p.fr.push_back(body.fem ? (*it)->fr_f : (*it)->fr_m);
  }
  const auto& verb = pick(rng, kParticiples);
  p.en.push_back(plural ? "were" : "was");
  p.en.push_back(verb[0]);
  p.fr.push_back(plural ? "ont" : "a");
  p.fr.push_back("été");
  p.fr.push_back(agree(verb[1], doc.fem, plural));
  for (const auto& w : p.en) p.key += w + " ";
  p.en.push_back("in");
  p.fr.push_back("en");
  if (rng.chance(0.8)) {
    const auto& month = kMonths[rng.below(12)];
    p.en.push_back(month[0]);
    p.fr.push_back(month[1]);
  }
  const std::string year = std::to_string(rng.between(kFirstYear, kLastYear));
  p.en.push_back(year);
  p.fr.push_back(year);
  return p;
}

Words split_words(const char* s) {
  Words w;
  std::string cur;
  for (const char* c = s;; ++c) {
    if (*c == ' ' || *c == '\0') {
      if (!cur.empty()) w.push_back(cur);
      cur.clear();
      if (*c == '\0') break;
    } else {
      cur += *c;
    }
  }
  return w;
}

// The start both went and by share: "<subject> <verb> <prep> the <place>" and its French
// "<subject> <verb forms> <prep fr> la|le <place>" (prep_fr may be two words: "près de").
void subject_verb_place(Pair& p, const Subject& s, const Verb& verb, const char* prep_en, const Place& place,
                        const char* prep_fr) {
  p.en = {s.en, verb.en, prep_en, "the"};
  for (const auto& w : split_words(place.en)) p.en.push_back(w);
  p.fr = {s.fr};
  for (const auto& w : french_verb(s, verb)) p.fr.push_back(w);
  for (const auto& w : split_words(prep_fr)) p.fr.push_back(w);
  p.fr.push_back(place.fem ? "la" : "le");
  p.fr.push_back(place.fr);
}

Pair went(Rng& rng) {
  Pair p;
  p.kind = "went";
  const Subject& s = pick(rng, kSubjects);
  const Place& place = pick(rng, kWentPlaces);
  subject_verb_place(p, s, kWent, "to", place, "à");
  const bool river = std::string(place.fr) == "rive";
  if (river) {
    if (rng.chance(0.7)) {
      const auto& purpose = pick(rng, kRiverPurposes);
      p.en.insert(p.en.end(), {"to", purpose[0]});
      p.fr.insert(p.fr.end(), {"pour", purpose[1]});
    }
  } else if (rng.chance(0.85)) {
    const auto& verb = pick(rng, kPurposeVerbs);
    const Obj& obj = pick(rng, kObjects);
    p.en.insert(p.en.end(), {"to", verb[0], s.poss_en, obj.en});
    // mon, not ma, before a vowel (no feminine object here starts with one)
    const char* poss = obj.plural ? s.poss_pl : obj.fem ? s.poss_f : s.poss_m;
    p.fr.insert(p.fr.end(), {"pour", verb[1], poss, obj.fr});
  }
  return p;
}

Pair by(Rng& rng) {
  Pair p;
  p.kind = "by";
  const Subject& s = pick(rng, kSubjects);
  const Verb& verb = pick(rng, kByVerbs);
  const Place& place = pick(rng, kByPlaces);
  subject_verb_place(p, s, verb, "by", place, "près de");
  return p;
}

class TranslationTask : public Task {
 public:
  TranslationTask() {
    // Vocabulary: specials, ".", then every English word, then every French word (after the
    // spelling rules), then the years, in a fixed order.
    std::vector<std::string> pieces = {"."};
    auto add = [&](const std::string& w) { add_piece(pieces, w); };
    for (const char* w : {"the", "was", "were", "in", "to", "by"}) add(w);
    for (const auto& n : kDocs) {
      add(n.en_sg);
      add(n.en_pl);
    }
    for (const auto& n : kBodies) add(n.en_sg);
    for (const auto& a : kAdjs) add(a.en);
    for (const auto& pr : kPreps) add(pr[0]);
    for (const auto& v : kParticiples) add(v[0]);
    for (const auto& m : kMonths) add(m[0]);
    for (const auto& s : kSubjects) {
      add(s.en);
      add(s.poss_en);
    }
    add(kWent.en);
    for (const auto& v : kByVerbs) add(v.en);
    for (const auto& pl : kByPlaces)
      for (const auto& w : split_words(pl.en)) add(w);
    for (const auto& pl : kWentPlaces)
      for (const auto& w : split_words(pl.en)) add(w);
    for (const auto& v : kPurposeVerbs) add(v[0]);
    for (const auto& o : kObjects) add(o.en);
    for (const auto& v : kRiverPurposes) add(v[0]);
    // French: every word the generator can write, found by generating (all forms are reached
    // within a few thousand draws; the test checks that no French word is ever <unk>).
    for (const char* w : {"le", "la", "les", "l'", "a", "ont", "été", "en", "à", "au", "de", "du", "près", "pour", "j'",
                          "me", "se", "s'", "nous"})
      add(w);
    for (const auto& n : kDocs) {
      add(n.fr_sg);
      add(n.fr_pl);
    }
    for (const auto& n : kBodies) add(n.fr_sg);
    for (const auto& a : kAdjs) {
      add(a.fr_m);
      add(a.fr_f);
    }
    for (const auto& pr : kPreps) add(pr[1]);
    for (const auto& v : kParticiples)
      for (int g = 0; g < 2; ++g)
        for (int n = 0; n < 2; ++n) add(agree(v[1], g, n));
    for (const auto& m : kMonths) add(m[1]);
    for (const auto& s : kSubjects) {
      add(s.fr);
      add(s.poss_m);
      add(s.poss_f);
      add(s.poss_pl);
    }
    for (const char* w : {"ai", "avons", "suis", "est", "sommes", "sont"}) add(w);
    for (const Verb* v : {&kWent, &kByVerbs[0], &kByVerbs[1], &kByVerbs[2], &kByVerbs[3], &kByVerbs[4], &kByVerbs[5]})
      for (const auto& s : kSubjects)
        add(agree(v->participle, v->aux != Aux::Avoir && s.fem, v->aux != Aux::Avoir && s.plural));
    for (const auto& pl : kByPlaces) add(pl.fr);
    for (const auto& pl : kWentPlaces) add(pl.fr);
    for (const auto& v : kPurposeVerbs) add(v[1]);
    for (const auto& o : kObjects) add(o.fr);
    for (const auto& v : kRiverPurposes) add(v[1]);
    for (int y = kFirstYear; y <= kLastYear; ++y) add(std::to_string(y));
    tok_ = Tokenizer(Tokenizer::Kind::Sentence, Tokenizer::with_specials(pieces));
  }
  std::string name() const override { return "translate"; }
  Arch arch() const override { return Arch::EncoderDecoder; }
  int max_len() const override { return 20; }  // longest: 13 English tokens; <bos> + 14 French tokens + <eos>

  Example sample(Rng& rng, Split split) const override {
    // The lecture's three sentences come up often enough for the model to know them exactly;
    // they are never held out.
    static const char* const kLecture[][2] = {
        {kNotesEnglish, kNotesFrench}, {kBankMoneyEnglish, kBankMoneyFrench}, {kBankRiverEnglish, kBankRiverFrench}};
    if (split == Split::Train && rng.chance(0.02)) {
      const auto& l = pick(rng, kLecture);
      return {l[0], l[1], "lecture", {}, {}, false};
    }
    for (;;) {
      const double u = rng.unit();
      Pair p = u < 0.6 ? document(rng) : u < 0.8 ? went(rng) : by(rng);
      if (p.key.empty())
        for (const auto& w : p.en) p.key += w + " ";
      p.en.push_back(".");
      p.fr.push_back(".");
      const std::string en = sentence(p.en), fr = sentence(french_spelling(p.fr));
      const bool lecture = p.key == "the agreement on the european economic area was signed " ||
                           p.key == "i went to the bank to deposit my check " || p.key == "i sat by the river bank ";
      const bool held = !lecture && hash_string(p.key.data(), p.key.size()) % 10 == 0;
      if (held != (split == Split::HeldOut)) continue;
      return {en, fr, p.kind, {}, {}, false};
    }
  }
};

}  // namespace

std::unique_ptr<Task> make_translation_task() { return std::make_unique<TranslationTask>(); }

}  // namespace ap::train
