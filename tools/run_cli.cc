#include <cstdio>
#include <exception>

#include "base/errors.h"
#include "tools/commands.h"

namespace tetune {
namespace cli {

int run_cli(CLI::App &app, int argc, char **argv) {
  app.require_subcommand(1);
  add_ops_command(app);
  add_run_op_command(app);
  add_log_command(app);
  add_compare_command(app);
  add_tune_op_command(app);
  add_graph_command(app);
  add_run_model_command(app);
  add_compile_commands(app);
  add_tune_model_command(app);
  add_target_command(app);
  add_cost_model_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  } catch (const UsageError &e) {  // an option value checked after parsing: reported as CLI11's own
    return app.exit(CLI::ValidationError(e.what()));
  } catch (const ExportCheckError &e) {  // an export refused before loading (runtime/export_check.h)
    std::fprintf(stderr, "tetune: error: %s\n", e.what());
    return 2;
  } catch (const Error &e) {
    std::fprintf(stderr, "tetune: error: %s\n", e.what());
    return 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tetune: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}

}  // namespace cli
}  // namespace tetune
