// Metric extraction (see metrics.h for the formats and Notes [Metric axes] and [Metric memory]).
//
// The scanner makes one pass over a line: it finds words (runs of letters, digits, '_', '/', '-'
// starting with a letter), looks each up in a small hash table of known names, and only for a known
// name tries to read a number after a short separator (spaces, tabs, ':', '=', quotes, '[', '(').
// Most bytes cost a table lookup and a branch, and a line with no known name allocates nothing,
// which is what keeps a multi-GB progress log cheap (tests/bench/metrics_throughput.sh measures it).
#include "log/metrics.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <initializer_list>

#include "log/formats/registry.h"
#include "log/simd.h"
#include "triage/locale_free.h"

namespace triage {
namespace {

// Key codes beyond the series ids.
constexpr int kKeyStep = 100;
constexpr int kKeyEpoch = 101;
constexpr int kKeyIgnore = 102;  // a known name we do not track (test_loss): blocks a wrong fallback
// The bare names of a split, ignored as kKeyIgnore except where Note: [Bare split names] reads them.
constexpr int kKeyBareTrain = 103;  // "train"
constexpr int kKeyBareEval = 104;   // "val", "valid", "validation", "test"
constexpr int kKeyLossPart = 105;   // an epoch table's column of one loss term (Note: [Loss terms in a table])

struct Alias {
  const char* name;
  int code;
};

constexpr int S(SeriesId id) { return static_cast<int>(id); }

// Lower-case names with '-', '/', '.' and spaces written as '_'.
constexpr Alias kAliases[] = {
    {"loss", S(SeriesId::kLoss)},           {"train_loss", S(SeriesId::kLoss)},
    {"training_loss", S(SeriesId::kLoss)},  {"total_loss", S(SeriesId::kLoss)},
    {"train_total_loss", S(SeriesId::kLoss)}, {"tr_loss", S(SeriesId::kLoss)},
    {"loss_step", S(SeriesId::kLoss)},      {"train_loss_step", S(SeriesId::kLoss)},
    {"train_loss_epoch", S(SeriesId::kLoss)}, {"avg_loss", S(SeriesId::kLoss)},
    {"mse", S(SeriesId::kLoss)},            {"train_mse", S(SeriesId::kLoss)},
    // The whole loss under a word that says how it was summed or when it was printed, joined by '_' (or
    // '-', '/', '.'), as hand-written loops print it ("epoch_loss: 2.30", "running_loss 0.69", "losses : 39.6",
    // "loss_avg=0.2"); a word whose first part names a component ("cls_loss", "box_loss") stays unread, so a
    // line's first loss is not a component's. Two words ("Epoch Loss: 0.5") are joined to the same names.
    {"losses", S(SeriesId::kLoss)},         {"epoch_loss", S(SeriesId::kLoss)},
    {"batch_loss", S(SeriesId::kLoss)},     {"step_loss", S(SeriesId::kLoss)},
    {"iter_loss", S(SeriesId::kLoss)},      {"running_loss", S(SeriesId::kLoss)},
    {"mean_loss", S(SeriesId::kLoss)},      {"average_loss", S(SeriesId::kLoss)},
    {"overall_loss", S(SeriesId::kLoss)},   {"cur_loss", S(SeriesId::kLoss)},
    {"current_loss", S(SeriesId::kLoss)},   {"trn_loss", S(SeriesId::kLoss)},
    {"loss_avg", S(SeriesId::kLoss)},       {"loss_mean", S(SeriesId::kLoss)},
    {"loss_total", S(SeriesId::kLoss)},     {"train_losses", S(SeriesId::kLoss)},
    // Megatron's evaluation line, " validation loss at iteration 200 | lm loss value: 6.801234E+00 |" (the value
    // after "loss value"; the line's first word makes it the evaluation's).
    {"loss_value", S(SeriesId::kLoss)},
    // NeMo's Megatron models log the training loss averaged over the data-parallel ranks as "reduced_train_loss"
    // (Lightning's progress bar: "reduced_train_loss=2.310"; with Lightning 2.x no "loss=" precedes it).
    {"reduced_train_loss", S(SeriesId::kLoss)},
    {"avg_train_loss", S(SeriesId::kLoss)}, {"mean_train_loss", S(SeriesId::kLoss)},
    {"epoch_train_loss", S(SeriesId::kLoss)}, {"train_loss_avg", S(SeriesId::kLoss)},
    {"avg_val_loss", S(SeriesId::kValLoss)}, {"mean_val_loss", S(SeriesId::kValLoss)},
    {"epoch_val_loss", S(SeriesId::kValLoss)}, {"val_loss_avg", S(SeriesId::kValLoss)},
    {"avg_valid_loss", S(SeriesId::kValLoss)}, {"val_losses", S(SeriesId::kValLoss)},
    {"val_loss", S(SeriesId::kValLoss)},    {"valid_loss", S(SeriesId::kValLoss)},
    {"validation_loss", S(SeriesId::kValLoss)}, {"eval_loss", S(SeriesId::kValLoss)},
    {"val_loss_epoch", S(SeriesId::kValLoss)}, {"dev_loss", S(SeriesId::kValLoss)},
    // Names printed as one camel-case word ("ValLoss: 0.0001", "trainLoss 0.3"), lower-cased.
    {"valloss", S(SeriesId::kValLoss)},     {"validloss", S(SeriesId::kValLoss)},
    {"trainloss", S(SeriesId::kLoss)},      {"valacc", S(SeriesId::kValAcc)},
    {"trainacc", S(SeriesId::kAcc)},
    // Top-1 accuracy as torchvision's and timm's reference scripts print it ("Acc@1 75.21 (74.80)"); top-5 is not tracked.
    {"acc@1", S(SeriesId::kAcc)},           {"acc@5", kKeyIgnore},
    // and as their metric loggers print it during training ("loss: 6.9078 (6.9078)  acc1: 0.0000 (0.0000)").
    {"acc1", S(SeriesId::kAcc)},            {"acc5", kKeyIgnore},
    // MMEngine's classification metric ("accuracy/top1: 32.1000", '/' read as '_') and MMAction's ("top1_acc: 0.3125").
    {"accuracy_top1", S(SeriesId::kAcc)},   {"accuracy_top5", kKeyIgnore},
    {"top1_acc", S(SeriesId::kAcc)},        {"top5_acc", kKeyIgnore},
    // ST-GCN's and its copies' evaluation summary ("\tTop1: 88.36%" on a line of its own: Note: [Marked
    // evaluation lines]) and a training line's "top1 45.2".
    {"top1", S(SeriesId::kAcc)},            {"top5", kKeyIgnore},
    {"acc", S(SeriesId::kAcc)},             {"accuracy", S(SeriesId::kAcc)},
    {"train_acc", S(SeriesId::kAcc)},       {"train_accuracy", S(SeriesId::kAcc)},
    {"val_acc", S(SeriesId::kValAcc)},      {"val_accuracy", S(SeriesId::kValAcc)},
    {"valid_acc", S(SeriesId::kValAcc)},    {"eval_accuracy", S(SeriesId::kValAcc)},
    {"eval_acc", S(SeriesId::kValAcc)},     {"validation_accuracy", S(SeriesId::kValAcc)},
    {"valid_accuracy", S(SeriesId::kValAcc)}, {"validation_acc", S(SeriesId::kValAcc)},
    {"dev_acc", S(SeriesId::kValAcc)},      {"dev_accuracy", S(SeriesId::kValAcc)},
    {"lr", S(SeriesId::kLr)},               {"learning_rate", S(SeriesId::kLr)},
    {"grad_norm", S(SeriesId::kGradNorm)},  {"gradient_norm", S(SeriesId::kGradNorm)},
    {"total_norm", S(SeriesId::kGradNorm)}, {"gnorm", S(SeriesId::kGradNorm)},
    {"grad_norm_total", S(SeriesId::kGradNorm)},
    // The keys the Hugging Face Trainer logs to Weights & Biases and TensorBoard, prefixed with the split
    // ("train/grad_norm", "train/learning_rate", '/' read as '_'), as wandb's "Run summary:" table prints them
    // when the run ends ("wandb:  train/grad_norm nan"); "train/loss" is train_loss above.
    {"train_grad_norm", S(SeriesId::kGradNorm)}, {"train_learning_rate", S(SeriesId::kLr)},
    {"train_lr", S(SeriesId::kLr)},
    // Memory a trainer prints without saying whose: the GPU's in mmcv, detectron2 and most training logs.
    {"memory", S(SeriesId::kMemory)},       {"mem", S(SeriesId::kMemory)},
    {"allocated", S(SeriesId::kMemory)},    {"memory_allocated", S(SeriesId::kMemory)},
    {"mem_allocated", S(SeriesId::kMemory)}, {"max_mem", S(SeriesId::kMemory)},
    {"max_memory", S(SeriesId::kMemory)},   {"gpu_mem", S(SeriesId::kMemory)},
    {"memory_used", S(SeriesId::kMemory)},  {"gpu_memory", S(SeriesId::kMemory)},
    {"gpu_ram", S(SeriesId::kMemory)},      {"vram", S(SeriesId::kMemory)},
    {"vram_used", S(SeriesId::kMemory)},    {"vram_usage", S(SeriesId::kMemory)},
    {"mem_mb", S(SeriesId::kMemory)},       {"memory_mb", S(SeriesId::kMemory)},
    {"max_memory_allocated", S(SeriesId::kMemory)}, {"memory_reserved", S(SeriesId::kMemory)},
    // "memory used: 1.2 GB", "Memory usage 3.1G" (Note: [Name then a word]).
    {"memory_usage", S(SeriesId::kMemory)}, {"mem_used", S(SeriesId::kMemory)},
    {"mem_usage", S(SeriesId::kMemory)},    {"used_memory", S(SeriesId::kMemory)},
    // Memory that can only be the host's (Note: [Host and GPU memory] in metrics.h): the resident set
    // size, RAM ("RAM used: 5.4 GB", "RAM: 11.2GB", "CPU RAM 3.0 GB"), CPU or host memory.
    {"rss", S(SeriesId::kHostMemory)},      {"maxrss", S(SeriesId::kHostMemory)},
    {"max_rss", S(SeriesId::kHostMemory)},  {"rss_mb", S(SeriesId::kHostMemory)},
    {"max_rss_mb", S(SeriesId::kHostMemory)}, {"rss_memory", S(SeriesId::kHostMemory)},
    {"ram", S(SeriesId::kHostMemory)},      {"ram_used", S(SeriesId::kHostMemory)},
    {"ram_usage", S(SeriesId::kHostMemory)}, {"used_ram", S(SeriesId::kHostMemory)},
    {"cpu_ram", S(SeriesId::kHostMemory)},  {"cpu_mem", S(SeriesId::kHostMemory)},
    {"cpu_memory", S(SeriesId::kHostMemory)}, {"host_mem", S(SeriesId::kHostMemory)},
    {"host_memory", S(SeriesId::kHostMemory)}, {"system_memory", S(SeriesId::kHostMemory)},
    {"loss_scale", S(SeriesId::kLossScale)}, {"grad_scale", S(SeriesId::kLossScale)},
    {"scaler_scale", S(SeriesId::kLossScale)},
    {"f1", S(SeriesId::kF1)},               {"f1_score", S(SeriesId::kF1)},
    {"macro_f1", S(SeriesId::kF1)},         {"f1_macro", S(SeriesId::kF1)},
    {"val_f1", S(SeriesId::kF1)},           {"test_f1", S(SeriesId::kF1)},
    {"eval_f1", S(SeriesId::kF1)},          {"valid_f1", S(SeriesId::kF1)},
    {"step", kKeyStep},                     {"global_step", kKeyStep},
    {"iter", kKeyStep},                     {"iteration", kKeyStep},
    {"it", kKeyIgnore},                     {"steps", kKeyStep},
    {"epoch", kKeyEpoch},
    {"test_loss", S(SeriesId::kValLoss)},  {"test_acc", S(SeriesId::kValAcc)},
    {"test_accuracy", S(SeriesId::kValAcc)}, {"val", kKeyBareEval},
    // Note: [Split-prefixed top-1]. The JSON lines DeiT's main.py writes each epoch (and the many trainers
    // copied from it: ConvNeXt, MAE's fine-tuning, PVT, P2T) prefix the metric logger's names with the split,
    // {"train_lr": ..., "train_loss": ..., "test_loss": ..., "test_acc1": 71.28, "test_acc5": 90.98, ...}, and
    // timm's summary.csv heads its columns eval_loss, eval_top1, eval_top5. The top-1 is the split's accuracy
    // (read with its own scale: a percent stays a percent); top-5 is not tracked, as acc5 above.
    {"test_acc1", S(SeriesId::kValAcc)},    {"test_acc5", kKeyIgnore},
    {"val_acc1", S(SeriesId::kValAcc)},     {"val_acc5", kKeyIgnore},
    {"train_acc1", S(SeriesId::kAcc)},      {"train_acc5", kKeyIgnore},
    {"eval_top1", S(SeriesId::kValAcc)},    {"eval_top5", kKeyIgnore},
    {"eval", kKeyIgnore},                   {"valid", kKeyBareEval},
    {"validation", kKeyBareEval},           {"test", kKeyBareEval},
    {"train", kKeyBareTrain},               {"training", kKeyIgnore},
    {"grad", kKeyIgnore},                   {"gradient", kKeyIgnore},
    {"learning", kKeyIgnore},               {"max", kKeyIgnore},
    {"total", kKeyIgnore},                  {"global", kKeyIgnore},
    // First words that say whose memory a two-word name is (Note: [Host and GPU memory] in metrics.h):
    // "GPU RAM: 5.2 GB" is the GPU's, "CPU memory: 3.1 GB" and "Host memory 2.5 GB" the host's.
    {"gpu", kKeyIgnore},                    {"cpu", kKeyIgnore},
    {"host", kKeyIgnore},
};

constexpr const char* kSeriesNames[kSeriesCount] = {"loss",   "val_loss",   "acc", "val_acc",    "lr",
                                                    "grad_norm", "memory", "loss_scale", "f1", "host_memory"};

// A series whose values are memory: read with a unit (or as a byte count), never replayed in place.
constexpr bool IsMemoryCode(int code) { return code == S(SeriesId::kMemory) || code == S(SeriesId::kHostMemory); }

constexpr size_t kMaxKey = 24;

// Character classes, one table lookup per byte.
enum : unsigned char { kOther = 0, kAlpha = 1, kDigit = 2, kWordPunct = 4 };
struct CharTable {
  unsigned char c[256] = {};
  constexpr CharTable() {
    for (int i = 'a'; i <= 'z'; ++i) c[i] = kAlpha;
    for (int i = 'A'; i <= 'Z'; ++i) c[i] = kAlpha;
    for (int i = '0'; i <= '9'; ++i) c[i] = kDigit;
    c[static_cast<unsigned char>('_')] = kAlpha;
    c[static_cast<unsigned char>('/')] = kWordPunct;
    c[static_cast<unsigned char>('-')] = kWordPunct;
  }
};
constexpr CharTable kChars;

inline unsigned char Class(char ch) { return kChars.c[static_cast<unsigned char>(ch)]; }

// What a line's first byte may begin, one lookup for the two tests of ScanSegment: an epoch table's
// header ("epoch", any case) or the prefixes metric extraction skips (Note: [Quote markers]).
enum : unsigned char { kMayStartTable = 1, kMayStartPrefix = 2, kMayStartRecord = 4, kMayStartBare = 8 };
struct LineStartTable {
  unsigned char c[256] = {};
  constexpr LineStartTable() {
    c[static_cast<unsigned char>('e')] = c[static_cast<unsigned char>('E')] = kMayStartTable;
    c[static_cast<unsigned char>('s')] = c[static_cast<unsigned char>('S')] = kMayStartTable;  // "Step\tTraining Loss"
    // A Markdown table's bar, or the blanks a pandas frame's header starts with (Note: [Epoch tables]).
    c[static_cast<unsigned char>('|')] = c[static_cast<unsigned char>(' ')] = kMayStartTable;
    c[static_cast<unsigned char>('>')] = c[static_cast<unsigned char>('[')] = kMayStartPrefix;
    // A log record's header (Note: [Learned prefix]: LogPrefix::MayStartRecord).
    for (int b = '0'; b <= '9'; ++b) c[b] |= kMayStartRecord;
    for (int b = 'A'; b <= 'Z'; ++b) c[b] |= kMayStartRecord;
    // PyG's bare split lines, "Epoch: 010, Train: ..." or "Train: ..." (Note: [Bare split names]).
    for (char b : {'E', 'e', 'T', 't'}) c[static_cast<unsigned char>(b)] |= kMayStartBare;
  }
};
constexpr LineStartTable kLineStarts;
inline bool IsDigit(char c) { return static_cast<unsigned char>(c - '0') <= 9; }

std::uint32_t Hash(const char* s, size_t n) {
  std::uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(s[i])) * 16777619u;
  return h;
}

// Index of a character in the quick filter: letters by their lower case, everything else 26.
inline int FilterIndex(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return c - 'A';
  return 26;
}

// Open-addressing table over kAliases, built once, with a quick filter in front: most words of a log
// line are not names, and (length, first letter, last letter) rules them out before any hashing.
class KeyTable {
 public:
  KeyTable() {
    for (const Alias& a : kAliases) {
      size_t n = std::strlen(a.name);
      std::uint32_t i = Hash(a.name, n) & kMask;
      while (slots_[i].name) i = (i + 1) & kMask;
      slots_[i] = {a.name, static_cast<int>(n), a.code};
      filter_[n][FilterIndex(a.name[0])][FilterIndex(a.name[n - 1])] = true;
      // Two-word names are also looked up by their second word alone (the first may be unknown).
      if (const char* sp = std::strchr(a.name, '_')) {
        size_t m = n - static_cast<size_t>(sp + 1 - a.name);
        if (m > 0) filter_[m][FilterIndex(sp[1])][FilterIndex(a.name[n - 1])] = true;
      }
    }
  }
  // Returns false when no name has this length, first and last letter (a word can be skipped).
  bool MayBeName(const char* w, size_t n) const {
    return n > 0 && n <= kMaxKey && filter_[n][FilterIndex(w[0])][FilterIndex(w[n - 1])];
  }
  // Returns the code of a lower-cased name, or -1.
  int Find(const char* s, size_t n) const {
    std::uint32_t i = Hash(s, n) & kMask;
    while (slots_[i].name) {
      if (slots_[i].len == static_cast<int>(n) && slots_[i].name[0] == s[0] && std::memcmp(slots_[i].name, s, n) == 0) {
        return slots_[i].code;
      }
      i = (i + 1) & kMask;
    }
    return -1;
  }

 private:
  static constexpr std::uint32_t kMask = 255;
  struct Slot {
    const char* name = nullptr;
    int len = 0;
    int code = -1;
  };
  Slot slots_[kMask + 1];
  bool filter_[kMaxKey + 1][27][27] = {};
};

const KeyTable& Keys() {
  static const KeyTable table;
  return table;
}

// Lower-cases a word into buf, writing '-' '/' '.' as '_'. Returns false when it is too long.
bool Lower(std::string_view w, char* buf, size_t* n) {
  if (w.size() > kMaxKey) return false;
  for (size_t i = 0; i < w.size(); ++i) {
    char c = w[i];
    if (c == '-' || c == '/' || c == '.') c = '_';
    else c = static_cast<char>(AsciiLower(c));
    buf[i] = c;
  }
  *n = w.size();
  return true;
}

bool EqualsNoCase(const char* p, const char* end, const char* word) {
  size_t n = std::strlen(word);
  if (static_cast<size_t>(end - p) < n) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = p[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != word[i]) return false;
  }
  return true;
}

// The powers of ten a double holds exactly.
constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// The value of a decimal mantissa of at most 18 digits times 10^exp10 (|exp10| <= 22), signed.
inline double ScaledMantissa(std::uint64_t mant, int exp10, bool neg) {
  double x = static_cast<double>(mant);
  x = exp10 < 0 ? x / kPow10[-exp10] : x * kPow10[exp10];
  return neg ? -x : x;
}

// Reads a number at p: decimal/exponent forms, nan, inf, infinity (any case, optional sign).
// Returns the end, or nullptr when there is none.
const char* ReadNumber(const char* p, const char* end, double* v) {
  const char* q = p;
  bool neg = false;
  if (q < end && (*q == '-' || *q == '+')) {
    neg = *q == '-';
    ++q;
  }
  if (q >= end) return nullptr;
  if (Class(*q) == kAlpha) {
    const char* r = nullptr;
    if (EqualsNoCase(q, end, "infinity")) r = q + 8;
    else if (EqualsNoCase(q, end, "inf")) r = q + 3;
    else if (EqualsNoCase(q, end, "nan")) r = q + 3;
    if (!r || (r < end && Class(*r) == kAlpha)) return nullptr;
    *v = (q[0] == 'n' || q[0] == 'N') ? std::numeric_limits<double>::quiet_NaN()
                                      : std::numeric_limits<double>::infinity();
    if (neg) *v = -*v;
    return r;
  }
  if (Class(*q) != kDigit && !(*q == '.' && q + 1 < end && Class(q[1]) == kDigit)) return nullptr;
  double x = 0;
  // Fast path for what progress lines print (0.4321, 1.000e-02, 1200): an integer mantissa of at
  // most 18 digits scaled by a power of ten. Not correctly rounded in the last bit, which no
  // detector can notice; anything longer or odder goes to from_chars.
  {
    // Every digit is read (the mantissa wraps past 19 digits, but then from_chars reads it again).
    const char* r = q;
    std::uint64_t mant = 0;
    while (r < end && IsDigit(*r)) mant = mant * 10 + static_cast<unsigned>(*r++ - '0');
    int digits = static_cast<int>(r - q), frac = 0;
    if (r < end && *r == '.') {
      const char* f = ++r;
      while (r < end && IsDigit(*r)) mant = mant * 10 + static_cast<unsigned>(*r++ - '0');
      frac = static_cast<int>(r - f);
      digits += frac;
    }
    int exp10 = -frac;
    bool simple = digits > 0 && digits < 19;
    if (simple && r < end && (*r == 'e' || *r == 'E')) {
      const char* e = r + 1;
      bool eneg = false;
      if (e < end && (*e == '-' || *e == '+')) { eneg = *e == '-'; ++e; }
      int ev = 0, ed = 0;
      while (e < end && Class(*e) == kDigit && ed < 4) { ev = ev * 10 + (*e - '0'); ++e; ++ed; }
      if (ed == 0 || ed == 4) simple = false;
      else { exp10 += eneg ? -ev : ev; r = e; }
    }
    if (simple && exp10 >= -22 && exp10 <= 22) {
      *v = ScaledMantissa(mant, exp10, neg);  // as the layout replay computes it (Note: [Fixed layouts])
      return r;
    }
  }
  auto res = std::from_chars(q, end, x, std::chars_format::general);
  if (res.ec != std::errc()) {
    // Out of range (1e999): an overflowing float is what the program meant.
    if (res.ec == std::errc::result_out_of_range) {
      x = std::numeric_limits<double>::infinity();
    } else {
      return nullptr;
    }
  }
  *v = neg ? -x : x;
  return res.ptr;
}

// Reads an integer as std::from_chars does (an optional '-', then digits; none, or too large for a
// long long, reads nothing). Returns the end or nullptr. Up to 18 digits without from_chars.
const char* ReadInt(const char* p, const char* end, long long* v) {
  const char* r = p;
  long long x = 0;
  while (r < end && IsDigit(*r) && r - p < 18) x = x * 10 + (*r++ - '0');
  if (r > p && !(r < end && IsDigit(*r))) {
    *v = x;
    return r;
  }
  auto res = std::from_chars(p, end, *v);
  return res.ec == std::errc() ? res.ptr : nullptr;
}

// Reads a memory unit after a value; returns the factor to MB (1 when there is no unit) and moves p.
double MemoryUnit(const char** pp, const char* end, double value) {
  const char* p = *pp;
  if (p < end && *p == ' ') ++p;
  struct Unit { const char* name; double mb; };
  // Decimal and binary units are treated alike: detectors look at ratios, not at exact sizes.
  // "Gi", "Mi", "Ki": procps' `free -h` and `top` (Note: [System tool tables]).
  static constexpr Unit kUnits[] = {{"gib", 1024}, {"mib", 1}, {"kib", 1.0 / 1024}, {"gb", 1024},
                                    {"mb", 1},     {"kb", 1.0 / 1024}, {"gi", 1024}, {"mi", 1},
                                    {"ki", 1.0 / 1024}, {"g", 1024},  {"m", 1},
                                    {"k", 1.0 / 1024}, {"b", 1.0 / 1048576}};
  for (const Unit& u : kUnits) {
    size_t n = std::strlen(u.name);
    if (EqualsNoCase(p, end, u.name) && (p + n == end || Class(p[n]) != kAlpha)) {
      *pp = p + n;
      return u.mb;
    }
  }
  // No unit: a raw byte count (torch.cuda.memory_allocated()) is large; MB otherwise.
  return value >= 1e7 ? 1.0 / 1048576 : 1.0;
}

