// Winograd convs in a graph (relay_import/passes/winograd.h): exactly the
// eligible convs (3x3, stride 1, constant weight, >= 32 channels in and out)
// become the three Winograd nodes, and the compiled model computes what it
// computes with the direct conv, to Winograd's rounding. With record times
// each conv takes its faster form (relay_import/conv_forms.h).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <map>

#include "relay_import/conv_forms.h"
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

// X [1, 32, H, W] (9 x 7 unless given): a = Relu(Conv3x3 pad 1 (X, 32 -> 48));
// Y = Conv3x3 pad 0 (a, 48 -> 32); S = Conv3x3 stride 2 (a, 48 -> 32);
// T = Conv3x3 pad 1 (a, 48 -> 16). Winograd: a and Y (odd planes: tail
// tiles); direct: S (stride), T (16 channels).
std::string model(int64_t H = 9, int64_t W = 7) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto *g = m.mutable_graph();
  g->set_name("winograd");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 32, H, W});
  conv(g, "X", "a0", 32, 48, 1, 1);
  add_node(g, "Relu", {"a0"}, {"a"});
  conv(g, "a", "Y", 48, 32, 0, 1);
  conv(g, "a", "S", 48, 32, 1, 2);
  conv(g, "a", "T", 48, 16, 1, 1);
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 32, H - 2, W - 2});
  set_type(g->add_output(), "S", onnx::TensorProto::FLOAT, {1, 32, (H + 1) / 2, (W + 1) / 2});
  set_type(g->add_output(), "T", onnx::TensorProto::FLOAT, {1, 16, H, W});
  return m.SerializeAsString();
}

relay::Graph imported(int64_t H = 9, int64_t W = 7) {
  return relay::import_onnx_bytes(model(H, W), "winograd.onnx", relay::ImportOptions());
}

// In blocks of `block` channels; compile_model uses this CPU's (relay::channel_block).
relay::Graph blocked(int block = 16) {
  relay::Graph g = imported();
  relay::convert_to_blocked_layout(g, block);
  return g;
}

double worst_difference(const std::vector<NDArray> &got, const std::vector<NDArray> &want) {
  EXPECT_EQ(got.size(), want.size());
  double worst = 0;
  for (size_t o = 0; o < got.size() && o < want.size(); o++) {
    EXPECT_EQ(got[o].shape(), want[o].shape()) << "output " << o;
    for (int64_t i = 0; i < want[o].size(); i++) worst = std::max(worst, std::abs(got[o].get(i) - want[o].get(i)));
  }
  return worst;
}

}  // namespace

TEST(Winograd, OnlyEligibleConvsBecomeTheThreeStages) {
  relay::Graph g = imported();
  ASSERT_EQ(relay::convert_to_blocked_layout(g, 16).convs, 4);
  EXPECT_EQ(relay::convert_convs_to_winograd(g).size(), 2u);
  auto ops = g.op_histogram();
  EXPECT_EQ(ops["tetune.WinogradInput"], 2);
  EXPECT_EQ(ops["tetune.WinogradGemm"], 2);
  EXPECT_EQ(ops["tetune.WinogradOutput"], 2);
  EXPECT_EQ(ops["tetune.ConvNCHWc"], 2) << "the stride-2 conv and the 16-channel one stay direct";
  EXPECT_TRUE(relay::convert_convs_to_winograd(g).empty()) << "nothing left on a second run";
}

