#include "diagnose/ranker.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "log/env_facts.h"
#include "log/formats/text.h"
#include "rules/calibration.h"
#include "rules/lua_runtime.h"
#include "diagnose/audience.h"
#include "diagnose/frame_evidence.h"
#include "diagnose/similar_case.h"
#include "diagnose/gpu_vendor.h"
#include "diagnose/signal_ranking.h"
#include "diagnose/warning_codes.h"
#include "rules/template.h"
#include "triage/locale_free.h"

namespace triage {
namespace {

// Marks a test, fix or verification shown to a C++ reader that the rule wrote only for Python.
const std::string kWrittenForPython = "(written for Python) ";

// Compares exception types on their last dotted/:: component: "OutOfMemoryError" agrees with
// "torch.cuda.OutOfMemoryError".
std::string LastComponent(const std::string& type) {
  size_t p = type.find_last_of(".:");
  return p == std::string::npos ? type : type.substr(p + 1);
}

// A bare "Error:" prefix names no exception class: web UIs, JavaScript front ends and loggers put it
// before any message they pass on (easydiffusion's "Error: Unexpected error from cudaGetDeviceCount()
// ..."). Such an incident is matched as one without a type, not refused as a different type.
bool NamesNoType(const Incident& inc) { return inc.exception.empty() || inc.exception == "Error"; }

// True when `text` shows one of the rule's types before a colon, as a whole name: "Basic S-CNN -
// RuntimeError: Trying to backward through the graph a second time" (an issue title), an error quoted
// inside a sentence. No reader takes such a line as an exception line, so the incident names no type,
// but the type is there for the reader of the report: its rule's confidence is not lowered for it.
bool TextShowsType(const Rule& rule, std::string_view text) {
  for (const std::string& t : rule.exceptions) {
    const std::string name = LastComponent(t) + ": ";
    for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
      if (at == 0 || !(IsAsciiAlnum(text[at - 1]) || text[at - 1] == '_')) return true;
    }
  }
  return false;
}

// Note: [Wrapped exception types] torch.compile first runs the captured graph on fake tensors, and an
// error there is raised again as torch._dynamo.exc.TorchRuntimeError, whose message carries the eager
// error: 2.3+ names its type ("Dynamo failed to run FX node with fake tensors: call_function ...: got
// RuntimeError('...')"), 2.0-2.2 prints only its message, after "Failed running call_function ...:".
// So a rule is judged on the wrapped error: its type when the message names it, any type the rule lists
// when it does not (the wrapper hides it; the rule's pattern decides). Returns the type to compare, or
// "" when any listed type agrees.
std::string WrappedType(const Incident& inc) {
  const std::string first = inc.message.substr(0, inc.message.find('\n'));
  if (first.find("failed to run FX node") == std::string::npos) return "";
  const size_t got = first.find(": got ");
  if (got == std::string::npos) return "";
  size_t b = got + 6, e = b;
  while (e < first.size() && (IsAsciiAlnum(first[e]) || first[e] == '_' || first[e] == '.')) ++e;
  return e < first.size() && first[e] == '(' ? LastComponent(first.substr(b, e - b)) : "";
}

// Note: [RuntimeError subclasses] PyTorch raises some failures as its own subclasses of RuntimeError,
// and the class a release uses for one message changes: torch.distributed's DistError family (2.1+:
// DistBackendError for NCCL and ProcessGroup errors, DistStoreError and DistNetworkError for the store;
// 1.x raised RuntimeError for the same texts), torch.AcceleratorError (2.8+, CUDA errors), torch's
// OutOfMemoryError (1.13+) and torch.linalg.LinAlgError (1.13+). Python's `except RuntimeError` catches
// them all, so a rule that lists RuntimeError agrees with them; a rule may still list one of them alone.
bool IsTorchRuntimeErrorSubclass(const std::string& last) {
  static const char* const kSubclasses[] = {"DistError", "DistBackendError", "DistStoreError", "DistNetworkError",
                                            "AcceleratorError", "OutOfMemoryError", "LinAlgError"};
  for (const char* s : kSubclasses) {
    if (last == s) return true;
  }
  return false;
}

// Note: [Carried exception types] A wrapper whose message starts with another exception, as its type and
// a colon or as its repr, carries that exception: torch._dynamo's InternalTorchDynamoError ("RuntimeError:
// ...", Dynamo failing on an error of the traced code), a framework or app that re-raises as a plain
// Exception ("Exception: RuntimeError('...')"). Such an incident agrees with a rule that lists either type.
// Returns the carried type's last component, or "" when the message does not start with one.
std::string CarriedType(const Incident& inc) {
  const std::string_view first = std::string_view(inc.message).substr(0, inc.message.find('\n'));
  const size_t n = text::TypePrefix(first);
  if (n == 0 || n + 1 >= first.size() || !text::LooksLikeExceptionType(first.substr(0, n))) return "";
  const bool colon = first[n] == ':' && first[n + 1] == ' ';
  const bool repr = first[n] == '(' && (first[n + 1] == '\'' || first[n + 1] == '"');
  return colon || repr ? LastComponent(std::string(first.substr(0, n))) : "";
}

bool ListsType(const Rule& rule, const std::string& got) {
  for (const std::string& t : rule.exceptions) {
    const std::string want = LastComponent(t);
    if (want == got) return true;
    if (want == "RuntimeError" && IsTorchRuntimeErrorSubclass(got)) return true;  // Note: [RuntimeError subclasses]
  }
  return false;
}

bool TypeAgrees(const Rule& rule, const Incident& inc) {
  std::string got = LastComponent(inc.exception);
  // C++ callers see c10::Error (and std::runtime_error from TorchScript) where Python shows
  // RuntimeError: torch's Python bindings translate one into the other. c10::IndexError and friends
  // keep their Python names already.
  if (inc.exception == "c10::Error" || inc.exception == "std::runtime_error") got = "RuntimeError";
  if (ListsType(rule, got)) return true;
  if (got == "TorchRuntimeError") {
    const std::string wrapped = WrappedType(inc);  // Note: [Wrapped exception types]
    if (wrapped.empty()) return true;
    for (const std::string& t : rule.exceptions) {
      if (LastComponent(t) == wrapped) return true;
    }
  }
  const std::string carried = CarriedType(inc);  // Note: [Carried exception types]
  if (!carried.empty() && carried != got && ListsType(rule, carried)) return true;
  return false;
}

bool CapturesOf(const LazyRegex& regex, std::string_view text, std::map<std::string, std::string>* out) {
  const RE2& re = regex.Get();
  if (!re.ok()) return false;
  int n = re.NumberOfCapturingGroups();
  std::vector<re2::StringPiece> groups(n + 1);
  if (!re.Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED, groups.data(), n + 1)) {
    return false;
  }
  for (const auto& [name, index] : regex.NamedGroups()) {
    if (index <= n && groups[index].data() != nullptr) (*out)[name] = std::string(groups[index]);
  }
  return true;
}

