// Hostile input: nothing a log can hold may crash the engine, break the JSON output contract, or make
// a Session hold more than one (cut) line of input. Memory is asserted on the Session's own accounting
// (PeakBufferedBytes), never on timing; the multi-GB file check lives in tests/bench/throughput.sh.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <random>
#include <sstream>

#include "cli_support.h"
#include "log/segmenter.h"
#include "triage/triage.h"
#include "source_paths.h"

namespace triage {
namespace {

// A strict RFC 8259 checker: returns "" when `s` is one valid JSON value, else what is wrong and where.
class JsonChecker {
 public:
  explicit JsonChecker(std::string_view s) : s_(s) {}
  std::string Check() {
    Ws();
    if (!Value(0)) return error_ + " at byte " + std::to_string(i_);
    Ws();
    if (i_ != s_.size()) return "trailing bytes at " + std::to_string(i_);
    return "";
  }

 private:
  bool Fail(const char* what) {
    if (error_.empty()) error_ = what;
    return false;
  }
  void Ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool Lit(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return Fail("bad literal");
    i_ += w.size();
    return true;
  }
  bool Value(int depth) {
    if (depth > 64) return Fail("too deep");
    if (i_ >= s_.size()) return Fail("unexpected end");
    char c = s_[i_];
    if (c == '{') return Object(depth);
    if (c == '[') return Array(depth);
    if (c == '"') return String();
    if (c == 't') return Lit("true");
    if (c == 'f') return Lit("false");
    if (c == 'n') return Lit("null");
    return Number();
  }
  bool Object(int depth) {
    ++i_;
    Ws();
    if (i_ < s_.size() && s_[i_] == '}') { ++i_; return true; }
    while (true) {
      Ws();
      if (i_ >= s_.size() || s_[i_] != '"' || !String()) return Fail("bad key");
      Ws();
      if (i_ >= s_.size() || s_[i_++] != ':') return Fail("missing ':'");
      Ws();
      if (!Value(depth + 1)) return false;
      Ws();
      if (i_ >= s_.size()) return Fail("unterminated object");
      if (s_[i_] == ',') { ++i_; continue; }
      if (s_[i_] == '}') { ++i_; return true; }
      return Fail("bad object");
    }
  }
  bool Array(int depth) {
    ++i_;
    Ws();
    if (i_ < s_.size() && s_[i_] == ']') { ++i_; return true; }
    while (true) {
      Ws();
      if (!Value(depth + 1)) return false;
      Ws();
      if (i_ >= s_.size()) return Fail("unterminated array");
      if (s_[i_] == ',') { ++i_; continue; }
      if (s_[i_] == ']') { ++i_; return true; }
      return Fail("bad array");
    }
  }
  bool String() {
    ++i_;
    while (i_ < s_.size()) {
      unsigned char c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') { ++i_; return true; }
      if (c < 0x20) return Fail("raw control byte in string");
      if (c == '\\') {
        if (++i_ >= s_.size()) return Fail("bad escape");
        char e = s_[i_];
        if (e == 'u') {
          for (int k = 1; k <= 4; ++k) {
            if (i_ + k >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_ + k]))) return Fail("bad \\u");
          }
          i_ += 5;
          continue;
        }
        if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) return Fail("bad escape");
        ++i_;
        continue;
      }
      if (c >= 0x80) {  // JSON text is UTF-8: the sequence must be valid
        int len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (len == 0 || c == 0xC0 || c == 0xC1 || i_ + len > s_.size()) return Fail("invalid UTF-8");
        for (int k = 1; k < len; ++k) {
          if ((static_cast<unsigned char>(s_[i_ + k]) & 0xC0) != 0x80) return Fail("invalid UTF-8");
        }
        i_ += len;
        continue;
      }
      ++i_;
    }
    return Fail("unterminated string");
  }
  bool Number() {
    size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.' || s_[i_] == 'e' ||
                              s_[i_] == 'E' || s_[i_] == '+' || s_[i_] == '-')) {
      ++i_;
    }
    return i_ > start || Fail("bad value");
  }

  std::string_view s_;
  size_t i_ = 0;
  std::string error_;
};

std::shared_ptr<const RuleSet> Rules() { return triage_test::DefaultRulesOnce(); }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Feeds like the CLI does (1 MiB reads), then checks the report's JSON and the Session's accounting.
Report FeedLikeCli(std::string_view input, const std::string& name) {
  Session session(Rules(), {}, name);
  const size_t kRead = 1 << 20;
  for (size_t i = 0; i < input.size(); i += kRead) session.Feed(input.substr(i, kRead));
  Report report = session.Finish();
  std::string json = ToJson(report);
  EXPECT_EQ(JsonChecker(json).Check(), "") << name << ": " << json.substr(0, 300);
  EXPECT_LE(session.PeakBufferedBytes(), SegmenterOptions().max_line) << name;
  EXPECT_EQ(report.bytes, input.size()) << name;
  return report;
}

