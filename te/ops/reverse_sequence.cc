#include "te/ops/reverse_sequence.h"

#include "base/errors.h"
#include "te/ops/common.h"

namespace tetune {
namespace ops {

Tensor reverse_sequence(const Tensor &x, const Tensor &lens, int64_t batch_axis, int64_t time_axis, const std::string &name) {
  const std::string op = "ReverseSequence";
  if (!((batch_axis == 0 && time_axis == 1) || (batch_axis == 1 && time_axis == 0)))
    throw AttributeError(op + ": batch_axis = " + std::to_string(batch_axis) + ", time_axis = " + std::to_string(time_axis) +
                         " (one must be 0, the other 1)");
  if (x.ndim() < 2) throw ShapeError(op + ": input '" + x.name() + "' " + shape_str(x.shape()) + " needs rank >= 2");
  int64_t B = x.shape()[batch_axis], T = x.shape()[time_axis];
  if (lens.shape() != Shape{B})
    throw ShapeError(op + ": sequence_lens '" + lens.name() + "' " + shape_str(lens.shape()) + " must be [" + std::to_string(B) + "]");
  if (lens.dtype().is_float() || lens.dtype().is_bool())
    throw DTypeError(op + ": sequence_lens '" + lens.name() + "' must be an integer tensor, not " + lens.dtype().str());
  Tensor t = compute(
      x.shape(),
      [&](const std::vector<Var> &i) {
        Expr n = clamp(cast(int32(), lens(i[batch_axis])), make_int(0), make_int(T));
        Expr tt = i[time_axis];
        std::vector<Expr> at(i.begin(), i.end());
        // the clamp only tells bounds inference what the select guarantees
        at[time_axis] = clamp(select(tt < n, n - make_int(1) - tt, tt), make_int(0), make_int(T - 1));
        return x(at);
      },
      name, "", default_axis_names(x.ndim()));
  return annotate(t, "injective", {{"op", op}, {"batch_axis", std::to_string(batch_axis)}, {"time_axis", std::to_string(time_axis)}});
}

}  // namespace ops
}  // namespace tetune
