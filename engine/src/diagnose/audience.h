// Note: [Audience detection]
// With Audience::kAuto (the `triage` command's default) the report is written for the program the
// input shows. A Python program that dies in one of LibTorch's C++ threads (the NCCL watchdog, a CUDA
// error in a destructor, a DataLoader pin thread) prints the same "terminate called after throwing an
// instance of 'c10::...'" report, with a C++ backtrace and often no Python traceback, as a C++ program
// does; the report alone does not tell them apart. What does is the thread that crashed: a C++
// trainer's own uncaught exception unwinds its main thread, so its backtrace reaches `main` or
// `__libc_start_main` (`__libc_start_call_main`) of an executable that is not Python; a Python
// program's main thread runs inside the interpreter (libpython, `python3.x`, `Py_RunMain`, `_PyEval_...`,
// libtorch_python), and a LibTorch background thread starts in `start_thread`/`clone`, never in main.
// So the input is a C++ program's when a C++ error's backtrace reaches main, and nothing in the input
// is Python's: no Python traceback (a frame of a .py file outside a TorchScript report), no frame in
// the interpreter or libtorch_python. Anything else, or nothing to go on, is read as Python, the
// audience a report had before detection: a guess of C++ advice for a Python user costs more than
// the reverse, which marks Python advice "(written for Python)" at worst.
//
// Note: [Python command name]. The rules write Python commands as `python -c "..."`, `python -m ...`,
// `python train.py`: the name most installs answer to. Some answer only to `python3` (Debian's and
// Ubuntu's system Python, whose packages live in /usr/lib/python3/dist-packages, has no `python`
// unless python-is-python3 is installed). When the input shows the program run as python3 (a
// `/bin/python3` interpreter path, `python3: can't open file`, `python3: No module named`, a frame in
// /usr/lib/python3/dist-packages), the commands of every diagnosis (checks, hypothesis tests and fixes,
// the verification) say `python3`; otherwise they keep `python`, and no rule writes `python3` itself.
#ifndef TRIAGE_ENGINE_DIAGNOSE_AUDIENCE_H_
#define TRIAGE_ENGINE_DIAGNOSE_AUDIENCE_H_

#include <vector>

#include "triage/triage.h"

namespace triage {

// The audience the incidents show: kCxx for a LibTorch C++ program's own crash, else kPython.
Audience AudienceOf(const std::vector<Incident>& incidents);

// `requested` itself, unless it is kAuto: then AudienceOf(incidents).
Audience ResolveAudience(Audience requested, const std::vector<Incident>& incidents);

// Note: [Python command name]: true when the incidents show the program run as python3.
bool ShowsPython3(const std::vector<Incident>& incidents);
// `advice` with its Python commands (`python -...`, `python FILE.py`) run as python3.
std::string WithPython3(const std::string& advice);

}  // namespace triage

#endif  // TRIAGE_ENGINE_DIAGNOSE_AUDIENCE_H_
