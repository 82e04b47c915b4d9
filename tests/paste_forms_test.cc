// Pasted forms of a log (issue 12): the ordinary ways a log changes between a terminal and the place a
// person pastes it from. Every corpus log with a diagnosis (ours and the wild tuning split, never
// corpus/heldout) is transformed as one such paste transforms it and must keep its first diagnosis
// (rule and category). Before and after (diagnosed logs that lost or changed their first diagnosis, of
// those the form changed; 1094 diagnosed logs on 2026-11-28 at aa30c66, 1122 for timed_logging, measured
// after the corpus grew; now every form keeps the diagnosis of every log it changes, of 1136, but the one
// kKnownMiss below):
//   crlf                 CRLF line ends                                    0 of 1094 (already read)
//   trailing_cr          the last line ended by a lone '\r'                0 of 1094 (already read)
//   ansi                 Python 3.13's colours on frames and exception      0 of 798  (already read)
//   ansi_lost_esc        the same colours without their ESC byte           64 -> 0 of 798 (of which 3 are now
//                        read as hard-wrapped and not judged, see below)  Note: [Colour codes without ESC]
//   html_entities        & < > " ' as &amp; &lt; &gt; &quot; &#39;          230 -> 0 of 777
//                                                                          Note: [HTML entities in a paste]
//   curly_quotes         ‘ ’ “ ” for ' and "                               54 -> 0 of 706 (49 from messages,
//                        5 from metrics)  Note: [Typographic characters], Note: [Pasted series names]
//   indent4, indent_tab  four spaces / a tab before every line (a paste    11 -> 0 / 11 -> 0 of 1094
//                        from inside a code block, an e-mail quote)        Note: [Indented pastes]
//   no_traceback_header  every "Traceback (most recent call last):" line   0 of 419  (already read; one
//                        left out (a paste of the tail)                   later case, frames at column 0
//                                                                          with their source joined, read
//                                                                          since Note: [Headerless tracebacks])
//   timed_logging        "2024-05-01 12:MM:SS,mmm ERROR " on every line,   31 -> 0 of 1122 (a level followed by
//                        its time changing                                one blank was taken for a column
//                        layout: Note: [Aligned continuations]; the time's changing was never the matter;
//                        a traceback pasted from its first frame is read behind it since)
//   loguru               loguru's "TIME | ERROR    | module:func:N - " on   0 of 1094 (already read)
//                        every line, its time and line number changing
//   bar_before_traceback a tqdm bar redrawn with '\r' and never ended,      0 of 421  (already read)
//                        glued before each traceback header
//   bar_before_first_line the same bar glued before the first line of the   11 -> 0 of 1136 (an exception
//                        incident diagnosed first                          group, a log record, a worker's
//                        error, rich's box, a warning: Note: [Warning after a progress bar], a metric
//                        signal's first point: Note: [Bar before a line] in log/metrics.cc)
//                        Note: [Text after a progress bar]
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_support.h"
#include "log/hard_wrap.h"
#include "paste_forms.h"
#include "triage/triage.h"

