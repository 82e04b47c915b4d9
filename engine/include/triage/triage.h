// triage: diagnose PyTorch failures from logs.
//
// Usage:
//
//   triage::LoadOptions load;                       // bundled rules + TRIAGE_RULES_PATH
//   triage::LoadResult rules = triage::LoadRules(load);
//   for (const triage::Problem& p : rules.problems) std::cerr << p.ToString() << "\n";
//   if (!rules.ok()) return 2;                      // no usable rule set at all
//
//   triage::Engine engine(rules.rules);
//   triage::Report report = engine.DiagnoseText(log_text);   // or a Session for streams
//   if (report.diagnoses.empty()) { /* no PyTorch failure found */ }
//   std::cout << triage::ToText(report, {}) << triage::ToJson(report);
//
// Nothing in this API throws: problems are returned as values (Problem, Report::warnings). A RuleSet is
// immutable once loaded and may be shared by any number of threads; an Engine is cheap to copy; a
// Session is used by one thread at a time.
#ifndef TRIAGE_TRIAGE_H_
#define TRIAGE_TRIAGE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace triage {

// A problem found while loading rules or reading input: where, what, and how bad.
struct Problem {
  enum class Severity { kWarning, kError };
  Severity severity = Severity::kError;
  std::string code;      // stable kebab-case id, e.g. "unknown-key", "bad-regex"
  std::string file;      // empty when not tied to a file
  int line = 0;          // 1-based; 0 when unknown
  int column = 0;        // 1-based; 0 when unknown
  std::string rule_id;   // empty when not tied to a rule
  std::string message;

  // Returns "file:line:column: error: message [code] (rule ID)", omitting absent parts.
  std::string ToString() const;
};

// One frame of a traceback, outermost first (Python's order).
struct Frame {
  std::string file;
  int line = 0;
  std::string function;
  std::string source;  // the source line Python printed under the frame, trimmed; may be empty
  bool user = false;   // true for the user's code, false for torch / site-packages / stdlib / C++ frames
};

// One failure found in the input.
struct Incident {
  enum class Kind {
    kTraceback,  // a Python traceback ending in an exception line
    kErrorLine,  // a bare "SomethingError: message" line without a traceback
    kCxxError,   // C++ c10::Error / std::exception text ("what():", "Exception raised from ...")
    kLogLine,    // log lines a rule recognised outside any traceback (warnings, kernel assertions, prints)
    kSignal,     // a metric signature (flat loss, NaN onset, ...); line_start/line_end span its evidence
  };
  Kind kind = Kind::kErrorLine;
  std::string exception;             // type as printed ("RuntimeError", "torch.cuda.OutOfMemoryError"); may be empty
  std::string message;               // without the type prefix; may span lines
  std::vector<Frame> frames;
  int culprit = -1;                  // index into frames of the deepest user frame, or -1
  int line_start = 0;                // 1-based, inclusive, in the input; 0 when the incident was not read
                                     // from a numbered input (a message handed to the probes' Guard)
  int line_end = 0;
  int caused_by = -1;                // index of the incident that caused this one (chained / wrapped), or -1
  std::vector<std::string> context;  // nearby lines kept as evidence (e.g. kernel assertions), bounded
  int count = 1;                     // identical incidents merged into this one (ranks, repeated lines)
  std::string rank;                  // process rank prefix when the lines carried one ("3"), a process
                                     // that is not a rank as its tag names it ("pid 909597", "raylet"),
                                     // else empty
  bool handled = false;              // the process went on after it: ordinary output of the same stream
                                     // followed it, then another unchained exception (a caught-and-logged
                                     // error, not the one that ended the run); see Note: [Handled]

  // Returns "model.py:42 in forward: x = self.fc(x)" for the culprit frame, or "" if none.
  std::string CulpritText() const;
  // True for a traceback cut before its exception line: its message is then the last source line its
  // frames show, and its type, when not empty, is the one an IPython header named (Note: [Cut IPython tracebacks]
  // in engine/src/log/formats/python_traceback.cc).
  bool CutBeforeExceptionLine() const;
};

