// Tensors: placeholders (inputs) and computes (outputs defined by an Expr per
// element), in the style of TVM's te.placeholder / te.compute.
//
// Layout: shapes are given outermost first (row-major); the last axis is the
// fastest-varying one in memory.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "base/shape.h"
#include "te/expr.h"

namespace tetune {

/**
 * Operator attribute naming the tiles of a compute's axes whose position picks
 * constants from select chains (a Winograd transform's points, the position
 * in its output tile): "axis:size[,axis:size]", e.g. "h:4,w:4" or "e:36" (the
 * whole axis e). Schedule rules unroll those tiles inside the other loops so
 * that the picks fold (autotune/search_space/rule_simple.cc), as TVM marks
 * such axes "auto_scheduler_always_unroll".
 */
inline constexpr const char *kUnrollTilesAttr = "unroll_tiles";

/** The definition behind a Tensor. */
struct TensorNode {
  enum class Kind { Placeholder, Compute };
  Kind kind = Kind::Placeholder;
  std::string name;
  Shape shape;
  DType dtype;
  std::vector<IterVar> axes;  // Compute: one spatial axis per dimension
  Expr body;                  // Compute: value at (axes...); may be a Reduce
  std::string tag;            // operator family: "matmul", "conv2d", "elemwise", "injective", "reduce", ...
  std::map<std::string, std::string> attrs;  // operator attributes, for descriptions and rules
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorNode> n) : node_(std::move(n)) {}

  bool defined() const { return node_ != nullptr; }
  const TensorNode *operator->() const { return node_.get(); }
  const std::shared_ptr<TensorNode> &node() const { return node_; }
  const std::string &name() const { return node_->name; }
  const Shape &shape() const { return node_->shape; }
  int ndim() const { return static_cast<int>(node_->shape.size()); }
  DType dtype() const { return node_->dtype; }
  bool is_placeholder() const { return node_->kind == TensorNode::Kind::Placeholder; }
  bool same_as(const Tensor &o) const { return node_ == o.node_; }
  /** Number of elements. */
  int64_t size() const;

  /** Element access; raises ShapeError naming the tensor when the rank differs. */
  Expr operator()(const std::vector<Expr> &indices) const;
  template <typename... Args>
  Expr operator()(Args... indices) const {
    return (*this)(std::vector<Expr>{Expr(indices)...});
  }

  /** Tensors read by this compute's body (empty for placeholders), in first-use order. */
  std::vector<Tensor> inputs() const;

 private:
  std::shared_ptr<TensorNode> node_;
};

/** An input tensor. Raises ShapeError for a non-positive dimension. */
Tensor placeholder(const Shape &shape, DType dtype, const std::string &name);

using ComputeFn = std::function<Expr(const std::vector<Var> &)>;

/**
 * A tensor whose element at index vector i is fcompute(i).
 * Axis variables are named name_hint's axis_names (default i0, i1, ...).
 * The body may be a reduction (sum / max / min / prod) only at its root.
 * Raises ShapeError for a non-positive dimension and Error when a reduction
 * appears below the root of the body.
 */
Tensor compute(const Shape &shape, const ComputeFn &fcompute, const std::string &name,
               const std::string &tag = "", const std::vector<std::string> &axis_names = {});

/** All tensors reachable from outputs, producers before consumers (outputs last). */
std::vector<Tensor> post_order(const std::vector<Tensor> &outputs);

/** Placeholders reachable from outputs, in first-reached order. */
std::vector<Tensor> collect_placeholders(const std::vector<Tensor> &outputs);

}  // namespace tetune
