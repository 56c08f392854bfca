// tetune compare A.npy B.npy: max absolute / relative difference of two arrays.
// Elements agree as te/ndarray.h elements_close says: NaN only with NaN at the same position.
#include <cmath>
#include <cstdio>

#include "runtime/io.h"
#include "base/errors.h"
#include "base/ndarray.h"
#include "tools/commands.h"

namespace tetune {
namespace cli {

namespace {
struct CompareArgs {
  std::string a, b;
  double atol = 1e-4, rtol = 1e-3;
};

void compare(const CompareArgs &c) {
  NDArray a = rt::read_npy_file(c.a), b = rt::read_npy_file(c.b);
  if (a.shape() != b.shape())
    throw ShapeError("'" + c.a + "' is " + shape_str(a.shape()) + " but '" + c.b + "' is " + shape_str(b.shape()));
  // NaN against a number differs; NaN against NaN at the same position agrees (elements_close).
  double max_abs = 0, max_rel = 0;
  int64_t bad = 0, nan_bad = 0;
  for (int64_t i = 0; i < a.size(); i++) {
    double x = a.get(i), y = b.get(i);
    if (!elements_close(x, y, c.rtol, c.atol)) {
      bad++;
      if (std::isnan(x) != std::isnan(y)) nan_bad++;
    }
    if (std::isnan(x) || std::isnan(y) || x == y) continue;
    double d = std::fabs(x - y);
    max_abs = std::max(max_abs, d);
    if (std::fabs(y) > 1e-3) max_rel = std::max(max_rel, d / std::fabs(y));
  }
  std::printf("max |a-b| = %.3g, max relative (|b| > 1e-3) = %.3g, %lld of %lld elements outside atol %.0e + rtol %.0e"
              " (%lld NaN in only one of them)\n",
              max_abs, max_rel, static_cast<long long>(bad), static_cast<long long>(a.size()), c.atol, c.rtol,
              static_cast<long long>(nan_bad));
  if (bad)
    throw RuntimeError(std::to_string(bad) + " elements differ beyond tolerance, " + std::to_string(nan_bad) +
                       " of them NaN in only one of '" + c.a + "' and '" + c.b + "'");
}
}  // namespace

void add_compare_command(CLI::App &app) {
  auto args = std::make_shared<CompareArgs>();
  auto *cmd = app.add_subcommand(
      "compare", "Max difference of two .npy arrays (non-zero exit beyond tolerance; NaN differs from any number, "
                 "NaN at the same position in both agrees)");
  cmd->add_option("a", args->a, "first .npy")->required();
  cmd->add_option("b", args->b, "second .npy (the reference)")->required();
  cmd->add_option("--atol", args->atol, "absolute tolerance");
  cmd->add_option("--rtol", args->rtol, "relative tolerance");
  cmd->callback([args] { compare(*args); });
}

}  // namespace cli
}  // namespace tetune
