// Channel-scale folding (relay_import/passes/channel_scale_folding.h): a
// squeeze-and-excitation gate s = Sigmoid(GlobalAveragePool(x)) scales x
// before a 1x1 Conv; the pass moves the scale onto the Conv's weight when the
// weight is the smaller tensor, and the compiled model still computes
// Conv(x * s, W) + bias (checked against plain loops).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>

#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/passes/channel_scale_folding.h"
#include "tests/relay_import/onnx_builder.h"

using namespace tetune;
using namespace tetune::testing;

namespace {

constexpr int C = 8;

// X [1, C, H, W] -> S = Sigmoid(GAP(X)) -> Y = Conv1x1(X * S, W [K, C], bias [K]); with `shared`, the
// scaled X is also a graph output (then nothing may be folded).
std::string se_model(int64_t K, int64_t H, int64_t W, bool shared, std::vector<float> &w, std::vector<float> &bias) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto *g = m.mutable_graph();
  g->set_name("se");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, C, H, W});
  w.resize(static_cast<size_t>(K * C)), bias.resize(static_cast<size_t>(K));
  for (size_t i = 0; i < w.size(); i++) w[i] = std::sin(0.37f * static_cast<float>(i));
  for (size_t i = 0; i < bias.size(); i++) bias[i] = 0.1f * static_cast<float>(i) - 0.3f;
  add_initializer(g, "Wt", {K, C, 1, 1}, w);
  add_initializer(g, "B", {K}, bias);
  add_node(g, "GlobalAveragePool", {"X"}, {"P"});
  add_node(g, "Sigmoid", {"P"}, {"S"});
  add_node(g, "Mul", {"X", "S"}, {"XS"});
  add_node(g, "Conv", {"XS", "Wt", "B"}, {"Y"});
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, K, H, W});
  if (shared) set_type(g->add_output(), "XS", onnx::TensorProto::FLOAT, {1, C, H, W});
  return m.SerializeAsString();
}

// Conv(x * sigmoid(mean_hw(x)), w) + bias by plain loops.
std::vector<double> reference(const NDArray &x, int64_t K, int64_t H, int64_t W, const std::vector<float> &w,
                              const std::vector<float> &bias) {
  std::vector<double> s(C), y(static_cast<size_t>(K * H * W));
  for (int c = 0; c < C; c++) {
    double a = 0;
    for (int64_t i = 0; i < H * W; i++) a += x.get(c * H * W + i);
    s[c] = 1 / (1 + std::exp(-a / static_cast<double>(H * W)));
  }
  for (int64_t k = 0; k < K; k++)
    for (int64_t i = 0; i < H * W; i++) {
      double a = bias[static_cast<size_t>(k)];
      for (int c = 0; c < C; c++) a += w[static_cast<size_t>(k * C + c)] * x.get(c * H * W + i) * s[c];
      y[static_cast<size_t>(k * H * W + i)] = a;
    }
  return y;
}

struct FoldCase {
  int64_t K, H, W;
  bool shared;
  int folded;
};

}  // namespace

TEST(ChannelScaleFolding, FoldsOnlyWhereTheWeightIsSmallerAndUnshared) {
  // K x C weight elements against C x H x W activation elements
  for (const FoldCase &fc : {FoldCase{4, 9, 11, false, 1}, FoldCase{48, 3, 3, false, 0}, FoldCase{4, 9, 11, true, 0}}) {
    SCOPED_TRACE("K=" + std::to_string(fc.K) + " HxW=" + std::to_string(fc.H) + "x" + std::to_string(fc.W) +
                 (fc.shared ? " shared" : ""));
    std::vector<float> w, bias;
    relay::Graph g = relay::import_onnx_bytes(se_model(fc.K, fc.H, fc.W, fc.shared, w, bias), "se.onnx", relay::ImportOptions());
    ASSERT_EQ(relay::fold_channel_scales_into_convs(g), fc.folded);
    int activation_muls = 0;
    for (const auto &n : g.nodes)
      if (!n.dead && n.op == "Mul" && g.values[n.outputs[0]].shape == Shape{1, C, fc.H, fc.W}) activation_muls++;
    EXPECT_EQ(activation_muls, 1 - fc.folded) << "the Mul over the activation is gone exactly when folded";
    EXPECT_EQ(relay::fold_channel_scales_into_convs(g), 0) << "a second run finds nothing left to do";

    relay::CompiledModel m = relay::compile_model(relay::import_onnx_bytes(se_model(fc.K, fc.H, fc.W, fc.shared, w, bias),
                                                                         "se.onnx", relay::ImportOptions()));
    NDArray x = NDArray::random({1, C, fc.H, fc.W}, float32(), 5, -2, 2);
    std::vector<NDArray> out = m.run(std::vector<NDArray>{x});
    ASSERT_EQ(out.size(), fc.shared ? 2u : 1u);
    std::vector<double> ref = reference(x, fc.K, fc.H, fc.W, w, bias);
    for (size_t i = 0; i < ref.size(); i++) ASSERT_NEAR(out[0].get(static_cast<int64_t>(i)), ref[i], 1e-4) << "element " << i;
  }
}
