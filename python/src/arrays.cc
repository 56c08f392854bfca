#include "python/src/arrays.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>

#include "base/errors.h"

namespace py = pybind11;

namespace tetune::python {

namespace {

// NumPy's one-letter kind and item size -> DType; false for kinds tetune lacks (complex, object, ...).
bool dtype_of(const py::dtype &d, DType *out) {
  const int bits = static_cast<int>(d.itemsize()) * 8;
  switch (d.kind()) {
    case 'f': *out = {DType::Float, bits}; return bits == 16 || bits == 32 || bits == 64;
    case 'i': *out = {DType::Int, bits}; return true;
    case 'u': *out = {DType::UInt, bits}; return true;
    case 'b': *out = boolean(); return true;
    default: return false;
  }
}

std::string numpy_dtype_text(const py::dtype &d) { return py::str(static_cast<const py::handle &>(d)).cast<std::string>(); }

std::string shape_text(const py::array &a) {
  Shape s(a.shape(), a.shape() + a.ndim());
  return shape_str(s);
}

}  // namespace

py::dtype numpy_dtype(DType t) {
  // Leaked on purpose: py::objects must not be destroyed after the interpreter finalises.
  static auto *cache = new std::map<std::string, py::dtype>();
  const std::string name = t.code == DType::BFloat ? "uint16" : t.str();
  auto it = cache->find(name);
  if (it == cache->end()) it = cache->emplace(name, py::dtype(name)).first;
  return it->second;
}

py::array aligned_empty(const Shape &shape, DType t) {
  int64_t count = 1;
  for (int64_t e : shape) count *= e;
  const size_t bytes = static_cast<size_t>((count * t.bytes() + 63) / 64 * 64);
  void *data = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
  if (!data) throw std::bad_alloc();
  py::capsule owner(data, [](void *p) { std::free(p); });
  return py::array(numpy_dtype(t), std::vector<py::ssize_t>(shape.begin(), shape.end()), data, owner);
}

BufferView view_argument(py::handle value, const Tensor &t, const std::string &what, bool writable, py::array *copy) {
  if (!py::isinstance<py::array>(value))
    throw py::type_error(what + ": expected a numpy.ndarray of " + t.dtype().str() + "[" + shape_str(t.shape()) +
                         "], got " + py::str(value.get_type().attr("__name__")).cast<std::string>() +
                         " (use numpy.asarray(x, dtype='" + t.dtype().str() + "'))");
  auto a = py::reinterpret_borrow<py::array>(value);
  DType dt;
  const char byteorder = py::detail::array_descriptor_proxy(a.dtype().ptr())->byteorder;
  const DType want_dtype = t.dtype().code == DType::BFloat ? uint16() : t.dtype();  // bit patterns, as NDArray's
  if (!dtype_of(a.dtype(), &dt) || dt != want_dtype || byteorder == '>')
    throw RuntimeError(what + ": expected dtype " + t.dtype().str() +
                       (t.dtype().code == DType::BFloat ? " (as uint16 bit patterns)" : "") + ", got " +
                       numpy_dtype_text(a.dtype()) + " (convert with x.astype('" + want_dtype.str() + "'))");
  const Shape &want = t.shape();
  bool same_shape = a.ndim() == static_cast<py::ssize_t>(want.size());
  for (size_t d = 0; same_shape && d < want.size(); d++) same_shape = a.shape(d) == want[d];
  if (!same_shape)
    throw RuntimeError(what + ": expected shape [" + shape_str(want) + "], got [" + shape_text(a) + "]");
  if (!(a.flags() & py::array::c_style))
    throw RuntimeError(what + ": the array is not C-contiguous (a transposed or strided view); kernels read dense "
                       "row-major buffers: pass numpy.ascontiguousarray(x)");
  if (writable && !a.writeable()) throw RuntimeError(what + ": the array is read-only");
  void *data = writable ? a.mutable_data() : const_cast<void *>(a.data());
  if (reinterpret_cast<uintptr_t>(data) % static_cast<uintptr_t>(t.dtype().bytes()) != 0) {
    if (!copy)
      throw RuntimeError(what + ": the array's data is not aligned to its " + std::to_string(t.dtype().bytes()) +
                         "-byte elements; pass an aligned array (numpy.require(x, requirements='A'))");
    *copy = aligned_empty(want, t.dtype());
    std::memcpy(copy->mutable_data(), data, static_cast<size_t>(t.size() * t.dtype().bytes()));
    data = copy->mutable_data();
  }
  return BufferView{data, want, t.dtype()};
}

NDArray ndarray_from_numpy(py::handle value, DType want, const std::string &what) {
  py::array a = py::module_::import("numpy").attr("ascontiguousarray")(value);
  DType dt;
  if (!dtype_of(a.dtype(), &dt)) throw DTypeError(what + ": unsupported dtype " + numpy_dtype_text(a.dtype()));
  if (want.code == DType::BFloat && dt == uint16()) dt = want;  // bit patterns (numpy_dtype)
  NDArray out(Shape(a.shape(), a.shape() + a.ndim()), dt);
  py::array native = a.attr("astype")(a.dtype().attr("newbyteorder")("="), py::arg("copy") = false);
  std::memcpy(out.raw(), native.data(), static_cast<size_t>(out.nbytes()));
  return out;
}

py::array numpy_from_ndarray(const NDArray &a) {
  py::array out = aligned_empty(a.shape(), a.dtype());
  std::memcpy(out.mutable_data(), a.raw(), static_cast<size_t>(a.nbytes()));
  return out;
}

}  // namespace tetune::python
