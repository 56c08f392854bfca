// Layer-norm fusion (relay_import/passes/layer_norm_fusion.h): the subgraph
// torch.onnx.export writes for nn.LayerNorm becomes one LayerNormalization
// node exactly when it matches, and the compiled model computes the same
// values as plain loops, NaN rows included.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>

#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/passes/layer_norm_fusion.h"
#include "tests/relay_import/onnx_builder.h"

using namespace tetune;
using namespace tetune::testing;

namespace {

constexpr int64_t B = 2, T = 5, D = 12;
constexpr float kEpsilon = 1e-5f;

struct LnCase {
  std::string what;
  std::vector<int64_t> axes = {-1};
  std::vector<int64_t> scale_dims = {D};  // {} = no Mul
  bool bias = true;
  float exponent = 2;
  bool centred_is_output = false;  // Sub's output also a graph output
  int opset = 13;                  // 18: ReduceMean takes its axes as an input
  int fused = 1;
};

int64_t count(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// X [B, T, D] -> Y = LayerNorm over `axes`, written out as an exporter does.
std::string ln_model(const LnCase &c) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(c.opset);
  auto *g = m.mutable_graph();
  g->set_name("ln");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {B, T, D});
  add_initializer(g, "two", {}, {c.exponent});
  add_initializer(g, "eps", {}, {kEpsilon});
  auto mean = [&](const std::string &in, const std::string &out) {
    if (c.opset < 18) {
      attr_ints(add_node(g, "ReduceMean", {in}, {out}), "axes", c.axes);
      return;
    }
    if (!g->initializer_size() || g->initializer(g->initializer_size() - 1).name() != "axes") {
      auto *t = g->add_initializer();
      t->set_name("axes");
      t->set_data_type(onnx::TensorProto::INT64);
      t->add_dims(static_cast<int64_t>(c.axes.size()));
      for (int64_t a : c.axes) t->add_int64_data(a);
    }
    add_node(g, "ReduceMean", {in, "axes"}, {out});
  };
  mean("X", "mean");
  add_node(g, "Sub", {"X", "mean"}, {"d"});
  add_node(g, "Pow", {"d", "two"}, {"sq"});
  mean("sq", "var");
  add_node(g, "Add", {"var", "eps"}, {"ve"});
  add_node(g, "Sqrt", {"ve"}, {"std"});
  add_node(g, "Div", {"d", "std"}, {"n"});
  std::string y = "n";
  if (!c.scale_dims.empty()) {
    add_initializer(g, "gamma", c.scale_dims, wave(static_cast<size_t>(count(c.scale_dims)), 0.7f, 1.5f));
    add_node(g, "Mul", {"gamma", y}, {"ns"});  // the scale first: either order matches
    y = "ns";
  }
  if (c.bias) {
    add_initializer(g, "beta", {D}, wave(D, 0.3f));
    add_node(g, "Add", {y, "beta"}, {"Y"});
  } else {
    add_node(g, "Identity", {y}, {"Y"});
  }
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {B, T, D});
  if (c.centred_is_output) set_type(g->add_output(), "d", onnx::TensorProto::FLOAT, {B, T, D});
  return m.SerializeAsString();
}

