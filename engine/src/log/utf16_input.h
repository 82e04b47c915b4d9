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
// Not read: a UTF-16 file concatenated after a UTF-8 one (its mark in the middle of the input).
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
