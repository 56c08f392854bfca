// Prints the lowered statement of a hand schedule (developer tool).
#include <cstdio>
#include <string>

#include "schedules/hand_schedules.h"
#include "codegen/kernel.h"
#include "te/ops/registry.h"

int main(int argc, char **argv) {
  using namespace tetune;
  std::string which = argc > 1 ? argv[1] : "gemm";
  if (which == "conv") {
    auto w = ops::build_op("conv2d", {1, 64, 56, 56, 64, 3, 3, 1, 1});
    std::printf("%s\n", Kernel::build(tetune::schedules::hand_conv_schedule(w.outputs)).lowered_stmt().c_str());
  } else {
    auto w = ops::build_op("matmul", {1024, 1024, 1024});
    std::printf("%s\n", Kernel::build(tetune::schedules::hand_gemm_schedule(w.outputs, {64, 256, 8, 32, 4})).lowered_stmt().c_str());
  }
}
