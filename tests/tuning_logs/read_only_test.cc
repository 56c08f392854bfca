// Read-only opens (what `log list/best/export` and `compile` use) and the
// integrity check before writing (what `tune` and `tune-op` go through).
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>

#include "base/errors.h"
#include "tests/tuning_logs/test_util.h"
#include "tuning_logs/database.h"

namespace tetune::tuning_log {
namespace {

using testing::make_temp_dir;
using testing::read_file_bytes;
using testing::record;

bool exists(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

std::string quick_check(const std::string &path) {
  sqlite3 *db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt *st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, nullptr) == SQLITE_OK) {
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) out += reinterpret_cast<const char *>(sqlite3_column_text(st, 0));
    if (rc != SQLITE_DONE) out += sqlite3_errmsg(db);
  } else {
    out = sqlite3_errmsg(db);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

// Drops CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from this thread's effective
// set for one scope, so that root, too, is held to file permissions.
class NoPermissionOverride {
 public:
  NoPermissionOverride() {
    if (::geteuid() != 0) return;
    hdr_ = {_LINUX_CAPABILITY_VERSION_3, 0};
    if (::syscall(SYS_capget, &hdr_, saved_) != 0) return;
    __user_cap_data_struct lowered[2] = {saved_[0], saved_[1]};
    lowered[0].effective &= ~((1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH));
    dropped_ = ::syscall(SYS_capset, &hdr_, lowered) == 0;
  }
  ~NoPermissionOverride() {
    if (dropped_) ::syscall(SYS_capset, &hdr_, saved_);
  }

 private:
  __user_cap_header_struct hdr_{};
  __user_cap_data_struct saved_[2]{};
  bool dropped_ = false;
};

// True when this process cannot create a file in `dir` (permissions enforced).
bool cannot_write_in(const std::string &dir) {
  std::string probe = dir + "/probe";
  std::ofstream f(probe);
  if (!f) return true;
  f.close();
  ::unlink(probe.c_str());
  return false;
}

TEST(ReadOnlyTest, MissingFileIsRefusedAndNotCreated) {
  std::string path = make_temp_dir() + "/missing.db";
  std::string what = testing::tuning_log_error([&] { TuningLog::open_read_only(path); });
  EXPECT_NE(what.find("tuning log '" + path + "': no such tuning log"), std::string::npos) << what;
  EXPECT_FALSE(exists(path));
}

TEST(ReadOnlyTest, DirectoryAndEmptyFileAreNotLogs) {
  std::string dir = make_temp_dir();
  EXPECT_NE(testing::tuning_log_error([&] { TuningLog::open_read_only(dir); }).find("is a directory"), std::string::npos);
  std::string empty = dir + "/empty.db";
  std::ofstream(empty).close();
  EXPECT_NE(testing::tuning_log_error([&] { TuningLog::open_read_only(empty); }).find("not a tuning log"), std::string::npos);
  EXPECT_EQ(read_file_bytes(empty), "");
}

TEST(ReadOnlyTest, ReadsAndRefusesWrites) {
  std::string path = make_temp_dir() + "/log.db";
  {
    TuningLog log = TuningLog::open(path);
    log.add_record(record("w", "t", 1.0));
  }
  std::string before = read_file_bytes(path);
  TuningLog ro = TuningLog::open_read_only(path);
  EXPECT_TRUE(ro.read_only());
  EXPECT_EQ(ro.count_all_records(), 1);
  EXPECT_EQ(ro.best("w", "t").size(), 1u);
  std::string what = testing::tuning_log_error([&] { ro.add_record(record("w", "t", 2.0, 1)); });
  EXPECT_NE(what.find(path), std::string::npos) << what;
  EXPECT_NE(what.find("read-only"), std::string::npos) << what;
  EXPECT_EQ(read_file_bytes(path), before);
}

// "attempt to write a readonly database" was the error before: a WAL log in a
// directory where its -shm file cannot be created.
TEST(ReadOnlyTest, WalLogInReadOnlyDirectory) {
  std::string dir = make_temp_dir() + "/ro";
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  std::string path = dir + "/log.db";
  {
    TuningLog log = TuningLog::open(path);  // WAL mode
    for (int i = 0; i < 5; i++) log.add_record(record("w", "t", 1.0 + i, i));
  }
  ASSERT_FALSE(exists(path + "-wal"));  // the last connection checkpointed and removed it
  std::string before = read_file_bytes(path);
  ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
  ASSERT_EQ(::chmod(dir.c_str(), 0555), 0);
  bool enforced;
  int64_t n = -1;
  std::string error;
  {
    NoPermissionOverride guard;
    enforced = cannot_write_in(dir);
    if (enforced) {
      try {
        n = TuningLog::open_read_only(path).count_all_records();
      } catch (const TuningLogError &e) {
        error = e.what();
      }
    }
  }
  ::chmod(dir.c_str(), 0755);
  ::chmod(path.c_str(), 0644);
  if (!enforced) GTEST_SKIP() << "file permissions are not enforced for this process (root that cannot drop CAP_DAC_OVERRIDE)";
  EXPECT_EQ(error, "");
  EXPECT_EQ(n, 5);
  EXPECT_EQ(read_file_bytes(path), before);
  EXPECT_FALSE(exists(path + "-shm"));
}

// A log whose b-tree is damaged: PRAGMA quick_check fails, and a write-open
// (what tune and tune-op do) is refused before anything is written.
TEST(IntegrityTest, DamagedLogIsRefusedBeforeWritingAndLeftUnchanged) {
  std::string path = make_temp_dir() + "/damaged.db";
  {
    TuningLog log = TuningLog::open(path);
    for (int i = 0; i < 400; i++) log.add_record(record("w" + std::to_string(i % 7), "t", 1.0 + i, i));
  }
  std::string bytes = read_file_bytes(path);
  const size_t page = 4096;
  ASSERT_GT(bytes.size(), 8 * page);
  // Overwrite the middle of pages 3..6 (b-tree pages; page 1 keeps the schema readable).
  for (size_t p = 2; p < 6; p++)
    for (size_t i = 0; i < 512; i++) bytes[p * page + 8 + i] = static_cast<char>(0xA5 ^ i);
  { std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes; }
  ASSERT_NE(quick_check(path), "ok") << "the damage did not make quick_check fail";

  std::string what = testing::tuning_log_error([&] { TuningLog::open(path); });
  EXPECT_NE(what.find("tuning log '" + path + "'"), std::string::npos) << what;
  EXPECT_NE(what.find("quick_check"), std::string::npos) << what;
  EXPECT_NE(what.find("refusing to write"), std::string::npos) << what;
  EXPECT_EQ(read_file_bytes(path), bytes);
  EXPECT_FALSE(exists(path + "-wal"));
}

TEST(IntegrityTest, HealthyLogReopensForWriting) {
  std::string path = make_temp_dir() + "/healthy.db";
  { TuningLog::open(path).add_record(record("w", "t", 1.0)); }
  TuningLog again = TuningLog::open(path);
  again.add_record(record("w", "t", 2.0, 1));
  EXPECT_EQ(again.count_all_records(), 2);
}

}  // namespace
}  // namespace tetune::tuning_log
