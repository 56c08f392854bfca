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
                  DType{Float, 64}, DType{Int, 16}, DType{UInt, 16}, DType{UInt, 32}}) {
    if (t.str() == name) return t;
  }
  throw DTypeError("unknown dtype '" + name + "'");
}

}  // namespace tetune