namespace triage {
namespace {
namespace fs = std::filesystem;

using triage_test::Bundled;
using triage_test::Join;
using triage_test::Lines;
using triage_test::Trimmed;

std::string Crlf(const std::string& t) { return Join(Lines(t), "\r\n"); }

std::string TrailingCr(const std::string& t) {
  std::string out = t;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out + "\r";
}

bool IsIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// One line as Python 3.13 colours a traceback (IPython and rich colour the same parts): a frame's file,
// line number and function, an exception line's name and message.
std::string ColourLine(const std::string& line, const std::string& name_on, const std::string& on,
                       const std::string& off) {
  const size_t ind = line.find_first_not_of(" \t");
  if (ind == std::string::npos) return line;
  if (line.compare(ind, 6, "File \"") == 0) {
    const size_t q = line.find('"', ind + 6);
    const size_t ln = line.find(", line ", ind);
    if (q != std::string::npos && ln != std::string::npos && ln > q) {
      size_t num_end = line.find_first_not_of("0123456789", ln + 7);
      if (num_end == std::string::npos) num_end = line.size();
      std::string r = line.substr(0, ind + 5) + on + line.substr(ind + 5, q + 1 - (ind + 5)) + off +
                      line.substr(q + 1, ln + 7 - (q + 1)) + on + line.substr(ln + 7, num_end - (ln + 7)) + off;
      if (line.compare(num_end, 5, ", in ") == 0) return r + ", in " + on + line.substr(num_end + 5) + off;
      return r + line.substr(num_end);
    }
  }
  size_t e = ind;
  while (e < line.size() && IsIdent(line[e])) ++e;
  const std::string name = line.substr(ind, e - ind);
  const bool exc = e < line.size() && line[e] == ':' && name.size() > 5 &&
                   (name.find("Error") != std::string::npos || name.find("Exception") != std::string::npos ||
                    name.find("Warning") != std::string::npos);
  if (!exc) return line;
  std::string r = line.substr(0, ind) + name_on + name + off + ":";
  const size_t msg = line.find_first_not_of(' ', e + 1);
  if (msg != std::string::npos) r += " " + on + line.substr(msg) + off;
  return r;
}

// A coloured traceback; `esc` is the escape byte, or "" for a copy that lost it (GitHub and many chat
// clients drop control characters, leaving "[1;35mRuntimeError[0m").
std::string Colour(const std::string& t, const std::string& esc) {
  std::vector<std::string> out;
  for (std::string line : Lines(t)) {
    const bool cr = !line.empty() && line.back() == '\r';  // a CRLF log stays one: the colours go before it
    if (cr) line.pop_back();
    out.push_back(ColourLine(line, esc + "[1;35m", esc + "[35m", esc + "[0m") + (cr ? "\r" : ""));
  }
  return Join(out);
}

std::string Entities(const std::string& t) {
  std::string out;
  for (char c : t) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// Smart quotes as a chat client or word processor types them: an opening quote after a space or an
// opening bracket, a closing one elsewhere.
std::string CurlyQuotes(const std::string& t) {
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    const bool open = i == 0 || std::string(" \t\n([{=").find(t[i - 1]) != std::string::npos;
    if (c == '\'') {
      out += open ? "\u2018" : "\u2019";
    } else if (c == '"') {
      out += open ? "\u201c" : "\u201d";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Indent(const std::string& t, const std::string& by) {
  std::vector<std::string> out;
  for (const std::string& line : Lines(t)) out.push_back(line.empty() ? line : by + line);
  return Join(out);
}

std::string IndentSpaces(const std::string& t) { return Indent(t, "    "); }
std::string IndentTab(const std::string& t) { return Indent(t, "\t"); }

std::string NoTracebackHeader(const std::string& t) {
  std::vector<std::string> out;
  for (const std::string& line : Lines(t)) {
    if (Trimmed(line) == "Traceback (most recent call last):") continue;
    out.push_back(line);
  }
  return Join(out);
}

// The paste of a tail selected from its first frame's first character: no header, and that frame line
// at column 0, the rest as printed (about twenty corpus/wild pastes look so).
std::string FirstFrameFlushLeft(const std::string& t) {
  std::vector<std::string> out;
  bool after_header = false;
  for (const std::string& line : Lines(t)) {
    if (Trimmed(line) == "Traceback (most recent call last):") {
      after_header = true;
      continue;
    }
    const size_t b = line.find_first_not_of(" \t");
    out.push_back(after_header && b != std::string::npos && line.compare(b, 6, "File \"") == 0 ? line.substr(b) : line);
    after_header = false;
  }
  return Join(out);
}

std::string Clock(int i) {
  const int ms = i * 137;
  char buf[40];
  std::snprintf(buf, sizeof buf, "2024-05-01 12:%02d:%02d", (ms / 60000) % 60, (ms / 1000) % 60);
  return buf;
}

// Python's logging with '%(asctime)s %(levelname)s %(message)s' on every line (a process's output
// re-logged line by line by a launcher, a job runner or a notebook's log capture).
std::string TimedLogging(const std::string& t) {
  std::vector<std::string> out;
  int i = 0;
  for (const std::string& line : Lines(t)) {
    char ms[8];
    std::snprintf(ms, sizeof ms, ",%03d", (i * 137) % 1000);
    out.push_back(Clock(i) + ms + " ERROR " + line);
    ++i;
  }
  return Join(out);
}

std::string Loguru(const std::string& t) {
  std::vector<std::string> out;
  int i = 0;
  for (const std::string& line : Lines(t)) {
    char ms[8];
    std::snprintf(ms, sizeof ms, ".%03d", (i * 137) % 1000);
    out.push_back(Clock(i) + ms + " | ERROR    | __main__:train:" + std::to_string(40 + i % 7) + " - " + line);
    ++i;
  }
  return Join(out);
}

const char kBar[] =
    "\r  0%|          | 0/100 [00:00<?, ?it/s]\r  3%|\u258e         | 3/100 [00:01<00:30,  3.20it/s]";

// A tqdm bar redrawn with carriage returns and never ended, so the next line stderr prints is glued to it.
std::string BarBeforeTraceback(const std::string& t) {
  std::vector<std::string> out;
  for (const std::string& line : Lines(t)) {
    out.push_back(line.rfind("Traceback (most recent call last):", 0) == 0 ? kBar + line : line);
  }
  return Join(out);
}

// The same bar glued before the first line of the incident diagnosed first, whatever that line is (an
// exception line, a warning, a log record, `Killed`, rich's box): Note: [Text after a progress bar].
std::string BarBeforeFirstLine(const std::string& t, const Report& plain) {
  const Diagnosis& d = plain.diagnoses[0];
  if (d.incident < 0 || static_cast<size_t>(d.incident) >= plain.incidents.size()) return t;
  const int first = plain.incidents[d.incident].line_start;
  if (first <= 0) return t;
  std::vector<std::string> out = Lines(t);
  if (static_cast<size_t>(first) > out.size()) return t;
  out[first - 1] = kBar + out[first - 1];
  return Join(out);
}

struct Form {
  const char* name;
  std::string (*apply)(const std::string&);
  // A form that depends on how the log was read (the plain log's report), used instead where set.
  std::string (*apply_read)(const std::string&, const Report&) = nullptr;
};

std::string ColourWithEsc(const std::string& t) { return Colour(t, "\x1b"); }
std::string ColourLostEsc(const std::string& t) { return Colour(t, ""); }

void PrintTo(const Form& f, std::ostream* os) { *os << f.name; }

constexpr Form kForms[] = {
    {"crlf", Crlf},
    {"trailing_cr", TrailingCr},
    {"ansi", ColourWithEsc},
    {"ansi_lost_esc", ColourLostEsc},
    {"html_entities", Entities},
    {"curly_quotes", CurlyQuotes},
    {"indent4", IndentSpaces},
    {"indent_tab", IndentTab},
    {"no_traceback_header", NoTracebackHeader},
    {"first_frame_flush_left", FirstFrameFlushLeft},
    {"timed_logging", TimedLogging},
    {"loguru", Loguru},
    {"bar_before_traceback", BarBeforeTraceback},
    {"bar_before_first_line", nullptr, BarBeforeFirstLine},
};

// Logs that still lose their diagnosis in one form, each with why. Each must still miss (a fix shows up
// as a failure here, so that the entry goes), and no other log may. The three that were here before
// the column-0 and prefixed headerless tracebacks and the warning after a bar (Note: [Headerless
// tracebacks], Note: [Warning after a progress bar]) keep their diagnosis now: BasicSTISR#1 without its
// header, WITT#7 behind timed logging, ComfyUI-MVAdapter#14 with a bar before its warning.
// The last one, char-rnn's metric signal behind a bar, keeps its first point since Note: [Bar before a
// line] in log/metrics.cc. One is listed now: a title-only log added on 2026-12-02 (below).
struct KnownMiss {
  const char* form;
  const char* log;  // the case folder, under corpus/
  const char* why;
};

const std::vector<KnownMiss> kKnownMisses = {
    // An issue title holding only a cuBLAS status: cublas-error reads a status that opens a line
    // ("^CUBLAS_STATUS_..."), and the glued bar puts text before it. A bar glued to a lone title is not a
    // layout anyone posts; reading a status after a bar needs the same care for every anchored pattern.
    {"bar_before_first_line", "wild/env/transformers-21663-opt-generate-cublas-invalid-value-torch-cuda-mismatch-title",
     "a status-only title read only at the start of a line"},
};

const KnownMiss* KnownMissOf(const char* form, const fs::path& log) {
  for (const KnownMiss& k : kKnownMisses) {
    if (std::string(form) == k.form && log.parent_path().string().size() >= std::strlen(k.log) &&
        log.parent_path().string().compare(log.parent_path().string().size() - std::strlen(k.log), std::string::npos, k.log) == 0) {
      return &k;
    }
  }
  return nullptr;
}

class PastedForm : public ::testing::TestWithParam<Form> {};

TEST_P(PastedForm, KeepsTheDiagnosis) {
  const Form form = GetParam();
  const LoadResult loaded = Bundled();
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  int cases = 0, touched = 0, kept = 0, from_metrics = 0, wrapped = 0, known = 0;
  // One-encoding text only (Note: [One-encoding text] in tests/cli_support.h).
  for (const fs::path& log : triage_test::TextCorpusLogs()) {
    const std::string text = triage_test::ReadFile(log.string());
    const DiagnoseOptions leave_out = triage_test::LeaveOut(log);  // never answered from its own case
    const Report plain = engine.DiagnoseText(text, leave_out);
    if (plain.diagnoses.empty()) continue;
    ++cases;
    const std::string pasted = form.apply_read != nullptr ? form.apply_read(text, plain) : form.apply(text);
    if (pasted == text) continue;
    // A colour code's few bytes can make a short log's longest line exactly a console's width (80, 120)
    // with its next line going on inside a word: the head then looks hard-wrapped (Note: [Hard-wrapped
    // pastes]) and its rows are joined. That is the hard-wrap check's reading of a paste no one can
    // tell from a wrapped one, not a colour code left unread: counted, not judged. (The third, 2026-12-01:
    // wild/cuda/comfyui-1150-..., a ComfyUI node error whose frame lines, 108-111 characters, were pasted
    // at column 0 with their source lines: with the codes added its head reads as a wrapped console.)
    if (HardWrap::DetectWidth(HardWrap::Head(pasted)) > 0 && HardWrap::DetectWidth(HardWrap::Head(text)) == 0) {
      ++wrapped;
      continue;
    }
    const Report r = engine.DiagnoseText(pasted, leave_out);
    if (KnownMissOf(form.name, log) != nullptr) {
      const bool still = r.diagnoses.empty() || r.diagnoses[0].rule != plain.diagnoses[0].rule;
      EXPECT_TRUE(still) << log << " as " << form.name << " keeps its diagnosis now: remove it from kKnownMisses";
      ++known;
      continue;
    }
    ++touched;
    from_metrics += !plain.diagnoses[0].evidence.empty();
    EXPECT_FALSE(r.diagnoses.empty()) << log << " as " << form.name << ": no diagnosis";
    if (r.diagnoses.empty()) continue;
    const bool same = r.diagnoses[0].rule == plain.diagnoses[0].rule && r.diagnoses[0].category == plain.diagnoses[0].category;
    EXPECT_TRUE(same) << log << " as " << form.name << ": " << r.diagnoses[0].rule << " instead of "
                      << plain.diagnoses[0].rule;
    kept += same;
  }
  EXPECT_GE(touched, 400) << "most diagnosed corpus logs hold what " << form.name << " changes";
  EXPECT_LE(wrapped, 3);
  std::printf("%s: %d of %d changed logs keep their diagnosis (%d of them from metrics; %d diagnosed logs, %d read "
              "as hard-wrapped, %d known misses)\n",
              form.name, kept, touched, from_metrics, cases, wrapped, known);
}

INSTANTIATE_TEST_SUITE_P(Pastes, PastedForm, ::testing::ValuesIn(kForms),
                         [](const ::testing::TestParamInfo<Form>& info) { return std::string(info.param.name); });

// Note: [HTML entities in a paste]: an entity cut between two pieces of the input is decoded all the
// same (the session holds it back), and a log whose head shows no entity is read as it is.
TEST(PastedForm, EntitiesCutBetweenFeedsAreDecoded) {
  const LoadResult loaded = Bundled();
  ASSERT_TRUE(loaded.ok());
  const std::string log =
      "Traceback (most recent call last):\n  File &quot;train.py&quot;, line 3, in &lt;module&gt;\n"
      "    y = model(x)\nRuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)\n";
  const Report whole = Engine(loaded.rules).DiagnoseText(log);
  ASSERT_FALSE(whole.diagnoses.empty());
  ASSERT_EQ(whole.incidents.size(), 1u);
  EXPECT_EQ(whole.incidents[0].frames.at(0).file, "train.py");
  EXPECT_EQ(whole.incidents[0].frames.at(0).function, "<module>");
  for (size_t piece : {1, 2, 3, 5, 7}) {
    Session s(loaded.rules);
    for (size_t at = 0; at < log.size(); at += piece) s.Feed(std::string_view(log).substr(at, piece));
    const Report r = s.Finish();
    ASSERT_EQ(r.incidents.size(), 1u) << "pieces of " << piece;
    EXPECT_EQ(r.incidents[0].frames.at(0).file, "train.py") << "pieces of " << piece;
    EXPECT_EQ(r.incidents[0].frames.at(0).function, "<module>") << "pieces of " << piece;
    ASSERT_FALSE(r.diagnoses.empty());
    EXPECT_EQ(r.diagnoses[0].rule, whole.diagnoses[0].rule);
  }
  // Entities next to raw '<' or '>': a log that prints HTML, read as it is.
  const Report html = Engine(loaded.rules).DiagnoseText("<p>&quot;a&quot;</p>\nRuntimeError: x &amp; y\n");
  ASSERT_FALSE(html.incidents.empty());
  EXPECT_EQ(html.incidents.back().message, "x &amp; y");
}

// Note: [Indented pastes]: an indentation cut between two pieces of the input is removed all the same,
// and a log whose own lines are all indented by two keeps those two inside the paste's four.
TEST(PastedForm, IndentationCutBetweenFeedsIsRemoved) {
  const LoadResult loaded = Bundled();
  ASSERT_TRUE(loaded.ok());
  const std::string log =
      "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    y = model(x)\n"
      "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)\n";
  const Report whole = Engine(loaded.rules).DiagnoseText(log);
  ASSERT_FALSE(whole.diagnoses.empty());
  for (const char* by : {"    ", "\t", "        "}) {
    const std::string pasted = Indent(log, by);
    for (size_t piece : {1, 2, 3, 5, 7, 1000}) {
      Session s(loaded.rules);
      for (size_t at = 0; at < pasted.size(); at += piece) s.Feed(std::string_view(pasted).substr(at, piece));
      const Report r = s.Finish();
      ASSERT_EQ(r.incidents.size(), 1u) << "pieces of " << piece;
      EXPECT_EQ(std::string(IncidentKindName(r.incidents[0].kind)), "traceback");
      EXPECT_EQ(r.incidents[0].frames.at(0).source, "y = model(x)") << "pieces of " << piece;
      ASSERT_FALSE(r.diagnoses.empty());
      EXPECT_EQ(r.diagnoses[0].rule, whole.diagnoses[0].rule);
    }
  }
}

// Note: [Padded rows]: a message wrapped into rows padded with blanks keeps its rows once the paste's
// indentation is gone (corpus/wild/autograd/simple-cyclegan-discriminator-step-wrapped-version-message).
TEST(PastedForm, PaddedRowsStayInTheMessage) {
  const LoadResult loaded = Bundled();
  ASSERT_TRUE(loaded.ok());
  const std::string log =
      "    RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
      "operation: [torch.FloatTensor      \n"
      "    [4, 8]] is at version 2; expected version 1 instead. Hint: enable anomaly detection to find its      \n"
      "    gradient, with torch.autograd.set_detect_anomaly(True).\n";
  const Report r = Engine(loaded.rules).DiagnoseText(log);
  ASSERT_EQ(r.incidents.size(), 1u);
  EXPECT_EQ(r.incidents[0].line_end, 3);
  EXPECT_NE(r.incidents[0].message.find("\n[4, 8]] is at version 2;"), std::string::npos) << r.incidents[0].message;
  EXPECT_NE(r.incidents[0].message.find("\ngradient, with"), std::string::npos) << r.incidents[0].message;
  // Unpadded, the line after is not the message's.
  const Report plain = Engine(loaded.rules).DiagnoseText("ValueError: bad value [x\n[y] loading data\n");
  ASSERT_FALSE(plain.incidents.empty());
  EXPECT_EQ(plain.incidents[0].message, "bad value [x");
}

// Note: [One-line tracebacks] in log/formats/escaped.h: a traceback whose newlines were lost is read as
// the lines it was, its chain and a worker's traceback in its message included; a sentence that only
// names the header is read as it is.
TEST(PastedForm, OneLineTracebackIsReadAsItsLines) {
  const LoadResult loaded = Bundled();
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  const Report r = engine.DiagnoseText(
      "I get this: Traceback (most recent call last): File \"/home/u/train.py\", line 22, in <module> "
      "y = model(x) File \"/usr/lib/python3/dist-packages/torch/nn/modules/linear.py\", line 114, in forward "
      "return F.linear(input, self.weight, self.bias) RuntimeError: mat1 and mat2 shapes cannot be multiplied "
      "(4x57600 and 64x128)\n");
  ASSERT_EQ(r.incidents.size(), 1u);
  const Incident& inc = r.incidents[0];
  EXPECT_EQ(std::string(IncidentKindName(inc.kind)), "traceback");
  ASSERT_EQ(inc.frames.size(), 2u);
  EXPECT_EQ(inc.frames[0].file, "/home/u/train.py");
  EXPECT_EQ(inc.frames[0].line, 22);
  EXPECT_EQ(inc.frames[0].function, "<module>");
  EXPECT_EQ(inc.frames[0].source, "y = model(x)");
  EXPECT_EQ(inc.frames[1].function, "forward");
  EXPECT_EQ(inc.exception, "RuntimeError");
  EXPECT_EQ(inc.message, "mat1 and mat2 shapes cannot be multiplied (4x57600 and 64x128)");
  ASSERT_FALSE(r.diagnoses.empty());
  EXPECT_EQ(r.diagnoses[0].category, "shape.matmul_mismatch");

  // A chain and a DataLoader worker's traceback inside one line.
  const Report chain = engine.DiagnoseText(
      "Traceback (most recent call last): File \"a.py\", line 3, in f x = d[k] KeyError: 'label' "
      "The above exception was the direct cause of the following exception: Traceback (most recent call "
      "last): File \"a.py\", line 9, in <module> f() ValueError: bad sample\n");
  ASSERT_EQ(chain.incidents.size(), 2u);
  EXPECT_EQ(chain.incidents[0].exception, "KeyError");
  EXPECT_EQ(chain.incidents[0].message, "'label'");
  EXPECT_EQ(chain.incidents[1].exception, "ValueError");
  EXPECT_EQ(chain.incidents[1].caused_by, 0);
  const Report worker = engine.DiagnoseText(
      "Traceback (most recent call last): File \"train.py\", line 5, in <module> for b in loader: "
      "RuntimeError: Caught IndexError in DataLoader worker process 0. Original Traceback (most recent call "
      "last): File \"/x/site-packages/torch/utils/data/_utils/worker.py\", line 302, in _worker_loop data = "
      "fetcher.fetch(index) File \"ds.py\", line 12, in __getitem__ return self.items[i] IndexError: list "
      "index out of range\n");
  ASSERT_EQ(worker.incidents.size(), 2u);
  EXPECT_EQ(worker.incidents[0].exception, "IndexError");
  EXPECT_EQ(worker.incidents[1].caused_by, 0);

  // The header named in a sentence, with no frame after it: a line as it is.
  const Report prose = engine.DiagnoseText(
      "the output ends with Traceback (most recent call last): and then nothing else is printed at all\n");
  EXPECT_TRUE(prose.incidents.empty());
}

// The transforms themselves, on one line each.
TEST(PastedForm, Transforms) {
  EXPECT_EQ(ColourLostEsc("  File \"a.py\", line 3, in f\nValueError: bad\n"),
            "  File [35m\"a.py\"[0m, line [35m3[0m, in [35mf[0m\n[1;35mValueError[0m: [35mbad[0m\n");
  EXPECT_EQ(Entities("f('a') < \"b\" & c\n"), "f(&#39;a&#39;) &lt; &quot;b&quot; &amp; c\n");
  EXPECT_EQ(CurlyQuotes("x = 'a' \"b\"\n"), "x = \u2018a\u2019 \u201cb\u201d\n");
}

}  // namespace
}  // namespace triage
