// Note: [pytest report]
// pytest's long report ("==== FAILURES ====" or "==== ERRORS ====") prints, per failing test, a
// "____ test_name ____" banner, then one block per frame: the source with ">" on the line that ran,
// "E   " lines holding the exception, and a location line "path.py:16: " (or "path.py:459: RuntimeError"
// for the innermost); frames pytest shows short are "path.py:1194: in _call_impl" followed by the
// indented source line. A new banner or the next "=====" section ends the test's incident.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_PYTEST_H_
#define TRIAGE_ENGINE_LOG_FORMATS_PYTEST_H_

#include <string>
#include <string_view>

#include "log/formats/block.h"

namespace triage {

class Segmenter;

class PytestReader final : public BlockReader {
 public:
  static bool Start(Segmenter& s, const std::string& line, std::string_view trimmed);
  void Line(Segmenter& s, const std::string& line, std::string_view trimmed) override;
  // Ends the report: the test being read, if it failed, is an incident.
  void Close(Segmenter& s) override;
  bool PrintsQuoteLikeLines() const override { return true; }  // ">       out = model(x)"

 private:
  void CloseTest(Segmenter& s);
  std::string source_;  // the ">" line of the block being read
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_PYTEST_H_
