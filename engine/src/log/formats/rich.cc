#include "log/formats/rich.h"

#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

using text::EndsWith;
using text::LTrim;
using text::ParseInt;
using text::StartsWith;
using text::Trim;

namespace {

// Characters (code points) in UTF-8 text: the columns rich counts for box drawing and ASCII text.
size_t Characters(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

size_t Indentation(std::string_view line) { return line.size() - LTrim(line).size(); }

// "path:line in function": a frame's location, or false.
bool ParseLocation(std::string_view t, Frame* f) {
  size_t in = t.find(" in ");
  if (in == std::string_view::npos) return false;
  std::string_view loc = t.substr(0, in);
  size_t colon = loc.rfind(':');
  int line = 0;
  if (colon == std::string_view::npos || loc.find(' ') != std::string_view::npos ||
      ParseInt(loc.substr(colon + 1), &line) != loc.size() - colon - 1 || line == 0) {
    return false;
  }
  std::string_view function = Trim(t.substr(in + 4));
  if (function.empty()) return false;
  f->file = std::string(loc.substr(0, colon));
  f->line = line;
  f->function = std::string(function);
  f->user = !text::IsLibraryFile(f->file);
  return true;
}

}  // namespace

bool RichReader::Start(Segmenter& s, const std::string& line, std::string_view t) {
  if (!StartsWith(t, "\u256d") || t.find("Traceback (most recent call") == std::string_view::npos) return false;
  s.readers().python.StartTraceback(s);
  RichReader& rich = s.readers().rich;
  rich.active_ = true;
  rich.expect_location_ = true;
  rich.indent_ = Indentation(line);
  rich.width_ = Characters(t);
  return true;
}

bool RichReader::BoxLine(Segmenter& s, std::string_view t) {
  if (!active_ || closed_) return false;
  static constexpr std::string_view kBar = "\u2502";      // │
  static constexpr std::string_view kArrow = "\u2771";    // ❱
  if (StartsWith(t, "\u2570")) {                          // ╰ closes the box
    closed_ = true;
    return true;
  }
  if (!StartsWith(t, kBar)) return false;
  t = Trim(t.substr(kBar.size()));
  if (EndsWith(t, kBar)) t = Trim(t.substr(0, t.size() - kBar.size()));
  Incident& open = s.open();
  if (t.empty()) {
    expect_location_ = true;
    location_.clear();
    return true;
  }
  if (StartsWith(t, kArrow)) {
    std::string_view rest = LTrim(t.substr(kArrow.size()));
    int line = 0;
    rest = rest.substr(ParseInt(rest, &line));
    // Drop the indent guides: "│   return x" -> "return x".
    for (rest = LTrim(rest); StartsWith(rest, kBar); rest = LTrim(rest.substr(kBar.size()))) {}
    if (!open.frames.empty() && open.frames.back().source.empty()) {
      open.frames.back().source = std::string(rest.substr(0, 512));
    }
    expect_location_ = false;
    return true;
  }
  Frame f;
  if (location_.empty() && ParseLocation(t, &f)) {  // a whole "path:line in function" line, wherever it is
    s.PushFrame(std::move(f));
    expect_location_ = false;
    return true;
  }
  if (!expect_location_) return true;  // a numbered source line, or one wrapped inside the window
  if (location_.size() > 4096) location_.clear();
  // A piece that filled the box was cut inside a word; a shorter one ended at a blank.
  const bool filled = width_ > 4 && Characters(t) >= width_ - 4;
  if (!location_.empty() && !location_filled_) location_ += ' ';
  location_ += t;
  location_filled_ = filled;
  if (ParseLocation(location_, &f)) {
    s.PushFrame(std::move(f));
    location_.clear();
    expect_location_ = false;
  }
  return true;
}

bool RichReader::IsExceptionLine(const std::string& line, std::string_view t) {
  if (!InMessage() || Indentation(line) != indent_) return false;
  size_t n = text::TypePrefix(t);
  if (!(n > 0 && (n == t.size() || t[n] == ':') && text::LooksLikeExceptionType(t.substr(0, n)))) return false;
  printed_ = Characters(t);
  return true;
}

bool RichReader::MessageLine(const std::string& line, std::string_view t, bool* wrapped) {
  if (!InMessage() || t.empty() || Indentation(line) != indent_) return false;
  // rich fills a line while the next word fits: a line that ends short of the width by more than the
  // next line's first word (and a blank) ended there in the message itself.
  const size_t first_word = Characters(t.substr(0, t.find(' ')));
  *wrapped = printed_ + 1 + first_word > width_;
  printed_ = Characters(t);
  return true;
}

}  // namespace triage
