// A throwaway PostgreSQL 15 server for the tuning-log tests: initdb and
// pg_ctl in a fresh directory under /tmp, listening on a Unix socket in that
// directory only (no network). One server per test binary, started on first
// use and stopped (pg_ctl stop -m fast) and removed when the tests end, also
// when they fail. Should the test binary die before that (a crash, a kill),
// a watchdog process stops the server and removes the directory.
//
// As root the server runs as the `postgres` user (it refuses to run as
// root), through runuser; otherwise as the current user.
#pragma once

#include <string>

namespace tetune::tuning_log::testing {

/** Where the server's programs are (Debian's postgresql-15 package). */
inline constexpr const char *kPostgresBin = "/usr/lib/postgresql/15/bin";

class TestPostgres {
 public:
  /**
   * The server of this test binary, started on the first call. nullptr when
   * no server can run here, with *why_not saying why (initdb missing, no
   * `postgres` user for root, or the start failed with its output): tests
   * GTEST_SKIP() with that reason.
   */
  static TestPostgres *get(std::string *why_not);

  /** Creates a new, empty database and returns its URI (postgresql://...?host=DIR). */
  std::string create_database();
  /** Runs SQL statements in the database of `uri`; std::runtime_error when they fail. */
  static void run_sql(const std::string &uri, const std::string &sql);
  /** URI of the database `name` on this server. */
  std::string uri(const std::string &name) const;
  /** The directory holding the server's socket (and its data, in data/). */
  const std::string &dir() const { return dir_; }

  /** Stops the server and removes its directory (idempotent). */
  void stop();

 private:
  TestPostgres() = default;
  std::string start();  // "" on success, else why not

  std::string dir_;
  bool running_ = false;
  int next_database_ = 0;
};

}  // namespace tetune::tuning_log::testing
