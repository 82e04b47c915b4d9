// Cut pastes (issue 12): the ways a person pastes only PART of a log. Every corpus log with a diagnosis
// (ours and the wild tuning split, never corpus/heldout) is cut as one such paste cuts it, and the
// diagnosis of what is left is compared with the whole log's first one. Unlike the whole-log forms of
// paste_forms_test.cc, a cut can take the evidence away: then the right answer is no diagnosis, never
// a guess. So each form is measured, not required to keep everything: per form, the diagnosed logs it
// changed, how many keep the first answer's category ("kept"), how many are left with no diagnosis
// ("lost") and how many get another category first ("other"). The test is a ratchet: a form's kept
// count may not drop under its floor, and its other count may not rise over its ceiling (a change that
// answers more cut pastes by guessing shows up there).
//
// The cuts are made around the whole log's first diagnosis' incident (its first and last line, and
// its exception line: the last line of the incident that starts with its exception type and a colon,
// behind any prefix); a form that finds nothing to cut leaves the log as it is, and it is not counted.
//   tail3, tail6, tail12   the K lines that end the incident (header and first frames gone)
//   no_exception_line      the log up to the exception line, without it (a paste cut before its end)
//   mid_traceback          the log up to the middle of the incident's frames
//   error_alone            the exception line and the message lines after it, from the type on
//   error_first_line       the exception line alone, from the type on
//   quoted_in_sentence     that line in backquotes in a sentence: "I keep getting `...` when I run train.py"
//   cut_120, cut_200       every line longer than 120 / 200 characters cut there (stored web pages)
//   jupyter_cut            a traceback as IPython prints it (the ---- rule, "TYPE   Traceback (most recent
//                          call last)"), cut before its exception line
// Figures (1551 diagnosed logs at 706bbee8, 2026-11-29; kept / lost / other of changed; before -> after
// this test's engine change; the floors below are measured on main at 958bbc73 with it, 1572 diagnosed
// logs, where the *-traceback-cut rules of 99d45dcd answer more cut tracebacks: no_exception_line
// 121 / 491 / 39 of 651, jupyter_cut 94 / 371 / 21 of 486, their other answers mostly linear-traceback-cut's
// shape.matmul_mismatch for a Linear call that failed otherwise. That rule was removed after the 2026-11-29i
// merges (right on 18, wrong on 25 of these cut pastes: worse than no answer); on main then, 1583 diagnosed
// logs, no_exception_line 110 / 516 / 25 of 651 and jupyter_cut 87 / 389 / 10 of 486, the floors below):
//   tail3                857 /  58 /  34 of 949  ->   857 /  58 /  34 of 949
//   tail6                712 /  36 /  24 of 772  ->   712 /  36 /  24 of 772
//   tail12               495 /  23 /   7 of 525  ->   495 /  23 /   7 of 525
//   no_exception_line     92 / 530 /  23 of 645  ->    93 / 531 /  22 of 646
//   mid_traceback         44 / 531 /  21 of 596  ->    44 / 532 /  21 of 597
//   error_alone          787 /  23 /  25 of 835  ->   787 /  23 /  25 of 835
//   error_first_line     769 /  53 /  29 of 851  ->   769 /  53 /  29 of 851
//   quoted_in_sentence  1006 /  67 /  30 of 1103  ->  1006 /  67 /  30 of 1103
//   cut_120              536 / 218 /  22 of 776  ->   536 / 218 /  22 of 776
//   cut_200              236 /  40 /   8 of 284  ->   236 /  40 /   8 of 284
//   jupyter_cut           74 / 401 /   8 of 483  ->    74 / 401 /   8 of 483
// Issue 12's prose pastes (their forms in paste_forms.h), 1585 diagnosed logs on 2026-11-30: main at 422522b7
// (with this branch's two cases and the cuda-oom wording) -> with Note: [One-line tracebacks] (formats/escaped.h),
// and Note: [Fence after a cut traceback]
// (formats/python_traceback.h); kept / lost / other of changed:
//   prose_inline       1023 /  68 /  29 of 1120  ->  1023 /  68 /  29 of 1120  (what the first line alone loses)
//   prose_cjk          1023 /  68 /  29 of 1120  ->  1023 /  68 /  29 of 1120
//   bullet_error       1058 /  37 /  25 of 1120  ->  1058 /  37 /  25 of 1120
//   table_cell         1023 /  68 /  29 of 1120  ->  1023 /  68 /  29 of 1120
//   exception_above     624 /  14 /  13 of 651   ->   624 /  14 /  13 of 651
//   frames_only          70 / 567 /  14 of 651   ->    70 / 567 /  14 of 651   (no exception line: no evidence)
//   one_line            249 / 582 /   5 of 836   ->   749 /  71 /  16 of 836   (the other answers: the surface
//                       category of a traceback pasted without the kernel assertion or log lines before it)
//   word_wrap_80        797 / 520 /  33 of 1350     (a word-wrap reading took it to 1192 / 150 / 8, but a
//                       head read as word-wrapped changed how a log concatenated after it is read
//                       (ConcatenatedLogs): withheld)
//   md_fence_prose     1577 /   8 /   0 of 1585  ->  1585 /   0 /   0 of 1585
//   md_quote, rank_prefix, dash_logging  all kept, before and after; mixed_eol 1114 of 1114
//   line_numbers       1510 /  55 /  20 of 1585  ->  1510 /  55 /  20 of 1585
// The floors of the forms above them are unchanged.
// Issue 12's no-incident pastes, 1610 diagnosed logs on 2026-11-30 (main at 11949ab5 with the six cases of batch
// 2026-11-30b-kb-noinc) -> with Note: [Embedded exception lines] (formats/embedded_error.h) and Note: [Empty nested
// incident] (segmenter.h); kept / lost / other of changed, and in brackets the lost ones that had no incident:
//   level_prefixed     1068 /  37 (27) /  25 of 1130  ->  1082 /  24 /  25 of 1131       (new forms; the
//                      exception's message goes on over its next lines, as a bare error line's does)
//   json_record        1010 /  90 (80) /  30 of 1130  ->  1023 /  77 (10) /  30 of 1130
//   repr_logged        1020 /  80 (70) /  30 of 1130  ->  1044 /  56 (4) /  30 of 1130
//   quoted_in_sentence 1032 /  68 (58) /  30 of 1130  ->  1045 /  55 (10) /  30 of 1130   (floor +13)
//   bullet_error       1068 /  37 (27) /  25 of 1130  ->  1081 /  25 /  25 of 1131        (floor +12)
//   prose_inline       1032 /  69 (59) /  29 of 1130  ->  1033 /  68 (3) /  29 of 1130    (floor +1: a prose
//                      tail after the message, "... and then it stops", still defeats patterns anchored at its end)
//   tail3, tail6, tail12, error_alone, one_line: one more kept each (a DataLoader wrapper whose paste ends on its
//   "Original Traceback" header; floors +1); word_wrap_80 three more (floor +3); no form's other count moved.
//   (The after figures are on main at cfa10791, one case more than the before ones.)
// Issue 12's leftovers (session 2026-11-30c, kb-paste), 1635 diagnosed logs: main at 604cd97f -> with Note: [UTF-16
// input] (log/utf16_input.h), Note: [Quote markers behind a prefix] (formats/quote_marker.h, with mail clients' ">> "
// quotes) and Note: [Prose after a message] (formats/text.h); kept / lost / other of changed:
//   utf16le_bom, utf16be_bom      0 / 1635 /  0 of 1635  ->  1635 /  0 /  0 of 1635   (new forms)
//   mail_quote                 1547 /   67 / 21 of 1635  ->  1635 /  0 /  0 of 1635   (new)
//   rank_then_quote            1550 /   64 / 21 of 1635  ->  1632 /  2 /  1 of 1635   (new)
//   logging_then_quote         1546 /   67 / 22 of 1635  ->  1625 /  8 /  2 of 1635   (new)
//   error_dash_question, error_see_above, error_asks
//                              1047 /   70 / 29 of 1146  ->  1061 / 56 / 29 of 1146   (new; each)
//   code_span_sentence         1058 /   58 / 30 of 1146  ->  1059 / 57 / 30 of 1146   (new)
//   quoted_in_sentence         1058 /   58 / 30 of 1146  ->  1059 / 57 / 30 of 1146   (floor +1)
// Issue 12's word-wrapped pastes (session 2026-11-30d, kb-wrap), 1660 diagnosed logs, main at fdd0cca5 -> with
// Note: [Word-wrapped pastes] (log/hard_wrap.h); kept / lost / other of changed:
//   word_wrap_80                883 /  483 / 39 of 1405  ->  1277 / 115 / 13 of 1405   (floor 827 -> 1277)
// Issue 12's Windows PowerShell pastes (session 2026-11-30f, kb-norule2), main at 843981d5 (1677 diagnosed logs) ->
// with Note: [UTF-16 appended to UTF-8] (log/utf16_input.h) and its case corpus/formats/utf16-appended-stderr
// (1678); kept / lost / other of changed:
//   utf16_appended             1146 / 490 / 41 of 1677  ->  1676 /  2 /  0 of 1678   (new)
//   powershell_native          1633 /  37 /  7 of 1677  ->  1633 / 38 /  7 of 1678   (new; the record's lines
//                              already read as ordinary output: measured, no engine change; the one more lost
//                              is the new case itself, whose UTF-16 lines a line form cuts as bytes)
//   every other form: kept as the floors below or one more (tail3 918, tail6 766, word_wrap_80 1306: the new
//   case), other unchanged, lost one more in the forms that rewrite the new case's UTF-16 bytes line by line
//   (md_quote, mixed_eol, rank_prefix, utf16le_bom, ...: 1677 / 1 / 0 of 1678; cut_120 635 / 167 / 30 of 832)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_support.h"
#include "paste_forms.h"
#include "triage/triage.h"

