// The tasks `tetune tune` takes from a model with Winograd convs: its own
// kernels, then the direct form of those convs as alternatives whose rivals
// are their three Winograd kernels (model_tuning.h, ModelTask::rivals), so
// that compile can take the faster form (relay_import/conv_forms.h).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "model_tuning/model_tuning.h"
#include "relay_import/executor.h"
#include "relay_import/passes/blocked_layout.h"
#include "tests/relay_import/onnx_builder.h"

namespace tetune {
namespace {

using namespace tetune::testing;

void conv(onnx::GraphProto *g, const std::string &x, const std::string &y) {
  add_initializer(g, y + ".w", {32, 32, 3, 3}, wave(32 * 32 * 9, 0.37f, 0.1f));
  auto *n = add_node(g, "Conv", {x, y + ".w"}, {y});
  attr_ints(n, "pads", {1, 1, 1, 1});
}

// X [1, 32, 8, 8] -> a = Relu(Conv(X)) -> b = Relu(Conv(a)) -> Y = Conv(b): three equal 3x3 convs,
// two with a Relu epilogue and one without.
std::string model_file() {
  onnx::ModelProto m;
  onnx::GraphProto *g = start_model(m, "three_convs");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 32, 8, 8});
  conv(g, "X", "a0");
  add_node(g, "Relu", {"a0"}, {"a"});
  conv(g, "a", "b0");
  add_node(g, "Relu", {"b0"}, {"b"});
  conv(g, "b", "Y");
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 32, 8, 8});
  const char *dir = getenv("TEST_TMPDIR");
  const std::string path = std::string(dir ? dir : "/tmp") + "/three_convs_" + std::to_string(getpid()) + ".onnx";
  std::ofstream(path, std::ios::binary) << m.SerializeAsString();
  return path;
}

TEST(ConvFormTasks, TheDirectFormOfWinogradConvsIsTunedBesideIt) {
  if (relay::channel_block(Target{}) == 0) GTEST_SKIP() << "no blocked layout on this CPU (neither AVX2 nor AVX-512)";
  const std::string path = model_file();
  int kernel_groups = 0;
  const std::vector<autotune::ModelTask> tasks = autotune::extract_model_tasks(path, {}, 1, &kernel_groups);
  std::map<std::string, int> index;  // task name -> position
  int alternatives = 0;
  double weights = 0;
  for (size_t i = 0; i < tasks.size(); i++) {
    index[tasks[i].task.name] = static_cast<int>(i);
    if (tasks[i].rivals.empty()) {
      weights += tasks[i].task.weight;
      EXPECT_EQ(alternatives, 0) << "the model's own kernels come first";
      continue;
    }
    alternatives++;
    const autotune::ModelTask &t = tasks[i];
    EXPECT_EQ(t.task.name.rfind("direct:", 0), 0u) << t.task.name;
    EXPECT_NE(t.task.name.find("tetune.ConvNCHWc"), std::string::npos) << t.task.name;
    EXPECT_EQ(static_cast<int>(t.groups.size()), static_cast<int>(t.task.weight)) << "one conv per occurrence";
    ASSERT_EQ(t.rivals.size(), 3u) << t.task.name;
    const bool relu = t.task.name.find("Relu") != std::string::npos;
    EXPECT_EQ(t.task.weight, relu ? 2 : 1) << t.task.name;
    const std::string in = tasks.at(t.rivals[0]).task.name, gemm = tasks.at(t.rivals[1]).task.name,
                      out = tasks.at(t.rivals[2]).task.name;
    EXPECT_NE(in.find("tetune.WinogradInput"), std::string::npos) << in;
    EXPECT_NE(gemm.find("tetune.WinogradGemm"), std::string::npos) << gemm;
    EXPECT_NE(out.find("tetune.WinogradOutput"), std::string::npos) << out;
    EXPECT_EQ(out.find("Relu") != std::string::npos, relu) << "the same epilogue in both forms: " << out;
    for (int r : t.rivals) EXPECT_TRUE(tasks.at(r).rivals.empty()) << "a rival is one of the model's kernels";
  }
  EXPECT_EQ(alternatives, 2) << "the direct conv with a Relu (twice) and the one without";
  EXPECT_EQ(weights, kernel_groups) << "the model's own kernels still sum to its kernel groups";

  const std::vector<autotune::ModelTask> plain = autotune::extract_model_tasks(path, {}, 1, nullptr, "blocked-direct");
  for (const autotune::ModelTask &t : plain) EXPECT_TRUE(t.rivals.empty()) << "no Winograd, no alternatives";
  ::unlink(path.c_str());
}

}  // namespace
}  // namespace tetune
