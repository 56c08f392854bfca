// Typed errors raised by every tetune package.
//
// Every error names the thing at fault (tensor, axis, step, file, record) in its
// message. tetune never calls abort(): callers catch these (or their common base
// tetune::Error) and report them.
#pragma once

#include <stdexcept>
#include <string>

namespace tetune {

/** Base of all tetune errors. what() is a complete, human-readable message. */
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string &msg) : std::runtime_error(msg) {}
};

/** A tensor shape, rank or axis is wrong (names the tensor and the axis). */
class ShapeError : public Error { using Error::Error; };
/** Two dtypes do not agree, or a dtype is unsupported by an operation. */
class DTypeError : public Error { using Error::Error; };
/** An operator attribute is out of range (names the operator and attribute). */
class AttributeError : public Error { using Error::Error; };
/** An illegal schedule step (names the step, the stage and the axis). */
class ScheduleError : public Error { using Error::Error; };
/** Lowering to Halide or compiling failed (wraps Halide::Error). */
class CodegenError : public Error { using Error::Error; };
/** A run-time failure of a compiled kernel (bad buffer, wrong shape). */
class RuntimeError : public Error { using Error::Error; };
/** A malformed serialised object (schedule trace JSON, record line). */
class ParseError : public Error { using Error::Error; };
/** The tuning log database could not be opened, read or written. */
class TuningLogError : public Error { using Error::Error; };
/** A model could not be imported (names the op type, node and opset). */
class ImportError : public Error { using Error::Error; };
/** Measurement failed in a way that is not a property of the candidate. */
class MeasureError : public Error { using Error::Error; };

}  // namespace tetune
