// AndedAtoms (Note: [Literal fast path] in engine/src/log/pattern_atoms.cc) against RE2's FilteredRE2,
// which it stands in for: on every bundled pattern, on crafted patterns at the edges of what it reads,
// and on random patterns of the syntax around it.
#include "log/pattern_atoms.h"

#include <gtest/gtest.h>
#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "log/line_scanner.h"
#include "log/regex.h"
#include "log/segmenter.h"
#include "rules/rule.h"
#include "triage/triage.h"

namespace triage {
namespace {

std::string Show(const std::vector<std::string>& v) {
  std::string s = "[";
  for (const std::string& a : v) s += "'" + a + "' ";
  return s + "]";
}

// Checks AndedAtoms(pattern) against FilteredRE2 (minimum atom length 3, as RequiredLiterals builds
// it); returns whether AndedAtoms answered. Its answer must be FilteredRE2's atom list, in order, and
// FilteredRE2's prefilter must be the AND of those atoms: with all of them present the pattern passes,
// with any one missing it does not (a monotone formula with both properties is that AND); an empty
// answer must be a pattern FilteredRE2 passes with no atom at all.
bool AgreesWithFilteredRe2(const std::string& pattern) {
  re2::FilteredRE2 filter(3);
  int id = 0;
  if (filter.Add(pattern, RegexOptions(), &id) != RE2::NoError) return false;  // not asked of AndedAtoms
  std::optional<std::vector<std::string>> anded = AndedAtoms(pattern);
  if (!anded) return false;
  std::vector<std::string> all;
  filter.Compile(&all);
  EXPECT_EQ(Show(*anded), Show(all)) << "pattern: " << pattern;
  std::vector<int> passed;
  if (anded->empty()) {
    filter.AllPotentials({}, &passed);
    EXPECT_EQ(passed, std::vector<int>{0}) << "pattern: " << pattern << " (unfiltered)";
    return true;
  }
  std::vector<int> present;
  for (size_t i = 0; i < all.size(); ++i) present.push_back(static_cast<int>(i));
  filter.AllPotentials(present, &passed);
  EXPECT_EQ(passed, std::vector<int>{0}) << "pattern: " << pattern << " (every atom present)";
  for (size_t k = 0; k < all.size(); ++k) {
    std::vector<int> some;
    for (size_t i = 0; i < all.size(); ++i) {
      if (i != k) some.push_back(static_cast<int>(i));
    }
    filter.AllPotentials(some, &passed);
    EXPECT_TRUE(passed.empty()) << "pattern: " << pattern << " passes without '" << all[k] << "'";
  }
  return true;
}

// RequiredLiterals' answers (the kept atoms, whether there are any, the program size) the same with and
// without the fast path.
void SameRequiredLiterals(const std::string& pattern, const std::vector<std::string>& free_keywords) {
  std::vector<std::string> fast_atoms, slow_atoms;
  int fast_size = -2, slow_size = -2;
  const bool fast = RequiredLiteralsUncached(pattern, &fast_atoms, free_keywords, &fast_size, true);
  const bool slow = RequiredLiteralsUncached(pattern, &slow_atoms, free_keywords, &slow_size, false);
  EXPECT_EQ(fast, slow) << "pattern: " << pattern;
  EXPECT_EQ(Show(fast_atoms), Show(slow_atoms)) << "pattern: " << pattern;
  EXPECT_EQ(fast_size, slow_size) << "pattern: " << pattern;
}

std::vector<std::string> BundledPatterns() {
  LoadOptions options;
  options.env_path = false;
  LoadResult loaded = LoadRules(options);
  std::vector<std::string> out;
  for (const Rule& r : loaded.rules->rules) {
    for (const Text& p : r.patterns) out.push_back(p.value);
  }
  return out;
}

TEST(AndedAtoms, AgreesWithFilteredRe2OnEveryBundledPattern) {
  const std::vector<std::string> patterns = BundledPatterns();
  ASSERT_GT(patterns.size(), 300u);
  size_t answered = 0;
  for (const std::string& p : patterns) {
    answered += AgreesWithFilteredRe2(p);
    SameRequiredLiterals(p, Segmenter::IdleKeywords());
    SameRequiredLiterals(p, {});
  }
  std::printf("AndedAtoms answered %zu of %zu bundled patterns\n", answered, patterns.size());
  // The point of the fast path: most bundled patterns are read without FilteredRE2.
  EXPECT_GT(answered * 2, patterns.size()) << answered << " of " << patterns.size();
}

TEST(AndedAtoms, AgreesWithFilteredRe2OnCraftedPatterns) {
  const std::vector<std::string> crafted = {
      "", "abc", "ABC def", "a", "ab", "abc\\d+def", "x(?:abc\\d+def)", "x(abc\\d+def)", "(?:ab)+cd",
      "a*abc", "a+abc", "\\d+\\d", "\\d+5abc", "\\s*\\sabc", "\\s+\\S+abc", ".*[^\\n]abc", "(?s:.*).abc",
      "abc\\d", "abc\\d\\d", "abc\\s", "abc\\sdef\\s", "step \\d/\\d+", "[01]abc", "[Aa]bcd", "[aA]bc[dD]",
      "[.]abc", "[^abc]def", "[\\d,]+ xyz", "[-a]bcd", "[a-]bcd", "[a-c-e]fgh", "[\\w-]+abc", "[--/]abc",
      "[\\x41-\\x43]xyz", "\\x41bc", "\\x{42}cd", "a\\.b\\(c\\)", "\\bword\\b", "^start", "end$",
      "(?m:^)line(?m:$)", "\\Afoo\\z", "(?P<name>\\w+) failed", "(?P<a>abc)(?P<b>def)", "()abc", "(?:)abc",
      "(abc)?def", "(abc)*def", "(abc)+def", "(abc\\d)+def", "abc(?:def)?ghi", "(?s)a.b.c", "(?U)ab+c",
      "a+?bc", "ab*?c", "x[0-9]y[0-9]z", "[ab][cd][ef]ghi", "[ab][cd][ef][gh][ij]", "[abc][de][fg]xyz",
      "[abcd][efgh]zz", "abc[A-Z]", "[0-9A-F]{2}", "a{2}bcd", "abc|def", "(?i)abc", "é abc", "abc\\pL",
      "[[:alpha:]]abc", "abc\\Qx\\E", "a\\1", "\\0abc", "[]abc]def", "[^]abc]def", "x**", "(?:a*)*bcd",
      "(?:ab\\d)*cd", "(?:a)*abc", "(?:a)+ab", "(a)*abc", "\\b*abc", "(?:)*abc", "(?:\\d+)?abc", "abc(?-s:.)def", "abc(?ms-U:x.)def",
      "NCCL communicator was aborted(?: on rank (?P<rank>\\d+))?\\.",
      "line (?P<script_line>\\d+): +(?P<pid>\\d+) Killed +(?P<command>\\S[^\\n]*)",
      "CUDA out of memory\\. Tried to allocate (?P<want>[\\d.]+ [KMGT]i?B)",
      "^\\s*(?:tensor\\()?\\[+nan, nan, nan,", "dim out of range \\(got (?P<asked>-?\\d+), but input has",
      "\\.(?P<dtype>half)\\(\\)", "[a-z0-9]_loss (?P<value>nan)\\b", "Error\\(s\\) in loading state_dict",
  };
  size_t answered = 0;
  for (const std::string& p : crafted) {
    answered += AgreesWithFilteredRe2(p);
    SameRequiredLiterals(p, Segmenter::IdleKeywords());
    SameRequiredLiterals(p, {"abc"});
  }
  std::printf("AndedAtoms answered %zu of %zu crafted patterns\n", answered, crafted.size());
  EXPECT_GT(answered, crafted.size() / 2);
}

// Random patterns built from pieces inside and around the subset, nested in groups.
std::string RandomPattern(std::mt19937& rng, int depth) {
  static const std::vector<std::string> pieces = {
      "a", "b", "c", "A", "x", "ab", "abc", "Err", "err", "xyz", "foo", " ", "-", "_", ":", "\\.", "\\(", "\\)",
      "\\[", "\\\\", "\\n", "\\t", "\\x41", "\\x{62}", "\\d", "\\D", "\\s", "\\S", "\\w", "\\W", ".", "[01]",
      "[a-c]", "[abcd]", "[a-k]", "[a-j]", "[^\\n]", "[Aa]", "[aA]", "[.]", "[ab]", "[\\d,]", "[xyz_]", "[-a]",
      "^", "$", "\\b", "\\B", "\\A", "\\z", "(?s)", "(?m)", "(?U)", "é", "\\pL", "(?i)", "{2}", "|"};
  static const std::vector<std::string> repeats = {"*", "+", "?", "*?", "+?", "??", "{1,2}"};
  std::string out;
  const int n = 1 + static_cast<int>(rng() % 6);
  for (int i = 0; i < n; ++i) {
    const unsigned pick = rng() % 10;
    if (pick < 2 && depth < 3) {
      static const std::vector<std::string> opens = {"(", "(?:", "(?P<g>", "(?s:", "(?m:"};
      std::string open = opens[rng() % opens.size()];
      if (open == "(?P<g>") open = "(?P<g" + std::to_string(rng() % 1000000) + ">";
      out += open + RandomPattern(rng, depth + 1) + ")";
    } else {
      // Mostly pieces of the subset; the others now and then.
      const size_t limit = rng() % 8 == 0 ? pieces.size() : pieces.size() - 7;
      out += pieces[rng() % limit];
    }
    if (rng() % 4 == 0) out += repeats[rng() % (rng() % 8 == 0 ? repeats.size() : 5)];
  }
  return out;
}

TEST(AndedAtoms, AgreesWithFilteredRe2OnRandomPatterns) {
  std::mt19937 rng(20261128);
  size_t tried = 0, answered = 0, with_atoms = 0;
  for (int round = 0; round < 30000; ++round) {
    const std::string p = RandomPattern(rng, 0);
    RE2 re(p, RegexOptions());
    if (!re.ok()) continue;
    ++tried;
    const bool a = AgreesWithFilteredRe2(p);
    answered += a;
    if (a && !AndedAtoms(p)->empty()) ++with_atoms;
    if (round % 10 == 0) SameRequiredLiterals(p, {});
    if (::testing::Test::HasFailure()) break;  // the first disagreement is the one to read
  }
  std::printf("AndedAtoms answered %zu of %zu random patterns RE2 accepts, %zu with atoms\n", answered, tried,
              with_atoms);
  EXPECT_GT(tried, 20000u);
  EXPECT_GT(answered, tried / 3) << answered << " of " << tried;
  EXPECT_GT(with_atoms, answered / 4) << with_atoms << " of " << answered;
}

}  // namespace
}  // namespace triage
