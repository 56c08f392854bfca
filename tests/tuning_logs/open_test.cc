// Opening files that are not tuning logs must fail loudly and leave them alone.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <fstream>

#include "base/errors.h"
#include "tests/tuning_logs/test_util.h"
#include "tuning_logs/database.h"
#include "tuning_logs/schema.h"

namespace tetune::tuning_log {
namespace {

using testing::make_temp_dir;
using testing::read_file_bytes;

bool exists(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

void write_bytes(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

void run_sql(const std::string &path, const char *sql) {
  sqlite3 *db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char *err = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << err;
  sqlite3_close(db);
}

void expect_open_fails(const std::string &path, const std::string &part) {
  try {
    TuningLog::open(path);
    ADD_FAILURE() << "opening " << path << " should fail";
  } catch (const TuningLogError &e) {
    std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(part), std::string::npos) << what;
  }
}

TEST(OpenTest, GarbageFileRaisesAndIsUnchanged) {
  std::string path = make_temp_dir() + "/garbage.db";
  std::string bytes;
  for (int i = 0; i < 8192; ++i) bytes.push_back(static_cast<char>((i * 7919) % 251));
  write_bytes(path, bytes);
  expect_open_fails(path, "");
  EXPECT_EQ(read_file_bytes(path), bytes);
  EXPECT_FALSE(exists(path + "-wal"));
  EXPECT_FALSE(exists(path + "-journal"));

  std::string text_path = make_temp_dir() + "/notes.txt";
  write_bytes(text_path, "hello, this is not a database\n");
  expect_open_fails(text_path, "");
  EXPECT_EQ(read_file_bytes(text_path), "hello, this is not a database\n");
}

TEST(OpenTest, ForeignSchemaRaisesAndIsUnchanged) {
  std::string path = make_temp_dir() + "/foreign.db";
  run_sql(path, "CREATE TABLE records (x INTEGER); INSERT INTO records VALUES (1);");
  std::string before = read_file_bytes(path);
  expect_open_fails(path, "foreign schema");
  EXPECT_EQ(read_file_bytes(path), before);

  std::string path2 = make_temp_dir() + "/foreign_meta.db";
  run_sql(path2,
          "CREATE TABLE meta (key TEXT, value TEXT);"
          "INSERT INTO meta VALUES ('application', 'someone.else');");
  std::string before2 = read_file_bytes(path2);
  expect_open_fails(path2, "foreign schema");
  EXPECT_EQ(read_file_bytes(path2), before2);
}

TEST(OpenTest, NewerSchemaVersionRaises) {
  std::string path = make_temp_dir() + "/newer.db";
  { TuningLog::open(path); }
  run_sql(path, "UPDATE meta SET value = '99' WHERE key = 'schema_version'");
  expect_open_fails(path, "schema_version 99");
}

TEST(OpenTest, MissingDirectoryRaises) {
  std::string path = make_temp_dir() + "/no/such/dir/log.db";
  expect_open_fails(path, "cannot open");
}

TEST(OpenTest, CreatesSchemaInWalModeAndReopens) {
  std::string path = make_temp_dir() + "/fresh.db";
  {
    TuningLog log = TuningLog::open(path);
    EXPECT_EQ(log.integrity_check(), "ok");
    log.add_record(testing::record("w", "t", 1.0));
  }
  sqlite3 *db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt *st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char *>(sqlite3_column_text(st, 0)), "wal");
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT value FROM meta WHERE key='schema_version'",
                               -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(sqlite3_column_text(st, 0))),
            std::to_string(kSchemaVersion));
  sqlite3_finalize(st);
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT COUNT(*) FROM sqlite_master WHERE type='index' "
                               "AND name='records_by_cost'",
                               -1, &st, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(st, 0), 1);
  sqlite3_finalize(st);
  sqlite3_close(db);

  TuningLog again = TuningLog::open(path);
  EXPECT_EQ(again.count_all_records(), 1);
}

TEST(OpenTest, EmptyFileBecomesALog) {
  std::string path = make_temp_dir() + "/empty.db";
  write_bytes(path, "");
  TuningLog log = TuningLog::open(path);
  EXPECT_EQ(log.count_all_records(), 0);
  EXPECT_EQ(log.integrity_check(), "ok");
}

}  // namespace
}  // namespace tetune::tuning_log
