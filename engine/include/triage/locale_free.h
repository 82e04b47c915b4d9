// Text and numbers that read and print the same in every process, whatever its locale (Note:
// [Locale-free text] in engine/src/diagnose/locale_free.cc). The engine and its programs convert every
// number and classify every character through these, so a host that calls setlocale or
// std::locale::global (a GUI toolkit, a trainer printing in its users' language) changes no report.
//
//   std::string s = triage::FormatNumber(0.9, triage::NumberStyle::kFixed, 3);   // "0.900", never "0,900"
//   double v;
//   bool ok = triage::ParseNumber("0.25", &v);                                     // true, 0.25
#ifndef TRIAGE_LOCALE_FREE_H_
#define TRIAGE_LOCALE_FREE_H_

#include <string>
#include <string_view>

namespace triage {

// printf's two styles for a double: "%.<precision>f" (kFixed) and "%.<precision>g" (kGeneral).
enum class NumberStyle { kFixed, kGeneral };

// Appends `v` as printf would print it with `style` and `precision` in the "C" locale: '.' as the
// decimal point, no digit grouping; "inf", "-inf", "nan" and "-nan" for values that are not finite.
void AppendNumber(std::string* out, double v, NumberStyle style, int precision);
std::string FormatNumber(double v, NumberStyle style, int precision);

// Reads `text`, all of it, as a decimal number in the "C" locale: an optional sign ('+' or '-'),
// digits with an optional '.', an optional exponent ("1e-3"), or "inf", "infinity", "nan" in any case.
// No blanks, no digit grouping, no hexadecimal. False, *out unchanged, for anything else and for a
// value a double cannot hold (1e999).
bool ParseNumber(std::string_view text, double* out);

// ASCII character classes, as <cctype>'s are in the "C" locale; any other value (a byte above 127, a
// negative char, a rune) is in none of them. AsciiLower and AsciiUpper change 'A'-'Z' / 'a'-'z' only.
constexpr bool IsAsciiDigit(int c) { return c >= '0' && c <= '9'; }
constexpr bool IsAsciiUpper(int c) { return c >= 'A' && c <= 'Z'; }
constexpr bool IsAsciiLower(int c) { return c >= 'a' && c <= 'z'; }
constexpr bool IsAsciiAlpha(int c) { return IsAsciiUpper(c) || IsAsciiLower(c); }
constexpr bool IsAsciiAlnum(int c) { return IsAsciiAlpha(c) || IsAsciiDigit(c); }
constexpr bool IsAsciiXDigit(int c) { return IsAsciiDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
constexpr bool IsAsciiSpace(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }  // blank, \t \n \v \f \r
constexpr bool IsAsciiCntrl(int c) { return (c >= 0 && c < ' ') || c == 127; }
constexpr bool IsAsciiGraph(int c) { return c > ' ' && c < 127; }
constexpr bool IsAsciiPrint(int c) { return c >= ' ' && c < 127; }
constexpr bool IsAsciiPunct(int c) { return IsAsciiGraph(c) && !IsAsciiAlnum(c); }
constexpr int AsciiLower(int c) { return IsAsciiUpper(c) ? c + ('a' - 'A') : c; }
constexpr int AsciiUpper(int c) { return IsAsciiLower(c) ? c - ('a' - 'A') : c; }

}  // namespace triage

#endif  // TRIAGE_LOCALE_FREE_H_
