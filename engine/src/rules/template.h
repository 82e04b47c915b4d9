// Explanation templates: "{name}" is replaced by a value; "{{" and "}}" are literal braces.
#ifndef TRIAGE_ENGINE_TEMPLATE_H_
#define TRIAGE_ENGINE_TEMPLATE_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace triage {

// Returns the names a template refers to, in order; sets *error (and returns what it had) on an
// unterminated or empty "{...}".
std::vector<std::string> TemplateNames(const std::string& tmpl, std::string* error);

// Renders a template; `lookup` returns false for an unknown name, which renders as "?".
// The most bytes one rendered template keeps: the rest is cut and counted (" ... [N bytes cut]"), so
// a long capture or Lua value used many times cannot blow up a report.
constexpr std::size_t kMaxRenderedTemplate = 16 << 10;

std::string RenderTemplate(const std::string& tmpl,
                           const std::function<bool(const std::string&, std::string*)>& lookup);

// Note: [Command captures] Text from a log must never run as code when a reader copies a suggested
// command (a `checks` line, a hypothesis `test`). A value goes into such a template only when each
// of its characters is inert in sh (unquoted or in "..."), in a Python string literal and in
// cmd.exe: ASCII letters and digits and _ . , : / @ + = -, and it does not start with '-' (an
// option). Anything else (a space, a quote, $ ` \ ; | & < > ( ) * ? ~ ! # % ^, a control or
// non-ASCII character) makes CommandValue return the name in capitals instead: a placeholder
// the reader fills in, like the rules' own CKPT or CONTAINER.
std::string CommandValue(const std::string& name, const std::string& value);

}  // namespace triage

#endif  // TRIAGE_ENGINE_TEMPLATE_H_
