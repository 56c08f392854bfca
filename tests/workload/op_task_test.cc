// workload/op_task.h: a registry operator's task carries the operator's
// weights as constant inputs, at their kernel argument positions, so that
// tune-op and run-op pack and flush them as a compiled model does.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/errors.h"
#include "te/ops/registry.h"
#include "workload/op_task.h"

namespace tetune {
namespace {

// The names of task.inputs() at task.constant_inputs.
std::vector<std::string> constant_names(const Task &t) {
  std::vector<std::string> names;
  const std::vector<Tensor> args = t.inputs();
  for (int i : t.constant_inputs) {
    EXPECT_GE(i, 0);
    EXPECT_LT(i, static_cast<int>(args.size()));
    if (i >= 0 && i < static_cast<int>(args.size())) names.push_back(args[i].name());
  }
  return names;
}

TEST(OpTask, WeightsAreTheConstantInputs) {
  const Task conv = op_task("conv2d_nchwc", {1, 8, 10, 10, 16, 3, 3, 4, 8, 1, 1}, Target{}, 2);
  EXPECT_EQ(conv.name, "conv2d_nchwc_1x8x10x10x16x3x3x4x8x1x1");
  EXPECT_EQ(conv.threads, 2);
  EXPECT_EQ(constant_names(conv), (std::vector<std::string>{"w"}));
  const Task bias = op_task("conv2d_bias", {1, 8, 12, 12, 16, 3, 3, 1, 1}, Target{}, 1);
  EXPECT_EQ(constant_names(bias), (std::vector<std::string>{"w", "b"}));
  const Task dense = op_task("dense", {16, 24, 32}, Target{}, 1);
  EXPECT_EQ(constant_names(dense), (std::vector<std::string>{"W", "bias"}));
  // A Gemm's B and C, as a linear layer holds them: its packed B is then timed as a model runs it.
  EXPECT_EQ(constant_names(op_task("gemm", {16, 24, 32}, Target{}, 1)), (std::vector<std::string>{"B", "C"}));
  // Both operands of a MatMul and an activation's input are activations.
  EXPECT_TRUE(op_task("matmul", {64, 48, 40}, Target{}, 1).constant_inputs.empty());
  EXPECT_TRUE(op_task("relu", {8, 8}, Target{}, 1).constant_inputs.empty());
}

TEST(OpTask, EveryRegisteredWeightIsAnInputOfItsCompute) {
  for (const auto &e : ops::op_registry()) {
    ops::OpWorkload w;
    const Task t = op_task(e.name, ops::parse_int_list(e.example), Target{}, 1, &w);
    EXPECT_EQ(t.constant_inputs.size(), w.weights.size()) << e.name;
    std::vector<std::string> expected;
    for (const auto &c : w.weights) expected.push_back(c.name());
    EXPECT_EQ(constant_names(t), expected) << e.name;
  }
}

TEST(OpTask, AConstantOutsideTheComputeIsAnErrorNamingIt) {
  ops::OpWorkload w = ops::build_op("matmul", {8, 8, 8});
  const Tensor stray = ops::build_op("matmul", {8, 8, 8}).inputs[1];
  try {
    make_task("matmul_8x8x8", w.outputs, {stray}, Target{}, 1);
    FAIL() << "a constant that the compute does not read was accepted";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("constant 'B' is not an input"), std::string::npos) << e.what();
  }
}

TEST(OpTask, AShapeTooLargeIsAShapeErrorNamingIt) {
  try {
    op_task("relu", {3000000000}, Target{}, 1);
    FAIL() << "a 12 GB tensor was accepted";
  } catch (const ShapeError &e) {
    EXPECT_NE(std::string(e.what()).find("--shape 3000000000: relu"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tetune
