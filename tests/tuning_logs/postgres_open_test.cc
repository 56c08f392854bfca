// Opening a PostgreSQL log: URIs that lead nowhere, passwords never shown,
// databases that are not tuning logs, read-only use, and the user's log
// ($TETUNE_DB) as a URI. What both backends share is in database_test.
#include <gtest/gtest.h>

#include <cstdlib>

#include "base/errors.h"
#include "tests/tuning_logs/backends.h"
#include "tests/tuning_logs/test_util.h"
#include "tuning_logs/database.h"
#include "tuning_logs/log_set.h"
#include "tuning_logs/log_uri.h"

namespace tetune::tuning_log {
namespace {

using testing::record;
using testing::TestPostgres;

TEST(PostgresUriTest, WhichLocationsArePostgres) {
  EXPECT_TRUE(is_postgres_uri("postgresql://u@host/db"));
  EXPECT_TRUE(is_postgres_uri("postgres://host"));
  EXPECT_FALSE(is_postgres_uri("/home/u/.cache/tetune/tetune.db"));
  EXPECT_FALSE(is_postgres_uri("postgresql.db"));
  EXPECT_EQ(redact_location("postgresql://u:pw@h:5432/db?sslmode=require"), "postgresql://u:***@h:5432/db?sslmode=require");
  EXPECT_EQ(redact_location("postgres://u@/db?host=/tmp&password=pw&x=1"), "postgres://u@/db?host=/tmp&password=***&x=1");
  EXPECT_EQ(redact_location("postgresql://u@h/db"), "postgresql://u@h/db");
  EXPECT_EQ(redact_location("/tmp/a:b@c.db"), "/tmp/a:b@c.db");
}

// No server needed: nothing listens in a socket directory that does not exist.
TEST(PostgresUriTest, UnreachableServerNamesTheUriWithoutItsPassword) {
  const std::string uri = "postgresql://alice:s3cretPW@/tetune?host=/nonexistent/tetune_socket_dir";
  for (bool read_only : {false, true}) {
    std::string what = testing::tuning_log_error([&] { read_only ? TuningLog::open_read_only(uri) : TuningLog::open(uri); });
    EXPECT_NE(what.find("tuning log 'postgresql://alice:***@/tetune?host=/nonexistent/tetune_socket_dir'"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("cannot connect"), std::string::npos) << what;
    EXPECT_EQ(what.find("s3cretPW"), std::string::npos) << what;
  }
  const std::string tcp = "postgres://bob@127.0.0.1:1/tetune?password=hunter22&connect_timeout=5";
  std::string what = testing::tuning_log_error([&] { TuningLog::open(tcp); });
  EXPECT_NE(what.find("postgres://bob@127.0.0.1:1/tetune?password=***&connect_timeout=5"), std::string::npos) << what;
  EXPECT_EQ(what.find("hunter22"), std::string::npos) << what;
}

TEST(PostgresUriTest, MalformedUriNamesIt) {
  for (const std::string uri : {"postgresql://u@h:notaport/db", "postgresql://u@h/db?no_such_option=1",
                                "postgresql://u:pw%zz@h/db"}) {
    std::string what = testing::tuning_log_error([&] { TuningLog::open(uri); });
    EXPECT_NE(what.find("tuning log '" + redact_location(uri) + "'"), std::string::npos) << what;
    EXPECT_EQ(what.find("pw%zz"), std::string::npos) << what;
  }
}

class PostgresOpenTest : public testing::PostgresTest {};

TEST_F(PostgresOpenTest, MissingDatabaseIsNamed) {
  const std::string uri = server_->uri("no_such_database");
  std::string what = testing::tuning_log_error([&] { TuningLog::open(uri); });
  EXPECT_NE(what.find("tuning log '" + uri + "'"), std::string::npos) << what;
  EXPECT_NE(what.find("does not exist"), std::string::npos) << what;
}

// The server trusts local connections, so the password is accepted and ignored.
TEST_F(PostgresOpenTest, PathShowsNoPassword) {
  std::string with_password = uri_;
  with_password.replace(with_password.find("@"), 1, ":pa55word@");
  TuningLog log = TuningLog::open(with_password);
  EXPECT_EQ(log.path().find("pa55word"), std::string::npos) << log.path();
  EXPECT_NE(log.path().find(":***@"), std::string::npos) << log.path();
  EXPECT_EQ(log.integrity_check(), "ok");
}

TEST_F(PostgresOpenTest, ForeignSchemaIsRefusedAndUnchanged) {
  TestPostgres::run_sql(uri_, "CREATE TABLE records (x INTEGER); INSERT INTO records VALUES (1)");
  std::string what = testing::tuning_log_error([&] { TuningLog::open(uri_); });
  EXPECT_NE(what.find("tuning log '" + uri_ + "'"), std::string::npos) << what;
  EXPECT_NE(what.find("foreign schema"), std::string::npos) << what;
  // Still the foreign table with its one row: a tuning log would have an id column.
  TestPostgres::run_sql(uri_, "DO $$ BEGIN IF (SELECT COUNT(*) FROM records WHERE x = 1) <> 1 THEN RAISE 'changed'; END IF; END $$");
  EXPECT_THROW(TestPostgres::run_sql(uri_, "SELECT id FROM records"), std::runtime_error);
}

TEST_F(PostgresOpenTest, NewerSchemaVersionIsRefused) {
  { TuningLog::open(uri_); }
  TestPostgres::run_sql(uri_, "UPDATE meta SET value = '99' WHERE key = 'schema_version'");
  std::string what = testing::tuning_log_error([&] { TuningLog::open(uri_); });
  EXPECT_NE(what.find("schema_version 99"), std::string::npos) << what;
}

TEST_F(PostgresOpenTest, ReadOnlyReadsAndRefusesWrites) {
  EXPECT_NE(testing::tuning_log_error([&] { TuningLog::open_read_only(uri_); }).find("not a tuning log"), std::string::npos);
  {
    TuningLog log = TuningLog::open(uri_);
    log.add_record(record("w", "t", 1.0));
  }
  TuningLog ro = TuningLog::open_read_only(uri_);
  EXPECT_TRUE(ro.read_only());
  EXPECT_EQ(ro.best("w", "t").size(), 1u);
  std::string what = testing::tuning_log_error([&] { ro.add_record(record("w", "t", 2.0, 1)); });
  EXPECT_NE(what.find("read-only"), std::string::npos) << what;
  EXPECT_EQ(TuningLog::open(uri_).count_all_records(), 1);
}

// TETUNE_DB may name a PostgreSQL log: commands read it as the user's log
// (it is not a file whose absence means "nothing tuned yet").
TEST_F(PostgresOpenTest, UserLogFromTetuneDb) {
  { TuningLog::open(uri_).add_record(record("w", "t", 1.0)); }
  const char *old = std::getenv("TETUNE_DB");
  std::string saved = old ? old : "";
  setenv("TETUNE_DB", uri_.c_str(), 1);
  LogSet logs = LogSet::open({"", /*shipped=*/false});
  if (old) setenv("TETUNE_DB", saved.c_str(), 1);
  else unsetenv("TETUNE_DB");
  ASSERT_EQ(logs.logs().size(), 1u) << logs.describe();
  EXPECT_EQ(logs.logs()[0].log.path(), uri_);
  EXPECT_EQ(logs.logs()[0].log.count_all_records(), 1);
}

}  // namespace
}  // namespace tetune::tuning_log
