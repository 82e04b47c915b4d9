#include "log/line_scanner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <mutex>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <re2/filtered_re2.h>

#include "log/line_shapes.h"
#include "log/pattern_atoms.h"
#include "log/regex.h"
#include "log/shared_work.h"
#include "log/simd.h"
#include "triage/locale_free.h"

#ifdef TRIAGE_AVX2
#include <x86intrin.h>  // __rdtsc
#endif

namespace triage {
namespace {

// The bytes of a 4-byte window the hash stage hashes (Note: [Hash stage]).
constexpr int kStageFirst = 0, kStageLast = 3;
// The AVX-512 loop's runs of blocks, and how often it times the two ways of its hash stage (Note:
// [Stage runs]).
constexpr unsigned kStageRun = 512, kStageProbe = 64;
// Each round of probes times kStageProbes runs, the three ways in turn; a way with the stage is taken
// when its least time per block is under (kStageMargin - 1) / kStageMargin of the one before.
constexpr unsigned kStageProbes = 6, kStageMargin = 8;
// The stage's hashes the way on every block runs, beside the follow-up tables (Notes: [Staged follow-up],
// [Wide stage blocks]).
constexpr int kEveryBlockHashes = 3;

inline unsigned char Lower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }
inline bool IsLowerLetter(unsigned char c) { return c >= 'a' && c <= 'z'; }

// True when every character of the UTF-8 `text` is ASCII or belongs to a script or punctuation block
// without case (CJK ideographs and punctuation, kana, Hangul, general punctuation, fullwidth
// punctuation): then the scanner's ASCII folding is all the case folding a match of it can need, and
// the bytes may serve as a keyword as they are ("已杀死" of a Chinese shell's "Killed"). False for
// any other character (a letter with case: 'é' may be printed 'É') and for bytes that are not UTF-8.
bool CaselessText(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
    if (len == 0 || i + len > text.size()) return false;
    std::uint32_t cp = c & (0x7f >> len);
    for (size_t j = 1; j < len; ++j) {
      unsigned char b = static_cast<unsigned char>(text[i + j]);
      if ((b & 0xc0) != 0x80) return false;
      cp = cp << 6 | (b & 0x3f);
    }
    const bool caseless = (cp >= 0x2000 && cp <= 0x206f) ||   // general punctuation
                          (cp >= 0x2e80 && cp <= 0x312f) ||   // CJK radicals, symbols, punctuation, kana, bopomofo
                          (cp >= 0x3130 && cp <= 0x318f) ||   // Hangul compatibility jamo
                          (cp >= 0x3400 && cp <= 0x4dbf) ||   // CJK extension A
                          (cp >= 0x4e00 && cp <= 0x9fff) ||   // CJK unified ideographs
                          (cp >= 0xac00 && cp <= 0xd7a3) ||   // Hangul syllables
                          (cp >= 0xf900 && cp <= 0xfaff) ||   // CJK compatibility ideographs
                          (cp >= 0xff01 && cp <= 0xff20) ||   // fullwidth punctuation and digits
                          (cp >= 0xff3b && cp <= 0xff40) || (cp >= 0xff5b && cp <= 0xff65);
    if (!caseless) return false;
    i += len;
  }
  return true;
}

// True when the kw.size() bytes at p equal the lower-case keyword kw, ASCII case folded.
inline bool EqualsFolded(const char* p, const std::string& kw) {
  size_t j = 0;
  while (j < kw.size() && Lower(static_cast<unsigned char>(p[j])) == static_cast<unsigned char>(kw[j])) ++j;
  return j == kw.size();
}

// The shortest atom FilteredRE2 keeps: shorter ones would make the scanner stop on most lines.
constexpr int kMinAtomLen = 3;
// The shortest word of an atom used as a keyword instead of the whole atom.
constexpr size_t kMinWordLen = 4;

// Words that healthy training logs print on most lines (progress, metrics, printed tensors). A keyword
// among them would make nearly every line pass the prefilter: correct, but no faster than no prefilter.
const std::set<std::string>& CommonLogWords() {
  static const std::set<std::string> kWords = {
      "loss", "epoch", "step", "steps", "batch", "train", "training", "valid", "validation", "eval", "iter",
      "grad", "grad_fn", "norm", "accuracy", "time", "rank", "samples", "tokens", "tensor", "cuda", "device",
      "info", "debug", "warning", "model", "data"};
  return kWords;
}

// Words frequent in ordinary text that is not PyTorch's: English prose and what application and web
// servers log (requests, workers, queues, indexes, connections, "python" of user agents and of every
// interpreter path). Each is in many message patterns' literals, so it would make a good cover
// (CoverKeywords), but on an application's log it stops the scanner on a line in five. Used only to
// choose keywords, never to decide what matches.
const std::set<std::string>& CommonTextWords() {
  static const std::set<std::string> kWords = {
      "able", "about", "address", "after", "again", "already", "also", "argument", "assert", "attempt", "attribute",
      "available", "been", "before", "being", "built", "call", "called", "cannot", "class", "client", "complete",
      "completed", "connect", "connection", "contain", "convert", "could", "default", "detected", "different",
      "each", "element", "execution", "expected", "failed", "file", "float", "found", "from", "have", "index", "input",
      "into", "invalid", "job", "killed", "line", "list", "load", "missing", "modified", "module", "more", "must",
      "name", "number", "object", "only", "open", "operation", "other", "output", "process", "python", "queue", "range",
      "request", "require", "response", "retry", "return", "running", "same", "server", "service", "session", "should",
      "size", "socket", "some", "start", "status", "string", "support", "supported", "target", "task", "than",
      "that", "their", "there", "these", "this", "thread", "timeout", "tried", "type", "unexpected", "unknown",
      "update", "used", "user", "using", "value", "version", "when", "which", "while", "will", "with", "worker",
      "would", "your"};
  return kWords;
}

// What healthy training logs print on most lines (logging prefixes, progress bars, metric dicts),
// lower-case. A keyword found in it would stop the scanner on most lines of a real log: correct, but
// slow. Used only to choose between keywords, never to decide what matches.
constexpr std::string_view kHealthyLogSample =
    "2024-03-01 12:00:00,123 info trainer.py:214] [100/5000] loss=0.69315 grad_norm=0.4017 lr=0.000100 "
    "samples/s=812.3 eta: 0:10:00 time: 0.5120 data_time: 0.0120 memory: 3012 | epoch 1 step 100/5000 "
    "train_loss 0.4624 val_loss 0.5 acc 0.912 | epoch 1:  40%|####      | 2000/5000 [00:10<00:15, "
    "41.50it/s, loss=0.693, v_num=0] {'loss': 0.6931, 'grad_norm': 1.402, 'learning_rate': 4.8e-05, 'epoch': 0.12} "
    "saving checkpoint to checkpoints/epoch=1-step=5000.ckpt warning debug";

// Ordinary text that is not a training log, lower-case: what application servers, web servers and
// job schedulers log, and English prose. With kHealthyLogSample, the text anchors are placed against
// (FalseHitRate): triage is fed both kinds. Only steers the scan's speed, never what matches.
constexpr std::string_view kGeneralTextSample =
    "192.168.4.17 - alice [03/feb/2025:14:22:07 +0100] \"post /v2/accounts/8812/invoices?limit=50 http/2.0\" "
    "201 1532 \"https://shop.example.com/cart\" \"mozilla/5.0 (macintosh; intel mac os x 13_4) applewebkit/605.1.15\" "
    "10.0.3.9 - - [03/feb/2025:14:22:09 +0100] \"get /static/css/main.css http/1.1\" 304 0 \"-\" \"curl/8.5.0\" "
    "172.16.0.4 - - [03/feb/2025:14:22:10 +0100] \"get /api/v1/status http/1.1\" 200 87 \"-\" \"mozilla/5.0 (windows nt "
    "10.0; win64; x64) applewebkit/537.36 (khtml, like gecko) chrome/121.0.0.0 safari/537.36\" \"python-requests/2.28.1\" "
    "\"mozilla/5.0 (x11; ubuntu; linux x86_64; rv:122.0) gecko/20100101 firefox/122.0\" \"go-http-client/1.1\" "
    "2025-02-03 14:22:08.412 info  [http-nio-8443-exec-7] c.e.billing.invoiceservice : created invoice 55120 "
    "for customer 8812 in 23 ms | warn  [scheduler-2] o.q.core.jobrunshell : job nightly-export is running "
    "late, next fire time moved to 02:00 | debug pool: borrowed connection 14 of 32 from the primary database, "
    "idle connections 9, waiting threads 0 | info worker-3: processing message from queue orders.created "
    "(offset 993821, partition 4) | error handler: upstream responded with status 503, retrying in 250 ms "
    "(attempt 2 of 5) | info cache: key session:ab12 not found, loading user profile from the backend store "
    "| info search: rebuilding the document index for tenant acme, 120000 documents indexed, took 4.2 s | "
    "notice systemd: started the daily cleanup of temporary directories. listening on port 8080, accepting "
    "requests. the service restarted after a configuration change was detected; all health checks passed. "
    "when the client closed the connection early, the request was cancelled and the response was not sent. "
    "please check that the file exists and that you have permission to read it, then try again later.";

// Higher for bytes ordinary log text holds less often (lower-case; digits and punctuation of metric
// lines count as common). Only steers which bytes anchor a keyword; never what matches.
int ByteRarity(char c) {
  static const std::string_view kCommonFirst = " e0t1a2o5i3n4s6r7l8c9.d:hu=m,p/f_g-yw)(b][v|k'x\"jqz";
  size_t at = kCommonFirst.find(static_cast<char>(Lower(static_cast<unsigned char>(c))));
  return at == std::string_view::npos ? 100 : static_cast<int>(at);
}

// Note: [Anchor choice]
// How good k[o, o + 4) is as keyword k's anchor: higher for bytes ordinary text is less likely to
// hold together, since each place text holds them is a candidate the scan must verify. In order of
// weight: the four bytes absent from the healthy-log sample (bytes healthy logs print together, "oss="
// of "loss=nan", would pass every stage but the last), absent from the general-text sample ("ndex" of
// "index out of range" is in every "index.html"; "work" of "dataloader worker" in every "worker-3";
// the healthy sample weighs more: training logs are what triage reads most), then how many of their
// 3-byte and 2-byte pieces neither sample holds (a window of rare pairs, "mpil" of "compile", rather
// than one of a common prefix, "comp" of "complete" and ".com"), then ByteRarity. An occurrence in a
// sample that is the keyword itself ("warn" in the sample's "warning") would be a true hit there, not
// a false candidate, so it does not count. Only steers speed, never what matches; chosen once per
// rule set (the rule cache keeps the layout).
// The score alone does not pick the anchor: a keyword offers BucketAnchors its best-scored windows, up
// to LineScanner::kAnchorChoices of them within kAnchorSlack of its best (so never one a sample holds
// in place of one neither holds: those classes are 600 and 1000 apart), and the placement takes the
// window that widens a bucket's tables least. What costs the scan is the union a bucket's nibble tables accept, not each
// anchor's own rarity: with ~15 anchors or more a bucket's low nibbles fill, so a free choice among a
// keyword's windows (shared bytes, a shared anchor) keeps whole buckets narrow. Table candidates per
// byte (tests/bench/scan_bench, 8 MB inputs; the rarest-scored window alone -> with choices): bundled
// rules web-server-like 0.064 -> 0.008, HF dicts 0.012 -> 0, key=value 0.009 -> 0, tqdm 0.002 -> 0, 1%
// tracebacks 0.009 -> 0.0002, this machine's dpkg/apt logs with /usr/share/doc READMEs 0.066 -> 0.025,
// 400 corpus logs of corpus/formats and corpus/wild 0.093 -> 0.036; 1000 reworded bench rules (412
// keywords) web 0.179 -> 0.040, HF dicts 0.145 -> 0.012, key=value 0.078 -> 0, tqdm 0.026 -> 0.004.
// Of the settings tried (2-16 choices, slack 0 to 3000) every one beat a single window on all of
// these, and 6 and 400 were best or near it on all at once; with slack 1000 or more a keyword may
// anchor on bytes the healthy sample holds, and HF dicts, key=value and tqdm got 0.01-0.04 again. The
// placement is still greedy, so a changed keyword set still moves it, but with choices fewer buckets
// end up accepting a line layout's repeated window (Note: [Fingerprint scan]).
// The 2-byte and 3-byte pieces either sample holds (AnchorScore), and each sample's 4-byte pieces (a
// quick "no" before a search of it), built once: choosing anchors and keywords asks thousands of times.
class SamplePieces {
 public:
  SamplePieces() : pairs_(1u << 16) {
    int s = 0;
    for (std::string_view sample : {kHealthyLogSample, kGeneralTextSample}) {
      for (size_t i = 0; i + 2 <= sample.size(); ++i) {
        pairs_[Code(sample.substr(i, 2))] = true;
        if (i + 3 <= sample.size()) triples_.push_back(Code(sample.substr(i, 3)));
        if (i + 4 <= sample.size()) quads_[s].push_back(Code(sample.substr(i, 4)));
      }
      std::sort(quads_[s].begin(), quads_[s].end());
      ++s;
    }
    std::sort(triples_.begin(), triples_.end());
  }
  bool Holds(std::string_view piece) const {
    return piece.size() == 2 ? pairs_[Code(piece)] : std::binary_search(triples_.begin(), triples_.end(), Code(piece));
  }
  // False when `sample` (one of the two samples) cannot hold `text`, of 4 bytes or more: its first four
  // bytes are nowhere in it.
  bool MayHold(std::string_view sample, std::string_view text) const {
    const std::vector<std::uint32_t>& quads = quads_[sample.data() == kHealthyLogSample.data() ? 0 : 1];
    return std::binary_search(quads.begin(), quads.end(), Code(text.substr(0, 4)));
  }
  // Whether `sample` holds `text` (of 4 bytes or more).
  bool Find(std::string_view sample, std::string_view text) const {
    return MayHold(sample, text) && sample.find(text) != std::string_view::npos;
  }

 private:
  static std::uint32_t Code(std::string_view piece) {
    std::uint32_t c = 0;
    for (char b : piece) c = c << 8 | static_cast<unsigned char>(b);
    return c;
  }
  std::vector<bool> pairs_;
  std::vector<std::uint32_t> triples_;
  std::vector<std::uint32_t> quads_[2];
};

const SamplePieces& Pieces() {
  static const SamplePieces kPieces;
  return kPieces;
}

int AnchorScore(const std::string& k, size_t o) {
  const SamplePieces& pieces = Pieces();
  constexpr size_t kWidth = 4;  // LineScanner::kPrints
  const std::string_view window = std::string_view(k).substr(o, kWidth);
  // Whether `sample` holds `window` other than as this part of k.
  auto held = [&](std::string_view sample) {
    if (!pieces.MayHold(sample, window)) return false;
    for (size_t at = sample.find(window); at != std::string_view::npos; at = sample.find(window, at + 1)) {
      if (at < o || sample.substr(at - o, k.size()) != k) return true;
    }
    return false;
  };
  int score = (held(kHealthyLogSample) ? 0 : 1000) + (held(kGeneralTextSample) ? 0 : 600);
  for (size_t len : {size_t{3}, size_t{2}}) {
    for (size_t at = 0; at + len <= kWidth; ++at) {
      if (!pieces.Holds(window.substr(at, len))) score += len == 3 ? 60 : 20;
    }
  }
  for (char c : window) score += ByteRarity(c);
  return score;
}

// The bytes a position must hold for a bucket: per anchor byte, the sets of low and high nibbles of
// its anchors' bytes (both cases of letters), as 16-bit masks; the tables accept their product.
// An anchor shorter than the fingerprint accepts any byte past its end.
struct NibbleSets {
  static constexpr size_t kBytes = 4;  // LineScanner::kPrints
  std::uint16_t low[kBytes] = {}, high[kBytes] = {};
  void Add(std::string_view anchor) {
    for (size_t f = 0; f < kBytes; ++f) {
      if (f >= anchor.size()) {
        low[f] = high[f] = 0xffff;
        continue;
      }
      unsigned char c = static_cast<unsigned char>(anchor[f]);
      for (unsigned char v : {c, IsLowerLetter(c) ? static_cast<unsigned char>(c - 32) : c}) {
        low[f] |= static_cast<std::uint16_t>(1u << (v & 15));
        high[f] |= static_cast<std::uint16_t>(1u << (v >> 4));
      }
    }
  }
};

// How often each byte occurs in a sample (lower case; smoothed; upper case as a fraction of lower
// case), kept as what FalseHitRate sums: per high nibble and half of the low-nibble mask, the summed
// frequency of the bytes the half's low nibbles make with it.
class ByteFrequency {
 public:
  explicit ByteFrequency(std::string_view sample) {
    std::array<double, 256> f{};
    for (double& x : f) x = 0.5;
    for (char c : sample) f[static_cast<unsigned char>(c)] += 1;
    for (int c = 'a'; c <= 'z'; ++c) f[c - 32] += 0.15 * f[c];
    double sum = 0;
    for (double x : f) sum += x;
    for (int hi = 0; hi < 16; ++hi) {
      for (int half = 0; half < 2; ++half) {
        for (int mask = 0; mask < 256; ++mask) {
          double p = 0;
          for (int lo = 0; lo < 8; ++lo) {
            if (mask >> lo & 1) p += f[hi << 4 | (half * 8 + lo)] / sum;
          }
          part_[hi][half][mask] = p;
        }
      }
    }
  }
  // The share of positions of the sample's kind of text that a bucket with these sets would stop on
  // (the bytes of a position taken as independent).
  double FalseHitRate(const NibbleSets& sets) const {
    double rate = 1;
    for (size_t f = 0; f < NibbleSets::kBytes; ++f) {
      double p = 0;
      for (unsigned high = sets.high[f]; high; high &= high - 1) {
        const auto& row = part_[__builtin_ctz(high)];
        p += row[0][sets.low[f] & 0xff] + row[1][sets.low[f] >> 8];
      }
      rate *= p;
    }
    return rate;
  }

 private:
  double part_[16][2][256];
};

// The share of positions a bucket with these sets would stop on, summed over the two kinds of text
// triage reads: healthy training logs and ordinary application text (each with its own byte
// frequencies; one mixed frequency table would let a bucket fit neither kind).
double FalseHitRate(const NibbleSets& sets) {
  static const ByteFrequency kTraining(kHealthyLogSample);
  static const ByteFrequency kGeneral(kGeneralTextSample);
  return kTraining.FalseHitRate(sets) + kGeneral.FalseHitRate(sets);
}

// Which 4-byte windows of the two samples a bucket's tables accept, counted exactly (FalseHitRate
// takes a window's bytes as independent, which misses what one line layout repeats: a bucket accepting
// "] [1" of "trainer.py:214] [1/5000]" stops once on every line of such a log). Per anchor byte and
// nibble value, the windows holding that nibble there, as bits; the windows a bucket accepts are the AND
// over its bytes of (OR of its low nibbles' windows) & (OR of its high nibbles' windows). A bucket
// keeps those ORs (Acc), so trying one more anchor costs a few ORs per byte.
class SampleWindows {
 public:
  // Set bits of x, one per step (without the popcnt instruction, which this build may not assume):
  // a bucket accepts few windows.
  static size_t Ones(std::uint64_t x) {
    size_t n = 0;
    for (; x; x &= x - 1) ++n;
    return n;
  }
  static constexpr size_t kBytes = NibbleSets::kBytes;
  static constexpr size_t kHealthy = kHealthyLogSample.size() - kBytes + 1;  // no window spans the two
  static constexpr size_t kWindows = kHealthy + kGeneralTextSample.size() - kBytes + 1;
  static constexpr size_t kWords = (kWindows + 63) / 64;
  struct Acc {
    std::uint64_t low[kBytes][kWords] = {}, high[kBytes][kWords] = {};
  };

  SampleWindows() {
    for (size_t w = 0; w < kWindows; ++w) {
      const char* at = w < kHealthy ? kHealthyLogSample.data() + w : kGeneralTextSample.data() + (w - kHealthy);
      for (size_t f = 0; f < kBytes; ++f) {
        unsigned char c = static_cast<unsigned char>(at[f]);
        // A digit of the sample stands for any digit: which ones a short sample holds is chance
        // ("41.50it/s", not "40.31it/s"), so a bucket accepting any digit there accepts the window.
        if (c >= '0' && c <= '9') {
          for (int d = '0'; d <= '9'; ++d) low_[f][d & 15][w / 64] |= std::uint64_t{1} << (w % 64);
        } else {
          low_[f][c & 15][w / 64] |= std::uint64_t{1} << (w % 64);
        }
        high_[f][c >> 4][w / 64] |= std::uint64_t{1} << (w % 64);
      }
    }
  }
  // Adds an anchor's bytes (both cases of letters, as NibbleSets::Add) to a bucket's ORs.
  void Add(Acc* acc, std::string_view anchor) const { Grow(*acc, anchor, acc); }
  // The share of each sample's windows a bucket would accept with `anchor` added, the healthy sample's
  // four times (Note: [Counted placement]), summed.
  double RateWith(const Acc& acc, std::string_view anchor) const {
    std::uint64_t all[kWords];
    for (size_t i = 0; i < kWords; ++i) all[i] = ~std::uint64_t{0};
    for (size_t f = 0; f < kBytes && f < anchor.size(); ++f) {  // past a short anchor: any byte
      unsigned char c = static_cast<unsigned char>(anchor[f]);
      unsigned char u = IsLowerLetter(c) ? static_cast<unsigned char>(c - 32) : c;
      const std::uint64_t* low = low_[f][c & 15];
      const std::uint64_t* high = high_[f][c >> 4];
      const std::uint64_t* high_u = high_[f][u >> 4];
      for (size_t i = 0; i < kWords; ++i) {
        all[i] &= (acc.low[f][i] | low[i]) & (acc.high[f][i] | high[i] | high_u[i]);
      }
    }
    size_t healthy = 0, general = 0;
    for (size_t i = 0; i < kWords; ++i) {
      std::uint64_t in_healthy = i * 64 + 64 <= kHealthy ? ~std::uint64_t{0}
                                 : i * 64 >= kHealthy   ? 0
                                                        : (std::uint64_t{1} << (kHealthy - i * 64)) - 1;
      std::uint64_t in_range = i * 64 + 64 <= kWindows ? ~std::uint64_t{0} : (std::uint64_t{1} << (kWindows - i * 64)) - 1;
      healthy += Ones(all[i] & in_healthy & in_range);
      general += Ones(all[i] & ~in_healthy & in_range);
    }
    return 4 * static_cast<double>(healthy) / kHealthy + static_cast<double>(general) / (kWindows - kHealthy);
  }

