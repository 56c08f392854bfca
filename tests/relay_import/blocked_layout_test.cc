// Layout selection (relay_import/passes/blocked_layout.h): a small CNN with
// every op the pass moves (dense and depthwise convs, bias, activations, a
// per-channel constant, a squeeze-and-excitation gate, a residual Add, max and
// average pools, a channel Concat, a global pool) runs in NCHW[b]c between one
// transform at its input and one at its output, and computes what the same
// model computes in NCHW (itself checked against onnxruntime by the zoo test).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <limits>

#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/passes/blocked_layout.h"
#include "tests/relay_import/onnx_builder.h"

using namespace tetune;
using namespace tetune::testing;

namespace {

void conv(onnx::GraphProto *g, const std::string &x, const std::string &y, int64_t cin, int64_t cout, int64_t k,
          int64_t stride, int64_t group) {
  add_initializer(g, y + ".w", {cout, cin / group, k, k}, wave(static_cast<size_t>(cout * cin / group * k * k), 0.37f));
  add_initializer(g, y + ".b", {cout}, wave(static_cast<size_t>(cout), 0.71f, 0.1f));
  auto *n = add_node(g, "Conv", {x, y + ".w", y + ".b"}, {y});
  const int64_t p = k / 2;
  attr_ints(n, "pads", {p, p, p, p});
  attr_ints(n, "strides", {stride, stride});
  attr_i(n, "group", group);
}

// X [1, C, 12, 12]:
//   a = Relu(Conv3x3(X, C -> 32)); d = Sigmoid(DepthwiseConv3x3/2(a)) * scale[1, 32, 1, 1]
//   e = d * Sigmoid(GAP(d)) (a gate from the tensor itself); m = MaxPool2x2(e)
//   r = Relu(Conv1x1(m, 32 -> 32) + m); c = Concat(r, Conv1x1(m, 32 -> 16)) (48 channels)
//   Y = GlobalAveragePool(AveragePool3x3/1 pad 1(c)), and R = r as a second output.
std::string model(int64_t C) {
  onnx::ModelProto m;
  auto *g = start_model(m, "blocked");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, C, 12, 12});
  conv(g, "X", "a0", C, 32, 3, 1, 1);
  add_node(g, "Relu", {"a0"}, {"a"});
  conv(g, "a", "d0", 32, 32, 3, 2, 32);
  add_node(g, "Sigmoid", {"d0"}, {"d1"});
  add_initializer(g, "scale", {1, 32, 1, 1}, wave(32, 0.29f, 1.0f));
  add_node(g, "Mul", {"d1", "scale"}, {"d"});
  add_node(g, "GlobalAveragePool", {"d"}, {"dp"});
  add_node(g, "Sigmoid", {"dp"}, {"gate"});
  add_node(g, "Mul", {"d", "gate"}, {"e"});
  auto *mp = add_node(g, "MaxPool", {"e"}, {"mp"});
  attr_ints(mp, "kernel_shape", {2, 2});
  attr_ints(mp, "strides", {2, 2});
  conv(g, "mp", "r0", 32, 32, 1, 1, 1);
  add_node(g, "Add", {"r0", "mp"}, {"r1"});
  add_node(g, "Relu", {"r1"}, {"R"});
  conv(g, "mp", "s", 32, 16, 1, 1, 1);
  attr_i(add_node(g, "Concat", {"R", "s"}, {"c"}), "axis", 1);
  auto *ap = add_node(g, "AveragePool", {"c"}, {"ap"});
  attr_ints(ap, "kernel_shape", {3, 3});
  attr_ints(ap, "pads", {1, 1, 1, 1});
  add_node(g, "GlobalAveragePool", {"ap"}, {"Y"});
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 48, 1, 1});
  set_type(g->add_output(), "R", onnx::TensorProto::FLOAT, {1, 32, 3, 3});
  return m.SerializeAsString();
}

relay::Graph imported(int64_t C) { return relay::import_onnx_bytes(model(C), "blocked.onnx", relay::ImportOptions()); }

std::map<std::string, int> ops_of(const relay::Graph &g) { return g.op_histogram(); }

