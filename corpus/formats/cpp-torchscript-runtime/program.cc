// Loads the TorchScript module saved by export.py and runs it on an image whose size the module cannot
// reshape; the uncaught error carries the TorchScript interpreter's traceback.
#include <torch/script.h>

#include <iostream>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: program MODEL.pt" << std::endl;
    return 2;
  }
  torch::jit::script::Module module = torch::jit::load(argv[1]);
  std::vector<torch::jit::IValue> inputs{torch::randn({2, 3, 10, 10})};
  torch::Tensor out = module.forward(inputs).toTensor();
  std::cout << out.sizes() << std::endl;
  return 0;
}
