// triage-probe-torch: runs the probes on a TorchScript model saved from Python and prints a diagnosis
// in the same format as `triage`. The only program that loads LibTorch (the `triage` log command stays
// torch-free so it starts in milliseconds); the `triage-probe` command (front.cc) reads the command
// line first and runs this program only for work that needs LibTorch (Note: [Probe front]).
//
//   triage-probe --model model.pt --inputs x.pt --targets y.pt [--loss cross_entropy]
//                [--log error.log] [--probe NAME]... [--optimizer adam|sgd] [--lr 0.001] [--budget 30]
//                [--format text|json|markdown|html] [--eval] [--verbose] [--evidence FILE]
//
// model.pt: torch.jit.save(torch.jit.script(model)) (or trace). x.pt / y.pt: torch.save(tensor);
// they are read with torch::pickle_load, which accepts the zip format torch.save writes.
// With --log, the log is diagnosed first and the probes test its hypotheses; without, every probe
// runs (a checkup). --format html writes one self-contained page (triage --format html's), with the
// probes' per-layer measurements drawn as bar charts. Exit status: 0 no diagnosis, 1 diagnosis found, 2 usage or load error.
#include <torch/script.h>
#include <torch/torch.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "args.h"
#include "triage/evidence.h"
#include "triage/probes.h"
#include "triage/triage.h"

