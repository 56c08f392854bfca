#include "te/structural_hash.h"

#include <cstdio>
#include <map>
#include <sstream>

namespace tetune {

namespace {
struct Canonicalizer {
  std::map<const TensorNode *, int> tensor_ids;
  std::map<const VarNode *, int> var_ids;
  std::ostringstream os;

  int var_id(const VarNode *v) {
    auto it = var_ids.find(v);
    if (it != var_ids.end()) return it->second;
    int id = static_cast<int>(var_ids.size());
    var_ids[v] = id;
    return id;
  }

  void expr(const Expr &e) {
    os << "(" << static_cast<int>(e->kind) << ":" << e.dtype().str();
    switch (e->kind) {
      case ExprKind::IntImm: os << " " << e->int_value; break;
      case ExprKind::FloatImm: { char buf[40]; snprintf(buf, sizeof buf, " %.17g", e->float_value); os << buf; break; }
      case ExprKind::Var: os << " v" << var_id(e->var.get()); break;
      case ExprKind::Access: os << " t" << tensor_ids.at(e->tensor.get()); break;
      case ExprKind::Reduce:
        os << " r" << e->op << "[";
        for (const auto &a : e->reduce_axes) os << "v" << var_id(a.var.get()) << "<" << a.extent << ",";
        os << "]";
        break;
      default: os << " o" << e->op;
    }
    for (const auto &a : e->args) expr(a);
    os << ")";
  }
};
}  // namespace

std::string canonical_form(const std::vector<Tensor> &outputs) {
  Canonicalizer c;
  for (const auto &t : post_order(outputs)) {
    int id = static_cast<int>(c.tensor_ids.size());
    c.tensor_ids[t.node().get()] = id;
    c.os << "t" << id << (t.is_placeholder() ? " input " : " compute ") << t.dtype().str() << "[" << shape_str(t.shape()) << "]";
    if (!t.is_placeholder()) {
      c.os << " axes(";
      for (const auto &a : t->axes) c.os << "v" << c.var_id(a.var.get()) << ",";
      c.os << ") = ";
      c.expr(t->body);
    }
    c.os << "\n";
  }
  c.os << "outputs";
  for (const auto &o : outputs) c.os << " t" << c.tensor_ids.at(o.node().get());
  return c.os.str();
}

uint64_t fnv1a64(const std::string &text) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char ch : text) {
    h ^= ch;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string workload_key(const std::vector<Tensor> &outputs) {
  char buf[17];
  snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a64(canonical_form(outputs))));
  return buf;
}

}  // namespace tetune
