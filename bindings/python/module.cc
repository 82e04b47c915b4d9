// The C++ half of the Python module (bindings/python/README.md): loading rules and diagnosing text,
// over the same engine as the `triage` command. Everything the engine returns crosses as values; a
// C++ exception (there should be none: the engine's API does not throw) becomes a Python RuntimeError
// through pybind11, never a crash. The GIL is released while the engine works.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "triage/evidence.h"
#include "triage/locale_free.h"
#include "triage/triage.h"

namespace py = pybind11;

namespace {

// A loaded rule set and the problems found while loading it.
struct PyRules {
  std::shared_ptr<const triage::RuleSet> rules;
  std::vector<triage::Problem> problems;
};

py::dict ProblemDict(const triage::Problem& p) {
  py::dict d;
  d["severity"] = p.severity == triage::Problem::Severity::kError ? "error" : "warning";
  d["code"] = p.code;
  d["file"] = p.file;
  d["line"] = p.line;
  d["column"] = p.column;
  d["rule"] = p.rule_id;
  d["message"] = p.message;
  d["text"] = p.ToString();
  return d;
}

PyRules Load(const std::vector<std::string>& dirs, bool bundled, bool strict, bool env_path, bool project,
             const std::string& working_dir) {
  triage::LoadOptions o;
  o.dirs = dirs;
  o.bundled = bundled;
  o.strict = strict;
  o.env_path = env_path;
  o.project = project;
  o.working_dir = working_dir;
  triage::LoadResult r;
  {
    py::gil_scoped_release release;
    r = triage::LoadRules(o);
  }
  return PyRules{r.rules, std::move(r.problems)};
}

triage::Report Diagnose(const PyRules& rules, const py::bytes& text, int top, double min_confidence,
                        const std::string& source, const std::string& audience) {
  std::string bytes = text;  // copied while holding the GIL
  triage::DiagnoseOptions o;
  o.top = top;
  o.min_confidence = min_confidence;
  // Note: [Audience] in rules/README.md: whom the checks and fixes are written for.
  if (!triage::AudienceFromName(audience, &o.audience)) {
    throw py::value_error("audience must be 'python', 'cpp' or 'auto', not '" + audience + "'");
  }
  triage::Report report;
  {
    py::gil_scoped_release release;
    report = triage::Engine(rules.rules).DiagnoseText(bytes, o);
  }
  report.source = source;
  return report;
}

// A number of the evidence JSON: a float, or the strings "nan", "inf", "-inf" the JSON writer uses
// for values JSON cannot spell.
double Number(const py::handle& v) {
  if (py::isinstance<py::str>(v)) {
    const std::string text = py::str(v);
    double out = 0;
    if (!triage::ParseNumber(text, &out)) throw py::value_error("evidence number '" + text + "' is not a number");
    return out;
  }
  return v.cast<double>();
}

// The "layer_series" of an evidence dict (triage/evidence.h, EvidenceToJson).
std::vector<triage::LayerSeries> LayerSeriesFrom(const py::handle& list) {
  std::vector<triage::LayerSeries> out;
  for (const py::handle& item : py::reinterpret_borrow<py::list>(list)) {
    py::dict d = py::reinterpret_borrow<py::dict>(item);
    triage::LayerSeries s;
    if (d.contains("probe")) s.probe = py::str(d["probe"]);
    if (d.contains("name")) s.name = py::str(d["name"]);
    s.log_scale = d.contains("scale") && std::string(py::str(d["scale"])) == "log";
    if (d.contains("above")) s.has_above = true, s.above = Number(d["above"]);
    if (d.contains("below")) s.has_below = true, s.below = Number(d["below"]);
    if (d.contains("layers")) {
      for (const py::handle& l : py::reinterpret_borrow<py::list>(d["layers"])) {
        py::dict ld = py::reinterpret_borrow<py::dict>(l);
        triage::LayerValue v;
        if (ld.contains("layer")) v.layer = py::str(ld["layer"]);
        if (ld.contains("value")) v.value = Number(ld["value"]);
        if (ld.contains("offending")) v.offending = ld["offending"].cast<bool>();
        s.layers.push_back(std::move(v));
      }
    }
    out.push_back(std::move(s));
  }
  return out;
}

// Applies evidence found in Python (the live frames of an exception, or a probe run) to a report and
// returns the new report: statuses, confidence and order as for LibTorch probes (triage/evidence.h).
triage::Report ApplyEvidence(const triage::Report& report, const py::list& items) {
  std::vector<triage::ProbeEvidence> evidence;
  for (const py::handle& item : items) {
    py::dict d = py::reinterpret_borrow<py::dict>(item);
    triage::ProbeEvidence e;
    auto str = [&](const char* key, std::string* out) {
      if (d.contains(key)) *out = py::str(d[key]);
    };
    str("probe", &e.probe);
    if (d.contains("verdict")) {
      const std::string verdict = py::str(d["verdict"]);
      if (!triage::VerdictFromName(verdict, &e.verdict)) {
        throw py::value_error("evidence 'verdict' must be confirmed, refuted or inconclusive, not '" + verdict + "'");
      }
    }
    str("summary", &e.summary);
    str("category", &e.category);
    str("hypothesis", &e.hypothesis);
    str("title", &e.title);
    str("text", &e.text);
    str("fix", &e.fix);
    if (d.contains("strength")) e.strength = d["strength"].cast<double>();
    if (d.contains("facts")) {
      for (const py::handle& kv : py::reinterpret_borrow<py::list>(d["facts"])) {
        py::tuple t = py::reinterpret_borrow<py::tuple>(kv);
        e.facts.emplace_back(py::str(t[0]), py::str(t[1]));
      }
    }
    if (d.contains("layer_series")) e.layer_series = LayerSeriesFrom(d["layer_series"]);
    evidence.push_back(std::move(e));
  }
  triage::Report out = report;
  triage::ApplyEvidence(out, evidence);
  return out;
}

}  // namespace

