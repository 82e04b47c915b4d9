// The resolve and compile stages of rule loading, and its entry points (rule_loader.h).
#include "rules/rule_loader.h"

#include <time.h>

#include <sched.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>
#include <thread>
#include <unordered_map>

#include <yaml-cpp/yaml.h>

#include "log/line_scanner.h"
#include "log/shared_work.h"
#include "rules/calibration.h"
#include "rules/lua_runtime.h"
#include "rules/problem_codes.h"
#include "rules/rule.h"
#include "rules/rule_cache.h"
#include "rules/rule_reader.h"
#include "rules/sha256.h"
#include "rules/yaml_tree.h"
#include "rules/rule_sources.h"
#include "triage/locale_free.h"
#include "log/segmenter.h"

namespace triage {
namespace fs = std::filesystem;

// (fs::path(path).parent_path() / fs::path(path).stem()).string(). A load asks it of every file
// (~650 std::filesystem::path splits and joins, ~4 M instructions before the files' threads start):
// a path with no "//" whose file name is neither empty, "." nor ".." is cut as a string instead (its
// parent is all before the last '/', the stem its name less the part from the name's last '.' when
// that is not the name's first byte); any other goes through std::filesystem. Test:
// RuleLoader.StemOfAnswersAsTheFilesystemDoes (rule_loader_test.cc).
std::string StemOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string_view name = std::string_view(path).substr(slash == std::string::npos ? 0 : slash + 1);
  if (path.find("//") == std::string::npos && !name.empty() && name != "." && name != "..") {
    const size_t dot = name.rfind('.');
    const std::string_view stem = dot == std::string_view::npos || dot == 0 ? name : name.substr(0, dot);
    return path.substr(0, path.size() - name.size()).append(stem);
  }
  fs::path p(path);
  return (p.parent_path() / p.stem()).string();
}

