#include "rules/rule_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <type_traits>

#include "rules/lua_runtime.h"
#include "rules/signal_rules.h"

namespace triage {
namespace fs = std::filesystem;

// Every field of these structs is in its Fields list below (Note: [Cache fields]). A field added to
// one of them must be added there too (and kFormat bumped), or cached loads would silently drop it:
// these size checks fail the build as a reminder. (x86-64 libstdc++ sizes; other targets skip them.)
#if defined(__x86_64__) && defined(__GLIBCXX__)
static_assert(sizeof(Rule) == 680, "Rule changed: list the new field in Fields(Rule) and bump kFormat");
static_assert(sizeof(HypothesisSpec) == 272, "HypothesisSpec changed: list the new field in Fields(HypothesisSpec) and bump kFormat");
static_assert(sizeof(Example) == 160, "Example changed: list the new field in Fields(Example) and bump kFormat");
static_assert(sizeof(SignalSpec) == 128, "SignalSpec changed: list the new field in Fields(SignalSpec) and bump kFormat");
static_assert(sizeof(Problem) == 144, "Problem changed: list the new field in Fields(Problem) and bump kFormat");
#endif

namespace {

constexpr std::uint32_t kMagic = 0x54524331;  // "TRC1"
constexpr std::uint32_t kFormat = 1;
constexpr int kKeepEntries = 8;

// Note: [Cache fields] Each struct the cache holds lists its fields once, in a Fields(archive, value)
// overload below; the Writer and the Reader both walk that list, so they cannot disagree on a field
// or its order. An archive is called with each field: a Writer writes it, a Reader reads into it.
// The bytes: integers, enums and bools as 8 bytes, doubles as their bits, strings and containers
// length-first, an optional or a pointer as a presence flag and then its value.

template <class T, class U>
using IfIs = std::enable_if_t<std::is_same_v<std::remove_const_t<T>, U>, int>;

template <class A, class T, IfIs<T, SourcePos> = 0>
void Fields(A& a, T& p) {
  a(p.line);
  a(p.column);
}
template <class A, class T, IfIs<T, Text> = 0>
void Fields(A& a, T& t) {
  a(t.value);
  a(t.pos);
}
template <class A, class T, IfIs<T, LuaRef> = 0>
void Fields(A& a, T& r) {
  a(r.name);
  a(r.line);
  a(r.column);
}
template <class A, class T, IfIs<T, LuaChunk> = 0>
void Fields(A& a, T& c) {
  a(c.file);
  a(c.code);
}
template <class A, class T, IfIs<T, HypothesisSpec> = 0>
void Fields(A& a, T& h) {
  a(h.id);
  a(h.text);
  a(h.test);
  a(h.probe);
  a(h.probe_args);
  a(h.fix);
  a(h.when);
}
template <class A, class T, IfIs<T, Example> = 0>
void Fields(A& a, T& e) {
  a(e.kind);
  a(e.text);
  a(e.captures);
  a(e.why);
  a(e.pos);
  a(e.hypotheses);
  a(e.check_hypotheses);
}
template <class A, class T, IfIs<T, SignalSpec> = 0>
void Fields(A& a, T& s) {
  a(s.detector);
  a(s.series);
  a(s.params);
  a(s.evidence_for);
}
template <class A, class T, IfIs<T, Rule> = 0>
void Fields(A& a, T& r) {
  a(r.id);
  a(r.file);
  a(r.category);
  a(r.title);
  a(r.prior);
  a(r.patterns);
  a(r.exceptions);
  a(r.context);
  a(r.specificity);
  a(r.explain);
  a(r.hypotheses);
  a(r.checks);
  a(r.verify);
  a(r.verify_probe);
  a(r.refs);
  a(r.examples);
  a(r.overrides);
  a(r.signal);
  a(r.origin);
  a(r.lua_file);
  a(r.lua_chunks);
  a(r.values_fn);
  a(r.score_fn);
  a(r.lua_tests);
}
template <class A, class T, IfIs<T, DisabledRule> = 0>
void Fields(A& a, T& d) {
  a(d.id);
  a(d.file);
  a(d.by);
}
template <class A, class T, IfIs<T, Problem> = 0>
void Fields(A& a, T& p) {
  a(p.severity);
  a(p.code);
  a(p.file);
  a(p.line);
  a(p.column);
  a(p.rule_id);
  a(p.message);
}
template <class A, class T, IfIs<T, ParsedRules> = 0>
void Fields(A& a, T& p) {
  a(p.rules);
  a(p.disabled);
  a(p.problems);
  a(p.atoms);
}

// The largest valid value of each enum the cache holds; a Reader refuses larger ones.
constexpr int MaxValue(Example::Kind) { return static_cast<int>(Example::Kind::kKnownGap); }
constexpr int MaxValue(SeriesId) { return kSeriesCount - 1; }
constexpr int MaxValue(Problem::Severity) {
  return std::max(static_cast<int>(Problem::Severity::kWarning), static_cast<int>(Problem::Severity::kError));
}

class Writer {
 public:
  void U64(std::uint64_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  std::string Take() { return std::move(out_); }

  void operator()(const std::string& s) {
    U64(s.size());
    out_ += s;
  }
  void operator()(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    U64(bits);
  }
  void operator()(int v) { U64(static_cast<std::uint64_t>(static_cast<std::int64_t>(v))); }
  void operator()(bool v) { U64(v); }
  template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
  void operator()(E e) {
    (*this)(static_cast<int>(e));
  }
  template <class T>
  void operator()(const std::vector<T>& v) {
    U64(v.size());
    for (const T& x : v) (*this)(x);
  }
  template <class V>
  void operator()(const std::map<std::string, V>& m) {
    U64(m.size());
    for (const auto& [k, v] : m) {
      (*this)(k);
      (*this)(v);
    }
  }
  template <class T>
  void operator()(const std::optional<T>& o) {
    (*this)(o.has_value());
    if (o) (*this)(*o);
  }
  template <class T>
  void operator()(const std::shared_ptr<const T>& p) {
    (*this)(p != nullptr);
    if (p) (*this)(*p);
  }
  template <class T, std::enable_if_t<std::is_class_v<T>, int> = 0>
  void operator()(const T& x) {
    Fields(*this, x);
  }

 private:
  std::string out_;
};

// Reads what Writer wrote. Any inconsistency (a short file, a length beyond the end, an enum out of
// range) marks the reader failed; the values read after that are empty.
class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  bool ok() const { return ok_; }
  bool AtEnd() const { return pos_ == in_.size(); }
  std::uint64_t U64() {
    std::uint64_t v = 0;
    if (pos_ + sizeof v > in_.size()) return Fail();
    std::memcpy(&v, in_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }

  void operator()(std::string& s) {
    size_t n = Count();
    s = ok_ ? in_.substr(pos_, n) : std::string();
    pos_ += ok_ ? n : 0;
  }
  void operator()(double& v) {
    std::uint64_t bits = U64();
    std::memcpy(&v, &bits, sizeof v);
  }
  void operator()(int& v) { v = static_cast<int>(static_cast<std::int64_t>(U64())); }
  void operator()(bool& v) { v = U64() != 0; }
  template <class E, std::enable_if_t<std::is_enum_v<E>, int> = 0>
  void operator()(E& e) {
    int v = 0;
    (*this)(v);
    if (v < 0 || v > MaxValue(E{})) {
      Fail();
      v = 0;
    }
    e = static_cast<E>(v);
  }
  template <class T>
  void operator()(std::vector<T>& v) {
    v.resize(Count());
    for (T& x : v) (*this)(x);
  }
  template <class V>
  void operator()(std::map<std::string, V>& m) {
    m.clear();
    for (size_t n = Count(); ok_ && n > 0; --n) {
      std::string k;
      (*this)(k);
      (*this)(m[k]);
    }
  }
  template <class T>
  void operator()(std::optional<T>& o) {
    bool has = false;
    (*this)(has);
    o.reset();
    if (has) (*this)(o.emplace());
  }
  template <class T>
  void operator()(std::shared_ptr<const T>& p) {
    bool has = false;
    (*this)(has);
    p.reset();
    if (!has) return;
    auto value = std::make_shared<T>();
    (*this)(*value);
    p = std::move(value);
  }
  template <class T, std::enable_if_t<std::is_class_v<T>, int> = 0>
  void operator()(T& x) {
    Fields(*this, x);
  }

 private:
  // A count of items that each take at least one byte: bounded by what is left, so a corrupt length
  // can never make us allocate more than the file holds.
  size_t Count() {
    std::uint64_t n = U64();
    if (n > in_.size() - pos_) return Fail();
    return static_cast<size_t>(n);
  }
  std::uint64_t Fail() {
    ok_ = false;
    pos_ = in_.size();
    return 0;
  }
  const std::string& in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

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
  w(p);
  w.U64(kMagic);  // trailer: a truncated file fails here
  return w.Take();
}

bool ParseParsedRules(const std::string& bytes, ParsedRules* out) {
  Reader in(bytes);
  if (in.U64() != kMagic || in.U64() != kFormat) return false;
  ParsedRules p;
  in(p);
  if (in.U64() != kMagic || !in.ok() || !in.AtEnd()) return false;
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
