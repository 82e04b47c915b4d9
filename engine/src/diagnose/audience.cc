#include "diagnose/audience.h"
#include "triage/locale_free.h"

#include <string>
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

bool ShowsPython3(const std::vector<Incident>& incidents) {
  auto shows = [](std::string_view s) {
    return Contains(s, "/bin/python3") || Contains(s, "python3: can't open file") ||
           Contains(s, "python3: No module named") || Contains(s, "/usr/lib/python3/dist-packages/");
  };
  for (const Incident& inc : incidents) {
    if (shows(inc.message)) return true;
    for (const std::string& c : inc.context) {
      if (shows(c)) return true;
    }
    for (const Frame& f : inc.frames) {
      if (shows(f.file)) return true;
    }
  }
  return false;
}

std::string WithPython3(const std::string& advice) {
  static constexpr std::string_view kName = "python ";
  std::string out;
  size_t from = 0;
  for (size_t at = advice.find(kName); at != std::string::npos; at = advice.find(kName, at + 1)) {
    // The command word alone: not ipython, cpython, my_python; then an option or a .py file.
    const char before = at == 0 ? ' ' : advice[at - 1];
    if (IsAsciiAlnum(before) || before == '_' || before == '-') continue;
    const std::string_view rest = std::string_view(advice).substr(at + kName.size());
    const std::string_view word = rest.substr(0, rest.find_first_of(" \"'`;)"));
    const bool command = (!word.empty() && word[0] == '-') ||
                         (word.size() > 3 && word.substr(word.size() - 3) == ".py");
    if (!command) continue;
    out.append(advice, from, at + 6 - from);  // up to and with "python"
    out += '3';
    from = at + 6;
  }
  out.append(advice, from, std::string::npos);
  return out;
}

}  // namespace triage
