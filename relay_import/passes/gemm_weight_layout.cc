#include "relay_import/passes/gemm_weight_layout.h"

namespace tetune {
namespace relay {

int pretranspose_gemm_weights(Graph &g) {
  int done = 0;
  for (size_t id = 0; id < g.nodes.size(); id++) {
    const Node &n = g.nodes[id];
    if (n.dead || n.op != "Gemm" || n.attr_i("transB", 0) == 0 || n.inputs.size() < 2) continue;
    const Value &a = g.values[n.inputs[0]], &b = g.values[n.inputs[1]];
    if (!b.is_const() || b.data->ndim() != 2 || !b.data->dtype().is_float()) continue;
    const bool one_row = a.shape_known && a.shape.size() == 2 && a.shape[n.attr_i("transA", 0) ? 1 : 0] == 1;
    if (one_row) continue;  // a matrix-vector product: W's rows are its dot products (above)
    const NDArray &W = *b.data;
    const int64_t rows = W.shape()[0], cols = W.shape()[1];
    NDArray T(Shape{cols, rows}, W.dtype());
    for (int64_t r = 0; r < rows; r++)
      for (int64_t c = 0; c < cols; c++) T.set(c * rows + r, W.get(r * cols + c));
    const int t = g.add_const(b.name + ".T", T);
    Node &gemm = g.nodes[id];
    gemm.inputs[1] = t;
    gemm.attrs["transB"] = Attr::of_int(0);
    done++;
  }
  if (done) g.compact();
  return done;
}

}  // namespace relay
}  // namespace tetune
