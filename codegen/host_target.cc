#include "codegen/host_target.h"

#include <Halide.h>

#include "runtime/cpu_features.h"
#include "base/errors.h"

namespace tetune::codegen {

namespace {

// The choice for this machine, made once: the target string and its note.
const rt::X86TargetChoice &host_choice() {
  static const rt::X86TargetChoice kChoice = [] {
    try {
      Halide::Target guess = Halide::get_host_target();
      if (guess.arch != Halide::Target::X86 || guess.bits != 64) return rt::X86TargetChoice{guess.to_string(), {}, ""};
      // "x86-64-<os>" with no features gives Halide's own name of the OS.
      std::string base = Halide::Target(guess.os, guess.arch, guess.bits).to_string();
      std::string os = base.substr(base.rfind('-') + 1);
      return rt::choose_x86_target(rt::host_extensions(), os);
    } catch (const Halide::Error &e) {
      throw CodegenError(std::string("cannot determine the host target: ") + e.what());
    }
  }();
  return kChoice;
}

}  // namespace

const std::string &host_halide_target() { return host_choice().halide_target; }

const std::string &host_target_note() { return host_choice().note; }

std::string halide_builtin_host_target() { return Halide::get_host_target().to_string(); }

std::vector<std::string> host_lacks(const std::string &halide_target) {
  if (halide_target.rfind("x86-64", 0) != 0) return {};
  return rt::missing_extensions(halide_target, rt::host_extensions());
}

}  // namespace tetune::codegen
