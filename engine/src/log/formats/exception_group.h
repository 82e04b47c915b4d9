// Note: [Exception groups]
// Python 3.11+ prints an ExceptionGroup as "+ Exception Group Traceback (most recent call last):", its
// frames and exception behind "| ", then each sub-exception after a "+-+---- 1 ----" / "+---- 2 ----"
// separator, indented one level deeper, and "+------" at the end. The group is a container: its cause
// is the first sub-exception; each sub-exception is an incident of its own.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_EXCEPTION_GROUP_H_
#define TRIAGE_ENGINE_LOG_FORMATS_EXCEPTION_GROUP_H_

#include <string>

namespace triage {

class Segmenter;

class ExceptionGroupReader {
 public:
  // `line` hook: sees every normalised line (after the learned prefix is stripped): rewrites the group's
  // lines into plain traceback lines. Returns false when the line was decoration only (consumed here).
  static bool LineHook(Segmenter& s, std::string* line);
  bool Rewrite(Segmenter& s, std::string* line);

 private:
  bool active_ = false;  // inside an ExceptionGroup rendering
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_EXCEPTION_GROUP_H_