 private:
  void Grow(const Acc& from, std::string_view anchor, Acc* to) const {
    for (size_t f = 0; f < kBytes; ++f) {
      std::uint64_t* low = to->low[f];
      std::uint64_t* high = to->high[f];
      if (&from != to) {
        std::memcpy(low, from.low[f], sizeof from.low[f]);
        std::memcpy(high, from.high[f], sizeof from.high[f]);
      }
      if (f >= anchor.size()) {  // a short anchor accepts any byte here
        for (size_t i = 0; i < kWords; ++i) low[i] = high[i] = ~std::uint64_t{0};
        continue;
      }
      unsigned char c = static_cast<unsigned char>(anchor[f]);
      for (unsigned char v : {c, IsLowerLetter(c) ? static_cast<unsigned char>(c - 32) : c}) {
        for (size_t i = 0; i < kWords; ++i) {
          low[i] |= low_[f][v & 15][i];
          high[i] |= high_[f][v >> 4][i];
        }
      }
    }
  }
  std::uint64_t low_[kBytes][16][kWords] = {}, high_[kBytes][16][kWords] = {};
};

const SampleWindows& Windows() {
  static const SampleWindows kWindows;
  return kWindows;
}

}  // namespace

// Note: [Counted placement]
// Until 2026-11-30 the greedy step below counted the sample windows (SampleWindows) of only the 8
// (anchor choice, bucket) pairs whose byte-frequency estimate grew least, of up to 6 x 16; with ~26
// anchors a bucket (the bundled rules) or ~31 (1000 rules of tests/bench/make_rulesets.py) the pair that
// keeps a metric line's repeated window out was mostly not among them, and those windows came back
// with each new keyword set: the 2026-11-30a rules' keywords had bucket tables accept "ss':", "rm':"
// and "och'" of every Hugging Face dict line (0.0355 table candidates per byte, none an anchor, each a
// hash test and a branch in the scan loop), and at 1000 rules "grad", "oss=", "orm=", "ampl" of every
// key=value line (0.044). Now every pair is counted, but the pairs whose estimate alone grows past the
// best counted growth so far are skipped (a pair's sample windows only widen with an anchor, so its
// growth is at least its estimate's): the same choice as counting all of them, for ~13% more
// placement work (bundled rules, callgrind: BucketAnchors 24.2 M -> 27.4 M instructions; counting
// every pair cost 60.0 M). With it the windows weigh 40 times the estimate, not 10, and the
// healthy-log sample's windows four times the general text's (the logs triage reads most repeat them
// on every line), and the healthy sample holds a Trainer dict's 'grad_norm'. Table candidates per byte
// (tests/bench/scan_bench, the first 8 MiB of each gen_kinds.py log; before -> after): bundled rules
// HF dicts 0.0355 -> 0, key=value 0.0131 -> 0, tqdm 0.0006 -> 0, 1% tracebacks 0.0138 -> 0.0009,
// construction 0.0132 -> 0.0001, web 0.0536 -> 0.0594 (staged by the hash stage 0.0039 -> 0.0023),
// the corpus's logs 0.138 -> 0.149 (staged 0.044 -> 0.037); 1000 rules HF 0.047 -> 0.012, key=value
// 0.044 -> 0, tqdm 0.019 -> 0.004, 1% tracebacks 0.045 -> 0.001, construction 0.044 -> 0.0001, web
// 0.062 -> 0.090 (staged 0.0042 -> 0.0038); 50 rules unchanged but web 0.0034 -> 0.0036. Each part
// alone was weaker: every pair counted with weight 10 and the old sample left HF at 0.024 and 1000
// rules' key=value at 0.029; the new weights with 8 pairs counted put key=value back at 0.014. The
// placement stays greedy: a changed keyword set may still move a window into a bucket's tables.
// Places full-length anchors into `buckets` buckets: greedily, the anchors ordinary text matches most
// often first, each into the bucket whose expected rate of false candidates (FalseHitRate) grows
// least, with at most a few more than an even share per bucket. Anchors sharing bytes end up together
// and common bytes stay out of the buckets of rare ones. Each keyword offers one or more anchors
// (Note: [Anchor choice]: the ones nearly as rare as its rarest), and the greedy step picks the anchor
// and the bucket together. Returns, per keyword, the index of its anchor and its bucket.
std::vector<std::pair<int, int>> LineScanner::BucketAnchors(const std::vector<std::vector<std::string>>& choices,
                                                            int buckets) {
  std::vector<std::pair<int, int>> out(choices.size(), {0, 0});
  if (choices.empty() || buckets <= 0) return out;
  const size_t cap = (choices.size() + buckets - 1) / buckets + 2;
  const SampleWindows& windows = Windows();
  const SampleWindows::Acc none;
  std::vector<size_t> order(choices.size());
  std::vector<double> alone(choices.size());
  for (size_t i = 0; i < choices.size(); ++i) {
    NibbleSets one;
    one.Add(choices[i][0]);
    alone[i] = FalseHitRate(one) + windows.RateWith(none, choices[i][0]);
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return alone[a] > alone[b]; });
  // A bucket's rate: the byte-frequency estimate plus the share of sample windows it accepts.
  std::vector<NibbleSets> sets(buckets);
  std::vector<SampleWindows::Acc> accepted(static_cast<size_t>(buckets));
  std::vector<double> rate(buckets, 0), estimate(buckets, 0);
  std::vector<size_t> size(buckets, 0);
  // A sample window a bucket accepts stands for a line layout that repeats on every line of a log of
  // that kind ("] lo" of "[1/5000] loss=" on every line of a key=value log), which the byte-frequency
  // estimate, taking bytes as independent, rates far lower: windows weigh kWindowWeight times more
  // (SampleWindows::RateWith weighs the healthy sample's four times the general one's; Note: [Counted
  // placement]).
  constexpr double kWindowWeight = 40;
  std::vector<double> grown_rate;  // per (choice, bucket): the estimate with the anchor added
  for (size_t i : order) {
    const int n_choices = static_cast<int>(choices[i].size());
    grown_rate.assign(static_cast<size_t>(n_choices) * buckets, 0);
    // A pair's growth is at least its estimate's (adding an anchor never narrows a bucket's sample
    // windows), so the pairs whose estimate alone grows past a counted pair's growth are not counted:
    // counting is ~40 times the estimate's cost. Which pair wins is unchanged.
    int first = -1;
    for (int c = 0; c < n_choices; ++c) {
      for (int b = 0; b < buckets; ++b) {
        if (size[b] >= cap) continue;
        NibbleSets grown = sets[b];
        grown.Add(choices[i][c]);
        const int at = c * buckets + b;
        grown_rate[at] = FalseHitRate(grown);
        if (first < 0 || grown_rate[at] - estimate[b] < grown_rate[first] - estimate[first % buckets]) first = at;
      }
    }
    const auto count = [&](int at) {
      return grown_rate[at] + kWindowWeight * windows.RateWith(accepted[at % buckets], choices[i][at / buckets]);
    };
    double bound = count(first) - rate[first % buckets];
    int best_bucket = -1, best_choice = 0;
    double best_growth = 0, best_rate = 0;
    for (int c = 0; c < n_choices; ++c) {
      for (int b = 0; b < buckets; ++b) {
        const int at = c * buckets + b;
        if (size[b] >= cap || grown_rate[at] - estimate[b] > bound + 1e-12 * (1 + std::abs(bound))) continue;
        const double r = count(at);
        if (best_bucket < 0 || r - rate[b] < best_growth) {
          best_bucket = b, best_choice = c, best_growth = r - rate[b], best_rate = r;
          bound = std::min(bound, best_growth);
        }
      }
    }
    const int b = best_bucket;
    const std::string& anchor = choices[i][best_choice];
    sets[b].Add(anchor);
    estimate[b] = FalseHitRate(sets[b]);
    windows.Add(&accepted[b], anchor);
    rate[b] = best_rate;
    ++size[b];
    out[i] = {best_choice, b};
  }
  return out;
}

bool LineScanner::CpuHasAvx2() { return triage::CpuHasAvx2(); }

// (A set of the keywords kept, not a search of them for each: a warm start asks about ~1,000 keywords
// twice, ~0.5 M instructions each time by searching.)
bool LineScanner::AreUsable(const std::vector<std::string>& keywords) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(2 * keywords.size());
  for (const std::string& k : keywords) {
    for (char c : k) {
      if (c == '\n' || (c >= 'A' && c <= 'Z')) return false;
    }
    if (!seen.insert(k).second) return false;
  }
  return true;
}

std::vector<std::string> LineScanner::UsableKeywords(std::vector<std::string> keywords) {
  if (AreUsable(keywords)) return keywords;
  std::vector<std::string> out;
  out.reserve(keywords.size());  // never moved: `seen` holds views of its strings
  std::unordered_set<std::string_view> seen;
  for (std::string& k : keywords) {
    if (k.find('\n') != std::string::npos) continue;
    for (char& c : k) c = static_cast<char>(Lower(static_cast<unsigned char>(c)));
    if (seen.count(k)) continue;
    out.push_back(std::move(k));
    seen.insert(out.back());
  }
  return out;
}

// The anchors' placement for `keywords` (as UsableKeywords keeps them), with `long_n` buckets for the
// full-length anchors: each long keyword's best-scored windows (Note: [Anchor choice]) placed by
// BucketAnchors. What the constructor chooses when given no layout; PlanLinePrefilter asks it alone,
// without building the scanner's tables.
LineScanner::Layout LineScanner::ChooseLayout(const std::vector<std::string>& keywords, int long_n) {
  Layout out;
  out.offsets.assign(keywords.size(), -1);
  out.buckets.assign(keywords.size(), -1);
  std::vector<std::vector<std::string>> choices;  // per long keyword, its anchors, rarest first
  std::vector<std::vector<int>> choice_offsets;
  std::vector<size_t> anchored;  // the keyword of each
  for (size_t i = 0; i < keywords.size(); ++i) {
    const std::string& k = keywords[i];
    if (k.size() < static_cast<size_t>(kPrints)) continue;
    std::vector<std::pair<int, int>> scored;  // (-score, offset): the rarest first, then the leftmost
    for (size_t o = 0; o + kPrints <= k.size(); ++o) scored.emplace_back(-AnchorScore(k, o), static_cast<int>(o));
    std::sort(scored.begin(), scored.end());
    choices.emplace_back();
    choice_offsets.emplace_back();
    for (const auto& [minus, o] : scored) {
      if (choices.back().size() >= kAnchorChoices || -minus < -scored[0].first - kAnchorSlack) break;
      const std::string anchor = k.substr(static_cast<size_t>(o), kPrints);
      if (std::find(choices.back().begin(), choices.back().end(), anchor) != choices.back().end()) continue;
      choices.back().push_back(anchor);
      choice_offsets.back().push_back(o);
    }
    anchored.push_back(i);
  }
  const std::vector<std::pair<int, int>> placed = BucketAnchors(choices, long_n);
  for (size_t a = 0; a < anchored.size(); ++a) {
    out.offsets[anchored[a]] = choice_offsets[a][static_cast<size_t>(placed[a].first)];
    out.buckets[anchored[a]] = placed[a].second;
  }
  return out;
}

// Note: [Short keyword groups]
// Keywords shorter than kPrints take buckets of their own, one per group: the ASCII ones by length
// (a short anchor accepts any byte past its end, so one of another length in the bucket would widen
// it), and every one that starts with a non-ASCII byte (a CJK character, a typographic quote, a
// no-break space) in one bucket whatever its length: its first byte already keeps ASCII text out,
// whatever the bucket accepts after it. Kept with the ASCII ones of its length, a non-ASCII keyword's
// bytes lent their low nibbles to ASCII anchors' high nibbles: with "ema", "net" and "bmm" beside
// "在", "是" and "第" in the 3-byte bucket, " lo" of every " loss" was a table candidate (tqdm, HF and
// key=value lines: one or two a line, each thrown away by the follow-up hash). The bucket is taken
// from the long keywords (twelve instead of thirteen with the bundled rules). scan_bench, bundled
// rules, 8 MiB: tqdm 1.60 -> 0.86 ms, key=value 1.55 -> 0.88, 1% tracebacks 1.71 -> 0.95, web-server-like
// text 4.21 -> 2.89, HF 1.59 -> 1.57. Tried and dropped: the non-ASCII keywords in the 1-byte bucket
// (ESC's), which keeps thirteen long buckets; it kept the 50-rule bench set's web text at 1.73 ms
// (1.71 before, 2.08 with a bucket of their own) but left the bundled rules at key=value 1.28, 1%
// tracebacks 1.33, web 3.48 ms: the long keywords' greedy placement into twelve buckets happened to
// suit those inputs better than into thirteen.
size_t LineScanner::ShortGroup(std::string_view keyword) {
  return static_cast<unsigned char>(keyword[0]) >= 0x80 ? static_cast<size_t>(kPrints) : keyword.size();
}

// The buckets full-length anchors get: kBuckets less one per group of the keywords shorter than
// kPrints (at most kBuckets / 2 of them; Note: [Short keyword groups]).
int LineScanner::LongBuckets(const std::vector<std::string>& keywords) {
  std::set<size_t> short_groups;
  for (const std::string& k : keywords) {
    if (!k.empty() && k.size() < static_cast<size_t>(kPrints)) short_groups.insert(ShortGroup(k));
  }
  return kBuckets - std::min<int>(static_cast<int>(short_groups.size()), kBuckets / 2);
}

LineScanner::Layout LineScanner::ChooseLayout(const std::vector<std::string>& keywords) {
  const std::vector<std::string> usable = UsableKeywords(keywords);
  return ChooseLayout(usable, LongBuckets(usable));
}

LineScanner::Layout LineScanner::QuickLayout(const std::vector<std::string>& keywords) {
  const std::vector<std::string> usable = UsableKeywords(keywords);
  const int long_n = LongBuckets(usable);
  Layout out;
  out.offsets.assign(usable.size(), -1);
  out.buckets.assign(usable.size(), -1);
  int next = 0;
  for (size_t i = 0; i < usable.size(); ++i) {
    const std::string& k = usable[i];
    if (k.size() < static_cast<size_t>(kPrints)) continue;
    int best = -1;
    for (size_t o = 0; o + kPrints <= k.size(); ++o) {
      int rarity = 0;
      for (size_t j = o; j < o + kPrints; ++j) rarity += ByteRarity(k[j]);
      if (rarity > best) {
        best = rarity;
        out.offsets[i] = static_cast<int>(o);
      }
    }
    out.buckets[i] = next;
    next = (next + 1) % long_n;
  }
  return out;
}

LineScanner::LineScanner(std::vector<std::string> keywords, Impl impl, const Layout* layout, const HitFilter* filter)
    : LineScanner(UsableKeywords(std::move(keywords)), UsableTag{}, impl, layout, filter) {}

LineScanner::LineScanner(std::vector<std::string> keywords, UsableTag, Impl impl, const Layout* layout,
                         const HitFilter* filter)
    : keywords_(std::move(keywords)), filter_(filter) {
  match_all_ = std::find(keywords_.begin(), keywords_.end(), std::string()) != keywords_.end();
  // Anchors (Note: [Fingerprint scan]): the kPrints bytes of a keyword rarest in log text; keywords of
  // fewer bytes anchor on all of them and are kept apart by length (a short anchor accepts any byte
  // past its end, which would widen a bucket for every keyword in it).
  struct Item {
    std::string anchor;
    Anchored at;
  };
  std::map<size_t, std::vector<Item>> shorter;  // by ShortGroup
  size_t long_count = 0;
  for (size_t i = 0; i < keywords_.size(); ++i) {
    const std::string& k = keywords_[i];
    if (k.empty()) continue;
    unsigned char f = static_cast<unsigned char>(k[0]);
    first_[f].push_back(static_cast<std::uint32_t>(i));
    has_first_[f] = true;
    if (k.size() < static_cast<size_t>(kPrints)) shorter[ShortGroup(k)].push_back({k, {static_cast<std::uint32_t>(i), 0}});
    else ++long_count;
  }
  // Buckets: short keywords take the last buckets, one per group (Note: [Short keyword groups]; at
  // most kBuckets / 2 groups share them, then the last groups join the last one: correct, only less
  // selective); anchors are placed by BucketAnchors.
  const int short_n = std::min<int>(static_cast<int>(shorter.size()), kBuckets / 2);
  const int long_n = kBuckets - short_n;
  // A given layout is used when it places every long keyword's anchor inside it and in a long bucket.
  bool given = layout && layout->offsets.size() == keywords_.size() && layout->buckets.size() == keywords_.size();
  for (size_t i = 0; given && i < keywords_.size(); ++i) {
    const size_t size = keywords_[i].size();
    const int o = layout->offsets[i], b = layout->buckets[i];
    given = size < static_cast<size_t>(kPrints)
                ? o == -1 && b == -1
                : o >= 0 && static_cast<size_t>(o) + kPrints <= size && b >= 0 && b < long_n;
  }
  layout_ = given ? *layout : ChooseLayout(keywords_, long_n);
  std::vector<Item> longer;
  longer.reserve(long_count);
  std::vector<std::pair<int, const Item*>> placed;
  placed.reserve(keywords_.size());
  for (size_t i = 0; i < keywords_.size(); ++i) {
    if (keywords_[i].size() < static_cast<size_t>(kPrints)) continue;
    const auto o = static_cast<size_t>(layout_.offsets[i]);
    longer.push_back({keywords_[i].substr(o, kPrints), {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(o)}});
  }
  for (size_t l = 0, i = 0; i < keywords_.size(); ++i) {
    if (keywords_[i].size() >= static_cast<size_t>(kPrints)) placed.emplace_back(layout_.buckets[i], &longer[l++]);
  }
  int s = 0;
  for (const auto& [group, items] : shorter) {
    int b = long_n + std::min(s++, short_n - 1);
    short_buckets_ |= 1u << b;
    if (group < sizeof short_bucket_ / sizeof short_bucket_[0]) short_bucket_[group] = b;  // an ASCII length
    for (const Item& item : items) placed.emplace_back(b, &item);
  }
  anchors_.assign((size_t{1} << kHashBits) / 64, 0);
  NibbleSets sets[kBuckets];
  std::map<std::uint32_t, std::vector<Anchored>> by_word;  // full-length anchors by their bytes
  for (const auto& [b, item] : placed) {
    bucket_[b].push_back(item->at);
    sets[b].Add(item->anchor);
    if (item->anchor.size() == static_cast<size_t>(kPrints)) {
      const std::uint32_t word = FoldedWord(item->anchor.data());
      std::uint32_t h = AnchorHash(LooseWord(item->anchor.data()));
      anchors_[h / 64] |= std::uint64_t{1} << (h % 64);
      by_word[word].push_back(item->at);
    } else {  // Note: [Short keyword hash]
      char padded[kPrints] = {};
      std::memcpy(padded, item->anchor.data(), std::min(item->anchor.size(), sizeof padded));
      const std::uint32_t h = AnchorHash(LooseWord(padded) & ShortMask(item->anchor.size()));
      anchors_[h / 64] |= std::uint64_t{1} << (h % 64);
      short_lengths_ |= 1u << item->anchor.size();
    }
  }
  // The anchor table (Note: [Anchor table]): at most half full, so a probe ends within a few slots.
  size_t slots = 16;
  while (slots < 2 * by_word.size()) slots *= 2;
  table_.assign(slots, AnchorSlot{});
  follow_.assign((size_t{1} << kHashBits) / 64, 0);
  std::vector<HitFilter::Context> around;  // a keyword's contexts (Note: [Hit contexts])
  for (auto& [word, refs] : by_word) {
    std::sort(refs.begin(), refs.end(), [](const Anchored& a, const Anchored& b) { return a.keyword < b.keyword; });
    size_t s = AnchorHash(word) & (slots - 1);
    while (table_[s].begin != table_[s].end) s = (s + 1) & (slots - 1);
    table_[s] = {word, static_cast<std::uint32_t>(refs_.size()), static_cast<std::uint32_t>(refs_.size() + refs.size())};
    // Note: [Anchor follow-up]: the bytes after the anchor its keywords agree on.
    for (int f = 0; f < kPrints; ++f) {
      bool agree = true;
      unsigned char byte = 0;
      for (size_t r = 0; r < refs.size() && agree; ++r) {
        const std::string& kw = keywords_[refs[r].keyword];
        const size_t at = refs[r].offset + kPrints + static_cast<size_t>(f);
        agree = at < kw.size() && (r == 0 || static_cast<unsigned char>(kw[at]) == byte);
        if (agree) byte = static_cast<unsigned char>(kw[at]);
      }
      if (!agree) break;  // the mask stays a run of bytes right after the anchor
      table_[s].next |= std::uint32_t{byte} << (8 * f);
      table_[s].next_mask |= std::uint32_t{0xff} << (8 * f);
    }
    {  // Note: [Follow-up hash]: the slot's anchor with its first follow-up byte, or with any byte.
      const unsigned next = (table_[s].next_mask & 0xff) ? ((table_[s].next & 0xff) | 0x20u) + 1 : 0;
      const std::uint32_t h = FollowHash(word | 0x20202020u, next);
      follow_[h / 64] |= std::uint64_t{1} << (h % 64);
    }
    // Note: [Hit contexts]: a slot of one keyword the filter counts only in some contexts.
    around.clear();
    if (filter_ && refs.size() == 1 && filter_->Contexts(refs[0].keyword, keywords_[refs[0].keyword], &around)) {
      HitContext c;
      c.offset = refs[0].offset;
      c.length = static_cast<std::uint32_t>(keywords_[refs[0].keyword].size());
      bool any = false;
      for (const auto& [before, after, after2] : around) {
        if (before < 0 && after < 0) any = true;
        else if (after < 0) c.before[before / 64 & 3] |= std::uint64_t{1} << (before % 64);
        else if (before < 0 && after2 >= 0) {  // Note: [Second byte after]
          const unsigned h = PairHash(static_cast<unsigned>(after), static_cast<unsigned>(after2));
          c.after_pairs[h / 64] |= std::uint64_t{1} << (h % 64);
        } else if (before < 0) c.after[after / 64 & 3] |= std::uint64_t{1} << (after % 64);
        else {
          const unsigned h = PairHash(static_cast<unsigned>(before), static_cast<unsigned>(after));
          c.pairs[h / 64] |= std::uint64_t{1} << (h % 64);
        }
      }
      if (!any) {
        contexts_.push_back(c);
        table_[s].context = static_cast<std::uint32_t>(contexts_.size());
      }
    }
    refs_.insert(refs_.end(), refs.begin(), refs.end());
  }
  // The tables: per set of 8 buckets, anchor byte and nibble, the bits of the buckets accepting it.
  for (int b = 0; b < kBuckets; ++b) {
    for (int f = 0; f < kPrints; ++f) {
      for (int x = 0; x < 16; ++x) {
        if (sets[b].low[f] >> x & 1) low_[b / 8][f][x] |= static_cast<unsigned char>(1u << (b % 8));
        if (sets[b].high[f] >> x & 1) high_[b / 8][f][x] |= static_cast<unsigned char>(1u << (b % 8));
      }
    }
  }
  // The hash stage (Note: [Hash stage]), chosen with the tables in place; a scanner that never runs
  // it (kPortable, kAvx2) passes every position there (CountCandidates) and chooses no mix, ~3-4 M
  // instructions (the first scanner of a load without a cached plan, Note: [Lazy anchor layout]).
  // A given layout's mix is taken as it is (Note: [Cached mix]).
  if (impl == Impl::kPortable || impl == Impl::kAvx2) {
    std::memset(staged_, 0xff, sizeof staged_);
    std::memset(staged_first_, 0xff, sizeof staged_first_);
    std::memset(follow_staged_, 0xff, sizeof follow_staged_);
  } else {
    std::vector<std::pair<int, std::string>> full;
    for (const auto& [b, item] : placed) {
      if (item->anchor.size() == static_cast<size_t>(kPrints)) full.emplace_back(b, item->anchor);
    }
    layout_.mix = ChooseMix(full, given ? layout->mix : -1);
    BuildFollowStage(layout_.mix);
  }
  avx2_ = impl != Impl::kPortable && CpuHasAvx2();
  avx512_ = (impl == Impl::kAuto || impl == Impl::kAvx512 || impl == Impl::kAvx512OnCandidates ||
             impl == Impl::kAvx512OnEveryBlock || impl == Impl::kAvx512WithoutStage) &&
            avx2_ && CpuHasAvx512();
  stage_way_ = impl == Impl::kAvx512OnCandidates ? 1
               : impl == Impl::kAvx512OnEveryBlock ? 2
               : impl == Impl::kAvx512WithoutStage ? 3
                                                   : 0;

}

