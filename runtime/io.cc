#include "runtime/io.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "base/errors.h"

namespace tetune {
namespace rt {

namespace {


DType dtype_of_descr(const std::string &d, const std::string &path) {
  std::string t = d;
  if (!t.empty() && (t[0] == '<' || t[0] == '|' || t[0] == '=')) t = t.substr(1);
  else if (!t.empty() && t[0] == '>' && t != ">u1" && t != ">i1" && t != ">b1")
    throw ParseError(path + ": big-endian .npy ('" + d + "') is not supported");
  if (t == "f4") return float32();
  if (t == "f2") return float16();
  if (t == "i1") return int8();
  if (t == "u1") return uint8();
  if (t == "i4") return int32();
  if (t == "i8") return int64();
  if (t == "b1") return boolean();
  if (t == "f8") return float64();
  if (t == "i2") return int16();
  if (t == "u2") return uint16();
  if (t == "u4") return uint32();
  if (t == "u8") return uint64();
  throw ParseError(path + ": unsupported .npy dtype '" + d + "'");
}

std::string descr_of(DType t) {
  if (t == float32()) return "<f4";
  if (t == float16()) return "<f2";
  if (t == int8()) return "|i1";
  if (t == uint8()) return "|u1";
  if (t == int32()) return "<i4";
  if (t == int64()) return "<i8";
  if (t == boolean()) return "|b1";
  if (t == float64()) return "<f8";
  if (t == int16()) return "<i2";
  if (t == uint16()) return "<u2";
  if (t == uint32()) return "<u4";
  if (t == uint64()) return "<u8";
  throw DTypeError("cannot write " + t.str() + " as .npy");
}

}  // namespace

std::string read_file_bytes(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw ParseError(path + ": cannot open file");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

NDArray read_npy_file(const std::string &path) {
  std::string b = read_file_bytes(path);
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0) throw ParseError(path + ": not a .npy file (bad magic)");
  int major = static_cast<unsigned char>(b[6]);
  size_t hlen, off;
  if (major == 1) {
    hlen = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
    off = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) throw ParseError(path + ": truncated .npy header");
    uint32_t h;
    std::memcpy(&h, b.data() + 8, 4);
    hlen = h;
    off = 12;
  } else {
    throw ParseError(path + ": unsupported .npy version " + std::to_string(major));
  }
  if (off + hlen > b.size()) throw ParseError(path + ": truncated .npy header");
  std::string h = b.substr(off, hlen);
  auto field = [&](const std::string &key) -> size_t {
    size_t p = h.find("'" + key + "'");
    if (p == std::string::npos) throw ParseError(path + ": .npy header lacks '" + key + "'");
    p = h.find(':', p);
    if (p == std::string::npos) throw ParseError(path + ": bad .npy header");
    return p + 1;
  };
  size_t p = field("descr");
  size_t q1 = h.find('\'', p), q2 = q1 == std::string::npos ? q1 : h.find('\'', q1 + 1);
  if (q2 == std::string::npos) throw ParseError(path + ": bad descr in .npy header");
  DType dt = dtype_of_descr(h.substr(q1 + 1, q2 - q1 - 1), path);
  p = field("fortran_order");
  if (h.compare(h.find_first_not_of(' ', p), 4, "True") == 0) throw ParseError(path + ": Fortran-order .npy is not supported");
  p = field("shape");
  size_t a = h.find('(', p), z = h.find(')', p);
  if (a == std::string::npos || z == std::string::npos) throw ParseError(path + ": bad shape in .npy header");
  Shape shape;
  std::string dims = h.substr(a + 1, z - a - 1);
  std::stringstream ss(dims);
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    size_t s = tok.find_first_not_of(" \t");
    if (s == std::string::npos) continue;
    try {
      shape.push_back(std::stoll(tok.substr(s)));
    } catch (...) {
      throw ParseError(path + ": bad shape in .npy header");
    }
  }
  NDArray arr(shape, dt);
  size_t data = off + hlen;
  if (b.size() - data < static_cast<size_t>(arr.nbytes()))
    throw ParseError(path + ": truncated .npy data (" + std::to_string(b.size() - data) + " bytes, need " +
                     std::to_string(arr.nbytes()) + ")");
  std::memcpy(arr.raw(), b.data() + data, arr.nbytes());
  return arr;
}

void write_npy_file(const std::string &path, const NDArray &a) {
  std::string h = "{'descr': '" + descr_of(a.dtype()) + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < a.shape().size(); i++) h += (i ? ", " : "") + std::to_string(a.shape()[i]);
  if (a.shape().size() == 1) h += ",";
  h += "), }";
  while ((10 + h.size() + 1) % 64) h += ' ';
  h += '\n';
  std::ofstream f(path, std::ios::binary);
  if (!f) throw Error("cannot write '" + path + "'");
  f.write("\x93NUMPY\x01\x00", 8);
  uint16_t n = static_cast<uint16_t>(h.size());
  f.write(reinterpret_cast<const char *>(&n), 2);
  f << h;
  f.write(static_cast<const char *>(a.raw()), a.nbytes());
  if (!f) throw Error("cannot write '" + path + "'");
}

