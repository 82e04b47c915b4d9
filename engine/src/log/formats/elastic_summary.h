// Note: [Elastic summary]
// torchrun's ChildFailedError is a wrapper: its summary ("=====" rules after the exception) names each
// failed rank ("[1]:", "rank      : 1", "exitcode  : -9", "traceback : ...") and the "Root Cause (first
// observed failure)". The wrapper's cause is the root-cause rank's own incident (printed earlier with
// --tee / [rankN] prefixes); a rank killed by a signal ("traceback : Signal 9 (SIGKILL) received by PID
// N") printed nothing itself, so its summary entry becomes the incident, and it is the cause of the
// wrapper and of the other ranks' "... by peer" connection errors. The copy of a rank's traceback that
// @record puts into the summary is not a second incident.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_ELASTIC_SUMMARY_H_
#define TRIAGE_ENGINE_LOG_FORMATS_ELASTIC_SUMMARY_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "log/formats/block.h"

namespace triage {

class Segmenter;

class ElasticSummaryReader final : public BlockReader {
 public:
  // Right after an exception closed: a "=====" line after a ChildFailedError starts its summary.
  bool StartAfterWrapper(Segmenter& s, std::string_view trimmed);
  void Line(Segmenter& s, const std::string& line, std::string_view trimmed) override;
  // Ends the summary: links the wrapper to its cause.
  void Close(Segmenter& s) override;

 private:
  void SummaryLine(Segmenter& s, std::string_view trimmed);
  int wrapper_ = -1;            // the ChildFailedError incident
  bool in_root_ = false;        // inside "Root Cause (first observed failure)"
  bool in_copy_ = false;        // inside a rank's traceback copied into the summary
  std::string entry_rank_;      // rank of the entry being read
  std::string root_rank_;
  int signal_ = -1;             // incident made from a "Signal N (SIG...) received by PID" entry
  std::string copy_line_;       // the copied traceback's exception line
  std::uint64_t copy_line_no_ = 0;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_ELASTIC_SUMMARY_H_
