// Note: [Process tags]
// Ray's driver prints every line a worker process writes behind a tag that names the process: the
// actor's or task's name if it has one, "pid=" and the process id, and ", ip=" and the node's address
// when the worker runs on another node (python/ray/_private/worker.py, print_worker_logs):
// "(pid=909597) ", "(RayTrainWorker pid=1193, ip=10.244.4.193) ", "(WorkerDict pid=295552) ", and its
// own daemons' lines as "(raylet) " or "(raylet, ip=10.0.0.5) ". vLLM's worker processes write the same
// shape of tag before their lines ("(VllmWorkerProcess pid=2421) ", and in its v1 engine "(VllmWorker
// rank=0 pid=18959) ", "(EngineCore_DP0 pid=469) "). The tag is unambiguous where it is present: '(' at
// the very start of the line (or right after a prefix the learned-prefix reader removed, such as a
// container runtime's time stamp), at most two name words and a "rank=N", then "pid=" and digits, an
// address, ')'; nothing else is read as one. The reader removes it from that line and records the
// process as the line's rank (the tag's rank where it names one, else "pid " and the pid: a report says
// "pid 909597", never "rank 909597"), so that the lines of several workers that land between each
// other's traceback lines are told apart (Note: [Streams] in segmenter.cc). Ray's log deduplication
// appends " [repeated 3x across cluster]" to a line it has seen from several workers, and once per run
// " (Ray deduplicates logs by default. ...)" after that: on a tagged line both are removed too, since
// they are not part of what the worker wrote (an exception line would carry them into its message).
//
// Bounded: a tag is looked for in a line's first kMaxTag bytes only, and the deduplication note in its
// last kMaxNote bytes.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_PROCESS_TAG_H_
#define TRIAGE_ENGINE_LOG_FORMATS_PROCESS_TAG_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class ProcessTagReader {
 public:
  static constexpr size_t kMaxTag = 120;   // the longest tag read: '(' to ')'
  static constexpr size_t kMaxNote = 320;  // the longest tail read for Ray's deduplication note

  // `line` hook: removes a process tag (and Ray's deduplication note after the text) from *line and sets
  // the line's rank (Segmenter::set_rank). Tried twice: before the learned prefix is removed and after it.
  static bool LineHook(Segmenter& s, std::string* line);
  // The length of the process tag at the start of `line` with the blank after it (0 when none), and in
  // *process the process it names (the rank it gives, else "pid N", else the daemon's name).
  static size_t Tag(std::string_view line, std::string* process);
  // Where Ray's deduplication note starts at the end of `line` (" [repeated 2x across cluster]", maybe
  // followed by Ray's one-time explanation in parentheses); line.size() when there is none.
  static size_t NoteStart(std::string_view line);
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_PROCESS_TAG_H_
