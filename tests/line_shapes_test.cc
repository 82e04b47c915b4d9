// Line shapes: the verdicts of stopped lines remembered by their digit-masked bytes (Note: [Line
// shapes] in engine/src/log/line_shapes.h), checked against the judgement they stand for.
#include "log/line_shapes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include <re2/re2.h>

#include "log/line_scanner.h"
#include "log/regex.h"
#include "rules/rule.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {

TEST(LineShapes, DigitBlindPatternTable) {
  const std::vector<std::pair<std::string, bool>> table = {
      {"worker \\d+ picked up job", true},
      {"no digit at all", true},
      {"[0-9]+ items", true},
      {"[^0-9]+ items 7", false},
      {"x{2,3}y", true},
      {"x{2}y{1,}", true},
      {"(?P<v1>\\w+) done", true},
      {"[^0-9a-f]", true},
      {"[!-~]+ 0x", false},
      {"[!-~]+\\d{2}", true},
      {"[[:digit:]]{3}", true},
      {"[[:alpha:]]{3}", true},
      {"\\d{4}-\\d\\d", true},
      {"[\\d.]{2}", true},
      {"(?i)worker\\s{2}", true},
      {"[]0-9]{2}", true},
      {"[-0-9]{2}", true},
      {"worker 16", false},
      {"worker (?:16|bf16)", false},
      {"[0-5]{2}", false},
      {"[^5]{2}", false},
      {"[1-9]\\d*", false},
      {"[+-5]{2}", false},
      {"[5-z]{2}", false},
      {"[a5]{2}", false},
      {"[]5]{2}", false},
      {"\\x31{2}", false},
      {"[\\x30-\\x39]{2}", false},
      {"\\061", false},
      {"(a)\\1", false},
      {"\\Q16\\E", false},
      {"\\pN{2}", false},
      {"a{,3}", false},
      {"a{3", false},
      {"x{2}1", false},
      {"(?P<v1>1)", false},
      {"[[:digit:]5]{2}", false},
  };
  for (const auto& [pattern, blind] : table) {
    EXPECT_EQ(DigitBlindPattern(pattern), blind) << pattern;
    // (read as RE2 reads it: a class opening with ']' holds it, '{' without a repetition is itself)
    if (blind) {
      EXPECT_TRUE(RE2(pattern, RegexOptions()).ok()) << pattern;
    }
  }
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What DigitBlindPattern says blind must be so: every bundled pattern it calls blind gives the same
// answer on corpus lines (and the rules' own examples) with their digits redrawn, and the table's
// patterns do on texts made of their own bytes and digits.
TEST(LineShapes, BlindPatternsIgnoreWhichDigits) {
  LoadOptions options;
  options.env_path = false;
  LoadResult bundled = LoadRules(options);
  ASSERT_TRUE(bundled.rules);
  std::vector<std::string> texts;
  for (const Rule& rule : bundled.rules->rules) {
    for (const Example& e : rule.examples) texts.push_back(e.text);
  }
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(TRIAGE_SOURCE_DIR) + "/corpus")) {
    if (entry.path().filename() != "log.txt" || entry.path().string().find("/heldout/") != std::string::npos) continue;
    std::istringstream in(ReadFile(entry.path()));
    for (std::string line; std::getline(in, line);) {
      if (line.find_first_of("0123456789") != std::string::npos && line.size() < 400) texts.push_back(line);
    }
  }
  std::mt19937 rng(15);
  int blind = 0, compared = 0, matched = 0;
  for (size_t p = 0; p < bundled.rules->regexes.size(); ++p) {
    const std::string& pattern = bundled.rules->regexes[p]->pattern();
    if (pattern.find_first_of("0123456789") == std::string::npos || !DigitBlindPattern(pattern)) continue;
    ++blind;
    const RE2& re = bundled.rules->regexes[p]->Get();
    for (const std::string& text : texts) {
      const bool match = RE2::PartialMatch(text, re);
      for (int v = 0; v < 3; ++v) {
        std::string other = text;
        for (char& c : other) {
          if (c >= '0' && c <= '9') c = static_cast<char>('0' + rng() % 10);
        }
        ++compared;
        matched += match;
        ASSERT_EQ(RE2::PartialMatch(other, re), match) << pattern << "\n" << text << "\n" << other;
      }
    }
  }
  std::printf("[ INFO     ] %d blind patterns with digits, %d comparisons, %d of matching texts\n", blind, compared,
              matched);
  EXPECT_GT(blind, 5);
  EXPECT_GT(matched, 100);
}

