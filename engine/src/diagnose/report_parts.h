// Pieces every human-readable report (text, Markdown, HTML, CI annotations) shares: report.cc.
// They return raw log text; each format escapes it with escape.h.
#ifndef TRIAGE_ENGINE_REPORT_PARTS_H_
#define TRIAGE_ENGINE_REPORT_PARTS_H_

#include <string>
#include <vector>

#include "triage/triage.h"

namespace triage {

// Per-layer probe measurements as the JSON array the report's "layer_series" and the probe evidence's
// (EvidenceToJson) hold; documented in engine/README.md's output contract.
void AppendLayerSeriesJson(std::string* out, const std::vector<LayerSeries>& all);

// The incident a diagnosis points at, or nullptr.
const Incident* IncidentOf(const Report& report, const Diagnosis& d);

// The input's name as shown: "stdin" for "-".
std::string SourceName(const Report& report);

// "RuntimeError in model.py:17 in forward: ..., lines 2-18 of train.log, rank 3"
std::string Where(const Incident& inc, const std::string& source);

// "85%"
std::string Percent(double v);

// "rules besides the bundled ones: ./.triage/rules (project), /tmp/r (--rules)", or "" when the report
// used only the bundled rules (Report::rule_sources).
std::string RuleSourcesNote(const Report& report);

// Wraps every line of `text` at spaces to `width` columns (at least 20), continuation lines indented
// under the line's first word after a list or label marker ("1. ", "- ", "fix:  "); a word longer than a
// line is cut. Width 0 leaves the text as it is.
std::string Wrap(const std::string& text, int width);

// The first `n` lines of `s`, with " ..." when there were more.
std::string FirstLines(const std::string& s, int n);

// One line of an incident written the way Python prints a traceback ("Traceback (most recent call
// last):", "  File "x.py", line 3, in f", "    source", "RuntimeError: message"); `culprit` marks the
// failing frame's lines (the deepest frame of the user's code).
struct TracebackLine {
  std::string text;
  bool culprit = false;
};
std::vector<TracebackLine> TracebackLines(const Incident& inc);

}  // namespace triage

#endif  // TRIAGE_ENGINE_REPORT_PARTS_H_