// Runs g compiled without the pass (g may already be converted) on x.
std::vector<NDArray> run(relay::Graph g, const NDArray &x) {
  relay::CompileOptions co;
  co.blocked_layout = false;
  return relay::compile_model(std::move(g), co).run(std::vector<NDArray>{x});
}

void expect_same(const std::vector<NDArray> &got, const std::vector<NDArray> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t o = 0; o < got.size(); o++) {
    ASSERT_EQ(got[o].shape(), want[o].shape()) << "output " << o;
    for (int64_t i = 0; i < want[o].size(); i++)
      ASSERT_NEAR(got[o].get(i), want[o].get(i), 1e-5) << "output " << o << " element " << i;
  }
}

}  // namespace

TEST(BlockedLayout, ChannelBlockFollowsTheVectorWidth) {
  EXPECT_EQ(relay::channel_block(Target{"x86-64-linux-avx2-fma-f16c-sse41"}), 8);
  EXPECT_EQ(relay::channel_block(Target{"x86-64-linux-avx512_skylake-avx2-fma-f16c-sse41-avx-avx512"}), 16);
  EXPECT_EQ(relay::channel_block(Target{"x86-64-linux-sse41"}), 0);
  EXPECT_EQ(relay::channel_block(Target{"x86-64-linux-avx-sse41"}), 0);  // 8 lanes, but no FMA
  EXPECT_EQ(relay::channel_block(Target{"cuda"}), 0);
}

TEST(BlockedLayout, ChainRunsBlockedBetweenOneTransformInAndOneOut) {
  for (int block : {16, 8}) {
    SCOPED_TRACE("block " + std::to_string(block));
    relay::Graph g = imported(16);
    relay::BlockedLayoutStats st = relay::convert_to_blocked_layout(g, block);
    EXPECT_EQ(st.convs, 4) << "three dense convs and the depthwise one";
    auto ops = ops_of(g);
    EXPECT_EQ(ops["Conv"], 0);
    EXPECT_EQ(ops["tetune.ConvNCHWc"], 3);
    EXPECT_EQ(ops["tetune.DepthwiseConvNCHWc"], 1);
    EXPECT_EQ(ops["tetune.MaxPoolNCHWc"], 1);
    EXPECT_EQ(ops["tetune.AveragePoolNCHWc"], 1);
    EXPECT_EQ(ops["tetune.GlobalAveragePoolNCHWc"], 2);
    // In: X; out: the graph outputs Y and R (R is also read blocked, by the Concat). The gate
    // Sigmoid(GAP(d)) is computed blocked too, [1, 32/b, 1, 1, b], and scales d as it is.
    // Y [1, 48, 1, 1] has its elements in the same order blocked: a Reshape, no kernel.
    EXPECT_EQ(ops["tetune.ToBlocked"], 1);
    EXPECT_EQ(ops["tetune.ToPlain"], 1);
    EXPECT_EQ(ops["Reshape"], 1);
    EXPECT_EQ(st.transforms, 2);
    EXPECT_EQ(st.views, 1);
    for (const auto &n : g.nodes)
      if (n.op == "tetune.ToBlocked") {
        const int p = g.values[n.inputs[0]].producer;
        EXPECT_TRUE(p < 0 || g.nodes[p].op != "tetune.ToPlain") << "a ToPlain straight into a ToBlocked is left";
      }
    ASSERT_EQ(g.outputs.size(), 2u);
    EXPECT_EQ(g.values[g.outputs[0]].name, "Y");
    EXPECT_EQ(g.values[g.outputs[0]].shape, (Shape{1, 48, 1, 1}));
    EXPECT_EQ(g.values[g.outputs[1]].name, "R");

    NDArray x = NDArray::random({1, 16, 12, 12}, float32(), 11, -2, 2);
    expect_same(run(std::move(g), x), run(imported(16), x));
  }
}

TEST(BlockedLayout, ChannelsTheBlockDoesNotDivideStayNchw) {
  // 10 channels in blocks of 16 would be 6 of padding: more than a third.
  relay::Graph g = imported(10);
  relay::BlockedLayoutStats st = relay::convert_to_blocked_layout(g, 16);
  EXPECT_EQ(st.convs, 3) << "all but the first, 10 -> 32";
  EXPECT_EQ(ops_of(g)["Conv"], 1);
  NDArray x = NDArray::random({1, 10, 12, 12}, float32(), 3, -2, 2);
  expect_same(run(std::move(g), x), run(imported(10), x));
}

