// The Gemm weight-layout pass (relay_import/passes/gemm_weight_layout.h): a
// constant B of a transB Gemm is transposed once, and the compiled model
// still computes alpha * A B^T + beta * C (checked against a plain loop).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>

#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/passes/gemm_weight_layout.h"
#include "tests/relay_import/onnx_builder.h"

using namespace tetune;
using namespace tetune::testing;

namespace {

constexpr int M = 5, K = 19, N = 7;

// Y = 0.5 * X W^T + 2 * bias, W [N, K] and bias [N] constants; `trans_b` = 0 feeds a second
// Gemm the same W as a graph input instead (not constant: left as it is).
std::string gemm_model(std::vector<float> &w, std::vector<float> &bias, int rows = M) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto *g = m.mutable_graph();
  g->set_name("gemm");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {rows, K});
  set_type(g->add_input(), "Wi", onnx::TensorProto::FLOAT, {N, K});
  w.resize(N * K), bias.resize(N);
  for (int i = 0; i < N * K; i++) w[i] = std::sin(0.37f * i);
  for (int i = 0; i < N; i++) bias[i] = 0.1f * i - 0.3f;
  add_initializer(g, "W", {N, K}, w);
  add_initializer(g, "bias", {N}, bias);
  auto *n = add_node(g, "Gemm", {"X", "W", "bias"}, {"Y"});
  attr_i(n, "transB", 1);
  auto *a = n->add_attribute();
  a->set_name("alpha"), a->set_type(onnx::AttributeProto::FLOAT), a->set_f(0.5f);
  auto *b = n->add_attribute();
  b->set_name("beta"), b->set_type(onnx::AttributeProto::FLOAT), b->set_f(2.0f);
  attr_i(add_node(g, "Gemm", {"X", "Wi"}, {"Z"}), "transB", 1);
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {rows, N});
  set_type(g->add_output(), "Z", onnx::TensorProto::FLOAT, {rows, N});
  return m.SerializeAsString();
}

}  // namespace

TEST(GemmWeightLayout, ConstantWeightIsTransposedOnce) {
  std::vector<float> w, bias;
  relay::Graph g = relay::import_onnx_bytes(gemm_model(w, bias), "gemm.onnx", relay::ImportOptions());
  ASSERT_EQ(relay::pretranspose_gemm_weights(g), 1) << "only the Gemm with a constant B";
  int transposed = 0;
  for (const auto &n : g.nodes) {
    if (n.dead || n.op != "Gemm") continue;
    const relay::Value &b = g.values[n.inputs[1]];
    if (!b.is_const()) {
      EXPECT_EQ(n.attr_i("transB", 0), 1) << "a graph-input B keeps transB";
      continue;
    }
    transposed++;
    EXPECT_EQ(n.attr_i("transB", 1), 0);
    ASSERT_EQ(b.data->shape(), (Shape{K, N}));
    for (int k = 0; k < K; k++)
      for (int j = 0; j < N; j++) ASSERT_EQ(b.data->get(k * N + j), w[j * K + k]) << k << "," << j;
  }
  EXPECT_EQ(transposed, 1);
  EXPECT_EQ(relay::pretranspose_gemm_weights(g), 0) << "a second run finds nothing left to do";
}

TEST(GemmWeightLayout, CompiledModelComputesTheGemm) {
  std::vector<float> w, bias;
  relay::CompiledModel m = relay::compile_model(relay::import_onnx_bytes(gemm_model(w, bias), "gemm.onnx", relay::ImportOptions()));
  NDArray x = NDArray::random({M, K}, float32(), 3);
  NDArray wi(Shape{N, K}, float32());
  for (int i = 0; i < N * K; i++) wi.set(i, w[i]);
  std::vector<NDArray> out = m.run(std::vector<NDArray>{x, wi});
  ASSERT_EQ(out.size(), 2u);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double dot = 0;
      for (int k = 0; k < K; k++) dot += x.get(i * K + k) * w[j * K + k];
      EXPECT_NEAR(out[0].get(i * N + j), 0.5 * dot + 2.0 * bias[j], 1e-4) << i << "," << j;
      EXPECT_NEAR(out[1].get(i * N + j), dot, 1e-4) << i << "," << j;
    }
}

TEST(GemmWeightLayout, OneRowKeepsTheWeightRowsAsDotProducts) {
  std::vector<float> w, bias;
  relay::Graph g = relay::import_onnx_bytes(gemm_model(w, bias, 1), "gemv.onnx", relay::ImportOptions());
  EXPECT_EQ(relay::pretranspose_gemm_weights(g), 0) << "a matrix-vector product reads W [N, K] by rows";
  relay::CompiledModel m = relay::compile_model(std::move(g));
  NDArray x = NDArray::random({1, K}, float32(), 4);
  NDArray wi(Shape{N, K}, float32());
  for (int i = 0; i < N * K; i++) wi.set(i, w[i]);
  std::vector<NDArray> out = m.run(std::vector<NDArray>{x, wi});
  ASSERT_EQ(out.size(), 2u);
  for (int j = 0; j < N; j++) {
    double dot = 0;
    for (int k = 0; k < K; k++) dot += x.get(k) * w[j * K + k];
    EXPECT_NEAR(out[0].get(j), 0.5 * dot + 2.0 * bias[j], 1e-4) << j;
  }
}