// F(4x4) where its GEMM gets at least 16 tiles of 4x4 and the smaller
// roofline time: with 8 lanes (AVX2) its tiles need fewer multiplies than
// F(2x2)'s (36 against 16 each); with 16 lanes (AVX-512) a GEMM of few tiles
// is bound by its transformed weight, 36/16 times F(2x2)'s.
TEST(Winograd, TileIsFourWhereThePlaneHoldsSixteenTilesOfFour) {
  EXPECT_EQ(relay::winograd_tile(1, 7, 7, 8), 2) << "2 x 2 tiles of 4";
  EXPECT_EQ(relay::winograd_tile(1, 12, 12, 8), 2) << "3 x 3 tiles of 4";
  EXPECT_EQ(relay::winograd_tile(1, 13, 13, 8), 4) << "4 x 4 tiles of 4, the last ones partial";
  EXPECT_EQ(relay::winograd_tile(1, 56, 56, 8), 4);
  EXPECT_EQ(relay::winograd_tile(4, 7, 7, 8), 4) << "4 images of 2 x 2 tiles";
  EXPECT_EQ(relay::winograd_tile(1, 2, 200, 8), 2) << "50 tiles of 4 x 4 (1800 multiplies) against 100 of 2 x 2 (1600)";
}

TEST(Winograd, TileIsTwoWhereFourWouldWaitOnItsWeightWithSixteenLanes) {
  EXPECT_EQ(relay::winograd_tile(1, 14, 14, 16), 2) << "16 tiles of 4: 36 x 64 (the weight) against 16 x 98 (49 tiles)";
  EXPECT_EQ(relay::winograd_tile(1, 14, 14, 8), 4) << "the same plane with half the flops per byte";
  EXPECT_EQ(relay::winograd_tile(4, 7, 7, 16), 2);
  EXPECT_EQ(relay::winograd_tile(1, 17, 17, 16), 4) << "25 tiles of 4: 36 x 64 against 81 tiles of 2: 16 x 162";
  EXPECT_EQ(relay::winograd_tile(1, 28, 28, 16), 4) << "49 tiles of 4, bound by their multiplies";
  EXPECT_EQ(relay::winograd_tile(1, 56, 56, 16), 4);
  EXPECT_EQ(relay::winograd_tile(1, 7, 7, 16), 2);
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
  EXPECT_LT(worst_difference(got, want), 1e-4);
}

// A 23 x 21 plane: a (23 x 21 outputs) and Y (21 x 19) by F(4x4) with 8 or 16 lanes, with tail tiles on both axes.
TEST(Winograd, LargerPlanesByFourByFourEqualTheDirectConvs) {
  if (relay::channel_block(Target{}) == 0) GTEST_SKIP() << "no blocked layout on this CPU (neither AVX2 nor AVX-512)";
  relay::CompileOptions direct;
  direct.winograd = false;
  relay::CompiledModel wino = relay::compile_model(imported(23, 21));
  relay::CompiledModel plain = relay::compile_model(imported(23, 21), direct);
  EXPECT_EQ(wino.stats().winograd_convs, 2);
  EXPECT_EQ(wino.stats().winograd_f4_convs, 2);
  NDArray x = NDArray::random({1, 32, 23, 21}, float32(), 3);
  const std::vector<NDArray> got = wino.run(std::vector<NDArray>{x}), want = plain.run(std::vector<NDArray>{x});
  ASSERT_EQ(got.size(), 3u);
  EXPECT_LT(worst_difference(got, want), 1e-4);
}