// The name of an incident kind as the JSON output and the Lua API spell it ("traceback", "error_line",
// "cxx_error", "log_line", "signal").
const char* IncidentKindName(Incident::Kind kind);

// Whether a hypothesis was tested by a probe (triage/evidence.h), and what the probe found.
enum class HypothesisStatus { kUntested, kConfirmed, kRefuted };

// The status as the reports spell it: "untested", "confirmed" or "refuted".
const char* HypothesisStatusName(HypothesisStatus status);

// A hypothesis of a diagnosis: a possible cause, how to test it, how to fix it.
struct Hypothesis {
  std::string id;
  std::string text;
  HypothesisStatus status = HypothesisStatus::kUntested;
  std::string test;                 // rendered: a command, snippet, or "probe NAME"
  std::string probe;                // probe name when the test is a probe, else empty
  std::string fix;
  std::string evidence;             // what confirmed/refuted it, when tested
};

// A metric series shown as evidence (downsampled by the extractor, engine/src/log/metrics.h).
struct SeriesEvidence {
  std::string name;                               // canonical series name: loss, val_loss, grad_norm, ...
  std::string axis = "index";                     // what x is: "step", "epoch" or "index" (print order)
  std::vector<std::pair<double, double>> points;  // (x, value); values may be NaN or +-Inf
  bool has_onset = false;
  double onset = 0;                               // x where the signature starts, when it has one
  // The healthy band: the values a healthy series stays between, from the signal's own thresholds
  // (a loss below ln C less the tolerance the flat detector allows, a gradient norm below the
  // detector's growth factor times its start); see Note: [Healthy band] in engine/src/rules/signal_rules.cc.
  // Drawn by the HTML report only: the JSON, text and Markdown reports do not carry it.
  bool has_band = false;
  double band_low = 0, band_high = 0;             // band_low may be -inf, band_high +inf (open side)
  std::string band_label;                         // what the band is, e.g. "healthy: below 2.233 (ln 10 less 3%)"
};

// One layer's value in a per-layer measurement of a live probe.
struct LayerValue {
  std::string layer;       // the module's name ("fc1", "features.0"), or where an op ran ("relu after fc1")
  double value = 0;        // may be NaN or +-Inf (a gradient that is not finite)
  bool offending = false;  // the probe counts this layer among the faulty ones
};

// A per-layer measurement a live probe took (probes/): gradient norms, dead-unit fractions. One value
// per layer, in the model's order, with the thresholds the probe judged them by.
struct LayerSeries {
  std::string probe;                // the probe that measured it, e.g. "grad-health"
  std::string name;                 // what was measured, e.g. "grad_norm", "dead_fraction"
  bool log_scale = false;           // the values span decades (gradient norms): plot them on a log axis
  bool has_above = false;           // a layer above `above` offends (e.g. an exploding gradient norm)
  double above = 0;
  bool has_below = false;           // a layer below `below` offends (e.g. a vanishing gradient norm)
  double below = 0;
  std::vector<LayerValue> layers;
};

// One ranked answer.
struct Diagnosis {
  std::string rule;
  std::string category;
  double confidence = 0;
  std::string title;
  std::string explanation;
  std::string ranking;                         // why the engine lowered its confidence, one sentence a
                                               // factor; empty when it did not (engine/README.md)
  std::vector<Hypothesis> hypotheses;
  std::vector<std::string> checks;
  std::string verify;
  int incident = -1;                           // index into Report::incidents
  std::map<std::string, std::string> captures;
  int occurrences = 1;                         // incidents this rule matched (reported once, on the best)
  double specificity = 0;
  std::vector<std::string> evidence;           // metric signatures supporting it, one checkable line each
  std::vector<SeriesEvidence> series;          // the series behind them, the triggering one first
  std::vector<LayerSeries> layer_series;       // per-layer measurements of the probes whose verdicts
                                               // it carries (triage/evidence.h), one per probe and name
  std::string from_hypothesis;                 // set on a masked cause: the id of `rule`'s hypothesis that
                                               // names this category (Note: [Masked causes], rules/README.md);
                                               // empty on a rule's own diagnosis
};

