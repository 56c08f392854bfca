// A tetune binary with only `tune-op` registered (the full //tools:tetune
// needs every engineer's subcommand).
#include <cstdio>

#include "base/errors.h"
#include "tools/commands.h"

int main(int argc, char **argv) {
  CLI::App app{"tetune (tune-op only)"};
  app.require_subcommand(1);
  tetune::cli::add_tune_op_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tetune: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
