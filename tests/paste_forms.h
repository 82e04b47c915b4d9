// Helpers shared by the tests that take a log apart line by line (paste_forms_test.cc: whole-log
// transformations of a paste; cut_paste_test.cc: pastes of part of a log; cli_report_test.cc): a log as
// lines and back, a trimmed line, the bundled rules.
#ifndef TRIAGE_TESTS_PASTE_FORMS_H_
#define TRIAGE_TESTS_PASTE_FORMS_H_

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

#include "triage/triage.h"

namespace triage_test {

// The lines of `text` without their '\n' (a '\r' before it stays); no empty line after a final '\n'.
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

inline std::string Join(const std::vector<std::string>& lines, const char* eol = "\n") {
  std::string out;
  for (const std::string& l : lines) {
    out += l;
    out += eol;
  }
  return out;
}

inline std::string Trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") + 1 - b);
}

// The bundled rules only: no user, project, environment or cached rules.
inline triage::LoadResult Bundled() {
  triage::LoadOptions o;
  o.system = o.user = o.project = o.env_path = o.cache = false;
  return triage::LoadRules(o);
}


// ---- Where a paste of part of a log is cut (cut_paste_test.cc), and the forms of issue 12's prose
// pastes that need it: 0-based line indexes into the log, from its first diagnosis' incident. ----
struct Cut {
  int start = -1;      // the incident's first line
  int end = -1;        // its last line
  int exception = -1;  // its exception line, or -1
  size_t type_at = 0;  // where the exception's type starts on that line
  bool traceback = false;
};

inline bool IdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// The cut of `lines` around `plain`'s first diagnosis' incident: its exception line is the last line of
// the incident that starts with its exception type and a colon, behind any prefix.
inline Cut CutOf(const std::vector<std::string>& lines, const triage::Report& plain) {
  Cut c;
  const triage::Diagnosis& d = plain.diagnoses[0];
  if (d.incident < 0 || static_cast<size_t>(d.incident) >= plain.incidents.size()) return c;
  const triage::Incident& inc = plain.incidents[d.incident];
  if (inc.line_start <= 0 || static_cast<size_t>(inc.line_end) > lines.size()) return c;
  c.start = inc.line_start - 1;
  c.end = inc.line_end - 1;
  c.traceback = inc.kind == triage::Incident::Kind::kTraceback;
  if (inc.exception.empty()) return c;
  for (int i = c.end; i >= c.start; --i) {
    const std::string& l = lines[i];
    for (size_t at = l.find(inc.exception); at != std::string::npos; at = l.find(inc.exception, at + 1)) {
      const size_t after = at + inc.exception.size();
      if ((at == 0 || !IdentChar(l[at - 1])) && after < l.size() && l[after] == ':') {
        c.exception = i;
        c.type_at = at;
        return c;
      }
    }
  }
  return c;
}

inline std::vector<std::string> Slice(const std::vector<std::string>& lines, int from, int to) {
  return std::vector<std::string>(lines.begin() + from, lines.begin() + to);
}

// The exception line from its type on, without the '\r' of a CRLF log.
inline std::string ErrorText(const std::vector<std::string>& lines, const Cut& c) {
  return Trimmed(lines[c.exception].substr(c.type_at));
}

// Issue 12's prose pastes (measured by cut_paste_test.cc; a form that finds nothing to change returns
// the log as it is):
//   prose_inline      the exception line inside a sentence, no backquotes: "when I run it I get TYPE: ...
//                     and then it stops"
//   prose_cjk         the same in Chinese, the type glued to a full-width colon: "运行时报错：TYPE: ...，怎么解决？"
//   bullet_error      the exception line and its message lines, the first behind "- Error: " (an issue
//                     template's bullet list)
//   table_cell        the exception line in a Markdown table's cell: "| 2.1.0 | Linux | TYPE: ... |"
//   exception_above   the exception line and its message lines moved above the traceback (pasted
//                     first, then the frames, as VS Code's "Exception has occurred" box shows them)
//   frames_only       the traceback's frame lines alone: no header, no exception line
//   one_line          the incident's lines joined by a blank, their indentation gone (a form or a chat
//                     that lost the newlines)
//   word_wrap_80      every line over 80 columns broken at its last blank before the 80th (an editor's
//                     or a mail client's word wrap; hard_wrap_test.cc has the console's hard wrap)
//   md_fence_prose    the log in a ``` fence between two sentences (an issue template's body)
//   md_quote          "> " before every line (a log quoted in a reply)
//   mixed_eol         every other line ended by CRLF
//   rank_prefix       "[rank0]: " before every line
//   dash_logging      "2024-05-01 12:00:00,123 - ERROR - " before every line
//   line_numbers      a line-number gutter before every line ("  12  "), as a viewer with line numbers
//                     copies it
// Issue 12's wrapper-logged exception lines (Note: [Embedded exception lines] in
// engine/src/log/formats/embedded_error.h), the exception line and its message lines after other text:
//   level_prefixed    behind a log level a wrapper printed: "ERROR: TYPE: ..."
//   json_record       the exception line as the message of a structured (JSON) log record, alone
//   repr_logged       the exception's repr in a sentence, as a retry loop logs it: "... with TYPE('...')"
inline std::string ProseInline(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception < 0) return Join(lines);
  return "when I run it I get " + ErrorText(lines, c) + " and then it stops\n";
}

