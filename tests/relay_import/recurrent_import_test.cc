// Recurrent ops and control flow through the whole importer: hand-built ONNX
// models are imported (RNN / LSTM / GRU unrolled, If / Loop bodies inlined),
// compiled and run, and compared with plain reference loops written from the
// ONNX equations. Also checks that the unrolled steps share workload keys.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <chrono>
#include <cmath>
#include <random>

#include "tests/relay_import/onnx_builder.h"
#include "base/errors.h"
#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"

namespace tetune {
namespace {

using testing::set_type;
using testing::add_node;
using testing::attr_i;

using V = std::vector<float>;

V random_vec(size_t n, uint32_t seed, float scale = 0.3f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-scale, scale);
  V v(n);
  for (auto &x : v) x = u(rng);
  return v;
}


void add_init(onnx::GraphProto *g, const std::string &name, const std::vector<int64_t> &dims, const V &v) {
  auto *t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t->add_dims(d);
  for (float x : v) t->add_float_data(x);
}


void attr_s(onnx::NodeProto *n, const std::string &k, const std::string &v) {
  auto *a = n->add_attribute();
  a->set_name(k);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}
onnx::GraphProto *attr_g(onnx::NodeProto *n, const std::string &k) {
  auto *a = n->add_attribute();
  a->set_name(k);
  a->set_type(onnx::AttributeProto::GRAPH);
  return a->mutable_g();
}

onnx::ModelProto model(int opset) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto *o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  return m;
}

relay::CompiledModel compile(const onnx::ModelProto &m) {
  return relay::compile_model(relay::import_onnx_bytes(m.SerializeAsString(), "test", relay::ImportOptions()));
}

double sig(double x) { return 1 / (1 + std::exp(-x)); }

// One LSTM layer, forward, default activations, layout 0: x [T, N, I], w [4H, I], r [4H, H], b [8H].
V lstm_ref(const V &x, const V &w, const V &r, const V &b, int64_t T, int64_t N, int64_t I, int64_t H) {
  V y(T * N * H);
  std::vector<double> h(N * H, 0), c(N * H, 0);
  for (int64_t t = 0; t < T; t++) {
    std::vector<double> hn(N * H);
    for (int64_t n = 0; n < N; n++)
      for (int64_t j = 0; j < H; j++) {
        double g[4];
        for (int k = 0; k < 4; k++) {
          int64_t row = k * H + j;
          double s = b[row] + b[4 * H + row];
          for (int64_t q = 0; q < I; q++) s += x[(t * N + n) * I + q] * double(w[row * I + q]);
          for (int64_t q = 0; q < H; q++) s += h[n * H + q] * r[row * H + q];
          g[k] = s;
        }
        double ct = sig(g[2]) * c[n * H + j] + sig(g[0]) * std::tanh(g[3]);
        c[n * H + j] = ct;
        hn[n * H + j] = sig(g[1]) * std::tanh(ct);
      }
    h = hn;
    for (int64_t k = 0; k < N * H; k++) y[t * N * H + k] = static_cast<float>(h[k]);
  }
  return y;
}

void expect_near_vec(const NDArray &got, const V &want, double tol) {
  ASSERT_EQ(got.size(), static_cast<int64_t>(want.size()));
  for (int64_t k = 0; k < got.size(); k++) ASSERT_NEAR(got.get(k), want[k], tol) << "element " << k;
}

