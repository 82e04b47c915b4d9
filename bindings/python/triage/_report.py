"""Plain Python objects for a report (the JSON output contract of engine/README.md)."""
import json as _json
from dataclasses import dataclass, field
from typing import List, Optional, Tuple


@dataclass
class Problem:
    severity: str
    code: str
    message: str
    file: str = ""
    line: int = 0
    column: int = 0
    rule: str = ""
    text: str = ""

    def __str__(self):
        return self.text or self.message


@dataclass
class Hypothesis:
    id: str
    text: str
    status: str = "untested"
    test: str = ""
    fix: str = ""
    probe: str = ""
    evidence: str = ""


@dataclass
class Series:
    name: str
    axis: str
    points: List[Tuple[float, float]]
    onset: Optional[float] = None


@dataclass
class LayerValue:
    layer: str
    value: float
    offending: bool = False


@dataclass
class LayerSeries:
    """A probe's per-layer measurement (gradient norms, dead-unit fractions); above / below are the
    thresholds it judged by (None when it has none)."""
    probe: str
    name: str
    scale: str
    layers: List[LayerValue]
    above: Optional[float] = None
    below: Optional[float] = None


@dataclass
class Diagnosis:
    rule: str
    category: str
    confidence: float
    title: str
    explanation: str
    hypotheses: List[Hypothesis]
    checks: List[str]
    verify: str
    incident: int
    evidence: List[str] = field(default_factory=list)
    series: List[Series] = field(default_factory=list)
    layer_series: List[LayerSeries] = field(default_factory=list)
    ranking: str = ""
    from_hypothesis: str = ""
    raw: dict = field(default_factory=dict, repr=False)


@dataclass
class Incident:
    exception: str
    message: str
    line_start: int
    line_end: int
    culprit: object = None
    raw: dict = field(default_factory=dict, repr=False)


def _float(v):
    # The contract writes non-finite numbers as strings ("nan", "inf") or null.
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


class Report:
    """A diagnosis of one input. `diagnoses` is best first; empty means no PyTorch failure was found."""

    def __init__(self, native, live=None, findings=None, text=None):
        self._native = native
        self._json = native.to_json()
        data = _json.loads(self._json)
        self.source = data.get("source", "")
        # Whom the checks and fixes were written for: "python" or "cpp" (diagnose(audience=...)).
        self.audience = native.audience
        self.diagnoses = [self._diagnosis(d) for d in data.get("diagnoses", [])]
        self.incidents = [Incident(exception=i.get("exception", ""), message=i.get("message", ""),
                                   line_start=i.get("line_start", 0), line_end=i.get("line_end", 0),
                                   culprit=i.get("culprit", ""), raw=i) for i in data.get("incidents", [])]
        self.warnings = data.get("warnings", [])
        # What only a live exception has: the tensors in the failing frames (diagnose_exception).
        self.live = live or []
        # The findings read from those tensors (probe-style evidence dicts), already applied above.
        self.findings = findings or []
        # The text that was diagnosed (bytes), so that triage.check(log=report) can test its hypotheses.
        self.log_text = text
        # After triage.check: every probe's verdict (dicts), and how the model was exported.
        self.probes = []
        self.exported = None

    @staticmethod
    def _diagnosis(d):
        hyps = [Hypothesis(id=h.get("id", ""), text=h.get("text", ""), status=h.get("status", "untested"),
                           test=h.get("test", ""), fix=h.get("fix", ""), probe=h.get("probe", ""),
                           evidence=h.get("evidence", "")) for h in d.get("hypotheses", [])]
        # The contract: "series" is the main one (an object), "supporting_series" the others (a list).
        found = ([d["series"]] if isinstance(d.get("series"), dict) else []) + list(d.get("supporting_series", []))
        series = []
        for s in found:
            pts = [(_float(p[0]), _float(p[1])) for p in s.get("points", [])]
            series.append(Series(name=s.get("name", ""), axis=s.get("axis", "index"), points=pts,
                                 onset=_float(s["onset"]) if "onset" in s else None))
        layers = [LayerSeries(probe=s.get("probe", ""), name=s.get("name", ""), scale=s.get("scale", "linear"),
                              layers=[LayerValue(layer=v.get("layer", ""), value=_float(v.get("value")),
                                                 offending=bool(v.get("offending", False))) for v in s.get("layers", [])],
                              above=_float(s["above"]) if "above" in s else None,
                              below=_float(s["below"]) if "below" in s else None)
                  for s in d.get("layer_series", [])]
        return Diagnosis(rule=d.get("rule", ""), category=d.get("category", ""),
                         confidence=float(d.get("confidence", 0)), title=d.get("title", ""),
                         explanation=d.get("explanation", ""), hypotheses=hyps, checks=list(d.get("checks", [])),
                         verify=d.get("verify", ""), incident=d.get("incident", -1),
                         evidence=list(d.get("evidence", [])), series=series, layer_series=layers,
                         ranking=d.get("ranking", ""),
                         from_hypothesis=d.get("from_hypothesis", ""), raw=d)

    def __bool__(self):
        return bool(self.diagnoses)

    @property
    def top(self):
        """The best diagnosis, or None."""
        return self.diagnoses[0] if self.diagnoses else None

    def to_json(self):
        """The command's JSON output (`triage --format json`); with a `live` member after the contract's
        own members when the report came from a live exception."""
        if not self.live:
            return self._json
        body = self._json.rstrip()
        assert body.endswith("}")
        return body[:-1] + ',"live":' + _json.dumps(self.live, separators=(",", ":")) + "}" + "\n"

    def to_text(self, color=False, verbose=False):
        """The command's text report, plus the live tensors when there are some."""
        text = self._native.to_text(color, verbose)
        if self.live:
            lines = ["", "Tensors in the failing frames (live, not in any log):"]
            for frame in self.live:
                lines.append(f"  {frame['where']}")
                for name, desc in frame["tensors"].items():
                    lines.append(f"    {name}: {desc}")
            text = text.rstrip("\n") + "\n" + "\n".join(lines) + "\n"
        return text

    def to_html(self):
        """The command's HTML report (`triage --format html`): one self-contained page, with the metric
        series and, after triage.check, the probes' per-layer measurements drawn as inline SVG. Write it
        to a file and open it in a browser."""
        return self._native.to_html()

    def to_markdown(self):
        """The command's Markdown report (`triage --format markdown`), for pasting into an issue."""
        return self._native.to_markdown()

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        top = self.top
        what = f"{top.category} ({top.confidence:.0%}, rule {top.rule})" if top else "no diagnosis"
        return f"<triage.Report {self.source!r}: {what}>"

    def _repr_pretty_(self, printer, cycle):
        """IPython's text display (a terminal, or text/plain in a notebook): the report itself."""
        printer.text(self.to_text().rstrip("\n"))

    def _repr_html_(self):
        """A notebook's display: the text report in an escaped <pre> (no text from a log can inject markup)
        and, when the report has plots (metric series, the probes' per-layer measurements), the HTML
        report under it in a sandboxed frame (srcdoc: self-contained, no script; its style cannot leak
        into the notebook). A notebook that strips frames on reload still shows the text."""
        import html
        out = "<pre class=\"triage-report\">" + html.escape(self.to_text()) + "</pre>"
        if any(d.series or d.layer_series for d in self.diagnoses):
            out += ("<iframe class=\"triage-report\" sandbox title=\"triage report with plots\" "
                    "style=\"width:100%;height:36em;border:1px solid #8888;resize:vertical\" srcdoc=\""
                    + html.escape(self.to_html(), quote=True) + "\"></iframe>")
        return out
