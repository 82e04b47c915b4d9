// Engine and Session: bytes -> lines -> Segmenter -> incidents -> ranked diagnoses.
#include <string.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "log/beside_thread.h"
#include "log/env_facts.h"
#include "log/hard_wrap.h"
#include "log/html_entities.h"
#include "log/indented_paste.h"
#include "log/line_scanner.h"
#include "log/line_shapes.h"
#include "log/metrics.h"
#include "log/pasted_names.h"
#include "log/utf16_input.h"
#include "diagnose/ranker.h"
#include "diagnose/warning_codes.h"
#include "rules/rule.h"
#include "log/segmenter.h"

namespace triage {

std::string Incident::CulpritText() const {
  if (culprit < 0 || culprit >= static_cast<int>(frames.size())) return "";
  const Frame& f = frames[culprit];
  size_t slash = f.file.find_last_of("/\\");
  std::string out = slash == std::string::npos ? f.file : f.file.substr(slash + 1);
  out += ":" + std::to_string(f.line);
  if (!f.function.empty()) out += " in " + f.function;
  if (!f.source.empty()) out += ": " + f.source;
  return out;
}

bool Incident::CutBeforeExceptionLine() const {
  if (kind != Kind::kTraceback || message.empty()) return false;
  for (const Frame& f : frames) {
    if (f.source == message) return true;
  }
  return false;
}

namespace {

// Note: [Facts from the head and the read lines]
constexpr size_t kFactsHead = size_t{1} << 20;

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

struct Session::Impl {
  std::shared_ptr<const RuleSet> rules;
  DiagnoseOptions options;
  std::string source;
  Segmenter segmenter;
  std::string partial;         // an unfinished line carried between Feed calls (bounded)
  bool overlong = false;       // the line being read is longer than max_line (Note: [Long lines])
  bool cr_window = false;      // ... and holds a '\r': `partial` is its last max_line bytes
  std::uint64_t bytes = 0;
  std::uint64_t long_lines = 0;
  std::uint64_t long_progress_lines = 0;  // of them, lines with a '\r' whose end was kept
  size_t max_line;
  size_t peak_partial = 0;     // the most bytes `partial` held (memory accounting for tests)
  bool collect_metrics;        // some rule reads metric series (signal_rules.h, or Lua's ctx.metrics)
  MetricCollector metrics;     // fed every byte, also the lines the message path skips
  EnvFacts facts;              // likewise: what the input states about its environment (Note: [Environment facts])
  size_t facts_head_left = kFactsHead;  // bytes of the input's head still read for facts line by line
  std::vector<std::uint32_t> keywords_found;  // Inert's scratch
  std::string lowered;                         // Inert's scratch: the line in lower case
  std::vector<int> candidates;                 // Inert's scratch: the patterns whose regex runs
  LineVerdicts verdicts;                       // Inert's verdicts by line shape (Note: [Line shapes])
  bool read_patterns = false;                  // InertText's last verdict read candidates' patterns
  // Note: [Hard-wrapped pastes] (log/hard_wrap.h): the input's start is held in `head` until it shows
  // whether the input is a paste hard-wrapped at a fixed width (kHeadLines lines or kHeadBytes bytes,
  // or the end); then it is read, through `unwrap` when it is one.
  bool deciding = true;
  std::string head;
  int head_lines = 0;
  size_t replaying = 0;                        // bytes of `head` held while it is read (memory accounting)
  std::optional<HardWrap> unwrap;
  std::string joined;                          // scratch: `unwrap`'s output
  // Note: [Pasted series names] (log/pasted_names.h): also decided from the head; metric extraction
  // then reads lines with Markdown's escapes undone and translated series names in English.
  PastedNames names;
  std::string renamed;                         // scratch: `names`' output
  // Note: [HTML entities in a paste] (log/html_entities.h): also decided from the head; every byte is
  // then read decoded, before the hard-wrap check.
  HtmlEntities entities;
  std::string decoded;                         // scratch: `entities`' output
  // Note: [Indented pastes] (log/indented_paste.h): also decided from the head (once decoded); every line
  // is then read without the paste's indentation, before the hard-wrap check.
  IndentedPaste indented;
  std::string dedented;                        // scratch: `indented`'s output
  // Note: [UTF-16 input] (log/utf16_input.h): decided on the input's first bytes, before anything above
  // reads them; a UTF-16 input is then read converted to UTF-8, a slice at a time.
  bool sniffing = true;
  std::string sniff;                           // the first bytes, held until they decide (kSniffBytes)
  size_t mark_left = 0;                        // bytes of the byte order mark still to drop
  Utf16Input utf16;
  std::string utf8;                            // scratch: `utf16`'s output
  // Note: [UTF-16 appended to UTF-8] (log/utf16_input.h): a UTF-8 input is read looking for the NUL
  // where UTF-16LE text starts.
  char last_utf8 = '\n';                       // the last byte read as UTF-8
  std::string undecided;                       // a NUL near a piece's end and the bytes after it (unread)
  std::string joined_utf8;                     // scratch: `undecided` and the next piece
  // Note: [Metrics beside the scan]: the thread metric extraction runs on, and the piece it reads. Last,
  // so that it is the first to go (it is idle whenever the caller is out of Feed).
  std::string_view beside_data;
  BesideThread beside;