std::string ValueText(const LuaValue& v) {
  switch (v.type) {
    case LuaValue::Type::kString: return v.string;
    case LuaValue::Type::kBool: return v.boolean ? "true" : "false";
    case LuaValue::Type::kNumber: {
      if (std::isfinite(v.number) && v.number == std::floor(v.number) && std::fabs(v.number) < 1e15) {
        return std::to_string(static_cast<long long>(v.number));
      }
      return FormatNumber(v.number, NumberStyle::kGeneral, 6);
    }
    default: return "";
  }
}

const char* TypeName(const LuaValue& v) {
  switch (v.type) {
    case LuaValue::Type::kNil: return "nil";
    case LuaValue::Type::kBool: return "a boolean";
    case LuaValue::Type::kNumber: return "a number";
    case LuaValue::Type::kString: return "a string";
    case LuaValue::Type::kTable: return "a table";
    case LuaValue::Type::kOther: return "a function or userdata";
  }
  return "?";
}

// Runs one candidate's Lua: values, then score, then each hypothesis' when (rules/LUA_API.md).
// Returns false when the candidate must go: the score vetoed it, or the rule failed, in which case
// *error says why and the rule is off for the rest of this diagnosis.
bool RunLua(const Rule& rule, int rule_index, LuaState* L, const std::vector<Incident>& incidents,
            const MetricCollector* metrics, const std::map<std::string, std::string>* facts, Candidate* c,
            LuaError* error, bool* failed) {
  *failed = false;
  LuaCallInput in;
  in.metrics = metrics;
  in.facts = facts;
  in.incidents = &incidents;
  in.incident = c->incident;
  in.captures = &c->captures;
  in.values = &c->values;
  in.rule_id = rule.id;
  in.category = rule.category;
  auto bad = [&](const LuaRef& ref, const std::string& what) {
    error->code = WarningCodeName(WarningCode::kLuaBadReturn);
    error->file = rule.lua_file.empty() ? rule.file : rule.lua_file;
    error->line = 0;
    error->message = "'" + ref.name + "' (" + what;
    *failed = true;
    return false;
  };
  auto call = [&](const LuaRef& ref, LuaValue* out) {
    in.confidence = c->confidence;
    if (L->Call(rule_index, ref.name, &in, out, error)) return true;
    *failed = true;
    return false;
  };
  LuaValue v;
  if (!rule.values_fn.name.empty()) {
    if (!call(rule.values_fn, &v)) return false;
    if (v.type == LuaValue::Type::kTable) {
      for (const auto& [name, value] : v.fields) {
        if (value.type != LuaValue::Type::kString && value.type != LuaValue::Type::kNumber &&
            value.type != LuaValue::Type::kBool) {
          return bad(rule.values_fn, "values) returned a table whose '" + name + "' is " + TypeName(value) +
                                         "; values must be strings, numbers or booleans");
        }
        c->values[name] = ValueText(value);
      }
    } else if (v.type != LuaValue::Type::kNil) {
      return bad(rule.values_fn, "values) must return a table of name = value, not " + std::string(TypeName(v)));
    }
    for (const auto& kv : c->values) c->captures[kv.first] = kv.second;
  }
  if (!rule.score_fn.name.empty()) {
    if (!call(rule.score_fn, &v)) return false;
    const LuaValue* conf = nullptr;
    if (v.type == LuaValue::Type::kBool) {
      if (!v.boolean) return false;  // the rule says it does not apply to this incident
    } else if (v.type == LuaValue::Type::kNumber) {
      conf = &v;
    } else if (v.type == LuaValue::Type::kTable) {
      for (const auto& [k, f] : v.fields) {
        if (k == "confidence" && f.type == LuaValue::Type::kNumber) conf = &f;
        else if (k == "note" && f.type == LuaValue::Type::kString) c->note = f.string;
        else return bad(rule.score_fn, "score) returned a table with '" + k + "' = " + TypeName(f) +
                                       "; expected confidence (number) and note (string)");
      }
    } else if (v.type != LuaValue::Type::kNil) {
      return bad(rule.score_fn, "score) must return a number, a boolean, nil or {confidence=, note=}, not " +
                                    std::string(TypeName(v)));
    }
    if (conf) {
      if (!(conf->number >= 0 && conf->number <= 1)) {
        return bad(rule.score_fn, "score) returned confidence " + ValueText(*conf) + ", outside [0, 1]");
      }
      c->confidence = conf->number;
    }
  }
  if (c->hypothesis_off.size() != rule.hypotheses.size()) c->hypothesis_off.assign(rule.hypotheses.size(), false);
  for (size_t h = 0; h < rule.hypotheses.size(); ++h) {
    const LuaRef& when = rule.hypotheses[h].when;
    if (when.name.empty()) continue;
    if (!call(when, &v)) return false;
    if (v.type == LuaValue::Type::kString) {
      c->evidence[static_cast<int>(h)] = v.string;
    } else if (v.type == LuaValue::Type::kBool || v.type == LuaValue::Type::kNil) {
      c->hypothesis_off[h] = !v.boolean;
    } else {
      return bad(when, "when of hypothesis '" + rule.hypotheses[h].id + "') must return a boolean or a string, not " +
                           TypeName(v));
    }
  }
  return true;
}

// Rewrites every text of advice a diagnosis holds (its checks, each hypothesis's test and fix, its
// verification) with `rewrite`: the ROCm and python3 readings of Notes [ROCm advice], [Python command name].
void RewriteAdvice(Diagnosis* d, std::string (*rewrite)(const std::string&)) {
  for (std::string& c : d->checks) c = rewrite(c);
  for (Hypothesis& h : d->hypotheses) {
    h.test = rewrite(h.test);
    h.fix = rewrite(h.fix);
  }
  d->verify = rewrite(d->verify);
}

