// NumPy arrays <-> tetune buffers: borrowed views for kernels (no copy),
// copies for the reference interpreter, 64-byte aligned new arrays.
#pragma once

#include <string>

#include <pybind11/numpy.h>

#include "base/ndarray.h"
#include "codegen/kernel.h"
#include "te/tensor.h"

namespace tetune::python {

/**
 * NumPy's dtype for t. NumPy has no bfloat16: its arrays are uint16 holding
 * the bit patterns (as NDArray stores them).
 */
pybind11::dtype numpy_dtype(DType t);

/**
 * A new, uninitialised, C-contiguous NumPy array of this shape and dtype whose
 * data is 64-byte aligned (a cache line, as NDArray's), freed with the array.
 */
pybind11::array aligned_empty(const Shape &shape, DType t);

/**
 * A kernel argument: `value` viewed as a buffer of tensor `t`, in place.
 * `what` names the argument in messages ("input 0 'A'"). Raises TypeError
 * when value is not a numpy.ndarray, and RuntimeError naming `what` when its
 * dtype (uint16 for a bfloat16 t), byte order or shape differs from t's, when it is not C-contiguous,
 * or (writable) when it is read-only. Element alignment is all the kernels
 * need (they assume no more of a pointer); an array whose data is not even
 * aligned to its element size (a view at an odd byte offset) is copied into
 * `*copy` when copy is non-null, else refused with RuntimeError.
 */
BufferView view_argument(pybind11::handle value, const Tensor &t, const std::string &what, bool writable,
                         pybind11::array *copy);

/**
 * A copy of an array (any layout) as an NDArray of its own dtype, or of `want`
 * when that is bfloat16 and the array uint16 bit patterns. DTypeError naming
 * `what` for a dtype tetune lacks (complex, object, ...).
 */
NDArray ndarray_from_numpy(pybind11::handle value, DType want, const std::string &what);

/** A new NumPy array holding a copy of a. */
pybind11::array numpy_from_ndarray(const NDArray &a);

}  // namespace tetune::python
