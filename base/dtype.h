// Element types of tensors and expressions.
#pragma once

#include <cstdint>
#include <string>

namespace tetune {

/** Element type: a type code and a bit width (float32 = {Float, 32}). */
struct DType {
  enum Code : uint8_t { Int, UInt, Float, BFloat, Bool };
  Code code = Float;
  int bits = 32;

  bool operator==(const DType &o) const { return code == o.code && bits == o.bits; }
  bool operator!=(const DType &o) const { return !(*this == o); }
  bool is_float() const { return code == Float || code == BFloat; }
  bool is_int() const { return code == Int; }
  bool is_uint() const { return code == UInt; }
  bool is_bool() const { return code == Bool; }
  /** Size of one element in bytes (bool is stored as one byte). */
  int bytes() const { return code == Bool ? 1 : bits / 8; }
  /** "float64", "float32", "float16", "bfloat16", "int8".."int64", "uint8".."uint64", "bool". */
  std::string str() const;
  /** Parses str(); raises DTypeError on an unknown name. */
  static DType parse(const std::string &name);
};

inline DType float64() { return {DType::Float, 64}; }
inline DType float32() { return {DType::Float, 32}; }
inline DType float16() { return {DType::Float, 16}; }
inline DType bfloat16() { return {DType::BFloat, 16}; }
inline DType int8() { return {DType::Int, 8}; }
inline DType int16() { return {DType::Int, 16}; }
inline DType int32() { return {DType::Int, 32}; }
inline DType int64() { return {DType::Int, 64}; }
inline DType uint8() { return {DType::UInt, 8}; }
inline DType uint16() { return {DType::UInt, 16}; }
inline DType uint32() { return {DType::UInt, 32}; }
inline DType uint64() { return {DType::UInt, 64}; }
inline DType boolean() { return {DType::Bool, 1}; }

}  // namespace tetune
