// Note: [Markdown escapes]
// A log pasted through a rich-text editor or a Markdown converter (an issue form's rich mode, a forum,
// a notebook's Markdown cell) comes back with Markdown's special characters escaped: "numpy.core.\_multiarray\_umath",
// "\_\_init\_\_", "\*\*kwargs", "when calling \`cublasCreate(handle)\`". Rules and frames are read as if the
// escapes were not there: the reader removes the backslash before '_', '*' and '`' in each blank-separated
// word, except in a word that is a Windows path (a backslash before a letter, a digit, a dot or another
// backslash anywhere in it, or a drive "C:\"), where "site-packages\torch\_utils.py" is the path's own
// backslash, and except in a word that escapes some '_' or '*' and leaves others bare: a converter escapes
// them all, so the backslash of "importlib\__init__.py" (a path relative to a frozen app's library) is kept.
// A word's backticks are judged apart from its '_' and '*' (an escaped and a bare backtick in one word keep
// that word as it is). A line with no backslash costs one search for it. The log path's prefilter reads
// every line holding "\_", "\*" or "\`" (the format table's keywords for this row), since an escape can
// split a keyword.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_MARKDOWN_ESCAPE_H_
#define TRIAGE_ENGINE_LOG_FORMATS_MARKDOWN_ESCAPE_H_

#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class MarkdownEscapeReader {
 public:
  // `line` hook: undoes Markdown's escapes of '_' and '*' in *line.
  static bool LineHook(Segmenter& s, std::string* line);
  // Undoes the escapes in *line (outside Windows paths); returns true when it removed one.
  static bool Unescape(std::string* line);
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_MARKDOWN_ESCAPE_H_