// Note: [Hash stage]
// On text that is neither a training log nor like the samples the anchors were placed against (web
// text: "robe" of "kube-probe", " idl" of "workers idle", "ealt" of "healthz"), a bucket's nibble
// tables accept a position in 60: each such table candidate cost ~9 ns on this project's AMD EPYC VM,
// a mispredicted branch on the block and a scalar hash test, and the scan of web-server-like text took
// 3.4 ms per 8 MB against 0.8 without candidates. Where the CPU has AVX-512 VBMI, the loop tests the
// candidates' bytes once more, for all 32 positions with no branch: three 7-bit hashes of the four
// bytes (per byte, an 8-bit value looked up by its low 5 bits with vpermb; with x and y the XORs of
// bytes 0 and 2's values and of 1 and 3's, the low 7 bits of x ^ y, of x ^ (y >> 1) and of (x >> 1) ^
// y: StageHashes), then per hash and set of 8 buckets the buckets holding a full-length anchor of that
// hash value (a 128-entry table, vpermt2b on 64-byte registers, Note: [Wide stage tables]), all ANDed
// into the nibble tables' buckets. An anchor's bytes and text
// equal to it up to ASCII case have the same low 5 bits (a letter's cases differ in bit 5), so the
// bucket of every anchor present survives: no keyword is missed. A false candidate now needs, besides
// the tables, an anchor of its bucket with its first hash and one with its second: with one hash, ~13
// anchors a bucket in 64 hashes let a third of the tables' candidates through, and with 1000 rules
// (~25 anchors a bucket) 0.032 of web text's 0.10 table candidates a byte; with the second, 0.018
// (of them 0.0076 pass the 16-bit anchor hash too), key=value 0.0087 -> 0.0017 (scan_bench, 8 MiB,
// 2026-11-28). With ~32 anchors a bucket (the 1000 rules of 2026-11-29) the two still passed 0.022
// of web text's 0.105 a byte, and the loop found it as cheap to test every table candidate without
// the stage (Note: [Stage runs]); the third takes that to 0.010 and key=value's 0.018 to 0.0002, and
// the scan of 8 MiB of web text from ~5.9 to ~4.0 ms (scan_bench, 2026-11-29). Each hash past the
// first costs a shift, an XOR, two vpermt2b and two ANDs a block; the way that runs the stage on
// candidate blocks only (Note: [Stage runs]) runs the first hash alone (StageTables<1>), whose
// tables it loads on each such block, folded to 64 entries (staged_first_: the buckets of the two
// values whose low 6 bits agree), on 32-byte registers; the way on every block runs the first two
// with the follow-up tables in place of the third (Note: [Staged follow-up]). The short
// anchors' buckets accept any hash (their bytes past the anchor are any). The mix values are those of
// the seed (of 64, Note: [Mix seeds]) under which the fewest windows of
// the two samples (kHealthyLogSample, kGeneralTextSample) that the tables accept pass the stage too,
// and the first hash alone (the way on candidate blocks: without it, the seed the three hashes chose
// let key=value's repeated window through that way's one hash, 1.15 -> 1.63 ms per 8 MiB),
// then that leaves the fewest (bucket, hash) pairs taken: a window every line of a log repeats
// (" inf" of "INFO") that fell on a hash of its bucket would pass on every line (key=value text's
// scan 1.02 -> 1.88 ms per 8 MiB with one layout of main's rules when only the pairs counted).
// Note: [Wide stage tables]
// With ~36 anchors a bucket (the 1000 rules of tests/bench/make_rulesets.py, 572 keywords on
// 2026-11-29) a 64-entry table had ~40% of its values taken for a bucket, and the three 6-bit hashes
// passed 0.0147 of web text's 0.115 table candidates a byte, 60% of them no anchor at all (the
// anchor hash ruled them out after a mispredicted branch on the block: "pi/v" of every "/api/v1",
// "zill" of "Mozilla", "heal" of "healthz"). vpermt2b on 64-byte registers looks up 128 entries, so
// the hashes now keep 7 bits and each table is two 64-byte registers (the same count, 12, as the two
// 32-byte halves of the 64-entry ones): 0.0147 -> 0.0065 staged a byte and the scan of the first 8
// MiB 4.6 -> 3.9 ms (scan_bench); the stage costs ~0.2 ms more per 8 MiB on every block (AMD Zen 4
// runs a 64-byte vpermt2b as two halves), which the timed ways (Note: [Stage runs]) leave where it
// does not pay. The 32 indexes go in the low half of the index register and the low half of the
// result is read; the second and third hashes shift by one bit (bit 7, which the shift fills from the
// next byte, is not read).
//
// Note: [Cached mix]
// Trying the kMixSeeds seeds on the samples was ~2.9 M instructions of every start with a rule cache,
// a tenth of a warm one, for an answer that depends only on the keywords and their layout: the seed
// chosen is kept in the Layout (Layout::mix), which the rule cache stores with the plan (Note: [Rule
// cache]), and a scanner given a layout with a seed makes that seed's mix and its stage tables alone.
// Any seed gives a correct scanner: the stage tables are made from the anchors under the mix in use,
// so every anchor's bucket passes at its hashes whatever the mix; only how many false candidates pass
// depends on it. A value that is no seed (a damaged or planted entry) has the seed chosen afresh.
//
// Note: [Mix seeds]
// Until 2026-11-29 the mix was chosen among 16 seeds and a sample window passing all three hashes
// weighed the same as one passing the first alone (plus its first-hash pass). The first hash alone,
// folded to 64 values, passes ~130 of the samples' windows under any seed, all three ~15, so the
// first-hash count's spread between seeds chose the seed, and with the 1000 rules of
// tests/bench/make_rulesets.py (556 keywords) the one chosen let "ests" of the general sample's
// "python-requests" and "TTP/" of "HTTP/1.1" through all three hashes: on web-server-like text 61,000
// of the 97,000 positions per 8 MiB that passed the stage, each a mispredicted branch on its block.
// Now a window the way on every block passes (since 2026-11-30 its own test: the stage's hashes, the
// first two until 2026-12-01 (Note: [Wide stage blocks]), and the follow-up tables, Note: [Staged
// follow-up]; all three hashes where the sample ends after the window)
// weighs 8 times one passing the first alone (any weight from 8 to 32 chose alike), and 64 seeds are
// tried; the sample windows the tables accept are found once, not per seed, so 64 seeds cost about what 16 did (a
// plan made afresh, Note: [Cached mix]: a start with an
// empty cache directory and the bundled rules, callgrind, 640.6 M -> 641.6 M instructions). Staged
// positions per byte (tests/bench/scan_bench, first 8 MiB): 1000 rules, web text 0.0116 -> 0.0042; the
// bundled rules and 50 rules unchanged on every kind. Tried beside it, no effect on any input (the same seed
// chosen): the samples' windows in upper case too, and a table of the 4096 4-byte windows commonest
// in this machine's /usr/share/doc READMEs, NEWS and Markdown files, each weighing its frequency. The
// seed count is a measured point: 32 seeds keep the old staged count, and 256 find one with a better score
// that passes "ad_n" of key=value's every "grad_norm" at 1000 rules (tests/bench/README.md, "The hash
// stage's mix at 1000 rules").
int LineScanner::ChooseMix(const std::vector<std::pair<int, std::string>>& anchors, int seed_given) {
  constexpr unsigned kHashes = 1u << kStageBits;
  constexpr int kFirstHashWeight = 1000, kAllHashesWeight = 8000;  // per sample window passing (Note: [Mix seeds])
  const bool given = seed_given >= 0 && seed_given < kMixSeeds;
  // The sample windows the tables accept, with their buckets: the same under every seed, so found once.
  // (A given seed is not scored: it is the only one.)
  struct Accepted {
    const char* window;
    unsigned buckets;
    bool next;  // the byte after the window lies in the sample
  };
  std::vector<Accepted> accepted;
  for (std::string_view sample : {kHealthyLogSample, kGeneralTextSample}) {
    if (given) break;
    for (size_t i = 0; i + kPrints <= sample.size(); ++i) {
      if (unsigned buckets = BucketsAt(sample.data(), sample.size(), i) & ~short_buckets_) {
        accepted.push_back({sample.data() + i, buckets, i + kPrints < sample.size()});
      }
    }
  }
  int best_taken = -1, best_seed = -1;
  unsigned char mix[kPrints][32];
  for (int seed = given ? seed_given : 0; seed < (given ? seed_given + 1 : kMixSeeds); ++seed) {
    std::uint64_t x = 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(seed + 1);
    for (auto& row : mix) {
      for (unsigned char& v : row) {
        x ^= x >> 31;
        x *= 0xbf58476d1ce4e5b9ull;
        x ^= x >> 29;
        v = static_cast<unsigned char>(x >> 40);  // all 8 bits: the second and third hashes read bits 2-7 of some
      }
    }
    unsigned char staged[kStageHashes][2][kHashes] = {};  // [hash][set of 8 buckets][value]
    for (const auto& [b, anchor] : anchors) {
      unsigned h[kStageHashes];
      StageHashes(mix, anchor.data(), h);
      for (int t = 0; t < kStageHashes; ++t) staged[t][b / 8][h[t]] |= static_cast<unsigned char>(1u << (b % 8));
    }
    int taken = 0;
    for (const auto& hash : staged) {
      for (const auto& set : hash) {
        for (unsigned char bits : set) taken += __builtin_popcount(bits);
      }
    }
    // First of all, the sample windows the tables accept that the stage would pass too: what a line
    // layout repeats (" inf" of every "INFO" line) must not fall on hashes its bucket holds; one that
    // the way on every block passes (its kEveryBlockHashes hashes and the follow-up tables, Note: [Staged
    // follow-up]; all three hashes where the sample ends after the window) weighs 8 times one that
    // passes the first alone (the way on candidate blocks, Note: [Stage runs]).
    alignas(64) unsigned char follow_staged[3][2][kHashes];
    unsigned char follow_mix[32];
    if (!given) MakeFollowStage(mix, seed, follow_mix, follow_staged);
    for (const auto& [window, buckets, next] : accepted) {
      unsigned h[kStageHashes];
      StageHashes(mix, window, h);
      unsigned every_block = StagePass(staged, h);
      if (next) {
        every_block = staged[0][0][h[0]] | unsigned{staged[0][1][h[0]]} << 8;
        for (int t = 1; t < kEveryBlockHashes; ++t) {
          every_block &= staged[t][0][h[t]] | unsigned{staged[t][1][h[t]]} << 8;
        }
        const unsigned fm = follow_mix[static_cast<unsigned char>(window[kPrints]) & 31];
        const unsigned v = (h[0] ^ fm) & (kHashes - 1), v2 = (h[1] ^ (fm >> 1)) & (kHashes - 1);
        const unsigned t = EndingIndex(mix, window, h, buckets);
        every_block &= ((follow_staged[0][0][v] | unsigned{follow_staged[0][1][v]} << 8) &
                        (follow_staged[2][0][v2] | unsigned{follow_staged[2][1][v2]} << 8)) |
                       (follow_staged[1][0][t] | unsigned{follow_staged[1][1][t]} << 8);
      }
      if (every_block & buckets) {
        taken += kAllHashesWeight;
      } else {  // the first hash's folded table holds every value the first hash passes
        const unsigned folded = h[0] & (kFirstHashes - 1);
        if ((FirstStaged(staged, 0, folded) | FirstStaged(staged, 1, folded) << 8) & buckets) taken += kFirstHashWeight;
      }
    }
    if (best_taken < 0 || taken < best_taken) {
      best_taken = taken;
      best_seed = seed;
      std::memcpy(mix_, mix, sizeof mix_);
      std::memcpy(staged_, staged, sizeof staged_);
    }
  }
  for (int b = 0; b < kBuckets; ++b) {
    if (!(short_buckets_ >> b & 1)) continue;
    for (auto& hash : staged_) {
      for (unsigned char& bits : hash[b / 8]) bits |= static_cast<unsigned char>(1u << (b % 8));
    }
  }
  for (int s = 0; s < 2; ++s) {
    for (unsigned v = 0; v < kFirstHashes; ++v) staged_first_[s][v] = FirstStaged(staged_, s, v);
  }
  return best_seed;
}

void LineScanner::StageHashes(const unsigned char (&mix)[kPrints][32], const char* bytes, unsigned (&h)[kStageHashes]) {
  static_assert(kPrints == 4 && kStageFirst == 0 && kStageLast == 3 && kStageHashes == 3,
                "the stage hashes the anchor's four bytes three ways");
  auto m = [&](int f) { return unsigned{mix[f][static_cast<unsigned char>(bytes[f]) & 31]}; };
  const unsigned x = m(0) ^ m(2), y = m(1) ^ m(3);
  h[0] = (x ^ y) & ((1u << kStageBits) - 1);
  h[1] = (x ^ (y >> 1)) & ((1u << kStageBits) - 1);
  h[2] = ((x >> 1) ^ y) & ((1u << kStageBits) - 1);
}

unsigned LineScanner::StagePass(const unsigned char (&staged)[kStageHashes][2][1 << kStageBits],
                                const unsigned (&h)[kStageHashes]) {
  unsigned pass = 0xffff;
  for (int t = 0; t < kStageHashes; ++t) pass &= staged[t][0][h[t]] | unsigned{staged[t][1][h[t]]} << 8;
  return pass;
}

unsigned LineScanner::FirstStaged(const unsigned char (&staged)[kStageHashes][2][1 << kStageBits], int set,
                                  unsigned folded) {
  unsigned bits = 0;
  for (unsigned v = folded; v < (1u << kStageBits); v += kFirstHashes) bits |= staged[0][set][v];
  return bits;
}

// Note: [Staged follow-up]
// With the 1000 rules of tests/bench/make_rulesets.py on web-server text the hash stage passed ~50,800
// positions per 8 MiB (scan_bench, 2026-11-30), 33,300 of them real anchors of the rules' keywords
// inside other words ("warn" of "WARN app.", "ctiv" of "inactivity", "pick" of "picked", "hard" and
// "shar" of "shard"), which the follow-up byte (Note: [Follow-up hash]) rules out only after the
// branch on the block's candidates (taken on ~19% of the blocks, and mispredicted), and 6,600 "ked "
// and "key " in the 3-byte keywords' bucket, which the stage passes at every value. The loop with the
// stage on every block now tests, with no branch, two more tables per set of 8 buckets (128 entries,
// vpermt2b as the stage's): a keyword that goes on after its anchor puts its bucket into the first at
// its anchor's first stage hash XORed with a mix value of its next byte (follow_mix_, looked up by
// its low 5 bits with vpermb, as the stage's own mix values are); one that ends with its anchor (no
// next byte to test) into the second at the XOR of the mix values of the anchor's first three bytes
// (ThreeHash), and so does a 3-byte keyword into its bucket (other short buckets pass there at every
// value). A position passes for the buckets of either table, ANDed into the stage's. A keyword lying
// at a position equals the text there up to ASCII case, which keeps every byte's low 5 bits, so its
// bucket passes both the stage and one of these tables: nothing is missed. The tables are per keyword,
// not per anchor-table slot, so a slot whose keywords agree on no next byte still has each one's own.
// They took the place of the stage's third hash in that loop (kEveryBlockHashes: with all three and
// the two tables the loop cost ~0.3 ms more per 8 MiB on text without candidates, tqdm bars, against
// ~0.1 with two), until the stage ran on two blocks at once (Note: [Wide stage blocks]), which took
// the third hash back and added a second table by the next byte. A block whose last position's next byte may lie past the text is not tested (as
// for FollowMayHold). The follow-up mix values follow the stage's from the same seed (Note: [Cached
// mix]), so the rule cache holds nothing more. scan_bench,
// the first 8 MiB of web text, positions a byte passing the loop's stage: 1000 rules 0.00605 -> 0.00116
// (3,301 of the 9,700 left are "cache" of "cache miss", a keyword that counts there), the bundled rules
// 0.00398 -> 0.00116; the other kinds take the ways without the stage and are unchanged. The seed is
// chosen by this loop's own test (Note: [Mix seeds]: until 2026-11-30 a sample window weighed 8 when it
// passed all three stage hashes, which this loop does not run, so the seed chosen could leave a
// sample's window ("nnec" of "connection") passing the follow-up tables; scan_bench, 1000 rules, web
// text, 0.00353 -> 0.00247 a byte past this loop's stage with the rules of 2026-11-30 16:40).
// Note: [Ending anchor hash]
// The ending table was indexed by ThreeHash, the anchor's first three bytes, for every bucket: so a
// keyword ending with its anchor passed every window that shared those three bytes ("ward" of
// "forward" let every "warn" of "WARN app." through, under every seed), and its fill let random
// windows through ("\"kub" of every "\"kube-probe", 12,174 per 8 MiB of web text with the 1000 rules of
// tests/bench/make_rulesets.py on 2026-11-30 20:40). Only the 3-byte keywords need a 3-byte hash: in
// the set of 8 buckets that holds their bucket (ThreeBucket) the table is indexed as before; in the
// other set, by the stage's third hash (all four bytes, computed by the stage anyway), so an ending
// keyword passes only windows of its own four bytes (EndingIndex). A keyword lying at a position has
// its anchor's four bytes there up to ASCII case, so its bucket passes either index. scan_bench, the
// first 8 MiB of web text, 1000 rules, positions a byte past the loop's stage 0.00457 -> 0.00251 (the
// seed chosen changed with the scoring); what is left is real anchors in other words ("use " of "GC
// pause", "tive" of "active", "ompl" of "completed", "ired" of "expired", "hard" of "shard") and a
// seed's luck ("dule" 3,211). Tried and dropped: a third table by the byte before an ending anchor
// ("ired" of "expired" against "required"): 0.00457 -> 0.00379, but ~0.25 ms more per 8 MiB on
// every block, where it saved nothing (tests/bench/README.md, sp-flat5).
void LineScanner::BuildFollowStage(int seed) { MakeFollowStage(mix_, seed, follow_mix_, follow_staged_); }

void LineScanner::MakeFollowStage(const unsigned char (&mix)[kPrints][32], int seed, unsigned char (&follow_mix)[32],
                                  unsigned char (&follow_staged)[3][2][1 << kStageBits]) const {
  std::uint64_t x = 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(seed + 1);
  for (int v = 0; v < (kPrints + 1) * 32; ++v) {  // ChooseMix's sequence, then 32 values more
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 29;
    if (v >= kPrints * 32) follow_mix[v - kPrints * 32] = static_cast<unsigned char>(x >> 40);
  }
  std::memset(follow_staged, 0, sizeof follow_staged);
  constexpr unsigned kValues = 1u << kStageBits;
  for (size_t k = 0; k < keywords_.size(); ++k) {
    const std::string& kw = keywords_[k];
    if (kw.size() < static_cast<size_t>(kPrints)) continue;
    const int b = layout_.buckets[k];
    const auto o = static_cast<size_t>(layout_.offsets[k]);
    unsigned h[kStageHashes];
    StageHashes(mix, kw.data() + o, h);
    const auto bit = static_cast<unsigned char>(1u << (b % 8));
    if (o + kPrints < kw.size()) {
      const unsigned fm = follow_mix[static_cast<unsigned char>(kw[o + kPrints]) & 31];
      follow_staged[0][b / 8][(h[0] ^ fm) & (kValues - 1)] |= bit;
      follow_staged[2][b / 8][(h[1] ^ (fm >> 1)) & (kValues - 1)] |= bit;
    } else {
      follow_staged[1][b / 8][EndingIndex(mix, kw.data() + o, h, 1u << b)] |= bit;
    }
  }
  // The short anchors' buckets: a 3-byte keyword by its bytes' hash, the shorter ones at every value.
  const int three = ThreeBucket();
  for (int b = 0; b < kBuckets; ++b) {
    if (!(short_buckets_ >> b & 1) || b == three) continue;
    for (unsigned char& bits : follow_staged[1][b / 8]) bits |= static_cast<unsigned char>(1u << (b % 8));
  }
  if (three >= 0) {
    for (const std::string& kw : keywords_) {
      if (kw.size() == 3 && static_cast<unsigned char>(kw[0]) < 0x80) follow_staged[1][three / 8][ThreeHash(mix, kw.data())] |= static_cast<unsigned char>(1u << (three % 8));
    }
  }
}

