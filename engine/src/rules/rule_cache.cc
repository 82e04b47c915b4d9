#include "rules/rule_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "rules/lua_runtime.h"
#include "rules/signal_rules.h"

namespace triage {
namespace fs = std::filesystem;

// The serialiser below writes every field of these structs. A field added to one of them must be
// added here too (and kFormat bumped), or cached loads would silently drop it: these size checks
// fail the build as a reminder. (x86-64 libstdc++ sizes; other targets skip the check.)
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(Rule) == 680, "Rule changed: update rule_cache.cc (Write/Read Rule) and bump kFormat");
static_assert(sizeof(HypothesisSpec) == 272, "HypothesisSpec changed: update rule_cache.cc and bump kFormat");
static_assert(sizeof(Example) == 160, "Example changed: update rule_cache.cc and bump kFormat");
static_assert(sizeof(SignalSpec) == 128, "SignalSpec changed: update rule_cache.cc and bump kFormat");
static_assert(sizeof(Problem) == 144, "Problem changed: update rule_cache.cc and bump kFormat");
#endif

namespace {

constexpr std::uint32_t kMagic = 0x54524331;  // "TRC1"
constexpr std::uint32_t kFormat = 1;
constexpr int kKeepEntries = 8;

class Writer {
 public:
  void U64(std::uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void I64(std::int64_t v) { U64(static_cast<std::uint64_t>(v)); }
  void F64(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    U64(bits);
  }
  void Str(const std::string& s) {
    U64(s.size());
    out_ += s;
  }
  void Strs(const std::vector<std::string>& v) {
    U64(v.size());
    for (const std::string& s : v) Str(s);
  }
  void Map(const std::map<std::string, std::string>& m) {
    U64(m.size());
    for (const auto& [k, v] : m) {
      Str(k);
      Str(v);
    }
  }
  void Pos(const SourcePos& p) {
    I64(p.line);
    I64(p.column);
  }
  void Txt(const Text& t) {
    Str(t.value);
    Pos(t.pos);
  }
  void Ref(const LuaRef& r) {
    Str(r.name);
    I64(r.line);
    I64(r.column);
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  bool ok() const { return ok_; }
  void Invalidate() { Fail(); }
  bool AtEnd() const { return pos_ == in_.size(); }
  std::uint64_t U64() {
    std::uint64_t v = 0;
    if (pos_ + sizeof v > in_.size()) return Fail();
    std::memcpy(&v, in_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  std::int64_t I64() { return static_cast<std::int64_t>(U64()); }
  int Int() { return static_cast<int>(I64()); }
  double F64() {
    std::uint64_t bits = U64();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  // A count of items that each take at least one byte: bounded by what is left, so a corrupt length
  // can never make us allocate more than the file holds.
  size_t Count() {
    std::uint64_t n = U64();
    if (n > in_.size() - pos_) return Fail();
    return static_cast<size_t>(n);
  }
  std::string Str() {
    size_t n = Count();
    if (!ok_) return {};
    std::string s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  std::vector<std::string> Strs() {
    std::vector<std::string> v(Count());
    for (std::string& s : v) s = Str();
    return v;
  }
  std::map<std::string, std::string> Map() {
    std::map<std::string, std::string> m;
    for (size_t n = Count(); ok_ && n > 0; --n) {
      std::string k = Str();
      m[k] = Str();
    }
    return m;
  }
  SourcePos Pos() {
    SourcePos p;
    p.line = Int();
    p.column = Int();
    return p;
  }
  Text Txt() {
    Text t;
    t.value = Str();
    t.pos = Pos();
    return t;
  }
  LuaRef Ref() {
    LuaRef r;
    r.name = Str();
    r.line = Int();
    r.column = Int();
    return r;
  }

 private:
  std::uint64_t Fail() {
    ok_ = false;
    pos_ = in_.size();
    return 0;
  }
  const std::string& in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

void WriteRule(Writer& w, const Rule& r) {
  w.Str(r.id);
  w.Str(r.file);
  w.Str(r.category);
  w.Str(r.title);
  w.F64(r.prior);
  w.U64(r.patterns.size());
  for (const Text& t : r.patterns) w.Txt(t);
  w.Strs(r.exceptions);
  w.Txt(r.context);
  w.I64(r.specificity);
  w.Txt(r.explain);
  w.U64(r.hypotheses.size());
  for (const HypothesisSpec& h : r.hypotheses) {
    w.Str(h.id);
    w.Txt(h.text);
    w.Txt(h.test);
    w.Str(h.probe);
    w.Map(h.probe_args);
    w.Txt(h.fix);
    w.Ref(h.when);
  }
  w.U64(r.checks.size());
  for (const Text& t : r.checks) w.Txt(t);
  w.Txt(r.verify);
  w.Str(r.verify_probe);
  w.Strs(r.refs);
  w.U64(r.examples.size());
  for (const Example& e : r.examples) {
    w.I64(static_cast<int>(e.kind));
    w.Str(e.text);
    w.Map(e.captures);
    w.Str(e.why);
    w.Pos(e.pos);
    w.Strs(e.hypotheses);
    w.U64(e.check_hypotheses);
  }
  w.Str(r.overrides);
  w.U64(r.signal != nullptr);
  if (r.signal) {
    w.Str(r.signal->detector);
    w.U64(r.signal->series.size());
    for (SeriesId s : r.signal->series) w.I64(static_cast<int>(s));
    w.U64(r.signal->params.size());
    for (const auto& [k, v] : r.signal->params) {
      w.Str(k);
      w.F64(v);
    }
    w.Strs(r.signal->evidence_for);
  }
  w.Str(r.origin);
  w.Str(r.lua_file);
  w.U64(r.lua_chunks.size());
  for (const LuaChunk& c : r.lua_chunks) {
    w.Str(c.file);
    w.Str(c.code);
  }
  w.Ref(r.values_fn);
  w.Ref(r.score_fn);
  w.Strs(r.lua_tests);
}

void ReadRule(Reader& in, Rule* r) {
  r->id = in.Str();
  r->file = in.Str();
  r->category = in.Str();
  r->title = in.Str();
  r->prior = in.F64();
  r->patterns.resize(in.Count());
  for (Text& t : r->patterns) t = in.Txt();
  r->exceptions = in.Strs();
  r->context = in.Txt();
  r->specificity = in.Int();
  r->explain = in.Txt();
  r->hypotheses.resize(in.Count());
  for (HypothesisSpec& h : r->hypotheses) {
    h.id = in.Str();
    h.text = in.Txt();
    h.test = in.Txt();
    h.probe = in.Str();
    h.probe_args = in.Map();
    h.fix = in.Txt();
    h.when = in.Ref();
  }
  r->checks.resize(in.Count());
  for (Text& t : r->checks) t = in.Txt();
  r->verify = in.Txt();
  r->verify_probe = in.Str();
  r->refs = in.Strs();
  r->examples.resize(in.Count());
  for (Example& e : r->examples) {
    int kind = in.Int();
    if (kind < 0 || kind > static_cast<int>(Example::Kind::kKnownGap)) {
      in.Invalidate();
      kind = 0;
    }
    e.kind = static_cast<Example::Kind>(kind);
    e.text = in.Str();
    e.captures = in.Map();
    e.why = in.Str();
    e.pos = in.Pos();
    e.hypotheses = in.Strs();
    e.check_hypotheses = in.U64() != 0;
  }
  r->overrides = in.Str();
  if (in.U64()) {
    auto spec = std::make_shared<SignalSpec>();
    spec->detector = in.Str();
    spec->series.resize(in.Count());
    for (SeriesId& s : spec->series) {
      int v = in.Int();
      s = v >= 0 && v < kSeriesCount ? static_cast<SeriesId>(v) : SeriesId::kCount;
    }
    for (size_t n = in.Count(); in.ok() && n > 0; --n) {
      std::string k = in.Str();
      spec->params[k] = in.F64();
    }
    spec->evidence_for = in.Strs();
    r->signal = std::move(spec);
  }
  r->origin = in.Str();
  r->lua_file = in.Str();
  r->lua_chunks.resize(in.Count());
  for (LuaChunk& c : r->lua_chunks) {
    c.file = in.Str();
    c.code = in.Str();
  }
  r->values_fn = in.Ref();
  r->score_fn = in.Ref();
  r->lua_tests = in.Strs();
}

}  // namespace

CacheKey::CacheKey() : h_(1469598103934665603ULL) {}

void CacheKey::Add(std::string_view bytes) {
  Add(static_cast<std::uint64_t>(bytes.size()));
  for (unsigned char c : bytes) {
    h_ ^= c;
    h_ *= 1099511628211ULL;
  }
}

void CacheKey::Add(std::uint64_t value) {
  for (int i = 0; i < 8; ++i) {
    h_ ^= (value >> (8 * i)) & 0xff;
    h_ *= 1099511628211ULL;
  }
}

std::string CacheKey::Hex() const {
  static const char kDigits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 0; i < 16; ++i) s[15 - i] = kDigits[(h_ >> (4 * i)) & 0xf];
  return s;
}

std::string DefaultRuleCacheDir() {
  if (const char* off = std::getenv("TRIAGE_NO_CACHE"); off && *off) return "";
  if (const char* dir = std::getenv("TRIAGE_CACHE_DIR"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/triage";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/triage";
  return "";
}

std::string SerializeParsedRules(const ParsedRules& p) {
  Writer w;
  w.U64(kMagic);
  w.U64(kFormat);
  w.U64(p.rules.size());
  for (const Rule& r : p.rules) WriteRule(w, r);
  w.U64(p.disabled.size());
  for (const DisabledRule& d : p.disabled) {
    w.Str(d.id);
    w.Str(d.file);
    w.Str(d.by);
  }
  w.U64(p.problems.size());
  for (const Problem& pr : p.problems) {
    w.I64(static_cast<int>(pr.severity));
    w.Str(pr.code);
    w.Str(pr.file);
    w.I64(pr.line);
    w.I64(pr.column);
    w.Str(pr.rule_id);
    w.Str(pr.message);
  }
  w.U64(p.atoms.size());
  for (const auto& a : p.atoms) {
    w.U64(a.has_value());
    if (a) w.Strs(*a);
  }
  w.U64(kMagic);  // trailer: a truncated file fails here
  return w.Take();
}

bool ParseParsedRules(const std::string& bytes, ParsedRules* out) {
  Reader in(bytes);
  if (in.U64() != kMagic || in.U64() != kFormat) return false;
  ParsedRules p;
  p.rules.resize(in.Count());
  for (Rule& r : p.rules) ReadRule(in, &r);
  p.disabled.resize(in.Count());
  for (DisabledRule& d : p.disabled) {
    d.id = in.Str();
    d.file = in.Str();
    d.by = in.Str();
  }
  p.problems.resize(in.Count());
  for (Problem& pr : p.problems) {
    pr.severity = in.Int() == static_cast<int>(Problem::Severity::kWarning) ? Problem::Severity::kWarning
                                                                              : Problem::Severity::kError;
    pr.code = in.Str();
    pr.file = in.Str();
    pr.line = in.Int();
    pr.column = in.Int();
    pr.rule_id = in.Str();
    pr.message = in.Str();
  }
  p.atoms.resize(in.Count());
  for (auto& a : p.atoms) {
    if (in.U64()) a = in.Strs();
  }
  if (in.U64() != kMagic || !in.ok() || !in.AtEnd()) return false;
  for (const Rule& r : p.rules) {
    if (r.signal) {
      for (SeriesId s : r.signal->series) {
        if (s == SeriesId::kCount) return false;
      }
    }
  }
  *out = std::move(p);
  return true;
}

bool ReadRuleCache(const std::string& dir, const std::string& key, ParsedRules* parsed) {
  if (dir.empty()) return false;
  std::ifstream in(dir + "/rules-" + key + ".bin", std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ParseParsedRules(ss.str(), parsed);
}

void WriteRuleCache(const std::string& dir, const std::string& key, const ParsedRules& parsed) {
  if (dir.empty()) return;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return;
  std::string final_path = dir + "/rules-" + key + ".bin";
  std::string tmp = final_path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    std::string bytes = SerializeParsedRules(parsed);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, final_path, ec);
  if (ec) fs::remove(tmp, ec);
  // Keep the newest few entries: each edit of a rule file makes a new key.
  std::vector<std::pair<fs::file_time_type, fs::path>> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("rules-", 0) == 0 && it->path().extension() == ".bin") {
      entries.emplace_back(fs::last_write_time(it->path(), ec), it->path());
    }
  }
  if (static_cast<int>(entries.size()) <= kKeepEntries) return;
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = kKeepEntries; i < entries.size(); ++i) fs::remove(entries[i].second, ec);
}

}  // namespace triage
