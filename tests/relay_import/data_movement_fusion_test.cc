// Fusion of data movement (relay_import/passes/fusion.h): a Split of a
// Transpose joins the Transpose's group, one kernel with the Split's outputs;
// a Transpose whose output another node also reads stays a group of its own;
// a Slice, a Reshape of it to heads and their Transpose are one kernel, the
// Reshape no view of its own. Each model computes what plain loops compute.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/passes/fusion.h"
#include "tests/relay_import/onnx_builder.h"

using namespace tetune;
using namespace tetune::testing;

namespace {

constexpr int64_t R = 4, P = 3, C = 5;

// T = Transpose(X [R, P, C], perm 1 0 2) [P, R, C]; A, B, D = Split(T, axis 0) [1, R, C] each;
// with `extra_reader`, also E = T + 1.
std::string model(bool extra_reader) {
  onnx::ModelProto m;
  auto *g = start_model(m, "qkv");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {R, P, C});
  attr_ints(add_node(g, "Transpose", {"X"}, {"T"}), "perm", {1, 0, 2});
  attr_i(add_node(g, "Split", {"T"}, {"A", "B", "D"}), "axis", 0);
  for (const char *o : {"A", "B", "D"}) set_type(g->add_output(), o, onnx::TensorProto::FLOAT, {1, R, C});
  if (extra_reader) {
    add_initializer(g, "one", {}, {1.0f});
    add_node(g, "Add", {"T", "one"}, {"E"});
    set_type(g->add_output(), "E", onnx::TensorProto::FLOAT, {P, R, C});
  }
  return m.SerializeAsString();
}

// The kernel groups of g, as their names.
std::vector<std::string> kernel_groups(const relay::Graph &g) {
  std::vector<std::string> names;
  for (const relay::FusedGroup &grp : relay::fuse_graph(g))
    if (grp.kind == relay::FusedGroup::Kernel) names.push_back(grp.name);
  return names;
}

// Output k of the Split is X[:, k, :].
void expect_pieces(const NDArray &x, const std::vector<NDArray> &out) {
  for (int64_t k = 0; k < P; k++)
    for (int64_t r = 0; r < R; r++)
      for (int64_t c = 0; c < C; c++)
        ASSERT_EQ(out[k].get(r * C + c), x.get((r * P + k) * C + c)) << k << "," << r << "," << c;
}

}  // namespace

TEST(DataMovementFusion, ASplitOfATransposeIsOneKernel) {
  relay::Graph g = relay::import_onnx_bytes(model(false), "qkv.onnx", relay::ImportOptions());
  EXPECT_EQ(kernel_groups(g), std::vector<std::string>{"g0_Transpose_Split"});
  NDArray x = NDArray::random({R, P, C}, float32(), 3);
  std::vector<NDArray> out = relay::compile_model(std::move(g)).run(std::vector<NDArray>{x});
  ASSERT_EQ(out.size(), 3u);
  expect_pieces(x, out);
}

TEST(DataMovementFusion, ATransposeReadTwiceStaysAlone) {
  relay::Graph g = relay::import_onnx_bytes(model(true), "qkv.onnx", relay::ImportOptions());
  EXPECT_EQ(kernel_groups(g), (std::vector<std::string>{"g0_Transpose_Add", "g1_Split"})) << "the Add joins the Transpose, the Split does not";
  NDArray x = NDArray::random({R, P, C}, float32(), 4);
  std::vector<NDArray> out = relay::compile_model(std::move(g)).run(std::vector<NDArray>{x});
  ASSERT_EQ(out.size(), 4u);
  expect_pieces(x, out);
  for (int64_t k = 0; k < P; k++)
    for (int64_t r = 0; r < R; r++)
      for (int64_t c = 0; c < C; c++)
        ASSERT_EQ(static_cast<float>(out[3].get((k * R + r) * C + c)), static_cast<float>(x.get((r * P + k) * C + c)) + 1.0f);
}

// K = Slice(QKV [S, 3 * H * D], columns H * D .. 2 * H * D); Reshape to [S, H, D]; Transpose to
// [H, D, S] (perm 1 2 0: ViT's K^T per head). With `extra_reader`, the Reshape's output is also
// a graph output.
constexpr int64_t S = 5, H = 2, D = 3;
std::string heads_model(bool extra_reader) {
  onnx::ModelProto m;
  auto *g = start_model(m, "heads");
  set_type(g->add_input(), "QKV", onnx::TensorProto::FLOAT, {S, 3 * H * D});
  add_int64_initializer(g, "starts", {H * D});
  add_int64_initializer(g, "ends", {2 * H * D});
  add_int64_initializer(g, "axes", {1});
  add_int64_initializer(g, "heads", {S, H, D});
  add_node(g, "Slice", {"QKV", "starts", "ends", "axes"}, {"K"});
  add_node(g, "Reshape", {"K", "heads"}, {"KH"});
  attr_ints(add_node(g, "Transpose", {"KH"}, {"KT"}), "perm", {1, 2, 0});
  set_type(g->add_output(), "KT", onnx::TensorProto::FLOAT, {H, D, S});
  if (extra_reader) set_type(g->add_output(), "KH", onnx::TensorProto::FLOAT, {S, H, D});
  return m.SerializeAsString();
}

TEST(DataMovementFusion, ASliceReshapedToHeadsAndTransposedIsOneKernel) {
  for (bool extra_reader : {false, true}) {
    relay::Graph g = relay::import_onnx_bytes(heads_model(extra_reader), "heads.onnx", relay::ImportOptions());
    const std::vector<std::string> want =
        extra_reader ? std::vector<std::string>{"g0_Slice", "g2_Transpose"} : std::vector<std::string>{"g0_Slice_Reshape_Transpose"};
    EXPECT_EQ(kernel_groups(g), want) << (extra_reader ? "a Reshape read twice stays a view" : "one kernel");
    NDArray qkv = NDArray::random({S, 3 * H * D}, float32(), 5);
    std::vector<NDArray> out = relay::compile_model(std::move(g)).run(std::vector<NDArray>{qkv});
    ASSERT_EQ(out.size(), extra_reader ? 2u : 1u);
    for (int64_t h = 0; h < H; h++)
      for (int64_t d = 0; d < D; d++)
        for (int64_t s = 0; s < S; s++)
          ASSERT_EQ(out[0].get((h * D + d) * S + s), qkv.get(s * 3 * H * D + H * D + h * D + d)) << h << "," << d << "," << s;
  }
}