// Note: [Conditions]: what a rule's `unless:`, `needs:` and its hypotheses' `when:`/`first:` mappings
// ask, decided without Lua. The patterns are compiled once per process (a rule set has a few dozen).
const RE2& ConditionRegex(const std::string& pattern) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<RE2>> compiled;
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<RE2>& re = compiled[pattern];
  if (!re) re = std::make_unique<RE2>(pattern, RegexOptions());
  return *re;
}

// A text for evidence: its first line, at most 100 bytes.
std::string Quote(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > 100) line = line.substr(0, 97) + "...";
  return "`" + line + "`";
}

class ConditionReader {
 public:
  ConditionReader(const std::vector<Incident>& incidents, const EnvFacts* facts) : incidents_(incidents), facts_(facts) {}

  // Whether one of `any` holds for the incident `index`; *why (when given) says what made it hold.
  bool Holds(const std::vector<Condition>& any, int index, std::string* why) {
    for (const Condition& c : any) {
      if (Holds(c, index, why)) return true;
    }
    return false;
  }

  bool Holds(const Condition& c, int index, std::string* why) {
    std::vector<std::string> said;
    if (!c.message.empty()) {
      const Incident& inc = incidents_[index];
      const std::string& text = inc.message.empty() ? inc.exception : inc.message;
      bool any = false;
      for (const Text& p : c.message) any = any || RE2::PartialMatch(text, ConditionRegex(p.value));
      if (!any) return false;
    }
    if (!c.input.empty()) {
      const std::string* hit = nullptr;
      for (const Text& p : c.input) {
        if ((hit = InputHit(p.value)) != nullptr) break;
      }
      if (hit == nullptr) return false;
      said.push_back("the input also says " + Quote(*hit));
    }
    if (!c.frames.empty()) {
      std::string where;
      if (!FrameHit(c.frames, incidents_[index], &where)) return false;
      said.push_back("the error was raised inside " + where);
    }
    for (const auto& [name, values] : c.facts) {
      const EnvFact* f = facts_ ? facts_->Get(name) : nullptr;
      // `!v` values (the reader allows no mix): the fact is not stated as any of them; unknown holds.
      const bool negated = !values.empty() && !values[0].empty() && values[0][0] == '!';
      if (negated) {  // holds for what the input does not show: no evidence for the hypothesis
        if (f == nullptr) continue;
        for (const std::string& v : values) {
          if (v.compare(1, std::string::npos, f->value) == 0) return false;
        }
        continue;
      } else if (f == nullptr || (std::find(values.begin(), values.end(), f->value) == values.end() &&
                                  std::find(values.begin(), values.end(), "*") == values.end())) {
        return false;
      }
      said.push_back("the input shows " + name + " " + f->value + " (" + Quote(f->text) + ")");
    }
    if (why) {
      why->clear();
      for (const std::string& s : said) *why += (why->empty() ? "" : "; ") + s;
    }
    return true;
  }

 private:
  // Note: [Call-site evidence]. Kernels report asynchronously, so the line a CUDA error names is where the host
  // noticed, not what failed; but every frame of its traceback is a call that was still running when it was
  // raised. A statement that looks up an embedding table and passes the rows on (the user's
  // `self.fc(self.emb(x))`, `self.rnn(self.embed(tokens))`), or a frame inside F.embedding, says the lookup's kernel
  // ran just before the call that failed: evidence read from the frames, not from the message, so a `first:`
  // that holds on it promotes a masked cause (Note: [Masked causes]) as an `input:` line does. A loss frame is
  // no such evidence for a cuBLAS or cuDNN error: the NLL kernel's label check reports only after the loss
  // call returned, and neither library runs inside it. Each frame is read as one line, `FILE in FUNCTION:
  // SOURCE` (the source line Python printed, when there is one), innermost first; *where names the first that
  // matches. The lookup has returned by the time a later statement calls the next layer, so a statement that
  // names no table is no evidence either way (most cuBLAS tracebacks: the Linear of an attention block).
  static bool FrameHit(const std::vector<Text>& patterns, const Incident& inc, std::string* where) {
    for (auto f = inc.frames.rbegin(); f != inc.frames.rend(); ++f) {
      const std::string line = f->file + " in " + f->function + (f->source.empty() ? std::string() : ": " + f->source);
      for (const Text& p : patterns) {
        if (!RE2::PartialMatch(line, ConditionRegex(p.value))) continue;
        const size_t slash = f->file.find_last_of("/\\");
        const std::string file = slash == std::string::npos ? f->file : f->file.substr(slash + 1);
        *where = (f->source.empty() ? f->function : Quote(f->source)) + " at " + file + ":" + std::to_string(f->line);
        return true;
      }
    }
    return false;
  }

  // The first incident message of the input that `pattern` matches, or null (memoised per pattern).
  // Kept as an index: signal incidents are appended to the input's incidents after the message rules ran.
  const std::string* InputHit(const std::string& pattern) {
    auto it = input_hits_.find(pattern);
    if (it == input_hits_.end()) {
      int hit = -1;
      const RE2& re = ConditionRegex(pattern);
      for (size_t i = 0; i < incidents_.size() && hit < 0; ++i) {
        if (RE2::PartialMatch(incidents_[i].message, re)) hit = static_cast<int>(i);
      }
      it = input_hits_.emplace(pattern, hit).first;
    }
    return it->second < 0 ? nullptr : &incidents_[it->second].message;
  }

  const std::vector<Incident>& incidents_;
  const EnvFacts* facts_;
  std::map<std::string, int> input_hits_;  // pattern -> incident index, -1: none
};

// Applies the rule's conditions to a candidate: false when `unless:` holds or `needs:` does not (the
// candidate goes); otherwise marks the hypotheses a `when:` condition leaves out and those `first:` moves
// ahead, with the evidence that moved them.
// Appends a sentence to a candidate's ranking note (Note: [Demotion notes]).
void AddRankingNote(Candidate* c, const std::string& sentence) {
  if (!c->ranking.empty()) c->ranking += ' ';
  c->ranking += sentence;
}