// Who reads a report, which decides the language of its checks and fixes (Note: [Audience] in
// rules/README.md "C++ checks and fixes"): kPython, a Python training script (the default; the
// `triage` command's reports); kCxx, a LibTorch C++ trainer (the probes' Guard and Monitor ask for it):
// a rule's `cpp:` checks and fixes are shown, and advice written only for Python is marked as such or,
// for commands, left out; kAuto, the program the input shows (the `triage` command's default): kCxx
// when the input is a LibTorch C++ program's own crash, else kPython (Note: [Audience detection] in
// engine/src/diagnose/audience.h). A report's audience is the one chosen, never kAuto.
enum class Audience { kPython, kCxx, kAuto };

// The audience as options spell it: "python", "cpp" or "auto".
const char* AudienceName(Audience audience);
// Reads "python", "cpp" or "auto" into *audience; false for any other name.
bool AudienceFromName(std::string_view name, Audience* audience);

// The answer for one input.
// A rule directory (or single rule file) other than the bundled rules, as a report names it.
struct RuleSource {
  std::string dir;     // as found on the search path (or given with --rules / LoadOptions::dirs)
  std::string origin;  // system | user | project | env | cli
};

struct Report {
  std::string source;                  // input name ("-" for stdin)
  Audience audience = Audience::kPython;  // whom the checks and fixes were written for (DiagnoseOptions;
                                          // with kAuto there, the audience the input showed)
  std::vector<Diagnosis> diagnoses;    // best first; empty: no PyTorch failure found
  std::vector<Incident> incidents;
  // Notes on the input and on what could not run (cut lines, incidents not kept, a rule's Lua that
  // failed, probes that could not tell); each code is in engine/README.md "Warning codes".
  std::vector<Problem> warnings;
  std::uint64_t lines = 0;             // lines read
  std::uint64_t bytes = 0;             // bytes read
  // The rule directories besides the bundled rules whose rules took part (a user's, a project's,
  // --rules): every report names them, so advice from outside triage is never mistaken for its own.
  std::vector<RuleSource> rule_sources;
};

class RuleSet;  // compiled rules; opaque, immutable, thread-safe

// Limits on rules' Lua code (rules/LUA_API.md "The sandbox"). Memory is capped per rule (each Lua rule
// has a lua_State of its own per thread diagnosing); instructions (string pattern steps included) and
// the thread's CPU time per call into Lua, and per rule file run at load. pcall cannot catch either.
// All the calls of one rule on one input share 32 times `instructions` and 8 times `milliseconds`
// (Note: [Lua input budget] in src/rules/lua_runtime.cc).
struct LuaLimits {
  std::size_t memory_bytes = 16u << 20;   // 16 MiB per rule
  std::uint64_t instructions = 1000000;   // per call (a predicate typically uses under 1000)
  std::uint32_t milliseconds = 250;       // CPU time per call, whatever it is spent on
};

