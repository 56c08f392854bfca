#include "te/ops/einsum.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "base/errors.h"
#include "te/ops/common.h"
#include "te/ops/matmul.h"
#include "te/ops/reduce.h"
#include "te/ops/transform.h"

namespace tetune {
namespace ops {

namespace {

// A label is a letter's ASCII code, or kEllipsis + p for the ellipsis axis p
// (p counted from the left of the widest ellipsis, so narrower ones align right).
constexpr int kEllipsis = 256;

using Labels = std::vector<int>;

struct Operand {
  Tensor t;
  Labels labels;  // one per axis of t
};

struct Equation {
  std::vector<Labels> inputs;
  Labels output;
};

std::string label_str(int l) { return l >= kEllipsis ? "..." + std::to_string(l - kEllipsis) : std::string(1, char(l)); }

// Letters of term; *ellipsis_at is where "..." stands (-1: none).
std::vector<int> parse_letters(const std::string &term, int *ellipsis_at, const std::string &eq) {
  std::vector<int> letters;
  *ellipsis_at = -1;
  for (size_t i = 0; i < term.size(); i++) {
    char ch = term[i];
    if (std::isalpha(static_cast<unsigned char>(ch))) {
      letters.push_back(ch);
    } else if (ch == '.' && term.compare(i, 3, "...") == 0 && *ellipsis_at < 0) {
      *ellipsis_at = static_cast<int>(letters.size());
      i += 2;
    } else {
      throw AttributeError("Einsum: equation '" + eq + "' has an unexpected '" + std::string(1, ch) + "' in term '" + term + "'");
    }
  }
  return letters;
}

std::vector<std::string> split_terms(const std::string &s) {
  std::vector<std::string> terms(1);
  for (char ch : s) {
    if (ch == ',') terms.emplace_back();
    else terms.back() += ch;
  }
  return terms;
}

Equation parse(const std::string &equation, const std::vector<Tensor> &xs) {
  std::string eq;
  for (char ch : equation)
    if (!std::isspace(static_cast<unsigned char>(ch))) eq += ch;
  size_t arrow = eq.find("->");
  std::vector<std::string> terms = split_terms(eq.substr(0, arrow));
  if (terms.size() != xs.size())
    throw AttributeError("Einsum: equation '" + equation + "' has " + std::to_string(terms.size()) + " input terms for " +
                         std::to_string(xs.size()) + " inputs");
  // First pass: letters and ellipsis widths.
  std::vector<std::vector<int>> letters(xs.size());
  std::vector<int> at(xs.size()), width(xs.size(), 0);
  int widest = 0;
  for (size_t k = 0; k < xs.size(); k++) {
    letters[k] = parse_letters(terms[k], &at[k], equation);
    int named = static_cast<int>(letters[k].size()), r = xs[k].ndim();
    if (named > r || (at[k] < 0 && named != r))
      throw ShapeError("Einsum: term '" + terms[k] + "' of equation '" + equation + "' names " + std::to_string(named) +
                       " axes of input " + std::to_string(k) + " with shape " + shape_str(xs[k].shape()));
    if (at[k] >= 0) width[k] = r - named;
    widest = std::max(widest, width[k]);
  }
  Equation e;
  std::map<int, int> count;
  for (size_t k = 0; k < xs.size(); k++) {
    Labels l = letters[k];
    for (int c : l) count[c]++;
    if (at[k] >= 0) {
      Labels ell;
      for (int p = widest - width[k]; p < widest; p++) ell.push_back(kEllipsis + p);
      l.insert(l.begin() + at[k], ell.begin(), ell.end());
    }
    e.inputs.push_back(l);
  }
  if (arrow == std::string::npos) {
    for (int p = 0; p < widest; p++) e.output.push_back(kEllipsis + p);
    for (const auto &kv : count)  // std::map: ASCII order
      if (kv.second == 1) e.output.push_back(kv.first);
    return e;
  }
  std::string out = eq.substr(arrow + 2);
  int out_at;
  Labels ol = parse_letters(out, &out_at, equation);
  for (size_t i = 0; i < ol.size(); i++) {
    if (!count.count(ol[i]))
      throw AttributeError("Einsum: output letter '" + label_str(ol[i]) + "' of equation '" + equation + "' is in no input");
    if (std::count(ol.begin(), ol.end(), ol[i]) > 1)
      throw AttributeError("Einsum: output letter '" + label_str(ol[i]) + "' of equation '" + equation + "' is repeated");
    if (static_cast<int>(i) == out_at)
      for (int p = 0; p < widest; p++) e.output.push_back(kEllipsis + p);
    e.output.push_back(ol[i]);
  }
  if (out_at == static_cast<int>(ol.size()))
    for (int p = 0; p < widest; p++) e.output.push_back(kEllipsis + p);
  return e;
}

// Builds the stages, numbering them for unique names.
class Builder {
 public:
  Builder(const std::string &eq, const std::string &name) : eq_(eq), name_(name) {}

