#include "relay_import/passes/blocked_layout.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "relay_import/passes/elementwise_ops.h"
#include "te/ops/transform.h"

namespace tetune {
namespace relay {

namespace {

const char *const kToBlocked = "tetune.ToBlocked";
const char *const kToPlain = "tetune.ToPlain";
const char *const kChannelGather = "tetune.ChannelGatherNCHWc";
constexpr int64_t kMinBlock = 8;

// Pools over H and W that keep the channel blocks, and their blocked ops.
const std::map<std::string, std::string> &blocked_pool_ops() {
  static const std::map<std::string, std::string> ops = {{"MaxPool", "tetune.MaxPoolNCHWc"},
                                                         {"AveragePool", "tetune.AveragePoolNCHWc"},
                                                         {"GlobalAveragePool", "tetune.GlobalAveragePoolNCHWc"}};
  return ops;
}

// A live Conv node with its data and weight inputs and an output.
bool conv_with_weight(const Node &n) {
  return !n.dead && n.op == "Conv" && n.inputs.size() >= 2 && !n.outputs.empty() && n.inputs[0] >= 0 && n.inputs[1] >= 0;
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// C channels padded up to whole vectors of b lanes waste at most a third of
// the lanes (24 -> 32, 40 -> 48, 72 -> 80, 120 -> 128 ...; 8 -> 16 not).
// onnxruntime's NCHWc transformer pads channels to its block likewise.
bool padded_block_fits(const Shape &s, int64_t b) {
  return s.size() == 4 && s[1] % b != 0 && 3 * (ceil_div(s[1], b) * b - s[1]) <= s[1];
}

// The [N, C, H, W] shapes that padded_block_fits and that a conv reads, or
// that only convs, elementwise ops and pools read (they run blocked). A value
// of a shape some conv reads pays one ToPlain (cropping the padding) for its
// other readers, and that conv reduces over whole vectors of channels:
// ShuffleNetV2's 116- and 232-channel branches, whose values Concat and Slice
// also read, ran 1.25x faster so (bench/RESULTS.md, forty-first session). A
// shape no conv reads gains only at the conv writing it: PP-OCR det's
// 24-channel maps, read by Resize and Concat, ran 16% slower padded
// (bench/RESULTS.md, ninth session). [N, C, 1, 1] values are a few floats.
std::set<Shape> padded_shapes(const Graph &g, int64_t b) {
  std::set<Shape> fits, read_plain, read_by_conv;
  for (const Value &v : g.values)
    if (v.shape_known && v.dtype == float32() && padded_block_fits(v.shape, b)) fits.insert(v.shape);
  for (const Node &n : g.nodes) {
    if (n.dead) continue;
    if (conv_with_weight(n)) read_by_conv.insert(g.values[n.inputs[0]].shape);
    const bool blocked_reader = n.op == "Conv" || broadcasting_elementwise_ops().count(n.op) || blocked_pool_ops().count(n.op);
    for (int v : n.inputs)
      if (v >= 0 && !blocked_reader && fits.count(g.values[v].shape)) read_plain.insert(g.values[v].shape);
  }
  for (int v : g.outputs)
    if (v >= 0) read_plain.insert(g.values[v].shape);
  std::set<Shape> picked;
  for (const Shape &s : fits)
    if (!read_plain.count(s) || read_by_conv.count(s) || s[2] * s[3] == 1) picked.insert(s);
  // A conv whose output stays NCHW reads its input NCHW too: until nothing changes.
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (const Node &n : g.nodes) {
      if (!conv_with_weight(n)) continue;
      const Shape &x = g.values[n.inputs[0]].shape, &y = g.values[n.outputs[0]].shape;
      if (picked.count(x) && y.size() == 4 && y[1] % b != 0 && !picked.count(y)) dropped |= picked.erase(x) > 0;
    }
  }
  return picked;
}

// Half a vector of channels (8 with AVX-512) divides C, and a full one does not.
bool half_block_fits(const Shape &s, int64_t b) { return b / 2 >= kMinBlock && s[1] % b != 0 && s[1] % (b / 2) == 0; }

// The block of a [N, C, H, W] shape: the vector's lanes b where they divide
// C or the shape is in `padded` (above); else half of them on planes
// narrower than two vectors, where an NCHW conv's vectors along W waste
// lanes too, and on wider planes of the shapes in `half_blocked`; else 0 (NCHW).
int64_t block_for(const Shape &s, int64_t b, const std::set<Shape> &half_blocked, const std::set<Shape> &padded) {
  if (s[1] % b == 0 || padded.count(s)) return b;
  if (half_block_fits(s, b) && (s[3] < 2 * b || half_blocked.count(s))) return b / 2;
  return 0;
}

// The [N, C, H, W] shapes whose channels take a half block (above) because the
// convs that read them do at least as many multiply-adds as the convs that
// write them (block_for gives planes narrower than two vectors a half block
// whatever this says). Half-blocked, a conv writing such a value fills half
// its lanes (the block is the vector), where NCHW fills them along W: PP-OCR det's 96 -> 24 convs at 160x160, read by no
// conv, ran 1.3-1.5x slower so. Kept NCHW, a conv reading it runs NCHW (or
// after a ToBlocked) and its producer's neighbours pay ToPlain / ToBlocked:
// EfficientNet-B0's 24 -> 144 convs at 56x56 ran 1.7x slower so
// (bench/RESULTS.md, 2026-11-28 sixth session). A shape next to a conv whose
// other side stays NCHW is not picked: the half block would put a ToPlain or
// ToBlocked pass beside it (MobileNetV3's 24 channels at 56x56 between its
// NCHW 72-channel values ran 2.4% slower so; bench/RESULTS.md, seventh session).
std::set<Shape> half_blocked_shapes(const Graph &g, int64_t b, const std::set<Shape> &padded) {
  std::map<Shape, double> written, read;  // multiply-adds of the convs writing / reading each shape
  std::map<Shape, std::set<Shape>> beside;  // the shapes on the other side of those convs
  for (const Node &n : g.nodes) {
    if (!conv_with_weight(n)) continue;
    const Value &x = g.values[n.inputs[0]], &w = g.values[n.inputs[1]], &y = g.values[n.outputs[0]];
    if (!x.shape_known || !w.shape_known || !y.shape_known || x.shape.size() != 4 || w.shape.size() != 4 ||
        y.shape.size() != 4)
      continue;
    double macs = 1;
    for (int64_t d : y.shape) macs *= static_cast<double>(d);
    macs *= static_cast<double>(w.shape[1] * w.shape[2] * w.shape[3]);
    if (half_block_fits(y.shape, b) && !padded.count(y.shape)) written[y.shape] += macs, beside[y.shape].insert(x.shape);
    if (half_block_fits(x.shape, b) && !padded.count(x.shape)) read[x.shape] += macs, beside[x.shape].insert(y.shape);
  }
  std::set<Shape> picked;
  for (const auto &[shape, macs] : read)
    if (macs >= written[shape]) picked.insert(shape);
  // Dropping a shape can leave another beside an NCHW value: until nothing changes.
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (auto it = picked.begin(); it != picked.end();) {
      const std::set<Shape> &others = beside[*it];
      const bool beside_nchw =
          std::any_of(others.begin(), others.end(), [&](const Shape &o) { return block_for(o, b, picked, padded) == 0; });
      it = beside_nchw ? picked.erase(it) : std::next(it);
      dropped |= beside_nchw;
    }
  }
  return picked;
}

// Channels start .. start + count of the blocked `inputs`' channels (channels[k] each) joined and
// shuffled in `groups` groups: a tetune.ChannelGatherNCHWc (ops::blocked_channel_gather).
struct ChannelGather {
  std::vector<int> inputs;
  std::vector<int64_t> channels;
  int64_t groups = 1, start = 0, count = 0;
  int64_t joined() const {
    int64_t c = 0;
    for (int64_t k : channels) c += k;
    return c;
  }
};

class Rewriter {
 public:
  Rewriter(Graph &g, int64_t block)
      : g_(g), b_(block), padded_(padded_shapes(g, block)), half_blocked_(half_blocked_shapes(g, block, padded_)) {}

