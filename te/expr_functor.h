// Traversals and rewrites of Expr trees, in the spirit of Halide's IRVisitor /
// IRMutator and TVM's PostOrderVisit.
//
// An Expr is a tree whose subtrees may be shared (the same node reached from two
// parents, as `x * x` reaches `x` twice). Everything here walks the tree, not the
// graph: a shared node is visited, tested or rewritten once per occurrence, so a
// walker that counts operations counts each use. The children of a node are its
// `args` in order (operands, access indices, select's cond / true / false, a cast's
// source, a reduction's source); reduce axes, tensors and variables are fields of
// a node, not children.
#pragma once

#include <functional>
#include <map>

#include "te/expr.h"

namespace tetune {

/**
 * Calls f on every node of e, children before their parent and siblings left to
 * right (so `a + b` gives a, b, then the sum). A shared node is visited once per
 * occurrence. An undefined e visits nothing.
 */
void post_order_visit(const Expr &e, const std::function<void(const Expr &)> &f);

/**
 * Calls f on every node of e, a parent before its children and siblings left to
 * right, descending into a node's children only when f returns true for it (return
 * false to skip a subtree, e.g. the index arithmetic below an access). A shared
 * node is visited once per occurrence. An undefined e visits nothing.
 */
void pre_order_visit(const Expr &e, const std::function<bool(const Expr &)> &f);

/**
 * Whether pred holds for some node of e (e itself included). Stops at the first
 * such node in pre-order. False for an undefined e.
 */
bool any_of(const Expr &e, const std::function<bool(const Expr &)> &pred);

/**
 * Rewrites an Expr bottom-up. mutate() dispatches on the node kind to the
 * matching mutate_* method. The defaults return a leaf (immediate, variable) as
 * it is, and rebuild any other node from its mutated children through the
 * public constructors (binary(), select(), Tensor::operator(), reduce(), ...),
 * so a rebuilt node is type-checked as if written by hand. A node whose children
 * all come back as the same nodes is returned itself, not a copy: a mutator that
 * changes nothing returns the very same tree. A shared node is mutated once per
 * occurrence and the results are not shared. Reduce axes, tensors and operators
 * are kept; only children are rewritten.
 *
 * Override a mutate_* method to rewrite one kind of node; call the base method
 * from it to rewrite that node's children first.
 */
class ExprMutator {
 public:
  virtual ~ExprMutator() = default;
  /** The rewritten e; an undefined e is returned as it is. */
  virtual Expr mutate(const Expr &e);

 protected:
  virtual Expr mutate_int_imm(const Expr &e) { return e; }
  virtual Expr mutate_float_imm(const Expr &e) { return e; }
  virtual Expr mutate_var(const Expr &e) { return e; }
  virtual Expr mutate_access(const Expr &e);
  virtual Expr mutate_unary(const Expr &e);
  virtual Expr mutate_binary(const Expr &e);
  virtual Expr mutate_select(const Expr &e);
  virtual Expr mutate_cast(const Expr &e);
  virtual Expr mutate_reduce(const Expr &e);
};

/**
 * e with every occurrence of each variable in `vars` replaced by its expression
 * (simultaneously: a replacement is not itself substituted). Variables not in
 * the map, including reduce axes, stay; nodes with nothing replaced below them
 * are shared with e. Raises DTypeError when a replacement makes a node ill-typed
 * (an index variable is int32; use an int32 expression).
 */
Expr substitute(const Expr &e, const std::map<const VarNode *, Expr> &vars);

}  // namespace tetune
