#include "log/formats/embedded_error.h"

#include "log/formats/python_traceback.h"
#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {
namespace {

bool IsIdentChar(char c) { return IsAsciiAlnum(c) || c == '_'; }

// The characters that may come right before an embedded type, and the one that closes what each opens
// ('\0': nothing to close).
bool OpensType(char c, char* closer) {
  if (static_cast<unsigned char>(c) >= 0x80) {  // the end of a non-ASCII character: CJK prose, a full-width colon
    *closer = '\0';
    return true;
  }
  switch (c) {
    case ' ': case '\t': case ':': case '>': case '=': case '|': *closer = '\0'; return true;
    case '\'': case '"': case '`': case '*': *closer = c; return true;
    case '(': *closer = ')'; return true;
    case '[': *closer = ']'; return true;
    case '{': *closer = '}'; return true;
    case '_': *closer = '_'; return true;  // Markdown emphasis: _IndexError: ..._
    default: return false;
  }
}

// `msg` up to the last `closer` that ends a word (the end, a blank or punctuation after it), trimmed; as
// it is when there is none.
std::string_view CutAtCloser(std::string_view msg, char closer) {
  for (size_t at = msg.rfind(closer); at != std::string_view::npos; at = at == 0 ? std::string_view::npos : msg.rfind(closer, at - 1)) {
    if (at + 1 == msg.size() || std::string_view(" \t.,;:!?)]}'\"`*_").find(msg[at + 1]) != std::string_view::npos) {
      return text::Trim(msg.substr(0, at));
    }
  }
  return msg;
}

}  // namespace

// Note: [Embedded exception lines] (embedded_error.h)
bool EmbeddedErrorReader::Find(std::string_view line, std::string_view* type, std::string_view* message) {
  static constexpr std::string_view kEndings[] = {"Error", "Exception", "Failure", "Interrupt"};
  const size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return false;
  size_t best = std::string_view::npos, best_end = 0;
  for (std::string_view ending : kEndings) {
    for (size_t at = line.find(ending); at != std::string_view::npos && at < best; at = line.find(ending, at + 1)) {
      const size_t end = at + ending.size();
      if (at == 0 || !IsIdentChar(line[at - 1])) continue;  // the ending alone: "Error: ..."
      const bool colon = end < line.size() && line[end] == ':' && (end + 1 == line.size() || line[end + 1] == ' ');
      const bool repr = end + 1 < line.size() && line[end] == '(' && (line[end + 1] == '\'' || line[end + 1] == '"');
      if (!colon && !repr) continue;
      size_t start = at;
      while (start > 0 && (IsIdentChar(line[start - 1]) || line[start - 1] == '.')) --start;
      while (start < at && line[start] == '.') ++start;
      // Markdown's underscores around an undotted type belong to the emphasis, not the name.
      if (line.substr(start, at - start).find('.') == std::string_view::npos) {
        while (start + 1 < at && line[start] == '_' && line[start + 1] == '_') ++start;
      }
      char closer = '\0';
      if (line[start] == '_' && start > first && OpensType(line[start - 1], &closer)) ++start;
      if (start <= first || !OpensType(line[start - 1], &closer)) continue;
      // A raise statement's source line (a frame's, or code quoted in a sentence) is code, not the failure printed.
      if (repr && line.substr(0, start).size() >= 6 && line.substr(start - 6, 6) == "raise ") continue;
      const std::string_view name = line.substr(start, end - start);
      if (text::TypePrefix(name) != name.size() || !text::LooksLikeExceptionType(name)) continue;
      best = start;
      best_end = end;
    }
  }
  if (best == std::string_view::npos) return false;
  *type = line.substr(best, best_end - best);
  char closer = '\0';
  OpensType(line[best - 1], &closer);
  std::string_view msg;
  if (line[best_end] == '(') {
    // A repr: the text between its quotes, up to the last quote that a ')' follows (or ",)": the repr of
    // Python before 3.7, "RuntimeError('...',)").
    const char quote = line[best_end + 1];
    const size_t body = best_end + 2;
    size_t close = line.rfind(std::string{quote, ')'});
    const size_t old_close = line.rfind(std::string{quote, ',', ')'});
    if (old_close != std::string_view::npos && (close == std::string_view::npos || old_close > close)) close = old_close;
    msg = close != std::string_view::npos && close >= body ? line.substr(body, close - body) : line.substr(body);
  } else {
    msg = text::Trim(line.substr(best_end + 1));
    if (closer != '\0') msg = CutAtCloser(msg, closer);
    if (closer == '*' || closer == '_') {  // emphasis closes with as many marks as opened it
      while (!msg.empty() && msg.back() == closer) msg.remove_suffix(1);
    }
    msg = text::WithoutProseTail(msg);  // Note: [Prose after a message] in text.h
  }
  *message = msg;
  return true;
}

bool EmbeddedErrorReader::Unrecognised(Segmenter& s, const std::string& line, std::string_view trimmed) {
  std::string_view type, message;
  if (!Find(trimmed, &type, &message)) return false;
  // The failure of an incident kept before, named again (pytest's short summary "FAILED test_x.py::test -
  // RuntimeError: Given groups=1,...", a sentence after the pasted traceback): no new incident.
  std::string_view said = message;
  for (std::string_view ellipsis : {"...", "\xe2\x80\xa6"}) {
    if (text::EndsWith(said, ellipsis)) said.remove_suffix(ellipsis.size());
  }
  const std::vector<Incident>& kept = s.kept();
  const std::string whole = std::string(type) + ": " + std::string(said);
  for (size_t i = kept.size(), seen = 0; i-- > 0 && seen < 16; ++seen) {
    if (kept[i].exception == type && text::StartsWith(kept[i].message, said)) return false;
    if (kept[i].message.find(whole) != std::string::npos) return false;  // a log line that names it whole
  }
  Incident inc;
  inc.kind = Incident::Kind::kErrorLine;
  inc.line_start = inc.line_end = static_cast<int>(s.line_no());
  inc.rank = s.rank();
  inc.exception = std::string(type);
  s.AppendMessage(&inc, message);
  PythonTracebackReader::OpenErrorLine(s, line, std::move(inc));
  return true;
}

}  // namespace triage
