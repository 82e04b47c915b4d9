// Note: [Markdown escapes] (formats/markdown_escape.h): a log that a rich-text editor or a Markdown
// converter pasted with '_' and '*' escaped ("\_\_init\_\_", "\*\*kwargs") gets the diagnosis of the log
// as printed. Every corpus log with a diagnosis from its messages (ours and the wild tuning split, never
// corpus/heldout) is escaped the way such a converter escapes text (a backslash before every '_' and '*'
// of a word; a word holding a backslash, a Windows path, is left as it is) and must keep its first
// diagnosis (rule, category) and that diagnosis's incident's culprit frame. Logs diagnosed from their
// metrics must keep their first diagnosis too: metric extraction reads "val\_loss" as val_loss in an
// input whose head shows escapes (Note: [Pasted series names] in log/pasted_names.h; its per-line path
// stays free of the search).
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli_support.h"
#include "log/formats/markdown_escape.h"
#include "triage/triage.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

std::string EscapeMarkdown(const std::string& text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t i = 0; i < text.size();) {
    size_t end = text.find_first_of(" \t\n", i);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(i, end - i);
    const bool path = word.find('\\') != std::string::npos;
    for (char c : word) {
      if (!path && (c == '_' || c == '*')) out += '\\';
      out += c;
    }
    if (end < text.size()) out += text[end++];
    i = end;
  }
  return out;
}

TEST(MarkdownEscapes, EscapedPasteKeepsTheDiagnosis) {
  EXPECT_EQ(EscapeMarkdown("a __init__ **kw C:\\x\\_y.py\n"), "a \\_\\_init\\_\\_ \\*\\*kw C:\\x\\_y.py\n");
  LoadOptions o;
  o.system = o.user = o.project = o.env_path = o.cache = false;
  LoadResult loaded = LoadRules(o);
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  int cases = 0, escaped = 0, kept = 0, from_metrics = 0, metrics_escaped = 0, metrics_kept = 0;
  for (const fs::path& log : triage_test::CorpusLogs()) {
    const std::string text = triage_test::ReadFile(log.string());
    const DiagnoseOptions leave_out = triage_test::LeaveOut(log);  // never answered from its own case
    const Report plain = engine.DiagnoseText(text, leave_out);
    if (plain.diagnoses.empty()) continue;
    const bool metrics = !plain.diagnoses[0].evidence.empty();
    const std::string pasted = EscapeMarkdown(text);
    if (metrics) {
      ++from_metrics;
      if (pasted == text) continue;
      ++metrics_escaped;
      const Report r = engine.DiagnoseText(pasted, leave_out);
      const bool same = !r.diagnoses.empty() && r.diagnoses[0].rule == plain.diagnoses[0].rule;
      EXPECT_TRUE(same) << log << ": " << (r.diagnoses.empty() ? "none" : r.diagnoses[0].rule) << " instead of "
                        << plain.diagnoses[0].rule << " (from metrics)";
      metrics_kept += same;
      continue;
    }
    ++cases;
    if (pasted == text) continue;
    ++escaped;
    const Report r = engine.DiagnoseText(pasted, leave_out);
    EXPECT_FALSE(r.diagnoses.empty()) << log << ": no diagnosis";
    if (r.diagnoses.empty()) continue;
    const Diagnosis& a = plain.diagnoses[0];
    const Diagnosis& b = r.diagnoses[0];
    const bool same = a.rule == b.rule && a.category == b.category;
    EXPECT_TRUE(same) << log << ": " << b.rule << " instead of " << a.rule;
    if (same && a.incident >= 0 && b.incident >= 0) {
      EXPECT_EQ(r.incidents[b.incident].CulpritText(), plain.incidents[a.incident].CulpritText()) << log;
    }
    kept += same;
  }
  EXPECT_GE(escaped, 200) << "most corpus logs hold a '_' or a '*'";
  EXPECT_GE(metrics_escaped, 10) << "metric logs name series with '_' (val_loss, grad_norm)";
  std::printf("markdown escapes: %d of %d escaped logs diagnosed from messages keep their diagnosis (%d such logs); "
              "%d of %d escaped logs diagnosed from metrics keep it (%d such logs)\n",
              kept, escaped, cases, metrics_kept, metrics_escaped, from_metrics);
}

// A word that escapes some '_' and leaves others bare was not escaped by a converter (it escapes them
// all): the frame line is faulthandler's, from a frozen Windows app (setiastro/setiastrosuitepro#25,
// the example of rules/env/native-crash-loading-torch-dlls.yaml).
TEST(MarkdownEscapes, APathBackslashBeforeAnUnderscoreStays) {
  std::string frame = "  File \"importlib\\__init__.py\", line 90 in import_module";
  const std::string before = frame;
  EXPECT_FALSE(MarkdownEscapeReader::Unescape(&frame));
  EXPECT_EQ(frame, before);
  // The other words of the line are still unescaped where a converter escaped them.
  std::string escaped = "  File \"importlib\\__init__.py\", line 90 in import\\_module";
  EXPECT_TRUE(MarkdownEscapeReader::Unescape(&escaped));
  EXPECT_EQ(escaped, before);
}

// A converter escapes backticks too: the error line of hiyouga/ChatGLM-Efficient-Tuning#75 (wild:
// chatglm-efficient-tuning-75-accelerate-lora-cublas-not-initialized-zh) quotes cuBLAS's call as
// "\`cublasCreate(handle)\`", which cublas-error reads once the escapes are gone. A word with an escaped
// and a bare backtick was not written by a converter and stays as it is.
TEST(MarkdownEscapes, EscapedBackticksAreUndone) {
  std::string line = "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling \\`cublasCreate(handle)\\`";
  EXPECT_TRUE(MarkdownEscapeReader::Unescape(&line));
  EXPECT_EQ(line, "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`");
  std::string mixed = "echo \\`date` x\\_y";
  EXPECT_TRUE(MarkdownEscapeReader::Unescape(&mixed));
  EXPECT_EQ(mixed, "echo \\`date` x_y");
}

}  // namespace
}  // namespace triage
