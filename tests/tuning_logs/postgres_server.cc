#include "tests/tuning_logs/postgres_server.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/child_process.h"
#include "tests/tuning_logs/run_program.h"

namespace tetune::tuning_log::testing {
namespace {

constexpr const char *kRole = "tetune_test";  // the server's superuser; local connections are trusted

std::string bin(const char *program) { return std::string(kPostgresBin) + "/" + program; }

bool running_as_root() { return ::geteuid() == 0; }

// argv run as the server's user: `postgres` through runuser when root.
std::vector<std::string> as_server_user(std::vector<std::string> argv) {
  if (!running_as_root()) return argv;
  std::vector<std::string> out = {"/usr/sbin/runuser", "-u", "postgres", "--"};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

std::string file_text(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Stops the server of `dir` (if it runs) and removes the directory.
void stop_and_remove(const std::string &dir, const char *mode) {
  run_program(as_server_user({bin("pg_ctl"), "-D", dir + "/data", "-m", mode, "-w", "stop"}), 60);
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

// Stops the server when the test binary ends without stopping it.
rt::Child start_watchdog(const std::string &dir) {
  const pid_t parent = ::getpid();
  return rt::Child::spawn([dir, parent](int) {
    ::setsid();  // outlives a kill of the test's process group
    while (::getppid() == parent) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop_and_remove(dir, "immediate");
  });
}

std::unique_ptr<TestPostgres> &instance() {
  static std::unique_ptr<TestPostgres> server;
  return server;
}

rt::Child &watchdog() {
  static rt::Child child;
  return child;
}

class StopServerAtEnd : public ::testing::Environment {
 public:
  void TearDown() override {
    if (instance()) instance()->stop();
  }
};
[[maybe_unused]] ::testing::Environment *const kStopServerAtEnd =
    ::testing::AddGlobalTestEnvironment(new StopServerAtEnd);

}  // namespace

TestPostgres *TestPostgres::get(std::string *why_not) {
  static std::string failure;
  if (!instance() && failure.empty()) {
    std::unique_ptr<TestPostgres> server(new TestPostgres);
    failure = server->start();
    if (failure.empty()) instance() = std::move(server);
  }
  if (!instance()) *why_not = failure;
  return instance().get();
}

std::string TestPostgres::start() {
  if (::access(bin("initdb").c_str(), X_OK) != 0) {
    return "no PostgreSQL 15 server here (" + bin("initdb") + " is missing; Debian package postgresql-15)";
  }
  const passwd *pw = running_as_root() ? ::getpwnam("postgres") : nullptr;
  if (running_as_root() && !pw) return "running as root, and there is no `postgres` user to run the server as";
  std::string tmpl = "/tmp/tetune_pg_XXXXXX";  // short: a socket path holds at most 107 bytes
  if (!::mkdtemp(tmpl.data())) return "cannot create a directory under /tmp for the server";
  dir_ = tmpl;
  if (pw && ::chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
    std::string why = std::strerror(errno);
    std::filesystem::remove_all(dir_);
    return "cannot hand " + dir_ + " to the postgres user (" + why + "; in Bazel's sandbox, tag the test no-sandbox)";
  }
  ProgramResult init = run_program(as_server_user({bin("initdb"), "-D", dir_ + "/data", "-U", kRole, "-A", "trust",
                                                   "-E", "UTF8", "--no-locale", "--no-sync"}),
                                   120);
  if (!init.ok) {
    std::filesystem::remove_all(dir_);
    return "initdb failed (" + init.how + "): " + init.output;
  }
  watchdog() = start_watchdog(dir_);
  // fsync=off: these databases live for one test run.
  ProgramResult start = run_program(
      as_server_user({bin("pg_ctl"), "-D", dir_ + "/data", "-l", dir_ + "/server.log", "-w", "-t", "60", "-o",
                      "-k " + dir_ + " -c listen_addresses='' -c fsync=off", "start"}),
      90);
  running_ = true;
  if (!start.ok) {
    std::string why = "pg_ctl start failed (" + start.how + "): " + start.output + file_text(dir_ + "/server.log");
    stop();
    return why;
  }
  return "";
}

void TestPostgres::stop() {
  if (!running_) return;
  running_ = false;
  watchdog().reap(/*kill=*/true);
  stop_and_remove(dir_, "fast");
}

std::string TestPostgres::uri(const std::string &name) const {
  return std::string("postgresql://") + kRole + "@/" + name + "?host=" + dir_;
}

std::string TestPostgres::create_database() {
  const std::string name = "log_" + std::to_string(::getpid()) + "_" + std::to_string(++next_database_);
  run_sql(uri("postgres"), "CREATE DATABASE " + name);
  return uri(name);
}

void TestPostgres::run_sql(const std::string &uri, const std::string &sql) {
  PGconn *conn = PQconnectdb(uri.c_str());
  std::string error;
  if (PQstatus(conn) != CONNECTION_OK) {
    error = PQerrorMessage(conn);
  } else {
    PGresult *r = PQexec(conn, sql.c_str());
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) error = PQresultErrorMessage(r);
    PQclear(r);
  }
  PQfinish(conn);
  if (!error.empty()) throw std::runtime_error(uri + ": " + sql + ": " + error);
}

}  // namespace tetune::tuning_log::testing
