// A kernel group's task marks which of its inputs are model constants
// (Task::constant_inputs, what CacheState::kModel evicts before a timed run):
// Y = X W + b with W, b initializers, Z = X V with V a graph input.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <set>

#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "tests/relay_import/onnx_builder.h"

using namespace tetune;
using namespace tetune::testing;

TEST(FusionConstantInputs, TaskMarksExactlyTheInitializers) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {4, 6});
  set_type(g->add_input(), "V", onnx::TensorProto::FLOAT, {6, 3});
  add_initializer(g, "W", {6, 3}, std::vector<float>(18, 0.5f));
  add_initializer(g, "b", {3}, std::vector<float>{1, 2, 3});
  add_node(g, "MatMul", {"X", "W"}, {"XW"});
  add_node(g, "Add", {"XW", "b"}, {"Y"});
  add_node(g, "MatMul", {"X", "V"}, {"Z"});
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {4, 3});
  set_type(g->add_output(), "Z", onnx::TensorProto::FLOAT, {4, 3});
  relay::CompiledModel cm = relay::compile_groups_only(relay::import_onnx_bytes(m.SerializeAsString(), "m.onnx", relay::ImportOptions()));

  int checked = 0;
  for (const auto &grp : cm.groups()) {
    if (grp.kind != relay::FusedGroup::Kernel) continue;
    const std::vector<Tensor> ins = grp.task.inputs();
    ASSERT_EQ(ins.size(), grp.input_values.size());
    std::set<int> constant(grp.task.constant_inputs.begin(), grp.task.constant_inputs.end());
    for (size_t i = 0; i < ins.size(); i++) {
      const bool is_const = cm.graph().values[grp.input_values[i]].is_const();
      EXPECT_EQ(constant.count(static_cast<int>(i)) == 1, is_const) << grp.name << " input " << i << " (" << ins[i].name() << ")";
    }
    checked++;
    if (grp.name.find("Add") != std::string::npos) EXPECT_EQ(grp.task.constant_inputs.size(), 2u) << "W and b";
    else EXPECT_TRUE(grp.task.constant_inputs.empty()) << grp.name << " reads only graph inputs";
  }
  EXPECT_EQ(checked, 2);
}
