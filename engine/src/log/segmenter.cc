#include "log/segmenter.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <map>

#include "log/formats/text.h"

namespace triage {

const char* IncidentKindName(Incident::Kind kind) {
  switch (kind) {
    case Incident::Kind::kTraceback: return "traceback";
    case Incident::Kind::kErrorLine: return "error_line";
    case Incident::Kind::kCxxError: return "cxx_error";
    case Incident::Kind::kLogLine: return "log_line";
    case Incident::Kind::kSignal: return "signal";
  }
  return "unknown";
}

using text::DeepestUserFrame;
using text::StartsWith;
using text::Trim;

namespace {

// The format table's hooks (formats/registry.h), each kind in the table's order, and its idle triggers.
struct Hooks {
  std::vector<bool (*)(Segmenter&, std::string_view)> raw_line;
  std::vector<bool (*)(Segmenter&, std::string*)> line;
  std::vector<bool (*)(std::string_view)> interrupts;
  std::vector<bool (*)(Segmenter&, const std::string&, Incident*, BlockOf*)> log_line;
  std::vector<void (*)(Segmenter&, Incident*)> emit;
  std::vector<void (*)(Segmenter&)> closed;
  std::vector<bool (*)(Segmenter&, const std::string&, std::string_view)> unrecognised;
  std::vector<const FormatEntry*> triggers;  // the rows with an idle trigger
};

const Hooks& TableHooks() {
  static const Hooks kHooks = [] {
    Hooks h;
    for (const FormatEntry& e : FormatTable()) {
      if (e.hooks.raw_line) h.raw_line.push_back(e.hooks.raw_line);
      if (e.hooks.line) h.line.push_back(e.hooks.line);
      if (e.hooks.interrupts) h.interrupts.push_back(e.hooks.interrupts);
      if (e.hooks.log_line) h.log_line.push_back(e.hooks.log_line);
      if (e.hooks.emit) h.emit.push_back(e.hooks.emit);
      if (e.hooks.closed) h.closed.push_back(e.hooks.closed);
      if (e.hooks.unrecognised) h.unrecognised.push_back(e.hooks.unrecognised);
      if (e.start) h.triggers.push_back(&e);
    }
    return h;
  }();
  return kHooks;
}

void StripAnsi(std::string* s) {
  if (s->find('\x1b') == std::string::npos) return;
  std::string out;
  out.reserve(s->size());
  for (size_t i = 0; i < s->size(); ++i) {
    char c = (*s)[i];
    if (c != '\x1b') { out += c; continue; }
    if (i + 1 >= s->size()) break;
    char n = (*s)[i + 1];
    if (n == '[') {  // CSI: parameters then one final byte in @..~
      size_t j = i + 2;
      while (j < s->size() && !((*s)[j] >= '@' && (*s)[j] <= '~')) ++j;
      i = j;
    } else if (n == ']') {  // OSC: until BEL or ESC backslash
      size_t j = i + 2;
      while (j < s->size() && (*s)[j] != '\x07' && !((*s)[j] == '\x1b' && j + 1 < s->size() && (*s)[j + 1] == '\\')) ++j;
      i = (j < s->size() && (*s)[j] == '\x1b') ? j + 1 : j;
    } else {
      i += 1;  // two-byte escape
    }
  }
  s->swap(out);
}

// Note: [Colour codes without ESC] A coloured traceback (Python 3.13's, IPython's, rich's, loguru's,
// colorama's) copied through a page or a chat client that drops control characters keeps each escape
// sequence without its ESC: "[1;35mRuntimeError[0m: [35mmat1 and mat2 ...[0m". Such a colour code is
// removed as StripAnsi removes a whole one: '[', one to three digits, more after ';', then 'm'. Only on
// a line that also holds a reset "[0m" (every colour a terminal shows is ended by one, on the same
// line in all of those), and not where the text spells the ESC out ("\u001b[0m", "\x1b[0m", "\033[0m":
// a notebook's JSON or an escaped traceback, whose readers undo the spelling themselves). "[0m" is a
// segmenter keyword (formats/registry.cc), so the line prefilter hands such a line to the segmenter.
// Of the corpus logs with a diagnosis, 64 of 798 whose tracebacks were coloured so lost or changed it
// (tests/paste_forms_test.cc).
// Note: [Escapes in caret notation] A terminal log saved or viewed through a tool that shows control
// characters as caret notation (`cat -v`, less, an editor, a container log viewer) spells each ESC "^[":
// vLLM's coloured process tag pasted as "^[[0;36m(EngineCore_DP0 pid=70073)^[[0;0m INFO 01-27 00:31:59
// [gpu_model_runner.py:3905] ..." (vllm-project/vllm#33155), arrow keys pressed while a run printed as
// "^[[A^[[B" (corpus/wild/numerics/mpiifacegaze-...). "^[" before '[' is an escape whatever the rest of
// the line holds, so such a sequence (ending in a colour's 'm', a cursor move's 'A'-'H' or 'f', an
// erase's 'J' or 'K', a scroll's 'S' or 'T') is removed on any line, and the bare codes beside it with it. A reset is any code whose
// parameters are all 0: vLLM ends its tag's colour with "[0;0m", not "[0m". "^[[" is a segmenter keyword.
void StripBareColourCodes(std::string* s) {
  const bool caret = s->find("^[[") != std::string::npos;  // Note: [Escapes in caret notation]
  if (!caret && s->find("[0m") == std::string::npos && s->find("[0;0m") == std::string::npos) return;
  auto spelled_escape = [&](size_t at) {
    const std::string_view before = std::string_view(*s).substr(0, at);
    for (std::string_view esc : {"\\u001b", "\\u001B", "\\x1b", "\\x1B", "\\033", "\\e"}) {
      if (before.size() >= esc.size() && before.substr(before.size() - esc.size()) == esc) return true;
    }
    return false;
  };
  std::string out;
  out.reserve(s->size());
  bool reset_seen = false;
  bool caret_seen = false;
  for (size_t i = 0; i < s->size(); ++i) {
    // "^[" then a control sequence: '[', parameters (digits and ';', none for a cursor key's "^[[A"), a
    // final letter of those below.
    if (caret && (*s)[i] == '^' && i + 2 < s->size() && (*s)[i + 1] == '[' && (*s)[i + 2] == '[') {
      size_t j = i + 3;
      while (j < s->size() && j - i < 16 && (((*s)[j] >= '0' && (*s)[j] <= '9') || (*s)[j] == ';')) ++j;
      // The final bytes a terminal log holds: colours, cursor moves, erases.
      if (j < s->size() && std::string_view("mABCDEFGHJKfST").find((*s)[j]) != std::string_view::npos) {
        caret_seen = true;
        i = j;
        continue;
      }
    }
    if ((*s)[i] == '[' && !spelled_escape(i)) {
      size_t j = i + 1;
      bool ok = true;
      bool zeros = true;  // every parameter 0: a reset, "[0m" or vLLM's "[0;0m"
      for (;;) {
        size_t digits = 0;
        while (j < s->size() && digits < 4 && (*s)[j] >= '0' && (*s)[j] <= '9') zeros = zeros && (*s)[j] == '0', ++j, ++digits;
        if (digits == 0 || digits > 3) { ok = false; break; }
        if (j < s->size() && (*s)[j] == ';') { ++j; continue; }
        break;
      }
      if (ok && j < s->size() && (*s)[j] == 'm') {
        reset_seen = reset_seen || (zeros && j <= i + 4);
        i = j;
        continue;
      }
    }
    out += (*s)[i];
  }
  if (reset_seen || caret_seen) s->swap(out);
}

}  // namespace

// Used to decide whether a line from another stream may end the open one.
bool Segmenter::StartsIncident(std::string_view t) {
  for (bool (*starts)(std::string_view) : TableHooks().interrupts) {
    if (starts(t)) return true;
  }
  return false;
}

Segmenter::Segmenter(SegmenterOptions options, Classifier classify)
    : options_(options), classify_(std::move(classify)) {}

std::string Segmenter::Normalize(std::string_view raw) {
  std::string bar;
  return Normalize(raw, &bar);
}

std::string Segmenter::Normalize(std::string_view raw, std::string* bar) {
  bar->clear();
  while (!raw.empty() && (raw.back() == '\r' || raw.back() == '\n')) raw.remove_suffix(1);
  // A progress bar rewrites its line with '\r': what the terminal shows is the last non-empty part.
  if (size_t cr = raw.rfind('\r'); cr != std::string_view::npos) {
    std::string_view tail = raw.substr(cr + 1);
    while (Trim(tail).empty() && cr != std::string_view::npos && cr > 0) {
      size_t prev = raw.rfind('\r', cr - 1);
      tail = raw.substr(prev == std::string_view::npos ? 0 : prev + 1, cr - (prev == std::string_view::npos ? 0 : prev + 1));
      cr = prev;
    }
    raw = tail;
  }
  // NUL bytes before the text: what a process killed mid-write can leave (corpus/data/
  // shm-file-system-strategy prints "\0Traceback ..." after its worker's bus error).
  while (!raw.empty() && raw.front() == '\0') raw.remove_prefix(1);
  // A UTF-8 byte order mark before the text: the first line of a log saved by Notepad or PowerShell's
  // Out-File -Encoding utf8BOM, or of each file concatenated into one paste. Left there, it hides an
  // exception line's type from the readers and a line's start from the rules.
  while (text::StartsWith(raw, "\xef\xbb\xbf")) raw.remove_prefix(3);
  // A UTF-16LE byte order mark there: UTF-16 text appended to a UTF-8 input is read converted from its
  // first character on, and its mark, before that, is read as two bytes (Note: [UTF-16 appended to UTF-8]).
  while (text::StartsWith(raw, "\xff\xfe")) raw.remove_prefix(2);
  std::string line(raw);
  StripAnsi(&line);
  StripBareColourCodes(&line);  // Note: [Colour codes without ESC]
  text::NormalizeTypography(&line);  // Note: [Typographic characters] in formats/text.h
  if (line.find("%|") != std::string::npos) {  // Note: [Text after a progress bar] in formats/text.h
    const std::string_view after = text::AfterProgressBar(line);
    if (after.size() != line.size()) {
      bar->assign(line, 0, line.size() - after.size());
      line = std::string(after);
    }
  }
  return line;
}

bool Segmenter::IsLibraryFile(std::string_view f) { return text::IsLibraryFile(f); }

void Segmenter::AppendMessage(Incident* inc, std::string_view text) {
  if (inc->message.size() >= options_.max_message) return;
  if (!inc->message.empty()) inc->message += '\n';
  size_t room = options_.max_message - inc->message.size();
  inc->message.append(text.substr(0, room));
}

void Segmenter::JoinMessage(Incident* inc, std::string_view text) {
  if (inc->message.size() >= options_.max_message) return;
  inc->message.append(text.substr(0, options_.max_message - inc->message.size()));
}

void Segmenter::OpenIncident(Incident inc, IncidentReaderOf reader) {
  if (state_ == State::kIdle) OpenStream();
  open_ = std::move(inc);
  incident_reader_ = reader;
  state_ = State::kIncident;
}

void Segmenter::KeepFrame(Incident* into, Frame f) {
  if (static_cast<int>(into->frames.size()) >= options_.max_frames) {
    into->frames.erase(into->frames.begin());  // keep the innermost frames: they name the failure
  }
  into->frames.push_back(std::move(f));
  ++frames_read_;
}

void Segmenter::AttachContext(Incident* inc) {
  // Log-line incidents shortly before an exception are its context (kernel assertions, warnings).
  for (int i = static_cast<int>(incidents_.size()) - 1; i >= 0; --i) {
    const Incident& prev = incidents_[i];
    if (inc->line_start - prev.line_end > options_.context_window) break;
    if (prev.kind != Incident::Kind::kLogLine) continue;
    if (static_cast<int>(inc->context.size()) >= options_.max_context) break;
    inc->context.insert(inc->context.begin(), prev.message.substr(0, 1024));
  }
}

std::vector<int> MergeIdenticalIncidents(std::vector<Incident>* incidents, size_t merge_end) {
  std::map<std::string, int> first;
  std::vector<int> remap(incidents->size());
  std::vector<Incident> out;
  for (size_t i = 0; i < incidents->size(); ++i) {
    Incident& inc = (*incidents)[i];
    if (i < merge_end) {
      std::string key = std::to_string(static_cast<int>(inc.kind)) + '\x1f' + inc.exception + '\x1f' + inc.message +
                        '\x1f' + inc.CulpritText();
      auto [it, fresh] = first.emplace(std::move(key), static_cast<int>(out.size()));
      if (!fresh) {
        out[it->second].count += inc.count;
        // Merged copies were all handled only if each was (one fatal copy makes the failure fatal).
        out[it->second].handled = out[it->second].handled && inc.handled;
        remap[i] = it->second;
        continue;
      }
    }
    remap[i] = static_cast<int>(out.size());
    out.push_back(std::move(inc));
  }
  for (Incident& inc : out) {
    if (inc.caused_by >= 0) inc.caused_by = remap[inc.caused_by];
  }
  // A link to itself (cause and effect merged) means no link.
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].caused_by == static_cast<int>(i)) out[i].caused_by = -1;
  }
  incidents->swap(out);
  return remap;
}

