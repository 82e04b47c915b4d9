#include "log/formats/text.h"
#include "triage/locale_free.h"


namespace triage {
namespace text {
namespace {

bool IsIdentStart(char c) { return IsAsciiAlpha(c) || c == '_'; }
bool IsIdentChar(char c) { return IsAsciiAlnum(c) || c == '_'; }

}  // namespace

size_t TypePrefix(std::string_view s) {
  if (s.empty() || !IsIdentStart(s[0])) return 0;
  size_t i = 0;
  while (i < s.size()) {
    if (IsIdentChar(s[i])) { ++i; continue; }
    if (s[i] == '.' && i + 1 < s.size() && IsIdentStart(s[i + 1])) { ++i; continue; }
    if (s[i] == ':' && i + 2 < s.size() && s[i + 1] == ':' && IsIdentStart(s[i + 2])) { i += 2; continue; }
    break;
  }
  return i;
}

bool LooksLikeExceptionType(std::string_view type) {
  size_t dot = type.find_last_of(".:");
  std::string_view last = dot == std::string_view::npos ? type : type.substr(dot + 1);
  if (last.empty() || !IsAsciiUpper(last[0])) return false;
  return EndsWith(last, "Error") || EndsWith(last, "Exception") || EndsWith(last, "Interrupt") ||
         EndsWith(last, "Failure") || last == "StopIteration" || last == "SystemExit" || EndsWith(last, "ExceptionGroup");
}

bool IsExceptionLine(std::string_view t) {
  size_t n = TypePrefix(t);
  return n > 0 && n < t.size() && t[n] == ':' && LooksLikeExceptionType(t.substr(0, n));
}

int DeepestUserFrame(const std::vector<Frame>& frames) {
  for (int i = static_cast<int>(frames.size()) - 1; i >= 0; --i) {
    if (frames[i].user && frames[i].line > 0) return i;
  }
  return -1;
}

size_t ParseInt(std::string_view s, int* value) {
  size_t i = 0;
  *value = 0;
  while (i < s.size() && IsAsciiDigit(s[i])) {
    if (*value < 100000000) *value = *value * 10 + (s[i] - '0');
    ++i;
  }
  return i;
}

bool IsLibraryFile(std::string_view f) {
  static const char* const kLibraryMarks[] = {
      "site-packages", "dist-packages", "/torch/", "\\torch\\", "/lib/python", "\\lib\\python", "\\Lib\\",
      "<frozen ", "/usr/lib/", "/usr/local/lib/", "/aten/src/", "/c10/", "lib/libtorch", "libc10",
      "/torch/csrc/", ".so"};
  for (const char* m : kLibraryMarks) {
    if (f.find(m) != std::string_view::npos) return true;
  }
  return false;
}

// Note: [Typographic characters] (text.h)
namespace {

// True when `tail` opens with words a person addresses readers with: with `asks` (the tail ends with
// '?'), also the openers of a question a message itself may hold in other words ("can you", "please").
bool AddressesReaders(std::string_view tail, bool asks) {
  static constexpr std::string_view kAlways[] = {
      "any idea", "any help", "any suggestion", "anyone", "anybody", "thanks", "thank you", "why ",
      "how can", "how do", "how to", "i get", "i got", "i am getting", "i'm getting", "when i",
      "not sure why", "no idea why", "can someone", "can anyone", "could someone", "could anyone"};
  static constexpr std::string_view kAsking[] = {"please", "help", "can you", "could you", "what should",
                                                 "what am i", "what is wrong", "what's wrong", "is there a way"};
  std::string lower(tail.substr(0, 16));
  for (char& c : lower) c = static_cast<char>(AsciiLower(static_cast<unsigned char>(c)));
  for (std::string_view opener : kAlways) {
    if (StartsWith(lower, opener)) return true;
  }
  if (!asks) return false;
  for (std::string_view opener : kAsking) {
    if (StartsWith(lower, opener)) return true;
  }
  return false;
}

}  // namespace

// Note: [Prose after a message] (text.h)
std::string_view WithoutProseTail(std::string_view msg) {
  // An unbalanced backquote: the close of a code span that opened before the type.
  if (msg.find('`') != std::string_view::npos) {
    size_t ticks = 0;
    for (char c : msg) ticks += c == '`';
    const size_t last = msg.rfind('`');
    if (ticks % 2 == 1 && last > 0 && msg[last - 1] != ' ' &&
        (last + 1 == msg.size() || std::string_view(" \t.,;:!?)").find(msg[last + 1]) != std::string_view::npos)) {
      return Trim(msg.substr(0, last));
    }
  }
  // " -- " and a tail addressed to readers.
  if (size_t dash = msg.rfind(" -- "); dash != std::string_view::npos && dash > 0) {
    const std::string_view tail = Trim(msg.substr(dash + 4));
    if (!tail.empty() && tail.size() <= 160 && (tail.back() == '?' || AddressesReaders(tail, false))) {
      return Trim(msg.substr(0, dash));
    }
  }
  for (std::string_view see : {"(see above)", "(see below)", "(see above).", "(see below)."}) {
    if (msg.size() > see.size() && EndsWith(msg, see) && msg[msg.size() - see.size() - 1] == ' ') {
      return Trim(msg.substr(0, msg.size() - see.size()));
    }
  }
  // A last clause that asks readers a question.
  if (!msg.empty() && msg.back() == '?') {
    for (size_t at = msg.size(); at-- > 1;) {
      const char c = msg[at - 1];
      if ((c == '.' || c == ',' || c == ';' || c == '!') && (msg[at] == ' ' || c == ',')) {
        const std::string_view tail = Trim(msg.substr(at));
        if (tail.size() <= 160 && AddressesReaders(tail, true)) return Trim(msg.substr(0, at - 1));
        break;
      }
    }
  }
  return msg;
}

std::string_view AfterProgressBar(std::string_view t) {
  const size_t pct = t.find("%|");
  if (pct == std::string_view::npos) return t;
  const size_t open = t.find('[', pct);
  const size_t close = open == std::string_view::npos ? open : t.find(']', open);
  if (close == std::string_view::npos) return t;
  const std::string_view inside = t.substr(open, close - open);
  if (inside.find("it/s") == std::string_view::npos && inside.find("s/it") == std::string_view::npos) return t;
  const std::string_view rest = t.substr(close + 1);
  return Trim(rest).empty() ? t : rest;
}

void NormalizeTypography(std::string* s) {
  if (s->find('\xc2') == std::string::npos && s->find('\xe2') == std::string::npos) return;
  std::string out;
  out.reserve(s->size());
  for (size_t i = 0; i < s->size(); ++i) {
    const std::string_view rest = std::string_view(*s).substr(i);
    if (rest.substr(0, 2) == "\xc2\xa0") { out += ' '; i += 1; continue; }
    if (rest.substr(0, 3) == "\xe2\x80\xaf") { out += ' '; i += 2; continue; }
    if (rest.substr(0, 3) == "\xe2\x80\x98" || rest.substr(0, 3) == "\xe2\x80\x99") { out += '\''; i += 2; continue; }
    if (rest.substr(0, 3) == "\xe2\x80\x9c" || rest.substr(0, 3) == "\xe2\x80\x9d") { out += '"'; i += 2; continue; }
    out += (*s)[i];
  }
  s->swap(out);
}

}  // namespace text
}  // namespace triage
