// Note: [Locale-free text] (engine/src/diagnose/locale_free.cc): numbers print and read as printf and
// strtod do in the "C" locale, character classes are ASCII, and what the engine writes does not change
// when the process's global C++ locale has a decimal comma and digit grouping.
//
// The C locale's LC_NUMERIC (setlocale) cannot be tested here: a test machine need not have any
// locale with a decimal comma installed (this one has C, C.utf8 and POSIX only). That is checked by
// tests/bench/locale_check.sh, with locales it builds by localedef (tests/bench/README.md).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <locale>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "triage/locale_free.h"
#include "triage/tools.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

std::string Printf(const char* format, double v) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::vector<double> Samples() {
  std::vector<double> v = {0.0, -0.0, 0.9, 0.0005, 0.5, 1.5, 2.5, 0.125, 0.0625, 1.0 / 3, 2.0 / 3, 100, 99.95,
                           99.9949999, 123456789.123, 1e-7, 1e-300, 1e15, 1e16, 1e21, 1e300, -42.4242,
                           std::numeric_limits<double>::max(), std::numeric_limits<double>::min(),
                           std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> mantissa(-10, 10);
  std::uniform_int_distribution<int> exponent(-30, 30);
  for (int i = 0; i < 3000; ++i) v.push_back(std::ldexp(mantissa(rng), exponent(rng)));
  return v;
}

TEST(LocaleFree, NumbersPrintAsPrintfPrintsThemInTheCLocale) {
  ASSERT_STREQ(std::setlocale(LC_NUMERIC, nullptr), "C");
  for (double v : Samples()) {
    for (int p : {0, 1, 2, 3, 6}) {
      std::string format = "%." + std::to_string(p) + "f";
      ASSERT_EQ(FormatNumber(v, NumberStyle::kFixed, p), Printf(format.c_str(), v)) << format << " of " << v;
    }
    for (int p : {0, 1, 4, 6, 9, 14, 17}) {
      std::string format = "%." + std::to_string(p) + "g";
      ASSERT_EQ(FormatNumber(v, NumberStyle::kGeneral, p), Printf(format.c_str(), v)) << format << " of " << v;
    }
  }
  // The largest double in "%.3f": 309 digits before the point, past the first buffer.
  const double big = -std::numeric_limits<double>::max();
  EXPECT_EQ(FormatNumber(big, NumberStyle::kFixed, 3), Printf("%.3f", big));
  std::string s = "x=";
  AppendNumber(&s, 0.9, NumberStyle::kFixed, 3);
  EXPECT_EQ(s, "x=0.900");
}

TEST(LocaleFree, ParseNumberReadsAWholeDecimalNumber) {
  struct Case {
    const char* text;
    double want;
  };
  for (const Case& c : std::vector<Case>{{"0.25", 0.25}, {"+1", 1}, {"-1e-3", -1e-3}, {"1.", 1}, {".5", 0.5},
                                         {"1E3", 1000}, {"007", 7}, {"1e308", 1e308}}) {
    double got = -7;
    EXPECT_TRUE(ParseNumber(c.text, &got)) << c.text;
    EXPECT_EQ(got, c.want) << c.text;
  }
  double v = 0;
  EXPECT_TRUE(ParseNumber("inf", &v) && v == std::numeric_limits<double>::infinity());
  EXPECT_TRUE(ParseNumber("-Infinity", &v) && v == -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(ParseNumber("nan", &v) && std::isnan(v));
  for (const char* bad : {"", " 1", "1 ", "0,5", "1,000", "0x10", "+-1", "--1", "1e999", "abc", "+", "-", ".", "1e",
                          "0.5%", "1_000"}) {
    double untouched = 42;
    EXPECT_FALSE(ParseNumber(bad, &untouched)) << "'" << bad << "'";
    EXPECT_EQ(untouched, 42) << "'" << bad << "'";
  }
}

TEST(LocaleFree, AsciiClassesAreTheCLocales) {
  ASSERT_STREQ(std::setlocale(LC_CTYPE, nullptr), "C");
  for (int c = 0; c < 256; ++c) {
    EXPECT_EQ(IsAsciiDigit(c), std::isdigit(c) != 0) << c;
    EXPECT_EQ(IsAsciiUpper(c), std::isupper(c) != 0) << c;
    EXPECT_EQ(IsAsciiLower(c), std::islower(c) != 0) << c;
    EXPECT_EQ(IsAsciiAlpha(c), std::isalpha(c) != 0) << c;
    EXPECT_EQ(IsAsciiAlnum(c), std::isalnum(c) != 0) << c;
    EXPECT_EQ(IsAsciiXDigit(c), std::isxdigit(c) != 0) << c;
    EXPECT_EQ(IsAsciiSpace(c), std::isspace(c) != 0) << c;
    EXPECT_EQ(IsAsciiCntrl(c), std::iscntrl(c) != 0) << c;
    EXPECT_EQ(IsAsciiGraph(c), std::isgraph(c) != 0) << c;
    EXPECT_EQ(IsAsciiPrint(c), std::isprint(c) != 0) << c;
    EXPECT_EQ(IsAsciiPunct(c), std::ispunct(c) != 0) << c;
    EXPECT_EQ(AsciiLower(c), std::tolower(c)) << c;
    EXPECT_EQ(AsciiUpper(c), std::toupper(c)) << c;
  }
  // A char above 127 is negative where char is signed: in no class, and unchanged by the case mapping.
  for (int c = -128; c < 0; ++c) {
    EXPECT_FALSE(IsAsciiAlnum(c) || IsAsciiSpace(c) || IsAsciiPunct(c) || IsAsciiCntrl(c) || IsAsciiPrint(c)) << c;
    EXPECT_EQ(AsciiLower(c), c);
  }
  EXPECT_EQ(AsciiLower(0x130), 0x130);  // a rune (İ) is no ASCII letter
}

// A global C++ locale as a German or French host might set it: a decimal comma, '.' between groups
// of three digits.
struct CommaDecimals : std::numpunct<char> {
  char do_decimal_point() const override { return ','; }
  char do_thousands_sep() const override { return '.'; }
  std::string do_grouping() const override { return "\3"; }
};

// Runs make() with the classic global locale and again with the comma one; both must be the same.
template <typename F>
void ExpectSameUnderACommaLocale(F make) {
  const std::string classic = make();
  const std::locale before = std::locale::global(std::locale(std::locale::classic(), new CommaDecimals));
  const std::string comma = make();
  std::locale::global(before);
  EXPECT_EQ(comma, classic);
}

TEST(LocaleFree, TheCommaLocaleReallyChangesAStream) {
  // What the tests below guard against: a stream made under the comma locale.
  const std::locale before = std::locale::global(std::locale(std::locale::classic(), new CommaDecimals));
  std::ostringstream s;
  s << 0.5 << " " << 1234;
  std::locale::global(before);
  EXPECT_EQ(s.str(), "0,5 1.234");
}

const std::shared_ptr<const RuleSet>& Rules() {
  static const std::shared_ptr<const RuleSet> rules = [] {
    LoadOptions o;
    o.env_path = false;
    return LoadRules(o).rules;
  }();
  return rules;
}

TEST(LocaleFree, ExplainPrintsTheSameUnderACommaLocale) {
  const std::vector<RuleInfo> rules = ListRules(*Rules());
  ASSERT_GT(rules.size(), 100u);
  ExpectSameUnderACommaLocale([&] {
    std::string out;
    for (const RuleInfo& r : rules) {
      bool found = false;
      out += ExplainRule(*Rules(), r.id, &found, 100);
    }
    return out;
  });
  // A fractional prior and a signal rule's parameters are among them.
  bool found = false;
  std::string signal = ExplainRule(*Rules(), "val-loss-rising", &found);
  ASSERT_TRUE(found);
  EXPECT_NE(signal.find("parameters:"), std::string::npos) << signal;
}

TEST(LocaleFree, RuleTestTextIsTheSameUnderACommaLocale) {
  RuleTestReport report;
  ExampleResult r;
  r.rule = "some-rule";
  r.file = "rules/some-rule.yaml";
  r.line = 1234;  // grouped as 1.234 by the comma locale
  r.detail = "expected a match";
  report.results.push_back(r);
  report.rules = 1;
  report.failed = 1;
  ExpectSameUnderACommaLocale([&] { return report.ToText(true); });
  EXPECT_NE(report.ToText(true).find("some-rule.yaml:1234:"), std::string::npos) << report.ToText(true);
}

// Every report format of corpus logs with metric series (numbers in the JSON, plots in HTML).
TEST(LocaleFree, ReportsAreTheSameUnderACommaLocale) {
  std::vector<std::string> logs;
  const fs::path corpus = fs::path(TRIAGE_SOURCE_DIR) / "corpus";
  std::vector<fs::path> files;
  for (const auto& family : fs::directory_iterator(corpus)) {
    if (!family.is_directory() || family.path().filename() == "heldout") continue;  // never read held-out cases
    for (const auto& e : fs::recursive_directory_iterator(family.path())) {
      if (e.path().filename() == "log.txt") files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("loss") != std::string::npos) logs.push_back(std::move(text));
    if (logs.size() == 40) break;
  }
  ASSERT_GE(logs.size(), 10u);
  Engine engine(Rules());
  ExpectSameUnderACommaLocale([&] {
    std::string out;
    std::vector<Report> reports;
    for (const std::string& log : logs) {
      Report r = engine.DiagnoseText(log);
      out += ToJson(r) + ToText(r, TextOptions()) + ToMarkdown(r);
      reports.push_back(std::move(r));
    }
    return out + ToHtml(reports);
  });
}

}  // namespace
}  // namespace triage