// MaskDigits against a byte-by-byte reference, every byte value, every length to 70 (the SSE2 blocks and
// the tail); equal masks hash alike.
TEST(LineShapes, MaskDigitsIsBytewise) {
  std::mt19937 rng(7);
  std::string got, again;
  for (size_t n = 0; n <= 70; ++n) {
    for (int round = 0; round < 200; ++round) {
      std::string text(n, '\0');
      for (char& c : text) c = static_cast<char>(round % 2 ? rng() % 256 : "09/:a5Z\x80\xff "[rng() % 10]);
      std::string want = text;
      for (char& c : want) c = (c >= '0' && c <= '9') ? '0' : c;
      const std::uint64_t h = MaskDigitsHashed(text, &got);
      ASSERT_EQ(got, want) << n;
      std::string redrawn = text;
      for (char& c : redrawn) c = (c >= '0' && c <= '9') ? static_cast<char>('0' + rng() % 10) : c;
      EXPECT_EQ(MaskDigitsHashed(redrawn, &again), h);
      MaskDigits(text, &again);
      EXPECT_EQ(again, want);
    }
  }
}

TEST(LineVerdicts, FindsWhatWasStoredForTheShape) {
  LineVerdicts v;
  EXPECT_EQ(v.Find("worker 12 picked up job 7"), LineVerdicts::kUnknown);
  v.Store(LineVerdicts::kInert);
  EXPECT_EQ(v.Find("worker 98 picked up job 3"), LineVerdicts::kInert);
  EXPECT_EQ(v.Find("worker 98 picked up job 31"), LineVerdicts::kUnknown);  // another width
  EXPECT_EQ(v.Find("worker 98 picked up job x"), LineVerdicts::kUnknown);
  EXPECT_EQ(v.Find("Worker 98 picked up job 3"), LineVerdicts::kUnknown);  // case is kept
  v.Store(LineVerdicts::kUndecided);
  EXPECT_EQ(v.Find("Worker 11 picked up job 5"), LineVerdicts::kUndecided);
  EXPECT_EQ(v.Find("worker 00 picked up job 0"), LineVerdicts::kInert);
  const std::string long_text(LineVerdicts::kMaxText + 1, 'a');
  EXPECT_EQ(v.Find(long_text), LineVerdicts::kUnknown);
  v.Store(LineVerdicts::kRead);  // too long: not kept
  EXPECT_EQ(v.Find(long_text), LineVerdicts::kUnknown);
  EXPECT_EQ(v.Find(""), LineVerdicts::kUnknown);
  v.Store(LineVerdicts::kRead);
  EXPECT_EQ(v.Find(""), LineVerdicts::kUnknown);
  // More shapes than slots: each lookup finds its own shape's verdict or none, never another's.
  for (int i = 0; i < 3 * static_cast<int>(LineVerdicts::kSlots); ++i) {
    const std::string text = "shape " + std::string(static_cast<size_t>(i % 7) + 1, 'x') + std::to_string(i) + std::string(static_cast<size_t>(i / 7), 'y');
    if (v.Find(text) == LineVerdicts::kUnknown) v.Store(i % 2 ? LineVerdicts::kInert : LineVerdicts::kRead);
  }
  for (int i = 0; i < 3 * static_cast<int>(LineVerdicts::kSlots); ++i) {
    const std::string text = "shape " + std::string(static_cast<size_t>(i % 7) + 1, 'x') + std::to_string(i) + std::string(static_cast<size_t>(i / 7), 'y');
    const LineVerdicts::Verdict got = v.Find(text);
    if (got != LineVerdicts::kUnknown) {
      EXPECT_EQ(got, i % 2 ? LineVerdicts::kInert : LineVerdicts::kRead) << text;
    }
  }
}