bool ApplyConditions(const Rule& rule, ConditionReader* reader, Candidate* c) {
  if (!rule.needs.empty() && !reader->Holds(rule.needs, c->incident, nullptr)) return false;
  if (!rule.unless.empty() && reader->Holds(rule.unless, c->incident, nullptr)) return false;
  const size_t n = rule.hypotheses.size();
  for (size_t h = 0; h < n; ++h) {
    const HypothesisSpec& spec = rule.hypotheses[h];
    std::string why;
    if (!spec.when_if.empty()) {
      if (c->hypothesis_off.size() != n) c->hypothesis_off.assign(n, false);
      if (!reader->Holds(spec.when_if, c->incident, &why)) {
        c->hypothesis_off[h] = true;
      } else if (!why.empty()) {
        c->evidence[static_cast<int>(h)] = why;
      }
    }
    if (!spec.first.empty() && reader->Holds(spec.first, c->incident, &why)) {
      if (c->hypothesis_first.size() != n) c->hypothesis_first.assign(n, false);
      c->hypothesis_first[h] = true;
      if (!why.empty()) c->evidence[static_cast<int>(h)] = why;
    }
  }
  for (size_t k = 0; k < rule.checks_when.size(); ++k) {
    if (rule.checks_when[k].empty() || reader->Holds(rule.checks_when[k], c->incident, nullptr)) continue;
    if (c->check_off.size() != rule.checks.size()) c->check_off.assign(rule.checks.size(), false);
    c->check_off[k] = true;
  }
  return true;
}

