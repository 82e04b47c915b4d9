// ReadPatternPrefilter (Note: [Literal fast path] in engine/src/log/pattern_atoms.cc) against RE2's FilteredRE2,
// which it stands in for: on every bundled pattern, on crafted patterns at the edges of what it reads,
// and on random patterns of the syntax around it.
#include "log/pattern_atoms.h"

#include <gtest/gtest.h>
#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <cstdio>
#include <optional>
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

// Checks ReadPatternPrefilter(pattern) against FilteredRE2 (minimum atom length 3, as RequiredLiterals
// builds it); returns whether it answered. Its atoms must be FilteredRE2's, in order, and it must let
// through the same sets of atoms as FilteredRE2::AllPotentials: every subset when there are at most 10
// atoms, else the empty and the full set, each set less one atom and 300 random ones.
bool AgreesWithFilteredRe2(const std::string& pattern, std::mt19937* rng) {
  re2::FilteredRE2 filter(3);
  int id = 0;
  if (filter.Add(pattern, RegexOptions(), &id) != RE2::NoError) return false;  // not asked of the reader
  std::optional<PatternPrefilter> read = ReadPatternPrefilter(pattern);
  if (!read) return false;
  std::vector<std::string> all;
  filter.Compile(&all);
  EXPECT_EQ(Show(read->atoms()), Show(all)) << "pattern: " << pattern;
  if (read->atoms() != all) return true;
  std::vector<std::vector<int>> sets;
  const size_t n = all.size();
  if (n <= 10) {
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
      sets.emplace_back();
      for (size_t i = 0; i < n; ++i) {
        if (mask >> i & 1) sets.back().push_back(static_cast<int>(i));
      }
    }
  } else {
    std::vector<int> every;
    for (size_t i = 0; i < n; ++i) every.push_back(static_cast<int>(i));
    sets.push_back({});
    sets.push_back(every);
    for (size_t k = 0; k < n; ++k) {
      sets.emplace_back();
      for (int i : every) {
        if (static_cast<size_t>(i) != k) sets.back().push_back(i);
      }
    }
    for (int r = 0; r < 300; ++r) {
      sets.emplace_back();
      for (int i : every) {
        if ((*rng)() % 2) sets.back().push_back(i);
      }
    }
  }
  std::vector<int> passed;
  for (const std::vector<int>& present : sets) {
    filter.AllPotentials(present, &passed);
    std::string shown;
    for (int i : present) shown += "'" + all[static_cast<size_t>(i)] + "' ";
    EXPECT_EQ(read->Passes(present), !passed.empty()) << "pattern: " << pattern << " with atoms " << shown;
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

TEST(PatternPrefilter, AgreesWithFilteredRe2OnEveryBundledPattern) {
  const std::vector<std::string> patterns = BundledPatterns();
  ASSERT_GT(patterns.size(), 300u);
  std::mt19937 rng(15);
  size_t answered = 0;
  for (const std::string& p : patterns) {
    answered += AgreesWithFilteredRe2(p, &rng);
    SameRequiredLiterals(p, Segmenter::IdleKeywords());
    SameRequiredLiterals(p, {});
  }
  std::printf("ReadPatternPrefilter answered %zu of %zu bundled patterns\n", answered, patterns.size());
  // The point of the fast path: most bundled patterns are read without FilteredRE2.
  EXPECT_GT(answered * 2, patterns.size()) << answered << " of " << patterns.size();
}

TEST(PatternPrefilter, AgreesWithFilteredRe2OnCraftedPatterns) {
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
      "\\.(?P<dtype>half)\\(\\)", "x(?:abc|abd)y", "(?:abc|abd)", "(abc|abd)", "(?:abc|abd)+x", "(?:a|b|c)xyz",
      "(?:ab|ab)cde", "(?:a|ab|abc)def", "(?:a|b|c|d|e|f|g|h|i|j|k)xyz", "(?:a|b|c|d|e|f|g|h|i|j)xyz",
      "foo (?P<w>NaN|infinity) bar", "\\d+(?:1|2)xyz", "(?:a|b)*abc", "(?:abc|x)+def", "abc|abd", "abc|xyz",
      "(?:frac|fraction|ratio)=", "[ab][cd](?:x|y|z)[ef]tail", "(?:Foo|foo|FOO)bar", "(?:|abc)def", "(?:abc|\\d)def",
      "(?s:a|b).", "(?:^|\\s)abc", "(?:['\"]|,|\\s|$)xyz", "(?:\\s|,|;|:|x|y|z)abc", "(?:\\s|,|;|x)abc",
      "(?:[Kk]|x)abc", "(?:[Aa]|x|y)abc", "(?:\\d+x|\\d+y)abc", "(?:\\dx|\\dy)abc", "(?:^a|^b)cde", "(?:abc|abd\\d)x",
      "(?:a\\d|b\\d)xyz", "(?:foo\\d+|bar)baz", "(?:foo|bar\\s+qux)\\.", "x(?:[ab]|c|[de])yz", "(?:\\w+|abc)def",
      "(abc\\d+|xyz)+def", "(?:abc.|xyz)*def", "(?:a|b|[c-k])xyz", "(?:\\dab|\\dcd)xyz", "(?:[Kk]|a|b|c|d|e|f|g|h)xyz", "(?:[Ss]|a|b|c|d|e|f|g|h)xyz",
      "(?:[Aa]|b|c|d|e|f|g|h|i)xyz", "(?:a|b|[c-j])xyz", "\\d(?:abc|abd)xyz", "(?:a|b)*[ab]xyz", "[ab]*(?:a|b)xyz", "lib(?:cudart|cublas|cublasLt)\\w*\\.so", "(?:ab)|(?:cd)", "a(?:b)c|d", "[a-z0-9]_loss (?P<value>nan)\\b", "Error\\(s\\) in loading state_dict",
      // Alternations RE2 factors: common prefixes, more than ten branches, empty branches, one-character rests.
      "(?:float|c10::Half|c10::BFloat16|Half|BFloat16)", "x(?:abc|abd|abe|xyz|xyw)y", "(?:abc|abcd|ab|b|c)",
      "(?:a|b|c|d|e|f|g|h|i|j|k|l|m|n|o|p|q)xyz", "(?:aa|ab|ac|ad|ae|af|ag|ah|ai|aj|ak|al|am|an|ao|ap|aq)xyz",
      "(?:xa|xb|xc|xd|xe|xf|xg|xh|xi|xj)(?:ya|yb)zzz", "(?:|abc|abd)x", "(?:abc||abd)x", "(?:abc|)", "(?:ab\\d|ac\\d)xyz",
      "(?:ab\\d|ab\\s)xyz", "(?:ab.|ab.)xyz", "(?:ab^|ab$)xyz", "q(?:ab|ac)(?:ab|ac)", "(?:ab|ac)+xyz", "((?:ab|ac))xyz",
      "x(?:a\\d)y|xab", "(?:x(?:a\\d)y|xab)zzz", "(?:(?:ab)c|abd)zzz", "(?:a|(?:b|c))xyz", "(?s:a|.)xyz",
      "\\[*\\[0\\.,", "a*abc", "a*Abc", "a*aabc", "a*?abc", "a*(?:ab)*c", "a*(?:)abc", "x*x", "(?:ab)*abc",
      // Case folding: k and s fold to three runes; a folding literal factors only with another.
      "(?i)abc", "(?i)kabc", "(?i)xks", "(?i)(?:ka|kb)xyz", "(?i:abc)|abd", "(?i)a*abc", "(?i)[Kk]xyz", "[Kk](?i)kxyz",
      "(?i)(?:a|b|c|k)xyz", "(?i)(?:s|t)xyz", "(?i)\\Wabc", "(?i)\\wabc", "(?i)[^k]abc", "(?i)[a-c]xyz", "(?i)[kx]yz",
      "(?i)(?:Foo|foo|FOO)bar", "(?i)k+abc", "(?i)s*sabc", "(?i)(?:abc|ABD)x", "(?i:ab)(?:c)", "(?i)abc(?-i)def",
      "(?:(?i)abc|abd)x", "(?:[Aa]bc|(?i)abd)x", "(?:[Aa]|b|c|d|e|f|g|h|i)xyz", "(?:[Kk]|a|b|c|d|e|f|g)xyz",
      "(?:[Ss]|a|b|c|d|e|f|g|h)xyz", "(?i)(?:k|a|b|c|d|e|f|g)xyz", "(?i)[.]xyz", "(?i)(?:\\.|x)yz",
      "(?i)(?:^|[^\\w])loss(?::|=) *(?P<value>nan)\\b", "(?i)(?P<backend>CUDA|HIP|XPU) out of memory",
      // A class folded under (?i) past ten runes; literals folding case factored only with their like.
      "(?i)[a-f]xyz", "(?i)[A-Dk]xyz", "(?:ab0|ab1|ab2|ab3|ab4|ab5|ab6|ab7|ab8|ab9|(?i:abx))yz",
      "(?:(?i:(?:ab0|ab1|ab2|ab3|ab4|ab5|ab6|ab7|ab8|ab9))|abx)yz",
  };
  std::mt19937 rng(4);
  size_t answered = 0;
  for (const std::string& p : crafted) {
    answered += AgreesWithFilteredRe2(p, &rng);
    SameRequiredLiterals(p, Segmenter::IdleKeywords());
    SameRequiredLiterals(p, {"abc"});
  }
  std::printf("ReadPatternPrefilter answered %zu of %zu crafted patterns\n", answered, crafted.size());
  EXPECT_GT(answered, crafted.size() / 2);
}

