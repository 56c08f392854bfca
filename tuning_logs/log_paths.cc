#include "tuning_logs/log_paths.h"

#include <errno.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "base/errors.h"
#include "base/package_data.h"

namespace tetune::tuning_log {
namespace {

constexpr const char *kShippedRelative = "tuning_logs/shipped.db";

const char *env(const char *name) {
  const char *v = std::getenv(name);
  return v && *v ? v : nullptr;
}

std::string home_dir() {
  if (const char *h = env("HOME")) return h;
  if (const passwd *pw = ::getpwuid(::getuid()); pw && pw->pw_dir && *pw->pw_dir) return pw->pw_dir;
  throw TuningLogError(
      "tuning log: cannot find the user's log: HOME is unset and the user has no home directory; "
      "set TETUNE_DB or XDG_CACHE_HOME");
}

// mkdir -p with `mode` for the directories it creates.
void make_dirs(const std::string &dir, mode_t mode) {
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    std::string part = dir.substr(0, pos);
    if (::mkdir(part.c_str(), mode) != 0 && errno != EEXIST) {
      throw TuningLogError("tuning log: cannot create the directory '" + part + "' for the user's log: " +
                           std::strerror(errno) + " (set TETUNE_DB to a writable path)");
    }
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw TuningLogError("tuning log: '" + dir + "' is not a directory; cannot hold the user's log");
}

}  // namespace

std::string user_log_path() {
  if (const char *db = env("TETUNE_DB")) return db;
  std::string cache;
  if (const char *x = env("XDG_CACHE_HOME"); x && x[0] == '/') cache = x;
  else cache = home_dir() + "/.cache";
  if (cache.size() > 1 && cache.back() == '/') cache.pop_back();
  return cache + "/tetune/tetune.db";
}

std::string prepare_user_log_path() {
  std::string path = user_log_path();
  if (env("TETUNE_DB")) return path;
  make_dirs(path.substr(0, path.rfind('/')), 0700);
  return path;
}

std::string shipped_log_path() {
  if (const char *v = std::getenv("TETUNE_SHIPPED_DB")) return v;  // "" turns it off
  return find_package_data(kShippedRelative);
}

void refuse_writing_shipped_log(const std::string &path) {
  const std::string shipped = shipped_log_path();
  if (!shipped.empty() && same_file(path, shipped)) {
    throw TuningLogError("tuning log '" + path + "' is the shipped log (" + shipped +
                         "), package data that tetune only reads; write into your own log: leave out --db "
                         "(default $XDG_CACHE_HOME/tetune/tetune.db) or name another file");
  }
}

bool same_file(const std::string &a, const std::string &b) {
  struct stat sa, sb;
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

}  // namespace tetune::tuning_log
