// Note: [Environment facts] in env_facts.h.
#include "log/env_facts.h"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include <re2/re2.h>

#include "log/simd.h"

namespace triage {
namespace {

constexpr size_t kMaxLine = 4096;
constexpr size_t kMaxText = 120;

bool Has(std::string_view line, std::string_view what) { return line.find(what) != std::string_view::npos; }

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

// One regex per reading, compiled at its first need and shared by every thread (RE2 is thread-safe).
const RE2& Re(const char* pattern) {
  // Each call site passes one string literal, so the map is small and fixed.
  static std::mutex mu;
  static std::map<const char*, std::unique_ptr<RE2>> compiled;
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<RE2>& re = compiled[pattern];
  if (!re) re = std::make_unique<RE2>(pattern);
  return *re;
}

// "cu118" -> "11.8", "cu92" -> "9.2".
std::string CudaOfTag(const std::string& digits) {
  if (digits.size() < 2) return digits;
  return digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
}

// Note: [Facts prefilter]. AddLine looks at a line through substring checks (`Has` below) before any
// regex, and a line that holds none of their texts states nothing: AddLine does nothing with it. So Feed
// hands AddLine only the lines that hold, for some text, one byte pair chosen from inside it (kPairs),
// found for a whole piece at once by a pair fingerprint: a byte matches a pair's first byte in a bucket
// when both its nibbles are among the bucket's first bytes' nibbles, likewise the next byte for the
// second (Teddy's 2-byte form, as Hyperscan and ripgrep use it), eight buckets, one bit each. The pairs
// and buckets were chosen by the count of lines they pass on the first MiB of the six
// tests/bench/gen_kinds.py logs (~9%, against every line before); a text added later takes the place and
// bucket that pass no more of those lines and the fewest more lines of the corpus logs (a bucket's
// nibbles pass pairs beside its own: "_c" in bucket 4 let "os" through, and every "loss" line went to
// AddLine; tests/bench/README.md, "The facts prefilter's later pairs"). A pair that passes a line
// holding no text costs one AddLine, never a fact. Every text of AddLine's checks must hold its pair
// (the test EnvFacts.EveryCheckedTextPassesThePrefilter puts each at every place of lines of 1-3 blocks).
struct Pair {
  const char* text;  // a text AddLine checks for
  std::uint8_t at;   // where its pair starts in it
  std::uint8_t bucket;
};
constexpr Pair kPairs[] = {
    {"+cpu", 0, 2}, {"+cu", 0, 2}, {"+rocm", 0, 0}, {"used to build PyTorch:", 8, 4}, {"vailable", 5, 5},
    {"evice", 0, 3}, {"mps:", 2, 3}, {"fp16", 0, 4}, {"bf16", 0, 5}, {"recision", 2, 7}, {"16bit", 1, 2},
    {":\\", 0, 0}, {":/", 0, 1}, {"OS: ", 0, 6}, {"/Users/", 0, 2}, {"/opt/homebrew/", 4, 2},
    {"OS: macOS", 0, 6}, {"Python.framework", 1, 0}, {"/home/", 0, 2}, {"/usr/", 3, 6}, {"/opt/conda/", 4, 2},
    {"/content/", 0, 2}, {"ython", 0, 0}, {"CUDA Version:", 11, 3}, {"river Version:", 12, 3},
    {"river version:", 12, 3}, {"omfy", 2, 7}, {"!!! Exception during processing !!!", 0, 6},
    {"Error occurred when executing ", 7, 7}, {"webui", 2, 4}, {"ooocus", 0, 5}, {"nvoke", 2, 5},
    {"sd-scripts", 6, 4}, {"kohya", 2, 7}, {"num_workers", 3, 1}, {"16_config", 6, 7}, {"verflow", 5, 1},
    {"VERFLOW", 3, 4}, {"Got an OOM, unloading all loaded models", 7, 6}, {"optimization level O", 14, 3},
    {"torch.float16", 6, 7}, {"torch.bfloat16", 7, 7}, {"--amp", 1, 0}, {"--use-amp", 5, 0}, {"--use_amp", 1, 0},
};

// The nibble tables, each 16 entries twice (one per 128-bit lane of an AVX2 register): a byte b is a
// first byte of a pair in bucket k when bit k is set in first_lo[b & 15] and in first_hi[b >> 4].
struct PairTables {
  alignas(32) std::uint8_t first_lo[32] = {}, first_hi[32] = {}, second_lo[32] = {}, second_hi[32] = {};
};

PairTables MakePairTables() {
  PairTables t;
  for (const Pair& p : kPairs) {
    const auto a = static_cast<std::uint8_t>(p.text[p.at]), b = static_cast<std::uint8_t>(p.text[p.at + 1]);
    const auto bit = static_cast<std::uint8_t>(1u << p.bucket);
    for (int lane = 0; lane < 32; lane += 16) {
      t.first_lo[lane + (a & 15)] |= bit;
      t.first_hi[lane + (a >> 4)] |= bit;
      t.second_lo[lane + (b & 15)] |= bit;
      t.second_hi[lane + (b >> 4)] |= bit;
    }
  }
  return t;
}

const PairTables& Tables() {
  static const PairTables t = MakePairTables();
  return t;
}

// Whether p[i], p[i + 1] pass the fingerprint.
inline bool PairAt(const PairTables& t, const char* p, size_t i) {
  const auto a = static_cast<std::uint8_t>(p[i]), b = static_cast<std::uint8_t>(p[i + 1]);
  return (t.first_lo[a & 15] & t.first_hi[a >> 4] & t.second_lo[b & 15] & t.second_hi[b >> 4]) != 0;
}

size_t FirstPairPortable(const char* p, size_t n, size_t i) {
  const PairTables& t = Tables();
  for (; i + 1 < n; ++i) {
    if (PairAt(t, p, i)) return i;
  }
  return n;
}

#ifdef TRIAGE_AVX2
__attribute__((target("avx2"))) inline __m256i Table(const std::uint8_t* x) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(x));
}