// Where rules come from, in this order (rules/README.md "Search path"): bundled, system, user,
// project, TRIAGE_RULES_PATH, then `dirs`. A later rule with the same id replaces an earlier one
// (the replacement is reported by ListRules). Directories that do not exist are skipped silently,
// except those named in `dirs` and TRIAGE_RULES_PATH.
struct LoadOptions {
  bool bundled = true;                 // the rules shipped with triage
  bool env_path = true;                // directories in TRIAGE_RULES_PATH (':'-separated)
  std::vector<std::string> dirs;       // more directories or single .yaml/.lua files, read last
  bool strict = false;                 // warnings count as errors: the rule is skipped
  bool system = true;                  // SystemRulesDir() (TRIAGE_SYSTEM_RULES overrides)
  bool user = true;                    // UserRulesDir(): $XDG_CONFIG_HOME/triage/rules
  bool project = true;                 // .triage/rules in working_dir or its nearest ancestor holding one
  std::string working_dir;             // where the project search starts; empty: the current directory
  std::vector<std::string> disable;    // rule ids to leave out (added to triage.yaml and TRIAGE_DISABLE)
  LuaLimits lua;
  // The parsed rule set is cached on disk, keyed by the files' contents (Note: [Rule cache] in
  // engine/src/rules/rule_cache.h): a hit skips YAML parsing and validation, never changes the result.
  bool cache = true;
  std::string cache_dir;               // empty: TRIAGE_CACHE_DIR, $XDG_CACHE_HOME/triage or ~/.cache/triage
                                       // (TRIAGE_NO_CACHE=1 turns the default off)
  // False: the rules' examples (read by RunRuleExamples and ExplainRule, triage/tools.h, and nothing
  // else) may be left out of a set loaded from the cache, which then skips them as it reads (Note:
  // [Examples left out] in engine/src/rules/rule_cache.cc). `triage` diagnosing logs sets it.
  bool examples = true;
  // Threads that read rule files when a load has many to read (no cache entry for them): 0 picks
  // (TRIAGE_LOAD_THREADS, else the cores this process may run on, at most 4 and one per 16 files to
  // read); 1 reads on the calling thread only. The result is the same whatever the number (Note:
  // [Parallel rule reading] in engine/src/rules/rule_loader.cc).
  int threads = 0;
  // True: a set loaded from the cache leaves each rule's texts (explanation, hypotheses, checks,
  // verification, references, examples) in the mapped entry until something reads them, which
  // RuleSet::Full then does (Note: [Texts on demand] in engine/src/rules/rule_cache.h); the reports
  // are the same. `triage` diagnosing logs sets it.
  bool texts_on_demand = false;
};

struct LoadResult {
  std::shared_ptr<const RuleSet> rules;  // never null; may hold zero rules
  std::vector<Problem> problems;         // every problem found, in file order

  // Returns true when no problem is an error (warnings allowed).
  bool ok() const;
  int errors() const;
  int warnings() const;
  // One line for a program that does not print every problem (the `triage` command prints errors
  // but not warnings): what the problems cost a diagnosis, i.e. the rule files with errors (what they
  // hold did not load), a pattern set that fell back to one regex per pattern (compile-failed), broken
  // files kept at their last good version (kept-previous). Empty when none of these happened, so
  // warnings about style (unknown keys, weak patterns, ...) give none.
  std::string Notice() const;
};

// Loads, validates and compiles rules. Every problem in every file is reported; bad rules are skipped
// and the rest load.
LoadResult LoadRules(const LoadOptions& options);

// Loads rules from in-memory files: {file name, YAML content}. For tests and embedders.
LoadResult LoadRulesFromStrings(const std::vector<std::pair<std::string, std::string>>& files,
                                bool strict = false);

