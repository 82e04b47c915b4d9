#include "rules/template.h"
#include "triage/locale_free.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace triage {
namespace {

// Walks a template, calling literal(text) and name(text) for its pieces. Returns an error or "".
template <typename Literal, typename Name>
std::string Walk(const std::string& t, Literal literal, Name name) {
  size_t i = 0;
  std::string run;
  while (i < t.size()) {
    char c = t[i];
    if (c == '{' && i + 1 < t.size() && t[i + 1] == '{') { run += '{'; i += 2; continue; }
    if (c == '}' && i + 1 < t.size() && t[i + 1] == '}') { run += '}'; i += 2; continue; }
    if (c == '{') {
      size_t end = t.find('}', i + 1);
      if (end == std::string::npos) return "unterminated '{' at offset " + std::to_string(i);
      std::string n = t.substr(i + 1, end - i - 1);
      if (n.empty()) return "empty '{}' at offset " + std::to_string(i);
      for (char k : n) {
        bool ok = (k >= 'a' && k <= 'z') || (k >= 'A' && k <= 'Z') || (k >= '0' && k <= '9') || k == '_';
        if (!ok) return "bad name '{" + n + "}' at offset " + std::to_string(i) + " (use {{ for a literal brace)";
      }
      literal(run);
      run.clear();
      name(n);
      i = end + 1;
      continue;
    }
    run += c;
    ++i;
  }
  literal(run);
  return "";
}

}  // namespace

// Walk for the names alone: a load checks every template of every rule (~20 M instructions of a
// start with no rule cache as Walk, which copies each literal byte into a run), so this jumps from
// brace to brace. Braces are read exactly as Walk reads them (every other byte only moves Walk one
// byte on), so the names, the errors and their offsets are Walk's (tests/template_test.cc compares
// the two on made-up templates).
std::vector<std::string> TemplateNames(const std::string& tmpl, std::string* error) {
  std::vector<std::string> names;
  error->clear();
  const std::string& t = tmpl;
  // The next '{' and '}' at or after i, each found by memchr (templates are mostly prose).
  size_t open = t.find('{'), close = t.find('}');
  auto next_brace = [&](size_t i) {
    if (open < i) open = t.find('{', i);
    if (close < i) close = t.find('}', i);
    return std::min(open, close);
  };
  for (size_t i = next_brace(0); i != std::string::npos; i = next_brace(i)) {
    const bool doubled = i + 1 < t.size() && t[i + 1] == t[i];
    if (doubled || t[i] == '}') {  // "{{", "}}": a literal brace; a lone '}' is literal too
      i += doubled ? 2 : 1;
      continue;
    }
    size_t end = t.find('}', i + 1);
    if (end == std::string::npos) {
      *error = "unterminated '{' at offset " + std::to_string(i);
      return names;
    }
    std::string n = t.substr(i + 1, end - i - 1);
    if (n.empty()) {
      *error = "empty '{}' at offset " + std::to_string(i);
      return names;
    }
    for (char k : n) {
      bool ok = (k >= 'a' && k <= 'z') || (k >= 'A' && k <= 'Z') || (k >= '0' && k <= '9') || k == '_';
      if (!ok) {
        *error = "bad name '{" + n + "}' at offset " + std::to_string(i) + " (use {{ for a literal brace)";
        return names;
      }
    }
    names.push_back(std::move(n));
    i = end + 1;
  }
  return names;
}

std::vector<std::string> TemplateNamesByWalk(const std::string& tmpl, std::string* error) {
  std::vector<std::string> names;
  *error = Walk(tmpl, [](const std::string&) {}, [&](const std::string& n) { names.push_back(n); });
  return names;
}