TEST(BlockedLayout, NarrowInputIsReadAsOneChannelPerBlock) {
  // An image's 3 channels (or 1): the first conv reads X [1, C, 12, 12] as
  // [1, C, 12, 12, 1] (a view, no ToBlocked), weight [32/b, C, 3, 3, 1, b].
  for (int64_t C : {3, 1}) {
    for (int block : {16, 8}) {
      SCOPED_TRACE("C " + std::to_string(C) + ", block " + std::to_string(block));
      relay::Graph g = imported(C);
      relay::BlockedLayoutStats st = relay::convert_to_blocked_layout(g, block);
      EXPECT_EQ(st.convs, 4);
      auto ops = ops_of(g);
      EXPECT_EQ(ops["Conv"], 0);
      EXPECT_EQ(ops["tetune.ToBlocked"], 0);
      EXPECT_EQ(ops["Reshape"], 2) << "X as NCHW1c, and Y";
      int narrow = 0;
      for (const auto &n : g.nodes)
        if (n.op == "tetune.ConvNCHWc" && g.values[n.inputs[0]].shape == Shape{1, C, 12, 12, 1}) {
          narrow++;
          EXPECT_EQ(g.values[n.inputs[1]].shape, (Shape{32 / block, C, 3, 3, 1, block}));
        }
      EXPECT_EQ(narrow, 1);
      NDArray x = NDArray::random({1, C, 12, 12}, float32(), 5, -2, 2);
      expect_same(run(std::move(g), x), run(imported(C), x));
    }
  }
}

namespace {

// X [1, 16, 8, 8]: a = HardSigmoid(Conv1x1(X, 16 -> 24)); d = DepthwiseConv3x3(a) / c (c [1, 24, 1, 1]);
// e = d * HardSigmoid(Conv1x1(GAP(d), 24 -> 24)); Y = GAP(Conv1x1(e, 24 -> 40)) [1, 40, 1, 1].
// 24 and 40 channels fill whole blocks of 16 with at most a third padding.
std::string padded_model() {
  onnx::ModelProto m;
  auto *g = start_model(m, "padded");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 16, 8, 8});
  conv(g, "X", "a0", 16, 24, 1, 1, 1);
  add_node(g, "HardSigmoid", {"a0"}, {"a"});
  conv(g, "a", "d0", 24, 24, 3, 1, 24);
  add_initializer(g, "c", {1, 24, 1, 1}, wave(24, 0.31f, 1.5f));
  add_node(g, "Div", {"d0", "c"}, {"d"});
  add_node(g, "GlobalAveragePool", {"d"}, {"p"});
  conv(g, "p", "q", 24, 24, 1, 1, 1);
  add_node(g, "HardSigmoid", {"q"}, {"gate"});
  add_node(g, "Mul", {"d", "gate"}, {"e"});
  conv(g, "e", "f", 24, 40, 1, 1, 1);
  add_node(g, "GlobalAveragePool", {"f"}, {"Y"});
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 40, 1, 1});
  return m.SerializeAsString();
}

// got equals want, NaN where want is NaN and the same infinity where want is infinite.
void expect_same_ieee(const NDArray &got, const NDArray &want) {
  ASSERT_EQ(got.shape(), want.shape());
  for (int64_t i = 0; i < want.size(); i++) {
    const double a = got.get(i), b = want.get(i);
    if (std::isnan(b) || std::isinf(b)) {
      EXPECT_TRUE(std::isnan(b) ? std::isnan(a) : a == b) << "element " << i << ": " << a << " for " << b;
    } else {
      ASSERT_NEAR(a, b, 1e-5) << "element " << i;
    }
  }
}

}  // namespace

