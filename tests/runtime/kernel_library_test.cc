#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "runtime/kernel_library.h"
#include "base/errors.h"

namespace tetune {
namespace rt {
namespace {

std::string open_error(const std::string &path) {
  try {
    KernelLibrary::open(path);
  } catch (const RuntimeError &e) {
    return e.what();
  }
  return "";
}

TEST(KernelLibrary, BadLibrariesAreNamedInTheError) {
  std::string missing = open_error("/nonexistent/libmodel.so");
  EXPECT_NE(missing.find("/nonexistent/libmodel.so: file is missing"), std::string::npos) << missing;
  // A real shared library without tetune's kernel table.
  std::string foreign = open_error("/lib/x86_64-linux-gnu/libm.so.6");
  EXPECT_NE(foreign.find("libm.so.6: not a tetune kernel library"), std::string::npos) << foreign;
  const std::string text = std::string(std::getenv("TEST_TMPDIR")) + "/libtext.so";
  std::ofstream(text) << "not a shared library\n";
  std::string not_elf = open_error(text);
  EXPECT_NE(not_elf.find(text + ": cannot load"), std::string::npos) << not_elf;
}

TEST(KernelLibrary, DenseDimsAreInnermostFirst) {
  std::vector<halide_dimension_t> d = dense_dims({2, 3, 4});
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].extent, 4);
  EXPECT_EQ(d[0].stride, 1);
  EXPECT_EQ(d[1].extent, 3);
  EXPECT_EQ(d[1].stride, 4);
  EXPECT_EQ(d[2].extent, 2);
  EXPECT_EQ(d[2].stride, 12);
  for (const auto &x : d) EXPECT_EQ(x.min, 0);
  EXPECT_EQ(dense_dims({}).size(), 1u);  // a scalar still gets a valid dim pointer
}

TEST(KernelLibrary, HalideTypes) {
  EXPECT_EQ(halide_type_of(float32()), halide_type_t(halide_type_float, 32));
  EXPECT_EQ(halide_type_of(DType{DType::Int, 8}), halide_type_t(halide_type_int, 8));
  EXPECT_EQ(halide_type_of(DType{DType::BFloat, 16}), halide_type_t(halide_type_bfloat, 16));
  EXPECT_EQ(halide_type_of(DType{DType::Bool, 8}), halide_type_t(halide_type_uint, 1));
}

}  // namespace
}  // namespace rt
}  // namespace tetune
