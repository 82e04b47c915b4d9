// Explanation templates: "{name}" is replaced by a value; "{{" and "}}" are literal braces.
#ifndef TRIAGE_ENGINE_TEMPLATE_H_
#define TRIAGE_ENGINE_TEMPLATE_H_

#include <functional>
#include <string>
#include <vector>

namespace triage {

// Returns the names a template refers to, in order; sets *error (and returns what it had) on an
// unterminated or empty "{...}".
std::vector<std::string> TemplateNames(const std::string& tmpl, std::string* error);

// Renders a template; `lookup` returns false for an unknown name, which renders as "?".
std::string RenderTemplate(const std::string& tmpl,
                           const std::function<bool(const std::string&, std::string*)>& lookup);

}  // namespace triage

#endif  // TRIAGE_ENGINE_TEMPLATE_H_