// Per byte of v, the buckets whose bytes share both its nibbles.
__attribute__((target("avx2"))) inline __m256i Buckets(__m256i v, __m256i lo, __m256i hi) {
  const __m256i low = _mm256_set1_epi8(15);
  return _mm256_and_si256(_mm256_shuffle_epi8(lo, _mm256_and_si256(v, low)),
                          _mm256_shuffle_epi8(hi, _mm256_and_si256(_mm256_srli_epi16(v, 4), low)));
}

__attribute__((target("avx2"))) size_t FirstPairAvx2(const char* p, size_t n) {
  const PairTables& t = Tables();
  const __m256i first_lo = Table(t.first_lo), first_hi = Table(t.first_hi);
  const __m256i second_lo = Table(t.second_lo), second_hi = Table(t.second_hi);
  size_t i = 0;
  for (; i + 33 <= n; i += 32) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i + 1));
    const __m256i hit = _mm256_and_si256(Buckets(a, first_lo, first_hi), Buckets(b, second_lo, second_hi));
    const auto none = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hit, _mm256_setzero_si256())));
    if (none != 0xFFFFFFFFu) return i + static_cast<size_t>(__builtin_ctz(~none));
  }
  return FirstPairPortable(p, n, i);
}
#endif

}  // namespace

namespace internal {
size_t FactsPrefilterHit(std::string_view text, bool portable) {
#ifdef TRIAGE_AVX2
  if (CpuHasAvx2() && !portable) return FirstPairAvx2(text.data(), text.size());
#endif
  (void)portable;
  return FirstPairPortable(text.data(), text.size(), 0);
}

std::vector<std::string> FactsPrefilterTexts() {
  std::vector<std::string> out;
  for (const Pair& p : kPairs) out.emplace_back(p.text);
  return out;
}
}  // namespace internal

void EnvFacts::Feed(std::string_view data) {
  // The end of a line begun in an earlier piece.
  if (!partial_.empty()) {
    const size_t nl = data.find('\n');
    const std::string_view piece = data.substr(0, nl);
    if (partial_.size() < kMaxLine) partial_.append(piece.substr(0, kMaxLine - partial_.size()));
    if (nl == std::string_view::npos) return;
    AddLine(partial_);
    partial_.clear();
    data.remove_prefix(nl + 1);
  }
  // Whole lines: only those the prefilter passes (Note: [Facts prefilter]). No pair holds a '\n', so a
  // pair found lies inside one line.
  const size_t last = data.rfind('\n');
  if (last != std::string_view::npos) {
    const std::string_view lines = data.substr(0, last + 1);
    size_t at = 0;
    while (at < lines.size()) {
      const size_t hit = at + internal::FactsPrefilterHit(lines.substr(at), false);
      if (hit >= lines.size()) break;
      const size_t before = lines.substr(at, hit - at).rfind('\n');
      const size_t start = before == std::string_view::npos ? at : at + before + 1;
      const size_t end = lines.find('\n', hit);
      AddLine(lines.substr(start, end - start));
      at = end + 1;
    }
    data.remove_prefix(last + 1);
  }
  // An unfinished line: its first kMaxLine bytes wait for its end.
  if (!data.empty()) partial_.append(data.substr(0, kMaxLine));
}

