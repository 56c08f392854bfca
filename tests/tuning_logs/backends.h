// Running one test on both tuning-log backends, a SQLite file and a database
// on the test binary's PostgreSQL server (postgres_server.h), or on
// PostgreSQL alone.
//
//   class DatabaseTest : public BackendTest {};
//   TEST_P(DatabaseTest, Something) { TuningLog log = TuningLog::open(path_); ... }
//   INSTANTIATE_FOR_BOTH_BACKENDS(DatabaseTest);
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tests/tuning_logs/postgres_server.h"
#include "tests/tuning_logs/test_util.h"

namespace tetune::tuning_log::testing {

enum class Backend { kSqlite, kPostgres };

/** Test name suffix: "sqlite" or "postgres". */
inline std::string backend_name(const ::testing::TestParamInfo<Backend> &info) {
  return info.param == Backend::kSqlite ? "sqlite" : "postgres";
}

/**
 * Fixture whose path_ is a fresh log location of the test's backend: a file
 * path in a new temporary directory, or the URI of a new, empty PostgreSQL
 * database. PostgreSQL tests skip, saying why, where no server can run.
 */
class BackendTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::kPostgres) {
      std::string why;
      server_ = TestPostgres::get(&why);
      if (!server_) GTEST_SKIP() << why;
    }
    path_ = new_location();
  }

  /** Another fresh location of the same backend. */
  std::string new_location() {
    return server_ ? server_->create_database() : make_temp_dir() + "/log.db";
  }

  std::string path_;
  TestPostgres *server_ = nullptr;
};

/**
 * Fixture of tests on PostgreSQL alone: server_ is the test binary's server
 * and uri_ a new, empty database on it; skips, saying why, where no server
 * can run.
 */
class PostgresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    server_ = TestPostgres::get(&why);
    if (!server_) GTEST_SKIP() << why;
    uri_ = server_->create_database();
  }

  TestPostgres *server_ = nullptr;
  std::string uri_;
};

#define INSTANTIATE_FOR_BOTH_BACKENDS(Suite)                                                       \
  INSTANTIATE_TEST_SUITE_P(Backends, Suite,                                                        \
                           ::testing::Values(::tetune::tuning_log::testing::Backend::kSqlite,      \
                                             ::tetune::tuning_log::testing::Backend::kPostgres), \
                           ::tetune::tuning_log::testing::backend_name)

}  // namespace tetune::tuning_log::testing
