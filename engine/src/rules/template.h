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
// TemplateNames by the walk RenderTemplate makes (the reference TemplateNames is tested against).
std::vector<std::string> TemplateNamesByWalk(const std::string& tmpl, std::string* error);

// Renders a template; `lookup` returns false for an unknown name, which renders as "?".
// The most bytes one rendered template keeps: the rest is cut and counted (" ... [N bytes cut]"), so
// a long capture or Lua value used many times cannot blow up a report.
constexpr std::size_t kMaxRenderedTemplate = 16 << 10;

std::string RenderTemplate(const std::string& tmpl,
                           const std::function<bool(const std::string&, std::string*)>& lookup);

// Note: [Command captures] Text from a log must never run as code when a reader copies a suggested
// command (a `checks` line, a hypothesis `test`), and it should still read as what the log said. A value
// is placed according to where it lands in the template, which is read as sh reads it (outside quotes,
// inside '...', inside "..."):
//   - made of ASCII letters and digits and _ . , : / @ + = - only: as it is, anywhere (inert in sh,
//     in a Python string literal and in cmd.exe);
//   - inside quotes the template wrote (often a Python string inside a shell string, as in
//     python -c "print(sd[\"{param}\"])"): those characters and spaces, nothing else;
//   - outside quotes: any other printable ASCII text becomes one quoted word, '392.00 MiB' (or
//     "d['k']" when it holds a single quote and none of " $ ` \), unless it holds & | < > ^ % ! (which
//     cmd.exe and PowerShell read even inside quotes) or both kinds of quote;
//   - whatever else (a control character such as a newline, non-ASCII text, a leading '-', which is an
//     option even when quoted): the name in capitals, a placeholder the reader fills in, like the
//     rules' own CKPT or CONTAINER.
// A value the rule itself wrote (`authored`: a string literal of the rule's own Lua, such as a whole
// vendor command) is placed as written, like the template's own text.
std::string CommandValue(const std::string& name, const std::string& value);  // placed outside quotes

std::string RenderCommand(const std::string& tmpl,
                          const std::function<bool(const std::string&, std::string*)>& lookup,
                          const std::function<bool(const std::string& name, const std::string& value)>& authored);

}  // namespace triage

#endif  // TRIAGE_ENGINE_TEMPLATE_H_