inline std::string ProseCjk(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception < 0) return Join(lines);
  return "\u8fd0\u884c\u65f6\u62a5\u9519\uff1a" + ErrorText(lines, c) + "\uff0c\u600e\u4e48\u89e3\u51b3\uff1f\n";
}

inline std::string BulletError(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception < 0) return Join(lines);
  std::vector<std::string> out = {"- torch 2.1.0, CUDA 12.1", "- Error: " + ErrorText(lines, c)};
  for (int i = c.exception + 1; i <= c.end; ++i) out.push_back("  " + lines[i]);
  return Join(out);
}

inline std::string TableCell(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception < 0) return Join(lines);
  return "| torch | os | error |\n|---|---|---|\n| 2.1.0 | Linux | " + ErrorText(lines, c) + " |\n";
}

inline std::string ExceptionAbove(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception <= c.start || !c.traceback) return Join(lines);
  std::vector<std::string> out = Slice(lines, 0, c.start);
  out.push_back(lines[c.exception].substr(c.type_at));
  for (int i = c.exception + 1; i <= c.end; ++i) out.push_back(lines[i]);
  for (int i = c.start; i < static_cast<int>(lines.size()); ++i) {
    if (i < c.exception || i > c.end) out.push_back(lines[i]);
  }
  return Join(out);
}

inline std::string FramesOnly(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception <= c.start + 1 || !c.traceback) return Join(lines);
  return Join(Slice(lines, c.start + 1, c.exception));
}

inline std::string OneLine(const std::vector<std::string>& lines, const Cut& c) {
  if (c.end <= c.start) return Join(lines);
  std::string out;
  for (int i = c.start; i <= c.end; ++i) {
    const std::string t = Trimmed(lines[i]);
    if (t.empty()) continue;
    if (!out.empty()) out += ' ';
    out += t;
  }
  return out + "\n";
}

inline std::string WordWrap80(const std::vector<std::string>& lines, const Cut&) {
  std::vector<std::string> out;
  for (std::string l : lines) {
    while (l.size() > 80) {
      const size_t b = l.rfind(' ', 80);
      if (b == std::string::npos || b == 0 || l.find_first_not_of(' ') >= b) break;
      out.push_back(l.substr(0, b));
      l = l.substr(b + 1);
    }
    out.push_back(l);
  }
  return Join(out);
}

inline std::string MdFenceProse(const std::vector<std::string>& lines, const Cut&) {
  return "I get this error when I start training:\n\n```\n" + Join(lines) + "```\n\nAny idea what is wrong?\n";
}

inline std::string Prefixed(const std::vector<std::string>& lines, const std::string& prefix) {
  std::vector<std::string> out;
  for (const std::string& l : lines) out.push_back(prefix + l);
  return Join(out);
}
inline std::string MdQuote(const std::vector<std::string>& l, const Cut&) { return Prefixed(l, "> "); }
inline std::string RankPrefix(const std::vector<std::string>& l, const Cut&) { return Prefixed(l, "[rank0]: "); }
inline std::string DashLogging(const std::vector<std::string>& l, const Cut&) {
  return Prefixed(l, "2024-05-01 12:00:00,123 - ERROR - ");
}

inline std::string MixedEol(const std::vector<std::string>& lines, const Cut&) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    out += lines[i];
    out += (i % 2 == 1 && (lines[i].empty() || lines[i].back() != '\r')) ? "\r\n" : "\n";
  }
  return out;
}