// Returns the directory holding the bundled rules: TRIAGE_BUNDLED_RULES when set; the source tree's
// rules/ for a program of the build tree; <prefix>/share/triage/rules for an installed command or
// shared library (found relative to it); for a program linked statically elsewhere, the install
// its find_package(triage) found (Note: [Bundled rules] in engine/src/rules/install_paths.cc).
std::string BundledRulesDir();
namespace internal {
// Records where an installed triage keeps its bundled rules, for a program linked statically to it
// (its own location says nothing). find_package(triage) defines TRIAGE_INSTALLED_RULES_DIR for the
// program's sources, and this header notes it before main; nothing else needs to call it.
bool NoteInstalledRulesDir(const char* dir);
#ifdef TRIAGE_INSTALLED_RULES_DIR
inline const bool kInstalledRulesDirNoted = NoteInstalledRulesDir(TRIAGE_INSTALLED_RULES_DIR);
#endif
// Records the bundled rules' build-time image (Note: [Bundled rule image] in
// engine/src/rules/rule_cache.h): the `triage` command notes the bytes it embeds before main. The
// bytes must stay valid, unchanged, while any rule set loaded after lives; a later call replaces the
// image for later loads ({nullptr, 0}: none).
bool NoteBundledRuleImage(const char* bytes, std::size_t size);
}  // namespace internal
// Returns the system rule directory: TRIAGE_SYSTEM_RULES, else the build's configured
// TRIAGE_SYSTEM_RULES_DIR (default /etc/triage/rules).
std::string SystemRulesDir();
// Returns the user's rule directory: $XDG_CONFIG_HOME/triage/rules, else ~/.config/triage/rules;
// "" when neither variable is set.
std::string UserRulesDir();
// Returns the nearest .triage/rules directory at or above `start` ("" for the current directory),
// or "" when there is none.
std::string ProjectRulesDir(const std::string& start = "");
// A project directory loads only once allowed (rules/README.md "Trusted rule directories"): records
// dir's canonical path and the SHA-256 of its files in AllowFilePath(). Returns "" on success, else
// why not (a directory others can write or not owned by the user is refused).
std::string AllowRulesDir(const std::string& dir);
// TRIAGE_ALLOW_FILE, else $XDG_CONFIG_HOME/triage/allowed-rules or ~/.config/triage/allowed-rules.
std::string AllowFilePath();

// Summary of one loaded rule, for listings.
struct RuleInfo {
  std::string id, category, title, file;
  std::string overrides;  // file of the rule this one replaced, or empty
  std::string origin;     // bundled | system | user | project | env | cli | memory
  std::string lua;        // the rule's .lua file, or empty
};
std::vector<RuleInfo> ListRules(const RuleSet& rules);
// The number of loaded rules: ListRules(rules).size() without the copies.
std::size_t CountRules(const RuleSet& rules);

// A rule left out by configuration: its id, the file that defined it, and what disabled it
// ("TRIAGE_DISABLE", "LoadOptions", or the triage.yaml path).
struct DisabledRule {
  std::string id, file, by;
};
std::vector<DisabledRule> ListDisabledRules(const RuleSet& rules);

// Rules an embedder reloads while diagnosing (Note: [Rule reload] in engine/src/rules/rule_store.cc).
// Thread-safe: any thread may call Current() while another calls Reload().
//
//   triage::RuleStore store(options);                       // loads once
//   triage::Engine(store.Current()).DiagnoseText(log);      // on any thread
//   triage::LoadResult r = store.Reload();                  // e.g. on SIGHUP or a file watch
class RuleStore {
 public:
  explicit RuleStore(LoadOptions options = {});
  // Loads every source again and swaps the new set in atomically: diagnoses already holding the
  // old set finish on it. A rule whose file now fails to load keeps its previous good version; the
  // result reports why (the file's errors, then a "kept-previous" warning). Returns the new load.
  LoadResult Reload();
  // Returns the rule set in use now; never null.
  std::shared_ptr<const RuleSet> Current() const;
  // Returns how many times the set was swapped in (1 after construction).
  int generation() const;

 private:
  LoadOptions options_;
  mutable std::mutex mu_;      // guards current_ and generation_
  std::mutex reload_mu_;       // one reload at a time
  std::shared_ptr<const RuleSet> current_;
  int generation_ = 0;
};

struct DiagnoseOptions {
  double min_confidence = 0.35;  // abstain below this (see Note: [Ranking] in rules/README.md)
  int top = 0;                   // keep at most this many diagnoses; 0 keeps all
  bool fold_signals = true;      // fold metric signatures into the diagnosis they support (Note: [Signal
                                 // folding] in engine/src/diagnose/signal_ranking.cc); rule examples turn it off
  Audience audience = Audience::kPython;  // the language of the checks and fixes in the report
  // Known cases the similar-case answer may not come from (Note: [Similar known case] in
  // engine/src/diagnose/similar_case.cc): each entry a case's `source:` thread, or its folder (a path
  // ending in the case's corpus path). `triage eval` and the corpus tests name the case being read, so
  // that it is never answered from its own label.
  std::vector<std::string> similar_leave_out;
  // Threads a Session reads with: 0 (the default) reads the metric series of large pieces of input
  // (64 KiB and more) on a second thread beside the keyword scan when the machine has two cores or
  // more; 1 keeps all reading on the caller's thread. The report is the same either way (Note: [Metrics
  // beside the scan] in engine/src/diagnose/engine.cc).
  int threads = 0;
};