int LineScanner::ThreeBucket() const {
  const int three = short_bucket_[3];
  return short_bucket_[1] == three || short_bucket_[2] == three ? -1 : three;  // a bucket of several lengths: none
}

unsigned LineScanner::EndingIndex(const unsigned char (&mix)[kPrints][32], const char* bytes,
                                  const unsigned (&h)[kStageHashes], unsigned buckets) const {
  const int three = ThreeBucket();
  return three >= 0 && (buckets >> (three / 8 * 8) & 0xff) ? ThreeHash(mix, bytes) : h[2];
}

unsigned LineScanner::ThreeHash(const unsigned char (&mix)[kPrints][32], const char* bytes) {
  auto m = [&](int f) { return unsigned{mix[f][static_cast<unsigned char>(bytes[f]) & 31]}; };
  return (m(0) ^ m(1) ^ m(2)) & ((1u << kStageBits) - 1);
}

unsigned LineScanner::FollowBuckets(const char* p, size_t i) const {
  unsigned h[kStageHashes];
  StageHashes(mix_, p + i, h);
  unsigned pass = 0xffff;
  for (int t = 0; t < kEveryBlockHashes; ++t) pass &= staged_[t][0][h[t]] | unsigned{staged_[t][1][h[t]]} << 8;
  const unsigned fm = follow_mix_[static_cast<unsigned char>(p[i + kPrints]) & 31];
  const unsigned v = (h[0] ^ fm) & ((1u << kStageBits) - 1), v2 = (h[1] ^ (fm >> 1)) & ((1u << kStageBits) - 1);
  const unsigned t0 = EndingIndex(mix_, p + i, h, 0x00ff), t1 = EndingIndex(mix_, p + i, h, 0xff00);
  return pass & (((follow_staged_[0][0][v] | unsigned{follow_staged_[0][1][v]} << 8) &
                  (follow_staged_[2][0][v2] | unsigned{follow_staged_[2][1][v2]} << 8)) |
                 (follow_staged_[1][0][t0] | unsigned{follow_staged_[1][1][t1]} << 8));
}

unsigned LineScanner::StageBuckets(const char* p, size_t i) const {
  unsigned h[kStageHashes];
  StageHashes(mix_, p + i, h);
  return StagePass(staged_, h);
}

inline std::uint32_t LineScanner::FoldedWord(const char* p) {
  static_assert(kPrints == 4 && NibbleSets::kBytes == kPrints, "an anchor is one 32-bit word");
  std::uint32_t x;
  std::memcpy(&x, p, 4);
  // ASCII lower case of four bytes at once: the bytes 'A'..'Z' (bit 7 clear) gain 0x20.
  const std::uint32_t low7 = x & 0x7f7f7f7fu;
  const std::uint32_t upper = (low7 + 0x3f3f3f3fu) & ~(low7 + 0x25252525u) & ~x & 0x80808080u;
  return x | upper >> 2;
}

inline std::uint32_t LineScanner::AnchorHash(std::uint32_t folded) { return (folded * 2654435761u) >> (32 - kHashBits); }

// Note: [Anchor follow-up]
// A candidate that passes the anchor hash used to go straight to AnchorHit, a call from the scan loop:
// with the tables in vector registers, every one of them is saved around it (and the comparison itself
// mispredicts), ~50 ns a candidate on this project's AMD EPYC VM. On web-server-like text, one line in
// five holds a full-length anchor that is no keyword ("WARN app.db" for "warning", "rebuilt" for
// "builtin", "shard" for "shared"): 0.0015 per byte, ~0.7 ms of the scan's ~2.8 ms per 8 MB. Each slot
// of the anchor table now keeps the bytes after the anchor that all its keywords hold (the folded next
// kPrints bytes, as far as they agree and the keywords go on), and the loop compares them with the
// text's in place, calling only where they match (or where the slot has none to compare: an anchor at
// its keywords' end, as "rror" of "error"). The keywords anchored there hold those bytes after the
// anchor, so a text holding one of them passes: nothing is missed.
inline bool LineScanner::MayBeAnchored(const char* p, size_t n, size_t at) const {
  const std::uint32_t word = FoldedWord(p + at);
  const size_t mask = table_.size() - 1;
  for (size_t s = AnchorHash(word) & mask; table_[s].begin != table_[s].end; s = (s + 1) & mask) {
    const AnchorSlot& slot = table_[s];
    if (slot.word != word) continue;
    if (slot.next_mask != 0 && at + 2 * kPrints <= n && (FoldedWord(p + at + kPrints) & slot.next_mask) != slot.next) {
      return false;
    }
    return slot.context == 0 || ContextMayHold(contexts_[slot.context - 1], p, n, at);
  }
  return false;  // a collision in the hash bitset: no anchor is these bytes
}

// Note: [Hit contexts]
// With a filter (Note: [Keyword contexts]) a keyword found is a call out of the scan loop, with the
// loop's vector registers saved around it, and the filter's literal comparisons; with the 1000 rules
// of tests/bench/make_rulesets.py, "prob" of every "kube-probe" on web-server text, ~12,000 calls per
// 8 MiB, nearly every keyword found, none of which counted. A keyword's literals fix the bytes just
// around it where it lies inside one of them: "image prob status" puts ' ' before it and ' ' after,
// "prob: [" ':' after and anything before (its literal begins with the keyword), "proba" 'a' after.
// The filter lists those pairs (HitFilter::Contexts; LinePrefilter's from its literal checks), and
// a slot of the anchor table whose one keyword has them keeps them (HitContext): the bytes allowed
// before whatever follows, after whatever precedes, and the pairs, in a 256-bit hash set. The loop
// tests the text's bytes around the keyword (ASCII-lowered, as the filter compares) in place, after
// the follow-up bytes, and leaves it only when they may fit: '-' and 'e' of "kube-probe" fit none. A
// place the filter counts has one of its pairs around the keyword, so it always passes; a keyword at
// the text's first byte or ending at its last has a side missing and passes too. Only slots of one
// keyword have it (the keywords of a slot of several lie at other offsets from the anchor).
// Note: [Second byte after]
// One byte after the keyword is too little where a literal begins with the keyword and the next byte
// is a word's: "items(" (1000 make_rulesets.py rules) lets "item" count before any 's', and every
// "/api/v1/items" of web text, 5,389 per 8 MiB, was a call out of the loop and a literal comparison
// that found nothing (with `Counts` and `AnchorHit`, ~4% of the run's perf samples). A context whose
// literal begins with the keyword and goes on two bytes or more (HitFilter::Context::after2) goes into
// a hash set of its (after, second byte after) pairs instead of the bytes allowed after, and the loop
// tests the text's two bytes there when the three tests above fail; a keyword one byte before the
// text's end has no second byte and passes. A place the filter counts holds some context's bytes, so
// it still passes.
inline unsigned LineScanner::PairHash(unsigned before, unsigned after) {
  return ((before * 0x9e3779b1u) ^ (after * 0x85ebca77u)) >> 24;
}

inline bool LineScanner::ContextMayHold(const HitContext& c, const char* p, size_t n, size_t at) {
  if (at < c.offset) return false;  // the keyword would start before the text: it is not here
  const size_t start = at - c.offset, end = start + c.length;
  if (end > n) return false;
  if (start == 0 || end == n) return true;
  const unsigned before = Lower(static_cast<unsigned char>(p[start - 1]));
  const unsigned after = Lower(static_cast<unsigned char>(p[end]));
  const unsigned h = PairHash(before, after);
  if ((c.before[before / 64] >> (before % 64) & 1) || (c.after[after / 64] >> (after % 64) & 1) ||
      (c.pairs[h / 64] >> (h % 64) & 1)) {
    return true;
  }
  if (end + 1 == n) return true;  // no second byte after: an (after, after2) context may still fit
  const unsigned h2 = PairHash(after, Lower(static_cast<unsigned char>(p[end + 1])));
  return c.after_pairs[h2 / 64] >> (h2 % 64) & 1;
}

// Note: [Loose anchor hash]
// The anchor hash bitset (anchors_) is the scan loop's test of each table candidate, one after another
// in scalar code: with 1000 rules on web text ~3 candidates a block where the stage does not run
// (Note: [Stage runs]), and the loop's largest cost there. Its key need not be FoldedWord's exact
// ASCII fold (7 operations): bit 5 set in each byte is enough (one OR). A letter's two cases differ
// only in bit 5, so text equal to an anchor up to ASCII case has the same LooseWord as the anchor, and
// every anchor present passes; the bytes that differ from another only in bit 5 ('\n' and '*', '['
// and '{', '_' and DEL, a control byte and its punctuation) now share a key, a false candidate more
// where a text window matches an anchor up to them, which the anchor table (MayBeAnchored, exact
// fold) then rules out.
inline std::uint32_t LineScanner::LooseWord(const char* p) {
  std::uint32_t x;
  std::memcpy(&x, p, 4);
  return x | 0x20202020u;
}

inline bool LineScanner::HashMayHold(const char* p) const {
  const std::uint32_t h = AnchorHash(LooseWord(p));
  return anchors_[h / 64] >> (h % 64) & 1;
}

// Note: [Follow-up hash]
// Where the hash stage runs on every block (Note: [Stage runs]: web-server text with the 1000 rules of
// tests/bench/make_rulesets.py), most positions it passes are real anchors of the rules' keywords in
// words of the text that are not those keywords ("warn" of "WARN app.db" for "warning", "pick" of
// "picked" for "pickle", "comp" of "completed" for "compute", " cal" of " called" for " calling": ~23,000
// of the ~40,000 staged positions per 8 MiB, 2026-11-30). Each passed the anchor hash, so the loop's
// `pass` branch went their way, and MayBeAnchored's probe of the anchor table ruled them out by the
// bytes after the anchor (Note: [Anchor follow-up]): branches no predictor guesses, ~0.4 ms of the
// scan's ~3.4 per 8 MiB there. A second bitset (follow_) holds, per slot, the hash of the anchor's
// LooseWord with the first byte after it that all the slot's keywords hold (its bit 5 set), or with
// "any" where they agree on none (an anchor at some keyword's end); that loop tests a position's
// LooseWord with the text's next byte and with "any", in place of the anchor hash, with no branch.
// A keyword lying there holds its slot's next byte after the anchor, which the text then holds, so it
// passes; whatever passes still goes through MayBeAnchored. It costs a second multiply and bitset
// load per candidate, so the loops without the stage, whose table candidates are many more, keep the
// anchor hash alone (with it there, the scan without the stage of that web text took 5.1 -> 6.7 ms
// per 8 MiB); a block whose last position's next byte may lie past the text keeps it too.
inline std::uint32_t LineScanner::FollowHash(std::uint32_t loose, unsigned next) {
  return ((loose + next * 0x85ebca77u) * 2654435761u) >> (32 - kHashBits);
}

inline bool LineScanner::FollowMayHold(const char* p) const {
  const std::uint32_t loose = LooseWord(p);
  const std::uint32_t any = FollowHash(loose, 0);
  const std::uint32_t next = FollowHash(loose, (static_cast<unsigned char>(p[kPrints]) | 0x20u) + 1);
  return ((follow_[any / 64] >> (any % 64)) | (follow_[next / 64] >> (next % 64))) & 1;
}

// Note: [Short keyword hash]
// A keyword shorter than kPrints anchors on all its bytes, and its bucket's tables accept any byte
// after them (Note: [Fingerprint scan]); its positions had no hash test and left the scan loop for the
// bucket's keyword list, each a call with the tables' registers saved around it. With the 1000 rules
// of tests/bench/make_rulesets.py the 3-byte keywords' bucket ("net", "ema", "[0m", the quotes '‘' and
// '“' as UTF-8) accepts "ked " of every "picked up" and "key " of web text by the product of their
// nibbles, ~6,600 calls per 8 MiB that found nothing. Each short keyword now puts the hash of its
// LooseWord cut to its length into the anchor hash bitset, and a short bucket's candidate passes when
// the text's LooseWord cut to some short keyword's length hashes there (or a full-length anchor's
// hash does: a position may be both). A keyword equal to the text up to ASCII case has the same
// LooseWord bytes, so none is missed; the test reads kPrints bytes, as the full-length one does, so the
// loops make it where those lie in the text and pass the position otherwise.
inline std::uint32_t LineScanner::ShortMask(size_t length) {
  return length >= 4 ? ~std::uint32_t{0} : (std::uint32_t{1} << (8 * length)) - 1;
}

inline bool LineScanner::ShortHashMayHold(const char* p) const {
  const std::uint32_t word = LooseWord(p);
  bool any = false;
  for (unsigned lengths = short_lengths_; lengths; lengths &= lengths - 1) {
    const std::uint32_t h = AnchorHash(word & ShortMask(static_cast<size_t>(__builtin_ctz(lengths))));
    any = any || (anchors_[h / 64] >> (h % 64) & 1);
  }
  return any;
}

bool LineScanner::KeywordAt(const char* p, size_t n, size_t at) const {
  for (std::uint32_t k : first_[Lower(static_cast<unsigned char>(p[at]))]) {
    const std::string& kw = keywords_[k];
    if (at + kw.size() <= n && EqualsFolded(p + at, kw) && (!filter_ || filter_->Counts(k, p, n, at))) return true;
  }
  return false;
}

void LineScanner::KeywordsIn(std::string_view text, std::vector<std::uint32_t>* found) const {
  if (avx512_) return KeywordsInAvx512(text.data(), text.size(), found);
  if (avx2_) return KeywordsInAvx2(text.data(), text.size(), found);
  KeywordsInFrom(text.data(), text.size(), 0, found);
}

unsigned LineScanner::BucketsAt(const char* p, size_t n, size_t i) const {
  unsigned buckets = 0xffff;  // past the end: only a short anchor's "any byte" can accept
  for (int f = 0; f < kPrints && buckets; ++f) {
    if (i + f >= n) {
      buckets &= short_buckets_;
      break;
    }
    unsigned char c = static_cast<unsigned char>(p[i + f]);
    buckets &= (low_[0][f][c & 15] & high_[0][f][c >> 4]) | unsigned(low_[1][f][c & 15] & high_[1][f][c >> 4]) << 8;
  }
  return buckets;
}

// Note: [Anchor table]
// A candidate position that passes the anchor hash bitset is verified against the keywords whose
// anchor is exactly the (folded) four bytes there, found in an open-addressed table keyed by those
// bytes, instead of against every keyword of the buckets its tables accept. An anchor equal to the
// bytes lies in a bucket whose tables accept them (both cases of a letter are entered), so the
// keywords visited are the same; a bitset collision now costs one compare, and an anchor that
// ordinary text holds ("ndex" of "index.html" for "index out of range") costs the compare of the one
// or two keywords anchored there. On web-server-like text the bucket walk cost ~350 instructions per
// verified candidate (12 M of the 132 M of an 8 MB input). Anchors shorter than kPrints have no hash:
// their buckets' lists are walked as before.
template <typename F>
bool LineScanner::VisitAnchorHits(const char* p, size_t n, size_t at, unsigned buckets, F visit) const {
  if ((buckets & ~short_buckets_) && at + kPrints <= n) {
    const std::uint32_t word = FoldedWord(p + at);
    const size_t mask = table_.size() - 1;
    for (size_t s = AnchorHash(word) & mask; table_[s].begin != table_[s].end; s = (s + 1) & mask) {
      if (table_[s].word != word) continue;
      for (std::uint32_t r = table_[s].begin; r < table_[s].end; ++r) {
        const Anchored& a = refs_[r];
        const std::string& kw = keywords_[a.keyword];
        if (a.offset <= at && at - a.offset + kw.size() <= n && EqualsFolded(p + (at - a.offset), kw) &&
            visit(a.keyword, at - a.offset)) {
          return true;
        }
      }
      break;
    }
  }
  for (buckets &= short_buckets_; buckets; buckets &= buckets - 1) {
    for (const Anchored& a : bucket_[__builtin_ctz(buckets)]) {
      const std::string& kw = keywords_[a.keyword];
      if (a.offset <= at && at - a.offset + kw.size() <= n && EqualsFolded(p + (at - a.offset), kw) &&
          visit(a.keyword, at - a.offset)) {
        return true;
      }
    }
  }
  return false;
}

void LineScanner::AnchorHits(const char* p, size_t n, size_t at, unsigned buckets,
                             std::vector<std::uint32_t>* found) const {
  VisitAnchorHits(p, n, at, buckets, [found](std::uint32_t k, size_t) {
    if (std::find(found->begin(), found->end(), k) == found->end()) found->push_back(k);
    return false;  // all of them
  });
}

void LineScanner::KeywordsInFrom(const char* p, size_t n, size_t from, std::vector<std::uint32_t>* found) const {
  // Every occurrence of a keyword has its anchor at one position: the positions the tables accept,
  // then the anchor hashes, then a full comparison (Note: [Fingerprint scan]).
  for (size_t i = from; i < n; ++i) {
    if (unsigned buckets = BucketsAt(p, n, i)) AnchorHits(p, n, i, buckets, found);
  }
}

LineScanner::Counts LineScanner::CountCandidates(std::string_view text) const {
  return CountCandidates(text, [](size_t, unsigned, bool, bool, bool, bool) {});
}

LineScanner::Counts LineScanner::CountCandidates(
    std::string_view text, const std::function<void(size_t, unsigned, bool, bool, bool, bool)>& visit) const {
  Counts counts;
  const char* p = text.data();
  const size_t n = text.size();
  for (size_t i = 0; i < n; ++i) {
    const unsigned buckets = BucketsAt(p, n, i);
    if (!buckets) continue;
    ++counts.table;
    const bool staged = i + kPrints > n || (buckets & StageBuckets(p, i)) != 0;
    counts.staged += staged;
    // The loop with the stage on every block: where the byte after the window lies, its first hashes
    // and the follow-up tables (Note: [Staged follow-up]); else all three hashes.
    const bool followed = i + kPrints < n ? (buckets & FollowBuckets(p, i)) != 0 : staged;
    counts.followed += followed;
    const bool fits = i + kPrints <= n;
    const bool hashed = (fits && HashMayHold(p + i)) || ((buckets & short_buckets_) && (!fits || ShortHashMayHold(p + i)));
    const bool anchored = hashed && AnchorHit(p, n, i, buckets);
    counts.hashed += hashed;
    counts.anchored += anchored;
    visit(i, buckets, staged, hashed, anchored, followed);
  }
  return counts;
}

bool LineScanner::AnchorHit(const char* p, size_t n, size_t at, unsigned buckets) const {
  return VisitAnchorHits(p, n, at, buckets, [](std::uint32_t, size_t) { return true; });
}

// Note: [Keyword contexts]
// A keyword stands for some patterns' required literals (CoverKeywords takes a word many of them share),
// so text holds it far more often than any of them: with the 1000 rules of tests/bench/make_rulesets.py,
// "prob" (of the literals "image prob status reached", "prob: [" ...) lies in every "kube-probe" of
// web-server text and "built" in every "rebuilt", and the scan stopped on ~15,000 lines per 8 MiB
// whose literal checks (LinePrefilter::Candidates) then found nothing: each a return from the loop,
// Inert's look at the line and its shape, and a new call. So a LinePrefilter's scanners ask it about
// each keyword Find finds (LineScanner::HitFilter): the keyword counts at that place only when one of
// the literals its checks compare lies there (LiteralsAt, the comparisons Candidates makes, on the
// text folded to lower case), or when its lines are read wherever it lies (any_place: an idle keyword,
// a pattern of it with no literal to compare, a literal searched for); otherwise the scan goes on as if
// the keyword were not there. No line that matters is skipped: while the segmenter is idle a line
// matters when it holds an idle keyword or a pattern matches the text the rules see of it (Note: [Line
// prefilter]), a part of the line; that text then holds a literal L of the pattern, L holds a keyword
// k of the pattern, and k has a check of L made where L's first k lies: the scan finds that k, the
// check finds L, and the line stops the scan. A line skipped now holds keywords but none of their
// literals, so Candidates found no pattern in it and Inert judged it inert, unless it was a line Inert
// leaves to the segmenter whatever it holds (a leading '[', a '\r', a prefix a format reader strips, a
// record header not learned yet): such a line is now skipped as a line without keywords always was.
// Only the implementations' agreement depends on where they ask (each asks at every place a keyword
// lies, in order, until one counts); the filter reads the text only.
bool LineScanner::CountedHit(const char* p, size_t n, size_t at, unsigned buckets) const {
  // Most positions that get here hold no keyword: that answer first, with no call to the filter in the
  // way (a call inside the visit had every working register saved on each of them, +25% for
  // CountedHit with 50 rules on web text); the keywords found are visited again to ask.
  if (!AnchorHit(p, n, at, buckets)) return false;
  return !filter_ || VisitAnchorHits(p, n, at, buckets,
                                     [&](std::uint32_t k, size_t start) { return filter_->Counts(k, p, n, start); });
}

LineScanner::Hit LineScanner::Find(std::string_view text) const {
  if (match_all_) {
    Hit hit;
    hit.found = !text.empty();
    return hit;
  }
  if (avx512_) return FindAvx512(text.data(), text.size());
  if (avx2_) return FindAvx2(text.data(), text.size());
  return FindPortable(text.data(), text.size(), 0, 0, 0);
}

LineScanner::Hit LineScanner::FindPortable(const char* p, size_t n, size_t from, std::uint64_t newlines,
                                           size_t line_start) const {
  for (size_t i = from; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(p[i]);
    if (c == '\n') {
      ++newlines;
      line_start = i + 1;
      continue;
    }
    if (has_first_[Lower(c)] && KeywordAt(p, n, i)) return {true, line_start, newlines};
  }
  return {false, n, newlines};
}

#ifdef TRIAGE_AVX2
namespace {

// The fingerprint tables in registers, and the candidates of 32 positions (FindAvx2, KeywordsInAvx2).
struct FingerprintTables {
  static constexpr int kPrints = 4;  // LineScanner::kPrints
  __m256i low[2][kPrints], high[2][kPrints];

