// Files tetune ships in its source tree (the shipped tuning log, the shipped
// cost model) found at run time from a Bazel binary, a test or an installed
// tree: the binary's runfiles ($0.runfiles, $RUNFILES_DIR, $TEST_SRCDIR), the
// directories above the binary, then $BUILD_WORKSPACE_DIRECTORY (bazel run).
#pragma once

#include <functional>
#include <string>

namespace tetune {

/** Whether `path` names a regular file. */
bool is_regular_file(const std::string &path);

/**
 * The first of the places above holding `relative` (a path inside the
 * repository, e.g. "tuning_logs/shipped.db") that `accept` takes (default: a
 * regular file), as a real path (runfiles symlinks resolved, for messages);
 * "" when none does.
 */
std::string find_package_data(const std::string &relative,
                              const std::function<bool(const std::string &)> &accept = is_regular_file);

}  // namespace tetune
