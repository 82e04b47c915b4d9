// Environment facts: what a log states about the machine and the run on lines no rule's message
// pattern reads (a build banner, an nvidia-smi table, a path, a flag), read from every line it is fed
// (the engine feeds the input's first MiB whole, then the lines it reads closely: Note: [Facts from the
// head and the read lines] in diagnose/engine.cc).
//
// Note: [Environment facts]. People paste more than the error: `pip list` or collect_env output,
// `torch 2.1.0+cpu`, `torch.cuda.is_available(): False`, a `C:\Users\...` or `/Users/.../miniforge3/`
// path in a frame, `--fp16`, `mixed_precision='bf16'`, nvidia-smi's `Driver Version: 535.104.05 CUDA
// Version: 12.2`. Each says which reading of an error fits: a CUDA error on a `+cpu` wheel is the
// wheel, a NaN loss in an fp16 run is an overflow first, a macOS path means no CUDA at all. The reader
// keeps a small, fixed vocabulary of such facts (Names() below; rules/README.md "Environment facts"
// lists how each is read); rules use them through conditions (rules/README.md "Conditions") and Lua
// through ctx.facts. A fact the input states two different ways (a `+cpu` torchaudio beside a `+cu118`
// torch, a Windows path and a Linux one) is unknown: a condition on it does not hold. Only what a line
// asserts counts: `fp16: False` sets nothing. Every line fed is looked at: a byte-pair fingerprint over
// the whole piece picks the lines that may hold one of the texts the checks look for (Note: [Facts
// prefilter] in env_facts.cc), and on those a handful of substring checks run before any regex, so a
// line that states nothing costs about a byte-compare pass.
#ifndef TRIAGE_ENGINE_ENV_FACTS_H_
#define TRIAGE_ENGINE_ENV_FACTS_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace triage {

struct EnvFact {
  std::string value;    // e.g. "cpu", "windows", "fp16", "12.2"
  std::string text;     // the text that stated it first, as printed (at most 120 bytes)
  bool conflict = false;  // another line stated another value: the fact is unknown
};

class EnvFacts {
 public:
  // Feeds raw bytes (any split); lines end at '\n'.
  void Feed(std::string_view data);
  // Reads the last line when the input did not end with '\n'. Further Feed calls start a new line.
  void Finish();
  // Reads one whole line (no '\n').
  void AddLine(std::string_view line);
  // AddLine of a line no prefilter has looked at: only when it holds a pair of Note: [Facts prefilter]
  // (env_facts.cc), as a line without one states nothing.
  void ReadLine(std::string_view line);

  // The fact `name` as the input states it; nullptr when it states none or disagrees with itself.
  const EnvFact* Get(std::string_view name) const;
  // Every fact stated without disagreement, name -> value (for Lua's ctx.facts).
  std::map<std::string, std::string> Values() const;

  // The names a rule may ask about, sorted: app, build, cuda_available, device, driver, driver_cuda,
  // num_workers, os, precision, python, torch_cuda.
  //
  // Note: [App fact]. `app` names the image-generation front end or trainer the log comes from (comfyui,
  // webui for AUTOMATIC1111/Forge and their forks, fooocus, invokeai, kohya for kohya-ss's sd-scripts and its
  // GUI), read from the app's own code paths in frames and log lines (its folder followed by one of its code
  // folders, its portable build's python_embeded, python or venv folder) or lines only it prints (ComfyUI's
  // `!!! Exception during processing !!!`, `Error occurred when executing NODE:` and its start-up line
  // `ComfyUI version: X`). Its users run inference or LoRA training through the app's settings, not a training
  // script of their own, so a rule can give them the app's switches (ComfyUI's --lowvram, the web UI's
  // --medvram) instead of code changes.
  static const std::vector<std::string>& Names();

 private:
  void Set(const char* name, std::string value, std::string_view text);
  std::map<std::string, EnvFact, std::less<>> facts_;
  std::string partial_;  // an unfinished line between Feed calls (bounded: the first 4 KiB are read)
};

namespace internal {
// Note: [Facts prefilter] in env_facts.cc, for tests: where in `text` the first byte pair that passes the
// prefilter starts (text.size() when none), with the AVX2 loop where the CPU has it unless `portable`; and
// the texts AddLine checks for, each of which holds a pair the prefilter passes.
size_t FactsPrefilterHit(std::string_view text, bool portable);
std::vector<std::string> FactsPrefilterTexts();
}  // namespace internal

}  // namespace triage

#endif  // TRIAGE_ENGINE_ENV_FACTS_H_
