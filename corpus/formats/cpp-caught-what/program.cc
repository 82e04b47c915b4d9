// A LibTorch inference server loop that catches c10::Error and logs e.what() before moving on: the
// log holds the message plus the C++ backtrace that what() appends.
#include <torch/torch.h>

#include <iostream>

int main() {
  torch::manual_seed(0);
  torch::nn::Embedding vocab(1000, 16);
  for (int request = 0; request < 2; ++request) {
    torch::Tensor ids = torch::tensor({3, 17, request == 0 ? 999 : 1000}, torch::kLong);
    try {
      torch::Tensor vectors = vocab->forward(ids);
      std::cout << "request " << request << ": ok " << vectors.sizes() << std::endl;
    } catch (const c10::Error& e) {
      std::cerr << "request " << request << " failed: " << e.what() << std::endl;
    }
  }
  return 0;
}
