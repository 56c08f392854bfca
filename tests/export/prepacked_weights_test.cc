// Constant weights packed once at compile time (relay_import/packed_weights.h):
// two MatMuls of one shape share a kernel whose schedule packs the weight at
// root in panels; each group gets its own packed weight, the unpacked ones are
// dropped, and the JIT model and the exported one compute what the same
// schedules compute when each kernel packs on every call (prepack_weights off).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdlib>
#include <random>

#include "codegen/prepack.h"
#include "relay_import/executor.h"
#include "relay_import/export/export.h"
#include "relay_import/onnx_importer.h"
#include "runtime/model.h"
#include "tests/relay_import/onnx_builder.h"

namespace tetune {
namespace {

std::vector<float> seeded(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (auto &x : v) x = u(rng);
  return v;
}

// Y1 = X W1, Y2 = X W2 with X [8, 32] and constant W1, W2 [32, 48].
std::string two_matmuls() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto *g = m.mutable_graph();
  testing::set_type(g->add_input(), "X", onnx::TensorProto::FLOAT, {8, 32});
  testing::add_initializer(g, "W1", {32, 48}, seeded(32 * 48, 1));
  testing::add_initializer(g, "W2", {32, 48}, seeded(32 * 48, 2));
  testing::add_node(g, "MatMul", {"X", "W1"}, {"Y1"});
  testing::add_node(g, "MatMul", {"X", "W2"}, {"Y2"});
  testing::set_type(g->add_output(), "Y1", onnx::TensorProto::FLOAT, {8, 48});
  testing::set_type(g->add_output(), "Y2", onnx::TensorProto::FLOAT, {8, 48});
  return m.SerializeAsString();
}

// The task's schedule with its constant input copied at root in panels of 16 columns.
ScheduleChoice packs_its_weight(const tetune::Task &t) {
  Schedule s(t.outputs);
  EXPECT_EQ(t.constant_inputs.size(), 1u) << t.name;
  std::string w = t.inputs().at(t.constant_inputs.at(0)).name();
  std::string reader = s.stage(t.outputs.at(0)).name;
  std::string cache = s.cache_read(w, {reader});
  auto [o, i] = s.pack_layout(cache, "ax1", 16);
  s.vectorize(cache, i);
  return {s, ScheduleSource::Record, "packs its weight at root"};
}

std::string tmp_dir() {
  const char *t = std::getenv("TEST_TMPDIR");
  return t ? t : "/tmp";
}

TEST(PrepackedWeights, EachGroupGetsItsPackedWeightAndTheModelsAgree) {
  const std::string bytes = two_matmuls();
  relay::CompileOptions co;
  co.schedule_for = packs_its_weight;
  co.prepack_weights = false;
  relay::CompiledModel plain = relay::compile_model(relay::import_onnx_bytes(bytes, "mm.onnx"), co);
  EXPECT_EQ(plain.stats().prepacked_weights, 0) << "the kernel packs its weight on every call";
  co.prepack_weights = true;
  relay::CompiledModel packed = relay::compile_model(relay::import_onnx_bytes(bytes, "mm.onnx"), co);
  EXPECT_EQ(packed.stats().kernels_built, 1) << "one workload";
  EXPECT_EQ(packed.stats().prepacked_weights, 2) << "one packed weight per group";
  EXPECT_EQ(packed.stats().prepacked_bytes, 2 * 32 * 48 * 4);
  for (const char *w : {"W1", "W2"}) {
    int v = packed.graph().find_value(w);
    ASSERT_GE(v, 0) << w;
    EXPECT_FALSE(packed.graph().values[v].is_const()) << w << ": the unpacked copy is dropped";
  }
  EXPECT_NE(packed.to_dot().find("digraph"), std::string::npos);

  NDArray x = NDArray::random({8, 32}, float32(), 3);
  std::vector<NDArray> want = plain.run({x}), got = packed.run({x});
  ASSERT_EQ(got.size(), 2u);
  std::string where;
  const std::vector<float> w1 = seeded(32 * 48, 1);
  NDArray y1({8, 48}, float32());
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 48; j++) {
      double acc = 0;
      for (int k = 0; k < 32; k++) acc += x.get(i * 32 + k) * w1[k * 48 + j];
      y1.set(i * 48 + j, acc);
    }
  EXPECT_TRUE(all_close(want[0], y1, 1e-5, 1e-5, &where)) << "Y1 = X W1" << where;
  for (size_t k = 0; k < 2; k++) EXPECT_TRUE(all_close(got[k], want[k], 1e-5, 1e-6, &where)) << "Y" << k + 1 << where;
  EXPECT_FALSE(all_close(got[0], got[1], 1e-3, 1e-3)) << "each group reads its own weight";

  relay::ExportOptions eo;
  eo.compile = co;
  const std::string out = tmp_dir() + "/prepacked_export";
  relay::ExportResult r = relay::export_model(relay::import_onnx_bytes(bytes, "mm.onnx"), out, eo);
  EXPECT_EQ(r.weights_bytes, 2 * 32 * 48 * 4) << "the packed weights replace the unpacked ones";
  auto m = rt::Model::load(out);
  m->set_num_threads(1);
  std::vector<NDArray> aot = m->run({x});
  ASSERT_EQ(aot.size(), 2u);
  for (size_t k = 0; k < 2; k++) EXPECT_TRUE(all_close(aot[k], want[k], 1e-5, 1e-6, &where)) << "Y" << k + 1 << where;
}

}  // namespace
}  // namespace tetune
