// `tetune run OUT/` and the standalone `tetune_run OUT/`: load an exported
// model with the compiler-free runtime, run it on .npy / .pb inputs (default:
// make_input.js seed 7 data), print each output's summary and the median latency.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace tetune {
namespace rt {

struct RunOptions {
  std::string dir;
  std::vector<std::string> inputs;   // NAME=file.npy|file.pb (or just a file for a one-input model)
  std::vector<std::string> outputs;  // file.npy or NAME=file.npy
  int repeat = 50;
  int warmup = 1;
  int threads = 0;  // 0 = Halide's default (HL_NUM_THREADS or the core count)
  bool json = false;  // one JSON line with the timings at the end
  int profile = 0;    // > 0: print the N kernels with the largest median time
  bool profile_warm = false;  // with profile: each kernel call also timed a second time at once (Model::set_warm_rerun)
};

/** Adds the options of RunOptions to cmd (shared by both front ends). */
void add_run_options(CLI::App *cmd, RunOptions &o);
/**
 * Runs; raises tetune::Error on failure. An export this CPU cannot run, or
 * whose files differ from manifest.json, raises ExportCheckError before its
 * library is loaded (Model::load); both front ends exit with code 2 on it.
 */
void run_exported(const RunOptions &o);
/** `tetune run` subcommand. */
void add_run_command(CLI::App &app);

}  // namespace rt
}  // namespace tetune
