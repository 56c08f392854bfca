// Where tuning logs live.
//
// Two logs serve every command by default:
//  - the user's own log, the only one tetune writes into: $TETUNE_DB when set,
//    else $XDG_CACHE_HOME/tetune/tetune.db, else ~/.cache/tetune/tetune.db
//    (XDG Base Directory Specification: a relative XDG_CACHE_HOME is ignored);
//  - the shipped log, tuning_logs/shipped.db: records tuned by tetune's authors,
//    package data that is only ever opened read-only (TuningLog::open_read_only).
#pragma once

#include <string>

namespace tetune::tuning_log {

/**
 * The user's log: $TETUNE_DB if set and non-empty; else
 * "$XDG_CACHE_HOME/tetune/tetune.db" when XDG_CACHE_HOME is an absolute path;
 * else "$HOME/.cache/tetune/tetune.db" (HOME from the password database when
 * unset). Does not touch the file system.
 * @throws tetune::TuningLogError when no home directory can be found.
 */
std::string user_log_path();

/**
 * user_log_path(), ready to be opened for writing: when the path is the XDG
 * default (no $TETUNE_DB), its missing directories are created (mode 0700, as
 * the XDG specification asks). A $TETUNE_DB path is returned as is.
 * @throws tetune::TuningLogError naming the directory that cannot be created.
 */
std::string prepare_user_log_path();

/**
 * The shipped log, or "" when none is found. Looked up in order:
 * $TETUNE_SHIPPED_DB (set but empty: no shipped log); the runfiles of the
 * running binary (`bazel build` / `bazel run` / `bazel test` with a data
 * dependency on //tuning_logs:shipped_log); tuning_logs/shipped.db in a
 * directory above the binary; $BUILD_WORKSPACE_DIRECTORY/tuning_logs/shipped.db.
 * A symbolic link (runfiles) is resolved: the path returned is the file's.
 */
std::string shipped_log_path();

/** True when `a` and `b` name the same existing file (same device and inode). */
bool same_file(const std::string &a, const std::string &b);

/**
 * Raises tetune::TuningLogError when `path` is the shipped log (shipped_log_path()):
 * commands write only into the user's log. Whoever regenerates the shipped
 * log sets TETUNE_SHIPPED_DB= (empty) to write into it.
 */
void refuse_writing_shipped_log(const std::string &path);

}  // namespace tetune::tuning_log
