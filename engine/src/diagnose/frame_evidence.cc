#include "diagnose/frame_evidence.h"

#include <re2/re2.h>

#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "diagnose/ranker.h"
#include "log/pattern_atoms.h"
#include "rules/rule.h"

namespace triage {

// Note: [Frame evidence] A traceback whose message no rule knows still says where it was raised and
// as what: the library frames it passed through (torch/serialization.py's _legacy_load, the DataLoader's
// shared-memory hand-off) and the exception's class (torch.OutOfMemoryError). Where that evidence alone
// names a category often enough, the engine answers from it when no rule matched the primary incident's
// group at all (Ranking step 9, rules/README.md): one diagnosis, at kFrameEvidenceConfidence, whose
// ranking note says it was read from the frames, not the message.
//
// Measured, not chosen: `triage eval corpus` prints, for every row, how often its category (and its
// family) is the label over our cases and the wild tuning split, reading every case as if no rule had
// matched (ReadFrameEvidence on the incidents; rules are not consulted). A row speaks only where that
// was >= 85% over >= 5 cases (tests/corpus_eval_test.cc holds the speaking rows to it); every other row
// abstains, and since the innermost evidence decides, an abstaining row also stops outer frames from
// answering for it (an error raised in collate.py is not read from the shared-memory frames around it).
// Most library frames point to a family but not to one of its categories (the torch.distributed frames
// outside the rendezvous were in the family 8 times of 11, in one category 4 times): a wrong category at
// low confidence is worse than none (issue 12 item 6), so those rows abstain. The measured figures of 2026-11-30 are in rules/README.md
// "Frame evidence".
//
// The confidence is low on purpose: the rows were measured on cases whose wording a rule also knows,
// and an unknown wording is a different population (first contact on new threads is the check that
// exists for it, corpus/README.md batch 2026-11-30b-kb-frames). 0.4 clears the abstention threshold
// (0.35) and sits below almost every rule's answer after calibration (a prior of 0.4 maps to 0.53).
//
// Each row: what it reads, and its basis in PyTorch (or the library that raises it).
const std::vector<FrameEvidenceEntry>& FrameEvidenceTable() {
  static const std::vector<FrameEvidenceEntry> table = {
      // --- exception classes: a class that only one kind of failure raises ---
      // torch.cuda.OutOfMemoryError (1.13+) and torch.OutOfMemoryError (2.5+) are raised by the caching
      // allocator (c10/cuda/CUDACachingAllocator.cpp) when an allocation fails, and by nothing else.
      {"oom-exception", R"((^|\.)OutOfMemoryError$)", "", "", "", "cuda.oom", true,
       "The exception's class is PyTorch's out-of-memory error, which only the GPU allocator raises: the "
       "device ran out of memory at this step.",
       "nvidia-smi while the job runs (what else holds memory), then rerun with half the batch size.",
       "Lower the batch size or sequence length, free other processes' GPU memory, or use gradient "
       "accumulation / activation checkpointing / mixed precision to fit the step.",
       "nvidia-smi --query-gpu=memory.used,memory.total --format=csv"},
      // FloatingPointError is raised by frameworks' non-finite checks (detectron2's and fairseq's trainers,
      // Lightning's detect_anomaly/terminate_on_nan, numpy under np.seterr(all='raise')): a NaN/Inf value.
      {"floating-point-error", R"(^FloatingPointError$)", "", "", "", "numerics.nan_loss", true,
       "FloatingPointError is what training frameworks raise when their check finds a NaN or Inf loss or "
       "gradient: the values diverged before this point.",
       "Log the loss every step and find the first non-finite one; check the inputs of that batch for "
       "NaN/Inf.",
       "Lower the learning rate, add gradient clipping, guard log/division against zero, and check the "
       "data for NaN/Inf.",
       "grep -n -i -m 5 -E '\\b(nan|inf)\\b' train.log  # the first non-finite values the log printed"},
      // torch.distributed.DistBackendError (2.1+) wraps NCCL/gloo failures: set-up, but also timeouts
      // and a peer's crash; the class alone does not tell them apart.
      {"dist-backend-error", R"((^|\.)DistBackendError$)", "", "", "", "distributed.nccl_setup", false, "", "", ""},
      // DistStoreError / DistNetworkError (2.1+): the TCPStore used to form the group.
      {"dist-store-error", R"((^|\.)Dist(Store|Network)Error$)", "", "", "", "distributed.rendezvous", false, "", "", ""},
      // safetensors_rust.SafetensorError: raised while reading a .safetensors file (header, size).
      {"safetensor-error", R"(SafetensorError$)", "", "", "", "checkpoint.corrupt", false, "", "", ""},
      // (No row for pickle's UnpicklingError: under torch.load it is a file that is not a checkpoint, or,
      // from 2.6, weights_only refusing a class; the frame it was raised in tells them apart, so the
      // class is left to the frame rows below.)
      // torch._dynamo.exc.* / torch._inductor.exc.*: torch.compile's own errors, of several categories.
      {"compile-exception", R"(^torch\._(dynamo|inductor)\.exc\.)", "", "", "", "compile.backend_failed", false, "", "", ""},
      // An import of a submodule ('pkg.sub') that the installed package does not have: the code was written
      // for another release of that package (torch._six, mmcv.runner, ultralytics.yolo).
      {"submodule-not-found", R"(^(ModuleNotFoundError|ImportError)$)", "", "",
       R"(^No module named '?[A-Za-z_][\w]*\.[\w.]+)", "env.version_mismatch", false, "", "", ""},

      // --- library frames, the innermost first: where the error was raised ---
      // torch/multiprocessing/reductions.py moves tensors between processes through shared memory (/dev/shm,
      // or file descriptors passed over a socket): a DataLoader worker handing its batch over.
      {"shared-memory-handoff", "", R"(torch/multiprocessing/reductions\.py$)", "", "", "data.shared_memory", true,
       "The traceback was raised in torch.multiprocessing's shared-memory hand-off, where a DataLoader "
       "worker passes its batch to the main process: shared memory (/dev/shm) ran short.",
       "df -h /dev/shm while the DataLoader runs (a container's default is 64 MB).",
       "Give the container more shared memory (docker run --shm-size=8g or --ipc=host), or lower "
       "num_workers / the batch size; torch.multiprocessing.set_sharing_strategy('file_system') is the "
       "fallback.",
       "df -h /dev/shm"},
      // torch/storage.py's _new_shared allocates that memory when the batch is collated in a worker.
      {"shared-storage", "", R"(torch/storage\.py$)", R"(^_new_shared|share_memory_)", "", "data.shared_memory", false,
       "", "", ""},
      // The DataLoader's SIGCHLD handler reports a worker that died; which signal killed it decides.
      {"dataloader-signal-handler", "", R"(torch/utils/data/_utils/signal_handling\.py$)", "", "", "data.worker_died",
       false, "", "", ""},
      // default_collate: the samples of one batch do not stack, or the stacked batch does not fit.
      {"collate", "", R"(torch/utils/data/_utils/collate\.py$)", "", "", "data.collate_mismatch", false, "", "", ""},
      // The rendezvous handlers (env://, tcp://, c10d, etcd) and their store: forming the group.
      {"rendezvous", "", R"(torch/distributed/(rendezvous\.py$|elastic/rendezvous/))", "", "", "distributed.rendezvous",
       true,
       "The traceback was raised in torch.distributed's rendezvous, the step where the processes meet "
       "(env://, tcp:// or the c10d store torchrun uses): the group never formed, because an address or "
       "port is wrong, taken or unreachable, or a rank never arrived.",
       "Print MASTER_ADDR, MASTER_PORT (or --rdzv_endpoint), WORLD_SIZE and RANK on every node, and check "
       "from another node that the port answers.",
       "Give every rank one address all nodes can reach, a free port and the same world size, and start "
       "all of them within the rendezvous timeout.",
       "nc -zv \"$MASTER_ADDR\" \"$MASTER_PORT\"  # run on another node: is the rendezvous port reachable"},
      {"process-group-init", "", R"(torch/distributed/distributed_c10d\.py$)",
       R"(^(init_process_group|_new_process_group_helper|_store_based_barrier|_get_default_group|new_group)$)", "",
       "distributed.rendezvous", false, "", "", ""},
      // DDP's check that every rank built the same model (1.10+).
      {"ddp-param-verify", "", R"(torch/distributed/utils\.py$)", R"(^_verify_param_shape_across_processes$)", "",
       "distributed.model_mismatch", false, "", "", ""},
      // Any other torch.distributed frame: the family, not the category.
      {"distributed-other", "", R"(torch/distributed/)", "", "", "distributed.collective_timeout", false, "", "", ""},
      // torch.load reading the file: the legacy (pre-1.6) reader and the zip reader's record access.
      {"checkpoint-read", "", R"(torch/serialization\.py$)", R"(^(_legacy_load|load_tensor|persistent_load|__init__)$)",
       "", "checkpoint.corrupt", true,
       "The traceback was raised while torch.load read the file's contents (the legacy reader, or the zip "
       "archive's records): the file is not a whole PyTorch checkpoint. Often a download that stopped "
       "early, a web page or Git LFS pointer saved under the checkpoint's name, or one member unpacked "
       "from the checkpoint archive instead of the archive itself.",
       "Compare the file's size and checksum with its source, and look at its first bytes.",
       "Download the checkpoint again with a tool that follows the host's redirects, or point torch.load "
       "at the saved .pt/.pth/.tar file itself rather than at a file unpacked from it.",
       "head -c 64 CHECKPOINT | od -c | head -3  # 'P K' is a zip checkpoint; '<' or 'version' is a web page or an LFS pointer"},
      // torch.load restoring a tensor on a CUDA device this machine does not have.
      {"checkpoint-cuda-location", "", R"(torch/serialization\.py$)", R"(^validate_cuda_device$)", "",
       "device.cuda_unavailable", false, "", "", ""},
      // CUDA's lazy initialisation: no driver, no device, a CPU build, or a forked worker.
      {"cuda-lazy-init", "", R"(torch/cuda/__init__\.py$)", R"(^(_lazy_init|_check_driver)$)", "",
       "device.cuda_unavailable", false, "", "", ""},
      // GradScaler (torch.cuda.amp 1.6+, torch.amp 2.3+): unscaling, stepping, updating the scale.
      {"grad-scaler", "", R"(torch/(cuda/)?amp/grad_scaler\.py$)", "", "", "amp.grad_scaler_fp16", false, "", "", ""},
      // autocast's constructor checks the device and dtype it is asked for.
      {"autocast", "", R"(torch/(cuda/)?amp/autocast_mode\.py$)", "", "", "amp.bf16_unsupported", false, "", "", ""},
      // Anomaly mode prints the forward trace of the failing backward through torch/fx/traceback.py (2.x).
      {"anomaly-trace", "", R"(torch/fx/traceback\.py$)", "", "", "autograd.anomaly_nan", false, "", "", ""},
      {"clip-grad", "", R"(torch/nn/utils/clip_grad\.py$)", "", "", "numerics.exploding_gradients", false, "", "", ""},
      // The loss functions: target range, target dtype and input/target shapes all fail here.
      {"loss-function", "", R"(torch/nn/functional\.py$)",
       R"(^(cross_entropy|nll_loss|binary_cross_entropy(_with_logits)?|mse_loss|l1_loss|smooth_l1_loss|kl_div|ctc_loss)$)",
       "", "shape.loss_input_target", false, "", "", ""},
      {"embedding", "", R"(torch/nn/functional\.py$)", R"(^embedding$)", "", "index.out_of_range", false, "", "", ""},
      {"load-state-dict", "", R"(torch/nn/modules/module\.py$)", R"(^load_state_dict$)", "", "checkpoint.key_mismatch",
       false, "", "", ""},
      {"compile-frame", "", R"(torch/_(dynamo|inductor)/)", "", "", "compile.backend_failed", false, "", "", ""},
      {"hf-load", "", R"(transformers/modeling_utils\.py$)", R"(load|from_pretrained)", "", "checkpoint.corrupt", false,
       "", "", ""},
      {"safetensors-frame", "", R"(safetensors/)", "", "", "checkpoint.corrupt", false, "", "", ""},
      {"accelerate-frame", "", R"(accelerate/)", "", "", "cuda.oom", false, "", "", ""},
      {"lightning-connector", "", R"(lightning/(pytorch/)?trainer/connectors/)", "", "", "checkpoint.key_mismatch", false,
       "", "", ""},
  };
  return table;
}

namespace {

// Note: [Frame evidence gates] Compiling the table's 41 patterns took ~3.4 M instructions at every
// start that reached ReadFrameEvidence (a log no rule answers), most of them for rows that cannot
// apply: a numpy frame's file holds none of "torch/", "safetensors/", "accelerate/". Each pattern is
// compiled at its first use, and first gated by its prefilter (the literals its matches must hold, read
// by ReadPatternPrefilter, the reader the log path's prefilter uses: Note: [Literal fast path] in
// pattern_atoms.cc): a text its atoms do not pass cannot match, so the pattern is neither compiled nor
// run there. The answers are RE2's as before; a pattern the reader does not read is not gated.
struct LazyPattern {
  const std::string* pattern = nullptr;  // null: the row does not check this field
  mutable std::once_flag gate_once, re_once;  // each read at its first use
  mutable std::optional<PatternPrefilter> gate;  // ReadPatternPrefilter(*pattern)
  mutable std::unique_ptr<RE2> re;