void EnvFacts::ReadLine(std::string_view line) {
  const std::string_view head = line.substr(0, kMaxLine);  // what AddLine reads
  if (internal::FactsPrefilterHit(head, false) < head.size()) AddLine(line);
}

void EnvFacts::Finish() {
  if (!partial_.empty()) AddLine(partial_);
  partial_.clear();
}

void EnvFacts::Set(const char* name, std::string value, std::string_view text) {
  auto it = facts_.find(std::string_view(name));
  if (it == facts_.end()) {
    EnvFact f;
    f.value = std::move(value);
    f.text = std::string(text.substr(0, kMaxText));
    facts_.emplace(name, std::move(f));
  } else if (it->second.value != value) {
    it->second.conflict = true;
  }
}

void EnvFacts::AddLine(std::string_view whole) {
  std::string_view line = whole.substr(0, kMaxLine);
  re2::StringPiece in(line.data(), line.size());
  std::string a, b;
  re2::StringPiece m;
  // The build a wheel's local version names: `2.1.0+cpu`, `2.0.1+cu118`, `2.2.0+rocm5.7`; collect_env's
  // `CUDA used to build PyTorch: None` (a CPU build) or `: 11.8`.
  if (Has(line, "+cpu") || Has(line, "+cu") || Has(line, "+rocm")) {
    // Every tag on the line: "trained with torch 1.10.0+cu102, yours is 2.0.0+cu118" states two CUDA
    // builds, so torch_cuda is unknown there.
    re2::StringPiece rest = in;
    while (RE2::FindAndConsume(&rest, Re(R"((\b\d+\.\d+(?:\.\d+)?(?:[a-z]+\d*)?(?:\.dev\d+)?\+(cpu|cu\d{2,3}|rocm\d[\d.]*))\b)"), &m, &a)) {
      const std::string_view tag(m.data(), m.size());
      if (a == "cpu") {
        Set("build", "cpu", tag);
      } else if (a.compare(0, 4, "rocm") == 0) {
        Set("build", "rocm", tag);
      } else {
        Set("build", "cuda", tag);
        Set("torch_cuda", CudaOfTag(a.substr(2)), tag);
      }
    }
  }
  if (Has(line, "used to build PyTorch:")) {
    if (RE2::PartialMatch(in, Re(R"(CUDA used to build PyTorch: (None|\d+\.\d+))"), &a)) {
      if (a == "None") {
        if (!Has(line, "ROCM")) Set("build", "cpu", line);
      } else {
        Set("build", "cuda", line);
        Set("torch_cuda", a, line);
      }
    }
  }
  // What torch.cuda.is_available() answered, as scripts and collect_env print it.
  if (Has(line, "vailable")) {
    if (RE2::PartialMatch(in, Re(R"((?i)(?:cuda\.is_available\(\)|\bcuda (?:is )?available|\bgpu available)\s*(?:[:=]|->|is)?\s*(true|false)\b)"), &a)) {
      Set("cuda_available", Lower(a), line);
    }
  }
  // The device a script says it runs on (a line that starts with it: `Using device : cpu`, `Device: mps`;
  // `device="cpu"` inside a call or a message's advice is no statement); Apple's MPS also from its tensors.
  if (Has(line, "evice") || Has(line, "mps:")) {
    if (RE2::PartialMatch(in, Re(R"((?i)^\s*(?:using |running on |training on |selected )?device\s*[:=]\s*['"]?(cpu|cuda|mps)\b)"), &a)) {
      Set("device", Lower(a), line);
    } else if (RE2::PartialMatch(in, Re(R"(\bdevice\(type='mps'|\bmps:\d)"))) {
      Set("device", "mps", line);
    }
  }
  // Mixed precision as flags, configs and banners state it; `false` states nothing.
  const bool fp = Has(line, "fp16") || Has(line, "bf16");
  if (fp || Has(line, "recision") || Has(line, "16bit") || Has(line, "16_config")) {
    std::string which;
    // Lightning's fallback from fp16 AMP on a CPU or TPU names both (`You passed `Trainer(accelerator='cpu',
    // precision='16-mixed')` but AMP with fp16 is not supported on CPU. Using `precision='bf16-mixed'` instead.`,
    // 1.x `... precision=16)` but native AMP is not supported on CPU. Using `precision='bf16'` instead.`): the run is
    // in bf16, whatever the flag it was given.
    if (fp && RE2::PartialMatch(in, Re(R"(Using `precision='bf16(?:-mixed)?'` instead)"))) which = "bf16";
    if (which.empty() && fp && RE2::PartialMatch(in, Re(R"((?:^|\s)--(fp16|bf16)\b(?:[ =]([\w.-]+))?)"), &a, &b)) {
      if (Lower(b) != "false" && b != "0" && Lower(b) != "no") which = a;
    }
    if (which.empty() && fp &&
        RE2::PartialMatch(in, Re(R"(\b(?:use_|enable_)?(fp16|bf16)(?:_enabled)?['"]?\s*(?:[:=]|\.{2,})\s*['"]?(?:True|true|1)\b)"), &a)) {
      which = a;
    }
    if (which.empty() && RE2::PartialMatch(in, Re(R"((?i)mixed[_-]precision['"]?\s*[:= ]\s*['"]?(fp16|bf16)\b)"), &a)) {
      which = Lower(a);
    }
    // accelerate's state as its scripts log it (`Mixed precision type: fp16`, AcceleratorState.__repr__ in state.py,
    // 0.x-1.x), and a DeepSpeed config printed as a dict or JSON on one line (`'fp16': {'enabled': True, ...`,
    // `"bf16": {"enabled": true}`).
    if (which.empty() && RE2::PartialMatch(in, Re(R"(\bMixed precision type: (fp16|bf16)\b)"), &a)) which = a;
    if (which.empty() && fp &&
        RE2::PartialMatch(in, Re(R"(['"](fp16|bf16)['"]:\s*\{\s*['"]enabled['"]:\s*(?:True|true)\b)"), &a)) {
      which = a;
    }
    // Lightning 2.x's warning about the legacy spelling it was given (lightning_fabric/connector.py: `16 is supported
    // for historical reasons but its usage is discouraged. Please set your precision to 16-mixed instead!`, later
    // with `precision=16` quoted first, which the next reading takes).
    if (which.empty() && RE2::PartialMatch(in, Re(R"(\bset your precision to (16|bf16)-mixed instead)"), &a)) {
      which = a == "16" ? "fp16" : "bf16";
    }
    if (which.empty() && RE2::PartialMatch(in, Re(R"(\bprecision\s*[:=]\s*['"]?(16|bf16)(?:-mixed|-true)?\b)"), &a)) {
      which = a == "16" ? "fp16" : "bf16";
    }
    // Lightning's banners (0.x up to 0.7 `Using 16bit precision.`, logged by its AMP mixin whether apex or native AMP ran,
    // both float16 (bf16 came to Lightning in 1.5); 1.0-1.2 `Using APEX 16bit precision.`, 1.2-1.5 `Using native 16bit precision.`, 1.6+
    // `Using 16bit native Automatic Mixed Precision (AMP)`, 1.7-1.9 `... None ...`, 2.0 `Using 16bit Automatic ...`,
    // later Fabric and Trainer `Using 16-bit Automatic Mixed Precision (AMP)`, `Using bfloat16 ...`) and
    // transformers 4.0-4.9's `Using amp fp16 backend`.
    if (which.empty() && RE2::PartialMatch(in, Re(R"(\bUsing (16bit|16-bit|bfloat16) (?:None |native )?(?:Automatic|Native) Mixed Precision)"), &a)) {
      which = a == "bfloat16" ? "bf16" : "fp16";
    }
    if (which.empty() && RE2::PartialMatch(in, Re(R"(\bUsing (?:(?:(?:native|APEX) )?16bit precision|(?:amp|apex) fp16 backend)\b)"))) {
      which = "fp16";
    }
    // DeepSpeed's config printout once its precision settings became pydantic models (runtime/precision_config.py,
    // 2025): `float16_config ............... enabled=True ...`, `bfloat16_config .............. enabled=True ...`.
    if (which.empty() && RE2::PartialMatch(in, Re(R"(\b(float16|bfloat16)_config \.+ enabled=True\b)"), &a)) {
      which = a == "float16" ? "fp16" : "bf16";
    }
    if (!which.empty()) Set("precision", which, line);
  }
  // apex amp's banner (`Selected optimization level O1:  Insert automatic casts ...`; O2 and O3 keep an fp16 model; O0
  // is float32), and a dtype set to torch's half types: `torch_dtype=torch.float16` of from_pretrained,
  // `dtype: torch.bfloat16` in a printed config, transformers' `Instantiating ... under default dtype torch.float16.`
  if (Has(line, "optimization level O") && RE2::PartialMatch(in, Re(R"(\bSelected optimization level O[123]\b)"))) {
    Set("precision", "fp16", line);
  }
  if ((Has(line, "torch.float16") || Has(line, "torch.bfloat16")) &&
      RE2::PartialMatch(in, Re(R"((?:dtype\s*[=:]\s*|\bunder default dtype )torch\.(float16|bfloat16)\b)"), &a)) {
    Set("precision", a == "float16" ? "fp16" : "bf16", line);
  }
  // A training script's AMP switch (`--amp`, `--use-amp`, `--use_amp`: argparse flags that turn on torch.cuda.amp's
  // autocast and GradScaler, as in timm, D-FINE, RT-DETR, DEIM and many scripts), float16 on CUDA unless the script
  // is told bfloat16: fp16, unless a value after it turns it off (`--amp False`) or the line names bf16 (timm's
  // `--amp --amp-dtype bfloat16`; `--amp-dtype` itself is no switch: the name must end at a blank, `=` or the line's end).
  if ((Has(line, "--amp") || Has(line, "--use-amp") || Has(line, "--use_amp")) &&
      RE2::PartialMatch(in, Re(R"((?:^|\s)--(?:use[-_])?amp(?:$|=|\s)([\w.-]*))"), &a) &&
      Lower(a) != "false" && a != "0" && Lower(a) != "no" && !RE2::PartialMatch(in, Re(R"(bf16|bfloat16)"))) {
    Set("precision", "fp16", line);
  }
  // A skipped step reported by a loss scaler that exists only for float16 (Note: [NaN loss in an fp16 run] in
  // rules/amp/nan-loss-in-fp16-run.lua): apex amp (`Gradient overflow.  Skipping step, loss scaler N ...`, its first
  // API's `Gradient overflow, skipping update`), apex's FP16_Optimizer (`OVERFLOW! Skipping step. ...`, `... Skipping
  // step, reducing loss scale to X`; its FusedAdam version's `Grad overflow on iteration N`, also DeepSpeed's first
  // FP16_Optimizer's), DeepSpeed's FP16_Optimizer (`Overflow detected. Skipping step. Attempted loss
  // scale`) and unfused optimizer (`fp16 dynamic loss scale overflow!`). DeepSpeed ZeRO's `OVERFLOW! Rank N Skipping
  // step` is no such statement: ZeRO-3 printed it under bf16 and fp32 as well (DeepSpeed#2911).
  if ((Has(line, "verflow") || Has(line, "VERFLOW")) &&
      RE2::PartialMatch(in, Re(R"(Grad(?:ient)? overflow(?:\.\s+Skipping step, |, skipping update| on iteration \d)|OVERFLOW(?: within closure)?! Skipping step[.,] |fp16 dynamic loss scale overflow! Skipping step|Overflow detected\. Skipping step\. Attempted loss scale)"))) {
    Set("precision", "fp16", line);
  }
  // The operating system, from paths and collect_env's `OS:` line.
  if (Has(line, ":\\") || Has(line, ":/") || Has(line, "OS: ")) {
    if (RE2::PartialMatch(in, Re(R"((?:^|[\s"'(=\[])[A-Za-z]:(?:\\{1,2}|/)[\w$])")) ||
        RE2::PartialMatch(in, Re(R"(\bOS: Microsoft Windows)"))) {
      Set("os", "windows", line);
    }
  }
  if (Has(line, "/Users/") || Has(line, "/opt/homebrew/") || Has(line, "OS: macOS") || Has(line, "Python.framework")) {
    if (RE2::PartialMatch(in, Re(R"((?:^|[\s"'(=\[])/Users/[^/\s]+/|/opt/homebrew/|\bOS: macOS|/Python\.framework/)"))) {
      Set("os", "macos", line);
    }
  }
  if (Has(line, "/home/") || Has(line, "/usr/") || Has(line, "/opt/conda/") || Has(line, "/content/") ||
      Has(line, "OS: ")) {
    if (RE2::PartialMatch(in, Re(R"((?:^|[\s"'(=\[])(?:/home/[^/\s]+/|/usr/(?:local/)?lib/python[23]|/opt/conda/|/content/)|\bOS: (?:Ubuntu|Debian|CentOS|Red Hat|Fedora|Arch Linux|Rocky|AlmaLinux|Amazon Linux))"))) {
      Set("os", "linux", line);
    }
  }
  // Python's version, from `Python 3.12.1`, a `python3.12/` path or Windows' `Python312\`.
  if (Has(line, "ython")) {
    if (RE2::PartialMatch(in, Re(R"((?i)\bpython[ -]?(3\.\d{1,2})\b)"), &a)) {
      Set("python", a, line);
    } else if (RE2::PartialMatch(in, Re(R"(\bPython3(\d{1,2})[\\/])"), &a)) {
      Set("python", "3." + a, line);
    }
  }
  // nvidia-smi's header and collect_env: the driver, and the newest CUDA that driver runs.
  if (Has(line, "CUDA Version:")) {
    if (RE2::PartialMatch(in, Re(R"(CUDA Version: (\d+\.\d+))"), &a)) Set("driver_cuda", a, line);
  }
  if (Has(line, "river Version:") || Has(line, "river version:")) {
    if (RE2::PartialMatch(in, Re(R"((?i)driver version: (\d+\.\d+(?:\.\d+)?))"), &a)) Set("driver", a, line);
  }
  // The image-generation app or trainer the log comes from (Note: [App fact] in env_facts.h): its own paths in
  // frames and log lines, or lines only it prints. A path alone is read only with the app's code folder after it,
  // so a ComfyUI log that names an AUTOMATIC1111 models folder as an extra search path states no second app.
  if (Has(line, "omfy")) {
    if (RE2::PartialMatch(in, Re(R"((?i)comfyui[^\\/\s"']*[\\/]+(?:comfy|comfy_extras|custom_nodes|execution\.py|nodes\.py|main\.py|python_embeded|python|venv)\b|^\s*# ComfyUI Error Report|\[ComfyUI-Manager\]|\bComfyUI version: v?\d)"))) {
      Set("app", "comfyui", line);
    }
  } else if (Has(line, "!!! Exception during processing !!!") || Has(line, "Error occurred when executing ") ||
             Has(line, "Got an OOM, unloading all loaded models")) {
    Set("app", "comfyui", line);
  }
  if (Has(line, "webui")) {
    if (RE2::PartialMatch(in, Re(R"((?i)(?:stable-diffusion-webui[\w.-]*|sd\.webui[\\/]+webui|sd-webui-forge[\w.-]*)[\\/]+(?:modules|extensions|extensions-builtin|repositories|webui\.py|launch\.py)\b)"))) {
      Set("app", "webui", line);
    }
  }
  if (Has(line, "ooocus")) {
    if (RE2::PartialMatch(in, Re(R"((?i)fooocus[\w.-]*[\\/]+(?:modules|ldm_patched|extras|entry_with_update\.py|launch\.py|webui\.py|python_embeded)\b|^\s*\[Fooocus\])"))) {
      Set("app", "fooocus", line);
    }
  }
  if (Has(line, "nvoke")) {
    if (RE2::PartialMatch(in, Re(R"([\\/]invokeai[\\/]+(?:backend|app)[\\/]|^\s*\[[\d :,.-]+\]::\[InvokeAI\])"))) {
      Set("app", "invokeai", line);
    }
  }
  if (Has(line, "sd-scripts") || Has(line, "kohya")) {
    if (RE2::PartialMatch(in, Re(R"((?i)(?:sd-scripts|kohya_ss|kohya-ss)[\\/]+(?:library|networks|[\w-]*train[\w-]*\.py|sd-scripts)\b)"))) {
      Set("app", "kohya", line);
    }
  }
  if (Has(line, "num_workers")) {
    if (RE2::PartialMatch(in, Re(R"(\bnum_workers['"]?\s*[:= ]\s*(\d+)\b)"), &a)) Set("num_workers", a, line);
  }
}

const EnvFact* EnvFacts::Get(std::string_view name) const {
  auto it = facts_.find(name);
  if (it == facts_.end() || it->second.conflict) return nullptr;
  return &it->second;
}

std::map<std::string, std::string> EnvFacts::Values() const {
  std::map<std::string, std::string> out;
  for (const auto& [name, f] : facts_) {
    if (!f.conflict) out[name] = f.value;
  }
  return out;
}

const std::vector<std::string>& EnvFacts::Names() {
  static const std::vector<std::string> names = {"app",         "build",  "cuda_available", "device", "driver",
                                                 "driver_cuda", "num_workers", "os", "precision", "python",
                                                 "torch_cuda"};
  return names;
}

}  // namespace triage