// Both forms of each eligible conv, as compile_model builds them: one direct
// kernel (the conv of a0 with its Relu), three Winograd ones; no times without record_ms.
TEST(ConvForms, EachEligibleConvHasItsDirectKernelAndItsThreeWinogradKernels) {
  const relay::Graph g = blocked();
  const int nodes = static_cast<int>(g.nodes.size());
  const std::vector<relay::ConvForms> forms = relay::conv_forms(g, relay::CompileOptions());
  EXPECT_EQ(static_cast<int>(g.nodes.size()), nodes) << "g is not modified";
  ASSERT_EQ(forms.size(), 2u) << "a0 and Y";
  for (const relay::ConvForms &f : forms) {
    EXPECT_NE(f.direct.name.find("tetune.ConvNCHWc"), std::string::npos) << f.conv << ": " << f.direct.name;
    ASSERT_EQ(f.winograd.size(), 3u) << f.conv;
    EXPECT_NE(f.winograd[0].name.find("tetune.WinogradInput"), std::string::npos) << f.winograd[0].name;
    EXPECT_NE(f.winograd[1].name.find("tetune.WinogradGemm"), std::string::npos) << f.winograd[1].name;
    EXPECT_NE(f.winograd[2].name.find("tetune.WinogradOutput"), std::string::npos) << f.winograd[2].name;
    EXPECT_TRUE(std::isnan(f.direct_ms) && std::isnan(f.winograd_ms)) << "no record_ms, no times";
    EXPECT_FALSE(f.direct_faster());
  }
  EXPECT_NE(forms[0].direct.name.find("Relu"), std::string::npos) << "a0's Relu fuses into its direct kernel";
  EXPECT_NE(forms[0].winograd[2].name.find("Relu"), std::string::npos) << "and into its output transform";

  relay::Graph kept = blocked();
  EXPECT_EQ(relay::convert_convs_to_winograd(kept, {forms[0].conv}), std::vector<std::string>{forms[1].conv})
      << "a0 stays direct, Y does not";
  EXPECT_EQ(kept.op_histogram()["tetune.ConvNCHWc"], 3);
}

// With record times, compile_model takes the faster form of each conv: here
// a0's direct kernel beats its Winograd kernels, Y's does not, and a conv
// lacking a time for one kernel keeps Winograd. Either way the model computes
// what the direct convs compute.
TEST(ConvForms, CompileTakesTheFasterFormByTheRecords) {
  const int block = relay::channel_block(Target{});
  if (block == 0) GTEST_SKIP() << "no blocked layout on this CPU (neither AVX2 nor AVX-512)";
  // The tasks compile_model builds: in this CPU's block (8 on AVX2), or their workload keys differ.
  const std::vector<relay::ConvForms> forms = relay::conv_forms(blocked(block), relay::CompileOptions());
  ASSERT_EQ(forms.size(), 2u);
  std::map<std::string, double> ms;  // workload key -> record time
  ms[forms[0].direct.workload_key] = 2.0;
  ms[forms[1].direct.workload_key] = 4.0;
  for (const relay::ConvForms &f : forms)
    for (const Task &t : f.winograd) ms[t.workload_key] = 1.0;
  relay::CompileOptions co;
  co.record_ms = [&ms](const Task &t) {
    auto it = ms.find(t.workload_key);
    return it == ms.end() ? std::nan("") : it->second;
  };
  relay::CompiledModel chosen = relay::compile_model(imported(), co);
  ASSERT_EQ(chosen.stats().conv_forms.size(), 2u);
  EXPECT_TRUE(chosen.stats().conv_forms[0].direct_faster()) << "a0: 2 ms direct, 3 ms by Winograd";
  EXPECT_DOUBLE_EQ(chosen.stats().conv_forms[0].winograd_ms, 3.0);
  EXPECT_FALSE(chosen.stats().conv_forms[1].direct_faster()) << "Y: 4 ms direct, 3 ms by Winograd";
  EXPECT_EQ(chosen.stats().winograd_convs, 1);
  EXPECT_EQ(chosen.graph().op_histogram()["tetune.ConvNCHWc"], 3);

  ms.erase(forms[0].winograd[1].workload_key);  // a0's GEMM without a record: nothing to compare
  relay::CompiledModel unknown = relay::compile_model(imported(), co);
  EXPECT_TRUE(std::isnan(unknown.stats().conv_forms[0].winograd_ms));
  EXPECT_EQ(unknown.stats().winograd_convs, 2) << "a0 keeps the default form, Winograd";

  relay::CompileOptions direct;
  direct.winograd = false;
  relay::CompiledModel plain = relay::compile_model(imported(), direct);
  NDArray x = NDArray::random({1, 32, 9, 7}, float32(), 5);
  EXPECT_LT(worst_difference(chosen.run(std::vector<NDArray>{x}), plain.run(std::vector<NDArray>{x})), 1e-4);
}
