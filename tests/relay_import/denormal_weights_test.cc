// Subnormal weights flushed to zero (relay_import/passes/denormal_weights.h):
// exactly the subnormal elements become zeros of their sign, every other
// value (normal, zero, infinity, NaN) keeps its bits, data shared with the
// caller is not changed, and the compiled model equals the unflushed one.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "relay_import/executor.h"
#include "relay_import/onnx_importer.h"
#include "relay_import/passes/denormal_weights.h"
#include "tests/relay_import/onnx_builder.h"

using namespace tetune;
using namespace tetune::testing;

namespace {

constexpr int M = 3, K = 8, N = 5;
const float kTiny = std::numeric_limits<float>::denorm_min();

// Y = X W, W [K, N] a constant with a subnormal every third element (both signs).
std::string matmul_model(std::vector<float> &w) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto *g = m.mutable_graph();
  g->set_name("matmul");
  set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {M, K});
  w.resize(K * N);
  for (int i = 0; i < K * N; i++) w[i] = i % 3 == 0 ? (i % 2 ? -1 : 1) * kTiny * float(1 + 1000 * i) : std::cos(0.7f * i);
  add_initializer(g, "W", {K, N}, w);
  add_node(g, "MatMul", {"X", "W"}, {"Y"});
  set_type(g->add_output(), "Y", onnx::TensorProto::FLOAT, {M, N});
  return m.SerializeAsString();
}

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

}  // namespace

TEST(DenormalWeights, FlushesExactlyTheSubnormalsWithTheirSign) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> vals = {kTiny, -kTiny, std::numeric_limits<float>::min(), -0.0f, 0.0f, nan, -inf,
                                   1e-38f /* subnormal */, -3e-39f, 1.5f};
  relay::Graph g;
  NDArray a(Shape{static_cast<int64_t>(vals.size())}, float32());
  for (size_t i = 0; i < vals.size(); i++) a.data<float>()[i] = vals[i];
  const int id = g.add_const("w", a);
  const std::shared_ptr<NDArray> before = g.values[id].data;

  EXPECT_EQ(relay::flush_subnormal_constants(g), 4);
  const float *out = g.values[id].data->data<float>();
  for (size_t i = 0; i < vals.size(); i++) {
    if (std::fpclassify(vals[i]) == FP_SUBNORMAL) {
      EXPECT_EQ(out[i], 0.0f) << i;
      EXPECT_EQ(std::signbit(out[i]), std::signbit(vals[i])) << i;
    } else {
      EXPECT_EQ(bits(out[i]), bits(vals[i])) << "element " << i << " is not subnormal and keeps its bits";
    }
  }
  EXPECT_EQ(before->data<float>()[0], kTiny) << "the constant was copied, not changed in place";
  EXPECT_EQ(relay::flush_subnormal_constants(g), 0) << "nothing left on a second run";
}

TEST(DenormalWeights, CompiledModelEqualsTheUnflushedOne) {
  std::vector<float> w;
  const std::string bytes = matmul_model(w);
  relay::CompileOptions keep;
  keep.flush_subnormal_weights = false;
  relay::CompiledModel flushed = relay::compile_model(relay::import_onnx_bytes(bytes, "m.onnx", relay::ImportOptions()));
  relay::CompiledModel kept = relay::compile_model(relay::import_onnx_bytes(bytes, "m.onnx", relay::ImportOptions()), keep);
  EXPECT_EQ(flushed.stats().flushed_subnormals, (K * N + 2) / 3);
  EXPECT_EQ(kept.stats().flushed_subnormals, 0);

  NDArray x = NDArray::random({M, K}, float32(), 5);
  const NDArray yf = flushed.run(std::vector<NDArray>{x})[0], yk = kept.run(std::vector<NDArray>{x})[0];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double dot = 0;
      for (int k = 0; k < K; k++) dot += double(x.get(i * K + k)) * w[k * N + j];
      EXPECT_NEAR(yf.get(i * N + j), dot, 1e-5) << i << "," << j;
      EXPECT_NEAR(yf.get(i * N + j), yk.get(i * N + j), 1e-30) << "flushing moves a result by less than FLT_MIN";
    }
}
