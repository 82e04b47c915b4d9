// Note: [Interleaved tracebacks]
// A second "Traceback (most recent call last):" right after the first, before any frame: two processes
// writing to one terminal without prefixes. Python writes a traceback line by line, so their lines
// alternate; each line goes to the traceback that did not get the previous one, until one of them
// reaches its exception line. The Python traceback reader calls this one while it reads a frame section,
// and ends it when its traceback closes.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_INTERLEAVED_H_
#define TRIAGE_ENGINE_LOG_FORMATS_INTERLEAVED_H_

#include <string>
#include <string_view>

#include "triage/triage.h"

namespace triage {

class Segmenter;

class InterleavedReader {
 public:
  // On a traceback header while a traceback is open: starts reading two at once when the header
  // comes right after the open one's. Returns true when it did.
  bool Begin(Segmenter& s);
  // Gives the line to the second traceback when it is its turn; returns true when it did.
  bool FeedTwin(Segmenter& s, const std::string& line, std::string_view trimmed);
  // After the open traceback read a line: when it reached its exception line, it is complete.
  void AfterOpenLine(Segmenter& s);
  // Ends an interleaving early (a third traceback, the end of input): the twin is emitted as it stands.
  void End(Segmenter& s);

 private:
  bool active_ = false;
  Incident twin_;
  bool twin_expects_source_ = false;
  bool twin_fed_last_ = false;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_INTERLEAVED_H_
