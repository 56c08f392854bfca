#include <map>
#include "tuning_logs/jsonl.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "base/errors.h"
#include "tests/tuning_logs/backends.h"
#include "tests/tuning_logs/test_util.h"
#include "tuning_logs/database.h"

namespace tetune::tuning_log {
namespace {

using testing::cpu_target;
using testing::record;
using testing::workload;

// A log with two workloads on two targets, plus one failed record.
void fill(TuningLog &log) {
  TargetInfo t8 = cpu_target(8), t16 = cpu_target(16);
  log.upsert_target(t8);
  log.upsert_target(t16);
  log.upsert_workload(workload("wl_a", "matmul"));
  log.upsert_workload(workload("wl_b", "conv2d"));
  for (int i = 0; i < 4; ++i) log.add_record(record("wl_a", t8.key(), 1.0 + i, i));
  for (int i = 0; i < 3; ++i) log.add_record(record("wl_b", t16.key(), 0.3 * (i + 1), i));
  MeasureRecord bad = record("wl_a", t16.key(), 0, 9);
  bad.costs_ms = {std::numeric_limits<double>::infinity()};
  bad.median_ms = std::numeric_limits<double>::infinity();
  bad.gflops = 0;
  bad.error_code = static_cast<int>(ErrorCode::kRuntimeError);
  bad.error_msg = "out of bounds \"buf\"\nline2";
  log.add_record(bad);
}

TEST(JsonlTest, LineRoundTrip) {
  JsonlEntry e;
  e.workload = workload("wl");
  e.target = cpu_target(4);
  e.record = record("wl", e.target->key(), 0.123456789012345, 7);
  e.record.id = 17;
  std::string line = to_jsonl_line(e);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  JsonlEntry back = parse_jsonl_line(line, 1);
  EXPECT_TRUE(same_record(back.record, e.record));
  ASSERT_TRUE(back.workload && back.target);
  EXPECT_EQ(*back.workload, *e.workload);
  EXPECT_EQ(back.target->key(), e.target->key());
}

TEST(JsonlTest, ParseErrorsNameTheLine) {
  auto expect_error = [](const std::string &line, const std::string &part) {
    try {
      parse_jsonl_line(line, 12);
      ADD_FAILURE() << "no error for " << line;
    } catch (const ParseError &e) {
      std::string what = e.what();
      EXPECT_NE(what.find("line 12"), std::string::npos) << what;
      EXPECT_NE(what.find(part), std::string::npos) << what;
    }
  };
  expect_error("{not json", "invalid JSON");
  expect_error("[1,2]", "object");
  expect_error(R"({"record":{"target_key":"t","schedule_json":"","error_code":0}})",
               "workload_key");
  expect_error(R"({"record":{"workload_key":"w","target_key":"t","schedule_json":"","error_code":"x"}})",
               "error_code");
  expect_error(R"({"record":{"workload_key":"w","target_key":"t","schedule_json":"","error_code":12}})",
               "out of range");
  expect_error(R"({"target":{"kind":"llvm","threads":1},"record":{"workload_key":"w","target_key":"t","schedule_json":"","error_code":0}})",
               "differs");
  expect_error(R"({"format":"other.v9","record":{}})", "format");
}

// Issue 21, item 6: `log import` stored negative timings, which then ranked first.
TEST(JsonlTest, TimingsThatAreNotTimesNameTheLine) {
  auto line = [](const std::string &costs, const std::string &median, const std::string &gflops) {
    return R"({"record":{"workload_key":"w","target_key":"t","schedule_json":"","error_code":0,"costs_ms":)" + costs +
           R"(,"median_ms":)" + median + R"(,"gflops":)" + gflops + "}}";
  };
  auto expect_error = [](const std::string &text, const std::string &part) {
    try {
      parse_jsonl_line(text, 7);
      ADD_FAILURE() << "no error for " << text;
    } catch (const ParseError &e) {
      std::string what = e.what();
      EXPECT_NE(what.find("line 7"), std::string::npos) << what;
      EXPECT_NE(what.find(part), std::string::npos) << what;
    }
  };
  expect_error(line("[1.0,-2.5,1.0]", "1.0", "3.0"), "record.costs_ms[1] = -2.5");
  expect_error(line("[1.0,1.0,1.0]", "-1.0", "3.0"), "record.median_ms = -1.0");
  expect_error(line("[1.0,0,1.0]", "1.0", "3.0"), "record.costs_ms[1] = 0");
  expect_error(line("[1.0,1e999,1.0]", "1.0", "3.0"), "number overflow");  // JSON has no inf; 1e999 comes closest
  expect_error(line("[1.0,1.0,1.0]", "1.0", "-3.0"), "record.gflops = -3.0");
  // null stands for a failed run (an error record) and still parses.
  JsonlEntry ok = parse_jsonl_line(line("[null]", "null", "null"), 7);
  EXPECT_TRUE(std::isinf(ok.record.median_ms));
}

// Export and import through a log of each backend (backends.h).
class JsonlLogTest : public testing::BackendTest {};
INSTANTIATE_FOR_BOTH_BACKENDS(JsonlLogTest);

TEST_P(JsonlLogTest, ExportImportRoundTripAndIdempotence) {
  TuningLog src = TuningLog::open(path_);
  fill(src);
  std::stringstream out;
  EXPECT_EQ(src.export_jsonl(out), 8);
  const std::string text = out.str();

  TuningLog dst = TuningLog::open(new_location());
  std::istringstream in1(text);
  EXPECT_EQ(dst.import_jsonl(in1), 8);
  for (const auto &tk : {cpu_target(8).key(), cpu_target(16).key()}) {
    for (const auto &wk : {"wl_a", "wl_b"}) {
      auto a = src.records(wk, tk);
      auto b = dst.records(wk, tk);
      ASSERT_EQ(a.size(), b.size()) << wk << " " << tk;
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_TRUE(same_record(a[i], b[i], /*compare_id=*/false));
      }
    }
  }
  EXPECT_EQ(dst.workload("wl_b")->op_name, "conv2d");
  EXPECT_TRUE(dst.target(cpu_target(16).key()));