  __m256i short_sets[2];  // the buckets of anchors shorter than kPrints, which no hash rules out

  __attribute__((target("avx2"))) FingerprintTables(const unsigned char (&lo)[2][kPrints][16],
                                                    const unsigned char (&hi)[2][kPrints][16],
                                                    unsigned short_buckets) {
    short_sets[0] = _mm256_set1_epi8(static_cast<char>(short_buckets & 0xff));
    short_sets[1] = _mm256_set1_epi8(static_cast<char>(short_buckets >> 8));
    for (int s = 0; s < 2; ++s) {
      for (int f = 0; f < kPrints; ++f) {
        low[s][f] = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(lo[s][f])));
        high[s][f] = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(hi[s][f])));
      }
    }
  }

  // acc[s] byte j: the buckets of set s (8 each) whose tables accept the kPrints bytes from p[j].
  template <int kBytes = kPrints>
  __attribute__((target("avx2"))) void Block(const char* p, __m256i acc[2]) const {
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    acc[0] = acc[1] = _mm256_set1_epi8(-1);
    for (int f = 0; f < kBytes; ++f) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + f));
      const __m256i lo = _mm256_and_si256(v, nibble);
      const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble);
      for (int s = 0; s < 2; ++s) {
        acc[s] = _mm256_and_si256(acc[s], _mm256_and_si256(_mm256_shuffle_epi8(low[s][f], lo),
                                                           _mm256_shuffle_epi8(high[s][f], hi)));
      }
    }
  }

  // The positions of a block some bucket accepts.
  __attribute__((target("avx2"))) static std::uint32_t Candidates(const __m256i acc[2]) {
    return ~static_cast<std::uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_or_si256(acc[0], acc[1]), _mm256_setzero_si256())));
  }

  // The positions a short anchor's bucket accepts; at the others only full anchors can lie, and the
  // anchor hash bitset alone (LineScanner::HashMayHold) rules nearly all of them out.
  __attribute__((target("avx2"))) std::uint32_t ShortCandidates(const __m256i acc[2]) const {
    return ~static_cast<std::uint32_t>(_mm256_movemask_epi8(
        _mm256_cmpeq_epi8(_mm256_or_si256(_mm256_and_si256(acc[0], short_sets[0]), _mm256_and_si256(acc[1], short_sets[1])),
                          _mm256_setzero_si256())));
  }
};

// The hash stage's tables in registers (Note: [Hash stage]), for the AVX-512 loop.
// kHashes 1: the first hash alone (the way on candidate blocks, Note: [Stage runs], whose tables are
// loaded on each block with candidates: a second hash there cost more than it saved where the
// candidates come at the same place of every line, HF dicts' scan ~12% slower); 3: all of them.
template <int kHashes>
struct StageTables {
  static constexpr int kPrints = 4;  // LineScanner::kPrints
  // All three: 128-entry tables on 64-byte registers. The first alone: its table folded to 64 entries
  // (LineScanner::staged_first_) on 32-byte ones, loaded on each candidate block.
  __m256i mix[kPrints];
  // [hash][set of 8 buckets]: each table's halves; `low` and `high` for the first hash alone,
  // `wide_low` and `wide_high` for all three (the other pair is not used).
  __m256i low[1][2], high[1][2];
  __m512i wide_low[kHashes][2], wide_high[kHashes][2];

  __attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"))) StageTables(
      const unsigned char (&m)[kPrints][32], const unsigned char (&staged)[3][2][128]) {
    static_assert(kHashes == 3, "all three hashes (LineScanner::kStageHashes)");
    for (int f = 0; f < kPrints; ++f) mix[f] = _mm256_load_si256(reinterpret_cast<const __m256i*>(m[f]));
    for (int t = 0; t < kHashes; ++t) {
      for (int s = 0; s < 2; ++s) {
        wide_low[t][s] = _mm512_load_si512(staged[t][s]);
        wide_high[t][s] = _mm512_load_si512(staged[t][s] + 64);
      }
    }
  }
  __attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"))) StageTables(
      const unsigned char (&m)[kPrints][32], const unsigned char (&first)[2][64]) {
    static_assert(kHashes == 1, "the first hash alone");
    for (int f = 0; f < kPrints; ++f) mix[f] = _mm256_load_si256(reinterpret_cast<const __m256i*>(m[f]));
    for (int s = 0; s < 2; ++s) {
      low[0][s] = _mm256_load_si256(reinterpret_cast<const __m256i*>(first[s]));
      high[0][s] = _mm256_load_si256(reinterpret_cast<const __m256i*>(first[s] + 32));
    }
  }

  // Keeps in acc the buckets holding an anchor of the hashes of the kPrints bytes from each p[j]
  // (LineScanner::StageHashes, 32 positions at once).
  __attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"), always_inline)) void Apply(
      const char* p, __m256i acc[2], __m256i* first = nullptr, __m256i* three = nullptr, int hashes = kHashes,
      __m256i* third = nullptr, __m256i* second = nullptr) const {
    static_assert(kStageFirst == 0 && kStageLast == 3, "the stage hashes the anchor's four bytes");
    __m256i m[kPrints];
    for (int f = 0; f < kPrints; ++f) {
      // vpermb reads the low 5 bits of each byte: a letter's two cases give the same value.
      // (The masked form: the unmasked one leaves a register undefined, which GCC 12 warns of.)
      m[f] = _mm256_maskz_permutexvar_epi8(~__mmask32{0}, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + f)),
                                           mix[f]);
    }
    const __m256i x = _mm256_xor_si256(m[0], m[2]), y = _mm256_xor_si256(m[1], m[3]);
    __m256i h[kHashes];
    h[0] = _mm256_xor_si256(x, y);
    if (first) *first = h[0];
    if (three) *three = _mm256_xor_si256(x, m[1]);
    if constexpr (kHashes == 3) {
      // vpermt2b on 64-byte registers reads the low 7 bits of each index byte; a 16-bit shift by 1
      // puts each byte's bits 1-7 there (the bit it brings in from the next byte lands in bit 7,
      // which is not read).
      h[1] = _mm256_xor_si256(x, _mm256_srli_epi16(y, 1));
      h[2] = _mm256_xor_si256(_mm256_srli_epi16(x, 1), y);
      if (third) *third = h[2];
      if (second) *second = h[1];
    }
    for (int t = 0; t < hashes; ++t) {
      for (int s = 0; s < 2; ++s) {
        if constexpr (kHashes == 1) {
          // vpermt2b on 32-byte registers reads the low 6 bits: the folded table's index.
          acc[s] = _mm256_and_si256(acc[s], _mm256_permutex2var_epi8(low[t][s], h[t], high[t][s]));
        } else {
          // The 32 indexes in the low half; the high half's lookups are not read.
          // (Widened and cut by shuffles: GCC 12's _mm512_zextsi256_si512 and _mm512_castsi512_si256
          // read an undefined register, which it warns of.)
          const __v4di narrow = reinterpret_cast<__v4di>(h[t]), zero = {0, 0, 0, 0};
          const __m512i index = reinterpret_cast<__m512i>(__builtin_shufflevector(narrow, zero, 0, 1, 2, 3, 4, 5, 6, 7));
          const __v8di wide = reinterpret_cast<__v8di>(_mm512_permutex2var_epi8(wide_low[t][s], index, wide_high[t][s]));
          acc[s] = _mm256_and_si256(acc[s], reinterpret_cast<__m256i>(__builtin_shufflevector(wide, wide, 0, 1, 2, 3)));
        }
      }
    }
  }
};

// The stage's follow-up tables in registers (Note: [Staged follow-up]), for the AVX-512 loop's way with
// the stage on every block.
struct FollowTables {
  static constexpr int kPrints = 4;  // LineScanner::kPrints
  __m256i mix;
  __m512i wide_low[3][2], wide_high[3][2];  // [by next byte, ending, by next byte][set of 8 buckets]
  int three_set;  // the set of 8 buckets whose ending table ThreeHash indexes (LineScanner::EndingIndex), or -1

  __attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"))) FollowTables(
      const unsigned char (&m)[32], const unsigned char (&staged)[3][2][128], int three_bucket)
      : three_set(three_bucket >= 0 ? three_bucket / 8 : -1) {
    mix = _mm256_load_si256(reinterpret_cast<const __m256i*>(m));
    for (int t = 0; t < 3; ++t) {
      for (int s = 0; s < 2; ++s) {
        wide_low[t][s] = _mm512_load_si512(staged[t][s]);
        wide_high[t][s] = _mm512_load_si512(staged[t][s] + 64);
      }
    }
  }

  // The 128-entry table at the low 7 bits of each of the 32 indexes.
  __attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"), always_inline)) static __m256i Lookup(
      __m512i low, __m256i index, __m512i high) {
    const __v4di narrow = reinterpret_cast<__v4di>(index), zero = {0, 0, 0, 0};
    const __m512i wide_index = reinterpret_cast<__m512i>(__builtin_shufflevector(narrow, zero, 0, 1, 2, 3, 4, 5, 6, 7));
    const __v8di wide = reinterpret_cast<__v8di>(_mm512_permutex2var_epi8(low, wide_index, high));
    return reinterpret_cast<__m256i>(__builtin_shufflevector(wide, wide, 0, 1, 2, 3));
  }

  // Keeps in acc the buckets of a keyword whose anchor may lie at each p[j] with its next byte after it
  // (p[j + kPrints]), or that ends with its anchor; `first`, `third`: the stage's first and third hashes
  // of each position, `three`: their ThreeHash.
  __attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"), always_inline)) void Apply(
      const char* p, __m256i first, __m256i second, __m256i three, __m256i third, __m256i acc[2]) const {
    const __m256i next = _mm256_maskz_permutexvar_epi8(
        ~__mmask32{0}, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + kPrints)), mix);
    const __m256i index = _mm256_xor_si256(first, next);
    const __m256i index2 = _mm256_xor_si256(second, _mm256_srli_epi16(next, 1));
    for (int s = 0; s < 2; ++s) {
      const __m256i by_next = _mm256_and_si256(Lookup(wide_low[0][s], index, wide_high[0][s]),
                                               Lookup(wide_low[2][s], index2, wide_high[2][s]));
      const __m256i ending = Lookup(wide_low[1][s], s == three_set ? three : third, wide_high[1][s]);
      acc[s] = _mm256_and_si256(acc[s], _mm256_or_si256(by_next, ending));
    }
  }
};

// Note: [Wide stage blocks]
// The way on every block looked up its 128-entry tables with vpermt2b on 64-byte registers, 32
// indexes in the low half and the high half's lookups thrown away (Note: [Wide stage tables]); AMD
// Zen 4 runs such an instruction as two halves, so half the stage's cost was lookups nobody read.
// That loop now runs the stage for two blocks at once (WideStage: 64 positions, every lookup's 64
// results read), the first block ANDing the low halves into its buckets and the next the high halves
// it kept; a block whose next one lies past its run or whose 64 positions' bytes (with the byte after
// the last window) pass the text's end takes the 32-position stage as before. With the lookups
// halved, the stage took back its third hash (kEveryBlockHashes) and the table by the next byte got
// a second index (follow_staged_[2]: the second stage hash XORed with the next byte's mix value
// shifted right by one, ANDed with the first table's), so a window must collide in two tables to
// pass as a keyword that goes on past its anchor. Every keyword's bucket still passes at a position
// where it lies: its four bytes and its next byte have the text's low 5 bits there. scan_bench, the
// first 8 MiB, thread CPU time, best of 15 (2026-12-01, load 17-22): web text with the 1000 rules of
// tests/bench/make_rulesets.py, the way on every block 2.77-2.80 -> 2.10 ms, positions a byte past
// it 0.00310 -> 0.00148 (what is left is real anchors in other words: "item" of "/api/v1/items",
// "tive" of "active", "hard" of "shard"); tqdm bars (no candidates: the stage's own cost) every block
// 1.60-1.64 -> 1.54 ms (with the lookups halved and nothing added, 1.35); web text with 50 rules,
// where the way without the stage had been the cheapest (2.05 ms), every block 1.76-1.82, which the
// timed ways now take. The mix values are the stage's 32, twice: vpermb on 64-byte registers reads an
// index's low 6 bits, so bit 5 (a letter's case) picks the same value.
struct WideStage {
  static constexpr int kPrints = 4;  // LineScanner::kPrints
  __m512i mix[kPrints], next_mix;

  __attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"))) WideStage(const StageTables<3>& stage,
                                                                                const FollowTables& follow) {
    // (Widened by shuffles, not _mm512_broadcast_i64x4, which GCC 12 warns reads an undefined register.)
    for (int f = 0; f < kPrints; ++f) mix[f] = Twice(stage.mix[f]);
    next_mix = Twice(follow.mix);
  }

  // Per set of 8 buckets, the buckets the stage and the follow-up tables keep at each of the 64
  // positions (what StageTables::Apply and FollowTables::Apply AND into a block's acc, for both
  // blocks). The bytes p[0, 64 + kPrints) must lie in the text.
  __attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"), always_inline)) void Masks(
      const char* p, const StageTables<3>& stage, const FollowTables& follow, __m512i mask[2]) const {
    __m512i m[kPrints];
    for (int f = 0; f < kPrints; ++f) m[f] = _mm512_maskz_permutexvar_epi8(~__mmask64{0}, _mm512_loadu_si512(p + f), mix[f]);
    const __m512i x = _mm512_xor_si512(m[0], m[2]), y = _mm512_xor_si512(m[1], m[3]);
    const __m512i first = _mm512_xor_si512(x, y);
    const __m512i second = _mm512_xor_si512(x, _mm512_srli_epi16(y, 1));
    const __m512i third = _mm512_xor_si512(_mm512_srli_epi16(x, 1), y);
    const __m512i three = _mm512_xor_si512(x, m[1]);
    const __m512i next = _mm512_maskz_permutexvar_epi8(~__mmask64{0}, _mm512_loadu_si512(p + kPrints), next_mix);
    const __m512i index = _mm512_xor_si512(first, next);
    const __m512i index2 = _mm512_xor_si512(second, _mm512_srli_epi16(next, 1));
    static_assert(kEveryBlockHashes >= 2 && kEveryBlockHashes <= 3, "two or three stage hashes");
    for (int s = 0; s < 2; ++s) {
      __m512i staged = _mm512_and_si512(_mm512_permutex2var_epi8(stage.wide_low[0][s], first, stage.wide_high[0][s]),
                                        _mm512_permutex2var_epi8(stage.wide_low[1][s], second, stage.wide_high[1][s]));
      if (kEveryBlockHashes == 3) {
        staged = _mm512_and_si512(staged, _mm512_permutex2var_epi8(stage.wide_low[2][s], third, stage.wide_high[2][s]));
      }
      const __m512i by_next = _mm512_and_si512(
          _mm512_permutex2var_epi8(follow.wide_low[0][s], index, follow.wide_high[0][s]),
          _mm512_permutex2var_epi8(follow.wide_low[2][s], index2, follow.wide_high[2][s]));
      const __m512i ending = _mm512_permutex2var_epi8(follow.wide_low[1][s], s == follow.three_set ? three : third,
                                                      follow.wide_high[1][s]);
      mask[s] = _mm512_and_si512(staged, _mm512_or_si512(by_next, ending));
    }
  }

  // The low (the first block's) and high (the second's) halves of a mask.
  __attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"), always_inline)) static __m256i Low(__m512i mask) {
    const __v8di wide = reinterpret_cast<__v8di>(mask);
    return reinterpret_cast<__m256i>(__builtin_shufflevector(wide, wide, 0, 1, 2, 3));
  }
  __attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"), always_inline)) static __m256i High(__m512i mask) {
    const __v8di wide = reinterpret_cast<__v8di>(mask);
    return reinterpret_cast<__m256i>(__builtin_shufflevector(wide, wide, 4, 5, 6, 7));
  }
  __attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"))) static __m512i Twice(__m256i half) {
    const __v4di narrow = reinterpret_cast<__v4di>(half);
    return reinterpret_cast<__m512i>(__builtin_shufflevector(narrow, narrow, 0, 1, 2, 3, 0, 1, 2, 3));
  }
};

}  // namespace

// Note: [Fingerprint scan]
// The AVX2 loop is the "Teddy" idea of Hyperscan and Rust's aho-corasick, on anchors instead of
// prefixes: a position is a candidate for the keywords of bucket b when, for each of the kPrints bytes
// from there, the low-nibble table and the high-nibble table of that anchor byte both have bit b set.
// Byte shuffles test 32 positions at once for all buckets; letters are entered in both cases, so the
// text is not folded first. Anchors are bytes of each keyword ordinary text is unlikely to hold
// together (Note: [Anchor choice]: of a keyword's rarest windows, the one its bucket takes at least
// cost), and BucketAnchors groups them so that a bucket's tables (a product of nibble sets, wider than its
// anchors) accept as little ordinary text as it can: with the bundled rules' keywords that cut the
// message path's time on the 1 GiB benchmark log by about a sixth against buckets of sorted anchors.
// Ordinary text is of two kinds, healthy training logs and application or web-server text (samples:
// kHealthyLogSample, kGeneralTextSample). A bucket's rate is its estimate on each kind from byte
// frequencies (FalseHitRate, which takes bytes as independent) plus the share of each sample's 4-byte
// windows its tables accept, counted (SampleWindows: what one line layout repeats, such as "] [1" of
// "trainer.py:214] [1/5000]", would otherwise stop the scan once per line). Against a placement by
// training-log byte frequencies alone, table candidates per byte on the issue 15 benchmark inputs
// (16 MiB each) went: key=value 0.044 -> 0.000, 1% tracebacks 0.044 -> 0.0004, tqdm 0.048 -> 0.000,
// web-server-like text 0.043 -> 0.025; Hugging Face dict lines 0.039 (both kinds' frequencies, no
// counting) -> 0.001. Counting costs ~1.4 M instructions per start: only the 8 buckets the estimate
// grows least are counted for each anchor (with the bundled keywords, the same placement as counting
// all 16).
// A candidate must then pass a bitset of anchor hashes, which drops nearly all of them, and only then
// is verified in full (AnchorHit). The first verified candidate is in the first line holding a
// keyword: a keyword never spans lines, so the anchor of one in an earlier line comes earlier. The
// cost per 32 bytes does not grow with the number of keywords; the candidate rate does, and it is
// what the scan's time follows: each table candidate costs ~5 ns (tests/bench/scan_bench on this
// project's AMD EPYC VM: 8 MB scanned in 0.77 ms without candidates, 4.3 ms at 0.064 per byte), as
// much as ~13 blocks without one. The last bytes go through the same tables one position at a time.
// Tried and dropped (2026-11-28, scan_bench): each bucket's anchors split in two halves with tables
// of their own, 32 buckets' tables tested on a block only while most blocks have candidates (about a
// third of the candidates are left, but a block costs 1.9x, so only inputs over ~0.02 candidates per
// byte gained, 10-20% of the scan); the first candidates' hash tests without a branch (slower
// everywhere: the loop grew, and the branch on a block's candidates costs less than it seemed).
// Note: [Wide registers]
// The scan loop keeps 16 nibble tables, the nibble mask, '\n' and its working values in vector
// registers: more than AVX2's 16, so compiled for AVX2 it reloads about half the tables from the stack
// for every 32 bytes (~80 instructions a block). The same loop compiled for AVX-512 VL and BW (still
// 32-byte vectors, so no change of clock or of what is computed) has 32 registers: no reloads, and
// three-way ANDs in one instruction (~50 a block). It runs where the CPU has them (Impl::kAvx512, the
// default there; tests compare it with the portable loop as they do the AVX2 one). A call from the
// loop would have every table register saved around it, so the candidates' hash test runs in the
// loop without one (and without a branch on its outcome, which no predictor guesses), and only the
// candidates that pass it go to FirstAnchorHit. On the issue 15 inputs (64 MiB) this cut 2.6-4 ms of
// CPU (web-server-like text, most of whose cost is this loop, 69 -> 66 ms).
//
__attribute__((noinline)) int LineScanner::FirstAnchorHit(const char* p, size_t n, size_t i, std::uint32_t pass,
                                                          const unsigned char (&bucket_bits)[2][32]) const {
  for (; pass; pass &= pass - 1) {
    const int j = __builtin_ctz(pass);
    if (CountedHit(p, n, i + j, bucket_bits[0][j] | unsigned{bucket_bits[1][j]} << 8)) return j;
  }
  return -1;
}

// The blocks FindAvx2 and FindAvx512 read 32 at a time: up to the last whose kPrints - 1 bytes after
// it are in the text (the bytes after go one at a time, FindTail).
static size_t BlocksEnd(size_t n) {
  constexpr size_t kTail = FingerprintTables::kPrints - 1;
  return n < 32 + kTail ? 0 : (n - 32 - kTail) / 32 * 32 + 32;
}

LineScanner::Hit LineScanner::FindTail(const char* p, size_t n, size_t i, std::uint64_t newlines,
                                       size_t line_start) const {
  for (; i < n; ++i) {
    if (p[i] == '\n') {
      ++newlines;
      line_start = i + 1;
      continue;
    }
    unsigned buckets = BucketsAt(p, n, i);
    if (buckets && CountedHit(p, n, i, buckets)) return {true, line_start, newlines};
  }
  return {false, n, newlines};
}

__attribute__((target("avx2"))) LineScanner::Hit LineScanner::FindAvx2(const char* p, size_t n) const {
  static_assert(FingerprintTables::kPrints == kPrints, "one fingerprint width");
  const __m256i newline = _mm256_set1_epi8('\n');
  const FingerprintTables tables(low_, high_, short_buckets_);
  std::uint64_t newlines = 0;
  size_t line_start = 0;
  size_t i = 0;
  const size_t end = BlocksEnd(n);
#define TRIAGE_SCAN_STAGE 0
#include "log/line_scanner_loop.inc"
#undef TRIAGE_SCAN_STAGE
  return FindTail(p, n, i, newlines, line_start);
}

