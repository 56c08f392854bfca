// Sequence ops through the whole importer (relay_import/lowering_sequence.cc):
// a hand-built model splits, erases, inserts, measures, concatenates and
// indexes a sequence; the compiled graph's outputs are compared with the
// same steps done on plain arrays. Also: a sequence output flattens to its
// elements, and a run-time position is reported as unsupported.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "tests/relay_import/onnx_builder.h"
#include "base/errors.h"
#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"

namespace tetune {
namespace {

using testing::set_type;
using testing::add_node;


void add_int(onnx::GraphProto *g, const std::string &name, int64_t v) {
  auto *t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_int64_data(v);
}


// x [6,4], y [2,4]: s = SplitToSequence(x, 2) (three [2,4] chunks), erase
// chunk 1, insert y in front; outputs Concat(s), s[-1], len(s), and s itself
// (when seq_output). pos_input: the insert position is a graph input.
onnx::ModelProto sequence_model(bool seq_output, bool pos_input) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "x", onnx::TensorProto::FLOAT, {6, 4});
  set_type(g->add_input(), "y", onnx::TensorProto::FLOAT, {2, 4});
  add_int(g, "two", 2);
  add_int(g, "one", 1);
  add_int(g, "minus_one", -1);
  if (pos_input) set_type(g->add_input(), "zero", onnx::TensorProto::INT64, {});
  else add_int(g, "zero", 0);
  add_node(g, "SplitToSequence", {"x", "two"}, {"s"});
  add_node(g, "SequenceErase", {"s", "one"}, {"s2"});
  add_node(g, "SequenceInsert", {"s2", "y", "zero"}, {"s3"});
  add_node(g, "SequenceLength", {"s3"}, {"n"});
  auto *cat = add_node(g, "ConcatFromSequence", {"s3"}, {"c"});
  auto *a = cat->add_attribute();
  a->set_name("axis");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(0);
  add_node(g, "SequenceAt", {"s3", "minus_one"}, {"last"});
  g->add_output()->set_name("c");
  g->add_output()->set_name("last");
  g->add_output()->set_name("n");
  if (seq_output) {
    auto *o = g->add_output();
    o->set_name("s3");
    o->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  }
  return m;
}

NDArray rows(const NDArray &x, int64_t r0, int64_t r1) {
  NDArray r(Shape{r1 - r0, 4}, float32());
  for (int64_t i = 0; i < r.size(); i++) r.set(i, x.get(r0 * 4 + i));
  return r;
}

TEST(SequenceImport, SplitEraseInsertConcatAt) {
  relay::CompiledModel cm = relay::compile_model(
      relay::import_onnx_bytes(sequence_model(true, false).SerializeAsString(), "test", relay::ImportOptions()));
  NDArray x = NDArray::random({6, 4}, float32(), 1), y = NDArray::random({2, 4}, float32(), 2);
  std::vector<NDArray> out = cm.run(std::vector<NDArray>{x, y});
  // c, last, n, then the sequence's three elements
  ASSERT_EQ(out.size(), 6u);
  std::vector<NDArray> want = {y, rows(x, 0, 2), rows(x, 4, 6)};
  ASSERT_EQ(out[0].shape(), (Shape{6, 4}));
  for (int64_t i = 0; i < 24; i++) EXPECT_EQ(out[0].get(i), want[i / 8].get(i % 8)) << "concat element " << i;
  ASSERT_EQ(out[1].shape(), (Shape{2, 4}));
  for (int64_t i = 0; i < 8; i++) EXPECT_EQ(out[1].get(i), want[2].get(i));
  ASSERT_EQ(out[2].size(), 1);
  EXPECT_EQ(out[2].get(0), 3);
  for (int k = 0; k < 3; k++) {
    ASSERT_EQ(out[3 + k].shape(), (Shape{2, 4}));
    for (int64_t i = 0; i < 8; i++) EXPECT_EQ(out[3 + k].get(i), want[k].get(i)) << "element " << k;
  }
}

TEST(SequenceImport, RunTimePositionIsUnsupported) {
  try {
    relay::ImportOptions o;
    o.input_shapes["zero"] = {};
    relay::import_onnx_bytes(sequence_model(false, true).SerializeAsString(), "test", o);
    FAIL() << "a run-time insert position imported";
  } catch (const ImportError &e) {
    EXPECT_NE(std::string(e.what()).find("unsupported"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("SequenceInsert"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tetune
