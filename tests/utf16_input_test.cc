// Note: [UTF-16 input] (engine/src/log/utf16_input.h): the encoding decided on the input's first bytes,
// the conversion to UTF-8 piece by piece, hostile UTF-16 (odd byte counts, lone surrogates), and the
// entry points that read a log through a Session: Engine::DiagnoseText, Session::Feed in pieces of any
// size, Snapshot, the CLI on a file, on stdin and in follow mode.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_support.h"
#include "log/segmenter.h"
#include "log/utf16_input.h"
#include "paste_forms.h"
#include "triage/triage.h"

namespace triage {
namespace {

using Order = Utf16Input::Order;

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s += static_cast<char>(b);
  return s;
}

std::string Convert(Order order, const std::string& data, size_t piece) {
  Utf16Input in(order);
  std::string out;
  for (size_t at = 0; at < data.size(); at += piece) in.Feed(std::string_view(data).substr(at, piece), &out);
  in.Finish(&out);
  return out;
}

TEST(Utf16Input, DetectsByteOrderMarksAndUnmarkedAsciiText) {
  struct Case {
    std::string head;
    Order order;
    size_t mark;
  };
  const std::vector<Case> cases = {
      {Bytes({0xff, 0xfe}), Order::kLittle, 2},  // a mark alone: a short input
      {Bytes({0xfe, 0xff, 0, 'T'}), Order::kBig, 2},
      {std::string("T\0r\0a\0c\0", 8), Order::kLittle, 0},
      {std::string("\0T\0r\0a\0c", 8), Order::kBig, 0},
      {std::string("\r\0\n\0E\0p\0", 8), Order::kLittle, 0},
      {"Traceba", Order::kNone, 0},     // shorter than kSniffBytes, no mark
      {"Traceback (most", Order::kNone, 0},
      {std::string("T\0r\0", 4), Order::kNone, 0},  // too short to tell without a mark
      {std::string(8, '\0'), Order::kNone, 0},       // NULs a killed writer left
      {std::string("\0Traceback", 10), Order::kNone, 0},
      {Bytes({0xef, 0xbb, 0xbf, 'T', 'r', 'a', 'c', 'e'}), Order::kNone, 0},  // UTF-8's mark
      {std::string("\xe4\xb8\x80\0a\0b\0", 9), Order::kNone, 0},
  };
  for (const Case& c : cases) {
    size_t mark = 99;
    EXPECT_EQ(Utf16Input::Detect(c.head.substr(0, Utf16Input::kSniffBytes), &mark), c.order)
        << testing::PrintToString(c.head);
    EXPECT_EQ(mark, c.mark) << testing::PrintToString(c.head);
  }
}

TEST(Utf16Input, ConvertsEveryPlaneInPiecesOfAnySize) {
  // ASCII, Latin-1, CJK, a character beyond the BMP (a surrogate pair), CRLF.
  const std::string text = "RuntimeError: caf\xc3\xa9 \xe6\x98\xbe\xe5\xad\x98 \xf0\x9f\x94\xa5\r\nnext\n";
  for (bool big : {false, true}) {
    const std::string utf16 = triage_test::Utf16(text, big, false);
    for (size_t piece : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, utf16.size()}) {
      EXPECT_EQ(Convert(big ? Order::kBig : Order::kLittle, utf16, piece), text) << big << " " << piece;
    }
  }
}

TEST(Utf16Input, HostileUnitsBecomeReplacementCharacters) {
  const std::string fffd = "\xef\xbf\xbd";
  struct Case {
    std::string le;  // little-endian bytes
    std::string want;
  };
  const std::vector<Case> cases = {
      {Bytes({0x00, 0xd8, 'A', 0}), fffd + "A"},                           // a high surrogate, then ASCII
      {Bytes({0x00, 0xdc, 'A', 0}), fffd + "A"},                           // a low surrogate alone
      {Bytes({'A', 0, 0x00, 0xd8}), "A" + fffd},                           // a high surrogate ends the input
      {Bytes({'A', 0, 'B'}), "A" + fffd},                                  // an odd byte ends the input
      {Bytes({0x00, 0xd8, 0x3d, 0xd8, 0x25, 0xdd}), fffd + "\xf0\x9f\x94\xa5"},  // high, then a whole pair
      {Bytes({0x00, 0xdc, 0x00, 0xd8}), fffd + fffd},
      {Bytes({0, 0, 'A', 0}), std::string("\0A", 2)},                     // a NUL unit stays a NUL byte
      {Bytes({'A'}), fffd},
      {"", ""},
  };
  for (const Case& c : cases) {
    for (size_t piece : {size_t{1}, size_t{3}, c.le.size() + 1}) {
      EXPECT_EQ(Convert(Order::kLittle, c.le, piece), c.want) << testing::PrintToString(c.le) << " piece " << piece;
    }
  }
}

