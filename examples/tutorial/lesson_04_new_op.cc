// Lesson 4: add an operator.
//
// An operator in tetune is a C++ function that returns a TE compute (lesson
// 1): it checks its inputs, raising the error class of base/errors.h that
// names what is wrong, and builds one or more stages. This lesson adds RMS
// normalization (ONNX RMSNormalization, opset 23; the LayerNorm without the
// mean of LLaMA-style models) over the last axis:
//
//   y[..., j] = x[..., j] / sqrt(mean_j(x[..., j]^2) + epsilon) * scale[j]
//
// as two stages: "rms_norm.sumsq", a reduction, and "rms_norm", elementwise.
// A stage's tag ("reduce", "norm") and attrs tell the graph compiler and the
// search space what kind of stage it is.
//
// The operator registry (te/ops/registry.h) names a workload: an op name plus
// integers (its --shape form) build a concrete compute. An entry is a name,
// the form, a description with the layout and the ONNX op, an example shape
// and a builder. This lesson makes the entry and builds the op with it. To
// add the op to tetune for good, the compute goes into te/ops/norm.{h,cc}
// (its docstring giving shapes, attributes and errors) and the entry into
// te/ops/registry_reduce.cc; then `tetune ops` lists it, `tetune tune-op --op
// rms_norm --shape 6,40` tunes it, tetune.te.ops.build_op builds it, and
// //tests/te:op_registry_test checks its default schedule against the
// reference interpreter.
//
// An ONNX model reaches the op through relay_import: each ONNX op has a
// lowering (relay_import/lowering*.cc) from its node (inputs, attributes) to
// te/ops computes, and an entry in a table with its fusion pattern:
//
//   // relay_import/lowering_loss.cc
//   LOWER(l_rms_norm) {
//     if (c.node().attr_i("axis", -1) != -1) c.unsupported("axis other than -1");
//     return {ops::rms_norm(c.in(0), c.in(1), c.node().attr_f("epsilon", 1e-5), c.name())};
//   }
//   ...
//   {"RMSNormalization", {l_rms_norm, OpPattern::Reduce}},   // in loss_ops()
//
// OpPattern::Reduce lets fusion attach the elementwise ops that follow it to
// its group. Here the lesson checks the op three ways: the interpreter against
// a plain loop, the default CPU schedule against the interpreter, and a bad
// scale against the error it must raise.
//
//   bazel run //examples/tutorial:lesson_04_new_op
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/errors.h"
#include "codegen/kernel.h"
#include "schedules/default_schedule.h"
#include "te/interpreter.h"
#include "te/ops/common.h"
#include "te/ops/registry.h"

using namespace tetune;

namespace {

void check(bool ok, const std::string &what) {
  if (ok) return;
  std::fprintf(stderr, "FAILED: %s\n", what.c_str());
  std::exit(1);
}

/**
 * RMS normalization over the last axis: x [..., D] float, scale [D] of x's
 * dtype -> y of x's shape. Stages "<name>.sumsq" (sum of squares, shape
 * [..., 1], tag "reduce") and <name> (tag "norm"). ShapeError when scale is
 * not [D], DTypeError for a non-float x or a scale of another dtype,
 * AttributeError for epsilon < 0.
 */
Tensor rms_norm(const Tensor &x, const Tensor &scale, double epsilon, const std::string &name = "rms_norm") {
  const std::string op = "RMSNormalization";
  ops::check_float(x, op);
  ops::check_same_dtype(x, scale, op);
  const int r = x.ndim();
  const int64_t D = x.shape().back();
  if (scale.shape() != Shape{D})
    throw ShapeError(op + ": scale '" + scale.name() + "' has shape [" + shape_str(scale.shape()) + "], expected [" +
                     std::to_string(D) + "] (the last axis of x " + shape_str(x.shape()) + ")");
  if (epsilon < 0) throw AttributeError(op + ": attribute 'epsilon' = " + ops::num_str(epsilon) + " is negative");
  std::vector<std::string> axes = ops::default_axis_names(r);

  Shape kept = x.shape();
  kept.back() = 1;
  IterVar k = reduce_axis(D, "k");
  Tensor sumsq = compute(
      kept,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> at(i.begin(), i.end() - 1);
        at.push_back(k);
        return sum(x(at) * x(at), {k});
      },
      name + ".sumsq", "reduce", axes);
  Tensor y = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        std::vector<Expr> at(i.begin(), i.end()), row(i.begin(), i.end() - 1);
        row.push_back(0);
        Expr mean = sumsq(row) / make_float(static_cast<double>(D), x.dtype());
        return x(at) / sqrt(mean + make_float(epsilon, x.dtype())) * scale(at.back());
      },
      name, "norm", axes);
  return ops::annotate(y, "norm", {{"op", op}, {"epsilon", ops::num_str(epsilon)}});
}

