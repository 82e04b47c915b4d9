// Note: [Aligned continuations] (formats/aligned_continuation.h): a leveled log record that a handler
// (rich's RichHandler) wrapped onto lines indented to its message's column is classified as one line,
// and its incident spans its lines; lines indented otherwise, tracebacks and records a trigger took are
// read as before.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_support.h"
#include "log/formats/aligned_continuation.h"
#include "log/segmenter.h"
#include "triage/triage.h"
#include "segment_text.h"
#include "source_paths.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

// Lines holding `word` are rule hits (key 0).
Segmenter::Classifier Hits(std::string word) {
  return [word](std::string_view line) { return line.find(word) != std::string_view::npos ? 0 : -1; };
}

std::vector<Incident> Read(const std::string& text, Segmenter::Classifier classify) {
  return triage_test::SegmentText(text, std::move(classify));
}

const std::string kRecord = "02:54:18-197331 ERROR    Could not load torch: [WinError 126] Error loading";
const std::string kPiece = "\"C:\\venv\\lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of its dependencies.";
const std::string kColumn(25, ' ');  // where the record's message starts

TEST(FormatAlignedContinuation, MessageColumnOfRecordLines) {
  EXPECT_EQ(AlignedContinuationReader::MessageColumn(kRecord), 25u);
  EXPECT_EQ(AlignedContinuationReader::MessageColumn("[11/28/26 02:54:18] WARNING  low disk"), 29u);
  EXPECT_EQ(AlignedContinuationReader::MessageColumn("ERROR    no time shown"), 9u);
  // Not a record: another level, no blank after the level, a sentence before it, an indented line.
  EXPECT_EQ(AlignedContinuationReader::MessageColumn("02:54:18 INFO     loading"), 0u);
  EXPECT_EQ(AlignedContinuationReader::MessageColumn("ERROR:root:failed"), 0u);
  // A level not padded to a column: logging's usual formats, whose header the learned prefix strips.
  EXPECT_EQ(AlignedContinuationReader::MessageColumn("2024-05-01 12:00:01,123 ERROR Killed"), 0u);
  EXPECT_EQ(AlignedContinuationReader::MessageColumn("2024-05-01 12:00:01,123 - ERROR - failed"), 0u);
  EXPECT_EQ(AlignedContinuationReader::MessageColumn("the run ended with ERROR  code 3"), 0u);
  EXPECT_EQ(AlignedContinuationReader::MessageColumn("  02:54:18 ERROR    x"), 0u);
}

// The log path's prefilter never skips a record line: each level word holds an idle keyword.
TEST(FormatAlignedContinuation, EachLevelHoldsAnIdleKeyword) {
  for (const char* level : AlignedContinuationReader::kLevels) {
    std::string lower(level);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::vector<std::string>& keywords = Segmenter::IdleKeywords();
    EXPECT_TRUE(std::any_of(keywords.begin(), keywords.end(), [&](std::string k) {
      for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return lower.find(k) != std::string::npos;
    })) << level;
  }
}

TEST(FormatAlignedContinuation, TheJoinedRecordIsClassifiedAndSpansItsLines) {
  auto got = Read("start\n" + kRecord + "\n" + kColumn + kPiece + "\nnext\n", Hits("Error loading \""));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, Incident::Kind::kLogLine);
  EXPECT_EQ(got[0].line_start, 2);
  EXPECT_EQ(got[0].line_end, 3);
  EXPECT_EQ(got[0].message, kRecord + " " + kPiece);
}

TEST(FormatAlignedContinuation, ARecordLineThatHitGoesOn) {
  const std::string more = "and a third line of it";
  auto got = Read(kRecord + "\n" + kColumn + kPiece + "\n" + kColumn + more + "\n", Hits("Could not load torch"));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].line_start, 1);
  EXPECT_EQ(got[0].line_end, 3);
  EXPECT_EQ(got[0].count, 1);
  EXPECT_EQ(got[0].message, kRecord + " " + kPiece + " " + more);
}

TEST(FormatAlignedContinuation, RichsPathColumnIsCut) {
  const std::string record = "[23:52:12] WARNING  torch/_utils.py:776: UserWarning:        warnings.py:109";
  const std::string piece = "TypedStorage is deprecated.";
  const std::string indent(20, ' ');
  auto joined = Read(record + "\n" + indent + piece + "\n", Hits("UserWarning: TypedStorage"));
  ASSERT_EQ(joined.size(), 1u);
  EXPECT_EQ(joined[0].message, "[23:52:12] WARNING  torch/_utils.py:776: UserWarning: TypedStorage is deprecated.");
  // A record line that hit alone loses its path column once its text goes on.
  auto went_on = Read(record + "\n" + indent + piece + "\n", Hits("UserWarning:"));
  ASSERT_EQ(went_on.size(), 1u);
  EXPECT_EQ(went_on[0].message, joined[0].message);
}

