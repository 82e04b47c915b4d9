// Reading a category from a traceback's frames and exception class when no rule knows its message
// (Note: [Frame evidence] in frame_evidence.cc; rules/README.md "Ranking", step 9).
#ifndef TRIAGE_ENGINE_FRAME_EVIDENCE_H_
#define TRIAGE_ENGINE_FRAME_EVIDENCE_H_

#include <string>
#include <vector>

#include "triage/triage.h"

namespace triage {

// One row of the table: evidence a traceback carries whatever its message says, and the category it
// points to. Patterns are RE2; an empty one is not checked. A row with a `file` pattern is evidence from
// a library frame; a row without one, from the exception's class (and `message`, only where the class
// names a module).
struct FrameEvidenceEntry {
  std::string id;         // "oom-exception": the diagnosis' rule is "frames:" + id
  std::string exception;  // the incident's exception type as printed
  std::string file;       // a library frame's file, separators as '/'
  std::string function;   // that frame's function
  std::string message;    // the incident's message (only the module an import error names)
  std::string category;   // what the evidence points to: the measured most common category
  bool speaks = false;    // measured right often enough to answer (>= 85% over >= 5 tuning cases);
                          // otherwise the entry abstains (it is kept so that `triage eval` measures it)
  std::string reading;    // the diagnosis' hypothesis: what the evidence means
  std::string test;       // how to confirm it
  std::string fix;        // what to do then
  std::string check;      // a command a person holding only the log can run (the report's checks)
};

// The table, in the order it is consulted (Note: [Frame evidence]).
const std::vector<FrameEvidenceEntry>& FrameEvidenceTable();

// What the evidence of one incident group says.
struct FrameReading {
  const FrameEvidenceEntry* entry = nullptr;  // the deciding row; null when no row applies
  int incident = -1;                          // the incident it was read from
  std::string frame;                          // "serialization.py:1025 in _legacy_load" for a frame row
};

// Reads the group of incident `primary` (its root first, then the incidents chained to it): exception
// rows first, then every library frame from the innermost out; the first row that applies decides,
// whether it speaks or abstains. Rules are not consulted: `triage eval` uses this to measure each row
// as if no rule had matched.
FrameReading ReadFrameEvidence(const std::vector<Incident>& incidents, int primary);

// The confidence a frame reading is reported with (Note: [Frame evidence]).
constexpr double kFrameEvidenceConfidence = 0.4;

// The diagnosis for a reading whose row speaks (the caller checks `entry->speaks`).
Diagnosis FrameEvidenceDiagnosis(const std::vector<Incident>& incidents, const FrameReading& reading,
                                 Audience audience);

}  // namespace triage

#endif  // TRIAGE_ENGINE_FRAME_EVIDENCE_H_
