// Minimal JSON writing: escaped strings (invalid UTF-8 becomes U+FFFD, so output is always valid).
#ifndef TRIAGE_ENGINE_JSON_H_
#define TRIAGE_ENGINE_JSON_H_

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

}  // namespace triage

#endif  // TRIAGE_ENGINE_JSON_H_