void Segmenter::NoteDropped(const Incident& inc) {
  ++dropped_;
  if (dropped_first_line_ == 0 || inc.line_start < dropped_first_line_) dropped_first_line_ = inc.line_start;
  dropped_last_line_ = std::max(dropped_last_line_, inc.line_end);
}

void Segmenter::Renumber(const std::vector<int>& to) {
  auto map = [&](int i) { return i >= 0 && i < static_cast<int>(to.size()) ? to[i] : -1; };
  live_exception_ = map(live_exception_);
  last_exception_ = map(last_exception_);
  pending_cause_ = map(pending_cause_);
  pending_effect_ = map(pending_effect_);
  pending_wrapper_ = map(pending_wrapper_);
  log_index_ = -1;  // the next log line starts an incident of its own
  open_.caused_by = map(open_.caused_by);
  for (Suspended& suspended : stack_) suspended.incident.caused_by = map(suspended.incident.caused_by);
  std::vector<int> links;
  for (int link : chain_links_) {
    if (map(link) >= 0) links.push_back(map(link));
  }
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  chain_links_ = std::move(links);
  completed_ = static_cast<int>(incidents_.size());
}

void Segmenter::MakeRoom() {
  // The newest few stay as they are: readers look at the last incident kept (a repeated exception
  // line, a wrapper followed by its cause).
  constexpr int kNewest = 16;
  const int bound = options_.max_incidents;
  const int before = static_cast<int>(incidents_.size());
  Renumber(MergeIdenticalIncidents(&incidents_, static_cast<size_t>(std::max(0, before - kNewest))));
  const int size = static_cast<int>(incidents_.size());
  if (size < bound - bound / 4) return;  // merging left room for an eighth of the bound at least
  // Drop the oldest incidents after the first quarter, down to half the bound.
  const int head = bound / 4, drop = size - std::max(bound / 2, kNewest);
  if (drop <= 0 || head + drop > size - kNewest) return;
  std::vector<int> to(size);
  for (int i = 0; i < size; ++i) to[i] = i < head ? i : i < head + drop ? -1 : i - drop;
  for (int i = head; i < head + drop; ++i) NoteDropped(incidents_[i]);
  incidents_.erase(incidents_.begin() + head, incidents_.begin() + head + drop);
  for (Incident& inc : incidents_) {
    if (inc.caused_by >= 0) inc.caused_by = to[inc.caused_by];
  }
  Renumber(to);
}

