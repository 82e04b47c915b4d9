// RuleSet::Match's two ways (Note: [Pattern set] in engine/src/rules/rule.h): each candidate's own
// regex, chosen by the line prefilter, must find exactly what the RE2::Set over every pattern finds,
// on every line and every incident of the corpus (corpus/heldout is never opened) and on patterns
// chosen to test the prefilter's argument (case, non-ASCII literals, no required literal, several
// lines); and a warm load compiles no set for a short log.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "log/line_scanner.h"
#include "rules/rule.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Describe(const std::vector<int>& v) {
  std::string out;
  for (int i : v) out += std::to_string(i) + " ";
  return out;
}

// Counts the texts on which MatchCandidates decided (and agreed) and expects agreement on all.
struct Agreement {
  const RuleSet& rules;
  int decided = 0, undecided = 0, matched = 0;

  void Check(std::string_view text, const std::string& where) {
    std::vector<int> lazy;
    const std::vector<int> full = rules.MatchWithSet(text);
    if (!rules.MatchCandidates(text, &lazy)) {
      ++undecided;
      return;
    }
    ++decided;
    matched += !full.empty();
    EXPECT_EQ(lazy, full) << where << ": candidates found {" << Describe(lazy) << "}, the set {" << Describe(full)
                          << "} in: " << std::string(text.substr(0, 300));
  }
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

TEST(PatternSet, CandidatesAgreeWithTheSetOnEveryCorpusLineAndIncident) {
  LoadOptions o;
  o.env_path = o.system = o.user = o.project = o.cache = false;
  LoadResult r = LoadRules(o);
  ASSERT_TRUE(r.ok());
  ASSERT_NE(r.rules->prefilter, nullptr);
  Agreement check{*r.rules};
  Engine engine(r.rules);
  int logs = 0;
  const fs::path corpus = fs::path(TRIAGE_SOURCE_DIR) / "corpus";
  for (const auto& family : fs::directory_iterator(corpus)) {
    if (!family.is_directory() || family.path().filename() == "heldout") continue;  // never opened
    for (const auto& entry : fs::recursive_directory_iterator(family.path())) {
      if (entry.path().filename() != "log.txt") continue;
      ++logs;
      const std::string where = entry.path().string();
      const std::string text = ReadAll(entry.path());
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);) {
        check.Check(line, where);
        check.Check(Trim(line), where);
      }
      for (const Incident& inc : engine.DiagnoseText(text).incidents) {
        check.Check(inc.message, where + " (incident message)");
        check.Check(inc.exception, where + " (incident exception)");
      }
    }
  }
  EXPECT_GT(logs, 500);
  // The candidate way decides nearly every text (else the test would check little), and the corpus
  // exercises matches, not only misses.
  EXPECT_GT(check.decided, 50 * check.undecided) << check.decided << " decided, " << check.undecided << " not";
  EXPECT_GT(check.matched, 1000);
  std::printf("%d logs: %d texts decided by candidates (%d with a match), %d left to the set\n", logs, check.decided,
              check.matched, check.undecided);
}