// Texts that never repeat a shape: after a window without hits the table rests for kRest texts (Active
// false), then looks again; a window where most texts are found keeps it on.
TEST(LineVerdicts, RestsWhereShapesDoNotRepeat) {
  LineVerdicts v;
  auto unique = [](unsigned i) {
    std::string t = "req=";
    for (; i > 0; i /= 6) t += static_cast<char>('a' + i % 6);
    return t;
  };
  unsigned i = 1;
  for (unsigned n = 0; n < LineVerdicts::kWindow; ++n) {
    ASSERT_TRUE(v.Active()) << n;
    if (v.Find(unique(i++)) == LineVerdicts::kUnknown) v.Store(LineVerdicts::kInert);
  }
  for (unsigned n = 0; n < LineVerdicts::kRest; ++n) ASSERT_FALSE(v.Active()) << n;
  EXPECT_TRUE(v.Active());
  for (unsigned n = 0; n < 4 * LineVerdicts::kWindow; ++n) {
    ASSERT_TRUE(v.Active()) << n;  // the same few shapes: found, so the table stays on
    if (v.Find("worker " + std::to_string(n % 5) + " done") == LineVerdicts::kUnknown) v.Store(LineVerdicts::kInert);
  }
}

std::string Rule(const std::string& id, const std::string& pattern, const std::string& example) {
  return "id: " + id + "\ncategory: autograd.no_grad_fn\ntitle: A test rule\nmatch: {message: '" + pattern +
         "'}\nexplain: x\nhypotheses: [{id: only, text: x, test: x, fix: x}]\nverify: x\nexamples: [{match: '" +
         example + "'}]\n";
}

std::shared_ptr<const RuleSet> WithoutPrefilter(LoadResult loaded) {
  std::shared_ptr<RuleSet> copy = std::const_pointer_cast<RuleSet>(loaded.rules);
  copy->prefilter.reset();
  return copy;
}

Report FeedWhole(std::shared_ptr<const RuleSet> rules, std::string_view text) {
  Session session(std::move(rules), {}, "-");
  session.Feed(text);
  return session.Finish();
}