TEST(BlockedLayout, ChannelsPaddedToWholeBlocks) {
  auto graph = [] { return relay::import_onnx_bytes(padded_model(), "padded.onnx", relay::ImportOptions()); };
  relay::Graph g = graph();
  relay::BlockedLayoutStats st = relay::convert_to_blocked_layout(g, 16);
  EXPECT_EQ(st.convs, 4) << "24 channels in 2 blocks, 40 in 3";
  auto ops = ops_of(g);
  EXPECT_EQ(ops["Conv"], 0);
  EXPECT_EQ(ops["Div"], 1) << "by a constant: runs blocked, its padding divides by 1";
  EXPECT_EQ(ops["tetune.ToPlain"], 1) << "Y [1, 40, 1, 1] crops 8 padding channels: a kernel, not a view";
  EXPECT_EQ(st.views, 0);
  bool padded_conv = false;
  for (const auto &n : g.nodes)
    if (n.op == "tetune.ConvNCHWc" && g.values[n.outputs[0]].shape == Shape{1, 2, 8, 8, 16})
      padded_conv = n.attr_i("channels", 0) == 24;
  EXPECT_TRUE(padded_conv) << "the 16 -> 24 conv writes 2 blocks and says where its channels end";

  NDArray x = NDArray::random({1, 16, 8, 8}, float32(), 19, -2, 2);
  expect_same(run(g, x), run(graph(), x));
  // An infinite input: HardSigmoid makes the first conv's real channels finite again, and its
  // padding channels are 0, not HardSigmoid(0 * inf) = NaN, which the next convs' zero weights
  // would carry into every channel.
  x.set(5, std::numeric_limits<double>::infinity());
  const NDArray want = run(graph(), x)[0];
  for (int64_t i = 0; i < want.size(); i++) ASSERT_TRUE(std::isfinite(want.get(i))) << "the NCHW model's Y is finite";
  expect_same_ieee(run(g, x)[0], want);
}

TEST(BlockedLayout, DefaultCompileMatchesNchw) {
  NDArray x = NDArray::random({1, 16, 12, 12}, float32(), 7, -2, 2);
  relay::CompiledModel m = relay::compile_model(imported(16));
  EXPECT_EQ(m.stats().blocked_convs, relay::channel_block(Target{}) ? 4 : 0);
  expect_same(m.run(std::vector<NDArray>{x}), run(imported(16), x));
}

namespace {

// X [1, 16, 6, 6]: Y = Conv1x1(X * Sigmoid(GAP(X)), W) + B, and Z = Conv1x1(X, V) + B with V
// a graph input (a weight no pass can re-lay out ahead of time).
std::string computed_weight_model() {
  onnx::ModelProto m;
  auto *g = start_model(m, "computed_weight");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 16, 6, 6});
  set_type(g->add_input(), "V", onnx::TensorProto::FLOAT, {16, 16, 1, 1});
  add_initializer(g, "W", {16, 16, 1, 1}, wave(256, 0.53f));
  add_initializer(g, "B", {16}, wave(16, 0.71f, 0.1f));
  add_node(g, "GlobalAveragePool", {"X"}, {"P"});
  add_node(g, "Sigmoid", {"P"}, {"S"});
  add_node(g, "Mul", {"X", "S"}, {"XS"});
  add_node(g, "Conv", {"XS", "W", "B"}, {"Y"});
  add_node(g, "Conv", {"X", "V", "B"}, {"Z"});
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 16, 6, 6});
  set_type(g->add_output(), "Z", onnx::TensorProto::FLOAT, {1, 16, 6, 6});
  return m.SerializeAsString();
}

}  // namespace

TEST(BlockedLayout, WeightsComputedInTheGraph) {
  if (!relay::channel_block(Target{})) GTEST_SKIP() << "no blocked layout on this target";
  auto graph = [] { return relay::import_onnx_bytes(computed_weight_model(), "cw.onnx", relay::ImportOptions()); };
  relay::CompiledModel m = relay::compile_model(graph());
  EXPECT_EQ(m.stats().folded_channel_scales, 1);
  EXPECT_EQ(m.stats().blocked_convs, 2);
  auto ops = ops_of(m.graph());
  // The folded scale multiplies the blocked constant W (a view of S broadcast over it), and V is re-laid out by a kernel.
  EXPECT_EQ(ops["tetune.ToBlockedWeight"], 1);
  int blocked_scale = 0;
  for (const auto &n : m.graph().nodes)
    if (n.op == "Mul" && m.graph().values[n.outputs[0]].shape.size() == 6) blocked_scale++;
  EXPECT_EQ(blocked_scale, 1);
  NDArray x = NDArray::random({1, 16, 6, 6}, float32(), 5, -2, 2), v = NDArray::random({16, 16, 1, 1}, float32(), 6, -1, 1);
  relay::CompileOptions nchw;
  nchw.blocked_layout = false;
  expect_same(m.run(std::vector<NDArray>{x, v}), relay::compile_model(graph(), nchw).run(std::vector<NDArray>{x, v}));
}

