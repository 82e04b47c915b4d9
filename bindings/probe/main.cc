// triage-probe: runs the probes on a TorchScript model saved from Python and prints a diagnosis in
// the same format as `triage`. The only command that loads LibTorch (the `triage` log command
// stays torch-free so it starts in milliseconds).
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

#include "triage/evidence.h"
#include "triage/probes.h"
#include "triage/triage.h"

namespace {

constexpr char kUsage[] =
    "usage: triage-probe --model MODEL.pt --inputs X.pt [--targets Y.pt] [--loss cross_entropy|nll|mse|bce_with_logits]\n"
    "                    [--log ERROR.log] [--probe NAME]... [--optimizer adam|sgd] [--lr 0.001] [--budget SECONDS]\n"
    "                    [--format text|json|markdown|html] [--eval] [--verbose] [--evidence FILE] [--list]\n";

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
  std::string model_path, inputs_path, targets_path, log_path, evidence_path, loss_name = "cross_entropy";
  std::string format = "text";
  std::vector<std::string> probes;
  std::string optimizer_name = "adam";
  double lr = 1e-3, budget = 30;
  bool eval = false, verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "triage-probe: " << a << " needs a value\n" << kUsage;
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--model") model_path = value();
    else if (a == "--inputs") inputs_path = value();
    else if (a == "--targets") targets_path = value();
    else if (a == "--loss") loss_name = value();
    else if (a == "--log") log_path = value();
    else if (a == "--probe") probes.push_back(value());
    else if (a == "--lr") lr = std::atof(value().c_str());
    else if (a == "--optimizer") optimizer_name = value();
    else if (a == "--budget") budget = std::atof(value().c_str());
    else if (a == "--format") format = value();
    else if (a == "--evidence") evidence_path = value();
    else if (a == "--eval") eval = true;
    else if (a == "--verbose") verbose = true;
    else if (a == "--list") {
      for (const auto& p : triage::probes::ProbeList()) std::cout << p.name << "\t" << p.summary << "\n";
      return 0;
    } else if (a == "-h" || a == "--help") {
      std::cout << kUsage;
      return 0;
    } else {
      std::cerr << "triage-probe: unknown argument " << a << "\n" << kUsage;
      return 2;
    }
  }
  if (model_path.empty() || inputs_path.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  if (format != "text" && format != "json" && format != "markdown" && format != "html") {
    std::cerr << "triage-probe: --format is text, json, markdown or html, not '" << format << "'\n" << kUsage;
    return 2;
  }
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
