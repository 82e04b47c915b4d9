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

}  // namespace triage

#endif  // TRIAGE_ENGINE_JSON_H_