// A record pasted inside one pair of Markdown inline backticks: the opening backtick is on the first
// line only, so the continuations keep the console's column (wild sdnext#2181); the joined text leaves
// the backtick out. A backtick before a line that is no record starts nothing.
TEST(FormatAlignedContinuation, ARecordOpenedByAnInlineBacktickKeepsItsColumn) {
  auto got = Read("`" + kRecord + "\n" + kColumn + kPiece + "\n", Hits("Error loading \""));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].line_start, 1);
  EXPECT_EQ(got[0].line_end, 2);
  EXPECT_EQ(got[0].message, kRecord + " " + kPiece);
  // Indented one further (to the column the backtick shifted the first line to): not joined.
  EXPECT_TRUE(Read("`" + kRecord + "\n" + std::string(26, ' ') + kPiece + "\n", Hits("Error loading \"")).empty());
  EXPECT_TRUE(Read("`Could not load torch: Error loading\n" + kColumn + kPiece + "\n", Hits("Error loading \"")).empty());
  // Behind a collector's time stamp on every line, the record being the log's first line.
  const std::string stamp = "2024-03-02T10:15:31.4812345Z ";
  auto stamped = Read(stamp + "`" + kRecord + "\n" + stamp + kColumn + kPiece + "\n", Hits("Error loading \""));
  ASSERT_EQ(stamped.size(), 1u);
  EXPECT_EQ(stamped[0].line_end, 2);
  EXPECT_EQ(stamped[0].message, kRecord + " " + kPiece);
}

TEST(FormatAlignedContinuation, OnlyTheMessagesOwnColumnContinues) {
  const Segmenter::Classifier classify = Hits("Error loading \"");
  // One column more or less, a tab, an INFO record, a line that is no record, a blank line between.
  for (const std::string& text :
       {kRecord + "\n" + std::string(26, ' ') + kPiece + "\n", kRecord + "\n" + std::string(24, ' ') + kPiece + "\n",
        kRecord + "\n\t" + kPiece + "\n",
        "02:54:18-197331 INFO     Could not load torch: Error loading\n" + kColumn + kPiece + "\n",
        "Could not load torch: [WinError 126] Error loading\n" + kColumn + kPiece + "\n",
        kRecord + "\n\n" + kColumn + kPiece + "\n"}) {
    EXPECT_TRUE(Read(text, classify).empty()) << text;
  }
  // The line indented otherwise is read alone, as before.
  auto alone = Read(kRecord + "\n" + std::string(27, ' ') + kPiece + "\n", Hits("fbgemm.dll"));
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(alone[0].line_start, 2);
  EXPECT_EQ(alone[0].message, kPiece);
}

TEST(FormatAlignedContinuation, TracebacksAfterARecordAreNotJoined) {
  const std::string record = "02:54:18-197331 ERROR    Training failed";
  // At column 0, and at the message's column (a handler that prints the exception in the message).
  for (const std::string& indent : {std::string(), kColumn}) {
    const std::string text = record + "\n" + indent + "Traceback (most recent call last):\n" + indent +
                             "  File \"train.py\", line 3, in <module>\n" + indent + "    main()\n" + indent +
                             "RuntimeError: CUDA error: out of memory\n";
    auto got = Read(text, Hits("Training failed"));
    ASSERT_EQ(got.size(), 2u) << text;
    EXPECT_EQ(got[0].kind, Incident::Kind::kLogLine);
    EXPECT_EQ(got[0].message, record);
    EXPECT_EQ(got[0].line_end, 1);
    EXPECT_EQ(got[1].kind, Incident::Kind::kTraceback);
    EXPECT_EQ(got[1].line_start, 2);
    EXPECT_EQ(got[1].line_end, 5);
    if (indent.empty()) {
      EXPECT_EQ(got[1].exception, "RuntimeError");
    }
  }
  // A frame or an exception line at the message's column is no continuation either.
  for (const std::string& line : {std::string("File \"train.py\", line 3, in <module>"), std::string("ValueError: bad")}) {
    auto got = Read(record + "\n" + kColumn + line + "\n", Hits("Training failed"));
    ASSERT_FALSE(got.empty());
    EXPECT_EQ(got[0].message, record) << line;
  }
}

