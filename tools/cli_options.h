// Options shared by several `tetune` commands, and the checks of their
// values: a value that makes no sense is a usage error naming the option
// (CLI11's ValidationError, reported by tools/tetune_main.cc).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace tetune {
struct Target;

namespace cli {

/**
 * Adds --threads to cmd. Its default is the one default of every command
 * (tune, tune-op, compile, run-op, log best): this machine's cores, or
 * $HL_NUM_THREADS, from rt::SpinPool::default_threads(), so that `compile`
 * looks up the target `tune` recorded. Values outside 1..SpinPool::kMaxThreads
 * are rejected. `what` starts the help text.
 */
CLI::Option *add_threads_option(CLI::App *cmd, int &threads, const std::string &what);

/** A number > 0 and finite ("--timeout: must be a positive number, got 0"). */
const CLI::Validator &positive();
/** A number >= 0 and finite. */
const CLI::Validator &non_negative();

/**
 * Checks that `target` can be measured on this machine: a CUDA target needs
 * the NVIDIA driver and a device (cuda_device_available). Raises UsageError
 * naming `option`, the target and the reason, before any tuning starts.
 */
void require_measurable_here(const Target &target, const std::string &option);

}  // namespace cli
}  // namespace tetune
