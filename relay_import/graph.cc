#include "relay_import/graph.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "base/errors.h"

namespace tetune {
namespace relay {

namespace {
std::string num(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}
}  // namespace

std::string Attr::str() const {
  std::ostringstream os;
  switch (kind) {
    case Int: os << i; break;
    case Float: os << num(f); break;
    case String: os << '"' << s << '"'; break;
    case Ints:
      os << '[';
      for (size_t k = 0; k < ints.size(); k++) os << (k ? "," : "") << ints[k];
      os << ']';
      break;
    case Floats:
      os << '[';
      for (size_t k = 0; k < floats.size(); k++) os << (k ? "," : "") << num(floats[k]);
      os << ']';
      break;
    case Strings:
      os << '[';
      for (size_t k = 0; k < strings.size(); k++) os << (k ? "," : "") << '"' << strings[k] << '"';
      os << ']';
      break;
    case Tensor: os << "tensor(" << (t ? shape_str(t->shape()) : "?") << ")"; break;
    case Graph: os << "graph"; break;
  }
  return os.str();
}

int64_t Value::nbytes() const {
  int64_t n = dtype.bytes();
  for (auto d : shape) n *= d;
  return n;
}

int64_t Node::attr_i(const std::string &k, int64_t def) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) return def;
  if (it->second.kind == Attr::Float) return static_cast<int64_t>(it->second.f);
  return it->second.i;
}
double Node::attr_f(const std::string &k, double def) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) return def;
  if (it->second.kind == Attr::Int) return static_cast<double>(it->second.i);
  return it->second.f;
}
std::string Node::attr_s(const std::string &k, const std::string &def) const {
  auto it = attrs.find(k);
  return it == attrs.end() ? def : it->second.s;
}
std::vector<int64_t> Node::attr_ints(const std::string &k, const std::vector<int64_t> &def) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) return def;
  if (it->second.kind == Attr::Int) return {it->second.i};
  return it->second.ints;
}
std::vector<double> Node::attr_floats(const std::string &k, const std::vector<double> &def) const {
  auto it = attrs.find(k);
  if (it == attrs.end()) return def;
  if (it->second.kind == Attr::Float) return {it->second.f};
  return it->second.floats;
}

int Graph::add_value(const std::string &name, const Shape &shape, DType dtype, bool known) {
  Value v;
  v.name = name;
  v.shape = shape;
  v.dtype = dtype;
  v.shape_known = known;
  values.push_back(v);
  int id = static_cast<int>(values.size()) - 1;
  if (!name.empty()) by_name_[name] = id;
  return id;
}

int Graph::add_const(const std::string &name, const NDArray &data) {
  int id = add_value(name, data.shape(), data.dtype(), true);
  values[id].data = std::make_shared<NDArray>(data);
  return id;
}

int Graph::add_reshape(int v, const Shape &shape, const std::string &name, int out) {
  NDArray dims(Shape{static_cast<int64_t>(shape.size())}, int64());
  for (size_t i = 0; i < shape.size(); i++) dims.set(static_cast<int64_t>(i), static_cast<double>(shape[i]));
  const int d = add_const(name + ".shape", dims);
  if (out < 0) out = add_value(name, shape, values.at(v).dtype, true);
  Node n;
  n.op = "Reshape";
  n.name = name + ".reshape";
  n.attrs["shape"] = Attr::of_ints(shape);  // opset < 5 reads the attribute, later ones the input
  n.inputs = {v, d};
  n.outputs = {out};
  add_node(n);
  return out;
}

int Graph::add_node(Node n) {
  int id = static_cast<int>(nodes.size());
  for (int o : n.outputs)
    if (o >= 0) values.at(o).producer = id;  // -1: an omitted optional output
  nodes.push_back(std::move(n));
  return id;
}