void Segmenter::Emit(Incident inc) {
  for (void (*attach)(Segmenter&, Incident*) : TableHooks().emit) attach(*this, &inc);
  if (inc.culprit < 0) inc.culprit = DeepestUserFrame(inc.frames);
  if (inc.kind != Incident::Kind::kLogLine) AttachContext(&inc);
  if (static_cast<int>(incidents_.size()) >= options_.max_incidents) {
    NoteDropped(inc);  // no idle line came to make room (Note: [Incident bound])
    return;
  }
  bool chained = false;
  const bool effect = pending_effect_ >= 0 && pending_effect_ < static_cast<int>(incidents_.size()) &&
                      inc.kind == Incident::Kind::kTraceback;
  if (pending_cause_ >= 0 && inc.kind == Incident::Kind::kTraceback && inc.caused_by < 0) {
    inc.caused_by = pending_cause_;
    pending_cause_ = -1;
    chained = true;
  }
  bool is_exception = inc.kind != Incident::Kind::kLogLine;
  // Note: [Handled]
  // Incident::handled marks an exception the run survived: the previous exception of this stream is
  // handled when ordinary output (lines part of no incident) came between it and this new, unchained
  // one: it was caught and logged (logging.exception, a retry loop), and the run went on. A traceback
  // announced by "Exception ignored in:" is handled itself and marks nothing. The last exception of a
  // stream is never handled. For the ranker: prefer the earliest exception group whose root is not
  // handled; fall back to the earliest group when all are.
  //
  bool ignored = is_exception && ignored_next_;
  if (ignored) {
    inc.handled = true;
    ignored_next_ = false;
  } else if (is_exception) {
    // A wrapper waiting for this incident (CellExecutionError, ProcessRaisedException) was not survived.
    if (inc.caused_by < 0 && !effect && live_exception_ >= 0 && live_exception_ != pending_wrapper_ && ordinary_lines_ > 0 &&
        incidents_[live_exception_].rank == inc.rank &&
        incidents_[live_exception_].line_end < inc.line_start) {
      incidents_[live_exception_].handled = true;
    }
    ordinary_lines_ = 0;
  }
  bool wraps = pending_wrapper_ >= 0 && inc.kind == Incident::Kind::kTraceback;
  incidents_.push_back(std::move(inc));
  if (is_exception) last_exception_ = static_cast<int>(incidents_.size()) - 1;
  if (is_exception && !ignored) live_exception_ = last_exception_;
  if (wraps) {
    if (pending_wrapper_ < last_exception_) incidents_[pending_wrapper_].caused_by = last_exception_;
    pending_wrapper_ = -1;
  }
  if (effect) {
    incidents_[pending_effect_].caused_by = static_cast<int>(incidents_.size()) - 1;
    pending_effect_ = -1;
  }
  if (chained) {
    chain_links_.push_back(static_cast<int>(incidents_.size()) - 1);
    InheritCulprit(chain_links_.back());
  }
  completed_ = static_cast<int>(incidents_.size());
}

