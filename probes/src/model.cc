// Model view, state snapshots and hashing, and the RecordFunction op tracer.
#include <ATen/record_function.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <cstring>
#include <exception>
#include <sstream>

#include "internal.h"

namespace triage::probes {

// ---- Model ----------------------------------------------------------------------------------

Model::Model(std::shared_ptr<torch::nn::Module> module) : module_(std::move(module)) {}
Model::Model(torch::jit::Module module) : script_(std::move(module)) {}

NamedTensors Model::Parameters() const {
  NamedTensors out;
  if (module_) {
    for (const auto& item : module_->named_parameters(/*recurse=*/true)) out.emplace_back(item.key(), item.value());
  } else if (script_) {
    for (const auto& slot : script_->named_parameters(/*recurse=*/true)) out.emplace_back(slot.name, slot.value);
  }
  return out;
}

NamedTensors Model::Buffers() const {
  NamedTensors out;
  if (module_) {
    for (const auto& item : module_->named_buffers(/*recurse=*/true)) out.emplace_back(item.key(), item.value());
  } else if (script_) {
    for (const auto& slot : script_->named_buffers(/*recurse=*/true)) out.emplace_back(slot.name, slot.value);
  }
  return out;
}

std::vector<Submodule> Model::Modules() const {
  std::vector<Submodule> out;
  if (module_) {
    for (const auto& item : module_->named_modules(/*name_prefix=*/"", /*include_self=*/true)) {
      out.push_back({item.key(), item.value()->name(), item.value()->is_training()});
    }
  } else if (script_) {
    for (const auto& slot : script_->named_modules()) {
      auto type = slot.value.type()->name();
      out.push_back({slot.name, type ? type->qualifiedName() : std::string("?"), slot.value.is_training()});
    }
  }
  return out;
}

bool Model::IsTraining() const {
  if (module_) return module_->is_training();
  if (script_) return script_->is_training();
  return false;
}

void Model::SetModes(const std::vector<Submodule>& modes) {
  // Pre-order: a parent's (recursive) train() runs before its children set their own flags.
  if (module_) {
    auto all = module_->named_modules("", true);
    for (const Submodule& m : modes) {
      if (auto* found = all.find(m.name)) (*found)->train(m.training);
    }
  } else if (script_) {
    std::map<std::string, torch::jit::Module> all;
    for (const auto& slot : script_->named_modules()) all.emplace(slot.name, slot.value);
    for (const Submodule& m : modes) {
      auto it = all.find(m.name);
      if (it != all.end() && it->second.hasattr("training")) it->second._ivalue()->setAttr("training", m.training);
    }
  }
}

torch::Tensor Model::ScriptForward(const torch::Tensor& input) {
  return script_->forward({input}).toTensor();
}

torch::Tensor ProbeContext::Forward(const torch::Tensor& in) const {
  if (forward) return forward(in);
  Model m = model;
  if (m.is_script()) return m.ScriptForward(in);
  throw std::runtime_error("probe context has no forward function for a C++ frontend module");
}

torch::Tensor ProbeContext::Loss(const torch::Tensor& out, const torch::Tensor& target) const {
  if (loss) return loss(out, target);
  return torch::nn::functional::cross_entropy(out, target);
}

// ---- Snapshots ------------------------------------------------------------------------------

std::string SaveOptimizer(torch::optim::Optimizer* optimizer) {
  if (optimizer == nullptr) return "";
  try {
    torch::serialize::OutputArchive archive;
    optimizer->save(archive);
    std::ostringstream os;
    archive.save_to(os);
    return os.str();
  } catch (const std::exception&) {
    return "";
  }
}

void LoadOptimizer(torch::optim::Optimizer* optimizer, const std::string& bytes) {
  if (optimizer == nullptr || bytes.empty()) return;
  try {
    torch::serialize::InputArchive archive;
    std::istringstream is(bytes);
    archive.load_from(is);
    optimizer->load(archive);
  } catch (const std::exception&) {
    // Nothing better to do: the optimizer keeps the state the probe left.
  }
}

namespace {
std::vector<at::Generator> CudaGenerators() {
  std::vector<at::Generator> out;
  // defaultGenerator(kCUDA) exists in every build; it only works when CUDA is present.
  if (torch::cuda::is_available()) {
    for (int i = 0; i < static_cast<int>(torch::cuda::device_count()); ++i) {
      out.push_back(at::globalContext().defaultGenerator(at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(i))));
    }
  }
  return out;
}
}  // namespace

