// The C API (triage_c.h) over the C++ engine. Every entry point catches everything: no exception
// crosses into C (Guarded), and every failure becomes a status plus a message.
#include "triage_c.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "triage/triage.h"

struct triage_rules {
  std::shared_ptr<const triage::RuleSet> set;
  std::size_t count = 0;
};

struct triage_session {
  std::optional<triage::Session> session;  // empty once finished
  triage_format format = TRIAGE_FORMAT_JSON;
};

namespace {

// Returns a malloc'd copy of `s` (triage_string_free releases it), or null when out of memory.
char* CopyOut(std::string_view s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out == nullptr) return nullptr;
  std::memcpy(out, s.data(), s.size());
  out[s.size()] = '\0';
  return out;
}

triage_status Fail(triage_status status, std::string_view message, char** error) {
  if (error != nullptr) *error = CopyOut(message);
  return status;
}

// Runs `body` (which returns a status and may set *error itself) with every exception turned into
// a status, and *error cleared first.
template <typename Body>
triage_status Guarded(char** error, Body&& body) {
  if (error != nullptr) *error = nullptr;
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(TRIAGE_NO_MEMORY, "out of memory", error);
  } catch (const std::exception& e) {
    return Fail(TRIAGE_INTERNAL, std::string("internal error: ") + e.what(), error);
  } catch (...) {
    return Fail(TRIAGE_INTERNAL, "internal error: unknown exception", error);
  }
}

// Checks options; returns an empty string when they are valid, else what is wrong.
std::string CheckOptions(const triage_options& o) {
  if (!(o.min_confidence >= 0 && o.min_confidence <= 1)) return "options.min_confidence must be in [0, 1]";
  if (o.top < 0) return "options.top must be >= 0";
  if (o.format != TRIAGE_FORMAT_JSON && o.format != TRIAGE_FORMAT_TEXT) return "options.format must be TRIAGE_FORMAT_JSON or TRIAGE_FORMAT_TEXT";
  if (o.audience != TRIAGE_AUDIENCE_PYTHON && o.audience != TRIAGE_AUDIENCE_CPP && o.audience != TRIAGE_AUDIENCE_AUTO) {
    return "options.audience must be TRIAGE_AUDIENCE_PYTHON, TRIAGE_AUDIENCE_CPP or TRIAGE_AUDIENCE_AUTO";
  }
  return "";
}

triage::DiagnoseOptions ToDiagnose(const triage_options& o) {
  triage::DiagnoseOptions d;
  d.min_confidence = o.min_confidence;
  d.top = o.top;
  d.audience = o.audience == TRIAGE_AUDIENCE_CPP    ? triage::Audience::kCxx
               : o.audience == TRIAGE_AUDIENCE_AUTO ? triage::Audience::kAuto
                                                    : triage::Audience::kPython;
  return d;
}

std::string Render(const triage::Report& report, triage_format format) {
  return format == TRIAGE_FORMAT_TEXT ? triage::ToText(report, {}) : triage::ToJson(report);
}

// Stores `text` in *out, or fails with TRIAGE_NO_MEMORY.
triage_status Output(std::string_view text, char** out, char** error) {
  *out = CopyOut(text);
  return *out != nullptr ? TRIAGE_OK : Fail(TRIAGE_NO_MEMORY, "out of memory", error);
}

// Hands a load result to the caller: the rule set, the problems as lines, the status.
triage_status FinishLoad(triage::LoadResult loaded, triage_rules** rules, char** problems) {
  if (problems != nullptr && !loaded.problems.empty()) {
    std::string lines;
    for (const triage::Problem& p : loaded.problems) lines += p.ToString() + "\n";
    *problems = CopyOut(lines);
  }
  auto* out = new triage_rules;
  out->count = triage::CountRules(*loaded.rules);
  out->set = std::move(loaded.rules);
  *rules = out;
  return loaded.ok() ? TRIAGE_OK : TRIAGE_RULE_ERRORS;
}

