#include "te/ops/transform.h"

#include <algorithm>

#include "base/errors.h"
#include "te/ops/common.h"
#include "te/ops/elementwise.h"

namespace tetune {
namespace ops {

namespace {
std::vector<Expr> as_exprs(const std::vector<Var> &v) { return std::vector<Expr>(v.begin(), v.end()); }
int64_t prod(const Shape &s, size_t b, size_t e) {
  int64_t p = 1;
  for (size_t i = b; i < e; i++) p *= s[i];
  return p;
}
}  // namespace

Tensor concat(const std::vector<Tensor> &tensors, int64_t axis, const std::string &name) {
  if (tensors.empty()) throw AttributeError("Concat: no input tensors");
  const Tensor &t0 = tensors[0];
  int ax = normalize_axis(axis, t0.ndim(), "Concat");
  Shape out = t0.shape();
  out[ax] = 0;
  std::vector<int64_t> offsets;
  for (const auto &t : tensors) {
    check_same_dtype(t0, t, "Concat");
    if (t.ndim() != t0.ndim()) throw ShapeError("Concat: '" + t.name() + "' has rank " + std::to_string(t.ndim()) + ", expected " + std::to_string(t0.ndim()));
    for (int d = 0; d < t.ndim(); d++)
      if (d != ax && t.shape()[d] != t0.shape()[d])
        throw ShapeError("Concat: '" + t.name() + "' shape " + shape_str(t.shape()) + " differs from " + shape_str(t0.shape()) +
                         " at axis " + std::to_string(d));
    offsets.push_back(out[ax]);
    out[ax] += t.shape()[ax];
  }
  Tensor r = compute(
      out,
      [&](const std::vector<Var> &i) {
        Expr v;
        for (int k = static_cast<int>(tensors.size()) - 1; k >= 0; k--) {
          std::vector<Expr> idx = as_exprs(i);
          idx[ax] = clamp(Expr(i[ax]) - static_cast<int>(offsets[k]), 0, static_cast<int>(tensors[k].shape()[ax] - 1));
          Expr e = tensors[k](idx);
          int end = static_cast<int>(offsets[k] + tensors[k].shape()[ax]);
          v = v.defined() ? select(Expr(i[ax]) < end, e, v) : e;
        }
        return v;
      },
      name, "", default_axis_names(static_cast<int>(out.size())));
  return annotate(r, "injective", {{"op", "Concat"}, {"axis", std::to_string(ax)}});
}

std::vector<Tensor> split(const Tensor &x, int64_t axis, const std::vector<int64_t> &sizes_in, int num_outputs,
                          const std::string &name) {
  int ax = normalize_axis(axis, x.ndim(), "Split");
  int64_t n = x.shape()[ax];
  std::vector<int64_t> sizes = sizes_in;
  if (sizes.empty()) {
    if (num_outputs <= 0 || num_outputs > n)
      throw AttributeError("Split: attribute 'num_outputs' = " + std::to_string(num_outputs) + " invalid for extent " + std::to_string(n));
    int64_t chunk = (n + num_outputs - 1) / num_outputs;
    for (int64_t s = 0; s < n; s += chunk) sizes.push_back(std::min(chunk, n - s));
  }
  int64_t total = 0;
  for (auto s : sizes) {
    if (s <= 0) throw AttributeError("Split: attribute 'split' has non-positive size in " + list_str(sizes));
    total += s;
  }
  if (total != n)
    throw AttributeError("Split: attribute 'split' " + list_str(sizes) + " sums to " + std::to_string(total) +
                         " but axis " + std::to_string(ax) + " has extent " + std::to_string(n));
  std::vector<Tensor> outs;
  int64_t off = 0;
  for (size_t k = 0; k < sizes.size(); k++) {
    Shape s = x.shape();
    s[ax] = sizes[k];
    int64_t o = off;
    Tensor t = compute(
        s,
        [&](const std::vector<Var> &i) {
          std::vector<Expr> idx = as_exprs(i);
          idx[ax] = Expr(i[ax]) + static_cast<int>(o);
          return x(idx);
        },
        name + "." + std::to_string(k), "", default_axis_names(x.ndim()));
    annotate(t, "injective", {{"op", "Split"}, {"axis", std::to_string(ax)}, {"split", list_str(sizes)}});
    outs.push_back(t);
    off += sizes[k];
  }
  return outs;
}

SliceRange slice_range(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::max<int64_t>(0, std::min(start, dim));
    end = std::max<int64_t>(0, std::min(end, dim));
  } else {
    start = std::max<int64_t>(-1, std::min(start, dim - 1));
    end = std::max<int64_t>(-1, std::min(end, dim - 1));
  }
  const int64_t len = step > 0 ? (end - start + step - 1) / step : (start - end + (-step) - 1) / (-step);
  return {start, step, std::max<int64_t>(0, len)};
}

Tensor slice(const Tensor &x, const std::vector<int64_t> &starts, const std::vector<int64_t> &ends,
             const std::vector<int64_t> &axes_in, const std::vector<int64_t> &steps_in, const std::string &name) {
  int r = x.ndim();
  if (starts.size() != ends.size())
    throw AttributeError("Slice: 'starts' " + list_str(starts) + " and 'ends' " + list_str(ends) + " differ in length");
  std::vector<int64_t> axes = axes_in, steps = steps_in;
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); i++) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    throw AttributeError("Slice: 'axes' / 'steps' length differs from 'starts'");
  std::vector<int64_t> st(r, 0), sp(r, 1);
  Shape out = x.shape();
  std::vector<bool> seen(r, false);
  for (size_t k = 0; k < starts.size(); k++) {
    int a = normalize_axis(axes[k], r, "Slice", "axes");
    if (seen[a]) throw AttributeError("Slice: attribute 'axes' repeats axis " + std::to_string(a));
    seen[a] = true;
    int64_t dim = x.shape()[a], step = steps[k];
    if (step == 0) throw AttributeError("Slice: attribute 'steps' has a zero step for axis " + std::to_string(a));
    const SliceRange range = slice_range(dim, starts[k], ends[k], step);
    if (range.length == 0)
      throw ShapeError("Slice: '" + x.name() + "' axis " + std::to_string(a) + " slice " + std::to_string(starts[k]) + ":" +
                       std::to_string(ends[k]) + ":" + std::to_string(step) + " is empty");
    st[a] = range.start;
    sp[a] = step;
    out[a] = range.length;
  }
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> idx;
        for (int d = 0; d < r; d++)
          idx.push_back(st[d] == 0 && sp[d] == 1 ? Expr(i[d]) : Expr(i[d]) * static_cast<int>(sp[d]) + static_cast<int>(st[d]));
        return x(idx);
      },
      name, "", default_axis_names(r));
  return annotate(t, "injective", {{"op", "Slice"}, {"starts", list_str(starts)}, {"ends", list_str(ends)},
                                   {"axes", list_str(axes)}, {"steps", list_str(steps)}});
}