namespace {

// Where a rule file names its id: the line of a top-level "id:" (YAML) or "id =" (a whole-Lua rule's
// table), column 1; {0, 0} when none is found. Only for reporting a duplicate id, so the text is
// searched rather than parsed again.
SourcePos IdPosition(const std::string& content) {
  int line = 1;
  for (size_t at = 0; at < content.size(); ++line) {
    size_t end = content.find('\n', at);
    std::string_view text(content.data() + at, (end == std::string::npos ? content.size() : end) - at);
    size_t word = text.find_first_not_of(" \t");
    if (word != std::string_view::npos && text.substr(word, 2) == "id") {
      std::string_view rest = text.substr(word + 2);
      size_t sep = rest.find_first_not_of(" \t");
      if (sep != std::string_view::npos && (rest[sep] == ':' || rest[sep] == '=') && (word == 0 || rest[sep] == '=')) {
        return {line, static_cast<int>(word) + 1};
      }
    }
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return {};
}

const std::string& ContentOf(const std::vector<SourceFile>& files, const std::string& path) {
  static const std::string kNone;
  for (const SourceFile& f : files) {
    if (f.path == path) return f.content;
  }
  return kNone;
}

// fs::path(path).extension() == ".lua", without building the path (a load asks for each file): the
// file name after the last '/' ends with ".lua" and holds more than it (".lua" alone has no extension).
bool IsLuaFile(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string::npos ? std::string_view(path) : std::string_view(path).substr(slash + 1);
  return name.size() > 4 && name.substr(name.size() - 4) == ".lua";
}

// Converts a Lua value (a whole-Lua rule's `rule` table) into the YAML the schema describes. Its nodes
// have no mark (problems name the file alone), as those yaml-cpp built from values had none.
void ToYaml(const LuaValue& v, YamlTreeBuilder* out) {
  const YAML::Mark mark = YAML::Mark::null_mark();
  switch (v.type) {
    case LuaValue::Type::kBool: out->Scalar(mark, v.boolean ? "true" : "false"); return;
    case LuaValue::Type::kNumber: {
      if (v.number == static_cast<double>(static_cast<long long>(v.number)) && v.number > -1e15 && v.number < 1e15) {
        out->Scalar(mark, std::to_string(static_cast<long long>(v.number)));
      } else {
        out->Scalar(mark, FormatNumber(v.number, NumberStyle::kGeneral, 17));
      }
      return;
    }
    case LuaValue::Type::kString: out->Scalar(mark, v.string); return;
    case LuaValue::Type::kTable: {
      bool sequence = !v.fields.empty();
      for (size_t i = 1; sequence && i <= v.fields.size(); ++i) sequence = v.fields.count(std::to_string(i)) > 0;
      if (sequence) {
        out->StartSequence(mark);
        for (size_t i = 1; i <= v.fields.size(); ++i) ToYaml(v.fields.at(std::to_string(i)), out);
      } else {
        out->StartMap(mark);
        for (const auto& kv : v.fields) {
          out->Scalar(mark, kv.first);
          ToYaml(kv.second, out);
        }
      }
      out->End();
      return;
    }
    default: out->Null(mark); return;
  }
}

struct BuildInput {
  std::vector<SourceFile> files;
  bool strict = false;
  std::vector<Problem> problems;
  DisableList disable;
  std::vector<SourceFile> calibration;  // each directory's calibration.yaml, in search order
  LuaLimits limits;
  int threads = 0;  // LoadOptions::threads (Note: [Parallel rule reading])
  const RuleSet* previous = nullptr;  // a reload keeps the last good version of a broken file's rule
  bool examples = true;  // LoadOptions::examples: false lets a set read from the cache leave them out
  bool texts_on_demand = false;  // LoadOptions::texts_on_demand (Note: [Texts on demand] in rule_cache.h)
  std::string cache_dir;  // the load's cache directory (empty: none), kept as RuleSet::cache_dir
};

// Lua checks shared by every rule of one load: one lua_State runs them all (Note: [Shared check
// state] in lua_runtime.cc).
class LuaChecker {
 public:
  LuaChecker(const LuaLimits& limits, bool strict, std::vector<Problem>* problems)
      : limits_(limits), strict_(strict), problems_(problems) {}

  // Where the problems found from now on go.
  void set_problems(std::vector<Problem>* problems) { problems_ = problems; }

  LuaState* state() {
    if (!state_ && !failed_) {
      state_ = LuaState::Create(limits_);
      failed_ = state_ == nullptr;
    }
    return state_.get();
  }

  // Reads a whole-Lua rule: runs the file and converts its global `rule` table.
  bool ReadLuaRule(const SourceFile& sf, YamlTree* root) {
    LuaState* L = state();
    if (!L) return Fail(sf.path, 0, "", ProblemCode::kLuaUnavailable, "could not start Lua");
    LuaError err;
    LuaState::RuleCheck checked;  // Note: [Shared check state]
    if (!L->CheckRule({{sf.path, sf.content}}, "rule", &checked, &err)) return Fail(err, "");
    const LuaValue& v = checked.global;
    if (!checked.global_ok || v.type != LuaValue::Type::kTable) {
      return Fail(sf.path, 1, "", ProblemCode::kOrphanLua,
                  "a .lua file must sit next to a YAML rule of the same stem, or define a global 'rule' table "
                  "(rules/LUA_API.md \"Rules written in Lua\")");
    }
    YamlTreeBuilder builder(root);
    ToYaml(v, &builder);
    return true;
  }

  // Loads the rule's chunks and checks the functions its YAML names; collects test_* functions.
  bool Validate(Rule* rule) {
    LuaState* L = state();
    if (!L) return Fail(rule->file, 0, rule->id, ProblemCode::kLuaUnavailable, "could not start Lua");
    LuaError err;
    LuaState::RuleCheck checked;  // Note: [Shared check state]
    // No .lua file: the chunks are the reader's, for inline expressions (Note: [Inline-only checks]).
    const bool inline_only = rule->lua_file.empty();
    if (!L->CheckRule(rule->lua_chunks, nullptr, &checked, &err, inline_only)) return Fail(err, rule->id);
    const std::map<std::string, int>& fns = checked.functions;
    std::set<std::string> used;
    bool ok = true;
    auto need = [&](const LuaRef& ref, const std::string& what) {
      if (ref.name.empty()) return;
      used.insert(ref.name);
      if (fns.count(ref.name)) return;
      std::string where = rule->lua_file.empty()
                              ? " (there is no " + fs::path(rule->file).stem().string() + ".lua next to the rule)"
                              : " in " + rule->lua_file;
      ok = Fail(rule->file, ref.line, rule->id, ProblemCode::kUnknownLuaFunction,
                what + " names Lua function '" + ref.name + "', which is not defined" + where, ref.column);
    };
    need(rule->values_fn, "'values'");
    need(rule->score_fn, "'score'");
    for (const HypothesisSpec& h : rule->hypotheses) need(h.when, "hypothesis '" + h.id + "' 'when'");
    std::vector<std::pair<int, std::string>> by_line;  // report in file order
    for (const auto& [name, line] : fns) by_line.push_back({line, name});
    std::sort(by_line.begin(), by_line.end());
    for (const auto& [line, name] : by_line) {
      if (name.rfind("test_", 0) == 0) {
        rule->lua_tests.push_back(name);
        continue;
      }
      if (name.rfind("__", 0) == 0 || used.count(name)) continue;
      AddProblem(problems_, strict_ ? Problem::Severity::kError : Problem::Severity::kWarning, ProblemCode::kUnusedLuaFunction,
                 rule->lua_file, line, 0, rule->id,
                 "global function '" + name + "' is not used by the rule (make helpers local, or name it in "
                 "'when'/'values'/'score')");
      if (strict_) ok = false;
    }
    return ok;
  }

 private:
  bool Fail(const std::string& file, int line, const std::string& rule_id, ProblemCode code,
            const std::string& message, int column = 0) {
    AddProblem(problems_, Problem::Severity::kError, code, file, line, column, rule_id, message);
    return false;
  }
  // A Lua error met while loading. Its code is one of the table's lua-* codes; were the runtime ever
  // to name another, it is reported as lua-error (with the runtime's message) rather than unlisted.
  bool Fail(const LuaError& err, const std::string& rule_id) {
    ProblemCode code = ProblemCode::kLuaError;
    ProblemCodeFromName(err.code, &code);
    return Fail(err.file, err.line, rule_id, code, err.message);
  }

  LuaLimits limits_;
  bool strict_;
  std::vector<Problem>* problems_;
  std::unique_ptr<LuaState> state_;
  bool failed_ = false;
};

// Reads one rule file (YAML, with the Lua file `lua_file` beside it when there is one; or a whole-Lua
// rule): parses and validates it, checks its Lua, and computes its patterns' required literals.
// `lua_too_large`: the Lua file beside it is over the size limit (the rule is then dropped).
RulePart ReadPart(const SourceFile& sf, const SourceFile* lua_file, bool lua_too_large, bool strict, LuaChecker& lua) {
  RulePart part;
  lua.set_problems(&part.problems);
  const bool is_lua = IsLuaFile(sf.path);
  FileChecker check(sf.path, strict, &part.problems);
  Rule& rule = part.rule;
  bool ok = false;
  YamlTree tree;  // Note: [Rule file YAML] in yaml_tree.cc
  bool parsed = false;
  if (is_lua) {
    parsed = lua.ReadLuaRule(sf, &tree);
  } else {
    try {
      LoadYamlTree(sf.content, &tree);
      parsed = true;
    } catch (const YAML::Exception& e) {
      check.Error(e.mark, ProblemCode::kBadYaml, e.msg);
    }
  }
  const YamlNode root = tree.Root();
  if (!is_lua) {
    if (parsed && (!root || root.IsNull())) {
      check.Error(YAML::Mark(), ProblemCode::kEmptyFile, "rule file is empty");
      parsed = false;
    }
  }
  if (parsed) {
    try {
      ok = ReadRule(check, root, sf.path, &rule);
    } catch (const YAML::Exception& e) {  // malformed structure yaml-cpp refuses to convert
      check.Error(e.mark, ProblemCode::kBadYaml, e.msg);
    }
  }
  if (ok) {
    if (is_lua) lua_file = &sf;  // a whole-Lua rule's code is its own file
    if (lua_too_large) ok = false;
    if (ok && lua_file) {
      rule.lua_file = lua_file->path;
      rule.lua_chunks.insert(rule.lua_chunks.begin(), LuaChunk{lua_file->path, lua_file->content});
    }
    bool refs = !rule.values_fn.name.empty() || !rule.score_fn.name.empty() ||
                std::any_of(rule.hypotheses.begin(), rule.hypotheses.end(),
                            [](const HypothesisSpec& h) { return !h.when.name.empty(); });
    if (ok && (rule.has_lua() || refs)) ok = lua.Validate(&rule);
  }
  part.ok = ok;
  if (ok) {
    std::vector<std::string> patterns;
    for (const Text& t : rule.patterns) patterns.push_back(t.value);
    part.atoms = PatternAtoms(patterns, Segmenter::IdleKeywords());  // answered from ReadRule's checks
  } else {
    rule = Rule();
  }
  return part;
}

// One rule file to read, with the Lua file beside it (ReadPart's arguments).
struct PartJob {
  const SourceFile* sf;
  const SourceFile* lua_file;
  bool lua_too_large;
};

// Note: [Parallel rule reading]
// With no usable cache (none at all, a new rule set, another program's cache) a load reads every rule
// file: ~285 M of the ~335 M instructions of a no-cache start with the bundled rules (2026-11-29,
// 472 rules). Reading a file depends on that file alone (ReadPart: its YAML, its patterns' checks, its
// Lua run in a fresh environment), so the files to read are shared out among threads, each with its
// own Lua check state (Note: [Shared check state] in lua_runtime.cc), each taking the next file from
// a counter, and the parts are kept by file, so everything after (the parts file, the problems and
// rules in file order, the cache entry) is what one thread makes, byte for byte. The threads:
// LoadOptions::threads, else TRIAGE_LOAD_THREADS (either at most kMaxAskedThreads), else the cores
// this process may run on (sched_getaffinity), at most kMaxLoadThreads and one per kFilesPerThread
// files to read, so an edit (one file) or a small rule directory is read on the calling thread
// alone. The CPU time is the same or a little more (each thread starts its own Lua state and malloc
// arena); the wall time falls where a core is idle, and where none is, a helper that gets no core
// takes no file (the counter hands files to whoever asks), so the load waits at most for the file a
// late helper took. Whatever ReadPart calls must stay safe to run on several threads at once (the
// function-local statics it reads are built once; RequiredLiterals' memo is behind a mutex; the atom
// and word memos are per thread). A thread that cannot be started leaves its share to the others.
// 2026-11-28 this ran with half the cores (one thread on 2 cores) and was withdrawn after its test
// failed under ASan: the test's memory hog met the Lua time limit on a busy machine (tests/bench/
// README.md "seventh pass"); the test's hog now fails at its first allocation.
constexpr int kMaxLoadThreads = 4;
constexpr size_t kFilesPerThread = 16;
constexpr size_t kMaxAskedThreads = 64;  // what LoadOptions::threads or the variable may ask for

size_t UsableCores() {
#ifdef CPU_COUNT
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<size_t>(std::max(CPU_COUNT(&set), 1));
#endif
  return std::max(std::thread::hardware_concurrency(), 1u);
}

int LoadThreads(int requested, size_t files) {
  if (requested <= 0) {
    if (const char* env = std::getenv("TRIAGE_LOAD_THREADS"); env && *env) requested = std::atoi(env);
  }
  if (requested > 0) {
    return static_cast<int>(std::min<size_t>({static_cast<size_t>(requested), std::max<size_t>(files, 1), kMaxAskedThreads}));
  }
  const size_t by_files = std::max<size_t>(files / kFilesPerThread, 1);
  return static_cast<int>(std::min<size_t>({UsableCores(), static_cast<size_t>(kMaxLoadThreads), by_files}));
}

// Reads jobs[which[k]] into (*out)[which[k]] for every k, on `threads` threads (the caller's among
// them), the Lua files checked in one Lua state per thread.
void ReadParts(const std::vector<PartJob>& jobs, const std::vector<size_t>& which, bool strict,
               const LuaLimits& limits, int threads, std::vector<RulePart>* out) {
  ShareOut(which.size(), threads, [&] {  // Note: [Shared work]
    // Each thread's own Lua check state; ReadPart points it at each part's problems.
    return [&, lua = std::make_shared<LuaChecker>(limits, strict, nullptr)](size_t k) {
      const PartJob& job = jobs[which[k]];
      (*out)[which[k]] = ReadPart(*job.sf, job.lua_file, job.lua_too_large, strict, *lua);
    };
  });
}

// The SHA-256 of one file's bytes. The whole-set key and each file's part key (Note: [Rule parts])
// both name a file by it, so a load that misses the set's entry hashes each file once, not twice.
std::string ContentDigest(std::string_view content) {
  Sha256 sha;
  sha.Add(content);
  return sha.HexDigest();
}

// The image noted before main (Note: [Bundled rule image] in rule_cache.h).
std::mutex& ImageMutex() {
  static std::mutex m;
  return m;
}
std::string_view& NotedImage() {
  static std::string_view image;
  return image;
}

// The part of a bundled file's path below the bundled directory, into *rel; false for a file from
// elsewhere, or one whose path does not begin with its directory's.
bool BelowBundledRoot(const SourceFile& f, std::string_view* rel) {
  if (f.origin != "bundled" || f.root.empty() || f.path.compare(0, f.root.size(), f.root) != 0) return false;
  *rel = std::string_view(f.path).substr(f.root.size());
  return true;
}

// What every image key holds: the version and the options that change validation (the program is the
// build's own: the image is made and read by it).
CacheKey ImageBase(bool strict, const LuaLimits& limits) {
  CacheKey key;
  key.Add(std::string_view("bundled rule image"));
  key.Add(std::string_view(TRIAGE_VERSION));
  key.Add(static_cast<std::uint64_t>(strict));
  key.Add(static_cast<std::uint64_t>(limits.memory_bytes));
  key.Add(static_cast<std::uint64_t>(limits.instructions));
  key.Add(static_cast<std::uint64_t>(limits.milliseconds));
  return key;
}

// Each file's content digest by path (ContentDigest), kept for the keys that name a file by it.
using Digests = std::map<std::string, std::string>;
const std::string& DigestOf(const SourceFile& f, const Digests& digests) {
  auto it = digests.find(f.path);
  if (it != digests.end()) return it->second;
  static const std::string kNone;
  return kNone;
}

// The key of the whole set an image serves (Note: [Bundled rule image]): "" unless every file is
// the bundled directory's, nothing is disabled and the search found no problem.
std::string ImageKey(const BuildInput& in, const Digests& digests) {
  if (in.files.empty() || !in.disable.empty() || !in.problems.empty()) return "";
  CacheKey key = ImageBase(in.strict, in.limits);
  key.Add(std::string_view("set"));
  key.Add(static_cast<std::uint64_t>(in.files.size()));
  std::string_view rel;
  for (const SourceFile& f : in.files) {
    const std::string& digest = DigestOf(f, digests);
    if (!BelowBundledRoot(f, &rel) || f.root != in.files[0].root || digest.empty()) return "";
    key.Add(rel);
    key.Add(static_cast<std::uint64_t>(f.layer));
    key.Add(digest);
  }
  key.Add(static_cast<std::uint64_t>(in.calibration.size()));
  for (const SourceFile& f : in.calibration) {
    if (!BelowBundledRoot(f, &rel) || f.root != in.files[0].root) return "";
    key.Add(rel);
    key.Add(f.content);
  }
  return key.Hex();
}

// Where the image's paths begin (`from`) and this load's (`to`): a path, which must begin with
// `from`, is made to begin with `to` instead. False for a path that does not (an image whose root
// does not name its own paths is not used).
bool Rebase(std::string* path, std::string_view from, std::string_view to) {
  if (path->empty()) return true;
  if (path->compare(0, from.size(), from) != 0) return false;
  if (from != to) path->replace(0, from.size(), to);
  return true;
}
bool RebaseRule(Rule* rule, std::string_view from, std::string_view to) {
  bool ok = Rebase(&rule->file, from, to) && Rebase(&rule->lua_file, from, to) && Rebase(&rule->overrides, from, to);
  for (LuaChunk& chunk : rule->lua_chunks) ok = ok && Rebase(&chunk.file, from, to);
  return ok;
}
bool RebaseParsed(ParsedRules* parsed, std::string_view from, std::string_view to) {
  bool ok = true;
  for (Rule& rule : parsed->rules) ok = ok && RebaseRule(&rule, from, to);
  for (DisabledRule& d : parsed->disabled) ok = ok && Rebase(&d.file, from, to);
  for (Problem& p : parsed->problems) ok = ok && Rebase(&p.file, from, to);
  return ok;
}

// The noted image, indexed; false when there is none or it does not index.
bool OpenImage(BundledImage* image) {
  const std::string_view bytes = NotedBundledRuleImage();
  return !bytes.empty() && IndexBundledImage(bytes, image);
}

// The whole set from the image when it serves `in` (Note: [Bundled rule image]), into *parsed (its
// texts left in the image when the load asks for that), its rules' paths this load's; *payload: the
// image's entry, *rebased: whether its paths were rewritten. False: the image does not serve it (or
// its entry does not read), and *parsed is untouched.
bool SetFromImage(const BuildInput& in, const Digests& digests, ParsedRules* parsed, std::string_view* payload = nullptr,
                  bool* rebased = nullptr) {
  BundledImage image;
  if (in.previous || in.files.empty() || !OpenImage(&image) || image.entry.empty()) return false;
  const std::string key = ImageKey(in, digests);
  if (key.empty() || key != image.key) return false;
  // The image's bytes live as long as the program (internal::NoteBundledRuleImage): nothing to hold.
  std::shared_ptr<const void> keep;
  if (in.texts_on_demand) keep = std::shared_ptr<const void>(std::shared_ptr<const void>(), image.entry.data());
  ParsedRules read;
  if (!ParseParsedRules(image.entry, &read, in.examples, std::move(keep))) return false;
  const std::string& root = in.files[0].root;
  if (!RebaseParsed(&read, image.root, root)) return false;
  if (payload) *payload = image.entry;
  if (rebased) *rebased = image.root != root;
  *parsed = std::move(read);
  return true;
}

// Note: [Rule parts]
// Editing one rule file changes the rule set's cache key, and a load that misses the whole-set entry
// used to parse every file again (~130 ms of CPU for the bundled rules, most of it yaml-cpp). What
// reading one file gives depends on that file alone (with its Lua file beside it) and on the program
// and the options that change validation, so each file's result is kept as a RulePart in the cache
// directory's parts file, under the SHA-256 of exactly those inputs (PartKey): a load that misses the
// whole-set entry reads only the files whose part is missing, then resolves (overrides, duplicate ids,
// `disable`) and compiles the whole set as before. A part is used only for a file whose inputs hash
// to its key, so a part built from other bytes (an edited file, another project's rules, a planted
// file) is never used; the parts file gets the same checks as an entry (Note: [Cache hardening]).
// Only the parts file's index is parsed up front, each part when its file asks for it, and a rewrite
// copies the unchanged parts' bytes (Note: [Parts file layout] in rule_cache.cc): a parts file full
// of other rule sets' parts (up to kMaxRuleParts) costs a load its bytes, not their parsing.
class PartCache {
 public:
  // `base`: the key's inputs shared by every file of the load (program, options); `dir`: the cache
  // directory ("" for none: every file is read).
  // `shipped`: the install's cache directory (Note: [Shipped rule cache]), whose parts are used too.
  // `digests`: each file's content digest by path (ContentDigests), shared with the whole-set key.
  // `image`: the bundled files' parts come from the noted image too (Note: [Bundled rule image] in
  // rule_cache.h); `record`: each part read that the image may hold is added to it (key and bytes).
  PartCache(const CacheKey& base, std::string dir, const std::string& shipped = "",
            const std::map<std::string, std::string>* digests = nullptr, bool image = false,
            std::vector<std::pair<std::string, std::string>>* record = nullptr)
      : base_(base), dir_(std::move(dir)), digests_(digests), record_(record) {
    if (image && OpenImage(&image_)) {
      image_keys_.reserve(image_.parts.size());
      for (size_t i = 0; i < image_.parts.size(); ++i) image_keys_.emplace(image_.parts[i].key, i);
    }
    if (dir_.empty()) return;
    // Only the index is parsed here (Note: [Parts file layout] in rule_cache.cc); a part when used.
    ReadRuleParts(dir_, &own_bytes_, &stored_);
    if (std::vector<StoredPart> more;
        !shipped.empty() && ReadRuleParts(shipped, &shipped_bytes_, &more, CacheOwner::kUserOrRoot)) {
      stored_.insert(stored_.end(), more.begin(), more.end());
    }
    by_key_.reserve(stored_.size());
    for (size_t i = 0; i < stored_.size(); ++i) by_key_.emplace(stored_[i].key, i);  // the first of a key wins
    used_.assign(stored_.size(), false);
  }

  // The part of each job's file, in order: from the parts file when it holds one for these very
  // inputs, else read now (on `threads` threads when there are enough to read, Note: [Parallel rule
  // reading]).
  std::vector<RulePart> GetAll(const std::vector<PartJob>& jobs, bool strict, const LuaLimits& limits, int threads) {
    std::vector<RulePart> out(jobs.size());
    image_base_ = ImageBase(strict, limits);
    std::vector<std::string> keys(jobs.size());
    std::vector<size_t> from(jobs.size(), kRead);  // index into stored_, or kRead
    std::vector<size_t> misses;
    for (size_t j = 0; j < jobs.size(); ++j) {
      if (!dir_.empty()) {
        keys[j] = PartKey(*jobs[j].sf, jobs[j].lua_file, jobs[j].lua_too_large);
        auto it = by_key_.find(keys[j]);
        if (it != by_key_.end() && !used_[it->second]) {
          used_[it->second] = true;  // used, or damaged: not written again either way
          if (ParseRulePart(stored_[it->second], &out[j])) {
            from[j] = it->second;
            continue;
          }
          out[j] = RulePart();
        }
      }
      if (!image_keys_.empty()) {  // Note: [Bundled rule image]
        const std::string key = ImagePartKey(jobs[j]);
        auto it = key.empty() ? image_keys_.end() : image_keys_.find(key);
        if (it != image_keys_.end() && ParseRulePart(image_.parts[it->second], &out[j]) && out[j].problems.empty() &&
            RebaseRule(&out[j].rule, image_.root, jobs[j].sf->root)) {
          from[j] = kImage;
          continue;
        }
        out[j] = RulePart();
      }
      misses.push_back(j);
    }
    ReadParts(jobs, misses, strict, limits, LoadThreads(threads, misses.size()), &out);
    if (record_) {  // each part the image may hold (no problem: its messages may name paths)
      for (size_t j : misses) {
        if (!out[j].ok || !out[j].problems.empty()) continue;
        RulePart part = out[j];
        part.key = ImagePartKey(jobs[j]);
        if (!part.key.empty()) record_->push_back({part.key, SerializeRulePart(part)});
      }
    }
    if (dir_.empty()) return out;
    for (size_t j = 0; j < jobs.size(); ++j) {  // this load's parts in file order
      if (from[j] != kRead && from[j] != kImage) {
        current_.push_back(stored_[from[j]]);
        continue;
      }
      out[j].key = keys[j];
      fresh_.push_back({out[j].key, SerializeRulePart(out[j])});
      current_.push_back({fresh_.back().first, fresh_.back().second});
    }
    return out;
  }

  // Writes the parts file when this load read a file afresh: this load's parts, then the earlier
  // ones it did not use (another rule set's), up to kMaxRuleParts; the parts it took from the file are
  // written as they were read, not serialised again.
  void Save() {
    if (dir_.empty() || fresh_.empty()) return;
    for (size_t i = 0; i < stored_.size() && current_.size() < kMaxRuleParts; ++i) {
      if (!used_[i]) current_.push_back(stored_[i]);
    }
    WriteRuleParts(dir_, current_);
  }

 private:
  std::string PartKey(const SourceFile& sf, const SourceFile* lua_file, bool lua_too_large) const {
    CacheKey key = base_;
    key.Add(std::string_view(IsLuaFile(sf.path) ? "lua rule" : "yaml rule"));
    key.Add(sf.path);
    key.Add(Digest(sf));
    key.Add(static_cast<std::uint64_t>(lua_file != nullptr));
    if (lua_file) {
      key.Add(lua_file->path);
      key.Add(Digest(*lua_file));
    }
    key.Add(static_cast<std::uint64_t>(lua_too_large));
    return key.Hex();
  }

  // A bundled file's key in the image (Note: [Bundled rule image]): as PartKey, with the image's
  // base and the paths below the bundled directory; "" for a file from elsewhere.
  std::string ImagePartKey(const PartJob& job) const {
    std::string_view rel, lua_rel;
    if (!BelowBundledRoot(*job.sf, &rel) || (job.lua_file && !BelowBundledRoot(*job.lua_file, &lua_rel))) return "";
    CacheKey key = image_base_;
    key.Add(std::string_view(IsLuaFile(job.sf->path) ? "lua rule" : "yaml rule"));
    key.Add(rel);
    key.Add(Digest(*job.sf));
    key.Add(static_cast<std::uint64_t>(job.lua_file != nullptr));
    if (job.lua_file) {
      key.Add(lua_rel);
      key.Add(Digest(*job.lua_file));
    }
    key.Add(static_cast<std::uint64_t>(job.lua_too_large));
    return key.Hex();
  }

  std::string Digest(const SourceFile& sf) const {
    if (digests_) {
      auto it = digests_->find(sf.path);
      if (it != digests_->end()) return it->second;
    }
    return ContentDigest(sf.content);
  }

  static constexpr size_t kRead = ~size_t{0};      // GetAll: a part read afresh
  static constexpr size_t kImage = ~size_t{0} - 1;  // GetAll: a part from the image
  CacheKey base_;
  std::string dir_;
  const std::map<std::string, std::string>* digests_;
  std::vector<std::pair<std::string, std::string>>* record_;
  BundledImage image_;
  std::unordered_map<std::string_view, size_t> image_keys_;
  CacheKey image_base_;
  MappedCacheFile own_bytes_, shipped_bytes_;  // the parts files mapped: stored_ views them
  std::vector<StoredPart> stored_;
  std::unordered_map<std::string_view, size_t> by_key_;
  std::vector<bool> used_;
  std::deque<std::pair<std::string, std::string>> fresh_;  // key and bytes of each part read afresh
  std::vector<StoredPart> current_;                        // this load's parts, in order
};

// Parses, validates and resolves every rule file: everything a load does before compiling, and what
// the rule cache stores (Note: [Rule cache]); each file's reading through `parts` (Note: [Rule parts]).
ParsedRules ParseAll(BuildInput& in, PartCache& parts) {
  std::vector<Problem>& problems = in.problems;
  auto set = std::make_shared<RuleSet>();
  // Per rule of set->rules: its patterns' required literals.
  std::vector<std::vector<std::optional<std::vector<std::string>>>> rule_atoms;
  std::map<std::string, std::pair<int, int>> by_id;  // id -> (index in set->rules, layer)
  // A .lua file belongs to the YAML rule with the same path stem; an unpaired one is a whole-Lua rule.
  std::map<std::string, const SourceFile*> lua_by_stem;
  std::set<std::string> yaml_stems;
  std::vector<std::string> stems;  // of each file of in.files
  stems.reserve(in.files.size());
  for (const SourceFile& sf : in.files) {
    stems.push_back(StemOf(sf.path));
    if (IsLuaFile(sf.path)) lua_by_stem[stems.back()] = &sf;
    else yaml_stems.insert(stems.back());
  }
  std::set<std::string> too_large;
  for (const SourceFile& sf : in.files) {
    if (sf.content.size() <= kMaxRuleFileBytes) continue;
    too_large.insert(sf.path);
    AddProblem(&problems, Problem::Severity::kError, ProblemCode::kFileTooLarge, sf.path, 0, 0, "",
               "rule file is larger than " + std::to_string(kMaxRuleFileBytes >> 20) + " MiB");
  }
  std::vector<PartJob> jobs;
  for (size_t f = 0; f < in.files.size(); ++f) {
    const SourceFile& sf = in.files[f];
    const bool is_lua = IsLuaFile(sf.path);
    if (is_lua && yaml_stems.count(stems[f])) continue;  // read with its YAML
    if (too_large.count(sf.path)) continue;
    const SourceFile* lua_file = nullptr;
    if (!is_lua) {
      auto it = lua_by_stem.find(stems[f]);
      if (it != lua_by_stem.end()) lua_file = it->second;
    }
    jobs.push_back({&sf, lua_file, lua_file && too_large.count(lua_file->path)});
  }
  std::vector<RulePart> read = parts.GetAll(jobs, in.strict, in.limits, in.threads);
  set->rules.reserve(jobs.size());  // (a Rule is ~840 bytes: moved once, not again at each growth)
  rule_atoms.reserve(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    const SourceFile& sf = *jobs[j].sf;
    RulePart part = std::move(read[j]);
    problems.insert(problems.end(), std::make_move_iterator(part.problems.begin()),
                    std::make_move_iterator(part.problems.end()));
    Rule rule = std::move(part.rule);
    std::vector<std::optional<std::vector<std::string>>> atoms = std::move(part.atoms);
    if (!part.ok) {
      // Hot reload: a file that used to load keeps its last good rule (Note: [Rule reload]).
      const Rule* old = nullptr;
      if (in.previous) {
        for (size_t i = 0; i < in.previous->rules.size(); ++i) {
          const Rule& r = in.previous->rules[i];
          if (r.file == sf.path || (!r.lua_file.empty() && r.lua_file == sf.path)) old = &in.previous->Full(static_cast<int>(i));
        }
      }
      if (!old) continue;
      rule = *old;
      std::vector<std::string> patterns;
      for (const Text& t : rule.patterns) patterns.push_back(t.value);
      atoms = PatternAtoms(patterns, Segmenter::IdleKeywords());
      AddProblem(&problems, Problem::Severity::kWarning, ProblemCode::kKeptPrevious, sf.path, 0, 0, rule.id,
                 "this file has errors: the previously loaded version of the rule stays in use");
    }
    rule.origin = sf.origin;
    auto it = by_id.find(rule.id);
    if (it != by_id.end()) {
      Rule& old = set->rules[it->second.first];
      if (it->second.second == sf.layer) {
        const SourcePos here = IdPosition(sf.content), there = IdPosition(ContentOf(in.files, old.file));
        AddProblem(&problems, Problem::Severity::kError, ProblemCode::kDuplicateId, sf.path, here.line, here.column,
                   rule.id, "rule id '" + rule.id + "' is already defined at " + old.file + ":" +
                                std::to_string(there.line) + ":" + std::to_string(there.column));
        continue;
      }
      rule.overrides = old.file;
      old = std::move(rule);
      rule_atoms[it->second.first] = std::move(atoms);
      it->second.second = sf.layer;
      continue;
    }
    by_id[rule.id] = {static_cast<int>(set->rules.size()), sf.layer};
    set->rules.push_back(std::move(rule));
    rule_atoms.push_back(std::move(atoms));
  }

  // Configuration may leave rules out by id; the first source that names an id is reported.
  if (!in.disable.empty()) {
    std::map<std::string, std::string> off;
    for (const auto& [id, by] : in.disable) off.emplace(id, by);
    std::vector<Rule> kept;
    std::vector<std::vector<std::optional<std::vector<std::string>>>> kept_atoms;
    for (size_t r = 0; r < set->rules.size(); ++r) {
      Rule& rule = set->rules[r];
      auto it = off.find(rule.id);
      if (it == off.end()) {
        kept.push_back(std::move(rule));
        kept_atoms.push_back(std::move(rule_atoms[r]));
        continue;
      }
      set->disabled.push_back({rule.id, rule.file, it->second});
      off.erase(it);
    }
    for (const auto& [id, by] : off) {
      AddProblem(&problems, Problem::Severity::kWarning, ProblemCode::kUnknownDisable, by.find('/') != std::string::npos ? by : "",
                 0, 0, id, "'" + id + "' is disabled by " + by + " but no loaded rule has that id");
    }
    set->rules = std::move(kept);
    rule_atoms = std::move(kept_atoms);
  }

  ParsedRules parsed;
  parsed.rules = std::move(set->rules);
  parsed.disabled = std::move(set->disabled);
  parsed.problems = std::move(problems);
  for (auto& atoms : rule_atoms) {
    for (auto& a : atoms) parsed.atoms.push_back(std::move(a));
  }
  return parsed;
}

// Note: [Calibration map]: the last directory in search order that has a calibration.yaml provides the
// map; a broken one is an error and leaves confidences uncalibrated. Its knots are cached with the
// rules (its path and bytes are in the key): parsing it took yaml-cpp ~1.6 M instructions a start.
void ParseCalibration(const std::vector<SourceFile>& files, ParsedRules* parsed) {
  if (files.empty()) return;
  const SourceFile& f = files.back();
  CalibrationMap map;
  std::string error;
  int line = 0;
  if (!CalibrationMap::Parse(f.content, &map, &error, &line)) {
    AddProblem(&parsed->problems, Problem::Severity::kError, ProblemCode::kBadCalibration, f.path, line, 0, "", error);
    return;
  }
  parsed->calibrated = true;
  parsed->calibration = map.Flat();
}

// The search-path entries other than the bundled rules that hold at least one of `rules`, in search
// order, each with its origin (Report::rule_sources).
std::vector<RuleSource> ExtraSources(const std::vector<Rule>& rules, const std::vector<SourceFile>& files) {
  std::vector<RuleSource> out;
  for (const SourceFile& f : files) {
    if (f.origin == "bundled" || f.origin == "memory" || f.root.empty()) continue;
    if (std::any_of(out.begin(), out.end(), [&](const RuleSource& s) { return s.dir == f.root; })) continue;
    bool used = std::any_of(rules.begin(), rules.end(), [&](const Rule& r) { return r.file == f.path || r.lua_file == f.path; });
    if (used) out.push_back({f.root, f.origin});
  }
  return out;
}

// Every pattern of the set's rules in rule order, then pattern order (CompilePatternSet's order), with
// its own regex, and each rule's context regex.
void ListPatterns(RuleSet* set) {
  for (int r = 0; r < static_cast<int>(set->rules.size()); ++r) {
    const Rule& rule = set->rules[r];
    for (int p = 0; p < static_cast<int>(rule.patterns.size()); ++p) {
      set->patterns.push_back({r, p});
      set->regexes.push_back(std::make_unique<LazyRegex>(rule.patterns[p].value));
    }
    set->contexts.push_back(rule.context.value.empty() ? nullptr : std::make_unique<LazyRegex>(rule.context.value));
  }
}

// Compiles the pattern set of `rules` now (Note: [Pattern set]): a set RE2 cannot compile is reported
// with the load's problems (and cached with them).
size_t CountPatterns(const std::vector<Rule>& rules) {
  size_t n = 0;
  for (const Rule& r : rules) n += r.patterns.size();
  return n;
}

std::unique_ptr<RE2::Set> CompileSetNow(const std::vector<Rule>& rules, std::vector<Problem>* problems) {
  if (std::all_of(rules.begin(), rules.end(), [](const Rule& r) { return r.patterns.empty(); })) return nullptr;
  std::unique_ptr<RE2::Set> set = CompilePatternSet(rules);
  if (!set) {
    AddProblem(problems, Problem::Severity::kWarning, ProblemCode::kCompileFailed, "", 0, 0, "",
               "the " + std::to_string(CountPatterns(rules)) +
                   " rule patterns do not compile into one RE2 set (over its 64 MiB); every rule still "
                   "matches, each pattern by its own regex: slower where many lines reach the rules");
  }
  return set;
}

// Note: [Set size bound]
// A load that parsed rule files compiled the RE2::Set at once so that a set RE2 refuses is reported
// (compile-failed, Note: [Pattern set]): ~100 M instructions, a twentieth of a start with no cache,
// for a failure that needs thousands of patterns. The check has each pattern's program size alone
// (Rule::pattern_programs, kept in the rule parts and the cache entry; for most patterns an upper bound
// counted from the text, Note: [Program size bound], which only makes the sum larger), and the set's
// program is at most about their sum (RE2 compiles the alternation of the same regexps, sharing common prefixes):
// RE2 refused sets of the make_rulesets.py variants only past a sum of ~640,000-950,000 instructions
// (64 MiB; 1000 rules, 1961 patterns, sum 152,000, and the bundled rules' ~48,000 compile). Below
// kSurelyCompiles, with every size known, the set waits for its first need as on a cache hit; else it is
// compiled at once as before. kSurelyCompiles was 200,000 (over 3x under the refusals) until the bundled
// rules' own sum passed it on 2026-11-30 (batch 2026-11-30c-kb-libdata's seven data-library rules: any two
// of them over the rest; PatternSet.AWarmLoadDiagnosesAShortLogWithoutCompilingTheSet caught it); 300,000
// is still over 2x under the least sum RE2 refused. Were the bound ever wrong, no result would change: a set that fails later is the fallback
// Match already takes (each candidate's own regex), only the warning would be missing.
constexpr std::int64_t kSurelyCompiles = 300000;

// True when `pattern` starts with '^' after any group openings and flags ("(", "(?:", "(?i)", "(?i:").
bool StartsWithCaret(const std::string& pattern) {
  size_t i = 0;
  while (i < pattern.size() && pattern[i] == '(') {
    ++i;
    if (i < pattern.size() && pattern[i] == '?') {
      ++i;
      while (i < pattern.size() && (IsAsciiAlpha(pattern[i]) || pattern[i] == '-')) ++i;
      if (i < pattern.size() && (pattern[i] == ':' || pattern[i] == ')')) ++i;
    }
  }
  return i < pattern.size() && pattern[i] == '^';
}

bool SetSurelyCompiles(const std::vector<Rule>& rules) {
  std::int64_t total = 0;
  for (const Rule& r : rules) {
    if (r.pattern_programs.size() != r.patterns.size()) return false;
    for (size_t i = 0; i < r.patterns.size(); ++i) {
      if (r.pattern_programs[i] < 0) return false;
      // A little for the set's own instructions per pattern, and for a pattern that starts with '^'
      // (after its groups' openings and flags) the literal prefix RE2 keeps out of its program alone (RE2::RequiredPrefix),
      // at most its text twice.
      const std::string& text = r.patterns[i].value;
      const bool anchored = StartsWithCaret(text);
      total += r.pattern_programs[i] + 8 + (anchored ? 2 * static_cast<std::int64_t>(text.size()) : 0);
    }
  }
  return total <= kSurelyCompiles;
}

// Compiles parsed rules: the patterns (their RE2::Set, individual regexes on first use), the line
// prefilter (from the cached required literals when there are any), the Lua runtime. `compiled`: the
// pattern set CompileSetNow made for these rules (null: it failed); absent on a cache hit, where the
// set is compiled at its first need (Note: [Pattern set]).
LoadResult Compile(ParsedRules parsed, const BuildInput& in, std::optional<std::unique_ptr<RE2::Set>> compiled) {
  const LuaLimits& limits = in.limits;
  auto set = std::make_shared<RuleSet>();
  set->rules = std::move(parsed.rules);
  set->DeferTexts(std::move(parsed.deferred));  // Note: [Texts on demand]
  set->sources = ExtraSources(set->rules, in.files);
  set->cache_dir = in.cache_dir;
  set->disabled = std::move(parsed.disabled);
  std::vector<Problem> problems = std::move(parsed.problems);
  if (!set->rules.empty()) {
    ListPatterns(set.get());
    if (compiled) {
      set->SetCompiled(std::move(*compiled));
    } else if (std::any_of(problems.begin(), problems.end(), [](const Problem& p) {
                 return p.code == ProblemCodeName(ProblemCode::kCompileFailed);
               })) {
      set->SetCompiled(nullptr);  // the load that made the cache entry could not compile it
    }
    std::vector<std::string> patterns;
    patterns.reserve(set->patterns.size());
    for (const RuleSet::PatternRef& ref : set->patterns) patterns.push_back(set->rules[ref.rule].patterns[ref.pattern].value);
    if (parsed.atoms.size() != patterns.size()) {  // not cached (or not for these patterns): the plan neither
      parsed.atoms = PatternAtoms(patterns, Segmenter::IdleKeywords());
      parsed.plan = PrefilterPlan();
    }
    // A plan made here (none cached) shares its work among the threads a read of the files takes
    // (Note: [Cover on the load's threads] in line_scanner.cc); a cached plan needs none.
    const int plan_threads = parsed.plan.keywords.empty() ? LoadThreads(in.threads, in.files.size()) : 1;
    for (size_t p = 0; p < parsed.atoms.size(); ++p) {
      const auto& atoms = parsed.atoms[p];
      if (atoms && std::any_of(atoms->begin(), atoms->end(),
                               [](const std::string& a) { return a.find('\n') != std::string::npos; })) {
        set->newline_patterns.push_back(static_cast<int>(p));
      }
    }
    // (The atoms go to the prefilter: its literals are made of their strings.)
    set->prefilter = BuildLinePrefilter(std::move(patterns), std::move(parsed.atoms), Segmenter::IdleKeywords(),
                                        std::move(parsed.plan), plan_threads);
  }
  if (std::any_of(set->rules.begin(), set->rules.end(), [](const Rule& r) { return r.has_lua(); })) {
    set->lua = std::make_shared<LuaRuntime>(set.get(), limits);
  }
  if (parsed.calibrated) {
    auto map = std::make_shared<CalibrationMap>();
    if (CalibrationMap::FromFlat(parsed.calibration, map.get())) set->calibration = std::move(map);
  }
  LoadResult result;
  result.rules = std::move(set);
  result.problems = std::move(problems);
  return result;
}

// The identity of the running program: a rebuilt binary may parse rules differently, so its cache
// entries must not be reused (Note: [Rule cache]).
void AddProgramIdentity(CacheKey* key) {
  struct stat st;  // one stat(2): its size and modification time
  const bool ok = ::stat("/proc/self/exe", &st) == 0;
  key->Add(ok ? static_cast<std::uint64_t>(st.st_size) : 0);
  key->Add(ok ? static_cast<std::uint64_t>(st.st_mtim.tv_sec) * 1000000000 + static_cast<std::uint64_t>(st.st_mtim.tv_nsec) : 0);
  key->Add(std::string_view(TRIAGE_VERSION));
}

// Note: [Rule file stamps]
// Hashing every rule file's bytes for the cache key means reading ~260 files on every start (~1000
// system calls and the digest of ~0.9 MB). A start first lists the rule files and stat(2)s them
// instead (StampProbe): the stamp key hashes what the content key hashes except that each file's
// bytes are replaced by its stamp (device, inode, size, modification and status-change times in ns).
// The cache directory's stamp index for that key names the content key of the entry built from those
// files, and a hit loads that entry without reading a rule file. Any change to a stamp (an edit, a
// file replaced by a rename, a `touch`, a restored mtime, which still moves the status-change time)
// is a miss, and the load reads and hashes the files as before. As git does for its index, a stamp
// is not trusted for changes within the file system's timestamp granularity: an index is written
// only when every file's modification and status-change times are more than kSettleNs before the
// listing began, and each file's stamp when it was read (fstat of the open file, before reading)
// equals its stamp in the listing, so an edit made after the listing always changes a stamp; a file
// edited in the last two seconds costs its next start the read and the digest, not correctness.
// What this does not catch: a file whose bytes change while every stamp field stays the same, which
// takes writing through a raw device, or a clock set back by the granularity between two edits of
// the same size (a network file system whose server clock lags the client's). TRIAGE_NO_CACHE=1
// turns every cache off.
constexpr std::int64_t kSettleNs = 2'000'000'000;

// The stat-only listing of a load's sources and what it keys (Note: [Rule file stamps]).
struct StampProbe {
  BuildInput in;                // the sources without their rule files' bytes
  std::string stamp_key;        // "" when some file could not be stat'ed
  std::string records;          // what the stamp index must hold (Note: [Stamp records compared])
  bool settled = false;         // every file is older than the listing by kSettleNs
};

// The key inputs shared by every file of the load: the program and the options that change validation.
CacheKey BaseKey(const BuildInput& in) {
  CacheKey base;
  AddProgramIdentity(&base);
  base.Add(static_cast<std::uint64_t>(in.strict));
  base.Add(static_cast<std::uint64_t>(in.limits.memory_bytes));
  base.Add(static_cast<std::uint64_t>(in.limits.instructions));
  base.Add(static_cast<std::uint64_t>(in.limits.milliseconds));
  return base;
}

// The whole-set key's inputs other than the rule files themselves.
void AddLoadInputs(const BuildInput& in, CacheKey* key) {
  for (const auto& [id, by] : in.disable) {
    key->Add(id);
    key->Add(by);
  }
  for (const Problem& p : in.problems) key->Add(p.ToString());
}

StampProbe ProbeStamps(const LoadOptions& options) {
  StampProbe probe;
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const std::int64_t listed_ns = static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
  probe.in.strict = options.strict;
  probe.in.limits = options.lua;
  CollectSources(options, &probe.in.files, &probe.in.disable, &probe.in.calibration, &probe.in.problems,
                 /*contents=*/false);
  CacheKey key = BaseKey(probe.in);
  key.Add(std::string_view("stamp records compared"));
  AddLoadInputs(probe.in, &key);
  probe.settled = true;
  // Note: [Stamp records]: the files' records in one buffer, compared at once (Note: [Stamp records
  // compared] below; hashed into the key before). A file's layer, origin
  // and root are written when they differ from the file before's (a search-path entry's files are
  // listed together), then its path (below the root when it begins with it) and its stamp: what the
  // key hashed before (each file's path, origin, layer, root and stamp), in about half the bytes; the
  // tags and length prefixes keep it one reading only.
  // Note: [Stamp records compared]
  // The key hashed every file's record (~60 KB for the bundled rules' ~720 files): ~3.9 M of a warm
  // start's instructions where SHA-256 runs its portable rounds (a CPU without the SHA extensions, and
  // valgrind, which hides them). Now the stamp key hashes what selects the files (the program, the
  // options, the search path's roots: the 'R' records, the calibration files) and the index holds
  // the records themselves, which a start compares byte for byte with its own (ReadStampIndex): an
  // exact match where the hash was a digest of the same bytes. One index a search path and set of
  // options, as any change of a stamp was a new key before whose index was of no more use.
  std::string records;
  std::string roots;  // the 'R' records alone
  records.reserve(probe.in.files.size() * 80);
  auto u64 = [&records](std::uint64_t v) {
    char le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    records.append(le, sizeof le);
  };
  auto text = [&](std::string_view t) {
    u64(t.size());
    records.append(t);
  };
  const SourceFile* before = nullptr;
  for (const SourceFile& f : probe.in.files) {
    if (!f.stamped) return probe;  // the full load reports it
    if (before == nullptr || f.layer != before->layer || f.origin != before->origin || f.root != before->root) {
      const size_t from = records.size();
      records += 'R';
      u64(static_cast<std::uint64_t>(f.layer));
      text(f.origin);
      text(f.root);
      roots.append(records, from, std::string::npos);
    }
    before = &f;
    std::string_view path = f.path;
    const bool below = !f.root.empty() && path.size() > f.root.size() && path.compare(0, f.root.size(), f.root) == 0;
    records += below ? 'F' : 'P';
    text(below ? path.substr(f.root.size()) : path);
    for (std::uint64_t v : {f.stamp.dev, f.stamp.ino, f.stamp.size, static_cast<std::uint64_t>(f.stamp.mtime_ns),
                            static_cast<std::uint64_t>(f.stamp.ctime_ns)}) {
      u64(v);
    }
    probe.settled = probe.settled && f.stamp.mtime_ns < listed_ns - kSettleNs && f.stamp.ctime_ns < listed_ns - kSettleNs;
  }
  key.Add(roots);
  for (const SourceFile& f : probe.in.calibration) {
    key.Add(f.path);
    key.Add(f.content);
  }
  probe.stamp_key = key.Hex();
  probe.records = std::move(records);
  return probe;
}

// True when `files` (read) are the files `probe` listed, each with the stamp it was listed with.
bool SameStamps(const StampProbe& probe, const std::vector<SourceFile>& files) {
  if (probe.in.files.size() != files.size()) return false;
  for (size_t i = 0; i < files.size(); ++i) {
    const SourceFile& a = probe.in.files[i];
    const SourceFile& b = files[i];
    if (a.path != b.path || a.layer != b.layer || !b.stamped || !(a.stamp == b.stamp)) return false;
  }
  return true;
}

// The key of the pattern list `rules` make (Note: [Compiled pattern sets]): what compiling their
// RE2::Set depends on.
std::string PatternSetKey(const CacheKey& base, const std::vector<Rule>& rules) {
  CacheKey key = base;
  key.Add(std::string_view("pattern set"));
  for (const Rule& rule : rules) {
    for (const Text& pattern : rule.patterns) key.Add(pattern.value);
  }
  return key.Hex();
}

// The key of the prefilter plan made from `atoms` (Note: [Reused prefilter plan] in rule_cache.h):
// the program and options (`base`), the idle keywords, and every pattern's required literals in order.
std::string PlanKey(const CacheKey& base, const std::vector<std::optional<std::vector<std::string>>>& atoms) {
  CacheKey key = base;
  key.Add(std::string_view("prefilter plan"));
  for (const std::string& k : Segmenter::IdleKeywords()) key.Add(k);
  key.Add(static_cast<std::uint64_t>(atoms.size()));
  for (const auto& a : atoms) {
    key.Add(static_cast<std::uint64_t>(a ? a->size() + 1 : 0));  // 0: no literals (the slow path)
    if (a) {
      for (const std::string& literal : *a) key.Add(literal);
    }
  }
  return key.Hex();
}

// `probe`: the stamp listing made before `in` was collected (null: none), whose index is written for
// the content key when its files did not change since (Note: [Rule file stamps]).
LoadResult Build(BuildInput in, const std::string& cache_dir = "", const StampProbe* probe = nullptr) {
  // Reloads keep the previous version of broken rules, which depends on more than the files: no cache.
  if (cache_dir.empty() || in.previous) {
    // Note: [Bundled rule image]: the set, or the bundled files' parts, from the build's image.
    Digests digests;
    if (!NotedBundledRuleImage().empty() &&
        std::any_of(in.files.begin(), in.files.end(), [](const SourceFile& f) { return f.origin == "bundled"; })) {
      for (const SourceFile& f : in.files) digests[f.path] = ContentDigest(f.content);
    }
    if (ParsedRules from_image; SetFromImage(in, digests, &from_image)) {
      return Compile(std::move(from_image), in, std::nullopt);
    }
    PartCache no_parts(CacheKey(), "", "", &digests, /*image=*/true);
    ParsedRules parsed = ParseAll(in, no_parts);
    // Note: [Set size bound]
    std::optional<std::unique_ptr<RE2::Set>> compiled;
    if (!SetSurelyCompiles(parsed.rules)) compiled = CompileSetNow(parsed.rules, &parsed.problems);
    ParseCalibration(in.calibration, &parsed);
    return Compile(std::move(parsed), in, std::move(compiled));
  }
  // What every file's reading depends on besides the file (Note: [Rule parts]).
  const CacheKey base = BaseKey(in);
  CacheKey key = base;
  AddLoadInputs(in, &key);
  std::map<std::string, std::string> digests;
  for (const SourceFile& f : in.files) {
    const std::string& digest = digests[f.path] = ContentDigest(f.content);
    key.Add(f.path);
    key.Add(f.origin);
    key.Add(static_cast<std::uint64_t>(f.layer));
    key.Add(digest);
  }
  key.Add(std::string_view("calibration"));
  for (const SourceFile& f : in.calibration) {
    key.Add(f.path);
    key.Add(f.content);
  }
  const std::string content_key = key.Hex();
  if (probe && !probe->stamp_key.empty() && probe->settled && SameStamps(*probe, in.files)) {
    WriteStampIndex(cache_dir, probe->stamp_key, probe->records, content_key);  // an entry follows under content_key
  }
  ParsedRules parsed;
  if (ReadRuleCache(cache_dir, content_key, &parsed, CacheOwner::kUser, in.examples, in.texts_on_demand)) {
    return Compile(std::move(parsed), in, std::nullopt);
  }
  // A fresh install's first run: the entry `cmake --install` made (Note: [Shipped rule cache]).
  const std::string shipped = ShippedRuleCacheDir();
  // Read as an own entry is (texts left in it), and not copied: the stamp index written above names
  // it, and a later start reads it from the install (LoadRulesKeeping).
  if (!shipped.empty() && shipped != cache_dir &&
      ReadRuleCache(shipped, content_key, &parsed, CacheOwner::kUserOrRoot, in.examples, in.texts_on_demand)) {
    return Compile(std::move(parsed), in, std::nullopt);
  }
  // The build's image (Note: [Bundled rule image] in rule_cache.h); its entry is written as this
  // directory's, with this load's paths.
  std::string_view payload;
  bool rebased = false;
  if (SetFromImage(in, digests, &parsed, &payload, &rebased)) {
    if (!rebased) {
      WriteRuleCacheBytes(cache_dir, content_key, payload);
    } else if (ParsedRules full; ParseParsedRules(payload, &full)) {
      BundledImage image;
      if (OpenImage(&image) && RebaseParsed(&full, image.root, in.files[0].root)) {
        WriteRuleCache(cache_dir, content_key, full);
      }
    }
    return Compile(std::move(parsed), in, std::nullopt);
  }
  PartCache parts(base, cache_dir, shipped != cache_dir ? shipped : "", &digests, /*image=*/true);
  parsed = ParseAll(in, parts);
  parts.Save();
  // The set is compiled now unless the same patterns compiled before (Note: [Compiled pattern sets])
  // or their sizes bound it far below what RE2 refuses (Note: [Set size bound]).
  std::optional<std::unique_ptr<RE2::Set>> compiled;
  const std::string set_key = PatternSetKey(base, parsed.rules);
  if (!SetSurelyCompiles(parsed.rules) && !KnownPatternSet(cache_dir, set_key)) {
    compiled = CompileSetNow(parsed.rules, &parsed.problems);
    if (*compiled) RecordPatternSet(cache_dir, set_key);
  }
  ParseCalibration(in.calibration, &parsed);
  // Store the required literals (ParseAll's) and the prefilter's plan too: computing them is a fifth
  // of a cold load, and most of a warm one. The plan of the same literals is kept across edits (Note:
  // [Reused prefilter plan] in rule_cache.h).
  const std::string plan_key = PlanKey(base, parsed.atoms);
  if (!ReadPrefilterPlan(cache_dir, plan_key, &parsed.plan)) {
    parsed.plan = PlanLinePrefilter(parsed.atoms, Segmenter::IdleKeywords(), true, LoadThreads(in.threads, in.files.size()));
    WritePrefilterPlan(cache_dir, plan_key, parsed.plan);
  }
  WriteRuleCache(cache_dir, content_key, parsed);
  return Compile(std::move(parsed), in, std::move(compiled));
}

}  // namespace

LoadResult LoadRulesKeeping(const LoadOptions& options, const RuleSet* previous) {
  std::string cache_dir;
  if (options.cache) cache_dir = options.cache_dir.empty() ? DefaultRuleCacheDir() : options.cache_dir;
  // Note: [Rule file stamps]: unchanged files are not read at all.
  std::optional<StampProbe> probe;
  if (!cache_dir.empty() && !previous) {
    probe = ProbeStamps(options);
    std::string content_key;
    ParsedRules parsed;
    // The entry is this user's, or the install's (Note: [Shipped rule cache]): a first run after an
    // install finds the shipped stamp index, and a later one the index it wrote itself naming the
    // shipped entry, which is not copied.
    const std::string shipped = ShippedRuleCacheDir();
    const bool use_shipped = !shipped.empty() && shipped != cache_dir;
    auto entry = [&](const std::string& key) {
      return ReadRuleCache(cache_dir, key, &parsed, CacheOwner::kUser, options.examples, options.texts_on_demand) ||
             (use_shipped && ReadRuleCache(shipped, key, &parsed, CacheOwner::kUserOrRoot, options.examples,
                                           options.texts_on_demand));
    };
    if (!probe->stamp_key.empty() &&
        ((ReadStampIndex(cache_dir, probe->stamp_key, probe->records, &content_key) && entry(content_key)) ||
         (use_shipped && ReadStampIndex(shipped, probe->stamp_key, probe->records, &content_key, CacheOwner::kUserOrRoot) &&
          entry(content_key)))) {
      probe->in.cache_dir = cache_dir;
      return Compile(std::move(parsed), probe->in, std::nullopt);
    }
  }
  BuildInput in;
  in.strict = options.strict;
  in.limits = options.lua;
  in.threads = options.threads;
  in.previous = previous;
  in.examples = options.examples;
  in.texts_on_demand = options.texts_on_demand;
  in.cache_dir = cache_dir;
  CollectSources(options, &in.files, &in.disable, &in.calibration, &in.problems);
  return Build(std::move(in), cache_dir, probe ? &*probe : nullptr);
}

LoadResult LoadRules(const LoadOptions& options) { return LoadRulesKeeping(options, nullptr); }

std::string_view NotedBundledRuleImage() {
  std::lock_guard<std::mutex> lock(ImageMutex());
  return NotedImage();
}

namespace internal {
bool NoteBundledRuleImage(const char* bytes, std::size_t size) {
  std::lock_guard<std::mutex> lock(ImageMutex());
  NotedImage() = bytes == nullptr ? std::string_view() : std::string_view(bytes, size);
  return true;
}
}  // namespace internal

std::string MakeBundledRuleImage() {
  LoadOptions options;
  options.env_path = options.system = options.user = options.project = false;
  BuildInput in;
  in.strict = options.strict;
  in.limits = options.lua;
  CollectSources(options, &in.files, &in.disable, &in.calibration, &in.problems);
  Digests digests;
  for (const SourceFile& f : in.files) digests[f.path] = ContentDigest(f.content);
  const std::string key = ImageKey(in, digests);
  if (key.empty()) return "";
  // What a load with no cache makes (Build), the plan too, as a cache entry holds it.
  std::vector<std::pair<std::string, std::string>> recorded;
  PartCache recorder(CacheKey(), "", "", &digests, /*image=*/false, &recorded);
  ParsedRules parsed = ParseAll(in, recorder);
  if (!SetSurelyCompiles(parsed.rules)) CompileSetNow(parsed.rules, &parsed.problems);
  ParseCalibration(in.calibration, &parsed);
  parsed.plan = PlanLinePrefilter(parsed.atoms, Segmenter::IdleKeywords(), true, LoadThreads(0, in.files.size()));
  const std::string entry = parsed.problems.empty() ? SerializeParsedRules(parsed) : std::string();
  std::vector<StoredPart> parts;
  for (const auto& [part_key, bytes] : recorded) parts.push_back({part_key, bytes});
  return SerializeBundledImage(key, in.files[0].root, entry, parts);
}

std::string LoadResult::Notice() const {
  std::set<std::string> error_files;
  std::set<std::string> kept_files;
  std::string fallback;
  for (const Problem& p : problems) {
    if (p.severity == Problem::Severity::kError) {
      error_files.insert(p.file);
    } else if (p.code == ProblemCodeName(ProblemCode::kKeptPrevious)) {
      kept_files.insert(p.file);
    } else if (p.code == ProblemCodeName(ProblemCode::kCompileFailed)) {
      fallback = "the rule patterns did not compile into one set, so each is matched by its own regex "
                 "(slower on long logs)";
    }
  }
  auto files = [](size_t n) { return std::to_string(n) + (n == 1 ? " rule file" : " rule files"); };
  std::vector<std::string> parts;
  if (!error_files.empty()) parts.push_back("errors in " + files(error_files.size()) + ": what they hold did not load");
  if (!kept_files.empty()) parts.push_back(files(kept_files.size()) + " broken on reload, kept at the last good version");
  if (!fallback.empty()) parts.push_back(fallback);
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "; ") + part;
  return out;
}

LoadResult LoadRulesFromStrings(const std::vector<std::pair<std::string, std::string>>& files, bool strict) {
  BuildInput in;
  in.strict = strict;
  for (const auto& f : files) in.files.push_back({f.first, f.second, 0, "memory"});
  return Build(std::move(in));
}

std::vector<RuleInfo> ListRules(const RuleSet& rules) {
  std::vector<RuleInfo> out;
  for (const Rule& r : rules.rules) out.push_back({r.id, r.category, r.title, r.file, r.overrides, r.origin, r.lua_file});
  std::sort(out.begin(), out.end(), [](const RuleInfo& a, const RuleInfo& b) { return a.id < b.id; });
  return out;
}

std::size_t CountRules(const RuleSet& rules) { return rules.rules.size(); }

std::vector<DisabledRule> ListDisabledRules(const RuleSet& rules) { return rules.disabled; }

}  // namespace triage