// The case's Y by plain loops in double: each element's statistics over the elements that share its
// coordinates on the axes not reduced.
std::vector<double> reference(const NDArray &x, const LnCase &c) {
  const int64_t dims[3] = {B, T, D};
  bool reduced[3] = {false, false, false};
  for (int64_t a : c.axes) reduced[a < 0 ? a + 3 : a] = true;
  auto key = [&](int64_t e) {  // the element's coordinates on the kept axes, as one number
    const int64_t at[3] = {e / (T * D), e / D % T, e % D};
    int64_t k = 0;
    for (int i = 0; i < 3; i++) k = k * dims[i] + (reduced[i] ? 0 : at[i]);
    return k;
  };
  const int64_t n = B * T * D;
  std::vector<double> sum(static_cast<size_t>(n), 0), dev(static_cast<size_t>(n), 0), count_of(static_cast<size_t>(n), 0);
  for (int64_t e = 0; e < n; e++) sum[key(e)] += x.get(e), count_of[key(e)] += 1;
  for (int64_t e = 0; e < n; e++) dev[key(e)] += std::pow(x.get(e) - sum[key(e)] / count_of[key(e)], c.exponent);
  const std::vector<float> gamma = wave(static_cast<size_t>(count(c.scale_dims)), 0.7f, 1.5f), beta = wave(D, 0.3f);
  std::vector<double> y(static_cast<size_t>(n));
  for (int64_t e = 0; e < n; e++) {
    const double k = count_of[key(e)];
    double v = (x.get(e) - sum[key(e)] / k) / std::sqrt(dev[key(e)] / k + kEpsilon);
    if (!c.scale_dims.empty()) v *= gamma[static_cast<size_t>(e % count(c.scale_dims))];  // over its trailing dims
    if (c.bias) v += beta[static_cast<size_t>(e % D)];
    y[static_cast<size_t>(e)] = v;
  }
  return y;
}

int nodes_of(const relay::Graph &g, const std::string &op) {
  int n = 0;
  for (const auto &node : g.nodes) n += !node.dead && node.op == op;
  return n;
}

}  // namespace

TEST(LayerNormFusion, FusesExactlyTheMatchingSubgraphsAndKeepsTheValues) {
  const std::vector<LnCase> cases = {
      {"last axis, scale and bias"},
      {"last two axes, a [T, D] scale", {1, 2}, {T, D}},
      {"no scale, no bias", {-1}, {}, false},
      {"scale with leading 1s", {-1}, {1, 1, D}},
      {"opset 18, axes as an input", {-1}, {D}, true, 2, false, 18},
      {"centred value also a graph output", {-1}, {D}, true, 2, true, 13, 0},
      {"axes not trailing", {1}, {D}, true, 2, false, 13, 0},
      {"exponent 3", {-1}, {D}, true, 3, false, 13, 0},
  };
  for (const LnCase &c : cases) {
    SCOPED_TRACE(c.what);
    relay::Graph g = relay::import_onnx_bytes(ln_model(c), "ln.onnx", relay::ImportOptions());
    relay::CompileOptions co;
    relay::CompileStats st;
    relay::run_graph_passes(g, co, &st);
    EXPECT_EQ(st.fused_layer_norms, c.fused);
    EXPECT_EQ(nodes_of(g, "LayerNormalization"), c.fused);
    EXPECT_EQ(nodes_of(g, "ReduceMean"), 2 * (1 - c.fused)) << "the written-out statistics are gone exactly when fused";
    EXPECT_EQ(relay::fuse_layer_norms(g), 0) << "a second run finds nothing left to do";

    NDArray x = NDArray::random({B, T, D}, float32(), 11, -3, 3);
    x.set(7, std::nan(""));  // row 0 (and, over two axes, all of batch 0) becomes NaN, as IEEE and ONNX have it
    for (bool fuse : {true, false}) {
      relay::CompileOptions o;
      o.fuse_layer_norm = fuse;
      relay::CompiledModel m = relay::compile_model(relay::import_onnx_bytes(ln_model(c), "ln.onnx", relay::ImportOptions()), o);
      std::vector<NDArray> out = m.run(std::vector<NDArray>{x});
      ASSERT_FALSE(out.empty());
      const std::vector<double> ref = reference(x, c);
      for (size_t i = 0; i < ref.size(); i++) {
        const double got = out[0].get(static_cast<int64_t>(i));
        if (std::isnan(ref[i])) ASSERT_TRUE(std::isnan(got)) << (fuse ? "fused" : "written out") << ", element " << i;
        else ASSERT_NEAR(got, ref[i], 1e-4 + 1e-4 * std::abs(ref[i])) << (fuse ? "fused" : "written out") << ", element " << i;
      }
    }
  }
}
