// Lesson 1: a compute and its schedule.
//
// tetune keeps *what* a kernel computes apart from *how* it computes it, as
// Halide and TVM do. The what is a tensor expression: placeholder() names an
// input, compute() gives every element of an output as an expression of its
// index. Writing one runs nothing; it describes a small DAG of tensors.
//
// The how is a Schedule: steps such as split, reorder, vectorize and parallel
// that rearrange each stage's loops. A step is checked when it is applied (an
// illegal one raises ScheduleError and leaves the schedule as it was) and is
// recorded, so a schedule is a trace that can be written as JSON and replayed
// on the same compute. The tuner stores exactly these traces (lesson 3).
//
// Kernel::build hands both to Halide, which compiles a kernel for this CPU.
// A schedule changes the loop nest, never the result: this lesson builds the
// same compute three ways, prints each stage's loops as the schedule left
// them, and checks every result against a plain C++ loop. (Halide's own view
// of a kernel, the lowered statement, is kernel.lowered_stmt().)
//
//   bazel run //examples/tutorial:lesson_01_basics
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/errors.h"
#include "codegen/kernel.h"
#include "schedule/schedule.h"
#include "schedule/trace.h"
#include "te/tensor.h"

using namespace tetune;

namespace {

void check(bool ok, const std::string &what) {
  if (ok) return;
  std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  std::exit(1);
}

// Each stage's loops, outermost first, with their annotations.
void print_loops(const Schedule &s) {
  for (const StageInfo &st : s.stages()) {
    std::printf("  stage %s:\n", st.name.c_str());
    std::string indent = "    ";
    for (const LeafAxis &l : st.leaves) {
      std::printf("%sfor %s in [0, %lld)%s%s\n", indent.c_str(), l.name.c_str(), static_cast<long long>(l.extent),
                  l.annotation.empty() ? "" : "  ", l.annotation.c_str());
      indent += "  ";
    }
  }
}

// The kernel's output on `image` must equal the same formula as a plain loop.
void check_against_loop(const Kernel &kernel, const NDArray &image, const std::string &label) {
  NDArray out = kernel.run({image})[0];
  const int64_t H = image.shape()[0], W = image.shape()[1];
  double worst = 0;
  for (int64_t y = 0; y < H; y++)
    for (int64_t x = 0; x < W; x++) {
      float expected = image.data<float>()[y * W + x] * 1.5f + static_cast<float>(x) / W;
      worst = std::fmax(worst, std::fabs(out.data<float>()[y * W + x] - expected));
    }
  std::printf("%s: max |kernel - loop| = %.2g\n", label.c_str(), worst);
  check(worst < 1e-5, label + " differs from the plain loop");
}

}  // namespace

int main() {
  // The compute: brighten an image and add a horizontal ramp. The axis names
  // ("y", "x") are how schedules refer to the loops.
  const int64_t H = 64, W = 200;
  Tensor image = placeholder({H, W}, float32(), "image");
  Tensor out = compute(
      {H, W},
      [&](const std::vector<Var> &i) {
        Expr y = i[0], x = i[1];
        return image(y, x) * 1.5f + cast(float32(), x) / static_cast<float>(W);
      },
      "out", "", {"y", "x"});
  NDArray pixels = NDArray::random({H, W}, float32(), /*seed=*/1, 0.0, 1.0);

  // 1. No steps: every stage at root, loops in declaration order, y outside x.
  Schedule plain({out});
  Kernel k1 = Kernel::build(plain);
  std::printf("-- default schedule\n");
  print_loops(plain);
  check_against_loop(k1, pixels, "default");

  // 2. reorder: x outside y walks the image column by column. Legal (each
  // element is computed once either way), only slower: strided memory access.
  Schedule columns({out});
  columns.reorder(out, {"x", "y"});
  Kernel k2 = Kernel::build(columns);
  std::printf("\n-- reorder(x, y)\n");
  print_loops(columns);
  check_against_loop(k2, pixels, "reorder");

  // 3. The usual CPU schedule: split x into vectors of 8 lanes (x_o, x_i),
  // vectorize x_i, run the rows in parallel. W = 200 is a multiple of 8; for
  // other widths split's tail strategy handles the remainder (schedule.h).
  Schedule fast({out});
  auto [xo, xi] = fast.split(out, "x", 8);
  fast.vectorize(out, xi);
  fast.parallel(out, "y");
  Kernel k3 = Kernel::build(fast);
  std::printf("\n-- split(x, 8), vectorize(x_i), parallel(y)\n");
  print_loops(fast);
  check_against_loop(k3, pixels, "split+vectorize+parallel");
  // Halide's loop nest of the kernel shows the effect: one dense 8-lane store per x_o.
  int lanes = 0;
  for (const BufferAccess &a : k3.loop_nest().accesses)
    if (a.is_store) lanes = a.lanes;
  std::printf("the compiled kernel stores %d lanes at a time\n", lanes);
  check(lanes == 8, "vectorize(x_i) should give 8-lane stores");

  // A step that names a loop which no longer exists is refused, and the
  // schedule stays as it was: x was split into x_o and x_i above.
  bool refused = false;
  try {
    fast.vectorize(out, "x");
  } catch (const ScheduleError &e) {
    refused = true;
    std::printf("\nvectorize(x) after the split is refused: %s\n", e.what());
  }
  check(refused, "vectorize of a loop that was split away should raise ScheduleError");
  check(fast.trace().size() == 3, "a refused step must not enter the trace");

  // The schedule is its trace. Written as JSON and replayed, it builds the same kernel.
  std::string json = trace_to_json(fast);
  std::printf("\ntrace: %s\n", json.c_str());
  Schedule replayed = replay({out}, trace_from_json(json, {out}));
  check_against_loop(Kernel::build(replayed), pixels, "replayed trace");
  std::printf("\nlesson 1 OK\n");
  return 0;
}