// A record line a format's trigger took is that format's: its next line is not joined to it. Here the
// traceback before it taught the learned prefix (Note: [Learned prefix]), so the record's exception
// line is a bare error line.
TEST(FormatAlignedContinuation, ARecordATriggerTookIsNotJoined) {
  const std::string prefix = "02:54:18-197331 ERROR    ";
  const std::string text = prefix + "Traceback (most recent call last):\n" + prefix +
                           "  File \"train.py\", line 3, in <module>\n" + prefix + "    main()\n" + prefix +
                           "ValueError: first\n" + prefix + "RuntimeError: CUDA error: device-side assert triggered\n" +
                           kColumn + "see above\n";
  auto got = Read(text, Hits("see above"));
  ASSERT_EQ(got.size(), 3u);
  int error_lines = 0, log_lines = 0;
  for (const Incident& inc : got) {
    if (inc.kind == Incident::Kind::kErrorLine) {
      ++error_lines;
      EXPECT_EQ(inc.message, "CUDA error: device-side assert triggered");
      EXPECT_EQ(inc.line_end, 5);
    } else if (inc.kind == Incident::Kind::kLogLine) {
      ++log_lines;
      EXPECT_EQ(inc.line_start, 6);
      EXPECT_EQ(inc.message, "see above");
    }
  }
  EXPECT_EQ(error_lines, 1);
  EXPECT_EQ(log_lines, 1);
}

LoadResult Bundled() {
  LoadOptions o;
  o.system = o.user = o.project = o.env_path = o.cache = false;
  return LoadRules(o);
}

// The real case on the log path (prefilter on): the record is diagnosed, its incident spans both lines,
// and fed a byte at a time (as `triage --follow` reads) the report is the same; a snapshot taken
// after the record line alone has no incident yet.
TEST(FormatAlignedContinuation, KohyaRecordIsDiagnosedOnTheLogPath) {
  const std::string text = triage_test::ReadFile(
      (fs::path(TRIAGE_SOURCE_DIR) / "tests" / "formats" / "aligned_continuation" / "log.txt").string());
  ASSERT_FALSE(text.empty());
  LoadResult loaded = Bundled();
  ASSERT_TRUE(loaded.ok());
  Session whole(loaded.rules);
  whole.Feed(text);
  const Report r = whole.Finish();
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_EQ(r.diagnoses[0].rule, "torch-dll-load-windows");
  EXPECT_EQ(r.diagnoses[0].captures.at("code"), "126");
  const Incident& inc = r.incidents[r.diagnoses[0].incident];
  EXPECT_EQ(inc.line_start, 6);
  EXPECT_EQ(inc.line_end, 7);

  Session bytes(loaded.rules);
  const size_t second = text.find("\n                         \"") + 1;
  for (size_t i = 0; i < text.size(); ++i) {
    if (i == second) {
      EXPECT_TRUE(bytes.Snapshot(true).incidents.empty());
    }
    bytes.Feed(text.substr(i, 1));
  }
  const Report b = bytes.Finish();
  EXPECT_EQ(ToJson(b), ToJson(r));
}

// A continuation the log path's prefilter would skip (no keyword, no rule hit alone) is read all the
// same, and only a line with the record's indentation is asked for.
TEST(FormatAlignedContinuation, TheLogPathReadsAnInertContinuation) {
  const std::string record = "02:54:18-197331 ERROR    Could not load torch: [WinError 126] Error loading "
                             "\"C:\\venv\\lib\\site-packages\\torch\\lib\\fbgemm.dll\" or one of";
  const std::string text = "02:54:15-632812 INFO     Kohya_ss GUI version: v24.2.0\n" + record + "\n" + kColumn +
                           "its dependencies.\n02:54:19-000000 INFO     done\n";
  LoadResult loaded = Bundled();
  ASSERT_TRUE(loaded.ok());
  for (size_t chunk : {text.size(), size_t{1}, size_t{7}}) {
    Session session(loaded.rules);
    for (size_t i = 0; i < text.size(); i += chunk) session.Feed(text.substr(i, chunk));
    const Report r = session.Finish();
    ASSERT_EQ(r.diagnoses.size(), 1u) << "chunk " << chunk;
    EXPECT_EQ(r.diagnoses[0].rule, "torch-dll-load-windows");
    ASSERT_EQ(r.incidents.size(), 1u);
    EXPECT_EQ(r.incidents[0].line_start, 2);
    EXPECT_EQ(r.incidents[0].line_end, 3);
    EXPECT_EQ(r.incidents[0].message, record + " its dependencies.");
  }
  Segmenter seg(SegmenterOptions(), Hits("no such text"));
  seg.AddLine(record);
  EXPECT_TRUE(seg.WantsLine(kColumn + "its dependencies."));
  EXPECT_FALSE(seg.WantsLine(" " + kColumn + "its dependencies."));
  EXPECT_FALSE(seg.WantsLine("02:54:19-000000 INFO     done"));
  seg.AddLine("ordinary output");
  EXPECT_FALSE(seg.WantsLine(kColumn + "its dependencies."));
}

}  // namespace
}  // namespace triage
