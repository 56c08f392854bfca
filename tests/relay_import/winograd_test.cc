// Winograd convs in a graph (relay_import/passes/winograd.h): exactly the
// eligible convs (3x3, stride 1, constant weight, >= 32 channels in and out)
// become the three Winograd nodes, and the compiled model computes what it
// computes with the direct conv, to F(2x2, 3x3)'s rounding.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>

#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/passes/blocked_layout.h"
#include "relay_import/passes/winograd.h"
#include "tests/relay_import/onnx_builder.h"

using namespace tetune;
using namespace tetune::testing;

namespace {

void conv(onnx::GraphProto *g, const std::string &x, const std::string &y, int64_t cin, int64_t cout, int64_t pad,
          int64_t stride) {
  add_initializer(g, y + ".w", {cout, cin, 3, 3}, wave(static_cast<size_t>(cout * cin * 9), 0.37f, 0.1f));
  add_initializer(g, y + ".b", {cout}, wave(static_cast<size_t>(cout), 0.71f, 0.1f));
  auto *n = add_node(g, "Conv", {x, y + ".w", y + ".b"}, {y});
  attr_ints(n, "pads", {pad, pad, pad, pad});
  attr_ints(n, "strides", {stride, stride});
}

// X [1, 32, 9, 7]: a = Relu(Conv3x3 pad 1 (X, 32 -> 48)); Y = Conv3x3 pad 0 (a, 48 -> 32);
// S = Conv3x3 stride 2 (a, 48 -> 32); T = Conv3x3 pad 1 (a, 48 -> 16).
// Winograd: a and Y (odd planes: tail tiles); direct: S (stride), T (16 channels).
std::string model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto *g = m.mutable_graph();
  g->set_name("winograd");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 32, 9, 7});
  conv(g, "X", "a0", 32, 48, 1, 1);
  add_node(g, "Relu", {"a0"}, {"a"});
  conv(g, "a", "Y", 48, 32, 0, 1);
  conv(g, "a", "S", 48, 32, 1, 2);
  conv(g, "a", "T", 48, 16, 1, 1);
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 32, 7, 5});
  set_type(g->add_output(), "S", onnx::TensorProto::FLOAT, {1, 32, 5, 4});
  set_type(g->add_output(), "T", onnx::TensorProto::FLOAT, {1, 16, 9, 7});
  return m.SerializeAsString();
}

relay::Graph imported() { return relay::import_onnx_bytes(model(), "winograd.onnx", relay::ImportOptions()); }

}  // namespace

TEST(Winograd, OnlyEligibleConvsBecomeTheThreeStages) {
  relay::Graph g = imported();
  ASSERT_EQ(relay::convert_to_blocked_layout(g, 16).convs, 4);
  EXPECT_EQ(relay::convert_convs_to_winograd(g), 2);
  auto ops = g.op_histogram();
  EXPECT_EQ(ops["tetune.WinogradInput"], 2);
  EXPECT_EQ(ops["tetune.WinogradGemm"], 2);
  EXPECT_EQ(ops["tetune.WinogradOutput"], 2);
  EXPECT_EQ(ops["tetune.ConvNCHWc"], 2) << "the stride-2 conv and the 16-channel one stay direct";
  EXPECT_EQ(relay::convert_convs_to_winograd(g), 0) << "nothing left on a second run";
}

TEST(Winograd, CompiledModelEqualsTheDirectConvs) {
  if (relay::channel_block(Target{}) == 0) GTEST_SKIP() << "no blocked layout on this CPU (neither AVX2 nor AVX-512)";
  relay::CompileOptions direct;
  direct.winograd = false;
  relay::CompiledModel wino = relay::compile_model(imported());
  relay::CompiledModel plain = relay::compile_model(imported(), direct);
  EXPECT_EQ(wino.stats().winograd_convs, 2);
  EXPECT_EQ(plain.stats().winograd_convs, 0);
  NDArray x = NDArray::random({1, 32, 9, 7}, float32(), 3);
  const std::vector<NDArray> got = wino.run(std::vector<NDArray>{x}), want = plain.run(std::vector<NDArray>{x});
  ASSERT_EQ(got.size(), 3u);
  for (size_t o = 0; o < got.size(); o++) {
    ASSERT_EQ(got[o].shape(), want[o].shape()) << "output " << o;
    double worst = 0;
    for (int64_t i = 0; i < want[o].size(); i++) worst = std::max(worst, std::abs(got[o].get(i) - want[o].get(i)));
    EXPECT_LT(worst, 1e-4) << "output " << o;
  }
}
