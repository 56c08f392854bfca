// Opsets 1..6 (lowering::check_legacy_opset): variants the opset-7 lowerings
// compute the same import; those whose meaning changed are refused as unsupported.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "base/errors.h"
#include "relay_import/onnx_importer.h"

namespace tetune {
namespace {

struct Model {
  onnx::ModelProto m;
  explicit Model(int opset) {
    m.set_ir_version(3);
    auto *o = m.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
  }
  void input(const std::string &name, const std::vector<int64_t> &dims) {
    auto *vi = m.mutable_graph()->add_input();
    vi->set_name(name);
    auto *tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
  }
  onnx::NodeProto *node(const std::string &op, const std::vector<std::string> &in, const std::string &out) {
    auto *n = m.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(op + "0");
    for (auto &i : in) n->add_input(i);
    n->add_output(out);
    m.mutable_graph()->add_output()->set_name(out);
    return n;
  }
  // Imports without folding so the node is lowered for shape inference; "" when it imports, else the message.
  std::string import_error() const {
    try {
      relay::import_onnx_bytes(m.SerializeAsString(), "legacy");
    } catch (const ImportError &e) {
      return e.what();
    }
    return "";
  }
};

void set_i(onnx::NodeProto *n, const std::string &k, int64_t v) {
  auto *a = n->add_attribute();
  a->set_name(k);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

TEST(LegacyOpset, TrailingLegacyBroadcastImports) {
  Model m(6);
  m.input("a", {2, 3, 4});
  m.input("b", {4});
  auto *n = m.node("Add", {"a", "b"}, "y");
  set_i(n, "broadcast", 1);
  set_i(n, "axis", 2);
  EXPECT_EQ(m.import_error(), "");
}

TEST(LegacyOpset, LegacyBroadcastAtAnInnerAxisIsUnsupported) {
  Model m(6);
  m.input("a", {2, 3, 4});
  m.input("b", {3});
  auto *n = m.node("Mul", {"a", "b"}, "y");
  set_i(n, "broadcast", 1);
  set_i(n, "axis", 1);
  std::string e = m.import_error();
  EXPECT_NE(e.find("unsupported legacy broadcast of B at axis 1"), std::string::npos) << e;
  EXPECT_NE(e.find("opset 6"), std::string::npos) << e;
}

TEST(LegacyOpset, TrainingModeBatchNormalizationIsUnsupported) {
  Model m(6);
  m.input("x", {1, 2, 3, 3});
  for (const char *p : {"s", "b", "mean", "var"}) m.input(p, {2});
  m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, "y");
  std::string e = m.import_error();
  EXPECT_NE(e.find("unsupported is_test=0"), std::string::npos) << e;
  // is_test=1 is inference: the opset-7 lowering applies.
  Model t(6);
  t.input("x", {1, 2, 3, 3});
  for (const char *p : {"s", "b", "mean", "var"}) t.input(p, {2});
  set_i(t.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, "y"), "is_test", 1);
  EXPECT_EQ(t.import_error(), "");
}

TEST(LegacyOpset, UnchangedOpsImportAtOpset1) {
  Model m(1);
  m.input("x", {2, 3});
  set_i(m.node("Relu", {"x"}, "y"), "consumed_inputs", 0);  // a memory hint, ignored
  EXPECT_EQ(m.import_error(), "");
}

TEST(LegacyOpset, CastWithAStringTypeIsUnsupported) {
  Model m(5);
  m.input("x", {2});
  auto *a = m.node("Cast", {"x"}, "y")->add_attribute();
  a->set_name("to");
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s("INT32");
  std::string e = m.import_error();
  EXPECT_NE(e.find("unsupported Cast-1"), std::string::npos) << e;
}

}  // namespace
}  // namespace tetune