namespace {

// X [1, 32, 4, 40] (a plane 40 wide: at least two 16-lane vectors):
// V = Conv1x1(X, 32 -> v_channels); 8 channels take half a block of 16 (padding 8 -> 16 wastes
// more than a third), 24 a padded block; then `read_by_conv`: Y = Conv3x3(V, v_channels -> y_channels),
// reading more multiply-adds than V's writer; else Y = Relu(V), read by no conv.
std::string half_block_model(bool read_by_conv, int64_t y_channels = 32, int64_t v_channels = 8) {
  onnx::ModelProto m;
  auto *g = start_model(m, "half_block");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 32, 4, 40});
  conv(g, "X", "V", 32, v_channels, 1, 1, 1);
  if (read_by_conv) conv(g, "V", "Y", v_channels, y_channels, 3, 1, 1);
  else add_node(g, "Relu", {"V"}, {"Y"});
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, read_by_conv ? y_channels : v_channels, 4, 40});
  return m.SerializeAsString();
}

}  // namespace

TEST(BlockedLayout, WidePlanesTakeAHalfBlockWhenConvsReadMoreThanTheyWrite) {
  for (bool read_by_conv : {true, false}) {
    SCOPED_TRACE(read_by_conv ? "V read by a 3x3 conv" : "V read by no conv");
    auto graph = [&] { return relay::import_onnx_bytes(half_block_model(read_by_conv), "hb.onnx", relay::ImportOptions()); };
    relay::Graph g = graph();
    relay::BlockedLayoutStats st = relay::convert_to_blocked_layout(g, 16);
    auto ops = ops_of(g);
    if (read_by_conv) {
      EXPECT_EQ(st.convs, 2) << "V in [1, 1, 4, 40, 8] between them";
      EXPECT_EQ(ops["Conv"], 0);
      EXPECT_EQ(st.transforms, 2) << "X in, Y out";
    } else {
      EXPECT_EQ(st.convs, 0) << "V's writer fills its vectors along W in NCHW";
      EXPECT_EQ(ops["Conv"], 1);
    }
    // Half a block of AVX2's 8 lanes is below the smallest block: no half blocks there.
    relay::Graph g8 = graph();
    EXPECT_EQ(relay::convert_to_blocked_layout(g8, 8).convs, read_by_conv ? 2 : 1);  // 8 and 32 channels take 8
    NDArray x = NDArray::random({1, 32, 4, 40}, float32(), 13, -2, 2);
    expect_same(run(std::move(g), x), run(graph(), x));
  }
}

TEST(BlockedLayout, NoPartialBlockBesideAConvWhoseOtherSideStaysNchw) {
  // Y's 40 channels take half a block or a padded one too, but Y is a graph output read by no
  // conv, so Y stays NCHW on its 40-wide plane; a half-blocked (8 channels) or padded (24) V would
  // need a ToPlain before the 3x3 conv: V stays NCHW as well.
  for (int64_t v_channels : {8, 24}) {
    SCOPED_TRACE("V of " + std::to_string(v_channels) + " channels");
    auto graph = [&] {
      return relay::import_onnx_bytes(half_block_model(true, 40, v_channels), "hb40.onnx", relay::ImportOptions());
    };
    relay::Graph g = graph();
    relay::BlockedLayoutStats st = relay::convert_to_blocked_layout(g, 16);
    EXPECT_EQ(st.convs, 0) << "a blocked X -> V conv would pay a ToBlocked and a ToPlain for one conv";
    EXPECT_EQ(st.transforms, 0);
    EXPECT_EQ(ops_of(g)["Conv"], 2);
    NDArray x = NDArray::random({1, 32, 4, 40}, float32(), 17, -2, 2);
    expect_same(run(std::move(g), x), run(graph(), x));
  }
}

