// Metric extraction: numeric training series (loss, val_loss, lr, grad_norm, memory, ...) pulled out
// of the progress lines people print, without configuration, in bounded memory.
//
//   MetricCollector metrics;
//   for (each raw line, 1-based number n) metrics.AddLine(line, n);   // cheap; call on every line
//   const MetricSeries* loss = metrics.Find(SeriesId::kLoss);
//   if (loss) for (const MetricPoint& p : loss->Points()) ...           // downsampled, in order
//
// Formats understood (one scanner, no per-format switch): `key=value`, `key: value`, `key value`
// (spaces or tabs; a name in square brackets, `[loss]: 4.99`), `Epoch 3/100 | step 1200 | loss 0.4321`, dict and JSON lines
// (`{'loss': 0.3, 'epoch': 1.0}`), tqdm / Lightning postfixes (`[00:10<00:00, loss=0.123]`, with the
// bar's `n/total` as the step), mmcv (`Epoch [1][50/1000] lr: 1.000e-02, loss: 1.2`), detectron2
// (`iter: 2137  total_loss: nan  max_mem: 2549M`), CSVLogger files (a header row of names, then
// rows of numbers), a bare step in a '|' field before the names (`1220 | loss 3.2969 | lr 2.6e-04`: Note: [Step field
// first] in metrics.cc), and the unnamed loss of PyTorch's tutorial layouts (`5000 5% (0m 12s) 2.9460 ...`,
// `1m 28s (- 20m 36s) (5000 6%) 2.8552`; Note: [Tutorial progress lines] in metrics.cc), epoch tables (fastai's,
// Markdown, pandas, a notebook's table copied with tabs, by epoch or by step, and Ultralytics/YOLOv5's rows with
// their `E/N` epoch, `3.19G` GPU memory and progress bar: Note: [Epoch tables]; their loss is the sum of the
// terms they print, `box_loss cls_loss dfl_loss` or `box obj cls`: Note: [Loss terms in a table]), a loss
// heading followed by its terms and their sum (`loss: x 2.34, y 2.49, ..., total 117.7`, `[Losses: x nan, ..., total
// nan]`: the total is the loss, Note: [Loss terms under a heading] in metrics.cc), PyTorch
// Geometric's bare split accuracies (`Loss: 1.94, Train: 0.21, Val: 0.20, Test: 0.22`: Note: [Bare split names]),
// any of these after a tqdm bar glued in front of the line (Note: [Bar before a line]), and a value after
// bracketed indices or after what its mean was taken over (`Loss [1, 100](epoch, minibatch): 9.66`, `Mean test loss
// of 296 batches: 4.106`: Notes [Indices before a value] and [What a value was averaged over] in metrics.cc); a value
// after "best" (`best val loss: 0.40`) is the run's best so far and is passed over (Note: [Best so far]); a line
// naming the evaluation split in a '|' field of its own (fairseq's `| valid on 'valid' subset | loss 7.1`) is the
// evaluation's (Note: [Evaluation fields]), and so are MMEngine's `Epoch(val)` lines and the `* Acc@1` summary of
// the ImageNet example and DeiT, also behind a logger's header as Swin prints it (Note: [Marked evaluation lines]),
// a split's word in brackets where a logger's record header ends (`2024-01-02 10:11:12,345 INFO [TEST] Loss: 2.34`: Note:
// [Bracketed split after a record header] in metrics.cc),
// and ST-GCN's `\tTop1: 88.36%` alone on its line (Note: [Summary lines] in metrics.cc); MMEngine's `Epoch(train)
// [1][ 100/391]` and `Iter(train) [ 50/1000]` give the epoch and step as mmcv's `Epoch [1][100/391]` does (Note:
// [MMEngine's axis] in metrics.cc), and memory printed before its name (`using 0.2GB of RSS RAM`, `1.5 GB RSS`) is
// read (Note: [Value before the name] in metrics.cc); memory labelled with the call that measured it
// (`torch.cuda.memory_allocated(0) 318986240`, `torch.cuda.max_memory_reserved()/1024**2: 812`: Note: [Memory
// API names]), the rows of OpenAI's logger's and Stable-Baselines3's key-value blocks (`| loss          | nan       |`:
// Note: [Key-value tables] in metrics.cc), a value whose name an evaluation split qualifies in parentheses as
// the evaluation's (`Average Loss (valid) 0.0032`: Note: [Qualified names] in metrics.cc),
// `free`'s "Mem:" row, top's "MiB Mem :" row and nvidia-smi's device rows (Note: [System tool tables]) are read too,
// and so are the rows of `nvidia-smi --query-gpu=...,memory.used --format=csv` under their header (Note: [GPU query
// rows] in metrics.cc),
// and a memory series keeps the figure of one name (Note: [One memory figure per series]). Values may be `nan`, `inf`, `-inf`, `NaN`, `tensor(0.5, ...)`; memory values may
// carry units (B, KB, MB, GB, K, M, G, KiB, MiB, GiB) and are kept in MB; a name followed by a word
// may be a two-word name (`memory used: 1.2 GB`, `RAM usage 5.4 GB`: Note: [Name then a word] in metrics.cc).
// A line quoted with Markdown's "> " or carrying torch 2.x's "[rank0]: " is read as the text after them
// (Note: [Quote markers] in formats/quote_marker.h); other per-line log prefixes (a timestamp and
// level) are not yet removed here, so the layouts read from a line's first column miss such lines.
//
// Note: [Metric axes] Steps and epochs are kept apart. A point's `step` is the step printed on its line
// (`step`, `iter`, `global_step`, a tqdm counter, mmcv's [e][i/n]) or NaN; its `epoch` likewise; its
// `seq` is its position in its series. Detectors order points by `seq` (the order the program printed
// them), which is right whatever the program chose to print; reports label points with the step when
// printed, else the epoch, else the position.
//
// Note: [Metric memory] A series never keeps every point: the first kHead points, the last kTail
// points, a strided sample of the middle (the stride doubles whenever the sample fills), the first
// kMaxNonFinite non-finite points, and the minimum and maximum. Memory per series is fixed (a few KB)
// whatever the log size; there is one series per canonical name.
#ifndef TRIAGE_ENGINE_METRICS_H_
#define TRIAGE_ENGINE_METRICS_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "log/formats/compose_prefix.h"
#include "log/formats/learned_prefix.h"