// Pieces of random patterns inside and around the literal reader's subset; the last seven outside it.
const std::vector<std::string>& SubsetPieces() {
  static const std::vector<std::string> pieces = {
      "a", "b", "c", "A", "x", "ab", "abc", "Err", "err", "xyz", "foo", " ", "-", "_", ":", "\\.", "\\(", "\\)",
      "\\[", "\\\\", "\\n", "\\t", "\\x41", "\\x{62}", "\\d", "\\D", "\\s", "\\S", "\\w", "\\W", ".", "[01]",
      "[a-c]", "[abcd]", "[a-k]", "[a-j]", "[^\\n]", "[Aa]", "[aA]", "[.]", "[ab]", "[\\d,]", "[xyz_]", "[-a]",
      "^", "$", "\\b", "\\B", "\\A", "\\z", "(?s)", "(?m)", "(?U)", "é", "\\pL", "(?i)", "{2}", "|"};
  return pieces;
}

// Pieces weighted towards flags, case folding and characters outside ASCII (the last seven outside
// the program size bound's subset).
const std::vector<std::string>& FoldPieces() {
  static const std::vector<std::string> pieces = {
      "a", "k", "s", "K", "S", "ks", "Sk", "abc", "err", " ", "_", "\\.", "\\x27", "\\x{6B}", "\\x{212A}", "\\x{17F}",
      "\\d", "\\W", "\\w", "\\S", ".", "[a-z]", "[^a-z]", "[k]", "[^k]", "[s-t]", "[Kk]", "[_ ]", "[^\\n]", "[\\w-]",
      "[\\x27\\n]", "(?i)", "(?-i)", "(?i:k)", "(?i:ab)", "(?s)", "(?m)", "(?U)", "(?is)", "(?-s)", "é", "已", "ſ", "K",
      "Ж", "[(（]", "[é-ö]", "[^已]", "^", "$", "\\b", "(?i)é", "\\pL", "{2}", "(?i)[é]", "[[:alpha:]]", "\\Q", "|"};
  return pieces;
}