namespace {

// X [1, 16, 8, 8]: Y = AveragePool3x3(Pad(Relu(Conv1x1(X, 16 -> 32)), H and W by 1 and 2)), as torch
// exports AvgPool2d(count_include_pad) (opset `opset`); Z = Pad of the channels too (stays NCHW).
std::string pad_model(int64_t opset) {
  onnx::ModelProto m;
  auto *g = start_model(m, "pad", opset);
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 16, 8, 8});
  conv(g, "X", "a0", 16, 32, 1, 1, 1);
  add_node(g, "Relu", {"a0"}, {"a"});
  const std::vector<int64_t> hw = {0, 0, 1, 2, 0, 0, 2, 1}, with_c = {0, 1, 1, 1, 0, 1, 1, 1};
  auto pad = [&](const std::string &y, const std::vector<int64_t> &pads) {
    if (opset < 11) {
      auto *n = add_node(g, "Pad", {"a"}, {y});
      attr_ints(n, "pads", pads);
      return;
    }
    add_int64_initializer(g, y + ".pads", pads);
    add_initializer(g, y + ".value", {}, {0.25f});
    add_node(g, "Pad", {"a", y + ".pads", y + ".value"}, {y});
  };
  pad("p", hw);
  pad("Z", with_c);
  attr_ints(add_node(g, "AveragePool", {"p"}, {"Y"}), "kernel_shape", {3, 3});
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 32, 9, 9});
  set_type(g->add_output(), "Z", onnx::TensorProto::FLOAT, {1, 34, 10, 10});
  return m.SerializeAsString();
}

}  // namespace

TEST(BlockedLayout, PadOfTheSpatialAxesRunsBlocked) {
  for (int64_t opset : {13, 9}) {
    SCOPED_TRACE("opset " + std::to_string(opset));
    auto imported_pad = [&] { return relay::import_onnx_bytes(pad_model(opset), "pad.onnx", relay::ImportOptions()); };
    relay::Graph g = imported_pad();
    relay::convert_to_blocked_layout(g, 16);
    auto ops = ops_of(g);
    EXPECT_EQ(ops["tetune.AveragePoolNCHWc"], 1);
    EXPECT_EQ(ops["Pad"], 2);
    for (const auto &n : g.nodes) {
      if (n.op == "Pad" && g.values[n.outputs[0]].name != "Z") {
        EXPECT_EQ(g.values[n.outputs[0]].shape, (Shape{1, 2, 11, 11, 16})) << "H and W padded, blocks kept";
      }
    }
    // In: X; out: Y, and the NCHW copy the channel-padding Pad reads.
    EXPECT_EQ(ops["tetune.ToBlocked"], 1);
    EXPECT_EQ(ops["tetune.ToPlain"], 2);
    NDArray x = NDArray::random({1, 16, 8, 8}, float32(), 17, -2, 2);
    expect_same(run(std::move(g), x), run(imported_pad(), x));
  }
}

namespace {
// X [1, C, 10, 10] -> Relu(Conv1x1(C -> C)) -> Relu(Conv3x3 in `group` groups (C -> C)) -> Conv1x1(C -> 16) = Y.
std::string grouped_model(int64_t C, int64_t group) {
  onnx::ModelProto m;
  auto *g = start_model(m, "grouped");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, C, 10, 10});
  conv(g, "X", "a0", C, C, 1, 1, 1);
  add_node(g, "Relu", {"a0"}, {"a"});
  conv(g, "a", "b0", C, C, 3, 1, group);
  add_node(g, "Relu", {"b0"}, {"b"});
  conv(g, "b", "Y", C, 16, 1, 1, 1);
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 16, 10, 10});
  return m.SerializeAsString();
}
}  // namespace