namespace triage {

namespace metrics_internal {
struct LineValues;  // what one line holds (metrics.cc)

// How a number a shape replays is laid out, when it can be read in place (Note: [Fixed layouts] in
// metrics.cc): offsets and digit counts from the event's `at`.
struct NumberLayout {
  enum Form : std::uint8_t { kGeneric = 0, kDecimal, kCounter };
  Form form = kGeneric;
  bool neg = false;              // kDecimal: a '-' sign
  std::uint8_t lead = 0;         // kDecimal: bytes before the first digit or '.' (a sign); kCounter: 1 (the blank)
  std::uint8_t int_digits = 0;   // kDecimal: digits before the '.'; kCounter: the counter's digits
  std::uint8_t dot = 0;          // kDecimal: 1 when a '.' follows them
  std::uint8_t frac_digits = 0;  // kDecimal: digits after the '.'; kCounter: the total's digits
  std::uint8_t exp_at = 0;       // kDecimal: offset of the exponent's digits, 0 when there is no exponent
  std::uint8_t exp_digits = 0;
  bool exp_neg = false;
  // kDecimal of at most 7 digits, which one 8-byte word holds with a '.': 8 * (8 - digits), the
  // shift that moves them to the word's top; 0 otherwise.
  std::uint8_t word_shift = 0;
};

// Note: [Number lanes] in metrics.cc: up to kLanes numbers of a line shape, read side by side.
constexpr int kLanes = 4;
struct Lanes {
  std::uint64_t whole[kLanes] = {};       // ShapeEvent::whole
  std::uint64_t shift[kLanes] = {};       // the layout's word_shift
  double divisor[kLanes] = {1, 1, 1, 1};  // the power of ten the lane divides by, with the number's sign
  std::uint16_t at[kLanes] = {};          // ShapeEvent::word_at
};
}  // namespace metrics_internal

// The canonical series. Aliases map onto these (train_loss, total_loss, epoch_loss, running_loss, losses, mse -> loss; eval_loss, test_loss -> val_loss;
// learning_rate -> lr; total_norm -> grad_norm; mem, allocated, max_mem -> memory; rss, ram -> host_memory;
// test_acc -> val_acc; ...).
//
// Note: [Host and GPU memory]. `memory` is what a trainer prints as its memory without saying it is the
// host's: mmcv's and detectron2's `memory`/`max_mem` (torch.cuda.max_memory_allocated), `allocated`,
// `memory_reserved`, `gpu_mem`, and the bare "memory used"/"Memory usage" (most often the GPU's in training
// logs), and what says it is the GPU's: "GPU RAM", `vram`. `host_memory` is what can only be the process's
// or the machine's RAM: `rss`, `maxrss`, `RAM`, "RAM used", `cpu_mem`, "CPU memory", "Host memory". They are two series so that memory rising before the kernel's
// "Killed" can be told apart: host RAM rising to the kill is a leak in host memory (memory.growth, the kill
// its consequence), while GPU memory rising beside a host kill is no evidence about the host.
enum class SeriesId : int {
  kLoss = 0,
  kValLoss,
  kAcc,
  kValAcc,
  kLr,
  kGradNorm,
  kMemory,     // MB
  kLossScale,  // fp16 dynamic loss scale
  kF1,         // an evaluation's F1 score (macro F1 when the program says so or prints one F1)
  kHostMemory, // MB: the process's or the machine's RAM (Note: [Host and GPU memory])
  kCount,
};
constexpr int kSeriesCount = static_cast<int>(SeriesId::kCount);

// Returns the canonical name of a series ("loss", "val_loss", "acc", "val_acc", "lr", "grad_norm",
// "memory", "loss_scale", "f1", "host_memory"); these are the names signal rules and Lua predicates use.
const char* SeriesName(SeriesId id);
// Returns the series with this canonical name, or kCount when there is none.
SeriesId SeriesFromName(std::string_view name);

struct MetricPoint {
  double value = 0;                                        // may be NaN or +-Inf
  double step = std::numeric_limits<double>::quiet_NaN();  // printed step, or NaN
  double epoch = std::numeric_limits<double>::quiet_NaN(); // printed epoch, or NaN
  std::int64_t seq = 0;                                    // position in its series (0-based)
  std::uint64_t line = 0;                                  // 1-based input line

