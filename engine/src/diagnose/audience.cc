#include "diagnose/audience.h"

#include <string_view>

namespace triage {

namespace {

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// A frame of the Python interpreter or of PyTorch's Python binding (Note: [Audience detection]).
bool InPython(const Frame& f) {
  const std::string_view fn = f.function;
  return Contains(f.file, "python") || Contains(f.file, "Python") || fn.rfind("Py", 0) == 0 ||
         fn.rfind("_Py", 0) == 0 || Contains(fn, "pybind11");
}

// A frame of a Python source file: the program's own Python code (a TorchScript report quotes the
// .py file its model was exported from, which a C++ program loading it shows too).
bool PythonSource(const Incident& inc, const Frame& f) {
  if (inc.kind == Incident::Kind::kCxxError) return false;
  const std::string_view file = f.file;
  return file.size() > 3 && file.substr(file.size() - 3) == ".py";
}

// The process's main thread: the backtrace reaches main.
bool ReachesMain(const Frame& f) {
  return f.function == "main" || f.function.rfind("main(", 0) == 0 || f.function == "__libc_start_main" ||
         f.function == "__libc_start_call_main";
}

}  // namespace

Audience AudienceOf(const std::vector<Incident>& incidents) {
  bool cxx_main = false;
  for (const Incident& inc : incidents) {
    if (inc.kind == Incident::Kind::kTraceback) return Audience::kPython;
    for (const Frame& f : inc.frames) {
      if (InPython(f) || PythonSource(inc, f)) return Audience::kPython;
      if (inc.kind == Incident::Kind::kCxxError && ReachesMain(f)) cxx_main = true;
    }
  }
  return cxx_main ? Audience::kCxx : Audience::kPython;
}

Audience ResolveAudience(Audience requested, const std::vector<Incident>& incidents) {
  return requested == Audience::kAuto ? AudienceOf(incidents) : requested;
}

}  // namespace triage
