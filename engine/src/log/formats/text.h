// Text helpers shared by the segmenter and its format readers (engine/src/log/formats/).
#ifndef TRIAGE_ENGINE_LOG_FORMATS_TEXT_H_
#define TRIAGE_ENGINE_LOG_FORMATS_TEXT_H_

#include <string>
#include <string_view>
#include <vector>

#include "triage/locale_free.h"
#include "triage/triage.h"

namespace triage {
namespace text {

// ASCII character classes (a log's bytes; no locale: triage/locale_free.h).
inline bool IsDigit(char c) { return IsAsciiDigit(c); }
inline bool IsLetter(char c) { return IsAsciiAlpha(c); }

inline bool StartsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0;
}

inline bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

inline std::string_view LTrim(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

inline std::string_view Trim(std::string_view s) {
  s = LTrim(s);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

inline bool Indented(std::string_view line) { return !line.empty() && (line[0] == ' ' || line[0] == '\t'); }

// Parses "Type: message" / "Type" where Type is a (dotted or ::-qualified) identifier. Returns the
// length of the type, or 0 when the line does not start with one.
size_t TypePrefix(std::string_view s);

// True for type names that announce an exception ("RuntimeError", "torch.cuda.OutOfMemoryError",
// "c10::Error", "KeyboardInterrupt"), not for warnings or ordinary words. Every suffix here is a
// keyword of the bare-error-line trigger (formats/registry.cc).
bool LooksLikeExceptionType(std::string_view type);

// True for "Type: message" where Type looks like an exception type.
bool IsExceptionLine(std::string_view t);

// Returns the index of the deepest frame that can be a culprit: user code with a line number (a C++
// frame, "frame #13: <unknown function> + 0x49a8 (... in ./program)", has no line to point at), or -1.
int DeepestUserFrame(const std::vector<Frame>& frames);

// Parses the digits at the start of `s` into *value; returns how many there were.
size_t ParseInt(std::string_view s, int* value);

// True for frames of torch, site-packages, the standard library and C++ frames.
bool IsLibraryFile(std::string_view file);

// Note: [Typographic characters] A log copied through a web page, a chat client or a word processor
// can come back with no-break spaces (U+00A0, U+202F) for spaces and curly quotes, single (U+2018,
// U+2019) and double (U+201C, U+201D), for the straight ones Python prints ("module ‘torch.library’ has
// no attribute ...", `File “train.py”, line 3`, `“LayerNormKernelImpl” not implemented for ‘Half’`).
// Rules are written in the characters PyTorch prints, so those six read as a space or a straight
// quote. Their UTF-8 bytes are segmenter keywords (registry.cc), so the line prefilter hands
// such a line to the segmenter, which sees it normalised (Note: [Line prefilter] in line_scanner.h).
// Of the corpus logs with a diagnosis, 54 of 706 holding a quote lost or changed it with every quote
// made curly while only the single ones were read (tests/paste_forms_test.cc). Metric extraction reads
// them so too in an input whose head holds one (Note: [Pasted series names] in pasted_names.h).
void NormalizeTypography(std::string* s);

// Note: [Text after a progress bar] A tqdm bar redrawn with '\r' and never ended with a newline leaves
// its last state in front of the next line the program writes: an exception line (`  3%|▉    | 4/127
// [00:21<11:17,  5.51s/it]RuntimeError: ...`), a warning, a log record, the shell's `Killed`, rich's box.
// tqdm draws `DESC: PCT%|BAR| N/TOTAL [ELAPSED<LEFT, RATE, POSTFIX]`, its RATE `X.XXit/s`, `X.XXs/it` or
// `?it/s`. Returns the text after such a bar, its indentation kept (rich's logging handler draws its box
// at the message column, corpus/formats/rich-handler-traceback), or `t` itself where `t` holds no bar or
// nothing but blanks follows the bar's closing bracket (a bar line of its own is left whole). The segmenter's
// Normalize reads every line so, whatever kind the text is; before, only the Python traceback reader
// did, and only for exception lines: of 1136 diagnosed corpus logs, 11 lost or changed their first
// diagnosis with a bar glued before the first line of the incident diagnosed, now none: a warnings-module
// line that its rule recognises with the bar keeps the bar (below) and is read as the warning after it
// (Note: [Warning after a progress bar] in warnings.h), and metric extraction reads the line after such a
// bar on its own (Note: [Bar before a line] in log/metrics.cc; tests/paste_forms_test.cc). Whatever stood
// before the bar goes with it (a rank prefix in front of a bar is not kept). The line prefilter hands a
// line holding `%|` to the segmenter (Inert in diagnose/engine.cc), so rules recognise it without the
// bar too; a line a rule recognises with the bar in front keeps the bar in its incident's message, as
// before, where rules may read the step it shows (rules/amp/deepspeed-lr-before-first-step-repeated.lua).
std::string_view AfterProgressBar(std::string_view t);

// Note: [Prose after a message] A person who retypes or pastes an exception line into an issue's
// sentence often goes on after it on the same line: "RuntimeError: CUDA out of memory. ... -- any idea
// why?", "`RuntimeError: ...` when I run train.py", "... (see above)". Rules that end their pattern at
// the message's end (`\s*$`, `(?m:$)`) then miss it, and the report shows the person's words as the
// failure's. Returns `msg` (an exception line's message, after "Type: ") without such a tail where the
// tail is clearly not the program's: an unbalanced backquote that a blank, punctuation or the end follows
// (the close of an inline code span opened before the type: a message's own code spans come in pairs)
// and whatever follows it; " -- " and a tail that asks a question or opens with a word people address
// readers with ("any idea", "please", "help", "thanks", ...); a last sentence or clause that does so and
// ends with '?' ("... could you help me?"; a message's own questions, "Did you mean ...?", "corrupt file?",
// open with other words); a closing "(see above)" or "(see below)". Anything else is returned as it is.
std::string_view WithoutProseTail(std::string_view msg);

}  // namespace text
}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_TEXT_H_
