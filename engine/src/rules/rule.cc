#include "rules/rule.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "log/line_scanner.h"
#include "rules/rule_cache.h"

namespace triage {

namespace {
// The one table of example kinds: the name, and whether a rule file writes it as an example's key.
struct ExampleKindRow {
  ExampleKind kind;
  const char* name;
  bool rule_file_key;
};
constexpr ExampleKindRow kExampleKinds[] = {
    {ExampleKind::kMatch, "match", true},
    {ExampleKind::kNoMatch, "no_match", true},
    {ExampleKind::kKnownGap, "known_gap", true},
    {ExampleKind::kLuaTest, "lua_test", false},
};
static_assert(std::size(kExampleKinds) == static_cast<size_t>(ExampleKind::kLuaTest) + 1,
              "one row per ExampleKind");
}  // namespace

const char* ExampleKindName(ExampleKind kind) {
  for (const ExampleKindRow& row : kExampleKinds) {
    if (row.kind == kind) return row.name;
  }
  return "unknown";
}

bool ExampleKindFromKey(std::string_view key, ExampleKind* kind) {
  for (const ExampleKindRow& row : kExampleKinds) {
    if (row.rule_file_key && key == row.name) {
      *kind = row.kind;
      return true;
    }
  }
  return false;
}

// Note: [Regex memory] RE2 gives each regex max_mem (8 MiB by default): two thirds for its program
// and the caches of its forward DFAs, a third for the reverse program and its DFA, which a match
// with captures uses to find where the match starts. A DFA keeps every state it builds until its
// share is full, and a rule set's regexes each keep theirs for the whole run: with 1000 rules, the
// ~880 regexes run over a 256 MiB log's incident messages and lines kept ~41 MB of DFA states, for
// no gain after the first text. So a pattern's regex gets kRegexMemory. RE2 bounds a program by its
// share of max_mem too, and a reverse program it could not compile would make a match with captures
// fail, not fall back: a pattern whose forward program takes more than kSmallProgram instructions
// (far less than the reverse share holds; the two programs are about the same size) is compiled with
// the default max_mem instead, as is one that did not compile under the small one. A DFA that fills
// its cache starts it again, and one that cannot make progress gives way to the NFA: the matches are
// the same, only slower on a long text (tests/bench/README.md, "Memory with many rules").
namespace {
constexpr int64_t kRegexMemory = 64 << 10;
// Under a 64 KiB max_mem, Debian's RE2 (2022-06) compiles a reverse program of 2213 instructions and
// refuses one of 2238 (its share is a third: ~10 bytes an instruction); the cut, 325, is a seventh.
constexpr int kSmallProgram = static_cast<int>((kRegexMemory / 3 - 1024) / 64);
}  // namespace

bool UnnamedGroups(std::string* pattern, std::map<std::string, int>* names, int* groups) {
  const std::string& s = *pattern;
  const size_t n = s.size();
  std::string out;
  out.reserve(n);
  std::map<std::string, int> found;
  int count = 0;
  size_t i = 0;
  while (i < n) {
    const char c = s[i];
    if (c == '\\') {  // an escape: the next byte is never a group or a class
      if (i + 1 >= n || s[i + 1] == 'Q') return false;
      out.append(s, i, 2);
      i += 2;
      continue;
    }
    if (c == '[') {  // a class, to its `]`: one right after `[` or `[^` is a member, as in RE2
      size_t j = i + 1;
      if (j < n && s[j] == '^') ++j;
      if (j < n && s[j] == ']') ++j;
      bool closed = false;
      while (j < n && !closed) {
        if (s[j] == '\\') {
          if (j + 1 >= n || s[j + 1] == 'Q') return false;
          j += 2;
        } else if (s[j] == '[' && j + 1 < n && s[j + 1] == ':') {  // [:name:], to the next `:]` as RE2 reads it
          const size_t end = s.find(":]", j + 2);
          if (end == std::string::npos) return false;
          j = end + 2;
        } else {
          closed = s[j] == ']';
          ++j;
        }
      }
      if (!closed) return false;
      out.append(s, i, j - i);
      i = j;
      continue;
    }
    if (c == '(' && s.compare(i, 4, "(?P<") == 0) {
      const size_t end = s.find('>', i + 4);
      if (end == std::string::npos || end == i + 4) return false;
      std::string name = s.substr(i + 4, end - i - 4);
      for (char b : name) {
        if (!((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '_')) return false;
      }
      if (!found.emplace(std::move(name), ++count).second) return false;
      out += '(';
      i = end + 1;
      continue;
    }
    if (c == '(' && (i + 1 >= n || s[i + 1] != '?')) ++count;  // `(?` is a flag group or `(?:`
    out += c;
    ++i;
  }
  if (found.empty()) return false;
  *pattern = std::move(out);
  *names = std::move(found);
  *groups = count;
  return true;
}

const RE2& LazyRegex::Get() const {
  std::call_once(once_, [this] {
    auto compile = [this](const std::string& pattern) {
      RE2::Options small = RegexOptions();
      small.set_max_mem(kRegexMemory);
      re_ = std::make_unique<RE2>(pattern, small);
      if (!re_->ok() || re_->ProgramSize() > kSmallProgram) re_ = std::make_unique<RE2>(pattern, RegexOptions());
    };
    // Note: [Group names kept aside]
    std::string unnamed = pattern_;
    int groups = 0;
    if (UnnamedGroups(&unnamed, &names_, &groups)) {
      compile(unnamed);
      names_aside_ = re_->ok() && re_->NumberOfCapturingGroups() == groups;
      if (names_aside_) return;
      names_.clear();
    }
    compile(pattern_);
  });
  return *re_;
}

const std::map<std::string, int>& LazyRegex::NamedGroups() const {
  const RE2& re = Get();
  return names_aside_ ? names_ : re.NamedCapturingGroups();
}

std::unique_ptr<RE2::Set> CompilePatternSet(const std::vector<Rule>& rules) {
  RE2::Options opts = RegexOptions();
  opts.set_max_mem(64 << 20);  // the Set's DFA over hundreds of patterns needs room
  auto set = std::make_unique<RE2::Set>(opts, RE2::UNANCHORED);
  int added = 0;
  for (const Rule& rule : rules) {
    for (const Text& pattern : rule.patterns) {
      // Patterns were validated when read; one RE2 refuses anyway keeps its index with a regex that
      // never matches (its own regex does not compile either, so Match's other way agrees).
      if (set->Add(pattern.value, nullptr) < 0) set->Add("\\b\\B", nullptr);
      ++added;
    }
  }
  if (added == 0 || !set->Compile()) return nullptr;
  return set;
}

const RE2::Set* RuleSet::Set() const {
  std::call_once(set_once_, [this] { set_ = CompilePatternSet(rules); });
  set_ready_.store(true, std::memory_order_release);
  return set_.get();
}

void RuleSet::SetCompiled(std::unique_ptr<RE2::Set> set) {
  std::call_once(set_once_, [&] { set_ = std::move(set); });
  set_ready_.store(true, std::memory_order_release);
}

bool RuleSet::SetMatch(std::string_view text, std::vector<int>* hits) const {
  hits->clear();
  const RE2::Set* s = Set();
  if (s == nullptr) return false;  // it did not compile: Match asks every candidate (Note: [Pattern set])
  RE2::Set::ErrorInfo error;
  const bool found = s->Match(re2::StringPiece(text.data(), text.size()), hits, &error);
  std::sort(hits->begin(), hits->end());
  return found || error.kind == RE2::Set::kNoError;
}

std::vector<int> RuleSet::MatchWithSet(std::string_view text) const {
  std::vector<int> hits;
  SetMatch(text, &hits);
  return hits;
}

bool RuleSet::MatchCandidates(std::string_view text, std::vector<int>* hits) const {
  return Candidates(text, hits, true);
}

bool RuleSet::Candidates(std::string_view text, std::vector<int>* hits, bool capped) const {
  hits->clear();
  const re2::StringPiece piece(text.data(), text.size());
  if (!prefilter) {
    if (capped) return false;
    // No prefilter to narrow them (its small set did not compile): every pattern is a candidate.
    for (size_t p = 0; p < regexes.size(); ++p) {
      const RE2& re = regexes[p]->Get();
      if (re.ok() && RE2::PartialMatch(piece, re)) hits->push_back(static_cast<int>(p));
    }
    return true;
  }
  const LinePrefilter& pf = *prefilter;
  std::vector<std::uint32_t> keywords;
  pf.Scanned(text.size());  // Note: [Lazy anchor layout] in log/line_scanner.h
  pf.Scanner().KeywordsIn(text, &keywords);
  std::vector<int> candidates;
  const bool lines = text.find('\n') != std::string_view::npos;
  if (!keywords.empty() || (lines && !newline_patterns.empty())) {
    std::string lowered(text);
    for (char& c : lowered) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    pf.Candidates(keywords, lowered, &candidates);  // Note: [Anchored literals] in log/line_scanner.h
    if (lines && !newline_patterns.empty()) {
      for (int p : newline_patterns) {
        if (pf.MayMatch(p, lowered)) candidates.push_back(p);
      }
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  }
  if (capped && !lines && candidates.size() > kCandidatesBeforeSet) return false;
  for (int p : candidates) {
    const RE2& re = regexes[static_cast<size_t>(p)]->Get();
    if (!re.ok()) {
      if (capped) return false;  // the set may compile it (a larger budget): let it answer
      continue;                  // the last resort: a pattern no regex of ours compiles matches nothing
    }
    if (RE2::PartialMatch(piece, re)) hits->push_back(p);
  }
  if (pf.unfiltered) {
    std::vector<int> found;
    RE2::Set::ErrorInfo error;
    if (!pf.unfiltered->Match(piece, &found, &error) && error.kind != RE2::Set::kNoError) {
      if (capped) return false;
      found.clear();  // its DFA out of memory: each of its patterns' own regex
      for (size_t i = 0; i < pf.unfiltered_patterns.size(); ++i) {
        const RE2& re = regexes[static_cast<size_t>(pf.unfiltered_patterns[i])]->Get();
        if (re.ok() && RE2::PartialMatch(piece, re)) found.push_back(static_cast<int>(i));
      }
    }
    for (int i : found) hits->push_back(pf.unfiltered_patterns[static_cast<size_t>(i)]);
    std::sort(hits->begin(), hits->end());
  }
  return true;
}

std::vector<int> RuleSet::Match(std::string_view text) const {
  if (patterns.empty()) return {};
  // Note: [Pattern set]: a text of several lines always by its candidates; a line by its candidates
  // until Match has been called kMatchesBeforeSet times.
  const bool one_line = text.find('\n') == std::string_view::npos;
  bool by_set = false;
  if (one_line) {
    int calls = matches_.load(std::memory_order_relaxed);
    if (calls < kMatchesBeforeSet) calls = matches_.fetch_add(1, std::memory_order_relaxed);
    by_set = calls >= kMatchesBeforeSet;
  }
  std::vector<int> hits;
  if (!by_set && Candidates(text, &hits, one_line)) return hits;
  if (SetMatch(text, &hits)) return hits;
  // The set could not answer (it did not compile, or its DFA ran out of memory): the candidates,
  // however many.
  Candidates(text, &hits, false);
  return hits;
}

const Rule* RuleSet::Find(const std::string& id) const {
  for (const Rule& r : rules) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

void RuleSet::DeferTexts(std::shared_ptr<const DeferredTexts> texts) {
  std::lock_guard<std::mutex> lock(full_mu_);
  made_.clear();
  full_.reset();
  deferred_ = std::move(texts);
  if (!deferred_) return;
  full_.reset(new std::atomic<const Rule*>[rules.size()]);
  for (size_t i = 0; i < rules.size(); ++i) full_[i].store(nullptr, std::memory_order_relaxed);
}

const Rule& RuleSet::Full(int rule) const {
  const size_t i = static_cast<size_t>(rule);
  if (!deferred_) return rules[i];
  if (const Rule* made = full_[i].load(std::memory_order_acquire)) return *made;
  std::lock_guard<std::mutex> lock(full_mu_);
  if (const Rule* made = full_[i].load(std::memory_order_relaxed)) return *made;
  auto full = std::make_unique<Rule>(rules[i]);
  // The span was read through once when the entry was loaded, from the same mapped bytes (Note:
  // [Texts on demand]); were it to fail now, the rule keeps what the load gave it.
  if (!ReadDeferredTexts(*deferred_, i, full.get())) *full = rules[i];
  full_[i].store(full.get(), std::memory_order_release);
  made_.push_back(std::move(full));
  return *made_.back();
}

namespace {
struct CategoryEntry {
  const char* id;
  const char* title;
};
const CategoryEntry kCategories[] = {
#include "taxonomy_categories.inc"
};
}  // namespace

const std::vector<std::string>& KnownCategories() {
  static const std::vector<std::string> kList = [] {
    std::vector<std::string> list;
    for (const CategoryEntry& e : kCategories) list.emplace_back(e.id);
    return list;
  }();
  return kList;
}

bool IsKnownCategory(const std::string& category) {
  const auto& list = KnownCategories();
  return std::find(list.begin(), list.end(), category) != list.end();
}

std::string CategoryTitle(const std::string& category) {
  for (const CategoryEntry& e : kCategories) {
    if (category == e.id) return e.title;
  }
  return "";
}

int LiteralChars(const std::string& pattern) {
  // Counts characters that match themselves: letters, digits, spaces and escaped punctuation,
  // skipping group syntax, classes and quantifiers. An estimate, used only for ranking and lint.
  int count = 0;
  int depth_class = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (depth_class) {
      if (c == '\\') ++i;
      else if (c == ']') --depth_class;
      continue;
    }
    switch (c) {
      case '\\':
        if (i + 1 < pattern.size()) {
          char n = pattern[i + 1];
          bool is_class = (n == 'd' || n == 'w' || n == 's' || n == 'D' || n == 'W' || n == 'S' ||
                           n == 'b' || n == 'B' || n == 'A' || n == 'z' || n == 'p' || n == 'P');
          if (!is_class) ++count;
          ++i;
        }
        break;
      case '[': depth_class = 1; break;
      case '(':
        if (i + 1 < pattern.size() && pattern[i + 1] == '?') {
          // Skip "(?:", "(?i)", "(?P<name>".
          size_t end = pattern.find_first_of(":)>", i + 2);
          if (end != std::string::npos) i = end;
        }
        break;
      case ')': case '|': case '*': case '+': case '?': case '.': case '^': case '$':
        break;
      case '{': {
        size_t end = pattern.find('}', i);
        if (end != std::string::npos) i = end;
        break;
      }
      default:
        ++count;
    }
  }
  return count;
}

std::string Problem::ToString() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (line > 0) {
      out += ":" + std::to_string(line);
      if (column > 0) out += ":" + std::to_string(column);
    }
    out += ": ";
  }
  out += severity == Severity::kError ? "error: " : "warning: ";
  out += message;
  if (!code.empty()) out += " [" + code + "]";
  if (!rule_id.empty()) out += " (rule " + rule_id + ")";
  return out;
}

bool LoadResult::ok() const { return errors() == 0; }

int LoadResult::errors() const {
  return static_cast<int>(std::count_if(problems.begin(), problems.end(), [](const Problem& p) {
    return p.severity == Problem::Severity::kError;
  }));
}

int LoadResult::warnings() const { return static_cast<int>(problems.size()) - errors(); }

const char* Version() { return TRIAGE_VERSION; }

}  // namespace triage
