// Benchmark: what the line prefilter's fingerprint scan meets on a log (Note: [Fingerprint scan] in
// engine/src/log/line_scanner.cc). Prints figures; asserts nothing.
//
//   cmake --build build --target scan_bench
//   build/tests/scan_bench [--rules DIR] LOG...
//
// Loads the bundled rules (or only those of DIR, as `triage --no-bundled --rules DIR`), without the
// rule cache, so the anchor layout is the one this build chooses. Prints the keywords and the distinct
// full-length anchors, then per log: per byte, the positions some bucket's tables accept ("table"),
// those that pass the anchor hash ("hashed"), those where a keyword's anchor lies ("anchor"); the
// lines the scan stops on; and the best of 15 timings of the scan alone over the log (Find from each
// stop to the next, as the log path calls it). The counts do not depend on the machine's load; the
// timing does.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "log/line_scanner.h"
#include "rules/rule.h"
#include "triage/triage.h"

int main(int argc, char** argv) {
  triage::LoadOptions o;
  o.env_path = o.system = o.user = o.project = o.cache = false;
  int first = 1;
  if (argc > 2 && std::string(argv[1]) == "--rules") {
    o.bundled = false;
    o.dirs = {argv[2]};
    first = 3;
  }
  if (first >= argc) {
    std::fprintf(stderr, "usage: scan_bench [--rules DIR] LOG...\n");
    return 2;
  }
  triage::LoadResult r = triage::LoadRules(o);
  if (!r.rules->prefilter) {
    std::fprintf(stderr, "scan_bench: no prefilter\n");
    return 1;
  }
  const triage::LineScanner& scanner = *r.rules->prefilter->scanner;
  std::vector<std::string> anchors;  // the distinct full-length anchors
  for (size_t k = 0; k < scanner.keywords().size(); ++k) {
    const int o = scanner.layout().offsets[k];
    if (o >= 0) anchors.push_back(scanner.keywords()[k].substr(static_cast<size_t>(o), 4));
  }
  std::sort(anchors.begin(), anchors.end());
  anchors.erase(std::unique(anchors.begin(), anchors.end()), anchors.end());
  std::printf("%zu rules, %zu patterns, %zu keywords, %zu distinct anchors, %s\n", r.rules->rules.size(),
              r.rules->patterns.size(), scanner.keywords().size(), anchors.size(),
              scanner.uses_avx512() ? "AVX-512" : scanner.uses_avx2() ? "AVX2" : "portable");
  std::printf("%-24s %9s %9s %9s %7s %8s\n", "log", "table/B", "hashed/B", "anchor/B", "stops", "scan ms");
  for (int a = first; a < argc; ++a) {
    std::ifstream in(argv[a], std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const triage::LineScanner::Counts c = scanner.CountCandidates(text);
    std::uint64_t stops = 0;
    double best = 1e30;
    for (int run = 0; run < 15; ++run) {
      stops = 0;
      const auto t0 = std::chrono::steady_clock::now();
      for (size_t at = 0; at < text.size();) {
        const triage::LineScanner::Hit hit = scanner.Find(std::string_view(text).substr(at));
        if (!hit.found) break;
        ++stops;
        const size_t nl = text.find('\n', at + hit.line_start);
        if (nl == std::string::npos) break;
        at = nl + 1;
      }
      best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    const double n = text.empty() ? 1 : static_cast<double>(text.size());
    std::printf("%-24s %9.5f %9.5f %9.5f %7llu %8.2f\n", argv[a], c.table / n, c.hashed / n, c.anchored / n,
                static_cast<unsigned long long>(stops), best);
  }
  return 0;
}
