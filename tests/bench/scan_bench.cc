// Benchmark: what the line prefilter's fingerprint scan meets on a log (Note: [Fingerprint scan] in
// engine/src/log/line_scanner.cc). Prints figures; asserts nothing.
//
//   cmake --build build --target scan_bench
//   build/tests/scan_bench [--rules DIR] [--top N] [--ways] LOG...
//
// Loads the bundled rules (or only those of DIR, as `triage --no-bundled --rules DIR`), without the
// rule cache, so the anchor layout is the one this build chooses. Prints the keywords and the distinct
// full-length anchors, then per log: per byte, the positions some bucket's tables accept ("table"),
// those of them the AVX-512 loop's hash stage passes too ("staged", Note: [Hash stage] in
// line_scanner.cc), those of the staged ones the loop with the stage on every block passes, by its
// follow-up tables ("followed", Note: [Staged follow-up]), those that pass the anchor hash ("hashed"),
// those where a keyword's anchor lies
// ("anchor"); the
// lines the scan stops on; and the best of 15 timings (the thread's CPU time) of the scan alone over
// the log (Find from each stop to the next, as the log path calls it). The counts do not depend on the machine's load; the
// timing does. With --top N: each bucket's anchors, and per log the N 4-byte windows (ASCII lower
// case) that make the most table candidates, with their counts, the buckets accepting them and how
// many of them pass the hash stage, its follow-up tables and the anchor hash, then the N windows of
// the most positions past the follow-up tables: which strings of a log cost the scan. With
// --ways (a CPU with AVX-512 VBMI): the same timing for each way of the hash stage forced (no stage, on
// candidate blocks, on every block; Note: [Stage runs]), the same keywords, layout and filter: whether
// the timed choice takes the cheapest.
#include <algorithm>
#include <cctype>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "log/line_scanner.h"
#include "rules/rule.h"
#include "triage/triage.h"

// This thread's CPU time in ms: on a shared machine the wall clock also counts the time other
// processes hold the core.
static double CpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

