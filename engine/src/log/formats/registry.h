// The log formats the segmenter reads: one reader object each (its own state, in its own file here),
// and the idle triggers, in the order they are tried on a line outside any incident. Adding a format:
// engine/README.md, "Adding a log format".
#ifndef TRIAGE_ENGINE_LOG_FORMATS_REGISTRY_H_
#define TRIAGE_ENGINE_LOG_FORMATS_REGISTRY_H_

#include <string>
#include <string_view>
#include <vector>

#include "log/formats/block.h"
#include "log/formats/cxx_error.h"
#include "log/formats/elastic_summary.h"
#include "log/formats/escaped.h"
#include "log/formats/exception_group.h"
#include "log/formats/fatal_dump.h"
#include "log/formats/forward_trace.h"
#include "log/formats/interleaved.h"
#include "log/formats/ipython.h"
#include "log/formats/learned_prefix.h"
#include "log/formats/mp_spawn.h"
#include "log/formats/notebook.h"
#include "log/formats/pytest.h"
#include "log/formats/python_traceback.h"
#include "log/formats/rich.h"
#include "log/formats/torchscript.h"
#include "log/formats/warnings.h"

namespace triage {

class Segmenter;

// One reader of each format, owned by a Segmenter (so one stream's state never leaks into another's).
struct FormatReaders {
  NotebookReader notebook;            // .ipynb error outputs (raw lines)
  EscapedReader escaped;              // tracebacks flattened with "\n" escapes, JSON strings (raw lines)
  LearnedPrefixReader learned_prefix; // a per-line log prefix (timestamps, levels, pids)
  ExceptionGroupReader exception_group;
  PythonTracebackReader python;       // "Traceback (most recent call last):", chains, bare error lines
  InterleavedReader interleaved;      // two tracebacks written line by line at once
  RichReader rich;
  IPythonReader ipython;
  TorchScriptReader torchscript;
  CxxErrorReader cxx;                 // terminate called / what() / c10::Error backtraces
  PytestReader pytest;
  ElasticSummaryReader elastic;       // torchrun's ChildFailedError summary
  FatalDumpReader fatal_dump;         // faulthandler
  ForwardTraceReader forward_trace;   // anomaly mode's forward-call traceback
  WarningsReader warnings;            // warnings-module lines and their source line
  MpSpawnReader mp_spawn;             // torch.multiprocessing.spawn's child-error banner
};

// The open block's reader, found in the readers of the segmenter reading it (a function rather than a
// pointer, so that a copied Segmenter reads its own): Block<&FormatReaders::pytest>. The open
// incident's reader likewise: IncidentBy<&FormatReaders::cxx>.
using BlockOf = BlockReader& (*)(FormatReaders& readers);
template <auto kMember>
BlockReader& Block(FormatReaders& readers) {
  return readers.*kMember;
}
using IncidentReaderOf = IncidentReader& (*)(FormatReaders& readers);
template <auto kMember>
IncidentReader& IncidentBy(FormatReaders& readers) {
  return readers.*kMember;
}

// An idle trigger: a line outside any incident that `start` acts on (it returns true when it took
// the line) holds one of `keywords` (any case), so lines with none of them can be skipped unread
// (Note: [Line prefilter] in line_scanner.h). `start` may be null: then the keywords name lines that
// must be read for another reason, given in the table.
struct IdleTrigger {
  const char* name;
  std::vector<std::string> keywords;
  bool (*start)(Segmenter& s, const std::string& line, std::string_view trimmed);
};

// The triggers in the order they are tried.
const std::vector<IdleTrigger>& IdleTriggers();

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_REGISTRY_H_