// Random patterns built from pieces, nested in groups.
std::string RandomPattern(std::mt19937& rng, int depth, const std::vector<std::string>& pieces = SubsetPieces()) {
  static const std::vector<std::string> repeats = {"*", "+", "?", "*?", "+?", "??", "{1,2}"};
  std::string out;
  const int n = 1 + static_cast<int>(rng() % 6);
  for (int i = 0; i < n; ++i) {
    const unsigned pick = rng() % 10;
    if (pick == 3 && depth < 3) {  // an alternation of random branches
      std::string alt = rng() % 2 ? "(?:" : "(";
      const int branches = 2 + static_cast<int>(rng() % 3);
      for (int b = 0; b < branches; ++b) alt += (b > 0 ? "|" : "") + RandomPattern(rng, depth + 1, pieces);
      out += alt + ")";
    } else if (pick == 2) {  // an alternation of literal runs: shared prefixes, single characters, repeats
      static const std::vector<std::string> opens = {"(", "(?:", "(?P<w>"};
      std::string alt = opens[rng() % opens.size()];
      const int branches = 2 + static_cast<int>(rng() % 11);
      for (int b = 0; b < branches; ++b) {
        if (b > 0) alt += "|";
        const int len = 1 + static_cast<int>(rng() % 4);
        for (int c = 0; c < len; ++c) alt += "abAB."[rng() % (rng() % 6 == 0 ? 5 : 4)];
      }
      out += alt + ")";
    } else if (pick < 2 && depth < 3) {
      static const std::vector<std::string> opens = {"(", "(?:", "(?P<g>", "(?s:", "(?m:"};
      std::string open = opens[rng() % opens.size()];
      if (open == "(?P<g>") open = "(?P<g" + std::to_string(rng() % 1000000) + ">";
      out += open + RandomPattern(rng, depth + 1, pieces) + ")";
    } else {
      // Mostly pieces of the subset; the others now and then.
      const size_t limit = rng() % 8 == 0 ? pieces.size() : pieces.size() - 7;
      out += pieces[rng() % limit];
    }
    if (rng() % 4 == 0) out += repeats[rng() % (rng() % 8 == 0 ? repeats.size() : 5)];
  }
  return out;
}