const std::string kLog = triage_test::ReadFile(triage_test::kSrc + "/corpus/shape/linear-flattened-conv/log.txt");

std::shared_ptr<const RuleSet> Rules() {
  static const std::shared_ptr<const RuleSet> rules = [] {
    LoadResult r = triage_test::Bundled();
    EXPECT_TRUE(r.ok());
    return r.rules;
  }();
  return rules;
}

void ExpectSameReport(const Report& plain, const Report& got, const std::string& what) {
  ASSERT_FALSE(plain.diagnoses.empty());
  ASSERT_FALSE(got.diagnoses.empty()) << what;
  EXPECT_EQ(got.diagnoses[0].rule, plain.diagnoses[0].rule) << what;
  EXPECT_EQ(got.diagnoses[0].captures, plain.diagnoses[0].captures) << what;
  ASSERT_EQ(got.incidents.size(), plain.incidents.size()) << what;
  for (size_t i = 0; i < got.incidents.size(); ++i) {
    EXPECT_EQ(got.incidents[i].message, plain.incidents[i].message) << what;
    EXPECT_EQ(got.incidents[i].line_start, plain.incidents[i].line_start) << what;
    EXPECT_EQ(got.incidents[i].line_end, plain.incidents[i].line_end) << what;
    EXPECT_EQ(got.incidents[i].CulpritText(), plain.incidents[i].CulpritText()) << what;
  }
  EXPECT_EQ(got.lines, plain.lines) << what;
}

TEST(Utf16Input, ALogInUtf16GivesTheReportOfItsUtf8) {
  ASSERT_FALSE(kLog.empty());
  Engine engine(Rules());
  const Report plain = engine.DiagnoseText(kLog);
  const std::vector<std::string> lines = triage_test::Lines(kLog);
  const std::string crlf = triage_test::WithCrlf(lines);
  struct Form {
    const char* name;
    std::string bytes;
  };
  const std::vector<Form> forms = {
      {"le-bom-crlf", triage_test::Utf16(crlf, false, true)},
      {"be-bom", triage_test::Utf16(kLog, true, true)},
      {"le-unmarked", triage_test::Utf16(kLog, false, false)},
      {"be-unmarked", triage_test::Utf16(kLog, true, false)},
  };
  for (const Form& f : forms) {
    const Report whole = engine.DiagnoseText(f.bytes);
    ExpectSameReport(plain, whole, f.name);
    EXPECT_EQ(whole.bytes, f.bytes.size()) << f.name;
    for (size_t piece : {size_t{1}, size_t{3}, size_t{7}, size_t{4096}}) {
      Session session(Rules(), {}, f.name);
      for (size_t at = 0; at < f.bytes.size(); at += piece) {
        session.Feed(std::string_view(f.bytes).substr(at, piece));
        // A snapshot taken at every stage, also while the first bytes decide the encoding.
        if (at < 16 || at % 997 == 0) {
          EXPECT_FALSE(ToJson(session.Snapshot()).empty());
        }
      }
      EXPECT_LE(session.PeakBufferedBytes(), SegmenterOptions().max_line) << f.name;
      ExpectSameReport(plain, session.Finish(), std::string(f.name) + " in pieces of " + std::to_string(piece));
    }
  }
  // A snapshot of the whole input, fed in one piece, before Finish.
  Session session(Rules(), {}, "snapshot");
  session.Feed(forms[0].bytes);
  ExpectSameReport(plain, session.Snapshot(), "snapshot");
}

// Note: [UTF-16 appended to UTF-8]: the NUL that starts appended UTF-16LE text, and NULs that do not.
TEST(Utf16Input, StartsAppendedOnAsciiCharactersEachFollowedByANul) {
  struct Case {
    char before;
    std::string from_nul;
    bool appended;
  };
  const std::vector<Case> cases = {
      {'T', std::string("\0r\0a\0c\0", 8), true},
      {'\n', std::string("\0\r\0\n\0E", 7), true},   // a blank line first; exactly kSniffBytes - 1 bytes
      {'T', std::string("\0r\0a\0c", 6), false},     // too few bytes to tell
      {'\n', std::string("\0\0\0\0Tra", 8), false},  // NULs a killed writer left
      {'\n', std::string("\0Traceba", 8), false},    // one NUL before text
      {'\xe4', std::string("\0r\0a\0c\0", 8), false},  // not ASCII before the NUL
      {'T', std::string("\0\xe4\0a\0c\0", 8), false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Utf16Input::StartsAppended(c.before, c.from_nul), c.appended) << testing::PrintToString(c.from_nul);
  }
}

