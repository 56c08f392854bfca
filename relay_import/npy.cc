#include "relay_import/npy.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "te/errors.h"

namespace tetune {
namespace relay {

namespace {
std::string descr_of(DType t) {
  if (t == float32()) return "<f4";
  if (t == float16()) return "<f2";
  if (t == int8()) return "|i1";
  if (t == uint8()) return "|u1";
  if (t == int32()) return "<i4";
  if (t == int64()) return "<i8";
  if (t == boolean()) return "|b1";
  throw DTypeError("npy: unsupported dtype " + t.str());
}
}  // namespace

NDArray read_npy(const std::string &path) {
  std::ifstream is(path, std::ios::binary);
  if (!is) throw ParseError("cannot open .npy file '" + path + "'");
  std::ostringstream ss;
  ss << is.rdbuf();
  std::string b = ss.str();
  auto bad = [&](const std::string &why) -> ParseError { return ParseError("'" + path + "' is not a supported .npy file: " + why); };
  if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) throw bad("bad magic");
  int major = static_cast<unsigned char>(b[6]);
  size_t hlen, off;
  if (major == 1) {
    hlen = static_cast<unsigned char>(b[8]) | (static_cast<unsigned char>(b[9]) << 8);
    off = 10;
  } else {
    if (b.size() < 12) throw bad("truncated header");
    hlen = 0;
    for (int i = 0; i < 4; i++) hlen |= static_cast<size_t>(static_cast<unsigned char>(b[8 + i])) << (8 * i);
    off = 12;
  }
  if (b.size() < off + hlen) throw bad("truncated header");
  std::string h = b.substr(off, hlen);
  auto field = [&](const std::string &k) {
    size_t p = h.find("'" + k + "'");
    if (p == std::string::npos) throw bad("no " + k);
    p = h.find(':', p);
    return p + 1;
  };
  size_t p = field("descr");
  size_t q1 = h.find('\'', p), q2 = h.find('\'', q1 + 1);
  std::string descr = h.substr(q1 + 1, q2 - q1 - 1);
  p = field("fortran_order");
  if (h.compare(h.find_first_not_of(' ', p), 4, "True") == 0) throw bad("Fortran order");
  p = field("shape");
  size_t l = h.find('(', p), r = h.find(')', l);
  Shape shape;
  std::stringstream ds(h.substr(l + 1, r - l - 1));
  std::string d;
  while (std::getline(ds, d, ',')) {
    if (d.find_first_not_of(' ') == std::string::npos) continue;
    shape.push_back(std::stoll(d));
  }
  DType t;
  if (descr == "<f4") t = float32();
  else if (descr == "<f2") t = float16();
  else if (descr == "|i1") t = int8();
  else if (descr == "|u1") t = uint8();
  else if (descr == "<i4") t = int32();
  else if (descr == "<i8") t = int64();
  else if (descr == "|b1") t = boolean();
  else throw bad("dtype " + descr);
  NDArray a(shape, t);
  if (b.size() < off + hlen + static_cast<size_t>(a.nbytes())) throw bad("truncated data");
  std::memcpy(a.raw(), b.data() + off + hlen, static_cast<size_t>(a.nbytes()));
  return a;
}

void write_npy(const std::string &path, const NDArray &a) {
  std::string shape = "(";
  for (size_t i = 0; i < a.shape().size(); i++) shape += std::to_string(a.shape()[i]) + (a.shape().size() == 1 ? "," : (i + 1 < a.shape().size() ? ", " : ""));
  shape += ")";
  std::string h = "{'descr': '" + descr_of(a.dtype()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  size_t total = 10 + h.size() + 1;
  h += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::ofstream os(path, std::ios::binary);
  if (!os) throw Error("cannot write '" + path + "'");
  os.write("\x93NUMPY\x01\x00", 8);
  unsigned char len[2] = {static_cast<unsigned char>(h.size() & 0xff), static_cast<unsigned char>(h.size() >> 8)};
  os.write(reinterpret_cast<char *>(len), 2);
  os << h;
  os.write(static_cast<const char *>(a.raw()), a.nbytes());
}

}  // namespace relay
}  // namespace tetune