// Note: [Chained culprit]
// In a chain ("The above exception was the direct cause ...", "During handling ..."), Python prints the
// cause's traceback only from the frame that caught it: the frames above it, often the only user code
// (the `for batch in loader:` line around a DataLoader worker's death), are printed once, in the chained
// traceback. So when a cause has no culprit of its own and the incident chained to it has one, the
// cause gets the chained traceback's frames above the catching frame (the cause's first frame, found by
// file and function; when it is not there, the frames down to the chained culprit), prepended as the
// outer part of its own stack, and its culprit is the deepest user frame among them. It repeats down a
// chain of such causes. Wrappers (a DataLoader re-raise, a ChildFailedError) are not chains: their
// cause ran in another process, and keeps its own frames.
void Segmenter::InheritCulprit(int index) {
  for (int from = index; from >= 0;) {
    if (!std::binary_search(chain_links_.begin(), chain_links_.end(), from)) return;
    const int cause = incidents_[from].caused_by;
    if (cause < 0 || cause >= from) return;
    const Incident& chained = incidents_[from];
    Incident& inc = incidents_[cause];
    if (inc.culprit >= 0 || chained.culprit < 0) return;
    size_t outer = static_cast<size_t>(chained.culprit) + 1;  // frames[0, outer) go in front
    if (!inc.frames.empty()) {
      const Frame& catcher = inc.frames.front();
      for (size_t i = chained.frames.size(); i-- > 0;) {
        if (chained.frames[i].file == catcher.file && chained.frames[i].function == catcher.function) {
          outer = i;
          break;
        }
      }
    }
    std::vector<Frame> frames(chained.frames.begin(), chained.frames.begin() + outer);
    if (DeepestUserFrame(frames) < 0) return;
    frames.insert(frames.end(), std::make_move_iterator(inc.frames.begin()), std::make_move_iterator(inc.frames.end()));
    if (static_cast<int>(frames.size()) > options_.max_frames) {
      frames.erase(frames.begin(), frames.end() - options_.max_frames);  // the innermost are kept
    }
    inc.frames = std::move(frames);
    inc.culprit = DeepestUserFrame(inc.frames);
    from = cause;
  }
}

