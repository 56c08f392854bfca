// Where logs live and how a command reads them: the user's log (XDG cache)
// first, then the shipped log, each opened read-only; records go only into
// the user's log.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "base/errors.h"
#include "tests/tuning_logs/test_util.h"
#include "tuning_logs/database.h"
#include "tuning_logs/log_paths.h"
#include "tuning_logs/log_set.h"

namespace tetune::tuning_log {
namespace {

using testing::cpu_target;
using testing::make_temp_dir;
using testing::read_file_bytes;
using testing::record;

bool exists(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0;
}

// Sets (or unsets, with nullptr) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    const char *old = std::getenv(name);
    had_ = old != nullptr;
    if (old) old_ = old;
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char *name_;
  bool had_;
  std::string old_;
};

// A user's cache directory and a shipped log, both in a fresh temp dir.
struct Fixture {
  std::string dir = make_temp_dir();
  std::string cache = dir + "/cache";
  std::string user = cache + "/tetune/tetune.db";
  std::string shipped = dir + "/shipped.db";
  ScopedEnv db{"TETUNE_DB", nullptr};
  ScopedEnv xdg{"XDG_CACHE_HOME", cache.c_str()};
  ScopedEnv ship{"TETUNE_SHIPPED_DB", shipped.c_str()};
};

TEST(LogPathsTest, PrepareCreatesTheXdgDirectoryOnly) {
  Fixture f;
  EXPECT_EQ(user_log_path(), f.user);
  EXPECT_FALSE(exists(f.cache));  // a query touches nothing
  EXPECT_EQ(prepare_user_log_path(), f.user);
  struct stat st;
  ASSERT_EQ(::stat((f.cache + "/tetune").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_FALSE(exists(f.user));  // the file is the log's to create

  // $TETUNE_DB's directory is the user's business: not created.
  std::string elsewhere = f.dir + "/no/such/dir/x.db";
  ScopedEnv db("TETUNE_DB", elsewhere.c_str());
  EXPECT_EQ(prepare_user_log_path(), elsewhere);
  EXPECT_FALSE(exists(f.dir + "/no"));
}

TEST(LogPathsTest, ShippedLogFromEnvironment) {
  Fixture f;
  EXPECT_EQ(shipped_log_path(), f.shipped);
  ScopedEnv off("TETUNE_SHIPPED_DB", "");
  EXPECT_EQ(shipped_log_path(), "");
}

TEST(LogPathsTest, WritingTheShippedLogIsRefused) {
  Fixture f;
  { TuningLog::open(f.shipped); }
  std::string link = f.dir + "/link.db";
  ASSERT_EQ(::symlink(f.shipped.c_str(), link.c_str()), 0);
  for (const auto &p : {f.shipped, link}) {
    try {
      refuse_writing_shipped_log(p);
      ADD_FAILURE() << p << " is the shipped log";
    } catch (const TuningLogError &e) {
      EXPECT_NE(std::string(e.what()).find("is the shipped log"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(refuse_writing_shipped_log(f.dir + "/mine.db"));
  ScopedEnv off("TETUNE_SHIPPED_DB", "");  // regenerating the shipped log
  EXPECT_NO_THROW(refuse_writing_shipped_log(f.shipped));
}

TEST(LogSetTest, ReadsUserLogFirstThenShippedAndNamesEach) {
  Fixture f;
  TargetInfo host = cpu_target(2);
  {
    TuningLog s = TuningLog::open(f.shipped);
    s.upsert_target(host);
    s.add_record(record("w_both", host.key(), 1.0));   // faster in the shipped log...
    s.add_record(record("w_shipped", host.key(), 3.0));
  }
  {
    TuningLog u = TuningLog::open(prepare_user_log_path());
    u.upsert_target(host);
    u.add_record(record("w_both", host.key(), 2.0));   // ...but the user's log is read first
  }
  const std::string shipped_bytes = read_file_bytes(f.shipped);

  LogSet logs = LogSet::open({});
  ASSERT_EQ(logs.logs().size(), 2u);
  EXPECT_EQ(logs.logs()[0].role, "user");
  EXPECT_EQ(logs.logs()[0].log.path(), f.user);
  EXPECT_EQ(logs.logs()[1].role, "shipped");
  EXPECT_EQ(logs.logs()[1].log.path(), f.shipped);
  for (const auto &l : logs.logs()) EXPECT_TRUE(l.log.read_only());

  LogSet::Best both = logs.best_with_fallback("w_both", host);
  ASSERT_NE(both.record(), nullptr);
  EXPECT_DOUBLE_EQ(both.record()->median_ms, 2.0);
  EXPECT_EQ(both.from->role, "user");
  EXPECT_NE(both.result.note.find(f.user), std::string::npos) << both.result.note;

  LogSet::Best only_shipped = logs.best_with_fallback("w_shipped", host);
  ASSERT_NE(only_shipped.record(), nullptr);
  EXPECT_EQ(only_shipped.from->role, "shipped");
  EXPECT_EQ(logs.best_with_fallback("w_none", host).record(), nullptr);

  // --no-shipped-log
  EXPECT_EQ(LogSet::open({"", false}).logs().size(), 1u);
  EXPECT_EQ(read_file_bytes(f.shipped), shipped_bytes);
}

TEST(LogSetTest, ExactTargetInShippedBeatsFallbackInUser) {
  Fixture f;
  TargetInfo host = cpu_target(2), other = cpu_target(4);
  {
    TuningLog u = TuningLog::open(prepare_user_log_path());
    u.upsert_target(other);
    u.add_record(record("w", other.key(), 0.5));
  }
  {
    TuningLog s = TuningLog::open(f.shipped);
    s.upsert_target(host);
    s.add_record(record("w", host.key(), 1.5));
  }
  LogSet::Best b = LogSet::open({}).best_with_fallback("w", host);
  ASSERT_NE(b.record(), nullptr);
  EXPECT_TRUE(b.result.exact_target);
  EXPECT_EQ(b.from->role, "shipped");
}

TEST(LogSetTest, MissingUserLogIsANoteAndCreatesNothing) {
  Fixture f;
  { TuningLog::open(f.shipped); }
  LogSet logs = LogSet::open({});
  ASSERT_EQ(logs.logs().size(), 1u);
  EXPECT_EQ(logs.logs()[0].role, "shipped");
  ASSERT_EQ(logs.notes().size(), 1u);
  EXPECT_NE(logs.notes()[0].find(f.user), std::string::npos);
  EXPECT_FALSE(exists(f.cache));
}

TEST(LogSetTest, MissingDbIsRefusedAndNotCreated) {
  Fixture f;
  std::string missing = f.dir + "/typo.db";
  try {
    LogSet::open({missing, true});
    ADD_FAILURE() << "a missing --db must be refused";
  } catch (const TuningLogError &e) {
    EXPECT_NE(std::string(e.what()).find("'" + missing + "': no such tuning log"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(exists(missing));
}

TEST(LogSetTest, ShippedLogThatIsTheUserLogIsReadOnce) {
  Fixture f;
  { TuningLog::open(f.shipped); }
  LogSet logs = LogSet::open({f.shipped, true});
  ASSERT_EQ(logs.logs().size(), 1u);
  EXPECT_EQ(logs.logs()[0].role, "user");
}

}  // namespace
}  // namespace tetune::tuning_log