// The zoo's recurrent model: a 2-layer LSTM over 100 steps of 80 features, hidden 256.
TEST(RecurrentImport, TwoLayerLstmSharesOneCellKernel) {
  const int64_t T = 100, N = 1, I = 80, H = 256;
  auto m = model(13);
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "x", onnx::TensorProto::FLOAT, {T, N, I});
  V w1 = random_vec(4 * H * I, 1, 0.1f), r1 = random_vec(4 * H * H, 2, 0.06f), b1 = random_vec(8 * H, 3);
  V w2 = random_vec(4 * H * H, 4, 0.06f), r2 = random_vec(4 * H * H, 5, 0.06f), b2 = random_vec(8 * H, 6);
  add_init(g, "w1", {1, 4 * H, I}, w1);
  add_init(g, "r1", {1, 4 * H, H}, r1);
  add_init(g, "b1", {1, 8 * H}, b1);
  add_init(g, "w2", {1, 4 * H, H}, w2);
  add_init(g, "r2", {1, 4 * H, H}, r2);
  add_init(g, "b2", {1, 8 * H}, b2);
  auto *shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(3);
  for (int64_t d : {T, N, H}) shape->add_int64_data(d);
  attr_i(add_node(g, "LSTM", {"x", "w1", "r1", "b1"}, {"y1"}), "hidden_size", H);
  add_node(g, "Reshape", {"y1", "shape"}, {"x2"});
  attr_i(add_node(g, "LSTM", {"x2", "w2", "r2", "b2"}, {"y2"}), "hidden_size", H);
  set_type(g->add_output(), "y2", onnx::TensorProto::FLOAT, {T, 1, N, H});

  auto t0 = std::chrono::steady_clock::now();
  relay::CompiledModel cm = compile(m);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto &st = cm.stats();
  // 200 cells, 200 step slices: one kernel each (both layers have batch 1, hidden 256).
  EXPECT_GE(st.kernel_groups, 400);
  EXPECT_LE(st.unique_workloads, 8) << cm.summary();
  std::printf("2-layer LSTM T=%lld: %d kernel groups, %d unique workloads, %d kernels built, compile %.1f s\n",
              static_cast<long long>(T), st.kernel_groups, st.unique_workloads, st.kernels_built, secs);

  NDArray x({T, N, I}, float32());
  V xv = random_vec(T * N * I, 7, 1.0f);
  for (int64_t k = 0; k < x.size(); k++) x.set(k, xv[k]);
  auto out = cm.run(std::vector<NDArray>{x});
  V y1 = lstm_ref(xv, w1, r1, b1, T, N, I, H);
  V y2 = lstm_ref(y1, w2, r2, b2, T, N, H, H);
  expect_near_vec(out.at(0), y2, 2e-4);
}

// GRU: bidirectional, batch-first layout (opset 14), linear_before_reset, initial_h.
TEST(RecurrentImport, BidirectionalBatchFirstGru) {
  const int64_t T = 4, N = 2, I = 3, H = 5, D = 2;
  auto m = model(14);
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "x", onnx::TensorProto::FLOAT, {N, T, I});
  V w = random_vec(D * 3 * H * I, 11, 0.5f), r = random_vec(D * 3 * H * H, 12, 0.5f), b = random_vec(D * 6 * H, 13, 0.5f);
  V h0 = random_vec(N * D * H, 14, 0.5f);
  add_init(g, "w", {D, 3 * H, I}, w);
  add_init(g, "r", {D, 3 * H, H}, r);
  add_init(g, "b", {D, 6 * H}, b);
  add_init(g, "h0", {N, D, H}, h0);
  auto *n = add_node(g, "GRU", {"x", "w", "r", "b", "", "h0"}, {"y", "yh"});
  attr_i(n, "hidden_size", H);
  attr_i(n, "layout", 1);
  attr_i(n, "linear_before_reset", 1);
  attr_s(n, "direction", "bidirectional");
  set_type(g->add_output(), "y", onnx::TensorProto::FLOAT, {N, T, D, H});
  set_type(g->add_output(), "yh", onnx::TensorProto::FLOAT, {N, D, H});
  relay::CompiledModel cm = compile(m);
  NDArray x({N, T, I}, float32());
  V xv = random_vec(N * T * I, 15, 1.0f);
  for (int64_t k = 0; k < x.size(); k++) x.set(k, xv[k]);
  auto out = cm.run(std::vector<NDArray>{x});

  V y(N * T * D * H), yh(N * D * H);
  for (int64_t d = 0; d < D; d++)
    for (int64_t n_ = 0; n_ < N; n_++) {
      std::vector<double> h(H);
      for (int64_t j = 0; j < H; j++) h[j] = h0[(n_ * D + d) * H + j];
      for (int64_t s = 0; s < T; s++) {
        int64_t t = d == 0 ? s : T - 1 - s;
        auto wx = [&](int64_t row) {  // W x + Wb
          double v = b[d * 6 * H + row];
          for (int64_t q = 0; q < I; q++) v += w[(d * 3 * H + row) * I + q] * double(xv[(n_ * T + t) * I + q]);
          return v;
        };
        auto rh = [&](int64_t row) {  // R h + Rb
          double v = b[d * 6 * H + 3 * H + row];
          for (int64_t q = 0; q < H; q++) v += r[(d * 3 * H + row) * H + q] * h[q];
          return v;
        };
        std::vector<double> hn(H);
        for (int64_t j = 0; j < H; j++) {
          double z = sig(wx(j) + rh(j)), rr = sig(wx(H + j) + rh(H + j));
          double cand = std::tanh(wx(2 * H + j) + rr * rh(2 * H + j));
          hn[j] = (1 - z) * cand + z * h[j];
        }
        h = hn;
        for (int64_t j = 0; j < H; j++) y[((n_ * T + t) * D + d) * H + j] = static_cast<float>(h[j]);
      }
      for (int64_t j = 0; j < H; j++) yh[(n_ * D + d) * H + j] = static_cast<float>(h[j]);
    }
  expect_near_vec(out.at(0), y, 1e-4);
  expect_near_vec(out.at(1), yh, 1e-4);
}