struct Found {
  int code;
  double value;
};

}  // namespace

namespace metrics_internal {

// What the scan of one line found: the first value of each series (in the order printed), and the
// axes.
struct LineValues {
  Found found[16];
  int nfound = 0;
  bool have[kSeriesCount] = {};
  double step = std::numeric_limits<double>::quiet_NaN();
  double epoch = std::numeric_limits<double>::quiet_NaN();
  long long bar_n = -1, bar_total = -1;  // a tqdm counter "| n/total ["
  bool bar_rate = false;  // the line holds a tqdm rate ("it/s", "s/it"): a bar's postfix, maybe wrapped off its bar
};

}  // namespace metrics_internal

namespace {

using metrics_internal::LineValues;

// Reads the value of a name of key `code` whose number starts at q (past the separator and any
// "tensor("): a step or an epoch (with what follows them: "/total", mmcv's "][i/n]") sets the line's
// axes; a series value is added to *lv when `keep`. Returns where the reading ended, or null when q
// holds no value of this name. The full scan and the shape replay both read values through here.
const char* ReadValue(int code, const char* q, const char* end, bool keep, LineValues* lv) {
  double v = 0;
  const char* after = ReadNumber(q, end, &v);
  if (!after) return nullptr;
  if (IsMemoryCode(code)) {
    v *= MemoryUnit(&after, end, v);
  } else if (after < end && Class(*after) == kAlpha) {
    return nullptr;  // "20.1it/s", "3rd": not a value of this name
  }
  const char* p = after;
  if (code == kKeyStep) {
    lv->step = v;
    if (p < end && *p == '/') {  // "step 1200/5000": skip the total
      long long total = 0;
      if (const char* r = ReadInt(p + 1, end, &total)) p = r;
    }
  } else if (code == kKeyEpoch) {
    lv->epoch = v;
    if (p < end && *p == '/') {  // "Epoch 3/100"
      long long total = 0;
      if (const char* r = ReadInt(p + 1, end, &total)) p = r;
    } else if (p + 1 < end && p[0] == ']' && p[1] == '[') {  // mmcv "Epoch [1][50/1000]"
      long long i = 0, total = 0;
      const char* digits = p + 2;
      while (digits < end && *digits == ' ') ++digits;  // MMEngine's "[1][ 100/391]" (Note: [MMEngine's axis])
      const char* r = ReadInt(digits, end, &i);
      if (r && r < end && *r == '/' && (r = ReadInt(r + 1, end, &total)) != nullptr && total > 0) {
        lv->step = (v - 1) * static_cast<double>(total) + static_cast<double>(i);
        p = r;
      }
    }
  } else if (keep) {
    // Note: [Counted accuracy]. An accuracy printed as a count of the whole, "Accuracy: 980/10000
    // (10%)" (PyTorch's MNIST example and the scripts copied from it), is that fraction: the count
    // alone would read as an accuracy of 980.
    if ((code == S(SeriesId::kAcc) || code == S(SeriesId::kValAcc)) && p < end && *p == '/') {
      long long total = 0;
      const char* r = ReadInt(p + 1, end, &total);
      if (r && total > 0 && v >= 0 && v <= static_cast<double>(total)) {
        v /= static_cast<double>(total);
        p = r;
      }
    }
    lv->have[code] = true;
    lv->found[lv->nfound++] = {code, v};
  }
  return p;
}

// Note: [One-element loss tensors]. A loss kept with a dimension of one (a sum over a [N, 1] output, a
// loss averaged over dim 0, a criterion with reduction='none' on one sample) prints as a list of one
// number inside the tensor: "Loss:  tensor([4152.4517], device='cuda:0', grad_fn=<NegBackward0>)"
// (nlesc-dirac/pytorch#4's optimizer loop). `q` is the first byte after "tensor("; where a bracket
// holds exactly one number the value is read inside it. A list of several numbers (DataParallel's
// gathered per-device losses, "tensor([0.51, 0.49], ...)", a vector of per-item values) is not one
// loss and stays unread, as before.
const char* AfterTensorOpen(const char* q, const char* end) {
  if (q >= end || *q != '[') return q;
  double v = 0;
  const char* r = ReadNumber(q + 1, end, &v);
  return r && r < end && *r == ']' ? q + 1 : q;
}

// Note: [Indices before a value]. A name followed by a bracketed list of integers is labelled with
// indices, and its value comes after them: "Loss [1, 100](epoch, minibatch):  9.6596" (a notebook's
// print of epoch and minibatch, then the loss), which was read as a loss of 1, the epoch. Integers with
// a comma between them are indices, never a loss, an accuracy or a rate: a list of learning rates,
// "lr: [0.001, 0.0001]" (one per parameter group), holds fractions and is read as before, and so is a
// one-element list. `q` is the first byte inside the opening bracket, `close` the bracket that ends it.
// Returns where the value after the list starts (past a parenthesised list of words that names the
// indices, and the separator), or null when [q, end) does not start with such a list.
const char* AfterIndexList(const char* q, const char* end, char close) {
  const char* r = q;
  int items = 0;
  for (;;) {
    const char* digits = r;
    while (r < end && Class(*r) == kDigit) ++r;
    if (r == digits) return nullptr;
    ++items;
    while (r < end && *r == ' ') ++r;
    if (r < end && *r == ',') {
      ++r;
      while (r < end && *r == ' ') ++r;
      continue;
    }
    break;
  }
  if (items < 2 || r >= end || *r != close) return nullptr;
  ++r;
  if (r < end && *r == '(') {  // "(epoch, minibatch)"
    const char* s = r + 1;
    while (s < end && (Class(*s) == kAlpha || *s == ',' || *s == ' ')) ++s;
    if (s < end && *s == ')') r = s + 1;
  }
  while (r < end && (*r == ' ' || *r == ':' || *r == '=')) ++r;
  return r;
}

// The first of `words` that [r, end) starts with, any case, followed by a blank: where the next word
// starts (past the blanks), or null.
const char* AfterLeadWord(const char* r, const char* end, std::initializer_list<const char*> words) {
  for (const char* w : words) {
    const size_t n = std::strlen(w);
    if (static_cast<size_t>(end - r) > n && EqualsNoCase(r, r + n, w) && r[n] == ' ') {
      r += n;
      while (r < end && *r == ' ') ++r;
      return r;
    }
  }
  return nullptr;
}

// Whether [w, e) is one of `words`, any case.
bool IsWordOf(const char* w, const char* e, std::initializer_list<const char*> words) {
  for (const char* x : words) {
    if (static_cast<size_t>(e - w) == std::strlen(x) && EqualsNoCase(w, e, x)) return true;
  }
  return false;
}

// Past the blanks, a ':' or '=' and the blanks after it; null when no such separator follows.
const char* AfterValueSeparator(const char* r, const char* end) {
  while (r < end && *r == ' ') ++r;
  if (r >= end || (*r != ':' && *r != '=')) return nullptr;
  ++r;
  while (r < end && *r == ' ') ++r;
  return r;
}

// Note: [What a value was averaged over]. A mean printed with what it was taken over between the name
// and the value, "Mean test loss of 296 batches: 4.1062", "Average loss over 100 steps = 2.31" (the
// evaluation line of ST-GCN and the skeleton-action scripts written after it, and hand-written loops):
// `q` is past the name and a blank. Returns where the value starts (past the separator after the
// phrase), or null when [q, end) does not start with "of" or "over", a count, a word and ':' or '='.
const char* AfterCountPhrase(const char* q, const char* end) {
  const char* r = AfterLeadWord(q, end, {"of", "over"});
  if (!r) return nullptr;
  const char* digits = r;
  while (r < end && Class(*r) == kDigit) ++r;
  if (r == digits || r >= end || *r != ' ') return nullptr;
  while (r < end && *r == ' ') ++r;
  const char* word = r;
  while (r < end && Class(*r) == kAlpha) ++r;
  if (r == word) return nullptr;
  return AfterValueSeparator(r, end);
}

// Note: [Qualified names]. A name followed by a word in parentheses that says what its value was taken
// over, "loss (batch)=-9.27e+5" (Pytorch-UNet's tqdm postfix, set_postfix(**{'loss (batch)': ...}), kept in
// its many copies), "loss (avg): 0.31", is that name's value. An evaluation split's name in parentheses
// says whose value it is: "Average Loss (valid) 0.0032" beside "Average Loss (train) 0.0047" (ViTPose's
// epoch summaries, wild vitpose-layer-decay-lr-to-zero) is the validation loss; left unread before, the
// run's validation series was lost. `q` is the first byte inside the parenthesis. Returns where the value
// starts (past ')' and the separator), or null when the word is not one of these qualifiers; *evaluation
// says whether it was a split's name (IsEvaluationWord).
bool IsEvaluationWord(const char* w, size_t n);
const char* AfterQualifier(const char* q, const char* end, bool* evaluation) {
  const char* r = q;
  while (r < end && Class(*r) == kAlpha) ++r;
  if (r >= end || *r != ')') return nullptr;
  *evaluation = IsEvaluationWord(q, static_cast<size_t>(r - q));
  if (!*evaluation &&
      !IsWordOf(q, r, {"batch", "step", "iter", "epoch", "avg", "average", "mean", "running", "ema", "total", "train"})) {
    return nullptr;
  }
  ++r;
  while (r < end && (*r == ' ' || *r == ':' || *r == '=')) ++r;
  return r;
}

// Note: [Step named before the value]. The step or epoch a value belongs to, named between the name and
// the value: "loss for step: 622 = [-0.9068]" (brain-segmentation-pytorch's print of a one-element
// list), "Loss at step 100: 0.53", "loss at epoch 3 = 0.41". `q` is past the name and a blank. Returns
// where the value starts (past the number, the separator and an opening bracket), or null when [q, end)
// does not start with "for" or "at", an axis word (step, epoch, iter, iteration, batch), an optional ':',
// a whole number and ':' or '='. The number is not read as the point's step.
const char* AfterStepPhrase(const char* q, const char* end) {
  const char* r = AfterLeadWord(q, end, {"for", "at"});
  if (!r) return nullptr;
  const char* word = r;
  while (r < end && Class(*r) == kAlpha) ++r;
  if (!IsWordOf(word, r, {"step", "epoch", "iter", "iteration", "batch"})) return nullptr;
  if (r < end && *r == ':') ++r;
  while (r < end && *r == ' ') ++r;
  const char* digits = r;
  while (r < end && Class(*r) == kDigit) ++r;
  if (r == digits || !(r = AfterValueSeparator(r, end))) return nullptr;
  while (r < end && (*r == '[' || *r == ' ')) ++r;
  return r;
}

// Whether the word at w opens a field set off by '|' (blanks between): Note: [Evaluation fields].
bool AfterFieldBar(const char* begin, const char* w) {
  const char* b = w;
  while (b > begin && b[-1] == ' ') --b;
  return b > begin && b[-1] == '|';
}

// Whether a number (after blanks and a ':' or '=') follows p: "val 2.28", "test: 0.5".
bool NumberFollows(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == ':' || *p == '=')) ++p;
  return p < end && (Class(*p) == kDigit || *p == '-' || *p == '.');
}

// Note: [Loss terms under a heading]. Some detectors print their loss as a heading followed by its terms and
// their sum, with no value after the heading itself: the 2018 PyTorch-YOLOv3 ("[Losses: x 0.05, y 0.04, w 0.2,
// h 0.1, conf 0.7, cls 0.3, total 1.4]") and pytorch-yolo2's region loss, copied by the YOLOv2/v3 ports and the
// few-shot detectors built on it ("nGT 39, recall 0, proposals 0, loss: x 1692.9, y 1690.9, w nan, h nan, conf
// nan, cls nan, total nan"). The terms' names are no series names, and "total" alone is a word left unread
// (kKeyIgnore: "total time", "total images"), so such a line gave no loss at all and a run whose total had
// turned nan showed no incident. Where a loss name is followed, after its ':' or blanks, by a term (a short
// word and then a number) instead of a value, the line's "total" that comes after it is read as that loss. A
// line without the heading leaves "total" unread, as before.
bool TermFollows(const char* p, const char* end) {
  while (p < end && *p == ' ') ++p;
  const char* w = p;
  while (p < end && p - w <= 16 && (Class(*p) == kAlpha)) ++p;
  if (p == w || p - w > 16 || (p < end && Class(*p) == kDigit)) return false;
  while (p < end && (*p == ' ' || *p == ':' || *p == '=')) ++p;
  if (p >= end) return false;
  if (Class(*p) == kDigit || *p == '-' || *p == '.') return true;
  return end - p >= 3 && (EqualsNoCase(p, p + 3, "nan") || EqualsNoCase(p, p + 3, "inf"));
}

// Whether the lower-cased word [w, w + n) names the training split (train, training, tr, trn): the first half
// of a two-word name that is the training's whatever line it is on (Note: [Summing words on an evaluation line]).
bool IsTrainingWord(const char* w, size_t n) {
  static constexpr const char* kWords[] = {"train", "training", "tr", "trn"};
  for (const char* word : kWords) {
    if (std::strlen(word) == n && std::memcmp(w, word, n) == 0) return true;
  }
  return false;
}

bool EndsLogHeader(const char* begin, const char* b);

// Note: [Marked evaluation lines]. Two layouts mark an evaluation's line around its first word instead of
// with a first word of its own: MMEngine's "Epoch(val) [1][10/10]    accuracy/top1: 32.1000" (and
// "Iter(val)", "Epoch(test)": the split in brackets right after the axis's word, behind the logger's
// header), and the ImageNet example's
// summary " * Acc@1 75.210 Acc@5 92.350", which DeiT and the codebases after it print with the loss,
// "* Acc@1 81.8 Acc@5 95.6 loss 0.801" (a '*' bullet before a top-1 accuracy). Read before as the
// training accuracy and loss, between the training lines'. `w` is a word of the line, ending at p.
bool EvaluationMarked(const char* begin, const char* w, size_t wn, const char* p, const char* end) {
  const bool axis_word = (wn == 5 && EqualsNoCase(w, w + 5, "epoch")) || (wn == 4 && EqualsNoCase(w, w + 4, "iter")) ||
                         (wn == 4 && EqualsNoCase(w, w + 4, "step"));
  if (axis_word && p < end && *p == '(') {
    const char* split = p + 1;
    const char* r = split;
    while (r < end && Class(*r) == kAlpha) ++r;
    if (r < end && *r == ')' && IsEvaluationWord(split, static_cast<size_t>(r - split))) return true;
  }
  if (wn == 5 && EqualsNoCase(w, w + 5, "acc@1")) {
    const char* b = w;
    while (b > begin && b[-1] == ' ') --b;
    if (b > begin && b[-1] == '*') {
      --b;
      while (b > begin && (b[-1] == ' ' || b[-1] == '\t')) --b;
      return b == begin || EndsLogHeader(begin, b);
    }
  }
  return false;
}

// Whether the text [begin, b) ends as a logger's header does, so that a '*' bullet after it starts the
// message (Note: [Marked evaluation lines]): with ':', ']', ')', '|' or '-' (Swin's "[2021-04-13 15:11:39
// swin_tiny](main.py 279): INFO  * Acc@1 81.172", "... - INFO - * Acc@1"), or with a level's name in
// capitals (INFO, DEBUG, WARNING, WARN). A number or a word in small letters before the '*' ("step 3 *
// Acc@1 12.5") is no header.
bool EndsLogHeader(const char* begin, const char* b) {
  if (b == begin) return false;
  const char c = b[-1];
  if (c == ':' || c == ']' || c == ')' || c == '|' || c == '-') return true;
  const char* w = b;
  while (w > begin && w[-1] >= 'A' && w[-1] <= 'Z') --w;
  if (w > begin && Class(w[-1]) & (kAlpha | kDigit)) return false;
  const std::string_view level(w, static_cast<size_t>(b - w));
  return level == "INFO" || level == "DEBUG" || level == "WARNING" || level == "WARN";
}

// Note: [Summary lines]. ST-GCN's evaluation (and the skeleton-action codebases written after it) prints
// its accuracies as lines of their own after the mean test loss, "\tTop1: 88.36%" and "\tTop5: 98.12%"
// (behind its "[05.18.19|11:00:00] " time when it prints one). A top-1 accuracy that is the line's only
// value, nothing but a '%' and blanks after its number, is such a summary and the evaluation's: read
// before as nothing at all ("top1" was no name), so a run whose validation accuracy sat at chance level
// showed no accuracy. "top1" with other values on its line is the accuracy of that line's context, as
// "acc" is. `q` is where the value starts.
bool AloneOnItsLine(const char* q, const char* end) {
  double v = 0;
  const char* r = ReadNumber(q, end, &v);
  if (!r) return false;
  if (r < end && *r == '%') ++r;
  while (r < end && (*r == ' ' || *r == '\t' || *r == '\r')) ++r;
  return r == end;
}

// Note: [Value before the name]. Memory is also printed with its figure first: nanoGPT's memmap
// report "using 0.2GB of RSS RAM after 8 batches", and "1.5 GB RSS" or "3.2 GiB of VRAM" in
// hand-written loops. A memory name with no value after it takes the number and unit right before it
// (a blank, or " of ", between them): the unit must be one of two or three letters (GB, MiB, ...) or
// G, so that a count ("8 RSS") or minutes ("5 m") is not read as memory. `w` is the name's first
// byte. Returns the value in MB, or NaN when none is there.
double MemoryBeforeName(const char* begin, const char* w) {
  const double none = std::numeric_limits<double>::quiet_NaN();
  const char* b = w;
  if (b == begin || b[-1] != ' ') return none;
  --b;
  if (b - begin >= 3 && b[-1] == 'f' && b[-2] == 'o' && b[-3] == ' ') b -= 3;  // " of "
  const char* unit_end = b;
  while (b > begin && Class(b[-1]) == kAlpha && unit_end - b < 4) --b;
  const size_t unit_n = static_cast<size_t>(unit_end - b);
  if (unit_n == 0 || unit_n > 3 || (unit_n == 1 && *b != 'G')) return none;
  if (b > begin && b[-1] == ' ') --b;  // "0.2 GB" as well as "0.2GB"
  const char* num_end = b;
  while (b > begin && (Class(b[-1]) == kDigit || b[-1] == '.')) --b;
  if (b == num_end || (b > begin && Class(b[-1]) & (kAlpha | kDigit))) return none;
  double v = 0;
  const char* r = ReadNumber(b, num_end, &v);
  if (r != num_end) return none;
  const char* u = r;
  const double mb = MemoryUnit(&u, unit_end, v);
  if (u != unit_end) return none;
  return v * mb;
}

// Note: [Time before the first word]. The first word of a line decides whether its bare names are an
// evaluation's (Note: [Evaluation lines]). A program that prints its own time in front of each message
// with nothing between them (layumi/Person_reID_baseline_pytorch's train.py and the scripts copied from
// it print "00:44:04val Loss: 0.0100 Acc: 0.0000" and "00:43:58train Loss: ...") glues the split's word to
// the time's last digit, where no word starts (Note: [Metric scan]: a word starts with a letter after no
// letter or digit): the first word visited was "Loss", and the evaluation's loss and accuracy were read
// as the training's, between the training lines' values. So a line that opens with a time (digits,
// blanks, brackets and the separators : - . / , with at least one separator) whose last digit an
// evaluation word follows is an evaluation's line, as one whose first word is that word. A name glued
// to the time ("00:44:04val_loss: 0.01") is still not read: no word starts there.
bool GluedToTime(const char* begin, const char* end) {
  if (end - begin > 40) end = begin + 40;  // a time and a date fit; a row of numbers is not read through
  const char* t = begin;
  bool separator = false;
  while (t < end && (IsDigit(*t) || *t == ' ' || *t == '\t' || *t == '[' || *t == ']' || *t == ':' || *t == '-' ||
                     *t == '.' || *t == '/' || *t == ',')) {
    separator = separator || *t == ':' || *t == '-' || *t == '.' || *t == '/' || *t == ',';
    ++t;
  }
  if (!separator || t == begin || t >= end || !IsDigit(t[-1]) || Class(*t) != kAlpha) return false;
  const char* a = t;
  while (a < end && Class(*a) == kAlpha) ++a;
  return IsEvaluationWord(t, static_cast<size_t>(a - t));
}

// Whether the word [w, w + n) opens an evaluation's line (Note: [Evaluation lines]): val, valid,
// validation, eval, evaluation, test, testing, dev, any case.
bool IsEvaluationWord(const char* w, size_t n) {
  static constexpr const char* kWords[] = {"val", "valid", "validation", "eval", "evaluation", "test", "testing", "dev"};
  if (n < 3 || n > 10) return false;
  for (const char* word : kWords) {
    if (std::strlen(word) == n && EqualsNoCase(w, w + n, word)) return true;
  }
  return false;
}

// Note: [Bare split names]. PyTorch Geometric's examples, and the many scripts written after them, print
// each split's accuracy under the split's bare name: "Epoch: 001, Loss: 1.9463, Train: 0.2143, Val: 0.2040,
// Test: 0.2180" (node classification), "Epoch: 010, Loss: 0.5, Train: 0.7, Test: 0.65" (graph
// classification). A bare "val" may as well be a validation loss ("step 25 | loss 2.26 | val 2.28"), so
// the bare names are read only in those two layouts: "Train", "Val" (or "Valid", "Validation") and
// "Test" each followed by ':' and a number from 0 to 1 on one line, or "Train" and "Test" so after a
// loss the line named. The three splits hold no series name's fragment (Note: [Name fragments]), so a
// line of them alone ("Epoch: 010, Train: 0.91, Val: 0.85, Test: 0.84", its loss printed elsewhere) is
// scanned when it starts as PyG's do (BareSplitLine). Train's is then the training accuracy, Val's the validation accuracy, and Test's
// too where no Val precedes it (test_acc's alias). Returns which of the three the line holds so: bit 0
// train, bit 1 val, bit 2 test.
int BareSplits(const char* begin, const char* end) {
  int mask = 0;
  for (const char* p = begin; p < end; ++p) {
    if (Class(*p) != kAlpha || (p > begin && (Class(p[-1]) == kAlpha || Class(p[-1]) == kDigit))) continue;
    const char* w = p;
    while (p < end && Class(*p) == kAlpha) ++p;
    const size_t n = static_cast<size_t>(p - w);
    int bit = 0;
    if (n == 5 && EqualsNoCase(w, p, "train")) bit = 1;
    else if ((n == 3 && EqualsNoCase(w, p, "val")) || (n == 5 && EqualsNoCase(w, p, "valid")) ||
             (n == 10 && EqualsNoCase(w, p, "validation"))) bit = 2;
    else if (n == 4 && EqualsNoCase(w, p, "test")) bit = 4;
    if (!bit || p >= end || *p != ':') continue;
    const char* q = p + 1;
    while (q < end && *q == ' ') ++q;
    double v = 0;
    const char* r = ReadNumber(q, end, &v);
    if (!r || !(v >= 0 && v <= 1) || (r < end && Class(*r) == kAlpha)) continue;
    mask |= bit;
    p = r;
  }
  return mask;
}

// Note: [Bar before a line]. A tqdm bar that was never ended with a newline leaves its last state in
// front of the next line the program prints ("  3%|▎   | 3/100 [00:01<00:30,  3.20it/s]5000  5% (0m12s)
// 2.9460 ..."), as the segmenter knows (Note: [Text after a progress bar] in formats/text.h). The
// readers of a line's first column (tutorial layouts, epoch tables, CSV rows, a log record's header)
// would miss such a line, and the bar's counter would be taken as the step of the names after it, so
// the two are read as two lines of the same number: the bar up to its closing ']', then the rest. A
// bar is `DESC: PCT%|BAR| N/TOTAL [ELAPSED<LEFT, RATE, ...]` with "it/s" or "s/it" in its brackets;
// every line that no recent shape replays is asked, so the test is cheap: a bar without a description
// has its '%' at the fourth byte (tqdm pads the percentage to three columns: "  3%|", "100%|"); only a
// line that starts with a letter (a description, "Epoch 1: 100%|") has its first kBarSearch bytes
// searched for the '%', so a bar after other text, or after a longer description, is not seen (on text
// without metrics, lines that start with a digit or a blank pay one comparison: tests/bench/README.md).
// Returns the bar's length, or 0 where the line starts with no bar or nothing but blanks follows it.
constexpr size_t kBarSearch = 64;

size_t GluedBarLength(std::string_view t) {
  if (t.size() < 8) return 0;
  const char* const begin = t.data();
  const char* const end = begin + t.size();
  const char* pct = nullptr;
  if (t[3] == '%') pct = begin + 3;
  else if (Class(t[0]) == kAlpha) pct = static_cast<const char*>(std::memchr(begin, '%', std::min(t.size(), kBarSearch)));
  if (!pct || pct + 1 >= end || pct[1] != '|') return 0;
  const char* open = static_cast<const char*>(std::memchr(pct, '[', static_cast<size_t>(end - pct)));
  if (!open) return 0;
  const char* close = static_cast<const char*>(std::memchr(open, ']', static_cast<size_t>(end - open)));
  if (!close) return 0;
  const std::string_view inside(open, static_cast<size_t>(close - open));
  if (inside.find("it/s") == std::string_view::npos && inside.find("s/it") == std::string_view::npos) return 0;
  for (const char* r = close + 1; r < end; ++r) {
    if (*r != ' ' && *r != '\t') return static_cast<size_t>(close + 1 - begin);
  }
  return 0;
}

