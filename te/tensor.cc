#include "te/tensor.h"

#include <functional>
#include <set>
#include <sstream>

#include "base/errors.h"
#include "te/expr_functor.h"

namespace tetune {

namespace {
void check_shape(const Shape &shape, const std::string &name) {
  for (size_t i = 0; i < shape.size(); i++)
    if (shape[i] <= 0)
      throw ShapeError("tensor '" + name + "': axis " + std::to_string(i) + " has non-positive extent " +
                       std::to_string(shape[i]) + " (shape " + shape_str(shape) + ")");
}
}  // namespace

int64_t Tensor::size() const {
  int64_t n = 1;
  for (auto d : shape()) n *= d;
  return n;
}

Expr Tensor::operator()(const std::vector<Expr> &indices) const {
  if (!node_) throw Error("access to an undefined tensor");
  if (indices.size() != node_->shape.size())
    throw ShapeError("tensor '" + name() + "' has rank " + std::to_string(ndim()) + " but is indexed with " +
                     std::to_string(indices.size()) + " indices");
  auto n = std::make_shared<ExprNode>();
  n->kind = ExprKind::Access;
  n->dtype = node_->dtype;
  n->tensor = node_;
  for (size_t i = 0; i < indices.size(); i++) {
    Expr idx = indices[i];
    if (!idx.defined()) throw ShapeError("tensor '" + name() + "': index " + std::to_string(i) + " is undefined");
    if (idx.dtype() != int32()) {
      if (idx.dtype().is_int() || idx.dtype().is_uint()) idx = cast(int32(), idx);
      else throw DTypeError("tensor '" + name() + "': index " + std::to_string(i) + " has dtype " + idx.dtype().str() + ": " + to_string(idx));
    }
    n->args.push_back(idx);
  }
  return Expr(n);
}

std::vector<Tensor> Tensor::inputs() const {
  std::vector<Tensor> out;
  std::set<const TensorNode *> seen;
  // Pre-order: an access comes before the accesses in its indices (a gather's data before its indices).
  pre_order_visit(node_->body, [&](const Expr &n) {
    if (n->kind == ExprKind::Access && seen.insert(n->tensor.get()).second) out.push_back(Tensor(n->tensor));
    return true;
  });
  return out;
}

Tensor placeholder(const Shape &shape, DType dtype, const std::string &name) {
  check_shape(shape, name);
  auto n = std::make_shared<TensorNode>();
  n->kind = TensorNode::Kind::Placeholder;
  n->name = name;
  n->shape = shape;
  n->dtype = dtype;
  n->tag = "placeholder";
  return Tensor(n);
}

Tensor compute(const Shape &shape, const ComputeFn &fcompute, const std::string &name, const std::string &tag,
               const std::vector<std::string> &axis_names) {
  check_shape(shape, name);
  if (!axis_names.empty() && axis_names.size() != shape.size())
    throw ShapeError("compute '" + name + "': " + std::to_string(axis_names.size()) + " axis names for rank " +
                     std::to_string(shape.size()));
  auto n = std::make_shared<TensorNode>();
  n->kind = TensorNode::Kind::Compute;
  n->name = name;
  n->shape = shape;
  n->tag = tag.empty() ? "injective" : tag;
  std::vector<Var> vars;
  for (size_t i = 0; i < shape.size(); i++) {
    Var v(axis_names.empty() ? "i" + std::to_string(i) : axis_names[i]);
    vars.push_back(v);
    n->axes.push_back(IterVar{v, shape[i], false});
  }
  n->body = fcompute(vars);
  if (!n->body.defined()) throw Error("compute '" + name + "': fcompute returned an undefined expression");
  n->dtype = n->body.dtype();
  // A reduction may only be the whole body.
  for (const auto &a : n->body->args)
    if (any_of(a, [](const Expr &e) { return e->kind == ExprKind::Reduce; }))
      throw Error("compute '" + name + "': a reduction must be the whole body, found one nested in " + to_string(n->body));
  return Tensor(n);
}

std::vector<Tensor> post_order(const std::vector<Tensor> &outputs) {
  std::vector<Tensor> order;
  std::set<const TensorNode *> done;
  std::function<void(const Tensor &)> walk = [&](const Tensor &t) {
    if (done.count(t.node().get())) return;
    done.insert(t.node().get());
    if (!t.is_placeholder())
      for (const auto &in : t.inputs()) walk(in);
    order.push_back(t);
  };
  for (const auto &o : outputs) walk(o);
  return order;
}

std::vector<Tensor> collect_placeholders(const std::vector<Tensor> &outputs) {
  std::vector<Tensor> out;
  for (const auto &t : post_order(outputs))
    if (t.is_placeholder()) out.push_back(t);
  return out;
}

}  // namespace tetune
