// tetune: the command line of the tensor-expression auto-tuning compiler.
#include "tools/commands.h"

int main(int argc, char **argv) {
  CLI::App app{"tetune: tensor-expression auto-tuning compiler (TE schedules -> Halide 14)"};
  return tetune::cli::run_cli(app, argc, argv);
}
