#include "autotune/cost_model/cost_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "autotune/cost_model/random_cost_model.h"
#include "base/errors.h"

namespace tetune {
namespace cost_model {
namespace {

std::string tmp_path(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : testing::TempDir().c_str()) + "/" + name;
}

TEST(CheckFeatureRows, ReturnsLength) {
  EXPECT_EQ(check_feature_rows({}, "t"), 0u);
  EXPECT_EQ(check_feature_rows({{1, 2, 3}, {4, 5, 6}}, "t"), 3u);
}

TEST(CheckFeatureRows, MismatchNamesTheRow) {
  try {
    check_feature_rows({{1, 2}, {3, 4}, {5}}, "who");
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("who"), std::string::npos) << msg;
    EXPECT_NE(msg.find("row 2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("length 1"), std::string::npos) << msg;
  }
}

TEST(CheckUpdateBatch, RejectsBadBatches) {
  EXPECT_THROW(check_update_batch({{1}, {2}}, {1.0}, "t"), ShapeError);
  EXPECT_THROW(check_update_batch({{1}, {2}}, {1.0, -1.0}, "t"), Error);
  EXPECT_THROW(check_update_batch({{1}, {2}}, {1.0, NAN}, "t"), Error);
  EXPECT_THROW(check_update_batch({{1}, {2}}, {1.0, INFINITY}, "t"), Error);
  EXPECT_EQ(check_update_batch({{1, 2}, {2, 3}}, {1.0, 0.0}, "t"), 2u);
}

TEST(NormaliseThroughputs, DividesByGroupMax) {
  const auto n = normalise_throughputs({2.0, 8.0, 4.0, 0.0});
  ASSERT_EQ(n.size(), 4u);
  EXPECT_FLOAT_EQ(n[0], 0.25f);
  EXPECT_FLOAT_EQ(n[1], 1.0f);
  EXPECT_FLOAT_EQ(n[2], 0.5f);
  EXPECT_FLOAT_EQ(n[3], 0.0f);
  const auto z = normalise_throughputs({0.0, 0.0});
  EXPECT_EQ(z, std::vector<float>({0.0f, 0.0f}));
}

TEST(RandomCostModel, SeededAndUniform) {
  RandomCostModel a(7), b(7), c(8);
  const std::vector<std::vector<float>> rows(100, std::vector<float>{1.0f, 2.0f});
  const auto pa = a.predict(rows), pb = b.predict(rows), pc = c.predict(rows);
  EXPECT_EQ(pa, pb);
  EXPECT_NE(pa, pc);
  for (double s : pa) {
    EXPECT_GE(s, 0.0);
    EXPECT_LT(s, 1.0);
  }
  EXPECT_FALSE(a.trained());
  EXPECT_EQ(a.name(), "random");
  // The stream advances between calls.
  EXPECT_NE(a.predict(rows), pa);
}

TEST(RandomCostModel, ValidatesInput) {
  RandomCostModel m(1);
  EXPECT_THROW(m.predict({{1, 2}, {3}}), ShapeError);
  EXPECT_THROW(m.update({{1, 2}, {3}}, {1, 2}), ShapeError);
  EXPECT_THROW(m.update({{1}}, {-1}), Error);
  m.update({{1}, {2}}, {1, 2});
  EXPECT_FALSE(m.trained());
}

TEST(RandomCostModel, SaveLoadRestoresSeed) {
  const std::string path = tmp_path("random_model.txt");
  RandomCostModel a(123);
  const std::vector<std::vector<float>> rows(10, std::vector<float>{0.0f});
  const auto first = a.predict(rows);
  a.save(path);
  RandomCostModel b(999);
  b.load(path);
  EXPECT_EQ(b.seed(), 123u);
  EXPECT_EQ(b.predict(rows), first);
  EXPECT_THROW(b.load(tmp_path("does_not_exist.txt")), Error);
}

}  // namespace
}  // namespace cost_model
}  // namespace tetune