// Note: [Stage runs]
// The hash stage (Note: [Hash stage]) pays where a block's table candidates are false and the branch
// on them would be mispredicted (web text, where they come at random: the scan of 8 MB 3.4 -> 2.6 ms
// with the stage on every block), but on every block it costs ~4 cycles (text without candidates, as
// tqdm bars: 0.83 -> 1.21 ms), where candidates come at the same place of every line (the
// "grad_norm" of metric lines) a branch on them is predicted and the stage pays only on those blocks
// (key=value 1.35 -> 1.07 ms with it there, 1.21 on every block), and where a window every line
// repeats passes it (with the rules of main at bc7db53, " inf" of every "INFO" line on key=value
// text) it pays nowhere (1.53 ms without it, 1.87 on candidate blocks). Which way is cheapest is the
// branch predictor's and the layout's to tell, so the loop asks the clock: it reads the text in runs
// of kStageRun blocks, and a round of probes (after every kStageProbe runs' worth of blocks read, and
// at the scanner's first call) times each of the three ways twice (rdtsc), each probe kStageRun blocks;
// a way with the stage is taken when its faster probe is an eighth cheaper per block than the way
// before it (a page fault or an interrupt inside one probe would otherwise decide), and the runs
// outside a round read the way the last round chose (way_hint_). The round lives in the scanner
// (probe_), not in a call: a call that returns at a hit before its probe has read kStageRun blocks
// leaves the probe's ticks and blocks there, and the next call goes on with it. Until 2026-11-28 a
// round was the call's own and began only at the start of one call in 16 or every kStageProbe runs of a
// long one; where the scan stops on a line every few hundred bytes (web text with 1000 reworded rules:
// 27,447 lines stopped per 8 MiB, one every ~300 bytes) no round ever ended, and the stage never ran
// (scan_bench, the first 8 MiB of web text, 1000 rules: 11.0 ms with no stage, 5.6 on every block).
// The ways find the same candidates (a block without table candidates has none after the stage
// either), so which one runs changes the time, never the result. Tried: a round every kStageProbe runs
// counted over all calls with an atomic read-modify-write per run: the loop grew and lost 0.1 ms per 8
// MiB everywhere (the count is now kept with relaxed loads and stores, after each run); two ways only
// (no "none"): key=value 10% slower than without the stage when " inf" passed it.
__attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"))) LineScanner::Hit LineScanner::FindAvx512(
    const char* p, size_t n) const {
  const __m256i newline = _mm256_set1_epi8('\n');
  const FingerprintTables tables(low_, high_, short_buckets_);
  std::uint64_t newlines = 0;
  size_t line_start = 0;
  size_t i = 0;
  const size_t blocks_end = BlocksEnd(n);
  // The way: 0 no stage, 1 the stage on candidate blocks, 2 on every block; as given, else as last
  // timed.
  int way = stage_way_ ? stage_way_ % 3 : way_hint_.load(std::memory_order_relaxed);
  Hit hit;
  bool found = false;
  for (; i < blocks_end;) {
    const size_t end = std::min(blocks_end, i + 32 * kStageRun);
    // A probe: the round's phase, when a round is on (Note: [Stage runs]: it carries over calls).
    unsigned phase = kStageProbes;
    if (!stage_way_) {
      phase = probe_.phase.load(std::memory_order_relaxed);
      if (phase >= kStageProbes && probe_.since.load(std::memory_order_relaxed) >= kStageProbe * kStageRun) {
        phase = 0;  // time for a round
        probe_.phase.store(0, std::memory_order_relaxed);
        probe_.since.store(0, std::memory_order_relaxed);
      }
    }
    const bool probe = phase < kStageProbes;  // the probes: the three ways in turn, twice
    const int this_way = probe ? static_cast<int>(phase % 3) : way;
    const size_t from = i;
    const std::uint64_t t0 = probe ? __rdtsc() : 0;
#define TRIAGE_SCAN_HIT(at, lines) \
  {                                \
    hit = {true, at, lines};       \
    found = true;                  \
    i += 32;                       \
    break;                         \
  }
    if (this_way == 0) {
#define TRIAGE_SCAN_STAGE 0
#include "log/line_scanner_loop.inc"
#undef TRIAGE_SCAN_STAGE
    } else if (this_way == 1) {
#define TRIAGE_SCAN_STAGE 1
#include "log/line_scanner_loop.inc"
#undef TRIAGE_SCAN_STAGE
    } else {
      // The stage's tables loaded for this way's run only: held through the function, they took
      // registers the other ways' loops need (HF dicts' scan, way 0, ~12% slower with them).
      const StageTables<kStageHashes> stage(mix_, staged_);
      const FollowTables follow(follow_mix_, follow_staged_, ThreeBucket());
      const WideStage wide(stage, follow);
#define TRIAGE_SCAN_STAGE 2
#include "log/line_scanner_loop.inc"
#undef TRIAGE_SCAN_STAGE
    }
#undef TRIAGE_SCAN_HIT
    const std::uint64_t blocks = (i - from) / 32;  // the block of a hit included
    if (probe) {
      const std::uint64_t ticks = probe_.ticks.load(std::memory_order_relaxed) + (__rdtsc() - t0);
      const std::uint64_t timed = probe_.blocks.load(std::memory_order_relaxed) + blocks;
      if (timed < kStageRun) {  // the phase goes on in the next run, of this call or a later one
        probe_.ticks.store(ticks, std::memory_order_relaxed);
        probe_.blocks.store(timed, std::memory_order_relaxed);
      } else {
        const double per_block = static_cast<double>(ticks) / static_cast<double>(timed);
        double least = probe_.least[this_way].load(std::memory_order_relaxed);
        if (phase < 3 || per_block < least) least = per_block;
        probe_.least[this_way].store(least, std::memory_order_relaxed);
        probe_.ticks.store(0, std::memory_order_relaxed);
        probe_.blocks.store(0, std::memory_order_relaxed);
        probe_.phase.store(phase + 1, std::memory_order_relaxed);
        if (phase == kStageProbes - 1) {  // a way with the stage only when clearly cheaper
          way = 0;
          for (int w = 1; w < 3; ++w) {
            if (probe_.least[w].load(std::memory_order_relaxed) * kStageMargin <
                probe_.least[way].load(std::memory_order_relaxed) * (kStageMargin - 1)) {
              way = w;
            }
          }
          way_hint_.store(way, std::memory_order_relaxed);
          probe_.rounds.store(probe_.rounds.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        }
      }
    } else if (!stage_way_) {
      probe_.since.store(probe_.since.load(std::memory_order_relaxed) + blocks, std::memory_order_relaxed);
    }
    if (found) return hit;
  }
  return FindTail(p, n, i, newlines, line_start);
}

// KeywordsIn's AVX2 loop: the candidates of FindAvx2's tables, 32 positions at a time, every one of
// them checked (not only up to the first hit).
__attribute__((target("avx2"))) void LineScanner::KeywordsInAvx2(const char* p, size_t n,
                                                                 std::vector<std::uint32_t>* found) const {
  const FingerprintTables tables(low_, high_, short_buckets_);
#define TRIAGE_KEYWORDS_STAGE 0
#include "log/line_scanner_keywords.inc"
#undef TRIAGE_KEYWORDS_STAGE
}

// The same where the CPU has AVX-512 VBMI: the hash stage (Note: [Hash stage]) on every block. A line
// the scan stopped on is read again whole for every keyword it holds; with 1000 rules a block of web
// text holds ~3 table candidates, each a scalar hash test and a branch, where the stage passes ~0.3.
__attribute__((target("avx2,avx512f,avx512vl,avx512bw,avx512vbmi"))) void LineScanner::KeywordsInAvx512(
    const char* p, size_t n, std::vector<std::uint32_t>* found) const {
  const FingerprintTables tables(low_, high_, short_buckets_);
  const StageTables<kStageHashes> stage(mix_, staged_);
#define TRIAGE_KEYWORDS_STAGE 1
#include "log/line_scanner_keywords.inc"
#undef TRIAGE_KEYWORDS_STAGE
}
#else
LineScanner::Hit LineScanner::FindAvx2(const char* p, size_t n) const { return FindPortable(p, n, 0, 0, 0); }
LineScanner::Hit LineScanner::FindAvx512(const char* p, size_t n) const { return FindPortable(p, n, 0, 0, 0); }
void LineScanner::KeywordsInAvx2(const char* p, size_t n, std::vector<std::uint32_t>* found) const {
  KeywordsInFrom(p, n, 0, found);
}
void LineScanner::KeywordsInAvx512(const char* p, size_t n, std::vector<std::uint32_t>* found) const {
  KeywordsInFrom(p, n, 0, found);
}
#endif

namespace {

// Which of a list of strings (needles) each text holds, answering as text.find(needle) != npos for
// every needle would, without a search per needle: planning the prefilter compares every candidate
// keyword with every atom, and every keyword with every pattern's atoms (~17% of a start after a rule
// edit, as one search per pair). Needles of four bytes or more are indexed by their first four bytes
// (by two, many of the ~1,800 candidates of a cover share a start, "torc", "cuda", and each was
// compared at every place the text holds those two bytes), needles of two or three bytes by their
// first two; shorter ones (the empty needle included) are searched for as before.
class NeedleIndex {
 public:
  explicit NeedleIndex(const std::vector<std::string>& needles) : needles_(needles) {
    for (size_t n = 0; n < needles.size(); ++n) {
      const std::string& needle = needles[n];
      if (needle.size() < 2) {
        short_.push_back(n);
      } else if (needle.size() < 4) {
        const std::uint16_t code = Code2(needle.data());
        first2_.emplace_back(code, n);
        seen2_[code >> 6] |= std::uint64_t{1} << (code & 63);
      } else {
        const std::uint32_t code = Code4(needle.data());
        first4_.emplace_back(code, n);
        const std::uint32_t h = Hash4(code);
        seen4_[h >> 6] |= std::uint64_t{1} << (h & 63);
      }
    }
    std::sort(first2_.begin(), first2_.end());
    std::sort(first4_.begin(), first4_.end());
  }

  // True when `text` holds some needle.
  bool HoldsAny(std::string_view text) const {
    return Visit(text, [](size_t) { return true; });
  }

  // Calls f(n) for each needle n that `text` holds, once each, in increasing order of n.
  template <typename F>
  void ForEachIn(std::string_view text, F f) {
    ForEachIn(text, f, &found_);
  }
  // The same with a scratch vector of the caller's (threads sharing the index each pass their own).
  template <typename F>
  void ForEachIn(std::string_view text, F f, std::vector<size_t>* found) const {
    found->clear();
    Visit(text, [&](size_t n) {
      found->push_back(n);
      return false;
    });
    std::sort(found->begin(), found->end());
    found->erase(std::unique(found->begin(), found->end()), found->end());
    for (size_t n : *found) f(n);
  }

 private:
  // Calls hit(n) for each place `text` holds needle n (a short needle: once when held), until it
  // returns true; returns whether it did.
  template <typename F>
  bool Visit(std::string_view text, F hit) const {
    for (size_t n : short_) {
      if (text.find(needles_[n]) != std::string_view::npos && hit(n)) return true;
    }
    const char* t = text.data();
    const size_t size = text.size();
    for (size_t i = 0; i + 1 < size; ++i) {
      const std::uint16_t code2 = Code2(t + i);
      if (seen2_[code2 >> 6] >> (code2 & 63) & 1) {
        auto it = std::lower_bound(first2_.begin(), first2_.end(), std::make_pair(code2, size_t{0}));
        for (; it != first2_.end() && it->first == code2; ++it) {
          const std::string& needle = needles_[it->second];
          if (i + needle.size() <= size && std::memcmp(t + i, needle.data(), needle.size()) == 0 && hit(it->second)) {
            return true;
          }
        }
      }
      if (i + 4 > size) continue;
      const std::uint32_t code4 = Code4(t + i);
      const std::uint32_t h = Hash4(code4);
      if (!(seen4_[h >> 6] >> (h & 63) & 1)) continue;
      auto it = std::lower_bound(first4_.begin(), first4_.end(), std::make_pair(code4, size_t{0}));
      for (; it != first4_.end() && it->first == code4; ++it) {
        const std::string& needle = needles_[it->second];
        if (i + needle.size() <= size && std::memcmp(t + i + 4, needle.data() + 4, needle.size() - 4) == 0 &&
            hit(it->second)) {
          return true;
        }
      }
    }
    return false;
  }
  static std::uint16_t Code2(const char* p) {
    return static_cast<std::uint16_t>(static_cast<unsigned char>(p[0]) << 8 | static_cast<unsigned char>(p[1]));
  }
  static std::uint32_t Code4(const char* p) {
    return std::uint32_t{Code2(p)} << 16 | Code2(p + 2);
  }
  static std::uint32_t Hash4(std::uint32_t code) { return (code * 2654435761u) >> 16; }
  const std::vector<std::string>& needles_;
  std::vector<size_t> short_;                               // needles of fewer than 2 bytes: searched for
  std::vector<std::pair<std::uint16_t, size_t>> first2_;   // (first two bytes, needle) of 2-3 byte needles, sorted
  std::vector<std::pair<std::uint32_t, size_t>> first4_;   // (first four bytes, needle) of longer ones, sorted
  std::array<std::uint64_t, 1024> seen2_{};                 // a bit per first-two-bytes code of some needle
  std::array<std::uint64_t, 1024> seen4_{};                 // a bit per Hash4 of some needle's first four bytes
  std::vector<size_t> found_;
};

std::string LowerAscii(std::string s) {
  for (char& c : s) c = static_cast<char>(Lower(static_cast<unsigned char>(c)));
  return s;
}

// Calls f(word) for each maximal run of [a-z0-9_] in a lower-case string.
template <typename F>
void ForEachWord(const std::string& s, F f) {
  for (size_t b = 0; b < s.size();) {
    size_t e = b;
    while (e < s.size() && (IsAsciiAlnum(s[e]) || s[e] == '_')) ++e;
    if (e > b) f(s.substr(b, e - b));
    b = e + 1;
  }
}

// A word fit to be a keyword on its own: long enough, not a number, and printed by neither kind of
// ordinary text, not even inside a longer word (a keyword matches anywhere: "work" stops the scan on
// every "worker" and "network", "trying" on every "retrying").
// Planning a prefilter asks it of every word of every atom (thousands of times with no rule cache), so
// the two word lists are asked through one hash set of views, built once.
bool SpecificWordUnremembered(const std::string& w) {
  static const std::unordered_set<std::string_view> kCommon = [] {
    std::unordered_set<std::string_view> words;
    for (const std::set<std::string>* list : {&CommonLogWords(), &CommonTextWords()}) {
      for (const std::string& word : *list) words.insert(word);
    }
    return words;
  }();
  return w.size() >= kMinWordLen && w.find_first_not_of("0123456789") != std::string::npos &&
         kCommon.count(w) == 0 && !Pieces().Find(kHealthyLogSample, w) && !Pieces().Find(kGeneralTextSample, w);
}

// Note: [Specific words remembered] A load with no rule cache asks SpecificWord ~14,000 times (each
// word of each atom, then each cover candidate; 438 rules), the same words again and again, and each
// answer searched the word lists and the two samples: the answers are kept per thread (a pure function
// of the word; the table is emptied when it grows past 65,536 words).
bool SpecificWord(const std::string& w) {
  if (w.size() < kMinWordLen) return false;
  thread_local std::unordered_map<std::string, bool> known;
  if (auto it = known.find(w); it != known.end()) return it->second;
  if (known.size() >= 65536) known.clear();
  const bool specific = SpecificWordUnremembered(w);
  known.emplace(w, specific);
  return specific;
}

// The index AtomQuality reads free keywords from: the non-empty ones of `free_keywords`, lower-cased.
// A load passes the same list for every pattern, so the last list's index is kept per thread (built
// again when another list comes).
const NeedleIndex& FreeKeywordIndex(const std::vector<std::string>& free_keywords) {
  struct Kept {
    std::vector<std::string> list;   // as passed
    std::vector<std::string> lower;  // its non-empty keywords, lower-cased: the index's needles
    std::optional<NeedleIndex> index;
  };
  thread_local Kept kept;
  if (!kept.index || kept.list != free_keywords) {
    kept.index.reset();
    kept.list = free_keywords;
    kept.lower.clear();
    for (const std::string& k : free_keywords) {
      if (!k.empty()) kept.lower.push_back(LowerAscii(k));
    }
    kept.index.emplace(kept.lower);
  }
  return *kept.index;
}

// Note: [Atoms of ordinary text]
// A pattern's prefilter is an AND of ORs, and the scanner needs one OR's atoms (ComputeRequiredLiterals
// drops the worst atoms first, so the OR kept is the one whose worst atom is best). Until 2026-12-02 only
// the healthy training-log sample counted against an atom, and an OR of connectives scored by length:
// nan-during-training-in-words' "NaN ... during|while|in|when|after the training" kept " in ", " after ",
// " when ", " while " and " during " as keywords (its other ORs hold "inf", inside every "INFO", and
// "train"), and on web-server-like text every line with " in " or " after " went to the slow path (9,756
// lines stopped per 8 MiB, 0 before the rule came; the scan 2.3 -> 4.4 ms, callgrind 13.5 -> 18.1
// instructions a byte for the whole run). Text the general sample (application and web logs, prose)
// prints now scores below any text it does not print, still above text healthy logs print: an OR of
// words no sample prints is kept in its place when the pattern has one.
constexpr int kPrintedInHealthyLogs = -100000 / 2;  // below any count in the general sample

// How good an atom is as the one a line must contain: free when a keyword the scanner looks for anyway
// is inside it, else as good as its longest specific word (few, rare keywords keep the scanner fast).
// `free_keywords`: an index of the non-empty keywords, lower-cased (LowerAscii; FreeKeywordIndex).
int AtomQuality(const std::string& atom, const NeedleIndex& free_keywords) {
  // An atom without kMinAtomLen ASCII bytes in a row cannot be a keyword at all (the scanner folds
  // ASCII case only): keeping it alone would leave the pattern unfiltered, matched on every line.
  // An atom of caseless characters (CaselessText) is used whole: its bytes are the keyword.
  size_t run = 0, longest = 0;
  for (char c : atom) {
    run = static_cast<unsigned char>(c) < 0x80 ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const bool caseless = CaselessText(atom);
  if (longest < static_cast<size_t>(kMinAtomLen) && !caseless) return -100000;
  std::string lower = LowerAscii(atom);
  if (free_keywords.HoldsAny(lower)) return 1000;
  // Text healthy logs print is the worst choice, the more often printed the worse; then text ordinary
  // logs and prose print (Note: [Atoms of ordinary text]). (A sample is searched only when it holds the
  // text's first four bytes somewhere: most atoms' are in it nowhere.)
  auto printed_in = [&](std::string_view sample) {
    int printed = 0;
    const bool may_print = lower.size() < 4 || Pieces().MayHold(sample, lower);
    for (size_t at = may_print ? sample.find(lower) : std::string_view::npos; at != std::string_view::npos;
         at = sample.find(lower, at + 1)) {
      ++printed;
    }
    return printed;
  };
  if (int printed = printed_in(kHealthyLogSample)) return kPrintedInHealthyLogs - printed;
  if (int printed = printed_in(kGeneralTextSample)) return -printed;
  // Characters outside ASCII are rare in what PyTorch programs print: as good as a specific word.
  if (caseless && longest < atom.size()) return static_cast<int>(atom.size()) * 2;
  int best = 0;
  ForEachWord(lower, [&](const std::string& w) {
    if (SpecificWord(w)) best = std::max(best, static_cast<int>(w.size()) * 2);
  });
  return best > 0 ? best : static_cast<int>(atom.size());
}

}  // namespace

namespace {

bool ComputeRequiredLiterals(const std::string& pattern, std::vector<std::string>* atoms,
                             const std::vector<std::string>& free_keywords, int* program_size, bool fast);

}  // namespace

bool RequiredLiterals(const std::string& pattern, std::vector<std::string>* atoms,
                      const std::vector<std::string>& free_keywords, int* program_size) {
  // Loading asks twice per pattern (the lint check, then BuildLinePrefilter), and FilteredRE2 compiles
  // the pattern each time: remember answers (bounded: cleared when large; rule reloads add patterns).
  // The compile also answers the lint check's program size, so a pattern is compiled once, not twice.
  // An answer got without the size (no compile: Note: [Program size bound]) has none to give.
  struct Answer {
    bool ok;
    int program_size;  // kNotSized when the answer was got without it
    std::vector<std::string> atoms;
  };
  constexpr int kNotSized = -2;
  // The answers by list of free keywords (a load passes one or two lists), then by pattern (hashed:
  // a load asks ~1,200 patterns, each compared with ~10 others in an ordered map). `clears` counts the
  // times the cache was emptied, so the list found equal before the compute is known to be at the
  // same place after it without comparing the list (28 keywords) again.
  static std::mutex mu;
  static std::vector<std::pair<std::vector<std::string>, std::unordered_map<std::string, Answer>>> cache;
  static size_t answers = 0, clears = 0;
  size_t list_at = 0, cleared = 0;
  bool listed = false;  // the list was in the cache, at list_at, when `clears` was `cleared`
  {
    std::lock_guard<std::mutex> lock(mu);
    cleared = clears;
    list_at = static_cast<size_t>(std::find_if(cache.begin(), cache.end(), [&](const auto& c) {
                                    return c.first == free_keywords;
                                  }) - cache.begin());
    listed = list_at < cache.size();
    if (listed) {
      const auto& by_pattern = cache[list_at].second;
      if (auto it = by_pattern.find(pattern); it != by_pattern.end() &&
                                             !(program_size && it->second.program_size == kNotSized)) {
        *atoms = it->second.atoms;
        if (program_size) *program_size = it->second.program_size;
        return it->second.ok;
      }  // (an answer without the size, asked with it: computed again below)
    }
  }
  int size = kNotSized;
  bool ok = ComputeRequiredLiterals(pattern, atoms, free_keywords, program_size ? &size : nullptr, true);
  if (program_size) *program_size = size;
  std::lock_guard<std::mutex> lock(mu);
  if (answers >= 4096) {
    cache.clear();
    answers = 0;
    ++clears;
  }
  // (Lists are only appended, or all dropped when the cache is emptied.)
  auto list = listed && clears == cleared
                  ? cache.begin() + static_cast<std::ptrdiff_t>(list_at)
                  : std::find_if(cache.begin(), cache.end(), [&](const auto& c) { return c.first == free_keywords; });
  if (list == cache.end()) list = cache.insert(cache.end(), {free_keywords, {}});
  auto [it, added] = list->second.emplace(pattern, Answer{ok, size, *atoms});
  if (added) {
    ++answers;
  } else if (program_size) {
    it->second.program_size = size;  // the answer now has its size
  }
  return ok;
}

bool RequiredLiteralsUncached(const std::string& pattern, std::vector<std::string>* atoms,
                              const std::vector<std::string>& free_keywords, int* program_size, bool fast) {
  int size = -1;
  const bool ok = ComputeRequiredLiterals(pattern, atoms, free_keywords, &size, fast);
  if (program_size) *program_size = size;
  return ok;
}

namespace {

bool ComputeRequiredLiterals(const std::string& pattern, std::vector<std::string>* atoms,
                             const std::vector<std::string>& free_keywords, int* program_size, bool fast) {
  atoms->clear();
  re2::FilteredRE2 filter(kMinAtomLen);
  int id = 0;
  // The atoms, and whether a match may happen with only the atoms at `present` (indexes into them).
  // Most patterns' prefilters are read from their text with no prefilter analysis (Note: [Literal
  // fast path] in pattern_atoms.cc); the others ask FilteredRE2. RE2 compiles the pattern only for
  // them and for the size; without the size asked, a pattern ProgramSizeBound answers (one RE2
  // accepts: Note: [Program size bound]) whose prefilter is read needs no compile.
  std::vector<std::string> all;
  std::function<bool(const std::vector<int>&)> passes;
  std::vector<int> passed;
  std::optional<PatternPrefilter> read;
  const bool read_first = fast && !program_size && ProgramSizeBound(pattern);
  if (read_first) read = ReadPatternPrefilter(pattern);
  if (!read) {
    if (program_size) *program_size = -1;
    if (filter.Add(pattern, RegexOptions(), &id) != RE2::NoError) return false;
    if (program_size) *program_size = filter.GetRE2(id).ProgramSize();
    if (fast && !read_first) read = ReadPatternPrefilter(pattern);
  }
  if (read) {
    all = read->atoms();
    passes = [&read](const std::vector<int>& present) { return read->Passes(present); };
  } else {
    filter.Compile(&all);
    passes = [&](const std::vector<int>& present) {
      filter.AllPotentials(present, &passed);
      return !passed.empty();
    };
  }
  if (all.empty() || passes({})) return false;  // can match with no atom present
  // The prefilter is a monotone AND/OR formula over the atoms. A set S of atoms is enough for the
  // scanner when the formula is false with every atom outside S present: then every match contains an
  // atom of S. Start from all atoms and drop the worst while that holds (one atom of an AND suffices).
  const NeedleIndex& free_index = FreeKeywordIndex(free_keywords);
  std::vector<int> order(all.size()), quality(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    order[i] = static_cast<int>(i);
    quality[i] = AtomQuality(all[i], free_index);
  }
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return quality[a] < quality[b]; });
  std::vector<bool> keep(all.size(), true);
  std::vector<int> present;
  present.reserve(all.size());
  for (int drop : order) {
    keep[drop] = false;
    present.clear();
    for (size_t i = 0; i < all.size(); ++i) {
      if (!keep[i]) present.push_back(static_cast<int>(i));
    }
    if (passes(present)) keep[drop] = true;  // needed after all
  }
  for (size_t k = 0; k < all.size(); ++k) {
    if (!keep[k]) continue;
    const std::string& a = all[k];
    if (CaselessText(a)) {  // ASCII, or characters without case: the scanner folds all it needs
      atoms->push_back(a);
      continue;
    }
    // An atom with other non-ASCII bytes: the scanner folds ASCII case only, so keep its longest ASCII
    // run (a substring of the atom, hence also required); none long enough means no usable literal.
    size_t best_pos = 0, best_len = 0;
    for (size_t i = 0; i < a.size();) {
      size_t j = i;
      while (j < a.size() && static_cast<unsigned char>(a[j]) < 0x80) ++j;
      if (j - i > best_len) { best_pos = i; best_len = j - i; }
      i = j + 1;
    }
    if (best_len < static_cast<size_t>(kMinAtomLen)) {
      atoms->clear();
      return false;
    }
    atoms->push_back(a.substr(best_pos, best_len));
  }
  return true;
}


}  // namespace