// Diagnoses whole inputs. Cheap to copy; thread-safe.
class Engine {
 public:
  explicit Engine(std::shared_ptr<const RuleSet> rules);
  // Diagnoses a complete log.
  Report DiagnoseText(std::string_view text, const DiagnoseOptions& options = {}) const;
  const RuleSet& rules() const { return *rules_; }
  std::shared_ptr<const RuleSet> shared_rules() const { return rules_; }

 private:
  std::shared_ptr<const RuleSet> rules_;
};

// Diagnoses a stream fed in pieces of any size, with memory bounded by the incidents kept, not by
// the input. One thread at a time.
class Session {
 public:
  Session(std::shared_ptr<const RuleSet> rules, DiagnoseOptions options = {}, std::string source = "-");
  ~Session();
  Session(Session&&) noexcept;
  Session& operator=(Session&&) noexcept;

  // Feeds bytes; lines may be split across calls.
  void Feed(std::string_view bytes);
  // Returns the number of incidents completed so far (for follow mode).
  int CompletedIncidents() const;
  // Returns the most bytes of input the session has held at once (an unfinished line, cut at
  // SegmenterOptions::max_line): memory does not grow with line length or input size.
  std::size_t PeakBufferedBytes() const;
  // Returns a report over everything fed so far. With include_open, an incident still being read is
  // ended in the copy (as if the input stopped here); without, only completed incidents are diagnosed.
  // Feeding may continue either way.
  Report Snapshot(bool include_open = true) const;
  // Ends the input and returns the report.
  Report Finish();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Output. ToJson follows the output contract (docs: engine/README.md).
struct TextOptions {
  bool color = false;
  bool verbose = false;  // show every hypothesis and check of alternatives too
  int width = 0;         // wrap lines at this many columns, continuation lines indented; 0: no wrapping
  bool brief = false;    // one screen: the top diagnosis' category, culprit line, top cause, its fix and
                         // the command that confirms it
  bool header = false;   // start with a rule across the width naming the input ("── triage: diagnosis of
                         // train.log (1234 lines) ───"): where a program's own output ends (--tee)
};
std::string ToJson(const Report& report);
// A rule load's problems as one line of JSON (`triage rules lint --format json`): {"problems":
// [{"severity", "code", "file", "line", "column", "rule", "message"}, ...], "rules": N, "errors": N,
// "warnings": N}, written by the same writer as a report.
std::string ToJson(const LoadResult& result);
std::string ToText(const Report& report, const TextOptions& options);
// Markdown to paste into a GitHub issue: the verdict, the traceback in a fenced block with the failing
// frame marked, causes, collapsible checks and alternatives. Log text shows as written, never as markup.
std::string ToMarkdown(const Report& report);
// GitHub Actions workflow commands, one line per diagnosis ("::error file=F,line=N,title=T::message"
// for the top one, "::warning ..." for alternatives), pointing at the failing frame of the user's code
// when there is one. `workspace` ($GITHUB_WORKSPACE) is removed from the front of a file's path so the
// annotation lands on the repository's file.
std::string ToGithubAnnotations(const Report& report, const std::string& workspace = "");
// One self-contained HTML page (no network, scripts or fonts) for one or more reports: tracebacks with
// the failing frame marked, every diagnosis with its explanation, hypotheses, checks and fixes, and
// the metric series as inline SVG plots with the onset and reference levels.
std::string ToHtml(const std::vector<Report>& reports);

// The library version, "MAJOR.MINOR.PATCH".
const char* Version();

}  // namespace triage

#endif  // TRIAGE_TRIAGE_H_