// Whether a line that holds no series name's fragment is one of PyG's bare split lines all the same
// ("Epoch: 010, Train: 0.91, Val: 0.85, Test: 0.84", "Train: 0.91, Val: ..."): asked only of a line that
// starts with an 'E' or a 'T' (either case; kMayStartBare of the first byte's lookup, which other text
// without names pays as one test of a bit), it holds all three splits.
bool BareSplitLine(std::string_view t) { return (BareSplits(t.data(), t.data() + t.size()) & 7) == 7; }

// The epoch a line announces when it opens with the word "epoch" (any case), or with one other word
// and then it, and a number, blanks, ':' or '[' between ("Epoch 2/6", Keras' header; "epoch:  1";
// "Epoch [3/10]"; "Training epoch: 9", "Eval epoch: 9"), or NaN. Such a line most often holds no series
// name, so the marks drop it before it is read, yet it begins an epoch (Note: [Evaluations across
// epochs]). A first word "best" announces no epoch: it names the best one so far. Asked only of lines
// that start with a letter.
double EpochHeaderValue(std::string_view t) {
  const double none = std::numeric_limits<double>::quiet_NaN();
  static constexpr char kWord[] = "epoch";
  auto is_epoch = [&](size_t at) {
    if (t.size() < at + 6) return false;
    for (size_t k = 0; k < 5; ++k) {
      if ((t[at + k] | 0x20) != kWord[k]) return false;
    }
    return true;
  };
  size_t i = 0;
  if (!is_epoch(0)) {
    // One word of at most 12 letters, one blank, then "epoch".
    while (i < t.size() && i <= 12 && Class(t[i]) == kAlpha) ++i;
    if (i == 0 || i > 12 || i >= t.size() || t[i] != ' ') return none;
    if (i == 4 && (t[0] | 0x20) == 'b' && (t[1] | 0x20) == 'e' && (t[2] | 0x20) == 's' && (t[3] | 0x20) == 't') {
      return none;
    }
    ++i;
    if (!is_epoch(i)) return none;
  }
  i += 5;
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t' || t[i] == ':' || t[i] == '[')) ++i;
  if (i == t.size() || !IsDigit(t[i])) return none;
  double v = 0;
  for (int digits = 0; i < t.size() && IsDigit(t[i]); ++i) {
    if (++digits > 9) return none;
    v = v * 10 + (t[i] - '0');
  }
  return v;
}

// Whether a line holds a tqdm bar's postfix away from its counter: the bar's rate ("12.3it/s",
// "1.5s/it"), after which the postfix keeps the last values on screen, or the postfix's closing ']'
// with no '[' on the line, where a paste wrapped the bar at 80 columns (Note: [Evaluations across
// epochs]).
bool HasBarRate(std::string_view t) {
  if (t.find("it/s") != std::string_view::npos || t.find("s/it") != std::string_view::npos) return true;
  size_t last = t.find_last_not_of(" \t");
  return last != std::string_view::npos && t[last] == ']' && t.find('[') == std::string_view::npos;
}

// Whether a line's values include a validation value (IsEvaluation).
bool HasEvaluation(const LineValues& lv) {
  return lv.have[S(SeriesId::kValLoss)] || lv.have[S(SeriesId::kValAcc)] || lv.have[S(SeriesId::kF1)];
}

// Reads a tqdm counter at p, just past a '|' and known to hold " <digit>": "| 32/500 [00:01<...",
// the bar's counter being the step within the bar. Returns its end, or null when it is none.
const char* ReadBar(const char* p, const char* end, LineValues* lv) {
  long long n = 0, total = 0;
  const char* q = ReadInt(p + 1, end, &n);
  if (q && q < end && *q == '/') {
    const char* r = ReadInt(q + 1, end, &total);
    if (r && r + 1 < end && r[0] == ' ' && r[1] == '[') {
      lv->bar_n = n;
      lv->bar_total = total;
      return r;
    }
  }
  return nullptr;
}

// Note: [Metric scan]
// Metric extraction reads every line, so it must not cost much per byte. ScanLines marks, 64 bytes per
// word of bits, where a segment ends ('\n', and '\r' of a redrawn progress bar), so lines are split
// without a search per line; marked at their first need, as the starts below, and not at all where
// the lines replayed in the loop lie (Note: [Replay in the loop]). Where a segment needs a full scan (no recent shape fits it, Note: [Line
// shapes]), the words of bits it lies in are marked, once, with where something can begin: a word
// start (a letter or '_' not preceded by a letter, digit or '_') and '|' (a tqdm counter). ScanSegment
// visits only those bytes, so the digits, blanks and punctuation that make up most of a progress line
// cost no per-byte branch; and a line a shape replays costs no word marks at all. A word start at a
// segment's first byte is marked because '\n' and '\r' are not word bytes, so the bits of a whole
// buffer are the bits of each of its segments, and a range of words is marked as it would be in a
// pass over the whole buffer (its first word from the byte before it). The AVX2 and the portable
// implementation give the same bits.
inline bool WordByte(char c) { return Class(c) & (kAlpha | kDigit); }

// The words [first, last) of ends for p[0, n).
void MarkEndsPortable(const char* p, size_t n, size_t first, size_t last, std::uint64_t* ends) {
  std::fill(ends + first, ends + last, 0);
  for (size_t i = 64 * first; i < std::min(n, 64 * last); ++i) {
    if (p[i] == '\n' || p[i] == '\r') ends[i / 64] |= std::uint64_t{1} << (i % 64);
  }
}

// Word starts and bars of the words [first, last) of bits (bytes 64 * first up to 64 * last or n).
void MarkStartsPortable(const char* p, size_t n, size_t first, size_t last, std::uint64_t* bits) {
  std::fill(bits + first, bits + last, 0);
  const size_t from = 64 * first, to = std::min(n, 64 * last);
  bool prev_word = from > 0 && WordByte(p[from - 1]);
  for (size_t i = from; i < to; ++i) {
    unsigned char c = Class(p[i]);
    if ((c == kAlpha && !prev_word) || p[i] == '|') bits[i / 64] |= std::uint64_t{1} << (i % 64);
    prev_word = c & (kAlpha | kDigit);
  }
}

#ifdef TRIAGE_AVX2
__attribute__((target("avx2"))) std::uint32_t InRange(__m256i v, char lo, char hi) {
  // Unsigned lo <= v <= hi, one bit per byte.
  const __m256i ge = _mm256_cmpeq_epi8(_mm256_max_epu8(v, _mm256_set1_epi8(lo)), v);
  const __m256i le = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(hi)), v);
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_and_si256(ge, le)));
}

__attribute__((target("avx2"))) std::uint32_t Equal(__m256i v, char c) {
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(c))));
}

// The word starts and bars of one block of 64 bytes. *carry is whether the byte before is a word byte,
// and becomes whether the block's last byte is one.
__attribute__((target("avx2"))) std::uint64_t StartsBlockAvx2(const char* p, std::uint64_t* carry) {
  std::uint64_t alpha = 0, word = 0, bar = 0;
  for (int half = 0; half < 2; ++half) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * half));
    const std::uint64_t letter = InRange(_mm256_or_si256(v, _mm256_set1_epi8(0x20)), 'a', 'z') | Equal(v, '_');
    const std::uint64_t digit = InRange(v, '0', '9');
    alpha |= letter << (32 * half);
    word |= (letter | digit) << (32 * half);
    bar |= std::uint64_t{Equal(v, '|')} << (32 * half);
  }
  const std::uint64_t bits = (alpha & ~(word << 1 | *carry)) | bar;
  *carry = word >> 63;
  return bits;
}

__attribute__((target("avx2"))) void MarkStartsAvx2(const char* p, size_t n, size_t first, size_t last,
                                                    std::uint64_t* bits) {
  std::uint64_t carry = first > 0 && WordByte(p[64 * first - 1]);
  for (size_t w = first; w < last; ++w) {
    if (64 * w + 64 <= n) {
      bits[w] = StartsBlockAvx2(p + 64 * w, &carry);
    } else {
      // The last bytes through a zero-padded copy: a NUL is no candidate and no word byte.
      char tail[64] = {};
      std::memcpy(tail, p + 64 * w, n - 64 * w);
      bits[w] = StartsBlockAvx2(tail, &carry);
    }
  }
}

// The segment ends ('\n', '\r') of one block of 64 bytes.
__attribute__((target("avx2"))) inline std::uint64_t EndsBlockAvx2(const char* p) {
  std::uint64_t end = 0;
  for (int half = 0; half < 2; ++half) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32 * half));
    const __m256i hit = _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n')),
                                        _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\r')));
    end |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(hit))} << (32 * half);
  }
  return end;
}

// The words [first, last) of ends for p[0, n).
__attribute__((target("avx2"))) void MarkEndsAvx2(const char* p, size_t n, size_t first, size_t last,
                                                  std::uint64_t* ends) {
  size_t w = first;
  for (const size_t whole = std::min(last, n / 64); w < whole; ++w) ends[w] = EndsBlockAvx2(p + 64 * w);
  if (w < last) {  // the last bytes, through a zero-padded copy
    char tail[64] = {};
    std::memcpy(tail, p + 64 * w, n - 64 * w);
    ends[w] = EndsBlockAvx2(tail);
  }
}
#endif

// Fills the words [first, last) of ends for p[0, n) (last <= (n + 63) / 64).
void MarkEnds(const char* p, size_t n, size_t first, size_t last, std::uint64_t* ends, bool portable = false) {
#ifdef TRIAGE_AVX2
  if (CpuHasAvx2() && !portable) return MarkEndsAvx2(p, n, first, last, ends);
#endif
  MarkEndsPortable(p, n, first, last, ends);
}

// Fills the words [first, last) of bits for p[0, n) (last <= (n + 63) / 64).
void MarkStarts(const char* p, size_t n, size_t first, size_t last, std::uint64_t* bits, bool portable = false) {
#ifdef TRIAGE_AVX2
  if (CpuHasAvx2() && !portable) return MarkStartsAvx2(p, n, first, last, bits);
#endif
  MarkStartsPortable(p, n, first, last, bits);
}

// The set bits of a bit array in [from, to), in order: while (c.Next(&at)) ...
class BitCursor {
 public:
  BitCursor(const std::uint64_t* bits, size_t from, size_t to) : bits_(bits), word_(from / 64), to_(to) {
    cur_ = from < to ? bits[word_] & (~std::uint64_t{0} << (from % 64)) : 0;
  }
  bool Next(size_t* at) {
    while (!cur_) {
      if (++word_ * 64 >= to_) return false;
      cur_ = bits_[word_];
    }
    *at = word_ * 64 + static_cast<size_t>(__builtin_ctzll(cur_));
    cur_ &= cur_ - 1;
    return *at < to_;
  }

 private:
  const std::uint64_t* bits_;
  size_t word_, to_;
  std::uint64_t cur_;
};

// Note: [Line shapes]
// Metric lines repeat a handful of layouts: the same names, separators and padding, with other
// digits. A line's shape here is its bytes with the values of its ASCII digits left out: the same
// length, the same bytes where it holds no digit, and digits exactly where it holds digits. Two lines
// of one shape differ only in the values of digits, so the full scan (ScanSegment) takes the same path
// through both: word starts, word lengths and the word lookups are the same (a word with digits that
// cannot start a name is no name whatever its digits; a few names do hold one, "acc@1" and "acc@5",
// "top1", "f1", so a line with a word that may be a name and holds a digit is never recorded and is
// always scanned in full), as are separators, number boundaries and units. What the digits change is the values read and a few checks on them (an integer too large
// for ReadInt, mmcv's total > 0). So the full scan of a line records where it read each number it
// kept (a series' first value, every step, epoch and tqdm counter) and where that reading ended; a
// later line of the same shape is confirmed over its whole length (32 bytes per AVX2 compare: each
// byte less the shape's, '0' where it has a digit, is at most 9 there and 0 elsewhere; the search and
// the compare in one function, FindShapeAvx2), and
// then only those numbers are read, by the same functions (ReadValue, ReadBar), or in place where
// their layout allows (Note: [Fixed layouts]). A reading that ends elsewhere than it did (or reads
// nothing where it read something) sends the line to the full scan, which records the shape again.
// The last kShapes shapes are kept (least recently used replaced); lines longer than kShapeMax bytes,
// with more than kShapeEvents readings, or without a blank (CSV rows, whose meaning depends on the
// header before them) are always scanned in full.
constexpr std::uint16_t kNoEnd = 0xffff;
constexpr std::int16_t kBarEvent = -1;

// Note: [Fixed layouts]
// Of the numbers a shape replays, most are read by ReadNumber's fast path: a sign, at most 18 digits
// around an optional '.', an exponent of 1-3 digits; and what follows them in the reading (nothing,
// or a step's "/total") is digits too. A shape fixes every byte that is no digit and the place of
// every digit, so such a number's syntax is the same on every line of the shape: where its digits
// are, how many, its signs. The full scan records that layout (Layout) and a replay reads the digits
// in place (8 at a time; a number of at most 8 bytes with its '.', in one word), with no per-byte
// test and no search for where the number ends, and computes the value by the same formula as
// ReadNumber (ScaledMantissa): the same double. What the digits' values can still change is checked:
// an exponent that takes the number out of the fast path's range is read by ReadValue as any other
// number. Memory values (a unit, or a byte count told by its size), mmcv's
// "[e][i/n]" steps, a step or an epoch followed by a '/' or "][" the full scan did not read on (a
// total too long for ReadInt, mmcv's total of 0: other digits may read on), nan/inf and anything
// longer or odder keep the generic replay; a tqdm counter "n/total" of at most 18 digits each is
// read in place too. The commonest number, at most 7 digits around a '.' (0.4321, 2.50150, 1.000e-02),
// or an integer of at most 7 digits, is read by ReplayWord from one 8-byte word, with its shift
// recorded in the layout (word_shift): the same double by fewer steps (on key=value lines, ~20% fewer
// instructions in ScanSegment). Without an exponent, a number whose digits are those the same event
// read on the last line of its shape (a constant learning rate, an epoch) takes that value again,
// saving the conversion and the division (~2% of the CPU time on metric lines).

constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;  // byte i of a word: bits 8i..8i+7
constexpr std::uint64_t kPow10Int[] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
                                       100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
                                       1000000000000ull, 10000000000000ull, 100000000000000ull,
                                       1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
                                       1000000000000000000ull};

// The number of the eight digit values (0-9) of v, the first digit lowest: pairs, quads, then all
// eight, one multiplication each (each multiplier adds ten, a hundred, ten thousand times a lane onto
// the lane above it, which the shift then moves down).
inline std::uint64_t CombineEight(std::uint64_t v) {
  v = ((v * (10 * 256 + 1)) >> 8) & 0x00FF00FF00FF00FFull;
  v = ((v * (100 * 65536 + 1)) >> 16) & 0x0000FFFF0000FFFFull;
  return (v * (10000 * (std::uint64_t{1} << 32) + 1)) >> 32;
}

// The number of the digit values in the first n (1-8) bytes of v, the first digit lowest: shifted
// up, the bytes past them drop out and zeros come in as leading digits.
inline std::uint64_t CombineDigits(std::uint64_t v, int n) { return CombineEight(v << (8 * (8 - n))); }

// The number of `n` (0-18) ASCII digits at p; limit: the end of the readable bytes.
inline std::uint64_t ReadDigits(const char* p, int n, const char* limit) {
  if (kLittleEndian && n > 0 && n <= 8 && limit - p >= 8) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return CombineDigits(v & 0x0F0F0F0F0F0F0F0Full, n);
  }
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v * 10 + static_cast<unsigned>(p[i] - '0');
  return v;
}

// The layout of what a reading of key `code` took from [at, r) of a segment ending at `end`, when a
// replay can read it in place.
metrics_internal::NumberLayout Layout(int code, const char* at, const char* r, const char* end) {
  using metrics_internal::NumberLayout;
  NumberLayout none;
  if (!r) return none;
  auto digits = [](const char* p, const char* end) {
    const char* q = p;
    while (q < end && IsDigit(*q)) ++q;
    return static_cast<int>(q - p);
  };
  NumberLayout l;
  const char* p = at;
  if (code == kBarEvent) {  // " n/total", then " [" (ReadBar)
    l.form = NumberLayout::kCounter;
    l.lead = 1;
    const int n = digits(p + 1, r);
    if (n < 1 || n > 18 || p[1 + n] != '/') return none;
    const int total = digits(p + 2 + n, r);
    if (total < 1 || total > 18 || p + 2 + n + total != r) return none;
    l.int_digits = static_cast<std::uint8_t>(n);
    l.frac_digits = static_cast<std::uint8_t>(total);
    return l;
  }
  if (IsMemoryCode(code)) return none;
  l.form = NumberLayout::kDecimal;
  if (p < r && (*p == '-' || *p == '+')) {
    l.neg = *p == '-';
    l.lead = 1;
    ++p;
  }
  const int whole = digits(p, r);
  p += whole;
  int frac = 0;
  if (p < r && *p == '.') {
    l.dot = 1;
    frac = digits(p + 1, r);
    p += 1 + frac;
  }
  if (whole + frac < 1 || whole + frac > 18) return none;
  l.int_digits = static_cast<std::uint8_t>(whole);
  l.frac_digits = static_cast<std::uint8_t>(frac);
  if (p < r && (*p == 'e' || *p == 'E')) {
    const char* e = p + 1;
    if (e < r && (*e == '-' || *e == '+')) {
      l.exp_neg = *e == '-';
      ++e;
    }
    const int ed = digits(e, r);
    if (ed < 1 || ed > 3) return none;
    l.exp_at = static_cast<std::uint8_t>(e - at);
    l.exp_digits = static_cast<std::uint8_t>(ed);
    p = e + ed;
  }
  if (whole + frac <= 7) l.word_shift = static_cast<std::uint8_t>(8 * (8 - whole - frac));
  if (p == r) {
    // Unless a step or an epoch is followed by what ReadValue reads further where the digits allow
    // ("/total" too long to read, mmcv's "][i/n" with a total of 0).
    const bool axis = code == kKeyStep || code == kKeyEpoch;
    return axis && r < end && (*r == '/' || (*r == ']' && r + 1 < end && r[1] == '[')) ? none : l;
  }
  // What may follow in the reading: a step's or an epoch's "/total" (ReadValue), of at most 18 digits.
  if ((code == kKeyStep || code == kKeyEpoch) && *p == '/') {
    const int total = digits(p + 1, r);
    if (total >= 1 && total <= 18 && p + 1 + total == r) return l;
  }
  return none;
}

// A validation value (loss, accuracy, F1): shown again unchanged, it is the same evaluation.
constexpr bool IsEvaluation(int code) {
  return code == S(SeriesId::kValLoss) || code == S(SeriesId::kValAcc) || code == S(SeriesId::kF1);
}

// A training loss or accuracy (Note: [Evaluations between training lines]).
constexpr bool IsTraining(int code) { return code == S(SeriesId::kLoss) || code == S(SeriesId::kAcc); }

// Puts a replayed value of key `code` into *lv as ReadValue does: a step, an epoch or a series value.
inline void KeepReplayed(int code, double v, LineValues* lv) {
  if (code == kKeyStep) {
    lv->step = v;
  } else if (code == kKeyEpoch) {
    lv->epoch = v;
  } else {
    lv->have[code] = true;
    lv->found[lv->nfound++] = {code, v};
  }
}

// Reads the number of a decimal layout at `at` into *lv as ReadValue does; false when its value takes
// it out of ReadNumber's fast path (the caller reads it with ReadValue then).
bool ReplayDecimal(int code, const metrics_internal::NumberLayout& l, const char* at, const char* limit,
                   LineValues* lv) {
  const char* q = at + l.lead;
  const int digits = l.int_digits + l.frac_digits;
  std::uint64_t mant;
  if (kLittleEndian && l.dot && digits <= 7 && limit - q >= 8) {
    // Digits, '.' and digits in one word: the bytes past the '.' move down one over it, then all
    // the digits are combined at once.
    std::uint64_t v;
    std::memcpy(&v, q, 8);
    v &= 0x0F0F0F0F0F0F0F0Full;
    const std::uint64_t whole = (std::uint64_t{1} << (8 * l.int_digits)) - 1;  // int_digits <= 6
    mant = CombineDigits((v & whole) | ((v >> 8) & ~whole), digits);
  } else {
    mant = ReadDigits(q, l.int_digits, limit);
    if (l.frac_digits) {
      mant = mant * kPow10Int[l.frac_digits] + ReadDigits(q + l.int_digits + l.dot, l.frac_digits, limit);
    }
  }
  int exp10 = -l.frac_digits;
  if (l.exp_at) {
    const int e = static_cast<int>(ReadDigits(at + l.exp_at, l.exp_digits, limit));
    exp10 += l.exp_neg ? -e : e;
    if (exp10 < -22 || exp10 > 22) return false;
  }
  KeepReplayed(code, ScaledMantissa(mant, exp10, l.neg), lv);
  return true;
}

// ReplayDecimal for a layout with a word_shift, when the word can be read: the same value, by fewer
// steps (the common number of a progress line: 0.4321, 2.50150, 1.000e-02, an epoch's 3). False when
// it cannot read it so (ReplayDecimal or ReadValue then). Without a '.', the bytes after the digits
// are moved like those after a '.' and then shifted out with them.
template <typename Event>
__attribute__((always_inline)) inline bool ReplayWord(Event* e, const char* at, const char* limit, LineValues* lv) {
  const metrics_internal::NumberLayout& l = e->layout;
  const char* q = at + l.lead;
  if (!kLittleEndian || limit - q < 8) return false;
  std::uint64_t v;
  std::memcpy(&v, q, 8);
  v &= 0x0F0F0F0F0F0F0F0Full;
  const std::uint64_t whole = (std::uint64_t{1} << (8 * l.int_digits)) - 1;
  v = ((v & whole) | ((v >> 8) & ~whole)) << l.word_shift;
  double x;
  if (!l.exp_at) {
    // The same digits as the last line of this shape (a learning rate, an epoch): the same value.
    if (v != e->word) {
      // At most 7 digits: the conversion is exact, signed or not.
      x = static_cast<double>(static_cast<std::int64_t>(CombineEight(v)));
      if (l.frac_digits) x /= kPow10[l.frac_digits];  // ScaledMantissa
      e->word = v;
      e->word_value = x;
    } else {
      x = e->word_value;
    }
  } else {
    int exp10 = -l.frac_digits;
    const int ev = static_cast<int>(ReadDigits(at + l.exp_at, l.exp_digits, limit));
    exp10 += l.exp_neg ? -ev : ev;
    if (exp10 < -22 || exp10 > 22) return false;
    x = static_cast<double>(static_cast<std::int64_t>(CombineEight(v)));
    x = exp10 < 0 ? x / kPow10[-exp10] : x * kPow10[exp10];  // ScaledMantissa
  }
  KeepReplayed(e->code, l.neg ? -x : x, lv);
  return true;
}

// Reads a tqdm counter of a counter layout at `at` into *lv as ReadBar does.
void ReplayCounter(const metrics_internal::NumberLayout& l, const char* at, const char* limit, LineValues* lv) {
  lv->bar_n = static_cast<long long>(ReadDigits(at + 1, l.int_digits, limit));
  lv->bar_total = static_cast<long long>(ReadDigits(at + 2 + l.int_digits, l.frac_digits, limit));
}

// The divisor of a lane's number whose exponent's digits are the bytes of `key` (the ExpLane's mask
// applied), into *divisor: 10 to the power the number's value is divided by, its sign the number's.
// False when the exponent takes the number out of ReadNumber's fast path, or to a power of ten it
// multiplies by (ScaledMantissa; the word events read those).
template <typename ExpLane>
__attribute__((noinline)) bool ExponentDivisor(const ExpLane& x, std::uint32_t key, double* divisor) {
  int ev = 0;
  for (int k = 0; k < x.digits; ++k) ev = ev * 10 + static_cast<int>((key >> (8 * k)) & 0xff) - '0';
  const int exp10 = -x.frac_digits + (x.exp_neg ? -ev : ev);
  if (exp10 < -22 || exp10 > 0) return false;
  *divisor = x.neg ? -kPow10[-exp10] : kPow10[-exp10];
  return true;
}

// True when text[0, n) has the layout of a shape (ShapeMatchesAvx2 is the same test, 32 bytes at a time):
// each byte, less the shape's byte ('0' where the shape holds a digit), is at most the shape's spread
// there (9 for a digit, else 0), as an unsigned byte: a digit where it has one, its byte elsewhere.
bool ShapeMatchesPortable(const char* text, size_t n, const char* shape, const char* spread) {
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<unsigned char>(text[i] - shape[i]) > static_cast<unsigned char>(spread[i])) return false;
  }
  return true;
}