bool SpecificCoverWord(const std::string& word) { return SpecificWord(word); }

bool CommonInLogs(const std::string& atom, const std::vector<std::string>& read_anyway) {
  const std::string lower = LowerAscii(atom);
  if (lower.empty() || (lower.size() >= 4 && !Pieces().MayHold(kHealthyLogSample, lower)) ||
      kHealthyLogSample.find(lower) == std::string_view::npos) {
    return false;
  }
  return std::none_of(read_anyway.begin(), read_anyway.end(),
                      [&](const std::string& k) { return lower.find(LowerAscii(k)) != std::string::npos; });
}

std::vector<size_t> GreedyCover(const std::vector<CoverCandidate>& cover, size_t items) {
  // A candidate's count of uncovered items only falls as items are covered, so the counts are kept in
  // a heap and only the top one is recounted (lazy greedy): when its fresh count still ranks first, no
  // other candidate can beat it, and the pick is the one a recount of every candidate would make.
  std::vector<size_t> picked;
  std::vector<bool> done(items, false);
  auto count_open = [&](size_t c) {
    size_t count = 0;
    for (size_t i : cover[c].covers) count += done[i] ? 0 : 1;
    return count;
  };
  // (count, candidate): ranks before another by count, then specific, then length, then index.
  auto ranks_before = [&](const std::pair<size_t, size_t>& a, const std::pair<size_t, size_t>& b) {
    if (a.first != b.first) return a.first > b.first;
    const CoverCandidate& x = cover[a.second];
    const CoverCandidate& y = cover[b.second];
    if (x.specific != y.specific) return x.specific;
    if (x.length != y.length) return x.length > y.length;
    return a.second < b.second;
  };
  auto heap_less = [&](const std::pair<size_t, size_t>& a, const std::pair<size_t, size_t>& b) {
    return ranks_before(b, a);
  };
  std::vector<std::pair<size_t, size_t>> heap;
  for (size_t c = 0; c < cover.size(); ++c) {
    if (!cover[c].covers.empty()) heap.emplace_back(cover[c].covers.size(), c);
  }
  std::make_heap(heap.begin(), heap.end(), heap_less);
  size_t left = items;
  while (left > 0 && !heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), heap_less);
    std::pair<size_t, size_t> top = heap.back();
    heap.pop_back();
    top.first = count_open(top.second);
    if (top.first == 0) continue;
    if (!heap.empty() && ranks_before(heap.front(), top)) {  // stale: rank it again by its fresh count
      heap.push_back(top);
      std::push_heap(heap.begin(), heap.end(), heap_less);
      continue;
    }
    picked.push_back(top.second);
    for (size_t i : cover[top.second].covers) {
      if (!done[i]) {
        done[i] = true;
        --left;
      }
    }
  }
  return picked;
}

// Note: [Cover on the load's threads]
// With no rule cache the plan (CoverKeywords, then each keyword's patterns) runs after the files'
// threads joined, on one thread: ~30 M instructions of a no-cache start (2026-11-29, 542 rules), the
// serial part that bounds its wall time on any number of cores. The parts that are a function of one
// item each are shared out (ShareOut, Note: [Shared work]) in chunks of kCoverChunk items: each atom
// lowered and asked whether it holds a base keyword, each candidate text asked SpecificWord, each open
// atom searched for the candidates it holds, each pattern's atoms for the keywords they hold. Every
// answer goes to its item's place and the lists are joined in item order, so the keywords, their
// order and each list are what one thread makes, whichever thread did an item. `threads`: 1 does all
// on the calling thread (a load passes the threads it read the files on).
constexpr size_t kCoverChunk = 128;

// Calls work(begin, end) for consecutive ranges of [0, items), kCoverChunk long, on `threads` threads
// (ShareOut), then join(begin, end) for each range in order on the calling thread.
template <typename Work, typename Join>
void InChunks(size_t items, int threads, Work work, Join join) {
  const size_t chunks = (items + kCoverChunk - 1) / kCoverChunk;
  ShareOut(chunks, threads, [&] {
    return [&](size_t c) { work(c * kCoverChunk, std::min(items, (c + 1) * kCoverChunk)); };
  });
  for (size_t c = 0; c < chunks; ++c) join(c * kCoverChunk, std::min(items, (c + 1) * kCoverChunk));
}

// The needles of `index` that items' texts hold: texts(i, visit) calls visit(text) for each text of
// item i; the search is shared out (InChunks), and on(needle, i) is called on the calling thread for
// each needle a text of item i holds, items in increasing order (within an item, its texts in order
// and each text's needles in increasing order), whichever thread searched them.
template <typename Texts, typename On>
void HeldNeedles(const NeedleIndex& index, size_t items, int threads, Texts texts, On on) {
  std::vector<std::vector<std::pair<size_t, size_t>>> held((items + kCoverChunk - 1) / kCoverChunk);
  InChunks(
      items, threads,
      [&](size_t begin, size_t end) {
        std::vector<std::pair<size_t, size_t>>& pairs = held[begin / kCoverChunk];
        std::vector<size_t> found;
        for (size_t i = begin; i < end; ++i) {
          texts(i, [&](std::string_view text) {
            index.ForEachIn(text, [&](size_t n) { pairs.emplace_back(n, i); }, &found);
          });
        }
      },
      [&](size_t begin, size_t) {
        for (const auto& [n, i] : held[begin / kCoverChunk]) on(n, i);
      });
}

std::vector<std::string> CoverKeywords(const std::vector<std::string>& base, const std::vector<std::string>& atoms,
                                       int threads) {
  std::vector<std::string> keywords;
  for (const std::string& b : base) keywords.push_back(LowerAscii(b));
  // The open atoms: those holding no base keyword (asked of an index of the base keywords, not by a
  // search per pair), each once, in the order they first come.
  const std::vector<std::string> lower_base = keywords;
  const NeedleIndex base_index(lower_base);
  std::vector<std::string> lower(atoms.size());
  std::vector<char> closed(atoms.size());
  InChunks(
      atoms.size(), threads,
      [&](size_t begin, size_t end) {
        for (size_t i = begin; i < end; ++i) {
          lower[i] = LowerAscii(atoms[i]);
          closed[i] = base_index.HoldsAny(lower[i]);
        }
      },
      [](size_t, size_t) {});
  std::vector<std::string_view> open;  // views into `lower`, which no longer changes
  std::unordered_set<std::string_view> seen;
  for (size_t i = 0; i < atoms.size(); ++i) {
    if (!closed[i] && seen.insert(lower[i]).second) open.push_back(lower[i]);
  }
  // Candidates: each atom itself (always valid) and its specific words, each covering every open atom
  // that contains it (computed once: the greedy loop below only counts). In text order (the tie-break
  // below), each text once, asked SpecificWord once (it searches the samples): an atom is a candidate
  // whatever the answer, a word of one only when it is specific (no shorter word can be).
  // (Views into the atoms' lower-case copies: sorting moves no string.)
  // Each text once (a hash of those seen: most words come back from atom after atom), then sorted.
  std::vector<std::pair<std::string_view, bool>> texts_and_atom;  // (text, is an open atom)
  std::unordered_map<std::string_view, size_t> text_at;
  text_at.reserve(open.size() * 2);
  auto add_text = [&](std::string_view text, bool atom) {
    auto [it, fresh] = text_at.try_emplace(text, texts_and_atom.size());  // (no node made for a repeat)
    if (fresh) texts_and_atom.emplace_back(text, atom);
    else texts_and_atom[it->second].second = texts_and_atom[it->second].second || atom;
  };
  for (std::string_view a : open) {
    add_text(a, true);
    for (size_t b = 0; b < a.size();) {  // each maximal run of [a-z0-9_] (ForEachWord)
      size_t e = b;
      while (e < a.size() && (IsAsciiAlnum(a[e]) || a[e] == '_')) ++e;
      if (e - b >= kMinWordLen) add_text(a.substr(b, e - b), false);
      b = e + 1;
    }
  }
  std::sort(texts_and_atom.begin(), texts_and_atom.end());
  std::vector<char> specific(texts_and_atom.size());
  InChunks(
      texts_and_atom.size(), threads,
      [&](size_t begin, size_t end) {
        for (size_t t = begin; t < end; ++t) specific[t] = SpecificWord(std::string(texts_and_atom[t].first));
      },
      [](size_t, size_t) {});
  std::vector<std::string> texts;
  std::vector<CoverCandidate> cover;
  for (size_t t = 0; t < texts_and_atom.size(); ++t) {
    if (texts_and_atom[t].second || specific[t]) {
      cover.push_back({texts_and_atom[t].first.size(), specific[t] != 0, {}});
      texts.emplace_back(texts_and_atom[t].first);
    }
  }
  const NeedleIndex index(texts);
  // Each candidate's open atoms in increasing order, as one pass over the atoms gives them.
  HeldNeedles(
      index, open.size(), threads, [&](size_t i, auto visit) { visit(open[i]); },
      [&](size_t c, size_t i) { cover[c].covers.push_back(i); });
  // Greedy set cover: the candidate that covers the most open atoms; on ties a specific word before a
  // whole atom, then the longer (fewer false positives), then the alphabetically first (text order),
  // so rule order does not matter.
  for (size_t c : GreedyCover(cover, open.size())) keywords.push_back(texts[c]);
  return keywords;
}

std::vector<std::optional<std::vector<std::string>>> PatternAtoms(const std::vector<std::string>& patterns,
                                                                  const std::vector<std::string>& idle_keywords) {
  std::vector<std::optional<std::vector<std::string>>> out(patterns.size());
  for (size_t i = 0; i < patterns.size(); ++i) {
    std::vector<std::string> atoms;
    if (RequiredLiterals(patterns[i], &atoms, idle_keywords)) out[i] = std::move(atoms);
  }
  return out;
}

std::shared_ptr<const LinePrefilter> BuildLinePrefilter(const std::vector<std::string>& patterns,
                                                         const std::vector<std::string>& idle_keywords) {
  std::vector<std::optional<std::vector<std::string>>> atoms = PatternAtoms(patterns, idle_keywords);
  return BuildLinePrefilter(patterns, std::move(atoms), idle_keywords);
}

namespace {

// Up to this many atoms every minimal clause is found (2^n - 1 sets tried); more take the greedy way.
constexpr size_t kEveryClauseAtoms = 8;
// Greedy removals, each from another first atom; and the clauses kept (the smallest).
constexpr size_t kGreedyStarts = 8;
constexpr size_t kMaxClauses = 32;

}  // namespace

LiteralCondition PatternCondition(const std::string& pattern) {
  LiteralCondition out;
  re2::FilteredRE2 filter(LiteralCondition::kAtomLen);
  int id = 0;
  if (filter.Add(pattern, RegexOptions(), &id) != RE2::NoError) return out;
  std::vector<std::string> atoms;
  filter.Compile(&atoms);
  const size_t n = atoms.size();
  if (n == 0 || n > 64) return out;
  std::vector<int> present, passed;
  // The formula with the atoms of `set` present and the others absent.
  auto holds = [&](std::uint64_t set) {
    present.clear();
    for (size_t i = 0; i < n; ++i) {
      if (set >> i & 1) present.push_back(static_cast<int>(i));
    }
    passed.clear();
    filter.AllPotentials(present, &passed);
    return !passed.empty();
  };
  const std::uint64_t all = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  if (holds(0) || !holds(all)) return out;  // matches without any atom (or a formula never true)
  // A clause C (a set of atoms) holds for every match when the formula is false with every atom but
  // C's present: a match's text holds an atom of C.
  auto implied = [&](std::uint64_t clause) { return !holds(all & ~clause); };
  std::vector<std::uint64_t> clauses;
  if (n <= kEveryClauseAtoms) {
    // Every set in increasing order: a set's subsets come before it, so a set holding a clause found
    // earlier is not minimal and is passed over.
    for (std::uint64_t c = 1; c <= all; ++c) {
      if (std::any_of(clauses.begin(), clauses.end(), [&](std::uint64_t d) { return (c & d) == d; })) continue;
      if (implied(c)) clauses.push_back(c);
    }
  } else {
    // From all atoms, remove each that the clause does without, in turn from a first atom: a minimal
    // clause per start (different starts may find the same one).
    for (size_t start = 0; start < std::min(n, kGreedyStarts); ++start) {
      std::uint64_t c = all;
      for (size_t j = 0; j < n; ++j) {
        const std::uint64_t bit = std::uint64_t{1} << ((start + j) % n);
        if (implied(c & ~bit)) c &= ~bit;
      }
      if (std::find(clauses.begin(), clauses.end(), c) == clauses.end()) clauses.push_back(c);
    }
  }
  // The smallest clauses first: they are the cheapest to check and the likeliest to fail.
  std::stable_sort(clauses.begin(), clauses.end(), [](std::uint64_t a, std::uint64_t b) {
    return __builtin_popcountll(a) < __builtin_popcountll(b);
  });
  if (clauses.size() > kMaxClauses) clauses.resize(kMaxClauses);
  out.atoms = std::move(atoms);
  out.clauses = std::move(clauses);
  return out;
}

bool ConditionHolds(const LiteralCondition& condition, std::string_view lowered) {
  std::uint64_t known = 0, held = 0;  // atoms looked for, and those found
  for (std::uint64_t clause : condition.clauses) {
    if (clause & held) continue;
    bool found = false;
    for (std::uint64_t rest = clause & ~known; rest != 0 && !found; rest &= rest - 1) {
      const int i = __builtin_ctzll(rest);
      const std::uint64_t bit = std::uint64_t{1} << i;
      known |= bit;
      if (lowered.find(condition.atoms[static_cast<size_t>(i)]) != std::string_view::npos) {
        held |= bit;
        found = true;
      }
    }
    if (!found) return false;
  }
  return true;
}