  std::string next(const std::string &what) { return name_ + "." + std::to_string(step_++) + "_" + what; }

  // Drops axes of extent 1 that broadcast against a larger extent elsewhere:
  // summing or multiplying over a broadcast axis reads its one element, so the
  // operand simply does not carry that label.
  Operand drop_broadcast(const Operand &o, const std::map<int, int64_t> &extent) {
    Shape s;
    Labels l;
    for (size_t d = 0; d < o.labels.size(); d++)
      if (o.t.shape()[d] == extent.at(o.labels[d])) {
        s.push_back(o.t.shape()[d]);
        l.push_back(o.labels[d]);
      }
    if (l.size() == o.labels.size()) return o;
    return {reshape(o.t, s, next("squeeze")), l};
  }

  // One axis per distinct label; a repeated label reads the diagonal.
  Operand diagonal(const Operand &o) {
    Labels l;
    Shape s;
    for (size_t d = 0; d < o.labels.size(); d++)
      if (std::find(l.begin(), l.end(), o.labels[d]) == l.end()) {
        l.push_back(o.labels[d]);
        s.push_back(o.t.shape()[d]);
      }
    if (l.size() == o.labels.size()) return o;
    Tensor x = o.t;
    Labels from = o.labels;
    Tensor t = compute(
        s,
        [&](const std::vector<Var> &i) {
          std::vector<Expr> idx;
          for (int lab : from) idx.push_back(i[std::find(l.begin(), l.end(), lab) - l.begin()]);
          return x(idx);
        },
        next("diagonal"), "", default_axis_names(static_cast<int>(s.size())));
    return {annotate(t, "injective", {{"op", "Einsum"}, {"equation", eq_}}), l};
  }

  // Sums over the labels not in keep.
  Operand sum_out(const Operand &o, const std::set<int> &keep) {
    std::vector<int64_t> axes;
    Labels l;
    for (size_t d = 0; d < o.labels.size(); d++) {
      if (keep.count(o.labels[d])) l.push_back(o.labels[d]);
      else axes.push_back(static_cast<int64_t>(d));
    }
    if (axes.empty()) return o;
    return {reduce_sum(o.t, axes, false, next("sum")), l};
  }

  // o's axes in the order `to` (a permutation of o.labels).
  Tensor permute(const Operand &o, const Labels &to, const std::string &what) {
    if (to == o.labels) return o.t;
    std::vector<int64_t> perm;
    for (int lab : to) perm.push_back(std::find(o.labels.begin(), o.labels.end(), lab) - o.labels.begin());
    return transpose(o.t, perm, what.empty() ? next("transpose") : what);
  }

  Tensor reshape_to(const Tensor &t, const Shape &s) { return t.shape() == s ? t : reshape(t, s, next("reshape")); }