const char kTraceback[] =
    "Traceback (most recent call last):\n"
    "  File \"/work/main/corpus/formats/cpp-stacktraces-env/script.py\", line 7, in <module>\n"
    "    picked = scores.gather(1, index)\n"
    "RuntimeError: index 7 is out of bounds for dimension 1 with size 5\n";

TEST(HostileInput, InvalidUtf8InsideATraceback) {
  std::string log = kTraceback;
  log.insert(log.find("index 7"), "\xff\xfe\xc3(\xe2\x82 ");
  Report r = FeedLikeCli(log, "invalid-utf8");
  ASSERT_EQ(r.incidents.size(), 1u);
  EXPECT_NE(r.incidents[0].message.find("index 7 is out of bounds"), std::string::npos);
}

TEST(HostileInput, NulBytesDoNotCutLinesOrCrash) {
  std::string log = std::string("epoch 1\0\0 loss 0.5\n", 19) + kTraceback;
  log.insert(log.find("dimension"), std::string(3, '\0'));
  Report r = FeedLikeCli(log, "nul");
  ASSERT_EQ(r.incidents.size(), 1u);
  EXPECT_EQ(r.incidents[0].line_start, 2);
  EXPECT_EQ(r.incidents[0].exception, "RuntimeError");
}

TEST(HostileInput, HundredMegabyteLineIsCutToMaxLine) {
  std::string log = "step 1 loss 0.5\n";
  log += std::string(100u << 20, 'x');
  log += "Error\n";
  log += kTraceback;
  Report r = FeedLikeCli(log, "100MB-line");
  EXPECT_EQ(r.lines, 6u);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_EQ(r.warnings[0].code, "long-line") << r.warnings[0].ToString();
  // The traceback after the huge line is still found, on the right line.
  ASSERT_FALSE(r.incidents.empty());
  EXPECT_EQ(r.incidents.back().line_start, 3);
  EXPECT_EQ(r.incidents.back().exception, "RuntimeError");
  // Also whole, in one Feed call (an embedder with the file in memory).
  Session session(Rules(), {}, "whole");
  session.Feed(log);
  Report whole = session.Finish();
  EXPECT_EQ(JsonChecker(ToJson(whole)).Check(), "");
  EXPECT_LE(session.PeakBufferedBytes(), SegmenterOptions().max_line);
}