TEST(BlockedLayout, GroupedConvsRunBlockedInGroupsOfWholeBlocks) {
  struct Case {
    int64_t C, group, block_groups;
  };
  // ResNeXt's 4 channels per group (4 groups to a block); groups of 2 whole blocks;
  // RegNet's 8 channels per group on 24 channels padded to 2 blocks.
  for (const Case &k : {Case{32, 8, 2}, Case{64, 2, 2}, Case{24, 3, 2}}) {
    SCOPED_TRACE("C=" + std::to_string(k.C) + " group=" + std::to_string(k.group));
    auto graph = [&] { return relay::import_onnx_bytes(grouped_model(k.C, k.group), "grouped.onnx", relay::ImportOptions()); };
    relay::Graph g = graph();
    EXPECT_EQ(relay::convert_to_blocked_layout(g, 16).convs, 3);
    EXPECT_EQ(ops_of(g)["Conv"], 0);
    EXPECT_EQ(ops_of(g)["tetune.ToPlain"], 1) << "one transform in, one out";
    EXPECT_EQ(ops_of(g)["tetune.ToBlocked"], 1);
    int grouped = 0;
    for (const auto &n : g.nodes)
      if (!n.dead && n.op == "tetune.ConvNCHWc" && n.attr_i("groups", 1) != 1) {
        grouped++;
        EXPECT_EQ(n.attr_i("groups", 1), k.block_groups);
      }
    EXPECT_EQ(grouped, 1);
    NDArray x = NDArray::random({1, k.C, 10, 10}, float32(), 5, -0.5, 0.5);
    expect_same(run(std::move(g), x), run(graph(), x));
  }
  // 6 channels per group neither fill nor divide a block of 16: the grouped conv stays NCHW.
  relay::Graph g = relay::import_onnx_bytes(grouped_model(48, 8), "grouped.onnx", relay::ImportOptions());
  EXPECT_EQ(relay::convert_to_blocked_layout(g, 16).convs, 2);
  EXPECT_EQ(ops_of(g)["Conv"], 1);
}

namespace {
// X [1, 16, 6, 6]: A = Relu(Conv1x1(X, 16 -> 26)), 26 channels padded to 2 blocks of 16. Then,
// as a ShuffleNetV2 unit: B = Relu(Conv1x1(A, 26 -> 26)) and Y = Concat(Slice(A, channels
// 0..13), B) (39 channels); or, with no conv reading A, Y = Concat(Slice(A, 0..13), A).
std::string sliced_branch_model(bool read_by_conv) {
  onnx::ModelProto m;
  auto *g = start_model(m, "sliced_branch");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 16, 6, 6});
  conv(g, "X", "a0", 16, 26, 1, 1, 1);
  add_node(g, "Relu", {"a0"}, {"A"});
  add_int64_initializer(g, "starts", {0});
  add_int64_initializer(g, "ends", {13});
  add_int64_initializer(g, "axes", {1});
  add_node(g, "Slice", {"A", "starts", "ends", "axes"}, {"S"});
  if (read_by_conv) {
    conv(g, "A", "b0", 26, 26, 1, 1, 1);
    add_node(g, "Relu", {"b0"}, {"B"});
  }
  attr_i(add_node(g, "Concat", {"S", read_by_conv ? "B" : "A"}, {"Y"}), "axis", 1);
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 39, 6, 6});
  return m.SerializeAsString();
}
}  // namespace

TEST(BlockedLayout, PaddedChannelsReadByAConvRunBlockedBesideSliceAndConcat) {
  for (bool read_by_conv : {true, false}) {
    SCOPED_TRACE(read_by_conv ? "A read by a conv, a Slice and a Concat" : "A read by a Slice and a Concat only");
    auto graph = [&] {
      return relay::import_onnx_bytes(sliced_branch_model(read_by_conv), "sliced.onnx", relay::ImportOptions());
    };
    relay::Graph g = graph();
    relay::BlockedLayoutStats st = relay::convert_to_blocked_layout(g, 16);
    auto ops = ops_of(g);
    if (read_by_conv) {
      EXPECT_EQ(st.convs, 2) << "A and B in [1, 2, 6, 6, 16]";
      EXPECT_EQ(ops["tetune.ToBlocked"], 1) << "X in";
      EXPECT_EQ(ops["tetune.ToPlain"], 2) << "A for the Slice and the Concat, B for the Concat";
      for (const auto &n : g.nodes) {
        if (!n.dead && n.op == "tetune.ToPlain") EXPECT_EQ(n.attr_i("channels", 0), 26) << "crops the padding";
      }
    } else {
      EXPECT_EQ(st.convs, 0) << "the conv writing A would pay a ToBlocked and a ToPlain for itself alone";
      EXPECT_EQ(ops["Conv"], 1);
    }
    NDArray x = NDArray::random({1, 16, 6, 6}, float32(), 23, -2, 2);
    expect_same(run(std::move(g), x), run(graph(), x));
  }
}