NDArray read_tensor_pb_file(const std::string &path, std::string *name) {
  std::string b = read_file_bytes(path);
  size_t pos = 0;
  auto fail = [&](const std::string &m) -> void { throw ParseError(path + ": not a valid onnx.TensorProto (" + m + ")"); };
  auto varint = [&]() -> uint64_t {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= b.size()) fail("truncated varint");
      uint8_t c = static_cast<uint8_t>(b[pos++]);
      v |= static_cast<uint64_t>(c & 0x7f) << shift;
      if (!(c & 0x80)) return v;
    }
    fail("bad varint");
    return 0;
  };
  Shape dims;
  int64_t data_type = 0;
  std::string raw, nm;
  std::vector<double> fvals;
  std::vector<int64_t> ivals;
  while (pos < b.size()) {
    uint64_t key = varint();
    int field = static_cast<int>(key >> 3), wt = static_cast<int>(key & 7);
    auto bytes = [&]() {
      uint64_t n = varint();
      if (n > b.size() - pos) fail("truncated field");
      std::string s = b.substr(pos, n);
      pos += n;
      return s;
    };
    if (wt == 0) {
      uint64_t v = varint();
      if (field == 1) dims.push_back(static_cast<int64_t>(v));
      else if (field == 2) data_type = static_cast<int64_t>(v);
      else if (field == 5 || field == 7) ivals.push_back(static_cast<int64_t>(v));
    } else if (wt == 2) {
      std::string s = bytes();
      if (field == 8) nm = s;
      else if (field == 9) raw = s;
      else if (field == 1 || field == 5 || field == 7) {  // packed varints
        size_t save = pos;
        std::string keep;
        keep.swap(b);
        b = s;
        pos = 0;
        while (pos < b.size()) {
          int64_t v = static_cast<int64_t>(varint());
          if (field == 1) dims.push_back(v);
          else ivals.push_back(v);
        }
        b.swap(keep);
        pos = save;
      } else if (field == 4) {
        for (size_t i = 0; i + 4 <= s.size(); i += 4) {
          float f;
          std::memcpy(&f, s.data() + i, 4);
          fvals.push_back(f);
        }
      } else if (field == 10) {
        for (size_t i = 0; i + 8 <= s.size(); i += 8) {
          double d;
          std::memcpy(&d, s.data() + i, 8);
          fvals.push_back(d);
        }
      }
    } else if (wt == 5) {
      if (pos + 4 > b.size()) fail("truncated fixed32");
      if (field == 4) {
        float f;
        std::memcpy(&f, b.data() + pos, 4);
        fvals.push_back(f);
      }
      pos += 4;
    } else if (wt == 1) {
      if (pos + 8 > b.size()) fail("truncated fixed64");
      pos += 8;
    } else {
      fail("unsupported wire type " + std::to_string(wt));
    }
  }
  DType dt;
  switch (data_type) {
    case 1: dt = float32(); break;
    case 2: dt = uint8(); break;
    case 3: dt = int8(); break;
    case 6: dt = int32(); break;
    case 7: dt = int64(); break;
    case 9: dt = boolean(); break;
    case 10: dt = float16(); break;
    case 4: dt = uint16(); break;
    case 5: dt = int16(); break;
    case 11: dt = float64(); break;
    case 12: dt = uint32(); break;
    case 13: dt = uint64(); break;
    case 0: throw ParseError(path + ": not a valid onnx.TensorProto (no data_type)");
    default: throw ParseError(path + ": TensorProto data_type " + std::to_string(data_type) + " is not supported");
  }
  NDArray a(dims, dt);
  if (!raw.empty() || (fvals.empty() && ivals.empty())) {
    if (static_cast<int64_t>(raw.size()) != a.nbytes())
      throw ParseError(path + ": TensorProto raw_data has " + std::to_string(raw.size()) + " bytes, shape " + shape_str(dims) +
                       " needs " + std::to_string(a.nbytes()));
    std::memcpy(a.raw(), raw.data(), raw.size());
  } else {
    size_t n = fvals.empty() ? ivals.size() : fvals.size();
    if (static_cast<int64_t>(n) != a.size()) throw ParseError(path + ": TensorProto holds " + std::to_string(n) + " values, shape needs " + std::to_string(a.size()));
    for (size_t i = 0; i < n; i++) a.set(static_cast<int64_t>(i), fvals.empty() ? static_cast<double>(ivals[i]) : fvals[i]);
  }
  if (name) *name = nm;
  return a;
}

NDArray read_tensor_file(const std::string &path) {
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".pb") == 0) return read_tensor_pb_file(path);
  return read_npy_file(path);
}

NDArray make_input(const Shape &shape, uint32_t seed) {
  NDArray a(shape, float32());
  uint32_t s = seed;
  float *p = a.data<float>();
  for (int64_t i = 0; i < a.size(); i++) {
    s += 0x6D2B79F5u;
    uint32_t t = s;
    t = (t ^ (t >> 15)) * (t | 1u);
    t ^= t + (t ^ (t >> 7)) * (t | 61u);
    t ^= t >> 14;
    p[i] = static_cast<float>(t >> 8) / 16777216.0f;
  }
  return a;
}

}  // namespace rt
}  // namespace tetune