void Segmenter::DropLastIncident() {
  incidents_.pop_back();
  completed_ = static_cast<int>(incidents_.size());
  if (last_exception_ >= static_cast<int>(incidents_.size())) last_exception_ = -1;
}

void Segmenter::CloseOpen() {
  switch (state_) {
    case State::kBlock:
      block_(readers_).Close(*this);
      return;
    case State::kIdle:
      return;
    case State::kIncident:
      break;
  }
  const bool keep = incident_reader_(readers_).Close(*this);
  state_ = State::kIdle;
  for (void (*closed)(Segmenter&) : TableHooks().closed) closed(*this);
  Incident inc = std::move(open_);
  open_ = Incident();
  // Resume an outer incident suspended while this nested one was read, now that it is done.
  if (!stack_.empty()) {
    Suspended outer = std::move(stack_.back());
    stack_.pop_back();
    outer.reader(readers_).Resume(*this, outer.incident, &inc);
    if (keep) {
      Emit(std::move(inc));
      outer.incident.caused_by = static_cast<int>(incidents_.size()) - 1;
    }
    // Note: [Empty nested incident]: a nested one with nothing to keep (a DataLoader worker's "Original
    // Traceback" header that the paste ends on) leaves its wrapper open again, with no cause.
    open_ = std::move(outer.incident);
    incident_reader_ = outer.reader;
    state_ = State::kIncident;
    return;
  }
  if (keep) Emit(std::move(inc));
}