// A log a UTF-8 writer began, with its traceback appended as UTF-16LE (Windows PowerShell 5's `>>`), reads
// as the UTF-8 log: whole, in pieces of any size (the NUL that decides at a piece's end), after a byte order
// mark, and after NULs a killed writer left; an input whose NULs start no UTF-16 text is read as it is.
TEST(Utf16Input, Utf16AppendedToUtf8ReadsAsTheUtf8Log) {
  ASSERT_FALSE(kLog.empty());
  Engine engine(Rules());
  const std::vector<std::string> lines = triage_test::Lines(kLog);
  const size_t split = lines.size() / 2;
  const std::vector<std::string> head(lines.begin(), lines.begin() + static_cast<long>(split));
  const std::vector<std::string> tail(lines.begin() + static_cast<long>(split), lines.end());
  const Report plain = engine.DiagnoseText(kLog);
  ASSERT_FALSE(plain.diagnoses.empty());
  struct Form {
    const char* name;
    std::string bytes;
  };
  const std::string appended = triage_test::Utf16(triage_test::Join(tail), false, false);
  const std::vector<Form> forms = {
      {"appended", triage_test::Join(head) + appended},
      {"appended-mark", triage_test::Join(head) + triage_test::Utf16(triage_test::Join(tail), false, true)},
      {"appended-after-nuls", triage_test::Join(head) + std::string(5, '\0') + appended},
  };
  for (const Form& f : forms) {
    for (size_t piece : {f.bytes.size(), size_t{1}, size_t{3}, size_t{7}, size_t{4096}}) {
      Session session(Rules(), {}, f.name);
      for (size_t at = 0; at < f.bytes.size(); at += piece) session.Feed(std::string_view(f.bytes).substr(at, piece));
      const Report got = session.Finish();
      const std::string what = std::string(f.name) + " in pieces of " + std::to_string(piece);
      ASSERT_FALSE(got.diagnoses.empty()) << what;
      EXPECT_EQ(got.diagnoses[0].rule, plain.diagnoses[0].rule) << what;
      ASSERT_EQ(got.incidents.size(), plain.incidents.size()) << what;
      EXPECT_EQ(got.incidents.back().message, plain.incidents.back().message) << what;
      EXPECT_EQ(got.incidents.back().CulpritText(), plain.incidents.back().CulpritText()) << what;
      EXPECT_EQ(got.bytes, f.bytes.size()) << what;
    }
  }
  // NULs that start no UTF-16 text leave the rest read as UTF-8.
  const std::string nuls = triage_test::Join(head) + std::string("\0\0\0", 3) + triage_test::Join(tail);
  const Report r = engine.DiagnoseText(nuls);
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_EQ(r.diagnoses[0].rule, plain.diagnoses[0].rule);
}

TEST(Utf16Input, ShortAndEmptyInputs) {
  Engine engine(Rules());
  for (const std::string& input : {std::string(), Bytes({0xff}), Bytes({0xff, 0xfe}), Bytes({0xff, 0xfe, 'A'}),
                                   std::string("ab"), Bytes({0xfe, 0xff, 0xd8, 0x00})}) {
    const Report r = engine.DiagnoseText(input);
    EXPECT_TRUE(r.diagnoses.empty()) << testing::PrintToString(input);
    EXPECT_EQ(r.bytes, input.size());
  }
  // A one-line error shorter than the bytes that decide, in UTF-16 with its mark.
  const Report r = engine.DiagnoseText(triage_test::Utf16("E", false, true));
  EXPECT_TRUE(r.diagnoses.empty());
}

// The CLI reads a UTF-16 file, stdin and a followed file as their UTF-8 text.
TEST(Utf16Input, TheCommandReadsUtf16FilesStdinAndFollowMode) {
  using namespace triage_test;
  const std::string fixture = ReadFile(kFixture);
  ASSERT_FALSE(fixture.empty());
  TempDir dir("triage_utf16");
  const std::string path = dir.path + "/ps.log";
  std::ofstream(path, std::ios::binary) << Utf16(WithCrlf(Lines(fixture)), false, true);
  const ShellResult plain = Shell(Triage("--format json " + kFixture));
  ASSERT_NE(plain.out.find("linear-features"), std::string::npos) << plain.out;
  for (const std::string& args : {"--format json " + path, std::string("--format json - < ") + path,
                                  "--format json --follow " + path + " --settle 0.1 --idle-exit 0.5"}) {
    const ShellResult got = Shell(Triage(args));
    EXPECT_EQ(got.status, plain.status) << args;
    EXPECT_NE(got.out.find("\"rule\":\"linear-features\""), std::string::npos) << args << "\n" << got.out;
    EXPECT_NE(got.out.find("\"line_start\":1"), std::string::npos) << args << "\n" << got.out;
  }
}

}  // namespace
}  // namespace triage