Tensor transpose(const Tensor &x, const std::vector<int64_t> &perm_in, const std::string &name) {
  int r = x.ndim();
  std::vector<int64_t> perm = perm_in;
  if (perm.empty())
    for (int i = r - 1; i >= 0; i--) perm.push_back(i);
  if (static_cast<int>(perm.size()) != r) throw AttributeError("Transpose: attribute 'perm' " + list_str(perm) + " has wrong length for rank " + std::to_string(r));
  std::vector<bool> seen(r, false);
  for (auto &p : perm) {
    p = normalize_axis(p, r, "Transpose", "perm");
    if (seen[p]) throw AttributeError("Transpose: attribute 'perm' " + list_str(perm_in) + " is not a permutation");
    seen[p] = true;
  }
  Shape out(r);
  for (int i = 0; i < r; i++) out[i] = x.shape()[perm[i]];
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> idx(r);
        for (int d = 0; d < r; d++) idx[perm[d]] = i[d];
        return x(idx);
      },
      name, "", default_axis_names(r));
  return annotate(t, "injective", {{"op", "Transpose"}, {"perm", list_str(perm)}});
}

Tensor to_blocked(const Tensor &x, int64_t block, const std::string &name) {
  if (x.ndim() != 4) throw ShapeError("to_blocked: '" + x.name() + "' has shape " + shape_str(x.shape()) + ", not [N, C, H, W]");
  if (block < 1) throw AttributeError("to_blocked: block " + std::to_string(block) + " for '" + x.name() + "' is not positive");
  const int64_t C = x.shape()[1];
  const int b = static_cast<int>(block), c = static_cast<int>(C);
  Tensor y = compute(
      {x.shape()[0], (C + block - 1) / block, x.shape()[2], x.shape()[3], block},
      [&](const std::vector<Var> &i) {
        Expr ch = Expr(i[1]) * b + i[4];
        if (C % block == 0) return x(i[0], ch, i[2], i[3]);
        // The channels past C read a clamped (valid) index and are replaced by 0.
        return select(ch < c, x(i[0], min(ch, Expr(c - 1)), i[2], i[3]), make_float(0, x.dtype()));
      },
      name, "", {"n", "c", "h", "w", "cb"});
  return annotate(y, "injective", {{"op", "LayoutTransform"}, {"layout", "NCHW" + std::to_string(block) + "c"}});
}