// The reader against FilteredRE2 on `rounds` random patterns of these pieces (RequiredLiterals too, on
// every tenth); it must answer more than one in `answered_in` of those RE2 accepts, with atoms more than
// one in `atoms_in` of those.
void AgreesOnRandomPatterns(unsigned seed, int rounds, const std::vector<std::string>& pieces, size_t answered_in,
                            size_t atoms_in) {
  std::mt19937 rng(seed);
  size_t tried = 0, answered = 0, with_atoms = 0;
  for (int round = 0; round < rounds; ++round) {
    const std::string p = RandomPattern(rng, 0, pieces);
    RE2 re(p, RegexOptions());
    if (!re.ok()) continue;
    ++tried;
    const bool a = AgreesWithFilteredRe2(p, &rng);
    answered += a;
    if (a && !ReadPatternPrefilter(p)->atoms().empty()) ++with_atoms;
    if (round % 10 == 0) SameRequiredLiterals(p, {});
    if (::testing::Test::HasFailure()) break;  // the first disagreement is the one to read
  }
  std::printf("ReadPatternPrefilter answered %zu of %zu random patterns RE2 accepts, %zu with atoms\n", answered, tried,
              with_atoms);
  EXPECT_GT(tried, static_cast<size_t>(rounds) * 2 / 3);
  EXPECT_GT(answered, tried / answered_in) << answered << " of " << tried;
  EXPECT_GT(with_atoms, answered / atoms_in) << with_atoms << " of " << answered;
}

TEST(PatternPrefilter, AgreesWithFilteredRe2OnRandomPatterns) { AgreesOnRandomPatterns(20261128, 30000, SubsetPieces(), 3, 4); }

TEST(PatternPrefilter, AgreesWithFilteredRe2OnRandomPatternsFoldingCase) {
  AgreesOnRandomPatterns(29112026, 20000, FoldPieces(), 4, 8);
}

// ProgramSizeBound (Note: [Program size bound]): a pattern it answers must be one RE2 accepts, whose
// program is at most the bound. Returns whether it answered.
bool BoundHolds(const std::string& pattern, long* bound_sum = nullptr, long* exact_sum = nullptr) {
  const std::optional<int> bound = ProgramSizeBound(pattern);
  if (!bound) return false;
  RE2 re(pattern, RegexOptions());
  EXPECT_TRUE(re.ok()) << "'" << pattern << "' is answered but RE2 refuses it: " << re.error();
  if (!re.ok()) return true;
  EXPECT_LE(re.ProgramSize(), *bound) << "'" << pattern << "'";
  if (bound_sum) *bound_sum += *bound;
  if (exact_sum) *exact_sum += re.ProgramSize();
  return true;
}

// PassesText: the atoms a text holds, its ASCII letters in lower case, through the AND/OR of the prefilter.
TEST(PatternPrefilter, PassesTextReadsTheAtomsTheTextHoldsInAnyCase) {
  const std::optional<PatternPrefilter> both = ReadPatternPrefilter("CUDA out of.*memory");
  ASSERT_TRUE(both.has_value());
  ASSERT_FALSE(both->atoms().empty());
  EXPECT_TRUE(both->PassesText("RuntimeError: CUDA out of GPU memory"));
  EXPECT_TRUE(both->PassesText("cuda OUT OF memory"));  // the gate folds case; the pattern decides
  EXPECT_FALSE(both->PassesText("CUDA out of time"));    // one side of the AND missing
  EXPECT_FALSE(both->PassesText(""));
  const std::optional<PatternPrefilter> either = ReadPatternPrefilter("(segfault|bus error)");
  ASSERT_TRUE(either.has_value());
  EXPECT_TRUE(either->PassesText("Bus error (core dumped)"));
  EXPECT_TRUE(either->PassesText("segfault at 0"));
  EXPECT_FALSE(either->PassesText("Killed"));
  const std::optional<PatternPrefilter> none = ReadPatternPrefilter(R"(\d+\.\d+)");  // no literal
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->atoms().empty());
  EXPECT_TRUE(none->PassesText("anything"));
}