  bool finite() const { return std::isfinite(value); }
};

// One downsampled series (Note: [Metric memory]).
class MetricSeries {
 public:
  static constexpr int kHead = 64;
  static constexpr int kTail = 128;  // a power of two (ring index by mask)
  static constexpr int kSample = 256;
  static constexpr int kMaxNonFinite = 16;

  // Appends a point; its seq is assigned here (point.seq is ignored).
  void Add(const MetricPoint& point) { Add(point.value, point.step, point.epoch, point.line); }
  // The same from its fields (the collector's path: the point is written once, where it is kept).
  // Inline for the common point (finite, past the head, off the sample's stride): the ring and the
  // extrema; the rest out of line (AddKept).
  void Add(double value, double step, double epoch, std::uint64_t line) {
    if (!std::isfinite(value)) return AddKept(value, step, epoch, line);
    AddFinite(value, step, epoch, line);
  }
  // Add of a finite value (a replayed number, all digits, is one). The point before it is finite, so it
  // is no recovery: after a non-finite point next_kept_ sends the next one to AddKept.
  void AddFinite(double value, double step, double epoch, std::uint64_t line) {
    if (count_ >= next_kept_) return AddKept(value, step, epoch, line);
    const MetricPoint& p = Put(value, step, epoch, line);
    if (value < min_.value) min_ = p;
    if (value > max_.value) max_ = p;
  }

