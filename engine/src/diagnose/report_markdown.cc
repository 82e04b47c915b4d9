// Reports to paste into a GitHub issue (Markdown) and to point a CI log at the failing line (GitHub
// Actions workflow commands). Log text goes through escape.h: it shows as written, never as markup.
#include <string>

#include "diagnose/escape.h"
#include "diagnose/report_parts.h"
#include "triage/triage.h"

namespace triage {
namespace {

// A fenced code block; `info` is the language hint ("text", "sh", "python").
std::string Fenced(const std::string& text, const std::string& info) {
  std::string fence = MarkdownFence(text);
  return fence + info + "\n" + text + (text.empty() || text.back() == '\n' ? "" : "\n") + fence + "\n";
}

// The incident as Python printed it, the failing frame marked at the end of its line.
std::string TracebackBlock(const Incident& inc) {
  std::string text;
  for (const TracebackLine& l : TracebackLines(inc)) {
    text += PrintableText(l.text);
    if (l.culprit && l.text.rfind("  File ", 0) == 0) text += "    <-- failing frame of your code";
    text += "\n";
  }
  return Fenced(text, "text");
}

// "<details><summary>TITLE</summary>\n\nBODY\n</details>\n": collapsed until clicked.
std::string Details(const std::string& summary, const std::string& body) {
  return "<details><summary>" + HtmlText(summary) + "</summary>\n\n" + body + "\n</details>\n";
}

// A line of text as a Markdown paragraph; several lines keep their breaks.
std::string Paragraph(const std::string& text) {
  std::string out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    out += MarkdownText(line) + (nl == std::string::npos ? "\n" : "  \n");
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return out;
}

std::string HypothesesMarkdown(const Diagnosis& d) {
  std::string out;
  for (size_t i = 0; i < d.hypotheses.size(); ++i) {
    const Hypothesis& h = d.hypotheses[i];
    out += std::to_string(i + 1) + ". " + MarkdownText(h.text);
    if (h.status != HypothesisStatus::kUntested) out += " **" + std::string(HypothesisStatusName(h.status)) + "**";
    out += "\n";
    if (!h.test.empty()) out += "   - test: " + MarkdownCode(h.test) + "\n";
    if (!h.fix.empty()) out += "   - fix: " + MarkdownText(h.fix) + "\n";
    if (!h.evidence.empty()) out += "   - evidence: " + MarkdownText(h.evidence) + "\n";
  }
  return out;
}

std::string DiagnosisMarkdown(const Report& report, const Diagnosis& d, bool main) {
  std::string out = (main ? "### " : "#### ") + MarkdownCode(d.category) + " " + MarkdownText(d.title) + "\n\n";
  out += "Confidence " + Percent(d.confidence) + ", rule " + MarkdownCode(d.rule) +
         (d.from_hypothesis.empty() ? "" : ", its cause " + MarkdownCode(d.from_hypothesis)) +
         (d.occurrences > 1 ? ", seen " + std::to_string(d.occurrences) + " times" : "") + ".";
  const Incident* inc = IncidentOf(report, d);
  if (inc) out += " " + MarkdownCode(Where(*inc, SourceName(report))) + "\n\n";
  else out += "\n\n";
  if (inc && inc->kind != Incident::Kind::kSignal) out += TracebackBlock(*inc) + "\n";
  if (!d.ranking.empty()) out += "*" + MarkdownText(d.ranking) + "*\n\n";
  out += Paragraph(d.explanation) + "\n";
  if (!d.evidence.empty()) {
    out += "**Evidence from the metrics:**\n\n";
    for (const std::string& e : d.evidence) out += "- " + MarkdownText(e) + "\n";
    out += "\n";
  }
  if (!d.hypotheses.empty()) out += "**Likely causes, most likely first:**\n\n" + HypothesesMarkdown(d) + "\n";
  if (!d.checks.empty()) {
    std::string checks;
    for (const std::string& c : d.checks) checks += c + "\n";
    out += Details("Checks you can run (" + std::to_string(d.checks.size()) + ")", Fenced(PrintableText(checks), "sh")) + "\n";
  }
  if (!d.verify.empty()) out += "**Verify the fix:** " + MarkdownText(d.verify) + "\n\n";
  return out;
}

}  // namespace

std::string ToMarkdown(const Report& report) {
  std::string src = SourceName(report);
  std::string out = "## triage: " + MarkdownCode(src) + "\n\n";
  if (report.diagnoses.empty()) {
    out += "No PyTorch failure recognised (" + std::to_string(report.lines) + " lines, " +
           std::to_string(report.incidents.size()) + " incident(s)).\n\n";
    for (const Incident& inc : report.incidents) {
      if (inc.kind == Incident::Kind::kLogLine) continue;
      out += "Unrecognised, line " + std::to_string(inc.line_start) + ":\n\n" + TracebackBlock(inc) + "\n";
    }
  }
  for (size_t k = 0; k < report.diagnoses.size(); ++k) {
    if (k == 0) {
      out += DiagnosisMarkdown(report, report.diagnoses[k], true);
      continue;
    }
    std::string alternatives;
    for (size_t j = k; j < report.diagnoses.size(); ++j) alternatives += DiagnosisMarkdown(report, report.diagnoses[j], false);
    out += Details("Also possible (" + std::to_string(report.diagnoses.size() - k) + ")", alternatives);
    break;
  }
  if (!report.warnings.empty()) {
    std::string notes;
    for (const Problem& p : report.warnings) notes += "- " + MarkdownText(p.ToString()) + "\n";
    out += Details("Notes on the input (" + std::to_string(report.warnings.size()) + ")", notes);
  }
  if (std::string rules = RuleSourcesNote(report); !rules.empty()) out += "\n*" + MarkdownText(rules) + "*\n";
  return out;
}

std::string ToGithubAnnotations(const Report& report, const std::string& workspace) {
  std::string out;
  for (size_t k = 0; k < report.diagnoses.size(); ++k) {
    const Diagnosis& d = report.diagnoses[k];
    std::string properties;
    const Incident* inc = IncidentOf(report, d);
    if (inc && inc->culprit >= 0 && inc->culprit < static_cast<int>(inc->frames.size())) {
      const Frame& f = inc->frames[inc->culprit];
      std::string file = f.file;
      std::string root = workspace.empty() || workspace.back() == '/' ? workspace : workspace + "/";
      if (!root.empty() && file.rfind(root, 0) == 0) file = file.substr(root.size());
      properties = "file=" + WorkflowCommandText(file, true) + ",line=" + std::to_string(f.line) + ",";
    }
    properties += "title=" + WorkflowCommandText(d.category + " (" + Percent(d.confidence) + "): " + d.title, true);
    std::string message = d.explanation;
    if (inc) message = Where(*inc, SourceName(report)) + "\n" + message;
    if (!d.hypotheses.empty() && !d.hypotheses.front().fix.empty()) message += "\nfix: " + d.hypotheses.front().fix;
    // The top diagnosis is the error; alternatives are warnings, so a CI page shows one red mark.
    out += (k == 0 ? "::error " : "::warning ") + properties + "::" + WorkflowCommandText(message, false) + "\n";
  }
  return out;
}

}  // namespace triage