// MetricCollector::kShapeMax: a shape's bytes, a whole number of 32-byte blocks.
constexpr size_t kShapeBytes = 256;
static_assert(kShapeBytes % 32 == 0, "whole blocks of a shape");

#ifdef TRIAGE_AVX2
// The bytes from `limit` on may not be readable: when the last block reaches past it, the line goes
// through a copy (rarely: only the last line of a buffer can). The shape's arrays are kShapeMax bytes,
// a whole number of blocks.
__attribute__((target("avx2"), always_inline)) inline bool ShapeMatchesAvx2(const char* text, size_t n, const char* limit,
                                                      const char* shape, const char* spread) {
  alignas(32) char copy[kShapeBytes];
  const size_t blocks = (n + 31) / 32 * 32;
  if (static_cast<size_t>(limit - text) < blocks) {
    std::memcpy(copy, text, n);
    std::memset(copy + n, 0, blocks - n);  // compared, then masked out: defined all the same
    text = copy;
  }
  for (size_t i = 0; i < n; i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text + i));
    const __m256i off = _mm256_sub_epi8(v, _mm256_load_si256(reinterpret_cast<const __m256i*>(shape + i)));
    const __m256i ok = _mm256_cmpeq_epi8(
        _mm256_min_epu8(off, _mm256_load_si256(reinterpret_cast<const __m256i*>(spread + i))), off);
    std::uint32_t bad = ~static_cast<std::uint32_t>(_mm256_movemask_epi8(ok));
    if (n - i < 32) bad &= (std::uint32_t{1} << (n - i)) - 1;
    if (bad) return false;
  }
  return true;
}

// ShapeMatchesAvx2 for the replay in ScanLines' loop: the bytes up to the last block's end readable
// (the shape's reach) and matched by the shape there, so neither a copy nor a mask.
__attribute__((target("avx2"), always_inline)) inline bool ShapeBlocksMatchAvx2(const char* text, size_t n,
                                                                              const char* shape, const char* spread) {
  // The blocks' excesses ORed, one test at the end (a replayed line mostly matches every block): a
  // byte's offset from the shape exceeds the spread there by what the unsigned saturating subtraction
  // leaves, 0 when it does not.
  __m256i excess = _mm256_setzero_si256();
  for (size_t i = 0; i < n; i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text + i));
    const __m256i off = _mm256_sub_epi8(v, _mm256_load_si256(reinterpret_cast<const __m256i*>(shape + i)));
    excess = _mm256_or_si256(
        excess, _mm256_subs_epu8(off, _mm256_load_si256(reinterpret_cast<const __m256i*>(spread + i))));
  }
  return _mm256_testz_si256(excess, excess);
}
#endif

// Note: [Number lanes]
// Of the numbers a shape replays in ScanLines' loop (Note: [Replay in the loop]), the first kLanes
// (with an exponent only where a division expresses it: Note: [Replay plan]) are read together: each lane's 8-byte word, masked to its digit values, the
// bytes past the '.' moved down over it and the whole shifted as ReplayWord does (per-lane masks and
// shifts recorded with the shape), then with AVX2 the eight digits of every lane combined at once
// (pairs by maddubs, fours by madd, the two fours of a lane by a 32-bit multiply; the same number as
// CombineEight's, below 10^8), converted and divided by each lane's power of ten in one instruction
// each. The value is ReplayWord's to the bit: the integer is exact and each lane's division is
// correctly rounded (a lane with no fraction is divided by 1; a negative number's lane by the
// negated power, x / -d being -(x / d) to the bit, -0 for 0 included). A lane not used by the shape
// reads the line's first word to no purpose. Without AVX2 the lanes are read one by one, the same way.
using metrics_internal::Lanes;

inline void ReadLanesPortable(const Lanes& lanes, int n, const char* line, double* values) {
  for (int k = 0; k < n; ++k) {
    std::uint64_t v;
    std::memcpy(&v, line + lanes.at[k], 8);
    v &= 0x0F0F0F0F0F0F0F0Full;
    v = ((v & lanes.whole[k]) | ((v >> 8) & ~lanes.whole[k])) << lanes.shift[k];
    values[k] = static_cast<double>(static_cast<std::int64_t>(CombineEight(v))) / lanes.divisor[k];
  }
}

#ifdef TRIAGE_AVX2
__attribute__((target("avx2"), always_inline)) inline void ReadLanesAvx2(const Lanes& lanes, const char* line,
                                                                        double* values) {
  auto word = [line, &lanes](int k) {
    long long w;
    std::memcpy(&w, line + lanes.at[k], 8);
    return w;
  };
  __m256i v = _mm256_and_si256(_mm256_set_epi64x(word(3), word(2), word(1), word(0)), _mm256_set1_epi8(0x0F));
  const __m256i whole = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes.whole));
  v = _mm256_or_si256(_mm256_and_si256(v, whole), _mm256_andnot_si256(whole, _mm256_srli_epi64(v, 8)));
  v = _mm256_sllv_epi64(v, _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes.shift)));
  // Byte 0 holds the first (most significant) digit: pairs (10, 1), then fours (100, 1), then eights.
  const __m256i pairs = _mm256_maddubs_epi16(v, _mm256_set1_epi16(0x010A));
  const __m256i fours = _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x00010064));
  const __m256i eights = _mm256_add_epi64(_mm256_mul_epu32(fours, _mm256_set1_epi64x(10000)), _mm256_srli_epi64(fours, 32));
  const __m128i ints = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(eights, _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
  _mm256_store_pd(values, _mm256_div_pd(_mm256_cvtepi32_pd(ints), _mm256_load_pd(lanes.divisor)));
}
#endif

// Note: [Name fragments]
// Every name of a series (kAliases with a code below kSeriesCount), however printed ('-', '/', '.',
// blanks for '_', any case), holds one of these fragments: loss (and loss_scale), mse, acc, lr,
// learning, norm, mem, alloc(ated), rss, scale, f1, ram, op1 (top1). A line that neither the tutorial layouts (Note:
// [Tutorial progress lines]) nor ScanCsv took yields a value only through such a name, so a line
// without any fragment yields none and is not scanned. The AVX2 test looks for three bytes of each
// (two of "lr" and "f1"), case folded, 32 positions at a time; a hit is only a reason to scan. The portable
// test looks for the whole fragments.
constexpr const char* kNameFragments[] = {"loss", "mse",  "acc",   "lr",  "learning", "norm",
                                          "mem",  "alloc", "rss", "scale", "f1", "ram", "op1"};

constexpr bool HoldsAt(const char* s, const char* f) {
  for (; *f; ++s, ++f) {
    if (*s != *f) return false;
  }
  return true;
}

constexpr bool HoldsFragment(const char* name) {
  for (const char* s = name; *s; ++s) {
    for (const char* f : kNameFragments) {
      if (HoldsAt(s, f)) return true;
    }
  }
  return false;
}

constexpr bool EverySeriesNameHoldsAFragment() {
  for (const Alias& a : kAliases) {
    if (a.code < kSeriesCount && !HoldsFragment(a.name)) return false;
  }
  return true;
}
static_assert(EverySeriesNameHoldsAFragment(), "a series name without a fragment: add one to kNameFragments");

bool MayHoldNamePortable(const char* text, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    for (const char* f : kNameFragments) {
      size_t k = 0;
      while (f[k] && i + k < n && AsciiLower(text[i + k]) == f[k]) ++k;
      if (!f[k]) return true;
    }
  }
  return false;
}

// Three bytes from each fragment (its rarest in text), the third 0 for "lr" and "f1" (any byte).
// Setting bit 5 leaves '1' as it is.
constexpr char kTriples[][3] = {{'o', 's', 's'}, {'m', 's', 'e'}, {'a', 'c', 'c'}, {'l', 'r', 0},
                                {'r', 'n', 'i'}, {'n', 'o', 'r'}, {'m', 'e', 'm'}, {'l', 'l', 'o'},
                                {'r', 's', 's'}, {'s', 'c', 'a'}, {'f', '1', 0},  {'r', 'a', 'm'},
                                {'o', 'p', '1'}};

#ifdef TRIAGE_AVX2
// Bytes from `limit` on may not be readable: the last block goes through a copy padded with blanks
// (no fragment holds one).
__attribute__((target("avx2"))) bool MayHoldNameAvx2(const char* text, size_t n, const char* limit) {
  const __m256i fold = _mm256_set1_epi8(0x20);
  for (size_t i = 0; i < n; i += 32) {
    const char* block = text + i;
    char copy[34];
    if (limit - block < 34) {
      std::memset(copy, ' ', sizeof copy);
      std::memcpy(copy, block, std::min<size_t>(sizeof copy, static_cast<size_t>(limit - block)));
      block = copy;
    }
    // Setting bit 5 of every byte lower-cases letters; no other byte becomes a lower-case letter.
    const __m256i b0 = _mm256_or_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block)), fold);
    const __m256i b1 = _mm256_or_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 1)), fold);
    const __m256i b2 = _mm256_or_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 2)), fold);
    __m256i any = _mm256_setzero_si256();
    for (const auto& t : kTriples) {
      __m256i hit = _mm256_and_si256(_mm256_cmpeq_epi8(b0, _mm256_set1_epi8(t[0])),
                                     _mm256_cmpeq_epi8(b1, _mm256_set1_epi8(t[1])));
      if (t[2]) hit = _mm256_and_si256(hit, _mm256_cmpeq_epi8(b2, _mm256_set1_epi8(t[2])));
      any = _mm256_or_si256(any, hit);
    }
    std::uint32_t mask = static_cast<std::uint32_t>(_mm256_movemask_epi8(any));
    if (n - i < 32) mask &= (std::uint32_t{1} << (n - i)) - 1;
    if (mask) return true;
  }
  return false;
}
#endif

// Note: [Tutorial progress lines]
// PyTorch's own tutorials print their progress without naming the loss, and the scripts copied from
// them keep the layout: the char-RNN classification tutorial prints `ITER PERCENT% (ELAPSED) LOSS ...`
// ("5000 5% (0m 12s) 2.9460 Jigalev / Portuguese ✗ (Russian)"), the char-RNN generation and seq2seq
// tutorials `ELAPSED (ITER PERCENT%) LOSS` and `ELAPSED (- REMAINING) (ITER PERCENT%) LOSS`
// ("1m 28s (- 20m 36s) (5000 6%) 2.8552"), char-rnn.pytorch the same in brackets. ELAPSED is their
// asMinutes(): "Xm Ys" (some copies drop the blank). The layout itself says which number is the loss
// and which the iteration, so such a line gives a loss point at that step. A line no recent shape took
// is tried, but only one that starts (after blanks and a '[') with digits followed by a blank or an 'm'
// is read further, so a date, a timestamp or a word costs a few bytes. Whether a line is one of these
// layouts depends only on where it holds digits (no value is checked, numbers are at most 18 digits),
// so the shape replay, which sees lines of this layout only if the reader refused them, cannot hide one.
const char* SkipBlanks(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  return p;
}

// Reads at least one blank; null when there is none.
const char* Blanks(const char* p, const char* end) {
  const char* q = SkipBlanks(p, end);
  return q > p ? q : nullptr;
}

// Up to 18 digits (so whether a line is read depends on where it has digits, never on their values).
const char* Digits(const char* p, const char* end, long long* v) {
  if (!p || p >= end || !IsDigit(*p)) return nullptr;
  const char* d = p;
  while (d < end && IsDigit(*d)) ++d;
  return d - p <= 18 ? ReadInt(p, end, v) : nullptr;
}

const char* Char(const char* p, const char* end, char c) { return p && p < end && *p == c ? p + 1 : nullptr; }

// asMinutes(): "12m 5s" or "12m5s".
const char* Elapsed(const char* p, const char* end) {
  long long v = 0;
  p = Char(Digits(p, end, &v), end, 'm');
  if (!p) return nullptr;
  return Char(Digits(SkipBlanks(p, end), end, &v), end, 's');
}

// "ITER PERCENT%" with ITER read; null unless both are there.
const char* IterPercent(const char* p, const char* end, long long* iter) {
  long long percent = 0;
  p = Digits(p, end, iter);
  if (p) p = Blanks(p, end);
  return Char(Digits(p, end, &percent), end, '%');
}

// Where a tutorial layout would start in `text` (past blanks and a '['), or null when it cannot be one:
// both layouts begin with a number followed by a blank (ITER) or an 'm' (ELAPSED), so a date, a time
// or a word is refused here, within a few bytes and before any number is read.
inline const char* TutorialStart(std::string_view text) {
  const char* const end = text.data() + text.size();
  const char* p = text.data();
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  if (p < end && *p == '[') ++p;
  const char* d = p;
  while (d < end && IsDigit(*d)) ++d;
  return d > p && d < end && (*d == ' ' || *d == '\t' || *d == 'm') ? p : nullptr;
}

// Reads a line TutorialStart accepted (p is where it said the layout starts). Out of line: the rare
// path stays out of ScanSegment's hot loop.
__attribute__((noinline)) bool ReadTutorialProgress(const char* p, std::string_view text, metrics_internal::LineValues* lv) {
  const char* const end = text.data() + text.size();
  long long iter = 0;
  const char* q = nullptr;
  if (const char* a = IterPercent(p, end, &iter)) {  // ITER PERCENT% (ELAPSED) LOSS
    if ((a = Blanks(a, end)) != nullptr) q = Char(Elapsed(Char(a, end, '('), end), end, ')');
  }
  if (!q) {  // ELAPSED [(- REMAINING)] (ITER PERCENT%) LOSS
    const char* b = Elapsed(p, end);
    if (b) b = Blanks(b, end);
    if (b && b + 1 < end && b[0] == '(' && b[1] == '-') {
      b = Char(Elapsed(SkipBlanks(b + 2, end), end), end, ')');
      if (b) b = Blanks(b, end);
    }
    q = Char(IterPercent(Char(b, end, '('), end, &iter), end, ')');
  }
  if (!q || !(q = Blanks(q, end))) return false;
  double loss = 0;
  const char* r = ReadNumber(q, end, &loss);
  if (!r || (r < end && *r != ' ' && *r != '\t' && *r != ']')) return false;
  lv->step = static_cast<double>(iter);
  lv->have[S(SeriesId::kLoss)] = true;
  lv->found[lv->nfound++] = {S(SeriesId::kLoss), loss};
  return true;
}

// Note: [Printed loss tensors]
// A loop that prints the loss itself, print(loss), shows a zero-dimensional tensor and no name:
// "tensor(2.3026, device='cuda:0', grad_fn=<NllLossBackward0>)" (1.x without the version digit,
// "<NllLossBackward>"; no device on the CPU). The autograd node names the function that computed the
// number, and a node named after a loss function (NllLoss, NllLoss2D, MseLoss, SmoothL1Loss,
// BinaryCrossEntropy, BinaryCrossEntropyWithLogits, CtcLoss, ...: "Loss" or "Entropy" before
// "Backward") says it is the loss, a point of the `loss` series. A sum or a mean of losses ("AddBackward0",
// "MeanBackward0") names no loss and is not read. Only a line that is that print alone (blanks around
// it) is read here; a line that also names the value ("loss: tensor(...)") keeps the named reading.
// A line qualifies by its text before any number is read (LossTensorStart), so the shape replay,
// which only records lines the name scan read, cannot hide one.
inline const char* LossTensorStart(std::string_view text) {
  static constexpr std::string_view kOpen = "tensor(";
  const char* const end = text.data() + text.size();
  const char* p = text.data();
  while (p < end && (*p == ' ' || *p == '\t')) ++p;
  return static_cast<size_t>(end - p) > kOpen.size() && std::memcmp(p, kOpen.data(), kOpen.size()) == 0
             ? p + kOpen.size()
             : nullptr;
}

// Reads the print LossTensorStart accepted (p just after "tensor("). Out of line, like the tutorial
// reader: the rare path stays out of ScanSegment's hot loop.
__attribute__((noinline)) bool ReadLossTensor(const char* p, std::string_view text, metrics_internal::LineValues* lv) {
  static constexpr std::string_view kNode = "grad_fn=<";
  static constexpr std::string_view kBackward = "Backward";
  const char* const end = text.data() + text.size();
  double loss = 0;
  const char* q = ReadNumber(p, end, &loss);
  if (!q || q >= end || *q != ',') return false;
  const std::string_view rest(q, static_cast<size_t>(end - q));
  const size_t at = rest.find(kNode);
  if (at == std::string_view::npos) return false;
  const std::string_view after = rest.substr(at + kNode.size());
  const size_t close = after.find('>');
  if (close == std::string_view::npos) return false;
  std::string_view node = after.substr(0, close);
  while (!node.empty() && IsDigit(node.back())) node.remove_suffix(1);  // 2.x's version digit
  if (node.size() <= kBackward.size() || node.substr(node.size() - kBackward.size()) != kBackward) return false;
  node.remove_suffix(kBackward.size());
  if (node.find("Loss") == std::string_view::npos && node.find("Entropy") == std::string_view::npos) return false;
  // The print ends with the node: ">)" and blanks (a '\r' of a Windows paste) to the end of the line.
  const char* r = after.data() + close + 1;
  if (r >= end || *r != ')') return false;
  for (++r; r < end; ++r) {
    if (*r != ' ' && *r != '\t' && *r != '\r') return false;
  }
  lv->have[S(SeriesId::kLoss)] = true;
  lv->found[lv->nfound++] = {S(SeriesId::kLoss), loss};
  return true;
}

// Note: [Name marks]
// On text without metrics (a web server's log, an application's) nearly every line reaches the
// fragment test, and testing each line on its own (MayHoldNameAvx2: thirteen two- or three-byte compares per 32
// bytes, a partial last block per line) costs more than the rest of the metric path. So, with AVX2,
// the buffer ScanLines scans is marked as its starts are (once, the words a segment needs, in order):
// a bit where a fragment's three bytes (kTriples) may begin, and a bit on every blank and tab. A
// segment with neither mark holds no fragment and no blank, so only ScanCsv can read it; a segment
// with a blank mark and no fragment mark yields nothing at all (ScanCsv refuses a blank, and without
// a fragment there is no name) and is dropped at once; a segment with a fragment mark goes on as
// before (ScanCsv, then MayHoldNameAvx2, then the full scan). The fragment marks come from nibble
// tables (a byte's low and high half each index a 16-byte table of bucket bits, one pshufb each;
// a position's bits are the three bytes' buckets ANDed): the thirteen triples in eight buckets
// ("oss"/"rss", "mse"/"mem", "acc"/"sca", "rni"/"ram" and "nor"/"op1" share one), upper case given the same high-half entries as
// lower case. Each table admits more bytes than its triples (the halves of different letters combine,
// '_' reads as DEL), so a mark is a reason to test, never a proof: what matters is that every
// fragment inside a segment marks its first byte there, which holds for the exact triples whatever
// else the tables admit (tests check it against MayHoldNamePortable).
struct NibbleTables {
  std::uint8_t lo[3][16] = {};
  std::uint8_t hi[3][16] = {};
};

constexpr NibbleTables MakeNameTables() {
  // Each bucket: the bytes each of its three positions may hold ("" for any byte).
  constexpr const char* kBuckets[8][3] = {{"or", "s", "s"}, {"m", "se", "em"}, {"as", "c", "ca"}, {"l", "r", ""},
                                          {"r", "na", "im"}, {"no", "op", "r1"},   {"l", "l", "o"},  {"f", "1", ""}};
  NibbleTables t;
  for (int b = 0; b < 8; ++b) {
    const auto bit = static_cast<std::uint8_t>(1u << b);
    for (int k = 0; k < 3; ++k) {
      const char* set = kBuckets[b][k];
      if (!*set) {
        for (int i = 0; i < 16; ++i) {
          t.lo[k][i] |= bit;
          t.hi[k][i] |= bit;
        }
      }
      for (; *set; ++set) {
        const int c = *set;  // a lower-case letter (high half 6 or 7; its upper case 4 or 5) or '1'
        t.lo[k][c & 15] |= bit;
        t.hi[k][c >> 4] |= bit;
        if (c >= 'a') t.hi[k][(c >> 4) - 2] |= bit;
      }
    }
  }
  return t;
}
constexpr NibbleTables kNameTables = MakeNameTables();

// Whether one of kTriples begins at p, left bytes before the end (the tables' intent; tests).
bool TripleAt(const char* p, size_t left) {
  for (const auto& t : kTriples) {
    const size_t need = t[2] ? 3 : 2;
    if (left < need) continue;
    bool hit = true;
    for (size_t k = 0; k < need && hit; ++k) hit = AsciiLower(p[k]) == t[k];
    if (hit) return true;
  }
  return false;
}

#ifdef TRIAGE_AVX2
// The fragment and blank marks of one block of 64 bytes; p[64] and p[65] must be readable.
__attribute__((target("avx2"), always_inline)) inline void NameBlockAvx2(const char* p, std::uint64_t* names, std::uint64_t* blanks) {
  const __m256i low_half = _mm256_set1_epi8(0x0f);
  std::uint64_t n = 0, b = 0;
  for (int half = 0; half < 2; ++half) {
    const char* q = p + 32 * half;
    __m256i all = _mm256_set1_epi8(static_cast<char>(0xff));
    for (int k = 0; k < 3; ++k) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + k));
      const __m256i lo_t = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kNameTables.lo[k])));
      const __m256i hi_t = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(kNameTables.hi[k])));
      const __m256i lo = _mm256_shuffle_epi8(lo_t, _mm256_and_si256(v, low_half));
      const __m256i hi = _mm256_shuffle_epi8(hi_t, _mm256_and_si256(_mm256_srli_epi16(v, 4), low_half));
      all = _mm256_and_si256(all, _mm256_and_si256(lo, hi));
      if (k == 0) {
        const __m256i blank = _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(' ')),
                                              _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\t')));
        b |= std::uint64_t{static_cast<std::uint32_t>(_mm256_movemask_epi8(blank))} << (32 * half);
      }
    }
    const __m256i none = _mm256_cmpeq_epi8(all, _mm256_setzero_si256());
    n |= std::uint64_t{~static_cast<std::uint32_t>(_mm256_movemask_epi8(none))} << (32 * half);
  }
  *names = n;
  *blanks = b;
}

// Fills the words [first, last) of names and blanks for p[0, n): the last blocks through a copy padded
// with NULs (no letter, no blank; the "lr" bucket's any-byte third position still admits one).
__attribute__((target("avx2"))) void MarkNamesAvx2(const char* p, size_t n, size_t first, size_t last,
                                                   std::uint64_t* names, std::uint64_t* blanks) {
  for (size_t w = first; w < last; ++w) {
    if (64 * w + 66 <= n) {
      NameBlockAvx2(p + 64 * w, names + w, blanks + w);
    } else {
      char tail[96] = {};
      std::memcpy(tail, p + 64 * w, std::min<size_t>(n - 64 * w, 66));
      NameBlockAvx2(tail, names + w, blanks + w);
      if (n - 64 * w < 64) {
        const std::uint64_t keep = (std::uint64_t{1} << (n - 64 * w)) - 1;
        names[w] &= keep;
        blanks[w] &= keep;
      }
    }
  }
}
#endif

// Whether a bit of bits is set in [from, to).
inline bool AnyBit(const std::uint64_t* bits, size_t from, size_t to) {
  if (from >= to) return false;
  const size_t fw = from / 64, lw = (to - 1) / 64;
  const std::uint64_t first_mask = ~std::uint64_t{0} << (from % 64);
  const std::uint64_t last_mask = ~std::uint64_t{0} >> (63 - (to - 1) % 64);
  if (fw == lw) return bits[fw] & first_mask & last_mask;
  if (bits[fw] & first_mask) return true;
  for (size_t w = fw + 1; w < lw; ++w) {
    if (bits[w]) return true;
  }
  return bits[lw] & last_mask;
}

}  // namespace

std::vector<std::uint64_t> MetricCandidates(std::string_view text, bool portable, size_t piece_words) {
  const size_t words = (text.size() + 63) / 64;
  std::vector<std::uint64_t> bits(2 * words);
  for (size_t w = 0; w < words; w += piece_words) {
    MarkStarts(text.data(), text.size(), w, std::min(words, w + piece_words), bits.data(), portable);
  }
  for (size_t w = 0; w < words; w += piece_words) {
    MarkEnds(text.data(), text.size(), w, std::min(words, w + piece_words), bits.data() + words, portable);
  }
  return bits;
}