bool Segmenter::ClassifyLine(const std::string& line, std::string_view trimmed) {
  if (!classify_) return false;
  // Note: [Text after a progress bar] in formats/text.h: a line a rule recognises with the bar glued in
  // front of it keeps the bar in its message, where the rule may read the step it shows; one recognised
  // only without the bar (`^Killed$`) is the text after it.
  if (!bar_.empty()) {
    const std::string whole = bar_ + line;
    const int key = classify_(Trim(whole));
    if (key >= 0) {
      AddLogLine(whole, key);
      return true;
    }
  }
  int key = classify_(trimmed);
  if (key < 0) return false;
  AddLogLine(line, key);
  return true;
}

bool Segmenter::JoinLogLine(std::uint64_t first_line, const std::string& record, std::string_view piece) {
  if (log_index_ >= 0 && log_index_ < static_cast<int>(incidents_.size()) &&
      incidents_[log_index_].line_end == static_cast<int>(line_no_) - 1 &&
      incidents_[log_index_].line_start == static_cast<int>(first_line)) {
    ContinueLogLine(first_line, record, piece, std::string_view());
    return true;
  }
  if (!classify_) return false;
  const int key = classify_(record);
  if (key < 0) return false;
  AddLogLine(record, key, first_line);
  return true;
}

void Segmenter::ContinueLogLine(std::uint64_t first_line, const std::string& record, std::string_view piece,
                                std::string_view cut) {
  if (log_index_ >= 0 && log_index_ < static_cast<int>(incidents_.size()) &&
      incidents_[log_index_].line_end == static_cast<int>(line_no_) - 1) {
    Incident& inc = incidents_[log_index_];
    const std::string before = inc.message.substr(0, 1024);
    // A line merged past the eighth occurrence left no text to go on from (AddLogLine).
    if (inc.count <= 8) {
      if (!cut.empty() && text::EndsWith(inc.message, cut)) inc.message.resize(inc.message.size() - cut.size());
      JoinMessage(&inc, " ");
      JoinMessage(&inc, piece);
    }
    inc.line_end = static_cast<int>(line_no_);
    log_last_line_ = line_no_;
    // The exception whose context took the record line takes the record.
    if (last_exception_ >= 0 && !incidents_[last_exception_].context.empty() &&
        incidents_[last_exception_].context.back() == before && inc.line_start == static_cast<int>(first_line)) {
      incidents_[last_exception_].context.back() = inc.message.substr(0, 1024);
    }
    return;
  }
  if (classify_) {
    const int key = classify_(record);
    if (key >= 0) {
      AddLogLine(record, key, first_line);
      return;
    }
  }
  ++ordinary_lines_;
}

