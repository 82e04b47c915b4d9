// torch.multiprocessing.spawn: after the parent's ProcessRaisedException comes "-- Process N terminated
// with the following error:" and the child's traceback; the parent's exception is its wrapper.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_MP_SPAWN_H_
#define TRIAGE_ENGINE_LOG_FORMATS_MP_SPAWN_H_

#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class MpSpawnReader {
 public:
  static bool Start(Segmenter& s, const std::string& line, std::string_view trimmed);
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_MP_SPAWN_H_
