// tetune_run OUT/ [--input x=in.npy] [--repeat 50] [--threads N]: the
// standalone runner of exported models; links no Halide compiler.
#include <cstdio>
#include <exception>

#include "runtime/run_command.h"
#include "base/errors.h"

int main(int argc, char **argv) {
  CLI::App app{"tetune_run: run a model exported by `tetune compile` (no compiler linked)"};
  tetune::rt::RunOptions o;
  tetune::rt::add_run_options(&app, o);
  try {
    app.parse(argc, argv);
    tetune::rt::run_exported(o);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  } catch (const tetune::ExportCheckError &e) {  // an export refused before loading (runtime/export_check.h)
    std::fprintf(stderr, "tetune_run: error: %s\n", e.what());
    return 2;
  } catch (const tetune::Error &e) {
    std::fprintf(stderr, "tetune_run: error: %s\n", e.what());
    return 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tetune_run: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