namespace triage {
namespace {
namespace fs = std::filesystem;
using triage_test::Cut;
using triage_test::CutOf;
using triage_test::Join;
using triage_test::Lines;
using triage_test::Slice;
using triage_test::Trimmed;

std::string Tail(const std::vector<std::string>& lines, const Cut& c, int k) {
  if (c.end < 0) return Join(lines);
  return Join(Slice(lines, std::max(0, c.end + 1 - k), c.end + 1));
}
std::string Tail3(const std::vector<std::string>& l, const Cut& c) { return Tail(l, c, 3); }
std::string Tail6(const std::vector<std::string>& l, const Cut& c) { return Tail(l, c, 6); }
std::string Tail12(const std::vector<std::string>& l, const Cut& c) { return Tail(l, c, 12); }

std::string NoExceptionLine(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception <= c.start || !c.traceback) return Join(lines);
  return Join(Slice(lines, 0, c.exception));
}

std::string MidTraceback(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception <= c.start + 2 || !c.traceback) return Join(lines);
  return Join(Slice(lines, 0, c.start + (c.exception - c.start) / 2 + 1));
}

std::string ErrorAlone(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception < 0) return Join(lines);
  std::vector<std::string> out = Slice(lines, c.exception, c.end + 1);
  out[0] = out[0].substr(c.type_at);
  return Join(out);
}

