#include "te/ops/common.h"

#include <cstdio>

namespace tetune {
namespace ops {

int normalize_axis(int64_t axis, int rank, const std::string &op, const std::string &attr) {
  if (axis < -rank || axis >= rank || (rank == 0))
    throw AttributeError(op + ": attribute '" + attr + "' = " + std::to_string(axis) + " is out of range for rank " +
                         std::to_string(rank));
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

std::string list_str(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); i++) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

std::string num_str(double v) {
  char buf[40];
  snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string float_list_str(const std::vector<double> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); i++) s += (i ? "," : "") + num_str(v[i]);
  return s + "]";
}

Tensor annotate(const Tensor &t, const std::string &tag, const std::map<std::string, std::string> &attrs) {
  t.node()->tag = tag;
  for (const auto &kv : attrs) t.node()->attrs[kv.first] = kv.second;
  return t;
}

void check_same_dtype(const Tensor &a, const Tensor &b, const std::string &op) {
  if (a.dtype() != b.dtype())
    throw DTypeError(op + ": operands '" + a.name() + "' (" + a.dtype().str() + ") and '" + b.name() + "' (" +
                     b.dtype().str() + ") have different dtypes");
}

void check_float(const Tensor &t, const std::string &op) {
  if (!t.dtype().is_float()) throw DTypeError(op + ": tensor '" + t.name() + "' must be float, got " + t.dtype().str());
}

void check_rank(const Tensor &t, int rank, const std::string &op, const std::string &what) {
  if (t.ndim() != rank)
    throw ShapeError(op + ": " + what + " '" + t.name() + "' must have rank " + std::to_string(rank) + ", got shape " +
                     shape_str(t.shape()));
}

std::vector<std::string> default_axis_names(int rank) {
  if (rank == 1) return {"i"};
  if (rank == 2) return {"i", "j"};
  if (rank == 3) return {"b", "i", "j"};
  if (rank == 4) return {"n", "c", "h", "w"};
  std::vector<std::string> v;
  for (int i = 0; i < rank; i++) v.push_back("i" + std::to_string(i));
  return v;
}

void check_attr_list(const std::vector<int64_t> &v, size_t n, int64_t lo, const std::string &op, const std::string &attr) {
  if (v.size() != n) throw AttributeError(op + ": attribute '" + attr + "' " + list_str(v) + " must have " + std::to_string(n) + " values");
  for (auto a : v)
    if (a < lo) throw AttributeError(op + ": attribute '" + attr + "' " + list_str(v) + " must be >= " + std::to_string(lo));
}

Tensor add_channel_bias(const Tensor &t, const Tensor &bias, const std::string &name, const std::string &tag,
                        const std::map<std::string, std::string> &attrs) {
  Tensor y = compute(
      t.shape(),
      [&](const std::vector<Var> &i) {
        std::vector<Expr> at(i.begin(), i.end());
        return t(at) + bias(i[1]);
      },
      name, "", default_axis_names(t.ndim()));
  return annotate(y, tag, attrs);
}

}  // namespace ops
}  // namespace tetune