PYBIND11_MODULE(_triage, m) {
  m.doc() = "triage engine (C++): use the `triage` package, not this module";
  py::class_<PyRules>(m, "Rules")
      .def_property_readonly("problems", [](const PyRules& r) {
        py::list out;
        for (const triage::Problem& p : r.problems) out.append(ProblemDict(p));
        return out;
      })
      .def_property_readonly("count", [](const PyRules& r) { return triage::CountRules(*r.rules); });
  py::class_<triage::Report>(m, "Report")
      .def_property_readonly("audience", [](const triage::Report& r) { return std::string(triage::AudienceName(r.audience)); })
      .def("to_json", [](const triage::Report& r) { return triage::ToJson(r); })
      .def("to_html", [](const triage::Report& r) { return triage::ToHtml({r}); })
      .def("to_markdown", [](const triage::Report& r) { return triage::ToMarkdown(r); })
      .def("to_text", [](const triage::Report& r, bool color, bool verbose) {
        triage::TextOptions o;
        o.color = color;
        o.verbose = verbose;
        return triage::ToText(r, o);
      }, py::arg("color") = false, py::arg("verbose") = false);
  m.def("load_rules", &Load, py::arg("dirs"), py::arg("bundled") = true, py::arg("strict") = false,
        py::arg("env_path") = true, py::arg("project") = true, py::arg("working_dir") = "");
  m.def("diagnose", &Diagnose, py::arg("rules"), py::arg("text"), py::arg("top") = 0,
        py::arg("min_confidence") = triage::DiagnoseOptions().min_confidence, py::arg("source") = "-",
        py::arg("audience") = "python");
  m.def("apply_evidence", &ApplyEvidence, py::arg("report"), py::arg("evidence"));
  m.def("version", [] { return std::string(triage::Version()); });
  // An installed package names the prefix's rules (its _paths.py); the engine uses them as the
  // bundled rules when it cannot tell them from the module's own place (Note: [Bundled rules]).
  m.def("note_installed_rules_dir", [](const std::string& dir) { triage::internal::NoteInstalledRulesDir(dir.c_str()); });
}