  // Returns the kept points in order of seq, without duplicates.
  std::vector<MetricPoint> Points() const;

  std::int64_t count() const { return count_; }
  std::int64_t nonfinite_count() const { return nonfinite_count_; }
  // The first non-finite point that follows a finite one (placeholders printed before the first
  // real value do not count), or null.
  const MetricPoint* first_nonfinite() const { return has_onset_ ? &onset_ : nullptr; }
  // The first point printed, or null.
  const MetricPoint* first() const { return head_.empty() ? nullptr : &head_.front(); }
  // True when no value printed so far was finite.
  bool never_finite() const { return !seen_finite_; }
  const MetricPoint& last() const { return count_ > 0 ? tail_[(count_ - 1) & (kTail - 1)] : tail_[0]; }
  // How many times a finite value followed a non-finite one after the onset: a run that skips the steps
  // whose loss overflowed (a loss scaler) keeps coming back; one whose weights turned NaN does not.
  std::int64_t recoveries() const { return recoveries_; }
  // True when a finite value below 0 was printed: the least one is.
  bool has_negative() const { return has_extrema_ && min_.value < 0; }

  // Renumbers the kept points' lines (a hard-wrapped paste's joined lines back to the input's rows,
  // Note: [Hard-wrapped pastes] in hard_wrap.h).
  template <typename F>
  void MapLines(F&& map) {
    for (MetricPoint* p : {&onset_, &min_, &max_}) p->line = map(p->line);
    for (MetricPoint& p : head_) p.line = map(p.line);
    for (MetricPoint& p : tail_) p.line = map(p.line);
    for (MetricPoint& p : sample_) p.line = map(p.line);
    for (MetricPoint& p : nonfinite_) p.line = map(p.line);
  }

 private:
  // Add for any point (one the head, the sample or the non-finite list may keep among them).
  void AddKept(double value, double step, double epoch, std::uint64_t line);
  // Writes the next point into the tail ring (its seq: the count so far) and counts it.
  MetricPoint& Put(double value, double step, double epoch, std::uint64_t line) {
    const std::int64_t seq = count_++;
    MetricPoint& p = tail_[seq & (kTail - 1)];
    p.value = value;
    p.step = step;
    p.epoch = epoch;
    p.seq = seq;
    p.line = line;
    return p;
  }

  std::int64_t count_ = 0;
  std::int64_t nonfinite_count_ = 0;
  std::int64_t recoveries_ = 0;
  bool seen_finite_ = false;
  bool has_onset_ = false;
  MetricPoint onset_;
  MetricPoint min_, max_;
  bool has_extrema_ = false;
  std::vector<MetricPoint> head_;
  std::array<MetricPoint, kTail> tail_{};  // ring buffer
  std::vector<MetricPoint> sample_;
  std::int64_t stride_ = 1;
  // The first seq the head or the sample keeps, or of a point before any finite one, or of the point
  // after a non-finite one: the inline Add takes the points before it (AddKept sets it).
  std::int64_t next_kept_ = 0;
  std::vector<MetricPoint> nonfinite_;
};

// Collects every recognised series from a stream of lines. Copyable (Session snapshots copy it).
class MetricCollector {
 public:
  // How lines are read (Note: [Line shapes] in metrics.cc): kAuto replays the shapes of recent lines,
  // matched with AVX2 where the CPU has it; kPortable likewise without AVX2; kFullScan scans every line
  // in full. All three give the same series (tests compare them).
  enum class Shapes { kAuto, kPortable, kFullScan };

  explicit MetricCollector(Shapes shapes = Shapes::kAuto);

  // Scans one raw line (without its '\n'; '\r' progress updates inside it are split here) and adds
  // the values it holds. `line_no` is the 1-based line number. Cheap: one pass, no allocation for
  // lines without a recognised name.
  void AddLine(std::string_view line, std::uint64_t line_no);