TEST(HostileInput, BinaryGarbage) {
  std::mt19937 rng(42);
  for (size_t size : {size_t{1}, size_t{4096}, size_t{3} << 20}) {
    std::string junk(size, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    FeedLikeCli(junk, "garbage-" + std::to_string(size));
    // Garbage with real error lines mixed in: still no crash, still valid JSON.
    FeedLikeCli(junk + kTraceback + junk, "garbage-around-traceback-" + std::to_string(size));
  }
}

TEST(HostileInput, CrlfGivesTheSameDiagnosisAsLf) {
  std::string lf = ReadFile(std::string(TRIAGE_SOURCE_DIR) + "/corpus/formats/cpp-stacktraces-env/log.txt");
  ASSERT_FALSE(lf.empty());
  std::string crlf;
  for (char c : lf) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  Report a = FeedLikeCli(lf, "lf");
  Report b = FeedLikeCli(crlf, "crlf");
  ASSERT_FALSE(a.diagnoses.empty());
  ASSERT_EQ(a.diagnoses.size(), b.diagnoses.size());
  EXPECT_EQ(a.diagnoses[0].rule, b.diagnoses[0].rule);
  EXPECT_EQ(a.diagnoses[0].captures, b.diagnoses[0].captures);
  ASSERT_EQ(a.incidents.size(), b.incidents.size());
  EXPECT_EQ(a.incidents[0].message, b.incidents[0].message);
  EXPECT_EQ(a.incidents[0].line_end, b.incidents[0].line_end);
}

TEST(HostileInput, OnlyCarriageReturns) {
  for (size_t size : {size_t{1}, size_t{70000}, size_t{5} << 20}) {
    Report r = FeedLikeCli(std::string(size, '\r'), "cr-" + std::to_string(size));
    EXPECT_TRUE(r.diagnoses.empty());
    EXPECT_TRUE(r.incidents.empty());
  }
  // Carriage returns with newlines: many blank lines.
  std::string mixed;
  for (int i = 0; i < 100000; ++i) mixed += "\r\r\n";
  Report r = FeedLikeCli(mixed, "cr-lf-blank");
  EXPECT_EQ(r.lines, 100000u);
  EXPECT_TRUE(r.incidents.empty());
}

// Issue 14: the crash that ended a run comes after thousands of other incidents.
std::string Repeated(int copies, bool distinct) {
  std::string log;
  for (int i = 0; i < copies; ++i) {
    std::string n = distinct ? std::to_string(i) : "17";
    log += "Traceback (most recent call last):\n  File \"/work/train.py\", line 10, in <module>\n    batch = load()\n"
           "  File \"/work/train.py\", line 5, in load\n    raise ValueError('bad record')\nValueError: bad record " +
           n + "\n";
  }
  return log;
}

TEST(HostileInput, TheCrashAfterThousandsOfIdenticalTracebacksIsKept) {
  Report r = FeedLikeCli(Repeated(2501, false) + kTraceback, "repeated");
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_EQ(r.diagnoses[0].rule, "tensor-index-out-of-bounds");
  // Merging identical incidents made the room: nothing was dropped.
  ASSERT_EQ(r.incidents.size(), 2u);
  EXPECT_EQ(r.incidents[0].count, 2501);
  EXPECT_EQ(r.incidents[1].line_start, 2501 * 6 + 1);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings[0].ToString();
}

TEST(HostileInput, TheFirstAndTheNewestOfThousandsOfDistinctIncidentsAreKept) {
  const int kCopies = 3 * SegmenterOptions().max_incidents;
  Report r = FeedLikeCli(Repeated(kCopies, true) + kTraceback, "distinct");
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_EQ(r.diagnoses[0].rule, "tensor-index-out-of-bounds");
  EXPECT_LE(r.incidents.size(), static_cast<size_t>(SegmenterOptions().max_incidents));
  EXPECT_EQ(r.incidents.front().message, "bad record 0");
  EXPECT_EQ(r.incidents.front().line_start, 1);
  EXPECT_EQ(r.incidents.back().line_start, kCopies * 6 + 1);
  EXPECT_EQ(r.incidents[r.incidents.size() - 2].message, "bad record " + std::to_string(kCopies - 1));
  ASSERT_EQ(r.warnings.size(), 1u);
  const Problem& w = r.warnings[0];
  EXPECT_EQ(w.code, "too-many-incidents");
  // Every incident is either kept or counted as dropped, and the warning says which lines.
  EXPECT_EQ(w.message.find(std::to_string(kCopies + 1 - r.incidents.size()) + " incident(s) in lines "), 0u)
      << w.message;
  EXPECT_NE(w.message.find("the first and the newest are kept"), std::string::npos) << w.message;
}

// A tqdm bar rewritten for more than max_line bytes, then the traceback printed after its last state
// (no newline in between): the terminal shows the traceback, and so must the report.
std::string ProgressBarThenCrash(int steps) {
  std::string log = "epoch 1\n";
  for (int i = 0; i < steps; ++i) {
    log += "\r" + std::to_string(i * 100 / steps) + "%|" + std::string(i * 20 / steps, '#') + "| " +
           std::to_string(i) + "/" + std::to_string(steps) + " [00:01<00:00, 9.50it/s]";
  }
  return log + "\r" + kTraceback;
}

TEST(HostileInput, ALongProgressBarBeforeATracebackKeepsTheCulpritAndWarns) {
  const std::string log = ProgressBarThenCrash(3000);
  ASSERT_GT(log.size(), 2 * SegmenterOptions().max_line);
  // However the bytes arrive: one buffer, the CLI's reads, small chunks that split the line.
  for (size_t chunk : {log.size(), size_t{1} << 20, size_t{4000}, size_t{65537}}) {
    Session session(Rules(), {}, "bar");
    for (size_t i = 0; i < log.size(); i += chunk) session.Feed(std::string_view(log).substr(i, chunk));
    Report r = session.Finish();
    EXPECT_LE(session.PeakBufferedBytes(), SegmenterOptions().max_line) << chunk;
    ASSERT_FALSE(r.incidents.empty()) << chunk;
    EXPECT_EQ(r.incidents[0].line_start, 2) << chunk;
    EXPECT_EQ(r.incidents[0].CulpritText(), "script.py:7 in <module>: picked = scores.gather(1, index)") << chunk;
    ASSERT_EQ(r.warnings.size(), 1u) << chunk;
    EXPECT_EQ(r.warnings[0].code, "long-line");
    EXPECT_NE(r.warnings[0].message.find("1 of them rewritten with carriage returns"), std::string::npos)
        << r.warnings[0].message;
  }
}

}  // namespace
}  // namespace triage
