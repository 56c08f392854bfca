#include "base/dtype.h"

#include "base/errors.h"

namespace tetune {

std::string DType::str() const {
  switch (code) {
    case Int: return "int" + std::to_string(bits);
    case UInt: return "uint" + std::to_string(bits);
    case Float: return "float" + std::to_string(bits);
    case BFloat: return "bfloat" + std::to_string(bits);
    case Bool: return "bool";
  }
  return "?";
}

DType DType::parse(const std::string &name) {
  for (DType t : {float32(), float16(), bfloat16(), int8(), int32(), int64(), uint8(), boolean(),
                  float64(), int16(), uint16(), uint32(), uint64()}) {
    if (t.str() == name) return t;
  }
  throw DTypeError("unknown dtype '" + name + "'");
}

}  // namespace tetune