  // Importing again, or into the source itself, adds nothing.
  std::istringstream in2(text);
  EXPECT_EQ(dst.import_jsonl(in2), 0);
  std::istringstream in3(text);
  EXPECT_EQ(src.import_jsonl(in3), 0);
  EXPECT_EQ(dst.count_all_records(), 8);
  EXPECT_EQ(src.count_all_records(), 8);

  // A re-export is identical apart from ids.
  std::stringstream out2;
  dst.export_jsonl(out2);
  std::istringstream a(text), b(out2.str());
  std::string la, lb;
  size_t n = 0;
  while (std::getline(a, la) && std::getline(b, lb)) {
    JsonlEntry ea = parse_jsonl_line(la, ++n), eb = parse_jsonl_line(lb, n);
    EXPECT_TRUE(same_record(ea.record, eb.record, false));
  }
  EXPECT_EQ(n, 8u);
}

TEST_P(JsonlLogTest, ExportFilter) {
  TuningLog log = TuningLog::open(path_);
  fill(log);
  std::stringstream s1, s2, s3;
  EXPECT_EQ(log.export_jsonl(s1, {std::string("wl_a"), std::nullopt, false}), 5);
  EXPECT_EQ(log.export_jsonl(s2, {std::string("wl_a"), std::nullopt, true}), 4);
  EXPECT_EQ(log.export_jsonl(s3, {std::nullopt, cpu_target(16).key(), false}), 4);
}

TEST_P(JsonlLogTest, ExportTopKeepsTheFastestValidRecordsPerWorkloadAndTarget) {
  TuningLog log = TuningLog::open(path_);
  fill(log);  // wl_a/t8: 1, 2, 3, 4 ms; wl_b/t16: 0.3, 0.6, 0.9 ms; wl_a/t16: one failed record
  ExportFilter f;
  f.top = 2;
  std::stringstream out;
  EXPECT_EQ(log.export_jsonl(out, f), 4);
  TuningLog dst = TuningLog::open(new_location());
  std::istringstream in(out.str());
  EXPECT_EQ(dst.import_jsonl(in), 4);
  std::map<std::pair<std::string, std::string>, WorkloadSummary> rows;
  for (const auto &w : dst.list_workloads()) rows[{w.workload_key, w.target_key}] = w;
  auto a8 = rows.at({"wl_a", cpu_target(8).key()}), b16 = rows.at({"wl_b", cpu_target(16).key()});
  EXPECT_EQ(a8.num_records, 2);
  EXPECT_NEAR(*a8.best_median_ms, 1.0, 1e-12);
  EXPECT_EQ(b16.num_records, 2);
  EXPECT_NEAR(*b16.best_median_ms, 0.3, 1e-12);
  EXPECT_FALSE(rows.count({"wl_a", cpu_target(16).key()}));  // only a failed record there
  f.top = 0;
  std::stringstream ignored;
  EXPECT_THROW(log.export_jsonl(ignored, f), TuningLogError);
}

TEST_P(JsonlLogTest, DuplicateLinesInOneImportAreSkipped) {
  TuningLog log = TuningLog::open(path_);
  JsonlEntry e;
  e.record = record("w", "t", 1.0);
  std::string line = to_jsonl_line(e);
  std::istringstream in(line + "\n\n" + line + "\n");
  EXPECT_EQ(log.import_jsonl(in), 1);
  EXPECT_EQ(log.count_all_records(), 1);
}

TEST_P(JsonlLogTest, MalformedLineImportsNothing) {
  TuningLog src = TuningLog::open(path_);
  fill(src);
  std::stringstream out;
  src.export_jsonl(out);
  std::istringstream lines(out.str());
  std::string l1, l2, l3;
  std::getline(lines, l1);
  std::getline(lines, l2);
  std::getline(lines, l3);

  TuningLog dst = TuningLog::open(new_location());
  dst.add_record(record("existing", "t", 1.0));
  std::istringstream bad(l1 + "\n" + l2 + "\n{\"record\": {\"workload_key\": 3}\n" +
                         l3 + "\n");
  try {
    dst.import_jsonl(bad);
    FAIL() << "expected ParseError";
  } catch (const ParseError &e) {
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dst.count_all_records(), 1);
  EXPECT_FALSE(dst.workload("wl_a"));
  EXPECT_TRUE(dst.targets().empty());

  // A well-formed line whose record is invalid (bad type) also names its line.
  std::istringstream bad2(l1 + "\n" + l2 + "\n" + l3 + "\n" +
                          R"({"record":{"workload_key":"w","target_key":"t","schedule_json":{},"error_code":0}})" +
                          "\n");
  try {
    dst.import_jsonl(bad2);
    FAIL() << "expected ParseError";
  } catch (const ParseError &e) {
    EXPECT_NE(std::string(e.what()).find("line 4"), std::string::npos) << e.what();
  }
  EXPECT_EQ(dst.count_all_records(), 1);
  EXPECT_EQ(dst.integrity_check(), "ok");
}

}  // namespace
}  // namespace tetune::tuning_log