StateSnapshot::StateSnapshot(const ProbeContext& ctx)
    : model_(ctx.model), optimizer_(ctx.optimizer), grad_mode_(torch::autograd::GradMode::is_enabled()) {
  torch::NoGradGuard no_grad;
  params_ = model_.Parameters();
  for (const auto& [name, p] : params_) {
    params_saved_.emplace_back(name, p.detach().clone());
    grads_saved_.emplace_back(name, p.grad().defined() ? p.grad().detach().clone() : torch::Tensor());
    requires_grad_.push_back(p.requires_grad());
  }
  buffers_ = model_.Buffers();
  for (const auto& [name, b] : buffers_) buffers_saved_.emplace_back(name, b.defined() ? b.detach().clone() : b);
  modes_ = model_.Modules();
  {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    cpu_rng_ = gen.get_state();
  }
  for (auto& gen : CudaGenerators()) {
    std::lock_guard<std::mutex> lock(gen.mutex());
    cuda_rng_.push_back(gen.get_state());
  }
  optimizer_state_ = SaveOptimizer(optimizer_);
}

void StateSnapshot::Restore() {
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params_.size(); ++i) {
      torch::Tensor p = params_[i].second;
      p.detach().copy_(params_saved_[i].second);
      p.mutable_grad() = grads_saved_[i].second.defined() ? grads_saved_[i].second.clone() : torch::Tensor();
      if (p.requires_grad() != requires_grad_[i]) p.set_requires_grad(requires_grad_[i]);
    }
    for (size_t i = 0; i < buffers_.size(); ++i) {
      if (buffers_[i].second.defined()) buffers_[i].second.detach().copy_(buffers_saved_[i].second);
    }
  }
  model_.SetModes(modes_);
  torch::autograd::GradMode::set_enabled(grad_mode_);
  {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_state(cpu_rng_);
  }
  auto cuda = CudaGenerators();
  for (size_t i = 0; i < cuda.size() && i < cuda_rng_.size(); ++i) {
    std::lock_guard<std::mutex> lock(cuda[i].mutex());
    cuda[i].set_state(cuda_rng_[i]);
  }
  LoadOptimizer(optimizer_, optimizer_state_);
}

namespace {
class Hasher {
 public:
  void Bytes(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h_ = (h_ ^ p[i]) * 1099511628211ull;
  }
  void Str(const std::string& s) { Bytes(s.data(), s.size()); Bytes("\0", 1); }
  void Int(int64_t v) { Bytes(&v, sizeof v); }
  void Tensor(const torch::Tensor& t) {
    Int(t.defined() ? 1 : 0);
    if (!t.defined()) return;
    Str(std::string(c10::toString(t.scalar_type())));
    for (int64_t d : t.sizes()) Int(d);
    torch::Tensor c = t.detach().to(torch::kCPU).contiguous();
    Bytes(c.data_ptr(), c.numel() * c.element_size());
  }
  std::string Hex() const {
    std::ostringstream os;
    os << std::hex << h_;
    return os.str();
  }

 private:
  uint64_t h_ = 1469598103934665603ull;
};
}  // namespace

std::string StateHash(const ProbeContext& ctx) {
  Hasher h;
  for (const auto& [name, p] : ctx.model.Parameters()) {
    h.Str(name);
    h.Tensor(p);
    h.Tensor(p.grad());
    h.Int(p.requires_grad());
  }
  for (const auto& [name, b] : ctx.model.Buffers()) {
    h.Str(name);
    h.Tensor(b);
  }
  for (const Submodule& m : ctx.model.Modules()) {
    h.Str(m.name);
    h.Int(m.training);
  }
  h.Int(torch::autograd::GradMode::is_enabled());
  {
    auto gen = at::detail::getDefaultCPUGenerator();
    std::lock_guard<std::mutex> lock(gen.mutex());
    h.Tensor(gen.get_state());
  }
  for (auto& gen : CudaGenerators()) {
    std::lock_guard<std::mutex> lock(gen.mutex());
    h.Tensor(gen.get_state());
  }
  h.Str(SaveOptimizer(ctx.optimizer));
  return h.Hex();
}

// ---- Op tracer ------------------------------------------------------------------------------

namespace {
thread_local OpTracer* g_tracer = nullptr;

std::unique_ptr<at::ObserverContext> StartCallback(const at::RecordFunction& fn) {
  if (g_tracer != nullptr) g_tracer->Start(fn);
  return nullptr;
}
void EndCallback(const at::RecordFunction& fn, at::ObserverContext* /*ctx*/) {
  if (g_tracer != nullptr) g_tracer->End(fn);
}

bool IsFloating(const torch::Tensor& t) { return t.defined() && t.is_floating_point() && t.numel() > 0; }
}  // namespace

