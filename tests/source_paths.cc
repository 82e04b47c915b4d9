// The one place the build's paths enter the unit tests (source_paths.h says why).
#include "source_paths.h"

namespace triage_test {
const char* SourceDir() { return TRIAGE_SOURCE_DIR_VALUE; }
const char* TriageBinary() { return TRIAGE_BINARY_VALUE; }
}  // namespace triage_test