// How many of a run of repeated log lines (one rule, close together) the message keeps from its start;
// the newest line follows them (Note: [Repeated log lines]).
constexpr int kRepeatedLinesKept = 8;

void Segmenter::AddLogLine(const std::string& line, int key, std::uint64_t first_line) {
  if (log_index_ >= 0 && key == log_key_ && line_no_ - log_last_line_ <= static_cast<std::uint64_t>(options_.merge_gap) &&
      log_index_ < static_cast<int>(incidents_.size())) {
    Incident& inc = incidents_[log_index_];
    inc.line_end = static_cast<int>(line_no_);
    ++inc.count;
    // Note: [Repeated log lines]. The message keeps the first eight lines and, after them, the newest
    // one: a repeated line that carries a number (a loss scaler halving its scale, a step counter) is
    // read for where it ended as well as where it started.
    if (inc.count <= kRepeatedLinesKept + 1) {
      AppendMessage(&inc, Trim(line));
    } else {
      const size_t newest = inc.message.rfind('\n');
      if (newest != std::string::npos) inc.message.resize(newest);
      AppendMessage(&inc, Trim(line));
    }
    log_last_line_ = line_no_;
    return;
  }
  Incident inc;
  inc.kind = Incident::Kind::kLogLine;
  inc.line_start = static_cast<int>(first_line != 0 ? first_line : line_no_);
  inc.line_end = static_cast<int>(line_no_);
  inc.rank = rank_;
  AppendMessage(&inc, Trim(line));
  BlockOf next = nullptr;  // the block a reader hands the next line to
  for (auto read : TableHooks().log_line) {
    if (read(*this, line, &inc, &next)) break;
  }
  // A log line shortly after an exception (kernel assertions printed late) is that exception's context too.
  if (last_exception_ >= 0) {
    Incident& ex = incidents_[last_exception_];
    if (static_cast<int>(line_no_) - ex.line_end <= options_.context_window &&
        static_cast<int>(ex.context.size()) < options_.max_context) {
      ex.context.push_back(inc.message.substr(0, 1024));
    }
  }
  Emit(std::move(inc));
  log_index_ = static_cast<int>(incidents_.size()) - 1;
  log_key_ = key;
  log_last_line_ = line_no_;
  // The reader that knew the line reads the next one (kept, nothing open), even if the scanner would skip it.
  if (next && state_ == State::kIdle && log_index_ >= 0 &&
      incidents_[log_index_].line_start == static_cast<int>(line_no_)) {
    EnterBlock(next);
  }
}

void Segmenter::AddLine(std::string_view raw) {
  // Note: [Incident bound]. Outside a block no reader holds an incident index of its own: the kept
  // incidents may be renumbered (the segmenter renumbers its own links).
  if (state_ != State::kBlock &&
      static_cast<int>(incidents_.size()) >= options_.max_incidents - options_.max_incidents / 8) {
    MakeRoom();
  }
  ++line_no_;
  prev_taken_by_ = taken_by_;
  taken_by_ = nullptr;
  read_next_indent_ = 0;
  read_next_flush_ = false;
  raw = raw.substr(0, options_.max_line);
  for (bool (*read)(Segmenter&, std::string_view) : TableHooks().raw_line) {
    if (read(*this, raw)) return;
  }
  ReadLine(raw);
}

void Segmenter::OpenStream() {
  stream_rank_ = rank_;
  stream_prefixed_ = line_prefixed_;
  evidence_ = EvidenceNow();
  quiet_lines_ = quiet_bytes_ = 0;
  foreign_lines_ = 0;
}