TEST(ProgramSizeBound, HoldsOnEveryBundledPattern) {
  const std::vector<std::string> patterns = BundledPatterns();
  size_t answered = 0;
  long bound_sum = 0, exact_sum = 0;
  for (const std::string& p : patterns) answered += BoundHolds(p, &bound_sum, &exact_sum);
  std::printf("ProgramSizeBound answered %zu of %zu bundled patterns: bounds sum to %ld, their programs to %ld\n",
              answered, patterns.size(), bound_sum, exact_sum);
  // The point: most bundled patterns need no compile to be checked.
  EXPECT_GT(answered * 10, patterns.size() * 8) << answered << " of " << patterns.size();
}

// The other patterns a rule file holds: match.context and the conditions' message and input patterns,
// whose syntax check compiles only those ProgramSizeBound does not answer (Note: [Syntax checks without
// a compile] in rules/rule_reader.cc).
TEST(ProgramSizeBound, HoldsOnEveryBundledContextAndConditionPattern) {
  LoadOptions options;
  options.env_path = false;
  LoadResult loaded = LoadRules(options);
  std::vector<std::string> patterns;
  auto add = [&](const std::vector<Condition>& conditions) {
    for (const Condition& c : conditions) {
      for (const Text& t : c.message) patterns.push_back(t.value);
      for (const Text& t : c.input) patterns.push_back(t.value);
    }
  };
  for (size_t i = 0; i < loaded.rules->rules.size(); ++i) {
    const Rule& r = loaded.rules->Full(static_cast<int>(i));
    if (!r.context.value.empty()) patterns.push_back(r.context.value);
    add(r.unless);
    add(r.needs);
    for (const std::vector<Condition>& w : r.checks_when) add(w);
    for (const HypothesisSpec& h : r.hypotheses) {
      add(h.when_if);
      add(h.first);
    }
  }
  ASSERT_GT(patterns.size(), 50u);
  size_t answered = 0;
  for (const std::string& p : patterns) answered += BoundHolds(p);
  std::printf("ProgramSizeBound answered %zu of %zu bundled context and condition patterns\n", answered,
              patterns.size());
}

