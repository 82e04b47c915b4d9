// An exception line inside a line: after a wrapper's prefix ("ERROR: RuntimeError: ...", "- Error:
// KeyError: 'state_dict'"), in a sentence ("when I run it I get EOFError: Ran out of input"), in a
// JSON log record ({"level": "error", "msg": "ValueError: ..."}) or as the exception's repr
// ("failed with RuntimeError('CUDA error: ...')").
//
// Note: [Embedded exception lines] The bare-error-line trigger reads an exception line only where
// the line starts with its type (behind a prefix the readers strip). People paste the error inside
// other text as often: retyped into the prose, behind a log level a wrapper printed, in a
// structured log's string, or as the repr a retry loop logged. Where no trigger and no rule took such a
// line (the rules read the whole line first, so nothing they recognise changes), this reader makes it an
// error-line incident of the type and the message after it, so the rules that ask for the exception's
// type read it, and the report names an unrecognised error rather than no incident at all. Only a
// specific type is read: a name ending in Error, Exception, Failure or Interrupt with a word before the
// ending ("RuntimeError", "torch.cuda.OutOfMemoryError"; never "Error" or "Exception" alone, which
// prose and metric names use: "Mean Squared Error: 0.31"), after a blank, a quote, a backquote, an
// opening bracket or a colon, and followed by ": " (or ':' at the end) or by "('" / "(\"" (a repr). A
// message opened by a quote, a backquote or a bracket before the type ends at its last closing one; a
// repr's message is the text between its quotes. Like a bare error line's, the message may go on over
// the next lines (PythonTracebackReader::OpenErrorLine: "actual error: RuntimeError: Error(s) in loading
// state_dict for DTNet:" and its key lists). Not read: a raise statement's source line ("raise
// ValueError('...')", code rather than the failure printed), and a failure an incident kept before already
// names (pytest's short summary "FAILED ... - RuntimeError: Given groups=1,...", a sentence after the
// pasted traceback). The line is read only once the prefilter and the triggers passed it (its keywords are
// the bare error line's), so it costs nothing on lines without them.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_EMBEDDED_ERROR_H_
#define TRIAGE_ENGINE_LOG_FORMATS_EMBEDDED_ERROR_H_

#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class EmbeddedErrorReader {
 public:
  // Where an exception line is embedded in `line` (Note: [Embedded exception lines]): its type and its
  // message (both views into `line`). False when there is none, or the type starts the line (the bare
  // error line's, not this reader's).
  static bool Find(std::string_view line, std::string_view* type, std::string_view* message);
  // For a line no idle trigger took and the rules did not recognise: an error-line incident when the
  // line holds an embedded exception line.
  static bool Unrecognised(Segmenter& s, const std::string& line, std::string_view trimmed);
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_EMBEDDED_ERROR_H_
