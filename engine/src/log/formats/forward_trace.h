// Note: [Anomaly forward trace]
// Anomaly mode's warning ("... Traceback of forward call that caused the error:") holds the traceback
// of the forward call whose backward failed (indented File lines up to "(Triggered internally at
// ...)"). Those frames are appended after the frames of the backward error that follows, so its culprit
// is the user's forward line that made the NaN, not the loss.backward() call.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_FORWARD_TRACE_H_
#define TRIAGE_ENGINE_LOG_FORMATS_FORWARD_TRACE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "log/formats/block.h"
#include "triage/triage.h"

namespace triage {

class Segmenter;

class ForwardTraceReader final : public BlockReader {
 public:
  static bool Start(Segmenter& s, const std::string& line, std::string_view trimmed);
  void Line(Segmenter& s, const std::string& line, std::string_view trimmed) override;
  // Ends the forward trace: its frames wait for the next traceback.
  void Close(Segmenter& s) override;
  // `emit` hook: gives the waiting frames to `inc` (an incident about to be kept) when they explain it.
  static void Attach(Segmenter& s, Incident* inc);

 private:
  void Give(Segmenter& s, Incident* inc);
  std::vector<Frame> frames_;
  std::uint64_t line_ = 0;
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_FORWARD_TRACE_H_
