// Note: [Indented pastes]
// A log pasted from inside a code block, a Markdown indented block or an e-mail quote comes with every
// line indented alike: four spaces, or a tab. Readers that read a line's first column (pytest's report,
// a C++ error's frames, a CSV of metrics, a record a logger laid out in columns, a worker's crash
// handler line) then miss it: 11 of the 1094 diagnosed corpus logs lost or changed their diagnosis
// with four spaces, and 11 with a tab, before every line (tests/paste_forms_test.cc). Whether the whole
// input is such a paste is decided from the input's head (the lines a session holds to look for a hard
// wrap: Note: [Hard-wrapped pastes] in hard_wrap.h): every line of it that is not blank starts with the
// same indentation, tabs or at least four spaces (taken in fours, as code blocks and quotes indent: a
// log whose own lines are all indented by two, a traceback pasted from its first frame line, keeps
// those two). Then every line of the input that starts with that indentation is read without it, before the hard-wrap check, metric extraction and the segmenter; a
// line that does not (a blank line, a line past the head) is read as it is. Lines keep their numbers.
// Every other input pays one look at the start of each line of its head.
#ifndef TRIAGE_ENGINE_LOG_INDENTED_PASTE_H_
#define TRIAGE_ENGINE_LOG_INDENTED_PASTE_H_

#include <string>
#include <string_view>

namespace triage {

class IndentedPaste {
 public:
  // What `head` (whole lines) shows; `active()` is false for an input read as it is.
  static IndentedPaste Detect(std::string_view head);

  bool active() const { return !indent_.empty(); }
  const std::string& indent() const { return indent_; }

  // Appends `data` to *out with the indentation removed from the start of each line; the start of an
  // indentation cut by the end of `data` waits for the next call.
  void Feed(std::string_view data, std::string* out);
  // Appends what waits (the start of an indentation the input ended in).
  void Finish(std::string* out) const { out->append(indent_, 0, matched_); }

  // `text` with the indentation removed, nothing held back (for the head's own decisions).
  std::string Dedent(std::string_view text) const;

 private:
  std::string indent_;
  bool line_start_ = true;  // the next byte starts a line, or continues its indentation
  size_t matched_ = 0;      // bytes of indent_ met at the start of the current line so far
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_INDENTED_PASTE_H_
