// The two kinds of reader the segmenter hands lines to without knowing which format they are.
//
// A block reader: a format that, once its trigger took a line, reads the lines after it alone until it
// gives them back (pytest's report, torchrun's summary, a faulthandler dump, anomaly mode's forward
// trace, a warning's source line). The segmenter knows no block format by name: it hands every line to
// the open block (Segmenter::EnterBlock) and asks it to Close when the input ends.
//
// An incident reader: a format that reads the rest of the open incident it started (a Python
// traceback's frames and message, a C++ error's what() message and backtrace) with its own state
// (Segmenter::OpenIncident, Segmenter::ReadIncident). Unlike a block, the incident is the segmenter's:
// it emits it when the reader (or the bound) closes it, and it keeps, for every reader, an incident
// suspended while a nested one is read (Segmenter::SuspendOpen), which it resumes when that closes.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_BLOCK_H_
#define TRIAGE_ENGINE_LOG_FORMATS_BLOCK_H_

#include <string>
#include <string_view>

#include "triage/triage.h"

namespace triage {

class Segmenter;
struct FormatReaders;
class BlockReader;
class IncidentReader;

// A block's or an incident's reader as the segmenter holds it: a function that finds it among the
// segmenter's own readers (formats/registry.h: Block<&FormatReaders::NAME>, IncidentBy<...>).
using BlockOf = BlockReader& (*)(FormatReaders& readers);
using IncidentReaderOf = IncidentReader& (*)(FormatReaders& readers);

class BlockReader {
 public:
  // One line of the block; ends it with Segmenter::EndBlock when the line is past it (and then hands
  // the line on, usually to Segmenter::HandleIdle).
  virtual void Line(Segmenter& s, const std::string& line, std::string_view trimmed) = 0;
  // Ends the block where it stands (the end of input): keeps what it read, then Segmenter::EndBlock.
  virtual void Close(Segmenter& s) = 0;
  // True when a traceback header read in this block may teach the learned prefix, as on an idle line
  // (Note: [Learned prefix]).
  virtual bool MayLearnPrefix() const { return false; }
  // True when the block's own lines may start with '>' followed by a blank (pytest's failing source
  // line): quote markers are then removed inside it only when the line that opened it carried them
  // (Note: [Quote markers]).
  virtual bool PrintsQuoteLikeLines() const { return false; }

 protected:
  ~BlockReader() = default;  // readers are members of FormatReaders, never deleted through this type
};

class IncidentReader {
 public:
  // One line of the open incident (Segmenter::open()); closes it with Segmenter::CloseOpen when the
  // line is past it (and then hands the line on, usually to Segmenter::HandleIdle).
  virtual void Line(Segmenter& s, const std::string& line, std::string_view trimmed) = 0;
  // The open incident closes (Segmenter::CloseOpen: the reader saw its end, the bound, the input's end):
  // completes Segmenter::open() from what was read. Returns false when it is nothing to keep.
  virtual bool Close(Segmenter&) { return true; }
  // The incident this reader suspended (Segmenter::SuspendOpen) is open again: the nested one, *inner,
  // closed and is about to be kept, as its cause. The reader goes on reading `outer` from here.
  virtual void Resume(Segmenter&, const Incident& /*outer*/, Incident* /*inner*/) {}

 protected:
  ~IncidentReader() = default;  // as BlockReader
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_BLOCK_H_
