// ONNX ReverseSequence (Operators.md ReverseSequence, opset 10).
//
// x: [T, B, ...] (time_axis 0, batch_axis 1) or [B, T, ...] (time_axis 1,
// batch_axis 0), any dtype; lens: [B] int32 / int64.
// y[.., t, .., b, ..] = x[.., lens[b] - 1 - t, .., b, ..] for t < lens[b], else x[.., t, .., b, ..]
// (the first lens[b] steps of batch b reversed, the rest copied). A length
// outside [0, T] is clamped into it (onnxruntime rejects it at run time; a
// kernel cannot raise, and the clamp keeps every read in bounds).
// Errors: AttributeError unless {batch_axis, time_axis} = {0, 1}; ShapeError
// for rank < 2 or lens not [B]; DTypeError for non-integer lens.
// One stage, tag "injective"; attrs: op, batch_axis, time_axis.
#pragma once

#include <string>

#include "te/tensor.h"

namespace tetune {
namespace ops {

Tensor reverse_sequence(const Tensor &x, const Tensor &lens, int64_t batch_axis = 1, int64_t time_axis = 0,
                        const std::string &name = "reverse_sequence");

}  // namespace ops
}  // namespace tetune
