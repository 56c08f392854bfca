// The JSON of rank 0 <-> worker messages (autotune/mpi/mpi_messages.h) keeps every field a record needs.
#include <gtest/gtest.h>

#include "autotune/mpi/mpi_messages.h"
#include "base/errors.h"

namespace tetune {
namespace autotune {
namespace mpi {
namespace {

TEST(MpiMessages, ResultRoundTripKeepsCostsAndError) {
  MeasureResult r;
  r.error = tuning_log::ErrorCode::kWrongAnswer;
  r.error_msg = "max error 0.5";
  r.costs_ms = {1.5, 2.5, 3.5};
  r.compile_s = 0.25;
  r.wall_s = 0.75;
  MeasureResult back = result_from_json(nlohmann::json::parse(to_json(r).dump()));
  EXPECT_EQ(back.error, r.error);
  EXPECT_EQ(back.error_msg, r.error_msg);
  EXPECT_EQ(back.costs_ms, r.costs_ms);
  EXPECT_DOUBLE_EQ(back.compile_s, 0.25);
  EXPECT_DOUBLE_EQ(back.wall_s, 0.75);
}

TEST(MpiMessages, LongErrorMessagesAreShortenedBelowTheMessageLimit) {
  MeasureResult r;
  r.error = tuning_log::ErrorCode::kCompileError;
  r.error_msg = std::string(4 * kMaxMessageBytes, 'x');
  EXPECT_LT(to_json(r).dump().size(), static_cast<size_t>(kMaxMessageBytes));
}

TEST(MpiMessages, TargetRoundTripKeepsItsKey) {
  tuning_log::TargetInfo t;
  t.kind = "llvm";
  t.cpu_model = "Some CPU | with a bar";
  t.features = "avx2,fma";
  t.threads = 3;
  t.library_versions = "halide=14.0.0";
  EXPECT_EQ(target_from_json(to_json(t)).key(), t.key());
}

TEST(MpiMessages, MissingOrBadFieldsRaiseMeasureErrorNamingThem) {
  nlohmann::json j = to_json(MeasureResult{});
  j.erase("costs_ms");
  try {
    result_from_json(j);
    FAIL() << "no error for a missing field";
  } catch (const MeasureError &e) {
    EXPECT_NE(std::string(e.what()).find("costs_ms"), std::string::npos) << e.what();
  }
  j = to_json(MeasureResult{});
  j["error"] = 99;
  EXPECT_THROW(result_from_json(j), MeasureError);
}

}  // namespace
}  // namespace mpi
}  // namespace autotune
}  // namespace tetune
