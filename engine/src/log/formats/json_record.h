// Note: [JSON log records]
// Docker's json-file driver stores each line a container writes as a JSON object of its own,
// `{"log":"  File \"/app/x.py\", line 3, in f\n","stream":"stderr","time":"2019-05-22T07:51:24.25Z"}`,
// and people paste those files (`cat /var/lib/docker/containers/*/*-json.log`, a log shipper's input);
// Cloud Logging's exports put a line in `textPayload`, and structured loggers in `message` or `msg`.
// Read as they stand, a traceback so stored was no traceback: the frames' lines started with `{"log":"`,
// the header and the exception line carried the record's other fields after the text, and the escaped
// quotes stayed in the paths (a traceback header with "\n" after it was read as a flattened traceback
// whose last line was the record's tail). A raw line that is a JSON object, `{` first and `}` last
// (blanks aside), holding one of those keys with a string value is read as that value, its escapes
// undone and split at its "\n"s, as the escaped-traceback reader reads a JSON string (formats/escaped.h);
// the other fields (the stream, the time) are dropped. A line with none of those keys (a trainer's
// metrics dict, `{"loss": 0.5, "epoch": 1.0}`) is not taken, nor one whose traceback, flattened with
// "\n" escapes, is in another field than the text (a structured logger's `"msg": "restore failed",
// "exc": "Traceback ..."`): that is the escaped-traceback reader's, after this one in the table.
#ifndef TRIAGE_ENGINE_LOG_FORMATS_JSON_RECORD_H_
#define TRIAGE_ENGINE_LOG_FORMATS_JSON_RECORD_H_

#include <cstddef>
#include <string_view>

namespace triage {

class Segmenter;

class JsonRecordReader {
 public:
  // `raw_line` hook: reads a JSON log record's text; returns false (nothing read) for any other line.
  static bool RawLineHook(Segmenter& s, std::string_view raw);
  // Where the text of the record on `line` starts (just after the opening quote of its value), or
  // npos when the line is no such record.
  static size_t TextStart(std::string_view line);
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_FORMATS_JSON_RECORD_H_