int Graph::find_value(const std::string &name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

void Graph::replace_uses(int from, int to) {
  for (auto &n : nodes)
    for (int &v : n.inputs)
      if (v == from) v = to;
  for (int &v : outputs)
    if (v == from) v = to;
}

std::vector<int> Graph::topo_order() const {
  // Kahn's algorithm over live nodes; ties broken by node id (keeps file order).
  int n = static_cast<int>(nodes.size());
  std::vector<int> indeg(n, 0);
  std::vector<std::vector<int>> succ(n);
  for (int i = 0; i < n; i++) {
    if (nodes[i].dead) continue;
    for (int v : nodes[i].inputs) {
      if (v < 0) continue;
      int p = values[v].producer;
      if (p < 0 || nodes[p].dead) continue;
      succ[p].push_back(i);
      indeg[i]++;
    }
  }
  std::vector<int> order, ready;
  for (int i = n - 1; i >= 0; i--)
    if (!nodes[i].dead && indeg[i] == 0) ready.push_back(i);
  // ready is used as a stack sorted descending so the smallest id pops first
  while (!ready.empty()) {
    int i = ready.back();
    ready.pop_back();
    order.push_back(i);
    for (int s : succ[i]) {
      if (--indeg[s] == 0) {
        auto pos = ready.begin();
        while (pos != ready.end() && *pos > s) ++pos;
        ready.insert(pos, s);
      }
    }
  }
  int live = num_live_nodes();
  if (static_cast<int>(order.size()) != live) {
    for (int i = 0; i < n; i++)
      if (!nodes[i].dead && indeg[i] > 0)
        throw ImportError("graph" + (source.empty() ? std::string() : " '" + source + "'") +
                          " has a cycle through node '" + nodes[i].name + "' (" + nodes[i].op + ")");
  }
  return order;
}

std::vector<std::vector<int>> Graph::consumers() const {
  std::vector<std::vector<int>> c(values.size());
  for (int i = 0; i < static_cast<int>(nodes.size()); i++) {
    if (nodes[i].dead) continue;
    for (int v : nodes[i].inputs)
      if (v >= 0 && (c[v].empty() || c[v].back() != i)) c[v].push_back(i);
  }
  return c;
}

ValueReaders::ValueReaders(const Graph &g) : of(g.consumers()), is_output(g.values.size(), 0) {
  for (int v : g.outputs) is_output[v] = 1;
}

int ValueReaders::only(const Graph &g, int v) const {
  if (v < 0 || is_output[v] || of[v].size() != 1 || g.nodes[of[v][0]].dead) return -1;
  return of[v][0];
}

int Graph::num_live_nodes() const {
  int k = 0;
  for (auto &n : nodes) k += !n.dead;
  return k;
}

std::map<std::string, int> Graph::op_histogram() const {
  std::map<std::string, int> h;
  for (auto &n : nodes)
    if (!n.dead) h[n.op]++;
  return h;
}

int64_t Graph::weight_bytes() const {
  std::vector<char> used(values.size(), 0);
  for (auto &n : nodes)
    if (!n.dead)
      for (int v : n.inputs)
        if (v >= 0) used[v] = 1;
  for (int v : outputs) used[v] = 1;
  int64_t b = 0;
  for (size_t i = 0; i < values.size(); i++)
    if (used[i] && values[i].is_const()) b += values[i].data->nbytes();
  return b;
}

void Graph::compact() {
  std::vector<int> order = topo_order();
  std::vector<char> used(values.size(), 0);
  for (int v : inputs) used[v] = 1;
  for (int v : outputs) used[v] = 1;
  for (int i : order) {
    for (int v : nodes[i].inputs)
      if (v >= 0) used[v] = 1;
    for (int v : nodes[i].outputs)
      if (v >= 0) used[v] = 1;  // -1: an omitted optional output
  }
  std::vector<int> remap(values.size(), -1);
  std::vector<Value> nv;
  for (size_t i = 0; i < values.size(); i++)
    if (used[i]) {
      remap[i] = static_cast<int>(nv.size());
      nv.push_back(values[i]);
      nv.back().producer = -1;
    }
  std::vector<Node> nn;
  for (int i : order) {
    Node n = nodes[i];
    for (int &v : n.inputs)
      if (v >= 0) v = remap[v];
    for (int &v : n.outputs)
      if (v >= 0) v = remap[v];
    for (int v : n.outputs)
      if (v >= 0) nv[v].producer = static_cast<int>(nn.size());
    nn.push_back(std::move(n));
  }
  for (int &v : inputs) v = remap[v];
  for (int &v : outputs) v = remap[v];
  values = std::move(nv);
  nodes = std::move(nn);
  by_name_.clear();
  for (size_t i = 0; i < values.size(); i++)
    if (!values[i].name.empty()) by_name_[values[i].name] = static_cast<int>(i);
}

// ---- serialisation --------------------------------------------------------
namespace {
const char kMagic[8] = {'T', 'E', 'G', 'R', 'A', 'P', 'H', '1'};

struct Writer {
  std::ofstream &os;
  void u64(uint64_t v) { os.write(reinterpret_cast<const char *>(&v), 8); }
  void i64(int64_t v) { u64(static_cast<uint64_t>(v)); }
  void f64(double v) { os.write(reinterpret_cast<const char *>(&v), 8); }
  void str(const std::string &s) {
    u64(s.size());
    os.write(s.data(), static_cast<std::streamsize>(s.size()));
  }
  void ints(const std::vector<int64_t> &v) {
    u64(v.size());
    for (auto x : v) i64(x);
  }
  void array(const NDArray &a) {
    str(a.dtype().str());
    ints(a.shape());
    os.write(static_cast<const char *>(a.raw()), a.nbytes());
  }
};

struct Reader {
  std::ifstream &is;
  const std::string &path;
  void need(bool ok) {
    if (!ok || !is) throw ParseError("graph file '" + path + "' is truncated or corrupt");
  }
  uint64_t u64() {
    uint64_t v = 0;
    is.read(reinterpret_cast<char *>(&v), 8);
    need(true);
    return v;
  }
  int64_t i64() { return static_cast<int64_t>(u64()); }
  double f64() {
    double v;
    is.read(reinterpret_cast<char *>(&v), 8);
    need(true);
    return v;
  }
  std::string str() {
    uint64_t n = u64();
    need(n < (1ull << 32));
    std::string s(n, '\0');
    is.read(&s[0], static_cast<std::streamsize>(n));
    need(true);
    return s;
  }
  std::vector<int64_t> ints() {
    uint64_t n = u64();
    need(n < (1ull << 28));
    std::vector<int64_t> v(n);
    for (auto &x : v) x = i64();
    return v;
  }
  NDArray array() {
    DType t = DType::parse(str());
    Shape s = ints();
    NDArray a(s, t);
    is.read(static_cast<char *>(a.raw()), a.nbytes());
    need(true);
    return a;
  }
};
}  // namespace

void Graph::save(const std::string &path) const {
  std::ofstream os(path, std::ios::binary);
  if (!os) throw Error("cannot write graph file '" + path + "'");
  Writer w{os};
  os.write(kMagic, 8);
  w.i64(opset);
  w.str(source);
  w.u64(values.size());
  for (auto &v : values) {
    w.str(v.name);
    w.ints(v.shape);
    w.str(v.dtype.str());
    w.i64(v.shape_known);
    w.i64(v.producer);
    w.i64(v.is_input);
    w.i64(v.is_const());
    if (v.is_const()) w.array(*v.data);
  }
  w.u64(nodes.size());
  for (auto &n : nodes) {
    w.str(n.op);
    w.str(n.name);
    w.i64(n.dead);
    std::vector<int64_t> in(n.inputs.begin(), n.inputs.end()), out(n.outputs.begin(), n.outputs.end());
    w.ints(in);
    w.ints(out);
    w.u64(n.attrs.size());
    for (auto &kv : n.attrs) {
      w.str(kv.first);
      const Attr &a = kv.second;
      if (a.kind == Attr::Graph)  // the importer inlines bodies; one left here is a bug
        throw Error("node '" + n.name + "': graph attribute '" + kv.first + "' cannot be saved (control flow not inlined)");
      w.i64(a.kind);
      w.i64(a.i);
      w.f64(a.f);
      w.str(a.s);
      w.ints(a.ints);
      w.u64(a.floats.size());
      for (double f : a.floats) w.f64(f);
      w.u64(a.strings.size());
      for (auto &s : a.strings) w.str(s);
      w.i64(a.t != nullptr);
      if (a.t) w.array(*a.t);
    }
  }
  w.ints(std::vector<int64_t>(inputs.begin(), inputs.end()));
  w.ints(std::vector<int64_t>(outputs.begin(), outputs.end()));
  if (!os) throw Error("error writing graph file '" + path + "'");
}

Graph Graph::load(const std::string &path) {
  std::ifstream is(path, std::ios::binary);
  if (!is) throw ParseError("cannot open graph file '" + path + "'");
  Reader r{is, path};
  char magic[8];
  is.read(magic, 8);
  if (!is || std::memcmp(magic, kMagic, 8) != 0) throw ParseError("'" + path + "' is not a tetune graph file");
  Graph g;
  g.opset = static_cast<int>(r.i64());
  g.source = r.str();
  uint64_t nv = r.u64();
  r.need(nv < (1ull << 28));
  for (uint64_t i = 0; i < nv; i++) {
    Value v;
    v.name = r.str();
    v.shape = r.ints();
    v.dtype = DType::parse(r.str());
    v.shape_known = r.i64();
    v.producer = static_cast<int>(r.i64());
    v.is_input = r.i64();
    if (r.i64()) v.data = std::make_shared<NDArray>(r.array());
    g.values.push_back(std::move(v));
  }
  uint64_t nn = r.u64();
  r.need(nn < (1ull << 28));
  for (uint64_t i = 0; i < nn; i++) {
    Node n;
    n.op = r.str();
    n.name = r.str();
    n.dead = r.i64();
    for (auto x : r.ints()) n.inputs.push_back(static_cast<int>(x));
    for (auto x : r.ints()) n.outputs.push_back(static_cast<int>(x));
    uint64_t na = r.u64();
    r.need(na < 4096);
    for (uint64_t k = 0; k < na; k++) {
      std::string key = r.str();
      Attr a;
      int64_t kind = r.i64();
      r.need(kind >= Attr::Int && kind < Attr::Graph);  // save() writes no graph attributes
      a.kind = static_cast<Attr::Kind>(kind);
      a.i = r.i64();
      a.f = r.f64();
      a.s = r.str();
      a.ints = r.ints();
      uint64_t nf = r.u64();
      r.need(nf < (1ull << 28));
      for (uint64_t j = 0; j < nf; j++) a.floats.push_back(r.f64());
      uint64_t ns = r.u64();
      r.need(ns < (1ull << 28));
      for (uint64_t j = 0; j < ns; j++) a.strings.push_back(r.str());
      if (r.i64()) a.t = std::make_shared<NDArray>(r.array());
      n.attrs[key] = std::move(a);
    }
    g.nodes.push_back(std::move(n));
  }
  for (auto x : r.ints()) g.inputs.push_back(static_cast<int>(x));
  for (auto x : r.ints()) g.outputs.push_back(static_cast<int>(x));
  int V = static_cast<int>(g.values.size());
  auto check = [&](int v, bool allow_neg) { r.need((allow_neg && v == -1) || (v >= 0 && v < V)); };
  for (auto &n : g.nodes) {
    for (int v : n.inputs) check(v, true);
    for (int v : n.outputs) check(v, true);  // -1: an omitted optional output
  }
  for (int v : g.inputs) check(v, false);
  for (int v : g.outputs) check(v, false);
  for (size_t i = 0; i < g.values.size(); i++) g.by_name_[g.values[i].name] = static_cast<int>(i);
  return g;
}

}  // namespace relay
}  // namespace tetune
