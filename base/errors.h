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
/**
 * A command-line option or argument has a value that makes no sense here (a
 * --shape with the wrong count of numbers for its op, --target cuda without a
 * GPU). what() names the option. `tetune` reports it as CLI11 reports an
 * invalid option value (same exit code).
 */
class UsageError : public Error { using Error::Error; };
/**
 * An exported model refused before its library is loaded (runtime/export_check.h):
 * libmodel.so needs CPU extensions this CPU lacks, or a file's SHA-256 differs
 * from manifest.json. Loading it could crash (SIGILL, SIGBUS, SIGSEGV) or hang,
 * so `tetune run` and `tetune_run` stop and exit with code 2.
 */
class ExportCheckError : public Error { using Error::Error; };

}  // namespace tetune