  Impl(std::shared_ptr<const RuleSet> r, DiagnoseOptions o, std::string s)
      : rules(std::move(r)),
        options(o),
        source(std::move(s)),
        segmenter(SegmenterOptions(), [this](std::string_view line) { return Classify(line); }),
        max_line(SegmenterOptions().max_line),
        collect_metrics(std::any_of(rules->rules.begin(), rules->rules.end(),
                                    [](const Rule& rule) { return rule.signal != nullptr || !rule.lua_chunks.empty(); })) {}

  int Classify(std::string_view line) const {
    std::vector<int> hits = rules->Match(line);
    if (hits.empty()) return -1;
    return rules->patterns[hits.front()].rule;
  }

  // True when `line`, a line the scanner stopped on, is inert after all: no idle keyword, and no rule
  // matches it (read without the segmenter's learned prefix). Decided only where Normalize would merely trim the line and no format reader strips a
  // prefix from it (no '\r', no ESC, no NUL, no leading '[', srun label or debugger prompt, no tqdm bar's
  // `%|` that text may follow: Note: [Text after a progress bar] in formats/text.h); elsewhere
  // false, and the caller reads the line the ordinary way.
  bool Inert(const LinePrefilter& pf, std::string_view line) {
    if (line.empty() || line[0] == '[' || line[0] == '\0' || line.find('\r') != std::string_view::npos ||
        line.find('\x1b') != std::string_view::npos || line.find("%|") != std::string_view::npos ||
        MayCarryLinePrefix(line)) {
      return false;
    }
    line = line.substr(0, max_line);
    // Note: [Learned prefix]: the rules see the line as the segmenter would, without the prefix it
    // learned; a record header it has not learned yet goes to it, to teach it.
    if (LogPrefix::MayStartRecord(line[0])) {
      if (size_t n = segmenter.readers().learned_prefix.prefix().Match(line); n > 0) {
        line.remove_prefix(n);
        // a debugger prompt behind it: its reader reads the command with the answer under it (Note:
        // [Debugger answers] in log/formats/pdb_prompt.h)
        if (PdbPromptReader::Prompt(line) > 0) return false;
      } else if (LogPrefix::RecordHeader(line) > 0) {
        return false;
      }
    }
    line = TrimBlanks(line);
    // Note: [Line shapes] (log/line_shapes.h): a line of a shape judged before, when that judgement
    // holds for the whole shape.
    if (!pf.shapes_blind || !verdicts.Active()) return InertText(pf, line);
    const LineVerdicts::Verdict known = verdicts.Find(line);
    if (known == LineVerdicts::kInert || known == LineVerdicts::kRead) return known == LineVerdicts::kInert;
    const bool inert = InertText(pf, line);
    if (known == LineVerdicts::kUnknown) {
      const bool decides = pf.ShapeDecides(keywords_found, line, read_patterns ? &candidates : nullptr);
      verdicts.Store(!decides ? LineVerdicts::kUndecided : inert ? LineVerdicts::kInert : LineVerdicts::kRead);
    }
    return inert;
  }