  bool Holds(const std::string& text) const {
    if (!pattern) return true;
    std::call_once(gate_once, [this] { gate = ReadPatternPrefilter(*pattern); });
    if (gate && !gate->PassesText(text)) return false;
    std::call_once(re_once, [this] { re = std::make_unique<RE2>(*pattern); });
    return RE2::PartialMatch(text, *re);
  }
};

struct Compiled {
  LazyPattern exception, file, function, message;
};

const std::vector<Compiled>& CompiledTable() {
  static const std::vector<Compiled> compiled = [] {
    const std::vector<FrameEvidenceEntry>& table = FrameEvidenceTable();
    std::vector<Compiled> out(table.size());  // in place: a once_flag does not move
    auto set = [](LazyPattern& lazy, const std::string& p) {
      if (!p.empty()) lazy.pattern = &p;
    };
    for (size_t k = 0; k < table.size(); ++k) {
      set(out[k].exception, table[k].exception);
      set(out[k].file, table[k].file);
      set(out[k].function, table[k].function);
      set(out[k].message, table[k].message);
    }
    return out;
  }();
  return compiled;
}

std::string Slashed(std::string path) {
  for (char& c : path) {
    if (c == '\\') c = '/';
  }
  return path;
}

}  // namespace

FrameReading ReadFrameEvidence(const std::vector<Incident>& incidents, int primary) {
  FrameReading reading;
  if (primary < 0 || primary >= static_cast<int>(incidents.size())) return reading;
  std::vector<int> group = {primary};  // the root, then the incidents chained to it, in input order
  for (int i = 0; i < static_cast<int>(incidents.size()); ++i) {
    if (i != primary && RootOf(incidents, i) == primary) group.push_back(i);
  }
  const std::vector<FrameEvidenceEntry>& table = FrameEvidenceTable();
  const std::vector<Compiled>& compiled = CompiledTable();
  for (int i : group) {
    const Incident& inc = incidents[static_cast<size_t>(i)];
    if (inc.exception.empty()) continue;
    for (size_t k = 0; k < table.size(); ++k) {
      if (compiled[k].file.pattern || !compiled[k].exception.Holds(inc.exception) ||
          !compiled[k].message.Holds(inc.message)) {
        continue;
      }
      reading.entry = &table[k];
      reading.incident = i;
      return reading;
    }
  }
  for (int i : group) {
    const Incident& inc = incidents[static_cast<size_t>(i)];
    for (auto f = inc.frames.rbegin(); f != inc.frames.rend(); ++f) {
      if (f->user) continue;
      const std::string file = Slashed(f->file);
      for (size_t k = 0; k < table.size(); ++k) {
        if (!compiled[k].file.pattern || !compiled[k].file.Holds(file) || !compiled[k].function.Holds(f->function) ||
            !compiled[k].exception.Holds(inc.exception)) {
          continue;
        }
        reading.entry = &table[k];
        reading.incident = i;
        const size_t slash = file.find_last_of('/');
        reading.frame = (slash == std::string::npos ? file : file.substr(slash + 1)) + ":" + std::to_string(f->line) +
                        (f->function.empty() ? "" : " in " + f->function);
        return reading;
      }
    }
  }
  return reading;
}

Diagnosis FrameEvidenceDiagnosis(const std::vector<Incident>& incidents, const FrameReading& reading, Audience audience) {
  const FrameEvidenceEntry& e = *reading.entry;
  const Incident& inc = incidents[static_cast<size_t>(reading.incident)];
  Diagnosis d;
  d.rule = "frames:" + e.id;
  d.category = e.category;
  d.confidence = kFrameEvidenceConfidence;
  d.title = CategoryTitle(e.category);
  d.incident = reading.incident;
  const std::string where = reading.frame.empty() ? "its exception class, " + inc.exception
                                                  : "its innermost library frame, " + reading.frame;
  d.captures["evidence"] = reading.frame.empty() ? inc.exception : reading.frame;
  d.explanation = "No rule knows this error's wording; this reading comes from " + where +
                  ", not from the message. Treat it as a lead to check, not a finding.";
  d.ranking = "Read from the traceback's frames and exception class (Ranking step 9): no rule matched this "
              "error, and this evidence named " + e.category + " in most measured cases.";
  Hypothesis h;
  h.id = "frames-" + e.id;
  h.text = e.reading;
  // The advice is written for a Python script (Note: [Audience]); a C++ reader sees it marked.
  const std::string mark = audience == Audience::kCxx ? "(written for Python) " : "";
  h.test = mark + e.test;
  h.fix = mark + e.fix;
  d.hypotheses.push_back(std::move(h));
  if (audience != Audience::kCxx && !e.check.empty()) d.checks.push_back(e.check);  // a shell/Python command
  d.verify = mark + "The run gets past the step that raised this traceback.";
  return d;
}

}  // namespace triage