// Note: [Incident bound]
// An open incident (or block) lasts only while its lines keep adding evidence: a frame, message text
// kept, or a new incident replacing it. A line that adds none (a line of another stream passing by,
// a message continuation past max_message, a block that never sees its end) is counted, and once
// max_quiet_lines lines or max_quiet_bytes bytes were read since the last evidence, the incident
// closes as it stands and the line is read as if idle. Whatever a reader's state machine misses, an
// incident never outlives its evidence by more than the bound, and the prefilter (which runs only
// while idle) comes back.
bool Segmenter::CloseIfQuiet(size_t bytes) {
  ++quiet_lines_;
  quiet_bytes_ += bytes;
  if (quiet_lines_ <= static_cast<std::uint64_t>(options_.max_quiet_lines) && quiet_bytes_ <= options_.max_quiet_bytes) {
    return false;
  }
  CloseAll();
  return true;
}

bool Segmenter::IsForeign(std::string_view trimmed) const {
  return state_ != State::kIdle && (rank_ != stream_rank_ || (stream_prefixed_ && !line_prefixed_)) &&
         !StartsIncident(trimmed);
}

void Segmenter::ReadLine(std::string_view raw) {
  rank_.clear();  // a line hook sets it (Note: [Rank prefix])
  std::string line = Normalize(raw, &bar_);
  line_prefixed_ = false;  // a line hook says when the line carried its stream's prefix
  line_prefix_blanks_ = 0;
  for (bool (*rewrite)(Segmenter&, std::string*) : TableHooks().line) {
    if (!rewrite(*this, &line)) return;
  }
  std::string_view trimmed = Trim(line);
  if (state_ != State::kIdle) CloseIfQuiet(raw.size());

  // Note: [Streams]. While an incident is open, a line from another stream (another rank prefix, or
  // without the prefix its lines carry) is not part of it: other ranks' progress lines land between a
  // rank's traceback lines. Such a line only ends the open incident when it starts one of its own, or
  // when max_foreign_lines of them came in a row: the incident's stream has stopped writing (a
  // traceback logged with a prefix, then the program's own unprefixed output). The stream of an
  // incident or block is that of the line that opened it (OpenStream).
  if (IsForeign(trimmed)) {
    if (++foreign_lines_ <= options_.max_foreign_lines) {
      if (!trimmed.empty()) {
        ClassifyLine(line, trimmed);
        prev_line_ = std::string(trimmed.substr(0, 4096));
        prev_line_no_ = line_no_;
      }
      return;
    }
    CloseAll();
  }
  foreign_lines_ = 0;

  switch (state_) {
    case State::kIncident: incident_reader_(readers_).Line(*this, line, trimmed); break;
    case State::kBlock: block_(readers_).Line(*this, line, trimmed); break;
    case State::kIdle: HandleIdle(line, trimmed); break;
  }
  if (read_again_) {  // ReadLineAgain
    read_again_ = false;
    ReadLine(raw);
    return;
  }
  if (state_ != State::kIdle && !(EvidenceNow() == evidence_)) {
    evidence_ = EvidenceNow();
    quiet_lines_ = quiet_bytes_ = 0;
  }
  if (!trimmed.empty()) {
    prev_line_ = std::string(trimmed.substr(0, 4096));
    prev_line_no_ = line_no_;
  }
}

const std::vector<std::string>& Segmenter::IdleKeywords() {
  // Every keyword of formats/registry.cc's table: a line reaching HandleIdle without one of these is
  // skipped unread by the log path (Note: [Line prefilter]).
  static const std::vector<std::string> kKeywords = [] {
    std::vector<std::string> all;
    for (const FormatEntry& t : FormatTable()) {
      for (const std::string& k : t.keywords) {
        if (std::find(all.begin(), all.end(), k) == all.end()) all.push_back(k);
      }
    }
    return all;
  }();
  return kKeywords;
}

void Segmenter::HandleIdle(const std::string& line, std::string_view trimmed) {
  if (trimmed.empty()) return;
  for (const FormatEntry* t : TableHooks().triggers) {
    if (t->start(*this, line, trimmed)) {
      taken_by_ = t;
      return;
    }
  }
  if (ClassifyLine(line, trimmed)) return;
  for (bool (*unrecognised)(Segmenter&, const std::string&, std::string_view) : TableHooks().unrecognised) {
    if (unrecognised(*this, line, trimmed)) return;
  }
  ++ordinary_lines_;
}

void Segmenter::Finish() {
  CloseAll();
  completed_ = static_cast<int>(incidents_.size());
}

}  // namespace triage
