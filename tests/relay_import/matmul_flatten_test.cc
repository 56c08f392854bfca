// MatMul of a batched activation by a matrix (relay_import/passes/matmul_flatten.h):
// A [1, 4, 6, 8] x W [8, 12] becomes one [24, 8] x [8, 12] GEMM, the bias Add and
// GELU after it follow in [24, 12], the graph outputs keep their names and shapes,
// and the model computes what plain loops compute.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>

#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/passes/matmul_flatten.h"
#include "tests/relay_import/onnx_builder.h"

using namespace tetune;
using namespace tetune::testing;

namespace {

constexpr int64_t H = 4, W = 6, K = 8, N = 12;

// Y = GELU(X W + bias) (as torch exports it: Div, Erf, Add, Mul, Mul), T = Transpose(X W + bias)
// (a reader outside the chain), Z = Y + R (R a graph input of Y's shape: not a vector, so the chain stops).
std::string mlp_model(std::vector<float> &w, std::vector<float> &bias) {
  onnx::ModelProto m;
  auto *g = start_model(m, "mlp");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, H, W, K});
  set_type(g->add_input(), "R", onnx::TensorProto::FLOAT, {1, H, W, N});
  w = wave(K * N, 0.37f), bias = wave(N, 0.71f, 0.1f);
  add_initializer(g, "W", {K, N}, w);
  add_initializer(g, "bias", {1, 1, 1, N}, bias);  // leading 1s: made a vector
  add_initializer(g, "sqrt2", {}, {std::sqrt(2.0f)});
  add_initializer(g, "one", {1}, {1.0f});
  add_initializer(g, "half", {}, {0.5f});
  add_node(g, "MatMul", {"X", "W"}, {"mm"});
  add_node(g, "Add", {"mm", "bias"}, {"h"});
  add_node(g, "Div", {"h", "sqrt2"}, {"d"});
  add_node(g, "Erf", {"d"}, {"e"});
  add_node(g, "Add", {"e", "one"}, {"e1"});
  add_node(g, "Mul", {"h", "e1"}, {"p"});
  add_node(g, "Mul", {"p", "half"}, {"Y"});
  attr_ints(add_node(g, "Transpose", {"h"}, {"T"}), "perm", {0, 3, 1, 2});
  add_node(g, "Add", {"Y", "R"}, {"Z"});
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, H, W, N});
  set_type(g->add_output(), "T", onnx::TensorProto::FLOAT, {1, N, H, W});
  set_type(g->add_output(), "Z", onnx::TensorProto::FLOAT, {1, H, W, N});
  return m.SerializeAsString();
}

}  // namespace

TEST(MatMulFlatten, OneGemmAndItsEpilogueInRows) {
  std::vector<float> w, bias;
  relay::Graph g = relay::import_onnx_bytes(mlp_model(w, bias), "mlp.onnx", relay::ImportOptions());
  ASSERT_EQ(relay::flatten_batched_matmuls(g), 1);
  int chain_ops = 0;
  for (const auto &n : g.nodes) {
    if (n.dead) continue;
    if (n.op == "MatMul") EXPECT_EQ(g.values[n.inputs[0]].shape, (Shape{H * W, K}));
    const Shape &out = g.values[n.outputs[0]].shape;
    if (n.op == "Div" || n.op == "Erf" || n.op == "Mul") {
      EXPECT_EQ(out, (Shape{H * W, N})) << n.op << " " << n.name;
      chain_ops++;
    }
    if (n.op == "Add" && out == Shape{1, H, W, N}) EXPECT_EQ(n.outputs[0], g.outputs[2]) << "only Z, reading R, stays 4-D";
  }
  EXPECT_EQ(chain_ops, 4);
  const std::vector<std::string> names = {"Y", "T", "Z"};
  const std::vector<Shape> shapes = {{1, H, W, N}, {1, N, H, W}, {1, H, W, N}};
  for (size_t o = 0; o < 3; o++) {
    EXPECT_EQ(g.values[g.outputs[o]].name, names[o]);
    EXPECT_EQ(g.values[g.outputs[o]].shape, shapes[o]);
  }
  EXPECT_EQ(relay::flatten_batched_matmuls(g), 0) << "a second run finds one GEMM already";

  NDArray x = NDArray::random({1, H, W, K}, float32(), 5, -1, 1), r = NDArray::random({1, H, W, N}, float32(), 6);
  std::vector<NDArray> out = relay::compile_model(std::move(g)).run(std::vector<NDArray>{x, r});
  ASSERT_EQ(out.size(), 3u);
  for (int64_t p = 0; p < H * W; p++)
    for (int64_t j = 0; j < N; j++) {
      double h = bias[j];
      for (int64_t k = 0; k < K; k++) h += x.get(p * K + k) * w[k * N + j];
      const double y = 0.5 * h * (1 + std::erf(h / std::sqrt(2.0)));
      ASSERT_NEAR(out[0].get(p * N + j), y, 1e-5) << p << "," << j;
      ASSERT_NEAR(out[1].get(j * H * W + p), h, 1e-5) << "T " << p << "," << j;
      ASSERT_NEAR(out[2].get(p * N + j), y + r.get(p * N + j), 1e-5) << "Z " << p << "," << j;
    }
}
