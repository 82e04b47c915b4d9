#include "triage/locale_free.h"

#include <charconv>
#include <system_error>

namespace triage {

// Note: [Locale-free text]
// printf, strtod, iostreams and <cctype> all consult a locale: printf and strtod the C locale's
// LC_NUMERIC (setlocale), a stream the global C++ locale it was made under (std::locale::global),
// isalpha and tolower LC_CTYPE. The engine runs inside other programs (a trainer, a notebook, a GUI)
// that may set any of them, and its output is a contract (the JSON report, rule captures, the cache),
// so a German LC_NUMERIC turned `"confidence":0.900` into `0,900` and a Latin-1 LC_CTYPE made
// isalpha true for byte 0xE9. Every number the engine prints or reads goes through
// AppendNumber/ParseNumber (std::to_chars/from_chars, which never look at a locale and give exactly
// what printf/strtod give in the "C" locale), and every character test through the IsAscii*
// functions of locale_free.h. Lua's own conversions (tostring, tonumber, string.format, `..`) run
// under a thread-local "C" locale instead (Note: [Lua in the C locale] in rules/lua_runtime.cc).
// tests/locale_test.cc checks both under a decimal-comma std::locale::global.

void AppendNumber(std::string* out, double v, NumberStyle style, int precision) {
  const std::chars_format format = style == NumberStyle::kFixed ? std::chars_format::fixed : std::chars_format::general;
  char buf[64];
  std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, v, format, precision);
  if (r.ec == std::errc()) {
    out->append(buf, r.ptr);
    return;
  }
  // "%.Nf" of a large value: up to 309 digits before the point, a sign, the point and N decimals.
  std::string big(static_cast<size_t>(precision > 0 ? precision : 0) + 330, '\0');
  r = std::to_chars(&big[0], &big[0] + big.size(), v, format, precision);
  out->append(big.data(), r.ec == std::errc() ? r.ptr : big.data());
}

std::string FormatNumber(double v, NumberStyle style, int precision) {
  std::string out;
  AppendNumber(&out, v, style, precision);
  return out;
}

bool ParseNumber(std::string_view text, double* out) {
  const char* p = text.data();
  const char* end = p + text.size();
  if (p != end && *p == '+') {
    ++p;
    if (p != end && *p == '-') return false;  // from_chars would take "+-1" as -1
  }
  double v = 0;
  std::from_chars_result r = std::from_chars(p, end, v);
  if (p == end || r.ec != std::errc() || r.ptr != end) return false;
  *out = v;
  return true;
}

}  // namespace triage