TEST(ProgramSizeBound, RefusesWhatRe2RefusesAndHoldsOnCraftedPatterns) {
  // Patterns at the subset's edges that RE2 may refuse (RE2 2022-06 accepts some, such as a repeated
  // capture name or a name starting with a digit): none that it refuses may be answered.
  const std::vector<std::string> refused = {
      "(", ")", "a)", "(a", "[a", "[]", "[^]", "[b-a]", "a**", "a*+", "a+*", "a??*", "a*??", "*a", "+a", "?a", "a|*b",
      "(?P<n>a)(?P<n>b)", "(?P<>a)", "(?P<1a>b)", "(?P<a", "\\", "a\\", "\\q", "\\1", "\\Z", "[\\q]", "[a-\\d]",
      "[\\d-z]", "(?P=n)", "x{2", "(*)", "(|*)", "a{,2}*", "(?i", "(?-)", "(?i-)", "(?--i)", "(?x)", "(?i)*", "(?i:",
      "\\x{}", "\\x{110000}", "\\xg1", "\\x4", "\\x{12", "[\\x{}]", "a\xff", "\xc3", "\xc0\x80", "\xed\xa0\x80",
      "[\xe4]", "\xf5\x80\x80\x80", "(?i)[b-a]", "(?P<n>a)(?i:(?P<n>b))"};
  for (const std::string& p : refused) {
    RE2 re(p, RegexOptions());
    if (re.ok()) continue;  // not one RE2 refuses after all: nothing to check
    EXPECT_FALSE(ProgramSizeBound(p)) << "'" << p << "' is refused by RE2: " << re.error();
  }
  const std::vector<std::string> crafted = {
      "", "a", "abc", ".", ".*", "[^\\n]*", "\\S+", "\\W", "[^a]", "[^\\x00]", "[^-]", "[a-]", "[-a]", "[]a]", "[.]",
      "(?:)", "()", "(|)", "a||b", "(?:a*)*", "(a*)+", "(?:^)*", "\\b*", "^*$+", "(?P<n>a)(?P<m>b)", "(?P<_x9>a)",
      "a*?b+?c??", "x(?:y|z|)w", "[\\d\\s\\w-]", "[\\]\\[\\\\]", "[\\^a]", "[^\\S\\n]", "[ -~]", "[!-/:-@]",
      "(((((((((a)))))))))", "(?:\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\^\\$)", "a}", "a]", "a{2}", "\\x41", "é",
      "(?i)abc", "\\pL", "[[:alpha:]]", "\\Qa\\E", "\\v", "\\a", "\\C", "\\_",
      // Flags, case folding (k and s fold to three runes), \x, characters outside ASCII.
      "(?i)k", "(?i)s", "(?i)K", "(?i)kS", "(?i)[k]", "(?i)[s-t]", "(?i)[a-z]", "(?i)[^a-z]", "(?i)[^k]", "(?i)[^\\n]",
      "(?i)\\w", "(?i)\\W", "(?i)[\\w]", "(?i)[\\w-]", "(?i)\\S\\D\\s\\d", "(?i)[_ ]", "(?i)[.,]", "(?i).", "(?s).",
      "(?s:.)*", "(?m)^a$", "(?m:^)b", "(?U)a+b*?", "(?ms-U:x.)y", "(?i:abc)def", "(?i)abc(?-i)def", "(?i)a(?:b(?-i)c)d",
      "a(?i)b|c", "(?)a", "(?i)", "((?i)k)s", "(?i)\\x6b", "(?i)\\x{212A}", "(?i)é", "(?i)\\x{3A3}", "(?i)\\x{1E9E}",
      "\\x27", "\\x{27}", "\\x{0000041}", "[\\x27\\n]", "[^\\x27\\n]+", "\\x{10FFFF}", "[\\x{80}-\\x{10FFFF}]",
      "\\x{D800}", "é", "[é]", "[^é]", "[à-ÿ]", "已杀死", "[(（]", "[:：]", "页面文件太小，无法完成操作", "𝔘", "[𝔘-𝔝]",
      "(?i)[(（]", "(?i)已杀死", "Файл", "(?i)Файл"};
  // Long runs of one piece, so that what each costs outweighs the program's slack.
  std::vector<std::string> runs;
  for (const char* piece : {"k", "S", "\\W", "[^s]", "ς", "\\x{212A}", "é", "[k-s]"}) {
    std::string run;
    for (int k = 0; k < 300; ++k) run += piece;
    runs.push_back(run);
    runs.push_back("(?i)" + run);
  }
  size_t answered = 0;
  for (const std::string& p : crafted) answered += BoundHolds(p);
  for (const std::string& p : runs) EXPECT_TRUE(BoundHolds(p)) << p.substr(0, 20);
  std::printf("ProgramSizeBound answered %zu of %zu crafted patterns\n", answered, crafted.size());
  EXPECT_GT(answered, crafted.size() / 2);
}

// The bound on `rounds` random patterns of these pieces, a stray metacharacter now and then so that
// patterns RE2 refuses are met too.
void BoundHoldsOnRandomPatterns(unsigned seed, int rounds, const std::vector<std::string>& pieces) {
  std::mt19937 rng(seed);
  size_t answered = 0, refused = 0;
  for (int round = 0; round < rounds; ++round) {
    std::string p = RandomPattern(rng, 0, pieces);
    if (rng() % 4 == 0) p.insert(rng() % (p.size() + 1), 1, "()[]*+?|\\-^{}"[rng() % 13]);
    if (!RE2(p, RegexOptions()).ok()) ++refused;
    answered += BoundHolds(p);
    if (::testing::Test::HasFailure()) break;  // the first failure is the one to read
  }
  std::printf("ProgramSizeBound answered %zu of %d random patterns (%zu refused by RE2)\n", answered, rounds, refused);
  EXPECT_GT(answered, 5000u);
  EXPECT_GT(refused, 1000u);
}

TEST(ProgramSizeBound, HoldsOnRandomPatterns) { BoundHoldsOnRandomPatterns(1128, 30000, SubsetPieces()); }

TEST(ProgramSizeBound, HoldsOnRandomPatternsWithFlagsAndRunesOutsideAscii) {
  BoundHoldsOnRandomPatterns(2911, 20000, FoldPieces());
}

}  // namespace
}  // namespace triage