namespace {

// Where a value lands in a command template: how sh reads the text at that point.
enum class Shell { kUnquoted, kSingle, kDouble };

// The sh quoting state after `text`, starting in `state`.
Shell ShellAfter(Shell state, const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (state) {
      case Shell::kUnquoted:
        if (c == '\\') ++i;
        else if (c == '\'') state = Shell::kSingle;
        else if (c == '"') state = Shell::kDouble;
        break;
      case Shell::kSingle:
        if (c == '\'') state = Shell::kUnquoted;
        break;
      case Shell::kDouble:
        if (c == '\\') ++i;
        else if (c == '"') state = Shell::kUnquoted;
        break;
    }
  }
  return state;
}

bool InertChar(char c) {
  return IsAsciiAlnum(c) || (c != '\0' && std::strchr("_.,:/@+=-", c) != nullptr);
}

std::string Placeholder(const std::string& name) {
  std::string upper = name;
  for (char& c : upper) c = static_cast<char>(AsciiUpper(static_cast<unsigned char>(c)));
  return upper;
}

// Note: [Command captures]
std::string Place(const std::string& name, const std::string& value, Shell where) {
  if (!value.empty() && value[0] == '-') return Placeholder(name);  // an option, quoted or not
  bool inert = true, spaced = true, quotable = true;
  for (char c : value) {
    const unsigned char u = static_cast<unsigned char>(c);
    const bool i = InertChar(c);
    inert = inert && i;
    spaced = spaced && (i || c == ' ');
    quotable = quotable && u >= 0x20 && u < 0x7f && std::strchr("&|<>^%!", c) == nullptr;
  }
  if (inert) return value;
  if (where != Shell::kUnquoted) return spaced ? value : Placeholder(name);
  if (!quotable) return Placeholder(name);
  if (value.find('\'') == std::string::npos) return "'" + value + "'";
  if (value.find_first_of("\"$`\\") == std::string::npos) return "\"" + value + "\"";
  return Placeholder(name);
}

// A rendered template, cut at kMaxRenderedTemplate bytes (whole UTF-8 characters).
class Bounded {
 public:
  void Add(const std::string& s) {
    std::size_t room = out_.size() < kMaxRenderedTemplate ? kMaxRenderedTemplate - out_.size() : 0;
    if (s.size() <= room) {
      out_ += s;
      return;
    }
    std::size_t keep = room;
    while (keep > 0 && (static_cast<unsigned char>(s[keep]) & 0xC0) == 0x80) --keep;
    out_.append(s, 0, keep);
    cut_ += s.size() - keep;
  }
  std::string Take() {
    if (cut_ > 0) out_ += " ... [" + std::to_string(cut_) + " bytes cut]";
    return std::move(out_);
  }

 private:
  std::string out_;
  std::size_t cut_ = 0;
};

}  // namespace

std::string CommandValue(const std::string& name, const std::string& value) {
  return Place(name, value, Shell::kUnquoted);
}

std::string RenderTemplate(const std::string& tmpl,
                           const std::function<bool(const std::string&, std::string*)>& lookup) {
  Bounded out;
  std::string error = Walk(
      tmpl, [&](const std::string& s) { out.Add(s); },
      [&](const std::string& n) {
        std::string v;
        out.Add(lookup(n, &v) ? v : "?");
      });
  if (!error.empty()) return tmpl;  // the loader rejects such templates; render raw if one slips by
  return out.Take();
}

std::string RenderCommand(const std::string& tmpl,
                          const std::function<bool(const std::string&, std::string*)>& lookup,
                          const std::function<bool(const std::string&, const std::string&)>& authored) {
  Bounded out;
  Shell state = Shell::kUnquoted;
  std::string error = Walk(
      tmpl,
      [&](const std::string& s) {
        state = ShellAfter(state, s);
        out.Add(s);
      },
      [&](const std::string& n) {
        std::string v;
        if (!lookup(n, &v)) {
          out.Add("?");
        } else if (authored && authored(n, v)) {
          state = ShellAfter(state, v);  // the rule's own text, read as the template's
          out.Add(v);
        } else {
          out.Add(Place(n, v, state));
        }
      });
  if (!error.empty()) return tmpl;
  return out.Take();
}

}  // namespace triage