int main(int argc, char** argv) {
  triage::LoadOptions o;
  o.env_path = o.system = o.user = o.project = o.cache = false;
  int first = 1;
  size_t top = 0;
  bool ways = false;
  for (bool more = true; more && first + 1 < argc;) {
    const std::string flag = argv[first];
    if (flag == "--ways") {
      ways = true;
      first += 1;
      continue;
    }
    if (flag == "--rules") {
      o.bundled = false;
      o.dirs = {argv[first + 1]};
    } else if (flag == "--top") {
      top = std::stoul(argv[first + 1]);
    } else {
      more = false;
      continue;
    }
    first += 2;
  }
  if (first >= argc) {
    std::fprintf(stderr, "usage: scan_bench [--rules DIR] [--top N] [--ways] LOG...\n");
    return 2;
  }
  triage::LoadResult r = triage::LoadRules(o);
  if (!r.rules->prefilter) {
    std::fprintf(stderr, "scan_bench: no prefilter\n");
    return 1;
  }
  const triage::LineScanner& scanner = r.rules->prefilter->ChosenScanner();
  std::vector<std::string> anchors;  // the distinct full-length anchors
  for (size_t k = 0; k < scanner.keywords().size(); ++k) {
    const int o = scanner.layout().offsets[k];
    if (o >= 0) anchors.push_back(scanner.keywords()[k].substr(static_cast<size_t>(o), 4));
  }
  if (top > 0) {
    std::map<int, std::string> by_bucket;
    for (size_t k = 0; k < scanner.keywords().size(); ++k) {
      const int o = scanner.layout().offsets[k];
      const std::string& kw = scanner.keywords()[k];
      by_bucket[scanner.layout().buckets[k]] += " " + (o >= 0 ? kw.substr(static_cast<size_t>(o), 4) + "(" + kw + ")" : kw);
    }
    for (const auto& [b, list] : by_bucket) std::printf("bucket %d:%s\n", b, list.c_str());
  }
  std::sort(anchors.begin(), anchors.end());
  anchors.erase(std::unique(anchors.begin(), anchors.end()), anchors.end());
  std::printf("%zu rules, %zu patterns, %zu keywords, %zu distinct anchors, %s\n", r.rules->rules.size(),
              r.rules->patterns.size(), scanner.keywords().size(), anchors.size(),
              scanner.uses_avx512() ? "AVX-512" : scanner.uses_avx2() ? "AVX2" : "portable");
  std::printf("%-24s %9s %9s %10s %9s %9s %7s %8s\n", "log", "table/B", "staged/B", "followed/B", "hashed/B", "anchor/B",
              "stops", "scan ms");
  for (int a = first; a < argc; ++a) {
    std::ifstream in(argv[a], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    struct Seen {
      std::uint64_t table = 0, staged = 0, hashed = 0, followed = 0;
      unsigned buckets = 0;
    };
    std::map<std::string, Seen> windows;
    const triage::LineScanner::Counts c = scanner.CountCandidates(text, [&](size_t at, unsigned buckets, bool staged, bool hashed, bool,
                                                                                  bool followed) {
      if (top == 0) return;
      std::string w = text.substr(at, 4);
      for (char& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      Seen& seen = windows[w];
      ++seen.table;
      seen.staged += staged;
      seen.hashed += hashed;
      seen.followed += followed;
      seen.buckets |= buckets;
    });
    std::uint64_t stops = 0;
    // The best of 15 scans of the whole text with `s`, Find from each stop to the next.
    auto time = [&](const triage::LineScanner& s) {
      double least = 1e30;
      for (int run = 0; run < 15; ++run) {
        stops = 0;
        const double t0 = CpuMs();
        for (size_t at = 0; at < text.size();) {
          const triage::LineScanner::Hit hit = s.Find(std::string_view(text).substr(at));
          if (!hit.found) break;
          ++stops;
          const size_t nl = text.find('\n', at + hit.line_start);
          if (nl == std::string::npos) break;
          at = nl + 1;
        }
        least = std::min(least, CpuMs() - t0);
      }
      return least;
    };
    const double best = time(scanner);
    const double n = text.empty() ? 1 : static_cast<double>(text.size());
    std::printf("%-24s %9.5f %9.5f %10.5f %9.5f %9.5f %7llu %8.2f\n", argv[a], c.table / n, c.staged / n,
                c.followed / n, c.hashed / n, c.anchored / n,
                static_cast<unsigned long long>(stops), best);
    if (ways && scanner.uses_avx512()) {
      using Impl = triage::LineScanner::Impl;
      std::printf("  ways (ms):");
      for (const auto& [impl, name] : {std::pair{Impl::kAvx512WithoutStage, "none"},
                                       std::pair{Impl::kAvx512OnCandidates, "candidate blocks"},
                                       std::pair{Impl::kAvx512OnEveryBlock, "every block"}}) {
        const triage::LineScanner forced(scanner.keywords(), impl, &scanner.layout(), r.rules->prefilter.get());
        std::printf(" %s %.2f", name, time(forced));
      }
      std::printf("\n");
    }
    // The windows of the most table candidates, then those of the most positions the loop with the
    // stage on every block passes (followed).
    for (const bool by_followed : {false, true}) {
      std::vector<std::pair<std::uint64_t, std::string>> most;
      for (const auto& [w, seen] : windows) {
        if (!by_followed || seen.followed > 0) most.emplace_back(by_followed ? seen.followed : seen.table, w);
      }
      std::sort(most.rbegin(), most.rend());
      if (by_followed && !most.empty()) std::printf("  by followed:\n");
      for (size_t i = 0; i < most.size() && i < top; ++i) {
        const Seen& seen = windows[most[i].second];
        std::string shown;
        for (char ch : most[i].second) shown += ch == '\n' ? std::string("\\n") : std::string(1, ch);
        std::printf("  %-8s %9llu table %9llu staged %9llu followed %9llu hashed  buckets %04x\n",
                    ("'" + shown + "'").c_str(), static_cast<unsigned long long>(seen.table),
                    static_cast<unsigned long long>(seen.staged), static_cast<unsigned long long>(seen.followed),
                    static_cast<unsigned long long>(seen.hashed), seen.buckets);
      }
    }
  }
  return 0;
}
