// The paths the unit tests read the repository and run the CLI from.
//
// They are compiled into one file (source_paths.cc, the only one given the paths as -D flags), not into
// every test: a flag holding an absolute path changes each translation unit's compiler command, so a
// second checkout (a worktree, a fresh clone) missed the compiler cache on every test file and rebuilt
// them all. TRIAGE_SOURCE_DIR and TRIAGE_BINARY read as before, but as `const char*` values rather than
// string literals: write `std::string(TRIAGE_SOURCE_DIR) + "/corpus"`, not `TRIAGE_SOURCE_DIR "/corpus"`.
#pragma once

namespace triage_test {
const char* SourceDir();     // the repository's root (CMAKE_SOURCE_DIR)
const char* TriageBinary();  // the `triage` command built with the tests
}  // namespace triage_test

#define TRIAGE_SOURCE_DIR (::triage_test::SourceDir())
#define TRIAGE_BINARY (::triage_test::TriageBinary())