  bool convert_conv(int id);
  bool move_elementwise(int id);
  bool move_pool(int id);
  bool move_concat(int id);
  bool move_pad(int id);
  bool move_channel_shuffle(int id);
  bool move_channel_slice(int id);
  // A new Reshape of v to `shape` (a view: no kernel); returns its output.
  int reshaped(int v, Shape shape);  // by value: adding values moves g.values

 private:
  // The blocked tensor a ToPlain node turned into v, or -1.
  int blocked_source(int v) const {
    if (v < 0) return -1;
    const int p = g_.values[v].producer;
    if (p < 0 || g_.nodes[p].dead || g_.nodes[p].op != kToPlain) return -1;
    return g_.nodes[p].inputs[0];
  }
  // v [N, C, H, W] in [N, C/b, H, W, b]: its ToPlain source, else one ToBlocked per value.
  int blocked(int v) {
    const int src = blocked_source(v);
    if (src >= 0) return src;
    auto it = to_blocked_.find(v);
    if (it != to_blocked_.end()) return it->second;
    const Value val = g_.values[v];
    const Shape shape = blocked_shape(val.shape);
    const int out = g_.add_value(val.name + ".nchw" + std::to_string(shape[4]) + "c", shape, val.dtype, true);
    Node n;
    n.op = kToBlocked;
    n.name = val.name + ".to_blocked";
    n.attrs["block"] = Attr::of_int(shape[4]);
    n.inputs = {v};
    n.outputs = {out};
    g_.add_node(n);
    to_blocked_[v] = out;
    return out;
  }
  // Makes node `id` (already rewritten to produce the blocked `vb`) feed its
  // readers through a ToPlain whose output keeps the old value's name.
  void replace_with_plain(int old_value, int vb) {
    const Value old = g_.values[old_value];
    const int plain = g_.add_value(old.name, old.shape, old.dtype, true);
    Node n;
    n.op = kToPlain;
    n.name = old.name + ".to_plain";
    if (padded(old.shape)) n.attrs["channels"] = Attr::of_int(old.shape[1]);
    n.inputs = {vb};
    n.outputs = {plain};
    g_.add_node(n);
    g_.replace_uses(old_value, plain);
  }
  // A function of the shape alone, so every value of one shape, and every use of one value, agrees.
  int64_t block_of(const Shape &s) const { return block_for(s, b_, half_blocked_, padded_); }
  Shape blocked_shape(const Shape &s) const {
    const int64_t b = block_of(s);
    return {s[0], ceil_div(s[1], b), s[2], s[3], b};
  }
  // Whether the last block of s's channels holds padding channels.
  bool padded(const Shape &s) const {
    const int64_t b = block_of(s);
    return b > 0 && s[1] % b != 0;
  }
  // The gather computing plain v from blocked tensors: the ChannelGather or blocked Concat whose
  // ToPlain made v (so a chain of them composes into one pass over the tensors it started from),
  // else v's blocked source.
  ChannelGather gather_of(int v) const {
    const int src = blocked_source(v), p = g_.values[src].producer;
    const Node *n = p >= 0 && !g_.nodes[p].dead ? &g_.nodes[p] : nullptr;
    if (n && n->op == kChannelGather)
      return {n->inputs, n->attr_ints("channels"), n->attr_i("groups", 1), n->attr_i("start", 0), n->attr_i("count", 0)};
    if (n && n->op == "Concat") {  // of whole blocks (move_concat)
      ChannelGather c{n->inputs, {}, 1, 0, g_.values[v].shape[1]};
      for (int x : n->inputs) c.channels.push_back(g_.values[x].shape[1] * g_.values[x].shape[4]);
      return c;
    }
    return {{src}, {g_.values[v].shape[1]}, 1, 0, g_.values[v].shape[1]};
  }
  // Node id's output `old` (plain [N, count, H, W]) computed blocked by `c` instead.
  void replace_with_gather(int id, int old_value, const ChannelGather &c) {
    const Value old = g_.values[old_value];
    const Shape shape = blocked_shape(old.shape);
    const int out = g_.add_value(old.name + ".nchw" + std::to_string(shape[4]) + "c", shape, old.dtype, true);
    Node n;
    n.op = kChannelGather;
    n.name = g_.nodes[id].name;
    n.attrs["channels"] = Attr::of_ints(c.channels);
    n.attrs["groups"] = Attr::of_int(c.groups);
    n.attrs["start"] = Attr::of_int(c.start);
    n.attrs["count"] = Attr::of_int(c.count);
    n.attrs["block"] = Attr::of_int(shape[4]);
    n.inputs = c.inputs;
    n.outputs = {out};
    g_.nodes[id].dead = true;
    g_.add_node(n);
    replace_with_plain(old_value, out);
  }
  static bool float_nchw(const Value &v) { return v.shape_known && v.shape.size() == 4 && v.dtype == float32(); }
  // An NCHW input of fewer than kMinBlock channels (an image's 1, 3 or 4) is NCHW1c
  // as it is: a dense conv reads it as a view, one channel per block.
  bool narrow_input(const Value &v) const { return float_nchw(v) && v.shape[1] < kMinBlock && block_of(v.shape) == 0; }
  bool blockable(const Value &v) const { return float_nchw(v) && block_of(v.shape) > 0; }
  // A conv weight W * s (a channel scale folded into a constant W) computed
  // blocked as W's re-laid-out constant times a view of s; -1 for other weights.
  int scaled_blocked_weight(int w, int64_t ib, int64_t ob);
  // A per-channel operand of a [N, C, H, W] result re-laid out as [lead, C/b, 1, 1, b], or -1;
  // a constant pads its last block with `pad`.
  int blocked_channel_operand(int v, const Shape &out, float pad);
  // A new node like `id` over `inputs`, producing one blocked value shaped `shape`; returns that value.
  int clone_blocked(int id, const std::vector<int> &inputs, const Shape &shape) {
    const Value old = g_.values[g_.nodes[id].outputs[0]];
    const int out = g_.add_value(old.name + ".nchw" + std::to_string(shape[4]) + "c", shape, old.dtype, true);
    Node n = g_.nodes[id];
    n.inputs = inputs;
    n.outputs = {out};
    g_.nodes[id].dead = true;
    g_.add_node(n);
    return out;
  }

