// Transposes that move only axes of extent 1 become views
// (relay_import/passes/unit_axis_transpose.h): [5, 1, 6] -> [1, 5, 6] and the
// default (reversed) permutation of [1, 7] are rewritten; [5, 1, 6] -> [6, 1, 5]
// and [1, 5, 6] -> [1, 6, 5] are not. The model computes what plain loops
// compute, with the graph outputs' names and shapes unchanged.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/passes/unit_axis_transpose.h"
#include "tests/relay_import/onnx_builder.h"

using namespace tetune;
using namespace tetune::testing;

namespace {

constexpr int64_t S = 5, C = 6;

// A = Transpose(X [S, 1, C], perm 1 0 2) + 1 (a view read by a kernel), B = Transpose(X, perm 2 1 0)
// (a real transpose), D = Transpose(Y [1, S, C], perm 0 2 1) (a real one behind a unit axis),
// E = Transpose(V [1, 7]) (default perm: a view straight to a graph output).
std::string model() {
  onnx::ModelProto m;
  auto *g = start_model(m, "transposes");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {S, 1, C});
  set_type(g->add_input(), "Y", onnx::TensorProto::FLOAT, {1, S, C});
  set_type(g->add_input(), "V", onnx::TensorProto::FLOAT, {1, 7});
  add_initializer(g, "one", {}, {1.0f});
  attr_ints(add_node(g, "Transpose", {"X"}, {"xt"}), "perm", {1, 0, 2});
  add_node(g, "Add", {"xt", "one"}, {"A"});
  attr_ints(add_node(g, "Transpose", {"X"}, {"B"}), "perm", {2, 1, 0});
  attr_ints(add_node(g, "Transpose", {"Y"}, {"D"}), "perm", {0, 2, 1});
  add_node(g, "Transpose", {"V"}, {"E"});
  set_type(g->add_output(), "A", onnx::TensorProto::FLOAT, {1, S, C});
  set_type(g->add_output(), "B", onnx::TensorProto::FLOAT, {C, 1, S});
  set_type(g->add_output(), "D", onnx::TensorProto::FLOAT, {1, C, S});
  set_type(g->add_output(), "E", onnx::TensorProto::FLOAT, {7, 1});
  return m.SerializeAsString();
}

}  // namespace

TEST(UnitAxisTranspose, OnlyOrderKeepingTransposesBecomeViews) {
  relay::Graph g = relay::import_onnx_bytes(model(), "transposes.onnx", relay::ImportOptions());
  ASSERT_EQ(relay::transposes_of_unit_axes_to_views(g), 2);
  int transposes = 0, reshapes = 0;
  for (const auto &n : g.nodes) {
    if (n.dead) continue;
    transposes += n.op == "Transpose";
    reshapes += n.op == "Reshape";
  }
  EXPECT_EQ(transposes, 2) << "B and D stay transposes";
  EXPECT_EQ(reshapes, 2);
  EXPECT_EQ(relay::transposes_of_unit_axes_to_views(g), 0) << "a second run finds none";
  const std::vector<std::string> names = {"A", "B", "D", "E"};
  const std::vector<Shape> shapes = {{1, S, C}, {C, 1, S}, {1, C, S}, {7, 1}};
  for (size_t o = 0; o < names.size(); o++) {
    EXPECT_EQ(g.values[g.outputs[o]].name, names[o]);
    EXPECT_EQ(g.values[g.outputs[o]].shape, shapes[o]);
  }

  NDArray x = NDArray::random({S, 1, C}, float32(), 5), y = NDArray::random({1, S, C}, float32(), 6),
          v = NDArray::random({1, 7}, float32(), 7);
  std::vector<NDArray> out = relay::compile_model(std::move(g)).run(std::vector<NDArray>{x, y, v});
  ASSERT_EQ(out.size(), 4u);
  for (int64_t s = 0; s < S; s++)
    for (int64_t c = 0; c < C; c++) {
      EXPECT_EQ(static_cast<float>(out[0].get(s * C + c)), static_cast<float>(x.get(s * C + c)) + 1.0f) << "A " << s << "," << c;
      EXPECT_EQ(out[1].get(c * S + s), x.get(s * C + c)) << "B " << s << "," << c;
      EXPECT_EQ(out[2].get(c * S + s), y.get(s * C + c)) << "D " << s << "," << c;
    }
  for (int64_t i = 0; i < 7; i++) EXPECT_EQ(out[3].get(i), v.get(i)) << "E " << i;
}

// compile_model's passes include this one.
TEST(UnitAxisTranspose, GraphPassesRewriteThem) {
  relay::CompileStats stats;
  relay::CompileOptions co;
  relay::Graph g = relay::import_onnx_bytes(model(), "transposes.onnx", relay::ImportOptions());
  relay::run_graph_passes(g, co, &stats);
  EXPECT_EQ(stats.transposes_as_views, 2);
}