std::string ErrorFirstLine(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception < 0) return Join(lines);
  return lines[c.exception].substr(c.type_at) + "\n";
}

std::string QuotedInSentence(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception < 0) return Join(lines);
  return "I keep getting `" + Trimmed(lines[c.exception].substr(c.type_at)) + "` when I run train.py\n";
}

std::string CutLines(const std::vector<std::string>& lines, size_t width) {
  std::vector<std::string> out;
  for (const std::string& l : lines) out.push_back(l.substr(0, width));
  return Join(out);
}
std::string Cut120(const std::vector<std::string>& l, const Cut&) { return CutLines(l, 120); }
std::string Cut200(const std::vector<std::string>& l, const Cut&) { return CutLines(l, 200); }

// IPython's header in place of Python's, naming the exception's type, and the paste cut before the
// exception line: the type is the header's only.
std::string JupyterCut(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception <= c.start || !c.traceback) return Join(lines);
  int header = -1;
  for (int i = c.exception - 1; i >= c.start && header < 0; --i) {
    if (Trimmed(lines[i]) == "Traceback (most recent call last):") header = i;
  }
  if (header < 0) return Join(lines);
  std::string type = lines[c.exception].substr(c.type_at);
  type = type.substr(0, type.find(':'));
  std::vector<std::string> out = Slice(lines, 0, header);
  out.push_back(std::string(75, '-'));
  out.push_back(type + std::string(type.size() < 40 ? 42 - type.size() : 2, ' ') + "Traceback (most recent call last)");
  for (int i = header + 1; i < c.exception; ++i) out.push_back(lines[i]);
  return Join(out);
}

// The ratchet, measured on the corpus at the last raise (2026-11-30, after the batches 2026-11-30e-*: 1677
// diagnosed logs; the batches 2026-11-30c/d/e, the similar-case tiers and the pasted-form readers lifted every
// kept count, e.g. tail3 902 -> 917, cut_120 560 -> 635, no_exception_line 131 -> 147; the other ceilings are
// today's counts, with the allowance counted from today's changed logs): kept may not drop under `kept`; other may not
// rise over `other`, plus one for each log the form changes beyond the `changed` of then (a case added to
// the corpus since may be cut to another answer, and the lead raises the figures after merges).
struct Floor {
  int kept;
  int other;
  int changed;
};

