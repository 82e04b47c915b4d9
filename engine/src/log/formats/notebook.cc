#include "log/formats/notebook.h"

#include "log/formats/escaped.h"
#include "log/formats/text.h"
#include "log/segmenter.h"

namespace triage {

using text::StartsWith;
using text::Trim;

bool NotebookReader::RawLineHook(Segmenter& s, std::string_view raw) { return s.readers().notebook.RawLine(s, raw); }

bool NotebookReader::RawLine(Segmenter& s, std::string_view raw) {
  if (active_) {
    std::string_view t = Trim(raw);
    if (t.size() >= 2 && t[0] == '"') {
      if (t.back() == ',') t.remove_suffix(1);
      EscapedReader::ReadEscaped(s, t.substr(1), /*json=*/true);
      return true;
    }
    active_ = false;
    s.set_raw_reading(false);
    // The array's end ends the traceback too, and any it nests in (a DataLoader wrapper around its
    // worker's traceback): the JSON after it ("    }") is no message continuation.
    s.CloseAll();
    return StartsWith(t, "]");
  }
  if (!raw.empty() && raw.back() == '[' && Trim(raw) == "\"traceback\": [") {
    active_ = true;
    s.set_raw_reading(true);
    return true;
  }
  return false;
}

}  // namespace triage
