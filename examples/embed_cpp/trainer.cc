// A small LibTorch trainer with triage's Guard and Monitor around its steps.
//
//   trainer shape   the model's first layer is built for the wrong number of features: the step
//                   throws, the Guard diagnoses the exception and tests it with probes
//   trainer nan     the learning rate is far too high: the loss turns NaN without an exception, the
//                   Monitor sees it and the Guard investigates
//
// The diagnosis goes to stdout; exit status 0 when training failed and was diagnosed, 1 otherwise.
#include <torch/torch.h>

#include <iostream>
#include <string>

#include "triage/guard.h"

struct Net : torch::nn::Module {
  Net(int64_t in, int64_t hidden, int64_t classes)
      : fc1(register_module("fc1", torch::nn::Linear(in, hidden))),
        fc2(register_module("fc2", torch::nn::Linear(hidden, classes))) {}
  torch::Tensor forward(const torch::Tensor& x) { return fc2(torch::relu(fc1(x))); }
  torch::nn::Linear fc1, fc2;
};

int main(int argc, char** argv) {
  const std::string bug = argc > 1 ? argv[1] : "nan";
  if (bug != "shape" && bug != "nan") {
    std::cerr << "usage: trainer [shape|nan]\n";
    return 2;
  }
  torch::manual_seed(0);
  const int64_t features = 16, classes = 4;
  auto net = std::make_shared<Net>(bug == "shape" ? features + 8 : features, 32, classes);
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(bug == "nan" ? 1e6 : 0.1));
  torch::Tensor x = torch::randn({64, features}) * 10;
  torch::Tensor y = torch::randint(0, classes, {64});

  // What the probes need: the model, a sample batch, and the trainer's own step.
  triage::probes::ProbeContext ctx;
  ctx.model = triage::probes::Model(net);
  ctx.inputs = x;
  ctx.targets = y;
  ctx.forward = [&](const torch::Tensor& in) { return net->forward(in); };
  ctx.optimizer = &optimizer;
  ctx.train_step = [&](const torch::Tensor& in, const torch::Tensor& target) {
    optimizer.zero_grad();
    torch::Tensor loss = torch::nn::functional::cross_entropy(net->forward(in), target);
    loss.backward();
    optimizer.step();
    return loss;
  };

  triage::probes::Guard guard(ctx);
  triage::probes::Monitor monitor(ctx.model);
  for (int step = 0; step < 50; ++step) {
    triage::probes::StepResult r = guard.Step([&] {
      optimizer.zero_grad();
      torch::Tensor loss = torch::nn::functional::cross_entropy(net->forward(x), y);
      loss.backward();
      if (monitor.Observe(loss)) return;  // a silent failure: do not apply this update
      optimizer.step();
    }, TRIAGE_SOURCE_LOCATION);
    if (!r.ok) {
      std::cout << triage::ToText(r.report, {});
      return 0;
    }
    if (monitor.alarmed()) {
      std::cout << triage::ToText(guard.Investigate(monitor, TRIAGE_SOURCE_LOCATION), {});
      return 0;
    }
  }
  std::cout << "trained 50 steps without a failure\n";
  return 1;
}
