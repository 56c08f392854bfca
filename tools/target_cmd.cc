// tetune target: the CPU this runs on, what it can execute, and the Halide
// target tetune compiles "host" for (codegen/host_target.h), next to Halide
// 14's own guess, which tetune does not use.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "codegen/host_target.h"
#include "runtime/cpu_features.h"
#include "tools/cli_options.h"
#include "tools/commands.h"
#include "tuning_logs/target_info.h"

namespace tetune {
namespace cli {

namespace {

std::string joined(const std::vector<std::string> &v, const char *sep) {
  std::string out;
  for (const auto &s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace

void add_target_command(CLI::App &app) {
  auto *cmd = app.add_subcommand("target", "Print this CPU, its instruction-set extensions and the Halide target chosen for it");
  auto threads = std::make_shared<int>(0);
  add_threads_option(cmd, *threads, "thread count of the tuning-log target key shown");
  cmd->callback([threads] {
    rt::CpuidWords words = rt::read_cpuid();
    tuning_log::TargetInfo info = tuning_log::host_target_info(*threads);
    const std::set<std::string> &ext = rt::host_extensions();
    std::string target = codegen::host_halide_target();
    std::string guess = codegen::halide_builtin_host_target();
    std::printf("cpu:             %s (%s)\n", info.cpu_model.c_str(), rt::describe(words).c_str());
    std::printf("extensions:      %s\n", joined({ext.begin(), ext.end()}, " ").c_str());
    std::printf("halide target:   %s\n", target.c_str());
    std::vector<std::string> guess_lacks = codegen::host_lacks(guess);
    if (guess == target) {
      std::printf("halide's guess:  the same\n");
    } else {
      std::printf("halide's guess:  %s (not used%s)\n", guess.c_str(),
                  guess_lacks.empty() ? "" : ("; it would use " + joined(guess_lacks, ", ") + ", which this CPU lacks").c_str());
    }
    if (!codegen::host_target_note().empty()) std::printf("note:            %s\n", codegen::host_target_note().c_str());
    std::printf("log target key:  %s\n", info.key().c_str());
  });
}

}  // namespace cli
}  // namespace tetune