  // Feeds raw bytes of any size: splits them into lines itself (an unfinished line waits for the
  // next call, bounded at kMaxLine bytes) and numbers them from 1. Independent of how the caller
  // reads the same bytes, so the metric path sees every line even where the message path skips some.
  void Feed(std::string_view bytes);
  // Ends the input: scans an unfinished last line, and gives `memory` the nvidia-smi GPU whose used
  // memory rose most (Note: [One series per GPU] in metrics.cc).
  void FinishInput();

  // Returns the series, or null when the input never printed it.
  const MetricSeries* Find(SeriesId id) const;
  // Returns true when at least one value of any series was found.
  bool empty() const;
  // Renumbers every kept point's line (MetricSeries::MapLines); after FinishInput.
  template <typename F>
  void MapLines(F&& map) {
    for (MetricSeries& s : series_) s.MapLines(map);
  }

 private:
  // Scans text (lines when count_lines, numbered from lines_ + 1 and counted; else one line numbered
  // line_no), splitting it into segments at '\n' and '\r'.
  void ScanLines(std::string_view text, std::uint64_t line_no, bool count_lines);
  // ScanLines' loop, with `matches` the shape test (AVX2 or portable): a segment of the shape matched
  // last whose numbers all have fixed layouts is replayed in the loop (Note: [Replay in the loop] in
  // metrics.cc), any other goes to ScanSegment.
  template <typename Matches, typename ReadLanes>
  void ScanLinesWith(std::string_view text, std::uint64_t line_no, bool count_lines, Matches matches,
                     ReadLanes read_lanes);
  void ScanLinesAvx2(std::string_view text, std::uint64_t line_no, bool count_lines);  // with AVX2 (shapes_avx2_)
  // Scans one segment (no '\n' or '\r') of the buffer ScanLines scans, from its byte first_bit on
  // (Note: [Metric scan] in metrics.cc). `limit` is the end of that buffer (the shape match may read up
  // to it).
  void ScanSegment(std::string_view text, std::uint64_t line_no, size_t first_bit, const char* limit);
  // Where the segment that starts at `from` ends (ScanLines, when the words marked so far hold no end
  // past `from`): the ends marked at their first need, kEndWords words at a time, *ends_done words
  // done so far.
  size_t FindEnd(const char* base, size_t size, size_t from, std::uint64_t* ends, size_t* ends_done);
  // ScanSegment of a line that starts with '>' or '[': of the text after the quote markers or rank
  // prefix there (Note: [Quote markers]); false when the line has none. Otherwise (a '[' line)
  // ScanAfterLogPrefix, which lines that start with a digit or a capital get directly.
  bool ScanPrefixed(std::string_view text, std::uint64_t line_no, size_t first_bit, const char* limit);
  // The readers of a line's first column (tutorial layouts, epoch tables, CSV rows) on the text after
  // its log prefix (Note: [Learned prefix]); true when one took it.
  bool ScanAfterLogPrefix(std::string_view text, std::uint64_t line_no);
  // The candidate bits of the buffer ScanLines scans, marked at least for its bytes [from, to) (Note:
  // [Metric scan]): words are marked at their first need, segments being scanned in order.
  const std::uint64_t* Starts(size_t from, size_t to);
  // With AVX2 (Note: [Name marks] in metrics.cc): whether a fragment may begin in the buffer's bytes
  // [from, to), and in *blank whether they hold a blank or tab; marked at their first need, as Starts.
  bool NameMarks(size_t from, size_t to, bool* blank);
  bool ScanCsv(std::string_view text, std::uint64_t line_no);
  // `free`'s "Mem:" row and nvidia-smi's device rows (Note: [System tool tables] in metrics.cc); true
  // when the line was one of them.
  bool ScanToolRow(std::string_view text, std::uint64_t line_no);
  // nvidia-smi --query-gpu's CSV (Note: [GPU query rows] in metrics.cc): a header naming memory.used sets
  // the columns; a row with as many fields gives that GPU's used memory. True when the line was either.
  bool ScanSmiQuery(std::string_view text, std::uint64_t line_no);
  // Whether a memory value printed under `name` (a nonzero hash of the name as printed) may join the
  // series of `code`: the first name read for it is kept (Note: [One memory figure per series]); with
  // `take`, a series without a name yet takes this one.
  bool MemoryNameAgrees(int code, std::uint32_t name, bool take);
  // Gives `memory` the nvidia-smi GPU whose used memory rose most (Note: [One series per GPU] in metrics.cc).
  void PickSmiGpu();
  static constexpr std::uint32_t kFreeRow = 2, kSmiRow = 4, kTopRow = 6;  // even: name hashes are odd (hash | 1)
  bool ScanTable(std::string_view text, std::uint64_t line_no);
  // Adds what a line holds to the series.
  void Emit(const metrics_internal::LineValues& values, std::uint64_t line_no);
  // Notes an epoch printed on a line (NaN: none), with or without values (Note: [Evaluations across
  // epochs] in metrics.cc).
  void NoteEpoch(double epoch) {
    if (epoch == epoch && epoch != epoch_now_) {
      epoch_now_ = epoch;
      ++epoch_turns_;
    }
  }
  // Note: [Line shapes] in metrics.cc. A recent line's layout (its bytes, and where it holds digits)
  // and what the full scan read from it: the number at each `at` and where its reading ended.
  struct ShapeEvent {
    std::int16_t code;   // key code, or kBarEvent: a tqdm counter
    std::uint16_t at;    // offset of the number
    std::uint16_t end;   // offset where its reading ended; kNoEnd: it read nothing
    metrics_internal::NumberLayout layout;
    // ReplayWord's last reading without an exponent: its digits as combined, and their value before
    // the sign (Note: [Fixed layouts]); all-zero digits are worth 0.
    std::uint64_t word = 0;
    double word_value = 0;
    // For the replay in the loop (Note: [Replay in the loop]): the mask of the integer digits' bytes
    // in the word ReplayWord reads, and that word's offset (at + the layout's lead).
    std::uint64_t whole = 0;
    std::uint16_t word_at = 0;
  };
  using Lanes = metrics_internal::Lanes;
  static constexpr int kLanes = metrics_internal::kLanes;
  static constexpr size_t kShapeMax = 256;  // longer lines are always scanned in full
  static constexpr int kShapes = 16;
  static constexpr int kShapeEvents = 24;
  // A replay's slots (Note: [Replay plan] in metrics.cc): the lanes', one per event read one by one, a NaN,
  // a counter's two.
  static constexpr int kNaNSlot = kLanes + kShapeEvents;
  static constexpr int kBarSlot = kNaNSlot + 1;  // and the next: a tqdm counter's n and total, read one by one
  static constexpr int kSlots = kBarSlot + 2;
  struct Shape {
    std::uint16_t len = 0;  // 0: an empty slot
    std::uint8_t events_n = 0;
    // When every event is a word read (ReplayWord's layouts) or a counter of at most 8 digits each, the
    // loop replays the line (Note: [Replay in the loop]), reading `reach` bytes from its start (more
    // than its length, so the byte after it too); kNever otherwise.
    static constexpr std::uint32_t kNever = 0xffffffffu;
    std::uint32_t reach = kNever;
    std::uint8_t lanes_n = 0;
    // The replay in the loop's plan (Note: [Replay plan] in metrics.cc), made with the shape when it has a reach:
    // where each number's value lands among a replay's slots (the lanes', those of the events read
    // one by one, a NaN, a counter's two), which events are read one by one, and the points to add.
    std::uint8_t words_n = 0;                  // events read one by one (an exponent, or past the lanes)
    std::uint8_t word_event[kShapeEvents];     // their indexes in `events`
    std::uint8_t points_n = 0;                 // series values, in the order printed
    std::uint8_t point_code[kShapeEvents];     // their series
    std::uint8_t point_slot[kShapeEvents];     // their slots
    std::uint32_t point_eval = 0;              // bit i: point i is a validation value (see Emit)
    bool bar_line = false;                     // the line holds a tqdm counter (Emit's lv.bar_n >= 0)
    bool train_only = false;                   // a training loss or accuracy and no validation value
    std::uint8_t step_slot = 0, epoch_slot = 0;  // the slots of the line's step and epoch (the NaN slot: none)
    // The step from the last tqdm counter (when no step is printed): its n and total's slots (lanes, or
    // kBarSlot's two read one by one from bar_event's digits: bar_scalar).
    bool bar_step = false, bar_scalar = false;
    std::uint8_t bar_n_slot = 0, bar_total_slot = 0, bar_event = 0;
    // A lane's number with an exponent: its divisor made for the exponent's digits seen last.
    struct ExpLane {
      std::uint16_t at = 0;  // the offset of the exponent's digits
      std::uint8_t lane = 0, digits = 0, frac_digits = 0;
      bool exp_neg = false, neg = false;
      std::uint32_t mask = 0;  // of the digits' bytes in the 4-byte word at `at`
      std::uint32_t key = 0;   // the digits' bytes the divisor was made for
    };
    std::uint8_t exps_n = 0;
    ExpLane exps[kLanes];
    alignas(32) Lanes lanes;
    std::uint64_t used = 0;  // shape_clock_ at the last match
    ShapeEvent events[kShapeEvents];
    alignas(32) char text[kShapeMax];    // the line's bytes, '0' for each ASCII digit
    alignas(32) char spread[kShapeMax];  // 9 where the line holds an ASCII digit, else 0
  };
  // The replay of ScanLines' loop (Note: [Replay in the loop] in metrics.cc) of a line of `shape` whose
  // first shape.reach bytes are readable: its points added, or false (ScanSegment reads it then).
  // `read_lanes(lanes, n, line, values)` reads the shape's n lanes (Note: [Number lanes]).
  template <typename ReadLanes>
  bool ReplayInLoop(Shape& shape, const char* line, std::uint64_t line_no, ReadLanes read_lanes);
  // The shape whose layout `text` has, or null.
  Shape* FindShape(std::string_view text, const char* limit);
  Shape* FindShapeAvx2(std::string_view text, const char* limit);  // FindShape with AVX2 (shapes_avx2_)
  template <typename Matches>
  Shape* SearchShapes(size_t n, Matches matches);
  Shapes shapes_mode_;
  bool shapes_avx2_;
  std::uint64_t shape_clock_ = 0;
  int last_shape_ = 0;  // the slot matched last
  std::array<Shape, kShapes> shapes_{};
  // Each shape's len, side by side: the search reads these, not one cache line per shape.
  std::array<std::uint16_t, kShapes> shape_lens_{};
  // The lengths in shape_lens_ (but 0), one bit each.
  std::array<std::uint64_t, kShapeMax / 64 + 1> shape_len_bits_{};