inline std::string LevelPrefixed(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception < 0) return Join(lines);
  std::vector<std::string> out = {"ERROR: " + ErrorText(lines, c)};
  for (int i = c.exception + 1; i <= c.end; ++i) out.push_back(lines[i]);
  return Join(out);
}

// The JSON string of the exception line: backslashes and quotes escaped, control characters dropped.
inline std::string JsonRecord(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception < 0) return Join(lines);
  std::string quoted;
  for (char ch : ErrorText(lines, c)) {
    if (ch == '"' || ch == '\\') quoted += '\\';
    if (static_cast<unsigned char>(ch) >= 0x20) quoted += ch;
  }
  return "{\"level\": \"ERROR\", \"message\": \"" + quoted + "\"}\n";
}

inline std::string ReprLogged(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception < 0) return Join(lines);
  const std::string t = ErrorText(lines, c);
  const size_t colon = t.find(':');
  const size_t from = t.find_first_not_of(' ', colon + 1);
  return "Training failed with " + t.substr(0, colon) + "('" + (from == std::string::npos ? "" : t.substr(from)) + "')\n";
}

inline std::string LineNumbers(const std::vector<std::string>& lines, const Cut&) {
  std::vector<std::string> out;
  char buf[32];  // room for any size_t: 20 digits, the two blanks and the NUL
  for (size_t i = 0; i < lines.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%4zu  ", i + 1);
    out.push_back(buf + lines[i]);
  }
  return Join(out);
}

// `utf8` as UTF-16 (little- or big-endian), after a byte order mark when `mark`: what PowerShell 5's
// `>` and Out-File write (Note: [UTF-16 input] in engine/src/log/utf16_input.h). A byte that is not
// valid UTF-8 becomes U+FFFD, as a console that decoded it would show it; line ends stay as they are.
inline std::string Utf16(const std::string& utf8, bool big, bool mark) {
  std::string out;
  auto unit = [&](unsigned u) {
    const char hi = static_cast<char>(u >> 8), lo = static_cast<char>(u & 0xff);
    out += big ? hi : lo;
    out += big ? lo : hi;
  };
  if (mark) unit(0xfeff);
  const auto* p = reinterpret_cast<const unsigned char*>(utf8.data());
  const size_t n = utf8.size();
  for (size_t i = 0; i < n;) {
    unsigned cp = p[i];
    size_t len = cp < 0x80 ? 1 : (cp >> 5) == 0x6 ? 2 : (cp >> 4) == 0xe ? 3 : (cp >> 3) == 0x1e ? 4 : 0;
    bool ok = len > 0 && i + len <= n;
    if (ok && len > 1) {
      cp &= 0x7f >> len;
      for (size_t k = 1; k < len; ++k) {
        ok = ok && (p[i + k] & 0xc0) == 0x80;
        cp = (cp << 6) | (p[i + k] & 0x3f);
      }
      const unsigned least[] = {0, 0, 0x80, 0x800, 0x10000};
      ok = ok && cp >= least[len] && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff);
    }
    if (!ok) {
      unit(0xfffd);
      ++i;
      continue;
    }
    if (cp >= 0x10000) {
      unit(0xd800 + ((cp - 0x10000) >> 10));
      unit(0xdc00 + ((cp - 0x10000) & 0x3ff));
    } else {
      unit(cp);
    }
    i += len;
  }
  return out;
}

// Issue 12's prefixes before a quoted log (Note: [Quote markers behind a prefix] in
// engine/src/log/formats/quote_marker.h):
//   rank_then_quote     "[rank0]: > " before every line (a quoted log a launcher prefixed)
//   logging_then_quote  "2024-05-01 12:00:00,123 INFO > " before every line (a logging formatter's record
//                       around a quoted message)
//   mail_quote          ">> " before every line (a mail client's quote in a quote)
inline std::string MailQuote(const std::vector<std::string>& l, const Cut&) { return Prefixed(l, ">> "); }
inline std::string RankThenQuote(const std::vector<std::string>& l, const Cut&) { return Prefixed(l, "[rank0]: > "); }
inline std::string LoggingThenQuote(const std::vector<std::string>& l, const Cut&) {
  return Prefixed(l, "2024-05-01 12:00:00,123 INFO > ");
}

