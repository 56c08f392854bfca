// `tetune log import` moves records between a SQLite log and a PostgreSQL
// one and back, losing none; `tetune tune-op --db URI --resume` resumes from
// a PostgreSQL log. Runs the real tetune binary against the test server.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "tests/tuning_logs/backends.h"
#include "tests/tuning_logs/run_program.h"
#include "tests/tuning_logs/test_util.h"
#include "tuning_logs/database.h"

namespace tetune::tuning_log {
namespace {

using testing::cpu_target;
using testing::record;
using testing::run_program;
using testing::TestPostgres;

std::string tetune_binary() {
  const char *srcdir = std::getenv("TEST_SRCDIR");
  const char *workspace = std::getenv("TEST_WORKSPACE");
  return std::string(srcdir ? srcdir : ".") + "/" + (workspace ? workspace : "tetune") + "/tools/tetune";
}

// Runs `tetune args...`; a failure is a test failure carrying its output.
std::string tetune(const std::vector<std::string> &args, bool expect_ok = true) {
  std::vector<std::string> argv = {tetune_binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  testing::ProgramResult r = run_program(argv, 120);
  std::string command;
  for (const auto &a : args) command += " " + a;
  EXPECT_EQ(r.ok, expect_ok) << "tetune" << command << ": " << r.how << "\n" << r.output;
  return r.output;
}

// Two workloads on two targets, a failed record, a schedule measured three
// times: 11 records.
void fill(TuningLog &log) {
  TargetInfo t8 = cpu_target(8), t16 = cpu_target(16, "avx2,avx512f,fma");
  log.upsert_target(t8);
  log.upsert_target(t16);
  log.upsert_workload(testing::workload("wl_a", "matmul"));
  log.upsert_workload(testing::workload("wl_b", "conv2d"));
  for (int i = 0; i < 5; ++i) log.add_record(record("wl_a", t8.key(), 1.0 + 0.25 * i, i));
  MeasureRecord again = record("wl_a", t8.key(), 1.1, 3);  // schedule 3 re-measured
  for (int i = 0; i < 2; ++i) {
    again.timestamp_unix_ms += 1000;
    again.median_ms += 0.01;
    log.add_record(again);
  }
  for (int i = 0; i < 3; ++i) log.add_record(record("wl_b", t16.key(), 0.3 * (i + 1), i));
  MeasureRecord bad = record("wl_b", t8.key(), 0, 9);
  bad.costs_ms.clear();
  bad.median_ms = std::numeric_limits<double>::infinity();
  bad.gflops = 0;
  bad.error_code = static_cast<int>(ErrorCode::kCompileError);
  bad.error_msg = "split factor 0 \xe2\x80\x94 \"quoted\"\nsecond line";
  log.add_record(bad);
}

using Contents = std::map<std::pair<std::string, std::string>, std::vector<MeasureRecord>>;

// Every record of a log, by (workload, target), in id order.
Contents contents(const std::string &location) {
  TuningLog log = TuningLog::open_read_only(location);
  Contents out;
  for (const auto &w : log.list_workloads())
    if (!w.target_key.empty()) out[{w.workload_key, w.target_key}] = log.records(w.workload_key, w.target_key);
  return out;
}

void expect_same_records(const Contents &a, const Contents &b, const std::string &what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (const auto &[key, records] : a) {
    auto it = b.find(key);
    ASSERT_NE(it, b.end()) << what << ": " << key.first << " on " << key.second << " is missing";
    ASSERT_EQ(records.size(), it->second.size()) << what << ": " << key.first;
    for (size_t i = 0; i < records.size(); ++i)
      EXPECT_TRUE(same_record(records[i], it->second[i], /*compare_id=*/false)) << what << ": " << key.first << " #" << i;
  }
}

class LogImportTest : public testing::PostgresTest {
 protected:
  void SetUp() override {
    PostgresTest::SetUp();
    setenv("TETUNE_SHIPPED_DB", "", 1);  // never the shipped log
  }
  std::string dir_ = testing::make_temp_dir();
};

TEST_F(LogImportTest, SqliteToPostgresAndBackKeepsEveryRecord) {
  const std::string sqlite_a = dir_ + "/a.db", sqlite_b = dir_ + "/b.db", sqlite_c = dir_ + "/c.db";
  const std::string pg = uri_;
  {
    TuningLog a = TuningLog::open(sqlite_a);
    fill(a);
  }
  const Contents original = contents(sqlite_a);

  EXPECT_NE(tetune({"log", "import", "--from", sqlite_a, "--db", pg}).find("imported 11 new records into " + pg),
            std::string::npos);
  EXPECT_NE(tetune({"log", "import", "--from", sqlite_a, "--db", pg}).find("imported 0 new records"),
            std::string::npos)
      << "a second import adds nothing";
  expect_same_records(original, contents(pg), "SQLite -> PostgreSQL");

  EXPECT_NE(tetune({"log", "import", "--from", pg, "--db", sqlite_b}).find("imported 11 new records"),
            std::string::npos);
  expect_same_records(original, contents(sqlite_b), "SQLite -> PostgreSQL -> SQLite");

  // The same through a JSON lines file, and the ranking agrees on all three logs.
  tetune({"log", "export", "--db", pg, "-o", dir_ + "/pg.jsonl"});
  tetune({"log", "import", "--db", sqlite_c, dir_ + "/pg.jsonl"});
  expect_same_records(original, contents(sqlite_c), "PostgreSQL -> JSON lines -> SQLite");
  const std::string t8 = cpu_target(8).key();
  for (const std::string &location : {pg, sqlite_b}) {
    std::vector<MeasureRecord> best = TuningLog::open_read_only(location).best("wl_a", t8, 2);
    ASSERT_EQ(best.size(), 2u) << location;
    // schedule 3 measured 1.75, 1.11 and 1.12 ms: ranked first, at its middle measurement
    EXPECT_DOUBLE_EQ(best[0].median_ms, 1.12) << location;
    EXPECT_DOUBLE_EQ(best[1].median_ms, 1.0) << location;
  }
  std::string listed = tetune({"log", "list", "--db", pg});
  EXPECT_NE(listed.find("wl_a"), std::string::npos) << listed;
  EXPECT_NE(listed.find("conv2d"), std::string::npos) << listed;
}

TEST_F(LogImportTest, UnreachableSourceIsNamedWithoutItsPassword) {
  const std::string uri = "postgresql://alice:s3cretPW@/tetune?host=" + dir_ + "/no_server";
  std::string out = tetune({"log", "import", "--from", uri, "--db", dir_ + "/x.db"}, /*expect_ok=*/false);
  EXPECT_NE(out.find("postgresql://alice:***@/tetune?host="), std::string::npos) << out;
  EXPECT_EQ(out.find("s3cretPW"), std::string::npos) << out;
  out = tetune({"log", "import", "--db", dir_ + "/x.db"}, /*expect_ok=*/false);
  EXPECT_NE(out.find("--from"), std::string::npos) << out;
}

// tune-op writes into the PostgreSQL log and --resume counts its records.
TEST_F(LogImportTest, TuneOpResumesFromPostgres) {
  const std::string pg = uri_;
  const std::vector<std::string> tune = {"tune-op", "--op", "matmul", "--shape", "16,16,16", "--threads", "1",
                                         "--no-library", "--no-shipped-log", "--db", pg};
  std::vector<std::string> first = tune, second = tune;
  first.insert(first.end(), {"--trials", "3"});
  second.insert(second.end(), {"--trials", "5", "--resume"});
  tetune(first);
  EXPECT_EQ(TuningLog::open_read_only(pg).count_all_records(), 3);
  tetune(second);
  EXPECT_EQ(TuningLog::open_read_only(pg).count_all_records(), 5) << "resumed at 3 of 5 trials";
}

}  // namespace
}  // namespace tetune::tuning_log
