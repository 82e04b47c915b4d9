// Note: [Wrapped quotes] (formats/python_traceback.h): a message line wrapped inside a quoted path, as a
// terminal or an issue form breaks a long line, is read as the line it was. Each Windows DLL failure of
// the corpus (ours and the wild tuning split, never corpus/heldout) read as an exception's message is
// wrapped inside the quoted DLL path at several columns; the diagnosis must be the one of the log as it
// was pasted.
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_support.h"
#include "triage/triage.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) { return triage_test::ReadFile(p.string()); }

LoadResult Bundled() {
  LoadOptions o;
  o.system = o.user = o.project = o.env_path = o.cache = false;
  return LoadRules(o);
}

// Logs whose exception line names a DLL in plain double quotes (a JSON-escaped one is another format).
// The join is a reader's (it extends an incident's message), so a log qualifies when its DLL line is
// read as an exception's message. A line no reader opens (one real paste capitalises the type,
// "OSERROR: [WinError 126] ...", which is no Python exception line; another, pantella-14-embedded-python-
// fbgemm-dll of batch 2026-11-30c-kb-wild, pasted the message without its type, "[WinError 126] ...") is
// matched by the rules line by line and has no message to join; `skipped` counts those.
std::vector<fs::path> DllLogs(const LoadResult& rules, int* skipped) {
  std::vector<fs::path> out;
  for (const fs::path& log : triage_test::CorpusLogs()) {
    const std::string text = Slurp(log);
    if (text.find("Error loading \"") == std::string::npos || text.find(".dll\"") == std::string::npos) continue;
    Session s(rules.rules);
    s.Feed(text);
    bool in_message = false;
    for (const Incident& inc : s.Finish().incidents) {
      in_message = in_message || (std::string(IncidentKindName(inc.kind)) != "log_line" && inc.message.find("Error loading \"") != std::string::npos);
    }
    if (in_message) {
      out.push_back(log);
    } else {
      ++*skipped;
    }
  }
  return out;
}

// Breaks `text` with a newline at four columns of the path between `open` and `close` (`first`, a third
// and two thirds in, just before `close`) and expects each form to keep the diagnosis `plain` (rule and
// captures). Returns the number of forms checked.
int ExpectWrapsKeepDiagnosis(const Engine& engine, const fs::path& log, const std::string& text, const Report& plain,
                             size_t open, size_t close, size_t first) {
  int wrapped = 0;
  for (size_t at : {first, open + (close - open) / 3, open + 2 * (close - open) / 3, close - 1}) {
    std::string cut = text;
    cut.insert(at, "\n");
    const Report r = engine.DiagnoseText(cut, triage_test::LeaveOut(log));  // never its own case's answer
    EXPECT_FALSE(r.diagnoses.empty()) << log << " wrapped at " << at - open;
    if (r.diagnoses.empty()) continue;
    EXPECT_EQ(r.diagnoses[0].rule, plain.diagnoses[0].rule) << log << " wrapped at " << at - open;
    EXPECT_EQ(r.diagnoses[0].captures, plain.diagnoses[0].captures) << log << " wrapped at " << at - open;
    ++wrapped;
  }
  return wrapped;
}

TEST(FormatWrappedQuotes, DllPathWrappedAnywhereKeepsTheDiagnosis) {
  LoadResult loaded = Bundled();
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  int skipped = 0;
  const std::vector<fs::path> logs = DllLogs(loaded, &skipped);
  ASSERT_GE(logs.size(), 2u) << "the corpus has Windows DLL cases";
  int wrapped = 0;
  for (const fs::path& log : logs) {
    const std::string text = Slurp(log);
    const Report plain = engine.DiagnoseText(text);
    ASSERT_FALSE(plain.diagnoses.empty()) << log;
    const size_t open = text.find("Error loading \"") + std::string("Error loading \"").size();
    const size_t close = text.find('"', open);
    ASSERT_NE(close, std::string::npos) << log;
    // Columns inside the path: near its start, a third and two thirds in, just before the closing quote.
    wrapped += ExpectWrapsKeepDiagnosis(engine, log, text, plain, open, close, open + 3);
  }
  EXPECT_LE(skipped, 2) << "DLL lines no reader reads as an exception message";
  std::printf("%zu DLL logs, %d wrapped forms (%d DLL logs with no exception line left out)\n", logs.size(), wrapped,
              skipped);
}

// An editor or an issue form breaks a long line at a blank, most often right before the long quoted path
// or right after it: each DLL log, broken at the blank before its opening quote and at the blank after
// its closing quote, keeps its diagnosis.
TEST(FormatWrappedQuotes, DllLineWrappedAtABlankKeepsTheDiagnosis) {
  LoadResult loaded = Bundled();
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  int skipped = 0, forms = 0;
  for (const fs::path& log : DllLogs(loaded, &skipped)) {
    const std::string text = Slurp(log);
    const Report plain = engine.DiagnoseText(text);
    ASSERT_FALSE(plain.diagnoses.empty()) << log;
    const size_t open = text.find("Error loading \"") + std::string("Error loading").size();
    const size_t close = text.find('"', open + 2) + 1;
    ASSERT_EQ(text[open], ' ') << log;
    std::vector<size_t> blanks = {open};
    if (close < text.size() && text[close] == ' ') blanks.push_back(close);
    for (size_t at : blanks) {
      std::string cut = text;
      cut[at] = '\n';
      const Report r = engine.DiagnoseText(cut);
      ++forms;
      ASSERT_FALSE(r.diagnoses.empty()) << log << " broken at " << at;
      EXPECT_EQ(r.diagnoses[0].rule, plain.diagnoses[0].rule) << log << " broken at " << at;
      EXPECT_EQ(r.diagnoses[0].captures, plain.diagnoses[0].captures) << log << " broken at " << at;
    }
  }
  EXPECT_GE(forms, 4);
  std::printf("%d DLL lines broken at a blank\n", forms);
}