Tensor to_plain(const Tensor &x, int64_t channels, const std::string &name) {
  if (x.ndim() != 5) throw ShapeError("to_plain: '" + x.name() + "' has shape " + shape_str(x.shape()) + ", not [N, C/b, H, W, b]");
  const int b = static_cast<int>(x.shape()[4]);
  const int64_t held = x.shape()[1] * b;
  if (channels == 0) channels = held;
  if (!channels_end_in_last_block(channels, x.shape()[1], b))
    throw AttributeError("to_plain: " + std::to_string(channels) + " channels do not fill the last of the " +
                         std::to_string(x.shape()[1]) + " blocks of " + std::to_string(b) + " of '" + x.name() + "'");
  Tensor y = compute(
      {x.shape()[0], channels, x.shape()[2], x.shape()[3]},
      [&](const std::vector<Var> &i) {
        Expr ch = i[1];
        return x(i[0], ch / b, i[2], i[3], ch % b);
      },
      name, "", {"n", "c", "h", "w"});
  return annotate(y, "injective", {{"op", "LayoutTransform"}, {"layout", "NCHW"}});
}

Tensor blocked_channel_gather(const std::vector<Tensor> &xs, const std::vector<int64_t> &channels, int64_t groups,
                              int64_t start, int64_t count, int64_t block, const std::string &name) {
  if (xs.empty() || xs.size() != channels.size())
    throw AttributeError("channel_gather '" + name + "': " + std::to_string(xs.size()) + " inputs and " +
                         std::to_string(channels.size()) + " channel counts");
  const Tensor &x0 = xs[0];
  std::vector<int64_t> offsets;
  int64_t C = 0;
  for (size_t k = 0; k < xs.size(); k++) {
    const Tensor &x = xs[k];
    if (x.ndim() != 5 || x0.ndim() != 5)
      throw ShapeError("channel_gather: '" + x.name() + "' has shape " + shape_str(x.shape()) + ", not [N, C/b, H, W, b]");
    if (x.dtype() != x0.dtype() || x.shape()[0] != x0.shape()[0] || x.shape()[2] != x0.shape()[2] || x.shape()[3] != x0.shape()[3])
      throw ShapeError("channel_gather: '" + x.name() + "' " + shape_str(x.shape()) + " differs from '" + x0.name() + "' " +
                       shape_str(x0.shape()) + " in N, H, W or dtype");
    if (!channels_end_in_last_block(channels[k], x.shape()[1], x.shape()[4]))
      throw AttributeError("channel_gather: " + std::to_string(channels[k]) + " channels do not end in the last block of '" +
                           x.name() + "' " + shape_str(x.shape()));
    offsets.push_back(C);
    C += channels[k];
  }
  if (groups < 1 || C % groups != 0)
    throw AttributeError("channel_gather '" + name + "': " + std::to_string(groups) + " groups do not divide " + std::to_string(C) + " channels");
  if (start < 0 || count < 1 || start + count > C)
    throw AttributeError("channel_gather '" + name + "': channels [" + std::to_string(start) + ", " + std::to_string(start + count) +
                         ") are not inside the " + std::to_string(C) + " gathered");
  if (block < 1) throw AttributeError("channel_gather '" + name + "': block " + std::to_string(block) + " is not positive");
  const int b = static_cast<int>(block), last = static_cast<int>(C - 1), g = static_cast<int>(groups);
  Tensor y = compute(
      {x0.shape()[0], (count + block - 1) / block, x0.shape()[2], x0.shape()[3], block},
      [&](const std::vector<Var> &i) {
        Expr c = Expr(i[1]) * b + i[4];
        Expr p = min(c + static_cast<int>(start), Expr(last));  // padding lanes read a valid channel, then 0
        Expr x = g == 1 ? p : (p % g) * static_cast<int>(C / groups) + p / g;
        Expr v;
        for (int k = static_cast<int>(xs.size()) - 1; k >= 0; k--) {
          const int xb = static_cast<int>(xs[k].shape()[4]), off = static_cast<int>(offsets[k]), n = static_cast<int>(channels[k]);
          Expr local = clamp(x - off, 0, n - 1);
          Expr e = xs[k](i[0], local / xb, i[2], i[3], local % xb);
          v = v.defined() ? select(x < off + n, e, v) : e;
        }
        return count % block == 0 ? v : select(c < static_cast<int>(count), v, make_float(0, x0.dtype()));
      },
      name, "", {"n", "c", "h", "w", "cb"});
  return annotate(y, "injective", {{"op", "ChannelGather"}, {"groups", std::to_string(groups)}});
}

