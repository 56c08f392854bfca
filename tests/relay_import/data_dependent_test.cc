// Data-dependent output sizes (relay_import/host_ops.h) through import ->
// compile -> run: NonMaxSuppression feeding Gathers (the shape of a detector
// head exported by torchvision.ops.nms), NonZero on a run-time input, folding
// of constant inputs, and refusal of readers that would mix padding rows in.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "tests/relay_import/onnx_builder.h"
#include "base/errors.h"
#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"

namespace tetune {
namespace {

using testing::set_type;


void add_float_init(onnx::GraphProto *g, const std::string &name, float v) {
  auto *t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(1);
  t->add_float_data(v);
}

onnx::NodeProto *add_node(onnx::GraphProto *g, const std::string &op, const std::vector<std::string> &in,
                          const std::vector<std::string> &out, int64_t axis = -100) {
  auto *n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "_" + std::to_string(g->node_size()));
  for (auto &i : in) n->add_input(i);
  for (auto &o : out) n->add_output(o);
  if (axis != -100) {
    auto *a = n->add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(axis);
  }
  return n;
}

onnx::ModelProto model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  return m;
}

relay::Graph import(const onnx::ModelProto &m) {
  std::string bytes;
  m.SerializeToString(&bytes);
  return relay::import_onnx_bytes(bytes, "test");
}

// ONNX's suppress_by_IOU example: boxes 1 and 2 overlap box 0, box 4 overlaps box 3.
const std::vector<float> kBoxes = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f, 0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101};
const std::vector<float> kScores = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

// boxes, scores -> NonMaxSuppression -> selected[:, 2] -> scores[selected box]
onnx::ModelProto nms_head(const std::string &reader) {
  onnx::ModelProto m = model();
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "boxes", onnx::TensorProto::FLOAT, {1, 6, 4});
  set_type(g->add_input(), "scores", onnx::TensorProto::FLOAT, {1, 1, 6});
  testing::add_int64_initializer(g, "max_out", {10});
  add_float_init(g, "iou", 0.5f);
  testing::add_int64_initializer(g, "col", {2});
  testing::add_int64_initializer(g, "ax1", {1});
  testing::add_int64_initializer(g, "flat", {6});
  add_node(g, "NonMaxSuppression", {"boxes", "scores", "max_out", "iou"}, {"selected"});
  add_node(g, "Gather", {"selected", "col"}, {"col2"}, 1);
  add_node(g, "Squeeze", {"col2", "ax1"}, {"keep"});
  add_node(g, "Reshape", {"scores", "flat"}, {"flat_scores"});
  add_node(g, "Gather", {"flat_scores", "keep"}, {"kept"}, 0);
  set_type(g->add_output(), "selected", onnx::TensorProto::INT64, {});
  if (reader.empty()) {
    set_type(g->add_output(), "kept", onnx::TensorProto::FLOAT, {});
  } else {
    add_node(g, reader, {"kept"}, {"total"});
    set_type(g->add_output(), "total", onnx::TensorProto::FLOAT, {});
  }
  return m;
}

TEST(DataDependent, NmsHeadIsTrimmedToTheSelection) {
  relay::CompiledModel cm = relay::compile_model(import(nms_head("")));
  NDArray boxes(Shape{1, 6, 4}, float32()), scores(Shape{1, 1, 6}, float32());
  std::copy(kBoxes.begin(), kBoxes.end(), boxes.data<float>());
  std::copy(kScores.begin(), kScores.end(), scores.data<float>());
  auto out = cm.run(std::vector<NDArray>{boxes, scores});
  ASSERT_EQ(out.size(), 2u);
  // selection order: box 3 (0.95), box 0 (0.9), box 5 (0.3); 1, 2 and 4 are suppressed
  ASSERT_EQ(out[0].shape(), (Shape{3, 3}));
  std::vector<int64_t> want = {0, 0, 3, 0, 0, 0, 0, 0, 5};
  for (int i = 0; i < 9; i++) EXPECT_EQ(out[0].data<int64_t>()[i], want[i]) << i;
  ASSERT_EQ(out[1].shape(), (Shape{3}));
  EXPECT_FLOAT_EQ(out[1].data<float>()[0], 0.95f);
  EXPECT_FLOAT_EQ(out[1].data<float>()[1], 0.9f);
  EXPECT_FLOAT_EQ(out[1].data<float>()[2], 0.3f);
  // other scores change the selection, and the trimmed extent with it
  std::vector<float> s2 = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.99f};
  std::copy(s2.begin(), s2.end(), scores.data<float>());
  out = cm.run(std::vector<NDArray>{boxes, scores});
  EXPECT_EQ(out[0].shape(), (Shape{3, 3}));
  EXPECT_EQ(out[0].data<int64_t>()[2], 5);
}

TEST(DataDependent, ReaderMixingRowsIsRefused) {
  try {
    relay::compile_model(import(nms_head("ReduceSum")));
    FAIL() << "expected an ImportError";
  } catch (const ImportError &e) {
    std::string w = e.what();
    EXPECT_NE(w.find("unsupported"), std::string::npos) << w;
    EXPECT_NE(w.find("NonMaxSuppression"), std::string::npos) << w;
  }
}

TEST(DataDependent, NonZeroAtRunTimeAndFolded) {
  onnx::ModelProto m = model();
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  add_node(g, "NonZero", {"x"}, {"nz"});
  testing::add_int64_initializer(g, "c", {0, 4, 0, 5});
  add_node(g, "NonZero", {"c"}, {"nzc"});
  set_type(g->add_output(), "nz", onnx::TensorProto::INT64, {});
  set_type(g->add_output(), "nzc", onnx::TensorProto::INT64, {});
  relay::CompiledModel cm = relay::compile_model(import(m));
  NDArray x(Shape{2, 3}, float32());
  std::vector<float> xv = {0, 2, 0, 3, 0, 1};
  std::copy(xv.begin(), xv.end(), x.data<float>());
  auto out = cm.run(std::vector<NDArray>{x});
  ASSERT_EQ(out[0].shape(), (Shape{2, 3}));  // rows, then columns of (0,1), (1,0), (1,2)
  std::vector<int64_t> want = {0, 1, 1, 1, 0, 2};
  for (int i = 0; i < 6; i++) EXPECT_EQ(out[0].data<int64_t>()[i], want[i]) << i;
  ASSERT_EQ(out[1].shape(), (Shape{1, 2}));  // folded at import with its exact shape
  EXPECT_EQ(out[1].data<int64_t>()[0], 1);
  EXPECT_EQ(out[1].data<int64_t>()[1], 3);
}

}  // namespace
}  // namespace tetune
