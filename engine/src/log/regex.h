// The options every regex of the engine is built with, from the log path's prefilter to the rules.
#ifndef TRIAGE_ENGINE_REGEX_H_
#define TRIAGE_ENGINE_REGEX_H_

#include <re2/re2.h>

namespace triage {

// Quiet (a library does not log) and UTF-8.
inline RE2::Options RegexOptions() {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_encoding(RE2::Options::EncodingUTF8);
  return o;
}

}  // namespace triage

#endif  // TRIAGE_ENGINE_REGEX_H_
