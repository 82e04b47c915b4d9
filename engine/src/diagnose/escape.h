// Escaping log text for every output, in one place: JSON strings, terminals, HTML, Markdown and CI
// workflow commands. Whatever the input held, the output is valid UTF-8 (invalid bytes become U+FFFD)
// and log text is shown, never interpreted by what displays it.
#ifndef TRIAGE_ENGINE_ESCAPE_H_
#define TRIAGE_ENGINE_ESCAPE_H_

#include <string>
#include <string_view>

namespace triage {

// Appends `s` as a JSON string literal (with quotes) to `out`.
void AppendJsonString(std::string* out, std::string_view s);

// Returns `s` with invalid UTF-8 sequences replaced by U+FFFD.
std::string SanitizeUtf8(std::string_view s);

// Returns `s` safe to show as text: valid UTF-8 (invalid bytes become U+FFFD), and every control
// character but newline and tab written out visibly ("\x1b", "\x07", "\u009b"), so log text can
// neither move a terminal's cursor, ring its bell nor start an escape sequence (C0, DEL and C1).
std::string PrintableText(std::string_view s);

// Returns `s` as HTML text or attribute value: PrintableText, then & < > " ' as character references,
// and the '(' of "url(" and the '@' of "@import" / "@font-face" too (any case), so no log text forms a
// CSS resource reference in a page (Note: [Inert CSS in HTML text] in escape.cc).
std::string HtmlText(std::string_view s);

// Returns `s` as Markdown (GitHub-flavoured) text: PrintableText, HTML's & < > as character
// references (GitHub would render a tag such as <module>), and every punctuation character Markdown
// gives a meaning to backslash-escaped, so log text shows as written and cannot form links or tables.
std::string MarkdownText(std::string_view s);

// Returns `s` as one Markdown code span: between backtick runs longer than any inside it. Newlines
// become spaces (a span is one line).
std::string MarkdownCode(std::string_view s);

// Returns the fence (three or more backticks) for a code block holding `s`: longer than any run of
// backticks in it.
std::string MarkdownFence(std::string_view s);

// Returns `s` as the message of a GitHub Actions workflow command ("::error ...::MESSAGE"): % CR LF
// percent-encoded; with `property`, also ':' and ',' (a value inside "file=...,title=...").
std::string WorkflowCommandText(std::string_view s, bool property);

}  // namespace triage

#endif  // TRIAGE_ENGINE_ESCAPE_H_