namespace {
// Reads x at the element with the same row-major flat position as `out_idx` in out_shape.
Expr reshape_access(const Tensor &x, const Shape &out_shape, const std::vector<Var> &i) {
  Expr flat = 0;
  bool first = true;
  for (size_t d = 0; d < out_shape.size(); d++) {
    if (first) { flat = i[d]; first = false; }
    else flat = flat * static_cast<int>(out_shape[d]) + i[d];
  }
  std::vector<Expr> idx(x.ndim());
  for (int d = x.ndim() - 1; d >= 0; d--) {
    int64_t ext = x.shape()[d];
    if (d == 0) idx[d] = flat;
    else {
      idx[d] = flat % static_cast<int>(ext);
      flat = flat / static_cast<int>(ext);
    }
  }
  return x(idx);
}
Tensor reshape_to(const Tensor &x, const Shape &out, const std::string &name, const std::string &onnx,
                  const std::map<std::string, std::string> &attrs) {
  if (prod(out, 0, out.size()) != x.size())
    throw ShapeError(onnx + ": cannot reshape '" + x.name() + "' of shape " + shape_str(x.shape()) + " to " + shape_str(out));
  Tensor t = compute(
      out, [&](const std::vector<Var> &i) { return reshape_access(x, out, i); }, name, "",
      default_axis_names(static_cast<int>(out.size())));
  annotate(t, "injective", attrs);
  t.node()->attrs["op"] = onnx;
  return t;
}
}  // namespace

Tensor reshape(const Tensor &x, const Shape &new_shape, const std::string &name) {
  Shape out = new_shape;
  int infer = -1;
  int64_t known = 1;
  for (size_t d = 0; d < out.size(); d++) {
    if (out[d] == 0) {
      if (d >= x.shape().size()) throw AttributeError("Reshape: attribute 'shape' " + list_str(new_shape) + ": 0 at axis " + std::to_string(d) + " beyond input rank");
      out[d] = x.shape()[d];
    }
    if (out[d] == -1) {
      if (infer >= 0) throw AttributeError("Reshape: attribute 'shape' " + list_str(new_shape) + " has more than one -1");
      infer = static_cast<int>(d);
    } else if (out[d] < 0) {
      throw AttributeError("Reshape: attribute 'shape' " + list_str(new_shape) + " has invalid extent " + std::to_string(out[d]));
    } else {
      known *= out[d];
    }
  }
  if (infer >= 0) {
    if (known == 0 || x.size() % known != 0)
      throw ShapeError("Reshape: cannot infer -1 reshaping '" + x.name() + "' of shape " + shape_str(x.shape()) + " to " + list_str(new_shape));
    out[infer] = x.size() / known;
  }
  return reshape_to(x, out, name, "Reshape", {{"shape", list_str(new_shape)}});
}