// The rules `text` (the incident's message, or its type) matches, as candidates.
std::vector<Candidate> MatchText(const RuleSet& rules, const Incident& inc, int index, const std::string& text) {
  std::vector<Candidate> out;
  std::set<int> seen_rules;
  std::string context;  // joined lazily: only rules with a context pattern need it
  bool context_built = false;
  for (int hit : rules.Match(text)) {
    const RuleSet::PatternRef& ref = rules.patterns[hit];
    if (seen_rules.count(ref.rule)) continue;
    const Rule& rule = rules.rules[ref.rule];
    if (!rule.exceptions.empty() && !NamesNoType(inc) && !TypeAgrees(rule, inc)) continue;
    if (rule.frames_none && !inc.frames.empty()) continue;  // `frames: none`: a traceback decides elsewhere
    if (rules.contexts[ref.rule]) {
      if (!context_built) {
        // Context = nearby lines, then the frames ("file:line in function: source"), so a rule can
        // tell a stack error in default_collate from one in user code.
        for (const std::string& c : inc.context) context += c + "\n";
        for (const Frame& f : inc.frames) {
          context += f.file + ":" + std::to_string(f.line) + " in " + f.function + ": " + f.source + "\n";
        }
        context_built = true;
      }
      const RE2& cre = rules.contexts[ref.rule]->Get();
      if (!cre.ok() || !RE2::PartialMatch(context, cre)) continue;
    }
    Candidate c;
    c.rule = ref.rule;
    c.incident = index;
    if (!CapturesOf(*rules.regexes[hit], text, &c.captures)) continue;
    seen_rules.insert(ref.rule);
    // The pattern's literal characters, counted for the patterns that hit only (counting all ~900 at
    // every load was ~1.4 M instructions of a warm start).
    c.specificity = rule.specificity >= 0 ? rule.specificity
                                          : LiteralChars(rule.patterns[static_cast<size_t>(ref.pattern)].value) +
                                                (rule.context.value.empty() ? 0 : 20);
    c.confidence = rule.prior;
    if (!rule.exceptions.empty() && NamesNoType(inc) && !TextShowsType(rule, text)) {
      c.confidence *= 0.85;
      std::string types;
      for (size_t k = 0; k < rule.exceptions.size(); ++k) types += (k ? " or " : "") + rule.exceptions[k];
      AddRankingNote(&c, "Confidence lowered (x0.85): the rule expects " + types + ", and this error's type is not shown.");
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

std::vector<Candidate> MatchIncident(const RuleSet& rules, const std::vector<Incident>& incidents, int index) {
  const Incident& inc = incidents[index];
  // An exception printed without a message (torchrun's "...RendezvousTimeoutError") is matched by
  // its type: the type is then all the text there is.
  const std::string& text = inc.message.empty() ? inc.exception : inc.message;
  if (text.empty()) return {};
  std::vector<Candidate> out = MatchText(rules, inc, index, text);
  // Note: [Cut IPython tracebacks]: where its last source line matches no rule, a cut traceback of a known type
  // is matched by the type, as one printed without a message is.
  if (out.empty() && !NamesNoType(inc) && inc.CutBeforeExceptionLine()) out = MatchText(rules, inc, index, inc.exception);
  return out;
}

// True when `value` is written, as a whole string literal ("...", '...' or [[...]], with no escapes), in
// the rule's own Lua: text the rule's author
// wrote, not text read from the log (Note: [Command captures]).
static bool LuaLiteral(const Rule& rule, const std::string& value) {
  if (value.empty()) return false;
  for (const LuaChunk& chunk : rule.lua_chunks) {
    for (char quote : {'"', '\''}) {
      if (chunk.code.find(quote + value + quote) != std::string::npos) return true;
    }
    if (chunk.code.find("[[" + value + "]]") != std::string::npos) return true;  // a long string
  }
  return false;
}

Diagnosis Render(const RuleSet& rules, const Candidate& c, const Incident& incident, Audience audience) {
  const Rule& rule = rules.Full(c.rule);  // its texts (Note: [Texts on demand])
  auto lookup = [&](const std::string& name, std::string* value) {
    if (auto it = c.captures.find(name); it != c.captures.end()) {
      *value = it->second;
      return true;
    }
    if (name == "exception") {
      *value = incident.exception.empty() ? "error" : incident.exception;
      return true;
    }
    if (name == "location") {
      *value = incident.culprit >= 0 ? incident.CulpritText() : "unknown location";
      return true;
    }
    return false;
  };
  auto render = [&](const Text& t) { return RenderTemplate(t.value, lookup); };
  // Note: [Command captures]: a value the rule's own Lua wrote as a string literal (a vendor's whole
  // command) is the rule's text; any other value is placed where the shell cannot run it.
  auto authored = [&](const std::string& name, const std::string& value) {
    if (name == "location" && incident.culprit < 0 && !c.captures.count(name)) return true;  // "unknown location"
    auto it = c.values.find(name);
    return it != c.values.end() && it->second == value && LuaLiteral(rule, value);
  };
  // A value that is empty for this input (an optional sub-command) leaves no blank at the command's end.
  auto render_command = [&](const Text& t) {
    std::string out = RenderCommand(t.value, lookup, authored);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  };
  Diagnosis d;
  d.rule = rule.id;
  d.category = rule.category;
  d.confidence = c.confidence;
  d.title = rule.title;
  d.explanation = render(rule.explain);
  if (!c.note.empty()) d.explanation += (d.explanation.empty() ? "" : " ") + c.note;
  d.ranking = c.ranking;
  // Note: [Audience]: a C++ reader gets the rule's `cpp:` versions; advice written only for Python is
  // marked as such, and Python commands (`checks:`) are left out rather than shown as if they applied.
  const bool cxx = audience == Audience::kCxx;
  auto for_reader = [&](const Text& python, const Text& cpp, bool command) {
    if (!cxx) return command ? render_command(python) : render(python);
    if (!cpp.value.empty()) return command ? render_command(cpp) : render(cpp);
    if (python.value.empty()) return std::string();
    return kWrittenForPython + (command ? render_command(python) : render(python));
  };
  // Note: [Conditions]: the hypotheses whose `first:` held come first, each group in the rule's order.
  std::vector<size_t> order;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t k = 0; k < rule.hypotheses.size(); ++k) {
      const bool first = k < c.hypothesis_first.size() && c.hypothesis_first[k];
      if (first == (pass == 0)) order.push_back(k);
    }
  }
  for (size_t k : order) {
    const HypothesisSpec& h = rule.hypotheses[k];
    if (k < c.hypothesis_off.size() && c.hypothesis_off[k]) continue;
    Hypothesis out;
    if (auto it = c.evidence.find(static_cast<int>(k)); it != c.evidence.end()) out.evidence = it->second;
    out.id = h.id;
    out.text = render(h.text);
    out.probe = h.probe;
    out.test = h.probe.empty() ? for_reader(h.test, h.cpp_test, true) : "probe " + h.probe;
    out.fix = for_reader(h.fix, h.cpp_fix, false);
    d.hypotheses.push_back(std::move(out));
  }
  if (cxx) {
    for (const Text& t : rule.cpp_checks) d.checks.push_back(render_command(t));
  } else {
    for (size_t k = 0; k < rule.checks.size(); ++k) {
      if (k < c.check_off.size() && c.check_off[k]) continue;  // its `when:` did not hold (Note: [Conditions])
      d.checks.push_back(render_command(rule.checks[k]));
    }
  }
  const std::string verify = for_reader(rule.verify, rule.cpp_verify, false);
  d.verify = rule.verify_probe.empty() ? verify : "probe " + rule.verify_probe + (verify.empty() ? "" : ": " + verify);
  d.incident = c.incident;
  d.captures = c.captures;
  d.specificity = c.specificity;
  return d;
}

// Note: [Masked causes] Some errors are the surface of a failure in another category: cuBLAS's
// EXECUTION_FAILED is often an embedding index out of range that an asynchronous kernel hit earlier, a
// NaN loss in an fp16 run is often the overflow of half precision, a worker killed by a bus error is
// often a full /dev/shm. A rule says so by giving such a hypothesis the other `category:`. Each
// diagnosis then brings, for every hypothesis of its that is shown and names another category, a
// diagnosis of that category: the hypothesis (its test and fix) is the whole of it, at
// kMaskedFactor of the confidence of the diagnosis it came from, so it always ranks below it and never
// changes the first answer; the ranking note says where it came from. It is added after the abstention
// threshold, which the diagnosis it came from cleared: it reads that failure, it does not claim that
// there is one. A category some diagnosis already has is not added again, and of two rules naming one
// category the more confident wins. The factor is measured, not chosen: `triage eval corpus` prints how
// often a masked cause among a report's first three answers is an accepted one; on 2026-11-29 (38
// hypotheses with a category) that was 39 of 214 on our cases and the wild tuning split (18%), behind
// first answers of mean confidence 0.94.
// Such a hypothesis' `first:` names the evidence that decides for its cause (the fp16 run behind a NaN
// loss, the vocabulary behind a bare device-side assert): when one of its conditions holds on the input,
// the masked cause takes the confidence of the diagnosis it came from and ranks just ahead of it, and
// both ranking notes say why. Only a condition that read another line, the error's own frames (Note: [Call-site
// evidence]) or an environment fact promotes;
// one on the error's own message (cusolver-error's EXECUTION_FAILED) only orders the hypotheses. Without its evidence
// the cause stays at kMaskedFactor: the surface reading is the better answer when the input is silent.
constexpr double kMaskedFactor = 0.2;

static void AddMaskedCauses(const RuleSet& rules, ConditionReader* conditions, std::vector<Diagnosis>* out) {
  std::map<std::string, int> index_of;  // rule id -> index, for the rules that produced a diagnosis
  for (const Diagnosis& d : *out) index_of.emplace(d.rule, -1);
  for (int i = 0; i < static_cast<int>(rules.rules.size()) && !index_of.empty(); ++i) {
    auto it = index_of.find(rules.rules[static_cast<size_t>(i)].id);
    if (it != index_of.end() && it->second < 0) it->second = i;
  }
  struct Masked {
    Diagnosis d;
    size_t parent = 0;  // index in *out of the diagnosis it came from
    bool promoted = false;
  };
  std::vector<Masked> masked;  // one per category, in the order the hypotheses are shown
  std::set<std::string> present;
  for (const Diagnosis& d : *out) present.insert(d.category);
  // Note: [Promoted cause already answered]. Where the promoted category is one a diagnosis ranked below the
  // surface one already has (a NaN loss read by loss-is-nan beside the BCE assertion it caused), no masked copy
  // is added: that diagnosis itself is lifted to the surface diagnosis' confidence and ranked just ahead of it,
  // with the same evidence in its ranking note. One already ranked ahead is left alone.
  struct Lift {
    size_t target = 0;  // index in *out of the diagnosis lifted
    size_t parent = 0;  // index in *out of the diagnosis whose hypothesis named its category
    std::string note;
  };
  std::vector<Lift> lifts;
  for (size_t p = 0; p < out->size(); ++p) {
    const Diagnosis& d = (*out)[p];
    auto at = index_of.find(d.rule);
    if (at == index_of.end() || at->second < 0) continue;
    const Rule& rule = rules.Full(at->second);
    for (size_t k = 0; k < d.hypotheses.size(); ++k) {
      const Hypothesis& h = d.hypotheses[k];
      auto spec = std::find_if(rule.hypotheses.begin(), rule.hypotheses.end(),
                               [&](const HypothesisSpec& s) { return s.id == h.id; });
      if (spec == rule.hypotheses.end() || spec->category.empty()) continue;
      if (present.count(spec->category)) {
        std::string lift_why;
        // A diagnosis that is lifted itself does not lift another (it leaves its place; keep one move).
        if (std::any_of(lifts.begin(), lifts.end(), [&](const Lift& l) { return l.target == p; })) continue;
        if (spec->first.empty() || !conditions->Holds(spec->first, d.incident, &lift_why) || lift_why.empty()) continue;
        size_t q = 0;
        while (q < out->size() && (*out)[q].category != spec->category) ++q;
        if (q <= p || q >= out->size() || (*out)[q].confidence >= d.confidence) continue;
        if (std::any_of(lifts.begin(), lifts.end(), [&](const Lift& l) { return l.target == q; })) continue;
        lifts.push_back({q, p,
                         "Raised to the confidence of the " + d.category + " diagnosis and ranked ahead of it: rule " +
                             d.rule + " names this category as one of its causes (" + h.id + "), and " + lift_why + "."});
        continue;
      }
      std::string why;
      // Only evidence from elsewhere in the input (a line, a frame, a fact) promotes: a `first:` that reads the
      // error's own message chooses among its readings and says nothing the surface rule did not see.
      const bool promoted = !spec->first.empty() && conditions->Holds(spec->first, d.incident, &why) && !why.empty();
      const double confidence = promoted ? d.confidence : d.confidence * kMaskedFactor;
      auto have = std::find_if(masked.begin(), masked.end(), [&](const Masked& m) { return m.d.category == spec->category; });
      if (have != masked.end() && have->d.confidence >= confidence) continue;
      Masked m;
      m.parent = p;
      m.promoted = promoted;
      m.d.rule = d.rule;
      m.d.from_hypothesis = h.id;
      m.d.category = spec->category;
      m.d.confidence = confidence;
      m.d.title = CategoryTitle(spec->category);
      m.d.explanation = h.text;
      if (promoted) {
        m.d.ranking = "Promoted to the confidence of the " + d.category + " diagnosis and ranked ahead of it: rule " +
                      d.rule + " names this as a cause of another category (" + h.id + "), and " +
                      (why.empty() ? std::string("the input shows its evidence") : why) + ".";
      } else {
        m.d.ranking = "Confidence x" + FormatNumber(kMaskedFactor, NumberStyle::kGeneral, 3) + " of the " + d.category +
                      " diagnosis: rule " + d.rule + " names this as its cause " + std::to_string(k + 1) + " (" + h.id +
                      "), a failure of another category that the error can hide.";
      }
      m.d.hypotheses.push_back(h);
      if (promoted && !why.empty()) m.d.hypotheses.back().evidence = why;
      m.d.verify = d.verify;
      m.d.incident = d.incident;
      m.d.captures = d.captures;
      m.d.occurrences = d.occurrences;
      m.d.specificity = d.specificity;
      if (have != masked.end()) *have = std::move(m);
      else masked.push_back(std::move(m));
    }
  }
  // A promoted cause goes just ahead of the diagnosis it came from (equal confidence: the stable sort
  // keeps it there), which says why it ranks below; the others follow at the end.
  std::vector<Diagnosis> result;
  result.reserve(out->size() + masked.size());
  std::vector<bool> lifted(out->size(), false);
  for (const Lift& l : lifts) lifted[l.target] = true;
  for (size_t p = 0; p < out->size(); ++p) {
    if (lifted[p]) continue;
    for (const Lift& l : lifts) {
      if (l.parent != p) continue;
      Diagnosis& t = (*out)[l.target];
      t.confidence = (*out)[p].confidence;
      t.ranking += std::string(t.ranking.empty() ? "" : " ") + l.note;
      std::string& note = (*out)[p].ranking;
      note += std::string(note.empty() ? "" : " ") + "Ranked below " + t.category +
              ", one of its causes that the input shows evidence for.";
      for (Masked& m : masked) {  // the lifted diagnosis' own promoted causes go with it
        if (m.promoted && m.parent == l.target) result.push_back(std::move(m.d));
      }
      result.push_back(std::move(t));
    }
    for (Masked& m : masked) {
      if (!m.promoted || m.parent != p) continue;
      std::string& note = (*out)[p].ranking;
      note += std::string(note.empty() ? "" : " ") + "Ranked below " + m.d.category + " (" + m.d.from_hypothesis +
              "), one of its causes that the input shows evidence for.";
      result.push_back(std::move(m.d));
    }
    result.push_back(std::move((*out)[p]));
  }
  for (Masked& m : masked) {
    if (!m.promoted) result.push_back(std::move(m.d));
  }
  *out = std::move(result);
}

// Note: [Incidental warnings]. A Python warning (UserWarning, FutureWarning, DeprecationWarning, ...) or a
// C++ "Warning:" line: its type's last component ends in "Warning".
static bool IsWarning(const Incident& inc) {
  const std::string last = LastComponent(inc.exception);
  static const std::string kWarning = "Warning";
  return last.size() >= kWarning.size() && last.compare(last.size() - kWarning.size(), kWarning.size(), kWarning) == 0;
}

// A warning is not a failure: the run went on after it. When the input also shows a failure (a diagnosis
// of an incident that is neither a warning nor a metric signature: an exception, an error line, a kill),
// a diagnosis of another category read from a warning's line is capped at kIncidentalWarning x the best
// such diagnosis' confidence (of those that clear the abstention threshold), so the failure's own reading
// ranks first and the warning's stays in the list below it. A rule that reads a warning as the cause of a
// failure says so on the failure's own incident (`input:` conditions, Lua), as
// tokenizer-sequence-past-positions does. Found by tests/noise_forms_test.cc: the
// scheduler-order warning, pasted above a killed run whose loss was level, outranked the kill.
constexpr double kIncidentalWarning = 0.9;

template <typename Clears>
static void RankWarningsBelowFailures(const std::vector<Incident>& incidents, const Clears& clears, std::vector<Diagnosis>* out) {
  const int n = static_cast<int>(incidents.size());
  auto on = [&](const Diagnosis& d) { return d.incident >= 0 && d.incident < n ? &incidents[static_cast<size_t>(d.incident)] : nullptr; };
  const Diagnosis* failure = nullptr;
  for (const Diagnosis& d : *out) {
    const Incident* inc = on(d);
    if (inc == nullptr || inc->kind == Incident::Kind::kSignal || IsWarning(*inc) || !clears(d.confidence)) continue;
    if (failure == nullptr || d.confidence > failure->confidence) failure = &d;
  }
  if (failure == nullptr) return;
  const double cap = failure->confidence * kIncidentalWarning;
  const int line = on(*failure)->line_start;
  for (Diagnosis& d : *out) {
    const Incident* inc = on(d);
    // A warning read as the same category as the failure agrees with it (fastai's collate warning above
    // the collate error): it keeps its place.
    if (inc == nullptr || !IsWarning(*inc) || d.confidence <= cap || d.category == failure->category) continue;
    d.confidence = cap;
    d.ranking += std::string(d.ranking.empty() ? "" : " ") + "Confidence lowered to x" +
                 FormatNumber(kIncidentalWarning, NumberStyle::kGeneral, 3) + " of the " + failure->category +
                 " diagnosis, to rank below it: this is a warning, which the run went on after, and the input also shows a failure" +
                 (line > 0 ? " (line " + std::to_string(line) + ")" : std::string()) + ".";
  }
}

int RootOf(const std::vector<Incident>& incidents, int i) {
  const int n = static_cast<int>(incidents.size());
  int steps = 0;
  while (incidents[i].caused_by >= 0 && incidents[i].caused_by < n && steps++ < n) i = incidents[i].caused_by;
  return i;
}

int PrimaryIncident(const std::vector<Incident>& incidents) {
  // Per group: where it starts in the input (its earliest line) and whether its root was handled.
  int best = -1, best_line = 0;              // earliest group whose root was not handled
  int any = -1, any_line = 0;                // earliest group at all
  for (int i = 0; i < static_cast<int>(incidents.size()); ++i) {
    const Incident::Kind k = incidents[i].kind;
    if (k == Incident::Kind::kLogLine || k == Incident::Kind::kSignal) continue;
    int r = RootOf(incidents, i);
    int line = std::min(incidents[i].line_start, incidents[r].line_start);
    if (any < 0 || line < any_line) {
      any = r;
      any_line = line;
    }
    if (!incidents[r].handled && (best < 0 || line < best_line)) {
      best = r;
      best_line = line;
    }
  }
  return best >= 0 ? best : any;
}

void Diagnose(const RuleSet& rules, const DiagnoseOptions& options, Report* report, const MetricCollector* metrics,
              const EnvFacts* facts) {
  const std::vector<Incident>& incidents = report->incidents;
  const int n = static_cast<int>(incidents.size());
  // Note: [Audience detection]: the report says whom it was written for, never "auto".
  report->audience = ResolveAudience(options.audience, incidents);

  // The primary incident keeps its candidates' confidence; every other incident is a likely
  // consequence (0.9).
  const int primary = PrimaryIncident(incidents);

  std::vector<Candidate> all;
  // Lua runs in a state borrowed for this whole diagnosis, only if some Lua rule matched.
  std::unique_ptr<LuaRuntime::Lease> lease;
  std::set<int> lua_off;  // rules whose Lua failed: off for the rest of this call
  std::set<std::string> reported;
  ConditionReader conditions(incidents, facts);
  std::map<std::string, std::string> fact_values;  // ctx.facts
  if (facts) fact_values = facts->Values();
  // Runs the Lua of each candidate whose rule has some (values, score, when) and drops the ones it
  // vetoes or whose rule failed. Message and signal candidates alike: a signal rule's `score:` is how
  // it weighs the rest of the input (rules/README.md, "Lua in the ranking").
  auto run_lua = [&](std::vector<Candidate>* cands) {
    for (size_t k = 0; k < cands->size();) {
      Candidate& cand = (*cands)[k];
      const Rule& rule = rules.Full(cand.rule);  // hypotheses and checks with conditions (Note: [Texts on demand])
      bool keep = ApplyConditions(rule, &conditions, &cand);
      if (keep && rule.has_lua() && rules.lua) {
        if (!lease) lease = std::make_unique<LuaRuntime::Lease>(rules.lua->Acquire());
        LuaError error;
        bool failed = false;
        if (lua_off.count(cand.rule)) {
          keep = false;
        } else if (!*lease) {
          failed = true;
          error = {WarningCodeName(WarningCode::kLuaUnavailable), rule.file, 0, "could not start a Lua state"};
        } else {
          keep = RunLua(rule, cand.rule, lease->get(), report->incidents, metrics, &fact_values, &cand, &error, &failed);
        }
        if (failed) {
          keep = false;
          lua_off.insert(cand.rule);
          Problem p;
          p.severity = Problem::Severity::kWarning;
          p.code = error.code;
          p.file = error.file;
          p.line = error.line;
          p.rule_id = rule.id;
          p.message = "rule disabled for this input: " + error.message;
          if (reported.insert(p.ToString()).second) report->warnings.push_back(std::move(p));
        }
      }
      if (keep) ++k;
      else cands->erase(cands->begin() + static_cast<long>(k));
    }
  };
  for (int i = 0; i < n; ++i) {
    std::vector<Candidate> cands = MatchIncident(rules, incidents, i);
    run_lua(&cands);
    std::stable_sort(cands.begin(), cands.end(), [&](const Candidate& a, const Candidate& b) {
      if (a.specificity != b.specificity) return a.specificity > b.specificity;
      return a.confidence > b.confidence;
    });
    // Note: [Demotion notes]: each factor below that lowers a candidate is stated in the diagnosis'
    // `ranking`, so a reader sees why it ranks where it does; a rule's own Lua `score` states its
    // reasons in the explanation (rules/LUA_API.md). Conditions (`needs:`/`unless:`) drop a candidate
    // rather than lower it.
    const bool later = !(i == primary || primary < 0);
    const double incident_factor = later ? 0.9 : 1.0;
    double alt = 1.0;
    for (size_t k = 0; k < cands.size(); ++k) {
      Candidate& c = cands[k];
      if (k > 0) {
        const Candidate& ahead = cands[0];
        AddRankingNote(&c, "Confidence lowered (x" + FormatNumber(alt, NumberStyle::kGeneral, 3) + "): rule " +
                               rules.rules[ahead.rule].id + " matched the same error " +
                               (ahead.specificity > c.specificity ? "with a more specific pattern."
                                                                  : "as specifically and with a higher confidence."));
      }
      c.confidence *= alt * incident_factor;
      if (later) {
        const int here = incidents[i].line_start, first = incidents[primary].line_start;
        AddRankingNote(&c, "Confidence lowered (x0.9): this error" +
                               (here > 0 && first > 0 ? " (line " + std::to_string(here) + ") is not the input's first (line " +
                                                            std::to_string(first) + ")"
                                                      : std::string(" is not the input's first")) +
                               ", and later errors are most often consequences of the first.");
      }
      alt *= 0.8;
      all.push_back(std::move(c));
    }
  }
  // Metric signatures: one incident and one candidate per signal rule that holds.
  std::vector<SignalHit> signal_hits;
  if (metrics) {
    std::vector<Candidate> signal_cands;
    AddSignalCandidates(rules, *metrics, report, &signal_cands, &signal_hits);
    run_lua(&signal_cands);
    for (Candidate& c : signal_cands) all.push_back(std::move(c));
  }
  // One entry per rule: the best incident it matched, with the number of incidents it matched.
  std::map<int, std::pair<int, int>> best;  // rule -> (index in all, count)
  for (int k = 0; k < static_cast<int>(all.size()); ++k) {
    auto it = best.find(all[k].rule);
    if (it == best.end()) {
      best[all[k].rule] = {k, incidents[all[k].incident].count};
      continue;
    }
    it->second.second += incidents[all[k].incident].count;
    if (all[k].confidence > all[it->second.first].confidence) it->second.first = k;
  }
  // Note: [Calibration map]: the last step of the confidence, before abstention.
  auto calibrated = [&](double p) { return rules.calibration ? rules.calibration->Apply(p) : p; };
  std::vector<Diagnosis> out;
  for (const auto& [rule, entry] : best) {
    const Candidate& c = all[entry.first];
    // With signatures, weak candidates may still lend their evidence (FoldSignals drops them after).
    if (calibrated(c.confidence) < options.min_confidence && signal_hits.empty()) continue;
    Diagnosis d = Render(rules, c, incidents[c.incident], report->audience);
    d.occurrences = entry.second;
    if (c.signal >= 0) AttachSignal(signal_hits[c.signal], &d);
    out.push_back(std::move(d));
  }
  if (!signal_hits.empty()) FoldSignals(rules, options.fold_signals, &out);
  // Only a failure reading that clears the threshold itself outranks a warning's (with signatures, `out`
  // still holds weak candidates here).
  RankWarningsBelowFailures(incidents, [&](double p) { return calibrated(p) >= options.min_confidence; }, &out);
  // Ordered on the confidence before calibration first: the map is monotone but flat at its top (every
  // prior from 0.95 up maps to 1.0), so calibrated confidences can tie where the rules' own did not; the
  // stable sort below then keeps this order among equal calibrated confidences.
  auto before_calibration = [](const Diagnosis& a, const Diagnosis& b) {
    if (a.confidence != b.confidence) return a.confidence > b.confidence;
    if (a.incident != b.incident) return a.incident < b.incident;
    return a.rule < b.rule;
  };
  std::sort(out.begin(), out.end(), before_calibration);
  for (Diagnosis& d : out) d.confidence = calibrated(d.confidence);
  out.erase(std::remove_if(out.begin(), out.end(), [&](const Diagnosis& d) { return d.confidence < options.min_confidence; }),
            out.end());
  AddMaskedCauses(rules, &conditions, &out);  // after the threshold: their diagnosis cleared it (Note: [Masked causes])
  // Note: [Frame evidence] (frame_evidence.cc): when no rule matched the primary incident's group at all
  // (not even below the threshold), its frames and exception class may still name a category.
  if (primary >= 0 &&
      std::none_of(all.begin(), all.end(), [&](const Candidate& c) { return RootOf(incidents, c.incident) == primary; })) {
    const FrameReading reading = ReadFrameEvidence(incidents, primary);
    if (reading.entry && reading.entry->speaks) {
      if (options.min_confidence <= kFrameEvidenceConfidence) {
        out.push_back(FrameEvidenceDiagnosis(incidents, reading, report->audience));
      }
    } else if (std::any_of(SimilarTiers().begin(), SimilarTiers().end(), [](const SimilarTier& t) { return t.speaks; }) &&
               std::any_of(rules.rules.begin(), rules.rules.end(), [](const Rule& r) { return r.origin == "bundled"; })) {
      // Note: [Similar known case] (similar_case.cc): nor did its frames; the nearest known cases may,
      // from the bundled index (read at the first call), in a tier of their vote that speaks, at the
      // tier's fitted confidence.
      const SimilarIndex* index = BundledSimilarIndex(rules.cache_dir);
      const std::vector<std::string> words = index ? SimilarWordsOf(incidents, primary) : std::vector<std::string>();
      if (!words.empty()) {
        const SimilarVote vote = VoteSimilarCases(*index, words, options.similar_leave_out);
        if (vote.tier >= 0 && SimilarTiers()[static_cast<size_t>(vote.tier)].speaks &&
            vote.nearest.row->category != "none" &&
            index->tier_fits[static_cast<size_t>(vote.tier)].confidence >= options.min_confidence) {
          out.push_back(SimilarCaseDiagnosis(*index, vote, primary));
        }
      }
    }
  }
  // Stable: equal calibrated confidences keep the order before calibration, and masked causes (added
  // last) follow the diagnoses they tie with, in their hypotheses' order.
  std::stable_sort(out.begin(), out.end(), [](const Diagnosis& a, const Diagnosis& b) { return a.confidence > b.confidence; });
  if (options.top > 0 && static_cast<int>(out.size()) > options.top) out.resize(options.top);
  if (ShowsRocm(incidents)) {
    for (Diagnosis& d : out) RewriteAdvice(&d, ForRocm);  // Note: [ROCm advice]
  }
  if (report->audience == Audience::kPython && ShowsPython3(incidents)) {
    for (Diagnosis& d : out) RewriteAdvice(&d, WithPython3);  // Note: [Python command name]
  }
  report->diagnoses = std::move(out);
}

}  // namespace triage