// The same for a library's path no quote encloses: every corpus log whose ImportError or OSError line
// names a shared library by its path ("ImportError: /.../torch/lib/libtorch_cpu.so: undefined symbol"),
// wrapped at four columns of the path, keeps its diagnosis.
TEST(FormatWrappedQuotes, LibraryPathWrappedAnywhereKeepsTheDiagnosis) {
  LoadResult loaded = Bundled();
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  int logs = 0, wrapped = 0;
  for (const fs::path& log : triage_test::CorpusLogs()) {
    const std::string text = Slurp(log);
    size_t open = std::string::npos;
    for (const char* head : {"\nImportError: /", "\nOSError: /"}) {
      if (size_t at = text.find(head); at != std::string::npos && open == std::string::npos) open = at + std::strlen(head) - 1;
    }
    if (open == std::string::npos) continue;
    const size_t close = text.find(": ", open);
    const size_t eol = text.find('\n', open);
    if (close == std::string::npos || close > eol) continue;
    const std::string path = text.substr(open, close - open);
    if (path.find(' ') != std::string::npos || path.find(".so") == std::string::npos) continue;
    const Report plain = engine.DiagnoseText(text);
    if (plain.diagnoses.empty()) continue;
    ++logs;
    wrapped += ExpectWrapsKeepDiagnosis(engine, log, text, plain, open, close, open + 2);
  }
  EXPECT_GE(logs, 5);
  std::printf("%d library-path logs, %d wrapped forms\n", logs, wrapped);
}

// The join needs an open quotation and a line that goes on at its first column: a message that closed
// its quotes, or a next line that is a new exception, is not joined.
TEST(FormatWrappedQuotes, OnlyAnOpenQuotationJoinsTheNextLine) {
  auto incidents = [](const std::string& text) {
    Session s(Bundled().rules);
    s.Feed(text);
    return s.Finish().incidents;
  };
  auto closed = incidents("KeyError: 'fallback_lr'\nepoch_2\n");
  ASSERT_FALSE(closed.empty());
  EXPECT_EQ(closed[0].message, "'fallback_lr'");
  auto next_error = incidents("FileNotFoundError: [Errno 2] No such file or directory: 'data/tr\nValueError: x\n");
  ASSERT_GE(next_error.size(), 2u);
  EXPECT_EQ(next_error[0].message, "[Errno 2] No such file or directory: 'data/tr");
  auto wrapped = incidents("FileNotFoundError: [Errno 2] No such file or directory: 'data/tr\nain/0001.png'\n");
  ASSERT_EQ(wrapped.size(), 1u);
  EXPECT_EQ(wrapped[0].message, "[Errno 2] No such file or directory: 'data/train/0001.png'");
  // A JSON string's closing quote after escaped ones (pytorch#131662 as Jupyter printed it) opens nothing.
  auto json = incidents("OSError: Error loading \\\"c:\\\\torch\\\\lib\\\\fbgemm.dll\\\" or one of its dependencies.\"\n}\n");
  ASSERT_FALSE(json.empty());
  EXPECT_EQ(json[0].message.back(), '"') << json[0].message;
  // A message ending in a path, then a line that is no library file's rest: not joined.
  auto path_end = incidents("FileNotFoundError: [Errno 2] No such file or directory: /data/train\nEpoch: 1\n");
  ASSERT_FALSE(path_end.empty());
  EXPECT_EQ(path_end[0].message, "[Errno 2] No such file or directory: /data/train");
  auto apostrophe = incidents("ValueError: can't convert\nnext_line\n");
  ASSERT_FALSE(apostrophe.empty());
  EXPECT_EQ(apostrophe[0].message, "can't convert");
}

// A sentence broken right after its colon goes on at the first column in small letters; a capitalised line
// (a log line, the next record) after a colon is not joined.
TEST(FormatWrappedQuotes, SentenceWrappedAfterItsColonIsJoined) {
  auto incidents = [](const std::string& text) {
    Session s(Bundled().rules);
    s.Feed(text);
    return s.Finish().incidents;
  };
  // wild (brain-score/vision#925), as posted
  auto wrapped = incidents(
      "RuntimeError: [enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't allocate memory: \n"
      "you tried to allocate 102760448 bytes. Error code 12 (Cannot allocate memory)\n");
  ASSERT_EQ(wrapped.size(), 1u);
  EXPECT_EQ(wrapped[0].message,
            "[enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't allocate memory: you tried to allocate "
            "102760448 bytes. Error code 12 (Cannot allocate memory)");
  auto next_record = incidents("ValueError: bad value in config:\nEpoch 1: loss 0.5\n");
  ASSERT_FALSE(next_record.empty());
  EXPECT_EQ(next_record[0].message, "bad value in config:");
}

}  // namespace
}  // namespace triage