std::vector<std::uint64_t> MetricNameMarks(std::string_view text, size_t piece_words, bool triples) {
  const size_t words = (text.size() + 63) / 64;
  std::vector<std::uint64_t> bits(2 * words);
  if (triples) {
    for (size_t i = 0; i < text.size(); ++i) {
      if (TripleAt(text.data() + i, text.size() - i)) bits[i / 64] |= std::uint64_t{1} << (i % 64);
      if (text[i] == ' ' || text[i] == '\t') bits[words + i / 64] |= std::uint64_t{1} << (i % 64);
    }
    return bits;
  }
#ifdef TRIAGE_AVX2
  if (CpuHasAvx2()) {
    for (size_t w = 0; w < words; w += piece_words) {
      MarkNamesAvx2(text.data(), text.size(), w, std::min(words, w + piece_words), bits.data(), bits.data() + words);
    }
    return bits;
  }
#endif
  (void)piece_words;
  return {};
}

bool MetricLineMayHoldName(std::string_view line) { return MayHoldNamePortable(line.data(), line.size()); }

const char* SeriesName(SeriesId id) {
  int i = static_cast<int>(id);
  return i >= 0 && i < kSeriesCount ? kSeriesNames[i] : "";
}

SeriesId SeriesFromName(std::string_view name) {
  for (int i = 0; i < kSeriesCount; ++i) {
    if (name == kSeriesNames[i]) return static_cast<SeriesId>(i);
  }
  return SeriesId::kCount;
}

__attribute__((noinline)) void MetricSeries::AddKept(double value, double step, double epoch, std::uint64_t line) {
  // The point is written once into the tail ring, then copied from there where it is kept too.
  const MetricPoint& p = Put(value, step, epoch, line);
  const std::int64_t seq = p.seq;
  if (!p.finite()) {
    ++nonfinite_count_;
    if (static_cast<int>(nonfinite_.size()) < kMaxNonFinite) nonfinite_.push_back(p);
    if (seen_finite_ && !has_onset_) {
      has_onset_ = true;
      onset_ = p;
    }
  } else {
    if (has_onset_ && !tail_[(seq - 1) & (kTail - 1)].finite()) ++recoveries_;  // the onset is a point before
    seen_finite_ = true;
    if (!has_extrema_ || p.value < min_.value) min_ = p;
    if (!has_extrema_ || p.value > max_.value) max_ = p;
    has_extrema_ = true;
  }
  if (static_cast<int>(head_.size()) < kHead) head_.push_back(p);
  // stride_ is a power of two: masks instead of divisions on the per-point path.
  if ((p.seq & (stride_ - 1)) == 0) {
    if (static_cast<int>(sample_.size()) == kSample) {
      // Full: keep every other point and double the stride (bounded memory, even coverage).
      std::vector<MetricPoint> half;
      half.reserve(kSample);
      for (const MetricPoint& s : sample_) {
        if ((s.seq & (stride_ * 2 - 1)) == 0) half.push_back(s);
      }
      sample_.swap(half);
      stride_ *= 2;
    }
    if ((p.seq & (stride_ - 1)) == 0) sample_.push_back(p);
  }
  next_kept_ = !has_extrema_ || count_ < kHead || !p.finite() ? count_ : (count_ + stride_ - 1) & ~(stride_ - 1);
}

std::vector<MetricPoint> MetricSeries::Points() const {
  std::vector<MetricPoint> all;
  all.reserve(head_.size() + kTail + sample_.size() + nonfinite_.size() + 3);
  all.insert(all.end(), head_.begin(), head_.end());
  std::int64_t tail_n = std::min<std::int64_t>(count_, kTail);
  for (std::int64_t s = count_ - tail_n; s < count_; ++s) all.push_back(tail_[s & (kTail - 1)]);
  all.insert(all.end(), sample_.begin(), sample_.end());
  all.insert(all.end(), nonfinite_.begin(), nonfinite_.end());
  if (has_onset_) all.push_back(onset_);
  if (has_extrema_) {
    all.push_back(min_);
    all.push_back(max_);
  }
  std::sort(all.begin(), all.end(), [](const MetricPoint& a, const MetricPoint& b) { return a.seq < b.seq; });
  all.erase(std::unique(all.begin(), all.end(), [](const MetricPoint& a, const MetricPoint& b) { return a.seq == b.seq; }),
            all.end());
  return all;
}

MetricCollector::MetricCollector(Shapes shapes)
    : shapes_mode_(shapes), shapes_avx2_(shapes == Shapes::kAuto && CpuHasAvx2()) {
  Keys();
}

const MetricSeries* MetricCollector::Find(SeriesId id) const {
  int i = static_cast<int>(id);
  if (i < 0 || i >= kSeriesCount || !present_[i]) return nullptr;
  return &series_[i];
}

bool MetricCollector::empty() const {
  return std::none_of(present_.begin(), present_.end(), [](bool b) { return b; });
}

void MetricCollector::AddLine(std::string_view line, std::uint64_t line_no) {
  ScanLines(line, line_no, /*count_lines=*/false);
}

void MetricCollector::ScanLines(std::string_view text, std::uint64_t line_no, bool count_lines) {
#ifdef TRIAGE_AVX2
  if (shapes_avx2_) return ScanLinesAvx2(text, line_no, count_lines);
#endif
  ScanLinesWith(
      text, line_no, count_lines,
      [](const char* line, size_t n, const Shape& shape, const char*) {
        return ShapeMatchesPortable(line, n, shape.text, shape.spread);
      },
      [](const Lanes& lanes, int n, const char* line, double* values) { ReadLanesPortable(lanes, n, line, values); });
}

void MetricCollector::Feed(std::string_view data) {
  while (!data.empty()) {
    if (partial_.empty() && !overlong_) {
      // Whole lines in one pass with no copy, a window at a time (the scratch bits stay bounded).
      std::string_view window = data.substr(0, kWindow);
      size_t last = window.rfind('\n');
      if (last != std::string_view::npos) {
        ScanLines(window.substr(0, last), 0, /*count_lines=*/true);
        ++lines_;  // the last '\n' itself
        data.remove_prefix(last + 1);
        continue;
      }
      // No '\n' in the window: a line longer than it, or the unfinished last line.
    }
    // Through the bounded copy: a line begun in an earlier call, or a very long one (its first
    // kMaxLine bytes count).
    size_t nl = data.find('\n');
    std::string_view piece = data.substr(0, nl);
    if (!overlong_) {
      size_t room = kMaxLine - std::min(kMaxLine, partial_.size());
      partial_.append(piece.substr(0, room));
      if (piece.size() > room) overlong_ = true;
    }
    if (nl == std::string_view::npos) return;
    AddLine(partial_, ++lines_);
    partial_.clear();
    overlong_ = false;
    data.remove_prefix(nl + 1);
  }
}

void MetricCollector::FinishInput() {
  if (!partial_.empty()) {
    AddLine(partial_, ++lines_);
    partial_.clear();
    overlong_ = false;
  }
  PickSmiGpu();
}

// Note: [One series per GPU]
// nvidia-smi prints a header row and a figures row for every GPU of the machine, each snapshot in
// order of index. Read into one series, the GPUs' figures alternate (Note: [One device per series]);
// read for GPU 0 alone, as before, a run on another GPU (CUDA_VISIBLE_DEVICES=1 on a shared machine,
// `nvidia-smi -i 1`, a DataParallel replica) showed nothing, or GPU 0's flat figures. Each GPU's rows
// are kept apart (GPU 0's in `memory` as they are read, GPUs 1 to kSmiGpus - 1 in smi_series_), and at
// the end of the input `memory` is the GPU whose used memory rose most from its first row to its last,
// in MiB (a leak on one GPU is the evidence a memory detector wants; an idle GPU's few MiB of noise or a
// busy one's flat level never outranks it); on a tie, the lower index. A single table (one row per GPU)
// gives every GPU one point, so it is no series at all, however the GPUs' figures happen to be ordered.
void MetricCollector::PickSmiGpu() {
  if (smi_series_.empty() || memory_name_[0] != kSmiRow) return;
  auto rise = [](const MetricSeries& s) {
    if (s.count() < 2) return -std::numeric_limits<double>::infinity();
    const MetricPoint* first = s.first();
    return first ? s.last().value - first->value : -std::numeric_limits<double>::infinity();
  };
  MetricSeries& memory = series_[S(SeriesId::kMemory)];
  double best = memory.count() > 0 ? rise(memory) : -std::numeric_limits<double>::infinity();
  size_t pick = 0;
  for (size_t g = 1; g < smi_series_.size(); ++g) {
    const MetricSeries& s = smi_series_[g];
    if (s.count() == 0) continue;
    const double r = rise(s);
    if (r > best || (pick == 0 && memory.count() == 0 && r == best)) {
      best = r;
      pick = g;
    }
  }
  if (pick == 0) return;
  memory = smi_series_[pick];
  present_[S(SeriesId::kMemory)] = true;
}

// One point per value read from a row of a CSV file or an epoch table, all at the row's step/epoch.
static void AddRow(const MetricPoint& base, const Found* found, int n, std::array<MetricSeries, kSeriesCount>* series,
            std::array<bool, kSeriesCount>* present) {
  for (int i = 0; i < n; ++i) {
    MetricPoint p = base;
    p.value = found[i].value;
    (*series)[found[i].code].Add(p);
    (*present)[found[i].code] = true;
  }
}

