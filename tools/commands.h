// Subcommands of the `tetune` binary. Each lives in its own file and
// registers itself on the CLI11 app; errors are reported by main.
#pragma once

#include <CLI/CLI.hpp>

namespace tetune {
namespace cli {

void add_ops_command(CLI::App &app);     // tetune ops
void add_run_op_command(CLI::App &app);  // tetune run-op
void add_compare_command(CLI::App &app); // tetune compare
void add_log_command(CLI::App &app);     // tetune log list|best|export|import
void add_tune_op_command(CLI::App &app);  // tetune tune-op
void add_graph_command(CLI::App &app);      // tetune graph (tools/graph_cmds.cc)
void add_run_model_command(CLI::App &app);  // tetune run-model (tools/graph_cmds.cc)
void add_compile_commands(CLI::App &app);   // tetune compile + tetune run (tools/compile_cmds.cc)
void add_tune_model_command(CLI::App &app);  // tetune tune (tools/tune_model_cmd.cc)
void add_target_command(CLI::App &app);      // tetune target (tools/target_cmd.cc)
void add_cost_model_command(CLI::App &app);  // tetune cost-model export|train (tools/cost_model_cmd.cc)

/**
 * Registers every subcommand above on `app`, parses argv and runs the chosen
 * one (tools/run_cli.cc). Returns the exit code: 0; CLI11's for a parse or
 * usage error; 1 for a tetune::Error (printed as "tetune: error: ..."); 2 for
 * an export refused before loading or an internal error. Exceptions that are
 * neither pass through (tetune-mpi's worker ranks leave the command that way).
 */
int run_cli(CLI::App &app, int argc, char **argv);

}  // namespace cli
}  // namespace tetune