  Graph &g_;
  const int64_t b_;
  const std::set<Shape> padded_;  // before half_blocked_, which reads it
  const std::set<Shape> half_blocked_;
  std::map<int, int> to_blocked_;
};

int Rewriter::blocked_channel_operand(int v, const Shape &out, float pad) {
  const Value val = g_.values[v];
  if (!val.shape_known || val.dtype != float32()) return -1;
  const int64_t C = out[1];
  const Shape &s = val.shape;
  int64_t lead = 0;
  if (s == Shape{C, 1, 1} || s == Shape{1, C, 1, 1}) lead = 1;
  else if (s == Shape{out[0], C, 1, 1}) lead = out[0];
  if (!lead) return -1;
  const int64_t b = block_of(out);
  if (!val.is_const()) return s.size() == 4 && block_of(s) == b ? blocked(v) : -1;
  const int64_t blocks = ceil_div(C, b);
  NDArray r(Shape{lead, blocks, 1, 1, b}, float32());
  const float *src = val.data->data<float>();
  float *dst = r.data<float>();
  for (int64_t l = 0; l < lead; l++)  // [lead, C] in order is [lead, C/b, b] (and the padding)
    for (int64_t c = 0; c < blocks * b; c++) dst[l * blocks * b + c] = c < C ? src[l * C + c] : pad;
  return g_.add_const(val.name + ".nchw" + std::to_string(b) + "c", r);
}

// Groups of whole blocks for a conv of `groups` groups from C to K channels in blocks ib, ob: the
// groups themselves when each fills whole blocks; one per block when groups of equal width divide
// a block b = ib = ob (ResNeXt's 4 channels per group: four groups to a block, their weights packed
// block-diagonally, the zeros multiplied; the last block may hold padding past C); else 0 (no
// blocked form).
int64_t block_groups(int64_t groups, int64_t C, int64_t K, int64_t ib, int64_t ob) {
  if (C % groups != 0 || K % groups != 0) return 0;
  const int64_t cg = C / groups, kg = K / groups;
  if (cg % ib == 0 && kg % ob == 0) return groups;
  if (cg == kg && ib == ob && ib % cg == 0) return ceil_div(C, ib);
  return 0;
}

// Weight [K, C/groups, R, S] -> [K/ob, C/ib/bg, R, S, ib (input channel), ob (output channel)] for
// bg = block_groups(...) (1 for a dense conv; block counts rounded up): output channel k reads input
// channel c of its block group's blocks where c is in k's group, else 0 (padding channels among them).
NDArray blocked_conv_weight(const NDArray &w, int64_t ib, int64_t ob, int64_t groups = 1, int64_t bg = 1) {
  const int64_t K = w.shape()[0], cg = w.shape()[1], R = w.shape()[2], S = w.shape()[3], kg = K / groups, C = cg * groups;
  const int64_t KO = ceil_div(K, ob), CB = ceil_div(C, ib) / bg;
  NDArray wb(Shape{KO, CB, R, S, ib, ob}, float32());
  const float *src = w.data<float>();
  float *dst = wb.data<float>();
  for (int64_t ko = 0; ko < KO; ko++)
    for (int64_t co = 0; co < CB; co++)
      for (int64_t r = 0; r < R; r++)
        for (int64_t s = 0; s < S; s++)
          for (int64_t ci = 0; ci < ib; ci++)
            for (int64_t kb = 0; kb < ob; kb++) {
              const int64_t k = ko * ob + kb, c = (ko / (KO / bg) * CB + co) * ib + ci, j = c - k / kg * cg;
              *dst++ = k < K && c < C && j >= 0 && j < cg ? src[((k * cg + j) * R + r) * S + s] : 0.f;
            }
  return wb;
}

// Depthwise weight [C, 1, R, S] -> [C/b, R, S, b], 0 for padding channels.
NDArray blocked_depthwise_weight(const NDArray &w, int64_t b) {
  const int64_t C = w.shape()[0], R = w.shape()[2], S = w.shape()[3];
  NDArray wb(Shape{ceil_div(C, b), R, S, b}, float32());
  const float *src = w.data<float>();
  float *dst = wb.data<float>();
  for (int64_t co = 0; co < ceil_div(C, b); co++)
    for (int64_t r = 0; r < R; r++)
      for (int64_t s = 0; s < S; s++)
        for (int64_t ci = 0; ci < b; ci++) *dst++ = co * b + ci < C ? src[((co * b + ci) * R + r) * S + s] : 0.f;
  return wb;
}

int Rewriter::reshaped(int v, Shape shape) { return g_.add_reshape(v, shape, g_.values[v].name + ".reshaped"); }

int Rewriter::scaled_blocked_weight(int w, int64_t ib, int64_t ob) {
  const int p = g_.values[w].producer;
  if (p < 0 || g_.nodes[p].op != "Mul" || g_.nodes[p].inputs.size() != 2) return -1;
  const Shape ws = g_.values[w].shape;
  for (int k = 0; k < 2; k++) {
    const int wc = g_.nodes[p].inputs[k], sc = g_.nodes[p].inputs[1 - k];
    const Value &cw = g_.values[wc], &sv = g_.values[sc];
    if (!cw.is_const() || cw.shape != ws || cw.dtype != float32() || sv.dtype != float32() ||
        (sv.shape != Shape{1, ws[1], 1, 1} && sv.shape != Shape{ws[1], 1, 1}))
      continue;
    // W [K, C, R, S] * s [C] is W's blocked constant times s viewed as [1, C/ib, 1, 1, ib, 1].
    const int wb = g_.add_const(cw.name + ".blocked" + std::to_string(ib) + "i" + std::to_string(ob) + "o",
                                blocked_conv_weight(*cw.data, ib, ob));
    // Padded, s is the blocked value of s's own ToBlocked (its padding finite, times weights 0).
    int sb = -1;
    if (ws[1] % ib == 0) sb = reshaped(sc, Shape{1, ws[1] / ib, 1, 1, ib, 1});
    else if (sv.shape.size() == 4 && block_of(sv.shape) == ib) sb = reshaped(blocked(sc), Shape{1, ceil_div(ws[1], ib), 1, 1, ib, 1});
    else continue;
    const int out = g_.add_value(g_.values[w].name + ".blocked", g_.values[wb].shape, float32(), true);
    Node m;
    m.op = "Mul";
    m.name = g_.nodes[p].name + ".blocked";
    m.inputs = {wb, sb};
    m.outputs = {out};
    g_.add_node(m);
    return out;
  }
  return -1;
}

bool Rewriter::convert_conv(int id) {
  const Node n = g_.nodes[id];
  if (!conv_with_weight(n)) return false;
  if (n.attr_s("auto_pad", "NOTSET") != "NOTSET") return false;
  const std::vector<int64_t> strides = n.attr_ints("strides", {1, 1}), pads = n.attr_ints("pads", {0, 0, 0, 0}),
                             dilations = n.attr_ints("dilations", {1, 1});
  if (strides.size() != 2 || pads.size() != 4 || dilations.size() != 2) return false;
  const Value x = g_.values[n.inputs[0]], w = g_.values[n.inputs[1]], y = g_.values[n.outputs[0]];
  const bool narrow = narrow_input(x);
  if (x.is_const() || !(blockable(x) || narrow) || !blockable(y) || w.dtype != float32() || w.shape.size() != 4) return false;
  const int64_t group = n.attr_i("group", 1), C = x.shape[1], ib = narrow ? 1 : block_of(x.shape), ob = block_of(y.shape);
  const bool depthwise = group == C && y.shape[1] == C && w.shape[0] == C && w.shape[1] == 1 && ib == ob;
  const bool undilated = dilations == std::vector<int64_t>{1, 1};
  const bool dense = group == 1 && w.shape[1] == C && undilated;
  const bool grouped = !depthwise && group > 1 && w.shape[1] * group == C && !narrow && w.is_const() && undilated;
  const int64_t bg = grouped ? block_groups(group, C, y.shape[1], ib, ob) : 0;
  if (!(depthwise && w.is_const()) && !dense && !bg) return false;
  int wv = -1;
  const std::string layout = depthwise ? std::to_string(ib) + "c" : std::to_string(ib) + "i" + std::to_string(ob) + "o";
  if (bg) {
    wv = g_.add_const(w.name + ".blocked" + layout + "g" + std::to_string(bg), blocked_conv_weight(*w.data, ib, ob, group, bg));
  } else if (w.is_const()) {
    wv = g_.add_const(w.name + ".blocked" + layout,
                      depthwise ? blocked_depthwise_weight(*w.data, ib) : blocked_conv_weight(*w.data, ib, ob));
  } else if ((wv = scaled_blocked_weight(n.inputs[1], ib, ob)) >= 0) {
  } else {
    // A weight computed in the graph otherwise is re-laid out where it is computed.
    wv = g_.add_value(w.name + ".blocked" + layout,
                      Shape{ceil_div(w.shape[0], ob), ceil_div(C, ib), w.shape[2], w.shape[3], ib, ob}, w.dtype, true);
    Node t;
    t.op = "tetune.ToBlockedWeight";
    t.name = w.name + ".to_blocked";
    t.attrs["in_block"] = Attr::of_int(ib);
    t.attrs["out_block"] = Attr::of_int(ob);
    t.inputs = {n.inputs[1]};
    t.outputs = {wv};
    g_.add_node(t);
  }
  const int xb = narrow ? reshaped(n.inputs[0], Shape{x.shape[0], C, x.shape[2], x.shape[3], 1}) : blocked(n.inputs[0]);
  const int yb = g_.add_value(y.name + ".nchw" + std::to_string(ob) + "c", blocked_shape(y.shape), y.dtype, true);
  Node conv;
  conv.op = depthwise ? "tetune.DepthwiseConvNCHWc" : "tetune.ConvNCHWc";
  conv.name = n.name;
  conv.attrs["strides"] = Attr::of_ints(strides);
  conv.attrs["pads"] = Attr::of_ints(pads);
  if (depthwise) conv.attrs["dilations"] = Attr::of_ints(dilations);
  if (bg > 1) conv.attrs["groups"] = Attr::of_int(bg);
  if (padded(y.shape)) conv.attrs["channels"] = Attr::of_int(y.shape[1]);
  conv.inputs = {xb, wv};
  if (n.inputs.size() > 2 && n.inputs[2] >= 0) conv.inputs.push_back(n.inputs[2]);
  conv.outputs = {yb};
  g_.nodes[id].dead = true;
  g_.add_node(conv);
  replace_with_plain(n.outputs[0], yb);
  return true;
}

bool Rewriter::move_elementwise(int id) {
  const Node n = g_.nodes[id];
  if (!broadcasting_elementwise_ops().count(n.op) || n.outputs.size() != 1 || n.outputs[0] < 0) return false;
  const Value out = g_.values[n.outputs[0]];
  if (!blockable(out)) return false;
  int chained = 0;
  for (int v : n.inputs) {
    if (v < 0 || g_.values[v].shape != out.shape) continue;
    if (blocked_source(v) >= 0) chained++;
    // A new ToBlocked of a whole operand costs what the ToPlain of a chained one saves, and the
    // result may need its own ToPlain (PP-OCR det's FPN adds of Resize outputs: bench/RESULTS.md, ninth session).
    else if (!to_blocked_.count(v)) return false;
  }
  if (!chained) return false;
  // Padding channels hold 0 or other finite numbers: a divisor there must be a constant, padded with 1.
  const bool divides = n.op == "Div";
  if (divides && padded(out.shape) && (n.inputs.size() != 2 || n.inputs[1] < 0 || !g_.values[n.inputs[1]].is_const()))
    return false;
  std::vector<int> inputs;
  for (size_t k = 0; k < n.inputs.size(); k++) {
    const int v = n.inputs[k];
    if (v < 0) {
      inputs.push_back(v);
      continue;
    }
    const Value &val = g_.values[v];
    int nv = -1;
    if (val.shape == out.shape && val.dtype == out.dtype) nv = blocked(v);
    else if (val.shape_known && val.is_const() && val.data->size() == 1) nv = v;  // a scalar broadcasts to any rank
    else nv = blocked_channel_operand(v, out.shape, divides && k == 1 ? 1.f : 0.f);
    if (nv < 0) return false;  // a new ToBlocked made before this stays unused; DCE drops it
    inputs.push_back(nv);
  }
  replace_with_plain(n.outputs[0], clone_blocked(id, inputs, blocked_shape(out.shape)));
  return true;
}

// The pools of blocked_pool_ops run blocked.
bool Rewriter::move_pool(int id) {
  const Node n = g_.nodes[id];
  const auto op = blocked_pool_ops().find(n.op);
  if (op == blocked_pool_ops().end() || n.inputs.size() != 1 || n.outputs.size() != 1 || n.outputs[0] < 0) return false;
  const int src = blocked_source(n.inputs[0]);
  const Value out = g_.values[n.outputs[0]];
  if (src < 0 || g_.values[n.inputs[0]].shape.size() != 4 || !blockable(out) || block_of(out.shape) != g_.values[src].shape[4] ||
      n.attr_s("auto_pad", "NOTSET") != "NOTSET" || (n.op != "GlobalAveragePool" && n.attr_ints("kernel_shape").size() != 2))
    return false;
  const int yb = clone_blocked(id, {src}, blocked_shape(out.shape));
  g_.nodes.back().op = op->second;
  replace_with_plain(n.outputs[0], yb);
  return true;
}

bool Rewriter::move_concat(int id) {
  const Node n = g_.nodes[id];
  if (n.op != "Concat" || n.outputs.size() != 1 || n.outputs[0] < 0) return false;
  const Value out = g_.values[n.outputs[0]];
  const int64_t axis = n.attr_i("axis", 0);
  if (!blockable(out) || (axis != 1 && axis != -3)) return false;
  int chained = 0;
  bool whole_blocks = !padded(out.shape);
  for (int v : n.inputs) {
    if (v < 0 || !blockable(g_.values[v])) return false;
    whole_blocks &= block_of(g_.values[v].shape) == block_of(out.shape) && !padded(g_.values[v].shape);
    chained += blocked_source(v) >= 0;
  }
  if (!chained) return false;
  std::vector<int> inputs;
  for (int v : n.inputs) inputs.push_back(blocked(v));
  if (!whole_blocks) {
    // Padding inside the joined channels, or blocks of other widths: a block of the result is
    // not a block of an input, so each lane gathers its channel (ShuffleNetV2's 116 + 116).
    ChannelGather c{inputs, {}, 1, 0, out.shape[1]};
    for (int v : n.inputs) c.channels.push_back(g_.values[v].shape[1]);
    replace_with_gather(id, n.outputs[0], c);
    return true;
  }
  const int yb = clone_blocked(id, inputs, blocked_shape(out.shape));
  g_.nodes.back().attrs["axis"] = Attr::of_int(1);
  replace_with_plain(n.outputs[0], yb);
  return true;
}

// A Pad of H and W only (any mode) pads each channel's plane: it runs blocked, [N, C/b, H, W, b]
// padded along H and W (DenseNet's and Inception's AveragePools with count_include_pad read one).
bool Rewriter::move_pad(int id) {
  const Node n = g_.nodes[id];
  if (n.op != "Pad" || n.inputs.empty() || n.outputs.size() != 1 || n.outputs[0] < 0) return false;
  const int src = blocked_source(n.inputs[0]);
  const Value out = g_.values[n.outputs[0]];
  if (src < 0 || !blockable(out) || block_of(out.shape) != g_.values[src].shape[4]) return false;
  const bool attr_pads = g_.opset < 11;
  if (!attr_pads && (n.inputs.size() < 2 || n.inputs[1] < 0 || !g_.values[n.inputs[1]].is_const() ||
                     (n.inputs.size() > 3 && n.inputs[3] >= 0)))  // pads given per listed axes: left as they are
    return false;
  const std::vector<int64_t> pads = attr_pads ? n.attr_ints("pads") : g_.values[n.inputs[1]].data->ints();
  if (pads.size() != 8 || pads[0] || pads[1] || pads[4] || pads[5]) return false;
  const std::vector<int64_t> blocked_pads = {0, 0, pads[2], pads[3], 0, 0, 0, pads[6], pads[7], 0};
  std::vector<int> inputs = {src};
  if (!attr_pads) {
    NDArray p(Shape{10}, int64());
    for (int64_t i = 0; i < 10; i++) p.set(i, static_cast<double>(blocked_pads[i]));
    inputs.push_back(g_.add_const(g_.values[n.inputs[1]].name + ".blocked", p));
    if (n.inputs.size() > 2) inputs.push_back(n.inputs[2]);  // the constant value, if given
  }
  const int yb = clone_blocked(id, inputs, blocked_shape(out.shape));
  if (attr_pads) g_.nodes.back().attrs["pads"] = Attr::of_ints(blocked_pads);
  replace_with_plain(n.outputs[0], yb);
  return true;
}

// Reshape [N, C, H, W] -> [N, g, C/g, H, W], Transpose (0, 2, 1, 3, 4), Reshape back to [N, C, H, W]
// (ShuffleNet's channel shuffle, as torch exports it) of a blocked value: one ChannelGather of g groups
// in place of the second Reshape, reading what the value's own gather read (a Concat's inputs).
bool Rewriter::move_channel_shuffle(int id) {
  const Node n = g_.nodes[id];
  if (n.op != "Transpose" || n.inputs.size() != 1 || n.outputs.size() != 1 || n.inputs[0] < 0 || n.outputs[0] < 0 ||
      n.attr_ints("perm") != std::vector<int64_t>{0, 2, 1, 3, 4})
    return false;
  const int split = g_.values[n.inputs[0]].producer;
  if (split < 0 || g_.nodes[split].op != "Reshape" || g_.nodes[split].inputs.empty()) return false;
  const int x = g_.nodes[split].inputs[0];
  if (x < 0 || blocked_source(x) < 0 || !float_nchw(g_.values[x])) return false;
  const Shape xs = g_.values[x].shape, ss = g_.values[n.inputs[0]].shape;
  if (ss.size() != 5 || ss[0] != xs[0] || ss[1] * ss[2] != xs[1] || ss[3] != xs[2] || ss[4] != xs[3]) return false;
  const auto consumers = g_.consumers();
  const std::vector<int> &readers = consumers[n.outputs[0]];
  if (readers.size() != 1 || std::count(g_.outputs.begin(), g_.outputs.end(), n.outputs[0])) return false;
  const Node join = g_.nodes[readers[0]];
  if (join.op != "Reshape" || join.outputs.size() != 1 || join.outputs[0] < 0 || g_.values[join.outputs[0]].shape != xs)
    return false;
  ChannelGather c = gather_of(x);
  if (c.groups != 1 || c.start != 0 || c.count != c.joined()) c = {{blocked_source(x)}, {xs[1]}, 1, 0, xs[1]};
  c.groups = ss[1];
  g_.nodes[id].dead = true;
  if (consumers[n.inputs[0]].size() == 1) g_.nodes[split].dead = true;  // its ToPlain may go too (below)
  replace_with_gather(readers[0], join.outputs[0], c);
  return true;
}

// A Slice of channels alone (step 1) of a blocked value: a ChannelGather of those channels, composed
// with the value's own gather (ShuffleNetV2 splits each shuffled result into its two halves).
bool Rewriter::move_channel_slice(int id) {
  const Node n = g_.nodes[id];
  if (n.op != "Slice" || g_.opset < 10 || n.inputs.size() < 4 || n.outputs.size() != 1 || n.outputs[0] < 0) return false;
  const int x = n.inputs[0];
  if (x < 0 || blocked_source(x) < 0 || !float_nchw(g_.values[x]) || !blockable(g_.values[n.outputs[0]])) return false;
  for (size_t k = 1; k < n.inputs.size(); k++)
    if (n.inputs[k] < 0 || !g_.values[n.inputs[k]].is_const()) return false;
  const std::vector<int64_t> starts = g_.values[n.inputs[1]].data->ints(), ends = g_.values[n.inputs[2]].data->ints(),
                             axes = g_.values[n.inputs[3]].data->ints();
  const bool unit_step = n.inputs.size() < 5 || g_.values[n.inputs[4]].data->ints() == std::vector<int64_t>{1};
  if (starts.size() != 1 || ends.size() != 1 || (axes != std::vector<int64_t>{1} && axes != std::vector<int64_t>{-3}) ||
      !unit_step)
    return false;
  const ops::SliceRange r = ops::slice_range(g_.values[x].shape[1], starts[0], ends[0], 1);
  if (r.length != g_.values[n.outputs[0]].shape[1]) return false;
  ChannelGather c = gather_of(x);
  c.start += r.start;
  c.count = r.length;
  replace_with_gather(id, n.outputs[0], c);
  return true;
}

}  // namespace

int channel_block(const Target &target) {
  const Target::VectorUnit unit = target.vector_unit();
  return unit.fma && unit.lanes >= 8 ? unit.lanes : 0;
}

BlockedLayoutStats convert_to_blocked_layout(Graph &g, int block) {
  BlockedLayoutStats st;
  if (block < 2) return st;
  Rewriter rw(g, block);
  // Producers before consumers, so a node sees its inputs' ToPlain already;
  // nodes added on the way are blocked already and are not visited.
  for (int id : g.topo_order()) {
    if (g.nodes[id].dead) continue;
    if (rw.convert_conv(id)) st.convs++;
    else if (rw.move_elementwise(id) || rw.move_pool(id) || rw.move_concat(id) || rw.move_pad(id) ||
             rw.move_channel_shuffle(id) || rw.move_channel_slice(id))
      st.moved++;
  }
  if (!st.convs) return st;
  // Transforms, gathers and blocked Concats that nothing reads any more (their readers moved, or
  // gathers composed past them) are dropped, until none is left.
  std::set<int> outputs(g.outputs.begin(), g.outputs.end());
  for (bool dropped = true; dropped;) {
    dropped = false;
    const auto readers = g.consumers();
    for (auto &n : g.nodes) {
      if (n.dead || n.outputs.size() != 1 || n.outputs[0] < 0) continue;
      const bool blocked_concat = n.op == "Concat" && g.values[n.outputs[0]].shape.size() == 5;
      if ((n.op == kToPlain || n.op == kToBlocked || n.op == kChannelGather || blocked_concat) &&
          readers[n.outputs[0]].empty() && !outputs.count(n.outputs[0]))
        n.dead = dropped = true;
    }
  }
  // A transform of [N, C, 1, 1] ([N, C/b, 1, 1, b]) keeps the element order: a view, no kernel.
  for (size_t id = 0; id < g.nodes.size(); id++) {
    const Node n = g.nodes[id];
    if (n.dead || (n.op != kToPlain && n.op != kToBlocked)) continue;
    const Shape &plain = g.values[n.op == kToPlain ? n.outputs[0] : n.inputs[0]].shape;
    const Shape &blocked = g.values[n.op == kToPlain ? n.inputs[0] : n.outputs[0]].shape;
    if (plain[2] * plain[3] != 1 || plain[1] != blocked[1] * blocked[4]) continue;
    const int out = n.outputs[0];
    const int view = rw.reshaped(n.inputs[0], g.values[out].shape);
    g.nodes[id].dead = true;
    g.replace_uses(out, view);
    g.values[view].name = g.values[out].name;
    st.views++;
  }
  g.compact();
  for (const auto &n : g.nodes) st.transforms += n.op == kToPlain || n.op == kToBlocked;
  return st;
}

}  // namespace relay
}  // namespace tetune