  static constexpr size_t kMaxLine = 64 * 1024;
  static constexpr size_t kWindow = 1 << 20;  // Feed scans whole lines this many bytes at a time
  static constexpr size_t kEndWords = 64;     // ScanLines marks segment ends this many words at a time
  std::string partial_;        // an unfinished line between Feed calls
  bool overlong_ = false;      // inside a line longer than kMaxLine: drop bytes to its newline
  std::uint64_t lines_ = 0;    // lines fed so far
  std::array<MetricSeries, kSeriesCount> series_{};
  std::array<bool, kSeriesCount> present_{};
  // Note: [Evaluations across epochs] in metrics.cc: the epoch printed last (on any line), how many
  // times it changed, and that count when each series got its last point.
  double epoch_now_ = std::numeric_limits<double>::quiet_NaN();
  std::uint32_t epoch_turns_ = 0;
  std::array<std::uint32_t, kSeriesCount> series_turn_{};
  // Note: [Evaluations between training lines] in metrics.cc: how many lines printed training values and
  // no validation value, and that count when each series got its last point.
  std::uint32_t train_turns_ = 0;
  std::array<std::uint32_t, kSeriesCount> series_train_turn_{};
  // CSV header columns (Note: [Metric axes]): key code per column, or -1 for an unknown column.
  std::vector<int> csv_columns_;
  // Blank-aligned table columns (Note: [Epoch tables]): key code per column, -1 for one not read.
  std::vector<int> table_columns_;
  std::uint32_t memory_name_[2] = {0, 0};  // memory, host_memory: the name of their first point (0: none yet)
  int smi_gpu_ = -1;  // the GPU index of nvidia-smi's last device header row, -1 before one (Note: [System tool tables])
  // nvidia-smi --query-gpu's header (Note: [GPU query rows]): its fields, and the columns of memory.used
  // and of the GPU's index (-1: none; query_used_ -1: no header read).
  int query_fields_ = 0, query_used_ = -1, query_index_ = -1;
  // nvidia-smi's figures of GPUs 1 to kSmiGpus - 1, one series each (index 0 unused: GPU 0's rows go to
  // `memory` as they are read); empty until a figures row of such a GPU (Note: [One series per GPU]).
  static constexpr int kSmiGpus = 16;
  std::vector<MetricSeries> smi_series_;
  bool table_tabs_ = false;  // the open table's header was split at tabs (Note: [Epoch tables])
  bool table_bars_ = false;  // at bars, with no bar before its first cell (the same Note)
  LogPrefix prefix_;  // the log prefix learned from the lines read (Note: [Learned prefix])
  ComposePrefixReader compose_;  // Docker Compose's service prefixes (Note: [Compose runs])
  size_t prefix_guess_ = 0;  // the length of the last prefix matched
  std::vector<std::uint64_t> bits_;  // ScanLines' scratch: candidate and end bits, one per byte
  struct StartMarks {
    const char* text = nullptr;  // the buffer ScanLines scans
    size_t size = 0;
    std::uint64_t* bits = nullptr;  // its candidate bits (in bits_)
    size_t done = 0;                // the words before this one are marked, or never needed
    std::uint64_t* names = nullptr;   // with AVX2: fragment marks (Note: [Name marks]), in bits_
    std::uint64_t* blanks = nullptr;  // and blank marks
    size_t names_done = 0;            // as done, for names and blanks
  };
  StartMarks starts_;
  // Words (as printed, zero-padded to 16 bytes) last found to be a name on their own, and its code.
  struct WordMemo {
    std::uint64_t key[2] = {0, 0};
    size_t len = 0;
    int code = -1;
  };
  static constexpr int kMemoBits = 6;
  std::array<WordMemo, 1 << kMemoBits> memo_{};
};

// For tests: the bytes of `text` where ScanSegment looks, then (from word (size + 63) / 64 on) the
// segment ends, one bit per byte (Note: [Metric scan] in metrics.cc), from the AVX2 implementation
// where the CPU has it, or from the portable one; the candidates are marked piece_words words at a
// time, as ScanSegment marks the words a segment needs.
std::vector<std::uint64_t> MetricCandidates(std::string_view text, bool portable, size_t piece_words = 1 << 20);
// For tests (Note: [Name marks] in metrics.cc): the bytes of `text` where a fragment may begin, then
// (from word (size + 63) / 64 on) its blanks and tabs, one bit per byte: from the AVX2 tables, marked
// piece_words words at a time (empty without AVX2), or with `triples` from a byte-by-byte test of the
// exact triples. And whether MayHoldNamePortable, the whole-fragment test, finds a fragment in a line.
std::vector<std::uint64_t> MetricNameMarks(std::string_view text, size_t piece_words = 1 << 20, bool triples = false);
bool MetricLineMayHoldName(std::string_view line);

}  // namespace triage

#endif  // TRIAGE_ENGINE_METRICS_H_
