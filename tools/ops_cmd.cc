// tetune ops: lists the operators that run-op and tune-op accept (te/ops/registry.h),
// one line each: name, --shape form, an example --shape, description.
#include <algorithm>
#include <cstdio>

#include "te/ops/registry.h"
#include "tools/commands.h"

namespace tetune {
namespace cli {

void add_ops_command(CLI::App &app) {
  auto *cmd = app.add_subcommand("ops", "List operators (name, --shape form, example --shape, description)");
  cmd->callback([] {
    const auto &r = ops::op_registry();
    int name_w = 4, form_w = 10, example_w = 7;
    for (const auto &e : r) {
      name_w = std::max(name_w, static_cast<int>(e.name.size()));
      form_w = std::max(form_w, static_cast<int>(e.shape_help.size()));
      example_w = std::max(example_w, static_cast<int>(e.example.size()));
    }
    std::printf("%-*s  %-*s  %-*s  %s\n", name_w, "name", form_w, "--shape", example_w, "example", "description");
    for (const auto &e : r)
      std::printf("%-*s  %-*s  %-*s  %s\n", name_w, e.name.c_str(), form_w, e.shape_help.c_str(), example_w,
                  e.example.c_str(), e.description.c_str());
    std::printf("%zu operators. tetune run-op --op NAME --shape EXAMPLE builds, checks and times one.\n", r.size());
  });
}

}  // namespace cli
}  // namespace tetune