// Loop with a constant trip count whose body reads an outer value, and an If on a run-time condition.
TEST(ControlFlowImport, UnrolledLoopAndRuntimeIf) {
  auto m = model(13);
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "x", onnx::TensorProto::FLOAT, {3});
  set_type(g->add_input(), "c", onnx::TensorProto::BOOL, {});
  auto *trip = g->add_initializer();
  trip->set_name("M");
  trip->set_data_type(onnx::TensorProto::INT64);
  trip->add_int64_data(4);
  add_init(g, "y0", {3}, {1, 2, 3});
  auto *loop = add_node(g, "Loop", {"M", "", "y0"}, {"y", "ys"});
  auto *body = attr_g(loop, "body");
  set_type(body->add_input(), "i", onnx::TensorProto::INT64, {});
  set_type(body->add_input(), "cin", onnx::TensorProto::BOOL, {});
  set_type(body->add_input(), "yin", onnx::TensorProto::FLOAT, {3});
  add_node(body, "Identity", {"cin"}, {"cout"});
  add_node(body, "Mul", {"yin", "x"}, {"yout"});  // x: the outer graph's input
  attr_i(add_node(body, "Cast", {"i"}, {"fi"}), "to", onnx::TensorProto::FLOAT);
  add_node(body, "Add", {"yout", "fi"}, {"scan"});
  for (const char *o : {"cout", "yout", "scan"}) body->add_output()->set_name(o);

  auto *iff = add_node(g, "If", {"c"}, {"z"});
  onnx::GraphProto *then_b = attr_g(iff, "then_branch"), *else_b = attr_g(iff, "else_branch");
  add_node(then_b, "Add", {"y", "x"}, {"t"});  // y: the Loop's output, read from the enclosing graph
  then_b->add_output()->set_name("t");
  add_node(else_b, "Sub", {"y", "x"}, {"e"});
  else_b->add_output()->set_name("e");
  set_type(g->add_output(), "ys", onnx::TensorProto::FLOAT, {4, 3});
  set_type(g->add_output(), "z", onnx::TensorProto::FLOAT, {3});
  relay::CompiledModel cm = compile(m);

  V xv = {0.5f, -2.0f, 1.5f};
  for (bool cond : {true, false}) {
    SCOPED_TRACE(cond ? "then" : "else");
    NDArray x({3}, float32()), c(Shape{}, boolean());
    for (int k = 0; k < 3; k++) x.set(k, xv[k]);
    c.set(0, cond);
    auto out = cm.run(std::vector<NDArray>{x, c});
    V y = {1, 2, 3}, ys;
    for (int i = 0; i < 4; i++) {
      for (int k = 0; k < 3; k++) y[k] *= xv[k];
      for (int k = 0; k < 3; k++) ys.push_back(y[k] + i);
    }
    V z;
    for (int k = 0; k < 3; k++) z.push_back(cond ? y[k] + xv[k] : y[k] - xv[k]);
    expect_near_vec(out.at(0), ys, 1e-5);
    expect_near_vec(out.at(1), z, 1e-5);
  }
}

TEST(ControlFlowImport, DataDependentTripCountIsUnsupported) {
  auto m = model(13);
  auto *g = m.mutable_graph();
  set_type(g->add_input(), "M", onnx::TensorProto::INT64, {});
  add_init(g, "y0", {1}, {1});
  auto *loop = add_node(g, "Loop", {"M", "", "y0"}, {"y"});
  auto *body = attr_g(loop, "body");
  set_type(body->add_input(), "i", onnx::TensorProto::INT64, {});
  set_type(body->add_input(), "cin", onnx::TensorProto::BOOL, {});
  set_type(body->add_input(), "yin", onnx::TensorProto::FLOAT, {1});
  add_node(body, "Identity", {"cin"}, {"cout"});
  add_node(body, "Identity", {"yin"}, {"yout"});
  for (const char *o : {"cout", "yout"}) body->add_output()->set_name(o);
  set_type(g->add_output(), "y", onnx::TensorProto::FLOAT, {1});
  try {
    relay::import_onnx_bytes(m.SerializeAsString(), "test", relay::ImportOptions());
    FAIL() << "expected an ImportError";
  } catch (const ImportError &e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("unsupported"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Loop node"), std::string::npos) << msg;
    EXPECT_NE(msg.find("trip count"), std::string::npos) << msg;
  }
}

}  // namespace
}  // namespace tetune