struct CutForm {
  const char* name;
  std::string (*apply)(const std::vector<std::string>&, const Cut&);
  Floor floor;
};

void PrintTo(const CutForm& f, std::ostream* os) { *os << f.name; }

const CutForm kCutForms[] = {
    {"tail3", Tail3, {917, 35, 1014}},
    {"tail6", Tail6, {765, 25, 828}},
    {"tail12", Tail12, {539, 7, 569}},
    {"no_exception_line", NoExceptionLine, {147, 28, 673}},
    {"mid_traceback", MidTraceback, {53, 28, 619}},
    {"error_alone", ErrorAlone, {836, 26, 878}},
    {"error_first_line", ErrorFirstLine, {822, 30, 896}},
    {"quoted_in_sentence", QuotedInSentence, {1092, 31, 1169}},
    {"cut_120", Cut120, {635, 30, 831}},
    {"cut_200", Cut200, {258, 9, 299}},
    {"jupyter_cut", JupyterCut, {115, 11, 494}},
    {"prose_inline", triage_test::ProseInline, {1077, 29, 1169}},
    {"prose_cjk", triage_test::ProseCjk, {1087, 31, 1169}},
    {"bullet_error", triage_test::BulletError, {1124, 26, 1169}},
    {"table_cell", triage_test::TableCell, {1087, 31, 1169}},
    {"exception_above", triage_test::ExceptionAbove, {649, 16, 673}},
    {"frames_only", triage_test::FramesOnly, {102, 15, 673}},
    {"one_line", triage_test::OneLine, {786, 16, 877}},
    {"word_wrap_80", triage_test::WordWrap80, {1305, 12, 1419}},
    {"md_fence_prose", triage_test::MdFenceProse, {1677, 0, 1677}},
    {"md_quote", triage_test::MdQuote, {1677, 0, 1677}},
    {"mixed_eol", triage_test::MixedEol, {1176, 0, 1176}},
    {"rank_prefix", triage_test::RankPrefix, {1677, 0, 1677}},
    {"dash_logging", triage_test::DashLogging, {1677, 0, 1677}},
    {"line_numbers", triage_test::LineNumbers, {1600, 20, 1677}},
    {"level_prefixed", triage_test::LevelPrefixed, {1125, 26, 1169}},
    {"json_record", triage_test::JsonRecord, {1081, 31, 1169}},
    {"repr_logged", triage_test::ReprLogged, {1091, 31, 1169}},
    {"mail_quote", triage_test::MailQuote, {1677, 0, 1677}},
    {"rank_then_quote", triage_test::RankThenQuote, {1674, 1, 1677}},
    {"logging_then_quote", triage_test::LoggingThenQuote, {1667, 2, 1677}},
    {"error_dash_question", triage_test::ErrorDashQuestion, {1095, 30, 1169}},
    {"error_see_above", triage_test::ErrorSeeAbove, {1095, 30, 1169}},
    {"error_asks", triage_test::ErrorAsks, {1095, 30, 1169}},
    {"code_span_sentence", triage_test::CodeSpanSentence, {1092, 31, 1169}},
    {"utf16le_bom", triage_test::Utf16LeBom, {1677, 0, 1677}},
    {"utf16be_bom", triage_test::Utf16BeBom, {1677, 0, 1677}},
    {"utf16_appended", triage_test::Utf16Appended, {1676, 0, 1678}},
    {"powershell_native", triage_test::PowerShellNative, {1633, 7, 1678}},
};

class CutPaste : public ::testing::TestWithParam<CutForm> {};