// Clears the load outputs and checks them; returns an error message or "".
const char* StartLoad(triage_rules** rules, char** problems) {
  if (problems != nullptr) *problems = nullptr;
  if (rules == nullptr) return "rules (the output) is NULL";
  *rules = nullptr;
  return "";
}

}  // namespace

extern "C" {

const char* triage_status_name(triage_status status) {
  switch (status) {
    case TRIAGE_OK: return "ok";
    case TRIAGE_INVALID_ARGUMENT: return "invalid-argument";
    case TRIAGE_RULE_ERRORS: return "rule-errors";
    case TRIAGE_NO_MEMORY: return "no-memory";
    case TRIAGE_INTERNAL: return "internal";
    default: return "unknown";
  }
}

const char* triage_version(void) { return triage::Version(); }

int triage_json_contract_version(void) { return TRIAGE_JSON_CONTRACT_VERSION; }

void triage_string_free(char* s) { std::free(s); }

// Loading has no `error` argument: a failure's message goes to *problems.
triage_status triage_rules_load(const char* const* dirs, size_t n_dirs, unsigned flags, triage_rules** rules,
                                char** problems) {
  return Guarded(problems, [&] {
    if (const char* bad = StartLoad(rules, problems); *bad) return Fail(TRIAGE_INVALID_ARGUMENT, bad, problems);
    if (dirs == nullptr && n_dirs > 0) return Fail(TRIAGE_INVALID_ARGUMENT, "dirs is NULL but n_dirs > 0", problems);
    triage::LoadOptions load;
    load.bundled = (flags & TRIAGE_LOAD_NO_BUNDLED) == 0;
    load.strict = (flags & TRIAGE_LOAD_STRICT) != 0;
    load.cache = (flags & TRIAGE_LOAD_NO_CACHE) == 0;
    if (flags & TRIAGE_LOAD_ONLY_DIRS) load.system = load.user = load.project = load.env_path = false;
    for (size_t i = 0; i < n_dirs; ++i) {
      if (dirs[i] == nullptr) return Fail(TRIAGE_INVALID_ARGUMENT, "dirs[" + std::to_string(i) + "] is NULL", problems);
      load.dirs.emplace_back(dirs[i]);
    }
    return FinishLoad(triage::LoadRules(load), rules, problems);
  });
}

triage_status triage_rules_from_strings(const char* const* names, const char* const* yamls, size_t n,
                                        unsigned flags, triage_rules** rules, char** problems) {
  return Guarded(problems, [&] {
    if (const char* bad = StartLoad(rules, problems); *bad) return Fail(TRIAGE_INVALID_ARGUMENT, bad, problems);
    if (n > 0 && (names == nullptr || yamls == nullptr)) return Fail(TRIAGE_INVALID_ARGUMENT, "names or yamls is NULL but n > 0", problems);
    std::vector<std::pair<std::string, std::string>> files;
    for (size_t i = 0; i < n; ++i) {
      if (names[i] == nullptr || yamls[i] == nullptr) {
        return Fail(TRIAGE_INVALID_ARGUMENT, "names[" + std::to_string(i) + "] or yamls[" + std::to_string(i) + "] is NULL", problems);
      }
      files.emplace_back(names[i], yamls[i]);
    }
    return FinishLoad(triage::LoadRulesFromStrings(files, (flags & TRIAGE_LOAD_STRICT) != 0), rules, problems);
  });
}

void triage_note_installed_rules_dir(const char* dir) {
  try {
    triage::internal::NoteInstalledRulesDir(dir);
  } catch (...) {
    // Out of memory before main: the search falls back to the configured prefix.
  }
}

size_t triage_rules_count(const triage_rules* rules) { return rules != nullptr ? rules->count : 0; }

void triage_rules_free(triage_rules* rules) { delete rules; }

void triage_options_init(triage_options* options) {
  if (options == nullptr) return;
  options->min_confidence = triage::DiagnoseOptions{}.min_confidence;
  options->top = 0;
  options->format = TRIAGE_FORMAT_JSON;
  options->source = nullptr;
  options->audience = TRIAGE_AUDIENCE_PYTHON;
}

triage_status triage_diagnose(const triage_rules* rules, const triage_options* options, const char* text,
                              size_t len, char** out, char** error) {
  return Guarded(error, [&] {
    if (out == nullptr) return Fail(TRIAGE_INVALID_ARGUMENT, "out is NULL", error);
    *out = nullptr;
    if (rules == nullptr) return Fail(TRIAGE_INVALID_ARGUMENT, "rules is NULL", error);
    if (text == nullptr && len > 0) return Fail(TRIAGE_INVALID_ARGUMENT, "text is NULL but len > 0", error);
    triage_options o;
    triage_options_init(&o);
    if (options != nullptr) o = *options;
    if (std::string bad = CheckOptions(o); !bad.empty()) return Fail(TRIAGE_INVALID_ARGUMENT, bad, error);
    triage::Session session(rules->set, ToDiagnose(o), o.source != nullptr ? o.source : "-");
    if (len > 0) session.Feed(std::string_view(text, len));
    return Output(Render(session.Finish(), o.format), out, error);
  });
}

triage_status triage_session_new(const triage_rules* rules, const triage_options* options, triage_session** session,
                                 char** error) {
  return Guarded(error, [&] {
    if (session == nullptr) return Fail(TRIAGE_INVALID_ARGUMENT, "session (the output) is NULL", error);
    *session = nullptr;
    if (rules == nullptr) return Fail(TRIAGE_INVALID_ARGUMENT, "rules is NULL", error);
    triage_options o;
    triage_options_init(&o);
    if (options != nullptr) o = *options;
    if (std::string bad = CheckOptions(o); !bad.empty()) return Fail(TRIAGE_INVALID_ARGUMENT, bad, error);
    auto made = std::make_unique<triage_session>();
    made->session.emplace(rules->set, ToDiagnose(o), o.source != nullptr ? o.source : "-");
    made->format = o.format;
    *session = made.release();
    return TRIAGE_OK;
  });
}

triage_status triage_session_feed(triage_session* session, const char* bytes, size_t len, char** error) {
  return Guarded(error, [&] {
    if (session == nullptr) return Fail(TRIAGE_INVALID_ARGUMENT, "session is NULL", error);
    if (!session->session) return Fail(TRIAGE_INVALID_ARGUMENT, "the session is finished", error);
    if (bytes == nullptr && len > 0) return Fail(TRIAGE_INVALID_ARGUMENT, "bytes is NULL but len > 0", error);
    if (len > 0) session->session->Feed(std::string_view(bytes, len));
    return TRIAGE_OK;
  });
}

triage_status triage_session_snapshot(const triage_session* session, char** out, char** error) {
  return Guarded(error, [&] {
    if (out == nullptr) return Fail(TRIAGE_INVALID_ARGUMENT, "out is NULL", error);
    *out = nullptr;
    if (session == nullptr) return Fail(TRIAGE_INVALID_ARGUMENT, "session is NULL", error);
    if (!session->session) return Fail(TRIAGE_INVALID_ARGUMENT, "the session is finished", error);
    return Output(Render(session->session->Snapshot(true), session->format), out, error);
  });
}

triage_status triage_session_finish(triage_session* session, char** out, char** error) {
  return Guarded(error, [&] {
    if (out == nullptr) return Fail(TRIAGE_INVALID_ARGUMENT, "out is NULL", error);
    *out = nullptr;
    if (session == nullptr) return Fail(TRIAGE_INVALID_ARGUMENT, "session is NULL", error);
    if (!session->session) return Fail(TRIAGE_INVALID_ARGUMENT, "the session is finished", error);
    triage::Report report = session->session->Finish();
    session->session.reset();
    return Output(Render(report, session->format), out, error);
  });
}

void triage_session_free(triage_session* session) { delete session; }

}  // extern "C"
