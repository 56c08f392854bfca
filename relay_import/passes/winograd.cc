#include "relay_import/passes/winograd.h"

#include <algorithm>

#include "te/ops/winograd.h"

namespace tetune {
namespace relay {

namespace {

int new_value(Graph &g, const std::string &name, const Shape &shape) { return g.add_value(name, shape, float32(), true); }

bool convert(Graph &g, int id) {
  const Node n = g.nodes[id];
  if (n.op != "tetune.ConvNCHWc" || n.inputs.size() < 2 || n.outputs.size() != 1 || n.outputs[0] < 0) return false;
  if (n.attr_ints("strides", {1, 1}) != std::vector<int64_t>{1, 1} || n.attr_i("groups", 1) != 1) return false;
  const std::vector<int64_t> pads = n.attr_ints("pads", {0, 0, 0, 0});
  // Copies: adding values below moves g.values.
  const Value x = g.values[n.inputs[0]], w = g.values[n.inputs[1]], y = g.values[n.outputs[0]];
  if (!w.is_const() || w.dtype != float32() || w.shape.size() != 6 || w.shape[2] != 3 || w.shape[3] != 3) return false;
  if (!x.shape_known || x.shape.size() != 5 || !y.shape_known || y.shape.size() != 5 || pads.size() != 4) return false;
  const int64_t N = x.shape[0], C = x.shape[1] * x.shape[4], K = y.shape[1] * y.shape[4], OH = y.shape[2], OW = y.shape[3];
  if (C < kMinWinogradChannels || K < kMinWinogradChannels || OH < 2 || OW < 2) return false;
  const int tile = winograd_tile(N, OH, OW, x.shape[4]);
  const int64_t alpha = ops::winograd_matrices(tile).alpha, P = N * ops::winograd_tiles(OH, tile) * ops::winograd_tiles(OW, tile);

  const int uv = g.add_const(w.name + ".winograd" + std::to_string(tile), ops::winograd_weight(*w.data, tile));

  const WinogradValueNames names = winograd_value_names(y.name);
  const int v = new_value(g, names.input, {alpha * alpha, x.shape[1], P, x.shape[4]});
  const int m = new_value(g, names.product, {alpha * alpha, y.shape[1], P, y.shape[4]});
  Node in;
  in.op = "tetune.WinogradInput";
  in.name = n.name + ".winograd_input";
  in.attrs["m"] = Attr::of_int(tile);
  in.attrs["pads"] = Attr::of_ints(pads);
  in.inputs = {n.inputs[0]};
  in.outputs = {v};
  Node gemm;
  gemm.op = "tetune.WinogradGemm";
  gemm.name = n.name + ".winograd_gemm";
  gemm.inputs = {v, uv};
  gemm.outputs = {m};
  Node out;
  out.op = "tetune.WinogradOutput";
  out.name = n.name;
  out.attrs["m"] = Attr::of_int(tile);
  out.attrs["output_hw"] = Attr::of_ints({OH, OW});
  if (n.attrs.count("channels")) out.attrs["channels"] = n.attrs.at("channels");  // where padded channels start
  out.inputs = {m};
  if (n.inputs.size() > 2 && n.inputs[2] >= 0) out.inputs.push_back(n.inputs[2]);
  out.outputs = n.outputs;
  g.nodes[id].dead = true;
  g.add_node(in);
  g.add_node(gemm);
  g.add_node(out);
  return true;
}

bool stays_direct(const Graph &g, const Node &n, const std::set<std::string> &keep_direct) {
  return !keep_direct.empty() && n.outputs.size() == 1 && n.outputs[0] >= 0 && keep_direct.count(g.values[n.outputs[0]].name);
}

}  // namespace

int winograd_tile(int64_t N, int64_t OH, int64_t OW, int64_t lanes) {
  // The GEMM's roofline time per C x K channel pair, in units of 1 / bandwidth: alpha^2 x max(2P / balance, 4),
  // times the balance (= lanes flops per byte, above) to stay in integers.
  auto roofline = [&](int m) {
    const int64_t alpha = m + 2, P = N * ops::winograd_tiles(OH, m) * ops::winograd_tiles(OW, m);
    return alpha * alpha * std::max<int64_t>(2 * P, 4 * lanes);
  };
  const int64_t p4 = N * ops::winograd_tiles(OH, 4) * ops::winograd_tiles(OW, 4);
  return p4 >= kMinWinogradTileRows && roofline(4) < roofline(2) ? 4 : 2;
}

WinogradValueNames winograd_value_names(const std::string &conv_output) {
  return {conv_output + ".winograd_input", conv_output + ".winograd_product", conv_output};
}

std::vector<std::string> convert_convs_to_winograd(Graph &g, const std::set<std::string> &keep_direct) {
  std::vector<std::string> converted;
  const size_t before = g.nodes.size();  // the nodes added on the way are not convs
  for (size_t id = 0; id < before; id++) {
    const Node &n = g.nodes[id];
    if (n.dead || stays_direct(g, n, keep_direct)) continue;
    const std::string conv = n.outputs.size() == 1 && n.outputs[0] >= 0 ? g.values[n.outputs[0]].name : "";
    if (convert(g, static_cast<int>(id))) converted.push_back(conv);  // convert checked the one output
  }
  if (!converted.empty()) g.compact();
  return converted;
}

}  // namespace relay
}  // namespace tetune
