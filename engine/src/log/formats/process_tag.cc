#include "log/formats/process_tag.h"

#include <algorithm>

#include "log/formats/text.h"
#include "log/segmenter.h"
#include "triage/locale_free.h"

namespace triage {

namespace {

// A name word of a tag: an actor's, task's or worker's name ("RayTrainWorker", "_Inner.train",
// "EngineCore_DP0").
bool IsNameByte(char c) { return IsAsciiAlnum(c) || c == '_' || c == '.' || c == '-' || c == ':'; }

// The end of the run of digits at s[at...] (at when there is none).
size_t DigitsEnd(std::string_view s, size_t at) {
  while (at < s.size() && IsAsciiDigit(s[at])) ++at;
  return at;
}

}  // namespace

size_t ProcessTagReader::Tag(std::string_view line, std::string* process) {
  if (line.size() < 3 || line[0] != '(') return 0;
  const std::string_view head = line.substr(0, std::min(line.size(), kMaxTag));
  const size_t close = head.find(')');
  if (close == std::string_view::npos) return 0;
  const std::string_view in = head.substr(1, close - 1);
  std::string_view rank, pid;
  size_t i = 0;
  if (text::StartsWith(in, "raylet")) {
    i = 6;  // Ray's own daemon: "(raylet)", "(raylet, ip=10.0.0.5)"
  } else {
    int names = 0;
    for (;;) {
      const std::string_view rest = in.substr(i);
      if (text::StartsWith(rest, "pid=")) {
        const size_t end = DigitsEnd(in, i + 4);
        if (end == i + 4) return 0;
        pid = in.substr(i + 4, end - i - 4);
        i = end;
        break;
      }
      if (text::StartsWith(rest, "rank=")) {
        const size_t end = DigitsEnd(in, i + 5);
        if (end == i + 5 || end >= in.size() || in[end] != ' ' || !rank.empty()) return 0;
        rank = in.substr(i + 5, end - i - 5);
        i = end + 1;
        continue;
      }
      size_t end = i;
      while (end < in.size() && IsNameByte(in[end])) ++end;
      if (end == i || end >= in.size() || in[end] != ' ' || ++names > 2) return 0;
      i = end + 1;
    }
  }
  if (i < in.size()) {
    // The node's address: IPv4 or IPv6.
    if (!text::StartsWith(in.substr(i), ", ip=")) return 0;
    size_t end = i + 5;
    while (end < in.size() && (IsAsciiXDigit(in[end]) || in[end] == '.' || in[end] == ':')) ++end;
    if (end == i + 5 || end != in.size()) return 0;
  }
  *process = !rank.empty() ? std::string(rank) : !pid.empty() ? "pid " + std::string(pid) : std::string("raylet");
  size_t cut = close + 1;
  if (cut < line.size() && line[cut] == ' ') ++cut;
  return cut;
}

size_t ProcessTagReader::NoteStart(std::string_view line) {
  const size_t from = line.size() > kMaxNote ? line.size() - kMaxNote : 0;
  const std::string_view tail = line.substr(from);
  const size_t at = tail.rfind(" [repeated ");
  if (at == std::string_view::npos) return line.size();
  const size_t digits = at + 11;
  const size_t end = DigitsEnd(tail, digits);
  constexpr std::string_view kAcross = "x across cluster]";
  if (end == digits || !text::StartsWith(tail.substr(end), kAcross)) return line.size();
  const std::string_view after = tail.substr(end + kAcross.size());
  if (!after.empty() && !(text::StartsWith(after, " (Ray deduplicates logs") && after.back() == ')')) {
    return line.size();
  }
  return from + at;
}

bool ProcessTagReader::LineHook(Segmenter& s, std::string* line) {
  std::string process;
  const size_t n = Tag(*line, &process);
  if (n == 0) return true;
  line->erase(0, n);
  line->resize(NoteStart(*line));
  s.set_rank(std::move(process));
  return true;
}

}  // namespace triage
