// A LibTorch program whose shape error is never caught: std::terminate prints the c10::Error's what(),
// which carries the C++ backtrace ("Exception raised from ... (most recent call first): frame #0: ...").
#include <torch/torch.h>

#include <iostream>

int main() {
  torch::manual_seed(0);
  torch::nn::Linear projection(256, 64);
  torch::Tensor tokens = torch::randn({8, 300});
  torch::Tensor out = projection->forward(tokens);
  std::cout << out.sizes() << std::endl;
  return 0;
}