// The log path with the verdicts by shape against the same rules without a prefilter (every line read),
// on a log where lines of one shape, stopped on a keyword and judged inert by the hundred, are followed
// by a line of the same shape that a rule matches: patterns that tell digits apart ("worker 16",
// "shard [0-3]", "gpu 7", "job [1-8]+": the last's literal, "picked up job ", has no digit, so the
// scanner stops on every such line), and one whose keyword holds a digit ("sm_90") beside a keyword of
// a digit-blind pattern ("kernel"). Each must be found; the lines of blind patterns' shapes are cached.
TEST(LineShapes, TheLogPathFindsWhatItWouldWithoutAPrefilter) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"worker-dtype.yaml",
       Rule("worker-dtype", "(?:^|[^\\w])worker(?:=|: | )(?P<dtype>16|bf16)(?:,|\\s|$)", "precision: worker=bf16, ok")},
      {"worker-stall.yaml", Rule("worker-stall", "worker \\d+ stalled for \\d+ s", "worker 12 stalled for 30 s")},
      {"replica-stall.yaml", Rule("replica-stall", "replica \\d+ stalled for \\d+ s\\b", "replica 12 stalled for 30 s")},
      {"shard-low.yaml", Rule("shard-low", "shard [0-3] failed to replicate", "shard 2 failed to replicate")},
      {"shard-any.yaml", Rule("shard-any", "shard \\d+ failed to replicate to \\w+", "shard 12 failed to replicate to b")},
      {"gpu-seven.yaml", Rule("gpu-seven", "gpu 7 lost from the node", "gpu 7 lost from the node")},
      {"job-low.yaml", Rule("job-low", "picked up job [1-8]+ from queue", "picked up job 5 from queue")},
      {"sm90.yaml", Rule("sm90", "\\bsm_90\\b", "built for sm_90 only")},
      {"kernel-ready.yaml", Rule("kernel-ready", "kernel \\w+ ready now", "kernel foo ready now")},
  };
  LoadResult with = LoadRulesFromStrings(files);
  ASSERT_TRUE(with.ok());
  ASSERT_TRUE(with.rules->prefilter);
  const LinePrefilter& pf = *with.rules->prefilter;
  EXPECT_TRUE(pf.shapes_blind);
  EXPECT_FALSE(pf.digit_keywords.empty());  // "sm_90", or a keyword of it with its digits
  std::string log;
  for (int i = 0; i < 300; ++i) {
    log += "precision: worker " + std::to_string(20 + i % 70) + " set\n";
    log += "scheduler picked up job " + std::string(i % 2 ? "9" : "0") + " from queue\n";
    log += "replica " + std::to_string(10 + i % 90) + " stalled for " + std::to_string(i % 9) + " ms\n";
    log += "shard " + std::to_string(4 + i % 6) + " failed to replicate\n";
    log += "gpu " + std::to_string(i % 7) + " lost from the node\n";
    log += "sm_" + std::to_string(10 + i % 80) + " kernel loaded, ready\n";
    log += "worker " + std::to_string(100 + i) + " stalled for " + std::to_string(i % 9) + " ms\n";
    if (i == 150) log += "precision: worker 16 set\n";
    if (i == 160) log += "scheduler picked up job 5 from queue\n";
    if (i == 250) log += "replica 42 stalled for 7 s\n";
    if (i == 170) log += "shard 2 failed to replicate\n";
    if (i == 190) log += "gpu 7 lost from the node\n";
    if (i == 210) log += "sm_90 kernel loaded, ready\n";
    if (i == 230) log += "worker 555 stalled for 4 s\n";
  }
  const Report got = FeedWhole(with.rules, log);
  std::set<std::string> ids;
  for (const Diagnosis& d : got.diagnoses) ids.insert(d.rule);
  EXPECT_EQ(ids, (std::set<std::string>{"worker-dtype", "worker-stall", "shard-low", "gpu-seven", "job-low", "sm90",
                                         "replica-stall"}));
  EXPECT_EQ(ToJson(got), ToJson(FeedWhole(WithoutPrefilter(LoadRulesFromStrings(files)), log)));
}

// A pattern without required literals that tells digits apart is matched on every line: no verdict can
// stand for a shape.
TEST(LineShapes, AnUnfilteredPatternWithDigitsTurnsShapesOff) {
  const std::vector<std::pair<std::string, std::string>> blind = {
      {"kernel-ready.yaml", Rule("kernel-ready", "kernel \\w+ ready now", "kernel foo ready now")}};
  LoadResult a = LoadRulesFromStrings(blind);
  ASSERT_TRUE(a.rules && a.rules->prefilter);
  EXPECT_TRUE(a.rules->prefilter->shapes_blind);
  std::vector<std::pair<std::string, std::string>> files = blind;
  files.push_back({"two-digits.yaml", Rule("two-digits", "^[0-4]\\d?$", "42")});
  LoadResult b = LoadRulesFromStrings(files);
  ASSERT_TRUE(b.rules && b.rules->prefilter);
  ASSERT_FALSE(b.rules->prefilter->unfiltered_patterns.empty());
  EXPECT_FALSE(b.rules->prefilter->shapes_blind);
}

}  // namespace
}  // namespace triage