Tensor flatten(const Tensor &x, int64_t axis, const std::string &name) {
  int r = x.ndim();
  if (axis < -r || axis > r) throw AttributeError("Flatten: attribute 'axis' = " + std::to_string(axis) + " out of range for rank " + std::to_string(r));
  size_t a = static_cast<size_t>(axis < 0 ? axis + r : axis);
  Shape out = {prod(x.shape(), 0, a), prod(x.shape(), a, r)};
  return reshape_to(x, out, name, "Flatten", {{"axis", std::to_string(a)}});
}

Tensor squeeze(const Tensor &x, const std::vector<int64_t> &axes, const std::string &name) {
  int r = x.ndim();
  std::vector<bool> drop(r, false);
  if (axes.empty()) {
    for (int d = 0; d < r; d++) drop[d] = x.shape()[d] == 1;
  } else {
    for (auto a : axes) {
      int d = normalize_axis(a, r, "Squeeze", "axes");
      if (x.shape()[d] != 1)
        throw ShapeError("Squeeze: axis " + std::to_string(d) + " of '" + x.name() + "' (shape " + shape_str(x.shape()) + ") is not 1");
      drop[d] = true;
    }
  }
  Shape out;
  std::vector<int64_t> dropped;
  for (int d = 0; d < r; d++) {
    if (!drop[d]) out.push_back(x.shape()[d]);
    else dropped.push_back(d);
  }
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> idx;
        size_t k = 0;
        for (int d = 0; d < r; d++) idx.push_back(drop[d] ? Expr(0) : Expr(i[k++]));
        return x(idx);
      },
      name, "", default_axis_names(static_cast<int>(out.size())));
  return annotate(t, "injective", {{"op", "Squeeze"}, {"axes", list_str(dropped)}});
}

Tensor unsqueeze(const Tensor &x, const std::vector<int64_t> &axes, const std::string &name) {
  int r = x.ndim() + static_cast<int>(axes.size());
  std::vector<bool> ins(r, false);
  std::vector<int64_t> norm;
  for (auto a : axes) {
    int d = normalize_axis(a, r, "Unsqueeze", "axes");
    if (ins[d]) throw AttributeError("Unsqueeze: attribute 'axes' " + list_str(axes) + " repeats an axis");
    ins[d] = true;
    norm.push_back(d);
  }
  Shape out;
  size_t k = 0;
  for (int d = 0; d < r; d++) out.push_back(ins[d] ? 1 : x.shape()[k++]);
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> idx;
        for (int d = 0; d < r; d++)
          if (!ins[d]) idx.push_back(i[d]);
        return x(idx);
      },
      name, "", default_axis_names(r));
  return annotate(t, "injective", {{"op", "Unsqueeze"}, {"axes", list_str(norm)}});
}

