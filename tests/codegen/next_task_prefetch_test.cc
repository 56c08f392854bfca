// Next-task prefetch of the weights (codegen/next_task_prefetch.h): on a
// hand-built lowered statement, each task's prefetches cover every cache line
// of the next task's slab, sit in the outermost loop that runs often enough,
// and leave out weights every task shares; a kernel built with them computes
// the same bits as without.
#include <gtest/gtest.h>

#include <Halide.h>

#include <cstring>
#include <set>

#include "codegen/kernel.h"
#include "codegen/next_task_prefetch.h"
#include "codegen/prepack.h"
#include "tests/schedule/reference_computes.h"

namespace tetune {
namespace {

using namespace Halide::Internal;
using Halide::Expr;

Expr var(const std::string &n) { return Variable::make(Halide::Int(32), n); }

// The slab limit of a core with a 1 MiB L2 (Skylake-SP, Zen 4).
const int64_t kLimit = codegen::max_prefetch_slab_bytes(1 << 20);

// parallel for t in [0, tasks): for i in [0, rows): for k in [0, ks):
//   out[(t * rows + i) * lanes + 0..lanes) = w[w_index(t, k) + 0..lanes)
Stmt task_loops(int tasks, int rows, int ks, int lanes, const Expr &w_index) {
  Expr load = Load::make(Halide::Float(32, lanes), "w", lanes > 1 ? Ramp::make(w_index, 1, lanes) : w_index,
                         Halide::Buffer<>(), Parameter(), const_true(lanes), ModulusRemainder());
  Expr out_index = (var("t") * rows + var("i")) * lanes;
  Stmt store = Store::make("out", load, lanes > 1 ? Ramp::make(out_index, 1, lanes) : out_index, Parameter(),
                           const_true(lanes), ModulusRemainder());
  Stmt k = For::make("k", 0, ks, ForType::Serial, Halide::DeviceAPI::None, store);
  Stmt i = For::make("i", 0, rows, ForType::Serial, Halide::DeviceAPI::None, k);
  return For::make("t", 0, tasks, ForType::Parallel, Halide::DeviceAPI::None, i);
}

struct Prefetch {
  std::string loop;  // the loop whose body holds it
  Expr byte_offset;  // from the buffer's start
};

// The prefetch calls of s, with the byte offset each adds to its buffer's address.
std::vector<Prefetch> prefetches(const Stmt &s) {
  struct Find : IRVisitor {
    std::vector<std::string> loops;
    std::vector<Prefetch> found;
    using IRVisitor::visit;
    void visit(const For *op) override {
      loops.push_back(op->name);
      IRVisitor::visit(op);
      loops.pop_back();
    }
    void visit(const Call *op) override {
      if (op->name != "llvm.prefetch.p0i8") return IRVisitor::visit(op);
      struct Offset : IRVisitor {  // the uint64 cast of the byte offset
        Expr e;
        using IRVisitor::visit;
        void visit(const Cast *c) override {
          if (c->type == Halide::UInt(64) && c->value.type().is_int()) e = c->value;
          IRVisitor::visit(c);
        }
      } offset;
      op->args[0].accept(&offset);
      found.push_back({loops.back(), offset.e});
    }
  } f;
  s.accept(&f);
  return f.found;
}

// The cache lines (of 16 floats) that task t's prefetches touch over all its iterations.
std::set<int64_t> lines_fetched_by_task(const std::vector<Prefetch> &ps, int t, int rows, int ks) {
  std::set<int64_t> lines;
  for (const Prefetch &p : ps)
    for (int i = 0; i < rows; i++)
      for (int k = 0; k < ks; k++) {
        Expr e = substitute("t", t, substitute("i", i, substitute("k", k, p.byte_offset)));
        const int64_t *bytes = as_const_int(simplify(e));
        EXPECT_NE(bytes, nullptr) << e;
        if (bytes) lines.insert(*bytes / 64);
      }
  return lines;
}

std::set<int64_t> range(int64_t lo, int64_t n) {
  std::set<int64_t> r;
  for (int64_t x = lo; x < lo + n; x++) r.insert(x);
  return r;
}

TEST(NextTaskPrefetch, EachTaskFetchesEveryLineOfTheNextTasksSlab) {
  // Task t reads w[t * 1024, (t + 1) * 1024): 64 lines, more than its 8 rows can carry 4 at a time.
  Stmt s = codegen::next_task_prefetch(task_loops(4, 8, 64, 16, (var("t") * 64 + var("k")) * 16), {"w"}, kLimit);
  std::vector<Prefetch> ps = prefetches(s);
  ASSERT_EQ(ps.size(), 1u) << s;
  EXPECT_EQ(ps[0].loop, "k") << "64 lines need the innermost loop";
  for (int t = 0; t < 3; t++) EXPECT_EQ(lines_fetched_by_task(ps, t, 8, 64), range((t + 1) * 64, 64)) << "task " << t;
}

TEST(NextTaskPrefetch, ASmallSlabIsFetchedOutsideTheInnermostLoop) {
  // Task t reads w[t * 64, (t + 1) * 64): 4 lines; the row loop runs 8 times per task.
  Stmt s = codegen::next_task_prefetch(task_loops(4, 8, 64, 1, var("t") * 64 + var("k")), {"w"}, kLimit);
  std::vector<Prefetch> ps = prefetches(s);
  ASSERT_EQ(ps.size(), 1u) << s;
  EXPECT_EQ(ps[0].loop, "i");
  for (int t = 0; t < 3; t++) EXPECT_EQ(lines_fetched_by_task(ps, t, 8, 64), range((t + 1) * 4, 4)) << "task " << t;
}

TEST(NextTaskPrefetch, ALargeSlabTakesSeveralLinesPerIteration) {
  // Every row of task t reads its 32 lines; the row loop runs 8 times: 4 lines each time.
  Stmt s = codegen::next_task_prefetch(task_loops(3, 8, 32, 16, (var("t") * 32 + var("k")) * 16), {"w"}, kLimit);
  std::vector<Prefetch> ps = prefetches(s);
  ASSERT_EQ(ps.size(), 4u) << s;
  for (const Prefetch &p : ps) EXPECT_EQ(p.loop, "i");
  for (int t = 0; t < 2; t++) EXPECT_EQ(lines_fetched_by_task(ps, t, 8, 32), range((t + 1) * 32, 32)) << "task " << t;
}

TEST(NextTaskPrefetch, ASlabReadOncePartByPartIsNotFetched) {
  // Row i of task t reads lines [32 t + 4 i, 32 t + 4 i + 4): the slab streams through the task
  // once, as a reduction over input channels outermost reads a convolution's weights.
  Stmt s = codegen::next_task_prefetch(task_loops(3, 8, 4, 16, (var("t") * 32 + var("i") * 4 + var("k")) * 16), {"w"}, kLimit);
  EXPECT_TRUE(prefetches(s).empty()) << s;
}

TEST(NextTaskPrefetch, OnlyWeightsThatDifferByTaskAreFetched) {
  Stmt shared = task_loops(4, 8, 64, 16, var("k") * 16);
  EXPECT_TRUE(prefetches(codegen::next_task_prefetch(shared, {"w"}, kLimit)).empty()) << "every task reads the same slab";
  Stmt own = task_loops(4, 8, 64, 16, (var("t") * 64 + var("k")) * 16);
  EXPECT_TRUE(prefetches(codegen::next_task_prefetch(own, {}, kLimit)).empty()) << "w is not named a weight";
  EXPECT_TRUE(prefetches(codegen::next_task_prefetch(own, {"out", "x"}, kLimit)).empty());
}

TEST(NextTaskPrefetch, AColumnBlockOfARowMajorMatrixIsNotFetched) {
  // Task t reads columns [16 t, 16 t + 16) of a 64-row matrix of 64 columns: its span is nearly
  // the whole matrix, 16 times the distance to the next task's block.
  Stmt s = codegen::next_task_prefetch(task_loops(4, 8, 64, 16, (var("k") * 4 + var("t")) * 16), {"w"}, kLimit);
  EXPECT_TRUE(prefetches(s).empty()) << s;
}

TEST(NextTaskPrefetch, ASlabIsFetchedWhereHalfTheL2HoldsIt) {
  // Task t reads w[t * 196608, (t + 1) * 196608): 768 KiB, 12288 lines, one a row's k iteration.
  Stmt loops = task_loops(3, 2, 12288, 16, (var("t") * 12288 + var("k")) * 16);
  EXPECT_TRUE(prefetches(codegen::next_task_prefetch(loops, {"w"}, kLimit)).empty()) << "a 1 MiB L2";
  std::vector<Prefetch> ps = prefetches(codegen::next_task_prefetch(loops, {"w"}, codegen::max_prefetch_slab_bytes(2 << 20)));
  ASSERT_EQ(ps.size(), 1u) << "a 2 MiB L2";
  EXPECT_EQ(ps[0].loop, "k");
  EXPECT_EQ(lines_fetched_by_task(ps, 0, 2, 12288), range(12288, 12288));
  EXPECT_EQ(codegen::max_prefetch_slab_bytes(0), 512 << 10) << "unknown L2";
}

// As task_loops, but each k step adds w's value into an accumulator at acc_index (an update:
// acc[acc_index] = acc[acc_index] + w[...]).
Stmt accumulating_loops(int tasks, int rows, int ks, const Expr &w_index, const Expr &acc_index) {
  auto load = [](const std::string &buf, const Expr &index) {
    return Load::make(Halide::Float(32, 16), buf, Ramp::make(index, 1, 16), Halide::Buffer<>(), Parameter(),
                      const_true(16), ModulusRemainder());
  };
  Stmt store = Store::make("acc", load("acc", acc_index) + load("w", w_index), Ramp::make(acc_index, 1, 16),
                           Parameter(), const_true(16), ModulusRemainder());
  Stmt k = For::make("k", 0, ks, ForType::Serial, Halide::DeviceAPI::None, store);
  Stmt i = For::make("i", 0, rows, ForType::Serial, Halide::DeviceAPI::None, k);
  return For::make("t", 0, tasks, ForType::Parallel, Halide::DeviceAPI::None, i);
}

TEST(NextTaskPrefetch, NotInALoopWhoseAccumulatorLLVMMustPromote) {
  // Every row of task t reads its 64 lines, one per k step, into an accumulator. Held at a constant
  // index (a register block in stack slots), the prefetch goes in the k loop as in
  // EachTaskFetchesEveryLineOfTheNextTasksSlab; at row i's own index (a block of a larger
  // accumulator), LLVM could not keep it in registers across k with a prefetch there: the row
  // loop carries 4 lines per row instead.
  const Expr w = (var("t") * 64 + var("k")) * 16;
  std::vector<Prefetch> in_registers = prefetches(codegen::next_task_prefetch(accumulating_loops(4, 8, 64, w, 0), {"w"}, kLimit));
  ASSERT_EQ(in_registers.size(), 1u);
  EXPECT_EQ(in_registers[0].loop, "k");
  std::vector<Prefetch> in_memory =
      prefetches(codegen::next_task_prefetch(accumulating_loops(4, 8, 64, w, var("i") * 16), {"w"}, kLimit));
  ASSERT_EQ(in_memory.size(), 4u);
  for (const Prefetch &p : in_memory) EXPECT_EQ(p.loop, "i");
}

TEST(NextTaskPrefetch, KernelComputesTheSameBits) {
  // A GEMM over column panels of its packed weight B, one panel per task (as analytical seeds and
  // tuned GEMMs read a prepacked B).
  testing::RefCase c = testing::gemm_case(24, 64, 32);  // B is [32, 64]
  Schedule s({c.output});
  std::string B = s.cache_read("B", {"C"});
  s.pack_layout(B, "ax1", 16);
  auto [jo, ji] = s.split("C", "j", 16);
  s.reorder("C", {jo, "i", "k", ji});
  s.parallel("C", jo);
  s.vectorize("C", ji);
  int b = -1;
  for (size_t i = 0; i < s.inputs().size(); i++)
    if (s.inputs()[i].name() == "B") b = static_cast<int>(i);
  ASSERT_GE(b, 0);
  BuildOptions with, without;
  with.prepacked = without.prepacked = prepackable_inputs(s, {b});
  ASSERT_EQ(with.prepacked.size(), 1u);
  without.prefetch_packed = false;
  Kernel fetching = Kernel::build(s, Target{}, with), plain = Kernel::build(s, Target{}, without);
  EXPECT_NE(fetching.lowered_stmt().find("llvm.prefetch"), std::string::npos) << fetching.lowered_stmt();
  EXPECT_EQ(plain.lowered_stmt().find("llvm.prefetch"), std::string::npos);
  std::vector<NDArray> in = c.data;
  in[b] = pack_input(c.data[b], with.prepacked[0]);
  NDArray got = fetching.run(in)[0], want = plain.run(in)[0];
  ASSERT_EQ(got.nbytes(), want.nbytes());
  EXPECT_EQ(std::memcmp(got.raw(), want.raw(), got.nbytes()), 0);
  std::string where;
  EXPECT_TRUE(all_close(got, c.expected, 1e-4, 1e-5, &where)) << where;
}

}  // namespace
}  // namespace tetune
