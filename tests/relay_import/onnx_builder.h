// Building small ONNX models in the relay_import tests (onnx-ml.pb.h from
// libonnx-dev): a typed graph input / output, a node, integer attributes, a
// float initializer and deterministic values to fill one.
#pragma once

#include <onnx/onnx-ml.pb.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace tetune {
namespace testing {

/** m as an ONNX model (IR 8) of one opset, and its graph, named `name`. */
inline onnx::GraphProto *start_model(onnx::ModelProto &m, const std::string &name, int64_t opset = 13) {
  m.set_ir_version(8);
  m.add_opset_import()->set_version(opset);
  onnx::GraphProto *g = m.mutable_graph();
  g->set_name(name);
  return g;
}

/** Names vi and gives it a tensor type of element type `elem` (onnx::TensorProto::FLOAT, ...) and static dims. */
inline void set_type(onnx::ValueInfoProto *vi, const std::string &name, int elem, const std::vector<int64_t> &dims) {
  vi->set_name(name);
  auto *tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto *sh = tt->mutable_shape();
  for (auto d : dims) sh->add_dim()->set_dim_value(d);
}

/** Appends node OP_<index> reading `in` and writing `out`. */
inline onnx::NodeProto *add_node(onnx::GraphProto *g, const std::string &op, const std::vector<std::string> &in,
                                 const std::vector<std::string> &out) {
  auto *n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "_" + std::to_string(g->node_size()));
  for (auto &i : in) n->add_input(i);
  for (auto &o : out) n->add_output(o);
  return n;
}

/** Adds the INT attribute k = v to n. */
inline void attr_i(onnx::NodeProto *n, const std::string &k, int64_t v) {
  auto *a = n->add_attribute();
  a->set_name(k);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

/** Adds the INTS attribute k = v to n. */
inline void attr_ints(onnx::NodeProto *n, const std::string &k, const std::vector<int64_t> &v) {
  auto *a = n->add_attribute();
  a->set_name(k);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

/** Adds the float32 initializer `name` of shape dims holding v (row-major). */
inline void add_initializer(onnx::GraphProto *g, const std::string &name, const std::vector<int64_t> &dims,
                            const std::vector<float> &v) {
  auto *t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t->add_dims(d);
  for (float x : v) t->add_float_data(x);
}

/** Adds the int64 initializer `name` of shape [v.size()] holding v (a shape, axes, starts...). */
inline void add_int64_initializer(onnx::GraphProto *g, const std::string &name, const std::vector<int64_t> &v) {
  auto *t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  t->add_dims(static_cast<int64_t>(v.size()));
  for (int64_t x : v) t->add_int64_data(x);
}

/** n deterministic weights in [-scale, scale]: scale * sin(f * i + 0.5). */
inline std::vector<float> wave(size_t n, float f, float scale = 0.3f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; i++) v[i] = scale * std::sin(f * static_cast<float>(i) + 0.5f);
  return v;
}

}  // namespace testing
}  // namespace tetune