  // Inert's judgement of a line's text (its learned prefix removed, trimmed). Leaves the keywords it
  // holds in keywords_found and, when it read their patterns (read_patterns), its candidates, sorted,
  // in candidates.
  bool InertText(const LinePrefilter& pf, std::string_view line) {
    read_patterns = false;
    re2::StringPiece text(line.data(), line.size());
    // Only the patterns of the keywords the line holds can match it (LinePrefilter::keyword_patterns):
    // their own small regexes, not the whole Set, whose DFA over hundreds of patterns is slow to
    // build states for each new line.
    // Before a regex runs, a look for one of its required literals rules most out cheaply (a keyword
    // such as "index" is in many lines that hold none of "index out of range", "index_select", ...).
    // The scanner's keywords include every idle keyword: one among those found means the segmenter
    // must read the line.
    keywords_found.clear();
    pf.Scanner().KeywordsIn(line, &keywords_found);
    for (std::uint32_t k : keywords_found) {
      if (pf.idle_keyword[k]) return false;
    }
    if (keywords_found.empty()) return !(pf.unfiltered && pf.unfiltered->Match(text, nullptr));
    lowered.assign(line.data(), line.size());
    unsigned char high = 0;  // the bytes' high bits: 0 for ASCII
    for (char& c : lowered) {
      high |= static_cast<unsigned char>(c);
      c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    const bool ascii = high < 0x80;
    read_patterns = true;
    candidates.clear();
    pf.Candidates(keywords_found, lowered, &candidates);  // Note: [Anchored literals]
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    for (int p : candidates) {
      // Note: [Literal conditions]: the pattern's whole formula of literals, on an ASCII line.
      if (ascii && !pf.MayMatchLine(p, lowered)) continue;
      if (RE2::PartialMatch(text, rules->regexes[p]->Get())) return false;
    }
    return !(pf.unfiltered && pf.unfiltered->Match(text, nullptr));
  }

  // Consumes the whole lines at the start of `data` that cannot matter while the segmenter is idle
  // (Note: [Line prefilter] in line_scanner.h), keeping line numbers and the previous-line context as
  // AddLine would. Returns the bytes consumed.
  size_t SkipInert(std::string_view data) {
    const LinePrefilter& pf = *rules->prefilter;
    size_t end = data.rfind('\n');
    if (end == std::string_view::npos) return 0;
    std::string_view region = data.substr(0, end + 1);
    auto text_of = [&](std::string_view line) { return Segmenter::Normalize(line.substr(0, max_line)); };
    size_t stop = 0;            // the lines before it are inert
    std::uint64_t lines = 0;    // and there are this many
    while (stop < region.size()) {
      LineScanner::Hit hit = pf.Scanner().Find(region.substr(stop));
      size_t hit_start = stop + hit.line_start;
      if (pf.unfiltered) {
        // Patterns no keyword guards: match them on each passed line exactly as Classify would see it.
        for (; stop < hit_start; ++lines) {
          size_t nl = region.find('\n', stop);
          std::string_view raw = region.substr(stop, nl - stop);
          if (MayCarryLinePrefix(raw) || pf.unfiltered->Match(TrimBlanks(text_of(raw)), nullptr)) break;
          stop = nl + 1;
        }
        if (stop < hit_start) break;
      } else {
        lines += hit.newlines;
        stop = hit_start;
      }
      if (!hit.found) break;
      size_t nl = region.find('\n', stop);
      if (!Inert(pf, region.substr(stop, nl - stop))) break;
      ++lines;
      stop = nl + 1;
    }
    // Only the last line that is not blank once normalised leaves a trace in an idle segmenter (the
    // previous-line context of a C++ "Exception raised from" block): replay it, count the others.
    std::uint64_t after = 0;
    for (size_t line_end = stop; line_end > 0; ++after) {
      size_t nl = line_end >= 2 ? region.rfind('\n', line_end - 2) : std::string_view::npos;
      size_t begin = nl == std::string_view::npos ? 0 : nl + 1;
      std::string_view line = region.substr(begin, line_end - 1 - begin);
      if (!TrimBlanks(text_of(line)).empty()) {
        CountLongLines(region.substr(0, begin));
        segmenter.SkipLines(lines - after - 1);
        Append(line);  // read as Feed reads a line
        EndLine();
        CountLongLines(region.substr(line_end, stop - line_end));
        segmenter.SkipLines(after);
        return stop;
      }
      line_end = begin;
    }
    CountLongLines(region.substr(0, stop));
    segmenter.SkipLines(lines);
    return stop;
  }

  // Counts the lines of `text` (whole lines, each ending in '\n') longer than max_line, as EndLine
  // would: lines the prefilter skips unread are cut all the same (Note: [Long lines]). Looks at a few
  // bytes per max_line of text: a line that fits leaves a '\n' within any max_line + 1 bytes from its
  // start.
  void CountLongLines(std::string_view text) {
    size_t p = 0;
    while (text.size() - p > max_line + 1) {
      const void* nl = memrchr(text.data() + p, '\n', max_line + 1);
      if (nl) {
        p = static_cast<size_t>(static_cast<const char*>(nl) - text.data()) + 1;
        continue;
      }
      size_t end = text.find('\n', p + max_line + 1);
      ++long_lines;
      if (text.substr(p, end - p).find('\r') != std::string_view::npos) ++long_progress_lines;
      p = end + 1;
    }
  }

  static constexpr size_t kUtf16Slice = 64 * 1024;  // bytes of UTF-16 converted at a time
  // Bytes of UTF-8 looked at for a NUL, then read, at a time (Note: [UTF-16 appended to UTF-8]): large
  // enough that the reads' own cost per call stays out of sight (64 KiB slices cost a tqdm log's long
  // lines ~10% more instructions, cut at each slice's end), small enough to be read while still in cache.
  static constexpr size_t kNulSlice = 1024 * 1024;

  void Feed(std::string_view data) {
    bytes += data.size();
    if (sniffing) {
      if (sniff.empty() && data.size() >= Utf16Input::kSniffBytes) {
        DecideEncoding(data.substr(0, Utf16Input::kSniffBytes));  // the whole start in this piece: no copy
      } else {
        const size_t take = std::min(data.size(), Utf16Input::kSniffBytes - sniff.size());
        sniff.append(data.substr(0, take));
        data.remove_prefix(take);
        if (sniff.size() < Utf16Input::kSniffBytes) return;
        EndSniff();
      }
    }
    FeedBytes(data);
  }

  void DecideEncoding(std::string_view start) {
    sniffing = false;
    utf16 = Utf16Input(Utf16Input::Detect(start, &mark_left));
  }

  // Decides on the bytes held (all of the input, at its end) and reads them.
  void EndSniff() {
    DecideEncoding(sniff);
    std::string held;
    held.swap(sniff);
    FeedBytes(held);
  }

  void FeedBytes(std::string_view data) {
    if (mark_left > 0) {
      const size_t drop = std::min(mark_left, data.size());
      data.remove_prefix(drop);
      mark_left -= drop;
    }
    if (!utf16.active()) {
      data = FeedUtf8(data);
      if (data.empty()) return;
    }
    while (!data.empty()) {
      const std::string_view slice = data.substr(0, kUtf16Slice);
      utf8.clear();
      utf16.Feed(slice, &utf8);
      FeedText(utf8);
      data.remove_prefix(slice.size());
    }
  }

  // Reads `data` as UTF-8 until UTF-16LE text starts in it (Note: [UTF-16 appended to UTF-8] in
  // log/utf16_input.h), a slice of kNulSlice bytes at a time, looked at for a NUL, then read. Returns
  // the bytes left to read as UTF-16 (then `utf16` is active), or nothing. A NUL too near the end of
  // `data` to decide on is held in `undecided` with what follows it (fewer than kSniffBytes bytes) and
  // decided with the next piece, copied after them into `joined_utf8` (one piece, only then).
  std::string_view FeedUtf8(std::string_view data) {
    if (!undecided.empty()) {
      joined_utf8.swap(undecided);
      joined_utf8.append(data);
      undecided.clear();
      data = joined_utf8;
    }
    size_t from = 0;
    while (from < data.size()) {
      const size_t end = std::min(data.size(), from + kNulSlice);
      size_t p = from;
      for (;;) {
        const void* nul = memchr(data.data() + p, '\0', end - p);
        if (nul == nullptr) {
          p = end;
          break;
        }
        p = static_cast<size_t>(static_cast<const char*>(nul) - data.data());
        if (data.size() - p < Utf16Input::kSniffBytes - 1) {  // too near the end to decide: held
          if (p > from) FeedUtf8Text(data.substr(from, p - from));
          undecided.assign(data.substr(p));
          return {};
        }
        const char before = p > 0 ? data[p - 1] : last_utf8;  // `undecided` was not read: last_utf8 is before it
        if (Utf16Input::StartsAppended(before, data.substr(p))) {
          // The character before the NUL is ASCII: read as UTF-8 it is itself (a UTF-16LE byte order mark
          // before it is left to Segmenter::Normalize, which drops it from the line's start).
          FeedUtf8Text(data.substr(from, p - from));
          utf16 = Utf16Input(Utf16Input::Order::kLittle);
          std::string_view rest = data.substr(p + 1);
          if (data.data() != joined_utf8.data()) return rest;
          FeedBytes(rest);  // the joined copy dies here: read the rest now
          std::string().swap(joined_utf8);
          return {};
        }
        if (++p >= end) break;
      }
      FeedUtf8Text(data.substr(from, end - from));
      from = end;
    }
    if (data.data() == joined_utf8.data()) std::string().swap(joined_utf8);
    return {};
  }

  void FeedUtf8Text(std::string_view text) {
    if (text.empty()) return;
    last_utf8 = text.back();
    FeedText(text);
  }

  // The end of the input for the encoding: what the UTF-16 conversion holds, or bytes held undecided.
  void FinishBytes() {
    if (sniffing) EndSniff();
    if (!undecided.empty()) {
      std::string held;
      held.swap(undecided);
      FeedUtf8Text(held);
    }
    if (!utf16.active()) return;
    utf8.clear();
    utf16.Finish(&utf8);
    FeedText(utf8);
  }

  // Reads text (UTF-8, or bytes read as they are).
  void FeedText(std::string_view data) {
    if (deciding) {
      size_t take = 0;
      while (take < data.size() && head_lines < HardWrap::kHeadLines && head.size() + take < HardWrap::kHeadBytes) {
        const size_t room = HardWrap::kHeadBytes - head.size() - take;
        const void* nl = memchr(data.data() + take, '\n', std::min(room, data.size() - take));
        if (nl == nullptr) {
          take += std::min(room, data.size() - take);
        } else {
          take = static_cast<size_t>(static_cast<const char*>(nl) - data.data()) + 1;
          ++head_lines;
        }
      }
      const bool complete = head_lines == HardWrap::kHeadLines || head.size() + take == HardWrap::kHeadBytes;
      if (complete && head.empty()) {
        // The whole head is in this piece (a file read in large pieces): decided in place, and the
        // piece read as it came, with no copy.
        const std::string_view lines = data.substr(0, take);
        DecideOn(lines.substr(0, lines.rfind('\n') + 1));
        Read(data);
        return;
      }
      head.append(data.substr(0, take));
      peak_partial = std::max(peak_partial, head.size());
      data.remove_prefix(take);
      if (!complete) return;
      Decide(false);
    }
    Read(data);
  }

  void DecideOn(std::string_view lines) {
    deciding = false;
    entities = HtmlEntities::Detect(lines);
    std::string head_decoded;
    if (entities.active()) {
      head_decoded = HtmlEntities::Decode(lines);
      lines = head_decoded;
    }
    indented = IndentedPaste::Detect(lines);
    std::string head_dedented;
    if (indented.active()) {
      head_dedented = indented.Dedent(lines);
      lines = head_dedented;
    }
    if (int words = HardWrap::DetectWordWidth(lines); words > 0) {
      unwrap.emplace(words, HardWrap::kMaxJoinedLines, true);  // Note: [Word-wrapped pastes]
    } else if (int width = HardWrap::DetectWidth(lines); width > 0) {
      unwrap.emplace(width);
    }
    names = PastedNames::Detect(lines);
  }

  // Ends the head: decides from its whole lines (from all of it at the end of the input) and reads it.
  void Decide(bool at_end) {
    std::string_view lines(head);
    if (!at_end) lines = lines.substr(0, lines.rfind('\n') + 1);
    DecideOn(lines);
    replaying = head.size();
    Read(head);
    replaying = 0;
    std::string().swap(head);
  }

  // Reads bytes past the hard-wrap decision.
  void Read(std::string_view data) {
    if (data.empty()) return;
    if (entities.active()) {
      decoded.clear();
      entities.Feed(data, &decoded);
      data = decoded;
    }
    if (indented.active()) {
      dedented.clear();
      indented.Feed(data, &dedented);
      data = dedented;
    }
    ReadDecoded(data);
  }

  void ReadDecoded(std::string_view data) {
    if (unwrap) {
      joined.clear();
      unwrap->Feed(data, &joined);
      ReadLines(joined);
    } else {
      ReadLines(data);
    }
  }

  // Note: [Facts from the head and the read lines]
  // Environment facts are read from every line of the input's first kFactsHead bytes (to the end of the
  // line that crosses it), where banners, flags and collect_env output stand, and after that only from
  // the lines the segmenter reads (a traceback's paths, an error's own line), never from the lines the
  // prefilter skips: reading every line of a long log cost ~5 ms a MiB (a dozen substring scans a line),
  // 4-6x the whole scan's time on the bench's metric logs. Every corpus log is shorter than the head.
  // Since Note: [Facts prefilter] (log/env_facts.cc) only lines holding a check's byte pair reach the
  // checks: the head of a metric log costs ~1 M instructions instead of 20-37 M (callgrind). The lines
  // read past the head go through the same fingerprint (EnvFacts::ReadLine): a tqdm log's lines of 50
  // '\r' redraws each, which the segmenter reads, cost ~6% of its time in AddLine's checks before.
  // Returns where in `data` the lines left to the read path begin.
  const char* FeedFactsHead(std::string_view data) {
    if (facts_head_left == 0) return data.data();
    size_t take = std::min(data.size(), facts_head_left);
    if (take < data.size()) {
      size_t nl = data.find('\n', take);
      take = nl == std::string_view::npos ? data.size() : nl + 1;
    }
    facts.Feed(data.substr(0, take));
    facts_head_left = take < data.size() || take >= facts_head_left ? 0 : facts_head_left - take;
    return data.data() + take;
  }

  // Note: [Metrics beside the scan]
  // Metric extraction reads every byte and nothing else reads its state until a report is made, so a
  // large piece's metrics are read on a second thread while this one scans it (BesideThread, Note:
  // [Work beside the caller] in log/beside_thread.h), and the read of the piece ends when both have.
  // Half the instructions a byte of a metric-heavy log are the metric reader's (callgrind,
  // tests/bench/README.md), so on two cores the wall time falls by up to half; the CPU time does not.
  // Pieces under kBesideAtLeast (a monitor's few lines, a short log) are read on the caller's thread
  // alone, and DiagnoseOptions::threads = 1 keeps every piece there.
  static constexpr size_t kBesideAtLeast = size_t{64} << 10;

  void ReadLines(std::string_view data) {
    if (collect_metrics && data.size() >= kBesideAtLeast && options.threads != 1 && BesideThread::Worthwhile()) {
      beside_data = data;
      if (beside.Start([](void* self) { static_cast<Impl*>(self)->FeedMetrics(static_cast<Impl*>(self)->beside_data); },
                       this)) {
        try {
          ScanLines(data);
        } catch (...) {
          beside.WaitQuietly();  // `data` may die with the exception: the metrics read of it ends first
          throw;
        }
        beside.Wait();
        return;
      }
    }
    if (collect_metrics) FeedMetrics(data);
    ScanLines(data);
  }

  // The read path of a piece: the keyword scan, the segmenter and the environment facts.
  void ScanLines(std::string_view data) {
    const char* facts_from = FeedFactsHead(data);
    if (rules->prefilter) rules->prefilter->Scanned(data.size());  // Note: [Lazy anchor layout]
    while (!data.empty()) {
      // A line a line hook asked for (a wrapped log record's continuation) is read whatever it holds.
      if (!overlong && partial.empty() && rules->prefilter && segmenter.idle() && !segmenter.WantsLine(data)) {
        data.remove_prefix(SkipInert(data));
        if (data.empty()) return;
      }
      size_t nl = data.find('\n');
      std::string_view piece = data.substr(0, nl);
      if (!overlong && partial.empty() && nl != std::string_view::npos && piece.size() <= max_line) {
        if (piece.data() >= facts_from) facts.ReadLine(piece);
        segmenter.AddLine(piece);  // the common case: a whole line inside this buffer, no copy
      } else {
        Append(piece);
        if (nl != std::string_view::npos) {
          if (facts_head_left == 0 && piece.data() >= facts_from) facts.ReadLine(partial);
          EndLine();
        }
      }
      if (nl == std::string_view::npos) return;
      data.remove_prefix(nl + 1);
    }
  }

  void FeedMetrics(std::string_view data) {
    if (!names.active()) {
      metrics.Feed(data);
      return;
    }
    renamed.clear();
    names.Feed(data, &renamed);
    metrics.Feed(renamed);
  }

  // Note: [Long lines]
  // A line is read up to max_line bytes. Of a longer line, the first max_line bytes are kept, except
  // when it holds a carriage return: a progress bar that rewrote itself for more than max_line bytes,
  // often with the first line of a traceback printed after its last state. A terminal shows the end of
  // such a line, so the end is kept: the last max_line bytes from the first carriage return on. Either
  // way the report's `long-line` warning counts the cut lines and says which part was kept.
  void Append(std::string_view piece) {
    if (!overlong) {
      size_t room = max_line - partial.size();
      if (piece.size() <= room) {
        partial.append(piece);
        peak_partial = std::max(peak_partial, partial.size() + replaying);
        return;
      }
      partial.append(piece.substr(0, room));
      piece.remove_prefix(room);
      overlong = true;
      cr_window = partial.find('\r') != std::string::npos;
    }
    if (!cr_window) {
      size_t cr = piece.find('\r');
      if (cr == std::string_view::npos) return;  // the rest of a long line is dropped
      cr_window = true;
      partial.clear();
      piece.remove_prefix(cr);
    }
    if (piece.size() >= max_line) {
      partial.assign(piece.substr(piece.size() - max_line));
    } else {
      partial.erase(0, partial.size() + piece.size() > max_line ? partial.size() + piece.size() - max_line : 0);
      partial.append(piece);
    }
    peak_partial = std::max(peak_partial, partial.size() + replaying);
  }

  void EndLine() {
    if (overlong) {
      ++long_lines;
      if (cr_window) ++long_progress_lines;
    }
    segmenter.AddLine(partial);
    partial.clear();
    overlong = cr_window = false;
  }

  Report MakeReport(Segmenter& seg) const {
    Report report;
    report.source = source;
    report.audience = options.audience;
    report.rule_sources = rules->sources;
    report.incidents = seg.incidents();
    report.lines = seg.lines();
    report.bytes = bytes;
    MergeIdenticalIncidents(&report.incidents);
    if (long_lines > 0) {
      Problem p;
      p.severity = Problem::Severity::kWarning;
      p.code = WarningCodeName(WarningCode::kLongLine);
      p.file = source;
      p.message = std::to_string(long_lines) + " line(s) longer than " + std::to_string(max_line) +
                  " bytes were cut to that length";
      if (long_progress_lines > 0) {
        p.message += "; " + std::to_string(long_progress_lines) +
                     " of them rewritten with carriage returns (a progress bar): their last " +
                     std::to_string(max_line) + " bytes were read, the text before was lost";
      }
      report.warnings.push_back(p);
    }
    if (seg.dropped_incidents() > 0) {
      Problem p;
      p.severity = Problem::Severity::kWarning;
      p.code = WarningCodeName(WarningCode::kTooManyIncidents);
      p.file = source;
      p.message = std::to_string(seg.dropped_incidents()) + " incident(s) in lines " +
                  std::to_string(seg.dropped_first_line()) + "-" + std::to_string(seg.dropped_last_line()) +
                  " were not kept: over " + std::to_string(SegmenterOptions().max_incidents) +
                  " distinct incidents, the first and the newest are kept";
      report.warnings.push_back(p);
    }
    EnvFacts facts_read = facts;  // a copy: a snapshot must not end the input
    facts_read.Finish();
    const bool joined_rows = unwrap && unwrap->joined_rows() > 0;
    if (joined_rows) {
      // Lines of the input, not of the joined text (Note: [Hard-wrapped pastes]).
      report.lines += unwrap->joined_rows();
      for (Incident& inc : report.incidents) MapLines(&inc);
    }
    if (collect_metrics) {
      // A copy: a snapshot must not end the input. On the heap, not the stack: the collector is ~88 KB,
      // and a copy on the stack took ~22 fresh stack pages, a page fault each, at every start that
      // reported (Note: [Heap on huge pages] in bindings/cli/main.cc: the heap's pages are there).
      const auto all = std::make_unique<MetricCollector>(metrics);
      if (names.active()) {
        std::string rest;
        names.Pending(&rest);  // the unfinished last line it holds
        all->Feed(rest);
      }
      all->FinishInput();
      if (joined_rows) all->MapLines([this](std::uint64_t line) { return unwrap->FirstRow(line); });
      const size_t read = report.incidents.size();
      Diagnose(*rules, options, &report, all.get(), &facts_read);
      // Incidents Diagnose adds (metric signatures) span lines of the joined text.
      if (joined_rows) {
        for (size_t i = read; i < report.incidents.size(); ++i) {
          if (report.incidents[i].kind == Incident::Kind::kSignal) continue;  // from the mapped points
          MapLines(&report.incidents[i]);
        }
      }
    } else {
      Diagnose(*rules, options, &report, nullptr, &facts_read);
    }
    return report;
  }

  void MapLines(Incident* inc) const {
    if (inc->line_start > 0) inc->line_start = static_cast<int>(unwrap->FirstRow(static_cast<std::uint64_t>(inc->line_start)));
    if (inc->line_end > 0) inc->line_end = static_cast<int>(unwrap->LastRow(static_cast<std::uint64_t>(inc->line_end)));
  }
};

Session::Session(std::shared_ptr<const RuleSet> rules, DiagnoseOptions options, std::string source)
    : impl_(std::make_unique<Impl>(std::move(rules), options, std::move(source))) {}
Session::~Session() = default;
Session::Session(Session&&) noexcept = default;
Session& Session::operator=(Session&&) noexcept = default;

void Session::Feed(std::string_view bytes) { impl_->Feed(bytes); }

int Session::CompletedIncidents() const { return impl_->segmenter.completed(); }

size_t Session::PeakBufferedBytes() const { return impl_->peak_partial; }

Report Session::Snapshot(bool include_open) const {
  if (impl_->sniffing) {
    // Too few bytes to decide the encoding yet (Note: [UTF-16 input]): read as if the input ended here.
    Session ended(impl_->rules, impl_->options, impl_->source);
    ended.impl_->sniff = impl_->sniff;
    ended.impl_->bytes = impl_->bytes;
    ended.impl_->EndSniff();
    return include_open ? ended.Finish() : ended.Snapshot(false);
  }
  if (impl_->deciding) {
    // Nothing has been read yet (Note: [Hard-wrapped pastes]): the head read as if the input ended here.
    Session ended(impl_->rules, impl_->options, impl_->source);
    ended.impl_->sniffing = false;  // the head is text already
    ended.impl_->head = impl_->head;
    ended.impl_->bytes = impl_->bytes;
    ended.impl_->Decide(true);
    return include_open ? ended.Finish() : ended.Snapshot(false);
  }
  if (!include_open) {
    Segmenter done = impl_->segmenter;
    done.mutable_incidents().resize(impl_->segmenter.completed());
    return impl_->MakeReport(done);
  }
  Segmenter copy = impl_->segmenter;
  std::string rest = impl_->partial;
  std::string undecoded;  // an entity or an indentation cut by the end of the input so far, as it is
  if (impl_->entities.active()) impl_->entities.Finish(&undecoded);
  if (impl_->indented.active()) {
    IndentedPaste held = impl_->indented;
    std::string dedented;
    held.Feed(undecoded, &dedented);
    held.Finish(&dedented);
    undecoded.swap(dedented);
  }
  if (impl_->unwrap) {
    HardWrap held = *impl_->unwrap;  // the start of a line it holds after a row of the width
    held.Feed(undecoded, &rest);
    held.Finish(&rest);
  } else {
    rest += undecoded;
  }
  for (size_t at = 0; at < rest.size();) {
    size_t nl = std::min(rest.find('\n', at), rest.size());
    copy.AddLine(std::string_view(rest).substr(at, nl - at));
    at = nl + 1;
  }
  copy.Finish();
  return impl_->MakeReport(copy);
}

Report Session::Finish() {
  impl_->FinishBytes();
  if (impl_->deciding) impl_->Decide(true);
  // An entity or an indentation cut by the end of the input, as it is.
  std::string held;
  if (impl_->entities.active()) impl_->entities.Finish(&held);
  if (impl_->indented.active()) {
    std::string dedented;
    impl_->indented.Feed(held, &dedented);
    impl_->indented.Finish(&dedented);
    held.swap(dedented);
  }
  impl_->ReadDecoded(held);
  if (impl_->unwrap) {
    impl_->joined.clear();
    impl_->unwrap->Finish(&impl_->joined);
    impl_->ReadLines(impl_->joined);
  }
  if (!impl_->partial.empty() || impl_->overlong) impl_->EndLine();
  impl_->segmenter.Finish();
  return impl_->MakeReport(impl_->segmenter);
}

Engine::Engine(std::shared_ptr<const RuleSet> rules) : rules_(std::move(rules)) {
  if (!rules_) rules_ = std::make_shared<RuleSet>();
}

Report Engine::DiagnoseText(std::string_view text, const DiagnoseOptions& options) const {
  Session session(rules_, options, "-");
  session.Feed(text);
  return session.Finish();
}

}  // namespace triage
