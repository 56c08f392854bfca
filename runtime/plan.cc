#include "runtime/plan.h"

#include <cstring>

#include "base/errors.h"

namespace tetune {
namespace rt {

int64_t PlanValue::numel() const {
  int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

uint64_t fnv1a(const void *data, size_t n, uint64_t h) {
  const unsigned char *p = static_cast<const unsigned char *>(data);
  // 8 independent lanes would be faster; weights are at most tens of MB, this runs at ~1 GB/s.
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

std::string dtype_name(uint8_t code, uint8_t bits) {
  switch (code) {
    case 0: return "int" + std::to_string(bits);
    case 1: return "uint" + std::to_string(bits);
    case 2: return "float" + std::to_string(bits);
    case 3: return "bfloat" + std::to_string(bits);
    case 4: return "bool";
  }
  return "dtype(" + std::to_string(code) + "," + std::to_string(bits) + ")";
}

std::string shape_string(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); i++) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

namespace {

struct Writer {
  std::string out;
  void u8(uint8_t v) { out.push_back(static_cast<char>(v)); }
  void u32(uint32_t v) { out.append(reinterpret_cast<const char *>(&v), 4); }
  void i32(int32_t v) { out.append(reinterpret_cast<const char *>(&v), 4); }
  void i64(int64_t v) { out.append(reinterpret_cast<const char *>(&v), 8); }
  void u64(uint64_t v) { out.append(reinterpret_cast<const char *>(&v), 8); }
  void str(const std::string &s) { u32(static_cast<uint32_t>(s.size())); out += s; }
  void i32s(const std::vector<int32_t> &v) { u32(static_cast<uint32_t>(v.size())); for (auto x : v) i32(x); }
  void i64s(const std::vector<int64_t> &v) { u32(static_cast<uint32_t>(v.size())); for (auto x : v) i64(x); }
};

struct Reader {
  const std::string &in;
  size_t pos;
  std::string what;
  [[noreturn]] void fail(const std::string &m) const {
    throw ParseError(what + ": corrupted execution plan (" + m + " at byte " + std::to_string(pos) + ")");
  }
  void need(size_t n) { if (pos + n > in.size()) fail("truncated"); }
  template <typename T> T pod() { need(sizeof(T)); T v; std::memcpy(&v, in.data() + pos, sizeof(T)); pos += sizeof(T); return v; }
  uint8_t u8() { return pod<uint8_t>(); }
  uint32_t u32() { return pod<uint32_t>(); }
  int32_t i32() { return pod<int32_t>(); }
  int64_t i64() { return pod<int64_t>(); }
  uint64_t u64() { return pod<uint64_t>(); }
  uint32_t count(size_t elem) { uint32_t n = u32(); if (static_cast<uint64_t>(n) * elem > in.size() - pos) fail("bad count " + std::to_string(n)); return n; }
  std::string str() { uint32_t n = count(1); std::string s = in.substr(pos, n); pos += n; return s; }
  std::vector<int32_t> i32s() { uint32_t n = count(4); std::vector<int32_t> v(n); for (auto &x : v) x = i32(); return v; }
  std::vector<int64_t> i64s() { uint32_t n = count(8); std::vector<int64_t> v(n); for (auto &x : v) x = i64(); return v; }
};

constexpr size_t kHeader = sizeof(kPlanMagic) + 4 + 8 + 8;

}  // namespace

std::string Plan::encode() const {
  Writer w;
  w.str(model);
  w.str(target);
  w.str(halide_target);
  w.u32(static_cast<uint32_t>(values.size()));
  for (const auto &v : values) {
    w.str(v.name);
    w.u8(v.dtype_code);
    w.u8(v.dtype_bits);
    w.i64s(v.shape);
    w.u8(v.storage);
    w.i32(v.buffer);
    w.i32(v.alias);
    w.i64(v.const_offset);
  }
  w.u32(static_cast<uint32_t>(kernels.size()));
  for (const auto &k : kernels) {
    w.str(k.name);
    w.i32(k.num_args);
  }
  w.u32(static_cast<uint32_t>(groups.size()));
  for (const auto &g : groups) {
    w.u8(g.kind);
    w.str(g.name);
    w.i32(g.kernel);
    w.i32s(g.args);
    w.i32(g.num_inputs);
  }
  w.i32s(inputs);
  w.i32s(outputs);
  w.i64s(buffer_bytes);
  w.i64(weights_bytes);
  w.u64(weights_checksum);
  Writer h;
  h.out.append(kPlanMagic, sizeof(kPlanMagic));
  h.u32(kPlanVersion);
  h.u64(w.out.size());
  h.u64(fnv1a(w.out.data(), w.out.size()));
  return h.out + w.out;
}

Plan Plan::decode(const std::string &bytes, const std::string &what) {
  if (bytes.size() < kHeader || std::memcmp(bytes.data(), kPlanMagic, sizeof(kPlanMagic)) != 0)
    throw ParseError(what + ": not a tetune execution plan (bad magic or too short: " + std::to_string(bytes.size()) + " bytes)");
  Reader r{bytes, sizeof(kPlanMagic), what};
  uint32_t version = r.u32();
  if (version != kPlanVersion)
    throw ParseError(what + ": execution plan version " + std::to_string(version) + ", this runtime reads version " +
                     std::to_string(kPlanVersion) + " (re-export the model)");
  uint64_t size = r.u64(), sum = r.u64();
  if (size != bytes.size() - kHeader)
    throw ParseError(what + ": corrupted execution plan (payload is " + std::to_string(bytes.size() - kHeader) +
                     " bytes, header says " + std::to_string(size) + "; truncated?)");
  if (fnv1a(bytes.data() + kHeader, size) != sum) throw ParseError(what + ": corrupted execution plan (checksum mismatch)");
  Plan p;
  p.model = r.str();
  p.target = r.str();
  p.halide_target = r.str();
  uint32_t nv = r.count(1);
  p.values.resize(nv);
  for (auto &v : p.values) {
    v.name = r.str();
    v.dtype_code = r.u8();
    v.dtype_bits = r.u8();
    v.shape = r.i64s();
    v.storage = static_cast<PlanValue::Storage>(r.u8());
    v.buffer = r.i32();
    v.alias = r.i32();
    v.const_offset = r.i64();
  }
  uint32_t nk = r.count(1);
  p.kernels.resize(nk);
  for (auto &k : p.kernels) {
    k.name = r.str();
    k.num_args = r.i32();
  }
  uint32_t ng = r.count(1);
  p.groups.resize(ng);
  for (auto &g : p.groups) {
    g.kind = static_cast<PlanGroup::Kind>(r.u8());
    g.name = r.str();
    g.kernel = r.i32();
    g.args = r.i32s();
    g.num_inputs = r.i32();
  }
  p.inputs = r.i32s();
  p.outputs = r.i32s();
  p.buffer_bytes = r.i64s();
  p.weights_bytes = r.i64();
  p.weights_checksum = r.u64();
  if (r.pos != bytes.size()) r.fail("trailing bytes");
  p.validate(what);
  return p;
}

void Plan::validate(const std::string &what) const {
  auto fail = [&](const std::string &m) { throw ParseError(what + ": invalid execution plan: " + m); };
  int nv = static_cast<int>(values.size());
  auto vid = [&](int v, const std::string &ctx) {
    if (v < 0 || v >= nv) fail(ctx + ": value id " + std::to_string(v) + " out of range");
  };
  for (int i = 0; i < nv; i++) {
    const auto &v = values[i];
    for (auto d : v.shape)
      if (d < 0) fail("value '" + v.name + "' has a negative dimension");
    if (v.dtype_code > 4 || (v.dtype_code != 4 && (v.dtype_bits == 0 || v.dtype_bits % 8)))
      fail("value '" + v.name + "' has a bad dtype");
    switch (v.storage) {
      case PlanValue::Input: break;
      case PlanValue::Const:
        if (v.const_offset < 0 || v.const_offset + v.nbytes() > weights_bytes)
          fail("constant '" + v.name + "' lies outside the weights (" + std::to_string(weights_bytes) + " bytes)");
        break;
      case PlanValue::Buffer:
        if (v.buffer < 0 || v.buffer >= static_cast<int>(buffer_bytes.size())) fail("value '" + v.name + "' has no buffer");
        if (buffer_bytes[v.buffer] < v.nbytes()) fail("buffer of value '" + v.name + "' is too small");
        break;
      case PlanValue::Alias:
        vid(v.alias, "alias of '" + v.name + "'");
        if (values[v.alias].storage == PlanValue::Alias) fail("alias chain at '" + v.name + "'");
        if (values[v.alias].nbytes() != v.nbytes()) fail("alias '" + v.name + "' differs in size from its target");
        break;
      default: fail("value '" + v.name + "' has an unknown storage kind");
    }
  }
  for (const auto &g : groups) {
    for (int a : g.args) vid(a, "group " + g.name);
    if (g.kind == PlanGroup::Kernel) {
      if (g.kernel < 0 || g.kernel >= static_cast<int>(kernels.size())) fail("group " + g.name + " has no kernel");
      if (kernels[g.kernel].num_args != static_cast<int>(g.args.size()))
        fail("group " + g.name + " passes " + std::to_string(g.args.size()) + " arguments to kernel " + kernels[g.kernel].name +
             " which takes " + std::to_string(kernels[g.kernel].num_args));
      if (g.num_inputs < 0 || g.num_inputs > static_cast<int>(g.args.size())) fail("group " + g.name + ": bad input count");
    } else if (g.kind == PlanGroup::View) {
      if (g.args.size() != 2) fail("view group " + g.name + " needs 2 values");
    } else {
      fail("group " + g.name + " has an unknown kind");
    }
  }
  for (int v : inputs) {
    vid(v, "graph input");
    if (values[v].storage != PlanValue::Input) fail("graph input '" + values[v].name + "' is not bound as an input");
  }
  for (int v : outputs) vid(v, "graph output");
}

}  // namespace rt
}  // namespace tetune