TEST_P(CutPaste, KeepsWhatTheCutLeaves) {
  const CutForm form = GetParam();
  const LoadResult loaded = triage_test::Bundled();
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  int cases = 0, changed = 0, kept = 0, lost = 0, other = 0;
  const bool verbose = std::getenv("TRIAGE_CUT_PASTE_VERBOSE") != nullptr;
  for (const fs::path& log : triage_test::CorpusLogs()) {
    const std::string text = triage_test::ReadFile(log.string());
    const DiagnoseOptions leave_out = triage_test::LeaveOut(log);  // never answered from its own case
    const Report plain = engine.DiagnoseText(text, leave_out);
    if (plain.diagnoses.empty()) continue;
    ++cases;
    const std::vector<std::string> lines = Lines(text);
    const std::string pasted = form.apply(lines, CutOf(lines, plain));
    if (pasted == Join(lines)) continue;
    ++changed;
    const Report r = engine.DiagnoseText(pasted, leave_out);
    const char* verdict = "kept";
    if (r.diagnoses.empty()) {
      ++lost;
      verdict = "lost";
    } else if (r.diagnoses[0].category == plain.diagnoses[0].category) {
      ++kept;
    } else {
      ++other;
      verdict = "other";
    }
    if (verbose) {
      const std::string last = r.incidents.empty() ? "" : r.incidents.back().exception + "| " + r.incidents.back().message.substr(0, 120);
      std::printf("%s %s %s %s -> %s [%s]\n", form.name, verdict, log.parent_path().string().c_str(),
                  (plain.diagnoses[0].category + "/" + plain.diagnoses[0].rule).c_str(), r.diagnoses.empty() ? "-" : r.diagnoses[0].category.c_str(),
                  last.substr(0, last.find('\n')).c_str());
    }
  }
  std::printf("%-20s changed %4d of %d: kept %4d, lost %4d, other %3d\n", form.name, changed, cases, kept, lost, other);
  EXPECT_GE(kept, form.floor.kept) << form.name << ": fewer cut pastes keep their category than the floor";
  EXPECT_LE(other, form.floor.other + std::max(0, changed - form.floor.changed))
      << form.name << ": more cut pastes change their category than the ceiling";
}

INSTANTIATE_TEST_SUITE_P(Cuts, CutPaste, ::testing::ValuesIn(kCutForms),
                         [](const ::testing::TestParamInfo<CutForm>& info) { return std::string(info.param.name); });

// Note: [Cut tracebacks]: a notebook's traceback cut before its exception line keeps the type its IPython
// header names, and reads as cut; a Python traceback cut the same way has no type. Every corpus log with
// an IPython header, cut before the exception line below it.
TEST(CutPaste, IPythonHeaderKeepsItsTypeWhenCut) {
  const LoadResult loaded = triage_test::Bundled();
  ASSERT_TRUE(loaded.ok());
  Engine engine(loaded.rules);
  const std::string header = "Traceback (most recent call last)";
  int notebooks = 0;
  for (const fs::path& log : triage_test::CorpusLogs()) {
    // A frame line hard-wrapped in the middle of its signature ("module.py in __call__(self, *input, **k" +
    // "wargs)"): its rest ends the frames, read as the exception line of a headerless message.
    if (log.parent_path().filename() == "conv2d-batch-1024-cudnn-not-supported") continue;
    const std::vector<std::string> lines = Lines(triage_test::ReadFile(log.string()));
    for (size_t h = 0; h < lines.size(); ++h) {
      const std::string t = Trimmed(lines[h]);
      if (t.find('\x1b') != std::string::npos) continue;  // coloured: the colour reader's tests
      const size_t blank = t.find(' ');
      if (blank == std::string::npos || t.size() < header.size() || t.compare(t.size() - header.size(), header.size(), header) != 0 ||
          Trimmed(t.substr(blank)) != header) {
        continue;
      }
      const std::string type = t.substr(0, blank);
      size_t e = h + 1;
      while (e < lines.size() && lines[e].rfind(type + ":", 0) != 0) ++e;
      if (e == lines.size() || e < h + 3) break;
      const Report r = engine.DiagnoseText(Join(Slice(lines, 0, static_cast<int>(e))));
      // A paste that lost every frame line (an HTML page ate "<ipython-input-...>") leaves no traceback.
      if (r.incidents.empty()) break;
      const Incident& cut = r.incidents.back();
      EXPECT_EQ(cut.exception, type) << log;
      EXPECT_TRUE(cut.CutBeforeExceptionLine()) << log << ": " << cut.message;
      ++notebooks;
      break;
    }
  }
  EXPECT_GE(notebooks, 10);
  const std::vector<std::string> python = Lines(triage_test::ReadFile(triage_test::kSrc + "/corpus/shape/linear-flattened-conv/log.txt"));
  const Report r = engine.DiagnoseText(Join(Slice(python, 0, static_cast<int>(python.size()) - 1)));
  ASSERT_FALSE(r.incidents.empty());
  EXPECT_EQ(r.incidents.back().exception, "");
  EXPECT_TRUE(r.incidents.back().CutBeforeExceptionLine()) << r.incidents.back().message;
}

}  // namespace
}  // namespace triage