  // A x B summed over their common labels not in keep, as one batched product.
  Operand contract(const Operand &a, const Operand &b, const std::set<int> &keep) {
    auto in = [](const Labels &l, int x) { return std::find(l.begin(), l.end(), x) != l.end(); };
    Labels batch, contracted, free_a, free_b;
    for (int lab : a.labels) {
      if (!in(b.labels, lab)) free_a.push_back(lab);
      else if (keep.count(lab)) batch.push_back(lab);
      else contracted.push_back(lab);
    }
    for (int lab : b.labels)
      if (!in(a.labels, lab)) free_b.push_back(lab);
    auto extents = [](const Operand &o, const Labels &l) {
      Shape s;
      for (int lab : l) s.push_back(o.t.shape()[std::find(o.labels.begin(), o.labels.end(), lab) - o.labels.begin()]);
      return s;
    };
    auto product = [](const Shape &s) {
      int64_t p = 1;
      for (auto v : s) p *= v;
      return p;
    };
    Shape bs = extents(a, batch), fa = extents(a, free_a), fb = extents(b, free_b);
    int64_t m = product(fa), k = product(extents(a, contracted)), n = product(fb);
    auto cat = [](Labels x, const Labels &y, const Labels &z) {
      x.insert(x.end(), y.begin(), y.end());
      x.insert(x.end(), z.begin(), z.end());
      return x;
    };
    // Read an operand transposed by the product when that saves a transpose stage.
    bool ta = cat(batch, contracted, free_a) == a.labels && a.labels != cat(batch, free_a, contracted);
    bool tb = cat(batch, free_b, contracted) == b.labels && b.labels != cat(batch, contracted, free_b);
    Tensor at = permute(a, ta ? cat(batch, contracted, free_a) : cat(batch, free_a, contracted), "");
    Tensor bt = permute(b, tb ? cat(batch, free_b, contracted) : cat(batch, contracted, free_b), "");
    auto mat = [&](int64_t r, int64_t c) {
      Shape s = bs;
      s.push_back(r);
      s.push_back(c);
      return s;
    };
    at = reshape_to(at, ta ? mat(k, m) : mat(m, k));
    bt = reshape_to(bt, tb ? mat(n, k) : mat(k, n));
    Tensor p = batch_matmul(at, bt, ta, tb, next("matmul"));
    Shape out = bs;
    out.insert(out.end(), fa.begin(), fa.end());
    out.insert(out.end(), fb.begin(), fb.end());
    return {reshape_to(p, out), cat(batch, free_a, free_b)};
  }

 private:
  std::string eq_, name_;
  int step_ = 0;
};

}  // namespace

Tensor einsum(const std::string &equation, const std::vector<Tensor> &inputs, const std::string &name) {
  if (inputs.empty()) throw AttributeError("Einsum: needs at least one input");
  for (const auto &x : inputs) check_same_dtype(inputs[0], x, "Einsum");
  Equation e = parse(equation, inputs);
  std::map<int, int64_t> extent;
  for (size_t k = 0; k < inputs.size(); k++)
    for (size_t d = 0; d < e.inputs[k].size(); d++) {
      int64_t &x = extent[e.inputs[k][d]];
      int64_t v = inputs[k].shape()[d];
      if (x > 1 && v > 1 && x != v)
        throw ShapeError("Einsum: label '" + label_str(e.inputs[k][d]) + "' of equation '" + equation + "' has extents " +
                         std::to_string(x) + " and " + std::to_string(v));
      x = std::max(x, v);
    }
  Builder b(equation, name);
  std::vector<Operand> ops;
  for (size_t k = 0; k < inputs.size(); k++) ops.push_back(b.diagonal(b.drop_broadcast({inputs[k], e.inputs[k]}, extent)));
  // Labels needed after operand k: the output's and those of operands k+1...
  std::set<int> keep(e.output.begin(), e.output.end());
  std::vector<std::set<int>> after(ops.size(), keep);
  for (size_t k = ops.size() - 1; k > 0; k--) {
    after[k - 1] = after[k];
    after[k - 1].insert(ops[k].labels.begin(), ops[k].labels.end());
  }
  Operand acc = b.sum_out(ops[0], after[0]);
  for (size_t k = 1; k < ops.size(); k++) {
    std::set<int> need = after[k];
    need.insert(acc.labels.begin(), acc.labels.end());
    Operand rhs = b.sum_out(ops[k], need);
    acc = b.contract(acc, rhs, after[k]);
  }
  Tensor out = b.permute(acc, e.output, name);
  for (const auto &x : inputs) {
    if (!out.same_as(x)) continue;
    std::vector<int64_t> identity;  // "ij->ij": a copy, so the result is a stage and not the input itself
    for (int d = 0; d < x.ndim(); d++) identity.push_back(d);
    out = transpose(x, identity, name);
  }
  return out;
}

}  // namespace ops
}  // namespace tetune