// A rule set compiles each pattern's regex and the set at their first need (Note: [Pattern set]), and
// embedders may call Match from several threads: a fresh set asked by four threads at once, each
// through both ways and in its own order, gives what a set asked by one thread gives.
TEST(PatternSet, FirstMatchesFromManyThreadsGiveWhatOneThreadGives) {
  LoadOptions o;
  o.env_path = o.system = o.user = o.project = o.cache = false;
  std::vector<std::string> texts;
  const fs::path corpus = fs::path(TRIAGE_SOURCE_DIR) / "corpus";
  for (const auto& family : fs::directory_iterator(corpus)) {
    if (!family.is_directory() || family.path().filename() == "heldout") continue;  // never opened
    for (const auto& entry : fs::recursive_directory_iterator(family.path())) {
      if (entry.path().filename() != "log.txt" || texts.size() > 6000) continue;
      std::istringstream lines(ReadAll(entry.path()));
      for (std::string line; std::getline(lines, line);) texts.push_back(line);
    }
  }
  ASSERT_GT(texts.size(), 3000u);
  LoadResult one = LoadRules(o);
  ASSERT_TRUE(one.ok());
  std::vector<std::vector<int>> want;
  size_t matched = 0;
  for (const std::string& t : texts) {
    want.push_back(one.rules->Match(t));
    matched += !want.back().empty();
  }
  EXPECT_GT(matched, 100u);
  LoadResult fresh = LoadRules(o);
  ASSERT_TRUE(fresh.ok());
  ASSERT_FALSE(fresh.rules->set_compiled());
  const RuleSet& rules = *fresh.rules;
  constexpr int kThreads = 4;
  std::vector<int> wrong(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (size_t k = 0; k < texts.size(); ++k) {
        // Each thread starts at its own place, every other one backwards; odd texts also through the set.
        const size_t i = t % 2 ? texts.size() - 1 - (k + t * texts.size() / kThreads) % texts.size()
                               : (k + t * texts.size() / kThreads) % texts.size();
        if (rules.Match(texts[i]) != want[i]) ++wrong[t];
        if (i % 2 && rules.MatchWithSet(texts[i]) != want[i]) ++wrong[t];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
  EXPECT_TRUE(rules.set_compiled());
}

TEST(PatternSet, CandidatesAgreeOnPatternsThatTestThePrefiltersArgument) {
  auto rule = [](const std::string& id, const std::string& pattern, const std::string& example) {
    return std::make_pair(id + ".yaml", "id: " + id + "\ncategory: shape.matmul_mismatch\ntitle: t\nmatch:\n  message: '" +
                                            pattern + "'\nexplain: e\nhypotheses:\n  - id: h\n    text: t\n    test: t\n"
                                            "    fix: f\nverify: ok\nexamples:\n  - match: '" + example + "'\n");
  };
  LoadResult r = LoadRulesFromStrings({
      rule("plain", "mat1 and mat2 shapes cannot be multiplied", "mat1 and mat2 shapes cannot be multiplied"),
      rule("folded", "(?i)CUDA out of memory", "CUDA out of memory"),
      rule("accented", "caf\xc3\xa9 cr\xc3\xa8me failed", "caf\xc3\xa9 cr\xc3\xa8me failed"),
      rule("accented-folded", "(?i)\xc3\x89T\xc3\x89 broken", "\xc3\x89T\xc3\x89 broken"),
      rule("no-literal", "^[0-9]+x[0-9]+$", "12x34"),
      rule("either", "(?:index out of range|out of bounds) in [a-z_]+", "index out of range in self"),
      rule("spans", "(?s)first part.*second part", "first part, second part"),
      // A required literal across a line break, as dynamo's "Explanation:" rule has: no keyword can
      // stand for it (a keyword never holds a '\n').
      rule("across", "(?P<what>[^\\n]+)\\n  Explanation: ", "x"),
      rule("anchored", "^Expected all tensors", "Expected all tensors to be on the same device"),
  });
  std::string all;
  for (const Problem& p : r.problems) all += p.ToString() + "\n";
  ASSERT_EQ(r.rules->rules.size(), 9u) << all;
  ASSERT_NE(r.rules->prefilter, nullptr);
  Agreement check{*r.rules};
  const std::vector<std::string> texts = {
      "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x5 and 6x7)",
      "MAT1 AND MAT2 SHAPES CANNOT BE MULTIPLIED",
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate",
      "cuda OUT OF MEMORY",
      "caf\xc3\xa9 cr\xc3\xa8me failed",
      "CAF\xc3\x89 CR\xc3\x88ME FAILED",
      "\xc3\xa9t\xc3\xa9 broken",
      "\xc3\x89T\xc3\x89 BROKEN",
      "12x34",
      " 12x34",
      "IndexError: index out of range in self",
      "value out of bounds in gather_op",
      "first part\nsomething in between\nsecond part",
      "second part then first part",
      "Data-dependent branching\n  Explanation: Detected data-dependent branching",
      "Data-dependent branching\n  explanation: lower case",
      "Data-dependent branching  Explanation: on one line",
      "Expected all tensors to be on the same device",
      "RuntimeError: Expected all tensors to be on the same device",
      "",
  };
  for (const std::string& t : texts) check.Check(t, "synthetic");
  EXPECT_EQ(check.undecided, 0);
  EXPECT_GE(check.matched, 10);
}

// Note: [Regex memory]: a pattern's regex is built with a small max_mem, or the default one when its
// program is large; either way both of its programs compile (a reverse program that did not would
// make every match with captures fail), for every bundled pattern and for patterns up to the 5000
// instructions the loader allows, and a match with captures finds what a regex with the default
// budget finds.
TEST(PatternSet, EveryPatternsRegexCompilesBothWaysUnderItsBudget) {
  LoadOptions o;
  o.env_path = o.system = o.user = o.project = o.cache = false;
  LoadResult r = LoadRules(o);
  ASSERT_TRUE(r.ok());
  std::vector<std::string> patterns;
  for (const Rule& rule : r.rules->rules) {
    for (const Text& p : rule.patterns) patterns.push_back(p.value);
  }
  // Large programs, up to the loader's 5000 instructions: alternations of many words.
  for (int words : {20, 60, 150, 300, 450}) {
    std::string alt;
    for (int i = 0; i < words; ++i) alt += (i ? "|" : "") + std::string("w") + std::to_string(i) + "q" + std::to_string(i * 7919 % 1000);
    patterns.push_back("step (?P<a>[0-9a-f]{1,8}) (?P<b>" + alt + ") done");
  }
  int large = 0;
  for (const std::string& p : patterns) {
    LazyRegex lazy(p);
    const RE2& re = lazy.Get();
    ASSERT_TRUE(re.ok()) << p.substr(0, 80);
    EXPECT_GE(re.ReverseProgramSize(), 0) << p.substr(0, 80);
    large += re.ProgramSize() > 2238;
  }
  EXPECT_GT(large, 0) << "no pattern took the default budget";
  const std::string text = "noise step 3f w449q" + std::to_string(449 * 7919 % 1000) + " done and more";
  RE2 plain(patterns.back(), RE2::Options());
  std::string a, b, a2, b2;
  ASSERT_TRUE(RE2::PartialMatch(text, plain, &a, &b));
  LazyRegex lazy(patterns.back());
  ASSERT_TRUE(RE2::PartialMatch(text, lazy.Get(), &a2, &b2));
  EXPECT_EQ(a, a2);
  EXPECT_EQ(b, b2);
}

// Note: [Group names kept aside]: a pattern's regex, compiled with its named groups written as plain
// ones, has the groups, names, numbers, program and matches of the pattern as written, for every
// bundled pattern and for patterns whose `(?P<` or `(` sits where the rewrite must leave it (classes,
// escapes, POSIX classes, flag groups); the rewrite declines what it does not read for sure.
TEST(PatternSet, NamedGroupsKeptAsideAnswerAsRE2) {
  LoadOptions o;
  o.env_path = o.system = o.user = o.project = o.cache = false;
  LoadResult r = LoadRules(o);
  ASSERT_TRUE(r.ok());
  std::vector<std::string> patterns = {
      R"(size (?P<a>\d+) vs (?P<b>\d+))",
      R"([(?P<x>] (?P<y>z))",                 // the first `(?P<` is inside a class
      R"([]((?P<x>] (?P<y>z) \((?P<w>q)\))",  // `]` first in a class; escaped parens
      R"([^](] (x)(?:y)(?i)(?P<n_1>Z)(?i:w))",
      R"([[:alpha:](] (?P<k>[[:digit:]]+)(?P<m>\]))",
      R"(a\\(?P<b>c)[\]](?P<d>e))",           // an escaped backslash before a group; `\]` in a class
      R"(\x{28}(?P<e>f)\pL+(g))",
  };
  for (const Rule& rule : r.rules->rules) {
    for (const Text& p : rule.patterns) patterns.push_back(p.value);
  }
  const std::vector<std::string> texts = {"size 3 vs 4", "( z", "(( z (q)", "]( xyZw", "a( 42]", "a\\c]e",
                                          "(fxg", "shape '[2, 3]' is invalid for input of size 7"};
  int aside = 0;
  for (const std::string& p : patterns) {
    RE2 plain(p, RegexOptions());
    LazyRegex lazy(p);
    const RE2& re = lazy.Get();
    ASSERT_EQ(re.ok(), plain.ok()) << p;
    if (!plain.ok()) continue;
    EXPECT_EQ(lazy.NamedGroups(), plain.NamedCapturingGroups()) << p;
    EXPECT_EQ(re.NumberOfCapturingGroups(), plain.NumberOfCapturingGroups()) << p;
    EXPECT_TRUE(re.ProgramSize() == plain.ProgramSize()) << p;
    aside += re.NamedCapturingGroups().empty() && !plain.NamedCapturingGroups().empty();
    const int n = plain.NumberOfCapturingGroups() + 1;
    for (const std::string& t : texts) {
      std::vector<re2::StringPiece> want(n), got(n);
      const bool hit = plain.Match(t, 0, t.size(), RE2::UNANCHORED, want.data(), n);
      ASSERT_EQ(re.Match(t, 0, t.size(), RE2::UNANCHORED, got.data(), n), hit) << p << " on " << t;
      for (int g = 0; hit && g < n; ++g) EXPECT_EQ(got[g], want[g]) << p << " on " << t << " group " << g;
    }
  }
  EXPECT_GT(aside, 300) << "few bundled patterns had their names kept aside";
  // Declined: no name; \Q; a name RE2 takes but the rewrite does not read; a repeated name (RE2
  // refuses it); an unclosed class; a `[:` without its `:]`.
  for (const char* p : {R"((a)(b))", R"(\Q(?P<a>x)\E(?P<b>y))", "(?P<\xc3\xa9>x)", R"((?P<a>x)(?P<a>y))",
                        R"([(?P<a>x))", R"([[:(?P<a>x)])"}) {
    std::string rewritten = p;
    std::map<std::string, int> names;
    int groups = -1;
    EXPECT_FALSE(UnnamedGroups(&rewritten, &names, &groups)) << p;
    EXPECT_EQ(rewritten, p);
    LazyRegex lazy(p);
    RE2 plain(p, RegexOptions());
    EXPECT_EQ(lazy.Get().ok(), plain.ok()) << p;
    if (plain.ok()) {
      EXPECT_EQ(lazy.NamedGroups(), plain.NamedCapturingGroups()) << p;
    }
  }
  std::string rewritten = R"([(?P<x>](?P<y>z)\((?:(?P<w>q)))";
  std::map<std::string, int> names;
  int groups = 0;
  ASSERT_TRUE(UnnamedGroups(&rewritten, &names, &groups));
  EXPECT_EQ(rewritten, R"([(?P<x>](z)\((?:(q)))");
  EXPECT_EQ(names, (std::map<std::string, int>{{"y", 1}, {"w", 2}}));
  EXPECT_EQ(groups, 2);
}

TEST(PatternSet, AWarmLoadDiagnosesAShortLogWithoutCompilingTheSet) {
  const std::string dir = (fs::temp_directory_path() / ("triage-pattern-set-" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  LoadOptions o;
  o.env_path = o.system = o.user = o.project = false;
  o.cache_dir = dir;
  // No entry: the patterns' program sizes bound the set far below what RE2 refuses, so it waits for
  // its first need as on a hit (Note: [Set size bound] in rule_loader.cc).
  LoadResult cold = LoadRules(o);
  EXPECT_FALSE(cold.rules->set_compiled());
  LoadResult warm = LoadRules(o);
  fs::remove_all(dir);
  ASSERT_TRUE(warm.ok());
  EXPECT_FALSE(warm.rules->set_compiled());
  Report report = Engine(warm.rules).DiagnoseText(
      "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    y = model(x)\n"
      "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)\n");
  ASSERT_FALSE(report.diagnoses.empty());
  EXPECT_EQ(report.diagnoses[0].rule, "linear-in-features");
  EXPECT_FALSE(warm.rules->set_compiled());
  // Past kMatchesBeforeSet calls the set is compiled and used, with the same results.
  std::vector<int> first = warm.rules->Match("RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x5 and 6x7)");
  for (int i = 0; i < RuleSet::kMatchesBeforeSet; ++i) warm.rules->Match("an ordinary line");
  EXPECT_TRUE(warm.rules->set_compiled());
  EXPECT_EQ(warm.rules->Match("RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x5 and 6x7)"), first);
  EXPECT_FALSE(first.empty());
}

// Note: [Typographic characters]: a line pasted with no-break spaces or curly quotes reaches the rules,
// through the line prefilter too (the watchdog line holds no segmenter keyword of its own).
TEST(PatternSet, TypographicCharactersReachTheRules) {
  LoadOptions o;
  o.env_path = o.system = o.user = o.project = false;
  LoadResult r = LoadRules(o);
  ASSERT_TRUE(r.ok());
  Engine e(r.rules);
  std::string watchdog =
      "[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=469508, "
      "OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1802212 milliseconds before timing out.\n";
  for (size_t at = watchdog.find(' '); at != std::string::npos; at = watchdog.find(' ', at + 2)) watchdog.replace(at, 1, "\xc2\xa0");
  Report nbsp = e.DiagnoseText(watchdog);
  ASSERT_FALSE(nbsp.diagnoses.empty());
  EXPECT_EQ(nbsp.diagnoses[0].rule, "nccl-watchdog-timeout");
  Report quotes = e.DiagnoseText("AttributeError: module \xe2\x80\x98torch.library\xe2\x80\x99 has no attribute \xe2\x80\x98register_fake\xe2\x80\x99\n");
  ASSERT_FALSE(quotes.diagnoses.empty());
  EXPECT_EQ(quotes.diagnoses[0].rule, "torch-too-old-for-library");
}

// A rule set whose RE2::Set RE2 refuses (past ~7,000 patterns: over the set's 64 MiB) loses no rule
// (Note: [Pattern set]): a cached load of such a set is handed a failed set (SetCompiled(nullptr)), as
// here, and Match then asks the candidates, however many, or every pattern's own regex without a
// prefilter, before and after kMatchesBeforeSet calls: the hits of a set that compiled. Before
// 2026-11-28 such a rule set matched nothing.
TEST(PatternSet, ARuleSetWhoseSetDidNotCompileStillMatchesEveryPattern) {
  const std::string dir = (fs::temp_directory_path() / ("triage-failed-set-" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  LoadOptions o;
  o.env_path = o.system = o.user = o.project = false;
  o.cache_dir = dir;
  LoadResult compiled = LoadRules(o);
  ASSERT_NE(compiled.rules->Set(), nullptr);  // compiles it
  LoadResult failed = LoadRules(o);
  LoadResult bare = LoadRules(o);
  fs::remove_all(dir);
  ASSERT_FALSE(failed.rules->set_compiled());
  ASSERT_FALSE(bare.rules->set_compiled());
  // What Compile does for a cached load whose set failed; `bare` has no prefilter either.
  const_cast<RuleSet&>(*failed.rules).SetCompiled(nullptr);
  const_cast<RuleSet&>(*bare.rules).SetCompiled(nullptr);
  const_cast<RuleSet&>(*bare.rules).prefilter = nullptr;
  ASSERT_EQ(failed.rules->Set(), nullptr);

  std::vector<std::string> texts;
  const fs::path corpus = fs::path(TRIAGE_SOURCE_DIR) / "corpus";
  for (const char* family : {"shape", "cuda", "data"}) {
    for (const auto& entry : fs::recursive_directory_iterator(corpus / family)) {
      if (entry.path().filename() != "log.txt") continue;
      const std::string text = ReadAll(entry.path());
      texts.push_back(text.substr(0, 2000));  // several lines: always by the candidates
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);) texts.push_back(line);
    }
  }
  // A line with more than kCandidatesBeforeSet candidates goes to the set before the count is reached.
  std::string many;
  for (const std::string& k : compiled.rules->prefilter->Scanner().keywords()) many += k + " ";
  texts.push_back(many);
  ASSERT_GT(texts.size(), 1000u);
  int matched = 0;
  auto check = [&](const char* when) {
    for (const std::string& t : texts) {
      const std::vector<int> want = compiled.rules->MatchWithSet(t);
      matched += !want.empty();
      EXPECT_EQ(failed.rules->Match(t), want) << when << ": " << t.substr(0, 200);
      EXPECT_EQ(bare.rules->Match(t), want) << when << ", no prefilter: " << t.substr(0, 200);
    }
  };
  check("first calls");
  for (int i = 0; i < RuleSet::kMatchesBeforeSet; ++i) failed.rules->Match("an ordinary line");
  for (int i = 0; i < RuleSet::kMatchesBeforeSet; ++i) bare.rules->Match("an ordinary line");
  check("past kMatchesBeforeSet calls");
  EXPECT_GT(matched, 100);
  EXPECT_EQ(failed.rules->Set(), nullptr);
}

}  // namespace
}  // namespace triage
