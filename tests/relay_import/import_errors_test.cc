// Bad inputs never crash: truncated / empty / random-byte / wrong-opset files,
// undefined values, cycles, unsupported ops, missing or mis-shaped inputs.
// Also unit checks of the passes (BN folding, CSE, fusion keys, memory plan)
// and of graph serialisation, on small hand-built ONNX models.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "base/errors.h"
#include "tests/relay_import/test_util.h"

namespace tetune {
namespace {

using relay::Graph;
using relay::ImportOptions;

struct ModelBuilder {
  onnx::ModelProto m;
  explicit ModelBuilder(int opset = 13) {
    m.set_ir_version(8);
    auto *o = m.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
  }
  onnx::GraphProto *g() { return m.mutable_graph(); }
  void input(const std::string &name, const std::vector<int64_t> &dims, bool dynamic0 = false) {
    auto *vi = g()->add_input();
    vi->set_name(name);
    auto *tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    for (size_t i = 0; i < dims.size(); i++) {
      auto *d = tt->mutable_shape()->add_dim();
      if (i == 0 && dynamic0) d->set_dim_param("N");
      else d->set_dim_value(dims[i]);
    }
  }
  void output(const std::string &name) { g()->add_output()->set_name(name); }
  void init(const std::string &name, const std::vector<int64_t> &dims, const std::vector<float> &v) {
    auto *t = g()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (auto d : dims) t->add_dims(d);
    for (float x : v) t->add_float_data(x);
  }
  onnx::NodeProto *node(const std::string &op, const std::vector<std::string> &in, const std::vector<std::string> &out,
                        const std::string &name = "") {
    auto *n = g()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto &i : in) n->add_input(i);
    for (auto &o : out) n->add_output(o);
    return n;
  }
  std::string bytes() const { return m.SerializeAsString(); }
};

void attr_i(onnx::NodeProto *n, const std::string &k, int64_t v) {
  auto *a = n->add_attribute();
  a->set_name(k);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

std::string write(const std::string &name, const std::string &bytes) {
  std::string p = testing::tmp_dir() + "/" + name;
  std::ofstream(p, std::ios::binary) << bytes;
  return p;
}

ModelBuilder relu_model() {
  ModelBuilder b;
  b.input("x", {1, 4});
  b.node("Relu", {"x"}, {"y"}, "relu0");
  b.output("y");
  return b;
}

template <typename E>
std::string expect_throw(const std::function<void()> &f) {
  try {
    f();
  } catch (const E &e) {
    return e.what();
  } catch (const std::exception &e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no exception";
  return "";
}

TEST(ImportErrors, EmptyTruncatedRandom) {
  std::string p = write("empty.onnx", "");
  std::string msg = expect_throw<ImportError>([&] { relay::import_onnx(p); });
  EXPECT_NE(msg.find("empty.onnx"), std::string::npos) << msg;

  std::string good = relu_model().bytes();
  p = write("trunc.onnx", good.substr(0, good.size() / 2));
  msg = expect_throw<ImportError>([&] { relay::import_onnx(p); });
  EXPECT_NE(msg.find("trunc.onnx"), std::string::npos) << msg;

  std::mt19937 rng(1);
  std::string junk(4096, '\0');
  for (auto &c : junk) c = static_cast<char>(rng());
  p = write("random.onnx", junk);
  msg = expect_throw<ImportError>([&] { relay::import_onnx(p); });
  EXPECT_NE(msg.find("random.onnx"), std::string::npos) << msg;

  msg = expect_throw<ImportError>([&] { relay::import_onnx(testing::tmp_dir() + "/does_not_exist.onnx"); });
  EXPECT_NE(msg.find("does_not_exist.onnx"), std::string::npos) << msg;

  // a real model cut at many points: always an ImportError, never a crash
  std::string root = testing::repo_root();
  std::string cls = root + "/models/ppocr/ch_ppocr_mobile_v2.0_cls_infer.onnx";
  if (testing::path_exists(cls)) {
    std::ifstream is(cls, std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
    for (double f : {0.01, 0.3, 0.77, 0.999}) {
      std::string cut = all.substr(0, static_cast<size_t>(all.size() * f));
      ImportOptions o;
      o.input_shapes = relay::parse_input_shapes("x=1,3,48,192");
      EXPECT_THROW(relay::import_onnx_bytes(cut, "cls_cut", o), ImportError) << f;
    }
  }
}

TEST(ImportErrors, WrongOpset) {
  ModelBuilder b(99);
  b.input("x", {1, 4});
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  std::string msg = expect_throw<ImportError>([&] { relay::import_onnx_bytes(b.bytes(), "op99.onnx"); });
  EXPECT_NE(msg.find("opset 99"), std::string::npos) << msg;
}

TEST(ImportErrors, UnsupportedOpNamesOpNodeOpset) {
  ModelBuilder b(13);
  b.input("x", {1, 4});
  b.node("Frobnicate", {"x"}, {"y"}, "frob1");
  b.output("y");
  std::string msg = expect_throw<ImportError>([&] { relay::import_onnx_bytes(b.bytes(), "m.onnx"); });
  EXPECT_NE(msg.find("Frobnicate"), std::string::npos) << msg;
  EXPECT_NE(msg.find("frob1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("opset 13"), std::string::npos) << msg;
}

// Dropout(x, ratio, training_mode = true): ONNX makes it a copy of x when ratio is 0
// (torchvision's Swin exports its attention dropout so); any other ratio is random.
ModelBuilder training_dropout_model(float ratio) {
  ModelBuilder b(13);
  b.input("x", {2, 3});
  b.init("ratio", {}, {ratio});
  auto *t = b.g()->add_initializer();
  t->set_name("training");
  t->set_data_type(onnx::TensorProto::BOOL);
  t->add_int32_data(1);
  b.node("Dropout", {"x", "ratio", "training"}, {"y", "mask"}, "drop1");
  b.output("y");
  b.output("mask");
  return b;
}

TEST(ImportErrors, TrainingDropoutOnlyWithRatioZero) {
  std::string msg =
      expect_throw<ImportError>([&] { relay::import_onnx_bytes(training_dropout_model(0.5f).bytes(), "m.onnx"); });
  EXPECT_NE(msg.find("drop1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("random dropout"), std::string::npos) << msg;

  relay::CompiledModel m = relay::compile_model(relay::import_onnx_bytes(training_dropout_model(0.0f).bytes(), "m.onnx"));
  NDArray x = NDArray::random({2, 3}, float32(), 4);
  std::vector<NDArray> out = m.run(std::vector<NDArray>{x});
  ASSERT_EQ(out.size(), 2u);
  for (int64_t i = 0; i < x.size(); i++) {
    EXPECT_EQ(out[0].get(i), x.get(i)) << i;
    EXPECT_EQ(out[1].get(i), 1) << "mask " << i;
  }
}

TEST(ImportErrors, UndefinedValueAndCycle) {
  ModelBuilder b;
  b.input("x", {1, 4});
  b.node("Add", {"x", "nowhere"}, {"y"}, "add0");
  b.output("y");
  std::string msg = expect_throw<ImportError>([&] { relay::import_onnx_bytes(b.bytes(), "m.onnx"); });
  EXPECT_NE(msg.find("nowhere"), std::string::npos) << msg;

  ModelBuilder c;
  c.input("x", {1, 4});
  c.node("Add", {"x", "b"}, {"a"}, "n_a");
  c.node("Relu", {"a"}, {"b"}, "n_b");
  c.output("b");
  msg = expect_throw<ImportError>([&] { relay::import_onnx_bytes(c.bytes(), "cyc.onnx"); });
  EXPECT_NE(msg.find("cycle"), std::string::npos) << msg;
}

TEST(ImportErrors, InputShapes) {
  ModelBuilder b;
  b.input("x", {1, 4}, /*dynamic0=*/true);
  b.node("Relu", {"x"}, {"y"});
  b.output("y");
  // dynamic dim without a shape
  std::string msg = expect_throw<ShapeError>([&] { relay::import_onnx_bytes(b.bytes(), "m.onnx"); });
  EXPECT_NE(msg.find("'x'"), std::string::npos) << msg;
  ImportOptions o;
  o.input_shapes = relay::parse_input_shapes("x=1,5");  // contradicts the fixed dim 4
  EXPECT_THROW(relay::import_onnx_bytes(b.bytes(), "m.onnx", o), ShapeError);
  o.input_shapes = relay::parse_input_shapes("x=1,4,1");  // wrong rank
  EXPECT_THROW(relay::import_onnx_bytes(b.bytes(), "m.onnx", o), ShapeError);
  o.input_shapes = relay::parse_input_shapes("z=1,4");  // unknown input
  EXPECT_THROW(relay::import_onnx_bytes(b.bytes(), "m.onnx", o), ShapeError);
  EXPECT_THROW(relay::parse_input_shapes("x=1,a"), ShapeError);
  EXPECT_THROW(relay::parse_input_shapes("x=1,-3"), ShapeError);
  o.input_shapes = relay::parse_input_shapes("x=2,4");
  relay::CompiledModel m = relay::compile_model(relay::import_onnx_bytes(b.bytes(), "m.onnx", o));
  NDArray x = NDArray::random({2, 4}, float32(), 3);
  auto y = m.run({x});
  for (int i = 0; i < 8; i++) EXPECT_EQ(y[0].get(i), std::max(0.0, x.get(i)));
  // run-time: wrong shape, wrong count, missing / unknown named input
  EXPECT_THROW(m.run({NDArray({3, 4}, float32())}), ShapeError);
  EXPECT_THROW(m.run(std::vector<NDArray>{}), ShapeError);
  EXPECT_THROW(m.run(std::map<std::string, NDArray>{}), ShapeError);
  EXPECT_THROW(m.run(std::map<std::string, NDArray>{{"x", x}, {"q", x}}), ShapeError);
}

TEST(ImportErrors, BadOperatorAttributes) {
  ModelBuilder b;
  b.input("x", {1, 2, 3});
  auto *n = b.node("Transpose", {"x"}, {"y"}, "tr");
  auto *a = n->add_attribute();
  a->set_name("perm");
  a->set_type(onnx::AttributeProto::INTS);
  a->add_ints(0);
  a->add_ints(0);
  a->add_ints(1);
  b.output("y");
  std::string msg = expect_throw<AttributeError>([&] { relay::import_onnx_bytes(b.bytes(), "m.onnx"); });
  EXPECT_NE(msg.find("tr"), std::string::npos) << msg;
  // Reshape with a non-constant shape
  ModelBuilder r;
  r.input("x", {2, 3});
  r.input("s", {2});
  r.node("Reshape", {"x", "s"}, {"y"}, "rs");
  r.output("y");
  msg = expect_throw<ImportError>([&] { relay::import_onnx_bytes(r.bytes(), "m.onnx"); });
  EXPECT_NE(msg.find("constant"), std::string::npos) << msg;
}

// Conv + BN + Relu + residual Add, two identical blocks; a shape subgraph feeding a Reshape.
ModelBuilder conv_model() {
  ModelBuilder b(13);
  b.input("x", {1, 2, 5, 5});
  std::vector<float> w(2 * 2 * 3 * 3);
  for (size_t i = 0; i < w.size(); i++) w[i] = 0.05f * static_cast<float>(static_cast<int>(i % 7) - 3);
  b.init("w", {2, 2, 3, 3}, w);
  b.init("bias", {2}, {0.1f, -0.2f});
  b.init("sc", {2}, {1.5f, 0.5f});
  b.init("be", {2}, {0.2f, 0.3f});
  b.init("mu", {2}, {0.05f, -0.1f});
  b.init("va", {2}, {0.9f, 1.2f});
  std::string cur = "x";
  for (int k = 0; k < 2; k++) {
    std::string s = std::to_string(k);
    auto *c = b.node("Conv", {cur, "w", "bias"}, {"c" + s}, "conv" + s);
    auto *pa = c->add_attribute();
    pa->set_name("pads");
    pa->set_type(onnx::AttributeProto::INTS);
    for (int i = 0; i < 4; i++) pa->add_ints(1);
    b.node("BatchNormalization", {"c" + s, "sc", "be", "mu", "va"}, {"bn" + s}, "bn" + s);
    b.node("Relu", {"bn" + s}, {"r" + s}, "relu" + s);
    b.node("Add", {"r" + s, cur}, {"a" + s}, "add" + s);
    cur = "a" + s;
  }
  // a data-movement op (own group), a duplicate subexpression (CSE) and a shape subgraph
  auto *tr = b.node("Transpose", {cur}, {"t"}, "transpose");
  auto *perm = tr->add_attribute();
  perm->set_name("perm");
  perm->set_type(onnx::AttributeProto::INTS);
  for (int i : {0, 1, 3, 2}) perm->add_ints(i);
  b.node("Sigmoid", {"t"}, {"s1"}, "sig1");
  b.node("Sigmoid", {"t"}, {"s2"}, "sig2");
  b.node("Mul", {"s1", "s2"}, {"m"}, "mul");
  b.node("Shape", {"m"}, {"shp"}, "shape");
  b.node("ReduceProd", {"shp"}, {"numel"}, "prod");
  auto *u = b.node("Unsqueeze", {"numel"}, {"numel1"}, "unsq");
  (void)u;
  b.init("axes0", {}, {});
  b.g()->mutable_initializer(b.g()->initializer_size() - 1)->set_data_type(onnx::TensorProto::INT64);
  b.g()->mutable_initializer(b.g()->initializer_size() - 1)->add_dims(1);
  b.g()->mutable_initializer(b.g()->initializer_size() - 1)->add_int64_data(0);
  b.g()->mutable_node(b.g()->node_size() - 1)->add_input("axes0");
  b.node("Reshape", {"m", "numel1"}, {"flat"}, "reshape");
  b.node("Softmax", {"flat"}, {"y"}, "softmax");
  b.output("y");
  return b;
}

TEST(Passes, FoldingFusionKeysMemoryAndSerialisation) {
  std::string bytes = conv_model().bytes();
  Graph g = relay::import_onnx_bytes(bytes, "conv.onnx");
  // the shape subgraph is folded: Reshape's shape input is a constant
  for (auto &n : g.nodes) {
    EXPECT_NE(n.op, "Shape");
    if (n.op == "Reshape") EXPECT_TRUE(g.values[n.inputs[1]].is_const());
  }
  Graph ref_graph = g;
  relay::CompileOptions plain;
  plain.fold_batch_norm = false;
  plain.cse = false;
  plain.fusion.fuse = false;
  plain.plain_default_schedule = true;
  relay::CompiledModel ref = relay::compile_model(ref_graph, plain);
  relay::CompiledModel m = relay::compile_model(g);
  EXPECT_EQ(m.stats().folded_batch_norms, 2);
  EXPECT_EQ(m.stats().cse_removed, 1);
  // conv(+bias)+relu+add fused: each block is one group, both share one workload key
  int conv_groups = 0;
  std::string key;
  for (auto &grp : m.groups()) {
    bool has_conv = false;
    for (int n : grp.nodes) has_conv |= m.graph().nodes[n].op == "Conv";
    if (!has_conv) continue;
    conv_groups++;
    EXPECT_EQ(grp.nodes.size(), 3u) << grp.name;
    if (key.empty()) key = grp.task.workload_key;
    else EXPECT_EQ(key, grp.task.workload_key);
  }
  EXPECT_EQ(conv_groups, 2);
  EXPECT_EQ(m.stats().kernels_built + 1, m.stats().kernel_groups);
  EXPECT_LE(m.memory_plan().peak_bytes, m.memory_plan().no_reuse_bytes);
  EXPECT_GE(m.memory_plan().peak_bytes, m.memory_plan().max_live_bytes);
  NDArray x = NDArray::random({1, 2, 5, 5}, float32(), 5);
  auto y = m.run({x});
  auto y0 = ref.run({x});
  std::string where;
  EXPECT_TRUE(all_close(y[0], y0[0], 1e-4, 1e-6, &where)) << where;
  EXPECT_NE(m.to_dot().find("digraph"), std::string::npos);
  // the schedule hook is used, once per task, and its source counted per group and per task
  relay::CompileOptions hooked;
  int calls = 0;
  hooked.schedule_for = [&](const tetune::Task &t) {
    calls++;
    return ScheduleChoice{Schedule(t.outputs), ScheduleSource::Record, "test hook"};
  };
  relay::CompiledModel h = relay::compile_model(relay::import_onnx_bytes(bytes, "conv.onnx"), hooked);
  EXPECT_EQ(calls, h.stats().kernels_built);
  EXPECT_EQ(h.stats().group_sources.record, h.stats().kernel_groups);
  EXPECT_EQ(h.stats().task_sources.record, h.stats().kernels_built);
  EXPECT_EQ(m.stats().group_sources.analytical, m.stats().kernel_groups);
  EXPECT_TRUE(all_close(h.run({x})[0], y0[0], 1e-4, 1e-6));
  // serialisation round trip
  std::string p = testing::tmp_dir() + "/g.tegraph";
  m.graph().save(p);
  Graph back = Graph::load(p);
  EXPECT_EQ(back.nodes.size(), m.graph().nodes.size());
  relay::CompiledModel mb = relay::compile_model(back);
  EXPECT_TRUE(all_close(mb.run({x})[0], y[0], 0, 0));
  std::ofstream(p, std::ios::binary) << "TEGRAPH1garbage";
  EXPECT_THROW(Graph::load(p), ParseError);
}

// Issue 21, item 4: a constant Gather index outside [-n, n) is an ImportError naming the node (the
// kernel clamps, so it used to read the last row silently); in-range negative indices count from the end.
TEST(ImportErrors, GatherConstantIndexOutOfRange) {
  auto model = [](const std::vector<int64_t> &indices) {
    ModelBuilder b;
    b.input("x", {3, 4});
    auto *t = b.g()->add_initializer();
    t->set_name("idx");
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<int64_t>(indices.size()));
    for (int64_t v : indices) t->add_int64_data(v);
    attr_i(b.node("Gather", {"x", "idx"}, {"y"}, "gather7"), "axis", 0);
    b.output("y");
    return b.bytes();
  };
  for (int64_t bad : {3, -4, 100}) {
    SCOPED_TRACE(bad);
    std::string msg = expect_throw<ImportError>([&] { relay::import_onnx_bytes(model({0, bad}), "g.onnx"); });
    EXPECT_NE(msg.find("gather7"), std::string::npos) << msg;
    EXPECT_NE(msg.find("index " + std::to_string(bad)), std::string::npos) << msg;
    EXPECT_NE(msg.find("[-3, 2]"), std::string::npos) << msg;
  }
  relay::CompiledModel m = relay::compile_model(relay::import_onnx_bytes(model({-1, 0, -3, 2}), "g.onnx"));
  NDArray x = NDArray::random({3, 4}, float32(), 5);
  NDArray y = m.run({x})[0];
  ASSERT_EQ(y.shape(), (Shape{4, 4}));
  const int rows[] = {2, 0, 0, 2};
  for (int r = 0; r < 4; r++)
    for (int j = 0; j < 4; j++) EXPECT_EQ(y.get(r * 4 + j), x.get(rows[r] * 4 + j)) << "row " << r;
}

// Issue 21, item 7: a model path that is a directory, missing, or not an ONNX file gets one sentence
// naming the path (a directory used to be reported as "is empty").
TEST(ImportErrors, ModelPathNotAFile) {
  std::string dir = testing::tmp_dir() + "/model_dir.onnx";
  std::filesystem::create_directories(dir);
  std::string msg = expect_throw<ImportError>([&] { relay::import_onnx(dir); });
  EXPECT_EQ(msg, "model '" + dir + "' is a directory, not an ONNX file");

  std::string missing = testing::tmp_dir() + "/no_such_model.onnx";
  msg = expect_throw<ImportError>([&] { relay::import_onnx(missing); });
  EXPECT_EQ(msg, "model file '" + missing + "' does not exist");

  std::string text = write("notes.onnx", "these are not the bytes of an ONNX model\n");
  msg = expect_throw<ImportError>([&] { relay::import_onnx(text); });
  EXPECT_EQ(msg.find("model file '" + text + "' "), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

}  // namespace
}  // namespace tetune
