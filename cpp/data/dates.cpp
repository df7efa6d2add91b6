// The dates task: one calendar date written in one of many human formats -> ISO YYYY-MM-DD.
// Every format has exactly one reading: numeric day-month order only as d/m/y (with '/' or '.'),
// month-first only with a month name, and the weekday, when written, is the true one.
#include <cstdio>
#include <string>
#include <vector>

#include "base/tensor.hpp"
#include "data/tasks.hpp"

namespace ap::train {

int days_in_month(int year, int month) {
  static const int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

int weekday(int year, int month, int day) {
  // Days since 1970-01-01 by the civil-from-days inverse (H. Hinnant); 1970-01-01 was a Thursday.
  const int y = year - (month <= 2);
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const long days = static_cast<long>(era) * 146097 + doe - 719468;
  return static_cast<int>(((days % 7) + 7 + 3) % 7);  // 0 = Monday
}

namespace {

const char* const kMonths[12] = {"January", "February", "March",     "April",   "May",      "June",
                                 "July",    "August",   "September", "October", "November", "December"};
const char* const kWeekdays[7] = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

std::string two(int x) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02d", x);
  return buf;
}
std::string lower(std::string s) {
  for (char& c : s) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return s;
}
std::string ordinal(int d) {
  const char* suffix = (d % 10 == 1 && d != 11)   ? "st"
                       : (d % 10 == 2 && d != 12) ? "nd"
                       : (d % 10 == 3 && d != 13) ? "rd"
                                                  : "th";
  return std::to_string(d) + suffix;
}

struct Date {
  int y, m, d;
};

struct Format {
  const char* name;
  std::string (*write)(const Date&);
};

std::string mon(const Date& t) { return std::string(kMonths[t.m - 1]).substr(0, 3); }
std::string month(const Date& t) { return kMonths[t.m - 1]; }
std::string wday(const Date& t) { return kWeekdays[weekday(t.y, t.m, t.d)]; }
std::string yy(const Date& t) { return two(t.y % 100); }
std::string D(const Date& t) { return std::to_string(t.d); }
std::string Y(const Date& t) { return std::to_string(t.y); }

const Format kFormats[] = {
    {"iso", [](const Date& t) { return Y(t) + "-" + two(t.m) + "-" + two(t.d); }},              // 2026-11-22
    {"d_mon_y", [](const Date& t) { return D(t) + " " + mon(t) + " " + Y(t); }},                // 22 Nov 2026
    {"d_month_y", [](const Date& t) { return D(t) + " " + month(t) + " " + Y(t); }},            // 22 November 2026
    {"month_d_y", [](const Date& t) { return month(t) + " " + D(t) + ", " + Y(t); }},           // November 22, 2026
    {"mon_d_y", [](const Date& t) { return mon(t) + " " + D(t) + ", " + Y(t); }},               // Nov 22, 2026
    {"dd/mm/yyyy", [](const Date& t) { return two(t.d) + "/" + two(t.m) + "/" + Y(t); }},       // 22/11/2026
    {"d/m/yyyy", [](const Date& t) { return D(t) + "/" + std::to_string(t.m) + "/" + Y(t); }},  // 3/7/2026
    {"dd.mm.yyyy", [](const Date& t) { return two(t.d) + "." + two(t.m) + "." + Y(t); }},       // 22.11.2026
    {"weekday_d_month_y",  // Sunday 22 November 2026
     [](const Date& t) { return wday(t) + " " + D(t) + " " + month(t) + " " + Y(t); }},
    {"wkd_d_mon_y",  // Sun, 22 Nov 2026
     [](const Date& t) { return wday(t).substr(0, 3) + ", " + D(t) + " " + mon(t) + " " + Y(t); }},
    {"mon_d_yy", [](const Date& t) { return lower(mon(t)) + " " + D(t) + " " + yy(t); }},   // nov 22 26
    {"d-mon-yyyy", [](const Date& t) { return two(t.d) + "-" + mon(t) + "-" + Y(t); }},     // 22-Nov-2026
    {"ordinal", [](const Date& t) { return ordinal(t.d) + " " + month(t) + " " + Y(t); }},  // 22nd November 2026
    {"the_ordinal_of",  // the 22nd of November, 2026
     [](const Date& t) { return "the " + ordinal(t.d) + " of " + month(t) + ", " + Y(t); }},
};
constexpr int kNumFormats = sizeof kFormats / sizeof kFormats[0];

class DatesTask : public Task {
 public:
  DatesTask() {
    // The vocabulary: the specials, then every character any format can write, in code point order.
    std::string chars;
    for (int m = 1; m <= 12; ++m)
      for (int f = 0; f < kNumFormats; ++f) chars += kFormats[f].write({2026, m, 23});
    for (int d = 1; d <= 31; ++d) chars += kFormats[12].write({2026, 1, d});
    for (int w = 0; w < 7; ++w) chars += kWeekdays[w];
    chars += "0123456789-";
    std::vector<bool> seen(128, false);
    for (char c : chars) seen[static_cast<unsigned char>(c)] = true;
    std::vector<std::string> pieces;
    for (int c = 32; c < 127; ++c)
      if (seen[static_cast<size_t>(c)]) pieces.emplace_back(1, static_cast<char>(c));
    tok_ = Tokenizer(Tokenizer::Kind::Char, Tokenizer::with_specials(pieces));
  }
  std::string name() const override { return "dates"; }
  Arch arch() const override { return Arch::EncoderDecoder; }
  int max_len() const override { return 32; }  // longest source: "the 22nd of September, 2026" (27)

  Example sample(Rng& rng, Split split) const override {
    for (;;) {
      Date t{rng.between(1950, 2049), rng.between(1, 12), 1};
      t.d = rng.between(1, days_in_month(t.y, t.m));
      const std::string iso = Y(t) + "-" + two(t.m) + "-" + two(t.d);
      const bool held = hash_string(iso.data(), iso.size()) % 10 == 0;
      if (held != (split == Split::HeldOut)) continue;
      const Format& f = kFormats[rng.below(kNumFormats)];
      return {f.write(t), iso, f.name, {}, {}, false};
    }
  }
};

}  // namespace

std::unique_ptr<Task> make_dates_task() { return std::make_unique<DatesTask>(); }

}  // namespace ap::train
