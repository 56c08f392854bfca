#include <gtest/gtest.h>

#include "codegen/kernel.h"
#include "runtime/spin_pool.h"
#include "schedule/trace.h"
#include "base/errors.h"

namespace tetune {
namespace {

std::vector<Tensor> gemm(int M, int N, int K) {
  Tensor A = placeholder({M, K}, float32(), "A");
  Tensor B = placeholder({K, N}, float32(), "B");
  IterVar k = reduce_axis(K, "k");
  Tensor C = compute({M, N}, [&](const std::vector<Var> &i) { return sum(A(i[0], k.var) * B(k.var, i[1]), {k}); }, "C",
                     "matmul", {"i", "j"});
  return {A, B, C};
}

NDArray ref_gemm(const NDArray &a, const NDArray &b, int M, int N, int K) {
  NDArray c({M, N}, float32());
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int k = 0; k < K; k++) s += a.data<float>()[i * K + k] * b.data<float>()[k * N + j];
      c.data<float>()[i * N + j] = static_cast<float>(s);
    }
  return c;
}

TEST(Codegen, GemmDefaultAndTiled) {
  int M = 37, N = 45, K = 29;
  auto t = gemm(M, N, K);
  NDArray a = NDArray::random({M, K}, float32(), 1), b = NDArray::random({K, N}, float32(), 2);
  NDArray ref = ref_gemm(a, b, M, N, K);
  Schedule s0({t[2]});
  auto out0 = Kernel::build(s0).run({a, b});
  EXPECT_TRUE(all_close(out0[0], ref, 1e-4, 1e-5));

  Schedule s({t[2]});
  s.cache_write("C");
  auto tiles = s.tile("C", "i", "j", 8, 16);
  s.parallel("C", tiles[0]);
  s.vectorize("C", tiles[3]);
  s.compute_at("C.local", "C", tiles[1]);
  auto [ko, ki] = s.split("C.local", "k", 4);
  auto [jo, ji] = s.split("C.local", "j", 16);
  s.reorder("C.local", {ko, "i", ki, jo, ji});
  s.vectorize("C.local", ji);
  s.unroll("C.local", ki);
  Kernel k = Kernel::build(s);
  const uint64_t loops = rt::SpinPool::loops_run();
  auto out = k.run({a, b});
  // The parallel tile loop ran on the spinning pool that exported models use.
  EXPECT_GT(rt::SpinPool::loops_run(), loops);
  std::string where;
  EXPECT_TRUE(all_close(out[0], ref, 1e-4, 1e-5, &where)) << where;
  EXPECT_FALSE(k.loop_nest().loops.empty());

  Schedule r = replay({t[2]}, trace_from_json(trace_to_json(s), {t[2]}));
  EXPECT_EQ(r.trace(), s.trace());
}

TEST(Codegen, IllegalStepsRaise) {
  auto t = gemm(8, 8, 8);
  Schedule s({t[2]});
  EXPECT_THROW(s.split("C", "nope", 4), ScheduleError);
  s.split("C", "i", 4);
  EXPECT_THROW(s.split("C", "i", 2), ScheduleError);
  EXPECT_THROW(s.parallel("C", "k"), ScheduleError);  // a reduce loop (vectorizing the only one is legal)
  EXPECT_THROW(s.compute_inline("C"), ScheduleError);
}

TEST(Codegen, BuildWithoutRuntimeChecksDropsAssertionsNotResults) {
  int M = 37, N = 45, K = 29;
  auto t = gemm(M, N, K);
  NDArray a = NDArray::random({M, K}, float32(), 3), b = NDArray::random({K, N}, float32(), 4);
  NDArray ref = ref_gemm(a, b, M, N, K);
  Schedule s({t[2]});
  auto tiles = s.tile("C", "i", "j", 8, 16);
  s.vectorize("C", tiles[3]);
  BuildOptions checked, lean;
  lean.runtime_checks = false;
  Kernel with = Kernel::build(s, Target{}, checked);
  Kernel without = Kernel::build(s, Target{}, lean);
  // Halide's check that the schedule reads inside its inputs is in the checked build only.
  const std::string oob = "halide_error_access_out_of_bounds(\"Input buffer in_A\"";
  EXPECT_NE(with.lowered_stmt().find(oob), std::string::npos);
  EXPECT_EQ(without.lowered_stmt().find(oob), std::string::npos);
  std::string where;
  EXPECT_TRUE(all_close(without.run({a, b})[0], ref, 1e-4, 1e-5, &where)) << where;
  // Kernel::run still checks the buffers it is given.
  NDArray wrong({M, K + 1}, float32());
  EXPECT_THROW(without.run({wrong, b}), RuntimeError);
}

}  // namespace
}  // namespace tetune