namespace {
// ShuffleNetV2's unit (stride 1) on `x` of 2h channels at 6x6, as torch exports it: x1, x2 =
// Slice(x) halves; y = Relu(Conv1x1(x2, h -> h)); out = Reshape(Transpose(Reshape(Concat(x1, y),
// [1, 2, h, 6, 6]), (0, 2, 1, 3, 4)), [1, 2h, 6, 6]), the channel shuffle of 2 groups.
void shuffle_unit(onnx::GraphProto *g, const std::string &x, const std::string &out, int64_t h) {
  const std::string u = out + ".";
  add_int64_initializer(g, u + "zero", {0});
  add_int64_initializer(g, u + "half", {h});
  add_int64_initializer(g, u + "all", {2 * h});
  add_int64_initializer(g, u + "axis", {1});
  add_node(g, "Slice", {x, u + "zero", u + "half", u + "axis"}, {u + "x1"});
  add_node(g, "Slice", {x, u + "half", u + "all", u + "axis"}, {u + "x2"});
  conv(g, u + "x2", u + "y0", h, h, 1, 1, 1);
  add_node(g, "Relu", {u + "y0"}, {u + "y"});
  attr_i(add_node(g, "Concat", {u + "x1", u + "y"}, {u + "c"}), "axis", 1);
  add_int64_initializer(g, u + "split", {1, 2, h, 6, 6});
  add_int64_initializer(g, u + "joined", {1, 2 * h, 6, 6});
  add_node(g, "Reshape", {u + "c", u + "split"}, {u + "r"});
  attr_ints(add_node(g, "Transpose", {u + "r"}, {u + "t"}), "perm", {0, 2, 1, 3, 4});
  add_node(g, "Reshape", {u + "t", u + "joined"}, {out});
}

// X [1, 16, 6, 6] -> Relu(Conv1x1(16 -> 2h)) -> two shuffle units -> Conv1x1(2h -> 16) = Y.
std::string shufflenet_model(int64_t h) {
  onnx::ModelProto m;
  auto *g = start_model(m, "shufflenet");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 16, 6, 6});
  conv(g, "X", "a0", 16, 2 * h, 1, 1, 1);
  add_node(g, "Relu", {"a0"}, {"a"});
  shuffle_unit(g, "a", "s1", h);
  shuffle_unit(g, "s1", "s2", h);
  conv(g, "s2", "Y", 2 * h, 16, 1, 1, 1);
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 16, 6, 6});
  return m.SerializeAsString();
}
}  // namespace

TEST(BlockedLayout, ChannelShuffleRunsBlockedAsGathers) {
  // 26 channels (2h = 52) pad their blocks, so lanes cross blocks; 16 (2h = 32) fill them.
  for (int64_t h : {26, 16}) {
    SCOPED_TRACE("branches of " + std::to_string(h) + " channels");
    auto graph = [&] { return relay::import_onnx_bytes(shufflenet_model(h), "shufflenet.onnx", relay::ImportOptions()); };
    relay::Graph g = graph();
    relay::BlockedLayoutStats st = relay::convert_to_blocked_layout(g, 16);
    auto ops = ops_of(g);
    EXPECT_EQ(st.convs, 4);
    EXPECT_EQ(st.transforms, 2) << "X in, Y out";
    for (const char *op : {"Slice", "Concat", "Transpose", "Reshape"}) EXPECT_EQ(ops[op], 0) << op;
    // Unit 1's Slices of a; unit 2's Slices, each composed with unit 1's Concat and shuffle (read
    // by nothing else, so no gather computes them); unit 2's shuffle of its Concat.
    EXPECT_EQ(ops["tetune.ChannelGatherNCHWc"], 5);
    int shuffles = 0;
    for (const auto &n : g.nodes)
      if (!n.dead && n.op == "tetune.ChannelGatherNCHWc" && n.attr_i("groups", 1) == 2) {
        shuffles++;
        EXPECT_EQ(n.inputs.size(), 2u) << "reads unit 1's or 2's x1 and y";
      }
    EXPECT_EQ(shuffles, 3);
    NDArray x = NDArray::random({1, 16, 6, 6}, float32(), 29, -2, 2);
    expect_same(run(std::move(g), x), run(graph(), x));
  }
}