Tensor pad(const Tensor &x, const std::vector<int64_t> &pads, const std::string &mode, double value, const std::string &name) {
  int r = x.ndim();
  if (static_cast<int>(pads.size()) != 2 * r)
    throw AttributeError("Pad: attribute 'pads' " + list_str(pads) + " must have 2*rank = " + std::to_string(2 * r) + " values");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    throw AttributeError("Pad: attribute 'mode' = '" + mode + "' (expected constant, edge or reflect)");
  Shape out(r);
  for (int d = 0; d < r; d++) {
    int64_t n = x.shape()[d], b = pads[d], e = pads[d + r];
    out[d] = n + b + e;
    if (out[d] <= 0) throw ShapeError("Pad: pads " + list_str(pads) + " leave axis " + std::to_string(d) + " of '" + x.name() + "' empty");
    if (mode == "reflect" && (b >= n || e >= n))
      throw AttributeError("Pad: reflect pads " + list_str(pads) + " must be smaller than extent " + std::to_string(n) + " of axis " + std::to_string(d));
    if (mode != "constant" && (b < 0 || e < 0))
      throw AttributeError("Pad: negative pads " + list_str(pads) + " are only supported in constant mode");
  }
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> idx;
        Expr inside;
        for (int d = 0; d < r; d++) {
          int n = static_cast<int>(x.shape()[d]), b = static_cast<int>(pads[d]);
          Expr j = b == 0 ? Expr(i[d]) : Expr(i[d]) - b;
          bool may_leave = pads[d] > 0 || pads[d + r] > 0;
          if (!may_leave) { idx.push_back(j); continue; }
          if (mode == "constant") {
            Expr c = j >= 0 && j < n;
            inside = inside.defined() ? (inside && c) : c;
            idx.push_back(clamp(j, 0, n - 1));
          } else if (mode == "edge") {
            idx.push_back(clamp(j, 0, n - 1));
          } else {  // reflect: -k -> k, n-1+k -> n-1-k
            Expr a = tetune::abs(j);
            idx.push_back(clamp(Expr(n - 1) - tetune::abs(Expr(n - 1) - a), 0, n - 1));
          }
        }
        Expr v = x(idx);
        if (inside.defined()) {
          Expr fill = x.dtype().is_float() ? make_float(value, x.dtype()) : make_int(static_cast<int64_t>(value), x.dtype());
          v = select(inside, v, fill);
        }
        return v;
      },
      name, "", default_axis_names(r));
  return annotate(t, "injective", {{"op", "Pad"}, {"pads", list_str(pads)}, {"mode", mode}, {"value", num_str(value)}});
}

Tensor gather(const Tensor &data, const Tensor &indices, int64_t axis, const std::string &name) {
  if (indices.dtype() != int32() && indices.dtype() != int64())
    throw DTypeError("Gather: indices '" + indices.name() + "' must be int32 or int64, got " + indices.dtype().str());
  int r = data.ndim();
  int ax = normalize_axis(axis, r, "Gather");
  Shape out;
  for (int d = 0; d < ax; d++) out.push_back(data.shape()[d]);
  for (auto s : indices.shape()) out.push_back(s);
  for (int d = ax + 1; d < r; d++) out.push_back(data.shape()[d]);
  int q = indices.ndim();
  std::vector<std::string> names;
  for (int d = 0; d < static_cast<int>(out.size()); d++) names.push_back("i" + std::to_string(d));
  Tensor t = compute(
      out,
      [&](const std::vector<Var> &i) {
        std::vector<Expr> iidx(i.begin() + ax, i.begin() + ax + q);
        Expr k = tetune::cast(int32(), indices(iidx));
        int n = static_cast<int>(data.shape()[ax]);
        k = clamp(select(k < 0, k + n, k), 0, n - 1);
        std::vector<Expr> idx;
        for (int d = 0; d < ax; d++) idx.push_back(i[d]);
        idx.push_back(k);
        for (int d = ax + 1; d < r; d++) idx.push_back(i[d - 1 + q]);
        return data(idx);
      },
      name, "", names);
  return annotate(t, "injective", {{"op", "Gather"}, {"axis", std::to_string(ax)}});
}

Tensor expand(const Tensor &x, const Shape &shape, const std::string &name) {
  Shape out = broadcast_shapes(x.shape(), shape);
  Tensor t = compute(
      out, [&](const std::vector<Var> &i) { return x(broadcast_index(x, out, i)); }, name, "",
      default_axis_names(static_cast<int>(out.size())));
  return annotate(t, "broadcast", {{"op", "Expand"}, {"shape", list_str(shape)}});
}

}  // namespace ops
}  // namespace tetune
