// Zero-size constants in shape arithmetic (relay_import/passes/empty_constants.h):
// an empty Slice of a Shape folds to an empty constant, Concat drops it, and
// the model computes what ONNX says; any other reader of it is refused by name.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <limits>
#include <string>

#include "base/errors.h"
#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "tests/relay_import/onnx_builder.h"

using namespace tetune;
using namespace tetune::testing;

namespace {

constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();

// X [2, 3, 4] -> shape[0:1] ++ shape[3:] (empty) ++ [-1] -> Y = Reshape(X) [2, 12], as
// torchvision's Swin Transformer builds its shapes; `reader` also feeds the empty slice to it.
std::string swin_shape_model(const std::string &reader = "") {
  onnx::ModelProto m;
  auto *g = start_model(m, "empty_slice");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {2, 3, 4});
  add_int64_initializer(g, "zero", {0}), add_int64_initializer(g, "one", {1}), add_int64_initializer(g, "three", {3}), add_int64_initializer(g, "end", {kEnd});
  add_int64_initializer(g, "minus_one", {-1});
  add_node(g, "Shape", {"X"}, {"S"});
  add_node(g, "Slice", {"S", "zero", "one"}, {"head"});
  add_node(g, "Slice", {"S", "three", "end"}, {"tail"});
  attr_i(add_node(g, "Concat", {"head", "tail", "minus_one"}, {"shape"}), "axis", 0);
  add_node(g, "Reshape", {"X", "shape"}, {"Y"});
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {2, 12});
  if (!reader.empty()) {
    add_node(g, reader, {"tail", "tail"}, {"Z"});
    set_type(g->add_output(), "Z", onnx::TensorProto::INT64, {0});
  }
  return m.SerializeAsString();
}

}  // namespace

TEST(EmptyConstants, EmptySliceOfAShapeFeedsConcat) {
  relay::Graph g = relay::import_onnx_bytes(swin_shape_model(), "swin_shape.onnx", relay::ImportOptions());
  relay::CompiledModel m = relay::compile_model(g);
  NDArray x = NDArray::random({2, 3, 4}, float32(), 5);
  std::vector<NDArray> out = m.run(std::vector<NDArray>{x});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].shape(), (Shape{2, 12}));
  for (int64_t i = 0; i < x.size(); i++) ASSERT_EQ(out[0].get(i), x.get(i)) << i;
}

TEST(EmptyConstants, ConcatOfOnlyEmptyOperandsIsEmpty) {
  // X [1] -> shape[1:] ++ shape[1:] = [] -> Reshape(X, []) is the scalar X[0].
  onnx::ModelProto proto;
  auto *g = start_model(proto, "all_empty");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {1});
  add_int64_initializer(g, "one", {1}), add_int64_initializer(g, "end", {kEnd});
  add_node(g, "Shape", {"X"}, {"S"});
  add_node(g, "Slice", {"S", "one", "end"}, {"E"});
  attr_i(add_node(g, "Concat", {"E", "E"}, {"shape"}), "axis", 0);
  add_node(g, "Reshape", {"X", "shape"}, {"Y"});
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {});
  relay::CompiledModel m = relay::compile_model(relay::import_onnx_bytes(proto.SerializeAsString(), "all_empty.onnx", relay::ImportOptions()));
  NDArray x(Shape{1}, float32());
  x.set(0, 2.5);
  std::vector<NDArray> out = m.run(std::vector<NDArray>{x});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape{});
  EXPECT_EQ(out[0].get(0), 2.5);
}

TEST(EmptyConstants, OtherReadersOfAnEmptyConstantAreRefusedByName) {
  try {
    relay::import_onnx_bytes(swin_shape_model("Add"), "swin_shape.onnx", relay::ImportOptions());
    FAIL() << "an Add of zero-size operands imported";
  } catch (const Error &e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("Add node"), std::string::npos) << w;
    EXPECT_NE(w.find("zero-size"), std::string::npos) << w;
  }
}
