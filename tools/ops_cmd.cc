// tetune ops: lists the operators that run-op and tune-op accept.
#include <cstdio>

#include "te/ops/registry.h"
#include "tools/commands.h"

namespace tetune {
namespace cli {

void add_ops_command(CLI::App &app) {
  auto *cmd = app.add_subcommand("ops", "List operators (name, --shape form, description)");
  cmd->callback([] {
    for (const auto &e : ops::op_registry())
      std::printf("%-18s --shape %-30s %s\n", e.name.c_str(), e.shape_help.c_str(), e.description.c_str());
  });
}

}  // namespace cli
}  // namespace tetune
