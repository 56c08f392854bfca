// tetune: the command line of the tensor-expression auto-tuning compiler.
#include <cstdio>
#include <exception>

#include "base/errors.h"
#include "tools/commands.h"

int main(int argc, char **argv) {
  CLI::App app{"tetune: tensor-expression auto-tuning compiler (TE schedules -> Halide 14)"};
  app.require_subcommand(1);
  tetune::cli::add_ops_command(app);
  tetune::cli::add_run_op_command(app);
  tetune::cli::add_log_command(app);
  tetune::cli::add_compare_command(app);
  tetune::cli::add_tune_op_command(app);
  tetune::cli::add_graph_command(app);
  tetune::cli::add_run_model_command(app);
  tetune::cli::add_compile_commands(app);
  tetune::cli::add_tune_model_command(app);
  tetune::cli::add_target_command(app);
  tetune::cli::add_cost_model_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  } catch (const tetune::UsageError &e) {  // an option value checked after parsing: reported as CLI11's own
    return app.exit(CLI::ValidationError(e.what()));
  } catch (const tetune::ExportCheckError &e) {  // an export refused before loading (runtime/export_check.h)
    std::fprintf(stderr, "tetune: error: %s\n", e.what());
    return 2;
  } catch (const tetune::Error &e) {
    std::fprintf(stderr, "tetune: error: %s\n", e.what());
    return 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tetune: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
