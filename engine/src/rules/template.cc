#include "rules/template.h"

#include <cctype>
#include <cstring>

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

std::vector<std::string> TemplateNames(const std::string& tmpl, std::string* error) {
  std::vector<std::string> names;
  *error = Walk(tmpl, [](const std::string&) {}, [&](const std::string& n) { names.push_back(n); });
  return names;
}

std::string CommandValue(const std::string& name, const std::string& value) {
  bool inert = value.empty() || value[0] != '-';
  for (char c : value) {
    inert = inert && (std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_.,:/@+=-", c) != nullptr) &&
            c != '\0' && static_cast<unsigned char>(c) < 0x80;
  }
  if (inert) return value;
  std::string upper = name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

std::string RenderTemplate(const std::string& tmpl,
                           const std::function<bool(const std::string&, std::string*)>& lookup) {
  std::string out;
  std::size_t cut = 0;
  auto add = [&](const std::string& s) {
    std::size_t room = out.size() < kMaxRenderedTemplate ? kMaxRenderedTemplate - out.size() : 0;
    if (s.size() <= room) {
      out += s;
      return;
    }
    std::size_t keep = room;
    while (keep > 0 && (static_cast<unsigned char>(s[keep]) & 0xC0) == 0x80) --keep;  // whole UTF-8 characters
    out.append(s, 0, keep);
    cut += s.size() - keep;
  };
  std::string error = Walk(
      tmpl, add,
      [&](const std::string& n) {
        std::string v;
        add(lookup(n, &v) ? v : "?");
      });
  if (!error.empty()) return tmpl;  // the loader rejects such templates; render raw if one slips by
  if (cut > 0) out += " ... [" + std::to_string(cut) + " bytes cut]";
  return out;
}

}  // namespace triage