// The registry entry: name, --shape form, description (layout, ONNX op), example, builder.
const ops::OpEntry kRmsNormEntry = {
    "rms_norm", "D0,...,Dn",
    "x / sqrt(mean(x^2) + 1e-5) * scale[Dn] over the last axis (ONNX RMSNormalization, opset 23)", "6,40",
    [](const std::vector<int64_t> &s) {
      Tensor x = placeholder(s, float32(), "x"), scale = placeholder({s.back()}, float32(), "scale");
      return ops::OpWorkload{{x, scale}, {rms_norm(x, scale, 1e-5)}};
    }};

// y by a plain loop in double, rows of D elements.
std::vector<double> plain_rms_norm(const NDArray &x, const NDArray &scale) {
  const int64_t D = x.shape().back(), rows = x.size() / D;
  std::vector<double> y(x.size());
  for (int64_t r = 0; r < rows; r++) {
    double ss = 0;
    for (int64_t j = 0; j < D; j++) ss += x.get(r * D + j) * x.get(r * D + j);
    double inv = 1.0 / std::sqrt(ss / D + 1e-5);
    for (int64_t j = 0; j < D; j++) y[r * D + j] = x.get(r * D + j) * inv * scale.get(j);
  }
  return y;
}

}  // namespace

int main() {
  const ops::OpEntry &e = kRmsNormEntry;
  std::vector<int64_t> shape = ops::parse_int_list(e.example);
  check(shape.size() >= ops::shape_form_min(e.shape_help) && shape.size() <= ops::shape_form_max(e.shape_help),
        "the example must fit the --shape form");
  std::printf("%-10s --shape %-10s e.g. %-6s %s\n", e.name.c_str(), e.shape_help.c_str(), e.example.c_str(),
              e.description.c_str());

  // Build it for the example shape, as `tetune run-op --op rms_norm --shape 6,40` would.
  ops::OpWorkload w = e.build(shape);
  std::printf("inputs:");
  for (const Tensor &t : w.inputs) std::printf(" %s %s", t.name().c_str(), shape_str(t.shape()).c_str());
  std::printf("; stages:");
  for (const Tensor &t : post_order(w.outputs))
    if (!t.is_placeholder()) std::printf(" %s", t.name().c_str());
  std::printf("\n");

  // 1. The reference interpreter against a plain loop.
  std::vector<NDArray> data = {NDArray::random(w.inputs[0].shape(), float32(), 1, -2.0, 2.0),
                               NDArray::random(w.inputs[1].shape(), float32(), 2, 0.5, 1.5)};
  NDArray ref = interpret(w.outputs, w.inputs, data)[0];
  std::vector<double> loop = plain_rms_norm(data[0], data[1]);
  double worst = 0;
  for (int64_t i = 0; i < ref.size(); i++) worst = std::fmax(worst, std::fabs(ref.get(i) - loop[i]));
  std::printf("interpreter vs plain loop: max |diff| %.1e\n", worst);
  check(worst < 1e-5, "the compute differs from the formula");

  // 2. The schedule an untuned task gets (schedules/default_schedule.h), against the interpreter.
  Schedule s = schedules::simple_cpu_schedule(w.outputs, /*vector_width=*/8, /*threads=*/1);
  std::printf("default CPU schedule:\n");
  for (const Step &step : s.trace()) std::printf("  %s\n", to_string(step).c_str());
  std::vector<NDArray> args;  // the kernel takes its inputs in Schedule::inputs() order
  for (const Tensor &t : s.inputs()) args.push_back(data[t.same_as(w.inputs[0]) ? 0 : 1]);
  NDArray got = Kernel::build(s).run(args)[0];
  std::string where;
  bool close = all_close(got, ref, 1e-5, 1e-6, &where);
  std::printf("compiled kernel vs interpreter: max |diff| %.1e\n", max_abs_diff(got, ref));
  check(close, "the compiled kernel differs from the interpreter: " + where);

  // 3. A scale that does not match x is refused with an error naming it.
  bool refused = false;
  try {
    rms_norm(w.inputs[0], placeholder({7}, float32(), "bad_scale"), 1e-5);
  } catch (const ShapeError &err) {
    refused = true;
    std::printf("refused: %s\n", err.what());
  }
  check(refused, "a scale of the wrong shape must raise ShapeError");
  std::printf("\nlesson 4 OK\n");
  return 0;
}
