// Note: [IPython frames]
// IPython (terminal, Jupyter, Colab, nbconvert) prints "RuntimeError    Traceback (most recent call
// last)" (the type, padding, the header without its colon), then frames as "Cell In [5], line 3, in
// predict(x)", "File /path/module.py:1194, in Module._call_impl(self, ...)", "File /path/train.py:11"
// (%run), "Input In [3], in <cell line: 1>()" in 8.0-8.4, and in IPython < 8 "<ipython-input-3-1b2c> in
// <module>" or "/path/module.py in forward(self, x)" (copied from Colab with the path as a Markdown link:
// Note: [Colab frame links] in ipython.cc). Below each comes a window of numbered source lines; the arrow ("----> 3", "--> 114", "-> 1194")
// marks the line that ran, which is the frame's source (and its line number when the header had none).
#ifndef TRIAGE_ENGINE_LOG_FORMATS_IPYTHON_H_
#define TRIAGE_ENGINE_LOG_FORMATS_IPYTHON_H_

#include <string>
#include <string_view>

namespace triage {

class Segmenter;

class IPythonReader {
 public:
  // Idle trigger: the IPython header. nbclient's CellExecutionError message ends with the kernel's
  // own traceback: that traceback is the failure, and the wrapper points at it.
  static bool Start(Segmenter& s, const std::string& line, std::string_view trimmed);
  // Idle trigger: a paste that starts below the header, at a frame line at column 0 (Note: [Headerless
  // IPython frames] in ipython.cc: "/path/collate.py in default_collate(batch)" of IPython < 8, "Cell
  // In[5], line 3" and "File /path/functional.py:2846, in cross_entropy(...)" of IPython >= 8); the
  // traceback's type comes from its exception line.
  static bool StartHeaderless(Segmenter& s, const std::string& line, std::string_view trimmed);
  // A line of the open traceback's frame section; false when it is not part of it (then it is the
  // exception line or the end).
  bool SectionLine(Segmenter& s, std::string_view trimmed);
  bool active() const { return active_; }
  void Reset() { active_ = false; }

 private:
  bool ParseFrameLine(Segmenter& s, std::string_view trimmed);
  bool active_ = false;  // the open traceback is IPython's
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_IPYTHON_H_
