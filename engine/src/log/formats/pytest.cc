#include "log/formats/pytest.h"

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

using text::ParseInt;
using text::Trim;

bool PytestReader::Start(Segmenter& s, const std::string&, std::string_view trimmed) {
  if (!(trimmed.size() > 20 && trimmed[0] == '=' && trimmed.back() == '=' &&
        (trimmed.find(" FAILURES ") != std::string_view::npos || trimmed.find(" ERRORS ") != std::string_view::npos))) {
    return false;
  }
  Incident& open = s.open();
  open = Incident();
  open.kind = Incident::Kind::kTraceback;
  open.line_start = open.line_end = static_cast<int>(s.line_no());
  open.rank = s.rank();
  s.readers().pytest.source_.clear();
  s.readers().python.expects_source() = false;
  s.EnterBlock(&Block<&FormatReaders::pytest>);
  return true;
}

void PytestReader::CloseTest(Segmenter& s) {
  Incident& open = s.open();
  if (!open.exception.empty() || !open.message.empty()) {
    Incident inc = std::move(open);
    s.Emit(std::move(inc));
  }
  open = Incident();
  open.kind = Incident::Kind::kTraceback;
  open.line_start = open.line_end = static_cast<int>(s.line_no());
  open.rank = s.rank();
  source_.clear();
  s.readers().python.expects_source() = false;
}

void PytestReader::Close(Segmenter& s) {
  s.EndBlock();
  Incident& open = s.open();
  if (open.exception.empty() && open.message.empty()) return;  // no failing test in progress
  Incident inc = std::move(open);
  open = Incident();
  s.Emit(std::move(inc));
}

void PytestReader::Line(Segmenter& s, const std::string& line, std::string_view t) {
  if (t.empty()) return;
  if (t[0] == '=' && t.back() == '=') {  // the next section (short test summary, totals)
    CloseTest(s);
    s.EndBlock();
    return;
  }
  if (t[0] == '_' && t.back() == '_') {
    if (t.find("_ _") == std::string_view::npos) CloseTest(s);  // a new test's banner, not a separator
    return;
  }
  Incident& open = s.open();
  open.line_end = static_cast<int>(s.line_no());
  if (line[0] == 'E' && (line.size() == 1 || line[1] == ' ')) {
    std::string_view body = Trim(std::string_view(line).substr(1));
    if (open.exception.empty() && open.message.empty()) {
      size_t n = text::TypePrefix(body);
      if (n > 0 && (n == body.size() || body[n] == ':') && text::LooksLikeExceptionType(body.substr(0, n))) {
        PythonTracebackReader::ParseExceptionLine(s, std::string(body), &open);
        return;
      }
    }
    s.AppendMessage(&open, body);
    return;
  }
  if (line[0] == '>') {
    source_ = std::string(Trim(std::string_view(line).substr(1)).substr(0, 512));
    return;
  }
  if (line[0] == ' ' || line[0] == '\t') {
    if (s.readers().python.expects_source() && !open.frames.empty()) open.frames.back().source = std::string(t.substr(0, 512));
    s.readers().python.expects_source() = false;
    return;
  }
  // "path.py:16: ", "path.py:459: RuntimeError", "path.py:1194: in _call_impl"
  size_t sep = t.find(": ");
  if (sep == std::string_view::npos && t.back() == ':') sep = t.size() - 1;
  if (sep == std::string_view::npos) return;
  std::string_view loc = t.substr(0, sep);
  size_t colon = loc.rfind(':');
  int line_number = 0;
  if (colon == std::string_view::npos || colon == 0 ||
      ParseInt(loc.substr(colon + 1), &line_number) != loc.size() - colon - 1 || line_number == 0 ||
      loc.find(' ') != std::string_view::npos) {
    return;
  }
  Frame f;
  f.file = std::string(loc.substr(0, colon));
  f.line = line_number;
  f.user = !text::IsLibraryFile(f.file);
  std::string_view rest = sep + 2 <= t.size() ? Trim(t.substr(sep + 1)) : std::string_view();
  if (text::StartsWith(rest, "in ")) {
    f.function = std::string(rest.substr(3));
    s.readers().python.expects_source() = true;
  } else {
    f.source = source_;
    s.readers().python.expects_source() = false;
    if (open.exception.empty() && !rest.empty() && text::TypePrefix(rest) == rest.size() && text::LooksLikeExceptionType(rest)) {
      open.exception = std::string(rest);
    }
  }
  source_.clear();
  s.PushFrame(std::move(f));
}

}  // namespace triage
