// Batch norms that no conv output feeds alone (relay_import/passes/batch_norm_folding.h)
// become a per-channel Mul and Add: DenseNet's pre-activation BatchNormalization ->
// Relu -> Conv after a Concat then stays in the blocked layout, with no ToPlain /
// ToBlocked around it, and the model computes what BatchNormalization's own
// lowering computes.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>

#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "tests/relay_import/onnx_builder.h"

using namespace tetune;
using namespace tetune::testing;

namespace {

void conv(onnx::GraphProto *g, const std::string &x, const std::string &y, int64_t cin, int64_t cout, int64_t k) {
  add_initializer(g, y + ".w", {cout, cin, k, k}, wave(static_cast<size_t>(cout * cin * k * k), 0.37f));
  attr_ints(add_node(g, "Conv", {x, y + ".w"}, {y}), "pads", {k / 2, k / 2, k / 2, k / 2});
}

// X [1, 16, 8, 8]: c = Concat(Conv3x3(X) 32 ch, Conv1x1(X) 16 ch); Y = Conv1x1(Relu(BN(c)), 48 -> 32),
// and the conv-fed BN Z = BN(Conv1x1(X)), which folds into its conv.
std::string densenet_like_model() {
  onnx::ModelProto m;
  auto *g = start_model(m, "bn_affine");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 16, 8, 8});
  conv(g, "X", "a", 16, 32, 3);
  conv(g, "X", "b", 16, 16, 1);
  attr_i(add_node(g, "Concat", {"a", "b"}, {"c"}), "axis", 1);
  std::vector<float> var = wave(48, 0.43f, 0.5f);
  for (float &v : var) v += 0.6f;  // positive variances
  add_initializer(g, "scale", {48}, wave(48, 0.19f, 1.0f));
  add_initializer(g, "bias", {48}, wave(48, 0.53f, 0.2f));
  add_initializer(g, "mean", {48}, wave(48, 0.61f, 0.3f));
  add_initializer(g, "var", {48}, var);
  add_node(g, "BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"n"});
  add_node(g, "Relu", {"n"}, {"r"});
  conv(g, "r", "Y", 48, 32, 1);
  conv(g, "X", "z0", 16, 48, 1);
  add_node(g, "BatchNormalization", {"z0", "scale", "bias", "mean", "var"}, {"Z"});
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 32, 8, 8});
  set_type(g->add_output(), "Z", onnx::TensorProto::FLOAT, {1, 48, 8, 8});
  return m.SerializeAsString();
}

relay::Graph imported() { return relay::import_onnx_bytes(densenet_like_model(), "bn.onnx", relay::ImportOptions()); }

}  // namespace

TEST(BatchNormAffine, PreActivationBatchNormIsMulAddAndStaysBlocked) {
  relay::Graph g = imported();
  relay::CompileOptions co;
  co.target = Target{"x86-64-linux-avx512_skylake-avx2-fma-f16c-sse41-avx-avx512"};  // block 16
  relay::CompileStats st;
  relay::run_graph_passes(g, co, &st);
  EXPECT_EQ(st.folded_batch_norms, 1) << "Z's BN follows its conv";
  EXPECT_EQ(st.affine_batch_norms, 1);
  std::map<std::string, int> ops = g.op_histogram();
  EXPECT_EQ(ops["BatchNormalization"], 0);
  EXPECT_EQ(ops["Mul"], 1);
  EXPECT_EQ(ops["Add"], 1);
  // In: X once; out: Y and Z. The BN's Mul and Add read the blocked Concat as it is.
  EXPECT_EQ(ops["tetune.ToBlocked"], 1);
  EXPECT_EQ(ops["tetune.ToPlain"], 2);
  for (const auto &n : g.nodes)
    if (n.op == "Mul") {
      EXPECT_EQ(g.values[n.inputs[0]].shape, (Shape{1, 3, 8, 8, 16})) << "the Mul reads the Concat blocked";
      EXPECT_EQ(g.values[n.inputs[1]].shape, (Shape{1, 3, 1, 1, 16})) << "and a blocked per-channel scale";
    }
}

TEST(BatchNormAffine, ComputesWhatBatchNormalizationComputes) {
  NDArray x = NDArray::random({1, 16, 8, 8}, float32(), 21, -2, 2);
  relay::CompileOptions as_bn;  // BatchNormalization's own lowering, NCHW
  as_bn.fold_batch_norm = false;
  as_bn.blocked_layout = false;
  std::vector<NDArray> want = relay::compile_model(imported(), as_bn).run(std::vector<NDArray>{x});
  std::vector<NDArray> got = relay::compile_model(imported()).run(std::vector<NDArray>{x});
  ASSERT_EQ(got.size(), 2u);
  ASSERT_EQ(want.size(), 2u);
  for (size_t o = 0; o < got.size(); o++) {
    ASSERT_EQ(got[o].shape(), want[o].shape());
    for (int64_t i = 0; i < want[o].size(); i++)
      ASSERT_NEAR(got[o].get(i), want[o].get(i), 1e-5 * (1 + std::fabs(want[o].get(i)))) << "output " << o << " element " << i;
  }
}
