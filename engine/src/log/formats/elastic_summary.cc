#include "log/formats/elastic_summary.h"

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

using text::EndsWith;
using text::LTrim;
using text::StartsWith;
using text::Trim;

bool ElasticSummaryReader::StartAfterWrapper(Segmenter& s, std::string_view trimmed) {
  const std::vector<Incident>& kept = s.kept();
  if (!StartsWith(trimmed, "=====") || kept.empty() || !EndsWith(kept.back().exception, "ChildFailedError")) return false;
  *this = ElasticSummaryReader();
  wrapper_ = static_cast<int>(kept.size()) - 1;
  s.EnterBlock(&Block<&FormatReaders::elastic>);
  return true;
}

void ElasticSummaryReader::Line(Segmenter& s, const std::string& line, std::string_view t) {
  if (StartsWith(t, "Traceback (most recent call last):") && line[0] != ' ') {
    Close(s);
    s.HandleIdle(line, t);
    return;
  }
  SummaryLine(s, t);
}

void ElasticSummaryReader::SummaryLine(Segmenter& s, std::string_view t) {
  if (StartsWith(t, "Root Cause")) { in_root_ = true; return; }
  if (StartsWith(t, "Failures:")) { in_root_ = false; return; }
  if (StartsWith(t, "=====")) {
    Close(s);
    return;
  }
  auto field = [&](std::string_view name, std::string_view* value) {
    if (!StartsWith(t, name)) return false;
    std::string_view rest = LTrim(t.substr(name.size()));
    if (rest.empty() || rest[0] != ':') return false;
    *value = Trim(rest.substr(1));
    return true;
  };
  std::string_view v;
  if (field("rank", &v)) {
    entry_rank_ = std::string(v.substr(0, v.find_first_not_of("0123456789")));
    if (in_root_) root_rank_ = entry_rank_;
  } else if (field("traceback", &v)) {
    in_copy_ = StartsWith(v, "Traceback (most recent call last)");
    if (StartsWith(v, "Signal ")) {
      Incident inc;
      inc.kind = Incident::Kind::kErrorLine;
      inc.line_start = inc.line_end = static_cast<int>(s.line_no());
      inc.rank = entry_rank_;
      s.AppendMessage(&inc, v);
      s.Emit(std::move(inc));
      if (signal_ < 0) signal_ = static_cast<int>(s.kept().size()) - 1;
    }
  } else if (in_copy_ && in_root_) {
    // The last "SomethingError: message" line of the copied traceback, kept in case the rank's own
    // output is not in the log.
    if (text::IsExceptionLine(t)) {
      copy_line_ = std::string(t.substr(0, 4096));
      copy_line_no_ = s.line_no();
    }
  }
}

void ElasticSummaryReader::Close(Segmenter& s) {
  s.EndBlock();
  std::vector<Incident>& kept = s.kept();
  const int wrapper = wrapper_;
  if (wrapper < 0 || wrapper >= static_cast<int>(kept.size())) return;
  int cause = signal_;
  if (cause < 0 && !root_rank_.empty()) {
    for (int i = wrapper - 1; i >= 0; --i) {
      if (kept[i].kind != Incident::Kind::kLogLine && kept[i].rank == root_rank_) {
        cause = i;
        break;
      }
    }
  }
  if (cause < 0 && !copy_line_.empty()) {
    Incident inc;
    inc.kind = Incident::Kind::kErrorLine;
    inc.line_start = inc.line_end = static_cast<int>(copy_line_no_);
    inc.rank = root_rank_;
    PythonTracebackReader::ParseExceptionLine(s, copy_line_, &inc);
    s.Emit(std::move(inc));
    cause = static_cast<int>(kept.size()) - 1;
  }
  if (cause >= 0 && cause != wrapper && cause < static_cast<int>(kept.size())) kept[wrapper].caused_by = cause;
  if (signal_ >= 0) {
    for (int i = 0; i < wrapper; ++i) {
      Incident& inc = kept[i];
      if (inc.kind != Incident::Kind::kLogLine && inc.caused_by < 0 && !inc.rank.empty() &&
          inc.message.find("by peer") != std::string::npos) {
        inc.caused_by = signal_;
      }
    }
  }
  *this = ElasticSummaryReader();
}

}  // namespace triage