bool AllFinite(const torch::Tensor& t) {
  if (!IsFloating(t)) return true;
  return torch::isfinite(t.detach()).all().item<bool>();
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::string ModuleOf(const std::string& param) {
  auto dot = param.rfind('.');
  return dot == std::string::npos ? std::string("(root)") : param.substr(0, dot);
}

std::string ErrorText(const std::exception& e) {
  if (const auto* c = dynamic_cast<const c10::Error*>(&e)) return c->msg();
  return e.what();
}

std::string ExceptionType(const std::exception& e) {
  if (const auto* m = dynamic_cast<const ModelError*>(&e)) return m->type();
  if (dynamic_cast<const c10::IndexError*>(&e)) return "IndexError";
  if (dynamic_cast<const c10::ValueError*>(&e)) return "ValueError";
  if (dynamic_cast<const c10::TypeError*>(&e)) return "TypeError";
  if (dynamic_cast<const c10::NotImplementedError*>(&e)) return "NotImplementedError";
  if (dynamic_cast<const c10::OutOfMemoryError*>(&e)) return "torch.cuda.OutOfMemoryError";
  return "RuntimeError";
}

std::string ErrorHeadline(const std::string& message) {
  std::vector<std::string> lines;
  std::istringstream in(message);
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
  }
  if (lines.empty()) return "";
  if (lines.front().rfind("The following operation failed in the TorchScript interpreter", 0) == 0) return lines.back();
  return lines.front();
}

OpTracer::OpTracer(const Model& model, Options options) : options_(options) {
  for (const auto& [name, p] : model.Parameters()) {
    if (p.defined() && p.has_storage()) param_names_[p.data_ptr()] = name;
  }
  if (g_tracer != nullptr) return;  // one tracer per thread: a nested one records nothing
  g_tracer = this;
  installed_ = true;
  handle_ = at::addThreadLocalCallback(at::RecordFunctionCallback(StartCallback, EndCallback)
                                           .needsInputs(true)
                                           .needsOutputs(true)
                                           .scopes({at::RecordScope::FUNCTION}));
}

OpTracer::~OpTracer() {
  if (!installed_) return;
  at::removeCallback(handle_);
  g_tracer = nullptr;
}

void OpTracer::Start(const at::RecordFunction& fn) {
  at::DisableRecordFunctionGuard no_recording;
  OpRecord rec;
  rec.name = fn.name();
  rec.depth = static_cast<int>(open_.size());
  bool check = rec.depth == 0;
  for (const c10::IValue& v : fn.inputs()) {
    if (!v.isTensor()) continue;
    const torch::Tensor& t = v.toTensor();
    if (!t.defined()) continue;
    rec.in_shapes.push_back(t.sizes().vec());
    rec.in_names.emplace_back();
    rec.in_data.push_back(t.has_storage() ? t.data_ptr() : nullptr);
    if (t.has_storage()) {
      // Views of a parameter (weight.t() inside the C++ frontend's linear) share its data pointer.
      auto it = param_names_.find(t.data_ptr());
      if (it != param_names_.end()) {
        rec.in_params.push_back(it->second);
        rec.in_names.back() = it->second;
      }
    }
    if (check && options_.check_finite && IsFloating(t)) {
      if (!AllFinite(t)) rec.in_nonfinite = true;
      if ((t.detach() == 0).any().item<bool>()) rec.in_has_zero = true;
    }
  }
  if (options_.embedding && rec.name == "aten::embedding" && fn.inputs().size() >= 2 && fn.inputs()[1].isTensor()) {
    const torch::Tensor& idx = fn.inputs()[1].toTensor();
    if (idx.defined() && idx.numel() > 0) {
      rec.in_max_index = std::max(idx.max().item<double>(), -idx.min().item<double>() - 1);
    }
  }
  open_.push_back(static_cast<int>(ops_.size()));
  ops_.push_back(std::move(rec));
}

void OpTracer::End(const at::RecordFunction& fn) {
  if (open_.empty()) return;
  at::DisableRecordFunctionGuard no_recording;
  OpRecord& rec = ops_[open_.back()];
  open_.pop_back();
  rec.ended = true;
  rec.failed = std::uncaught_exceptions() > 0;
  bool check = rec.depth == 0;
  for (const c10::IValue& v : fn.outputs()) {
    if (!v.isTensor()) continue;
    const torch::Tensor& t = v.toTensor();
    if (!t.defined()) continue;
    rec.out_shapes.push_back(t.sizes().vec());
    rec.out_data.push_back(t.has_storage() ? t.data_ptr() : nullptr);
    if (check && options_.check_finite && !AllFinite(t)) rec.out_nonfinite = true;
    if (check && options_.dead_units && IsFloating(t) && t.dim() >= 2 &&
        (rec.name == "aten::relu" || rec.name == "aten::relu_")) {
      torch::Tensor rows = t.detach().reshape({t.size(0), -1});
      rec.out_zero_fraction = (rows == 0).all(0).to(torch::kFloat).mean().item<double>();
    }
  }
}

int OpTracer::FailedOp() const {
  for (int i = static_cast<int>(ops_.size()) - 1; i >= 0; --i) {
    if (ops_[i].depth == 0 && (ops_[i].failed || !ops_[i].ended)) return i;
  }
  return -1;
}

}  // namespace triage::probes