// Issue 12's prose after the exception line on its line (Note: [Prose after a message] in
// engine/src/log/formats/text.h), the exception line alone from its type on, as error_first_line:
//   error_dash_question  "TYPE: ... -- any idea why?"
//   error_see_above      "TYPE: ... (see above)"
//   error_asks           "TYPE: ..., how can I fix this?"
//   code_span_sentence   "`TYPE: ...` when I run train.py" (inline code opening the line)
inline std::string ErrorThen(const std::vector<std::string>& lines, const Cut& c, const std::string& tail) {
  if (c.exception < 0) return Join(lines);
  return ErrorText(lines, c) + tail + "\n";
}
inline std::string ErrorDashQuestion(const std::vector<std::string>& l, const Cut& c) { return ErrorThen(l, c, " -- any idea why?"); }
inline std::string ErrorSeeAbove(const std::vector<std::string>& l, const Cut& c) { return ErrorThen(l, c, " (see above)"); }
inline std::string ErrorAsks(const std::vector<std::string>& l, const Cut& c) { return ErrorThen(l, c, ", how can I fix this?"); }
inline std::string CodeSpanSentence(const std::vector<std::string>& lines, const Cut& c) {
  if (c.exception < 0) return Join(lines);
  return "`" + ErrorText(lines, c) + "` when I run train.py\n";
}

// Issue 12's encodings of a whole log (Note: [UTF-16 input]):
//   utf16le_bom       the log as PowerShell 5's `python train.py > log.txt` writes it: UTF-16LE after
//                     a byte order mark, every line ended by CRLF
//   utf16be_bom       UTF-16BE after a byte order mark
inline std::string WithCrlf(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) {
    out += l;
    if (l.empty() || l.back() != '\r') out += '\r';
    out += '\n';
  }
  return out;
}
inline std::string Utf16LeBom(const std::vector<std::string>& lines, const Cut&) { return Utf16(WithCrlf(lines), false, true); }
inline std::string Utf16BeBom(const std::vector<std::string>& lines, const Cut&) { return Utf16(Join(lines), true, true); }

// Issue 12's Windows PowerShell forms (session 2026-11-30f):
//   utf16_appended     the log up to the incident as UTF-8, the incident and what follows appended as
//                      UTF-16LE with CRLF and no byte order mark: what Windows PowerShell 5's `>>` appends
//                      to a file a UTF-8 writer began (Note: [UTF-16 appended to UTF-8] in
//                      engine/src/log/utf16_input.h)
//   powershell_native  the incident's first line as Windows PowerShell 5 shows a native program's first
//                      line on stderr under `2>&1`: behind the program's name, then its error record (the
//                      line and column of the command, the command under a row of tildes, CategoryInfo
//                      naming the line, cut to 15...15 characters past 40, and FullyQualifiedErrorId) and
//                      a line of one blank; the record's layout as threads quote it (e.g. the "python :
//                      Windows fatal exception" and "node.exe : npm warn" records find_string shows for
//                      "FullyQualifiedErrorId : NativeCommandError")
inline std::string Utf16Appended(const std::vector<std::string>& lines, const Cut& c) {
  if (c.start < 0) return Join(lines);
  const std::vector<std::string> head(lines.begin(), lines.begin() + c.start);
  const std::vector<std::string> tail(lines.begin() + c.start, lines.end());
  return Join(head) + Utf16(WithCrlf(tail), false, false);
}
inline std::string PowerShellNative(const std::vector<std::string>& lines, const Cut& c) {
  if (c.start < 0) return Join(lines);
  std::vector<std::string> out(lines.begin(), lines.begin() + c.start);
  std::string first = lines[c.start];
  if (!first.empty() && first.back() == '\r') first.pop_back();
  const std::string shown = first.size() > 40 ? first.substr(0, 15) + "..." + first.substr(first.size() - 15) : first;
  out.push_back("python : " + first);
  out.push_back("At line:1 char:1");
  out.push_back("+ python train.py 2>&1 | Tee-Object -FilePath log.txt");
  out.push_back("+ ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~");
  out.push_back("    + CategoryInfo          : NotSpecified: (" + shown + ":String) [], RemoteException");
  out.push_back("    + FullyQualifiedErrorId : NativeCommandError");
  out.push_back(" ");
  out.insert(out.end(), lines.begin() + c.start + 1, lines.end());
  return Join(out);
}

}  // namespace triage_test

#endif  // TRIAGE_TESTS_PASTE_FORMS_H_