bool LinePrefilter::MayMatchLine(int p, std::string_view lowered) const {
  LazyCondition& lazy = conditions[static_cast<size_t>(p)];
  if (lazy.checks.load(std::memory_order_relaxed) < kChecksBeforeCondition) {
    lazy.checks.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  return ConditionHolds(Condition(p), lowered);
}

const LiteralCondition& LinePrefilter::Condition(int p) const {
  LazyCondition& lazy = conditions[static_cast<size_t>(p)];
  std::call_once(lazy.once, [&] { lazy.condition = PatternCondition(patterns[static_cast<size_t>(p)]); });
  return lazy.condition;
}

const LineScanner& LinePrefilter::ChosenScanner() const {
  if (!layout_pending) return *first_scanner;
  std::call_once(chosen_once, [&] {
    chosen_scanner = std::make_unique<LineScanner>(first_scanner->keywords(), LineScanner::Impl::kAuto, nullptr, this);
    current_scanner.store(chosen_scanner.get(), std::memory_order_release);
  });
  return *chosen_scanner;
}

namespace {
// ShapeDecides' set of a text's pairs of adjacent bytes: kPairBits bits, a pair's bit PairHash.
constexpr unsigned kPairBits = 1024;
inline unsigned PairHash(char a, char b) {
  return (static_cast<unsigned char>(a) * 37u + static_cast<unsigned char>(b)) % kPairBits;
}
}  // namespace

bool LinePrefilter::ShapeDecides(const std::vector<std::uint32_t>& found, std::string_view text,
                                 const std::vector<int>* candidates) const {
  if (!shapes_blind) return false;
  std::string shape;  // text lowered, digits as '0': made at its first need
  auto holds = [&](const std::string& masked) {
    if (shape.empty()) {
      MaskDigits(text, &shape);
      for (char& c : shape) c = static_cast<char>(Lower(static_cast<unsigned char>(c)));
    }
    return shape.find(masked) != std::string::npos;
  };
  for (std::uint32_t k : found) {
    const ShapeKeyword& sk = ShapeOf(k);
    if (!sk.digit_free) return false;
    if (candidates == nullptr) continue;
    if (!sk.patterns_ok) return false;
    // A pattern that tells digits apart can match no text of this shape when none of its literals
    // can lie in one (each text it matches holds one, Note: [Line prefilter]): it is no candidate of
    // this text (it holds none of the literals), and none of those with a digit lies in a text of the
    // shape (a digit-free literal lies in every text of the shape or in none).
    for (const ShapeKeyword::Sensitive& sp : sk.sensitive) {
      if (std::binary_search(candidates->begin(), candidates->end(), sp.pattern)) return false;
      if (std::any_of(sp.digit_literals.begin(), sp.digit_literals.end(), holds)) return false;
    }
  }
  // A keyword with a digit lies in some text of this shape only where the text, lowered and with its
  // digits as '0', holds the keyword with its digits as '0'. The shape's pairs of bytes first: a
  // keyword with a pair the shape lacks is not there (most are not: "fp00" where no "p0" is).
  if (digit_keywords.empty()) return true;
  if (shape.empty()) holds(std::string());
  std::uint64_t pairs[kPairBits / 64] = {};
  for (size_t i = 0; i + 1 < shape.size(); ++i) {
    const unsigned h = PairHash(shape[i], shape[i + 1]);
    pairs[h / 64] |= std::uint64_t{1} << (h % 64);
  }
  for (size_t d = 0; d < digit_keywords.size(); ++d) {
    const std::string& k = digit_keywords[d];
    bool maybe = true;
    for (size_t i = 0; maybe && i + 1 < k.size(); ++i) {
      const unsigned h = PairHash(k[i], k[i + 1]);
      maybe = (pairs[h / 64] >> (h % 64)) & 1;
    }
    if (maybe && shape.find(k) != std::string::npos) return false;
  }
  return true;
}

const LinePrefilter::ShapeKeyword& LinePrefilter::ShapeOf(std::uint32_t k) const {
  ShapeKeyword& sk = shape_keyword[k];
  std::call_once(sk.once, [&] {
    auto has_digit = [](const std::string& s) {
      return std::any_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    sk.digit_free = !has_digit(first_scanner->keywords()[k]);
    sk.patterns_ok = true;
    for (int p : keyword_patterns[k]) {
      if (DigitBlindPattern(patterns[static_cast<size_t>(p)])) continue;
      const std::vector<std::string>& lits = literals[static_cast<size_t>(p)];
      // (no literals: a candidate of every line of the keyword)
      sk.patterns_ok = sk.patterns_ok && !lits.empty();
      sk.sensitive.push_back({p, {}});
      for (const std::string& l : lits) {
        if (!has_digit(l)) continue;
        sk.sensitive.back().digit_literals.emplace_back();
        MaskDigits(l, &sk.sensitive.back().digit_literals.back());
      }
    }
  });
  return sk;
}

bool LinePrefilter::MayMatch(int p, std::string_view lowered) const {
  const std::vector<std::string>& lits = literals[static_cast<size_t>(p)];
  return lits.empty() || std::any_of(lits.begin(), lits.end(), [&](const std::string& l) {
           return lowered.find(l) != std::string_view::npos;
         });
}

template <bool kFold, typename F>
bool LinePrefilter::LiteralsAt(std::uint32_t k, const char* text, size_t n, size_t i, F found) const {
  const std::vector<LiteralCheck>& checks = keyword_checks[k];
  auto byte = [](char c) { return kFold ? static_cast<char>(Lower(static_cast<unsigned char>(c))) : c; };
  auto lies = [&](const LiteralCheck& c) {
    // The literal's first and last bytes first: most literals of a keyword differ there.
    const size_t off = static_cast<size_t>(c.offset);
    if (i < off || i - off + c.size > n) return false;
    const char* s = text + (i - off);
    if (byte(s[0]) != c.front || byte(s[c.size - 1]) != c.back) return false;
    if constexpr (!kFold) return std::memcmp(s, check_bytes.data() + c.at, c.size) == 0;
    for (std::uint32_t j = 1; j + 1 < c.size; ++j) {
      if (byte(s[j]) != check_bytes[c.at + j]) return false;
    }
    return true;
  };
  // The literals that go on after the keyword: only the group of the byte that follows it here.
  const size_t after = i + first_scanner->keywords()[k].size();
  if (keyed_from[k] < checks.size() && after < n) {
    const unsigned char next = static_cast<unsigned char>(byte(text[after]));
    for (const NextGroup& g : next_groups[k]) {
      if (g.byte != next) continue;
      for (std::uint32_t c = g.begin; c < g.end; ++c) {
        if (lies(checks[c]) && found(checks[c])) return true;
      }
      break;
    }
  }
  for (std::uint32_t c = 0; c < keyed_from[k]; ++c) {
    const LiteralCheck& check = checks[c];
    if (check.literal >= 0 && check.offset >= 0 && lies(check) && found(check)) return true;
  }
  return false;
}

bool LinePrefilter::Contexts(std::uint32_t k, std::string_view keyword, std::vector<Context>* contexts) const {
  if (any_place[k]) return false;
  const size_t kw = keyword.size();
  for (const LiteralCheck& c : keyword_checks[k]) {
    // Not any_place: every check compares a literal holding the keyword at c.offset.
    const size_t o = static_cast<size_t>(c.offset);
    Context x;
    x.before = o > 0 ? static_cast<unsigned char>(check_bytes[c.at + o - 1]) : -1;
    x.after = o + kw < c.size ? static_cast<unsigned char>(check_bytes[c.at + o + kw]) : -1;
    x.after2 = o + kw + 1 < c.size ? static_cast<unsigned char>(check_bytes[c.at + o + kw + 1]) : -1;
    if (x.before < 0 && x.after < 0) return false;
    contexts->push_back(x);
  }
  return true;
}

bool LinePrefilter::Counts(std::uint32_t k, const char* p, size_t n, size_t start) const {
  return any_place[k] || LiteralsAt<true>(k, p, n, start, [](const LiteralCheck&) { return true; });
}

void LinePrefilter::Candidates(const std::vector<std::uint32_t>& found, std::string_view lowered,
                               std::vector<int>* out) const {
  for (std::uint32_t k : found) {
    // The literals compared where the text holds the keyword, at each place (a pattern held at two
    // places comes twice: Candidates may repeat).
    const std::string& kw = first_scanner->keywords()[k];
    for (size_t i = lowered.find(kw); i != std::string_view::npos; i = lowered.find(kw, i + 1)) {
      LiteralsAt<false>(k, lowered.data(), lowered.size(), i, [out](const LiteralCheck& c) {
        out->push_back(c.pattern);
        return false;  // every check
      });
    }
    // Then those that compare nothing: a pattern without literals, a literal searched for.
    for (size_t n = 0; n < keyed_from[k]; ++n) {
      const LiteralCheck& c = keyword_checks[k][n];
      if (c.literal < 0) {
        out->push_back(c.pattern);
      } else if (c.offset < 0 && lowered.find(std::string_view(check_bytes.data() + c.at, c.size)) != std::string_view::npos) {
        out->push_back(c.pattern);
      }
    }
  }
}

namespace {

// Note: [Anchored literals]: out->literals and each keyword's checks, from the atoms, for
// out->keyword_patterns over `keywords` (as the scanner keeps them).
void DeriveChecks(const std::vector<std::optional<std::vector<std::string>>>& atoms,
                  const std::vector<std::string>& keywords, LinePrefilter* out) {
  out->literals.assign(atoms.size(), {});
  out->keyword_checks.clear();
  out->keyed_from.clear();
  out->next_groups.clear();
  out->check_bytes.clear();
  for (size_t i = 0; i < atoms.size(); ++i) {
    if (!atoms[i]) continue;
    bool foldable = true;  // ASCII lowering folds every case the literal can be printed in
    for (const std::string& a : *atoms[i]) foldable = foldable && !a.empty() && CaselessText(a);
    if (!foldable) continue;
    for (const std::string& a : *atoms[i]) out->literals[i].push_back(LowerAscii(a));
  }
  // Note: [Anchored literals]: each keyword's checks. A literal holds some keyword exactly when one of
  // the keywords its pattern is listed under lies in it (keyword_patterns lists a pattern under every
  // keyword one of its literals holds), so the first pass marks those and the second adds a search for
  // the others.
  std::vector<std::vector<bool>> covered(atoms.size());  // per literal: it holds some keyword
  for (size_t i = 0; i < atoms.size(); ++i) covered[i].assign(out->literals[i].size(), false);
  out->keyword_checks.resize(keywords.size());
  for (size_t k = 0; k < keywords.size(); ++k) {
    for (int p : out->keyword_patterns[k]) {
      const std::vector<std::string>& lits = out->literals[static_cast<size_t>(p)];
      if (lits.empty()) out->keyword_checks[k].push_back({p, -1, -1});
      for (size_t l = 0; l < lits.size(); ++l) {
        const size_t o = lits[l].find(keywords[k]);
        if (o == std::string::npos) continue;
        out->keyword_checks[k].push_back({p, static_cast<int>(l), static_cast<int>(o)});
        covered[static_cast<size_t>(p)][l] = true;
      }
    }
  }
  for (size_t k = 0; k < keywords.size(); ++k) {
    for (int p : out->keyword_patterns[k]) {
      const std::vector<std::string>& lits = out->literals[static_cast<size_t>(p)];
      for (size_t l = 0; l < lits.size(); ++l) {
        if (!covered[static_cast<size_t>(p)][l]) out->keyword_checks[k].push_back({p, static_cast<int>(l), -1});
      }
    }
  }
  // Each keyword's checks: those read whatever follows the keyword first, then the others by the byte
  // that follows the keyword in their literal, in groups (LinePrefilter::next_groups); then their
  // literals' bytes in check_bytes in that order, so a keyword's checks read one stretch of it.
  out->keyed_from.resize(keywords.size());
  out->next_groups.resize(keywords.size());
  std::vector<int> keys;  // per check of a keyword: the byte after the keyword in its literal, or -1
  std::vector<int> distinct;
  std::vector<LinePrefilter::LiteralCheck> sorted;
  for (size_t k = 0; k < keywords.size(); ++k) {
    const size_t kw = keywords[k].size();
    std::vector<LinePrefilter::LiteralCheck>& checks = out->keyword_checks[k];
    keys.clear();
    for (const LinePrefilter::LiteralCheck& c : checks) {
      int key = -1;
      if (c.literal >= 0 && c.offset >= 0) {
        const std::string& l = out->literals[static_cast<size_t>(c.pattern)][static_cast<size_t>(c.literal)];
        if (static_cast<size_t>(c.offset) + kw < l.size()) key = static_cast<unsigned char>(l[static_cast<size_t>(c.offset) + kw]);
      }
      keys.push_back(key);
    }
    // A stable order by key: the few distinct keys of a keyword, each taken in turn.
    distinct.assign(keys.begin(), keys.end());
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    sorted.clear();
    for (int key : distinct) {
      const size_t begin = sorted.size();
      for (size_t n = 0; n < checks.size(); ++n) {
        if (keys[n] == key) sorted.push_back(checks[n]);
      }
      if (key < 0) {
        out->keyed_from[k] = static_cast<std::uint32_t>(sorted.size());
      } else {
        out->next_groups[k].push_back({static_cast<unsigned char>(key), static_cast<std::uint32_t>(begin),
                                       static_cast<std::uint32_t>(sorted.size())});
      }
    }
    if (distinct.size() > 1) checks.swap(sorted);  // (one key: the order is kept as it is)
    for (LinePrefilter::LiteralCheck& c : checks) {
      if (c.literal < 0) continue;
      const std::string& l = out->literals[static_cast<size_t>(c.pattern)][static_cast<size_t>(c.literal)];
      c.at = static_cast<std::uint32_t>(out->check_bytes.size());
      c.size = static_cast<std::uint32_t>(l.size());
      c.front = l.front();
      c.back = l.back();
      out->check_bytes += l;
    }
  }
}

void PutU32(std::string* out, std::uint32_t v) {
  const char b[4] = {static_cast<char>(v & 0xff), static_cast<char>(v >> 8 & 0xff), static_cast<char>(v >> 16 & 0xff),
                     static_cast<char>(v >> 24 & 0xff)};
  out->append(b, sizeof b);
}

// Note: [Cached checks]: what DeriveChecks made for `pf`, as the plan carries it.
PrefilterChecks EncodeChecks(const LinePrefilter& pf) {
  PrefilterChecks c;
  for (const std::vector<std::string>& lits : pf.literals) c.foldable += lits.empty() ? '0' : '1';
  for (size_t k = 0; k < pf.keyword_checks.size(); ++k) {
    const std::vector<LinePrefilter::LiteralCheck>& checks = pf.keyword_checks[k];
    PutU32(&c.packed, static_cast<std::uint32_t>(checks.size()));
    PutU32(&c.packed, pf.keyed_from[k]);
    PutU32(&c.packed, static_cast<std::uint32_t>(pf.next_groups[k].size()));
    for (const LinePrefilter::LiteralCheck& ch : checks) {
      PutU32(&c.packed, static_cast<std::uint32_t>(ch.pattern));
      PutU32(&c.packed, static_cast<std::uint32_t>(ch.literal + 1));
      PutU32(&c.packed, static_cast<std::uint32_t>(ch.offset + 1));
      PutU32(&c.packed, ch.at);
      PutU32(&c.packed, ch.size);
    }
    for (const LinePrefilter::NextGroup& g : pf.next_groups[k]) {
      PutU32(&c.packed, g.byte);
      PutU32(&c.packed, g.begin);
      PutU32(&c.packed, g.end);
    }
  }
  c.bytes = pf.check_bytes;
  return c;
}

// Reads `c` into out's literals and checks; false (out's checks then to be derived, `atoms` as they
// were) when it is empty or does not fit the atoms and `keywords`: every index, place and length is
// checked against them (no check reads outside its literal or check_bytes). The bytes themselves are
// the entry's checksum's to vouch for (Note: [Cache checksums] in rule_cache.cc): comparing each
// literal's bytes and keyword again cost ~0.4 M instructions. The checks are read against the atoms'
// sizes (lowering keeps a literal's length) and only once they all fit are the foldable patterns'
// atoms moved into out->literals and lowered there: ~2,200 strings not copied (~0.4 M instructions).
bool DecodeChecks(const PrefilterChecks& c, std::vector<std::optional<std::vector<std::string>>>& atoms,
                  const std::vector<std::string>& keywords, LinePrefilter* out) {
  const size_t n = atoms.size();
  if (c.foldable.size() != n || c.packed.empty()) return false;
  for (size_t i = 0; i < n; ++i) {
    if (c.foldable[i] == '0') continue;
    if (c.foldable[i] != '1' || !atoms[i] || atoms[i]->empty()) return false;
  }
  // The literals pattern p will hold: none where it is not foldable.
  auto literals_of = [&](size_t p) -> const std::vector<std::string>* {
    return c.foldable[p] == '1' ? &*atoms[p] : nullptr;
  };
  const std::string_view packed = c.packed;
  size_t pos = 0;
  auto get = [&](std::uint32_t* v) {
    if (packed.size() - pos < 4) return false;
    const auto* b = reinterpret_cast<const unsigned char*>(packed.data() + pos);
    *v = static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 | static_cast<std::uint32_t>(b[2]) << 16 |
         static_cast<std::uint32_t>(b[3]) << 24;
    pos += 4;
    return true;
  };
  out->keyword_checks.assign(keywords.size(), {});
  out->keyed_from.assign(keywords.size(), 0);
  out->next_groups.assign(keywords.size(), {});
  for (size_t k = 0; k < keywords.size(); ++k) {
    std::uint32_t count = 0, keyed = 0, groups = 0;
    if (!get(&count) || !get(&keyed) || !get(&groups) || keyed > count) return false;
    if (count > (packed.size() - pos) / 20 || groups > (packed.size() - pos) / 12) return false;  // (no huge reserve)
    std::vector<LinePrefilter::LiteralCheck>& checks = out->keyword_checks[k];
    checks.reserve(count);
    // The `count` checks, 20 bytes each, lie within `packed` (checked above): their five words are read
    // without a bound check each (~40 instructions fewer a check, of ~3,600).
    const auto* words = reinterpret_cast<const unsigned char*>(packed.data() + pos);
    pos += 20 * static_cast<size_t>(count);
    for (std::uint32_t j = 0; j < count; ++j, words += 20) {
      auto word = [&](size_t i) {
        const unsigned char* b = words + 4 * i;
        return static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
               static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
      };
      const std::uint32_t pattern = word(0), literal = word(1), offset = word(2), at = word(3), size = word(4);
      if (pattern >= n) return false;
      LinePrefilter::LiteralCheck check{static_cast<int>(pattern), -1, -1};
      const std::vector<std::string>* lits = literals_of(pattern);
      if (literal == 0) {  // a pattern without literals to check
        if (offset != 0 || at != 0 || size != 0 || lits != nullptr) return false;
      } else {
        if (lits == nullptr || literal > lits->size()) return false;
        const std::string& l = (*lits)[literal - 1];
        if (size != l.size() || size == 0 || at > c.bytes.size() || c.bytes.size() - at < size) return false;
        if (offset != 0 && (offset - 1 > size || size - (offset - 1) < keywords[k].size())) return false;
        check.literal = static_cast<int>(literal - 1);  // (both checked small: no overflow)
        check.offset = offset == 0 ? -1 : static_cast<int>(offset - 1);
        check.at = at;
        check.size = size;
        check.front = c.bytes[at];
        check.back = c.bytes[at + size - 1];
      }
      checks.push_back(check);
    }
    out->keyed_from[k] = keyed;
    if (groups > (packed.size() - pos) / 12) return false;
    for (std::uint32_t j = 0; j < groups; ++j) {
      std::uint32_t byte = 0, begin = 0, end = 0;
      if (!get(&byte) || !get(&begin) || !get(&end) || byte > 0xff || begin < keyed || begin > end || end > count) return false;
      out->next_groups[k].push_back({static_cast<unsigned char>(byte), begin, end});
    }
  }
  if (pos != packed.size()) return false;
  out->check_bytes = c.bytes;
  out->literals.assign(n, {});
  for (size_t i = 0; i < n; ++i) {
    if (c.foldable[i] != '1') continue;
    out->literals[i] = std::move(*atoms[i]);
    for (std::string& l : out->literals[i]) {
      for (char& ch : l) ch = static_cast<char>(Lower(static_cast<unsigned char>(ch)));
    }
  }
  return true;
}

}  // namespace

PrefilterPlan PlanLinePrefilter(const std::vector<std::optional<std::vector<std::string>>>& atoms,
                                const std::vector<std::string>& idle_keywords, bool layout, int threads) {
  PrefilterPlan plan;
  std::vector<std::string> all_atoms;
  for (const auto& a : atoms) {
    if (a) all_atoms.insert(all_atoms.end(), a->begin(), a->end());
  }
  plan.keywords = LineScanner::UsableKeywords(CoverKeywords(idle_keywords, all_atoms, threads));
  plan.keyword_patterns.resize(plan.keywords.size());
  // keyword_patterns[k]: the patterns one of whose atoms holds keyword k, in pattern order.
  const NeedleIndex index(plan.keywords);
  HeldNeedles(
      index, atoms.size(), threads,
      [&](size_t i, auto visit) {
        if (!atoms[i]) return;
        for (const std::string& a : *atoms[i]) visit(LowerAscii(a));
      },
      [&](size_t k, size_t i) {
        std::vector<int>& list = plan.keyword_patterns[k];
        if (list.empty() || list.back() != static_cast<int>(i)) list.push_back(static_cast<int>(i));
      });
  // The layout and its mix (Note: [Cached mix]), read off a scanner built for them: the tables it
  // builds besides (~0.8 M instructions) are what a plan made here adds to a load that makes a scanner
  // anyway, and every load from the cache (warm, edited, shipped) then skips choosing the mix.
  if (layout) {
    plan.layout = LineScanner(plan.keywords).layout();
    // Note: [Cached checks]: the checks go with the plan that is cached.
    LinePrefilter checks;
    checks.keyword_patterns = plan.keyword_patterns;
    DeriveChecks(atoms, plan.keywords, &checks);
    plan.checks = EncodeChecks(checks);
  }
  return plan;
}

std::shared_ptr<const LinePrefilter> BuildLinePrefilter(
    std::vector<std::string> patterns, std::vector<std::optional<std::vector<std::string>>> atoms,
    const std::vector<std::string>& idle_keywords, PrefilterPlan plan, int threads) {
  if (atoms.size() != patterns.size()) return nullptr;
  bool fits = plan.keyword_patterns.size() == plan.keywords.size() && !plan.keywords.empty() &&
                    LineScanner::AreUsable(plan.keywords) &&
                    std::all_of(plan.keyword_patterns.begin(), plan.keyword_patterns.end(), [&](const std::vector<int>& ps) {
                      return std::all_of(ps.begin(), ps.end(), [&](int p) {
                        return p >= 0 && static_cast<size_t>(p) < atoms.size() && atoms[p];
                      });
                    });
  // Inert reads the idle keywords off the scanner's (LinePrefilter::idle_keyword): all must be there.
  const std::vector<std::string> idle = LineScanner::UsableKeywords(idle_keywords);
  for (const std::string& k : idle) {
    fits = fits && std::find(plan.keywords.begin(), plan.keywords.end(), k) != plan.keywords.end();
  }
  // Note: [Lazy anchor layout]: a plan made here starts with a quick layout.
  const bool quick = !fits;
  if (!fits) {
    plan = PlanLinePrefilter(atoms, idle_keywords, false, threads);
    plan.layout = LineScanner::QuickLayout(plan.keywords);
  }
  auto out = std::make_shared<LinePrefilter>();
  std::vector<std::string> unfiltered;
  for (size_t i = 0; i < patterns.size(); ++i) {
    if (!atoms[i]) {
      unfiltered.push_back(patterns[i]);
      out->unfiltered_patterns.push_back(static_cast<int>(i));
    }
  }
  out->layout_pending = quick;
  out->keyword_patterns = std::move(plan.keyword_patterns);
  out->conditions = std::make_unique<LinePrefilter::LazyCondition[]>(patterns.size());
  const std::vector<std::string>& keywords = plan.keywords;  // as the scanner keeps them (`fits`)
  // Note: [Cached checks]: the plan's, or derived now.
  if (!DecodeChecks(plan.checks, atoms, keywords, out.get())) DeriveChecks(atoms, keywords, out.get());
  // The idle keywords as the scanner keeps them (`idle`; no scanner of their own: nothing scans for them
  // alone, and choosing one's anchor layout was ~1.5 M instructions of every warm start), marked at
  // their places among the keywords, which hold no repeat (searching the idle keywords for each of
  // ~1,000 keywords instead was ~0.2 M instructions).
  out->idle_keyword.assign(keywords.size(), false);
  for (const std::string& k : idle) {
    const auto at = std::find(keywords.begin(), keywords.end(), k);
    if (at != keywords.end()) out->idle_keyword[static_cast<size_t>(at - keywords.begin())] = true;
  }
  // Note: [Keyword contexts]: the keywords Find stops on wherever they lie.
  for (size_t k = 0; k < keywords.size(); ++k) {
    const std::vector<LinePrefilter::LiteralCheck>& checks = out->keyword_checks[k];
    out->any_place.push_back(out->idle_keyword[k] || std::any_of(checks.begin(), checks.end(), [](const auto& c) {
                               return c.literal < 0 || c.offset < 0;
                             }));
  }
  // (A quick layout's scanner serves short inputs: AVX2's loop without the hash stage and its mix.)
  // (The scanner asks `out` about the keywords it finds, Note: [Keyword contexts], and, while it is
  // built, where they count, Note: [Hit contexts]: so it is built once the checks are.)
  // (The keywords are usable: `fits` checked a cached plan's, PlanLinePrefilter makes them so.)
  out->first_scanner = std::make_unique<LineScanner>(std::move(plan.keywords), LineScanner::UsableTag{},
                                                     quick ? LineScanner::Impl::kAvx2 : LineScanner::Impl::kAuto,
                                                     &plan.layout, out.get());
  out->current_scanner.store(out->first_scanner.get(), std::memory_order_release);
  if (!unfiltered.empty()) {
    out->unfiltered = std::make_unique<RE2::Set>(RegexOptions(), RE2::UNANCHORED);
    for (const std::string& p : unfiltered) {
      if (out->unfiltered->Add(p, nullptr) < 0) return nullptr;
    }
    if (!out->unfiltered->Compile()) return nullptr;
  }
  // Note: [Line shapes]: what ShapeDecides reads; each keyword's patterns are read at its first need.
  out->shapes_blind = std::all_of(unfiltered.begin(), unfiltered.end(),
                                  [](const std::string& p) { return DigitBlindPattern(p); });
  for (const std::string& k : out->first_scanner->keywords()) {
    if (std::any_of(k.begin(), k.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      out->digit_keywords.emplace_back();
      MaskDigits(k, &out->digit_keywords.back());
    }
  }
  out->shape_keyword = std::make_unique<LinePrefilter::ShapeKeyword[]>(out->first_scanner->keywords().size());
  out->patterns = std::move(patterns);  // for their conditions (LinePrefilter::MayMatchLine)
  return out;
}

}  // namespace triage
