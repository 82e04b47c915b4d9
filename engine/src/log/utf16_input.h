// Note: [UTF-16 input]
// Windows PowerShell 5 writes a redirected program's output (`python train.py > log.txt`, `2>&1 |
// Out-File`, `Tee-Object`) as UTF-16LE with a byte order mark, and a person attaches that file to an
// issue or feeds it to `triage` as it is: every ASCII byte of the traceback then has a NUL after it, and
// no reader, rule or keyword finds anything in it. Some editors and tools write UTF-16BE with its mark.
// The encoding is an input-wide decision, taken on the input's first bytes before anything else reads
// them (a session's Feed: the CLI's files, stdin and follow mode, the C API, the Python module, and
// Engine::DiagnoseText): a UTF-16 byte order mark (FF FE or FE FF), or, without one, a start of
// kSniffBytes bytes that are ASCII characters each paired with a NUL on the same side (text written
// as UTF-16 without a mark); then every byte of the input is converted to UTF-8 before the HTML-entity,
// indentation and hard-wrap checks, metric extraction and the segmenter read it. Anything else (a UTF-8
// log, one that starts with NUL bytes a killed writer left) is read as it is: the check costs a few
// byte comparisons per input.
//
// The conversion keeps no more than one code unit between calls (a code unit split across two pieces,
// or a high surrogate waiting for its low half), so memory does not grow with the input. Hostile input
// reads as text, never as an error: a lone surrogate (either half) becomes U+FFFD, and so does an odd
// byte left at the end of the input. A NUL code unit is passed on as a NUL byte (as a UTF-8 log's NUL).
//
// Note: [UTF-16 appended to UTF-8]
// Windows PowerShell 5's `>>` appends UTF-16LE to whatever the file held: a log a UTF-8 writer began
// (a logger's file handler, cmd's `>`, an earlier `> log.txt` under PowerShell 7) goes on, after the
// append, as ASCII characters each followed by a NUL, usually the run's stderr and so its traceback; the
// same when a UTF-16 file is concatenated after a UTF-8 one. A UTF-8 input is therefore looked at for
// a NUL byte (memchr, a 1 MiB slice at a time, read while it is in cache) and, where the bytes around the
// first NUL are kSniffBytes of ASCII characters each followed by a NUL (Utf16Input::StartsAppended), the
// input after that character is read as UTF-16LE (the character itself, ASCII, reads the same as UTF-8;
// a UTF-16LE byte order mark just before it, two bytes at the line's start, is dropped there by
// Segmenter::Normalize). NULs a
// killed writer left (runs of them, or one before text: no alternation) do not switch. Not read: UTF-16BE
// appended (no tool here writes it so), and UTF-8 appended after UTF-16 (the switch is one way).
#ifndef TRIAGE_ENGINE_LOG_UTF16_INPUT_H_
#define TRIAGE_ENGINE_LOG_UTF16_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace triage {

// Appends code point `cp` (at most U+10FFFF, not a surrogate) to *out as UTF-8 (also for html_entities.cc).
void AppendUtf8(std::uint32_t cp, std::string* out);

class Utf16Input {
 public:
  enum class Order { kNone, kLittle, kBig };
  // Bytes of the input's start that decide the encoding when no byte order mark does.
  static constexpr size_t kSniffBytes = 8;

  // Returns the byte order the input's first bytes show (kNone: not UTF-16) and sets *mark to the byte
  // order mark's length (2 or 0). `head` holds the input's first kSniffBytes bytes, or all of an input
  // that is shorter: that one is UTF-16 only when it starts with a byte order mark.
  static Order Detect(std::string_view head, size_t* mark);

  // True when `before` and `from_nul`, the bytes of an input read so far as UTF-8 around a NUL (the
  // byte before it, and the NUL with what follows), are kSniffBytes of ASCII characters each followed
  // by a NUL: UTF-16LE text starts at `before` (Note: [UTF-16 appended to UTF-8]). False for a killed
  // writer's NULs, and when `from_nul` holds fewer than kSniffBytes - 1 bytes.
  static bool StartsAppended(char before, std::string_view from_nul);

  Utf16Input() = default;
  explicit Utf16Input(Order order) : order_(order) {}
  bool active() const { return order_ != Order::kNone; }

  // Appends `data` (the input after its byte order mark) to *out as UTF-8; a code unit cut by the end
  // of `data`, or a high surrogate, waits for the next call.
  void Feed(std::string_view data, std::string* out);
  // Appends what waits at the end of the input: U+FFFD for an odd byte or a lone high surrogate.
  void Finish(std::string* out);

 private:
  void Unit(unsigned unit, std::string* out);

  Order order_ = Order::kNone;
  int odd_ = -1;        // a byte waiting for the other half of its code unit, or -1
  unsigned high_ = 0;   // a high surrogate waiting for its low half, or 0
};

}  // namespace triage

#endif  // TRIAGE_ENGINE_LOG_UTF16_INPUT_H_