namespace {

bool ReadFile(const std::string& path, std::vector<char>* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

// Loads a tensor written by Python's torch.save (zip or legacy pickle) or by torch::save.
bool LoadTensor(const std::string& path, torch::Tensor* out, std::string* error) {
  std::vector<char> bytes;
  if (!ReadFile(path, &bytes)) {
    *error = "cannot read " + path;
    return false;
  }
  try {
    c10::IValue v = torch::pickle_load(bytes);
    if (v.isTensor()) {
      *out = v.toTensor();
      return true;
    }
    *error = path + " holds a " + v.tagKind() + ", not a tensor";
    return false;
  } catch (const std::exception& e) {
    // torch::save from C++ writes a TorchScript archive instead of a pickle.
    try {
      torch::load(*out, path);
      return true;
    } catch (const std::exception&) {
      *error = "cannot load " + path + ": " + std::string(e.what()).substr(0, 300);
      return false;
    }
  }
}

torch::Tensor ComputeLoss(const std::string& name, const torch::Tensor& out, const torch::Tensor& y) {
  namespace F = torch::nn::functional;
  if (name == "nll") return F::nll_loss(out, y);
  if (name == "mse") return F::mse_loss(out, y.to(out.dtype()));
  if (name == "bce_with_logits") return F::binary_cross_entropy_with_logits(out, y.to(out.dtype()));
  return F::cross_entropy(out, y);
}

}  // namespace

int main(int argc, char** argv) {
  // The front read the same arguments already; reading them again keeps this program usable alone.
  triage::probe_cli::ProbeArgs args;
  if (int status = triage::probe_cli::ParseArgs(argc, argv, &args, std::cout, std::cerr); status >= 0) return status;
  if (args.list) {
    for (const auto& p : triage::probes::ProbeList()) std::cout << p.name << "\t" << p.summary << "\n";
    return 0;
  }
  const std::string& model_path = args.model;
  const std::string& inputs_path = args.inputs;
  const std::string& targets_path = args.targets;
  const std::string& log_path = args.log;
  const std::string& evidence_path = args.evidence;
  const std::string& loss_name = args.loss;
  const std::string& format = args.format;
  const std::vector<std::string>& probes = args.probes;
  const std::string& optimizer_name = args.optimizer;
  const double lr = args.lr, budget = args.budget;
  const bool eval = args.eval, verbose = args.verbose;
  at::set_num_threads(1);

  torch::jit::Module module;
  try {
    module = torch::jit::load(model_path);
  } catch (const std::exception& e) {
    std::cerr << "triage-probe: cannot load " << model_path << ": " << std::string(e.what()).substr(0, 300) << "\n";
    return 2;
  }
  if (eval) module.eval();
  triage::probes::ProbeContext ctx;
  ctx.model = triage::probes::Model(module);
  std::string error;
  if (!LoadTensor(inputs_path, &ctx.inputs, &error) ||
      (!targets_path.empty() && !LoadTensor(targets_path, &ctx.targets, &error))) {
    std::cerr << "triage-probe: " << error << "\n";
    return 2;
  }
  ctx.loss_name = loss_name;
  ctx.loss = [loss_name](const torch::Tensor& out, const torch::Tensor& y) { return ComputeLoss(loss_name, out, y); };
  ctx.expect_training = !eval;
  // The model came without its trainer: probes that need a step get a plain step over all
  // parameters with Adam (default; robust to the model's scale) or SGD. Its state is restored with
  // the model's.
  std::vector<torch::Tensor> params;
  for (const auto& [name, p] : ctx.model.Parameters()) {
    if (p.requires_grad()) params.push_back(p);
  }
  std::unique_ptr<torch::optim::Optimizer> optimizer;
  if (optimizer_name == "sgd") {
    optimizer = std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(lr));
  } else {
    optimizer = std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(lr));
  }
  ctx.optimizer = optimizer.get();
  torch::optim::Optimizer* opt = optimizer.get();
  ctx.train_step = [&ctx, opt](const torch::Tensor& x, const torch::Tensor& y) {
    opt->zero_grad();
    torch::Tensor loss = ctx.Loss(ctx.Forward(x), y);
    loss.backward();
    opt->step();
    return loss.detach();
  };

  triage::Report report;
  std::vector<triage::ProbeEvidence> evidence;
  if (!log_path.empty()) {
    std::vector<char> bytes;
    if (!ReadFile(log_path, &bytes)) {
      std::cerr << "triage-probe: cannot read " << log_path << "\n";
      return 2;
    }
    triage::LoadResult rules = triage::LoadRules({});
    triage::Engine engine(rules.rules);
    ctx.rules = rules.rules;
    report = engine.DiagnoseText(std::string_view(bytes.data(), bytes.size()));
    report.source = log_path;
    triage::probes::TestOptions options;
    options.budget_s = budget;
    evidence = triage::probes::TestHypotheses(report, ctx, options);
  } else if (!probes.empty()) {
    for (const std::string& name : probes) {
      auto got = triage::probes::RunProbe(name, ctx);
      evidence.insert(evidence.end(), got.begin(), got.end());
    }
    report.source = model_path;
    triage::ApplyEvidence(report, evidence);
  } else {
    report = triage::probes::Checkup(ctx, budget, &evidence);
    report.source = model_path;
  }

  if (!evidence_path.empty()) {
    // Every probe's verdict, for a caller that applies them to its own report (triage.check in Python).
    std::ofstream out(evidence_path, std::ios::binary | std::ios::trunc);
    out << triage::EvidenceToJson(evidence) << "\n";
    if (!out) {
      std::cerr << "triage-probe: cannot write " << evidence_path << "\n";
      return 2;
    }
  }
  if (format == "json") {
    std::cout << triage::ToJson(report) << "\n";
  } else if (format == "markdown") {
    std::cout << triage::ToMarkdown(report);
  } else if (format == "html") {
    std::cout << triage::ToHtml({report});
  } else {
    triage::TextOptions text;
    text.verbose = verbose;  // every diagnosis' hypotheses, with their probes' verdicts and evidence
    std::cout << triage::ToText(report, text);
    // Every probe's verdict and its one line of evidence (why it could not run, when it could not).
    std::cout << "\nprobes:\n";
    for (const auto& e : evidence) std::cout << "  " << e.probe << ": " << triage::VerdictName(e.verdict) << ": " << e.summary << "\n";
  }
  return report.diagnoses.empty() ? 0 : 1;
}