bool MetricCollector::ScanCsv(std::string_view text, std::uint64_t line_no) {
  // Only comma-separated text without blanks qualifies (dict and JSON lines have ", "); ordinary
  // lines show a blank within their first bytes, so this rejects them at once.
  for (char c : text) {
    if (c == ' ' || c == '\t') return false;  // (find_first_of would call memchr once per byte)
  }
  if (text.find(',') == std::string_view::npos) return false;
  std::vector<std::string_view> fields;
  size_t pos = 0;
  while (true) {
    size_t comma = text.find(',', pos);
    fields.push_back(text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
    if (comma == std::string_view::npos || fields.size() > 64) break;
    pos = comma + 1;
  }
  if (Class(text[0]) == kAlpha) {  // a header row?
    std::vector<int> columns;
    bool any = false;
    for (std::string_view f : fields) {
      char buf[kMaxKey];
      size_t n = 0;
      int code = -1;
      if (!f.empty() && Lower(f, buf, &n)) code = Keys().Find(buf, n);
      // Note: [One column per series]
      if (code >= 0 && code < kSeriesCount && std::find(columns.begin(), columns.end(), code) != columns.end()) code = -1;
      if (code >= 0 && code < kSeriesCount) any = true;
      columns.push_back(code >= kKeyIgnore ? -1 : code);
    }
    if (!any) return false;
    csv_columns_ = std::move(columns);
    return true;
  }
  if (csv_columns_.empty() || fields.size() != csv_columns_.size()) return false;
  MetricPoint base;
  base.line = line_no;
  Found found[64];
  int nfound = 0;
  for (size_t i = 0; i < fields.size(); ++i) {
    std::string_view f = fields[i];
    if (f.empty()) continue;
    double v = 0;
    const char* end = ReadNumber(f.data(), f.data() + f.size(), &v);
    if (end != f.data() + f.size()) return false;  // not a row of numbers
    int code = csv_columns_[i];
    if (code == kKeyStep) base.step = v;
    else if (code == kKeyEpoch) base.epoch = v;
    else if (code >= 0 && code < kSeriesCount) found[nfound++] = {code, v};
  }
  AddRow(base, found, nfound, &series_, &present_);
  return true;
}

// Note: [One column per series]. A table or CSV header may name two columns that are one series here: a
// validation and a test loss ("Epoch\tTime\tTrain Loss\tTrain ACC\tVal Loss\tVal ACC\tTest Loss\tTest ACC\tLR",
// both val_loss), "loss" beside "train_loss". Read both, each row added two points to the series, the
// validation's and the test's in turn: a series that zigzags between two curves, read by the detectors as
// oscillation or spikes. As on a line that prints both (Note: [Evaluation lines]), the first column printed
// is the series' and the second is not read.

// Note: [Epoch tables]. fastai's Learner.fit prints one table per call: a header row of blank-separated
// column names that starts with "epoch" ("epoch     train_loss  valid_loss  accuracy  time"), then one
// row of numbers per epoch, aligned under it ("0         1.612741    1.305512    0.532000  00:10").
// The rows hold no series name, so no other reader sees them. A header row sets the columns (a name
// that is no series is not read; fastai's metrics are computed on the validation set, so an accuracy
// column beside a validation loss is the validation accuracy); a row with as many fields, each a number,
// fastai's "#na#" (a value not computed) or an mm:ss time, adds one point per series with the first
// column as its epoch. Any other line leaves the columns for the next row (fastai's warnings and
// progress bars are printed between rows). The same table reaches issues in two other prints: as a Markdown
// table ("| Epoch | Train Loss | Val Loss |", its "|---|" rule, rows between bars), and as a pandas DataFrame of the
// run's history, whose rows start with the frame's index (an integer column the header does not name).
// A third reaches issues from notebooks: the Trainer's HTML table copied as text, its cells between tabs,
// its names holding blanks ("Epoch\tTraining Loss\tValidation Loss\tAccuracy"), "No log" where a value was
// not computed, and by steps where evaluation ran every N steps ("Step\tTraining Loss\t..."): a header with
// a tab is split at tabs only, as are its rows, and a header may start with "step" (its first column then
// the rows' step). Pasted into a GitHub comment, the same table becomes a Markdown table without its outer
// bars ("Step | Training Loss | Validation Loss", "-- | -- | --", "150 | No log | 0.695841"): a header with
// a bar inside is split at bars, as are its rows. Only a bare accuracy ("accuracy", "acc") beside a validation loss is read as the
// validation accuracy; "train_acc" keeps its own. Ultralytics' trainers (YOLOv5, YOLOv7, Ultralytics 8) print the
// same kind of table, a header ("Epoch  gpu_mem  box  obj  cls  labels  img_size", "Epoch  GPU_mem  box_loss ...")
// before each epoch's row, with the epoch as "E/N", the memory with its unit ("3.19G", torch.cuda.memory_reserved
// in GB) and the progress bar after the last column's ':'; such a row is read up to that ':'.
bool MetricCollector::ScanTable(std::string_view text, std::uint64_t line_no) {
  // A Markdown table's row, "| 1 | 0.9 | 0.8 |", is split at its bars; any other line at its blanks.
  size_t lead = 0;
  while (lead < text.size() && (text[lead] == ' ' || text[lead] == '\t')) ++lead;
  const bool lead_bar = lead < text.size() && text[lead] == '|';
  // Cheap refusal first: a line that is no header ("epoch" or "step" first) while no table is open.
  if (table_columns_.empty() && !lead_bar && !EqualsNoCase(text.data() + lead, text.data() + text.size(), "epoch") &&
      !(EqualsNoCase(text.data() + lead, text.data() + text.size(), "step") && lead + 4 < text.size() &&
        (text[lead + 4] == '\t' || text[lead + 4] == ' '))) {
    return false;
  }
  // A table copied from a notebook's HTML output comes with its cells between tabs, and its names hold
  // blanks ("Epoch\tTraining Loss\tValidation Loss"): a header with a tab is split at tabs only, and so
  // are the rows under it.
  // The same table pasted into a GitHub comment becomes a Markdown table without its outer bars
  // ("Step | Training Loss | Validation Loss", "-- | --", "150 | No log | 0.695841"): a header with a
  // bar inside is split at bars, and so are the rows under it.
  if (table_columns_.empty()) {
    table_tabs_ = !lead_bar && text.find('\t', lead) != std::string_view::npos;
    table_bars_ = !lead_bar && !table_tabs_ && text.find('|', lead) != std::string_view::npos;
  }
  const bool markdown = lead_bar || table_bars_;
  const bool tabs = !markdown && table_tabs_;
  std::string_view fields[32];
  size_t n = 0;
  if (markdown || tabs) {
    for (size_t i = lead_bar ? lead + 1 : lead; i < text.size();) {
      size_t j = text.find(markdown ? '|' : '\t', i);
      const bool last = j == std::string_view::npos;
      if (last) j = text.size();
      size_t a = i, b = j;
      while (a < b && (text[a] == ' ' || text[a] == '\t')) ++a;
      while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t')) --b;
      if (last && a == b) break;  // nothing after the closing bar
      if (n == 32) return false;
      fields[n++] = text.substr(a, b - a);
      i = j + 1;
    }
    // The row under the header, "|---|:---:|": the columns stay.
    bool rule = markdown && n > 0;
    for (size_t k = 0; k < n && rule; ++k) {
      rule = !fields[k].empty();
      for (char c : fields[k]) rule = rule && (c == '-' || c == ':');
    }
    if (rule) return !table_columns_.empty();
  } else {
    for (size_t i = lead; i < text.size();) {
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
      if (i >= text.size()) break;
      size_t j = i;
      while (j < text.size() && text[j] != ' ' && text[j] != '\t') ++j;
      if (n == 32) return false;
      fields[n++] = text.substr(i, j - i);
      i = j;
    }
  }
  if (n < 3) return false;
  const bool epoch_first = EqualsNoCase(fields[0].data(), fields[0].data() + fields[0].size(), "epoch") && fields[0].size() == 5;
  const bool step_first = EqualsNoCase(fields[0].data(), fields[0].data() + fields[0].size(), "step") && fields[0].size() == 4;
  // Note: [Two-word names in a blank-separated header]. fastai 1.0's Recorder (fastai/basic_train.py,
  // 1.0.0 to 1.0.2x) wrote its header as '  '.join(['epoch', 'train loss', 'valid loss'] + metric names):
  // names that hold a blank, in a header split at blanks ("epoch  train loss  valid loss  accuracy"),
  // over rows with one field per name ("0  nan  nan  0.997788"). Pasted outside a code block the two
  // blanks between names become one, so the name's own blank cannot be told from a separator by width.
  // A header word that names no series (nothing, or a split: "train", "valid"), followed after exactly one
  // blank by a word with which it names a series ("train" + "loss" = train_loss, "valid" + "loss" =
  // valid_loss), is read as that one name; a first word that names a series itself ("lr loss") is not joined. A row is read only where its field count
  // matches the header's (below), so a wrong join reads no row rather than a wrong one.
  bool joined[32] = {};
  if (epoch_first && !markdown && !tabs && table_columns_.empty()) {
    size_t m = 0;
    for (size_t i = 0; i < n; ++i) {
      std::string_view f = fields[i];
      if (i + 1 < n && fields[i + 1].data() == f.data() + f.size() + 1 && f.data()[f.size()] == ' ') {
        char a[kMaxKey], ab[kMaxKey];
        size_t an = 0, abn = 0;
        const std::string_view pair(f.data(), f.size() + 1 + fields[i + 1].size());
        int alone = -1;
        if (Lower(f, a, &an)) alone = Keys().Find(a, an);
        if (an > 0 && (alone < 0 || alone >= kSeriesCount) && Lower(pair, ab, &abn)) {
          ab[f.size()] = '_';
          const int code = Keys().Find(ab, abn);
          if (code >= 0 && code < kSeriesCount) {
            joined[m] = true;
            fields[m++] = pair;
            ++i;
            continue;
          }
        }
      }
      fields[m++] = f;
    }
    n = m;
  }
  if (epoch_first || step_first) {
    std::vector<int> columns(n, -1);
    bool bare_acc[32] = {};
    bool any = false, val_loss = false, whole_loss = false;
    int parts = 0;
    // Note: [Loss terms in a table]. Ultralytics' trainers print the terms of their loss and no total: YOLOv8's
    // "Epoch GPU_mem box_loss cls_loss dfl_loss Instances Size" (ultralytics/yolo/engine/trainer.py, 8.0.x:
    // the loss it steps on is the terms' sum times the batch size), YOLOv5 7.0's "box_loss obj_loss cls_loss",
    // YOLOv5 6.x's bare "box obj cls" after "gpu_mem" (and before 6.0 a "total" column, their sum). The loss
    // of such a row is the sum of its terms, a NaN in any term a NaN loss; a table that prints a whole
    // loss ("loss", "train_loss", YOLOv5's "total") keeps it, and its terms stay unread. Only a table with the
    // trainers' "gpu_mem" second: elsewhere two losses side by side may be two models' (a GAN's g_loss and d_loss).
    char second[kMaxKey];
    size_t second_n = 0;
    const bool yolo = n > 1 && Lower(fields[1], second, &second_n) && std::string_view(second, second_n) == "gpu_mem";
    for (size_t i = 0; i < n; ++i) {
      // A header holds names only: a letter first, then letters, digits and '_' ("f1_score"); in a
      // Markdown header also blanks, '-', '/' and '.' between words ("Train Loss", "val/loss"), read as '_'.
      if (fields[i].empty() || Class(fields[i][0]) != kAlpha) return false;
      for (char c : fields[i]) {
        const bool joiner = ((markdown || tabs) && (c == ' ' || c == '-' || c == '/' || c == '.')) || (joined[i] && c == ' ');
        if (Class(c) != kAlpha && Class(c) != kDigit && !joiner) return false;
      }
      char buf[kMaxKey];
      size_t m = 0;
      if (!Lower(fields[i], buf, &m)) return false;  // a word too long: not a header
      for (size_t k = 0; k < m; ++k) {
        if (buf[k] == ' ') buf[k] = '_';
      }
      int code = Keys().Find(buf, m);
      if (i == 0 && step_first) code = kKeyStep;
      const std::string_view name(buf, m);
      if (yolo && name == "total") code = S(SeriesId::kLoss);
      if (code < 0 && yolo &&
          ((m > 5 && name.substr(m - 5) == "_loss") ||
           name == "box" || name == "obj" || name == "cls" || name == "dfl" || name == "kps" || name == "seg")) {
        code = kKeyLossPart;
        ++parts;
      }
      whole_loss = whole_loss || code == S(SeriesId::kLoss);
      // Note: [One column per series]: a second column of a series already in the header is not read.
      if (code >= 0 && code < kSeriesCount && std::find(columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(i), code) !=
                                                   columns.begin() + static_cast<std::ptrdiff_t>(i)) {
        code = -1;
      }
      if (code == kKeyEpoch || code == kKeyStep || code == kKeyLossPart || (code >= 0 && code < kSeriesCount)) columns[i] = code;
      any = any || (code >= 0 && code < kSeriesCount);
      val_loss = val_loss || code == S(SeriesId::kValLoss);
      // Only a bare "accuracy" is the validation set's beside a validation loss; "train_acc" says whose it is.
      bare_acc[i] = code == S(SeriesId::kAcc) && (std::string_view(buf, m) == "acc" || std::string_view(buf, m) == "accuracy");
    }
    if (parts > 0 && (whole_loss || parts < 2)) {
      for (int& c : columns) c = c == kKeyLossPart ? -1 : c;
      parts = 0;
    }
    any = any || parts > 0;
    if (!any || (columns[0] != kKeyEpoch && columns[0] != kKeyStep)) return false;
    if (val_loss) {
      for (size_t i = 0; i < n; ++i) {
        if (bare_acc[i]) columns[i] = S(SeriesId::kValAcc);
      }
    }
    table_columns_ = std::move(columns);
    return true;
  }
  // A pandas DataFrame printed whole puts its index before each row: one integer field more than the
  // header has ("0      1      0.9000    0.8000" under "   epoch  train_loss  val_loss").
  if (!markdown && !table_columns_.empty() && n == table_columns_.size() + 1) {
    long long index = 0;
    if (ReadInt(fields[0].data(), fields[0].data() + fields[0].size(), &index) == fields[0].data() + fields[0].size()) {
      for (size_t k = 0; k + 1 < n; ++k) fields[k] = fields[k + 1];
      --n;
    }
  }
  // An Ultralytics/YOLOv5 training row ends its last column with ':' and goes on with the epoch's progress bar
  // ("4/399  3.19G  0.05632 ...  129  416: 100%|####| 367/367 [06:20<00:00,  1.04s/it]"): the row is the fields
  // up to that ':' (Note: [Epoch tables]).
  if (!markdown && !tabs && !table_columns_.empty() && n > table_columns_.size()) {
    std::string_view& last = fields[table_columns_.size() - 1];
    if (last.size() > 1 && last.back() == ':') {
      last.remove_suffix(1);
      n = table_columns_.size();
    }
  }
  if (table_columns_.empty() || n != table_columns_.size()) return false;
  MetricPoint base;
  base.line = line_no;
  Found found[32];
  int nfound = 0;
  double loss_sum = 0;
  int loss_parts = 0;
  for (size_t i = 0; i < n; ++i) {
    std::string_view f = fields[i];
    if (f == "#na#" || f == "No log") continue;  // fastai's and the Trainer's value not computed
    double v = 0;
    const int code = table_columns_[i];
    const char* const f_end = f.data() + f.size();
    const char* end = ReadNumber(f.data(), f_end, &v);
    // Ultralytics and YOLOv5 print the epoch as "E/N" (of N epochs) and the GPU memory with its unit ("3.19G")
    if (end && end < f_end && code == kKeyEpoch && *end == '/') {
      double total = 0;
      const char* t = ReadNumber(end + 1, f_end, &total);
      if (t == f_end) end = t;
    } else if (end && end < f_end && IsMemoryCode(code)) {
      v *= MemoryUnit(&end, f_end, v);
    }
    if (end != f_end) {
      // mm:ss (or h:mm:ss): the epoch's time, not read
      bool time = f.size() >= 4 && f.find(':') != std::string_view::npos;
      for (char c : f) time = time && (IsDigit(c) || c == ':');
      if (!time) return false;
      continue;
    }
    if (code == kKeyEpoch) base.epoch = v;
    else if (code == kKeyStep) base.step = v;
    else if (code == kKeyLossPart) loss_sum += v, ++loss_parts;
    else if (code >= 0 && code < kSeriesCount) found[nfound++] = {code, v};
  }
  if (loss_parts > 0) found[nfound++] = {S(SeriesId::kLoss), loss_sum};
  if (std::isnan(base.epoch) && std::isnan(base.step)) return false;
  AddRow(base, found, nfound, &series_, &present_);
  return true;
}

// The search of FindShape, with `matches` the layout test: inlined into FindShape and, with the AVX2
// test inlined too, into FindShapeAvx2 (one call per line instead of two and the lambda's).
template <typename Matches>
inline MetricCollector::Shape* MetricCollector::SearchShapes(size_t n, Matches matches) {
  auto found = [&](int at) {
    shapes_[at].used = ++shape_clock_;
    last_shape_ = at;
    return &shapes_[at];
  };
  // The shape matched last first: consecutive lines mostly share one.
  if (shape_lens_[last_shape_] == n && matches(shapes_[last_shape_])) return found(last_shape_);
  // Then the others of this length, in turn from there: one bit each (a loop the compiler turns into
  // one vector compare). A line of a length no shape has, as most are in text without metrics, ends
  // here.
  static_assert(kShapes == 16, "a shape per bit of a 16-bit mask");
  std::uint32_t same_len = 0;
  for (int k = 0; k < kShapes; ++k) same_len |= std::uint32_t{shape_lens_[k] == n} << k;
  same_len &= ~(std::uint32_t{1} << last_shape_);
  // Rotated so that bit 0 is the shape matched last.
  same_len = ((same_len >> last_shape_) | (same_len << (kShapes - last_shape_))) & 0xffff;
  for (; same_len; same_len &= same_len - 1) {
    const int at = (last_shape_ + __builtin_ctz(same_len)) & (kShapes - 1);
    if (matches(shapes_[at])) return found(at);
  }
  return nullptr;
}

#ifdef TRIAGE_AVX2
__attribute__((target("avx2"), flatten)) MetricCollector::Shape* MetricCollector::FindShapeAvx2(std::string_view text,
                                                                                      const char* limit) {
  static_assert(kShapeMax == kShapeBytes, "ShapeMatchesAvx2 reads whole blocks of a shape");
  return SearchShapes(text.size(), [&](const Shape& shape) __attribute__((target("avx2"))) {
    return ShapeMatchesAvx2(text.data(), text.size(), limit, shape.text, shape.spread);
  });
}
#endif

MetricCollector::Shape* MetricCollector::FindShape(std::string_view text, const char* limit) {
  const size_t n = text.size();
  if (shapes_mode_ == Shapes::kFullScan || n > kShapeMax) return nullptr;
#ifdef TRIAGE_AVX2
  if (shapes_avx2_) return FindShapeAvx2(text, limit);
#endif
  (void)limit;
  return SearchShapes(n, [&](const Shape& shape) { return ShapeMatchesPortable(text.data(), n, shape.text, shape.spread); });
}

const std::uint64_t* MetricCollector::Starts(size_t from, size_t to) {
  StartMarks& m = starts_;
  const size_t first = std::max(m.done, from / 64), last = (to + 63) / 64;
  if (first < last) MarkStarts(m.text, m.size, first, last, m.bits);
  m.done = std::max(m.done, last);
  return m.bits;
}

bool MetricCollector::NameMarks(size_t from, size_t to, bool* blank) {
#ifdef TRIAGE_AVX2
  StartMarks& m = starts_;
  const size_t first = std::max(m.names_done, from / 64), last = (to + 63) / 64;
  if (first < last) MarkNamesAvx2(m.text, m.size, first, last, m.names, m.blanks);
  m.names_done = std::max(m.names_done, last);
  *blank = AnyBit(m.blanks, from, to);
  return AnyBit(m.names, from, to);
#else
  (void)from, (void)to, (void)blank;
  return true;
#endif
}

// Out of line: ScanSegment's hot path keeps its registers (Note: [Quote markers]).
__attribute__((noinline)) bool MetricCollector::ScanPrefixed(std::string_view text, std::uint64_t line_no,
                                                             size_t first_bit, const char* limit) {
  const size_t skip = LinePrefixLength(text);
  if (skip == 0) return ScanAfterLogPrefix(text, line_no);
  ScanSegment(text.substr(skip), line_no, first_bit + skip, limit);
  return true;
}

// Note: [Learned prefix]: the readers of a line's first column read the text after a log record's
// header; a line none of them takes is scanned whole, as before (its shape recorded with the header).
bool MetricCollector::ScanAfterLogPrefix(std::string_view text, std::uint64_t line_no) {
  if (prefix_.learned()) {
    if (!prefix_.MayMatch(text)) return false;  // (ScanSegment asked already for its own lines)
    // Where the last prefix ended, a first-column layout begins with a digit, '[' or "epoch" (a CSV
    // header's or a table's): any other text there is no such line, and the prefix is not matched.
    size_t at = prefix_guess_;
    while (at < text.size() && text[at] == ' ') ++at;
    if (at >= text.size()) return false;
    const char c = text[at];
    if (!IsDigit(c) && c != '[' && c != 'e' && c != 'E') {
      // A system tool's row under the same header (Note: [System tool tables]: `free`'s "Mem:", top's
      // "MiB Mem :", nvidia-smi's "|"): read as that row or not at all, as before.
      if (c != 'M' && c != 'K' && c != 'G' && c != '|') return false;
      const size_t skip = prefix_.Match(text);
      if (skip == 0 || skip >= text.size()) return false;
      std::string_view row = text.substr(skip);
      while (!row.empty() && row.front() == ' ') row.remove_prefix(1);
      return !row.empty() && ScanToolRow(row, line_no);
    }
  }
  // The first record header's shape is the one read (the segmenter, which reads far fewer lines, learns
  // again at each header of another shape).
  const size_t skip = prefix_.learned() ? prefix_.Match(text) : prefix_.LearnRecord(text);
  if (skip == 0 || skip >= text.size()) return false;
  prefix_guess_ = skip;
  std::string_view rest = text.substr(skip);
  rest.remove_prefix(LinePrefixLength(rest));  // a rank prefix after it
  if (rest.empty()) return false;
  if (const char* start = TutorialStart(rest)) {
    LineValues tutorial;
    if (ReadTutorialProgress(start, rest, &tutorial)) {
      Emit(tutorial, line_no);
      return true;
    }
  }
  return ScanTable(rest, line_no) || ScanCsv(rest, line_no);
}

// Note: [System tool tables]
// Memory is also pasted as the system's tools print it, beside or instead of the program's own lines:
// - procps' `free` (run in a loop to watch a leak): a header row, then "Mem:  total  used  free  shared
//   buff/cache  available" (3.3.10+; "... shared  buffers  cached" before). The machine's RAM: the second
//   figure, `used`, is a point of host_memory. The figures are KiB by default, MiB with -m, GiB with -g,
//   and carry their unit with -h ("15Gi", "9.5G"); a row without units is taken by its total (at least
//   2.5e6: KiB; from 5000: MiB; below: GiB), which misreads only a machine of under 2.4 GB in KiB or
//   under 5 GB in MiB, and then only the absolute size (detectors compare ratios). Read by the name scan,
//   the row gave the total to the GPU's `memory` series: a constant. The "Swap:" row is not read.
// - procps' `top`: its summary row "MiB Mem :  31842.9 total,  180.4 free,  31300.2 used,  362.3 buff/cache"
//   ("KiB Mem : ..." before 3.3.12, "GiB Mem" with E toggled): the figure before "used" is host_memory, in
//   the row's unit. The name scan read the total after "Mem :" as the GPU's memory.
// - nvidia-smi's device table: a header row per GPU ("|   0  Tesla V100-SXM2...  On   | 00000000:00:1E.0 Off |
//   ...", the index, the name, then the bus id's cell with its ':' and '.'; one blank between index and name
//   suffices, as in a paste whose blanks were squeezed) over its figures ("| N/A   45C    P0    64W / 300W |
//   4567MiB / 16160MiB |     98%      Default |", the first cell holding the performance state P0-P12).
//   The used figure is a point of that GPU's series (Note: [One series per GPU]). The pastes read for
//   this (drivers 384, 410, 418, 470, 515, 550 and 595) keep that layout: the columns widen in the 550
//   and 595 tables, power is "N/A /  N/A" or "83W /  N/A" on some boards, and 470 on add a third row
//   under each GPU (its "MIG M." cell, no figures). Its process table ("... python   4563MiB |") has no
//   " / " total, and a MIG device's rows ("|  0    1   0   0  |     107MiB / 40192MiB    |", then its
//   BAR1 row) have no performance state: neither is read.
// Both are tested on the line's first byte before anything else, so no shape or name scan reads them; under a
// logger's record header (Note: [Learned prefix]) the text after the header is tested the same way.
// Note: [One memory figure per series]. A program that watches its memory often prints several figures,
// each on a line of its own: torch.cuda.memory_allocated, memory_reserved and their maxima, nvidia-smi's
// figure. Read into one series they alternate between quantities and hide the growth of each. A memory
// series keeps the figure of the name that gave it its first point (the name as printed, a two-word name
// with its first word; `free`'s and nvidia-smi's rows count as names of their own); the others' values are
// passed over (and their lines are not recorded as shapes, so that every one of them is checked here).
// On one line the first memory name's value is read, as for every series.
// Note: [One device per series]. A call's argument is part of its name: nvdiffrast#23's loop printed
// torch.cuda.memory_reserved(1), then memory_reserved(0) and the other counters of both GPUs, every
// iteration; read under one name, the two GPUs' figures (580 and 724 MB) alternated in the series as a
// rise and a fall at every print. "memory_allocated()" and "memory_allocated(0)" are two names too: a
// program prints one of them.
bool MetricCollector::MemoryNameAgrees(int code, std::uint32_t name, bool take) {
  std::uint32_t& first = memory_name_[code == S(SeriesId::kHostMemory) ? 1 : 0];
  if (first == 0) {
    if (take) first = name;
    return true;
  }
  return first == name;
}

bool MetricCollector::ScanToolRow(std::string_view text, std::uint64_t line_no) {
  const char* p = text.data();
  const char* const end = p + text.size();
  auto blanks = [&](const char* q) {
    while (q < end && (*q == ' ' || *q == '\t')) ++q;
    return q;
  };
  LineValues lv;
  // top's summary row: "MiB Mem :  31842.9 total,    180.4 free,  31300.2 used,    362.3 buff/cache" (procps
  // 3.3.12+; "KiB Mem : 16267024 total, ..." before): the figure before "used", in the row's unit.
  if (text.size() > 12 && (p[0] == 'K' || p[0] == 'M' || p[0] == 'G') && std::memcmp(p + 1, "iB Mem", 6) == 0) {
    const size_t at = text.find(" used");
    if (at == std::string_view::npos) return false;
    const char* num_end = p + at;
    const char* b = num_end;
    while (b > p && (IsDigit(b[-1]) || b[-1] == '.')) --b;
    double used = 0;
    if (b == num_end || ReadNumber(b, num_end, &used) != num_end) return false;
    if (!MemoryNameAgrees(S(SeriesId::kHostMemory), kTopRow, true)) return true;
    const double mb = p[0] == 'K' ? 1.0 / 1024 : p[0] == 'G' ? 1024.0 : 1.0;
    lv.have[S(SeriesId::kHostMemory)] = true;
    lv.found[lv.nfound++] = {S(SeriesId::kHostMemory), used * mb};
    Emit(lv, line_no);
    return true;
  }
  if (*p == 'M') {
    if (text.size() < 5 || std::memcmp(p, "Mem:", 4) != 0) return false;
    double fig[3] = {};
    double unit[3] = {};
    int n = 0;
    for (const char* q = blanks(p + 4); n < 3 && q < end; q = blanks(q)) {
      const char* r = ReadNumber(q, end, &fig[n]);
      if (!r || r == q) return false;
      const char* u = r;
      while (u < end && Class(*u) == kAlpha) ++u;
      if (u > r) {
        const char* v = r;
        unit[n] = MemoryUnit(&v, u, 0);
        if (v != u) return false;
      }
      if (u < end && *u != ' ' && *u != '\t' && *u != '\r') return false;
      q = u;
      ++n;
    }
    if (n < 3) return false;
    if (!MemoryNameAgrees(S(SeriesId::kHostMemory), kFreeRow, true)) return true;
    double mb = unit[1];
    if (mb == 0) mb = fig[0] >= 2.5e6 ? 1.0 / 1024 : fig[0] >= 5000 ? 1.0 : 1024.0;
    lv.have[S(SeriesId::kHostMemory)] = true;
    lv.found[lv.nfound++] = {S(SeriesId::kHostMemory), fig[1] * mb};
    Emit(lv, line_no);
    return true;
  }
  if (*p != '|') return false;
  static constexpr std::string_view kUsed = "MiB /";
  const size_t at = text.find(kUsed);
  // The first cell: from the opening '|' to the next.
  const size_t cell_end = text.find('|', 1);
  if (cell_end == std::string_view::npos) return false;
  if (at == std::string_view::npos) {
    // A device header row: "|", blanks, the GPU's index, a blank, its name, then the bus id's cell
    // ("| 00000000:01:00.0 Off |", "| 0000:01:00.0     N/A |"): a ':' and a '.' before the next '|'.
    const char* q = blanks(p + 1);
    long long gpu = -1;
    const char* r = ReadInt(q, end, &gpu);
    if (!r || r == q || r >= end || gpu < 0 || *r != ' ' || Class(*blanks(r)) != kAlpha) return false;
    const size_t bus = cell_end + 1;
    const size_t bus_end = text.find('|', bus);
    if (bus_end == std::string_view::npos) return false;
    const std::string_view cell = text.substr(bus, bus_end - bus);
    const size_t colon = cell.find(':');
    if (colon == std::string_view::npos || cell.find('.', colon) == std::string_view::npos) return false;
    smi_gpu_ = gpu < kSmiGpus ? static_cast<int>(gpu) : kSmiGpus;
    return false;
  }
  // The figures row's first cell holds the performance state ("P0" to "P12") after a blank: a MIG
  // device's row and its BAR1 row, which also print "MiB / ...MiB", have none.
  {
    bool perf = false;
    for (size_t i = 1; i + 1 < cell_end && !perf; ++i) {
      perf = text[i] == 'P' && IsDigit(text[i + 1]) && text[i - 1] == ' ';
    }
    if (!perf || at < cell_end) return false;
  }
  const char* u = p + at;
  const char* b = u;
  while (b > p && IsDigit(b[-1])) --b;
  if (b == u || b == p || b[-1] != ' ') return false;
  const char* t = blanks(u + kUsed.size());
  const char* total = t;
  while (t < end && IsDigit(*t)) ++t;
  if (t == total || end - t < 3 || std::memcmp(t, "MiB", 3) != 0) return false;
  // A GPU past the ones kept, or figures the program's own lines print: passed over.
  const int gpu = smi_gpu_ < 0 ? 0 : smi_gpu_;
  if (gpu >= kSmiGpus || !MemoryNameAgrees(S(SeriesId::kMemory), kSmiRow, true)) return true;
  double used = 0;
  if (ReadNumber(b, u, &used) != u) return false;
  if (gpu > 0) {  // (Note: [One series per GPU])
    if (smi_series_.size() <= static_cast<size_t>(gpu)) smi_series_.resize(static_cast<size_t>(gpu) + 1);
    const double none = std::numeric_limits<double>::quiet_NaN();  // no step or epoch, as Emit gives the row
    smi_series_[static_cast<size_t>(gpu)].Add(used, none, none, line_no);
    return true;
  }
  lv.have[S(SeriesId::kMemory)] = true;
  lv.found[lv.nfound++] = {S(SeriesId::kMemory), used};
  Emit(lv, line_no);
  return true;
}

// Note: [GPU query rows]. `nvidia-smi --query-gpu=timestamp,index,memory.used,... --format=csv [-l N]`, the
// form scripts and cluster jobs log GPU memory in, prints a header of the query's fields, each with its unit
// in brackets ("timestamp, index, name, memory.used [MiB], memory.total [MiB]"), then one row per GPU per
// sample, the fields separated by ", " ("2024/05/01 12:00:00.123, 0, NVIDIA A100-SXM4-40GB, 8000 MiB, 40960
// MiB"; "8000" with `nounits`). Neither reader saw them: the name scan needs a series name (and none is in
// a row), the CSV reader takes fields without blanks. The header (its first field a query name: small
// letters, '.' and '_', its unit in brackets after it or none) sets the columns of memory.used and of the index; a row with as many fields, the
// used one a number with "MiB" or none after it, is a point of that GPU's series, GPU 0's the `memory`
// series itself, as nvidia-smi's table rows are (the same figure name: Note: [One memory figure per series];
// Note: [One series per GPU]). Without an index column every row is read as GPU 0's (a query of one GPU,
// `-i 0`, has none). A header without memory.used, and `noheader` output, are not read.
bool MetricCollector::ScanSmiQuery(std::string_view text, std::uint64_t line_no) {
  auto split = [&](std::string_view line, std::string_view* fields, int max) {
    int n = 0;
    size_t pos = 0;
    while (n < max) {
      const size_t comma = line.find(", ", pos);
      fields[n++] = line.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
      if (comma == std::string_view::npos) return n;
      pos = comma + 2;
    }
    return max + 1;  // too many
  };
  constexpr int kMaxFields = 32;
  std::string_view fields[kMaxFields];
  if (text[0] >= 'a' && text[0] <= 'z') {
    // A header? Its first field is a query name, then ", " (most lines fail at their first blank).
    size_t i = 0;
    while (i < text.size() && ((text[i] >= 'a' && text[i] <= 'z') || text[i] == '.' || text[i] == '_')) ++i;
    if (i + 2 < text.size() && text[i] == ' ' && text[i + 1] == '[') {  // its unit: "utilization.gpu [%], ..."
      const size_t close = text.find(']', i);
      if (close != std::string_view::npos && close - i <= 8) i = close + 1;
    }
    if (i + 1 < text.size() && text[i] == ',' && text[i + 1] == ' ' && text.find("memory.used") != std::string_view::npos) {
      const int n = split(text, fields, kMaxFields);
      if (n > kMaxFields) return false;
      int used = -1, index = -1;
      for (int f = 0; f < n; ++f) {
        std::string_view name = fields[f].substr(0, fields[f].find(' '));
        if (name == "memory.used") used = f;
        if (name == "index") index = f;
      }
      if (used < 0) return false;
      query_fields_ = n;
      query_used_ = used;
      query_index_ = index;
      return true;
    }
  }
  if (query_used_ < 0) return false;
  if (text.find(", ") == std::string_view::npos || split(text, fields, kMaxFields) != query_fields_) return false;
  std::string_view cell = fields[query_used_];
  double used = 0;
  const char* const c_end = cell.data() + cell.size();
  const char* r = ReadNumber(cell.data(), c_end, &used);
  if (!r || r == cell.data() || !(r == c_end || std::string_view(r, static_cast<size_t>(c_end - r)) == " MiB")) return false;
  long long gpu = 0;
  if (query_index_ >= 0) {
    std::string_view idx = fields[query_index_];
    const char* q = ReadInt(idx.data(), idx.data() + idx.size(), &gpu);
    if (q != idx.data() + idx.size() || q == idx.data() || gpu < 0) return false;
  }
  if (gpu >= kSmiGpus || !MemoryNameAgrees(S(SeriesId::kMemory), kSmiRow, true)) return true;
  if (gpu > 0) {  // (Note: [One series per GPU])
    if (smi_series_.size() <= static_cast<size_t>(gpu)) smi_series_.resize(static_cast<size_t>(gpu) + 1);
    const double none = std::numeric_limits<double>::quiet_NaN();
    smi_series_[static_cast<size_t>(gpu)].Add(used, none, none, line_no);
    return true;
  }
  LineValues lv;
  lv.have[S(SeriesId::kMemory)] = true;
  lv.found[lv.nfound++] = {S(SeriesId::kMemory), used};
  Emit(lv, line_no);
  return true;
}

// Note: [Key-value tables]. OpenAI's logger (baselines' logger.py HumanOutputFormat.writekvs, copied into
// guided-diffusion, improved-diffusion and the repositories built on them) and Stable-Baselines3's print
// each logging call as a block: a row of dashes, then one row per key, "| loss          | nan       |"
// ('| %s | %s |' with both cells padded to the block's widths; values '%-8.3g'; SB3 indents the keys under
// "| train/ |" headings), then dashes again. The generic scan reads no value after a '|' (wild
// guided-diffusion-imagenet128-nan-divergence-loss-scale: its loss rows gave no point). A row of one cell
// holding a name and one holding its value is read here, for the names these loggers give the loss, the
// learning rate and the gradient norm. A block is one logging call, and guided-diffusion prints "mse" and
// "vb" beside "loss" (the sum of the two): the names the aliases map to the loss besides those ("mse") are
// not read here, or a block would give the loss twice. Memory figures are left to the generic scan (Note:
// [One memory figure per series]), and so is any other row (the epoch tables' and nvidia-smi's rows have
// more cells, or no name in the first). `text` starts with '|'. Returns true when the row gave a value.
namespace {
bool ReadKeyValueRow(std::string_view text, LineValues* lv) {
  const char* const begin = text.data();
  const char* end = begin + text.size();
  while (end > begin && (end[-1] == ' ' || end[-1] == '\t')) --end;
  if (end - begin < 5 || end[-1] != '|') return false;
  auto blanks = [&](const char* q) {
    while (q < end && *q == ' ') ++q;
    return q;
  };
  const char* name = blanks(begin + 1);
  const char* name_end = name;
  while (name_end < end && *name_end != ' ' && *name_end != '|') ++name_end;
  const char* bar = blanks(name_end);
  if (name_end == name || bar >= end - 1 || *bar != '|' || bar[-1] != ' ') return false;
  const char* value = blanks(bar + 1);
  const char* value_end = value;
  while (value_end < end && *value_end != ' ' && *value_end != '|') ++value_end;
  if (value_end == value || blanks(value_end) != end - 1 || value[-1] != ' ') return false;
  if (!IsWordOf(name, name_end, {"loss", "total_loss", "train_loss", "val_loss", "eval_loss", "test_loss", "grad_norm",
                                 "lr", "learning_rate"})) {
    return false;
  }
  char buf[kMaxKey + 1];
  size_t n = 0;
  if (!Lower(std::string_view(name, static_cast<size_t>(name_end - name)), buf, &n)) return false;
  const int code = Keys().Find(buf, n);
  if (code < 0 || code >= kSeriesCount || IsMemoryCode(code)) return false;
  return ReadValue(code, value, value_end, true, lv) == value_end;
}
}  // namespace

__attribute__((noinline)) void MetricCollector::ScanSegment(std::string_view text, std::uint64_t line_no,
                                                            size_t first_bit, const char* limit) {
  if (text.empty()) return;
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  // A Docker Compose service's name before the line (Note: [Compose runs] in formats/compose_prefix.h):
  // once the input has shown such prefixes the line is read as the text after it; before, a prefixed
  // line records no shape, so that the next one is seen here too.
  std::string_view service;
  if (Class(begin[0]) == kAlpha || Class(begin[0]) == kDigit) {
    if (const size_t n = compose_.Strip(text, &service)) {
      ScanSegment(text.substr(n), line_no, first_bit + n, limit);
      return;
    }
  }
  // A line that opens by announcing an epoch (Note: [Evaluations across epochs]): first, so that every
  // mode and every path below (a shape's replay, the marks that drop a line without a name) agree.
  if (Class(begin[0]) == kAlpha) NoteEpoch(EpochHeaderValue(text));
  // A line of a recent shape: read only its recorded numbers (Note: [Line shapes]).
  // No shape of this length (most lines of text without metrics): one bit says so, here rather than in
  // FindShape (there the compiler computed the lengths' mask ahead of it, and saved registers first);
  // after the length of the shape matched last, which a run of metric lines mostly has.
  const size_t n = text.size();
  const bool may_match = shape_lens_[last_shape_] == n || (n <= kShapeMax && ((shape_len_bits_[n / 64] >> (n % 64)) & 1));
  Shape* shape = may_match ? FindShape(text, limit) : nullptr;
  if (shape) {
    LineValues lv;
    bool same = true;
    for (int i = 0; i < shape->events_n && same; ++i) {
      ShapeEvent& e = shape->events[i];
      // In place where the layout allows (Note: [Fixed layouts]): the reading ends where it did.
      if (e.layout.word_shift && ReplayWord(&e, begin + e.at, limit, &lv)) continue;
      if (e.layout.form == metrics_internal::NumberLayout::kDecimal &&
          ReplayDecimal(e.code, e.layout, begin + e.at, limit, &lv)) {
        continue;
      }
      if (e.layout.form == metrics_internal::NumberLayout::kCounter) {
        ReplayCounter(e.layout, begin + e.at, limit, &lv);
        continue;
      }
      const char* r = e.code == kBarEvent ? ReadBar(begin + e.at, end, &lv)
                                          : ReadValue(e.code, begin + e.at, end, true, &lv);
      same = (r ? static_cast<std::uint16_t>(r - begin) : kNoEnd) == e.end;
    }
    if (same) {
      if (HasEvaluation(lv)) lv.bar_rate = HasBarRate(text);
      Emit(lv, line_no);
      return;
    }
  }
  // A tqdm bar glued in front of the line the program printed next (Note: [Bar before a line]).
  if (const size_t bar = GluedBarLength(text)) {
    ScanSegment(text.substr(0, bar), line_no, first_bit, limit);
    ScanSegment(text.substr(bar), line_no, first_bit + bar, limit);
    return;
  }
  // The tutorial layouts (Note: [Tutorial progress lines]). Whether a line is one depends only on
  // where it has digits, so no recorded shape (those are of lines this refused) can hide one.
  if (const char* start = TutorialStart(text)) {
    LineValues tutorial;
    if (ReadTutorialProgress(start, text, &tutorial)) {
      Emit(tutorial, line_no);
      return;
    }
  }
  // A loss printed as the tensor it is (Note: [Printed loss tensors]).
  if (const char* tensor = LossTensorStart(text)) {
    LineValues printed;
    if (ReadLossTensor(tensor, text, &printed)) {
      Emit(printed, line_no);
      return;
    }
  }
  // Memory as `free` and nvidia-smi print it (Note: [System tool tables]), and nvidia-smi's query rows
  // (Note: [GPU query rows]): a header starts with a query field's name, in small letters.
  if ((begin[0] == 'M' || begin[0] == '|' || begin[0] == 'K' || begin[0] == 'G') && ScanToolRow(text, line_no)) return;
  if ((query_used_ >= 0 || (begin[0] >= 'a' && begin[0] <= 'z')) && ScanSmiQuery(text, line_no)) return;
  // A key-value table's row (Note: [Key-value tables]).
  if (begin[0] == '|') {
    LineValues row;
    if (ReadKeyValueRow(text, &row)) {
      Emit(row, line_no);
      return;
    }
  }
  // A line that starts with quote markers or a rank prefix (Note: [Quote markers]) is read as the text
  // after them, so that the readers of a line's first column (tutorial layouts, epoch tables, CSV rows)
  // see it as printed (TutorialStart above refuses both). One lookup of the first byte answers this
  // test and the table's.
  const unsigned char line_start = kLineStarts.c[static_cast<unsigned char>(begin[0])];
  const bool table = !table_columns_.empty();
  if ((line_start != 0) | table) {
    if ((line_start & kMayStartPrefix) && ScanPrefixed(text, line_no, first_bit, limit)) return;
    if ((line_start & kMayStartRecord) && (!prefix_.learned() || prefix_.MayMatch(text)) &&
        ScanAfterLogPrefix(text, line_no)) {
      return;
    }
    // An epoch table's header or row (Note: [Epoch tables]): rows hold no name, so before the marks.
    if ((table || (line_start & kMayStartTable)) && ScanTable(text, line_no)) return;
  }
  // Marked: no fragment, so at most a CSV row, and none with a blank (Note: [Name marks]); or PyG's
  // bare split accuracies, which hold no fragment (Note: [Bare split names]).
  if (shapes_avx2_) {
    bool blank = false;
    if (!NameMarks(first_bit, first_bit + text.size(), &blank)) {
      if (!blank) ScanCsv(text, line_no);
      if (!blank || !(line_start & kMayStartBare) || !BareSplitLine(text)) return;
    }
  }
  if (ScanCsv(text, line_no)) return;
  // No series name can be in the line (Note: [Name fragments]): nothing to read.
  if (shapes_mode_ != Shapes::kFullScan) {
#ifdef TRIAGE_AVX2
    const bool may = shapes_avx2_ ? MayHoldNameAvx2(begin, text.size(), limit)
                                  : MayHoldNamePortable(begin, text.size());
#else
    const bool may = MayHoldNamePortable(begin, text.size());
#endif
    if (!may && !((line_start & kMayStartBare) && BareSplitLine(text))) return;
  }
  // Record the line's shape when it may have one: a short line with a blank (ScanCsv read none of it).
  ShapeEvent events[kShapeEvents];
  int events_n = 0;
  bool record = shapes_mode_ != Shapes::kFullScan && service.empty() && text.size() <= kShapeMax &&
                (std::memchr(begin, ' ', text.size()) || std::memchr(begin, '\t', text.size()));
  auto note = [&](int code, const char* at, const char* r) {
    if (!record) return;
    if (events_n == kShapeEvents) {
      record = false;
      return;
    }
    events[events_n++] = {static_cast<std::int16_t>(code), static_cast<std::uint16_t>(at - begin),
                          r ? static_cast<std::uint16_t>(r - begin) : kNoEnd, Layout(code, at, r, end)};
  };
  const KeyTable& keys = Keys();
  LineValues lv;
  // The previous unknown word, for two-word names ("train loss", "grad norm", "learning rate").
  char prev[kMaxKey];
  size_t prev_n = 0;
  const char* prev_end = nullptr;
  // Note: [Evaluation lines]. A line that opens with an evaluation word ("val Loss: 0.69 Acc: 0.50", the
  // torchvision fine-tuning tutorial's phase lines; "Test set: Average loss: 2.30, Accuracy: ...", the
  // MNIST example's) prints an evaluation's loss and accuracy under their bare names, and so does the
  // rest of a line after a qualified evaluation name ("train Loss: 0.5 Acc: 0.8 val Loss: 0.6 Acc: 0.7").
  // There a bare loss is val_loss and a bare accuracy val_acc; a qualified training name ends it.
  bool first_word = true;
  bool eval_context = false;
  bool best_before = false;  // the last word before this name was "best" (Note: [Best so far])
  const char* best_end = nullptr;
  int bare_splits = -1;  // BareSplits of the line, once a bare split name is met
  int loss_heading = -1;  // the loss a heading with terms after it named (Note: [Loss terms under a heading])

  // Visit only word starts and '|' bytes (Note: [Metric scan]): starts bit first_bit + i is text[i].
  // Whatever a visit consumes (a word, a value, a bar counter) moves p past the candidates inside it.
  const char* p = begin;
  // Note: [Step field first]. Some loops print the step as a bare number in a '|' field of its own
  // before the named values: "1220 | loss 3.2969 | lr 2.640000e-04 | 13880.16ms" (a nanoGPT-style
  // pretraining loop). A line that opens, blanks aside, with an integer and then blanks and a '|'
  // gives that integer as the line's step; read as nothing before (digits start no word to visit),
  // its points were labelled by position, and a paste from far into a run looked like one from its
  // start. Recorded with the shape, so replayed lines of the layout read their step too.
  {
    const char* d = begin;
    while (d < end && *d == ' ') ++d;
    const char* q = d;
    while (q < end && IsDigit(*q)) ++q;
    const char* bar = q;
    while (bar < end && *bar == ' ') ++bar;
    if (q > d && bar > q && bar < end && *bar == '|') {
      const char* r = ReadValue(kKeyStep, d, end, false, &lv);
      note(kKeyStep, d, r);
      if (r) p = r;
    }
  }
  eval_context = GluedToTime(begin, end);  // Note: [Time before the first word]
  BitCursor cursor(Starts(first_bit, first_bit + text.size()), first_bit, first_bit + text.size());
  for (size_t bit; cursor.Next(&bit);) {
    const char* at = begin + (bit - first_bit);
    if (at < p) continue;
    p = at;
    if (*p == '|') {
      ++p;
      if (p + 1 < end && p[0] == ' ' && Class(p[1]) == kDigit) {
        const char* r = ReadBar(p, end, &lv);
        note(kBarEvent, p, r);
        if (r) p = r;
      }
      continue;
    }
    // A word: letters, digits, '_', and '-' '/' '.' between letters (train/loss, grad-norm).
    const char* w = p;  // moved to a dotted word's last part below (Note: [Memory API names])
    const char* dot = nullptr;  // the word's last '.'
    ++p;
    while (p < end) {
      unsigned char c = Class(*p);
      if (c == kAlpha || c == kDigit) {
        ++p;
      } else if ((c == kWordPunct || *p == '.') && p + 1 < end && Class(p[1]) == kAlpha) {
        if (*p == '.') dot = p;
        p += 2;
      } else if (*p == '@' && p + 1 < end && Class(p[1]) == kDigit) {  // "Acc@1"
        p += 2;
      } else {
        break;
      }
    }
    size_t wn = static_cast<size_t>(p - w);
    if (first_word) {
      first_word = false;
      eval_context = eval_context || IsEvaluationWord(w, wn);
    }
    if (!eval_context && EvaluationMarked(begin, w, wn, p, end)) eval_context = true;
    // Note: [Bracketed split after a record header]. A split's word in brackets that opens the message,
    // "[TEST] Loss: 2.3440, Error: 8999/10000 (90%)" (pytorch/pytorch#2293's CIFAR-10 loop), is the
    // line's first word as printed, and so an evaluation's line (Note: [Evaluation lines]); behind a
    // logger's record header on every line ("2024-05-01 12:00:00,123 INFO [TEST] Loss: ...") the first
    // word was the header's, the line was read as the training's, and its loss joined the training
    // series between the training lines' values. So a bracketed split word where the record header
    // ends (Note: [Learned prefix]: LogPrefix::RecordHeader, or the learned prefix's length) marks the
    // line as an evaluation's too: right after the header, blanks between them or none, or as the
    // header's last bracketed tag (the header reader takes "[TEST] " for one). Asked only of such a
    // word, so the header is read on few lines.
    if (!eval_context && w > begin && w[-1] == '[' && p < end && *p == ']' && IsEvaluationWord(w, wn)) {
      size_t h = LogPrefix::RecordHeader(text);
      if (h == 0 && prefix_.learned()) h = prefix_.Match(text);
      if (h > 0) {
        const char* open = w - 1;
        const char* a = open;  // the blanks before the bracket
        while (a > begin && (a[-1] == ' ' || a[-1] == '\t')) --a;
        const char* z = p + 1;  // the blanks after it
        while (z < end && (*z == ' ' || *z == '\t')) ++z;
        const char* e = begin + h;
        eval_context = (e >= a && e <= open) || (e > p && e <= z);
      }
    }
    // Note: [Evaluation fields]. A log whose fields are set off by '|' names the split in a field of its
    // own: fairseq's "| epoch 001 | valid on 'valid' subset | loss 7.102 | nll_loss 6.51" and, after a
    // logger's header, "| INFO | valid | epoch 001 | ... | loss 7.102". The loss after it is the
    // evaluation's (read before as the training loss, between the training lines' losses). An evaluation
    // word right after a '|' and not followed by a number ("| val 2.28 |" is a bare validation value,
    // Note: [Bare split names]) makes the rest of the line an evaluation's, as a first word does.
    if (!eval_context && IsEvaluationWord(w, wn) && AfterFieldBar(begin, w) && !NumberFollows(p, end)) {
      eval_context = true;
    }
    // Note: [Best so far]. "best" before a name marks the run's best value so far, not this point's:
    // "epoch 247 best test acc: 0.9120, train loss: 1.07; ... val acc: 0.5000", "best val loss: 0.40,
    // val loss: 0.45". Read as the series, the best took the line's place (the first value of a series
    // on a line wins) and a falling or rising series read as a constant. Its value is passed over, and
    // so is an epoch or step after "best" (the best one's, not this line's).
    if (best_before) {  // only the words right after it, blanks between, name the best value
      for (const char* b = best_end; b < w && best_before; ++b) best_before = *b == ' ';
      best_end = p;
    }
    if (wn == 4 && EqualsNoCase(w, w + 4, "best")) {
      best_before = true;
      best_end = p;
      prev_n = 0;
      continue;
    }
    // Note: [Memory API names]. A memory figure is often labelled with the call that measured it,
    // "torch.cuda.memory_allocated(0) 318986240", "torch.cuda.max_memory_reserved()/1024**2: 812": a
    // dotted word whose last part is a memory name is read as that name (only a memory name: "val.loss"
    // is left alone, its split would be lost), and the call's parentheses and a divisor after them are
    // passed over below (read before as the value 0 of "(0)", or not at all).
    if (dot && !keys.MayBeName(w, wn)) {
      const char* last = dot + 1;
      const size_t tn = static_cast<size_t>(w + wn - last);
      char tail[kMaxKey + 1];
      size_t lower_n = 0;
      if (keys.MayBeName(last, tn) && Lower(std::string_view(last, tn), tail, &lower_n) &&
          IsMemoryCode(keys.Find(tail, lower_n))) {
        w = last;
        wn = tn;
      }
    }
    // A word that is no name and cannot start one ("val", "train", "grad" are names here) is skipped
    // without copying; it ends any two-word name.
    if (!keys.MayBeName(w, wn)) {
      prev_n = 0;
      best_before = false;
      continue;
    }
    // Some names hold a digit ("acc@1" and "acc@5", "top1" and "top5", "f1"), and a line's shape leaves
    // its digits' values out (Note: [Line shapes]): a line holding a word that may be such a name is
    // scanned in full, never recorded, so that no line is replayed as another naming a different series.
    if (record && std::any_of(w, w + wn, [](char c) { return c >= '0' && c <= '9'; })) record = false;
    // Two-word names first, so "val loss" is not read as "loss". An abbreviated first word keeps its
    // dot before the blank: "Val. Loss: 4.123" (the seq2seq tutorials' epoch line) is the validation loss.
    const bool second_word =
        prev_n > 0 && prev_end &&
        ((w == prev_end + 1 && (*prev_end == ' ' || *prev_end == '_')) ||
         (w == prev_end + 2 && prev_end[0] == '.' && prev_end[1] == ' '));
    // A progress log prints the same few names on every line: a memo of words as printed (up to 16
    // bytes) that were names on their own skips lower-casing and the table.
    std::uint64_t key[2] = {0, 0};
    WordMemo* memo = nullptr;
    int code = -1;
    if (!second_word && wn <= sizeof key) {
      if (kLittleEndian && end - w >= 16) {
        std::memcpy(key, w, 16);  // a fixed-size copy is two loads; then clear the bytes past the word
        if (wn < 8) {
          key[0] &= (std::uint64_t{1} << (8 * wn)) - 1;
          key[1] = 0;
        } else if (wn < 16) {
          key[1] &= (std::uint64_t{1} << (8 * (wn - 8))) - 1;
        }
      } else {
        std::memcpy(key, w, wn);
      }
      std::uint64_t h = (key[0] * 0x9E3779B97F4A7C15ull) ^ (key[1] + wn) * 0xC2B2AE3D27D4EB4Full;
      memo = &memo_[h >> (64 - kMemoBits)];
      if (memo->len == wn && memo->key[0] == key[0] && memo->key[1] == key[1]) code = memo->code;
    }
    bool split = false;  // a bare split name read as its accuracy
    bool train_named = false;  // a two-word name whose first word names the training split
    if (code < 0) {
      char buf[2 * kMaxKey + 1];
      size_t n = 0;
      if (!Lower(std::string_view(w, wn), buf, &n)) {
        prev_n = 0;
        continue;
      }
      if (second_word) {
        char joined[2 * kMaxKey + 1];
        std::memcpy(joined, prev, prev_n);
        joined[prev_n] = '_';
        std::memcpy(joined + prev_n + 1, buf, n);
        code = keys.Find(joined, prev_n + 1 + n);
        // A qualified name sets the context for the bare names after it (Note: [Evaluation lines]).
        // Note: [Summing words on an evaluation line]. Only a training word ends the context: "Avg loss",
        // "Mean loss", "Avg accuracy" on ignite's "Validation Results - Epoch: 1  Avg accuracy: 0.95 Avg loss:
        // 0.15" say how the evaluation's values were summed, and are the evaluation's (read before as the
        // training loss and accuracy, between the training lines').
        train_named = IsTrainingWord(prev, prev_n);
        if (!best_before && (code == S(SeriesId::kValLoss) || code == S(SeriesId::kValAcc))) eval_context = true;
        if (!best_before && train_named && (code == S(SeriesId::kLoss) || code == S(SeriesId::kAcc))) eval_context = false;
      }
      if (code < 0) code = keys.Find(buf, n);
      if ((code == kKeyBareTrain || code == kKeyBareEval) && !second_word) {
        // Note: [Bare split names]: "Train: 0.91, Val: 0.85, Test: 0.84" are the splits' accuracies.
        if (bare_splits < 0) bare_splits = BareSplits(begin, end);
        const bool loss_before = lv.have[S(SeriesId::kLoss)] || lv.have[S(SeriesId::kValLoss)];
        split = (bare_splits & 7) == 7 || ((bare_splits & 5) == 5 && loss_before);
        if (split) code = code == kKeyBareTrain ? S(SeriesId::kAcc) : S(SeriesId::kValAcc);
      }
      // Note: [Loss terms under a heading]: the terms' sum after the heading is that loss (never memoized:
      // elsewhere "total" stays unread).
      if (loss_heading >= 0 && code == kKeyIgnore && !second_word && wn == 5 && EqualsNoCase(w, w + 5, "total")) {
        code = loss_heading;
        memo = nullptr;
      }
      if (!split && (code < 0 || code >= kKeyIgnore)) {
        // Remember it: it may be the first half of a two-word name.
        std::memcpy(prev, buf, n);
        prev_n = n;
        prev_end = p;
        continue;
      }
      if (memo && !split) *memo = {{key[0], key[1]}, wn, code};
    }
    if (eval_context && !(second_word && train_named) && !split) {
      if (code == S(SeriesId::kLoss)) code = S(SeriesId::kValLoss);
      if (code == S(SeriesId::kAcc)) code = S(SeriesId::kValAcc);
    }
    prev_n = 0;
    // Separator: closing quote, spaces, ':', '=', an opening '[' or '('; at least one character. Also
    // the full-width colon U+FF1A that Chinese and Japanese input methods type ("Loss\xef\xbc\x9a1.98",
    // the PyTorch tutorials' print(f"...Loss\xef\xbc\x9a{loss}") in Chinese), as one separator.
    const char* q = p;
    int seps = 0;
    // Note: [MMEngine's axis]. MMEngine names the loop after its axis's word, "Epoch(train)  [1][ 100/391]"
    // and "Iter(train) [  50/1000]" (the iteration right-aligned to its total's width), where mmcv printed
    // "Epoch [1][100/391]": the split in brackets is passed over, so the epoch and step are read as
    // mmcv's (not read at all before). An evaluation's split (Note: [Marked evaluation lines]) is left
    // alone: its "[1][10/10]" counts the evaluation's batches, not training steps.
    bool loop_named = false;
    if ((code == kKeyEpoch || code == kKeyStep) && q < end && *q == '(') {
      const char* r = q + 1;
      while (r < end && Class(*r) == kAlpha) ++r;
      if (r < end && *r == ')' && r - q == 6 && std::memcmp(q + 1, "train", 5) == 0) {
        q = r + 1;
        loop_named = true;
      }
    }
    // Note: [Memory API names]: a call's parentheses right after a memory name ("(0)", "()",
    // "('cuda:0')", "(device=0)") and a divisor after them ("/1024**2", " / 1e9") are passed over. The
    // divisor's unit is not applied: the value is read as a figure without unit (detectors compare ratios).
    // Note: [One device per series]: the call's argument names the device it measured
    // ("memory_allocated(0)" and "memory_allocated(1)" on a machine of two GPUs), and is part of the name.
    const char* call_end = nullptr;
    if (IsMemoryCode(code) && q < end && *q == '(') {
      const char* r = q + 1;
      while (r < end && r - q <= 16 && *r != ')' && *r != ' ') ++r;
      if (r < end && *r == ')') {
        q = r + 1;
        call_end = q;
        record = false;
        const char* d = q;
        while (d < end && *d == ' ') ++d;
        if (d < end && *d == '/') {
          ++d;
          for (bool more = true; more;) {  // numbers joined by '*' or "**", blanks around them
            while (d < end && *d == ' ') ++d;
            const char* n0 = d;
            while (d < end && (IsDigit(*d) || *d == '.' || ((*d == 'e' || *d == 'E') && d > n0))) ++d;
            if (d == n0) break;
            q = d;
            const char* op = d;
            while (op < end && *op == ' ') ++op;
            more = op < end && *op == '*';
            if (more) {
              d = op + 1;
              if (d < end && *d == '*') ++d;
            }
          }
        }
      }
    }
    // A name in square brackets, "[loss]: 4.99" or "[Loss] nan" (loggers that bracket their keys):
    // the closing bracket is part of the separator.
    if (q < end && *q == ']' && w > begin && w[-1] == '[') {
      ++q;
      ++seps;
    }
    while (q < end && seps < 4) {
      if (*q == ' ' || *q == '\t' || *q == ':' || *q == '=' || *q == '"' || *q == '\'' || *q == '[' || *q == '(') {
        ++q;
      } else if (end - q >= 3 && static_cast<unsigned char>(q[0]) == 0xEF && static_cast<unsigned char>(q[1]) == 0xBC &&
                 static_cast<unsigned char>(q[2]) == 0x9A) {
        q += 3;
      } else {
        break;
      }
      ++seps;
    }
    if (seps == 0 && !loop_named) {
      // Note: [Value before the name]: "1.5 GB RSS" at the end of a line.
      double before = 0;
      if (IsMemoryCode(code) && !lv.have[code] && lv.nfound < 16 && !std::isnan(before = MemoryBeforeName(begin, w)) &&
          MemoryNameAgrees(code, Hash(w, wn) | 1, true)) {
        lv.have[code] = true;
        lv.found[lv.nfound++] = {code, before};
        record = false;
      }
      continue;
    }
    while (q < end && *q == ' ') ++q;  // column-aligned output pads with many blanks
    if (EqualsNoCase(q, end, "tensor(")) q = AfterTensorOpen(q + 7, end);
    // Note: [Summary lines]: a top-1 accuracy alone on its line is the evaluation's.
    if (code == S(SeriesId::kAcc) && wn == 4 && lv.nfound == 0 && EqualsNoCase(w, w + 4, "top1") && AloneOnItsLine(q, end)) {
      code = S(SeriesId::kValAcc);
    }
    // The first value of a series on a line wins (Lightning prints loss= and train_loss=); a later
    // one is read only to move past it.
    const bool axis = code == kKeyStep || code == kKeyEpoch;
    if (!axis) {
      const char* opener = q;
      while (opener > p && opener[-1] == ' ') --opener;
      if (opener > p && (opener[-1] == '[' || opener[-1] == '(')) {
        // Note: [Indices before a value].
        if (const char* v = AfterIndexList(q, end, opener[-1] == '[' ? ']' : ')')) {
          q = v;
        } else if (opener[-1] == '(') {
          // Note: [Qualified names].
          bool evaluation = false;
          if (const char* w2 = AfterQualifier(q, end, &evaluation)) {
            q = w2;
            if (evaluation && code == S(SeriesId::kLoss)) code = S(SeriesId::kValLoss);
            if (evaluation && code == S(SeriesId::kAcc)) code = S(SeriesId::kValAcc);
          }
        }
      } else if (q > p && q[-1] == ' ' && (*q == 'o' || *q == 'O')) {
        // Note: [What a value was averaged over].
        if (const char* v = AfterCountPhrase(q, end)) q = v;
      } else if (q > p && q[-1] == ' ' && (*q == 'f' || *q == 'F' || *q == 'a' || *q == 'A')) {
        // Note: [Step named before the value].
        if (const char* v = AfterStepPhrase(q, end)) q = v;
      }
    }
    if (best_before) {  // Note: [Best so far]: moved past, not kept
      best_before = false;
      LineValues passed;
      const char* r = ReadValue(code, q, end, false, &passed);
      if (r) p = r;
      continue;
    }
    bool keep = !axis && !lv.have[code] && lv.nfound < 16;
    // Note: [One memory figure per series]: the name is taken for the series once its value is read.
    std::uint32_t memory_name = 0;
    if (keep && IsMemoryCode(code)) {
      const char* named = second_word ? prev_end - prev_n : w;
      memory_name = Hash(named, static_cast<size_t>((call_end ? call_end : p) - named)) | 1;
      if (!MemoryNameAgrees(code, memory_name, false)) {
        keep = false;
        record = false;
      }
    }
    const char* r = ReadValue(code, q, end, keep, &lv);
    if (axis || keep) note(code, q, r);
    if (r && memory_name) MemoryNameAgrees(code, memory_name, true);
    double before = 0;
    if (r) {
      p = r;
    } else if (keep && IsMemoryCode(code) && !std::isnan(before = MemoryBeforeName(begin, w))) {
      // Note: [Value before the name]: "0.2GB of RSS RAM". Read in full on every line: a shape replays
      // only values after their names.
      lv.have[code] = true;
      lv.found[lv.nfound++] = {code, before};
      record = false;
    } else if (!axis && wn <= kMaxKey) {
      // Note: [Loss terms under a heading]: a loss name followed by a term instead of its value.
      if ((code == S(SeriesId::kLoss) || code == S(SeriesId::kValLoss)) && TermFollows(q, end)) loss_heading = code;
      // Note: [Name then a word]. A series name followed by a word instead of a number may be the first
      // half of a two-word name ("memory used: 1.2 GB", "RAM usage 5.4 GB"): remember it, as an unknown
      // word is remembered, so that the next word is looked up joined to it.
      size_t n = 0;
      if (Lower(std::string_view(w, wn), prev, &n)) {
        prev_n = n;
        prev_end = p;
      }
    }
  }
  if (record) {
    // Replace the shape this line failed to replay, else the least recently used one.
    Shape* slot = shape;
    if (!slot) {
      slot = &shapes_[0];
      for (Shape& s : shapes_) {
        if (s.used < slot->used) slot = &s;
      }
    }
    slot->len = static_cast<std::uint16_t>(text.size());
    shape_lens_[slot - shapes_.data()] = slot->len;
    shape_len_bits_ = {};
    for (std::uint16_t len : shape_lens_) {
      if (len) shape_len_bits_[len / 64] |= std::uint64_t{1} << (len % 64);
    }
    slot->used = ++shape_clock_;
    slot->events_n = static_cast<std::uint8_t>(events_n);
    std::copy(events, events + events_n, slot->events);
    // What the replay in the loop needs (Note: [Replay in the loop]).
    using metrics_internal::NumberLayout;
    bool all_read = true;
    size_t reach = 0;
    Lanes lanes;
    int lanes_n = 0, words_n = 0, points_n = 0, exps_n = 0;
    std::uint32_t point_eval = 0;
    std::uint8_t step_slot = kNaNSlot, epoch_slot = kNaNSlot;
    int bar_event = -1;
    for (int i = 0; i < events_n; ++i) {
      ShapeEvent& e = slot->events[i];
      const NumberLayout& l = e.layout;
      std::uint8_t value_slot = kNaNSlot;
      if (l.form == NumberLayout::kCounter && l.int_digits <= 8 && l.frac_digits <= 8) {
        bar_event = i;  // the last one read wins, as in ReadBar
        continue;
      } else if (l.form == NumberLayout::kDecimal && l.word_shift) {
        e.word_at = static_cast<std::uint16_t>(e.at + l.lead);
        e.whole = (std::uint64_t{1} << (8 * l.int_digits)) - 1;
        reach = std::max<size_t>(reach, e.word_at + 8u);
        // A number with an exponent takes a lane when this line's exponent is one a divisor expresses.
        Shape::ExpLane x;
        bool lane = lanes_n < kLanes;
        if (l.exp_at && lane) {
          x.at = static_cast<std::uint16_t>(e.at + l.exp_at);
          x.lane = static_cast<std::uint8_t>(lanes_n);
          x.digits = l.exp_digits;
          x.frac_digits = l.frac_digits;
          x.exp_neg = l.exp_neg;
          x.neg = l.neg;
          x.mask = static_cast<std::uint32_t>((std::uint64_t{1} << (8 * l.exp_digits)) - 1);
          std::memcpy(&x.key, begin + x.at, l.exp_digits);  // the other bytes stay 0, as the mask leaves them
          lane = ExponentDivisor(x, x.key, &lanes.divisor[lanes_n]);
          if (lane) {
            slot->exps[exps_n++] = x;
            reach = std::max<size_t>(reach, x.at + 4u);
          }
        } else if (lane) {
          // The sign with the divisor: x / -d is -(x / d) to the bit, -0 for 0 included.
          lanes.divisor[lanes_n] = l.neg ? -kPow10[l.frac_digits] : kPow10[l.frac_digits];
        }
        if (lane) {
          lanes.at[lanes_n] = e.word_at;
          lanes.whole[lanes_n] = e.whole;
          lanes.shift[lanes_n] = l.word_shift;
          value_slot = static_cast<std::uint8_t>(lanes_n++);
        } else {
          slot->word_event[words_n] = static_cast<std::uint8_t>(i);
          value_slot = static_cast<std::uint8_t>(kLanes + words_n++);
        }
      } else {
        all_read = false;
        continue;
      }
      if (e.code == kKeyStep) {
        step_slot = value_slot;  // the last one read wins, as in ReadValue
      } else if (e.code == kKeyEpoch) {
        epoch_slot = value_slot;
      } else {
        if (IsEvaluation(e.code)) point_eval |= std::uint32_t{1} << points_n;
        slot->point_code[points_n] = static_cast<std::uint8_t>(e.code);
        slot->point_slot[points_n++] = value_slot;
      }
    }
    // The step from the counter, when no step is printed: its n and total in lanes where two are left
    // and each fits one (at most 7 digits: divided by 1, the integer), else read one by one.
    slot->bar_step = bar_event >= 0 && step_slot == kNaNSlot;
    slot->bar_scalar = false;
    if (slot->bar_step) {
      const ShapeEvent& e = slot->events[bar_event];
      const NumberLayout& l = e.layout;
      slot->bar_event = static_cast<std::uint8_t>(bar_event);
      if (lanes_n + 2 <= kLanes && l.int_digits <= 7 && l.frac_digits <= 7) {
        const int at[2] = {e.at + 1, e.at + 2 + l.int_digits}, digits[2] = {l.int_digits, l.frac_digits};
        for (int k = 0; k < 2; ++k) {
          lanes.at[lanes_n] = static_cast<std::uint16_t>(at[k]);
          lanes.whole[lanes_n] = (std::uint64_t{1} << (8 * digits[k])) - 1;
          lanes.shift[lanes_n] = static_cast<std::uint64_t>(8 * (8 - digits[k]));
          lanes.divisor[lanes_n] = 1;
          (k == 0 ? slot->bar_n_slot : slot->bar_total_slot) = static_cast<std::uint8_t>(lanes_n++);
        }
      } else {
        slot->bar_scalar = true;
        slot->bar_n_slot = kBarSlot;
        slot->bar_total_slot = kBarSlot + 1;
      }
      reach = std::max<size_t>(reach, e.at + 2u + l.int_digits + 8u);
    }
    const bool fast = all_read && kLittleEndian;
    slot->lanes = lanes;
    slot->lanes_n = static_cast<std::uint8_t>(lanes_n);
    slot->words_n = static_cast<std::uint8_t>(words_n);
    slot->points_n = static_cast<std::uint8_t>(points_n);
    slot->point_eval = point_eval;
    slot->bar_line = bar_event >= 0 || (point_eval != 0 && HasBarRate(text));
    slot->train_only = false;
    for (int i = 0; i < points_n && point_eval == 0; ++i) {
      slot->train_only = slot->train_only || IsTraining(slot->point_code[i]);
    }
    slot->step_slot = step_slot;
    slot->epoch_slot = epoch_slot;
    slot->bar_event = bar_event;
    slot->exps_n = static_cast<std::uint8_t>(exps_n);
    // The loop compares whole blocks (ShapeBlocksMatchAvx2): the bytes up to the last block's end
    // are read, and any byte past the line matches there (spread 0xff).
    const size_t blocks = (text.size() + 31) / 32 * 32;
    slot->reach = fast ? static_cast<std::uint32_t>(std::max({reach, blocks, text.size() + 1})) : Shape::kNever;
    for (size_t i = 0; i < text.size(); ++i) {
      const bool digit = IsDigit(begin[i]);
      slot->text[i] = digit ? '0' : begin[i];
      slot->spread[i] = digit ? 9 : 0;
    }
    std::memset(slot->text + text.size(), 0, blocks - text.size());
    std::memset(slot->spread + text.size(), 0xff, blocks - text.size());
  }
  if (HasEvaluation(lv)) lv.bar_rate = HasBarRate(text);
  Emit(lv, line_no);
}

void MetricCollector::Emit(const LineValues& lv, std::uint64_t line_no) {
  if (lv.nfound == 0) return;
  NoteEpoch(lv.epoch);
  double step = lv.step;
  if (std::isnan(step) && lv.bar_n >= 0) {
    step = std::isnan(lv.epoch) ? static_cast<double>(lv.bar_n)
                                : lv.epoch * static_cast<double>(lv.bar_total) + static_cast<double>(lv.bar_n);
  }
  // Note: [Evaluations between training lines]: a line of training values alone.
  bool training = false, evaluation = false;
  for (int i = 0; i < lv.nfound; ++i) {
    training = training || IsTraining(lv.found[i].code);
    evaluation = evaluation || IsEvaluation(lv.found[i].code);
  }
  if (training && !evaluation) ++train_turns_;
  for (int i = 0; i < lv.nfound; ++i) {
    const int code = lv.found[i].code;
    const double value = lv.found[i].value;
    MetricSeries& s = series_[code];
    // A validation value (loss, accuracy, F1) shown again unchanged (progress bars keep the last one
    // on screen) is the same evaluation, not a new point, unless an epoch has begun since (Note:
    // [Evaluations across epochs]) or a line of training values alone was printed since (Note:
    // [Evaluations between training lines]).
    if (IsEvaluation(code) && s.count() > 0) {
      double last = s.last().value;
      const bool same = last == value || (std::isnan(last) && std::isnan(value));
      if (same && (lv.bar_n >= 0 || lv.bar_rate ||
                   (series_turn_[code] == epoch_turns_ && series_train_turn_[code] == train_turns_))) {
        continue;
      }
    }
    s.Add(value, step, lv.epoch, line_no);
    series_turn_[code] = epoch_turns_;
    series_train_turn_[code] = train_turns_;
    present_[code] = true;
  }
}

// Note: [Evaluations across epochs]
// A validation value printed again unchanged is most often the same evaluation still on screen: a
// progress bar's postfix keeps it for the whole next epoch, a per-batch line repeats the last one. But
// a run whose validation loss or accuracy does not move prints the same value at each new evaluation
// (Keras' "val_loss: 0.6931" epoch after epoch, an HF eval dict per epoch, "Epoch 7 ... val acc 0.5"),
// and dropping those made a flat validation series look one point long. So the collector notes each
// change of the epoch printed on a line with values, or announced by a line of its own that opens with
// it (Keras' header "Epoch 2/6", the torchvision tutorial's "Epoch 3/24": EpochHeaderValue, asked in
// every mode before the marks drop the line), and a repeated value is a new point when the epoch
// changed since its series' last point, unless the line is a tqdm bar (its postfix carries the value
// across the epoch boundary; so is a line with a tqdm rate, "it/s" or "s/it", after which a bar prints
// its postfix, or one that ends with a ']' it never opened: a paste wrapped at 80 columns puts the
// postfix on lines of its own, HasBarRate). Lines with no epoch
// keep the old reading: the same value twice is one evaluation. Lines with an epoch and no value other than the header are not noted, so that the full
// scan, which reads them, and the marks, which drop them, agree.

// Note: [Evaluations between training lines]
// Without an epoch on its lines, a run whose validation value does not move printed it unchanged at each
// evaluation, between lines of training values: "train Loss: 0.70 Acc: 0.50" then "val Loss: 0.6931 Acc:
// 0.5000", over and over (the torchvision fine-tuning tutorial's phase lines behind a logger's time), and
// the repeats were read as the same evaluation still on screen, a flat validation series one point long.
// A line that prints a training loss or accuracy and no validation value is printed between two
// evaluations, never inside one, so a repeated value is a new point when such a line came since its
// series' last point (train_turns_, counted by Emit and by the replay, whose shape knows it: train_only).
// A per-batch line that carries the last validation value with the training loss (a tqdm postfix, a
// "step 120 loss 0.41 val_loss 0.69" loop) counts no turn, so its repeats stay one evaluation, as before.

// Note: [Replay in the loop]
// A line of the shape matched last whose every number is read in place from one word (ReplayWord's
// layouts, Note: [Fixed layouts]) or is a tqdm counter of at most 8 digits each, is replayed where
// ScanLines' loop stands, with no call: the shape's bytes compared (with AVX2 in whole blocks, the
// shape recorded with bytes past its end that match anything), each number read from its word,
// the points added (by the shape's plan, Note: [Replay plan]). It is ScanSegment's replay by the same
// formulas, so the same doubles: the word's integer and fraction digits combined at once, converted,
// divided by the power of ten (or the value the event read last from the same digits), an exponent
// of at most 3 digits applied as ScaledMantissa applies it. The loop does not look for the line's end
// first: the shape's bytes hold no '\n' or '\r', so bytes that match the shape and are followed by a
// line end are the whole segment; the loop steps over it and the ends of the bytes it replays are
// never marked. What it does not read so goes to ScanSegment, after a search of the segment's end in the
// marks: a line of another length or shape, one the kMaxLine cut falls in, an exponent out of the
// fast path's range, a line whose words would be read past the end of the buffer (the shape's
// `reach`), a shape with any other number (memory values, mmcv's steps, longer numbers). Up to four
// numbers are read side by side (Note: [Number lanes]), the points added by MetricSeries::AddFinite.
// On the 8 MiB inputs of gen_kinds.py (callgrind), the metric path went from ~780 to ~470 instructions
// an HF dict line, ~550 to ~350 a tqdm update, ~700 to ~390 a key=value line, then with the plan
// below to ~290, ~220 and ~290 (tests/bench/README.md).
//
// Note: [Replay plan]
// What a replay in the loop does with a line of its shape depends on the shape alone, so the full scan
// that records the shape also plans it: each number gets a slot (its lane's, or one of the numbers
// read one by one), the line's step and epoch are the slots of the last step and epoch read (a slot
// holding NaN when there is none), and the series values become a list of points (series, slot,
// whether it is a validation value that Emit drops when shown again unchanged). The replay then reads
// the lanes, the other words and the tqdm counter, and adds the points: no test of an event's kind or
// sign per line, and no `present_` to set, since the line that recorded the shape added a point to
// each of its series (only finite values, all read, make a shape `fast`). A number with an exponent
// (HF's learning rate, 9.9995e-04) takes a lane too, while its exponent is one a division expresses
// (ScaledMantissa divides for a power of ten from 10^-22 to 10^0): the lane's divisor is made for the
// exponent's digits of the line that recorded the shape, and each replayed line compares its digits'
// bytes (at most 3, in one 4-byte word) with those; other digits make a new divisor (ExponentDivisor), or
// send the line to ScanSegment when no division expresses them. The values are those ReplayWord
// computes: a lane divides the same exact integer by the same power of ten, with the sign in the
// divisor. A tqdm counter is read only where it gives the step (no step printed; the last counter of
// the line, as ReadBar's last reading wins): its n and total take two lanes where two are left and
// each has at most 7 digits (divided by 1: the integer ReplayCounter reads, as a double), else they
// are read one by one into two slots of their own. A shape that is not replayed so has a `reach` no
// buffer has, and every reach passes the shape's length, so one comparison tells the loop that the
// shape is replayable, that its bytes and words are readable and that the byte after it is too (the
// last line of a buffer, which ends at the buffer's end, goes to ScanSegment). On the 8 MiB inputs,
// the metric path went from ~450 to ~290 instructions an HF dict line (three points, an exponent),
// ~335 to ~220 a tqdm update, ~375 to ~290 a key=value line.
template <typename Matches, typename ReadLanes>
__attribute__((always_inline)) inline void MetricCollector::ScanLinesWith(std::string_view text, std::uint64_t line_no,
                                                                          bool count_lines, Matches matches,
                                                                          ReadLanes read_lanes) {
  const char* const base = text.data();
  const size_t size = text.size();
  const char* const limit = base + size;
  const size_t words = (size + 63) / 64;
  // Starts, ends, and with AVX2 the name and blank marks (Note: [Name marks]).
  const size_t arrays = shapes_avx2_ ? 4 : 2;
  if (bits_.size() < arrays * words) bits_.resize(arrays * words);
  std::uint64_t* const ends = bits_.data() + words;
  starts_ = {base, size, bits_.data(), 0};
  if (shapes_avx2_) {
    starts_.names = bits_.data() + 2 * words;
    starts_.blanks = bits_.data() + 3 * words;
  }
  size_t ends_done = 0;  // words whose ends are marked (FindEnd)
  // Segments: lines, and within a line the updates of a progress bar redrawn with '\r', each a
  // sample of its own (Note: [Metric scan]). Only the first kMaxLine bytes of a line count, however
  // the input was cut into Feed calls.
  size_t from = 0, line_start = 0;
  std::uint64_t lines = lines_;  // in a register: the points' stores could alias lines_
  while (true) {
    const std::uint64_t no = count_lines ? lines + 1 : line_no;
    // The shape matched last, if the segment has its length: the shape's bytes hold no '\n' or '\r',
    // so bytes that match it and are followed by one are the whole segment. The reach passes the
    // shape's length (Note: [Replay plan]): the byte after it is in the buffer.
    Shape& shape = shapes_[last_shape_];
    size_t to = from + shape.len;
    if (size - from >= shape.reach && (base[to] == '\n' || base[to] == '\r') && to - line_start <= kMaxLine &&
        matches(base + from, shape.len, shape, limit) && ReplayInLoop(shape, base + from, no, read_lanes)) {
      shape.used = ++shape_clock_;
    } else {
      // The end: in the words marked already, else FindEnd marks more.
      size_t w = from / 64;
      std::uint64_t hit = ~std::uint64_t{0} << (from % 64);
      while (w < ends_done && !(hit &= ends[w])) {
        ++w;
        hit = ~std::uint64_t{0};
      }
      to = w < ends_done ? 64 * w + static_cast<size_t>(__builtin_ctzll(hit))
                         : FindEnd(base, size, std::max(from, 64 * w), ends, &ends_done);
      const size_t cut = std::min(to, line_start + kMaxLine);
      if (cut > from) ScanSegment(std::string_view(base + from, cut - from), no, from, limit);
    }
    if (to >= size) break;
    if (count_lines && base[to] == '\n') {
      ++lines;
      line_start = to + 1;
    }
    from = to + 1;
  }
  lines_ = lines;
}

// Where the segment that starts at `from` ends: the next '\n' or '\r', or size. Segments are visited
// in order, so the ends are marked at their first need, kEndWords words at a time, from the word
// asked for (the words a replay in the loop passed over are never marked). ScanLines' loop looks
// through the words marked already itself and calls this one past them: out of line, the marking
// leaves the loop, with the replay inlined, its registers (the loop's spills cost ~20 instructions
// a line on every input; tests/bench/README.md, "The segment's end out of the loop").
__attribute__((noinline)) size_t MetricCollector::FindEnd(const char* base, size_t size, size_t from,
                                                          std::uint64_t* ends, size_t* ends_done) {
  const size_t words = (size + 63) / 64;
  std::uint64_t mask = ~std::uint64_t{0} << (from % 64);
  for (size_t w = from / 64; w < words; ++w, mask = ~std::uint64_t{0}) {
    if (w >= *ends_done) {
      *ends_done = std::min(words, w + kEndWords);
      MarkEnds(base, size, w, *ends_done, ends);
    }
    if (const std::uint64_t hit = ends[w] & mask) return 64 * w + static_cast<size_t>(__builtin_ctzll(hit));
  }
  return size;
}

// The replay in the loop of a line of `shape` whose bytes from `line` up to shape.reach are readable;
// false when it cannot read a number so (ScanSegment replays the line then). By the shape's plan (Note:
// [Replay plan]).
template <typename ReadLanes>
__attribute__((always_inline)) inline bool MetricCollector::ReplayInLoop(Shape& shape, const char* line,
                                                                         std::uint64_t line_no, ReadLanes read_lanes) {
  alignas(32) double slots[kSlots];
  for (int k = 0; k < shape.exps_n; ++k) {  // a lane's exponent: the divisor of the digits seen last, or a new one
    Shape::ExpLane& x = shape.exps[k];
    std::uint32_t key;
    std::memcpy(&key, line + x.at, 4);
    key &= x.mask;
    if (key != x.key) {
      if (!ExponentDivisor(x, key, &shape.lanes.divisor[x.lane])) return false;
      x.key = key;
    }
  }
  if (shape.lanes_n) read_lanes(shape.lanes, shape.lanes_n, line, slots);
  for (int i = 0; i < shape.words_n; ++i) {  // ReplayWord's reading
    ShapeEvent& e = shape.events[shape.word_event[i]];
    const metrics_internal::NumberLayout& l = e.layout;
    std::uint64_t v;
    std::memcpy(&v, line + e.word_at, 8);
    v &= 0x0F0F0F0F0F0F0F0Full;
    v = ((v & e.whole) | ((v >> 8) & ~e.whole)) << l.word_shift;
    double x;
    if (!l.exp_at) {
      if (v != e.word) {
        x = static_cast<double>(static_cast<std::int64_t>(CombineEight(v)));
        if (l.frac_digits) x /= kPow10[l.frac_digits];  // ScaledMantissa
        e.word = v;
        e.word_value = x;
      } else {
        x = e.word_value;
      }
    } else {
      int ev = 0;
      for (int k = 0; k < l.exp_digits; ++k) ev = ev * 10 + (line[e.at + l.exp_at + k] - '0');
      const int exp10 = -l.frac_digits + (l.exp_neg ? -ev : ev);
      if (exp10 < -22 || exp10 > 22) return false;
      x = static_cast<double>(static_cast<std::int64_t>(CombineEight(v)));
      x = exp10 < 0 ? x / kPow10[-exp10] : x * kPow10[exp10];  // ScaledMantissa
    }
    slots[kLanes + i] = l.neg ? -x : x;
  }
  slots[kNaNSlot] = std::numeric_limits<double>::quiet_NaN();
  double step = slots[shape.step_slot];
  const double epoch = slots[shape.epoch_slot];
  if (shape.bar_step) {  // ReplayCounter, then Emit's step from the counter
    if (shape.bar_scalar) {
      const ShapeEvent& e = shape.events[shape.bar_event];
      const metrics_internal::NumberLayout& l = e.layout;
      slots[kBarSlot] = static_cast<double>(
          static_cast<long long>(ReadDigits(line + e.at + 1, l.int_digits, line + e.at + 9)));
      slots[kBarSlot + 1] = static_cast<double>(static_cast<long long>(
          ReadDigits(line + e.at + 2 + l.int_digits, l.frac_digits, line + e.at + 10 + l.int_digits)));
    }
    const double bar_n = slots[shape.bar_n_slot];
    step = std::isnan(epoch) ? bar_n : epoch * slots[shape.bar_total_slot] + bar_n;
  }
  // EmitValues of finite values whose series are present already (the line that recorded the shape
  // added a point to each).
  const int points_n = shape.points_n;  // in a register: the points' stores could alias the shape's bytes
  // Note: [Evaluations across epochs]: the epoch of a line with values, or the one a line without
  // announces (as ScanSegment asks first).
  if (points_n) {
    NoteEpoch(epoch);
  } else if (Class(line[0]) == kAlpha) {
    NoteEpoch(EpochHeaderValue(std::string_view(line, shape.len)));
  }
  if (shape.point_eval == 0) {  // no validation value: each point added
    train_turns_ += shape.train_only;  // (Note: [Evaluations between training lines])
    for (int i = 0; i < points_n; ++i) {
      series_[shape.point_code[i]].AddFinite(slots[shape.point_slot[i]], step, epoch, line_no);
    }
    return true;
  }
  for (int i = 0; i < points_n; ++i) {
    const double value = slots[shape.point_slot[i]];
    MetricSeries& s = series_[shape.point_code[i]];
    const int code = shape.point_code[i];
    if (((shape.point_eval >> i) & 1) && s.count() > 0 && s.last().value == value &&
        (shape.bar_line || (series_turn_[code] == epoch_turns_ && series_train_turn_[code] == train_turns_))) {
      continue;
    }
    s.AddFinite(value, step, epoch, line_no);
    series_turn_[code] = epoch_turns_;
    series_train_turn_[code] = train_turns_;
  }
  return true;
}

#ifdef TRIAGE_AVX2
// Flattened: the loop, the shape compare, the replay and the points' inline path in one function
// (ScanSegment and MetricSeries::AddKept stay out of line).
__attribute__((target("avx2"), flatten)) void MetricCollector::ScanLinesAvx2(std::string_view text,
                                                                            std::uint64_t line_no, bool count_lines) {
  static_assert(kShapeMax == kShapeBytes, "ShapeMatchesAvx2 reads whole blocks of a shape");
  auto matches = [](const char* line, size_t n, const Shape& shape, const char*) __attribute__((target("avx2"))) {
    return ShapeBlocksMatchAvx2(line, n, shape.text, shape.spread);
  };
  auto read_lanes = [](const Lanes& lanes, int, const char* line, double* values)
                        __attribute__((target("avx2"))) { ReadLanesAvx2(lanes, line, values); };
  // Two copies of the loop, each with count_lines a constant: the one that reads Feed's lines tests
  // no flag per line.
  if (count_lines) {
    ScanLinesWith(text, line_no, true, matches, read_lanes);
  } else {
    ScanLinesWith(text, line_no, false, matches, read_lanes);
  }
}
#endif

}  // namespace triage
