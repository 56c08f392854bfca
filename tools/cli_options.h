// Options shared by several `tetune` commands, and the checks of their
// values: a value that makes no sense is a usage error naming the option
// (CLI11's ValidationError, reported by tools/tetune_main.cc).
#pragma once

#include <memory>

#include <string>

#include <CLI/CLI.hpp>

#include "autotune/default_schedule.h"

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

/**
 * Adds the option `name` (--db unless told otherwise) naming a tuning log,
 * the one declaration of every command's --db. `what` starts the help text,
 * which goes on with the two forms a log takes: a SQLite file path, or a
 * PostgreSQL database as a libpq URI, postgresql://USER@HOST[:PORT]/DB
 * (tuning_logs/log_uri.h), that a team shares.
 */
CLI::Option *add_db_option(CLI::App *cmd, std::string &db, const std::string &what, const std::string &name = "--db");

/**
 * Adds --layout {blocked, nchw}: blocked (the default) runs convolution chains
 * in NCHW[b]c (relay::CompileOptions::blocked_layout), nchw keeps every tensor
 * in the model's layout.
 */
CLI::Option *add_layout_option(CLI::App *cmd, std::string &layout);

/**
 * Adds --cache {warm, cold, model} (autotune::CacheState: what the caches hold
 * when a timed run starts), default warm; with per_task (`tune`) also auto,
 * the default: each task as autotune::cache_state_in_model decides.
 */
CLI::Option *add_cache_option(CLI::App *cmd, std::string &cache, bool per_task = false);

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

/** What --cost-model offers, for the commands' help text. */
extern const char *const kCostModelHelp;

/**
 * The options of the default schedule of a task without a usable record
 * (autotune::default_schedule), the one place where `compile` and `run-model`
 * fill them from --cost-model: "" or "none" = the analytical default;
 * "shipped" = the shipped model (autotune/cost_model/shipped_model.h); else
 * the path of a saved XGBCostModel (`tetune cost-model train`). The model is
 * loaded into *holder, which must outlive the options. Raises UsageError
 * naming the value when the model cannot be loaded (never a silent fallback).
 */
autotune::DefaultScheduleOptions untuned_options(const std::string &cost_model,
                                                 std::unique_ptr<cost_model::CostModel> *holder);

}  // namespace cli
}  // namespace tetune
