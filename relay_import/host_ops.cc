#include "relay_import/host_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <numeric>

#include "base/errors.h"

namespace tetune {
namespace relay {

namespace {

[[noreturn]] void fail(const Node &n, const std::string &msg) {
  throw RuntimeError(n.op + " node '" + n.name + "': " + msg);
}

// Row-major strides in elements.
std::vector<int64_t> strides_of(const Shape &s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int i = static_cast<int>(s.size()) - 2; i >= 0; i--) st[i] = st[i + 1] * s[i + 1];
  return st;
}

int64_t numel(const Shape &s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

// ---- NonZero (ONNX Operators.md NonZero): indices of nonzero elements, [rank, nnz], row-major order.
std::vector<NDArray> nonzero(const Node &, const std::vector<NDArray> &in) {
  const NDArray &x = in.at(0);
  int r = std::max(1, x.ndim());  // a scalar is treated as shape [1]
  std::vector<int64_t> hits;
  for (int64_t i = 0; i < x.size(); i++)
    if (x.get(i) != 0) hits.push_back(i);  // NaN != 0: counted, as in onnxruntime
  NDArray y(Shape{r, static_cast<int64_t>(hits.size())}, int64());
  auto st = strides_of(x.ndim() ? x.shape() : Shape{1});
  int64_t *p = y.data<int64_t>();
  for (size_t k = 0; k < hits.size(); k++)
    for (int a = 0; a < r; a++) p[a * hits.size() + k] = hits[k] / st[a] % (x.ndim() ? x.shape()[a] : 1);
  return {y};
}

int nonzero_axis(const Node &, int k, int) { return k == 0 ? 1 : -1; }

// Split shape around axis: outer (before), extent, inner (after).
struct AxisView {
  int64_t outer = 1, extent = 1, inner = 1;
};
AxisView around(const Shape &s, int axis) {
  AxisView v;
  for (int i = 0; i < static_cast<int>(s.size()); i++) {
    if (i < axis) v.outer *= s[i];
    else if (i == axis) v.extent = s[i];
    else v.inner *= s[i];
  }
  return v;
}

// Copies the slices `keep` (indices along axis) of x into a new array.
NDArray gather_slices(const NDArray &x, int axis, const std::vector<int64_t> &keep) {
  AxisView v = around(x.shape(), axis);
  Shape s = x.shape();
  s[axis] = static_cast<int64_t>(keep.size());
  NDArray y(s, x.dtype());
  int64_t b = x.dtype().bytes(), row = v.inner * b;
  const char *src = static_cast<const char *>(x.raw());
  char *dst = static_cast<char *>(y.raw());
  for (int64_t o = 0; o < v.outer; o++)
    for (size_t k = 0; k < keep.size(); k++)
      std::memcpy(dst + ((o * keep.size() + k) * v.inner) * b, src + ((o * v.extent + keep[k]) * v.inner) * b, row);
  return y;
}

// ---- Compress (ONNX Operators.md Compress): slices along axis (or elements of the
// flattened input) where condition is true; condition may be shorter than the axis.
int compress_axis_of(const Node &n, int rank) {
  if (!n.has_attr("axis")) return -1;
  int64_t a = n.attr_i("axis", 0);
  if (a < -rank || a >= rank) fail(n, "attribute 'axis' " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
  return static_cast<int>(a < 0 ? a + rank : a);
}

std::vector<NDArray> compress(const Node &n, const std::vector<NDArray> &in) {
  const NDArray &x = in.at(0), &cond = in.at(1);
  int axis = compress_axis_of(n, x.ndim());
  NDArray flat = axis < 0 ? x.reshaped(Shape{x.size()}) : x;
  int a = axis < 0 ? 0 : axis;
  int64_t extent = flat.shape()[a];
  if (cond.size() > extent)
    fail(n, "condition has " + std::to_string(cond.size()) + " entries, more than the " + std::to_string(extent) + " along the axis");
  std::vector<int64_t> keep;
  for (int64_t i = 0; i < cond.size(); i++)
    if (cond.get(i) != 0) keep.push_back(i);
  return {gather_slices(flat, a, keep)};
}

int compress_axis(const Node &n, int k, int rank) {
  if (k != 0) return -1;
  return std::max(0, compress_axis_of(n, rank));
}

// ---- Unique (ONNX Operators.md Unique): unique values (or slices along axis),
// sorted ascending (sorted=1) or in first-occurrence order; outputs Y, indices
// (first occurrence), inverse_indices, counts. Slices compare element by element.
std::vector<NDArray> unique(const Node &n, const std::vector<NDArray> &in) {
  const NDArray &x = in.at(0);
  int axis = compress_axis_of(n, x.ndim());
  NDArray flat = axis < 0 ? x.reshaped(Shape{x.size()}) : x;
  int a = axis < 0 ? 0 : axis;
  AxisView v = around(flat.shape(), a);
  // slice k as a vector of doubles (exact for every supported dtype but int64 beyond 2^53)
  auto slice = [&](int64_t k) {
    std::vector<double> s;
    s.reserve(v.outer * v.inner);
    for (int64_t o = 0; o < v.outer; o++)
      for (int64_t i = 0; i < v.inner; i++) s.push_back(flat.get((o * v.extent + k) * v.inner + i));
    return s;
  };
  std::map<std::vector<double>, int64_t> first;  // slice -> unique id (first-occurrence order)
  std::vector<int64_t> first_index, counts, inverse(v.extent);
  std::vector<std::vector<double>> values;
  for (int64_t k = 0; k < v.extent; k++) {
    auto s = slice(k);
    auto it = first.find(s);
    if (it == first.end()) {
      it = first.emplace(s, static_cast<int64_t>(values.size())).first;
      values.push_back(s);
      first_index.push_back(k);
      counts.push_back(0);
    }
    inverse[k] = it->second;
    counts[it->second]++;
  }
  int64_t U = static_cast<int64_t>(values.size());
  std::vector<int64_t> order(U);  // output position -> unique id
  std::iota(order.begin(), order.end(), 0);
  if (n.attr_i("sorted", 1) != 0)
    std::sort(order.begin(), order.end(), [&](int64_t p, int64_t q) { return values[p] < values[q]; });
  std::vector<int64_t> pos(U);
  for (int64_t p = 0; p < U; p++) pos[order[p]] = p;
  std::vector<int64_t> keep(U);
  for (int64_t p = 0; p < U; p++) keep[p] = first_index[order[p]];
  NDArray y = gather_slices(flat, a, keep);
  NDArray idx(Shape{U}, int64()), inv(Shape{v.extent}, int64()), cnt(Shape{U}, int64());
  for (int64_t p = 0; p < U; p++) {
    idx.data<int64_t>()[p] = keep[p];
    cnt.data<int64_t>()[p] = counts[order[p]];
  }
  for (int64_t k = 0; k < v.extent; k++) inv.data<int64_t>()[k] = pos[inverse[k]];
  return {y, idx, inv, cnt};
}

int unique_axis(const Node &n, int k, int rank) {
  if (k == 2) return -1;  // inverse_indices: one per input slice
  return k == 0 ? std::max(0, compress_axis_of(n, rank)) : 0;
}

// ---- NonMaxSuppression (ONNX Operators.md NonMaxSuppression; the IoU and
// ordering follow onnxruntime's CPU kernel): per batch and class, candidates
// with score > score_threshold in descending score order (ties: lower box
// index first) are kept unless their IoU with a kept box exceeds
// iou_threshold, at most max_output_boxes_per_class of them. Output rows
// [batch, class, box] in batch, class, selection order.
struct Box {
  float ymin, xmin, ymax, xmax;
};

Box box_at(const float *b, bool center) {
  if (center) {  // [x_center, y_center, width, height]
    float xc = b[0], yc = b[1], hw = b[2] / 2, hh = b[3] / 2;
    return {yc - hh, xc - hw, yc + hh, xc + hw};
  }
  return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

bool suppresses(const Box &a, const Box &b, float iou_threshold) {
  float ymin = std::max(a.ymin, b.ymin), ymax = std::min(a.ymax, b.ymax);
  float xmin = std::max(a.xmin, b.xmin), xmax = std::min(a.xmax, b.xmax);
  if (!(ymax > ymin) || !(xmax > xmin)) return false;
  float area_a = (a.ymax - a.ymin) * (a.xmax - a.xmin), area_b = (b.ymax - b.ymin) * (b.xmax - b.xmin);
  if (!(area_a > 0) || !(area_b > 0)) return false;
  float inter = (ymax - ymin) * (xmax - xmin), uni = area_a + area_b - inter;
  if (!(uni > 0)) return false;
  return inter / uni > iou_threshold;
}

std::vector<NDArray> nms(const Node &n, const std::vector<NDArray> &in) {
  const NDArray &boxes = in.at(0), &scores = in.at(1);
  if (boxes.dtype() != float32() || scores.dtype() != float32()) fail(n, "boxes and scores must be float32");
  int64_t B = boxes.shape()[0], N = boxes.shape()[1], C = scores.shape()[1];
  int64_t max_out = in.size() > 2 && in[2].size() > 0 ? in[2].get_int(0) : 0;
  float iou = in.size() > 3 && in[3].size() > 0 ? static_cast<float>(in[3].get(0)) : 0.0f;
  bool has_score = in.size() > 4 && in[4].size() > 0;
  float score_thr = has_score ? static_cast<float>(in[4].get(0)) : 0.0f;
  if (!(iou >= 0 && iou <= 1)) fail(n, "iou_threshold " + std::to_string(iou) + " must lie in [0, 1]");
  bool center = n.attr_i("center_point_box", 0) != 0;
  const float *bx = boxes.data<float>(), *sc = scores.data<float>();
  std::vector<int64_t> rows;
  for (int64_t b = 0; b < B; b++)
    for (int64_t c = 0; c < C; c++) {
      const float *s = sc + (b * C + c) * N;
      std::vector<int64_t> cand;
      for (int64_t i = 0; i < N; i++)
        if (!has_score || s[i] > score_thr) cand.push_back(i);
      std::stable_sort(cand.begin(), cand.end(), [&](int64_t p, int64_t q) { return s[p] > s[q]; });
      std::vector<Box> kept;
      for (int64_t i : cand) {
        if (static_cast<int64_t>(kept.size()) >= max_out) break;
        Box bi = box_at(bx + (b * N + i) * 4, center);
        bool hit = false;
        for (const Box &k : kept) hit = hit || suppresses(k, bi, iou);
        if (hit) continue;
        kept.push_back(bi);
        rows.insert(rows.end(), {b, c, i});
      }
    }
  NDArray y(Shape{static_cast<int64_t>(rows.size() / 3), 3}, int64());
  std::copy(rows.begin(), rows.end(), y.data<int64_t>());
  return {y};
}

int nms_axis(const Node &, int k, int) { return k == 0 ? 0 : -1; }

}  // namespace

const HostOp *find_host_op(const std::string &op) {
  static const std::map<std::string, HostOp> table = {
      {"NonZero", {nonzero, nonzero_axis}},
      {"Compress", {compress, compress_axis}},
      {"Unique", {unique, unique_axis}},
      {"NonMaxSuppression", {nms, nms_axis}},
  };
  auto it = table.find(op);
  return it == table.end() ? nullptr : &it->second;
}

std::vector<NDArray> run_host_op(const Node &n, const std::vector<NDArray> &inputs) {
  const HostOp *h = find_host_op(n.op);
  if (!h) throw RuntimeError(n.op + " node '" + n.name + "' is not a host op (internal error)");
  return h->run(n, inputs);
}

NDArray take_leading(const NDArray &a, int axis, int64_t count) {
  std::vector<int64_t> keep(count);
  std::iota(keep.begin(), keep.end(), 0);
  return gather_slices(a, axis, keep);
}

NDArray pad_to(const NDArray &a, const Shape &shape) {
  if (a.shape() == shape) return a;
  bool fits = a.ndim() == static_cast<int>(shape.size());
  for (int d = 0; fits && d < a.ndim(); d++) fits = a.shape()[d] <= shape[d];
  if (!fits) throw RuntimeError("host op output " + shape_str(a.shape()) + " exceeds its declared bound " + shape_str(shape) + " (internal error)");
  NDArray y(shape, a.dtype());
  std::memset(y.raw(), 0, y.nbytes());
  auto sa = strides_of(a.shape()), sy = strides_of(shape);
  int64_t b = a.dtype().bytes();
  const char *src = static_cast<const char *>(a.raw());
  char *dst = static_cast<char *>(y.raw());
  for (int64_t i = 0; i < a.size(); i++) {
    int64_t o = 0;
    for (size_t d = 0; d < shape.size(); d++) o += (i / sa[d] % a.shape()[d]) * sy[d];
    std::memcpy(dst + o * b, src + i * b, b);
  }
  return y;
}

}  // namespace relay
}  // namespace tetune
